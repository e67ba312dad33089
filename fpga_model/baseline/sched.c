/*
 * MPICH 4.0's point-to-point schedules for the baseline (sched.h).  Each
 * function follows the loop structure of the MPICH function it names (file
 * src/mpi/coll/<coll>/<coll>_intra_<alg>.c), so a reader can put the two side
 * by side; instead of moving data it appends steps.  Sizes are bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/sched.h"

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

static int pof2_floor(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

static int is_pof2(int n) { return n > 0 && !(n & (n - 1)); }

static uint64_t rs_count(const mf_bl_call_t *c, int r) { return c->counts ? c->counts[r] : c->bytes; }

static uint64_t rs_total(const mf_bl_call_t *c)
{
    uint64_t t = 0;
    for (int r = 0; r < c->size; r++)
        t += rs_count(c, r);
    return t;
}

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

/* ---- program building ------------------------------------------------- */

typedef struct {
    mf_bl_prog_t *prog;
    int oom;
} emit_t;

static void step(emit_t *e, int to, uint64_t sb, int from, uint64_t rb, uint64_t red)
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

static void send(emit_t *e, int to, uint64_t b) { step(e, to, b, -1, 0, 0); }
static void recv(emit_t *e, int from, uint64_t b, uint64_t red) { step(e, -1, 0, from, b, red); }
static void sendrecv(emit_t *e, int to, uint64_t sb, int from, uint64_t rb, uint64_t red)
{
    step(e, to, sb, from, rb, red);
}

void mf_bl_prog_free(mf_bl_prog_t *prog)
{
    free(prog->v);
    *prog = (mf_bl_prog_t){0};
}

static int rel(int rank, int root, int P) { return (rank - root + P) % P; }
static int absr(int vr, int root, int P) { return (vr + root) % P; }

/* ---- Bcast ------------------------------------------------------------ */

/* bcast_intra_binomial.c */
static void bcast_binomial(emit_t *e, const mf_bl_call_t *c, int rank)
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
static void bcast_scatter_ring(emit_t *e, const mf_bl_call_t *c, int rank)
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
static void bcast_scatter_rd(emit_t *e, const mf_bl_call_t *c, int rank)
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
static void reduce_binomial(emit_t *e, const mf_bl_call_t *c, int rank)
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
static uint64_t *rab_cnts(const mf_bl_call_t *c, int pof2)
{
    uint64_t count = c->bytes / c->esize;
    uint64_t *cnts = malloc((size_t)pof2 * sizeof *cnts);
    if (!cnts)
        return NULL;
    for (int i = 0; i < pof2; i++)
        cnts[i] = (count / (uint64_t)pof2 + ((uint64_t)i < count % (uint64_t)pof2)) * c->esize;
    return cnts;
}

static uint64_t sum_cnts(const uint64_t *cnts, int lo, int hi)
{
    uint64_t s = 0;
    for (int i = lo; i < hi; i++)
        s += cnts[i];
    return s;
}

/* The recursive-halving reduce-scatter phase shared by Reduce and Allreduce
 * (Rabenseifner); dst_of maps a new rank to a real one.  Leaves the block
 * indices where MPICH leaves them. */
typedef struct {
    int send_idx, recv_idx, last_idx, mask;
} rab_t;

