/*
 * Route computation (001 sec. 4.1, first pipeline stage): output port and
 * VC class from the packet's destination rank.  The CCM has already set the
 * destination of collective packets (001 sec. 4.2: it is placed before the
 * router).  The input port tells the dateline logic whether the packet is
 * already travelling in a dimension.  Topology rules live in net/ (DOR + datelines, up/down (up-then-down)).
 */
#include "hw/switch.h"
#include "net/topo.h"

void mf_route_compute(mf_switch_t *s, mf_pkt_t *k)
{
    int dsw = mf_rank_switch(s->net, k->h.dest);
    if (dsw == s->id) {
        k->out_port = -1; /* eject to a local engine */
        return;
    }
    if (k->h.dest >= s->net->nranks) { /* to an aggregation engine, along the tree */
        k->out_port = (int16_t)mf_fattree_route_agg(s->net->topo, s->id, dsw);
        return;
    }
    int vc = k->h.vc;
    k->out_port = (int16_t)mf_topo_route_node(s->net->topo, s->id, k->h.dest / s->net->topo->ppn,
                                              k->in_port, &vc);
    k->h.vc = (uint8_t)vc;
}
