/*
 * Independent reference for test/test_sched.c: MPICH 4.0's intra-communicator
 * collective algorithms transcribed from MPICH's sources (pmodels/mpich,
 * src/mpi/coll/<coll>/<coll>_intra_*.c), one function per algorithm, for one
 * rank, keeping MPICH's loops, masks, index arithmetic and non-power-of-two
 * folding.  MPIC_Send / MPIC_Recv / MPIC_Sendrecv become events; a
 * MPIR_Reduce_local of n elements becomes a REDUCE event of n * esize bytes
 * (dropped when n = 0, where MPICH's call does nothing).  Contiguous
 * datatypes and commutative built-in ops only.
 *
 * Received sizes are what MPIR_Get_count would report, i.e. the size of the
 * matching send (MPI matches in order per (source, tag, comm); every message
 * of one collective has the same tag), not the posted receive count.  The
 * reference finds them by running all ranks and feeding each receive the
 * matching send of the previous run until nothing changes (ref_schedule_all).
 *
 * Also: MPICH 4.0's default choice (its MPIR-level JSON selection tree,
 * maint/tuning/coll/mpir/generic.json), for a flat communicator (one process
 * per node, so every "comm_hierarchy=parent" branch is skipped).
 */
#ifndef MF_TEST_MPICH_REF_H
#define MF_TEST_MPICH_REF_H

#include <stddef.h>
#include <stdint.h>

#include "baseline/sched.h"

typedef enum {
    REF_SEND = 1,
    REF_RECV = 2,
    REF_SENDRECV = 3,
    REF_REDUCE = 4,
    REF_EMPTY = 5 /* only produced by the test's conversion of an empty step */
} ref_kind_t;

typedef struct {
    int kind;
    int speer;       /* SEND / SENDRECV: destination, else -1 */
    uint64_t sbytes; /* bytes sent */
    int rpeer;       /* RECV / SENDRECV: source, else -1 */
    uint64_t rbytes; /* bytes received (size of the matching send) */
    uint64_t red;    /* REDUCE: operand bytes */
    /* reference only (not compared): */
    uint64_t rcap;   /* posted receive size in bytes */
    int matched;     /* the receive found its matching send */
} ref_ev_t;

typedef struct {
    ref_ev_t *v;
    int n, cap;
} ref_evlist_t;

/* MPICH 4.0's default algorithm for this call (see mpich_ref.c). */
mf_bl_alg_t ref_select(const mf_bl_call_t *c);

/* Does MPICH run `alg` for this call (1), or would it assert / is `alg` not an
 * algorithm of this collective (0, reason in err)? */
int ref_applies(const mf_bl_call_t *c, mf_bl_alg_t alg, char *err, size_t errlen);

/* Every rank's events of `alg` for this call: out[0 .. c->size-1] (reset
 * first).  Returns 0, or -1 with a message (not applicable, a receive with
 * no matching send, a message larger than its posted receive, no fixed
 * point, out of memory). */
int ref_schedule_all(const mf_bl_call_t *c, mf_bl_alg_t alg, ref_evlist_t *out, char *err,
                     size_t errlen);

void ref_evlist_free(ref_evlist_t *l);
/* Append one event; 0, or -1 out of memory. */
int ref_evl_push(ref_evlist_t *l, const ref_ev_t *e);
int ref_ev_equal(const ref_ev_t *a, const ref_ev_t *b);
/* "SENDRECV ->3 64B <-1 64B", "REDUCE 64B", ... */
void ref_ev_format(const ref_ev_t *e, char *buf, size_t len);

/* Independent of MPICH: over all ranks, the k-th send from s to q carries the
 * same bytes as the k-th receive at q from s, for every pair (s, q) (same
 * number of each).  Returns 1, or 0 with the first violation in err. */
int ref_check_pairing(const ref_evlist_t *ev, int size, char *err, size_t errlen);

/* Independent of MPICH: the programs complete when every send is synchronous
 * (a SEND finishes only once its receiver has posted the matching receive;
 * a SENDRECV needs both halves matched).  Needs ref_check_pairing to hold.
 * Returns 1, or 0 (deadlock) with the stuck ranks in err. */
int ref_check_progress(const ref_evlist_t *ev, int size, char *err, size_t errlen);

#endif
