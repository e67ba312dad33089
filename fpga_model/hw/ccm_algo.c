/*
 * The CCM's algorithm blocks (001 sec. 4.2, fig. 6; Table 1): from the
 * processor header and this rank's CT entry, build the dataflow the switch
 * runs for one collective -- which streams arrive from which partner (tag),
 * what the CGR reduces, what the L2 switch serialises, where each byte range
 * goes (new destination, multicast, host).  Schedules follow MPICH's
 * algorithms (binomial tree, recursive doubling with pof2 folding,
 * recursive halving, ring); the partner sets come from the CT entry only.
 *
 * Tags: binomial edges use the level k; halving step s uses s and the
 * matching doubling step L + s; 30 carries a folded rank's data in, 31 the
 * result back out; the ring uses 31 for a neighbour's own chunk and 30 for
 * the chunks it forwards.  See doc/model.md.
 */
#include <stdlib.h>
#include <string.h>

#include "mpifpga/ct.h"
#include "hw/switch.h"

#define TAG_FOLD_IN 30
#define TAG_FOLD_OUT 31
#define TAG_RING_FWD 30 /* the ring never folds */
#define TAG_RING_OWN 31

typedef struct {
    mf_coll_t *c;
    const mf_ct_entry_t *ct;
    int P, r;
    uint64_t n;     /* header size in bytes */
    size_t es;      /* element size */
    int L, pof2, rem, newrank;
    uint64_t *B;    /* block boundaries for halving / doubling, pof2 + 1 */
    int fail;
} bld_t;

/* ---- building blocks ------------------------------------------------------ */

