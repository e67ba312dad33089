/*
 * Collectives over the domains of a split network (net/domain.h): the
 * partner port (hw/ports.h) across domains, and the run of windows of one
 * active cycle.
 *
 * An engine reads a partner's progress as it was when the cycle began
 * (hw/ccm_partner.c).  Here a partner of another domain is read from a
 * copy (mf_dom_view_t) that the partner's domain brought up to date after
 * the last window, which was that one cycle: the same value.  What an
 * engine does to another -- credits returned, a wake-up -- takes effect
 * in a later cycle, so it crosses as a message at the window's end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/ccm.h"
#include "net/domain_int.h"
#include "net/network.h"

enum { NO_TAG = 255 };

static const mf_dom_view_t fresh; /* an engine before its first call */

static int remote(const mf_dom_t *d, int rank) { return d->eng_dom[rank] != d->ops.self; }

/* Engine rank's view on every context, allocated on first use (NULL: out
 * of memory). */
static mf_dom_view_t *views(mf_dom_t *d, int rank)
{
    if (!d->view[rank])
        d->view[rank] = calloc(MF_MAX_CTX, sizeof **d->view);
    return d->view[rank];
}

/* ---- the partner port across domains (ctx: the network) ------------------ */

static uint64_t dom_taken(void *ctx, int rank, unsigned cctx, uint32_t seq, unsigned tag,
                          uint64_t now)
{
    mf_net_t *n = ctx;
    const mf_dom_t *d = n->dom;
    if (!remote(d, rank))
        return mf_engines_taken(n->eng, rank, cctx, seq, tag, now);
    const mf_dom_view_t *v = d->view[rank] ? &d->view[rank][cctx] : &fresh;
    /* mf_engines_taken's reading of the partner's seq and running call */
    if (v->seq > seq || (v->seq == seq && !v->running))
        return MF_TAKEN_ALL;
    if (v->seq < seq)
        return 0;
    return v->out[tag];
}

static void send_engine(mf_net_t *n, int kind, int rank, uint32_t state, uint64_t cycle)
{
    mf_dom_msg_t *m = mf_dom_slot(n->dom);
    if (m)
        *m = (mf_dom_msg_t){.kind = (uint32_t)kind, .to = (uint32_t)n->dom->eng_dom[rank],
                            .id = (uint32_t)rank, .state = state, .cycle = cycle};
}

static void dom_returned(void *ctx, int rank, uint32_t stream, uint64_t now)
{
    mf_net_t *n = ctx;
    if (remote(n->dom, rank))
        send_engine(n, MF_DOM_RETURNED, rank, stream, now + 1); /* it counts from now + 1 */
    else
        mf_engines_returned(n->eng, rank, stream, now);
}

static void dom_wake(void *ctx, int rank, uint64_t at)
{
    mf_net_t *n = ctx;
    if (remote(n->dom, rank))
        send_engine(n, MF_DOM_WAKE, rank, 0, at);
    else
        mf_engines_wake(n->eng, rank, at);
}

/* What an AGG message carries in its data. */
typedef struct {
    mf_proc_hdr_t hdr; /* the child's call */
    uint32_t sw;       /* the child's switch: the order key */
    int32_t row_src;   /* the rank whose CT row the child has (itself, or the
                        * one its own row came from) */
} agg_post_t;
_Static_assert(sizeof(agg_post_t) <= MF_DOM_DATA_BYTES, "an AGG message's data");

/* Engine g's row source on ctx (mf_dom_t.ct_src), -1 if unknown. */
static int32_t *ct_src(mf_net_t *n, int g, int ctx)
{
    mf_dom_t *d = n->dom;
    if (!d->ct_src) {
        d->ct_src = malloc((size_t)n->neng * MF_MAX_CTX * sizeof *d->ct_src);
        if (!d->ct_src)
            return NULL;
        memset(d->ct_src, 0xff, (size_t)n->neng * MF_MAX_CTX * sizeof *d->ct_src);
    }
    return &d->ct_src[(size_t)g * MF_MAX_CTX + (size_t)ctx];
}

/* A post to an aggregation engine goes as a message even to this domain:
 * one process runs the posts of a cycle after it in the children's switch
 * order, and the first child's configures the engine, so the parent's
 * domain applies them all after the exchange in that order
 * (mf_dom_apply_aggs). */
