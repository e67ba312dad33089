/*
 * Streaming Allgather on the torus (issue 18; beyond 001 Table 1): one
 * bidirectional ring per dimension, all three at once.
 *
 * Rank order is x fastest (a rank is its switch, ccm_stree_fits), so after
 * the X phase a switch holds its X row, after Y its XY plane, each one
 * contiguous range of the result.  In the phase of dimension d a switch's
 * unit is what it holds so far; it sends its unit both ways around its
 * d-ring; a unit travels up to h+ = D/2 hops in the plus direction and
 * h- = (D-1)/2 in the minus direction, so every unit of the ring arrives
 * exactly once.  Each hop is its own stream (tag by phase, side and
 * distance): a CCM copy writes the unit to the host and forwards it one
 * switch further, as it arrives.  The unit of the next phase is the L2
 * switch's concatenation, in rank order, of this phase's units (own and
 * received) -- also as they arrive, so the phases overlap: the X, Y and Z
 * links all carry data at once, and the node's DMA write is the bound, not
 * one link.  The pieces a concatenation cannot take yet are parked in
 * switch memory (park_mib, as a gather's parent does: ccm_tree.c), so a
 * unit is never held up by the order of the pieces before it.
 *
 * Every stream's producer is one hop upstream of it in its own ring, or an
 * earlier phase on the same switch: no cycle of waits, so no deadlock
 * whatever the windows.  Latency: the sum of the rings' radii in hops.
 */
#include "hw/ccm_build.h"
#include "net/topo.h"

#define NTAGS 32 /* the 5-bit tag field */

typedef struct {
    int D[3];          /* ring sizes */
    int c[3];          /* this switch's coordinates */
    int tag0[3];       /* first tag of each phase */
    int S[3];          /* ranks between neighbours along d: D0 * .. * D(d-1) */
    uint64_t stride[3]; /* bytes between them (allgather): n * S[d] */
} dring_t;

static int hplus(int D) { return D / 2; }
static int hminus(int D) { return (D - 1) / 2; }

/* Tag of the stream that carries, on its k-th hop, the unit of the switch
 * k away on the minus side (plus direction) or on the plus side. */
static int hop_tag(const dring_t *g, int d, int plus, int k)
{
    return g->tag0[d] + (plus ? 0 : hplus(g->D[d])) + k - 1;
}

static void dring_of(const bld_t *b, dring_t *g)
{
    const mf_topo_t *t = ccm_topo(b);
    int tag = 0, s = 1;
    mf_torus_coord(t, b->r, g->c);
    for (int d = 0; d < 3; d++) {
        g->D[d] = t->dims[d];
        g->tag0[d] = tag;
        g->S[d] = s;
        g->stride[d] = b->n * (uint64_t)s;
        tag += g->D[d] - 1;
        s *= g->D[d];
    }
}

int ccm_dring_fits(const bld_t *b)
{
    if (!b->c->eng || !ccm_stree_fits(b))
        return 0;
    const mf_topo_t *t = ccm_topo(b);
    for (int d = 0; d < 3; d++)
        if (t->dims[d] > MF_FLOW_MAXIN) /* a concatenation's inputs */
            return 0;
    return t->dims[0] - 1 + t->dims[1] - 1 + t->dims[2] - 1 <= NTAGS;
}

/* Host offset of the phase-d unit of the switch at coordinates c:
 * coordinates below d are zero (the unit spans them). */
static uint64_t unit_base(const dring_t *g, const int c[3], int d)
{
    uint64_t off = 0;
    for (int e = d; e < 3; e++)
        off += (uint64_t)c[e] * g->stride[e];
    return off;
}

/* Coordinate along d of the switch k hops away on side `plus`. */
static int along(const dring_t *g, int d, int plus, int k)
{
    int D = g->D[d];
    return ((g->c[d] + (plus ? k : -k)) % D + D) % D;
}

/* Does any phase after d move data (a ring of more than one switch)? */
static int later_phase(const dring_t *g, int d)
{
    for (int e = d + 1; e < 3; e++)
        if (g->D[e] > 1)
            return 1;
    return 0;
}

/* An internal stream of [off, off+len) of flow f whose bytes its reader
 * may not take for a while: parked in switch memory. */
static int parked_piece(bld_t *b, int f, uint64_t off, uint64_t len, uint64_t park_share)
{
    int s = ccm_to_stream(b, f, off, len);
    if (!b->fail)
        b->c->st[s].extra_win = park_share;
    return s;
}

/* The received units of phase d, one flow each, by position along d (the
 * own position: -1).  Each is written to the host and forwarded one hop. */
