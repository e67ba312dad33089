/*
 * Communicator table (001 sec. 3.1-3.2, fig. 4A): one row per context ID,
 * written by a CT-config packet when a communicator is created and cleared
 * by CT-free.  Rows hold only local data: size, own rank, partner sets.
 */
#include <stdio.h>
#include <string.h>

#include "hw/ct.h"

int mf_ct_config(mf_ct_t *t, int ctx, const mf_ct_entry_t *entry, int busy, char *err,
                 size_t len)
{
    if (ctx < 0 || ctx >= (int)t->entries) {
        snprintf(err, len, "CT row %d out of range (this switch has %u rows)", ctx, t->entries);
        return -1;
    }
    if (entry->size < 1 || entry->rank >= entry->size || entry->size > t->max_ranks) {
        snprintf(err, len, "CT entry invalid: size %u, rank %u (MAX_R %u)", entry->size,
                 entry->rank, t->max_ranks);
        return -1;
    }
    if (busy) {
        snprintf(err, len, "CT row %d is in use by a running collective", ctx);
        return -1;
    }
    mf_ct_write(t, ctx, entry);
    return 0;
}

void mf_ct_write(mf_ct_t *t, int ctx, const mf_ct_entry_t *entry)
{
    t->row[ctx].valid = 1;
    t->row[ctx].e = *entry;
}

int mf_ct_free(mf_ct_t *t, int ctx)
{
    if (ctx < 0 || ctx >= MF_MAX_CTX || !t->row[ctx].valid)
        return -1;
    memset(&t->row[ctx], 0, sizeof t->row[ctx]);
    return 0;
}

const mf_ct_entry_t *mf_ct_lookup(const mf_ct_t *t, int ctx)
{
    if (ctx < 0 || ctx >= MF_MAX_CTX || !t->row[ctx].valid)
        return NULL;
    return &t->row[ctx].e;
}
