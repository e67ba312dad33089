/* make rtl-check: the C model's communicator table (fpga_model/hw/ct.c,
 * linked in) on an engine of its own, for test/rtl/lockstep_ct.cpp.  C, so
 * the harness needs none of the switch's headers. */
#ifndef MF_CT_REF_H
#define MF_CT_REF_H

#include <stddef.h>

#include "mpifpga/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mf_ct_ref mf_ct_ref_t;

/* An engine whose switch has ct_entries rows and MAX_R max_ranks; NULL if
 * out of memory. */
mf_ct_ref_t *mf_ct_ref_new(unsigned ct_entries, unsigned max_ranks);
void mf_ct_ref_delete(mf_ct_ref_t *r);
/* A collective running on row ctx (ct.c refuses to reconfigure it) or not. */
void mf_ct_ref_set_busy(mf_ct_ref_t *r, int ctx, int busy);
/* mf_ct_config, mf_ct_free, mf_ct_lookup of ct.c. */
int mf_ct_ref_config(mf_ct_ref_t *r, int ctx, const mf_ct_entry_t *e, char *err, size_t len);
int mf_ct_ref_free(mf_ct_ref_t *r, int ctx);
const mf_ct_entry_t *mf_ct_ref_lookup(const mf_ct_ref_t *r, int ctx);

#ifdef __cplusplus
}
#endif

#endif
