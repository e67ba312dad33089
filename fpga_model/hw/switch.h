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
#include "hw/fifo.h"
#include "hw/link.h"
#include "hw/pkt.h"
#include "net/topo.h"
#include "params/params.h"
#include "sim/engine.h"

#define MF_MAX_VCS 8
#define MF_MAX_NET_PORTS 32
#define MF_FLOW_MAXIN 32 /* own data + one input per child: 16 binomial, 30 fat tree */
#define MF_COLL_OUT_DEPTH 4 /* packets an L2 output queue holds */
#define MF_VC_WORDS (MF_MAX_NET_PORTS * MF_MAX_VCS / 64) /* input VC bit set */

struct mf_net;
struct mf_switch;
struct mf_engine;

/* ---- collective dataflow (flow.c) ------------------------------------ */

typedef enum { MF_ST_HOST = 0, MF_ST_NET, MF_ST_INTERNAL } mf_stream_kind_t;

/* The bytes one push put into a stream: usable from cycle `ready`, they
 * end at stream offset `end`. */
typedef struct {
    uint64_t ready, end;
} mf_seg_t;

/* A byte stream inside the switch: a collector buffer (NET), the DMA's read
 * of a host range (HOST), or a link between two flows (INTERNAL).  The
 * buffered bytes, and the segments not yet known to be ready, are kept in
 * rings (collector.c). */
typedef struct {
    uint8_t *buf;      /* bytes [out, in): stream offset x at buf[x & (cap - 1)] */
    uint64_t cap;      /* a power of two, 0 until the first push */
    mf_seg_t *seg;     /* segment i at seg[i & (seg_cap - 1)] */
    uint64_t seg_cap;  /* a power of two, 0 until the first push */
    uint64_t seg_head, seg_tail; /* segments [head, tail) are not known ready */
    uint64_t ready_end; /* stream offset up to which bytes are known ready */
    uint64_t last_ready; /* readiness of the last push */
    uint8_t last_empty; /* the last push had no bytes */
    uint64_t len;      /* expected total bytes */
    uint64_t in, out;  /* bytes pushed / taken */
    uint64_t host_off; /* HOST: offset in the send buffer */
    uint64_t issued;   /* HOST: bytes the DMA has requested */
    uint64_t extra_win; /* INTERNAL: bytes it may hold beyond one FIFO window */
    uint8_t kind;
    uint8_t stored;    /* 0: the buffered bytes are all zero and buf is not
                        * used (timing-only runs move zeros); 1: buf holds them */
    uint8_t closed;    /* producer finished (NET: packet with last=1 seen) */
    uint8_t tag;       /* NET: schedule edge */
    uint64_t *check;   /* consumer flow's next_check (set after the build) */
} mf_stream_t;

typedef enum { MF_FLOW_COPY = 0, MF_FLOW_REDUCE, MF_FLOW_CONCAT } mf_flow_kind_t;
typedef enum { MF_SINK_HOST = 0, MF_SINK_NET, MF_SINK_STREAM } mf_sink_kind_t;

/* Where a byte range of a flow's output goes. */
typedef struct {
    uint8_t kind;
    uint8_t tag;        /* NET */
    uint16_t dest;      /* NET: global rank of the partner engine */
    uint64_t off, len;  /* range of the flow output */
    uint64_t done;      /* bytes delivered */
    uint64_t host_off;  /* HOST: offset in the receive buffer */
    int stream;         /* STREAM: index of the target stream */
    int flow;           /* flow whose output this sink takes */
    int l2_queue;       /* NET: L2 output queue towards dest (mf_l2_queue) */
    uint64_t extra_win; /* NET: bytes the partner parks in switch memory beyond one FIFO window */
    mf_pkt_t *pk;       /* NET: packet being filled */
} mf_sink_t;

typedef struct {
    uint8_t kind;
    uint8_t nin;
    uint8_t cur;       /* CONCAT: input being serialised */
    uint8_t done;
    int in[MF_FLOW_MAXIN];
    uint64_t len, pos; /* output bytes total / produced */
    int sink0, nsink;  /* sinks[sink0 .. sink0+nsink) */
    int net_sinks;     /* how many of them are NET sinks */
    int empty_left;    /* zero-length sinks that have not signalled yet */
    int next_sink;     /* sinks by offset before this one have been activated */
    int nactive;       /* active sinks (flow.c): sk_active[sink0 .. sink0+nactive) */
    uint64_t next_check; /* earliest cycle stepping it can do anything */
    int blk;           /* sink that stopped the last step, or -1 (flow.c) */
    uint64_t next_off; /* offset of the next sink to activate, UINT64_MAX if none */
    uint64_t act_end;  /* smallest end of an active sink, UINT64_MAX if none */
} mf_flow_t;

