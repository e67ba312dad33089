/*
 * The model's work (issue 23, "do no work for idle hardware"): a flow is
 * stepped only when a step can move bytes.  Every collective but Alltoall
 * and Barrier, in both algorithm modes, on a torus and a fat tree: of the
 * CCM's flow steps (mf_net_stats), those that moved no byte -- a packet
 * flushed, an empty sink signalled, or a wake-up that found nothing to do
 * -- stay a small share.  A reduction that lost the CGR arbitration asks
 * again in the next cycle, as a request line held high does: hardware, not
 * a wake-up, so not counted (a scan on a fat tree loses it in a quarter of
 * its steps).  The counts are the model's own, the same on any machine
 * and thread count, so this guards the wake-ups where timing the runs
 * cannot.  Nor may a flow waiting for a partner's credits be looked at
 * for nothing, every time its switch runs: it parks until credits for its
 * stream come (ccm_wait.c; before, a tree-mode Allgather looked 0.26-0.33
 * times per step here, a fat tree's Allgather and Scan 0.39-0.43 times,
 * each a read of the partner's count, likely a miss on another switch),
 * and a concatenation returns credits only for the inputs it took from
 * (flow.c move; else the fat tree's Allgather looks 0.09-0.10 times).  (A concatenation woken by every push of an input it was not at
 * yet made a third of an allreduce's steps idle on 8x8x8, half on
 * 16x16x16.)  And the switch produces that moved packets or only bytes of
 * flows (check_step_kinds) are counted as they happened.
 */
#include <stdlib.h>

#include "tap.h"
#include "test_net.h"
#include "coll/run.h"
#include "mpifpga/osu.h"
#include "traffic/traffic.h"

/* At most this share of a collective's flow steps may move nothing. */
#define IDLE_SHARE_MAX 0.20
/* Looks at flows waiting for a partner's credits that found none, at most
 * this many per flow step. */
#define CREDIT_CHECK_SHARE_MAX 0.05

static mf_params_t params;

static const mf_opcode_t colls[] = {MF_OPC_REDUCE,  MF_OPC_ALLREDUCE,      MF_OPC_BCAST,
                                    MF_OPC_SCATTER, MF_OPC_GATHER,         MF_OPC_ALLGATHER,
                                    MF_OPC_REDUCE_SCATTER, MF_OPC_SCAN};
#define NCOLLS (int)(sizeof colls / sizeof colls[0])

/* Flow steps that moved nothing, CGR arbitration lost aside. */
static uint64_t idle_steps(const mf_net_stats_t *st) { return st->idle_steps - st->grant_waits; }

/* One collective on a new network (its counts from zero). */
static int run_one(const char *topo, int P, mf_opcode_t opc, uint64_t bytes, mf_algo_mode_t algo,
                   mf_net_stats_t *st)
{
    mf_topo_t t = {0}; /* freed below even if the topology was not built */
    mf_net_t *n = P <= 512 ? test_make_net(&params, topo, P, 1, &t) : NULL;
    int *members = malloc(sizeof(int) * (size_t)P), rc = -1;
    uint32_t *counts = malloc(sizeof(uint32_t) * (size_t)P);
    uint64_t e[512];
    char err[256] = "";
    if (!n || !members || !counts)
        goto out;
    for (int i = 0; i < P; i++)
        members[i] = i;
    mf_coll_spec_t c = {.opc = opc, .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE, .root = 1,
                        .bytes = bytes, .algo = algo};
    if (opc == MF_OPC_REDUCE_SCATTER) {
        mf_osu_rs_counts(bytes, P, 8, e);
        for (int i = 0; i < P; i++)
            counts[i] = (uint32_t)(e[i] * 8);
        c.counts = counts;
    }
    mf_coll_timing_t tm;
    if (mf_comm_setup(n, 0, P, members, err, sizeof err) ||
        mf_coll_once(n, &c, P, members, NULL, NULL, 0, NULL, &tm, err, sizeof err)) {
        diag("%s %s: %s", topo, mf_opcode_name(opc), err);
        goto out;
    }
    mf_net_stats(n, st);
    rc = 0;
out:
    free(members);
    free(counts);
    if (n)
        mf_net_destroy(n);
    mf_topo_free(&t);
    return rc;
}

static void check_topology(const char *topo, int P, mf_algo_mode_t algo)
{
    static const uint64_t sizes[] = {4096, 65536, 262144};
    for (int k = 0; k < NCOLLS; k++)
        for (int s = 0; s < 3; s++) {
            mf_net_stats_t w = {0};
            int rc = run_one(topo, P, colls[k], sizes[s], algo, &w);
            double steps = (double)w.flow_steps;
            double share = w.flow_steps ? (double)idle_steps(&w) / steps : 1.0;
            double waits = w.flow_steps ? (double)w.credit_checks / steps : 1.0;
            ok(rc == 0 && w.flow_steps > 0 && share <= IDLE_SHARE_MAX &&
                   waits <= CREDIT_CHECK_SHARE_MAX,
               "%s, %s mode, %s %llu B: %llu flow steps, %.1f %% moved nothing (at most %.0f %%); "
               "%.1f %% as many looks for credits that found none (at most %.0f %%)",
               topo, algo == MF_ALGO_PAPER ? "paper" : "tree", mf_opcode_name(colls[k]),
               (unsigned long long)sizes[s], (unsigned long long)w.flow_steps, 100 * share,
               100 * IDLE_SHARE_MAX, 100 * waits, 100 * CREDIT_CHECK_SHARE_MAX);
        }
}