static rab_t rab_reduce_scatter(emit_t *e, const uint64_t *cnts, int pof2, int newrank, int rem,
                                int odd_base)
{
    rab_t s = {0, 0, pof2, 1};
    while (s.mask < pof2) {
        int newdst = newrank ^ s.mask;
        int dst = newdst < rem ? newdst * 2 + odd_base : newdst + rem;
        uint64_t sc, rc;
        if (newrank < newdst) {
            s.send_idx = s.recv_idx + pof2 / (s.mask * 2);
            sc = sum_cnts(cnts, s.send_idx, s.last_idx);
            rc = sum_cnts(cnts, s.recv_idx, s.send_idx);
        } else {
            s.recv_idx = s.send_idx + pof2 / (s.mask * 2);
            sc = sum_cnts(cnts, s.send_idx, s.recv_idx);
            rc = sum_cnts(cnts, s.recv_idx, s.last_idx);
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
static void rab_double_step(const uint64_t *cnts, int pof2, int mask, int lower, rab_t *s,
                            uint64_t *sc, uint64_t *rc)
{
    if (lower) {
        if (mask != pof2 / 2)
            s->last_idx += pof2 / (mask * 2);
        s->recv_idx = s->send_idx + pof2 / (mask * 2);
        *sc = sum_cnts(cnts, s->send_idx, s->recv_idx);
        *rc = sum_cnts(cnts, s->recv_idx, s->last_idx);
    } else {
        s->recv_idx = s->send_idx - pof2 / (mask * 2);
        *sc = sum_cnts(cnts, s->send_idx, s->last_idx);
        *rc = sum_cnts(cnts, s->recv_idx, s->send_idx);
    }
}

/* reduce_intra_reduce_scatter_gather.c */
static int reduce_rsg(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size, root = c->root, pof2 = pof2_floor(P), rem = P - pof2, newrank;
    uint64_t *cnts = rab_cnts(c, pof2);
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
        s = rab_reduce_scatter(e, cnts, pof2, newrank, rem, 0);
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
            rab_double_step(cnts, pof2, mask, newrank < newdst, &s, &sc, &rc);
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
static void allreduce_rd(emit_t *e, const mf_bl_call_t *c, int rank)
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
static int allreduce_rsag(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size, pof2 = pof2_floor(P), rem = P - pof2;
    int newrank = allreduce_fold(e, c, rank, rem);
    if (newrank != -1) {
        uint64_t *cnts = rab_cnts(c, pof2);
        if (!cnts)
            return -1;
        rab_t s = rab_reduce_scatter(e, cnts, pof2, newrank, rem, 1);
        for (int mask = s.mask >> 1; mask > 0; mask >>= 1) {
            int newdst = newrank ^ mask;
            int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
            uint64_t sc, rc;
            rab_double_step(cnts, pof2, mask, newrank < newdst, &s, &sc, &rc);
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
static void allgather_rd(emit_t *e, const mf_bl_call_t *c, int rank)
{
    uint64_t curr = c->bytes;
    for (int mask = 1; mask < c->size; mask <<= 1) {
        int dst = rank ^ mask;
        sendrecv(e, dst, curr, dst, curr, 0);
        curr *= 2;
    }
}

/* allgather_intra_brucks.c */
static void allgather_bruck(emit_t *e, const mf_bl_call_t *c, int rank)
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
static void allgather_ring(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size;
    for (int i = 1; i < P; i++)
        sendrecv(e, (rank + 1) % P, c->bytes, (P + rank - 1) % P, c->bytes, 0);
}

/* ---- Reduce_scatter --------------------------------------------------- */

/* reduce_scatter_intra_recursive_halving.c (commutative) */
static int rscat_rh(emit_t *e, const mf_bl_call_t *c, int rank)
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
                sc = sum_cnts(nc, send_idx, last_idx);
                rc = sum_cnts(nc, recv_idx, send_idx);
            } else {
                recv_idx = send_idx + mask;
                sc = sum_cnts(nc, send_idx, recv_idx);
                rc = sum_cnts(nc, recv_idx, last_idx);
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
static void rscat_pairwise(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size;
    for (int i = 1; i < P; i++) {
        int src = (rank - i + P) % P, dst = (rank + i) % P;
        sendrecv(e, dst, rs_count(c, dst), src, rs_count(c, rank), rs_count(c, rank));
    }
}

/* ---- Scatter, Gather, Barrier ----------------------------------------- */

/* Ranks in the binomial subtree of relative rank vr whose parent edge has
 * distance `mask`. */
static uint64_t subtree(int P, int vr, int mask)
{
    return (uint64_t)(P - vr < mask ? P - vr : mask);
}

/* scatter_intra_binomial.c */
static void scatter_binomial(emit_t *e, const mf_bl_call_t *c, int rank)
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
static void gather_binomial(emit_t *e, const mf_bl_call_t *c, int rank)
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

/* barrier_intra_dissemination.c */
static void barrier_dissemination(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size;
    for (int mask = 1; mask < P; mask <<= 1)
        sendrecv(e, (rank + mask) % P, 0, (rank - mask + P) % P, 0, 0);
}

/* scan_intra_recursive_doubling.c, exscan_intra_recursive_doubling.c:
 * exchange the partial reduction with rank ^ mask; fold what came into the
 * partial, and into the result when it came from a lower rank (Exscan's
 * first such piece is copied, not reduced). */
static void scan_rd(emit_t *e, const mf_bl_call_t *c, int rank, int exclusive)
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
static void alltoall_bruck(emit_t *e, const mf_bl_call_t *c, int rank)
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
static void alltoall_pairwise(emit_t *e, const mf_bl_call_t *c, int rank)
{
    int P = c->size;
    for (int i = 1; i < P; i++) {
        int dst = is_pof2(P) ? rank ^ i : (rank + i) % P;
        int src = is_pof2(P) ? rank ^ i : (rank - i + P) % P;
        sendrecv(e, dst, c->bytes, src, c->bytes, 0);
    }
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
    case MF_BL_BCAST_BINOMIAL: bcast_binomial(&e, c, rank); break;
    case MF_BL_BCAST_SCATTER_RD_ALLGATHER: bcast_scatter_rd(&e, c, rank); break;
    case MF_BL_BCAST_SCATTER_RING_ALLGATHER: bcast_scatter_ring(&e, c, rank); break;
    case MF_BL_REDUCE_BINOMIAL: reduce_binomial(&e, c, rank); break;
    case MF_BL_REDUCE_SCATTER_GATHER: rc = reduce_rsg(&e, c, rank); break;
    case MF_BL_ALLREDUCE_RECURSIVE_DOUBLING: allreduce_rd(&e, c, rank); break;
    case MF_BL_ALLREDUCE_REDUCE_SCATTER_ALLGATHER: rc = allreduce_rsag(&e, c, rank); break;
    case MF_BL_ALLGATHER_RECURSIVE_DOUBLING: allgather_rd(&e, c, rank); break;
    case MF_BL_ALLGATHER_BRUCK: allgather_bruck(&e, c, rank); break;
    case MF_BL_ALLGATHER_RING: allgather_ring(&e, c, rank); break;
    case MF_BL_REDUCE_SCATTER_RECURSIVE_HALVING: rc = rscat_rh(&e, c, rank); break;
    case MF_BL_REDUCE_SCATTER_PAIRWISE: rscat_pairwise(&e, c, rank); break;
    case MF_BL_SCATTER_BINOMIAL: scatter_binomial(&e, c, rank); break;
    case MF_BL_GATHER_BINOMIAL: gather_binomial(&e, c, rank); break;
    case MF_BL_BARRIER_DISSEMINATION: barrier_dissemination(&e, c, rank); break;
    case MF_BL_SCAN_RECURSIVE_DOUBLING: scan_rd(&e, c, rank, 0); break;
    case MF_BL_EXSCAN_RECURSIVE_DOUBLING: scan_rd(&e, c, rank, 1); break;
    case MF_BL_ALLTOALL_BRUCK: alltoall_bruck(&e, c, rank); break;
    case MF_BL_ALLTOALL_PAIRWISE: alltoall_pairwise(&e, c, rank); break;
    default: break;
    }
    if (rc || e.oom) {
        snprintf(err, errlen, "out of memory building the %s schedule", mf_bl_alg_name(alg));
        return -1;
    }
    return 0;
}
