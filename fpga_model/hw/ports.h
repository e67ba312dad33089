/*
 * The ports of the MPI-FPGA switch: every kind of connection between its
 * blocks (doc/model.md, "Blocks and ports").  A block's state lives in its
 * own header (hw/<block>.h); blocks never call each other.  What flows
 * between them is data owned by the wiring (switch.c, net/network.c) -- a
 * packet queue, a byte stream, a budget -- or, where the hand-over must be
 * synchronous to keep results cycle-exact, an (fn, ctx) pair the wiring
 * sets.  Port operations on data are static inline: they run on hot paths.
 *
 *   wake port      a block asks for its module to run at a cycle
 *   status port    a block reports a call's first failure (mf_status_fail)
 *   fault port     a block reports a network-wide failure (out of memory)
 *   byte stream    collector buffers, DMA reads, flow-to-flow links, with
 *                  push / avail / take / close; the stream pool accounts the
 *                  switch's buffered bytes
 *   call record    one collective call as the CCM configured it: the
 *                  streams, flows (reduction / gather / multicast entries)
 *                  and sinks every block of the call reads and writes
 *   host port      the DMA's PCIe read / write budgets per cycle and the
 *                  write into the host's receive buffer
 *   CT port        the CCM's lookup (and the aggregation engine's write)
 *                  of its communicator-table rows
 *   grant port     the CGR units a switch grants per cycle
 *   packet port    a synchronous hand-over of one packet (L1 -> collector,
 *                  L1 -> DMA, L2 loopback -> collector)
 *   call port      the CCM hands a call to a block (collector: adopt the
 *                  packets parked for it; DMA: read its send buffer)
 *   combine fn     a functional unit a flow runs on (CGR reduction, L2
 *                  serialisation)
 *   emit port      the L2 switch's output queues and its emit / route look-up
 *   route port     the L1's route computation, for the L2 switch
 *   progress port  the watchdog's clock: a block that moved bytes marks it
 *   partner port   a CCM's view of the other engines its calls exchange NET
 *                  streams with: their credits, and the wake-ups and
 *                  aggregation-engine posts it sends them
 *   remote port    a link or a FIFO whose other end another domain (process)
 *                  simulates: what crosses it waits for the exchange
 *                  (net/domain.c)
 *
 * mf_hw_cfg_t is the switch's derived figures, read-only to every block.
 */
#ifndef MF_HW_PORTS_H
#define MF_HW_PORTS_H

#include <stdint.h>
#include <string.h>
#include "hw/pkt.h"
#include "mpifpga/model.h"
#include "mpifpga/wire.h"
#include "params/params.h"
#include "sim/engine.h"

#define MF_FLOW_MAXIN 32 /* own data + one input per child: 16 binomial, 30 fat tree */

struct mf_engine;

/* ---- the figures every block reads (derived once by net/network.c) -------
 * One copy for the whole network: the hot paths of every switch read it, so
 * it stays in cache (per-switch copies cost a cache line per switch). */

typedef struct {
    const mf_params_t *p;
    uint32_t phit_bytes, pkt_bytes, datapath_bytes, dma_bytes;
    uint32_t stage, pcie, host_o, link_lat;
    uint32_t window;        /* end-to-end credit window: one input FIFO's bytes */
    uint32_t credit_hop;    /* credits come back this many cycles a hop; 0: next cycle */
    uint64_t dma_window;    /* DMA read bytes in flight per HOST stream (dma.c) */
    uint32_t reduce_cycles; /* AgLU latency */
    uint32_t copy_cycles;   /* collector / L2 latency */
    int nranks;             /* engines from here on are fat-tree aggregation engines */
} mf_hw_cfg_t;

/* ---- wake port ------------------------------------------------------------ */

typedef struct {
    mf_sim_t *sim;
    mf_module_t *mod; /* the module to run */
} mf_wake_port_t;

