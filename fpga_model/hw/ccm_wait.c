/*
 * Flows waiting for room (issue 23) -- and, at the end, for input.  A
 * flow whose sink had no room at its position changes nothing by being
 * stepped until that sink has room again (flow.c, mf_flow_step).  Rather
 * than re-checking it every cycle -- which also kept its switch awake --
 * it is parked, costs nothing, and is woken by the event that makes room,
 * in the cycle the re-check would have found it:
 *
 *   internal stream  the flow reading the stream takes bytes (flow.c,
 *                    move): the producer re-checks later in the same cycle
 *                    if it comes after the reader in the call's flow
 *                    order, else in the next cycle;
 *   L2 output queue  the L1's switch allocation pops the queue (switch.c
 *                    calls mf_ccm_l2_room after it): the flow re-checks in
 *                    the next cycle;
 *   credits          a NET sink whose window is spent: the partner takes
 *                    bytes of the stream (ccm_partner.c
 *                    mf_engines_returned, after the phase: the next
 *                    cycle), credits over the path are sent to it
 *                    (mf_engines_credits: the cycle they arrive), or the
 *                    partner's call ends, after which its credits are
 *                    unlimited (mf_engines_wake: the next cycle).  With
 *                    credits over the path already on their way, the flow
 *                    looks again when the first arrives instead (later
 *                    ones arrive later: one delay per stream).
 *
 * A parked flow is not stepped (mf_flow_step), though an input push may
 * lower its next_check meanwhile: with no room, input changes nothing;
 * once woken, its step sees all input that came.  The host port's
 * per-cycle budget is re-checked every cycle, as a NET sink whose open
 * packet is full behind a full L2 queue is whenever the switch runs; so
 * is every credit wait under MPIFPGA_SIM_FULL_WAKES (the reference the
 * wake-ups are checked against).  Everything here is the switch's own
 * state; the credit events reach it between phases.
 */
#include <stdlib.h>

#include "hw/ccm.h"

enum { PARK_NONE = 0, PARK_STREAM, PARK_L2, PARK_CREDIT };

/* NET sink k has sent its whole window, by the credits last read (flow.c
 * sink_room has just read them: it found no room). */
static int window_spent(const mf_ccm_t *m, const mf_sink_t *k)
{
    uint64_t used = k->done > k->acked_lb ? k->done - k->acked_lb : 0;
    return used >= m->cfg->window + k->extra_win;
}

/* Why f, whose blocking sink k has no room, would wait for an event. */
static int park_reason(const mf_ccm_t *m, const mf_sink_t *k)
{
    if (k->kind == MF_SINK_STREAM)
        return PARK_STREAM;
    if (k->kind != MF_SINK_NET)
        return PARK_NONE;
    if (!k->pk && k->l2_queue >= 0 && !mf_emit_can(&m->emit, k->l2_queue))
        return PARK_L2;
    if (window_spent(m, k) && !m->wake.sim->full_wakes &&
        (!m->cfg->credit_hop || mf_credit_next(k->credits) == MF_NEVER))
        return PARK_CREDIT;
    return PARK_NONE;
}

/* Room for one more entry in a waiter list of n entries (*cap allocated). */
static int grow_waiters(void **list, int n, int *cap, size_t elem)
{
    if (n < *cap)
        return 0;
    int want = *cap ? 2 * *cap : 8;
    void *w = realloc(*list, (size_t)want * elem);
    if (!w)
        return -1;
    *list = w;
    *cap = want;
    return 0;
}

/* The sink credit waiter w's flow is blocked on: its stream's credits. */
static const mf_sink_t *waiter_sink(const mf_credit_waiter_t *w)
{
    return &w->c->sk[w->c->fl[w->flow].blk];
}

/* The credit_parked bit of credit waiter w: its blocking sink's stream. */
static unsigned waiter_bit(const mf_credit_waiter_t *w)
{
    const mf_sink_t *k = waiter_sink(w);
    return mf_credit_bit(k->dest, w->c->req.hdr.ctx, k->tag);
}

