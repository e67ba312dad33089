/* Physical lower bounds of the collectives (bounds.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "baseline/baseline.h"
#include "coll/bounds.h"
#include "mpifpga/model.h"
#include "net/topo.h"
#include "params/params.h"

static int node_of(const mf_topo_t *t, int grank) { return grank / t->ppn; }

static int hops(const mf_topo_t *t, int ga, int gb)
{
    int h = mf_topo_hops(t, t->node_sw[node_of(t, ga)], t->node_sw[node_of(t, gb)]);
    return h < 0 ? 0 : h;
}

/* Per-rank block bytes of comm rank j (reduce_scatter: its count). */
static uint64_t block_of(const mf_coll_spec_t *c, int size, int j)
{
    if (c->opc == MF_OPC_REDUCE_SCATTER && c->counts)
        return c->counts[j];
    return mf_osu_hdr_size(c->opc, c->bytes, size, mf_elem_bytes(c->op, c->dtype));
}

/* Rank i needs data from comm rank j: account for its distance. */
static void needs(const mf_topo_t *t, const int *members, int i, int j, mf_bound_bytes_t *b)
{
    int h = hops(t, members[j], members[i]);
    if (!b->needs_remote || h < b->hops_near)
        b->hops_near = h;
    if (h > b->hops_far)
        b->hops_far = h;
    b->needs_remote = 1;
}

static int remote(const mf_topo_t *t, const int *members, int i, int j)
{
    return node_of(t, members[i]) != node_of(t, members[j]);
}

/* Rank i needs every other member's data (reductions, allgather, barrier);
 * `per` bytes of each remote member's reach it (allgather), or the whole
 * result comes combined (`combined` bytes from outside when any is remote). */
static void needs_range(const mf_topo_t *t, const int *members, int lo, int hi, int i,
                        uint64_t per, uint64_t combined, mf_bound_bytes_t *b)
{
    int any_remote = 0;
    for (int j = lo; j < hi; j++) {
        if (j == i)
            continue;
        needs(t, members, i, j, b);
        if (remote(t, members, i, j)) {
            b->remote += per;
            any_remote = 1;
        }
    }
    if (any_remote)
        b->remote += combined;
}

static void needs_all(const mf_topo_t *t, const int *members, int size, int i, uint64_t per,
                      uint64_t combined, mf_bound_bytes_t *b)
{
    needs_range(t, members, 0, size, i, per, combined, b);
}

