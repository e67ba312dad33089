/* pof2 folding, recursive halving and doubling (001 Table 1, fig. 1):
 * allreduce, reduce (Rabenseifner), reduce_scatter, allgather. */
#include <stdlib.h>
#include <string.h>

#include "hw/ccm_build.h"

static void setup_pof2(bld_t *b)
{
    b->L = b->ct->pof2_levels;
    b->pof2 = 1 << b->L;
    b->rem = b->P - b->pof2;
    if (b->r < 2 * b->rem)
        b->newrank = b->r % 2 ? b->r / 2 : -1;
    else
        b->newrank = b->r - b->rem;
}

/* Fold: even ranks below 2*rem hand their whole vector to r+1.  Returns the
 * flow producing this rank's (possibly pre-reduced) vector, or -1. */
static int fold_in(bld_t *b)
{
    int own = ccm_host_src(b, 0, b->n);
    if (b->newrank < 0) {
        ccm_to_net(b, ccm_copy_of(b, own), 0, b->n, b->ct->fold, TAG_FOLD_IN);
        return -1;
    }
    if (b->r < 2 * b->rem) {
        int in[2] = {own, ccm_net_in(b, TAG_FOLD_IN, b->n)};
        return ccm_flow(b, MF_FLOW_REDUCE, b->n, 2, in);
    }
    return ccm_copy_of(b, own);
}

/* Folded-out ranks get the result back from their partner. */
static void fold_out_receive(bld_t *b, uint64_t off, uint64_t len)
{
    ccm_to_host(b, ccm_copy_of(b, ccm_net_in(b, TAG_FOLD_OUT, len)), 0, len, off);
}

static uint64_t bsum(const bld_t *b, int lo, int hi) { return b->B[hi] - b->B[lo]; }

/* Recursive halving over blocks B[0..pof2]: at step s (mask = pof2 >> (s+1))
 * exchange half of the current range with newrank ^ mask and reduce the
 * half kept.  Ends with block `newrank` produced by the returned flow. */
static int halving(bld_t *b, int f)
{
    int lo = 0, hi = b->pof2;
    for (int s = 0; s < b->L; s++) {
        int k = b->L - 1 - s, mask = 1 << k, mid = lo + mask;
        int keep_lo = b->newrank < (b->newrank ^ mask);
        int klo = keep_lo ? lo : mid, khi = keep_lo ? mid : hi;
        int slo = keep_lo ? mid : lo, shi = keep_lo ? hi : mid;
        uint64_t held = bsum(b, lo, hi), send = bsum(b, slo, shi), keep = bsum(b, klo, khi);
        /* MPICH skips an exchange that moves nothing (reduce_scatter with
         * zero counts); the partner, with the same blocks, skips it too */
        if (send)
            ccm_to_net(b, f, b->B[slo] - b->B[lo], send, b->ct->hc[k], s);
        if (keep) {
            int in[2] = {ccm_to_stream(b, f, b->B[klo] - b->B[lo], keep), ccm_net_in(b, s, keep)};
            f = ccm_flow(b, MF_FLOW_REDUCE, keep, 2, in);
        } else if (held) {
            f = ccm_empty(b);
        }
        lo = klo;
        hi = khi;
    }
    return f;
}

/*
 * Recursive doubling over blocks: the range held grows [lo,hi) -> twice as
 * large at each step k (mask 1, 2, ...), exchanging with newrank ^ mask.
 * to_root >= 0: only gather towards newrank to_root (Reduce); otherwise
 * everyone ends with everything (Allreduce, Allgather).  `put`, if given,
 * writes every piece received to the host buffer (the caller writes its own
 * block).  Returns the flow that produces the whole vector in order if
 * `want_all`, else -1.
 */
typedef void (*put_fn)(bld_t *b, int f, int lo, int hi);

/* Blocks [lo, hi) of flow f to the host at B[lo]. */
static void put_blocks(bld_t *b, int f, int lo, int hi)
{
    ccm_to_host(b, f, 0, bsum(b, lo, hi), b->B[lo]);
}

