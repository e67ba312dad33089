/*
 * The whole modeled network (network.c): switches wired by the topology,
 * one host port (DMA) per node, one collective engine per rank and, on a
 * fat tree, per aggregation switch -- and the per-engine blocks (CT,
 * collector, DMA receive side) with the ports that join them to their
 * switch.
 */
#ifndef MF_NET_NETWORK_H
#define MF_NET_NETWORK_H

#include <stdint.h>
#include "hw/collector.h"
#include "hw/ct.h"
#include "hw/switch.h"
#include "mpifpga/model.h"
#include "net/topo.h"
#include "params/params.h"

typedef struct mf_net {
    mf_params_t p;
    mf_topo_t *topo;       /* not owned */
    mf_sim_t sim;
    mf_pool_t pool;
    mf_switch_t *sw;
    int nsw;
    mf_engine_t *eng;      /* by global rank */
    mf_partner_port_t partners; /* the CCMs' way to one another (hw/ccm_partner.c) */
    int nranks;            /* eng[nranks + sw]: switch sw's aggregation engine (fat tree) */
    int neng;              /* engines: nranks, + nsw on a fat tree */
    mf_host_port_t *dma;   /* by node */
    mf_ct_t *ct;           /* communicator table by engine */
    mf_collector_t *col;   /* collector by engine */
    mf_pkt_port_t *col_in; /* its packet port, by engine */
    mf_eject_port_t *eject; /* the L1's eject ports, by engine */
    mf_dma_rx_t *rx;       /* unicast packets received, by engine */
    mf_hw_cfg_t cfg;       /* the derived figures, for the blocks */
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
    void (*on_progress)(void *ctx, uint64_t cycle); /* mf_net_set_progress */
    void *progress_ctx;
    char err[200];
    int failed;
    /* unicast ejection hook: synthetic traffic (traffic.c), baseline (baseline.c) */
    void (*on_eject)(struct mf_net *n, mf_engine_t *e, mf_pkt_t *k);
    void *eject_ctx;       /* context of on_eject */
    void *traffic_owned; /* generator module, freed with the network */
    void *baseline;        /* baseline engine (baseline.c), freed with the network */
    void (*baseline_free)(void *);
    struct mf_dom *dom;    /* the switches simulated here, if split (net/domain.h) */
} mf_net_t;


/* Cycles by which the start of a run on the drained network can move
 * without changing a figure, 0 if none (link jitter: each packet's
 * latency is drawn anew).  The engines of a switch take turns by the
 * clock, cycle t mod their number first (hw/switch.c): the least common
 * multiple of those numbers.  Nothing else goes by the cycle number. */
uint64_t mf_net_shift_period(const mf_net_t *n);
/* The switch of engine grank (an aggregation engine's own switch). */
int mf_rank_switch(const mf_net_t *n, int grank);
/* mf_net_run's messages, for the split run too (net/domain_coll.c): the
 * watchdog's, naming a call that waits; a stall with `pending` calls
 * unfinished (returns -1). */
void mf_net_watchdog_msg(const mf_net_t *n, char *err, size_t errlen);
int mf_net_stall_msg(const mf_net_t *n, size_t pending, char *err, size_t errlen);

#endif
