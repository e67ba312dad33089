/*
 * The engine's baseline times (fpga_model/server/baseline_calls.c) on a
 * 4-node torus: header size <-> OSU size, per-rank latencies equal to
 * mf_bl_coll_once on a fresh network, the cache (a repeat is not simulated,
 * any field of the key makes a new entry), a call the baseline cannot run
 * (0, logged once), and -- when run by `make check` (MPIFPGA_SIM set) -- the
 * same figure as `mpifpga-sim --baseline`.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/baseline.h"
#include "server/baseline_calls.h"
#include "tap.h"
#include "test_net.h"

static int nlogs;

static void test_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("# log: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    nlogs++;
}

static mf_params_t params;
static const int world4[4] = {0, 1, 2, 3};

/* A call of `size` members with header size hsize. */
static mf_blc_call_t call_of(mf_opcode_t opc, mf_dtype_t dt, uint32_t hsize, int size,
                             const int *members)
{
    return (mf_blc_call_t){.hdr = {.opcode = (uint8_t)opc, .op = MF_OP_SUM, .dtype = (uint8_t)dt,
                                   .size = hsize, .ctx = 3, .alg = 1},
                           .size = size, .members = members};
}

/* mf_bl_coll_once for spec on a fresh 4-node torus (the reference). */
static int reference(const mf_coll_spec_t *spec, int size, const int *members, uint64_t *lat)
{
    mf_topo_t t;
    mf_coll_timing_t tm;
    char err[256];
    mf_host_params_t h;
    mf_net_t *n = test_make_net(&params, "torus", 4, 1, &t);
    int rc = -1;
    if (!n)
        return -1;
    if (mf_host_params_load("skx-opa", &h, err, sizeof err) ||
        mf_bl_coll_once(n, &h, spec, size, members, mf_net_now(n), lat, &tm, err, sizeof err))
        diag("reference: %s", err);
    else
        rc = 0;
    mf_net_destroy(n);
    mf_topo_free(&t);
    return rc;
}

static int all_positive(const uint64_t *lat, int n)
{
    for (int i = 0; i < n; i++)
        if (lat[i] == 0)
            return 0;
    return 1;
}

static void test_osu_bytes(void)
{
    ok(mf_blc_osu_bytes(MF_OPC_REDUCE_SCATTER, 16, 4) == 64 &&
           mf_osu_hdr_size(MF_OPC_REDUCE_SCATTER, 64, 4, 4) == 16,
       "osu bytes: reduce_scatter header 16 B x 4 ranks = OSU 64 B, and back");
    ok(mf_blc_osu_bytes(MF_OPC_ALLREDUCE, 64, 4) == 64 &&
           mf_blc_osu_bytes(MF_OPC_GATHER, 8, 4) == 8 && mf_blc_osu_bytes(MF_OPC_BARRIER, 0, 4) == 0,
       "osu bytes: others as the header size, barrier 0");
}

/* The engine's figure equals mf_bl_coll_once's for the same call; the
 * repeat comes from the cache. */
static void test_matches_once(mf_blc_t *b)
{
    mf_blc_call_t c = call_of(MF_OPC_ALLREDUCE, MF_DT_INT32, 64, 4, world4);
    mf_coll_spec_t spec = {.opc = MF_OPC_ALLREDUCE, .op = MF_OP_SUM, .dtype = MF_DT_INT32,
                           .bytes = 64};
    uint64_t lat[4], ref[4], again[4];
    unsigned long before = mf_blc_simulated(b);
    int rc = mf_blc_latency(b, &c, lat);
    ok(rc == 0 && all_positive(lat, 4),
       "allreduce 64 B: every rank has a baseline latency (%llu %llu %llu %llu cycles)",
       (unsigned long long)lat[0], (unsigned long long)lat[1], (unsigned long long)lat[2],
       (unsigned long long)lat[3]);
    rc = reference(&spec, 4, world4, ref);
    ok(rc == 0 && !memcmp(lat, ref, sizeof lat),
       "allreduce 64 B: equals mf_bl_coll_once on a fresh network (rank 0: %llu cycles)",
       (unsigned long long)ref[0]);
    ok(mf_blc_simulated(b) == before + 1, "allreduce 64 B: simulated once");
    for (int i = 0; i < 1000; i++)
        mf_blc_latency(b, &c, again);
    ok(mf_blc_simulated(b) == before + 1 && !memcmp(lat, again, sizeof lat),
       "allreduce 64 B: 1000 repeats come from the cache, same latencies");
}

