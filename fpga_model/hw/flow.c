/*
 * The dataflow a collective becomes inside the switch (doc/model.md): flows
 * read byte streams (collector buffers, DMA reads, other flows), combine
 * them -- COPY (CCM multicast), REDUCE (CGR unit with AgLUs), CONCAT (L2
 * switch serialising gathered blocks in rank order) -- and hand byte ranges
 * of their output to sinks: the host (DMA write), a partner engine (network
 * packets with a new destination, via the L2 switch), or another flow.
 * Each flow moves at most one datapath width (datapath_phits_per_cycle
 * phits) per cycle.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/ccm.h"

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* ---- the sinks a cycle looks at ------------------------------------------
 * A flow with many sinks (a ring writes each chunk it forwards to another
 * host range) only feeds one or two at a time.  A sink is activated when
 * the flow's output comes within one datapath width of its range, and
 * dropped once the output is past it; no other sink can overlap a cycle's
 * output.  Active sinks are kept in build order, the order the cycle
 * serves them in.  Zero-length sinks are never active (finish_empty_sinks
 * handles them). */

typedef struct {
    uint64_t off;
    int idx;
} sink_ref_t;

static int by_offset(const void *a, const void *b)
{
    const sink_ref_t *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return x->idx - y->idx; /* stable */
}

/* Each flow's sinks ordered by offset, into c->sk_by_off. */
static int order_sinks(mf_coll_t *c)
{
    sink_ref_t *ref = malloc(((size_t)c->nsk + 1) * sizeof *ref);
    if (!ref)
        return -1;
    for (int i = 0; i < c->nsk; i++)
        ref[i] = (sink_ref_t){c->sk[i].off, i};
    for (int i = 0; i < c->nfl; i++)
        qsort(&ref[c->fl[i].sink0], (size_t)c->fl[i].nsink, sizeof *ref, by_offset);
    for (int i = 0; i < c->nsk; i++)
        c->sk_by_off[i] = ref[i].idx;
    free(ref);
    return 0;
}

/* Per-collective bookkeeping, once the schedule is built, so that a cycle
 * need not look at every sink.  Returns -1 if out of memory. */
int mf_flow_prepare(mf_ccm_t *m, mf_coll_t *c)
{
    if (order_sinks(c)) /* the arrays: mf_ccm_build (ccm_build.c ccm_pack) */
        return -1;
    for (int i = 0; i < c->nst; i++)
        if (c->st[i].kind == MF_ST_HOST && c->st[i].issued < c->st[i].len)
            c->rd_st[c->nrd++] = i;
    for (int i = 0; i < c->nfl; i++) {
        mf_flow_t *f = &c->fl[i];
        f->blk = -1;
        f->act_end = UINT64_MAX;
        f->next_off = f->nsink ? c->sk[c->sk_by_off[f->sink0]].off : UINT64_MAX;
    }
    for (int i = 0; i < c->nsk; i++) {
        mf_sink_t *k = &c->sk[i];
        mf_flow_t *f = &c->fl[k->flow];
        if (k->kind == MF_SINK_NET) {
            k->l2_queue = m->emit.queue_of(m->emit.l2, k->dest);
            f->net_sinks++;
        }
        f->empty_left += k->len == 0;
        c->host_sinks_left += k->kind == MF_SINK_HOST;
    }
    return 0;
}

/* f->next_off (offset of the next sink by offset) tells when there is
 * anything to activate, f->act_end (first end of an active sink) when there
 * is anything to retire. */
static void activate_sinks(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f)
{
    uint64_t horizon = f->pos + m->cfg->datapath_bytes;
    if (f->next_off >= horizon)
        return;
    int *act = &c->sk_active[f->sink0];
    while (f->next_sink < f->nsink) {
        int idx = c->sk_by_off[f->sink0 + f->next_sink];
        if (c->sk[idx].off >= horizon)
            break;
        f->next_sink++;
        if (c->sk[idx].len == 0)
            continue;
        int j = f->nactive++;
        for (; j > 0 && act[j - 1] > idx; j--)
            act[j] = act[j - 1];
        act[j] = idx;
        if (c->sk[idx].off + c->sk[idx].len < f->act_end)
            f->act_end = c->sk[idx].off + c->sk[idx].len;
    }
    f->next_off = f->next_sink < f->nsink ? c->sk[c->sk_by_off[f->sink0 + f->next_sink]].off
                                          : UINT64_MAX;
}