static inline void mf_wake(const mf_wake_port_t *w, uint64_t cycle)
{
    mf_sim_wake(w->sim, w->mod, cycle);
}
/* Wake the block's module for its consume phase only (sim/engine.h). */
static inline void mf_wake_consume(const mf_wake_port_t *w, uint64_t cycle)
{
    mf_sim_wake_consume(w->sim, w->mod, cycle);
}

/* ---- remote port ------------------------------------------------------------
 * The far end of a link, or the upstream reader of a FIFO, is in another
 * domain (net/domain.h): a packet sent on the link, or a stop/resume the
 * FIFO records, is handed over here instead (it takes at least the domains'
 * lookahead to matter there).  Called in the switch's own phase, on
 * whichever thread runs it; `pkt` takes the packet over. */
typedef struct {
    void (*pkt)(void *ctx, uint32_t link, mf_pkt_t *k, uint64_t sent, uint64_t head);
    void (*stop)(void *ctx, uint32_t fifo, uint8_t state, uint64_t cycle);
    void *ctx;
} mf_remote_port_t;

/* ---- status port (one per call) and fault port (the network's) ------------ */

typedef struct {
    int code;      /* 0, or -1 once a block found an error */
    char err[160]; /* the first reason */
} mf_status_t;

/* Report a failure of the call; the first reason is kept. */
void mf_status_fail(mf_status_t *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

typedef struct {
    int *failed;
    char *err;
    size_t errlen;
} mf_fault_port_t;

/* A failure that stops the whole run (its message replaces any earlier one). */
void mf_fault(const mf_fault_port_t *f, const char *msg);

/* ---- byte streams ------------------------------------------------------------ */


typedef enum { MF_ST_HOST = 0, MF_ST_NET, MF_ST_INTERNAL } mf_stream_kind_t;

/* The bytes one push put into a stream: usable from cycle `ready`, they
 * end at stream offset `end`. */
typedef struct {
    uint64_t ready, end;
} mf_seg_t;

/* A byte stream inside the switch: a collector buffer (NET), the DMA's read
 * of a host range (HOST), or a link between two flows (INTERNAL).  The
 * buffered bytes, and the segments not yet known to be ready, are kept in
 * rings (ports.c). */
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
    /* NET: out as it was when cycle out_at began -- the sender reads it as
     * its credits (flow.c), maybe on another thread while out moves */
    uint64_t out_prev, out_at;
    uint64_t host_off; /* HOST: offset in the send buffer */
    uint64_t issued;   /* HOST: bytes the DMA has requested */
    uint64_t extra_win; /* INTERNAL: bytes it may hold beyond one FIFO window */
    uint8_t kind;
    uint8_t stored;    /* 0: the buffered bytes are all zero and buf is not
                        * used (timing-only runs move zeros); 1: buf holds them */
    uint8_t closed;    /* producer finished (NET: packet with last=1 seen) */
    uint8_t tag;       /* NET: schedule edge */
    uint8_t idle_input; /* the consumer cannot use more bytes here until something
                         * else happens -- a reduction waiting for another input,
                         * a flow waiting for room in its sink: a push wakes
                         * nobody unless it completes the stream
                         * (ccm_wait.c mf_flow_input_wait, mf_flow_wait) */
    uint64_t unwoken;  /* readiness of the last push that woke nobody (idle_input):
                        * the consumer asks for that cycle itself (ccm_wait.c) */
    uint64_t *check;   /* consumer flow's next_check (set after the build) */
    struct mf_coll *call; /* its call, and the consumer flow's index in it */
    int consumer;
    int room_waiter;   /* INTERNAL: 1 + the producer flow parked until bytes
                        * are taken (ccm_wait.c), 0 if none */
    int src;           /* NET: 1 + the sending engine's global rank, 0 until
                        * its first packet (collector.c) */
    uint32_t credit_delay; /* NET, credit_hop > 0: cycles its credits take back
                            * to src, 0 until first needed (ccm_credits.c) */
} mf_stream_t;


