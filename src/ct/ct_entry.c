/*
 * Communicator-table entry construction (001 sec. 3.3) and MPICH-style
 * algorithm selection (include/mpifpga/ct.h).
 *
 * The host computes, once per communicator, the GLOBAL ranks this member
 * talks to in each offloaded algorithm (001 sec. 3.3: the switch only knows
 * global ranks) and ships them to its switch in a CT-config packet.
 */
#include "mpifpga/ct.h"

#include <stdio.h>
#include <string.h>

#define MF_MAX_GLOBAL_RANK 65534 /* 0xffff is MF_RANK_NONE */

int mf_log2_floor(unsigned n)
{
    if (n == 0)
        return -1;
    int k = 0;
    while (n >>= 1)
        k++;
    return k;
}

unsigned mf_pof2_floor(unsigned n)
{
    return n ? 1u << mf_log2_floor(n) : 0u;
}

static int log2_ceil(unsigned n)
{
    int k = 0;
    while ((1u << k) < n)
        k++;
    return k;
}

static int check_args(int size, int rank, const int *global_of, char *err, size_t errlen)
{
    if (size < 1 || size > 65535) {
        snprintf(err, errlen, "communicator size %d out of range (allowed 1..65535)", size);
        return -1;
    }
    if (rank < 0 || rank >= size) {
        snprintf(err, errlen, "rank %d out of range (allowed 0..%d)", rank, size - 1);
        return -1;
    }
    if (!global_of) {
        snprintf(err, errlen, "global rank map is NULL (need %d entries)", size);
        return -1;
    }
    for (int i = 0; i < size; i++) {
        if (global_of[i] < 0 || global_of[i] > MF_MAX_GLOBAL_RANK) {
            snprintf(err, errlen, "global rank %d of comm rank %d out of range (allowed 0..%d)",
                     global_of[i], i, MF_MAX_GLOBAL_RANK);
            return -1;
        }
    }
    return 0;
}

/* Binomial-tree / ring partners: comm ranks rank +- 2^k (mod size). */
static void fill_up_down(int size, int rank, const int *global_of, mf_ct_entry_t *e)
{
    for (int k = 0; k < e->levels; k++) {
        int d = 1 << k; /* < size because k < ceil(log2(size)) */
        e->up[k] = (uint16_t)global_of[(rank + d) % size];
        e->down[k] = (uint16_t)global_of[(rank - d + size) % size];
    }
}

/*
 * Recursive doubling / halving partners with MPICH's non-power-of-two fold
 * (MPIR_Allreduce_intra_recursive_doubling): the first 2*rem ranks pair up,
 * the even one of each pair hands its data to the odd one and sits out the
 * pof2 phase; survivors are renumbered 0..pof2-1 ("newrank").
 */
static void fill_hc_fold(int size, int rank, const int *global_of, mf_ct_entry_t *e)
{
    int pof2 = 1 << e->pof2_levels;
    int rem = size - pof2;
    int newrank;
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            e->fold = (uint16_t)global_of[rank + 1];
            return; /* not in the pof2 phase: hc[] stays MF_RANK_NONE */
        }
        e->fold = (uint16_t)global_of[rank - 1];
        newrank = rank / 2;
    } else {
        newrank = rank - rem;
    }
    for (int k = 0; k < e->pof2_levels; k++) {
        int newdst = newrank ^ (1 << k);
        int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
        e->hc[k] = (uint16_t)global_of[dst];
    }
}

int mf_ct_entry_build(int size, int rank, const int *global_of, mf_ct_entry_t *out,
                      char *err, size_t errlen)
{
    if (check_args(size, rank, global_of, err, errlen) < 0)
        return -1;
    mf_ct_entry_t e;
    memset(&e, 0xff, sizeof e); /* every unused partner slot is MF_RANK_NONE */
    e.size = (uint16_t)size;
    e.rank = (uint16_t)rank;
    e.levels = (uint8_t)log2_ceil((unsigned)size);
    e.pof2_levels = (uint8_t)mf_log2_floor((unsigned)size);
    e.fold = MF_RANK_NONE;
    e.global0 = (uint16_t)global_of[0];
    e.ident = 1;
    for (int i = 0; i < size; i++)
        e.ident &= global_of[i] == i;
    fill_up_down(size, rank, global_of, &e);
    fill_hc_fold(size, rank, global_of, &e);
    *out = e;
    return 0;
}

