/* The C model's communicator table block on its own (ct_ref.h): ct.c is
 * one block with its own state (hw/ct.h); the busy flag of a row is what
 * the CCM would pass (a call running or queued on that context). */
#include "ct_ref.h"

#include <stdlib.h>

#include "hw/ct.h"

struct mf_ct_ref {
    mf_ct_t ct;
    uint8_t busy[MF_MAX_CTX];
};

mf_ct_ref_t *mf_ct_ref_new(unsigned ct_entries, unsigned max_ranks)
{
    mf_ct_ref_t *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->ct.entries = ct_entries;
    r->ct.max_ranks = max_ranks;
    return r;
}

void mf_ct_ref_delete(mf_ct_ref_t *r)
{
    free(r);
}

void mf_ct_ref_set_busy(mf_ct_ref_t *r, int ctx, int busy)
{
    r->busy[ctx] = (uint8_t)(busy != 0);
}

int mf_ct_ref_config(mf_ct_ref_t *r, int ctx, const mf_ct_entry_t *e, char *err, size_t len)
{
    int busy = ctx >= 0 && ctx < MF_MAX_CTX && r->busy[ctx];
    return mf_ct_config(&r->ct, ctx, e, busy, err, len);
}

int mf_ct_ref_free(mf_ct_ref_t *r, int ctx)
{
    return mf_ct_free(&r->ct, ctx);
}

const mf_ct_entry_t *mf_ct_ref_lookup(const mf_ct_ref_t *r, int ctx)
{
    return mf_ct_lookup(&r->ct, ctx);
}