void mf_bound_bytes(const mf_net_t *n, const mf_coll_spec_t *c, int size, const int *members,
                    int i, mf_bound_bytes_t *b)
{
    const mf_topo_t *t = mf_net_topo(n);
    uint64_t m = block_of(c, size, i), total = 0;
    int root = c->root, others = size - 1;
    *b = (mf_bound_bytes_t){0};
    if (c->opc == MF_OPC_REDUCE_SCATTER)
        for (int j = 0; j < size; j++)
            total += block_of(c, size, j);
    int moves = c->opc == MF_OPC_BARRIER || (c->opc == MF_OPC_REDUCE_SCATTER ? total : m) > 0;
    if (!moves || size < 2)
        return; /* completes locally (MPICH returns at once for count 0) */
    b->moves = 1;
    switch (c->opc) {
    case MF_OPC_BARRIER:
        needs_all(t, members, size, i, 0, 0, b);
        break;
    case MF_OPC_BCAST:
        if (i == root) {
            b->send = m;
        } else {
            b->recv = m;
            needs(t, members, i, root, b);
            b->remote = remote(t, members, i, root) ? m : 0;
        }
        break;
    case MF_OPC_SCATTER:
        if (i == root) {
            b->send = (uint64_t)others * m;
        } else {
            b->recv = m;
            needs(t, members, i, root, b);
            b->remote = remote(t, members, i, root) ? m : 0;
        }
        break;
    case MF_OPC_REDUCE:
        b->send = m;
        if (i == root) {
            b->recv = m;
            needs_all(t, members, size, i, 0, m, b);
        }
        break;
    case MF_OPC_ALLREDUCE:
        b->send = b->recv = m;
        needs_all(t, members, size, i, 0, m, b);
        break;
    case MF_OPC_GATHER:
        if (i == root) {
            b->recv = (uint64_t)others * m;
            needs_all(t, members, size, i, m, 0, b);
        } else {
            b->send = m;
        }
        break;
    case MF_OPC_ALLGATHER:
        b->send = m;
        b->recv = (uint64_t)others * m;
        needs_all(t, members, size, i, m, 0, b);
        break;
    case MF_OPC_ALLTOALL: /* a different block to and from every other rank */
        b->send = b->recv = (uint64_t)others * m;
        needs_all(t, members, size, i, m, 0, b);
        break;
    case MF_OPC_REDUCE_SCATTER:
        b->send = total - m; /* every element of the other blocks leaves, combined or not */
        if (m) {
            b->recv = m;
            needs_all(t, members, size, i, 0, m, b);
        }
        break;
    case MF_OPC_SCAN:
    case MF_OPC_EXSCAN: /* rank i's result combines ranks 0..i-1 (and its own) */
        b->send = i < others ? m : 0; /* the last rank's data is nobody's */
        if (i > 0) {
            b->recv = m;
            needs_range(t, members, 0, i, i, 0, m, b);
        }
        break;
    default:
        break;
    }
}

/* Links into a switch from the network. */
static int ingress_links(const mf_topo_t *t, int sw)
{
    int k = 0;
    for (int p = 0; p < t->max_ports; p++)
        k += t->peer_sw[(size_t)sw * (size_t)t->max_ports + (size_t)p] >= 0;
    return k ? k : 1;
}

/* Shortest link latency the model can produce, cycles. */
static uint64_t link_cycles(const mf_params_t *p)
{
    return p->link_jitter_sd_ns > 0 ? 1 : mf_params_ns_to_cycles(p, p->link_latency_ns);
}

/* Cycles from the first DMA beat to the last of `bytes` at `rate` bytes per
 * cycle: the last beat is issued ceil(bytes / rate) - 1 cycles after the
 * first (its PCIe latency is counted separately). */
static uint64_t dma_cycles(uint64_t bytes, uint64_t rate)
{
    return bytes ? (bytes + rate - 1) / rate - 1 : 0;
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t m = a > b ? a : b;
    return m > c ? m : c;
}

uint64_t mf_bound_offload(const mf_net_t *n, const mf_coll_spec_t *c, int size,
                          const int *members, int i)
{
    const mf_params_t *p = mf_net_params(n);
    const mf_topo_t *t = mf_net_topo(n);
    mf_bound_bytes_t b;
    mf_bound_bytes(n, c, size, members, i, &b);
    uint64_t ovh = mf_params_ns_to_cycles(p, p->host_overhead_ns);
    uint64_t pcie = mf_params_ns_to_cycles(p, p->pcie_latency_ns);
    uint64_t dma = (uint64_t)p->dma_phits_per_cycle * mf_params_phit_bytes(p);
    uint64_t link = link_cycles(p);
    if (t->kind == MF_TOPO_FATTREE) { /* the host's NIC and link to its leaf (network.c) */
        pcie += link;
        uint64_t lbpc = (mf_params_link_bpc_fx(p) + 0xffff) >> 16; /* rounded up: a bound */
        dma = lbpc < dma ? lbpc : dma;
    }
    uint64_t fixed = 2 * ovh + pcie;
    if (!b.moves)
        return 0;
    uint64_t sends = fixed + dma_cycles(b.send, dma);
    if (!b.needs_remote)
        return sends;
    uint64_t far = fixed + pcie + (uint64_t)b.hops_far * link;
    uint64_t near = fixed + pcie + (uint64_t)b.hops_near * link + dma_cycles(b.recv, dma);
    int sw = t->node_sw[node_of(t, members[i])];
    uint64_t lbytes = (uint64_t)ingress_links(t, sw) * mf_params_link_bpc_fx(p);
    uint64_t wire = fixed + pcie + (uint64_t)b.hops_near * link +
                    (lbytes ? (b.remote << 16) / lbytes : 0);
    uint64_t r = max3(sends, far, near);
    return r > wire ? r : wire;
}

