/*
 * Aggregation in the fat tree's switches (001 sec. 4.4: the spine
 * switches' reduction and gather tables are configured from the leaves,
 * "based on the collective operation shown in the incoming packet header"):
 * Bcast, Reduce, Allreduce and Allgather as one pipelined tree whose inner
 * nodes are switches.
 *
 * The tree (net/fattree.c, mf_fattree_agg_*): a leaf switch combines its own
 * hosts -- modeled by the engine of its lowest rank, the leader, to which
 * the leaf's other ranks stream through the switch's loopback -- and sends
 * up its first uplink; column 0 of every upper group combines its children
 * in its aggregation engine (rank nranks + switch, no host) and sends up in
 * turn; the top one turns the result around and it streams back down the
 * same tree.  Every tree edge is one link, used once each way.
 *
 * Tags: a child's stream arrives on the parent's port towards it (leader:
 * the child's place among the leaf's ranks), the result comes down on TAG_DOWN, a Bcast root's
 * data goes straight to the tree's root on TAG_ROOT.
 *
 * Used whenever the communicator is the whole fat tree in rank order (any
 * number of ranks per node, up to 30 per leaf: tags) -- the same verdict on
 * every switch; otherwise the CCM runs 001 Table 1's algorithms between the
 * leaves.
 */
#include "hw/ccm_build.h"
#include "net/topo.h"

#define TAG_ROOT 30
#define TAG_DOWN 31
#define MAX_CHILD 30 /* tags 0..29 */

typedef struct {
    int self;            /* engine id: a rank, or nranks + switch */
    int parent, ptag;    /* parent engine and my tag there; -1 at the root */
    int root;            /* engine id of the tree's root */
    int nch;
    int child[MAX_CHILD], ctag[MAX_CHILD];
    int count;           /* ranks below me */
    int ccount[MAX_CHILD];  /* ranks below each child (allgather: its block's size) */
    int has_host;
} node_t;

static const mf_ccm_t *ccm_of(const bld_t *b) { return b->c->eng->ccm; }

int ccm_ftree_fits(const bld_t *b)
{
    unsigned opc = b->c->req.hdr.opcode;
    if (!b->c->eng || (opc != MF_OPC_BCAST && opc != MF_OPC_REDUCE &&
                       opc != MF_OPC_ALLREDUCE && opc != MF_OPC_ALLGATHER))
        return 0; /* (no engine: a schedule built on its own, test_ccm) */
    const mf_topo_t *t = ccm_topo(b);
    int per_leaf = t->down * t->ppn; /* a leader's inputs: its own and the leaf's other ranks' */
    return t->kind == MF_TOPO_FATTREE && b->P == t->nranks && b->ct->ident && b->P >= 2 &&
           t->radix <= MAX_CHILD && per_leaf <= MAX_CHILD && per_leaf < MF_FLOW_MAXIN;
}

/* Ranks below switch sw: [*first, *first + *count). */
static void ranks_below(const mf_topo_t *t, int sw, int *first, int *count)
{
    mf_fattree_nodes_below(t, sw, first, count);
    *first *= t->ppn;
    *count *= t->ppn;
}

/* Engine id of the tree node at switch sw: an upper switch's aggregation
 * engine, or a leaf's leader. */
static int engine_at(const mf_ccm_t *n, int sw)
{
    if (n->topo->sw_level[sw])
        return n->cfg->nranks + sw;
    int first, count;
    ranks_below(n->topo, sw, &first, &count);
    return first;
}

static void add_child(node_t *d, int id, int tag, int count)
{
    d->child[d->nch] = id;
    d->ctag[d->nch] = tag;
    d->ccount[d->nch] = count;
    d->nch++;
}

/* The place of switch sw's tree node: parent, and the switches below. */
static void switch_node(const mf_ccm_t *n, int sw, node_t *d)
{
    const mf_topo_t *t = n->topo;
    int port, psw = t->levels > 1 ? mf_fattree_agg_parent(t, sw, &port) : -1;
    d->parent = psw < 0 ? -1 : engine_at(n, psw);
    d->ptag = psw < 0 ? 0 : port;
    int first;
    ranks_below(t, sw, &first, &d->count);
    if (!t->sw_level[sw])
        return;
    int child[MAX_CHILD], nc = mf_fattree_agg_children(t, sw, child, MAX_CHILD);
    for (int i = 0; i < nc; i++) {
        if (child[i] < 0)
            continue;
        int cfirst, count;
        ranks_below(t, child[i], &cfirst, &count);
        add_child(d, engine_at(n, child[i]), i, count);
    }
}

/* This engine's tree node (a rank: leader or not; or an aggregation engine). */
static void node_of(const bld_t *b, node_t *d)
{
    const mf_ccm_t *n = ccm_of(b);
    const mf_topo_t *t = n->topo;
    int self = b->c->eng->grank;
    *d = (node_t){.self = self, .has_host = self < n->cfg->nranks,
                  .root = engine_at(n, t->levels > 1 ? mf_fattree_agg_root(t) : 0)};
    if (!d->has_host) {
        switch_node(n, self - n->cfg->nranks, d);
        return;
    }
    int leaf = t->node_sw[self / t->ppn], leader = engine_at(n, leaf);
    if (self != leader) { /* streams to its leaf's leader, tagged by its place on the leaf */
        *d = (node_t){.self = self, .has_host = 1, .root = d->root, .parent = leader,
                      .ptag = self - leader, .count = 1};
        return;
    }
    switch_node(n, leaf, d); /* its own block first, then the leaf's other ranks' */
    for (int r = self + 1; r < self + d->count; r++)
        add_child(d, r, r - self, 1);
}

