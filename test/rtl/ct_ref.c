/* The C model's communicator table on an engine of its own (ct_ref.h):
 * ct.c reads only the switch's parameters and the engine's per-row state,
 * so a zeroed engine, switch and network stand in for the whole model. */
#include "ct_ref.h"

#include <stdlib.h>

#include "hw/switch.h"

struct mf_ct_ref {
    mf_net_t net;
    mf_switch_t sw;
    mf_engine_t eng;
    mf_coll_t *running; /* what cur[ctx] points to on a busy row */
};

mf_ct_ref_t *mf_ct_ref_new(unsigned ct_entries, unsigned max_ranks)
{
    mf_ct_ref_t *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->net.p.ct_entries = ct_entries;
    r->net.p.max_ranks = max_ranks;
    r->sw.net = &r->net;
    r->eng.sw = &r->sw;
    r->running = (mf_coll_t *)&r->running; /* never dereferenced by ct.c */
    return r;
}

void mf_ct_ref_delete(mf_ct_ref_t *r)
{
    free(r);
}

void mf_ct_ref_set_busy(mf_ct_ref_t *r, int ctx, int busy)
{
    r->eng.cur[ctx] = busy ? r->running : NULL;
}

int mf_ct_ref_config(mf_ct_ref_t *r, int ctx, const mf_ct_entry_t *e, char *err, size_t len)
{
    return mf_ct_config(&r->eng, ctx, e, err, len);
}

int mf_ct_ref_free(mf_ct_ref_t *r, int ctx)
{
    return mf_ct_free(&r->eng, ctx);
}

const mf_ct_entry_t *mf_ct_ref_lookup(const mf_ct_ref_t *r, int ctx)
{
    return mf_ct_lookup(&r->eng, ctx);
}
