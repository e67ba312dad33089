/*
 * Collective control module (001 sec. 4.2, fig. 6).  A processor packet
 * header for a collective selects the CT row by context ID; the CCM's
 * algorithm blocks (ccm_algo.c) turn header + CT entry into the dataflow the
 * switch runs (new destinations, multicast bit vectors, reduction and
 * gather table entries); the CCM then drives it each cycle and tells the
 * host when its side is complete (the interrupt of 001 sec. 2.2).
 */
#include <stdio.h>
#include <stdlib.h>

#include "hw/ccm.h"

/* A fat-tree aggregation engine has no host: no doorbell, no PCIe, no
 * completion to report (001 sec. 4.4). */
static int is_agg(const mf_engine_t *e) { return e->grank >= e->ccm->cfg->nranks; }
static uint32_t host_delay(const mf_engine_t *e)
{
    return is_agg(e) ? 0 : e->ccm->cfg->host_o;
}

static void enqueue(mf_engine_t *e, mf_coll_t *c)
{
    int ctx = c->req.hdr.ctx;
    c->next = NULL;
    if (e->wait_tail[ctx])
        e->wait_tail[ctx]->next = c;
    else
        e->wait_head[ctx] = c;
    e->wait_tail[ctx] = c;
    e->waiting |= 1u << ctx;
}

int mf_ccm_post_agg_as(mf_engine_t *e, const mf_engine_t *child, const mf_proc_hdr_t *hdr,
                       uint32_t seq, uint64_t at)
{
    int ctx = hdr->ctx;
    if (e->posted[ctx] >= seq)
        return 0; /* another child configured it already */
    mf_coll_t *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    c->req.hdr = *hdr;
    c->req.at = at;
    c->eng = e;
    c->host = e->dma;
    c->seq = seq;
    e->posted[ctx] = seq;
    /* the size and flags the children's rows carry */
    e->ct.write(e->ct.table, ctx, mf_ct_port_lookup(&child->ct, ctx));
    enqueue(e, c);
    mf_wake(&e->ccm->wake, at);
    return 0;
}

int mf_ccm_post_agg(mf_engine_t *e, const mf_coll_t *from, uint64_t at)
{
    return mf_ccm_post_agg_as(e, from->eng, &from->req.hdr, from->seq, at);
}

static void post_agg_deferred(void *eng, void *from, uint64_t at)
{
    mf_engine_t *e = eng;
    if (mf_ccm_post_agg(e, from, at))
        mf_fault(&e->ccm->fault, "out of memory configuring an aggregation engine");
}

int mf_ccm_post_agg_later(mf_engine_t *e, const mf_coll_t *from, uint64_t at)
{
    return mf_sim_defer(from->eng->ccm->wake.sim, post_agg_deferred, e, (void *)from, at);
}

void mf_ccm_post(mf_engine_t *e, mf_coll_t *c)
{
    mf_ccm_t *m = e->ccm;
    c->host = e->dma;
    enqueue(e, c);
    (*m->pending)++;
    /* the DMA starts reading when the host rings the doorbell */
    mf_wake(&m->wake, c->req.at + m->cfg->host_o);
}

/* The completion reaches the host (deferred: after the switches' phase). */
static void deliver(void *ccm, void *coll, uint64_t unused)
{
    (void)unused;
    mf_ccm_t *m = ccm;
    mf_coll_t *c = coll;
    mf_completion_t done = {.rank = c->eng->grank, .status = c->status.code,
                            .post = c->req.at, .complete = c->host_done + m->cfg->host_o};
    snprintf(done.err, sizeof done.err, "%s", c->status.err);
    (*m->pending)--;
    if (c->req.done)
        c->req.done(c->req.user, &done);
}

static void signal_host(mf_ccm_t *m, mf_coll_t *c)
{
    if (c->host_signalled)
        return;
    c->host_signalled = 1;
    if (is_agg(c->eng)) { /* nobody waits for it: its failure stops the run */
        if (c->status.code && !*m->fault.failed) {
            char msg[200];
            snprintf(msg, sizeof msg, "aggregation engine of switch %d: %.150s",
                     c->eng->grank - m->cfg->nranks, c->status.err);
            mf_fault(&m->fault, msg);
        }
        return;
    }
    mf_sim_defer(m->wake.sim, deliver, m, c, 0); /* the host side is shared */
}

/* The record itself goes after the switches' phase: a partner on another
 * thread may still read its streams' credits this cycle (flow.c). */
