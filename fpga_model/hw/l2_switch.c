/*
 * L2 switches (001 sec. 4.3): the first reorders gathered packets by their
 * sender's rank and the last collector serialises them (CONCAT flows take
 * their inputs strictly in rank order); the last L2 switch directs CGR /
 * CCM outputs to the right switch output port (per-port output queues that
 * the switch allocator serves like an input).  Packets for an engine on the
 * same switch loop back without leaving it.
 */
#include <string.h>

#include "hw/l2_switch.h"

size_t mf_l2_serialise(mf_stream_pool_t *p, mf_coll_t *c, mf_flow_t *f, uint8_t *out, size_t n,
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
        got += mf_stream_take(p, st, *zero ? NULL : out + got, m);
        if (st->out == st->len && f->kind == MF_FLOW_CONCAT)
            f->cur++;
        if (f->kind != MF_FLOW_CONCAT)
            break;
    }
    return got;
}

/* The output queue for packets to `dest`: the output port its route takes
 * (MF_PORT_NONE if none), or MF_EMIT_LOOPBACK.  Routes are fixed, so a
 * collective looks this up once per NET sink. */
int mf_l2_queue(mf_l2_t *l2, uint16_t dest)
{
    if (mf_topo_engine_switch(l2->topo, l2->nranks, dest) == l2->id)
        return MF_EMIT_LOOPBACK;
    /* the route mf_l2_emit's packets take (on a fat tree the uplink
     * depends on the destination node, not only on its leaf) */
    mf_pkt_t k = {.in_port = MF_PORT_NONE};
    k.h.dest = dest;
    mf_route(&l2->route, &k);
    return k.out_port >= 0 ? k.out_port : MF_PORT_NONE;
}

void mf_l2_emit(mf_l2_t *l2, mf_pkt_t *k, uint64_t now)
{
    k->tail_fx = mf_fx(now) + (uint64_t)k->nphits * MF_FX_ONE / l2->phits_per_cycle;
    if (mf_topo_engine_switch(l2->topo, l2->nranks, k->h.dest) == l2->id) {
        mf_pkt_put(&l2->collector[k->h.dest], k, now); /* local loopback */
        return;
    }
    k->in_port = MF_PORT_NONE;
    mf_route(&l2->route, k);
    k->ready = now + l2->stage; /* L2 traversal */
    mf_pq_push(&l2->out[k->out_port], k);
    *l2->out_held |= 1u << k->out_port;
    /* Emits come from the flows, inside the switch's produce, whose L1
     * scan at its end asks for the cycle the packet can move -- its ready
     * cycle or, later, when its link is free (switch.c, mf_l1_next_move);
     * a wake at `ready` ran the switch for nothing whenever the link was
     * still busy then. */
    if (l2->wake.sim->full_wakes)
        mf_wake(&l2->wake, k->ready);
}
