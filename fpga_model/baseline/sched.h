/*
 * The point-to-point schedules MPICH 4.0 runs for each collective (the
 * "baseline MPI" of 001 sec. 5-6): which algorithm MPICH's default
 * selection picks, and for one rank the sequence of blocking steps that
 * algorithm performs.  A step is what one MPIC_Send, MPIC_Recv or
 * MPIC_Sendrecv call does in MPICH's src/mpi/coll/<coll>/<coll>_intra_*.c,
 * followed by the local reduction (MPIR_Reduce_local) MPICH does on the
 * received data, if any.  Peers are communicator ranks; sizes are bytes.
 *
 * The baseline runner (baseline.c) executes these programs as messages
 * through the modeled routers and links, with LogGP host costs
 * (params/host.h).  test/test_sched.c checks them against a transcription
 * of MPICH's code.
 */
#ifndef MF_BL_SCHED_H
#define MF_BL_SCHED_H

#include <stddef.h>
#include <stdint.h>
#include "mpifpga/wire.h"

/* MPICH 4.0 intra-communicator algorithms (names as in MPICH's CVARs). */
typedef enum {
    MF_BL_BCAST_BINOMIAL = 0,
    MF_BL_BCAST_SCATTER_RD_ALLGATHER,     /* scatter_recursive_doubling_allgather */
    MF_BL_BCAST_SCATTER_RING_ALLGATHER,   /* scatter_ring_allgather */
    MF_BL_REDUCE_BINOMIAL,
    MF_BL_REDUCE_SCATTER_GATHER,          /* reduce_scatter_gather (Rabenseifner) */
    MF_BL_ALLREDUCE_RECURSIVE_DOUBLING,
    MF_BL_ALLREDUCE_REDUCE_SCATTER_ALLGATHER, /* Rabenseifner */
    MF_BL_ALLGATHER_RECURSIVE_DOUBLING,
    MF_BL_ALLGATHER_BRUCK,
    MF_BL_ALLGATHER_RING,
    MF_BL_REDUCE_SCATTER_RECURSIVE_HALVING,
    MF_BL_REDUCE_SCATTER_PAIRWISE,
    MF_BL_SCATTER_BINOMIAL,
    MF_BL_GATHER_BINOMIAL,
    MF_BL_BARRIER_DISSEMINATION,
    MF_BL_SCAN_RECURSIVE_DOUBLING,        /* scan_intra_recursive_doubling */
    MF_BL_EXSCAN_RECURSIVE_DOUBLING,      /* exscan_intra_recursive_doubling */
    MF_BL_ALLTOALL_BRUCK,                 /* alltoall_intra_brucks */
    MF_BL_ALLTOALL_PAIRWISE,              /* alltoall_intra_pairwise (and scattered, see sched.c) */
    MF_BL_NALGS
} mf_bl_alg_t;

/* One blocking step of one rank. */
typedef struct {
    int send_to;            /* comm rank, -1 = no send */
    int recv_from;          /* comm rank, -1 = no receive */
    uint64_t send_bytes;    /* may be 0 (a zero-byte message is still sent) */
    uint64_t recv_bytes;
    uint64_t reduce_bytes;  /* MPIR_Reduce_local after the step, operand bytes; 0 = none */
} mf_bl_step_t;

/* One rank's program. */
typedef struct {
    mf_bl_step_t *v;
    int n, cap;
} mf_bl_prog_t;

/* One collective call as MPICH sees it (all in bytes of the datatype,
 * element size esize; every predefined op is commutative). */
typedef struct {
    mf_opcode_t opc;
    int size;               /* communicator size P */
    int root;               /* Bcast, Reduce, Scatter, Gather */
    uint64_t bytes;         /* Bcast/Reduce/Allreduce: the vector; Scatter/Gather/
                             * Allgather: one rank's block; Reduce_scatter: unused
                             * when counts is given, else each rank's block */
    size_t esize;           /* datatype size */
    const uint64_t *counts; /* Reduce_scatter: bytes per rank (NULL = all `bytes`) */
} mf_bl_call_t;

/* MPICH 4.0's default choice for this call (its CVAR thresholds). */
mf_bl_alg_t mf_bl_select(const mf_bl_call_t *c);
const char *mf_bl_alg_name(mf_bl_alg_t a);

/* Append `rank`'s steps of algorithm `alg` to prog (prog->n is not reset).
 * Returns 0, or -1 with a message (algorithm does not apply: e.g. recursive
 * doubling allgather needs P a power of two; out of memory). */
int mf_bl_schedule(const mf_bl_call_t *c, mf_bl_alg_t alg, int rank, mf_bl_prog_t *prog,
                   char *err, size_t errlen);
void mf_bl_prog_free(mf_bl_prog_t *prog);

#endif
