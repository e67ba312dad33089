/*
 * L1 switch (001 sec. 4.3, fig. 5): switch traversal to the output port and
 * its transceiver, ejection of packets addressed to a local engine
 * (collective packets to the collectors, others to the DMA engine), and the
 * input side: packets arriving from a link enter their VC FIFO and get
 * their route computed.
 */
#include "hw/switch.h"

void mf_l1_traverse(mf_switch_t *s, int port, mf_pkt_t *k, uint64_t now)
{
    mf_outport_t *o = &s->out[port];
    k->in_vc = k->out_vc;
    uint64_t head = mf_link_send(&o->link, k, now + s->net->stage, s->net->phit_bytes);
    mf_inport_t *in = &o->peer->in[o->peer_port];
    if (head < in->next_head)
        in->next_head = head;
    if (head < o->peer->next_rx)
        o->peer->next_rx = head;
    o->pkts++;
    mf_switch_wake(o->peer, head);
}

static int is_collective(const mf_pkt_t *k)
{
    return mf_opcode_is_coll(k->h.opcode);
}

/* The eject lane k takes: with eject_per_port, a collective packet from
 * input port p has lane p + 1 of its slot; everything else lane 0. */
static uint64_t *eject_lane(mf_switch_t *s, const mf_pkt_t *k)
{
    int slot = s->net->eng[k->h.dest].slot, lanes = s->nports + 1;
    int lane = s->net->p.eject_per_port && is_collective(k) && k->in_port >= 0 ? k->in_port + 1
                                                                              : 0;
    return &s->eject_free_fx[slot * lanes + lane];
}

void mf_l1_eject(mf_switch_t *s, mf_pkt_t *k, uint64_t now)
{
    mf_net_t *n = s->net;
    mf_engine_t *e = &n->eng[k->h.dest];
    uint64_t *free_fx = eject_lane(s, k);
    uint64_t start = *free_fx > mf_fx(now) ? *free_fx : mf_fx(now);
    *free_fx = start + (uint64_t)(k->nphits ? k->nphits : 1) * MF_FX_ONE /
                           n->p.datapath_phits_per_cycle;
    if (k->tail_fx < *free_fx)
        k->tail_fx = *free_fx;
    if (is_collective(k))
        mf_collector_accept(s, e, k, now);
    else
        mf_dma_eject_unicast(s, e, k, now);
}

/* Can the eject port of k's destination take a packet this cycle? */
static int eject_free(mf_switch_t *s, const mf_pkt_t *k, uint64_t now)
{
    return *eject_lane(s, k) <= mf_fx(now);
}

/* Pop the head of input VC in_vc (port * vcs + vc). */
mf_pkt_t *mf_l1_pop(mf_switch_t *s, unsigned in_vc, uint64_t now)
{
    mf_fifo_t *f = mf_l1_fifo(s, in_vc);
    mf_pkt_t *k = mf_fifo_pop(f, now);
    if (!f->q.n)
        s->vc_held[in_vc / 64] &= ~(1ull << (in_vc % 64));
    return k;
}

/* Eject VC heads and injected packets addressed to local engines. */
void mf_l1_eject_ready(mf_switch_t *s, uint64_t now)
{
    for (unsigned w = 0; w < MF_VC_WORDS && s->eject_waiting; w++) {
        for (uint64_t m = s->vc_held[w]; m && s->eject_waiting; m &= m - 1) {
            unsigned i = w * 64 + (unsigned)__builtin_ctzll(m);
            mf_pkt_t *k = mf_fifo_head(mf_l1_fifo(s, i));
            if (k->out_port < 0 && k->ready <= now && eject_free(s, k, now)) {
                s->eject_waiting--;
                mf_l1_eject(s, mf_l1_pop(s, i, now), now);
            }
        }
    }
    for (int i = 0; i < s->nengines; i++) {
        mf_pkt_t *k = s->eng[i]->tx.head;
        if (k && k->out_port < 0 && k->ready <= now && eject_free(s, k, now))
            mf_l1_eject(s, mf_pq_pop(&s->eng[i]->tx), now);
    }
}

/* Packets that have arrived on port p enter their VC FIFOs. */
static void receive_port(mf_switch_t *s, int p, uint64_t now)
{
    mf_inport_t *in = &s->in[p];
    mf_pkt_t *k;
    while ((k = mf_link_recv(in->link, now)) != NULL) {
        unsigned i = (unsigned)p * s->net->p.vcs + k->in_vc;
        mf_fifo_push(&in->vc[k->in_vc], k, now);
        s->vc_held[i / 64] |= 1ull << (i % 64);
        k->in_port = (int8_t)p;
        mf_route_compute(s, k);
        s->eject_waiting += k->out_port < 0;
        k->ready = now + 2 * s->net->stage; /* RC, VA; SA happens at ready */
        mf_switch_wake(s, k->ready);
    }
    in->next_head = in->link->q.head ? in->link->q.head->ready : MF_NEVER;
}

void mf_l1_receive(mf_switch_t *s, uint64_t now)
{
    if (s->next_rx > now)
        return; /* nothing arrives on any port yet */
    uint64_t next = MF_NEVER;
    for (int p = 0; p < s->nports; p++) {
        if (s->in[p].next_head <= now)
            receive_port(s, p, now);
        if (s->in[p].next_head < next)
            next = s->in[p].next_head;
    }
    s->next_rx = next;
}