/* A counted step is one that ran: a network whose collective moved bytes
 * counts at least one step per flow's packet's worth. */
static void check_counts_are_work(void)
{
    mf_net_stats_t small = {0}, big = {0};
    int rc = run_one("torus:4x2x2", 16, MF_OPC_ALLREDUCE, 4096, MF_ALGO_PAPER, &small) |
             run_one("torus:4x2x2", 16, MF_OPC_ALLREDUCE, 262144, MF_ALGO_PAPER, &big);
    /* 256 KiB through each node's datapath at 64 B a step: 4096 steps a node at least */
    ok(rc == 0 && big.flow_steps >= 16u * 4096 && big.flow_steps > 8 * small.flow_steps,
       "the steps grow with the bytes: %llu for 4 KiB, %llu for 256 KiB on 16 nodes",
       (unsigned long long)small.flow_steps, (unsigned long long)big.flow_steps);
}

/* A switch can send at most one packet a port and eject a few a cycle:
 * a produce that moved packets moved at most this many on links. */
#define LINK_PKTS_PER_STEP_MAX 8

/* The produces that moved packets and those that moved bytes of flows alone
 * (mf_net_stats packet_steps, flow_only_steps; what a fast path for
 * streaming flows could leave out, doc/model.md section 10) are produces
 * the engine ran, as many as the packets need, and the flows' own. */
static void check_step_kinds(void)
{
    mf_net_stats_t w = {0};
    int rc = run_one("torus:4x2x2", 16, MF_OPC_ALLREDUCE, 262144, MF_ALGO_PAPER, &w);
    const mf_net_stats_t *st = &w;
    ok(rc == 0 && st->packet_steps > 0 && st->flow_only_steps > 0 &&
           st->packet_steps + st->flow_only_steps <= st->module_steps &&
           st->packet_steps * LINK_PKTS_PER_STEP_MAX >= st->link_pkts &&
           st->flow_only_steps * 10 >= st->module_steps,
       "256 KiB Allreduce on 16 nodes: %llu produces, %llu moved packets (%llu on links), "
       "%llu moved bytes of flows alone (a 256-byte packet takes four 64-byte datapath steps)",
       (unsigned long long)st->module_steps, (unsigned long long)st->packet_steps,
       (unsigned long long)st->link_pkts, (unsigned long long)st->flow_only_steps);

    mf_topo_t t = {0};
    mf_net_t *n = test_make_net(&params, "torus:4x2x2", 16, 1, &t);
    mf_traffic_cfg_t cfg = {.pattern = MF_TR_UNIFORM, .rate = 0.05, .pkt_phits = 1,
                            .warmup = 200, .measure = 8000, .drain_limit = 20000, .seed = 7};
    mf_traffic_result_t res;
    char err[256] = "";
    mf_net_stats_t tr = {0};
    rc = n ? mf_traffic_run(n, &cfg, &res, err, sizeof err) : -1;
    if (rc)
        diag("traffic: %s", n ? err : "no network");
    else
        mf_net_stats(n, &tr);
    /* at 0.05 a switch seldom moves two packets in one cycle, and each
     * packet is ejected once besides its link hops: at least a produce
     * per hop (with the grants not counted, a third of that) */
    ok(rc == 0 && tr.flow_only_steps == 0 && tr.packet_steps >= tr.link_pkts &&
           tr.link_pkts > 0 && tr.packet_steps <= tr.module_steps,
       "uniform traffic, no flows: %llu produces, %llu moved packets (%llu on links), "
       "%llu moved bytes of flows alone",
       (unsigned long long)tr.module_steps, (unsigned long long)tr.packet_steps,
       (unsigned long long)tr.link_pkts, (unsigned long long)tr.flow_only_steps);
    if (n)
        mf_net_destroy(n);
    mf_topo_free(&t);
}

int main(void)
{
    char err[256];
    if (mf_params_load("u280", &params, err, sizeof err)) {
        diag("params: %s", err);
        return 1;
    }
    check_counts_are_work();
    check_step_kinds();
    check_topology("torus:4x4x2", 32, MF_ALGO_PAPER);
    check_topology("torus:4x4x2", 32, MF_ALGO_TREE);
    check_topology("fattree:8", 32, MF_ALGO_PAPER);
    return tap_done();
}