/* What a switch's streams report to: the bytes buffered in it (and their
 * peak), its wake port (pushed bytes wake the switch when they are usable)
 * and the network's fault port. */
typedef struct {
    uint64_t bytes, peak;
    mf_wake_port_t wake;
    mf_fault_port_t fault;
    int note_moved;    /* a split network: mark each call's NET streams whose
                        * out moved (mf_coll_t.net_moved, net/domain_coll.c) */
} mf_stream_pool_t;

static inline void mf_stream_account(mf_stream_pool_t *p, int64_t delta)
{
    p->bytes += delta;
    if (p->bytes > p->peak)
        p->peak = p->bytes;
}

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
/* HOST: the bytes the DMA read into st and no flow took yet are below its
 * read window (hw_cfg dma_window), so it may read more. */
static inline int mf_stream_read_room(const mf_stream_t *st, uint64_t window)
{
    return st->issued - st->out < window;
}
/* Cycle the first segment not yet known ready becomes usable, or MF_NEVER. */
static inline uint64_t mf_stream_next_ready(const mf_stream_t *st)
{
    return st->seg_head != st->seg_tail ? st->seg[st->seg_head & (st->seg_cap - 1)].ready
                                        : MF_NEVER;
}
static inline void mf_stream_note_moved(mf_stream_t *st); /* below mf_coll_t */
/* out += n; on a NET stream keeping out as the cycle began (out_prev). */
static inline void mf_stream_out_add(const mf_stream_pool_t *p, mf_stream_t *st, uint64_t n)
{
    if (st->kind == MF_ST_NET) {
        uint64_t now = p->wake.sim->now;
        if (st->out_at != now) {
            __atomic_store_n(&st->out_prev, st->out, __ATOMIC_RELAXED);
            __atomic_store_n(&st->out_at, now, __ATOMIC_RELEASE);
            __atomic_thread_fence(__ATOMIC_RELEASE);
            if (p->note_moved)
                mf_stream_note_moved(st);
        }
    }
    __atomic_store_n(&st->out, st->out + n, __ATOMIC_RELAXED);
}
/* A NET stream's out as it was when cycle now began (a seqlock read: its
 * switch may be taking from it on another thread). */
static inline uint64_t mf_stream_out_seen(const mf_stream_t *st, uint64_t now)
{
    if (__atomic_load_n(&st->out_at, __ATOMIC_ACQUIRE) != now) {
        uint64_t v = __atomic_load_n(&st->out, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&st->out_at, __ATOMIC_ACQUIRE) != now)
            return v;
    }
    return __atomic_load_n(&st->out_prev, __ATOMIC_RELAXED);
}
size_t mf_stream_take_stored(mf_stream_pool_t *p, mf_stream_t *st, uint8_t *dst, size_t n);
/* Take n bytes (n <= available) into dst (may be NULL to drop them). */
static inline size_t mf_stream_take(mf_stream_pool_t *p, mf_stream_t *st, uint8_t *dst, size_t n)
{
    if (st->stored)
        return mf_stream_take_stored(p, st, dst, n);
    if (n > st->in - st->out) /* zeros: only counted */
        n = st->in - st->out;
    if (dst)
        memset(dst, 0, n);
    mf_stream_out_add(p, st, n);
    p->bytes -= n; /* mf_stream_account */
    if (p->bytes > p->peak)
        p->peak = p->bytes;
    return n;
}
/* Append len bytes usable from cycle `ready` (data == NULL pushes zeros);
 * returns the cycle they are usable from. */
uint64_t mf_stream_push(mf_stream_pool_t *p, mf_stream_t *st, const uint8_t *data, size_t len,
                        uint64_t ready);
/* Free whatever is still buffered (a finished or failed call). */
void mf_stream_drop(mf_stream_pool_t *p, mf_stream_t *st);
/* The producer has finished; the consumer looks again at cycle `visible`. */
void mf_stream_close(mf_stream_t *st, uint64_t visible);