static int grow(void **p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return 0;
    int n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, (size_t)n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static int stream(bld_t *b, int kind, uint64_t len)
{
    mf_coll_t *c = b->c;
    if (grow((void **)&c->st, &c->capst, c->nst + 1, sizeof *c->st)) {
        b->fail = 1;
        return 0;
    }
    mf_stream_t *st = &c->st[c->nst];
    *st = (mf_stream_t){.kind = (uint8_t)kind, .len = len};
    if (kind == MF_ST_INTERNAL && len == 0)
        st->closed = 0; /* closed by its producer's zero-length sink */
    if (kind == MF_ST_HOST && len == 0)
        st->closed = 1;
    return c->nst++;
}

static int host_src(bld_t *b, uint64_t off, uint64_t len)
{
    int s = stream(b, MF_ST_HOST, len);
    if (!b->fail) {
        b->c->st[s].host_off = off;
        b->c->reads_left += len > 0;
    }
    return s;
}

static int net_in(bld_t *b, int tag, uint64_t len)
{
    int s = stream(b, MF_ST_NET, len);
    if (b->fail)
        return 0;
    if (b->c->tag_stream[tag] >= 0) {
        b->fail = 1; /* schedule bug: two streams on one tag */
        return 0;
    }
    b->c->st[s].tag = (uint8_t)tag;
    b->c->tag_stream[tag] = (int16_t)s;
    return s;
}

static int flow(bld_t *b, int kind, uint64_t len, int nin, const int *in)
{
    mf_coll_t *c = b->c;
    if (nin > MF_FLOW_MAXIN || grow((void **)&c->fl, &c->capfl, c->nfl + 1, sizeof *c->fl)) {
        b->fail = 1;
        return 0;
    }
    mf_flow_t *f = &c->fl[c->nfl];
    *f = (mf_flow_t){.kind = (uint8_t)kind, .nin = (uint8_t)nin, .len = len};
    memcpy(f->in, in, (size_t)nin * sizeof *in);
    return c->nfl++;
}

static int copy_of(bld_t *b, int st)
{
    return flow(b, MF_FLOW_COPY, b->c->st[st].len, 1, &st);
}

static mf_sink_t *sink(bld_t *b, int f, int kind, uint64_t off, uint64_t len)
{
    mf_coll_t *c = b->c;
    if (grow((void **)&c->sk, &c->capsk, c->nsk + 1, sizeof *c->sk)) {
        b->fail = 1;
        return NULL;
    }
    mf_sink_t *k = &c->sk[c->nsk++];
    *k = (mf_sink_t){.kind = (uint8_t)kind, .off = off, .len = len, .flow = f, .stream = -1};
    return k;
}

static void to_host(bld_t *b, int f, uint64_t off, uint64_t len, uint64_t host_off)
{
    mf_sink_t *k = sink(b, f, MF_SINK_HOST, off, len);
    if (k)
        k->host_off = host_off;
}

static void to_net(bld_t *b, int f, uint64_t off, uint64_t len, uint16_t dest, int tag)
{
    mf_sink_t *k = sink(b, f, MF_SINK_NET, off, len);
    if (k) {
        k->dest = dest;
        k->tag = (uint8_t)tag;
    }
}

/* A new internal stream fed by [off, off+len) of flow f. */
static int to_stream(bld_t *b, int f, uint64_t off, uint64_t len)
{
    int s = stream(b, MF_ST_INTERNAL, len);
    mf_sink_t *k = sink(b, f, MF_SINK_STREAM, off, len);
    if (k)
        k->stream = s;
    return s;
}

static int ctz(unsigned v)
{
    return v ? __builtin_ctz(v) : 31;
}

/* ---- binomial trees (relative rank vr = (r - root) mod P) ---------------- */

static int vrank(const bld_t *b) { return (b->r - b->c->req.hdr.root + b->P) % b->P; }
/* Level of the edge to vr's parent; children use the levels below it. */
static int parent_level(const bld_t *b, int vr) { return vr ? ctz((unsigned)vr) : b->ct->levels; }
static int has_child(const bld_t *b, int vr, int k)
{
    return k < parent_level(b, vr) && vr + (1 << k) < b->P;
}
/* Number of ranks in the subtree rooted at vr. */
static int subtree(const bld_t *b, int vr)
{
    int s = vr ? 1 << ctz((unsigned)vr) : b->P;
    return s < b->P - vr ? s : b->P - vr;
}

static void bcast_binomial(bld_t *b)
{
    int vr = vrank(b);
    int in = vr ? net_in(b, parent_level(b, vr), b->n) : host_src(b, 0, b->n);
    int f = copy_of(b, in); /* CCM multicast: one bit per child */
    for (int k = 0; k < parent_level(b, vr); k++)
        if (has_child(b, vr, k))
            to_net(b, f, 0, b->n, b->ct->up[k], k);
    if (vr)
        to_host(b, f, 0, b->n, 0);
}

static void reduce_binomial(bld_t *b)
{
    int vr = vrank(b), in[MF_FLOW_MAXIN], nin = 0;
    in[nin++] = host_src(b, 0, b->n);
    for (int k = 0; k < parent_level(b, vr); k++)
        if (has_child(b, vr, k))
            in[nin++] = net_in(b, k, b->n);
    int f = flow(b, MF_FLOW_REDUCE, b->n, nin, in);
    if (vr)
        to_net(b, f, 0, b->n, b->ct->down[parent_level(b, vr)], parent_level(b, vr));
    else
        to_host(b, f, 0, b->n, 0);
}

/* Root's send buffer in vr order: blocks [v0, v1) of `bs` bytes, wrapping. */
static int root_blocks(bld_t *b, int v0, int v1, uint64_t bs)
{
    int R = b->c->req.hdr.root, a = (v0 + R) % b->P, cnt = v1 - v0;
    if (a + cnt <= b->P)
        return copy_of(b, host_src(b, (uint64_t)a * bs, (uint64_t)cnt * bs));
    int in[2] = {host_src(b, (uint64_t)a * bs, (uint64_t)(b->P - a) * bs),
                 host_src(b, 0, (uint64_t)(a + cnt - b->P) * bs)};
    return flow(b, MF_FLOW_CONCAT, (uint64_t)cnt * bs, 2, in);
}

/* The root reads each child's subtree range as its own host stream (and
 * its own block as another): the DMA serves them round robin, so the
 * children's links carry data at the same time.  One flow over the whole
 * buffer would hand the children their ranges one after another, each at
 * a single link's rate, below the DMA's. */
static void scatter_binomial(bld_t *b)
{
    int vr = vrank(b);
    uint64_t bs = b->n;
    if (!vr) {
        to_host(b, root_blocks(b, 0, 1, bs), 0, bs, 0);
        for (int k = 0; k < parent_level(b, vr); k++)
            if (has_child(b, vr, k)) {
                int c = 1 << k, n = subtree(b, c);
                to_net(b, root_blocks(b, c, c + n, bs), 0, (uint64_t)n * bs, b->ct->up[k], k);
            }
        return;
    }
    int f = copy_of(b, net_in(b, parent_level(b, vr), subtree(b, vr) * bs));
    to_host(b, f, 0, bs, 0);
    for (int k = 0; k < parent_level(b, vr); k++)
        if (has_child(b, vr, k))
            to_net(b, f, ((uint64_t)1 << k) * bs, subtree(b, vr + (1 << k)) * bs,
                   b->ct->up[k], k);
}

/* Flow f holds the blocks of vr [v0, v0 + cnt): write them where the root's
 * receive buffer keeps them (vr j is comm rank (j + root) mod P). */
static void to_host_vr(bld_t *b, int f, int v0, int cnt, uint64_t bs)
{
    int a = (v0 + b->c->req.hdr.root) % b->P;
    if (a + cnt <= b->P) {
        to_host(b, f, 0, (uint64_t)cnt * bs, (uint64_t)a * bs);
        return;
    }
    to_host(b, f, 0, (uint64_t)(b->P - a) * bs, (uint64_t)a * bs);
    to_host(b, f, (uint64_t)(b->P - a) * bs, (uint64_t)(a + cnt - b->P) * bs, 0);
}

/* Non-roots CONCAT their own block and their children's subtree streams in
 * rank order (L2 reorder) for the parent.  The root writes each stream to
 * its place in host memory as it arrives: concatenating there would take
 * one child's link at a time, below the DMA's rate. */
static void gather_binomial(bld_t *b)
{
    int vr = vrank(b), in[MF_FLOW_MAXIN], nin = 0;
    uint64_t bs = b->n;
    if (!vr) {
        to_host_vr(b, copy_of(b, host_src(b, 0, bs)), 0, 1, bs);
        for (int k = 0; k < parent_level(b, vr); k++)
            if (has_child(b, vr, k)) {
                int c = 1 << k, n = subtree(b, c);
                to_host_vr(b, copy_of(b, net_in(b, k, (uint64_t)n * bs)), c, n, bs);
            }
        return;
    }
    in[nin++] = host_src(b, 0, bs);
    for (int k = 0; k < parent_level(b, vr); k++)
        if (has_child(b, vr, k))
            in[nin++] = net_in(b, k, subtree(b, vr + (1 << k)) * bs);
    uint64_t len = subtree(b, vr) * bs;
    int f = flow(b, MF_FLOW_CONCAT, len, nin, in); /* L2: rank order */
    to_net(b, f, 0, len, b->ct->down[parent_level(b, vr)], parent_level(b, vr));
}

/* ---- ring: chunks of position j at [co(j), co(j+1)) ----------------------- */

typedef struct {
    int P, me;
    uint64_t unit, total; /* chunk j = [min(j*unit,total), min((j+1)*unit,total)) */
    uint64_t host_base;   /* host offset of chunk 0, chunks rotate by `rot` */
    int rot;              /* host position of chunk j is (j + rot) mod P */
    int write_host;
} ring_t;

static uint64_t co(const ring_t *g, int j)
{
    uint64_t o = (uint64_t)j * g->unit;
    return o < g->total ? o : g->total;
}
static uint64_t clen(const ring_t *g, int j) { return co(g, j + 1) - co(g, j); }

/*
 * Receive all other chunks from the left, write them, and pass everything
 * but the last one on to the right after our own (MPICH ring allgather).
 * Our own chunk (tag 31, straight from the flow that holds it) and the
 * chunks we forward (tag 30: the left neighbour's own chunk, then what it
 * forwarded) travel as two independent streams with their own credits.
 * Serialising them into one flow would deadlock once a chunk exceeds the
 * credit window: each rank's forwarded data would queue behind its own
 * chunk, whose credits come back only when the right neighbour, in turn,
 * gets past its own.  For the same reason the tag-30 data that arrives
 * while we forward the left's own chunk may buffer up to one chunk.
 */
static void ring(bld_t *b, const ring_t *g, int own_flow, uint64_t own_off)
{
    int left = (g->me - 1 + g->P) % g->P;
    uint64_t own = clen(g, g->me), from_left = clen(g, left);
    uint64_t fwd_in = g->total - own - from_left; /* chunks me-2 .. me-(P-1) */
    to_net(b, own_flow, own_off, own, b->ct->up[0], TAG_RING_OWN);
    int f31 = copy_of(b, net_in(b, TAG_RING_OWN, from_left));
    if (g->write_host)
        to_host(b, f31, 0, from_left, g->host_base + co(g, (left + g->rot) % g->P));
    if (g->P <= 2)
        return;
    int in[2] = {to_stream(b, f31, 0, from_left)}, nin = 1;
    int f30 = copy_of(b, net_in(b, TAG_RING_FWD, fwd_in));
    uint64_t off = 0, prefix = 0;
    for (int i = 2; i < g->P; i++) {
        int j = ((g->me - i) % g->P + g->P) % g->P;
        if (g->write_host)
            to_host(b, f30, off, clen(g, j), g->host_base + co(g, (j + g->rot) % g->P));
        if (i < g->P - 1)
            prefix += clen(g, j);
        off += clen(g, j);
    }
    if (prefix) {
        /* what arrives on tag 30 while we still forward the left's own
         * chunk waits here: up to that chunk more than one window (the
         * ring would otherwise wait on itself once chunks exceed it) */
        in[nin] = to_stream(b, f30, 0, prefix);
        if (!b->fail)
            b->c->st[in[nin]].extra_win = from_left;
        nin++;
    }
    int cf = flow(b, MF_FLOW_CONCAT, from_left + prefix, nin, in);
    to_net(b, cf, 0, from_left + prefix, b->ct->up[0], TAG_RING_FWD);
}

/* Bcast for long messages: binomial scatter, then ring allgather (Table 1). */
static void bcast_scatter_ring(bld_t *b)
{
    int vr = vrank(b);
    ring_t g = {.P = b->P, .me = vr, .unit = (b->n + b->P - 1) / b->P, .total = b->n,
                .write_host = vr != 0};
    uint64_t lo = co(&g, vr), hi = co(&g, vr + subtree(b, vr));
    int in = vr ? net_in(b, parent_level(b, vr), hi - lo) : host_src(b, 0, b->n);
    int f = copy_of(b, in);
    if (vr)
        to_host(b, f, 0, clen(&g, vr), lo);
    for (int k = 0; k < parent_level(b, vr); k++) {
        if (!has_child(b, vr, k))
            continue;
        int cv = vr + (1 << k);
        to_net(b, f, co(&g, cv) - lo, co(&g, cv + subtree(b, cv)) - co(&g, cv), b->ct->up[k], k);
    }
    ring(b, &g, f, 0);
}

static void allgather_ring(bld_t *b)
{
    ring_t g = {.P = b->P, .me = b->r, .unit = b->n, .total = b->n * b->P, .write_host = 1};
    int f = copy_of(b, host_src(b, 0, b->n));
    to_host(b, f, 0, b->n, (uint64_t)b->r * b->n);
    ring(b, &g, f, 0);
}

/* ---- pof2 folding, recursive halving and doubling ------------------------ */

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
    int own = host_src(b, 0, b->n);
    if (b->newrank < 0) {
        to_net(b, copy_of(b, own), 0, b->n, b->ct->fold, TAG_FOLD_IN);
        return -1;
    }
    if (b->r < 2 * b->rem) {
        int in[2] = {own, net_in(b, TAG_FOLD_IN, b->n)};
        return flow(b, MF_FLOW_REDUCE, b->n, 2, in);
    }
    return copy_of(b, own);
}