static int add_credit_waiter(mf_ccm_t *m, mf_coll_t *c, int flow)
{
    if (grow_waiters((void **)&m->cr_wait, m->ncr_wait, &m->capcr_wait, sizeof *m->cr_wait))
        return -1;
    mf_credit_waiter_t w = {c, flow};
    m->cr_wait[m->ncr_wait++] = w;
    m->credit_parked |= 1ull << waiter_bit(&w);
    return 0;
}

/* Flow idx of call c, parked, looks again at cycle at (or sooner). */
static void release(mf_ccm_t *m, mf_coll_t *c, int idx, uint64_t at)
{
    mf_flow_t *f = &c->fl[idx];
    f->park = PARK_NONE;
    m->nparked--;
    if (at < f->next_check)
        f->next_check = at;
    if (at < c->next_check)
        c->next_check = at;
    c->flow_due |= 1ull << (idx & 63);
}

/* Keep the credit waiters `keep` says to; the bits follow those kept.  The
 * others are dropped, their flows released at cycle wake_at unless it is
 * MF_NEVER (their caller unparks them itself). */
static void filter_credit_waiters(mf_ccm_t *m, int (*keep)(const mf_credit_waiter_t *, const void *),
                                  const void *arg, uint64_t wake_at)
{
    int kept = 0;
    m->credit_parked = 0;
    for (int i = 0; i < m->ncr_wait; i++) {
        mf_credit_waiter_t w = m->cr_wait[i];
        if (keep(&w, arg)) {
            m->credit_parked |= 1ull << waiter_bit(&w);
            m->cr_wait[kept++] = w;
        } else if (wake_at != MF_NEVER) {
            release(m, w.c, w.flow, wake_at); /* every entry's flow is parked on credits */
        }
    }
    m->ncr_wait = kept;
}

static int not_flow(const mf_credit_waiter_t *w, const void *f)
{
    return &w->c->fl[w->flow] != f;
}

static int not_call(const mf_credit_waiter_t *w, const void *c)
{
    return w->c != c;
}

static int add_l2_waiter(mf_ccm_t *m, mf_coll_t *c, int flow, int queue)
{
    if (grow_waiters((void **)&m->l2_wait, m->nl2_wait, &m->capl2_wait, sizeof *m->l2_wait))
        return -1;
    m->l2_wait[m->nl2_wait++] = (mf_l2_waiter_t){c, flow, queue};
    return 0;
}

/* Park f (its f->blk sink has no room) for reason why; 0 or -1. */
static int park(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f, int why)
{
    const mf_sink_t *k = &c->sk[f->blk];
    int idx = (int)(f - c->fl);
    if (why == PARK_STREAM)
        c->st[k->stream].room_waiter = idx + 1;
    else if (why == PARK_L2 ? add_l2_waiter(m, c, idx, k->l2_queue) : add_credit_waiter(m, c, idx))
        return -1;
    f->park = (uint8_t)why;
    m->nparked++;
    return 0;
}

void mf_flow_unpark(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f)
{
    if (!f->park)
        return;
    if (f->park == PARK_STREAM)
        c->st[c->sk[f->blk].stream].room_waiter = 0;
    else if (f->park == PARK_CREDIT)
        filter_credit_waiters(m, not_flow, f, MF_NEVER);
    /* an L2 entry whose flow is no longer parked is dropped by mf_ccm_l2_room */
    f->park = PARK_NONE;
    m->nparked--;
}

/* f's blocking sink has no room at cycle now: park it if an event will
 * wake it, else look again next cycle.  While it waits for room, bytes
 * pushed into its inputs change nothing for it, so its inputs are marked
 * idle: it sees those bytes when it steps again, and asks for the cycles
 * of those still on their way itself (flow.c next_arrival).  Returns
 * MF_BUSY_RUN if the switch must run next cycle for it, else 0. */
