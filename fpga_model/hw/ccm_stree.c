/*
 * Streaming trees on the torus (issue 18; beyond 001 Table 1): Bcast,
 * Reduce and Allreduce as one pipelined tree over the torus links.
 *
 * The tree is dimension-ordered around the root: the root sends both ways
 * along X, Y and Z; a switch whose offset from the root is last non-zero in
 * dimension d forwards further along d (away from the root, each ring split
 * at half its size) and starts both ways along every dimension after d.
 * Every switch has one parent, one hop away, so every directed link carries
 * one tree edge: a Bcast moves the message over each link once, a Reduce
 * over each link once in the other direction, and an Allreduce (reduce up,
 * broadcast down at the same time) uses each link once each way.  The CCM's
 * flows stream packet by packet, so a long message crosses the tree at the
 * rate of the slowest stage -- about the link rate -- plus the depth times
 * a hop's latency.
 *
 * Used when the processor header asks for it (mf_alg_tree) and the
 * communicator is the whole torus in order, one rank per node
 * (ccm_stree_fits, the same verdict on every switch); otherwise the CCM
 * runs the paper's algorithm.
 */
#include "hw/ccm_build.h"
#include "net/topo.h"

#define TAG_TREE_DOWN 7 /* the broadcast stream from the parent */
/* a child's reduce stream: 1 + 2 * dimension + (child on the minus side) */
static int tag_up(int d, int minus) { return 1 + 2 * d + minus; }


int ccm_stree_fits(const bld_t *b)
{
    const mf_topo_t *t = ccm_topo(b);
    if (t->kind != MF_TOPO_TORUS || t->ppn != 1 || b->P != t->nnodes || !b->ct->ident ||
        b->P < 2)
        return 0;
    for (int i = 0; i < t->nnodes; i++)
        if (t->node_sw[i] != i)
            return 0;
    return 1;
}

/* Offset o in a ring of D seen from the root: +1 away on the plus side
 * (1 .. D/2), -1 on the minus side, 0 at the root. */
static int side(int o, int D) { return o == 0 ? 0 : o <= D / 2 ? 1 : -1; }

typedef struct {
    int parent;         /* switch, -1 at the root */
    int pdim, pminus;   /* the dimension and side of the edge from the parent */
    int nch;
    int child[6], cdim[6], cminus[6];
} tree_t;

static int neighbour(const mf_topo_t *t, const int c[3], int d, int step)
{
    int n[3] = {c[0], c[1], c[2]};
    n[d] = (n[d] + step + t->dims[d]) % t->dims[d];
    return mf_torus_switch(t, n);
}

static void add_child(const mf_topo_t *t, tree_t *tr, const int c[3], int d, int step)
{
    tr->child[tr->nch] = neighbour(t, c, d, step);
    tr->cdim[tr->nch] = d;
    tr->cminus[tr->nch] = step < 0;
    tr->nch++;
}

/* This switch's place in the tree rooted at switch `root`. */
static void tree_of(const mf_topo_t *t, int me, int root, tree_t *tr)
{
    int c[3], r[3], o[3], last = -1;
    mf_torus_coord(t, me, c);
    mf_torus_coord(t, root, r);
    for (int d = 0; d < 3; d++) {
        o[d] = (c[d] - r[d] + t->dims[d]) % t->dims[d];
        if (o[d])
            last = d;
    }
    *tr = (tree_t){.parent = -1};
    if (last >= 0) {
        int D = t->dims[last], s = side(o[last], D);
        tr->parent = neighbour(t, c, last, -s);
        tr->pdim = last;
        tr->pminus = s < 0;
        int further = (o[last] + s + D) % D; /* on to the ring's far end */
        if (further != 0 && side(further, D) == s)
            add_child(t, tr, c, last, s);
    }
    for (int d = last + 1; d < 3; d++) {
        int D = t->dims[d];
        if (D > 1)
            add_child(t, tr, c, d, +1);
        if (D > 2 && side(D - 1, D) < 0)
            add_child(t, tr, c, d, -1);
    }
}

/* A switch is its node and its rank here (ccm_stree_fits). */
static void to_children(bld_t *b, const tree_t *tr, int f)
{
    for (int i = 0; i < tr->nch; i++)
        ccm_to_net(b, f, 0, b->n, (uint16_t)tr->child[i], TAG_TREE_DOWN);
}

/* Own data and every child's stream, reduced as they arrive. */
static int reduce_up(bld_t *b, const tree_t *tr)
{
    int in[MF_FLOW_MAXIN], nin = 0;
    in[nin++] = ccm_host_src(b, 0, b->n);
    for (int i = 0; i < tr->nch; i++)
        in[nin++] = ccm_net_in(b, tag_up(tr->cdim[i], tr->cminus[i]), b->n);
    return ccm_flow(b, MF_FLOW_REDUCE, b->n, nin, in);
}

void ccm_bcast_stree(bld_t *b)
{
    tree_t tr;
    tree_of(ccm_topo(b), b->r, b->c->req.hdr.root, &tr);
    int in = tr.parent < 0 ? ccm_host_src(b, 0, b->n) : ccm_net_in(b, TAG_TREE_DOWN, b->n);
    int f = ccm_copy_of(b, in);
    to_children(b, &tr, f);
    if (tr.parent >= 0)
        ccm_to_host(b, f, 0, b->n, 0);
}

void ccm_reduce_stree(bld_t *b)
{
    tree_t tr;
    tree_of(ccm_topo(b), b->r, b->c->req.hdr.root, &tr);
    int f = reduce_up(b, &tr);
    if (tr.parent < 0)
        ccm_to_host(b, f, 0, b->n, 0);
    else
        ccm_to_net(b, f, 0, b->n, (uint16_t)tr.parent, tag_up(tr.pdim, tr.pminus));
}

/* Reduce towards rank 0 and broadcast the result back down, both at once. */
void ccm_allreduce_stree(bld_t *b)
{
    tree_t tr;
    tree_of(ccm_topo(b), b->r, 0, &tr);
    int f = reduce_up(b, &tr), down;
    if (tr.parent < 0) {
        down = ccm_copy_of(b, ccm_to_stream(b, f, 0, b->n));
    } else {
        ccm_to_net(b, f, 0, b->n, (uint16_t)tr.parent, tag_up(tr.pdim, tr.pminus));
        down = ccm_copy_of(b, ccm_net_in(b, TAG_TREE_DOWN, b->n));
    }
    to_children(b, &tr, down);
    ccm_to_host(b, down, 0, b->n, 0);
}