/* Folded-out ranks get the result back from their partner. */
static void fold_out_receive(bld_t *b, uint64_t off, uint64_t len)
{
    to_host(b, copy_of(b, net_in(b, TAG_FOLD_OUT, len)), 0, len, off);
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
        to_net(b, f, b->B[slo] - b->B[lo], bsum(b, slo, shi), b->ct->hc[k], s);
        int in[2] = {to_stream(b, f, b->B[klo] - b->B[lo], bsum(b, klo, khi)),
                     net_in(b, s, bsum(b, klo, khi))};
        f = flow(b, MF_FLOW_REDUCE, bsum(b, klo, khi), 2, in);
        lo = klo;
        hi = khi;
    }
    return f;
}

/*
 * Recursive doubling over blocks: the range held grows [lo,hi) -> twice as
 * large at each step k (mask 1, 2, ...), exchanging with newrank ^ mask.
 * to_root >= 0: only gather towards newrank to_root (Reduce); otherwise
 * everyone ends with everything (Allreduce, Allgather).  `host` writes every
 * piece to the host buffer at B[] (+ host_base).  Returns the flow that
 * produces the whole vector in order if `want_all`, else -1.
 */
static int doubling(bld_t *b, int f, int to_root, int host, int want_all)
{
    int lo = b->newrank, hi = b->newrank + 1;
    if (host)
        to_host(b, f, 0, bsum(b, lo, hi), b->B[lo]);
    for (int k = 0; k < b->L; k++) {
        int mask = 1 << k, partner = b->newrank ^ mask, tag = b->L + k;
        int plo = partner < b->newrank ? lo - (hi - lo) : hi, phi = plo + (hi - lo);
        int sender = to_root >= 0 && ((b->newrank ^ to_root) & mask);
        if (to_root < 0 || sender)
            to_net(b, f, 0, bsum(b, lo, hi), b->ct->hc[k], tag);
        if (sender)
            return -1;
        int pf = copy_of(b, net_in(b, tag, bsum(b, plo, phi)));
        if (host)
            to_host(b, pf, 0, bsum(b, plo, phi), b->B[plo]);
        int last = k == b->L - 1;
        if (last && !want_all && to_root < 0)
            return -1;
        int mine = to_stream(b, f, 0, bsum(b, lo, hi));
        int theirs = to_stream(b, pf, 0, bsum(b, plo, phi));
        int in[2] = {plo < lo ? theirs : mine, plo < lo ? mine : theirs};
        lo = lo < plo ? lo : plo;
        hi = lo + 2 * (phi - plo);
        f = flow(b, MF_FLOW_CONCAT, bsum(b, lo, hi), 2, in); /* L2: rank order */
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

static void allreduce_rd(bld_t *b)
{
    setup_pof2(b);
    int f = fold_in(b);
    if (f < 0) {
        fold_out_receive(b, 0, b->n);
        return;
    }
    for (int k = 0; k < b->L; k++) {
        to_net(b, f, 0, b->n, b->ct->hc[k], k);
        int in[2] = {to_stream(b, f, 0, b->n), net_in(b, k, b->n)};
        f = flow(b, MF_FLOW_REDUCE, b->n, 2, in);
    }
    to_host(b, f, 0, b->n, 0);
    if (b->r < 2 * b->rem)
        to_net(b, f, 0, b->n, b->ct->fold, TAG_FOLD_OUT);
}

static void allreduce_rabenseifner(bld_t *b)
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
    f = doubling(b, halving(b, f), -1, 1, folded);
    if (folded)
        to_net(b, f, 0, b->n, b->ct->fold, TAG_FOLD_OUT);
}

static void reduce_rabenseifner(bld_t *b)
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
    f = doubling(b, halving(b, f), nroot, 0, 1);
    if (f < 0)
        return;
    if (root_out)
        to_net(b, f, 0, b->n, b->ct->fold, TAG_FOLD_OUT);
    else
        to_host(b, f, 0, b->n, 0);
}

