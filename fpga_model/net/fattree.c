/*
 * Indirect network: folded-Clos fat tree of radix-k FPGA switches (001 sec.
 * 2.3 "spine-leaf architecture", sec. 4.4; radix 8/16/28 in sec. 6).
 *
 * Leaves (level 0) have down = floor(k * os / (os + 1)) host-facing ports
 * (ports 0..down-1, slot = port) and up = k - down uplinks (ports
 * down..k-1); 001 sec. 6 uses a default oversubscription os = 3 (3:1), giving
 * 6/2, 12/4 and 21/7 for radix 8, 16 and 28.  leaves = ceil(nnodes / down).
 *
 * Upper levels are built recursively.  A level-l "group" is a subtree: a
 * leaf is a level-0 group; a level-l group joins `fanin` level-(l-1) groups
 * with `width_l` switches, where width_l = width_{l-1} * up_{l-1} is the
 * number of uplinks a level-(l-1) group exposes (width_0 = 1, up_0 = up).
 * Switch (g, c) of level l connects its down port i to uplink c % up_{l-1} of
 * switch column c / up_{l-1} of sub-group g * fanin + i, so every uplink of
 * every sub-group is used exactly once.
 *   - middle levels use k/2 ports down (fanin k/2) and k/2 up;
 *   - the top level uses all k ports down (fanin k) and forms one group.
 * levels = 1 when one leaf holds all nodes (no spines), 2 (leaf + `up`
 * spines, the spine-leaf network of 001) when leaves <= k, otherwise the
 * smallest L with k * (k/2)^(L-2) >= leaves.  Partially filled groups keep all
 * their columns; down ports towards missing sub-groups stay unconnected.
 *
 * Routing up*-then-down*: a switch whose group contains the destination leaf
 * sends the packet down towards it (the path down is unique); otherwise it
 * goes up on port down_l + (node / width_l) % up_l -- the destination-mod-k
 * rule, one digit of the destination node index per level -- so each pair
 * has one path and the turn happens at the lowest common ancestor level.
 * VCs unchanged.
 */
#include "net/topo.h"

#include <stdio.h>
#include <stdlib.h>

#define FT_MAX_LEVELS 16

typedef struct {
    int base;   /* first switch id of the level */
    int groups; /* groups at this level */
    int width;  /* switches per group */
    int span;   /* leaves per group */
    int ndown;  /* down ports (leaf: host ports; else fanin) */
    int nup;    /* up ports (top: 0) */
} ft_level_t;

typedef struct {
    int oversub;
    int nlevels;
    ft_level_t lev[FT_MAX_LEVELS];
    int32_t gc[]; /* per switch: group, column */
} ft_impl_t;

static int div_up(int a, int b) { return (a + b - 1) / b; }

/* Levels needed for `leaves` leaves with radix k (0 if more than allowed). */
static int levels_for(int leaves, int k)
{
    if (leaves <= 1)
        return 1;
    if (leaves <= k)
        return 2;
    long cap = k;
    for (int L = 3; L <= FT_MAX_LEVELS; L++) {
        cap *= k / 2;
        if (cap >= leaves)
            return L;
    }
    return 0;
}

static int plan_levels(ft_impl_t *fi, int k, int down, int up, int leaves)
{
    ft_level_t *lv = fi->lev;
    lv[0] = (ft_level_t){.base = 0, .groups = leaves, .width = 1, .span = 1,
                         .ndown = down, .nup = up};
    int total = leaves;
    for (int l = 1; l < fi->nlevels; l++) {
        int top = l == fi->nlevels - 1;
        ft_level_t *p = &lv[l - 1], *c = &lv[l];
        c->ndown = top ? k : k / 2;
        c->nup = top ? 0 : k / 2;
        c->span = p->span * c->ndown;
        c->width = p->width * p->nup;
        c->groups = div_up(leaves, c->span);
        c->base = total;
        if ((long)c->groups * c->width + total > (1L << 24))
            return -1;
        total += c->groups * c->width;
    }
    return total;
}

static void link_pair(mf_topo_t *t, int a, int pa, int b, int pb)
{
    int mp = t->max_ports;
    t->peer_sw[a * mp + pa] = b;
    t->peer_port[a * mp + pa] = (int8_t)pb;
    t->peer_sw[b * mp + pb] = a;
    t->peer_port[b * mp + pb] = (int8_t)pa;
}

/* Level-l switch (g, c), down port i <-> its sub-group's uplink. */
static void wire_level(mf_topo_t *t, ft_impl_t *fi, int l)
{
    const ft_level_t *lv = &fi->lev[l], *sub = &fi->lev[l - 1];
    for (int g = 0; g < lv->groups; g++) {
        for (int c = 0; c < lv->width; c++) {
            int s = lv->base + g * lv->width + c;
            t->sw_level[s] = l;
            fi->gc[2 * s] = g;
            fi->gc[2 * s + 1] = c;
            for (int i = 0; i < lv->ndown; i++) {
                int sg = g * lv->ndown + i;
                if (sg >= sub->groups)
                    break;
                int ss = sub->base + sg * sub->width + c / sub->nup;
                link_pair(t, s, i, ss, sub->ndown + c % sub->nup);
            }
        }
    }
}

static void attach_nodes(mf_topo_t *t, ft_impl_t *fi, int nnodes, int down)
{
    for (int s = 0; s < fi->lev[0].groups; s++) {
        fi->gc[2 * s] = s;
        fi->gc[2 * s + 1] = 0;
    }
    for (int n = 0; n < nnodes; n++) {
        t->node_sw[n] = n / down;
        t->node_slot[n] = n % down;
        t->sw_nodes[n / down]++;
    }
}

