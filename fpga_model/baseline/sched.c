/*
 * MPICH 4.0's point-to-point schedules for the baseline (sched.h).  Each
 * function follows the loop structure of the MPICH function it names (file
 * src/mpi/coll/<coll>/<coll>_intra_<alg>.c), so a reader can put the two side
 * by side; instead of moving data it appends steps.  Sizes are bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/sched_int.h"

/* MPICH 4.0 picks algorithms with its collective-selection tree
 * (maint/tuning/coll/mpir/generic.json, compiled in; the old *_MSG_SIZE
 * CVARs are no longer read on this path).  Thresholds of that tree, for an
 * intra-communicator with one process per node; sizes are count x type size
 * ("avg_msg_size") or the total over ranks ("total_msg_size"). */
#define BCAST_SHORT_MSG_SIZE 12288       /* binomial while <= */
#define BCAST_LONG_MSG_SIZE 524288       /* scatter + rec. doubling while <= (P pof2) */
#define BCAST_MIN_PROCS 8                /* binomial below this size */
#define REDUCE_SHORT_MSG_SIZE 2048       /* binomial while <= */
#define ALLREDUCE_SHORT_MSG_SIZE 8       /* recursive doubling while <= */
#define ALLGATHER_SHORT_MSG_SIZE 81920     /* Bruck while total < (P not pof2) */
#define ALLGATHER_LONG_MSG_SIZE 524288     /* rec. doubling while total < (P pof2) */
#define REDSCAT_COMMUTATIVE_LONG_MSG_SIZE 524288 /* rec. halving while total < */
#define ALLTOALL_SHORT_MSG_SIZE 256      /* Bruck while block <= (P >= 8) */
#define ALLTOALL_MIN_PROCS 8

static const char *const alg_names[MF_BL_NALGS] = {
    "bcast_binomial", "bcast_scatter_recursive_doubling_allgather",
    "bcast_scatter_ring_allgather", "reduce_binomial", "reduce_reduce_scatter_gather",
    "allreduce_recursive_doubling", "allreduce_reduce_scatter_allgather",
    "allgather_recursive_doubling", "allgather_brucks", "allgather_ring",
    "reduce_scatter_recursive_halving", "reduce_scatter_pairwise", "scatter_binomial",
    "gather_binomial", "barrier_dissemination", "scan_recursive_doubling",
    "exscan_recursive_doubling", "alltoall_brucks", "alltoall_pairwise"};

const char *mf_bl_alg_name(mf_bl_alg_t a) { return a < MF_BL_NALGS ? alg_names[a] : "?"; }

mf_bl_alg_t mf_bl_select(const mf_bl_call_t *c)
{
    int P = c->size, pof2 = pof2_floor(P);
    uint64_t elems = c->esize ? c->bytes / c->esize : c->bytes;
    switch (c->opc) {
    case MF_OPC_BCAST:
        if (P < BCAST_MIN_PROCS || c->bytes <= BCAST_SHORT_MSG_SIZE)
            return MF_BL_BCAST_BINOMIAL;
        if (c->bytes <= BCAST_LONG_MSG_SIZE && is_pof2(P))
            return MF_BL_BCAST_SCATTER_RD_ALLGATHER;
        return MF_BL_BCAST_SCATTER_RING_ALLGATHER;
    case MF_OPC_REDUCE:
        return c->bytes > REDUCE_SHORT_MSG_SIZE && elems >= (uint64_t)pof2
                   ? MF_BL_REDUCE_SCATTER_GATHER
                   : MF_BL_REDUCE_BINOMIAL;
    case MF_OPC_ALLREDUCE:
        return c->bytes <= ALLREDUCE_SHORT_MSG_SIZE || elems < (uint64_t)pof2
                   ? MF_BL_ALLREDUCE_RECURSIVE_DOUBLING
                   : MF_BL_ALLREDUCE_REDUCE_SCATTER_ALLGATHER;
    case MF_OPC_ALLGATHER: {
        uint64_t tot = c->bytes * (uint64_t)P;
        if (tot < ALLGATHER_LONG_MSG_SIZE && is_pof2(P))
            return MF_BL_ALLGATHER_RECURSIVE_DOUBLING;
        return tot < ALLGATHER_SHORT_MSG_SIZE ? MF_BL_ALLGATHER_BRUCK : MF_BL_ALLGATHER_RING;
    }
    case MF_OPC_REDUCE_SCATTER:
        return rs_total(c) < REDSCAT_COMMUTATIVE_LONG_MSG_SIZE
                   ? MF_BL_REDUCE_SCATTER_RECURSIVE_HALVING
                   : MF_BL_REDUCE_SCATTER_PAIRWISE;
    case MF_OPC_SCATTER:
        return MF_BL_SCATTER_BINOMIAL;
    case MF_OPC_GATHER:
        return MF_BL_GATHER_BINOMIAL;
    case MF_OPC_SCAN: /* generic.json: the only flat intracommunicator choice */
        return MF_BL_SCAN_RECURSIVE_DOUBLING;
    case MF_OPC_EXSCAN:
        return MF_BL_EXSCAN_RECURSIVE_DOUBLING;
    case MF_OPC_ALLTOALL:
        /* medium blocks (<= 32 KiB) use MPICH's "scattered" isend/irecv: it
         * is modeled as the pairwise steps, whose latencies add up where
         * MPICH overlaps them (doc/model.md, deviations) */
        return P >= ALLTOALL_MIN_PROCS && c->bytes <= ALLTOALL_SHORT_MSG_SIZE
                   ? MF_BL_ALLTOALL_BRUCK
                   : MF_BL_ALLTOALL_PAIRWISE;
    default:
        return MF_BL_BARRIER_DISSEMINATION;
    }
}

