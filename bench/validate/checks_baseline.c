/*
 * mpifpga-validate, group "baseline": MPICH's algorithms on the modeled
 * fabric with the skx-opa host costs (fpga_model/baseline) against the
 * Stampede2 SKX / Omni-Path measurements of 001, and the offload's speedup
 * over that baseline against 001 fig. 10.
 *
 *   001 sec. 6.2.1, Table 4  latency spread (min..max over iterations and
 *                            runs) at 1 KB and 1 MB on 32, 64, 128 nodes
 *   001 sec. 6.2.1, fig. 10  geometric-mean speedup per collective and node
 *                            count, 4 B-4 KB and 4 KB-4 MB: 2.0x .. 32.6x
 *   001 sec. 5, Eqs. 3-6     LogGP closed forms beside the simulated Bcast
 *
 * Latency of a call = the slowest rank's (when the operation is finished):
 * 001 sec. 6.2.1 reports "the average time it takes for the processes to
 * finish the operation", and Table 4's Gather and Scatter rows equal the
 * root's time (e.g. 1 MB Gather, 32 nodes: 2712..2739 us = 31 MB at
 * ~11.5 GB/s), which only the slowest rank reproduces.  Rows, tolerances
 * and the known misses: doc/validation.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "baseline/baseline.h"
#include "baseline/loggp.h"
#include "coll/run.h"
#include "net/topo.h"
#include "params/params.h"
#include "vd.h"

#define SRC_T4 "001 Table 4"
#define SRC_F10 "001 fig. 10"
#define SRC_EQ "001 sec. 5 Eqs. 3-6"

#define NCOLL 7
static const mf_opcode_t colls[NCOLL] = {MF_OPC_ALLGATHER, MF_OPC_ALLREDUCE, MF_OPC_BCAST,
                                         MF_OPC_GATHER, MF_OPC_REDUCE, MF_OPC_REDUCE_SCATTER,
                                         MF_OPC_SCATTER};
static const int nodes[3] = {32, 64, 128};

/* 001 Table 4: MPI collective latency on Stampede2 SKX (us): {min, max} per
 * collective (order of colls[]), node count (32, 64, 128), size (1 KB, 1 MB). */
static const double table4[NCOLL][3][2][2] = {
    {{{27.1, 48.8}, {4645.1, 5466.9}}, {{44.8, 87}, {11327, 14164.9}},
     {{66, 130.2}, {23233.2, 26439}}},                                        /* Allgather */
    {{{21, 46}, {1896.1, 2224.9}}, {{36.9, 74.1}, {1940, 2614}},
     {{33.2, 86.1}, {1997.9, 2985}}},                                         /* Allreduce */
    {{{16, 18.1}, {349, 493}}, {{17.8, 26.2}, {412, 546.2}},
     {{22.8, 36}, {402.9, 816.8}}},                                           /* Bcast */
    {{{9.8, 26.9}, {2712, 2739}}, {{21, 41}, {5425.9, 5465}},
     {{44.1, 151.1}, {10847, 11007}}},                                        /* Gather */
    {{{11.9, 39.1}, {3089.9, 3720.1}}, {{9.7, 57}, {3695.1, 4524.9}},
     {{21.9, 72}, {3807, 4709.9}}},                                           /* Reduce */
    {{{16.9, 38.2}, {2033.9, 2577.9}}, {{25, 62}, {4150.1, 4908.9}},
     {{31, 61}, {4195.7, 4904.2}}},                                           /* Reduce_scatter */
    {{{11, 24.8}, {2729.1, 2781.8}}, {{21.9, 34.1}, {5483.8, 5549.2}},
     {{45.8, 95.1}, {10937, 11018}}},                                         /* Scatter */
};
/* Tolerance on Table 4: the published spread widened by this share on each
 * side (one set of host costs serves 42 points; doc/validation.md). */
#define T4_WIDEN 0.10

