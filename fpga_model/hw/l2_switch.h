/*
 * L2 switches (001 sec. 4.3; l2_switch.c): serialise gathered streams in
 * rank order, and direct CGR / CCM output packets to the switch output
 * port of their route (an output queue per port, served by the L1's switch
 * allocator) or, for an engine on the same switch, loop them back to its
 * collector.  Its ports: the output queues (owned by the L1 switch, which
 * serves them), the L1's route port, the collectors' packet ports.
 */
#ifndef MF_HW_L2_SWITCH_H
#define MF_HW_L2_SWITCH_H

#include "hw/ports.h"
#include "net/topo.h"

typedef struct {
    int id;                       /* the switch */
    uint32_t stage;               /* L2 traversal, cycles */
    uint32_t phits_per_cycle;     /* datapath phits per cycle */
    const mf_topo_t *topo;
    int nranks;
    mf_pq_t *out;                 /* output queue per switch output port */
    uint32_t *out_held;           /* bit port: out[port] holds packets */
    mf_route_port_t route;        /* the L1 switch's route computation */
    const mf_pkt_port_t *collector; /* loopback: collector port by engine */
    mf_wake_port_t wake;
} mf_l2_t;

/* An mf_combine_fn: CONCAT flows take their inputs strictly in order,
 * COPY flows their one input. */
size_t mf_l2_serialise(mf_stream_pool_t *p, mf_coll_t *c, mf_flow_t *f, uint8_t *out, size_t n,
                       int *zero);
/* The output queue for packets to dest: an output port, MF_EMIT_LOOPBACK
 * or MF_PORT_NONE. */
int mf_l2_queue(mf_l2_t *l2, uint16_t dest);
void mf_l2_emit(mf_l2_t *l2, mf_pkt_t *k, uint64_t now);

#endif
