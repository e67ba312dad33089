/* Ring schedules (001 Table 1): bcast as scatter + ring, ring allgather. */
#include <stdlib.h>
#include <string.h>

#include "hw/ccm_build.h"

/*
 * Receive all other chunks from the left, write them, and pass everything
 * but the last one on to the right after our own (MPICH ring allgather).
 * Our own chunk (tag 31, straight from the flow that holds it) and the
 * chunks we forward (tag 30: the left neighbour's own chunk, then what it
 * forwarded) travel as two independent streams with their own credits.
 * Serialising them into one flow would deadlock once a chunk exceeds the
 * credit window: each rank's forwarded data would queue behind its own
 * chunk, whose credits come back only when the right neighbour, in turn,
 * gets past its own.  For the same reason the tag-30 data that arrives
 * while we forward the left's own chunk may buffer up to one chunk.
 */
static void ring(bld_t *b, const ring_t *g, int own_flow, uint64_t own_off)
{
    int left = (g->me - 1 + g->P) % g->P;
    uint64_t own = clen(g, g->me), from_left = clen(g, left);
    uint64_t fwd_in = g->total - own - from_left; /* chunks me-2 .. me-(P-1) */
    ccm_to_net(b, own_flow, own_off, own, b->ct->up[0], TAG_RING_OWN);
    int f31 = ccm_copy_of(b, ccm_net_in(b, TAG_RING_OWN, from_left));
    if (g->write_host)
        ccm_to_host(b, f31, 0, from_left, g->host_base + co(g, (left + g->rot) % g->P));
    if (g->P <= 2)
        return;
    int in[2] = {ccm_to_stream(b, f31, 0, from_left)}, nin = 1;
    int f30 = ccm_copy_of(b, ccm_net_in(b, TAG_RING_FWD, fwd_in));
    uint64_t off = 0, prefix = 0;
    for (int i = 2; i < g->P; i++) {
        int j = ((g->me - i) % g->P + g->P) % g->P;
        if (g->write_host)
            ccm_to_host(b, f30, off, clen(g, j), g->host_base + co(g, (j + g->rot) % g->P));
        if (i < g->P - 1)
            prefix += clen(g, j);
        off += clen(g, j);
    }
    if (prefix) {
        /* what arrives on tag 30 while we still forward the left's own
         * chunk waits here: up to that chunk more than one window (the
         * ring would otherwise wait on itself once chunks exceed it) */
        in[nin] = ccm_to_stream(b, f30, 0, prefix);
        if (!b->fail)
            b->c->st[in[nin]].extra_win = from_left;
        nin++;
    }
    int cf = ccm_flow(b, MF_FLOW_CONCAT, from_left + prefix, nin, in);
    ccm_to_net(b, cf, 0, from_left + prefix, b->ct->up[0], TAG_RING_FWD);
}

/* MPICH's MPII_Scatter_for_bcast: chunks of ceil(n/P) bytes, vr's chunk
 * vr, scattered down the binomial tree.  Returns the flow whose output
 * starts with this rank's own chunk (the root's: the whole buffer). */
int ccm_bcast_scatter(bld_t *b, const ring_t *g)
{
    int vr = g->me;
    uint64_t lo = co(g, vr), hi = co(g, vr + subtree(b, vr));
    int in = vr ? ccm_net_in(b, parent_level(b, vr), hi - lo) : ccm_host_src(b, 0, b->n);
    int f = ccm_copy_of(b, in);
    if (vr)
        ccm_to_host(b, f, 0, clen(g, vr), lo);
    for (int k = 0; k < parent_level(b, vr); k++) {
        if (!has_child(b, vr, k))
            continue;
        int cv = vr + (1 << k);
        ccm_to_net(b, f, co(g, cv) - lo, co(g, cv + subtree(b, cv)) - co(g, cv), b->ct->up[k], k);
    }
    return f;
}

/* Bcast for long messages: binomial scatter, then ring allgather (Table 1). */
void ccm_bcast_scatter_ring(bld_t *b)
{
    int vr = vrank(b);
    ring_t g = {.P = b->P, .me = vr, .unit = (b->n + b->P - 1) / b->P, .total = b->n,
                .write_host = vr != 0};
    ring(b, &g, ccm_bcast_scatter(b, &g), 0);
}

void ccm_allgather_ring(bld_t *b)
{
    ring_t g = {.P = b->P, .me = b->r, .unit = b->n, .total = b->n * b->P, .write_host = 1};
    int f = ccm_copy_of(b, ccm_host_src(b, 0, b->n));
    ccm_to_host(b, f, 0, b->n, (uint64_t)b->r * b->n);
    ring(b, &g, f, 0);
}

