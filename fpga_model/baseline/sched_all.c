/* Baseline schedules of the collectives every rank gets a result of:
 * Allreduce, Allgather, Reduce_scatter, Barrier, Scan, Alltoall
 * (sched_int.h). */
#include <stdlib.h>

#include "baseline/sched_int.h"

/* ---- Allreduce -------------------------------------------------------- */

/* The non-power-of-two fold of allreduce_intra_*: even ranks < 2 rem hand
 * their vector to rank + 1.  Returns the new rank (-1: sits out). */
static int allreduce_fold(emit_t *e, const mf_bl_call_t *c, int rank, int rem)
{
    if (rank >= 2 * rem)
        return rank - rem;
    if (rank % 2 == 0) {
        send(e, rank + 1, c->bytes);
        return -1;
    }
    recv(e, rank - 1, c->bytes, c->bytes);
    return rank / 2;
}

static void allreduce_unfold(emit_t *e, const mf_bl_call_t *c, int rank, int rem)
{
    if (rank < 2 * rem) {
        if (rank % 2)
            send(e, rank - 1, c->bytes);
        else
            recv(e, rank + 1, c->bytes, 0);
    }
}

/* allreduce_intra_recursive_doubling.c */
void bl_allreduce_rd(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size, pof2 = pof2_floor(P), rem = P - pof2;
    int newrank = allreduce_fold(e, c, rank, rem);
    for (int mask = 1; newrank != -1 && mask < pof2; mask <<= 1) {
        int newdst = newrank ^ mask;
        int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
        sendrecv(e, dst, c->bytes, dst, c->bytes, c->bytes);
    }
    allreduce_unfold(e, c, rank, rem);
}

/* allreduce_intra_reduce_scatter_allgather.c */
int bl_allreduce_rsag(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size, pof2 = pof2_floor(P), rem = P - pof2;
    int newrank = allreduce_fold(e, c, rank, rem);
    if (newrank != -1) {
        uint64_t *cnts = bl_rab_cnts(c, pof2);
        if (!cnts)
            return -1;
        rab_t s = bl_rab_reduce_scatter(e, cnts, pof2, newrank, rem, 1);
        for (int mask = s.mask >> 1; mask > 0; mask >>= 1) {
            int newdst = newrank ^ mask;
            int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
            uint64_t sc, rc;
            bl_rab_double_step(cnts, pof2, mask, newrank < newdst, &s, &sc, &rc);
            sendrecv(e, dst, sc, dst, rc, 0);
            if (newrank > newdst)
                s.send_idx = s.recv_idx;
        }
        free(cnts);
    }
    allreduce_unfold(e, c, rank, rem);
    return 0;
}

/* ---- Allgather -------------------------------------------------------- */

/* allgather_intra_recursive_doubling.c (P a power of two) */
void bl_allgather_rd(emit_t *e, const mf_bl_call_t *c, int rank)
{
    uint64_t curr = c->bytes;
    for (int mask = 1; mask < c->size; mask <<= 1) {
        int dst = rank ^ mask;
        sendrecv(e, dst, curr, dst, curr, 0);
        curr *= 2;
    }
}

/* allgather_intra_brucks.c */
void bl_allgather_bruck(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size, pof2 = 1;
    uint64_t curr = c->bytes;
    while (pof2 <= P / 2) {
        sendrecv(e, (rank - pof2 + P) % P, curr, (rank + pof2) % P, curr, 0);
        curr *= 2;
        pof2 *= 2;
    }
    int rem = P - pof2;
    if (rem)
        sendrecv(e, (rank - pof2 + P) % P, (uint64_t)rem * c->bytes, (rank + pof2) % P,
                 (uint64_t)rem * c->bytes, 0);
}

/* allgather_intra_ring.c */
void bl_allgather_ring(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size;
    for (int i = 1; i < P; i++)
        sendrecv(e, (rank + 1) % P, c->bytes, (P + rank - 1) % P, c->bytes, 0);
}

/* ---- Reduce_scatter --------------------------------------------------- */