static void retire_sinks(mf_coll_t *c, mf_flow_t *f)
{
    if (f->pos < f->act_end)
        return;
    int *act = &c->sk_active[f->sink0], m = 0;
    uint64_t end = UINT64_MAX;
    for (int i = 0; i < f->nactive; i++) {
        uint64_t e = c->sk[act[i]].off + c->sk[act[i]].len;
        if (e > f->pos) {
            act[m++] = act[i];
            if (e < end)
                end = e;
        }
    }
    f->nactive = m;
    f->act_end = end;
}

/* Bytes the inputs can supply this cycle. */
static uint64_t input_avail(mf_coll_t *c, mf_flow_t *f, uint64_t now)
{
    if (f->kind == MF_FLOW_CONCAT) {
        while (f->cur < f->nin && c->st[f->in[f->cur]].out == c->st[f->in[f->cur]].len)
            f->cur++;
        return f->cur < f->nin ? mf_stream_avail(&c->st[f->in[f->cur]], now) : 0;
    }
    uint64_t n = UINT64_MAX;
    for (int i = 0; i < f->nin; i++)
        n = min_u64(n, mf_stream_avail(&c->st[f->in[i]], now));
    if (f->kind == MF_FLOW_REDUCE && f->pos + n < f->len) {
        size_t es = mf_elem_bytes(c->req.hdr.op, c->req.hdr.dtype);
        n -= n % es; /* AgLU lanes work on whole elements */
    }
    return n;
}

/* Room a NET sink has, with the partner's consumed count `acked`. */
static inline uint64_t net_room(const mf_ccm_t *m, const mf_sink_t *k, uint64_t acked,
                                int l2_full)
{
    uint64_t used = k->done > acked ? k->done - acked : 0, win = m->cfg->window + k->extra_win;
    if (used >= win)
        return 0;
    return l2_full ? m->cfg->pkt_bytes - k->pk->len : win - used;
}

/* Room a sink has this cycle, or UINT64_MAX -- or, for a NET sink, at
 * least `need` of it when it has that much: the caller only asks whether
 * `need` bytes fit.  Network and internal streams are flow-controlled end
 * to end with a window of one input FIFO (001 sec. 4.1: 48 KB), plus what
 * the receiver parks in switch memory (extra_win); credits are seen from
 * the next cycle (doc/model.md). */
static inline __attribute__((always_inline)) uint64_t sink_room(mf_ccm_t *m, mf_coll_t *c, mf_sink_t *k,
                                                          uint64_t now, uint64_t need)
{
    switch (k->kind) {
    case MF_SINK_HOST:
        return mf_host_write_budget(c->host, now);
    case MF_SINK_NET: {
        /* the local L2 queue first: when it is full and no packet is open,
         * there is no room whatever the partner's credits */
        int l2_full = !mf_emit_can(&m->emit, k->l2_queue);
        if (l2_full && !k->pk)
            return 0;
        /* Credits only grow, so the count last read is a lower bound of
         * today's: when `need` fits in the room it leaves, the exact count
         * (a cache miss or two on another switch, likely written this cycle
         * by another thread) cannot change the answer. */
        uint64_t room = net_room(m, k, k->acked_lb, l2_full);
        if (room >= need) /* need >= 1 */
            return room;
        k->acked_lb = mf_ccm_credits_seen(m, c, k, now);
        return net_room(m, k, k->acked_lb, l2_full);
    }
    default: {
        const mf_stream_t *st = &c->st[k->stream];
        uint64_t held = st->in - st->out, win = m->cfg->window + st->extra_win;
        return held >= win ? 0 : win - held;
    }
    }
}

/* Limit n so no sink receives more than it has room for.  If that leaves
 * nothing, *blk is the sink that had no room at the flow's position. */