/* Byte offset of comm rank i's block in a reduce_scatter vector. */
static uint64_t rs_disp(const bld_t *b, int i)
{
    const uint32_t *cnt = b->c->counts;
    if (!cnt)
        return (uint64_t)i * b->n;
    uint64_t d = 0;
    for (int j = 0; j < i; j++)
        d += cnt[j];
    return d;
}

/* MPICH recursive-halving reduce_scatter: newrank i < rem stands for ranks
 * 2i and 2i+1, the others for i + rem. */
static void reduce_scatter_halving(bld_t *b)
{
    setup_pof2(b);
    if (alloc_blocks(b))
        return;
    for (int i = 0; i <= b->pof2; i++)
        b->B[i] = rs_disp(b, i < b->rem ? 2 * i : i + b->rem);
    uint64_t total = rs_disp(b, b->P);
    uint64_t mine = rs_disp(b, b->r + 1) - rs_disp(b, b->r);
    int own = host_src(b, 0, total);
    if (b->newrank < 0) {
        to_net(b, copy_of(b, own), 0, total, b->ct->fold, TAG_FOLD_IN);
        fold_out_receive(b, 0, mine);
        return;
    }
    int f;
    if (b->r < 2 * b->rem) {
        int in[2] = {own, net_in(b, TAG_FOLD_IN, total)};
        f = flow(b, MF_FLOW_REDUCE, total, 2, in);
    } else {
        f = copy_of(b, own);
    }
    f = halving(b, f);
    if (b->r < 2 * b->rem) { /* block = [rank-1's part, own part] */
        uint64_t theirs = rs_disp(b, b->r) - rs_disp(b, b->r - 1);
        to_net(b, f, 0, theirs, b->ct->fold, TAG_FOLD_OUT);
        to_host(b, f, theirs, mine, 0);
    } else {
        to_host(b, f, 0, mine, 0);
    }
}

