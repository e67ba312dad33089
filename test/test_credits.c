/*
 * Stream credits over the path (credit_hop_cycles, doc/model.md
 * assumption 8).  A lone stream to a partner h hops away, under credits
 * that travel back h x credit_hop cycles, can have at most one window
 * (input_fifo_bytes) unacknowledged, so each window costs at least a
 * round trip: the credit's way back plus the data's way out (h link
 * latencies).  Checked on a Scatter from rank 0 to rank 1 of a two-member
 * communicator whose members sit 8 hops apart on a 16-switch ring (one
 * NET stream of m bytes): with credits over the path the receiver's time
 * is at least that bound; with credits seen the next cycle (the default)
 * it is below it, so the bound is one the option makes bind.  A network
 * split among processes refuses the option with a message.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/run.h"
#include "net/domain.h"
#include "net/network.h"
#include "net/topo.h"
#include "params/params.h"
#include "tap.h"

#define M_BYTES (1024u * 1024u)

/* Comm rank 1's latency, cycles, of a Scatter of m bytes a rank from
 * global rank 0 to global rank 8 of torus:16x1x1; -1 on failure. */
static int64_t scatter_far(unsigned credit_hop, int *hops, mf_params_t *out)
{
    mf_params_t p;
    mf_topo_spec_t spec = {.kind = MF_TOPO_TORUS};
    mf_topo_t t;
    char err[256], hop[16];
    snprintf(hop, sizeof hop, "%u", credit_hop);
    if (mf_params_load("u280", &p, err, sizeof err) ||
        mf_params_set(&p, "credit_hop_cycles", hop, err, sizeof err) ||
        mf_topo_parse("torus:16x1x1", &spec, err, sizeof err) ||
        mf_topo_build(&spec, 16, 1, &t, err, sizeof err)) {
        diag("%s", err);
        return -1;
    }
    int64_t lat = -1;
    mf_net_t *n = mf_net_create(&p, &t, err, sizeof err);
    int members[2] = {0, 8};
    uint64_t cyc[2];
    mf_coll_spec_t c = {.opc = MF_OPC_SCATTER, .op = MF_OP_SUM, .dtype = MF_DT_UINT8,
                        .bytes = M_BYTES};
    mf_coll_timing_t tm;
    if (n && !mf_comm_setup(n, 0, 2, members, err, sizeof err) &&
        !mf_coll_once(n, &c, 2, members, NULL, NULL, mf_net_now(n), cyc, &tm, err, sizeof err))
        lat = (int64_t)cyc[1];
    else
        diag("%s", err);
    *hops = mf_topo_hops(&t, t.node_sw[0], t.node_sw[8]);
    *out = p;
    mf_net_destroy(n);
    mf_topo_free(&t);
    return lat;
}

/* Mean latency (us) of a 64 KiB Allgather over fattree:8's 32 nodes, which
 * runs as one pipelined tree through the leaves' and spines' aggregation
 * engines (001 sec. 4.4); -1 on failure.  *agg_hops gets the links
 * between leaf 0's engine and its parent's aggregation engine. */
static double ftree_allgather(unsigned credit_hop, int *agg_hops)
{
    mf_params_t p;
    mf_topo_spec_t spec;
    mf_topo_t t;
    char err[256], hop[16];
    snprintf(hop, sizeof hop, "%u", credit_hop);
    if (mf_params_load("u280", &p, err, sizeof err) ||
        mf_params_set(&p, "credit_hop_cycles", hop, err, sizeof err) ||
        mf_topo_parse("fattree:8", &spec, err, sizeof err) ||
        mf_topo_build(&spec, 32, 1, &t, err, sizeof err)) {
        diag("%s", err);
        return -1;
    }
    int members[32], port;
    for (int i = 0; i < 32; i++)
        members[i] = i;
    int parent = mf_fattree_agg_parent(&t, t.node_sw[0], &port);
    *agg_hops = mf_topo_engine_hops(&t, 32, 0, 32 + parent);
    double us = -1;
    mf_net_t *n = mf_net_create(&p, &t, err, sizeof err);
    mf_coll_spec_t c = {.opc = MF_OPC_ALLGATHER, .op = MF_OP_SUM, .dtype = MF_DT_UINT8,
                        .bytes = 65536};
    mf_coll_timing_t tm;
    if (n && !mf_comm_setup(n, 0, 32, members, err, sizeof err) &&
        !mf_coll_once(n, &c, 32, members, NULL, NULL, mf_net_now(n), NULL, &tm, err, sizeof err))
        us = tm.avg_us;
    else
        diag("%s", err);
    mf_net_destroy(n);
    mf_topo_free(&t);
    return us;
}