static int dom_post_agg(void *ctx, int rank, const mf_coll_t *from, uint64_t at)
{
    mf_net_t *n = ctx;
    int g = from->eng->grank;
    agg_post_t a = {from->req.hdr, (uint32_t)mf_rank_switch(n, g), g};
    if (g >= n->nranks) { /* an aggregation engine: its row came from below */
        const int32_t *src = ct_src(n, g, from->req.hdr.ctx);
        if (!src || *src < 0) {
            mf_dom_fail(n, src ? "an aggregation engine posts up without a CT row (a bug)"
                               : "out of memory for the aggregation engines' rows");
            return 0;
        }
        a.row_src = *src;
    }
    mf_dom_msg_t *m = mf_dom_slot(n->dom);
    if (m) {
        *m = (mf_dom_msg_t){.kind = MF_DOM_AGG, .to = (uint32_t)n->dom->eng_dom[rank],
                            .id = (uint32_t)rank, .state = (uint32_t)g, .cycle = at,
                            .sent = from->seq};
        memcpy(m->data, &a, sizeof a);
    }
    return 0;
}

int mf_dom_engines_attach(mf_net_t *n, mf_dom_t *d)
{
    d->eng_dom = malloc((size_t)n->neng * sizeof *d->eng_dom);
    d->mine = malloc((size_t)n->neng * sizeof *d->mine);
    d->sent_running = calloc((size_t)n->neng, sizeof *d->sent_running);
    d->view = calloc((size_t)n->neng, sizeof *d->view);
    if (!d->eng_dom || !d->mine || !d->sent_running || !d->view)
        return -1;
    for (int g = 0; g < n->neng; g++) {
        d->eng_dom[g] = d->sw_dom[mf_rank_switch(n, g)];
        if (d->eng_dom[g] == d->ops.self)
            d->mine[d->nmine++] = g;
    }
    for (int s = 0; s < n->nsw; s++)
        n->sw[s].streams.note_moved = 1;
    /* the CCMs hold a pointer to n->partners (hw/switch.c) */
    n->partners = (mf_partner_port_t){.taken = dom_taken, .returned = dom_returned,
                                      .wake = dom_wake, .post_agg = dom_post_agg, .ctx = n};
    return 0;
}

void mf_dom_engines_free(mf_dom_t *d)
{
    free(d->agg);
    free(d->ct_src);
    for (int g = 0; d->view && d->net && g < d->net->neng; g++)
        free(d->view[g]);
    free(d->view);
    free(d->sent_running);
    free(d->mine);
    free(d->eng_dom);
}

/* ---- what crosses at a window's end ---------------------------------------- */

/* Engine rank's view on ctx, changed: to domain `to` (-1: every other). */
static void send_view(mf_net_t *n, int rank, int ctx, const mf_dom_view_t *v, unsigned tag,
                      int to, uint64_t end)
{
    mf_dom_t *d = n->dom;
    for (int i = to < 0 ? 0 : to; i < (to < 0 ? d->ops.ndomains : to + 1); i++) {
        mf_dom_msg_t *m = i == d->ops.self ? NULL : mf_dom_slot(d);
        if (m)
            *m = (mf_dom_msg_t){.kind = MF_DOM_VIEW, .to = (uint32_t)i, .id = (uint32_t)rank,
                                .state = (uint32_t)ctx | (v->running ? 1u << 8 : 0) | tag << 16,
                                .sent = v->seq, .tail_fx = tag == NO_TAG ? 0 : v->out[tag],
                                .cycle = end};
    }
}

/* Engine e's state on ctx against what was last sent of it.  A call's
 * start and end go to every domain; a stream's count, where it moved, only
 * to its sender's domain -- the sender is the one engine that reads it
 * (hw/ccm_credits.c mf_ccm_credits_seen) -- if that is not this one. */