/* ---- credits on their way back (credit_hop > 0) ----------------------------
 * With credit_hop_cycles set, a partner's stream credits reach the sender
 * after the path's latency instead of the next cycle: each cycle in which
 * the partner took bytes sends the count it has taken, which the sender's
 * NET sink sees from cycle `at` on.  Pushed between phases (flow.c defers
 * it), taken by the sender's own produce: never two threads at once. */
typedef struct {
    uint64_t at, taken;
} mf_credit_t;
/* The credits of one NET stream of a call (to partner `dest`, on `tag`),
 * shared by every sink that feeds it (a ring's blocks all do). */
typedef struct {
    mf_credit_t *q;     /* on their way, ring: [head, head + n) */
    uint32_t head, n, cap;
    uint64_t last;      /* the count last arrived */
    uint16_t dest;
    uint8_t tag;
} mf_credit_line_t;

/* Record that `taken` bytes are credited from cycle at (at never decreases
 * along one line).  0, or -1 out of memory. */
int mf_credit_send(mf_credit_line_t *line, uint64_t at, uint64_t taken);
/* The count credited by cycle now (older entries are dropped), or `seen`
 * if that is more (line NULL: none sent yet). */
uint64_t mf_credit_seen(mf_credit_line_t *line, uint64_t now, uint64_t seen);
/* The cycle the oldest credit still on its way arrives, or MF_NEVER. */
uint64_t mf_credit_next(const mf_credit_line_t *line);
void mf_credit_free(mf_credit_line_t *line);

/* ---- the call record ------------------------------------------------------- */

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
    uint64_t acked_lb;  /* NET: the partner's consumed count last read: credits only grow,
                         * so a lower bound of them now (flow.c sink_room) */
    mf_credit_line_t *credits; /* NET, credit_hop > 0: its stream's credits on their
                                * way back (the call's credit_lines own it) */
    mf_pkt_t *pk;       /* NET: packet being filled */
} mf_sink_t;

/* The fields every cycle's scan and step read come first, together in one
 * cache line; the input list (128 bytes) last. */
typedef struct {
    uint8_t kind;
    uint8_t nin;
    uint8_t cur;       /* CONCAT: input being serialised */
    uint8_t done;
    uint8_t park;      /* why it is parked, waiting for room (ccm_wait.c), or 0 */
    int blk;           /* sink that stopped the last step, or -1 (flow.c) */
    uint64_t next_check; /* earliest cycle stepping it can do anything */
    uint64_t len, pos; /* output bytes total / produced */
    uint64_t next_off; /* offset of the next sink to activate, UINT64_MAX if none */
    uint64_t act_end;  /* smallest end of an active sink, UINT64_MAX if none */
    int sink0, nsink;  /* sinks[sink0 .. sink0+nsink) */
    int net_sinks;     /* how many of them are NET sinks */
    int empty_left;    /* zero-length sinks that have not signalled yet */
    int next_sink;     /* sinks by offset before this one have been activated */
    int nactive;       /* active sinks (flow.c): sk_active[sink0 .. sink0+nactive) */
    int in[MF_FLOW_MAXIN];
} mf_flow_t;