/* Reduce_scatter: the header carries one rank's block, the baseline gets
 * the OSU size; with counts the blocks may differ. */
static void test_reduce_scatter(mf_blc_t *b)
{
    static const uint32_t counts[4] = {8, 16, 4, 36};
    mf_blc_call_t c = call_of(MF_OPC_REDUCE_SCATTER, MF_DT_INT32, 16, 4, world4);
    mf_coll_spec_t spec = {.opc = MF_OPC_REDUCE_SCATTER, .op = MF_OP_SUM, .dtype = MF_DT_INT32,
                           .bytes = 64};
    uint64_t lat[4], ref[4];
    ok(mf_blc_latency(b, &c, lat) == 0 && reference(&spec, 4, world4, ref) == 0 &&
           all_positive(lat, 4) && !memcmp(lat, ref, sizeof lat),
       "reduce_scatter 16 B per rank: equals mf_bl_coll_once for OSU size 64 B");
    c.counts = counts;
    spec.counts = counts;
    ok(mf_blc_latency(b, &c, lat) == 0 && reference(&spec, 4, world4, ref) == 0 &&
           all_positive(lat, 4) && !memcmp(lat, ref, sizeof lat),
       "reduce_scatter with counts 8,16,4,36: equals mf_bl_coll_once");
}

/* Each field of the key makes a distinct entry; the key's values agree
 * with a fresh simulation even after other calls ran on the network. */
static void test_key(mf_blc_t *b)
{
    static const int rev[4] = {3, 2, 1, 0}, pair[2] = {1, 3};
    mf_blc_call_t base = call_of(MF_OPC_BCAST, MF_DT_DOUBLE, 4096, 4, world4), c;
    mf_coll_spec_t spec = {.opc = MF_OPC_BCAST, .dtype = MF_DT_DOUBLE, .bytes = 4096,
                           .root = 2};
    uint64_t lat[4], ref[4];
    unsigned long n0;
    mf_blc_latency(b, &base, lat);
    n0 = mf_blc_simulated(b);
    c = base, c.hdr.root = 2;
    mf_blc_latency(b, &c, lat);
    ok(mf_blc_simulated(b) == n0 + 1 && reference(&spec, 4, world4, ref) == 0 &&
           !memcmp(lat, ref, sizeof lat),
       "key: another root is a new call, equal to a fresh simulation");
    c = base, c.hdr.size = 8192;
    mf_blc_latency(b, &c, lat);
    c = base, c.hdr.dtype = MF_DT_INT64;
    mf_blc_latency(b, &c, lat);
    c = base, c.members = rev;
    mf_blc_latency(b, &c, lat);
    c = base, c.members = pair, c.size = 2;
    mf_blc_latency(b, &c, lat);
    c = base, c.hdr.opcode = MF_OPC_REDUCE;
    mf_blc_latency(b, &c, lat);
    c = base, c.hdr.ctx = 9, c.hdr.alg = 0; /* not part of the key */
    mf_blc_latency(b, &c, lat);
    ok(mf_blc_simulated(b) == n0 + 6,
       "key: size, datatype, members, member count, opcode each make a new call; ctx and "
       "alg do not (%lu simulated)", mf_blc_simulated(b) - n0);
}