/* Configure the parent's aggregation engine (the first child to start
 * does; its header travels with its first packets, a link away). */
static void configure_parent(bld_t *b, const node_t *d)
{
    mf_ccm_t *n = b->c->eng->ccm;
    if (d->parent < n->cfg->nranks)
        return;
    uint64_t at = b->c->start + n->cfg->link_lat;
    if (n->partners->post_agg(n->partners->ctx, d->parent, b->c, at))
        b->fail = 1;
}

static void to_children(bld_t *b, const node_t *d, int f, uint64_t len, int skip)
{
    for (int i = 0; i < d->nch; i++)
        if (d->child[i] != skip)
            ccm_to_net(b, f, 0, len, (uint16_t)d->child[i], TAG_DOWN);
}

/* Own data (a rank's n bytes) and every child's stream, combined as they
 * arrive: reduced (n bytes each), or concatenated in rank order (n bytes
 * per rank below the child). */
static int combine_up(bld_t *b, const node_t *d, int kind)
{
    int in[MF_FLOW_MAXIN], nin = 0;
    uint64_t len = 0;
    if (d->has_host) {
        in[nin++] = ccm_host_src(b, 0, b->n);
        len = b->n;
    }
    for (int i = 0; i < d->nch; i++) {
        uint64_t per = kind == MF_FLOW_REDUCE ? b->n : (uint64_t)d->ccount[i] * b->n;
        in[nin++] = ccm_net_in(b, d->ctag[i], per);
        len = kind == MF_FLOW_REDUCE ? per : len + per;
    }
    if (nin == 1)
        return ccm_copy_of(b, in[0]);
    return ccm_flow(b, kind, len, nin, in);
}

/* Up the tree, then the result back down from the root to every rank. */
static void up_and_down(bld_t *b, const node_t *d, int kind, uint64_t total)
{
    int f = combine_up(b, d, kind), down;
    if (d->parent < 0) {
        down = ccm_copy_of(b, ccm_to_stream(b, f, 0, total));
    } else {
        ccm_to_net(b, f, 0, b->c->fl[f].len, (uint16_t)d->parent, d->ptag);
        down = ccm_copy_of(b, ccm_net_in(b, TAG_DOWN, total));
    }
    to_children(b, d, down, total, -1);
    if (d->has_host)
        ccm_to_host(b, down, 0, total, 0);
}

static void reduce(bld_t *b, const node_t *d)
{
    int root = b->c->req.hdr.root;
    int f = combine_up(b, d, MF_FLOW_REDUCE);
    if (d->parent >= 0)
        ccm_to_net(b, f, 0, b->n, (uint16_t)d->parent, d->ptag);
    else if (d->self == root)
        ccm_to_host(b, f, 0, b->n, 0);
    else /* the tree's root: the result down to the root rank */
        ccm_to_net(b, f, 0, b->n, (uint16_t)root, TAG_DOWN);
    if (d->self == root && d->parent >= 0)
        ccm_to_host(b, ccm_copy_of(b, ccm_net_in(b, TAG_DOWN, b->n)), 0, b->n, 0);
}

/* Does rank r forward to others (a leader with company on its leaf)? */
static int forwards(const mf_ccm_t *n, int r)
{
    int leaf = n->topo->node_sw[r / n->topo->ppn];
    return engine_at(n, leaf) == r && n->topo->sw_nodes[leaf] * n->topo->ppn > 1;
}

/* The root's data up to the tree's root, then down the tree to every rank
 * but the root (unless it forwards to its leaf). */
static void bcast(bld_t *b, const node_t *d)
{
    int root = b->c->req.hdr.root, in;
    int skip = forwards(ccm_of(b), root) ? -1 : root;
    if (d->self == root && d->self != d->root)
        ccm_to_net(b, ccm_copy_of(b, ccm_host_src(b, 0, b->n)), 0, b->n, (uint16_t)d->root,
                   TAG_ROOT);
    if (d->self == d->root)
        in = d->self == root ? ccm_host_src(b, 0, b->n) : ccm_net_in(b, TAG_ROOT, b->n);
    else if (d->self != skip)
        in = ccm_net_in(b, TAG_DOWN, b->n);
    else
        return; /* the root without children: nothing comes back */
    int f = ccm_copy_of(b, in);
    to_children(b, d, f, b->n, skip);
    if (d->has_host && d->self != root)
        ccm_to_host(b, f, 0, b->n, 0);
}

void ccm_ftree(bld_t *b)
{
    node_t d;
    node_of(b, &d);
    configure_parent(b, &d);
    switch (b->c->req.hdr.opcode) {
    case MF_OPC_BCAST:
        bcast(b, &d);
        break;
    case MF_OPC_REDUCE:
        reduce(b, &d);
        break;
    case MF_OPC_ALLREDUCE:
        up_and_down(b, &d, MF_FLOW_REDUCE, b->n);
        break;
    default: /* allgather */
        up_and_down(b, &d, MF_FLOW_CONCAT, (uint64_t)b->P * b->n);
    }
}