/* One collective call of one rank, as the switch executes it. */
typedef struct mf_coll {
    /* what every cycle of the running call reads, in its first two cache
     * lines (a large network's calls do not fit the cache together) */
    uint64_t next_check; /* at most the next_check of every flow not done or
                          * parked: before it, no flow needs a look (ccm.c) */
    uint64_t flow_due;  /* with at most 64 flows: bit i set if flow i has a
                         * next_check (ccm.c steps only those) */
    uint64_t start;     /* cycle the processor header reached the switch */
    mf_flow_t *fl;
    mf_stream_t *st;
    mf_sink_t *sk;
    int flows_left;
    int reads_left;     /* HOST streams the DMA has not finished reading */
    int read_room;      /* one of them may have room to read into: the DMA found
                         * room, or a flow took bytes since (dma.c, flow.c) */
    int host_sinks_left; /* HOST sinks not complete */
    int host_signalled;
    uint32_t seq;       /* how many collectives this rank started on ctx (1-based) */
    int *sk_active;     /* per flow (from its sink0), its active sinks in order */
    int *sk_by_off;     /* per flow (from its sink0), its sinks by offset */
    struct mf_engine *eng;     /* the CCM engine running it (only the CCM looks inside) */
    struct mf_host_port *host; /* its node's host port (DMA); NULL: aggregation engine */
    int nst, nfl, nsk;
    int first_live;     /* flows before it are done */
    uint8_t cfg_woken;  /* its switch asked to run when the header reaches the CCM */
    mf_status_t status; /* the call's status port (its code in the second line) */
    /* the rest */
    mf_coll_req_t req;
    int16_t tag_stream[32]; /* NET stream per tag, -1 none */
    uint32_t net_moved; /* tags whose NET stream's out moved since a split
                         * network last looked (mf_stream_pool_t.note_moved) */
    struct mf_coll *next;
    uint32_t *counts;   /* owned copy of req.counts */
    int capst, capfl, capsk;
    int *rd_st, nrd;    /* those streams, in index order (dma.c) */
    mf_credit_line_t **credit_lines; /* credit_hop > 0: one per NET stream that
                                      * has had credits (ccm_credits.c) */
    int ncredit_lines;
    uint64_t host_done; /* latest host-visible event (read or write landing) */
    void *arena;        /* fl, st, sk and their index arrays in one block
                         * once built (ccm_build.c ccm_pack), or NULL */
} mf_coll_t;

static inline void mf_stream_note_moved(mf_stream_t *st)
{
    st->call->net_moved |= 1u << st->tag;
}

/* ---- host port: the node's DMA over PCIe ------------------------------------ */

/* Per-cycle byte budgets each way, shared by the node's ranks, set up by
 * their first user in a cycle. */
typedef struct mf_host_port {
    uint64_t budget_cycle; /* cycle + 1 the budgets belong to (0: none yet) */
    uint32_t rd_left, wr_left; /* bytes left this cycle */
    uint32_t rd_frac, wr_frac; /* a fractional rate's part byte carried, 16.16 */
    uint64_t rate_fx;   /* host bytes per cycle each way, 16.16 */
    uint32_t bytes;     /* the DMA's bytes per cycle (dma_bytes) */
    uint32_t pcie;      /* PCIe latency, cycles */
} mf_host_port_t;

/* One direction's bytes for the cycle after one that left `left` of its
 * budget (`busy`: that cycle was the one before this): dma_bytes, or on a
 * fat tree the host link's rate where it is lower (network.c), as a
 * serialiser moves it -- a part byte carries on while the link stays
 * busy, and an idle link starts afresh.  So any busy run moves the rate to
 * the byte, and the bytes depend on when the run began, not on the cycle
 * number: a run that starts later moves the same bytes later. */
static inline uint32_t mf_host_dir_budget(const mf_host_port_t *h, uint32_t *frac, int busy,
                                          uint32_t left)
{
    if (h->rate_fx == (uint64_t)h->bytes << 16)
        return h->bytes;
    uint64_t acc = (busy && left == 0 ? *frac : 0) + h->rate_fx;
    *frac = (uint32_t)(acc & 0xffff);
    return (uint32_t)(acc >> 16);
}
static inline void mf_host_budgets(mf_host_port_t *h, uint64_t now)
{
    if (h->budget_cycle != now + 1) {
        int busy = h->budget_cycle == now; /* the last budgets were cycle now - 1's */
        h->budget_cycle = now + 1; /* +1 so cycle 0 is not "already set" */
        h->rd_left = mf_host_dir_budget(h, &h->rd_frac, busy, h->rd_left);
        h->wr_left = mf_host_dir_budget(h, &h->wr_frac, busy, h->wr_left);
    }
}
static inline uint32_t mf_host_write_budget(mf_host_port_t *h, uint64_t now)
{
    mf_host_budgets(h, now);
    return h->wr_left;
}
void mf_host_write_data(mf_coll_t *c, uint64_t off, const uint8_t *src, size_t len);
/* Write len bytes of c's result leaving the switch at cycle `now` (charged
 * to this cycle's budget); they land in host memory PCIe latency after
 * `lands`.  src == NULL writes len zero bytes. */