static void free_record(void *unused, void *coll, uint64_t unused2)
{
    (void)unused;
    (void)unused2;
    mf_coll_t *c = coll;
    mf_ccm_free_schedule(c);
    for (int i = 0; i < c->ncredit_lines; i++)
        mf_credit_free(c->credit_lines[i]);
    free(c->credit_lines);
    free(c->counts);
    free(c);
}

static void free_coll(mf_ccm_t *m, mf_coll_t *c)
{
    for (int i = 0; i < c->nst; i++)
        mf_stream_drop(m->streams, &c->st[i]);
    for (int i = 0; i < c->nsk; i++)
        if (c->sk[i].pk) {
            mf_pkt_free(m->pkts, c->sk[i].pk);
            c->sk[i].pk = NULL;
        }
    if (mf_sim_defer(m->wake.sim, free_record, NULL, c, 0))
        mf_fault(&m->fault, "out of memory deferring the end of a call");
}

/* Keep cur and seq as they were when this cycle began, once, before the
 * first change (ccm.h chg_at); the release fence orders that before the
 * changes for a reader on another thread. */
static void note_change(mf_engine_t *e, int ctx, uint64_t now)
{
    if (e->chg_at[ctx] == now)
        return;
    e->changed |= 1u << ctx;
    __atomic_store_n(&e->prev_cur[ctx], e->cur[ctx], __ATOMIC_RELAXED);
    __atomic_store_n(&e->prev_seq[ctx], e->seq[ctx], __ATOMIC_RELAXED);
    __atomic_store_n(&e->chg_at[ctx], now, __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

static void start(mf_ccm_t *m, mf_engine_t *e, mf_coll_t *c, uint64_t now)
{
    int ctx = c->req.hdr.ctx;
    const mf_ct_entry_t *ct = mf_ct_port_lookup(&e->ct, ctx);
    c->start = now;
    mf_progress(&m->progress);
    note_change(e, ctx, now);
    if (!is_agg(e))
        c->seq = e->seq[ctx] + 1;
    /* an aggregation engine takes the children's sequence number (mf_ccm_post_agg) */
    __atomic_store_n(&e->seq[ctx], c->seq, __ATOMIC_RELAXED);
    c->host_done = now;
    c->next_check = 0; /* every flow looks at the first cycle */
    c->read_room = 1;
    __atomic_store_n(&e->cur[ctx], c, __ATOMIC_RELAXED);
    e->running |= 1u << ctx;
    m->nactive++;
    if (!ct)
        mf_status_fail(&c->status, "no communicator-table entry for context %d on rank %d", ctx, e->grank);
    else if (mf_ccm_build(c, ct) < 0)
        mf_status_fail(&c->status, "cannot build the %s schedule: %s", mf_opcode_name(c->req.hdr.opcode),
                    c->status.err[0] ? c->status.err : "out of memory");
    else if (mf_flow_prepare(m, c) < 0)
        mf_status_fail(&c->status, "out of memory");
    c->flow_due = c->nfl >= 64 ? ~0ull : (1ull << c->nfl) - 1; /* all look first */
    if (!c->status.code)
        mf_call_put(&e->adopt, c, now);
    mf_wake(&m->wake, now + 1);
}

void mf_ccm_start_ready(mf_engine_t *e, uint64_t now)
{
    for (uint32_t todo = e->waiting & ~e->running; todo; todo &= todo - 1) {
        int ctx = __builtin_ctz(todo);
        mf_coll_t *c = e->wait_head[ctx];
        if (c->req.at + host_delay(e) > now) {
            mf_wake(&e->ccm->wake, c->req.at + host_delay(e));
            continue;
        }
        e->wait_head[ctx] = c->next;
        if (!e->wait_head[ctx]) {
            e->wait_tail[ctx] = NULL;
            e->waiting &= ~(1u << ctx);
        }
        start(e->ccm, e, c, now);
    }
}

static int sink_complete(const mf_sink_t *k) { return k->len ? k->done == k->len : k->done == 1; }

/* Has the host's part (reads of its buffer, writes of its results) ended? */
static int host_side_done(const mf_coll_t *c)
{
    return c->reads_left == 0 && c->host_sinks_left == 0;
}

static int net_sinks_flushed(const mf_coll_t *c)
{
    for (int i = 0; i < c->nsk; i++)
        if (c->sk[i].kind == MF_SINK_NET && !sink_complete(&c->sk[i]))
            return 0;
    return 1;
}

void mf_ccm_finish(mf_ccm_t *m, mf_coll_t *c, uint64_t now)
{
    mf_engine_t *e = c->eng;
    mf_progress(&m->progress);
    signal_host(m, c);
    note_change(e, c->req.hdr.ctx, now);
    __atomic_store_n(&e->cur[c->req.hdr.ctx], NULL, __ATOMIC_RELAXED);
    e->running &= ~(1u << c->req.hdr.ctx);
    m->nactive--;
    /* its partners' credits for it become unlimited from the next cycle
     * (ccm_credits.c, mf_ccm_credits_seen) */
    for (int i = 0; i < c->nst; i++)
        if (c->st[i].kind == MF_ST_NET && c->st[i].src)
            m->partners->wake(m->partners->ctx, c->st[i].src - 1, now + 1);
    mf_ccm_forget_waits(m, c);
    free_coll(m, c);
    mf_wake(&m->wake, now + 1); /* the next collective on this context may start */
}

/* With at most 64 flows, c->flow_due holds those with a next_check (set by
 * whatever sets one: an input push, a parked flow woken): the others --
 * done, parked, or waiting for input that has not come -- cost nothing.
 * The set is re-read as flows step, in index order, so a flow a step wakes
 * for this cycle still steps in it. */
static void step_due_flows(mf_ccm_t *m, mf_coll_t *c, uint64_t now, int *busy)
{
    c->next_check = MF_NEVER;
    for (int i = -1;;) {
        uint64_t later = i < 63 ? c->flow_due & (~0ull << (i + 1)) : 0;
        if (!later)
            break;
        i = __builtin_ctzll(later);
        mf_flow_t *f = &c->fl[i];
        if (!f->done && !f->park && f->next_check <= now)
            *busy |= mf_flow_step(m, c, f, now);
        if (f->done || f->park || f->next_check == MF_NEVER)
            c->flow_due &= ~(1ull << i);
        else if (f->next_check < c->next_check)
            c->next_check = f->next_check;
    }
}

/* Step the flows of c that may do something this cycle.  c->next_check is
 * lowered by whatever lowers a flow's (an input push, a parked flow woken:
 * ccm_wait.c), so a cycle in which no flow is due touches none of them. */
static void step_flows(mf_ccm_t *m, mf_coll_t *c, uint64_t now, int *busy)
{
    if (c->nfl <= 64) {
        step_due_flows(m, c, now, busy);
        return;
    }
    while (c->first_live < c->nfl && c->fl[c->first_live].done)
        c->first_live++; /* flows mostly finish in build order */
    c->next_check = MF_NEVER;
    for (int i = c->first_live; i < c->nfl; i++) {
        mf_flow_t *f = &c->fl[i];
        if (f->done || f->park) /* a parked flow is woken when its sink has room */
            continue;
        if (f->next_check <= now)
            *busy |= mf_flow_step(m, c, f, now);
        if (!f->done && !f->park && f->next_check < c->next_check)
            c->next_check = f->next_check;
    }
}

/* Drive one collective for a cycle; *busy gets MF_BUSY_RUN if it must run next cycle. */
static void progress_one(mf_ccm_t *m, mf_engine_t *e, mf_coll_t *c, uint64_t now, int *busy)
{
    /* the processor header reaches the CCM (an aggregation engine is
     * configured by its children's first packets) */
    uint64_t cfg = c->start + (is_agg(e) ? 0 : m->cfg->pcie);
    if (!c->status.code) {
        if (c->reads_left) {
            if (c->read_room) /* else every window is still full (dma.c) */
                mf_call_put(&m->read, c, now);
            /* the DMA reads on next cycle if a window has room; else a flow
             * taking bytes wakes the switch (flow.c) */
            if (c->reads_left)
                *busy |= c->read_room ? MF_BUSY_RUN : 0;
        }
        if (now < cfg) {
            /* once: a switch run every cycle meanwhile (its DMA reading)
             * filed one more request for cfg with each run */
            if (!c->cfg_woken)
                mf_wake(&m->wake, cfg);
            c->cfg_woken = 1;
            return;
        }
        if (c->next_check <= now)
            step_flows(m, c, now, busy);
        if (!c->host_signalled && host_side_done(c))
            signal_host(m, c);
    }
    if (c->status.code || (c->flows_left == 0 && net_sinks_flushed(c)))
        mf_ccm_finish(m, c, now);
}

void mf_ccm_progress(mf_engine_t *e, uint64_t now, int *busy)
{
    for (uint32_t todo = e->running; todo; todo &= todo - 1) {
        int ctx = __builtin_ctz(todo);
        progress_one(e->ccm, e, e->cur[ctx], now, busy);
    }
}