static void publish_ctx(mf_net_t *n, const mf_engine_t *e, int ctx, mf_dom_view_t *sent,
                        uint64_t end)
{
    const mf_dom_t *d = n->dom;
    mf_coll_t *c = e->cur[ctx];
    mf_dom_view_t *v = &sent[ctx];
    if (v->seq != e->seq[ctx] || v->running != (c != NULL)) {
        *v = (mf_dom_view_t){.seq = e->seq[ctx], .running = c != NULL};
        send_view(n, e->grank, ctx, v, NO_TAG, -1, end);
    }
    if (!c)
        return;
    for (uint32_t moved = c->net_moved; moved; moved &= moved - 1) {
        unsigned tag = (unsigned)__builtin_ctz(moved);
        const mf_stream_t *st = &c->st[c->tag_stream[tag]];
        int to = d->eng_dom[st->src - 1]; /* bytes were taken: a packet came */
        if (to != d->ops.self && st->out != v->out[tag]) {
            v->out[tag] = st->out;
            send_view(n, e->grank, ctx, v, tag, to, end);
        }
    }
    c->net_moved = 0;
}

static void publish_engine(mf_net_t *n, mf_engine_t *e, uint64_t end)
{
    mf_dom_t *d = n->dom;
    int g = e->grank;
    uint32_t ctxs = e->running | e->changed | d->sent_running[g];
    e->changed = 0;
    if (!ctxs)
        return;
    mf_dom_view_t *sent = views(d, g);
    if (!sent) {
        mf_dom_fail(n, "out of memory for the copies of the engines");
        return;
    }
    for (; ctxs; ctxs &= ctxs - 1)
        publish_ctx(n, e, __builtin_ctz(ctxs), sent, end);
    d->sent_running[g] = e->running;
}

/* An engine's state changes only when its switch runs (calls start and
 * end there, its flows take bytes there), so after a window of one step
 * the engines of the switches that ran are the ones to look at (the whole
 * domain after calls were posted: d->look_all). */
void mf_dom_publish(mf_net_t *n, uint64_t end)
{
    mf_dom_t *d = n->dom;
    if (!d->coll)
        return; /* synthetic traffic: no engine runs */
    if (d->look_all) {
        for (int i = 0; i < d->nmine; i++)
            publish_engine(n, &n->eng[d->mine[i]], end);
    } else if (n->sim.active_cycles != d->looked_at) {
        for (size_t i = 0; i < n->sim.nrun; i++) {
            mf_module_t *m = n->sim.run[i];
            if ((void *)m < (void *)n->sw || (void *)m >= (void *)(n->sw + n->nsw))
                continue; /* not a switch */
            mf_switch_t *w = (mf_switch_t *)m; /* its first member */
            for (int k = 0; k < w->nengines; k++)
                publish_engine(n, w->eng[k], end);
            if (w->agg) /* a fat tree's aggregation engine (no host slot) */
                publish_engine(n, w->agg, end);
        }
    }
    d->look_all = 0;
    d->looked_at = n->sim.active_cycles;
}

int mf_dom_take_engine_msg(mf_net_t *n, const mf_dom_msg_t *m)
{
    int rank = (int)m->id;
    if (rank >= n->neng)
        return 0;
    if (m->kind == MF_DOM_RETURNED) {
        mf_engines_returned(n->eng, rank, m->state, m->cycle - 1);
        return 0;
    }
    if (m->kind == MF_DOM_WAKE) {
        mf_engines_wake(n->eng, rank, m->cycle);
        return 0;
    }
    if (m->kind == MF_DOM_AGG) {
        mf_dom_t *d = n->dom;
        if (d->nagg == d->cap_agg) {
            size_t cap = d->cap_agg ? 2 * d->cap_agg : 16;
            mf_dom_msg_t *a = realloc(d->agg, cap * sizeof *a);
            if (!a)
                return -1;
            d->agg = a;
            d->cap_agg = cap;
        }
        d->agg[d->nagg++] = *m;
        return 0;
    }
    mf_dom_view_t *all = views(n->dom, rank);
    if (!all)
        return -1;
    mf_dom_view_t *v = &all[m->state & 0xff];
    uint32_t running = m->state >> 8 & 1, tag = m->state >> 16 & 0xff;
    /* a new call, or the end of one: its streams start from nothing (a
     * view and a stream's count of the same window commute) */
    if (v->seq != m->sent || v->running != running)
        *v = (mf_dom_view_t){.seq = (uint32_t)m->sent, .running = running};
    if (tag != NO_TAG)
        v->out[tag] = m->tail_fx;
    return 0;
}

