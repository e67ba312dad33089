/*
 * End-to-end stream credits (doc/model.md section 5, assumption 8): a NET
 * sink may have one window (input_fifo_bytes, plus what the receiver parks)
 * that its partner has not consumed.  How the consumed count gets back to
 * the sender, through the partner port (hw/ports.h):
 *   - by default the sender reads it the cycle after the partner took the
 *     bytes (`taken`), and a sender waiting for it is woken (`returned`);
 *   - with credit_hop_cycles set, each cycle in which the partner took
 *     bytes sends the count back over the path (`credits`), and the sender
 *     sees it hops x credit_hop cycles later.
 */
#include <stdint.h>
#include <stdlib.h>

#include "hw/ccm.h"

/* Bytes of the partner's stream for this sink that it has consumed (the
 * credits that have come back).  Out of line: sink_room (flow.c) needs it
 * only when the count last read does not answer. */
uint64_t mf_ccm_credits_seen(const mf_ccm_t *m, const mf_coll_t *c, mf_sink_t *k, uint64_t now)
{
    if (m->cfg->credit_hop)
        return mf_credit_seen(k->credits, now, k->acked_lb);
    return mf_partner_taken(m->partners, k->dest, c->req.hdr.ctx, c->seq, k->tag, now);
}

/* After the switches' phase of cycle now: tell the sender (rank in the
 * high 32 bits of rs, the stream's mf_stream_id in the low) that a partner
 * took bytes it sent.  Deferred rather than in the port, so a take costs
 * what a deferral costs. */
_Static_assert(sizeof(uintptr_t) >= 8, "credit_back packs two 32-bit fields in a pointer");
static void credit_back(void *port, void *rs, uint64_t now)
{
    const mf_partner_port_t *p = port;
    uintptr_t v = (uintptr_t)rs;
    p->returned(p->ctx, (int)(v >> 32), (uint32_t)v, now);
}

/* credit_hop > 0, after the switches' phase of cycle now in which this
 * engine took bytes of NET stream st: the count it has taken goes back to
 * the sender, which sees it a path's latency later (hops x credit_hop
 * cycles; at least the next cycle, as without). */
static void credit_over_path(void *ccm, void *stream, uint64_t now)
{
    mf_ccm_t *m = ccm;
    mf_stream_t *st = stream;
    const mf_coll_t *c = st->call;
    int sender = st->src - 1, receiver = c->eng->grank;
    if (!st->credit_delay) { /* the path's hops, once per stream */
        int hops = mf_topo_engine_hops(m->topo, m->cfg->nranks, receiver, sender);
        if (hops < 0) {
            mf_fault(&m->fault, "no path for stream credits between engines");
            return;
        }
        /* up to 2^20 cycles a hop on a long ring can pass 32 bits: saturate */
        uint64_t delay = (uint64_t)hops * m->cfg->credit_hop;
        st->credit_delay = delay ? (delay < UINT32_MAX ? (uint32_t)delay : UINT32_MAX) : 1;
    }
    if (m->partners->credits(m->partners->ctx, sender, receiver, c->req.hdr.ctx, c->seq, st->tag,
                             st->out, now + st->credit_delay))
        mf_fault(&m->fault, "out of memory sending stream credits");
}

/* credit_hop > 0: the line of c's NET stream to `dest` on `tag`, made on
 * its first credit and given to every sink that feeds the stream, so that
 * a credit is recorded once however many sinks (a ring's blocks) wait on
 * it.  NULL: out of memory. */
mf_credit_line_t *mf_ccm_credit_line(mf_coll_t *c, int dest, unsigned tag)
{
    for (int i = 0; i < c->ncredit_lines; i++)
        if (c->credit_lines[i]->dest == dest && c->credit_lines[i]->tag == tag)
            return c->credit_lines[i];
    mf_credit_line_t **t = realloc(c->credit_lines, (size_t)(c->ncredit_lines + 1) * sizeof *t);
    if (!t)
        return NULL;
    c->credit_lines = t;
    mf_credit_line_t *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->dest = (uint16_t)dest;
    l->tag = (uint8_t)tag;
    t[c->ncredit_lines++] = l;
    for (int i = 0; i < c->nsk; i++) {
        mf_sink_t *k = &c->sk[i];
        if (k->kind == MF_SINK_NET && k->dest == dest && k->tag == tag)
            k->credits = l;
    }
    return l;
}

void mf_ccm_credits_back(mf_ccm_t *m, const mf_coll_t *c, mf_stream_t *st, uint64_t now)
{
    if (m->cfg->credit_hop) { /* they travel back over the path */
        mf_sim_defer(m->wake.sim, credit_over_path, m, st, now);
        return;
    }
    /* the sender sees them from the next cycle (mf_ccm_credits_seen) */
    uintptr_t id = mf_stream_id((unsigned)c->eng->grank, c->req.hdr.ctx, st->tag);
    mf_sim_defer(m->wake.sim, credit_back, (void *)(uintptr_t)m->partners,
                 (void *)((uintptr_t)(st->src - 1) << 32 | id), now);
}