/* Points the baseline is known to miss, each explained in doc/validation.md
 * ("Known misses").  Intel MPI's Reduce at 1 MB is slower than its own
 * Allreduce and its Reduce_scatter doubles from 32 to 64 nodes: different
 * algorithms from MPICH's.  The others are the compromise of one set of
 * host costs across algorithms (small Allgather / Reduce_scatter want a
 * larger per-step cost than Bcast).  A known miss still FAILs when it is
 * off by more than MISS_FACTOR beyond the band: that is no longer the
 * documented deviation. */
#define MISS_FACTOR 2.0
static int known_miss(mf_opcode_t c, int n, uint64_t bytes)
{
    if (bytes == 1048576)
        return c == MF_OPC_REDUCE || (c == MF_OPC_REDUCE_SCATTER && n >= 64) ||
               (c == MF_OPC_BCAST && n == 64);
    return (c == MF_OPC_ALLGATHER || c == MF_OPC_REDUCE_SCATTER) && n >= 64;
}

/* 001 sec. 6.2.1: "The speedup ratio ranges from 2.0x to 32.6x" (fig. 10). */

/* fig. 10 rows the model is known to miss (doc/validation.md): medium and
 * long Gather / Scatter, and Bcast on 64 and 128 nodes, are bound by the
 * root's link and DMA on both sides when the baseline runs on the same
 * fabric, so the offload gains less than 2x.  Still a FAIL if the offload
 * is slower than the baseline. */
static int known_f10_miss(mf_opcode_t c, int n, int longr)
{
    return longr && (c == MF_OPC_GATHER || c == MF_OPC_SCATTER || (c == MF_OPC_BCAST && n >= 64));
}
#define F10_LO 2.0
#define F10_HI 32.6

typedef struct {
    mf_params_t p;
    mf_host_params_t h;
    mf_topo_t t;
    mf_net_t *n;
    int P;
    int members[128];
} bench_t;

static int open_bench(bench_t *b, int nnodes, char *err, size_t len)
{
    memset(b, 0, sizeof *b);
    if (mf_params_load("u280", &b->p, err, len) || mf_host_params_load("skx-opa", &b->h, err, len))
        return -1;
    b->n = vd_open_net(&b->p, "torus", nnodes, &b->t, err, len);
    if (!b->n)
        return -1;
    b->P = nnodes;
    for (int i = 0; i < nnodes; i++)
        b->members[i] = i;
    return mf_comm_setup(b->n, 0, nnodes, b->members, err, len);
}

static void close_bench(bench_t *b)
{
    mf_net_destroy(b->n);
    mf_topo_free(&b->t);
}

static mf_coll_spec_t spec_of(mf_opcode_t c, uint64_t bytes)
{
    return (mf_coll_spec_t){.opc = c, .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE, .bytes = bytes};
}

/* Slowest rank's latency of one call (us); the model is deterministic, so
 * one call is every iteration (test_baseline / test_coll check the loops). */
static int baseline_us(bench_t *b, mf_opcode_t c, uint64_t bytes, double *us, char *err,
                       size_t len)
{
    mf_coll_spec_t s = spec_of(c, bytes);
    mf_coll_timing_t t;
    if (mf_bl_coll_once(b->n, &b->h, &s, b->P, b->members, mf_net_now(b->n), NULL, &t, err, len))
        return -1;
    *us = t.max_us;
    return 0;
}

static int offload_us(bench_t *b, mf_opcode_t c, uint64_t bytes, double *us, char *err,
                      size_t len)
{
    mf_coll_spec_t s = spec_of(c, bytes);
    mf_coll_timing_t t;
    if (mf_coll_once(b->n, &s, b->P, b->members, NULL, NULL, mf_net_now(b->n), NULL, &t, err,
                     len))
        return -1;
    *us = t.max_us;
    return 0;
}