/* One collective call of one rank, as the switch executes it. */
typedef struct mf_coll {
    struct mf_coll *next;
    struct mf_engine *eng;
    mf_coll_req_t req;
    uint32_t *counts;   /* owned copy of req.counts */
    uint64_t start;     /* cycle the processor header reached the switch */
    uint32_t seq;       /* how many collectives this rank started on ctx (1-based) */
    mf_stream_t *st;
    int nst, capst;
    mf_flow_t *fl;
    int nfl, capfl;
    mf_sink_t *sk;
    int nsk, capsk;
    int *sk_by_off;     /* per flow (from its sink0), its sinks by offset */
    int *sk_active;     /* per flow (from its sink0), its active sinks in order */
    int16_t tag_stream[32]; /* NET stream per tag, -1 none */
    int flows_left;
    int first_live;     /* flows before it are done */
    int reads_left;     /* HOST streams the DMA has not finished reading */
    int *rd_st, nrd;    /* those streams, in index order (dma.c) */
    int host_sinks_left; /* HOST sinks not complete */
    uint64_t host_done; /* latest host-visible event (read or write landing) */
    int host_signalled;
    int status;
    char err[160];
} mf_coll_t;

/* ---- per-rank collective engine context and per-node DMA ---------------- */

typedef struct {
    uint8_t valid;
    mf_ct_entry_t e;
} mf_ct_row_t;

typedef struct mf_dma {
    uint64_t rd_budget_cycle, wr_budget_cycle; /* cycle the budgets belong to */
    uint32_t rd_left, wr_left;                 /* bytes left this cycle */
} mf_dma_t;

