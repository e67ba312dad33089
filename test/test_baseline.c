/*
 * Baseline MPI on the modeled fabric (fpga_model/baseline): the LogGP host
 * costs enter the latencies exactly as documented in baseline.h, the
 * rendezvous protocol adds its round trip, every collective completes on
 * odd, pof2 and non-pof2 sizes on torus, ppn 2 and fat tree, repeated runs
 * are deterministic and the fast path is exact, and bad host sets are
 * rejected with a message.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "baseline/baseline.h"
#include "net/topo.h"
#include "params/params.h"
#include "tap.h"
#include "test_net.h"

static mf_params_t fabric;

static mf_net_t *make_net(const char *topo, int nodes, int ppn, mf_topo_t *t)
{
    return test_make_net(&fabric, topo, nodes, ppn, t);
}

/* A host set with round numbers, so every term is visible. */
static void simple_host(mf_host_params_t *h)
{
    char err[256];
    mf_host_params_load("skx-opa", h, err, sizeof err);
    mf_host_params_set(h, "o_send_ns", "1000", err, sizeof err);
    mf_host_params_set(h, "o_recv_ns", "2000", err, sizeof err);
    mf_host_params_set(h, "gap_ns", "0", err, sizeof err);
    mf_host_params_set(h, "G_ps_per_byte", "100", err, sizeof err);
    mf_host_params_set(h, "reduce_ps_per_byte", "400", err, sizeof err);
    mf_host_params_set(h, "nic_latency_ns", "400", err, sizeof err);
    mf_host_params_set(h, "eager_max_bytes", "65536", err, sizeof err);
    mf_host_params_set(h, "mtu_bytes", "4096", err, sizeof err);
    mf_host_params_set(h, "eager_copy_ps_per_byte", "0", err, sizeof err);
}

static int run(mf_net_t *n, const mf_host_params_t *h, mf_opcode_t opc, int P, uint64_t bytes,
               uint64_t *lat)
{
    int members[64];
    char err[256];
    for (int i = 0; i < P; i++)
        members[i] = i;
    mf_coll_spec_t c = {.opc = opc, .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE, .bytes = bytes};
    mf_coll_timing_t t;
    if (mf_bl_coll_once(n, h, &c, P, members, mf_net_now(n), lat, &t, err, sizeof err)) {
        diag("%s: %s", mf_opcode_name(opc), err);
        return -1;
    }
    return 0;
}

static void set(mf_host_params_t *h, const char *k, const char *v)
{
    char err[256];
    if (mf_host_params_set(h, k, v, err, sizeof err))
        diag("set %s: %s", k, err);
}