int mf_fattree_build(const mf_topo_spec_t *spec, int nnodes, mf_topo_t *t, char *err,
                     size_t errlen)
{
    int k = spec->radix, os = spec->oversub > 0 ? spec->oversub : 3;
    if (k < 4 || k > 127) {
        snprintf(err, errlen, "fat tree radix %d: must be 4..127", k);
        return -1;
    }
    int down = k * os / (os + 1), up = k - down;
    int leaves = div_up(nnodes, down);
    ft_impl_t probe = {.oversub = os, .nlevels = levels_for(leaves, k)};
    int nsw = probe.nlevels ? plan_levels(&probe, k, down, up, leaves) : -1;
    if (nsw < 0) {
        snprintf(err, errlen, "fat tree of radix %d cannot connect %d nodes", k, nnodes);
        return -1;
    }
    ft_impl_t *fi = malloc(sizeof *fi + 2 * (size_t)nsw * sizeof fi->gc[0]);
    if (!fi || mf_topo_alloc(t, nsw, k, nnodes)) {
        free(fi);
        snprintf(err, errlen, "out of memory building fat tree for %d nodes", nnodes);
        return -1;
    }
    *fi = probe;
    t->impl = fi;
    t->radix = k;
    t->down = down;
    t->up = up;
    t->levels = fi->nlevels;
    attach_nodes(t, fi, nnodes, down);
    for (int l = 1; l < fi->nlevels; l++)
        wire_level(t, fi, l);
    return 0;
}

/* Towards node `dst_node` (on leaf dst_node / down).  Going up, the port is
 * digit l of the destination NODE index (destination-mod-k): nodes of one
 * leaf spread over all uplinks, so the leaf-to-leaf bandwidth is the full
 * up / down share (3:1), not one uplink's. */
int mf_fattree_route_node(const mf_topo_t *t, int sw, int dst_node)
{
    const ft_impl_t *fi = t->impl;
    int leaf = t->node_sw[dst_node];
    if (sw == leaf)
        return MF_PORT_NONE;
    int l = t->sw_level[sw], g = fi->gc[2 * sw];
    const ft_level_t *lv = &fi->lev[l];
    if (leaf / lv->span == g) /* l >= 1 here: a leaf's group is itself */
        return leaf / fi->lev[l - 1].span - g * lv->ndown;
    return lv->ndown + (dst_node / lv->width) % lv->nup;
}

/* Towards a leaf (nodes attach only to leaves), for hop counts and
 * leaf-level tools: the same path length as towards any of its nodes, the
 * uplink digit taken from the leaf index. */
int mf_fattree_route(const mf_topo_t *t, int sw, int dst_sw)
{
    if (sw == dst_sw || t->sw_level[dst_sw] != 0)
        return MF_PORT_NONE;
    const ft_impl_t *fi = t->impl;
    int l = t->sw_level[sw], g = fi->gc[2 * sw], leaf = dst_sw;
    const ft_level_t *lv = &fi->lev[l];
    if (leaf / lv->span == g)
        return leaf / fi->lev[l - 1].span - g * lv->ndown;
    return lv->ndown + (leaf / lv->width) % lv->nup;
}

int mf_fattree_oversub(const mf_topo_t *t)
{
    const ft_impl_t *fi = t->impl;
    return fi ? fi->oversub : 3;
}

/* ---- the aggregation tree (topo.h) ---------------------------------------- */

int mf_fattree_agg_root(const mf_topo_t *t)
{
    const ft_impl_t *fi = t->impl;
    return fi->lev[fi->nlevels - 1].base;
}

/* The first uplink of a leaf or of an upper column-0 switch. */
static int first_uplink(const ft_impl_t *fi, int level)
{
    return fi->lev[level].nup ? fi->lev[level].ndown : MF_PORT_NONE;
}

int mf_fattree_agg_parent(const mf_topo_t *t, int sw, int *port_at_parent)
{
    const ft_impl_t *fi = t->impl;
    int up = first_uplink(fi, t->sw_level[sw]);
    if (up == MF_PORT_NONE)
        return -1;
    int i = sw * t->max_ports + up;
    *port_at_parent = t->peer_port[i];
    return t->peer_sw[i];
}

int mf_fattree_agg_children(const mf_topo_t *t, int sw, int *child, int max)
{
    const ft_impl_t *fi = t->impl;
    int l = t->sw_level[sw], n = l ? fi->lev[l].ndown : 0;
    for (int i = 0; i < n && i < max; i++)
        child[i] = t->peer_sw[sw * t->max_ports + i];
    return n < max ? n : max;
}

int mf_fattree_route_agg(const mf_topo_t *t, int sw, int dst)
{
    const ft_impl_t *fi = t->impl;
    if (sw == dst)
        return MF_PORT_NONE;
    if (t->sw_level[sw] < t->sw_level[dst])
        return first_uplink(fi, t->sw_level[sw]);
    for (int p = 0; p < fi->lev[t->sw_level[sw]].ndown; p++)
        if (t->peer_sw[sw * t->max_ports + p] == dst)
            return p;
    return MF_PORT_NONE; /* not a child: no tree packet goes there */
}

void mf_fattree_nodes_below(const mf_topo_t *t, int sw, int *first, int *count)
{
    const ft_impl_t *fi = t->impl;
    int l = t->sw_level[sw];
    int leaf0 = fi->gc[2 * sw] * fi->lev[l].span, nleaves = fi->lev[0].groups;
    int leaf1 = leaf0 + fi->lev[l].span < nleaves ? leaf0 + fi->lev[l].span : nleaves;
    *first = leaf0 * t->down;
    int end = leaf1 * t->down < t->nnodes ? leaf1 * t->down : t->nnodes;
    *count = end - *first;
}
