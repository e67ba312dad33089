/*
 * Network topologies (001 sec. 2.3 / 4.4, 000 sec. 4.2.2):
 *   direct  3D torus X x Y x Z, one switch per node, 6 network ports,
 *           dimension-order (XYZ) routing, dateline VC classes
 *   indirect fat tree (folded Clos): leaf switches with `down` host-facing
 *           ports and `up` uplinks (oversubscription down:up, default 3:1),
 *           as many upper levels as the node count needs, up/down (up-then-down) routing
 * Ranks are placed block-wise: rank r runs on node r / ppn.
 */
#ifndef MF_TOPO_H
#define MF_TOPO_H

#include <stddef.h>
#include <stdint.h>

typedef enum { MF_TOPO_TORUS = 0, MF_TOPO_FATTREE = 1 } mf_topo_kind_t;

typedef struct {
    mf_topo_kind_t kind;
    int x, y, z;   /* torus dims; 0 = choose from nodes */
    int radix;     /* fat tree switch radix (8, 16, 28, ...) */
    int oversub;   /* fat tree leaf down:up ratio; 0 = default 3 / parameter set */
} mf_topo_spec_t;

#define MF_PORT_NONE (-1)

typedef struct mf_topo {
    mf_topo_kind_t kind;
    int nswitches;
    int nnodes;       /* compute nodes (processors) */
    int ppn;          /* ranks per node */
    int nranks;       /* nnodes * ppn */
    int max_ports;    /* network ports per switch (torus 6, fat tree radix) */
    /* links: index s * max_ports + p; peer_sw = -1 if port unused */
    int32_t *peer_sw;
    int8_t *peer_port;
    /* attachment of nodes to switches */
    int32_t *node_sw;     /* node -> switch */
    int32_t *rank_sw;     /* rank -> switch: node_sw[rank / ppn] without the
                           * division, which every route computation needs */
    int32_t *node_slot;   /* node -> host slot on that switch (0..) */
    int32_t *sw_nodes;    /* switch -> number of nodes attached (0 for spines) */
    /* torus */
    int dims[3];
    /* fat tree */
    int radix, down, up, levels;
    int32_t *sw_level;    /* fat tree: 0 = leaf; torus: all 0 */
    /* private precomputed routing state of torus.c / fattree.c (one block,
     * released by mf_topo_free) */
    void *impl;
} mf_topo_t;

/* Parse "torus:4x4x4", "torus" (dims from node count), "fattree:16",
 * "fattree:16:3" (radix 16, leaf oversubscription 3:1). */
int mf_topo_parse(const char *s, mf_topo_spec_t *spec, char *err, size_t errlen);
/* Smallest near-cubic torus X>=Y>=Z with X*Y*Z >= nodes (exactly nodes if possible). */
void mf_torus_dims_for(int nodes, int dims[3]);
/* Build for `nnodes` nodes with `ppn` ranks each. oversub 0 = 3. */
int mf_topo_build(const mf_topo_spec_t *spec, int nnodes, int ppn, mf_topo_t *t,
                  char *err, size_t errlen);
void mf_topo_free(mf_topo_t *t);
/* "torus:4x4x4" / "fattree:16" into buf. */
void mf_topo_describe(const mf_topo_t *t, char *buf, size_t len);

/*
 * Route computation at switch `sw` for a packet whose destination is attached
 * to switch `dst_sw`.  Returns the output network port, or MF_PORT_NONE when
 * dst_sw == sw (eject / local).  *vc is the packet's VC class on input
 * (0/1) and is updated to its class on the output link (dateline rules of
 * 000 sec. 4.2.2; fat tree: unchanged).  Deterministic: one path per pair,
 * so packets of one flow stay in order.
 */
int mf_topo_route(const mf_topo_t *t, int sw, int dst_sw, int *vc);
/*
 * As mf_topo_route, with the network port the packet arrived on at `sw`
 * (MF_PORT_NONE when it is injected at `sw`).  On the torus this gives the
 * exact dateline rule of 000 sec. 4.2.2: the class is reset to 0 (+) / 1 (-)
 * whenever the packet enters a dimension and toggles on the wraparound link.
 * mf_topo_route cannot tell "entered this dimension here" from "already
 * travelling in it", so it may keep the post-dateline class on the first hop
 * of a dimension; it is still deadlock-free (see torus.c).
 */
