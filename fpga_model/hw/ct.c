/*
 * Communicator table (001 sec. 3.1-3.2, fig. 4A): one row per context ID,
 * written by a CT-config packet when a communicator is created and cleared
 * by CT-free.  Rows hold only local data: size, own rank, partner sets.
 */
#include <stdio.h>
#include <string.h>

#include "hw/switch.h"

int mf_ct_config(mf_engine_t *e, int ctx, const mf_ct_entry_t *entry, char *err, size_t len)
{
    const mf_params_t *p = &e->sw->net->p;
    if (ctx < 0 || ctx >= (int)p->ct_entries) {
        snprintf(err, len, "CT row %d out of range (this switch has %u rows)", ctx,
                 p->ct_entries);
        return -1;
    }
    if (entry->size < 1 || entry->rank >= entry->size || entry->size > p->max_ranks) {
        snprintf(err, len, "CT entry invalid: size %u, rank %u (MAX_R %u)", entry->size,
                 entry->rank, p->max_ranks);
        return -1;
    }
    if (e->cur[ctx] || e->wait_head[ctx]) {
        snprintf(err, len, "CT row %d is in use by a running collective", ctx);
        return -1;
    }
    e->ct[ctx].valid = 1;
    e->ct[ctx].e = *entry;
    e->seq[ctx] = 0; /* a new communicator: its collectives count from 1 */
    return 0;
}

int mf_ct_free(mf_engine_t *e, int ctx)
{
    if (ctx < 0 || ctx >= MF_MAX_CTX || !e->ct[ctx].valid)
        return -1;
    memset(&e->ct[ctx], 0, sizeof e->ct[ctx]);
    return 0;
}

const mf_ct_entry_t *mf_ct_lookup(const mf_engine_t *e, int ctx)
{
    if (ctx < 0 || ctx >= MF_MAX_CTX || !e->ct[ctx].valid)
        return NULL;
    return &e->ct[ctx].e;
}