/* ---- the run --------------------------------------------------------------- */

int mf_dom_run(mf_net_t *n, uint64_t until, char *err, size_t errlen)
{
    enum { NEXT, FAILED, PENDING, ENTRY, MOVED, NOW, NV };
    static const int op[NV] = {MF_DOM_MIN, MF_DOM_MAX, MF_DOM_SUM, MF_DOM_MAX, MF_DOM_MAX,
                               MF_DOM_MAX};
    /* the watchdog's clock over all domains: cycles in which one of them
     * ran (every domain steps the same cycles), the last that moved data */
    uint64_t active = 0, progress = 0, end = n->sim.now;
    int stepped = 0;
    n->dom->coll = 1;
    n->dom->look_all = 1; /* calls were posted */
    for (;;) {
        if (mf_dom_exchange(n, end, err, errlen))
            return -1; /* the exchange's own failure: it stops the job */
        uint64_t v[NV] = {mf_sim_next(&n->sim), mf_dom_failed_vote(n), n->pending, n->last_entry,
                          stepped && n->progress_at != MF_NEVER, n->sim.now};
        if (mf_dom_reduce(n, v, op, NV, err, errlen))
            return -1;
        if (v[FAILED])
            return mf_dom_failure(n, v[FAILED], err, errlen);
        if (stepped) {
            if (v[MOVED])
                progress = active;
            active++;
        }
        n->sim.now = v[NOW];
        if (n->watchdog && v[PENDING] && v[NOW] >= v[ENTRY] && active - progress > n->watchdog) {
            mf_net_watchdog_msg(n, err, errlen);
            return -1;
        }
        if (v[NEXT] == MF_NEVER)
            return v[PENDING] ? mf_net_stall_msg(n, v[PENDING], err, errlen) : 0;
        if (v[NEXT] > until) {
            n->sim.now = until;
            return 1;
        }
        /* every domain runs cycle v[NEXT], with or without work of its own */
        stepped = 1;
        n->progress_at = MF_NEVER; /* a block that moves data sets it (hw/switch.c) */
        if (mf_sim_next(&n->sim) == v[NEXT] && mf_sim_step(&n->sim) < 0)
            mf_dom_fail(n, "out of memory in the cycle engine");
        end = v[NEXT] + 1;
    }
}

/* By parent, then the child's switch and engine: the order of the
 * deferred posts of one process (sim/engine.h: switch by switch). */
static int by_child(const void *a, const void *b)
{
    const mf_dom_msg_t *x = a, *y = b;
    agg_post_t px, py;
    memcpy(&px, x->data, sizeof px);
    memcpy(&py, y->data, sizeof py);
    uint64_t kx[3] = {x->id, px.sw, x->state}, ky[3] = {y->id, py.sw, y->state};
    return mf_dom_key_cmp(kx, ky, 3);
}

void mf_dom_apply_aggs(mf_net_t *n)
{
    mf_dom_t *d = n->dom;
    if (!d->nagg)
        return;
    qsort(d->agg, d->nagg, sizeof *d->agg, by_child);
    for (size_t i = 0; i < d->nagg && !n->failed; i++) {
        const mf_dom_msg_t *m = &d->agg[i];
        agg_post_t a;
        memcpy(&a, m->data, sizeof a);
        int parent = (int)m->id;
        if (parent >= n->neng || a.row_src < 0 || a.row_src >= n->nranks ||
            a.hdr.ctx >= MF_MAX_CTX) {
            mf_dom_fail(n, "a malformed post to an aggregation engine (a bug)");
            break;
        }
        /* the first child's post configures it: its row source is the parent's */
        int first = n->eng[parent].posted[a.hdr.ctx] < (uint32_t)m->sent;
        int32_t *src = ct_src(n, parent, a.hdr.ctx);
        if (!src || mf_engines_post_agg_as(n->eng, parent, a.row_src, &a.hdr,
                                           (uint32_t)m->sent, m->cycle)) {
            mf_dom_fail(n, "out of memory configuring an aggregation engine");
            break;
        }
        if (first)
            *src = a.row_src;
    }
    d->nagg = 0;
}