/* Two ranks: each host cost moves the receiver's latency by exactly its size. */
static void test_loggp_terms(void)
{
    mf_topo_t t;
    mf_net_t *n = make_net("torus", 2, 1, &t);
    mf_host_params_t h;
    simple_host(&h);
    uint64_t base[2], lat[2];
    if (!ok(n && !run(n, &h, MF_OPC_BCAST, 2, 8, base), "2-rank eager Bcast runs"))
        return;
    ok(base[0] == 250, "root of an eager Bcast returns after o_s (1000 ns = 250 cycles): %llu",
       (unsigned long long)base[0]);
    set(&h, "o_send_ns", "1400");
    run(n, &h, MF_OPC_BCAST, 2, 8, lat);
    ok(lat[1] == base[1] + 100, "o_s +400 ns: receiver +100 cycles (%llu -> %llu)",
       (unsigned long long)base[1], (unsigned long long)lat[1]);
    set(&h, "o_send_ns", "1000");
    set(&h, "o_recv_ns", "2800");
    run(n, &h, MF_OPC_BCAST, 2, 8, lat);
    ok(lat[1] == base[1] + 200, "o_r +800 ns: receiver +200 cycles");
    set(&h, "o_recv_ns", "2000");
    set(&h, "nic_latency_ns", "800");
    run(n, &h, MF_OPC_BCAST, 2, 8, lat);
    ok(lat[1] == base[1] + 200, "NIC latency +400 ns each side: receiver +200 cycles");
    set(&h, "nic_latency_ns", "400");
    /* network part: zero-load one hop of a 1-phit packet, as the fabric gives it */
    uint64_t net = base[1] - 250 - 500 - 200; /* o_s, o_r, 2 x NIC */
    ok(net >= 110 && net < 130, "what remains is one modeled hop (link 110 cycles + router): %llu",
       (unsigned long long)net);
    /* reduction: a 2-rank Reduce of 1 KiB (binomial: the root reduces once) */
    uint64_t a[2], b[2];
    run(n, &h, MF_OPC_REDUCE, 2, 1024, a);
    set(&h, "reduce_ps_per_byte", "800");
    run(n, &h, MF_OPC_REDUCE, 2, 1024, b);
    ok(b[0] - a[0] == 103 || b[0] - a[0] == 102,
       "reduction cost +400 ps/B on 1 KiB adds 409.6 ns = 102.4 cycles: %llu",
       (unsigned long long)(b[0] - a[0]));
    set(&h, "reduce_ps_per_byte", "400");
    /* G: 32 KiB at 100 ps/B = 3.28 us on top of the 8-byte case, host-bound
     * (the link takes 683 cycles, the NIC 819), plus the receiving NIC's
     * time for the last 4 KiB packet (409.6 ns): sender and receiver NICs
     * overlap packet by packet */
    run(n, &h, MF_OPC_BCAST, 2, 32768, lat);
    double extra = (double)(lat[1] - base[1]) * 4;
    ok(fabs(extra - (32760 + 4096) * 0.1) < 60,
       "32 KiB eager message: +%.0f ns = G x (bytes + one MTU) = 3686 ns", extra);
    /* eager copies: charged on both sides of an eager message only */
    uint64_t nocopy[2], copy[2];
    run(n, &h, MF_OPC_BCAST, 2, 8192, nocopy);
    set(&h, "eager_copy_ps_per_byte", "500");
    run(n, &h, MF_OPC_BCAST, 2, 8192, copy);
    ok(copy[0] - nocopy[0] == 1024 && copy[1] - nocopy[1] == 2048,
       "eager copy 500 ps/B on 8 KiB: sender +4096 ns, receiver +8192 ns (%llu, %llu cycles)",
       (unsigned long long)(copy[0] - nocopy[0]), (unsigned long long)(copy[1] - nocopy[1]));
    set(&h, "eager_max_bytes", "4096");
    run(n, &h, MF_OPC_BCAST, 2, 8192, copy);
    set(&h, "eager_copy_ps_per_byte", "0");
    run(n, &h, MF_OPC_BCAST, 2, 8192, nocopy);
    ok(copy[1] == nocopy[1], "a rendezvous message is not copied");
    set(&h, "eager_max_bytes", "65536");
    /* rendezvous: RTS and CTS add a round trip before the data */
    uint64_t eager[2], rndv[2];
    run(n, &h, MF_OPC_BCAST, 2, 65536, eager);
    set(&h, "eager_max_bytes", "1024");
    run(n, &h, MF_OPC_BCAST, 2, 65536, rndv);
    uint64_t rtt = 2 * (200 + net); /* 2 x (2 NIC + hop) */
    ok(rndv[1] >= eager[1] + rtt - 4 && rndv[1] <= eager[1] + rtt + 4,
       "rendezvous adds one round trip to the receiver: %llu -> %llu (rtt %llu)",
       (unsigned long long)eager[1], (unsigned long long)rndv[1], (unsigned long long)rtt);
    ok(rndv[0] > eager[0] + rtt, "a rendezvous send completes only after the CTS and the data");
    mf_net_destroy(n);
    mf_topo_free(&t);
}

