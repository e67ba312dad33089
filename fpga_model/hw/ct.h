/*
 * Communicator table block (001 sec. 3.1-3.2, fig. 4A; ct.c): one row per
 * context ID, written by CT-config and cleared by CT-free.  The CCM reads
 * it through its CT port (mf_ct_port_t in hw/ports.h), wired in
 * net/network.c.
 */
#ifndef MF_HW_CT_H
#define MF_HW_CT_H

#include <stddef.h>
#include <stdint.h>
#include "mpifpga/wire.h"

typedef struct {
    uint8_t valid;
    mf_ct_entry_t e;
} mf_ct_row_t;

typedef struct {
    mf_ct_row_t row[MF_MAX_CTX];
    unsigned entries;   /* rows this switch has (CT_ENTRIES) */
    unsigned max_ranks; /* MAX_R */
} mf_ct_t;

/* Write row ctx; `busy` says a call on that context is running or queued
 * (the row is then refused).  -1 with a reason in err if refused. */
int mf_ct_config(mf_ct_t *t, int ctx, const mf_ct_entry_t *entry, int busy, char *err,
                 size_t len);
int mf_ct_free(mf_ct_t *t, int ctx);
const mf_ct_entry_t *mf_ct_lookup(const mf_ct_t *t, int ctx);
/* Write row ctx unchecked (a fat-tree aggregation engine takes its
 * children's row). */
void mf_ct_write(mf_ct_t *t, int ctx, const mf_ct_entry_t *entry);

#endif