static uint64_t limit_by_sinks(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f, uint64_t n,
                               uint64_t now, int *blk)
{
    const int *act = &c->sk_active[f->sink0];
    uint64_t pos = f->pos;
    for (int i = 0, na = f->nactive; i < na && n; i++) {
        mf_sink_t *k = &c->sk[act[i]];
        uint64_t lo = k->off > pos ? k->off : pos;
        uint64_t hi = min_u64(k->off + k->len, pos + n);
        if (lo >= hi)
            continue;
        uint64_t room = sink_room(m, c, k, now, hi - lo);
        if (hi - lo > room) {
            n = lo - pos + room;
            *blk = act[i];
        }
    }
    return n;
}

static mf_pkt_t *new_packet(mf_ccm_t *m)
{
    mf_pkt_t *k = mf_pkt_alloc(m->pkts);
    if (!k)
        mf_fault(&m->fault, "out of memory allocating a packet");
    return k;
}

static uint32_t flow_latency(const mf_ccm_t *m, const mf_flow_t *f)
{
    return f->kind == MF_FLOW_REDUCE ? m->cfg->reduce_cycles : m->cfg->copy_cycles;
}

static void emit(mf_ccm_t *m, mf_coll_t *c, mf_sink_t *k, mf_pkt_t *pk, int last,
                 uint64_t ready)
{
    unsigned pb = m->cfg->phit_bytes;
    pk->h = (mf_net_hdr_t){.dest = k->dest, .ctx = c->req.hdr.ctx, .opcode = c->req.hdr.opcode,
                           .op = c->req.hdr.op, .dtype = c->req.hdr.dtype, .tag = k->tag,
                           .last = (uint8_t)last};
    pk->nphits = (uint16_t)((pk->len + pb - 1) / pb);
    pk->h.pad = (uint8_t)(pk->nphits * pb - pk->len);
    for (unsigned ph = pk->nphits; ph; ph >>= 1)
        pk->h.psize++; /* nphits is a power of two here */
    pk->src = (uint16_t)c->eng->grank;
    pk->ready = ready;
    pk->born = ready;
    m->emit.emit(m->emit.l2, pk, ready);
}

/* Send what the NET sink has buffered: psize encodes power-of-two phit
 * counts, so a buffer of, say, 3 phits goes out as 2 + 1. */
static void net_flush(mf_ccm_t *m, mf_coll_t *c, mf_sink_t *k, uint64_t ready)
{
    mf_pkt_t *pk = k->pk;
    unsigned pb = m->cfg->phit_bytes;
    if (!pk)
        return;
    k->pk = NULL;
    for (;;) {
        unsigned phits = (pk->len + pb - 1) / pb, p2 = 1;
        while (p2 * 2 <= phits)
            p2 *= 2;
        if (p2 == phits || phits == 0)
            break;
        mf_pkt_t *head = new_packet(m);
        if (!head)
            return;
        head->len = p2 * pb;
        head->zero = pk->zero;
        if (!pk->zero) {
            uint8_t *d = mf_pkt_data(pk);
            memcpy(mf_pkt_data(head), d, head->len);
            memmove(d, d + head->len, pk->len - head->len);
        }
        pk->len -= head->len;
        emit(m, c, k, head, 0, ready);
    }
    emit(m, c, k, pk, k->done == k->len, ready);
}

/* A packet that is not full is sent when its source runs dry (streaming,
 * 001 sec. 2.5): waiting to fill it could wait on data that only comes
 * after it has been delivered (a ring). */
static int flush_starved(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f, uint64_t moved,
                         uint64_t input_left, uint64_t ready)
{
    int pending = 0;
    if (!f->net_sinks)
        return 0;
    mf_sink_t *k = &c->sk[f->sink0], *end = k + f->nsink;
    if (moved || input_left) { /* still streaming, or held up by a full sink */
        for (; k < end; k++)
            if (k->kind == MF_SINK_NET && k->pk && k->pk->len)
                return 1;
        return 0;
    }
    for (; k < end; k++)
        if (k->kind == MF_SINK_NET && k->pk && k->pk->len)
            net_flush(m, c, k, ready);
    return pending;
}