static void allgather_rd(bld_t *b)
{
    setup_pof2(b); /* pof2 == P here */
    if (alloc_blocks(b))
        return;
    for (int i = 0; i <= b->pof2; i++)
        b->B[i] = (uint64_t)i * b->n;
    doubling(b, copy_of(b, host_src(b, 0, b->n)), -1, 1, 0);
}

/* Sort sinks by flow (stable) so each flow's sinks are contiguous. */
static int group_sinks(mf_coll_t *c)
{
    mf_sink_t *tmp = malloc(((size_t)c->nsk + 1) * sizeof *tmp);
    if (!tmp)
        return -1;
    int m = 0;
    for (int f = 0; f < c->nfl; f++) {
        c->fl[f].sink0 = m;
        for (int i = 0; i < c->nsk; i++)
            if (c->sk[i].flow == f)
                tmp[m++] = c->sk[i];
        c->fl[f].nsink = m - c->fl[f].sink0;
    }
    memcpy(c->sk, tmp, (size_t)m * sizeof *tmp);
    free(tmp);
    return 0;
}

/* MPI: a collective that moves no data completes locally (MPICH returns
 * at once for count 0); only Barrier synchronises. */
static int moves_no_data(const bld_t *b)
{
    const mf_proc_hdr_t *h = &b->c->req.hdr;
    if (h->opcode == MF_OPC_BARRIER)
        return 0;
    if (h->opcode == MF_OPC_REDUCE_SCATTER && b->c->counts)
        return rs_disp(b, b->P) == 0;
    return b->n == 0;
}

