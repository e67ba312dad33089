/*
 * The full grid of fpga_model/coll/bounds.h: every collective x sizes 4 B
 * .. 4 MiB (powers of 4) x torus 8, 27, 32, 64, 128 nodes and fat trees of
 * 16 and 128 nodes, each
 * rank's modeled latency against its physical lower bound, offload and
 * baseline MPI.  Prints per topology and collective the worst ratio
 * modeled / bound (must be >= 1) and the offload speedup over the baseline:
 * of OSU's figure (mean over ranks), worst over all sizes and geometric
 * mean over 4 B - 4 KiB, and of the slowest rank (a gather's root), worst
 * over all sizes.  test/test_bounds runs a fast subset in `make check`.
 *
 *   make bench-bounds                       (the whole grid)
 *   ./bench/bounds_grid [-m MAX_BYTES] [-a paper|tree|auto] [-p u280|novog|FILE]
 *                       [TOPOLOGY:NODES ...]
 *       e.g. ./bench/bounds_grid -m 65536 torus:64 fattree:8:16
 *   -a: the switches' algorithms (mpifpga-sim --algorithm; default paper).
 *   -p: the switches' parameter set (mpifpga-sim --params; default u280),
 *       e.g. a file "credit_hop_cycles = 114": the bounds hold whatever the
 *       set, since they are computed from it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll/bounds.h"
#include "mpifpga/osu.h"
#include "net/topo.h"
#include "params/params.h"

static const mf_opcode_t colls[] = {MF_OPC_REDUCE, MF_OPC_ALLREDUCE, MF_OPC_BCAST,
                                    MF_OPC_SCATTER, MF_OPC_GATHER, MF_OPC_ALLGATHER,
                                    MF_OPC_REDUCE_SCATTER, MF_OPC_SCAN, MF_OPC_EXSCAN,
                                    MF_OPC_ALLTOALL, MF_OPC_BARRIER};
#define NCOLLS (int)(sizeof colls / sizeof colls[0])

static mf_net_t *make_net(const mf_params_t *p, const char *topo, int nodes, mf_topo_t *t)
{
    char err[256];
    mf_topo_spec_t spec;
    if (mf_topo_parse(topo, &spec, err, sizeof err) ||
        mf_topo_build(&spec, nodes, 1, t, err, sizeof err)) {
        fprintf(stderr, "bounds_grid: %s: %s\n", topo, err);
        exit(2);
    }
    mf_net_t *n = mf_net_create(p, t, err, sizeof err);
    if (!n) {
        fprintf(stderr, "bounds_grid: %s\n", err);
        exit(2);
    }
    return n;
}

/* "torus:64" -> topology "torus", 64 nodes; "fattree:8:16" -> "fattree:8", 16. */
static void split(const char *arg, char *topo, size_t len, int *nodes)
{
    const char *c = strrchr(arg, ':');
    if (!c || (*nodes = atoi(c + 1)) < 2) {
        fprintf(stderr, "bounds_grid: '%s': expected TOPOLOGY:NODES, e.g. torus:64\n", arg);
        exit(2);
    }
    snprintf(topo, len, "%.*s", (int)(c - arg), arg);
}

