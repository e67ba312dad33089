/*
 * VC allocation (001 sec. 4.1, second stage).  The VCs of a port are split
 * into the two dateline classes (000 sec. 4.2.2) on the torus; inside a
 * class a flow (source, destination) always uses the same VC, so its packets
 * cannot overtake each other -- collective streams rely on in-order
 * delivery.  Virtual cut-through: a VC is granted when the downstream FIFO
 * has not signalled stop.
 */
#include "hw/l1_switch.h"

static unsigned flow_hash(const mf_pkt_t *k)
{
    uint32_t h = (uint32_t)k->src * 2654435761u ^ (uint32_t)k->h.dest * 40503u;
    return h ^ (h >> 15);
}

/* h % n without a division when n is a power of two (the usual VC counts) */
static unsigned mod(unsigned h, unsigned n)
{
    return (n & (n - 1)) == 0 ? h & (n - 1) : h % n;
}

unsigned mf_vc_choose(const mf_l1_t *l, const mf_pkt_t *k)
{
    unsigned nvc = l->vcs;
    if (l->topo->kind == MF_TOPO_TORUS) {
        unsigned half = nvc / 2;
        return k->h.vc * half + mod(flow_hash(k), half);
    }
    return mod(flow_hash(k), nvc);
}

/* The downstream stop signal as output VC v of `port` sees it at `at`: from
 * the view it keeps, refreshed from the peer's FIFO when `at` is outside
 * the cycles the view holds for (and every time with full wake-ups, the
 * test mode that checks shortcuts like this one: sim_threads.sh). */
static int seen_stopped(mf_l1_t *l, int port, unsigned v, uint64_t at)
{
    mf_stop_view_t *w = &l->seen[(unsigned)port * l->vcs + v];
    if (at < w->from || at > w->until || l->wake.sim->full_wakes)
        w->stop = (uint8_t)mf_fifo_stop_window(mf_l1_peer_fifo(l, port, v), l->wake.sim->now, at,
                                               &w->from, &w->until);
    return w->stop;
}

int mf_vc_stopped(mf_l1_t *l, const mf_pkt_t *k, uint64_t at)
{
    return seen_stopped(l, k->out_port, k->out_vc, at);
}