int mf_topo_route_ex(const mf_topo_t *t, int sw, int dst_sw, int in_port, int *vc);
/* Network hops from switch a to switch b along the routed path. */
int mf_topo_hops(const mf_topo_t *t, int a, int b);
/* Links between the switches of engines ga and gb (global ranks, or
 * nranks + switch for a fat tree's aggregation engine): mf_topo_hops, or
 * on a fat tree with an upper switch's aggregation engine the links of the
 * aggregation tree between them; -1 if neither path exists. */
int mf_topo_engine_hops(const mf_topo_t *t, int nranks, int ga, int gb);
/*
 * The fat tree's aggregation tree (001 sec. 4.4: leaf and spine switches
 * both reduce and gather): every leaf, and the first switch (column 0) of
 * every upper group, each joined to its parent by its first uplink; the
 * root is column 0 of the top level.  Only these switches aggregate.
 */
int mf_fattree_agg_root(const mf_topo_t *t);
/* The parent of tree switch sw, -1 at the root; *port_at_parent = the
 * parent's down port towards sw. */
int mf_fattree_agg_parent(const mf_topo_t *t, int sw, int *port_at_parent);
/* Children of upper tree switch sw by down port: child[i] = the switch on
 * down port i, -1 if unconnected; returns the number of down ports. */
int mf_fattree_agg_children(const mf_topo_t *t, int sw, int *child, int max);
/* Output port at sw towards tree switch dst (its ancestor or child). */
int mf_fattree_route_agg(const mf_topo_t *t, int sw, int dst);
/* First node and node count below switch sw. */
void mf_fattree_nodes_below(const mf_topo_t *t, int sw, int *first, int *count);
/* Torus coordinates of a switch. */
void mf_torus_coord(const mf_topo_t *t, int sw, int c[3]);
int mf_torus_switch(const mf_topo_t *t, const int c[3]);

/* Internal to net/ (topo.c dispatches to torus.c / fattree.c). */
#define MF_PORT_UNKNOWN (-2) /* arrival port not known (mf_topo_route) */
int mf_topo_alloc(mf_topo_t *t, int nswitches, int max_ports, int nnodes);
int mf_torus_build(const mf_topo_spec_t *spec, int nnodes, mf_topo_t *t, char *err,
                   size_t errlen);
int mf_fattree_build(const mf_topo_spec_t *spec, int nnodes, mf_topo_t *t, char *err,
                     size_t errlen);
int mf_torus_route(const mf_topo_t *t, int sw, int dst_sw, int in_port, int *vc);
int mf_fattree_route(const mf_topo_t *t, int sw, int dst_sw);
int mf_fattree_route_node(const mf_topo_t *t, int sw, int dst_node);
int mf_fattree_oversub(const mf_topo_t *t);

/* Switch of engine grank: a rank's node's switch, or for grank >= nranks
 * the aggregation engine of switch grank - nranks (fat tree). */
static inline int mf_topo_engine_switch(const mf_topo_t *t, int nranks, int grank)
{
    if (grank >= nranks)
        return grank - nranks;
    return t->rank_sw[grank];
}

/* As mf_topo_route_ex, towards rank dst_rank, whose switch is dst_sw
 * (mf_topo_engine_switch): on a fat tree the uplink depends on the
 * destination node, not only its leaf (destination-mod-k); on the torus
 * the route depends on the switch alone, so it takes no division. */
static inline int mf_topo_route_rank(const mf_topo_t *t, int sw, int dst_sw, int dst_rank,
                                     int in_port, int *vc)
{
    if (t->kind == MF_TOPO_TORUS)
        return mf_torus_route(t, sw, dst_sw, in_port < 0 ? MF_PORT_NONE : in_port, vc);
    return mf_fattree_route_node(t, sw, dst_rank / t->ppn);
}

#endif