int mf_flow_wait(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f, uint64_t now)
{
    int why = park_reason(m, &c->sk[f->blk]);
    if (f->park != why) {
        mf_flow_unpark(m, c, f);
        if (why && park(m, c, f, why)) {
            mf_fault(&m->fault, "out of memory parking a flow");
            why = PARK_NONE;
        }
    }
    if (!why) {
        f->next_check = now + 1; /* looks again whenever the switch runs */
        const mf_sink_t *k = &c->sk[f->blk];
        if (k->kind == MF_SINK_NET) {
            uint64_t at = mf_credit_next(k->credits);
            if (at != MF_NEVER) { /* credits over the path on their way */
                uint64_t first = at > now ? at : now + 1;
                mf_wake(&m->wake, first);
                if (window_spent(m, k) && !m->wake.sim->full_wakes) {
                    f->next_check = first; /* none can come sooner */
                    mf_flow_inputs_idle(c, f, 1);
                    return 0;
                }
            }
            /* the open packet is full behind a full L2 queue, or full
             * wakes: looks whenever the switch runs, which the partner's
             * takes wake */
            m->credit_wait |= 1ull << mf_credit_bit(k->dest, c->req.hdr.ctx, k->tag);
            mf_flow_inputs_idle(c, f, 1);
            return 0;
        }
        return MF_BUSY_RUN;
    }
    f->next_check = MF_NEVER;
    mf_flow_inputs_idle(c, f, 1);
    return 0;
}

/* taker took bytes from st, whose producer is parked until it has room. */
void mf_flow_room_taken(mf_ccm_t *m, mf_coll_t *c, const mf_flow_t *taker, mf_stream_t *st,
                        uint64_t now)
{
    int idx = st->room_waiter - 1;
    const mf_flow_t *f = &c->fl[idx];
    st->room_waiter = 0;
    if (f->park != PARK_STREAM)
        return;
    /* flows of a call are stepped in index order (ccm.c, progress_one) */
    release(m, c, idx, f > taker ? now : now + 1);
    if (f < taker)
        mf_wake(&m->wake, now + 1);
}

void mf_ccm_l2_room(mf_ccm_t *m, uint64_t now, int *busy)
{
    int kept = 0;
    for (int i = 0; i < m->nl2_wait; i++) {
        mf_l2_waiter_t w = m->l2_wait[i];
        const mf_flow_t *f = &w.c->fl[w.flow];
        if (f->park != PARK_L2)
            continue; /* woken already */
        if (!mf_emit_can(&m->emit, w.queue)) {
            m->l2_wait[kept++] = w;
            continue;
        }
        release(m, w.c, w.flow, now + 1);
        *busy |= MF_BUSY_RUN;
    }
    m->nl2_wait = kept;
}

void mf_ccm_forget_waits(mf_ccm_t *m, mf_coll_t *c)
{
    int kept = 0;
    for (int i = 0; i < m->nl2_wait; i++)
        if (m->l2_wait[i].c != c)
            m->l2_wait[kept++] = m->l2_wait[i];
    m->nl2_wait = kept;
    filter_credit_waiters(m, not_call, c, MF_NEVER);
    for (int i = 0; i < c->nfl; i++)
        if (c->fl[i].park) {
            c->fl[i].park = PARK_NONE;
            m->nparked--;
        }
}

/* Does waiter w wait for the credits of stream s (of every stream: NULL)? */
static int waits_for(const mf_credit_waiter_t *w, const mf_credit_stream_t *s)
{
    if (!s)
        return 1;
    const mf_sink_t *k = waiter_sink(w);
    return k->dest == s->dest && k->tag == s->tag && w->c->req.hdr.ctx == s->ctx;
}

static int not_waiting_for(const mf_credit_waiter_t *w, const void *s)
{
    return !waits_for(w, s);
}