static inline void mf_host_write(mf_host_port_t *h, mf_coll_t *c, uint64_t off,
                                 const uint8_t *src, size_t len, uint64_t now, uint64_t lands)
{
    mf_host_budgets(h, now);
    h->wr_left = len < h->wr_left ? h->wr_left - (uint32_t)len : 0;
    if (len && (c->req.recv.base || c->req.recv.write))
        mf_host_write_data(c, off, src, len);
    if (lands + h->pcie > c->host_done)
        c->host_done = lands + h->pcie;
}

/* ---- CT port: the CCM's communicator-table rows ----------------------------- */

typedef struct {
    const mf_ct_entry_t *(*lookup)(const void *table, int ctx); /* NULL: no valid row */
    void (*write)(void *table, int ctx, const mf_ct_entry_t *entry);
    void *table;
} mf_ct_port_t;

static inline const mf_ct_entry_t *mf_ct_port_lookup(const mf_ct_port_t *p, int ctx)
{
    return p->lookup(p->table, ctx);
}

/* ---- packet, call and route ports: synchronous hand-overs ------------------ */

typedef struct {
    void (*put)(void *ctx, mf_pkt_t *k, uint64_t now);
    void *ctx;
} mf_pkt_port_t;

static inline void mf_pkt_put(const mf_pkt_port_t *p, mf_pkt_t *k, uint64_t now)
{
    p->put(p->ctx, k, now);
}

typedef struct {
    void (*fn)(void *ctx, mf_coll_t *c, uint64_t now);
    void *ctx;
} mf_call_port_t;

static inline void mf_call_put(const mf_call_port_t *p, mf_coll_t *c, uint64_t now)
{
    p->fn(p->ctx, c, now);
}

/* Sets k->out_port (-1: a local engine) and k->h.vc from k->h.dest. */
typedef struct {
    void (*fn)(void *ctx, mf_pkt_t *k);
    void *ctx;
} mf_route_port_t;

static inline void mf_route(const mf_route_port_t *p, mf_pkt_t *k)
{
    p->fn(p->ctx, k);
}

/* ---- combine fn: the unit a flow runs on ------------------------------------
 * Takes n bytes from f's inputs into out and returns n, or sets *zero and
 * leaves out unset if they are all zero (streams that hold only zeros). */
typedef size_t (*mf_combine_fn)(mf_stream_pool_t *p, mf_coll_t *c, mf_flow_t *f, uint8_t *out,
                                size_t n, int *zero);

/* ---- emit port: the L2 switch's output side -------------------------------- */

#define MF_EMIT_LOOPBACK (-3) /* queue of a destination on this switch */
#define MF_EMIT_DEPTH 4        /* packets an output queue holds */

typedef struct {
    const mf_pq_t *queue; /* per output port */
    int (*queue_of)(void *l2, uint16_t dest); /* output port, MF_EMIT_LOOPBACK or -1 */
    void (*emit)(void *l2, mf_pkt_t *k, uint64_t now);
    void *l2;
} mf_emit_port_t;

/* Can a packet for output queue q be emitted now? */
static inline int mf_emit_can(const mf_emit_port_t *p, int q)
{
    if (q == MF_EMIT_LOOPBACK)
        return 1;
    return q >= 0 && p->queue[q].n < MF_EMIT_DEPTH;
}

/* ---- progress port: the watchdog's clock ----------------------------------- */

typedef struct {
    uint64_t *at;          /* the last active cycle something moved */
    const uint64_t *clock; /* the simulator's active-cycle count */
} mf_progress_port_t;