/* reduce_scatter_intra_recursive_halving.c (commutative) */
int bl_rscat_rh(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size, pof2 = pof2_floor(P), rem = P - pof2, newrank;
    uint64_t total = rs_total(c);
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            send(e, rank + 1, total);
            newrank = -1;
        } else {
            recv(e, rank - 1, total, total);
            newrank = rank / 2;
        }
    } else {
        newrank = rank - rem;
    }
    if (newrank != -1) {
        uint64_t *nc = malloc((size_t)pof2 * sizeof *nc);
        if (!nc)
            return -1;
        for (int i = 0; i < pof2; i++) {
            int old = i < rem ? i * 2 + 1 : i + rem;
            nc[i] = rs_count(c, old) + (old < 2 * rem ? rs_count(c, old - 1) : 0);
        }
        int send_idx = 0, recv_idx = 0, last_idx = pof2;
        for (int mask = pof2 >> 1; mask > 0; mask >>= 1) {
            int newdst = newrank ^ mask;
            int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
            uint64_t sc, rc;
            if (newrank < newdst) {
                send_idx = recv_idx + mask;
                sc = bl_sum_cnts(nc, send_idx, last_idx);
                rc = bl_sum_cnts(nc, recv_idx, send_idx);
            } else {
                recv_idx = send_idx + mask;
                sc = bl_sum_cnts(nc, send_idx, recv_idx);
                rc = bl_sum_cnts(nc, recv_idx, last_idx);
            }
            if (sc || rc)
                step(e, sc ? dst : -1, sc, rc ? dst : -1, rc, rc);
            send_idx = recv_idx;
            last_idx = recv_idx + mask;
        }
        free(nc);
    }
    if (rank < 2 * rem) {
        if (rank % 2) {
            if (rs_count(c, rank - 1))
                send(e, rank - 1, rs_count(c, rank - 1));
        } else if (rs_count(c, rank)) {
            recv(e, rank + 1, rs_count(c, rank), 0);
        }
    }
    return 0;
}

/* reduce_scatter_intra_pairwise.c (commutative) */
void bl_rscat_pairwise(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size;
    for (int i = 1; i < P; i++) {
        int src = (rank - i + P) % P, dst = (rank + i) % P;
        sendrecv(e, dst, rs_count(c, dst), src, rs_count(c, rank), rs_count(c, rank));
    }
}

/* barrier_intra_dissemination.c */
void bl_barrier_dissemination(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size;
    for (int mask = 1; mask < P; mask <<= 1)
        sendrecv(e, (rank + mask) % P, 0, (rank - mask + P) % P, 0, 0);
}

/* scan_intra_recursive_doubling.c, exscan_intra_recursive_doubling.c:
 * exchange the partial reduction with rank ^ mask; fold what came into the
 * partial, and into the result when it came from a lower rank (Exscan's
 * first such piece is copied, not reduced). */
void bl_scan_rd(emit_t *e, const mf_bl_call_t *c, int rank, int exclusive)
{
    int P = c->size, have = !exclusive;
    for (int mask = 1; mask < P; mask <<= 1) {
        int dst = rank ^ mask;
        if (dst >= P)
            continue;
        uint64_t red = c->bytes; /* into the partial */
        if (rank > dst)
            red += have ? c->bytes : 0, have = 1;
        sendrecv(e, dst, c->bytes, dst, c->bytes, red);
    }
}

/* alltoall_intra_brucks.c: at step pof2 the blocks whose rotated index has
 * that bit go to rank + pof2 (the local rotations cost no messages). */
void bl_alltoall_bruck(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size;
    for (int pof2 = 1; pof2 < P; pof2 *= 2) {
        uint64_t blocks = 0;
        for (int j = 0; j < P; j++)
            blocks += (j & pof2) != 0;
        sendrecv(e, (rank + pof2) % P, blocks * c->bytes, (rank - pof2 + P) % P,
                 blocks * c->bytes, 0);
    }
}

/* alltoall_intra_pairwise.c: XOR partners for a power of two, else a shift. */
void bl_alltoall_pairwise(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size;
    for (int i = 1; i < P; i++) {
        int dst = is_pof2(P) ? rank ^ i : (rank + i) % P;
        int src = is_pof2(P) ? rank ^ i : (rank - i + P) % P;
        sendrecv(e, dst, c->bytes, src, c->bytes, 0);
    }
}