static int doubling(bld_t *b, int f, int to_root, put_fn put, int want_all)
{
    int lo = b->newrank, hi = b->newrank + 1;
    for (int k = 0; k < b->L; k++) {
        int mask = 1 << k, partner = b->newrank ^ mask, tag = b->L + k;
        int plo = partner < b->newrank ? lo - (hi - lo) : hi, phi = plo + (hi - lo);
        int sender = to_root >= 0 && ((b->newrank ^ to_root) & mask);
        if (to_root < 0 || sender)
            ccm_to_net(b, f, 0, bsum(b, lo, hi), b->ct->hc[k], tag);
        if (sender)
            return -1;
        int pf = ccm_copy_of(b, ccm_net_in(b, tag, bsum(b, plo, phi)));
        if (put)
            put(b, pf, plo, phi);
        int last = k == b->L - 1;
        if (last && !want_all && to_root < 0)
            return -1;
        int mine = ccm_to_stream(b, f, 0, bsum(b, lo, hi));
        int theirs = ccm_to_stream(b, pf, 0, bsum(b, plo, phi));
        int in[2] = {plo < lo ? theirs : mine, plo < lo ? mine : theirs};
        lo = lo < plo ? lo : plo;
        hi = lo + 2 * (phi - plo);
        f = ccm_flow(b, MF_FLOW_CONCAT, bsum(b, lo, hi), 2, in); /* L2: rank order */
    }
    return f;
}

static int alloc_blocks(bld_t *b)
{
    b->B = calloc((size_t)b->pof2 + 1, sizeof *b->B);
    if (!b->B)
        b->fail = 1;
    return b->B ? 0 : -1;
}

/* Blocks of a reduction vector: elements split as MPICH's cnts[] (the last
 * block takes the remainder). */
static int element_blocks(bld_t *b)
{
    if (alloc_blocks(b))
        return -1;
    uint64_t count = b->n / b->es, per = count / b->pof2;
    for (int i = 0; i < b->pof2; i++)
        b->B[i + 1] = b->B[i] + per * b->es;
    b->B[b->pof2] = b->n;
    return 0;
}

void ccm_allreduce_rd(bld_t *b)
{
    setup_pof2(b);
    int f = fold_in(b);
    if (f < 0) {
        fold_out_receive(b, 0, b->n);
        return;
    }
    for (int k = 0; k < b->L; k++) {
        ccm_to_net(b, f, 0, b->n, b->ct->hc[k], k);
        int in[2] = {ccm_to_stream(b, f, 0, b->n), ccm_net_in(b, k, b->n)};
        f = ccm_flow(b, MF_FLOW_REDUCE, b->n, 2, in);
    }
    ccm_to_host(b, f, 0, b->n, 0);
    if (b->r < 2 * b->rem)
        ccm_to_net(b, f, 0, b->n, b->ct->fold, TAG_FOLD_OUT);
}

void ccm_allreduce_rabenseifner(bld_t *b)
{
    setup_pof2(b);
    int f = fold_in(b);
    if (f < 0) {
        fold_out_receive(b, 0, b->n);
        return;
    }
    if (element_blocks(b))
        return;
    int folded = b->r < 2 * b->rem;
    f = halving(b, f);
    put_blocks(b, f, b->newrank, b->newrank + 1);
    f = doubling(b, f, -1, put_blocks, folded);
    if (folded)
        ccm_to_net(b, f, 0, b->n, b->ct->fold, TAG_FOLD_OUT);
}

void ccm_reduce_rabenseifner(bld_t *b)
{
    setup_pof2(b);
    int R = b->c->req.hdr.root;
    int root_out = R < 2 * b->rem && R % 2 == 0; /* root folded out: R+1 serves it */
    int nroot = R < 2 * b->rem ? R / 2 : R - b->rem;
    int f = fold_in(b);
    if (f < 0) {
        if (b->r == R)
            fold_out_receive(b, 0, b->n);
        return;
    }
    if (element_blocks(b))
        return;
    f = doubling(b, halving(b, f), nroot, NULL, 1);
    if (f < 0)
        return;
    if (root_out)
        ccm_to_net(b, f, 0, b->n, b->ct->fold, TAG_FOLD_OUT);
    else
        ccm_to_host(b, f, 0, b->n, 0);
}

/* Byte offset of comm rank i's block in a reduce_scatter vector. */
uint64_t ccm_rs_disp(const bld_t *b, int i)
{
    return b->disp ? b->disp[i] : (uint64_t)i * b->n;
}