/* Every switch of a cycle writes the same value: relaxed, not a race; and
 * only once a cycle, so the line is not passed between threads. */
static inline void mf_progress(const mf_progress_port_t *p)
{
    if (__atomic_load_n(p->at, __ATOMIC_RELAXED) != *p->clock)
        __atomic_store_n(p->at, *p->clock, __ATOMIC_RELAXED);
}

/* ---- partner port: the other engines -------------------------------------- */

/* taken: the partner has finished that collective, so every byte counts
 * as taken */
#define MF_TAKEN_ALL (UINT64_MAX / 2)

/* A NET stream as the partner port names it: its receiver's global rank
 * (< 2^16: pkt.h src), its context (< MF_MAX_CTX) and its tag. */
static inline uint32_t mf_stream_id(unsigned dest, unsigned ctx, unsigned tag)
{
    return (uint32_t)dest | (uint32_t)ctx << 16 | (uint32_t)tag << 24;
}
static inline unsigned mf_stream_id_dest(uint32_t id) { return id & 0xffffu; }
static inline unsigned mf_stream_id_ctx(uint32_t id) { return id >> 16 & 0xffu; }
static inline unsigned mf_stream_id_tag(uint32_t id) { return id >> 24; }

/* The only way one engine reaches another (the wiring's implementation is
 * hw/ccm_partner.c; a domain split would put another behind it). */
typedef struct {
    /* bytes of NET stream `tag` of the collective numbered `seq` on context
     * `cctx` that engine `rank` has taken, as of the start of cycle now:
     * MF_TAKEN_ALL once it has finished that collective, 0 before it has
     * started it (its collector parks what comes meanwhile) */
    uint64_t (*taken)(void *ctx, int rank, unsigned cctx, uint32_t seq, unsigned tag,
                      uint64_t now);
    /* after the switches' phase of cycle now: engine `rank` (a sender) can
     * see more credits on NET stream `stream` (mf_stream_id) from cycle
     * now + 1 */
    void (*returned)(void *ctx, int rank, uint32_t stream, uint64_t now);
    /* credit_hop > 0: engine `receiver` had taken `taken` bytes of the NET
     * stream `tag` that engine `sender` sends it in collective `seq` on
     * context `cctx` (the stream's own count); the sender sees them from
     * cycle `at` (a path's latency on).  Between phases; -1 out of memory. */
    int (*credits)(void *ctx, int sender, int receiver, unsigned cctx, uint32_t seq,
                   unsigned tag, uint64_t taken, uint64_t at);
    /* run engine `rank`'s switch at cycle `at` */
    void (*wake)(void *ctx, int rank, uint64_t at);
    /* configure aggregation engine `rank` for the collective `from` runs,
     * from cycle `at`, after the switches' phase; -1 if out of memory */
    int (*post_agg)(void *ctx, int rank, const mf_coll_t *from, uint64_t at);
    void *ctx;
} mf_partner_port_t;

static inline uint64_t mf_partner_taken(const mf_partner_port_t *p, int rank, unsigned cctx,
                                        uint32_t seq, unsigned tag, uint64_t now)
{
    return p->taken(p->ctx, rank, cctx, seq, tag, now);
}

/* ---- grant port: the switch's CGR units ------------------------------------ */

typedef struct {
    uint64_t cycle;   /* cycle (+1) the count belongs to */
    unsigned used;    /* units granted this cycle */
    unsigned units;   /* SA: units per switch */
    uint64_t denied;  /* requests that found every unit busy */
} mf_grant_port_t;

/* One unit for this cycle, or 0 if all are granted. */
static inline int mf_grant_take(mf_grant_port_t *g, uint64_t now)
{
    if (g->cycle != now + 1) { /* +1: cycle 0 is not "already counted" */
        g->cycle = now + 1;
        g->used = 0;
    }
    if (g->used >= g->units) {
        g->denied++;
        return 0;
    }
    g->used++;
    return 1;
}

#endif