static void table4_rows(vd_t *v, bench_t *b, int ni)
{
    static const uint64_t sizes[2] = {1024, 1048576};
    char what[96], pub[40], mod[40], tol[40], err[256];
    for (int c = 0; c < NCOLL; c++)
        for (int si = 0; si < 2; si++) {
            const double *mm = table4[c][ni][si];
            double us;
            snprintf(what, sizeof what, "baseline %s, %d nodes, %s", mf_opcode_name(colls[c]),
                     nodes[ni], si ? "1 MB" : "1 KB");
            if (baseline_us(b, colls[c], sizes[si], &us, err, sizeof err)) {
                vd_model_error(v, SRC_T4, what, err);
                continue;
            }
            snprintf(pub, sizeof pub, "%.1f..%.1f us", mm[0], mm[1]);
            snprintf(mod, sizeof mod, "%.1f us", us);
            snprintf(tol, sizeof tol, "spread +-%.0f %%", T4_WIDEN * 100);
            double lo = mm[0] * (1 - T4_WIDEN), hi = mm[1] * (1 + T4_WIDEN);
            vd_verdict_t r = vd_within(us, lo, hi);
            if (r == VD_FAIL && known_miss(colls[c], nodes[ni], sizes[si]) &&
                vd_within(us, lo / MISS_FACTOR, hi * MISS_FACTOR) == VD_PASS)
                r = VD_MISS;
            vd_row(v, SRC_T4, what, pub, mod, tol, r);
        }
}

/* One collective's measured speedups (baseline / offload, slowest rank),
 * by size: the 4 KB..256 KB and 4 KB..4 MB rows share their points. */
#define SWEEP_MAX 24
typedef struct {
    int n;
    uint64_t bytes[SWEEP_MAX];
    double speedup[SWEEP_MAX];
} sweep_t;

static int speedup_at(bench_t *b, sweep_t *sw, mf_opcode_t c, uint64_t s, double *x, char *err,
                      size_t len)
{
    for (int i = 0; i < sw->n; i++)
        if (sw->bytes[i] == s) {
            *x = sw->speedup[i];
            return 0;
        }
    double bl, off;
    if (baseline_us(b, c, s, &bl, err, len) || offload_us(b, c, s, &off, err, len))
        return -1;
    *x = bl / off;
    if (sw->n < SWEEP_MAX) {
        sw->bytes[sw->n] = s;
        sw->speedup[sw->n++] = *x;
    }
    return 0;
}

/* Geometric mean of offload speedups over powers of two [lo, hi], every
 * `step`-th one (--quick: every 4th), and hi. */
static int geomean_speedup(bench_t *b, sweep_t *sw, mf_opcode_t c, uint64_t lo, uint64_t hi,
                           int step, double *g, char *err, size_t len)
{
    double sum = 0;
    int n = 0, k = 0;
    for (uint64_t s = lo; s <= hi; s *= 2, k++) {
        if (k % step && s != hi)
            continue;
        if (mf_osu_hdr_size(c, s, b->P, 8) == 0 && c != MF_OPC_BARRIER)
            continue; /* e.g. Reduce_scatter below 8 B per rank: no data, no call to time */
        double x;
        if (speedup_at(b, sw, c, s, &x, err, len))
            return -1;
        sum += log(x);
        n++;
    }
    if (!n) {
        snprintf(err, len, "no size in the range moves data");
        return -1;
    }
    *g = exp(sum / n);
    return 0;
}

/* 001 fig. 10: short = 4 B..4 KB, medium to long = 4 KB..4 MB.  A double
 * has 8 bytes, so the short range starts at 8 B (as mpifpga-sim does).
 * Every node count has 4 KB..256 KB; 128 nodes, the paper's largest, also
 * has the whole 4 KB..4 MB: the 1 and 4 MB points of six collectives take
 * about a minute of CPU together.  Allgather's stops at 1 MB (itself about
 * a minute): its 4 MB point alone takes 4-5 minutes (doc/validation.md).
 * --quick leaves these rows out. */
typedef struct {
    const char *name;
    uint64_t lo, hi;
    int longr; /* medium to long */
} range_t;
static const range_t short_range = {"8 B..4 KB", 8, 4096, 0};
static const range_t mid_range = {"4 KB..256 KB", 4096, 256u << 10, 1};
static const range_t full_range = {"4 KB..4 MB", 4096, 4u << 20, 1};
static const range_t full_range_allgather = {"4 KB..1 MB", 4096, 1u << 20, 1};