typedef struct mf_engine {
    /* what every cycle looks at first, together at the start */
    struct mf_switch *sw;
    mf_dma_t *dma;
    int grank;
    int slot;                      /* host slot on the switch */
    uint32_t running, waiting;     /* contexts with a current / a queued call */
    mf_pq_t tx;                    /* unicast packets the converter injects */
    mf_coll_t *cur[MF_MAX_CTX];    /* collective running per context */
    uint32_t seq[MF_MAX_CTX];      /* collectives started per context */
    mf_coll_t *wait_head[MF_MAX_CTX], *wait_tail[MF_MAX_CTX]; /* posted, queued */
    mf_pq_t parked[MF_MAX_CTX];    /* packets that came before their collective */
    mf_ct_row_t ct[MF_MAX_CTX];    /* communicator table rows (ct.c) */
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
    uint64_t cgr_cycle;    /* cycle (+1) the CGR slot count belongs to */
    unsigned cgr_used;     /* CGR units busy this cycle (<= SA) */
    uint64_t cgr_denied;   /* reductions that found every unit busy */
    int eng_rr;            /* engine served first (fair time slots) */
    mf_engine_t *agg;      /* fat-tree aggregation engine (no host), or NULL */
    int nactive_colls;
    uint64_t stream_bytes, stream_peak; /* collector buffering */
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
    mf_dma_t *dma;         /* by node */
    /* derived figures */
    unsigned phit_bytes, pkt_bytes;
    uint32_t datapath_bytes, dma_bytes;
    uint64_t host_fx;      /* host bytes per cycle each way, 16.16 (mf_host_bytes_at) */
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
/* This cycle's DMA byte budgets, set up by their first user in a cycle. */
/* Host bytes a node's DMA moves each way in cycle `now`: dma_bytes, or on
 * a fat tree the host link's rate where it is lower (network.c), spread
 * over the cycles so that any run of them moves the rate to the byte. */
static inline uint32_t mf_host_bytes_at(const mf_net_t *n, uint64_t now)
{
    if (n->host_fx == (uint64_t)n->dma_bytes << 16)
        return n->dma_bytes;
    return (uint32_t)(((now + 1) * n->host_fx >> 16) - (now * n->host_fx >> 16));
}
static inline void mf_dma_budgets(mf_net_t *n, mf_dma_t *d, uint64_t now)
{
    if (d->rd_budget_cycle != now + 1) {
        d->rd_budget_cycle = now + 1; /* +1 so cycle 0 is not "already set" */
        d->rd_left = d->wr_left = mf_host_bytes_at(n, now);
    }
}
static inline uint32_t mf_dma_write_budget(mf_net_t *n, mf_dma_t *d, uint64_t now)
{
    mf_dma_budgets(n, d, now);
    return d->wr_left;
}
void mf_dma_write_data(mf_coll_t *c, uint64_t off, const uint8_t *src, size_t len);
/* Write len bytes leaving the switch at cycle `now` (charged to this
 * cycle's DMA budget); they land in host memory PCIe latency after `lands`.
 * src == NULL writes len zero bytes. */
static inline void mf_dma_write(mf_net_t *n, mf_dma_t *d, mf_coll_t *c, uint64_t off,
                                const uint8_t *src, size_t len, uint64_t now, uint64_t lands)
{
    mf_dma_budgets(n, d, now);
    d->wr_left = len < d->wr_left ? d->wr_left - (uint32_t)len : 0;
    if (len && (c->req.recv.base || c->req.recv.write))
        mf_dma_write_data(c, off, src, len);
    if (lands + n->pcie > c->host_done)
        c->host_done = lands + n->pcie;
}
void mf_dma_eject_unicast(mf_switch_t *s, mf_engine_t *e, mf_pkt_t *k, uint64_t now);
/* ct.c */
int mf_ct_config(mf_engine_t *e, int ctx, const mf_ct_entry_t *entry, char *err, size_t len);
int mf_ct_free(mf_engine_t *e, int ctx);
const mf_ct_entry_t *mf_ct_lookup(const mf_engine_t *e, int ctx);
/* ccm.c */
void mf_ccm_post(mf_net_t *n, mf_engine_t *e, mf_coll_t *c);
/* Configure aggregation engine e for the collective `from` (a child's)
 * runs, starting at cycle `at`, unless a child already did; -1 if out of
 * memory. */
int mf_ccm_post_agg(mf_engine_t *e, const mf_coll_t *from, uint64_t at);
void mf_ccm_start_ready(mf_switch_t *s, mf_engine_t *e, uint64_t now);
void mf_ccm_progress(mf_switch_t *s, mf_engine_t *e, uint64_t now, int *busy);
void mf_ccm_finish(mf_switch_t *s, mf_coll_t *c, uint64_t now);
void mf_ccm_fail(mf_coll_t *c, const char *fmt, ...);
/* ccm_algo.c */
int mf_ccm_build(mf_coll_t *c, const mf_ct_entry_t *ct);
/* collector.c */
void mf_collector_accept(mf_switch_t *s, mf_engine_t *e, mf_pkt_t *k, uint64_t now);
void mf_collector_adopt_parked(mf_switch_t *s, mf_engine_t *e, mf_coll_t *c);
/* Bytes of st usable at cycle now (segments that became ready are dropped
 * from its segment ring). */
static inline uint64_t mf_stream_avail(mf_stream_t *st, uint64_t now)
{
    if (st->seg_head == st->seg_tail)
        return st->ready_end - st->out;
    /* a DMA read's segment waits a PCIe latency to be due: long enough to
     * fall out of cache, so fetch the next few early */
    uint64_t mask = st->seg_cap - 1;
    __builtin_prefetch(&st->seg[(st->seg_head + 4) & mask]);
    while (st->seg_head != st->seg_tail && st->seg[st->seg_head & mask].ready <= now)
        st->ready_end = st->seg[st->seg_head++ & mask].end;
    return st->ready_end - st->out;
}
/* Cycle the first segment not yet known ready becomes usable, or MF_NEVER. */
static inline uint64_t mf_stream_next_ready(const mf_stream_t *st)
{
    return st->seg_head != st->seg_tail ? st->seg[st->seg_head & (st->seg_cap - 1)].ready
                                        : MF_NEVER;
}
size_t mf_stream_take_stored(mf_switch_t *s, mf_stream_t *st, uint8_t *dst, size_t n);
static inline size_t mf_stream_take(mf_switch_t *s, mf_stream_t *st, uint8_t *dst, size_t n)
{
    if (st->stored)
        return mf_stream_take_stored(s, st, dst, n);
    if (n > st->in - st->out) /* zeros: only counted */
        n = st->in - st->out;
    if (dst)
        memset(dst, 0, n);
    st->out += n;
    s->stream_bytes -= n; /* collector.c account() */
    if (s->stream_bytes > s->stream_peak)
        s->stream_peak = s->stream_bytes;
    return n;
}
/* data == NULL pushes len zero bytes. */
uint64_t mf_stream_push(mf_switch_t *s, mf_stream_t *st, const uint8_t *data, size_t len,
                        uint64_t ready);
void mf_stream_drop(mf_switch_t *s, mf_stream_t *st);
void mf_stream_close(mf_stream_t *st, uint64_t visible);
/* cgr.c */
int mf_cgr_acquire(mf_switch_t *s, uint64_t now);
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
