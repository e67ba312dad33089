/*
 * Switch allocation (001 sec. 4.3: round-robin arbitration).  For every
 * output port whose link is free, the requesters -- input VC heads routed
 * there, the L2 output queue of that port, and the packet converters'
 * injection queues -- are served round robin; one packet starts per port per
 * cycle.  The Eject port has no arbiter (001 sec. 4.3): see l1_switch.c.
 */
#include "hw/switch.h"

static mf_pkt_t *candidate(mf_switch_t *s, int port, unsigned i, unsigned nvc)
{
    unsigned nin = (unsigned)s->nports * nvc;
    if (i < nin)
        return mf_fifo_head(&s->in[i / nvc].vc[i % nvc]);
    if (i == nin)
        return s->out[port].coll_out.head;
    return s->eng[i - nin - 1]->tx.head;
}

static mf_pkt_t *take(mf_switch_t *s, int port, unsigned i, unsigned nvc, uint64_t now)
{
    unsigned nin = (unsigned)s->nports * nvc;
    if (i < nin)
        return mf_fifo_pop(&s->in[i / nvc].vc[i % nvc], now);
    if (i == nin)
        return mf_pq_pop(&s->out[port].coll_out);
    return mf_pq_pop(&s->eng[i - nin - 1]->tx);
}

static void allocate_port(mf_switch_t *s, int port, uint64_t now)
{
    mf_outport_t *o = &s->out[port];
    unsigned nvc = s->net->p.vcs;
    unsigned ncand = (unsigned)s->nports * nvc + 1 + (unsigned)s->nengines;
    for (unsigned j = 0; j < ncand; j++) {
        unsigned i = (o->rr + j) % ncand;
        mf_pkt_t *k = candidate(s, port, i, nvc);
        if (!k || k->out_port != port || k->ready > now)
            continue;
        if (mf_vc_alloc(s, k, now) < 0)
            continue;
        take(s, port, i, nvc, now);
        o->rr = (i + 1) % ncand;
        mf_l1_traverse(s, port, k, now);
        return;
    }
}

void mf_sw_alloc(mf_switch_t *s, uint64_t now)
{
    for (int p = 0; p < s->nports; p++)
        if (s->out[p].connected && mf_link_free(&s->out[p].link, now))
            allocate_port(s, p, now);
}
