/*
 * The baseline schedules' private interface (sched.h is the public one):
 *   sched.c         MPICH's algorithm selection, dispatch
 *   sched_rooted.c  Bcast, Reduce (with the Rabenseifner phases Allreduce
 *                   shares), Scatter, Gather
 *   sched_all.c     Allreduce, Allgather, Reduce_scatter, Barrier, Scan,
 *                   Alltoall
 * A schedule function appends one rank's steps with step / send / recv.
 */
#ifndef MF_BL_SCHED_INT_H
#define MF_BL_SCHED_INT_H

#include <stdlib.h>

#include "baseline/sched.h"

static inline int pof2_floor(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

static inline int is_pof2(int n) { return n > 0 && !(n & (n - 1)); }

static inline uint64_t rs_count(const mf_bl_call_t *c, int r)
{
    return c->counts ? c->counts[r] : c->bytes;
}

static inline uint64_t rs_total(const mf_bl_call_t *c)
{
    uint64_t t = 0;
    for (int r = 0; r < c->size; r++)
        t += rs_count(c, r);
    return t;
}

/* One rank's program being built; oom once a step could not be added. */
typedef struct {
    mf_bl_prog_t *prog;
    int oom;
} emit_t;

static inline void step(emit_t *e, int to, uint64_t sb, int from, uint64_t rb, uint64_t red)
{
    mf_bl_prog_t *p = e->prog;
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        mf_bl_step_t *v = realloc(p->v, (size_t)cap * sizeof *v);
        if (!v) {
            e->oom = 1;
            return;
        }
        p->v = v, p->cap = cap;
    }
    p->v[p->n++] = (mf_bl_step_t){to, from, sb, rb, red};
}

static inline void send(emit_t *e, int to, uint64_t b) { step(e, to, b, -1, 0, 0); }
static inline void recv(emit_t *e, int from, uint64_t b, uint64_t red)
{
    step(e, -1, 0, from, b, red);
}
static inline void sendrecv(emit_t *e, int to, uint64_t sb, int from, uint64_t rb, uint64_t red)
{
    step(e, to, sb, from, rb, red);
}

static inline int rel(int rank, int root, int P) { return (rank - root + P) % P; }
static inline int absr(int vr, int root, int P) { return (vr + root) % P; }

/* The recursive-halving reduce-scatter phase shared by Reduce and Allreduce
 * (Rabenseifner); dst_of maps a new rank to a real one.  Leaves the block
 * indices where MPICH leaves them. */
typedef struct {
    int send_idx, recv_idx, last_idx, mask;
} rab_t;

/* sched_rooted.c */
void bl_bcast_binomial(emit_t *e, const mf_bl_call_t *c, int rank);
void bl_bcast_scatter_ring(emit_t *e, const mf_bl_call_t *c, int rank);
void bl_bcast_scatter_rd(emit_t *e, const mf_bl_call_t *c, int rank);
void bl_reduce_binomial(emit_t *e, const mf_bl_call_t *c, int rank);
uint64_t *bl_rab_cnts(const mf_bl_call_t *c, int pof2);
uint64_t bl_sum_cnts(const uint64_t *cnts, int lo, int hi);
rab_t bl_rab_reduce_scatter(emit_t *e, const uint64_t *cnts, int pof2, int newrank, int rem,
                           int odd_base);
void bl_rab_double_step(const uint64_t *cnts, int pof2, int mask, int lower, rab_t *s,
                        uint64_t *sc, uint64_t *rc);
int bl_reduce_rsg(emit_t *e, const mf_bl_call_t *c, int rank);
void bl_scatter_binomial(emit_t *e, const mf_bl_call_t *c, int rank);
void bl_gather_binomial(emit_t *e, const mf_bl_call_t *c, int rank);

/* sched_all.c */
void bl_allreduce_rd(emit_t *e, const mf_bl_call_t *c, int rank);
int bl_allreduce_rsag(emit_t *e, const mf_bl_call_t *c, int rank);
void bl_allgather_rd(emit_t *e, const mf_bl_call_t *c, int rank);
void bl_allgather_bruck(emit_t *e, const mf_bl_call_t *c, int rank);
void bl_allgather_ring(emit_t *e, const mf_bl_call_t *c, int rank);
int bl_rscat_rh(emit_t *e, const mf_bl_call_t *c, int rank);
void bl_rscat_pairwise(emit_t *e, const mf_bl_call_t *c, int rank);
void bl_barrier_dissemination(emit_t *e, const mf_bl_call_t *c, int rank);
void bl_scan_rd(emit_t *e, const mf_bl_call_t *c, int rank, int exclusive);
void bl_alltoall_bruck(emit_t *e, const mf_bl_call_t *c, int rank);
void bl_alltoall_pairwise(emit_t *e, const mf_bl_call_t *c, int rank);

#endif
