/*
 * mpifpga-validate, group "switch": the single MPI-FPGA switch and its link
 * against 001 (the MPI-FPGA paper; documents as in /work/shared/seeds/INDEX.md).
 *
 *   001 sec. 3.1-3.2, Eq. 1   CT size for MAX_R = 64K, N_C = 32 ("around 1 KB"),
 *                             plus the model's own CT row (INFO)
 *   001 sec. 4.1, Eq. 2       minimum input buffer for the largest evaluated
 *                             network vs the 48 KB input FIFO
 *   001 sec. 6, Table 2       FPGA-to-FPGA latency 440 ns, measured in a
 *                             network; peak bandwidth 95.9 Gb/s vs a 4 MiB
 *                             streaming Bcast between two nodes
 *
 * Rows, tolerances and reasons: doc/validation.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coll/run.h"
#include "mpifpga/model.h"
#include "net/topo.h"
#include "params/params.h"
#include "traffic/traffic.h"
#include "vd.h"

#define SRC_EQ1 "001 sec. 3.2 Eq. 1"
#define SRC_EQ2 "001 sec. 4.1 Eq. 2"
#define SRC_T2 "001 sec. 6 Table 2"

/* 001 sec. 3.1: "32 outstanding communicators with a table size of around
 * 1 KB"; sec. 3.2: MAX_R of 64K (16-bit ranks). */
#define PUB_CT_KB 1.0
#define PUB_CT_MAX_R 65536u
#define PUB_CT_NC 32u
/* 001 sec. 4.1: "The input FIFO size in the current design is 48 KB." */
#define PUB_FIFO_BYTES (48u * 1024u)
/* 001 sec. 6.2.1: the largest evaluated network has 128 nodes (figs. 8-12:
 * 32, 64 and 128 nodes); a binomial tree over 128 ranks is log2(128) = 7
 * levels deep (d of Eq. 2). */
#define PUB_MAX_NODES 128
/* 001 Table 2: U280 FPGA-to-FPGA latency 440 ns, peak bandwidth 95.9 Gb/s. */
#define PUB_LINK_NS 440.0
#define PUB_LINK_GBPS 95.9

/* Zero-load latency (cycles, creation to tail ejection, mf_traffic_run) of
 * 1-phit unicast packets between the two neighbouring switches of
 * torus:2x1x1, at 0.001 phits/node/cycle (one packet every ~1000 cycles:
 * no two packets meet). */
static int one_hop_cycles(const mf_params_t *p, double *avg, double *max, char *err,
                          size_t len)
{
    mf_topo_t t;
    mf_net_t *n = vd_open_net(p, "torus:2x1x1", 2, &t, err, len);
    if (!n)
        return -1;
    mf_traffic_cfg_t cfg = {.pattern = MF_TR_NEIGHBOR, .rate = 0.001, .pkt_phits = 1,
                            .warmup = 2000, .measure = 100000, .drain_limit = 100000,
                            .seed = p->seed};
    mf_traffic_result_t r;
    int rc = mf_traffic_run(n, &cfg, &r, err, len);
    if (!rc && (r.measured_pkts < 20 || r.saturated || r.delivered_pkts < r.measured_pkts)) {
        snprintf(err, len, "one-hop traffic: %llu packets measured, %llu delivered%s",
                 (unsigned long long)r.measured_pkts, (unsigned long long)r.delivered_pkts,
                 r.saturated ? ", saturated" : "");
        rc = -1;
    }
    *avg = r.avg_latency_cycles;
    *max = r.max_latency_cycles;
    mf_net_destroy(n);
    mf_topo_free(&t);
    return rc;
}

static int check_ct(vd_t *v)
{
    char pub[48], mod[48];
    /* 001 Eq. 1: (log(MAX_R) x (log(MAX_R) + 2) + 8) x N_C bits */
    uint64_t bits = mf_ct_size_bits(PUB_CT_MAX_R, PUB_CT_NC);
    double kb = bits / 8.0 / 1024.0;
    snprintf(pub, sizeof pub, "~%.0f KB", PUB_CT_KB);
    snprintf(mod, sizeof mod, "%.2f KB (%llu bits)", kb, (unsigned long long)bits);
    vd_row(v, SRC_EQ1, "CT size, MAX_R = 64K, N_C = 32 (mf_ct_size_bits)", pub, mod,
           "0.75 .. 1.5 KB", vd_within(kb, 0.75, 1.5));

    /* The model's CT row (doc/protocol.md "CT size", doc/model.md assumption
     * 5): three partner sets hc/up/down of log(MAX_R) ranks each, size,
     * rank, fold, global0 (16 bits each), levels and pof2_levels (5 bits
     * each): 3 lg^2 + 4 lg + 10 bits per row. */
    unsigned lg = 0;
    while ((1u << lg) < PUB_CT_MAX_R)
        lg++;
    unsigned row = 3 * lg * lg + 4 * lg + 10;
    double mkb = (double)row * PUB_CT_NC / 8.0 / 1024.0;
    snprintf(pub, sizeof pub, "%llu bits/row",
             (unsigned long long)(bits / PUB_CT_NC));
    snprintf(mod, sizeof mod, "%u bits/row, %.2f KB", row, mkb);
    vd_row(v, SRC_EQ1, "model CT row (3 partner sets, doc/protocol.md CT size)", pub, mod,
           "-", VD_INFO);
    return 0;
}

