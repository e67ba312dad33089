/* 001 Eqs. 3-6 from the model's parameters (loggp.h). */
#include <math.h>

#include "baseline/loggp.h"
#include "net/network.h"

static double us(const mf_net_t *n, double cycles) { return cycles * mf_params_cycle_ns(&n->p) / 1000; }

/* Zero-load head latency of one packet over `hops` links, in cycles: per
 * switch the router pipeline (RC, VA, SA, ST) and the link. */
static double path_cycles(const mf_net_t *n, int hops)
{
    return hops * (3.0 * n->stage + n->link_lat);
}

static int hops_between(const mf_net_t *n, int ga, int gb)
{
    return mf_topo_hops(n->topo, mf_rank_switch(n, ga), mf_rank_switch(n, gb));
}

void mf_loggp_bcast(const mf_net_t *n, const mf_host_params_t *h, int P, const int *members,
                    uint64_t k, mf_loggp_bcast_t *o)
{
    double cyc_ns = mf_params_cycle_ns(&n->p);
    double link_bpc = mf_params_link_bpc_fx(&n->p) / 65536.0;
    double sum = 0, edges = 0, path = 0;
    /* binomial path from rank 0 to rank P-1: 0 -> highest bit -> ... */
    int cur = 0;
    for (int mask = 1 << 16; mask > 0; mask >>= 1) {
        if (((P - 1) & mask) == 0)
            continue;
        int next = cur | mask;
        double c = path_cycles(n, hops_between(n, members[cur], members[next]));
        sum += c, path += c + n->p.collector_cycles + n->stage, edges++;
        cur = next;
    }
    double mean = edges ? sum / edges : 0;
    double lg_floor = P > 1 ? floor(log2(P)) : 0, lg_ceil = P > 1 ? ceil(log2(P)) : 0;
    double G_host = h->G_ps_per_byte / 1e6, G_link = cyc_ns / link_bpc / 1000;
    o->bl = (mf_loggp_t){.L = 2 * h->nic_latency_ns / 1000 + us(n, mean),
                         .os = h->o_send_ns / 1000, .orr = h->o_recv_ns / 1000,
                         .g = h->gap_ns / 1000, .G = G_host > G_link ? G_host : G_link};
    double sw_bpc = n->dma_bytes < n->datapath_bytes ? n->dma_bytes : n->datapath_bytes;
    if (link_bpc < sw_bpc)
        sw_bpc = link_bpc;
    o->is = (mf_loggp_t){.L = us(n, path), .os = us(n, n->host_o + n->pcie),
                         .orr = us(n, n->pcie + n->host_o), .g = 0, .G = cyc_ns / sw_bpc / 1000};
    const mf_loggp_t *b = &o->bl, *s = &o->is;
    double kb = (double)k;
    o->eq3 = lg_floor * (b->os + kb * b->G + b->L + b->orr);
    o->eq4 = s->os + kb * s->G + s->L + s->orr;
    o->eq5 = b->os + (lg_ceil - 1 > 0 ? lg_ceil - 1 : 0) * (b->g > b->os ? b->g : b->os) +
             lg_ceil * kb * b->G;
    o->eq6 = s->os + kb * s->G;
}