/* Bytes the NET sink's current packet is filled to: a full network packet,
 * or for the stream's tail the largest power-of-two number of phits that the
 * rest fills (psize encodes 2^(k-1) phits), the last one possibly partial. */
static size_t packet_target(const mf_ccm_t *m, const mf_sink_t *k, size_t have)
{
    uint64_t rest = k->len - k->done + have, phits = (rest + m->cfg->phit_bytes - 1) / m->cfg->phit_bytes;
    if (rest >= m->cfg->pkt_bytes)
        return m->cfg->pkt_bytes;
    uint64_t p2 = 1;
    while (p2 * 2 <= phits)
        p2 *= 2;
    return p2 * m->cfg->phit_bytes < rest ? p2 * m->cfg->phit_bytes : rest;
}

/* src == NULL appends zeros: a packet of zeros only counts them (pk->zero). */
static void sink_net(mf_ccm_t *m, mf_coll_t *c, mf_sink_t *k, const uint8_t *src,
                     size_t n, uint64_t ready)
{
    while (n) {
        if (!k->pk) {
            if (!(k->pk = new_packet(m)))
                return;
            k->pk->zero = 1;
        }
        mf_pkt_t *pk = k->pk;
        size_t target = packet_target(m, k, pk->len);
        size_t take = target - pk->len;
        if (take > n)
            take = n;
        if (src) {
            uint8_t *d = mf_pkt_data(pk);
            if (pk->zero) {
                memset(d, 0, pk->len);
                pk->zero = 0;
            }
            memcpy(d + pk->len, src, take);
        } else if (!pk->zero) {
            memset(mf_pkt_data(pk) + pk->len, 0, take);
        }
        pk->len += (uint32_t)take;
        k->done += take;
        if (src)
            src += take;
        n -= take;
        if (k->pk->len == target || k->done == k->len)
            net_flush(m, c, k, ready);
    }
}

static void sink_stream(mf_ccm_t *m, mf_coll_t *c, mf_sink_t *k, const uint8_t *src,
                        size_t n, uint64_t ready)
{
    mf_stream_t *st = &c->st[k->stream];
    mf_stream_push(m->streams, st, src, n, ready);
    k->done += n;
    if (k->done == k->len)
        mf_stream_close(st, ready);
}

/* Deliver output bytes [pos, pos+n) to every sink whose range covers them. */
static void deliver(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f, const uint8_t *buf, uint64_t n,
                    uint64_t now, uint64_t ready)
{
    const int *act = &c->sk_active[f->sink0];
    uint64_t pos = f->pos;
    for (int i = 0, na = f->nactive; i < na; i++) {
        mf_sink_t *k = &c->sk[act[i]];
        uint64_t lo = k->off > pos ? k->off : pos;
        uint64_t hi = min_u64(k->off + k->len, pos + n);
        if (lo >= hi)
            continue;
        const uint8_t *src = buf ? buf + (lo - pos) : NULL;
        size_t len = hi - lo;
        if (k->kind == MF_SINK_HOST) {
            mf_host_write(c->host, c, k->host_off + (lo - k->off), src, len, now, ready);
            k->done += len;
            c->host_sinks_left -= k->done == k->len;
        } else if (k->kind == MF_SINK_NET) {
            sink_net(m, c, k, src, len, ready);
        } else {
            sink_stream(m, c, k, src, len, ready);
        }
    }
}