/* Every collective completes for eager and rendezvous sizes on several shapes. */
static void test_all_complete(const char *topo, int nodes, int ppn)
{
    static const mf_opcode_t colls[] = {MF_OPC_BCAST, MF_OPC_REDUCE, MF_OPC_ALLREDUCE,
                                        MF_OPC_SCATTER, MF_OPC_GATHER, MF_OPC_ALLGATHER,
                                        MF_OPC_REDUCE_SCATTER, MF_OPC_BARRIER};
    static const uint64_t sizes[] = {8, 2048, 16384, 262144, 1 << 20};
    static const int Ps[] = {5, 8, 13};
    mf_topo_t t;
    mf_net_t *n = make_net(topo, nodes, ppn, &t);
    mf_host_params_t h;
    char err[256];
    mf_host_params_load("skx-opa", &h, err, sizeof err);
    int bad = 0, runs = 0;
    uint64_t lat[16];
    for (size_t p = 0; n && p < sizeof Ps / sizeof Ps[0]; p++)
        for (size_t c = 0; c < sizeof colls / sizeof colls[0]; c++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++, runs++)
                if (run(n, &h, colls[c], Ps[p], sizes[s], lat)) {
                    diag("  P=%d %s %llu B", Ps[p], mf_opcode_name(colls[c]),
                         (unsigned long long)sizes[s]);
                    bad++;
                }
    ok(n && !bad, "%s, %d nodes, ppn %d: all collectives x sizes x P in {5, 8, 13} complete "
       "(%d runs, %d failed)", topo, nodes, ppn, runs, bad);
    mf_net_destroy(n);
    mf_topo_free(&t);
}

static void test_determinism_fast_path(void)
{
    mf_topo_t t;
    mf_net_t *n = make_net("torus", 13, 1, &t);
    mf_host_params_t h;
    char err[256];
    int members[13], sim[2];
    for (int i = 0; i < 13; i++)
        members[i] = i;
    mf_host_params_load("skx-opa", &h, err, sizeof err);
    mf_coll_spec_t c = {.opc = MF_OPC_ALLREDUCE, .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE,
                        .bytes = 4096};
    mf_coll_timing_t tm[2];
    int rc = mf_bl_coll_loop(n, &h, &c, 13, members, 20, 1, &tm[0], &sim[0], err, sizeof err) ||
             mf_bl_coll_loop(n, &h, &c, 13, members, 20, 0, &tm[1], &sim[1], err, sizeof err);
    ok(!rc && tm[0].avg_us == tm[1].avg_us && tm[0].max_us == tm[1].max_us && sim[0] < sim[1],
       "baseline loop: fast path (%d simulated) = full simulation (%d): %.3f us",
       sim[0], sim[1], tm[0].avg_us);
    mf_net_destroy(n);
    mf_topo_free(&t);
}

static void test_bad_input(void)
{
    mf_host_params_t h;
    char err[256] = "";
    ok(mf_host_params_load("nosuch", &h, err, sizeof err) < 0 &&
           strstr(err, "unknown host parameter set 'nosuch'") && strstr(err, "skx-opa"),
       "unknown host set named, built-ins listed: %s", err);
    ok(mf_host_params_load("skx-opa", &h, err, sizeof err) == 0, "skx-opa loads");
    ok(mf_host_params_set(&h, "mtu_bytes", "3000", err, sizeof err) < 0 &&
           strstr(err, "power of two"),
       "mtu_bytes must be a power of two: %s", err);
    ok(mf_host_params_set(&h, "o_sned_ns", "1", err, sizeof err) < 0 && strstr(err, "o_sned_ns"),
       "unknown key named: %s", err);
    /* an MTU the fabric's FIFOs cannot take */
    mf_topo_t t;
    mf_net_t *n = make_net("torus", 2, 1, &t);
    mf_host_params_set(&h, "mtu_bytes", "65536", err, sizeof err);
    uint64_t lat[2];
    int members[2] = {0, 1};
    mf_coll_spec_t c = {.opc = MF_OPC_BCAST, .dtype = MF_DT_DOUBLE, .bytes = 8};
    mf_coll_timing_t tm;
    int rc = mf_bl_coll_once(n, &h, &c, 2, members, 0, lat, &tm, err, sizeof err);
    ok(rc < 0 && strstr(err, "mtu_bytes") && strstr(err, "FIFO"),
       "an MTU larger than a VC FIFO minus the margin is refused: %s", err);
    mf_net_destroy(n);
    mf_topo_free(&t);
}

int main(void)
{
    char err[256];
    if (mf_params_load("u280", &fabric, err, sizeof err)) {
        diag("%s", err);
        return 1;
    }
    test_loggp_terms();
    test_all_complete("torus", 13, 1);
    test_all_complete("torus", 7, 2);
    test_all_complete("fattree:8", 13, 1);
    test_determinism_fast_path();
    test_bad_input();
    return tap_done();
}