/* A call the baseline model cannot run: 0, logged once, not retried. */
static void test_unavailable(mf_blc_t *b)
{
    static const int dup[3] = {0, 1, 1};
    mf_blc_call_t c = call_of(MF_OPC_ALLREDUCE, MF_DT_INT32, 8, 3, dup), good;
    uint64_t lat[4] = {7, 7, 7, 7};
    int logs = nlogs;
    unsigned long n0 = mf_blc_simulated(b);
    ok(mf_blc_latency(b, &c, lat) == -1 && lat[0] == 0 && lat[1] == 0 && lat[2] == 0 &&
           nlogs == logs + 1,
       "unavailable: members 0,1,1 give -1, latencies 0, one log line");
    ok(mf_blc_latency(b, &c, lat) == -1 && nlogs == logs + 1 && mf_blc_simulated(b) == n0 + 1,
       "unavailable: the repeat is neither logged nor simulated again");
    good = call_of(MF_OPC_ALLGATHER, MF_DT_INT32, 8, 4, world4);
    ok(mf_blc_latency(b, &good, lat) == 0 && all_positive(lat, 4),
       "unavailable: the next call runs on a fresh network");
}

/* "baseline_us": <v> of the first row of mpifpga-sim's JSON. */
static int sim_baseline_us(const char *args, double *us)
{
    const char *sim = getenv("MPIFPGA_SIM");
    char cmd[512], out[8192];
    snprintf(cmd, sizeof cmd, "'%s' %s --baseline -i 1 --format json", sim, args);
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    if (pclose(f) != 0)
        return diag("%s failed", cmd), -1;
    const char *p = strstr(out, "\"baseline_us\":");
    if (!p)
        return diag("%s: no baseline_us", cmd), -1;
    *us = strtod(p + strlen("\"baseline_us\":"), NULL);
    return 0;
}

/* mpifpga-sim's average over ranks, us, from per-rank cycles. */
static double avg_us(const mf_net_t *n, const uint64_t *lat, int size)
{
    double sum = 0;
    for (int i = 0; i < size; i++)
        sum += mf_net_cycles_to_us(n, lat[i]);
    return sum / size;
}

static void check_sim(mf_blc_t *b, const mf_net_t *net, const char *args, mf_blc_call_t c)
{
    uint64_t lat[4];
    double want = -1, got;
    int have = sim_baseline_us(args, &want) == 0 && mf_blc_latency(b, &c, lat) == 0;
    got = have ? avg_us(net, lat, 4) : -1;
    ok(have && got > 0 && (got - want < 1e-6 && want - got < 1e-6),
       "mpifpga-sim %s --baseline: %.6f us, engine %.6f us", args, want, got);
}

static void test_vs_sim(mf_blc_t *b, const mf_net_t *net)
{
    static const char *const topo = "--topology torus --nodes 4 --ppn 1 --params u280 -T int32 --op sum";
    char args[256];
    if (!getenv("MPIFPGA_SIM")) {
        ok(1, "# SKIP mpifpga-sim comparison: MPIFPGA_SIM not set (make check sets it)");
        return;
    }
    snprintf(args, sizeof args, "%s -c allreduce -m 1024", topo);
    check_sim(b, net, args, call_of(MF_OPC_ALLREDUCE, MF_DT_INT32, 1024, 4, world4));
    snprintf(args, sizeof args, "%s -c reduce_scatter -m 4096", topo);
    check_sim(b, net, args, call_of(MF_OPC_REDUCE_SCATTER, MF_DT_INT32, 1024, 4, world4));
    snprintf(args, sizeof args, "%s -c barrier", topo);
    check_sim(b, net, args, call_of(MF_OPC_BARRIER, MF_DT_INT32, 0, 4, world4));
}

int main(void)
{
    mf_topo_t t;
    char err[256];
    if (mf_params_load("u280", &params, err, sizeof err)) {
        diag("params: %s", err);
        return 1;
    }
    mf_net_t *net = test_make_net(&params, "torus", 4, 1, &t);
    if (!ok(net != NULL, "network: 4-node torus, u280"))
        return tap_done();
    mf_blc_t *b = mf_blc_create(net, test_log);
    if (ok(b != NULL, "created")) {
        ok(mf_blc_simulated(b) == 0, "nothing simulated yet");
        test_osu_bytes();
        test_matches_once(b);
        test_reduce_scatter(b);
        test_key(b);
        test_unavailable(b);
        test_vs_sim(b, net);
    }
    mf_blc_destroy(b);
    mf_net_destroy(net);
    mf_topo_free(&t);
    return tap_done();
}