static int run_topology(const mf_params_t *p, const mf_host_params_t *h, const char *arg,
                        uint64_t max, mf_algo_mode_t mode, double *worst)
{
    char topo[64], err[256];
    int P;
    split(arg, topo, sizeof topo, &P);
    mf_topo_t t1, t2;
    mf_net_t *n = make_net(p, topo, P, &t1), *bl = make_net(p, topo, P, &t2);
    int *members = malloc(sizeof(int) * (size_t)P);
    uint32_t *counts = malloc(sizeof(uint32_t) * (size_t)P);
    uint64_t *e = malloc(sizeof(uint64_t) * (size_t)P);
    for (int i = 0; i < P; i++)
        members[i] = i;
    if (mf_comm_setup(n, 0, P, members, err, sizeof err)) {
        fprintf(stderr, "bounds_grid: %s\n", err);
        return -1;
    }
    printf("%-14s %-15s %10s %10s %13s %13s %12s %8s\n", "topology", "collective", "off/bound",
           "base/bound", "worst-speedup", "worst-slowest", "geo4B-4KiB", "sec");
    for (int k = 0; k < NCOLLS; k++) {
        if (colls[k] == MF_OPC_ALLTOALL && P > MF_ALLTOALL_MAX_MEMBERS)
            continue; /* the host falls back: tags bound the communicator */
        double wo = 1e9, wb = 1e9, ws = 1e9, wm = 1e9, lg = 0;
        int ng = 0;
        clock_t t0 = clock();
        for (uint64_t b = 4; b <= max; b *= 4) {
            mf_coll_spec_t c = {.opc = colls[k], .op = MF_OP_SUM, .dtype = MF_DT_UINT8,
                                .root = 0, .bytes = b, .algo = mode};
            if (colls[k] == MF_OPC_REDUCE_SCATTER) {
                mf_osu_rs_counts(b, P, 1, e);
                for (int i = 0; i < P; i++)
                    counts[i] = (uint32_t)e[i];
                c.counts = counts;
            }
            mf_bound_result_t r;
            if (mf_bound_check(n, bl, h, &c, P, members, &r, err, sizeof err)) {
                fprintf(stderr, "bounds_grid: %s %s %llu B: %s\n", arg, mf_opcode_name(colls[k]),
                        (unsigned long long)b, err);
                return -1;
            }
            wo = r.offload < wo ? r.offload : wo;
            wb = r.baseline < wb ? r.baseline : wb;
            if (r.offload_avg_us > 0) {
                double s = r.baseline_avg_us / r.offload_avg_us;
                double sm = r.baseline_max_us / r.offload_max_us;
                ws = s < ws ? s : ws;
                wm = sm < wm ? sm : wm;
                if (b <= 4096)
                    lg += log(s), ng++;
            }
            if (colls[k] == MF_OPC_BARRIER)
                break;
        }
        printf("%-14s %-15s %10.3f %10.3f %13.3f %13.3f %12.2f %8.1f\n", arg,
               mf_opcode_name(colls[k]), wo, wb, ws, wm, ng ? exp(lg / ng) : 0.0,
               (double)(clock() - t0) / CLOCKS_PER_SEC);
        fflush(stdout);
        worst[0] = wo < worst[0] ? wo : worst[0];
        worst[1] = wb < worst[1] ? wb : worst[1];
    }
    free(members), free(counts), free(e);
    mf_net_destroy(n), mf_net_destroy(bl);
    mf_topo_free(&t1), mf_topo_free(&t2);
    return 0;
}

int main(int argc, char **argv)
{
    static const char *defaults[] = {"torus:8",      "torus:27",        "torus:32",
                                     "torus:64",     "torus:128",       "fattree:8:16",
                                     "fattree:16:128"};
    uint64_t max = 4u << 20;
    mf_algo_mode_t mode = MF_ALGO_PAPER;
    const char *params = "u280";
    int first = 1;
    while (first + 1 < argc && argv[first][0] == '-' && argv[first][1] &&
           strchr("map", argv[first][1]) && !argv[first][2]) {
        const char *v = argv[first + 1];
        if (argv[first][1] == 'm') {
            max = strtoull(v, NULL, 0);
        } else if (argv[first][1] == 'p') {
            params = v;
        } else if (mf_algo_mode_parse(v, &mode)) {
            fprintf(stderr, "bounds_grid: -a '%s': expected paper, tree or auto\n", v);
            return 2;
        }
        first += 2;
    }
    mf_params_t p;
    mf_host_params_t h;
    char err[256];
    if (mf_params_load(params, &p, err, sizeof err) ||
        mf_host_params_load("skx-opa", &h, err, sizeof err)) {
        fprintf(stderr, "bounds_grid: %s\n", err);
        return 2;
    }
    printf("# parameters: %s, host: skx-opa\n", params);
    double worst[2] = {1e9, 1e9};
    int ntopo = first < argc ? argc - first : (int)(sizeof defaults / sizeof defaults[0]);
    for (int i = 0; i < ntopo; i++)
        if (run_topology(&p, &h, first < argc ? argv[first + i] : defaults[i], max, mode, worst))
            return 1;
    printf("# worst modeled / bound: offload %.3f, baseline %.3f (%s)\n", worst[0], worst[1],
           worst[0] >= 1 && worst[1] >= 1 ? "no point below its bound" : "BELOW THE BOUND");
    return worst[0] >= 1 && worst[1] >= 1 ? 0 : 1;
}