static int check_min_buf(vd_t *v, const mf_params_t *p)
{
    unsigned depth = 0;
    while ((1 << depth) < PUB_MAX_NODES)
        depth++;
    uint64_t need = mf_min_buf_bytes(p, depth);
    char what[200], pub[48], mod[64];
    snprintf(what, sizeof what, "min input buffer, %.20s, d = %u (%d nodes), q = 2, m = %u phits",
             p->name, depth, PUB_MAX_NODES, mf_params_margin_phits(p));
    snprintf(pub, sizeof pub, "FIFO %u KB", PUB_FIFO_BYTES / 1024);
    snprintf(mod, sizeof mod, "%.2f KB (%llu B)", need / 1024.0, (unsigned long long)need);
    vd_row(v, SRC_EQ2, what, pub, mod, "<= 48 KB (fits)",
           need <= PUB_FIFO_BYTES ? VD_PASS : VD_FAIL);
    return 0;
}

static int check_one_hop(vd_t *v, const mf_params_t *p)
{
    char err[256], mod[64], what[160];
    double cyc = mf_params_cycle_ns(p);
    double a_lat, a_max, b_lat, b_max;
    /* Reference: the same network with a one-cycle link.  The difference is
     * what the link adds to a one-hop packet, port to port. */
    mf_params_t q = *p;
    q.link_latency_ns = cyc;
    if (mf_params_check(&q, err, sizeof err) ||
        one_hop_cycles(p, &a_lat, &a_max, err, sizeof err) ||
        one_hop_cycles(&q, &b_lat, &b_max, err, sizeof err))
        return vd_model_error(v, SRC_T2, "one-hop latency", err);
    double port_ns = (a_lat - b_lat) * cyc + cyc;
    snprintf(mod, sizeof mod, "%.1f ns", port_ns);
    vd_row(v, SRC_T2, "FPGA-to-FPGA latency, port to port (1-hop packet, differential)",
           "440 ns", mod, "+-1 %", vd_within_rel(port_ns, PUB_LINK_NS, 0.01));
    snprintf(mod, sizeof mod, "%.1f ns (%.0f cycles)", a_lat * cyc, a_lat);
    snprintf(what, sizeof what, "1-hop 1-phit packet, injection to ejection (max %.0f cycles)",
             a_max);
    vd_row(v, SRC_T2, what, "440 ns", mod, "- (+ router pipeline)", VD_INFO);
    return 0;
}

static int check_stream(vd_t *v, const mf_params_t *p, uint64_t bytes)
{
    char err[256], mod[64], what[160];
    mf_topo_t t;
    mf_net_t *n = vd_open_net(p, "torus:2x1x1", 2, &t, err, sizeof err);
    if (!n)
        return vd_model_error(v, SRC_T2, "streaming Bcast", err);
    int members[2] = {0, 1}, rc = 0;
    mf_coll_spec_t spec = {.opc = MF_OPC_BCAST, .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE,
                           .root = 0, .ctx = 0, .bytes = bytes};
    mf_coll_timing_t tm;
    mf_net_stats_t st;
    if (mf_comm_setup(n, 0, 2, members, err, sizeof err) ||
        mf_coll_once(n, &spec, 2, members, NULL, NULL, mf_net_now(n), NULL, &tm, err,
                     sizeof err)) {
        rc = vd_model_error(v, SRC_T2, "streaming Bcast", err);
        goto out;
    }
    mf_net_stats(n, &st);
    /* whole call of the slowest rank (the receiver), overheads included */
    double ns = tm.max_cycles * mf_params_cycle_ns(p);
    double gbps = bytes * 8.0 / ns;
    double pct = 100.0 * gbps / PUB_LINK_GBPS;
    snprintf(what, sizeof what, "%llu MiB Bcast, 2 nodes, receiver's whole call",
             (unsigned long long)(bytes >> 20));
    snprintf(mod, sizeof mod, "%.1f Gb/s = %.1f %%", gbps, pct);
    vd_row(v, SRC_T2, what, "95.9 Gb/s", mod, ">= 90 % of 95.9",
           pct >= 90.0 && st.fifo_overflows == 0 ? VD_PASS : VD_FAIL);
out:
    mf_net_destroy(n);
    mf_topo_free(&t);
    return rc;
}

int vd_checks_switch(vd_t *v)
{
    char err[256];
    mf_params_t p;
    int rc = 0;
    vd_section(v, "switch: 001 Eq. 1 (CT), Eq. 2 (input buffer), Table 2 (U280 link)");
    rc |= check_ct(v);
    if (mf_params_load("u280", &p, err, sizeof err))
        return vd_model_error(v, "u280", "parameter set", err);
    rc |= check_min_buf(v, &p);
    rc |= check_one_hop(v, &p);
    /* 4 MiB: the largest OSU size of 001 fig. 8/9 (4 KB to 4 MB) */
    rc |= check_stream(v, &p, v->quick ? (1u << 20) : (4u << 20));
    return rc ? -1 : 0;
}