/* MPICH recursive-halving reduce_scatter: newrank i < rem stands for ranks
 * 2i and 2i+1, the others for i + rem. */
void ccm_reduce_scatter_halving(bld_t *b)
{
    setup_pof2(b);
    if (alloc_blocks(b))
        return;
    for (int i = 0; i <= b->pof2; i++)
        b->B[i] = ccm_rs_disp(b, i < b->rem ? 2 * i : i + b->rem);
    uint64_t total = ccm_rs_disp(b, b->P);
    uint64_t mine = ccm_rs_disp(b, b->r + 1) - ccm_rs_disp(b, b->r);
    int own = ccm_host_src(b, 0, total);
    if (b->newrank < 0) {
        ccm_to_net(b, ccm_copy_of(b, own), 0, total, b->ct->fold, TAG_FOLD_IN);
        if (mine) /* MPICH sends a folded-out rank its part only if it has one */
            fold_out_receive(b, 0, mine);
        else
            ccm_to_host(b, ccm_empty(b), 0, 0, 0);
        return;
    }
    int f;
    if (b->r < 2 * b->rem) {
        int in[2] = {own, ccm_net_in(b, TAG_FOLD_IN, total)};
        f = ccm_flow(b, MF_FLOW_REDUCE, total, 2, in);
    } else {
        f = ccm_copy_of(b, own);
    }
    f = halving(b, f);
    if (b->r < 2 * b->rem) { /* block = [rank-1's part, own part] */
        uint64_t theirs = ccm_rs_disp(b, b->r) - ccm_rs_disp(b, b->r - 1);
        if (theirs)
            ccm_to_net(b, f, 0, theirs, b->ct->fold, TAG_FOLD_OUT);
        ccm_to_host(b, f, theirs, mine, 0);
    } else {
        ccm_to_host(b, f, 0, mine, 0);
    }
}

void ccm_allgather_rd(bld_t *b)
{
    setup_pof2(b); /* pof2 == P here */
    if (alloc_blocks(b))
        return;
    for (int i = 0; i <= b->pof2; i++)
        b->B[i] = (uint64_t)i * b->n;
    int f = ccm_copy_of(b, ccm_host_src(b, 0, b->n));
    put_blocks(b, f, b->newrank, b->newrank + 1);
    doubling(b, f, -1, put_blocks, 0);
}

/* Bcast's chunk of comm rank j: (j - root) mod P (MPII_Scatter_for_bcast
 * numbers chunks by relative rank). */
static int bcast_chunk(const bld_t *b, int j) { return (j - (int)b->c->req.hdr.root + b->P) % b->P; }

/* Chunks of comm ranks [lo, hi) from flow f to the host: contiguous there
 * but for one wrap from chunk P-1 to chunk 0. */
static void put_chunks(bld_t *b, int f, int lo, int hi)
{
    ring_t g = {.P = b->P, .unit = (b->n + b->P - 1) / b->P, .total = b->n};
    int c0 = bcast_chunk(b, lo);
    uint64_t len = bsum(b, lo, hi), first = len;
    if (c0 + (hi - lo) > b->P)
        first = b->n - co(&g, c0);
    ccm_to_host(b, f, 0, first, co(&g, c0));
    if (first < len)
        ccm_to_host(b, f, first, len - first, 0);
}

/*
 * Bcast for medium messages, P a power of two (MPICH's
 * scatter_recursive_doubling_allgather): binomial scatter of the chunks,
 * then recursive doubling over the CT's hypercube partners, where comm
 * rank j holds chunk (j - root) mod P.  MPICH pairs relative ranks; pairing
 * comm ranks moves the same bytes in the same number of steps and needs
 * only the CT entry's partners.
 */
void ccm_bcast_scatter_rd(bld_t *b)
{
    setup_pof2(b); /* pof2 == P: newrank == r */
    int vr = vrank(b);
    ring_t g = {.P = b->P, .me = vr, .unit = (b->n + b->P - 1) / b->P, .total = b->n};
    int f = ccm_bcast_scatter(b, &g);
    if (alloc_blocks(b))
        return;
    for (int j = 0; j < b->P; j++)
        b->B[j + 1] = b->B[j] + clen(&g, bcast_chunk(b, j));
    doubling(b, f, -1, vr ? put_chunks : NULL, 0);
}
