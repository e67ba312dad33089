/*
 * The two-level MPI-FPGA switch (001 fig. 5) and the state its blocks share.
 * One file per block (001 figs. 3, 5, 6, 7; doc/model.md):
 *   dma.c        DMA engine / packet converter (processor <-> network packets)
 *   link.c       transceiver link            fifo.c   input FIFO, margin back-pressure
 *   ccm.c        collective control module   ct.c     communicator table
 *   ccm_algo.c   the CCM's algorithm selection; ccm_build.c its building blocks;
 *   ccm_tree.c, ccm_ring.c, ccm_rd.c  the algorithm blocks (binomial, ring,
 *                rec. doubling/halving)
 *   route.c      route computation           vc_alloc.c  VC allocation
 *   sw_alloc.c   switch allocation (round robin)
 *   l1_switch.c  L1 switch traversal, ejection
 *   collector.c  collectors (stream buffers of incoming collective packets)
 *   cgr.c        CGR unit: reduction table, count/counter, AgLUs
 *   l2_switch.c  L2 switches: reorder/serialise gathered data, direct CGR
 *                outputs to output ports
 *   flow.c       the per-collective dataflow these blocks execute
 *   switch.c     assembles the blocks into one cycle-engine module
 */
#ifndef MF_SWITCH_H
#define MF_SWITCH_H

#include <stdint.h>
#include <string.h>
#include "mpifpga/model.h"
#include "mpifpga/wire.h"
#include "hw/ct.h"
#include "hw/fifo.h"
#include "hw/link.h"
#include "hw/pkt.h"
#include "hw/ports.h"
#include "net/topo.h"
#include "params/params.h"
#include "sim/engine.h"

#define MF_MAX_VCS 8
#define MF_MAX_NET_PORTS 32
#define MF_COLL_OUT_DEPTH 4 /* packets an L2 output queue holds */
#define MF_VC_WORDS (MF_MAX_NET_PORTS * MF_MAX_VCS / 64) /* input VC bit set */

struct mf_net;
struct mf_switch;
struct mf_engine;


/* ---- per-rank collective engine context and per-node DMA ---------------- */

typedef struct mf_engine {
    /* what every cycle looks at first, together at the start */
    struct mf_switch *sw;
    mf_host_port_t *dma;
    int grank;
    int slot;                      /* host slot on the switch */
    uint32_t running, waiting;     /* contexts with a current / a queued call */
    mf_pq_t tx;                    /* unicast packets the converter injects */
    mf_coll_t *cur[MF_MAX_CTX];    /* collective running per context */
    uint32_t seq[MF_MAX_CTX];      /* collectives started per context */
    mf_coll_t *wait_head[MF_MAX_CTX], *wait_tail[MF_MAX_CTX]; /* posted, queued */
    mf_pq_t parked[MF_MAX_CTX];    /* packets that came before their collective */
    mf_ct_port_t ct;               /* its communicator table (ct.c) */
    uint64_t rx_pkts, rx_lat_sum, rx_lat_max, rx_phits;
    uint32_t posted[MF_MAX_CTX];   /* aggregation engine: last sequence configured */
} mf_engine_t;

/* ---- router ports -------------------------------------------------------- */

typedef struct {
    mf_fifo_t vc[MF_MAX_VCS];
    mf_link_t *link;      /* incoming link, NULL if unconnected */
    uint64_t next_head;   /* arrival of the link's first packet, MF_NEVER if none
                           * (kept here so an idle port costs no cache miss) */
} mf_inport_t;

typedef struct {
    mf_link_t link;       /* outgoing link (owned) */
    int connected;
    struct mf_switch *peer;
    int peer_port;
    uint32_t rr;          /* switch allocation round-robin pointer */
    uint64_t pkts;
} mf_outport_t;

typedef struct mf_switch {
    mf_module_t mod;
    struct mf_net *net;
    int id;
    int nports;            /* network ports */
    int nengines;          /* ranks attached (host slots) */
    /* looked at every cycle, kept apart from the bulky port structs: */
    uint64_t next_rx;      /* earliest in[].next_head */
    uint64_t vc_held[MF_VC_WORDS]; /* bit port * vcs + vc: that input VC holds packets */
    uint32_t coll_out_held; /* bit port: coll_out[port] holds packets */
    mf_pq_t coll_out[MF_MAX_NET_PORTS]; /* L2 switch output queue per port */
    mf_inport_t in[MF_MAX_NET_PORTS];
    mf_outport_t out[MF_MAX_NET_PORTS];
    mf_engine_t **eng;     /* by host slot */
    uint64_t *eject_free_fx; /* per host slot x (1 + input ports): eject lane serialisers */
    mf_grant_port_t cgr;   /* CGR units granted this cycle */
    int eng_rr;            /* engine served first (fair time slots) */
    mf_engine_t *agg;      /* fat-tree aggregation engine (no host), or NULL */
    int nactive_colls;
    mf_stream_pool_t streams; /* collector buffering */
    unsigned eject_waiting; /* packets in input VCs addressed to local engines */
} mf_switch_t;

/* ---- the network ------------------------------------------------------- */

