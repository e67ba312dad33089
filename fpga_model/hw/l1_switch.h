/*
 * L1 switch of the MPI-FPGA switch (001 sec. 4.1, 4.3, fig. 5): input VC
 * FIFOs fed by the links, route computation (route.c), VC allocation
 * (vc_alloc.c), round-robin switch allocation (sw_alloc.c), traversal to
 * the output links, and ejection to local engines (l1_switch.c).  Its
 * ports: the links (hw/link.h), the L2 switch's output queues (served like
 * an input), the converters' injection queues, and per engine the eject
 * packet ports to its collector and its DMA.
 */
#ifndef MF_HW_L1_SWITCH_H
#define MF_HW_L1_SWITCH_H

#include "hw/fifo.h"
#include "hw/link.h"
#include "hw/ports.h"
#include "net/topo.h"

#define MF_MAX_VCS 8
#define MF_MAX_NET_PORTS 32
_Static_assert(MF_MAX_NET_PORTS <= 127, "a port number fits mf_pkt_t.out_port (int8_t)");
#define MF_VC_WORDS (MF_MAX_NET_PORTS * MF_MAX_VCS / 64) /* input VC bit set */

struct mf_l1;

typedef struct {
    mf_link_t *link;      /* incoming link, NULL if unconnected */
    uint64_t next_head;   /* arrival of the link's first packet, MF_NEVER if none
                           * (kept here so an idle port costs no cache miss) */
} mf_inport_t;

typedef struct {
    mf_link_t link;       /* outgoing link (owned) */
    int connected;
    int peer_port;
    struct mf_l1 *peer;   /* the L1 switch at the other end */
    mf_fifo_t *peer_fifo; /* the input VC FIFOs this link feeds there, by VC (a
                           * VC allocation reads their stop state without
                           * loading the peer's L1 record first) */
    uint32_t rr;          /* switch allocation round-robin pointer */
    uint32_t rr_epoch;    /* mf_l1_t.epoch of the port's last grant */
    uint64_t pkts;
    const mf_remote_port_t *remote; /* the peer is in another domain: packets go
                                     * there (NULL: the peer is simulated here) */
    uint32_t remote_id;   /* the link's number for it: switch * max ports + port */
    /* the mf_l1_t.epoch in which a pointer from before it decided a choice
     * (sw_alloc.c choose_with_found_pointer); the pointers rr_lo..rr_hi
     * (cyclic) choose the same.  In the padding the fields above leave:
     * the struct stays 176 bytes. */
    uint32_t rr_decided;
    uint32_t rr_lo, rr_hi;
} mf_outport_t;

/* What an output VC last learned of its downstream FIFO's stop signal: the
 * state, and the cycles through which it holds (mf_fifo_stop_window), so
 * a VC allocation reads the other switch's FIFO once per change, not once
 * per cycle.  Empty (from > until) until first asked. */
typedef struct {
    uint64_t from, until;
    uint8_t stop;
} mf_stop_view_t;

/* Where the L1 switch ejects packets for one engine. */
typedef struct {
    mf_pkt_port_t collective; /* its collector */
    mf_pkt_port_t unicast;    /* its DMA engine */
    int slot;                 /* its host slot on its switch */
} mf_eject_port_t;

typedef struct mf_l1 {
    /* looked at every cycle, kept together in the first two cache lines
     * (the switch's module line is just before), apart from the bulky port
     * structs */
    uint64_t next_rx;      /* earliest in[].next_head */
    int nports;            /* network ports */
    int nengines;          /* host slots */
    unsigned vcs;          /* VCs per port */
    unsigned vc_words;     /* words of vc_held / eject_head in use: (nports * vcs + 63) / 64 */
    uint32_t stage;        /* router pipeline stage, cycles */
    uint32_t l2_held;      /* bit port: l2_out[port] holds packets */
    /* per network port, nports of each in one block (switch.c): sized for
     * the topology, not MF_MAX_NET_PORTS, so a torus switch's ports sit in
     * a few KB instead of 32 KB of mostly unused slots */
    mf_fifo_t *fifo;       /* input VC FIFOs by in_vc = port * vcs + vc */
    mf_inport_t *in;
    mf_outport_t *out;
    mf_stop_view_t *seen;  /* by out VC = port * vcs + vc */
    mf_pq_t **tx;          /* injection queue per host slot */
    uint64_t vc_held[MF_VC_WORDS]; /* bit port * vcs + vc: that input VC holds packets */
    uint64_t eject_head[MF_VC_WORDS]; /* bit set: that VC's head ejects here (a subset
                                       * of vc_held; the rest are routed on) */
    mf_pq_t *l2_out;       /* the L2 switch's output queue per port */
    const mf_eject_port_t *eject; /* by engine (global rank) */
    uint64_t *eject_free_fx; /* per host slot x (1 + input ports): eject lane serialisers */
    int id;
    /* The round-robin pointers' epoch (coll/iter.c: one per recorded
     * iteration); out[].rr_epoch and out[].rr_decided refer to it. */
    uint32_t epoch;
    uint32_t phit_bytes;
    uint32_t phits_per_cycle; /* datapath phits per cycle (eject lanes) */
    int eject_per_port;    /* collective packets: one eject lane per input port */
    int nranks;
    const mf_topo_t *topo;
    mf_wake_port_t wake;
} mf_l1_t;

/* Input VC in_vc = port * vcs + vc, the numbering of vc_held. */
static inline mf_fifo_t *mf_l1_fifo(mf_l1_t *l, unsigned in_vc) { return &l->fifo[in_vc]; }
/* The FIFO that VC vc of output port `port` feeds: on the peer's input. */
static inline mf_fifo_t *mf_l1_peer_fifo(const mf_l1_t *l, int port, unsigned vc)
{
    return &l->out[port].peer_fifo[vc];
}

/* route.c: k->out_port (-1: eject here) and k->h.vc from k->h.dest */
void mf_route_compute(mf_l1_t *l, mf_pkt_t *k);
/* vc_alloc.c: the VC k takes on its output port (mf_route_compute keeps
 * it in k->out_vc, so VA is the stop check below) */
unsigned mf_vc_choose(const mf_l1_t *l, const mf_pkt_t *k);
/* Does k's VC on its output port see the downstream FIFO stopped at `at`
 * (at most a link latency ahead of now)? */
int mf_vc_stopped(mf_l1_t *l, const mf_pkt_t *k, uint64_t at);
/* sw_alloc.c */
int mf_sw_alloc(mf_l1_t *l, uint64_t now); /* packets granted */
/* l1_switch.c */
void mf_l1_traverse(mf_l1_t *l, int port, mf_pkt_t *k, uint64_t now);
/* A packet whose head arrives at `head` is on o's link: the peer's hints
 * and wake-up (traversal here, or a packet from another domain). */
void mf_l1_arriving(mf_outport_t *o, uint64_t head);
void mf_l1_eject(mf_l1_t *l, mf_pkt_t *k, uint64_t now);
int mf_l1_receive(mf_l1_t *l, uint64_t now); /* 1 if a packet may have arrived */
int mf_l1_eject_ready(mf_l1_t *l, uint64_t now); /* packets ejected */
mf_pkt_t *mf_l1_pop(mf_l1_t *l, unsigned in_vc, uint64_t now);
/* Packets in the L1 switch that may move in a later cycle? */
int mf_l1_has_queued(const mf_l1_t *l);
/* The first cycle after now in which the L1 may move a packet it holds,
 * MF_NEVER if it holds none (l1_switch.c). */
uint64_t mf_l1_next_move(mf_l1_t *l, uint64_t now);

#endif
