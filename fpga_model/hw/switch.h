/*
 * One MPI-FPGA switch (001 fig. 5) as its blocks, instantiated and wired
 * in switch.c -- the one place (with net/network.c for what crosses
 * switches) that knows every block.  Each block owns its state in its own
 * header and talks to the others only through the ports of hw/ports.h
 * (doc/model.md, "Blocks and ports"):
 *
 *   l1_switch.h  L1 switch: input VCs, route (route.c), VC allocation
 *                (vc_alloc.c), switch allocation (sw_alloc.c), traversal,
 *                ejection (l1_switch.c)
 *   l2_switch.h  L2 switches: serialisation, output queues, loopback
 *   ccm.h        CCM: ccm.c, the algorithm blocks (ccm_algo.c, ccm_build.h,
 *                ccm_tree/ring/rd/scan/alltoall/stree/ftree.c), the dataflow
 *                it drives (flow.c)
 *   ct.h         communicator table           cgr.h   CGR unit (AgLUs)
 *   collector.h  collectors                   dma.h   DMA engine
 *   link.h, fifo.h, pkt.h, aglu.h   links, input FIFOs, packets, AgLU lanes
 *
 * Per cycle (switch.c): consume latches what the links delivered (L1
 * receive); produce steps each engine's CCM (round robin by the cycle, then
 * the aggregation engine), then the L1's ejection, then switch allocation
 * and traversal.
 */
#ifndef MF_SWITCH_H
#define MF_SWITCH_H

#include "hw/ccm.h"
#include "hw/dma.h"
#include "hw/l1_switch.h"
#include "hw/l2_switch.h"
#include "hw/ports.h"
#include "sim/engine.h"

struct mf_net;

typedef struct mf_switch {
    /* what every produce reads first, in the module's cache line: a large
     * network's switches do not fit the cache together, so each line a
     * cycle touches is a miss (bench/README.md) */
    mf_module_t mod;
    int nengines;          /* ranks attached (host slots) */
    int id;
    mf_engine_t **eng;     /* by host slot */
    mf_l1_t l1;
    mf_ccm_t ccm;
    mf_engine_t *agg;      /* fat-tree aggregation engine (no host), or NULL */
    struct mf_net *net;
    /* the port data every cycle's calls touch, beside the CCM's ports */
    mf_dma_reader_t dma;
    mf_grant_port_t cgr;   /* CGR units granted this cycle */
    mf_stream_pool_t streams; /* collector buffering */
    mf_l2_t l2;
} mf_switch_t;

/* Instantiate switch id of n and wire its blocks (the network wires what
 * crosses switches: links, engines, collectors). */
int mf_switch_init(struct mf_net *n, mf_switch_t *s, int id);
void mf_switch_fini(mf_switch_t *s);
static inline void mf_switch_wake(mf_switch_t *s, uint64_t cycle)
{
    mf_wake(&s->l1.wake, cycle); /* the switch's module */
}

#endif