static void fig10_row(vd_t *v, bench_t *b, sweep_t *sw, int c, int ni, const range_t *r)
{
    char what[96], mod[40], err[256];
    double g;
    snprintf(what, sizeof what, "offload speedup %s, %d nodes, %s", mf_opcode_name(colls[c]),
             nodes[ni], r->name);
    if (geomean_speedup(b, sw, colls[c], r->lo, r->hi, v->quick ? 4 : 2, &g, err, sizeof err)) {
        vd_model_error(v, SRC_F10, what, err);
        return;
    }
    snprintf(mod, sizeof mod, "%.1fx (geomean)", g);
    vd_verdict_t vv = vd_within(g, F10_LO, F10_HI);
    if (vv == VD_FAIL && g >= 1.0 && g < F10_LO && known_f10_miss(colls[c], nodes[ni], r->longr))
        vv = VD_MISS;
    vd_row(v, SRC_F10, what, "2.0x..32.6x", mod, "inside the range", vv);
}

static void fig10_rows(vd_t *v, bench_t *b, int ni)
{
    for (int c = 0; c < NCOLL; c++) {
        sweep_t sw = {0};
        fig10_row(v, b, &sw, c, ni, &short_range);
        fig10_row(v, b, &sw, c, ni, &mid_range);
        if (nodes[ni] == 128 && !v->quick) /* --quick: a smoke run, not minutes of 1-4 MB */
            fig10_row(v, b, &sw, c, ni,
                      colls[c] == MF_OPC_ALLGATHER ? &full_range_allgather : &full_range);
    }
}

/* Eqs. 3-6 beside one simulated Bcast (INFO: closed forms, not measurements). */
static void loggp_rows(vd_t *v, bench_t *b, int ni, uint64_t bytes)
{
    mf_coll_spec_t s = spec_of(MF_OPC_BCAST, bytes);
    mf_coll_timing_t t;
    uint64_t lat[128];
    char err[256], what[96], pub[40], mod[40];
    mf_loggp_bcast_t eq;
    double sim[4];
    if (mf_coll_once(b->n, &s, b->P, b->members, NULL, NULL, mf_net_now(b->n), lat, &t, err,
                     sizeof err)) {
        vd_model_error(v, SRC_EQ, "Bcast offload", err);
        return;
    }
    sim[1] = mf_net_cycles_to_us(b->n, lat[b->P - 1]);
    sim[3] = mf_net_cycles_to_us(b->n, lat[0]);
    if (mf_bl_coll_once(b->n, &b->h, &s, b->P, b->members, mf_net_now(b->n), lat, &t, err,
                        sizeof err)) {
        vd_model_error(v, SRC_EQ, "Bcast baseline", err);
        return;
    }
    sim[0] = mf_net_cycles_to_us(b->n, lat[b->P - 1]);
    sim[2] = mf_net_cycles_to_us(b->n, lat[0]);
    mf_loggp_bcast(b->n, &b->h, b->P, b->members, bytes, &eq);
    const double eqv[4] = {eq.eq3, eq.eq4, eq.eq5, eq.eq6};
    static const char *const who[4] = {"Eq. 3 baseline, rank P-1", "Eq. 4 in-switch, rank P-1",
                                       "Eq. 5 baseline, root", "Eq. 6 in-switch, root"};
    for (int i = 0; i < 4; i++) {
        snprintf(what, sizeof what, "Bcast %llu B, %d nodes: %s", (unsigned long long)bytes,
                 nodes[ni], who[i]);
        snprintf(pub, sizeof pub, "%.2f us (Eq.)", eqv[i]);
        snprintf(mod, sizeof mod, "%.2f us (sim)", sim[i]);
        vd_row(v, SRC_EQ, what, pub, mod, "-", VD_INFO);
    }
}

int vd_checks_baseline(vd_t *v)
{
    int rc = 0;
    for (int ni = 0; ni < 3; ni++) {
        bench_t b;
        char err[256];
        if (open_bench(&b, nodes[ni], err, sizeof err)) {
            vd_model_error(v, SRC_T4, "network setup", err);
            rc = -1;
            continue;
        }
        table4_rows(v, &b, ni);
        fig10_rows(v, &b, ni);
        loggp_rows(v, &b, ni, 8);
        loggp_rows(v, &b, ni, 1024);
        close_bench(&b);
    }
    return rc;
}