/* Produce n output bytes and hand them to the sinks. */
static void move(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f, uint64_t n, uint64_t now,
                 uint64_t ready)
{
    uint8_t buf[n];
    int zero, first = f->cur; /* a concatenation takes from inputs first..f->cur */
    mf_progress(&m->progress); /* the watchdog's clock (network.c) */
    if (f->kind == MF_FLOW_REDUCE) {
        m->reduce(m->streams, c, f, buf, n, &zero);
    } else if (f->kind == MF_FLOW_COPY) { /* one input: what the L2 serialisation does */
        mf_stream_t *st = &c->st[f->in[0]];
        zero = !st->stored;
        mf_stream_take(m->streams, st, zero ? NULL : buf, n < st->len - st->out ? n : st->len - st->out);
    } else {
        m->serialise(m->streams, c, f, buf, n, &zero);
    }
    deliver(m, c, f, zero ? NULL : buf, n, now, ready);
    f->pos += n;
    retire_sinks(c, f);
    /* bytes taken make room: for a producer parked on an internal stream
     * (ccm_wait.c), for the DMA's reads of a HOST stream (it reads on next
     * cycle; dma.c), for the sender of a NET stream (its credits).  A
     * concatenation took bytes only from the inputs it went through: the
     * others' producers and senders would look for room that did not come
     * (the recursive-doubling allgather's second input sent its sender
     * credits for every move of the first) */
    for (int i = 0; i < f->nin; i++) {
        mf_stream_t *st = &c->st[f->in[i]];
        int took = f->kind != MF_FLOW_CONCAT || (i >= first && i <= f->cur);
        if (!took && st->kind != MF_ST_HOST)
            continue;
        if (st->room_waiter)
            mf_flow_room_taken(m, c, f, st, now);
        else if (st->kind == MF_ST_HOST && st->issued < st->len &&
                 (mf_stream_read_room(st, m->cfg->dma_window) || m->wake.sim->full_wakes)) {
            /* the take made room in the stream's read window (a read that
             * filled it may have passed it by up to a cycle's bytes) */
            c->read_room = 1;
            mf_wake(&m->wake, now + 1);
        } else if (st->kind == MF_ST_NET && st->src && st->in < st->len) {
            mf_ccm_credits_back(m, c, st, now); /* to the sender (ccm_credits.c) */
        }
    }
}

static int inputs_closed(mf_coll_t *c, mf_flow_t *f);

/* CONCAT inputs that end at or before output offset `off` are all closed. */
static int concat_closed_upto(mf_coll_t *c, mf_flow_t *f, uint64_t off)
{
    uint64_t end = 0;
    for (int i = 0; i < f->nin; i++) {
        mf_stream_t *st = &c->st[f->in[i]];
        end += st->len;
        if (end > off)
            break;
        if (!st->closed || st->out != st->len)
            return 0;
    }
    return 1;
}

/* May a zero-length sink at `off` signal yet?  Once output has passed off;
 * at off itself once every input that precedes it is complete (so a
 * zero-byte reduction still waits for all its partners). */
static int empty_sink_due(mf_coll_t *c, mf_flow_t *f, const mf_sink_t *k)
{
    if (f->pos > k->off)
        return 1;
    if (f->pos < k->off)
        return 0;
    if (f->kind == MF_FLOW_CONCAT && k->off < f->len)
        return concat_closed_upto(c, f, k->off);
    return inputs_closed(c, f);
}

/* Zero-length sink ranges still signal: an empty last packet, a closed
 * stream, a completion for the host. */
static void finish_empty_sinks(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f, uint64_t now,
                               uint64_t ready)
{
    for (int i = 0; i < f->nsink && f->empty_left; i++) {
        mf_sink_t *k = &c->sk[f->sink0 + i];
        if (k->len != 0 || k->done || !empty_sink_due(c, f, k))
            continue;
        if (k->kind == MF_SINK_NET) {
            if ((k->pk = new_packet(m)) != NULL)
                net_flush(m, c, k, ready);
        } else if (k->kind == MF_SINK_STREAM) {
            mf_stream_close(&c->st[k->stream], ready);
            mf_wake(&m->wake, ready);
        } else {
            mf_host_write(c->host, c, k->host_off, NULL, 0, now, ready);
            c->host_sinks_left--;
        }
        k->done = 1; /* handled (len 0) */
        f->empty_left--;
    }
}

static int inputs_closed(mf_coll_t *c, mf_flow_t *f)
{
    for (int i = 0; i < f->nin; i++) {
        mf_stream_t *st = &c->st[f->in[i]];
        if (!st->closed || st->out != st->len)
            return 0;
    }
    return 1;
}

static int flow_step(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f, uint64_t now);