static void receive_units(bld_t *b, const dring_t *g, int d, int *flow_at)
{
    int D = g->D[d];
    uint64_t unit = g->stride[d];
    for (int side = 0; side < 2; side++) {
        int plus = side == 0, h = plus ? hplus(D) : hminus(D);
        for (int k = 1; k <= h; k++) {
            int src[3] = {g->c[0], g->c[1], g->c[2]}, next[3] = {g->c[0], g->c[1], g->c[2]};
            src[d] = along(g, d, !plus, k); /* a unit moving plus comes from the minus side */
            next[d] = along(g, d, plus, 1);
            int f = ccm_copy_of(b, ccm_net_in(b, hop_tag(g, d, plus, k), unit));
            ccm_to_host(b, f, 0, unit, unit_base(g, src, d));
            if (k < h)
                ccm_to_net(b, f, 0, unit, (uint16_t)mf_torus_switch(ccm_topo(b), next),
                           hop_tag(g, d, plus, k + 1));
            flow_at[src[d]] = f;
        }
    }
}

/* The switch k hops from this one along d, on the plus side or not. */
static uint16_t switch_along(const bld_t *b, const dring_t *g, int d, int plus, int k)
{
    int c[3] = {g->c[0], g->c[1], g->c[2]};
    c[d] = along(g, d, plus, k);
    return (uint16_t)mf_torus_switch(ccm_topo(b), c);
}

/* Send the own unit (flow `own`) one hop both ways around the d-ring. */
static void send_unit(bld_t *b, const dring_t *g, int d, int own)
{
    for (int side = 0; side < 2; side++) {
        int plus = side == 0;
        if (!(plus ? hplus(g->D[d]) : hminus(g->D[d])))
            continue;
        int c[3] = {g->c[0], g->c[1], g->c[2]};
        c[d] = along(g, d, plus, 1);
        ccm_to_net(b, own, 0, g->stride[d], (uint16_t)mf_torus_switch(ccm_topo(b), c),
                   hop_tag(g, d, plus, 1));
    }
}

/* One phase: returns the flow holding the next phase's own unit. */
static int phase(bld_t *b, const dring_t *g, int d, int own, uint64_t park_share)
{
    int D = g->D[d], flow_at[D];
    if (D == 1)
        return own;
    send_unit(b, g, d, own);
    flow_at[g->c[d]] = own;
    receive_units(b, g, d, flow_at);
    if (!later_phase(g, d) || b->fail)
        return -1;
    int in[D];
    for (int j = 0; j < D; j++)
        in[j] = parked_piece(b, flow_at[j], 0, g->stride[d], park_share);
    return ccm_flow(b, MF_FLOW_CONCAT, g->stride[d] * (uint64_t)D, D, in);
}

void ccm_allgather_dring(bld_t *b)
{
    dring_t g;
    dring_of(b, &g);
    uint64_t park = (uint64_t)b->c->eng->ccm->cfg->p->park_mib << 20;
    uint64_t total = b->n * (uint64_t)b->P;
    int own = ccm_copy_of(b, ccm_host_src(b, 0, b->n));
    ccm_to_host(b, own, 0, b->n, (uint64_t)b->r * b->n);
    for (int d = 0; d < 3 && own >= 0 && !b->fail; d++) {
        /* each piece may park whole while the switch parks at most
         * park_mib in all (the pieces of every phase add up to < total) */
        uint64_t piece = g.stride[d];
        uint64_t share = total <= park ? piece : (uint64_t)((double)piece * park / total);
        own = phase(b, &g, d, own, share);
    }
}

/*
 * Reduce_scatter, the reverse: Z first, then Y, then X.  In the phase of
 * dimension d a switch's unit is the part of the vector that its later
 * phases still split (all of it for the first; after Z its plane's blocks,
 * after Y its row's), cut into D chunks by the coordinate along d.  The
 * chunk of position j is reduced on its way to j along both halves of the
 * ring: the switch h+ hops before j (h- hops after it) sends its own chunk
 * one hop towards j, every switch on the way reduces it with its own chunk
 * and passes it on, and j reduces the two sums with its own chunk.  That
 * reduction, streaming, is j's unit of the next phase; after X, its block.
 * The first phase reads each chunk from the host as its own stream, so
 * every chain runs from the start; a partial sum the next switch cannot
 * reduce yet parks there, and a later phase's chunks park here until
 * their reduction takes them, so no chunk waits for the ones before it
 * (switch memory, park_mib).
 */

#define UNIT_IN_HOST -1 /* the first phase's unit: the send buffer */
#define UNIT_EMPTY -2   /* this switch's part is empty */

/* Tag of the partial sum that arrives `dist` hops before its target. */
static int rs_tag(const dring_t *g, int d, int plus, int dist)
{
    return g->tag0[d] + (plus ? 0 : hplus(g->D[d])) + dist;
}

