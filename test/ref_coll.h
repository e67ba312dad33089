/*
 * Plain-C reference results of the MPI collectives, for tests (no MPI).
 * Its reduction code is a deliberately simple element-by-element switch,
 * independent of the AgLU kernels (fpga_model/hw/aglu.c) it checks.
 *
 * Buffer sizes per collective (b = c->bytes, P = nranks):
 *
 *   opcode           send bytes              recv bytes
 *   BCAST            b at root, 0 elsewhere  b (root included)
 *   REDUCE           b                       b at root, 0 elsewhere
 *   ALLREDUCE        b                       b
 *   SCATTER          P*b at root, else 0     b
 *   GATHER           b                       P*b at root, 0 elsewhere
 *   ALLGATHER        b                       P*b
 *   REDUCE_SCATTER   sum(counts)             counts[rank]
 *   ALLTOALL         P*b                     P*b: block rank of each rank
 *   SCAN             b                       b: ranks 0..rank reduced
 *   EXSCAN           b                       b: ranks 0..rank-1 (rank 0: 0)
 *   BARRIER          0                       0
 *
 * REDUCE_SCATTER: counts[i] = bytes of block i (multiples of the element
 * size); counts == NULL means every block is b bytes (vector of P*b).
 * Reductions run in rank order: ((in0 OP in1) OP in2) ...
 */
#ifndef MF_TEST_REF_COLL_H
#define MF_TEST_REF_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "mpifpga/wire.h"

typedef struct {
    mf_opcode_t opc;
    mf_op_t op;          /* reductions only */
    mf_dtype_t dtype;    /* reductions only (fill helper: element type) */
    int root;            /* rooted collectives only */
    size_t bytes;        /* per-rank block or vector bytes */
    const size_t *counts; /* reduce_scatter bytes per rank, or NULL */
} ref_coll_t;

/* Element size of t in bytes (0 if t is not a valid dtype). */
size_t ref_dtype_size(mf_dtype_t t);
/* 1 if op applies to t (bitwise ops: integer types only). */
int ref_op_valid(mf_op_t op, mf_dtype_t t);

size_t ref_send_bytes(const ref_coll_t *c, int nranks, int rank);
size_t ref_recv_bytes(const ref_coll_t *c, int nranks, int rank);

/*
 * Compute every rank's result: send[r] holds ref_send_bytes(c, P, r) bytes
 * (may be NULL if 0), recv[r] has room for ref_recv_bytes(c, P, r) bytes and
 * is only written there (a non-root's recv is untouched for REDUCE/GATHER).
 * Buffers may be unaligned.  Returns 0, or -1 on invalid arguments (nothing
 * written): bad opcode/root/op/dtype, sizes not whole elements.
 */
int ref_coll_run(const ref_coll_t *c, int nranks, const void *const *send, void **recv);

/* acc[i] = acc[i] OP src[i] over nbytes (whole elements), reference code.
 * Returns -1 (acc untouched) if op is not valid for t, else 0. */
int ref_combine(mf_op_t op, mf_dtype_t t, void *acc, const void *src, size_t nbytes);

/*
 * Deterministic input for `rank` (same seed -> same data).  For reducing
 * collectives the values make the reduction exact in any association order
 * and meaningful for c->op: small integers for sum/min/max (negative ones
 * for signed and float types), mostly 1 with sparse 2 and -1 for prod,
 * 0 / 1 / other nonzero for logical ops, random bits for bitwise ops.  For
 * the others the bytes are pseudo-random.  A trailing partial element, if
 * any, is filled with random bytes.
 */
void ref_fill_input(const ref_coll_t *c, int rank, void *buf, size_t bytes, uint64_t seed);

/* A MINLOC/MAXLOC pair lane (wire.h): value v (converted to the pair's
 * value type) and index idx; the pad bytes are left as they are. */
void ref_pair_store(mf_dtype_t t, unsigned char *e, int64_t v, int32_t idx);

#endif