/* ns (or ps / 1000) of host time in whole cycles, rounded down. */
static uint64_t host_cycles(const mf_params_t *p, double ns)
{
    double c = floor(ns / mf_params_cycle_ns(p));
    return c > 0 ? (uint64_t)c : 0;
}

uint64_t mf_bound_baseline(const mf_net_t *n, const mf_host_params_t *h,
                           const mf_coll_spec_t *c, int size, const int *members, int i)
{
    const mf_params_t *p = mf_net_params(n);
    const mf_topo_t *t = mf_net_topo(n);
    mf_bound_bytes_t b;
    mf_bound_bytes(n, c, size, members, i, &b);
    if (!b.moves)
        return 0;
    int others_remote = 0;
    for (int j = 0; j < size; j++)
        others_remote |= j != i && remote(t, members, i, j);
    uint64_t os = host_cycles(p, h->o_send_ns), orv = host_cycles(p, h->o_recv_ns);
    uint64_t nic = host_cycles(p, (double)(b.send + b.recv) * h->G_ps_per_byte / 1000.0);
    uint64_t bw = nic + (b.send ? os : 0) + (b.recv ? orv : 0);
    if (!b.needs_remote || !others_remote)
        return bw;
    uint64_t path = os + 2 * host_cycles(p, h->nic_latency_ns) +
                    (uint64_t)b.hops_far * link_cycles(p) + orv;
    return bw > path ? bw : path;
}

/* Smallest latency / bound over the ranks (1e9 when no rank has a bound). */
static double worst_ratio(const uint64_t *lat, const uint64_t *bound, int size, int *rank)
{
    double w = 1e9;
    for (int i = 0; i < size; i++)
        if (bound[i] && (double)lat[i] / (double)bound[i] < w) {
            w = (double)lat[i] / (double)bound[i];
            *rank = i;
        }
    return w;
}

int mf_bound_check(mf_net_t *n, mf_net_t *bl, const mf_host_params_t *h,
                   const mf_coll_spec_t *c, int size, const int *members, mf_bound_result_t *r,
                   char *err, size_t len)
{
    uint64_t *lat = calloc((size_t)size, sizeof *lat), *bound = calloc((size_t)size, sizeof *bound);
    mf_coll_timing_t t;
    int rc = -1;
    *r = (mf_bound_result_t){.offload = 1e9, .baseline = 1e9};
    if (!lat || !bound) {
        snprintf(err, len, "out of memory");
        goto out;
    }
    if (mf_coll_once(n, c, size, members, NULL, NULL, mf_net_now(n), lat, &t, err, len))
        goto out;
    for (int i = 0; i < size; i++)
        bound[i] = mf_bound_offload(n, c, size, members, i);
    r->offload = worst_ratio(lat, bound, size, &r->offload_rank);
    r->offload_avg_us = t.avg_us;
    r->offload_max_us = t.max_us;
    if (bl && h) {
        if (mf_bl_coll_once(bl, h, c, size, members, mf_net_now(bl), lat, &t, err, len))
            goto out;
        for (int i = 0; i < size; i++)
            bound[i] = mf_bound_baseline(bl, h, c, size, members, i);
        r->baseline = worst_ratio(lat, bound, size, &r->baseline_rank);
        r->baseline_avg_us = t.avg_us;
        r->baseline_max_us = t.max_us;
    }
    rc = 0;
out:
    free(lat);
    free(bound);
    return rc;
}
