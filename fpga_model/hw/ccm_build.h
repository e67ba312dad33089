/*
 * The CCM's schedule builder (001 sec. 4.2, fig. 6; Table 1), shared by its
 * parts: from the processor header and this rank's CT entry, the algorithm
 * blocks build the dataflow the switch runs for one collective -- which
 * streams arrive from which partner (tag), what the CGR reduces, what the L2
 * switch serialises, where each byte range goes (new destination, multicast,
 * host).  Schedules follow MPICH's algorithms; the partner sets come from the
 * CT entry only.
 *
 *   ccm_build.c  building blocks: streams, flows, sinks
 *   ccm_tree.c   binomial trees (bcast, reduce, scatter, gather)
 *   ccm_ring.c   ring (bcast scatter + ring, allgather)
 *   ccm_rd.c     pof2 folding, recursive halving and doubling
 *   ccm_scan.c   prefix reductions (scan, exscan)
 *   ccm_alltoall.c  personalized exchange (alltoall)
 *   ccm_stree.c  streaming trees on the torus (bcast, reduce, allreduce)
 *   ccm_dring.c  streaming allgather and reduce_scatter on the torus:
 *                rings in every dimension at once
 *   ccm_ftree.c  aggregation in the fat tree's switches (bcast, reduce,
 *                allreduce, allgather)
 *   ccm_algo.c   dispatch by opcode and algorithm, mf_ccm_build
 *
 * Tags: binomial edges use the level k; halving step s uses s and the
 * matching doubling step L + s; 30 carries a folded rank's data in, 31 the
 * result back out; the ring uses 31 for a neighbour's own chunk and 30 for
 * the chunks it forwards.  See doc/model.md.
 */
#ifndef MF_HW_CCM_BUILD_H
#define MF_HW_CCM_BUILD_H

#include "mpifpga/ct.h"
#include "hw/ccm.h"

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
    uint64_t *disp; /* reduce_scatter with counts: byte offset of each rank's
                     * block, P + 1 (ccm_rs_disp), or NULL */
    int fail;
} bld_t;

/* The topology of the switch building the schedule (needs an engine). */
static inline const mf_topo_t *ccm_topo(const bld_t *b) { return b->c->eng->ccm->topo; }

/* ---- building blocks (ccm_build.c); errors set b->fail ------------------- */

int ccm_host_src(bld_t *b, uint64_t off, uint64_t len);   /* DMA read of the send buffer */
int ccm_net_in(bld_t *b, int tag, uint64_t len);          /* collector stream of a tag */
int ccm_flow(bld_t *b, int kind, uint64_t len, int nin, const int *in);
int ccm_copy_of(bld_t *b, int st);                        /* a COPY flow of one stream */
void ccm_to_host(bld_t *b, int f, uint64_t off, uint64_t len, uint64_t host_off);
/* The NET sink (valid until the next sink is added), or NULL (b->fail). */
mf_sink_t *ccm_to_net(bld_t *b, int f, uint64_t off, uint64_t len, uint16_t dest, int tag);
int ccm_to_stream(bld_t *b, int f, uint64_t off, uint64_t len); /* internal stream */
int ccm_empty(bld_t *b);                                  /* a flow of no bytes */
/* The finished schedule into one block, sinks grouped by flow (sink0,
 * nsink) and room for flow.c's index arrays; 0, or -1 out of memory. */
int ccm_pack(mf_coll_t *c);

static inline int ctz(unsigned v)
{
    return v ? __builtin_ctz(v) : 31;
}

/* ---- binomial trees (relative rank vr = (r - root) mod P) ---------------- */

static inline int vrank(const bld_t *b) { return (b->r - b->c->req.hdr.root + b->P) % b->P; }
/* Level of the edge to vr's parent; children use the levels below it. */
static inline int parent_level(const bld_t *b, int vr) { return vr ? ctz((unsigned)vr) : b->ct->levels; }
static inline int has_child(const bld_t *b, int vr, int k)
{
    return k < parent_level(b, vr) && vr + (1 << k) < b->P;
}
/* Number of ranks in the subtree rooted at vr. */
static inline int subtree(const bld_t *b, int vr)
{
    int s = vr ? 1 << ctz((unsigned)vr) : b->P;
    return s < b->P - vr ? s : b->P - vr;
}

/* ---- ring: chunks of position j at [co(j), co(j+1)) ----------------------- */

typedef struct {
    int P, me;
    uint64_t unit, total; /* chunk j = [min(j*unit,total), min((j+1)*unit,total)) */
    uint64_t host_base;   /* host offset of chunk 0, chunks rotate by `rot` */
    int rot;              /* host position of chunk j is (j + rot) mod P */
    int write_host;
} ring_t;

static inline uint64_t co(const ring_t *g, int j)
{
    uint64_t o = (uint64_t)j * g->unit;
    return o < g->total ? o : g->total;
}
static inline uint64_t clen(const ring_t *g, int j) { return co(g, j + 1) - co(g, j); }


/* ---- the algorithm blocks ------------------------------------------------- */

void ccm_bcast_binomial(bld_t *b);
void ccm_reduce_binomial(bld_t *b);
void ccm_scatter_binomial(bld_t *b);
void ccm_gather_binomial(bld_t *b);
int ccm_bcast_scatter(bld_t *b, const ring_t *g);
void ccm_bcast_scatter_ring(bld_t *b);
void ccm_bcast_scatter_rd(bld_t *b);
void ccm_allgather_ring(bld_t *b);
void ccm_allreduce_rd(bld_t *b);
void ccm_allreduce_rabenseifner(bld_t *b);
void ccm_reduce_rabenseifner(bld_t *b);
void ccm_reduce_scatter_halving(bld_t *b);
void ccm_allgather_rd(bld_t *b);
uint64_t ccm_rs_disp(const bld_t *b, int i); /* byte offset of rank i's block */
int ccm_stree_fits(const bld_t *b);          /* ccm_stree.c: streaming trees */
void ccm_bcast_stree(bld_t *b);
void ccm_reduce_stree(bld_t *b);
void ccm_allreduce_stree(bld_t *b);
int ccm_dring_fits(const bld_t *b);          /* ccm_dring.c: streaming allgather */
void ccm_allgather_dring(bld_t *b);
void ccm_reduce_scatter_dring(bld_t *b);
int ccm_ftree_fits(const bld_t *b);          /* ccm_ftree.c: fat-tree aggregation */
void ccm_ftree(bld_t *b);
void ccm_scan(bld_t *b, int exclusive);      /* ccm_scan.c: Scan, Exscan */
void ccm_alltoall(bld_t *b);                 /* ccm_alltoall.c */

#endif