void mf_ccm_credits_came(mf_ccm_t *m, const mf_credit_stream_t *s, uint64_t at)
{
    if (!m->ncr_wait || (s && !(m->credit_parked >> mf_credit_bit(s->dest, s->ctx, s->tag) & 1)))
        return;
    filter_credit_waiters(m, not_waiting_for, s, at);
}

/* ---- flows waiting for input (flow.c mf_flow_step) ------------------------ */

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Earliest cycle an input holds data that is not usable yet, or MF_NEVER;
 * the flow asks for it itself if the push that brought those bytes woke
 * nobody (an input marked idle then: ports.c mf_stream_push). */
static uint64_t next_arrival(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f)
{
    uint64_t t = MF_NEVER, unwoken = 0;
    for (int i = 0; i < f->nin; i++) {
        const mf_stream_t *st = &c->st[f->in[i]];
        t = min_u64(t, mf_stream_next_ready(st));
        if (st->unwoken > unwoken)
            unwoken = st->unwoken;
    }
    if (t != MF_NEVER && t <= unwoken)
        mf_wake(&m->wake, t);
    return t;
}

/* A concatenation takes its inputs in order, so only the one it is at can
 * give it bytes: the others are marked idle (their pushes need not wake
 * the switch; one that completes a stream still does), and it looks again
 * when that one has bytes due (zero-length sinks still to signal: as the
 * others).  A recursive-doubling allgather joins the partner's block and
 * its own in rank order; waiting for the partner's, it was stepped for
 * every push of its own: 17 M of the 35 M flow steps of a 64 KiB
 * allreduce on a 16x16x16 torus moved nothing. */
static uint64_t concat_wait(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f)
{
    /* The step's last input_avail moved cur past the inputs it has all of
     * and found none of the current one's bytes ready (a step that leaves
     * bytes ready is busy), so its next segment is the first not yet due. */
    if (f->empty_left || f->cur == f->nin)
        return next_arrival(m, c, f); /* as before */
    for (int i = 0; i < f->nin; i++)
        c->st[f->in[i]].idle_input = i != f->cur;
    uint64_t t = mf_stream_next_ready(&c->st[f->in[f->cur]]);
    if (t != MF_NEVER) /* its push may have found it idle: no wake then */
        mf_wake(&m->wake, t);
    return t;
}

/* A flow that can do nothing until input comes: the cycle to look again.
 * A reduction needs an element from every input; an input that has one
 * ready is marked idle (its pushes need not wake the switch: bytes there
 * change nothing until the others have some), and the flow looks again
 * when the last of the inputs it waits for has bytes due -- a DMA reading
 * the host's part every cycle while the partner's part is still on the way
 * woke its switch every cycle for nothing.  Concatenations: concat_wait;
 * copies look again at the first arrival. */
uint64_t mf_flow_input_wait(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f, uint64_t now)
{
    if (f->pos >= f->len || m->wake.sim->full_wakes)
        return next_arrival(m, c, f);
    if (f->kind == MF_FLOW_CONCAT)
        return concat_wait(m, c, f);
    if (f->kind != MF_FLOW_REDUCE)
        return next_arrival(m, c, f);
    uint64_t need = mf_elem_bytes(c->req.hdr.op, c->req.hdr.dtype), t = 0;
    if (need > f->len - f->pos)
        need = f->len - f->pos;
    for (int i = 0; i < f->nin; i++) {
        mf_stream_t *st = &c->st[f->in[i]];
        st->idle_input = mf_stream_avail(st, now) >= need;
        uint64_t due = mf_stream_next_ready(st); /* MF_NEVER: until a push comes */
        if (!st->idle_input && due > t)
            t = due;
    }
    if (t == 0) { /* no input it waits for (not expected): as before */
        mf_flow_inputs_idle(c, f, 0);
        return next_arrival(m, c, f);
    }
    if (t != MF_NEVER) /* that input's push may have found it idle: no wake then */
        mf_wake(&m->wake, t);
    return t;
}