static void dispatch(bld_t *b)
{
    const mf_proc_hdr_t *h = &b->c->req.hdr;
    if (moves_no_data(b)) {
        to_host(b, copy_of(b, host_src(b, 0, 0)), 0, 0, 0);
        return;
    }
    switch (h->opcode) {
    case MF_OPC_BCAST:
        if (h->alg == MF_ALG_RING && b->P > 1)
            bcast_scatter_ring(b);
        else
            bcast_binomial(b);
        break;
    case MF_OPC_REDUCE:
        if (h->alg == MF_ALG_RABENSEIFNER && b->n / b->es >= (uint64_t)mf_pof2_floor(b->P))
            reduce_rabenseifner(b);
        else
            reduce_binomial(b);
        break;
    case MF_OPC_ALLREDUCE:
        if (h->alg == MF_ALG_RABENSEIFNER && b->n / b->es >= (uint64_t)mf_pof2_floor(b->P))
            allreduce_rabenseifner(b);
        else
            allreduce_rd(b);
        break;
    case MF_OPC_BARRIER:
        b->n = 0;
        allreduce_rd(b);
        break;
    case MF_OPC_SCATTER:
        scatter_binomial(b);
        break;
    case MF_OPC_GATHER:
        gather_binomial(b);
        break;
    case MF_OPC_ALLGATHER:
        if (h->alg == MF_ALG_RECURSIVE_DBL && (b->P & (b->P - 1)) == 0)
            allgather_rd(b);
        else if (b->P > 1)
            allgather_ring(b);
        else
            to_host(b, copy_of(b, host_src(b, 0, b->n)), 0, b->n, 0);
        break;
    case MF_OPC_REDUCE_SCATTER:
        reduce_scatter_halving(b);
        break;
    default:
        b->fail = 1;
    }
}

int mf_ccm_build(mf_coll_t *c, const mf_ct_entry_t *ct)
{
    bld_t b = {.c = c, .ct = ct, .P = ct->size, .r = ct->rank, .n = c->req.hdr.size,
               .es = mf_dtype_size((mf_dtype_t)c->req.hdr.dtype)};
    if (c->req.hdr.root >= ct->size && c->req.hdr.opcode != MF_OPC_BARRIER) {
        mf_ccm_fail(c, "root %u is not a rank of the %u-member communicator",
                    c->req.hdr.root, ct->size);
        return -1;
    }
    memset(c->tag_stream, 0xff, sizeof c->tag_stream);
    dispatch(&b);
    free(b.B);
    if (b.fail || group_sinks(c))
        return -1;
    for (int f = 0; f < c->nfl; f++) /* streams wake the flow that reads them */
        for (int i = 0; i < c->fl[f].nin; i++)
            c->st[c->fl[f].in[i]].check = &c->fl[f].next_check;
    c->flows_left = c->nfl;
    return 0;
}