/*
 * MPICH 4.0 default CVAR thresholds (MPIR_CVAR_*), restricted to the
 * algorithms of 001 Table 1; see doc/model.md.
 */
#define BCAST_SHORT_MSG 12288     /* MPIR_CVAR_BCAST_SHORT_MSG_SIZE */
#define BCAST_MIN_PROCS 8         /* MPIR_CVAR_BCAST_MIN_PROCS */
#define BCAST_LONG_MSG 524288     /* MPIR_CVAR_BCAST_LONG_MSG_SIZE */
#define REDUCE_SHORT_MSG 2048     /* MPIR_CVAR_REDUCE_SHORT_MSG_SIZE */
#define ALLREDUCE_SHORT_MSG 2048  /* MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE */
#define ALLGATHER_LONG_MSG 524288 /* MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE */

static int is_pof2(unsigned n)
{
    return n && !(n & (n - 1));
}

mf_alg_t mf_coll_alg(mf_opcode_t opc, unsigned comm_size, uint64_t size_bytes, uint64_t elems)
{
    uint64_t pof2 = mf_pof2_floor(comm_size);
    switch (opc) {
    case MF_OPC_BCAST:
        /* generic.json's '<=', as the baseline (baseline/sched.c) */
        if (size_bytes <= BCAST_SHORT_MSG || comm_size < BCAST_MIN_PROCS)
            return MF_ALG_BINOMIAL;
        /* medium, P a power of two: scatter + recursive doubling */
        return size_bytes <= BCAST_LONG_MSG && is_pof2(comm_size) ? MF_ALG_RECURSIVE_DBL
                                                                  : MF_ALG_RING;
    case MF_OPC_REDUCE:
        return size_bytes > REDUCE_SHORT_MSG && elems >= pof2 ? MF_ALG_RABENSEIFNER
                                                              : MF_ALG_BINOMIAL;
    case MF_OPC_ALLREDUCE:
        return size_bytes <= ALLREDUCE_SHORT_MSG || elems < pof2 ? MF_ALG_RECURSIVE_DBL
                                                                 : MF_ALG_RABENSEIFNER;
    case MF_OPC_ALLGATHER:
        /* size_bytes is the per-rank block; MPICH compares the total.  Bruck
         * (short, non-pof2) is not offloaded, so ring takes its place. */
        return is_pof2(comm_size) && size_bytes * comm_size < ALLGATHER_LONG_MSG
                   ? MF_ALG_RECURSIVE_DBL
                   : MF_ALG_RING;
    case MF_OPC_REDUCE_SCATTER:
        return MF_ALG_RABENSEIFNER; /* recursive halving */
    case MF_OPC_BARRIER:
        return MF_ALG_RECURSIVE_DBL;
    case MF_OPC_SCATTER:
    case MF_OPC_GATHER:
    default:
        return MF_ALG_BINOMIAL;
    }
}

mf_alg_t mf_coll_alg_mode(mf_algo_mode_t mode, mf_opcode_t opc, unsigned comm_size,
                          uint64_t size_bytes, uint64_t elems)
{
    int tree = mf_alg_tree(opc);
    if (tree >= 0 && comm_size > 1 &&
        (mode == MF_ALGO_TREE ||
         (mode == MF_ALGO_AUTO && (opc != MF_OPC_ALLREDUCE || size_bytes > ALLREDUCE_SHORT_MSG))))
        return (mf_alg_t)tree;
    return mf_coll_alg(opc, comm_size, size_bytes, elems);
}

int mf_algo_mode_parse(const char *s, mf_algo_mode_t *mode)
{
    static const char *const names[] = {"paper", "tree", "auto"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, names[i])) {
            *mode = (mf_algo_mode_t)i;
            return 0;
        }
    return -1;
}