typedef struct mf_net {
    mf_params_t p;
    mf_topo_t *topo;       /* not owned */
    mf_sim_t sim;
    mf_pool_t pool;
    mf_switch_t *sw;
    int nsw;
    mf_engine_t *eng;      /* by global rank */
    int nranks;            /* eng[nranks + sw]: switch sw's aggregation engine (fat tree) */
    int neng;              /* engines: nranks, + nsw on a fat tree */
    mf_host_port_t *dma;   /* by node */
    mf_ct_t *ct;           /* communicator table by engine */
    /* derived figures */
    unsigned phit_bytes, pkt_bytes;
    uint32_t datapath_bytes, dma_bytes;
    uint64_t host_fx;      /* host bytes per cycle each way, 16.16 (mf_host_port_t) */
    uint32_t stage, pcie, host_o, link_lat;
    uint32_t margin, vc_cap;
    size_t pending;        /* collectives posted, host not yet signalled */
    uint64_t progress_at;  /* sim.active_cycles when a flow last moved bytes or a call started */
    uint64_t last_entry;   /* latest cycle a posted call enters its switch */
    uint64_t watchdog;     /* active cycles without progress that stop a run, 0 = off */
    char err[200];
    int failed;
    /* unicast ejection hook: synthetic traffic (traffic.c), baseline (baseline.c) */
    void (*on_eject)(struct mf_net *n, mf_engine_t *e, mf_pkt_t *k);
    void *eject_ctx;       /* context of on_eject */
    void *traffic_owned; /* generator module, freed with the network */
    void *baseline;        /* baseline engine (baseline.c), freed with the network */
    void (*baseline_free)(void *);
} mf_net_t;

/* switch.c */
int mf_switch_init(mf_net_t *n, mf_switch_t *s, int id);
void mf_switch_fini(mf_switch_t *s);
static inline void mf_switch_wake(mf_switch_t *s, uint64_t cycle)
{
    mf_sim_wake(&s->net->sim, &s->mod, cycle);
}
int mf_rank_switch(const mf_net_t *n, int grank);

/* route.c */
void mf_route_compute(mf_switch_t *s, mf_pkt_t *k);
/* vc_alloc.c */
int mf_vc_alloc(mf_switch_t *s, mf_pkt_t *k, uint64_t now);
/* sw_alloc.c */
void mf_sw_alloc(mf_switch_t *s, uint64_t now);
/* l1_switch.c */
void mf_l1_traverse(mf_switch_t *s, int port, mf_pkt_t *k, uint64_t now);
void mf_l1_eject(mf_switch_t *s, mf_pkt_t *k, uint64_t now);
void mf_l1_receive(mf_switch_t *s, uint64_t now);
void mf_l1_eject_ready(mf_switch_t *s, uint64_t now);
mf_pkt_t *mf_l1_pop(mf_switch_t *s, unsigned in_vc, uint64_t now);
/* Input VC in_vc = port * vcs + vc, the numbering of vc_held. */
static inline mf_fifo_t *mf_l1_fifo(mf_switch_t *s, unsigned in_vc)
{
    return &s->in[in_vc / s->net->p.vcs].vc[in_vc % s->net->p.vcs];
}
/* dma.c */
void mf_dma_read_sources(mf_switch_t *s, mf_engine_t *e, mf_coll_t *c, uint64_t now);
void mf_dma_eject_unicast(mf_switch_t *s, mf_engine_t *e, mf_pkt_t *k, uint64_t now);
/* ccm.c */
void mf_ccm_post(mf_net_t *n, mf_engine_t *e, mf_coll_t *c);
/* Configure aggregation engine e for the collective `from` (a child's)
 * runs, starting at cycle `at`, unless a child already did; -1 if out of
 * memory. */
int mf_ccm_post_agg(mf_engine_t *e, const mf_coll_t *from, uint64_t at);
void mf_ccm_start_ready(mf_switch_t *s, mf_engine_t *e, uint64_t now);
void mf_ccm_progress(mf_switch_t *s, mf_engine_t *e, uint64_t now, int *busy);
void mf_ccm_finish(mf_switch_t *s, mf_coll_t *c, uint64_t now);
/* ccm_algo.c */
int mf_ccm_build(mf_coll_t *c, const mf_ct_entry_t *ct);
/* collector.c */
void mf_collector_accept(mf_switch_t *s, mf_engine_t *e, mf_pkt_t *k, uint64_t now);
void mf_collector_adopt_parked(mf_switch_t *s, mf_engine_t *e, mf_coll_t *c);
/* cgr.c */
size_t mf_cgr_reduce(mf_switch_t *s, mf_coll_t *c, mf_flow_t *f, uint8_t *out, size_t n,
                     int *zero);
/* l2_switch.c */
/* Both fill out and return 1, or return 0 and leave out unset if the n
 * bytes are all zero (taken from streams that hold only zeros). */
size_t mf_l2_serialise(mf_switch_t *s, mf_coll_t *c, mf_flow_t *f, uint8_t *out, size_t n,
                       int *zero);
#define MF_L2_LOOPBACK (-3) /* mf_l2_queue: the destination is on this switch */
int mf_l2_queue(mf_switch_t *s, uint16_t dest);
int mf_l2_can_emit(mf_switch_t *s, int queue);
void mf_l2_emit(mf_switch_t *s, mf_pkt_t *k, uint64_t now);
/* flow.c */
int mf_flow_prepare(mf_switch_t *s, mf_coll_t *c);
int mf_flow_step(mf_switch_t *s, mf_coll_t *c, mf_flow_t *f, uint64_t now);

#endif
