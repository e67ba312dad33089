/*
 * Route computation (001 sec. 4.1, first pipeline stage): output port and
 * VC class from the packet's destination rank.  The CCM has already set the
 * destination of collective packets (001 sec. 4.2: it is placed before the
 * router).  The input port tells the dateline logic whether the packet is
 * already travelling in a dimension.  Topology rules live in net/ (DOR + datelines, up/down (up-then-down)).
 */
#include "hw/l1_switch.h"

void mf_route_compute(mf_l1_t *l, mf_pkt_t *k)
{
    int dsw = mf_topo_engine_switch(l->topo, l->nranks, k->h.dest);
    if (dsw == l->id) {
        k->out_port = -1; /* eject to a local engine */
        return;
    }
    if (k->h.dest >= l->nranks) { /* to an aggregation engine, along the tree */
        k->out_port = (int8_t)mf_fattree_route_agg(l->topo, l->id, dsw);
    } else {
        int vc = k->h.vc;
        k->out_port = (int8_t)mf_topo_route_rank(l->topo, l->id, dsw, k->h.dest, k->in_port, &vc);
        k->h.vc = (uint8_t)vc;
    }
    /* the VC that VA will ask for depends on the route alone: chosen once
     * here, not again at each stop check and grant (vc_alloc.c) */
    k->out_vc = (uint8_t)mf_vc_choose(l, k);
}
