/*
 * Vectorised aggregation logic unit (001 sec. 4.3, fig. 7): 256-bit wide,
 * 64-bit lanes for double (R x 4 per CGR), narrower types packed.  Computes
 * on the real payload bytes.
 */
#ifndef MF_AGLU_H
#define MF_AGLU_H

#include <stddef.h>
#include "mpifpga/wire.h"

/* acc[i] = acc[i] OP src[i] for nbytes / sizeof(dtype) elements.
 * nbytes must be a multiple of the element size.  Logical ops yield 0/1
 * in the element type; bitwise ops on float/double are invalid (not called). */
void mf_aglu_combine(mf_op_t op, mf_dtype_t t, void *acc, const void *src, size_t nbytes);
/* 1 if combining all-zero operands of nbytes is valid for (op, t) and gives
 * all-zero bytes, so a reduction of zeros need not be computed. */
int mf_aglu_zero_closed(mf_op_t op, mf_dtype_t t, size_t nbytes);
/* Elements one 256-bit AgLU vector processes per cycle for this type. */
unsigned mf_aglu_lanes(unsigned phit_bits, mf_dtype_t t);

#endif
