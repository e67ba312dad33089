/*
 * L1 switch (001 sec. 4.3, fig. 5): switch traversal to the output port and
 * its transceiver, ejection of packets addressed to a local engine
 * (collective packets to the collectors, others to the DMA engine), and the
 * input side: packets arriving from a link enter their VC FIFO and get
 * their route computed.
 */
#include "hw/l1_switch.h"

static inline void atomic_min_u64(uint64_t *p, uint64_t v)
{
    uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v < cur &&
           !__atomic_compare_exchange_n(p, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

void mf_l1_arriving(mf_outport_t *o, uint64_t head)
{
    /* the peer may be producing on another thread, and other upstream
     * switches may lower its next_rx too: an atomic minimum (the peer reads
     * both only in its consume phase) */
    mf_inport_t *in = &o->peer->in[o->peer_port];
    atomic_min_u64(&in->next_head, head);
    atomic_min_u64(&o->peer->next_rx, head);
    mf_wake_consume(&o->peer->wake, head);
}

void mf_l1_traverse(mf_l1_t *l, int port, mf_pkt_t *k, uint64_t now)
{
    mf_outport_t *o = &l->out[port];
    k->in_vc = k->out_vc;
    uint64_t head = mf_link_serialise(&o->link, k, now + l->stage, l->phit_bytes);
    o->pkts++;
    if (__builtin_expect(o->remote != NULL, 0)) {
        /* the serialiser's state stays here, the packet goes to the copy
         * of this link in the peer's domain */
        o->remote->pkt(o->remote->ctx, o->remote_id, k, now + l->stage, head);
        return;
    }
    mf_link_put(&o->link, k, head);
    mf_l1_arriving(o, head);
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static int is_collective(const mf_pkt_t *k)
{
    return mf_opcode_is_coll(k->h.opcode);
}

/* The eject lane k takes: with eject_per_port, a collective packet from
 * input port p has lane p + 1 of its slot; everything else lane 0. */
static uint64_t *eject_lane(mf_l1_t *l, const mf_pkt_t *k)
{
    int slot = l->eject[k->h.dest].slot, lanes = l->nports + 1;
    int lane = l->eject_per_port && is_collective(k) && k->in_port >= 0 ? k->in_port + 1 : 0;
    return &l->eject_free_fx[slot * lanes + lane];
}

void mf_l1_eject(mf_l1_t *l, mf_pkt_t *k, uint64_t now)
{
    const mf_eject_port_t *e = &l->eject[k->h.dest];
    uint64_t *free_fx = eject_lane(l, k);
    uint64_t start = *free_fx > mf_fx(now) ? *free_fx : mf_fx(now);
    *free_fx = start + (uint64_t)(k->nphits ? k->nphits : 1) * MF_FX_ONE /
                           l->phits_per_cycle;
    if (k->tail_fx < *free_fx)
        k->tail_fx = *free_fx;
    if (is_collective(k))
        mf_pkt_put(&e->collective, k, now);
    else
        mf_pkt_put(&e->unicast, k, now);
}

/* Can the eject port of k's destination take a packet this cycle? */
static int eject_free(mf_l1_t *l, const mf_pkt_t *k, uint64_t now)
{
    return *eject_lane(l, k) <= mf_fx(now);
}

/* Pop the head of input VC in_vc (port * vcs + vc). */
mf_pkt_t *mf_l1_pop(mf_l1_t *l, unsigned in_vc, uint64_t now)
{
    mf_fifo_t *f = mf_l1_fifo(l, in_vc);
    mf_pkt_t *k = mf_fifo_pop(f, now);
    uint64_t bit = 1ull << (in_vc % 64);
    if (!f->q.n)
        l->vc_held[in_vc / 64] &= ~bit;
    if (f->q.n && k->next_out < 0) /* the new head ejects here */
        l->eject_head[in_vc / 64] |= bit;
    else
        l->eject_head[in_vc / 64] &= ~bit;
    return k;
}

/* Eject VC heads and injected packets addressed to local engines. */
int mf_l1_eject_ready(mf_l1_t *l, uint64_t now)
{
    int n = 0;
    for (unsigned w = 0; w < l->vc_words; w++) {
        for (uint64_t m = l->eject_head[w]; m; m &= m - 1) {
            unsigned i = w * 64 + (unsigned)__builtin_ctzll(m);
            mf_pkt_t *k = mf_fifo_head(mf_l1_fifo(l, i));
            if (k->ready <= now && eject_free(l, k, now)) {
                mf_l1_eject(l, mf_l1_pop(l, i, now), now);
                n++;
            }
        }
    }
    for (int i = 0; i < l->nengines; i++) {
        mf_pkt_t *k = l->tx[i]->head;
        if (k && k->out_port < 0 && k->ready <= now && eject_free(l, k, now)) {
            mf_l1_eject(l, mf_pq_pop_ahead(l->tx[i]), now);
            n++;
        }
    }
    return n;
}

/* Packets that have arrived on port p enter their VC FIFOs. */
static void receive_port(mf_l1_t *l, int p, uint64_t now)
{
    mf_inport_t *in = &l->in[p];
    mf_pkt_t *k;
    while ((k = mf_link_recv(in->link, now)) != NULL) {
        unsigned i = (unsigned)p * l->vcs + k->in_vc;
        mf_fifo_t *f = mf_l1_fifo(l, i);
        k->in_port = (int8_t)p;
        mf_route_compute(l, k);
        if (f->q.tail) /* mf_l1_pop reads it when the tail's turn comes */
            f->q.tail->next_out = k->out_port;
        else if (k->out_port < 0)
            l->eject_head[i / 64] |= 1ull << (i % 64);
        mf_fifo_push(f, k, now);
        l->vc_held[i / 64] |= 1ull << (i % 64);
        /* RC, VA; SA happens at ready, which the switch's next-move scan
         * asks for (mf_l1_next_move) */
        k->ready = now + 2 * l->stage;
    }
    in->next_head = mf_link_next_arrival(in->link);
}

int mf_l1_receive(mf_l1_t *l, uint64_t now)
{
    if (l->next_rx > now)
        return 0; /* nothing arrives on any port yet */
    uint64_t next = MF_NEVER;
    for (int p = 0; p < l->nports; p++) {
        if (l->in[p].next_head <= now)
            receive_port(l, p, now);
        if (l->in[p].next_head < next)
            next = l->in[p].next_head;
    }
    l->next_rx = next;
    return 1;
}

int mf_l1_has_queued(const mf_l1_t *l)
{
    for (unsigned w = 0; w < l->vc_words; w++)
        if (l->vc_held[w])
            return 1;
    if (l->l2_held)
        return 1;
    for (int i = 0; i < l->nengines; i++)
        if (l->tx[i]->n)
            return 1;
    return 0;
}

/* ---- when can a held packet move? ------------------------------------------
 * A head moves once it is ready and its way out is free: the eject lane's
 * serialiser, or the output link's (switch allocation counts a port free
 * when its serialiser frees by the cycle after traversal).  Nothing else
 * the L1 owns changes before then without its switch running (an arrival,
 * an L2 emit or an injection wakes it), so it need not run in between.  A
 * head blocked only by the downstream FIFO's stop gives now + 1: the stop is
 * looked at every cycle, as before. */

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* First cycle a packet for output port p could be granted the link. */
static uint64_t link_free_at(const mf_l1_t *l, int p)
{
    uint64_t free = mf_fx_ceil(l->out[p].link.busy_fx);
    return free > l->stage + 1 ? free - l->stage - 1 : 0;
}

static uint64_t head_moves_at(mf_l1_t *l, const mf_pkt_t *k, uint64_t now)
{
    if (k->out_port < 0)
        return max_u64(k->ready, mf_fx_ceil(*eject_lane(l, k)));
    /* stopped downstream as seen next cycle: the resume wakes the switch */
    if (!l->wake.sim->full_wakes && mf_vc_stopped(l, k, now + 1))
        return MF_NEVER;
    return max_u64(k->ready, link_free_at(l, k->out_port));
}

/* The answer is never before now + 1, so the scan stops at a head that can
 * move by then (the common case in a busy switch). */
uint64_t mf_l1_next_move(mf_l1_t *l, uint64_t now)
{
    uint64_t t = MF_NEVER, soon = now + 1;
    for (unsigned w = 0; w < l->vc_words; w++)
        for (uint64_t m = l->vc_held[w]; m; m &= m - 1) {
            unsigned i = w * 64 + (unsigned)__builtin_ctzll(m);
            t = min_u64(t, head_moves_at(l, mf_fifo_head(mf_l1_fifo(l, i)), now));
            if (t <= soon)
                return soon;
        }
    for (uint32_t m = l->l2_held; m; m &= m - 1)
        t = min_u64(t, head_moves_at(l, l->l2_out[__builtin_ctz(m)].head, now));
    for (int i = 0; i < l->nengines; i++)
        if (l->tx[i]->head)
            t = min_u64(t, head_moves_at(l, l->tx[i]->head, now));
    return t == MF_NEVER ? t : max_u64(t, soon);
}
