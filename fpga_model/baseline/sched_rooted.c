/* Baseline schedules of the rooted collectives: Bcast, Reduce, Scatter,
 * Gather (sched_int.h). */
#include <stdlib.h>

#include "baseline/sched_int.h"

/* ---- Bcast ------------------------------------------------------------ */

/* bcast_intra_binomial.c */
void bl_bcast_binomial(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size, vr = rel(rank, c->root, P), mask = 1;
    while (mask < P) {
        if (vr & mask) {
            recv(e, (rank - mask + P) % P, c->bytes, 0);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < P)
            send(e, (rank + mask) % P, c->bytes);
}

/* Bytes relative rank vr holds after MPII_Scatter_for_bcast (bcast_utils.c):
 * the root holds all; a child at distance m gets what its parent still held
 * (at most 2m chunks) beyond the parent's first m chunks. */
static uint64_t scatter_held(const mf_bl_call_t *c, int vr, uint64_t ss)
{
    if (vr == 0)
        return c->bytes;
    int m = vr & -vr;
    uint64_t parent = scatter_held(c, vr - m, ss);
    uint64_t cap = 2 * (uint64_t)m * ss;
    uint64_t had = parent < cap ? parent : cap;
    return had > (uint64_t)m * ss ? had - (uint64_t)m * ss : 0;
}

/* bcast_utils.c MPII_Scatter_for_bcast: binomial scatter of ceil(n/P) chunks. */
static void scatter_for_bcast(emit_t *e, const mf_bl_call_t *c, int rank, uint64_t ss)
{
    int P = c->size, vr = rel(rank, c->root, P), mask = 1;
    uint64_t curr = vr == 0 ? c->bytes : 0;
    while (mask < P) {
        if (vr & mask) {
            if (c->bytes > (uint64_t)vr * ss) {
                curr = scatter_held(c, vr, ss);
                recv(e, (rank - mask + P) % P, curr, 0);
            }
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < P && curr > ss * (uint64_t)mask) {
            uint64_t sz = curr - ss * (uint64_t)mask;
            send(e, (rank + mask) % P, sz);
            curr -= sz;
        }
    }
}

/* Bytes of chunks [first, first + n) of an n-byte message in ss-byte chunks. */
static uint64_t chunk_bytes(uint64_t nbytes, uint64_t ss, uint64_t first, uint64_t n)
{
    uint64_t lo = first * ss, hi = (first + n) * ss;
    if (lo >= nbytes)
        return 0;
    return (hi < nbytes ? hi : nbytes) - lo;
}

/* bcast_intra_scatter_ring_allgather.c */
void bl_bcast_scatter_ring(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size, root = c->root;
    uint64_t ss = (c->bytes + P - 1) / P;
    scatter_for_bcast(e, c, rank, ss);
    int left = (P + rank - 1) % P, right = (rank + 1) % P, j = rank, jnext = left;
    for (int i = 1; i < P; i++) {
        uint64_t lb = chunk_bytes(c->bytes, ss, (uint64_t)rel(jnext, root, P), 1);
        uint64_t rb = chunk_bytes(c->bytes, ss, (uint64_t)rel(j, root, P), 1);
        sendrecv(e, right, rb, left, lb, 0);
        j = jnext;
        jnext = (P + jnext - 1) % P;
    }
}

/* bcast_intra_scatter_recursive_doubling_allgather.c (selected for P a power
 * of two only, where its non-power-of-two branch never runs) */
void bl_bcast_scatter_rd(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size, root = c->root, vr = rel(rank, root, P);
    uint64_t ss = (c->bytes + P - 1) / P;
    scatter_for_bcast(e, c, rank, ss);
    for (int mask = 1, i = 0; mask < P; mask <<= 1, i++) {
        int vdst = vr ^ mask;
        int dst_root = vdst >> i << i, my_root = vr >> i << i;
        if (vdst < P)
            sendrecv(e, absr(vdst, root, P),
                     chunk_bytes(c->bytes, ss, (uint64_t)my_root, (uint64_t)mask),
                     absr(vdst, root, P),
                     chunk_bytes(c->bytes, ss, (uint64_t)dst_root, (uint64_t)mask), 0);
    }
}

/* ---- Reduce ----------------------------------------------------------- */

/* reduce_intra_binomial.c (commutative) */
void bl_reduce_binomial(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size, root = c->root, vr = rel(rank, root, P);
    for (int mask = 1; mask < P; mask <<= 1) {
        if ((mask & vr) == 0) {
            int src = vr | mask;
            if (src < P)
                recv(e, absr(src, root, P), c->bytes, c->bytes);
        } else {
            send(e, absr(vr & ~mask, root, P), c->bytes);
            break;
        }
    }
}

/* MPICH's cnts[] of Rabenseifner: count/pof2 elements each, the first
 * count % pof2 blocks one more; returned in bytes. */
uint64_t *bl_rab_cnts(const mf_bl_call_t *c, int pof2)
{
    uint64_t count = c->bytes / c->esize;
    uint64_t *cnts = malloc((size_t)pof2 * sizeof *cnts);
    if (!cnts)
        return NULL;
    for (int i = 0; i < pof2; i++)
        cnts[i] = (count / (uint64_t)pof2 + ((uint64_t)i < count % (uint64_t)pof2)) * c->esize;
    return cnts;
}

uint64_t bl_sum_cnts(const uint64_t *cnts, int lo, int hi)
{
    uint64_t s = 0;
    for (int i = lo; i < hi; i++)
        s += cnts[i];
    return s;
}

rab_t bl_rab_reduce_scatter(emit_t *e, const uint64_t *cnts, int pof2, int newrank, int rem,
                                int odd_base)
{
    rab_t s = {0, 0, pof2, 1};
    while (s.mask < pof2) {
        int newdst = newrank ^ s.mask;
        int dst = newdst < rem ? newdst * 2 + odd_base : newdst + rem;
        uint64_t sc, rc;
        if (newrank < newdst) {
            s.send_idx = s.recv_idx + pof2 / (s.mask * 2);
            sc = bl_sum_cnts(cnts, s.send_idx, s.last_idx);
            rc = bl_sum_cnts(cnts, s.recv_idx, s.send_idx);
        } else {
            s.recv_idx = s.send_idx + pof2 / (s.mask * 2);
            sc = bl_sum_cnts(cnts, s.send_idx, s.recv_idx);
            rc = bl_sum_cnts(cnts, s.recv_idx, s.last_idx);
        }
        sendrecv(e, dst, sc, dst, rc, rc);
        s.send_idx = s.recv_idx;
        s.mask <<= 1;
        if (s.mask < pof2)
            s.last_idx = s.recv_idx + pof2 / s.mask;
    }
    return s;
}

/* One step of the doubling phase that follows the halving (the gather of
 * Reduce, the allgather of Allreduce): bytes to send and to receive at
 * distance `mask`, block indices updated as MPICH does. */
void bl_rab_double_step(const uint64_t *cnts, int pof2, int mask, int lower, rab_t *s,
                            uint64_t *sc, uint64_t *rc)
{
    if (lower) {
        if (mask != pof2 / 2)
            s->last_idx += pof2 / (mask * 2);
        s->recv_idx = s->send_idx + pof2 / (mask * 2);
        *sc = bl_sum_cnts(cnts, s->send_idx, s->recv_idx);
        *rc = bl_sum_cnts(cnts, s->recv_idx, s->last_idx);
    } else {
        s->recv_idx = s->send_idx - pof2 / (mask * 2);
        *sc = bl_sum_cnts(cnts, s->send_idx, s->last_idx);
        *rc = bl_sum_cnts(cnts, s->recv_idx, s->send_idx);
    }
}

/* reduce_intra_reduce_scatter_gather.c */
int bl_reduce_rsg(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size, root = c->root, pof2 = pof2_floor(P), rem = P - pof2, newrank;
    uint64_t *cnts = bl_rab_cnts(c, pof2);
    if (!cnts)
        return -1;
    if (rank < 2 * rem) {
        if (rank % 2) {
            send(e, rank - 1, c->bytes);
            newrank = -1;
        } else {
            recv(e, rank + 1, c->bytes, c->bytes);
            newrank = rank / 2;
        }
    } else {
        newrank = rank - rem;
    }
    rab_t s = {0, 0, 0, 0};
    if (newrank != -1)
        s = bl_rab_reduce_scatter(e, cnts, pof2, newrank, rem, 0);
    int newroot;
    if (root < 2 * rem) {
        if (root % 2) {
            if (rank == root) {
                recv(e, 0, cnts[0], 0);
                newrank = 0, s.send_idx = 0, s.last_idx = 2;
            } else if (newrank == 0) {
                send(e, root, cnts[0]);
                newrank = -1;
            }
            newroot = 0;
        } else {
            newroot = root / 2;
        }
    } else {
        newroot = root - rem;
    }
    if (newrank != -1) {
        int j = 0, mask = 1;
        while (mask < pof2)
            mask <<= 1, j++;
        mask >>= 1, j--;
        for (; mask > 0; mask >>= 1, j--) {
            int newdst = newrank ^ mask;
            int dst = newdst < rem ? newdst * 2 : newdst + rem;
            if (newdst == 0 && root < 2 * rem && root % 2)
                dst = root;
            int dst_tree = newdst >> j << j, root_tree = newroot >> j << j;
            uint64_t sc, rc;
            bl_rab_double_step(cnts, pof2, mask, newrank < newdst, &s, &sc, &rc);
            if (dst_tree == root_tree) {
                send(e, dst, sc);
                break;
            }
            recv(e, dst, rc, 0);
            if (newrank > newdst)
                s.send_idx = s.recv_idx;
        }
    }
    free(cnts);
    return 0;
}

/* ---- Scatter, Gather, Barrier ----------------------------------------- */

/* Ranks in the binomial subtree of relative rank vr whose parent edge has
 * distance `mask`. */
static uint64_t subtree(int P, int vr, int mask)
{
    return (uint64_t)(P - vr < mask ? P - vr : mask);
}

/* scatter_intra_binomial.c */
void bl_scatter_binomial(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size, root = c->root, vr = rel(rank, root, P), mask = 1;
    while (mask < P) {
        if (vr & mask) {
            recv(e, absr(vr - mask, root, P), subtree(P, vr, mask) * c->bytes, 0);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < P)
            send(e, absr(vr + mask, root, P), subtree(P, vr + mask, mask) * c->bytes);
}

/* gather_intra_binomial.c */
void bl_gather_binomial(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size, root = c->root, vr = rel(rank, root, P);
    for (int mask = 1; mask < P; mask <<= 1) {
        if ((mask & vr) == 0) {
            int src = vr | mask;
            if (src < P)
                recv(e, absr(src, root, P), subtree(P, src, mask) * c->bytes, 0);
        } else {
            send(e, absr(vr ^ mask, root, P), subtree(P, vr, mask) * c->bytes);
            break;
        }
    }
}
