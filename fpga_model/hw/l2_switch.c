/*
 * L2 switches (001 sec. 4.3): the first reorders gathered packets by their
 * sender's rank and the last collector serialises them (CONCAT flows take
 * their inputs strictly in rank order); the last L2 switch directs CGR /
 * CCM outputs to the right switch output port (per-port output queues that
 * the switch allocator serves like an input).  Packets for an engine on the
 * same switch loop back without leaving it.
 */
#include <string.h>

#include "hw/switch.h"

size_t mf_l2_serialise(mf_switch_t *s, mf_coll_t *c, mf_flow_t *f, uint8_t *out, size_t n,
                       int *zero)
{
    size_t got = 0;
    *zero = 1; /* out is not filled while everything taken is zero */
    while (got < n && f->cur < f->nin) {
        mf_stream_t *st = &c->st[f->in[f->cur]];
        uint64_t left = st->len - st->out;
        size_t m = n - got < left ? n - got : (size_t)left;
        if (*zero && st->stored) {
            memset(out, 0, got);
            *zero = 0;
        }
        got += mf_stream_take(&s->streams, st, *zero ? NULL : out + got, m);
        if (st->out == st->len && f->kind == MF_FLOW_CONCAT)
            f->cur++;
        if (f->kind != MF_FLOW_CONCAT)
            break;
    }
    return got;
}

/* The output queue for packets to `dest`: the output port its route takes
 * (MF_PORT_NONE if none), or MF_L2_LOOPBACK.  Routes are fixed, so a
 * collective looks this up once per NET sink. */
int mf_l2_queue(mf_switch_t *s, uint16_t dest)
{
    int dsw = mf_rank_switch(s->net, dest);
    if (dsw == s->id)
        return MF_L2_LOOPBACK;
    /* the route mf_l2_emit's packets take (on a fat tree the uplink
     * depends on the destination node, not only on its leaf) */
    mf_pkt_t k = {.in_port = MF_PORT_NONE};
    k.h.dest = dest;
    mf_route_compute(s, &k);
    return k.out_port >= 0 ? k.out_port : MF_PORT_NONE;
}

int mf_l2_can_emit(mf_switch_t *s, int queue)
{
    if (queue == MF_L2_LOOPBACK)
        return 1;
    return queue >= 0 && s->coll_out[queue].n < MF_COLL_OUT_DEPTH;
}

void mf_l2_emit(mf_switch_t *s, mf_pkt_t *k, uint64_t now)
{
    mf_net_t *n = s->net;
    int dsw = mf_rank_switch(n, k->h.dest);
    k->tail_fx = mf_fx(now) + (uint64_t)k->nphits * MF_FX_ONE / n->p.datapath_phits_per_cycle;
    if (dsw == s->id) { /* local loopback through the L1 switch */
        mf_collector_accept(s, &n->eng[k->h.dest], k, now);
        return;
    }
    k->in_port = MF_PORT_NONE;
    mf_route_compute(s, k);
    k->ready = now + n->stage; /* L2 traversal */
    mf_pq_push(&s->coll_out[k->out_port], k);
    s->coll_out_held |= 1u << k->out_port;
    mf_switch_wake(s, k->ready);
}