/* First rank of this switch's unit in the phase of d: the coordinates
 * after d are its own, those up to d span the unit. */
static int unit_first(const dring_t *g, int d)
{
    int r = 0;
    for (int e = d + 1; e < 3; e++)
        r += g->c[e] * g->S[e];
    return r;
}

/* Chunk [lo, lo+len) of the unit `own` (a flow, or UNIT_IN_HOST at host
 * offset ubase) as a stream of its own. */
static int chunk_of(bld_t *b, int own, uint64_t ubase, uint64_t lo, uint64_t len,
                    uint64_t share)
{
    return own == UNIT_IN_HOST ? ccm_host_src(b, ubase + lo, len)
                               : parked_piece(b, own, lo, len, share);
}

/* The partial sum of chunk [lo, lo+len) of `own` (unit offset) towards
 * the switch k hops on (1 <= k < D): reduced with what comes from behind,
 * unless this switch starts the chain, and sent one hop on. */
static void rs_pass_on(bld_t *b, const dring_t *g, int d, int own, uint64_t ubase,
                       uint64_t lo, uint64_t len, int k, uint64_t share)
{
    int D = g->D[d], plus = k <= hplus(D), dist = plus ? k : D - k;
    int h = plus ? hplus(D) : hminus(D);
    int in[2] = {chunk_of(b, own, ubase, lo, len, share)}, f;
    if (dist < h) {
        in[1] = ccm_net_in(b, rs_tag(g, d, plus, dist), len);
        f = ccm_flow(b, MF_FLOW_REDUCE, len, 2, in);
    } else {
        f = ccm_copy_of(b, in[0]);
    }
    mf_sink_t *out = ccm_to_net(b, f, 0, len, switch_along(b, g, d, plus, 1),
                                rs_tag(g, d, plus, dist - 1));
    if (out) /* the next switch parks what its reduction cannot take yet */
        out->extra_win = share;
}

/* One phase: the flow holding this switch's reduced chunk (the next
 * phase's unit), or UNIT_EMPTY. */
static int rs_phase(bld_t *b, const dring_t *g, int d, int own, uint64_t park, uint64_t total)
{
    int D = g->D[d], first = unit_first(g, d), res = UNIT_EMPTY;
    if (D == 1)
        return own;
    uint64_t ubase = ccm_rs_disp(b, first);
    /* the chunks passed on first, the own one last: the DMA serves the
     * host streams by index (dma.c), so the chains are fed at link rate
     * while the own chunk's partial sums park, and it is read at the end */
    for (int step = 1; step <= D && !b->fail; step++) {
        int k = step % D, j = (g->c[d] + k) % D;
        uint64_t lo = ccm_rs_disp(b, first + j * g->S[d]) - ubase;
        uint64_t len = ccm_rs_disp(b, first + (j + 1) * g->S[d]) - ubase - lo;
        /* a chunk parks at most twice (its unit's piece, its partial sum) */
        uint64_t share = 2 * total <= park ? len : (uint64_t)((double)len * park / (2 * total));
        if (len == 0) /* every switch skips an empty chunk alike */
            continue;
        if (k) {
            rs_pass_on(b, g, d, own, ubase, lo, len, k, share);
            continue;
        }
        int in[3] = {chunk_of(b, own, ubase, lo, len, share)}, nin = 1;
        in[nin++] = ccm_net_in(b, rs_tag(g, d, 1, 0), len);
        if (hminus(D))
            in[nin++] = ccm_net_in(b, rs_tag(g, d, 0, 0), len);
        res = ccm_flow(b, MF_FLOW_REDUCE, len, nin, in);
    }
    return res;
}

void ccm_reduce_scatter_dring(bld_t *b)
{
    dring_t g;
    dring_of(b, &g);
    uint64_t park = (uint64_t)b->c->eng->ccm->cfg->p->park_mib << 20;
    uint64_t total = ccm_rs_disp(b, b->P), mine = ccm_rs_disp(b, b->r + 1) - ccm_rs_disp(b, b->r);
    int own = UNIT_IN_HOST;
    for (int d = 2; d >= 0 && own != UNIT_EMPTY && !b->fail; d--)
        own = rs_phase(b, &g, d, own, park, total);
    if (own == UNIT_IN_HOST) /* every ring of one switch (ccm_dring_fits: P >= 2) */
        own = ccm_copy_of(b, ccm_host_src(b, 0, total));
    if (own == UNIT_EMPTY || !mine)
        ccm_to_host(b, ccm_empty(b), 0, 0, 0);
    else
        ccm_to_host(b, own, 0, mine, 0);
}