/* Step f if anything can have changed for it; otherwise it sleeps until an
 * input gets data or closes (mf_stream_push / mf_stream_close), or, parked,
 * until its sink has room (ccm_wait.c).  Returns MF_BUSY_RUN if it still has
 * work it could do next cycle without new input (so the switch should stay
 * awake), else 0. */
int mf_flow_step(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f, uint64_t now)
{
    /* parked: input pushed meanwhile changes nothing while its sink has no room */
    if (f->done || f->park || f->next_check > now)
        return 0;
    /* A step that moved nothing because a sink had no room at the flow's
     * position, with input waiting and no zero-length sink pending, changed
     * nothing; while that sink still has no room, stepping again would do
     * the same (input only grows, the position and the sinks' packets stay
     * put).  (A reduction takes a CGR unit only for a step that moves
     * bytes: six reductions waiting for room once took all six units of a
     * switch every cycle, and a seventh that could move starved -- a scan of
     * 1 MiB on a 128-node fat tree stopped for good.) */
    if (f->blk >= 0) {
        if (sink_room(m, c, &c->sk[f->blk], now, 1) == 0) {
            m->credit_checks += c->sk[f->blk].kind == MF_SINK_NET;
            return mf_flow_wait(m, c, f, now); /* parks it, or looks again next cycle */
        }
        if (f->park)
            mf_flow_unpark(m, c, f);
        f->blk = -1;
        mf_flow_inputs_idle(c, f, 0); /* pushes wake it again (ccm_wait.c) */
    }
    uint64_t pos = f->pos;
    int busy = flow_step(m, c, f, now);
    m->flow_steps++;
    m->idle_steps += f->pos == pos;
    /* It stopped at a sink with no room: wait from now.  Every way room
     * can appear by the next cycle wakes a waiting flow for it (a take of
     * the partner, of the reading flow, the L2 queue's pop), so looking
     * again next cycle, as before, only ran the switch once more for
     * nothing before the wait.  (A sink with some room, too little for a
     * whole element, is looked at every cycle still.) */
    if (f->blk >= 0 && !m->wake.sim->full_wakes && sink_room(m, c, &c->sk[f->blk], now, 1) == 0)
        return mf_flow_wait(m, c, f, now);
    f->next_check = busy ? now + 1 : mf_flow_input_wait(m, c, f, now);
    return busy;
}

static int flow_step(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f, uint64_t now)
{
    if (f->done)
        return 0;
    uint64_t in_now = input_avail(c, f, now);
    uint64_t ready = now + flow_latency(m, f);
    uint64_t avail = min_u64(in_now, m->cfg->datapath_bytes);
    avail = min_u64(avail, f->len - f->pos);
    activate_sinks(m, c, f);
    int blk = -1;
    uint64_t n = limit_by_sinks(m, c, f, avail, now, &blk);
    if (f->kind == MF_FLOW_REDUCE && n < avail) { /* a sink's room cut it: whole elements */
        size_t es = mf_elem_bytes(c->req.hdr.op, c->req.hdr.dtype);
        n -= n % es;
    }
    if (f->kind == MF_FLOW_REDUCE && n && !mf_grant_take(m->grant, now)) {
        m->grant_waits++;
        return 1; /* every CGR unit is busy this cycle: try the next */
    }
    f->blk = n == 0 && avail > 0 && f->empty_left == 0 ? blk : -1;
    if (n)
        move(m, c, f, n, now, ready);
    if (f->empty_left)
        finish_empty_sinks(m, c, f, now, ready);
    int pending = flush_starved(m, c, f, n, in_now - n, ready);
    if (f->pos == f->len && inputs_closed(c, f)) {
        f->done = 1;
        c->flows_left--;
        return 0;
    }
    /* more input already here, or sinks were full: try again next cycle.  A
     * COPY input has in_now - n bytes left now (what is pushed this cycle is
     * usable later); a CONCAT may have moved on to its next input and a
     * REDUCE rounds to elements, so those look again. */
    return pending || n < avail || in_now > n ||
           (n && f->kind != MF_FLOW_COPY && input_avail(c, f, now) > 0);
}