void mf_bl_prog_free(mf_bl_prog_t *prog)
{
    free(prog->v);
    *prog = (mf_bl_prog_t){0};
}

/* ---- dispatch --------------------------------------------------------- */

static const char *applies(const mf_bl_call_t *c, mf_bl_alg_t alg)
{
    int P = c->size;
    uint64_t elems = c->esize ? c->bytes / c->esize : 0;
    switch (alg) {
    case MF_BL_BCAST_SCATTER_RD_ALLGATHER:
    case MF_BL_ALLGATHER_RECURSIVE_DOUBLING:
        return is_pof2(P) ? NULL : "needs a power-of-two communicator size";
    case MF_BL_REDUCE_SCATTER_GATHER:
    case MF_BL_ALLREDUCE_REDUCE_SCATTER_ALLGATHER:
        return elems >= (uint64_t)pof2_floor(P) ? NULL
                                                : "needs at least pof2(P) elements";
    default:
        return alg < MF_BL_NALGS ? NULL : "unknown algorithm";
    }
}

int mf_bl_schedule(const mf_bl_call_t *c, mf_bl_alg_t alg, int rank, mf_bl_prog_t *prog,
                   char *err, size_t errlen)
{
    emit_t e = {prog, 0};
    const char *why;
    int rc = 0;
    if (c->size < 1 || rank < 0 || rank >= c->size || c->esize == 0 ||
        c->root < 0 || c->root >= c->size) {
        snprintf(err, errlen, "bad call: size %d, rank %d, root %d, element size %zu", c->size,
                 rank, c->root, c->esize);
        return -1;
    }
    if ((why = applies(c, alg))) {
        snprintf(err, errlen, "%s does not apply (P = %d): %s", mf_bl_alg_name(alg), c->size, why);
        return -1;
    }
    if (c->size == 1)
        return 0; /* MPICH returns before any algorithm runs */
    switch (alg) {
    case MF_BL_BCAST_BINOMIAL: bl_bcast_binomial(&e, c, rank); break;
    case MF_BL_BCAST_SCATTER_RD_ALLGATHER: bl_bcast_scatter_rd(&e, c, rank); break;
    case MF_BL_BCAST_SCATTER_RING_ALLGATHER: bl_bcast_scatter_ring(&e, c, rank); break;
    case MF_BL_REDUCE_BINOMIAL: bl_reduce_binomial(&e, c, rank); break;
    case MF_BL_REDUCE_SCATTER_GATHER: rc = bl_reduce_rsg(&e, c, rank); break;
    case MF_BL_ALLREDUCE_RECURSIVE_DOUBLING: bl_allreduce_rd(&e, c, rank); break;
    case MF_BL_ALLREDUCE_REDUCE_SCATTER_ALLGATHER: rc = bl_allreduce_rsag(&e, c, rank); break;
    case MF_BL_ALLGATHER_RECURSIVE_DOUBLING: bl_allgather_rd(&e, c, rank); break;
    case MF_BL_ALLGATHER_BRUCK: bl_allgather_bruck(&e, c, rank); break;
    case MF_BL_ALLGATHER_RING: bl_allgather_ring(&e, c, rank); break;
    case MF_BL_REDUCE_SCATTER_RECURSIVE_HALVING: rc = bl_rscat_rh(&e, c, rank); break;
    case MF_BL_REDUCE_SCATTER_PAIRWISE: bl_rscat_pairwise(&e, c, rank); break;
    case MF_BL_SCATTER_BINOMIAL: bl_scatter_binomial(&e, c, rank); break;
    case MF_BL_GATHER_BINOMIAL: bl_gather_binomial(&e, c, rank); break;
    case MF_BL_BARRIER_DISSEMINATION: bl_barrier_dissemination(&e, c, rank); break;
    case MF_BL_SCAN_RECURSIVE_DOUBLING: bl_scan_rd(&e, c, rank, 0); break;
    case MF_BL_EXSCAN_RECURSIVE_DOUBLING: bl_scan_rd(&e, c, rank, 1); break;
    case MF_BL_ALLTOALL_BRUCK: bl_alltoall_bruck(&e, c, rank); break;
    case MF_BL_ALLTOALL_PAIRWISE: bl_alltoall_pairwise(&e, c, rank); break;
    default: break;
    }
    if (rc || e.oom) {
        snprintf(err, errlen, "out of memory building the %s schedule", mf_bl_alg_name(alg));
        return -1;
    }
    return 0;
}