static int never_exchange(void *ctx, const mf_dom_msg_t *o, size_t no, mf_dom_msg_t **in,
                          size_t *nin, char *err, size_t errlen)
{
    (void)ctx, (void)o, (void)no, (void)in, (void)nin;
    snprintf(err, errlen, "not to be called");
    return -1;
}

int main(void)
{
    int hops = 0;
    mf_params_t p;
    /* twice u280's 114 cycles a hop (a 440 ns link + 4 router stages), so
     * that the bound clears what the stream's other limits give */
    unsigned hop = 228;
    int64_t next = scatter_far(0, &hops, &p), path = scatter_far(hop, &hops, &p);
    uint64_t link = mf_params_ns_to_cycles(&p, p.link_latency_ns);
    uint64_t windows = (M_BYTES + p.input_fifo_bytes - 1) / p.input_fifo_bytes;
    uint64_t rtt = (uint64_t)hops * hop + (uint64_t)hops * link;
    uint64_t bound = (windows - 1) * rtt + (uint64_t)hops * link;
    ok(hops == 8, "ranks 0 and 8 of a 16-switch ring are 8 hops apart (%d)", hops);
    ok(path >= 0 && (uint64_t)path >= bound,
       "credits over the path: %lld cycles >= %llu windows' round trips, (%llu - 1) x %llu + "
       "%llu = %llu", (long long)path, (unsigned long long)windows,
       (unsigned long long)windows, (unsigned long long)rtt,
       (unsigned long long)(hops * link), (unsigned long long)bound);
    ok(next >= 0 && (uint64_t)next < bound,
       "credits seen the next cycle: %lld cycles, below that bound (the option binds here)",
       (long long)next);

    /* the fat tree's aggregation engines: credits climb the tree's links
     * (mf_topo_engine_hops; a switch-to-switch route to a spine has none,
     * and the credits' delay used to saturate at 2^32 cycles) */
    int agg_hops = -1;
    double ft_next = ftree_allgather(0, &agg_hops), ft_path = ftree_allgather(114, &agg_hops);
    ok(agg_hops == 1, "a leaf's engine is one link below its parent's aggregation engine (%d)",
       agg_hops);
    ok(ft_next > 0 && ft_path >= ft_next * 0.9 && ft_path <= ft_next * 1.1,
       "fattree:8 64 KiB Allgather through the aggregation engines: %.2f us with credits over "
       "the path, %.2f us seen the next cycle (within 10 %%)", ft_path, ft_next);

    /* a split network refuses it */
    mf_topo_spec_t spec = {.kind = MF_TOPO_TORUS};
    mf_topo_t t;
    char err[256] = "";
    mf_params_set(&p, "credit_hop_cycles", "114", err, sizeof err);
    int rc = -1;
    if (!mf_topo_parse("torus:4x1x1", &spec, err, sizeof err) &&
        !mf_topo_build(&spec, 4, 1, &t, err, sizeof err)) {
        mf_net_t *n = mf_net_create(&p, &t, err, sizeof err);
        mf_dom_ops_t ops = {.ndomains = 2, .self = 0, .exchange = never_exchange};
        if (n)
            rc = mf_dom_attach(n, &ops, NULL, err, sizeof err);
        mf_net_destroy(n);
        mf_topo_free(&t);
    }
    ok(rc == -1 && strstr(err, "credit_hop_cycles = 114") && strstr(err, "one process"),
       "a network split among processes refuses credits over the path: %s", err);
    return tap_done();
}
