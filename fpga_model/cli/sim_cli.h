/* mpifpga-sim's options and result rows, shared by its files. */
#ifndef MF_SIM_CLI_H
#define MF_SIM_CLI_H

#include <stdint.h>

#include "baseline/loggp.h"
#include "coll/run.h"
#include "mpifpga/model.h"
#include "traffic/traffic.h"

typedef enum { FMT_TABLE, FMT_CSV, FMT_JSON } fmt_t;

typedef struct {
    mf_opcode_t coll;
    int have_coll;
    uint64_t min, max;
    int iters;          /* 0 = OSU defaults */
    const char *topo;
    int nodes, ppn, root;
    mf_op_t op;
    mf_dtype_t dtype;
    const char *params;
    fmt_t fmt;
    int have_traffic;
    mf_traffic_pattern_t pattern;
    double rate;
    uint64_t cycles;
    unsigned pkt_phits;
    int no_fast;
    int baseline;       /* also run MPICH's algorithms on the same fabric */
    const char *host;   /* baseline host parameter set */
    int analytic;       /* print 001 Eqs. 3-6 beside the simulation (Bcast) */
    int loop_osu;       /* --loop osu: OSU's barrier-separated loop, ranks skewed */
    int warmup;         /* -x: --loop osu's untimed iterations per size, as OSU's -x */
    mf_algo_mode_t algo; /* --algorithm paper|tree|auto */
} opts_t;

typedef struct {
    uint64_t bytes;
    mf_coll_timing_t t, bl; /* offload; baseline (--baseline) */
    int iters;
    /* of them, iterations simulated cycle by cycle (the rest repeat one of
     * those exactly: the fast path, coll/iter.c); offload, baseline */
    int simulated, bl_simulated;
    /* --analytic: one call simulated, rank P-1 and the root (rank 0), us */
    double bl_last, is_last, bl_root, is_root;
    mf_loggp_bcast_t eq;
} row_t;

/* A bad argument: one message (from rank 0 under mpiexec), exit 2. */
__attribute__((noreturn, format(printf, 1, 2))) void die2(const char *fmt, ...);

/* sim_split.c: under mpiexec, n's switches split among the processes
 * (1), or not without MPI (0); MPIFPGA_SPLIT for a sweep of npts sizes
 * (1: split the switches of each size's network). */
int sim_split_net(mf_net_t *n);
int sim_split_mode(const opts_t *o, int npts);

/* sim_progress.c: the progress line for size `bytes` of the sweep (0: clear
 * it before the table); sim_progress_watch: n's runs update it. */
void sim_progress(const opts_t *o, uint64_t bytes);
void sim_progress_watch(mf_net_t *n);

/* The sweep's rows as table, csv or json on stdout. */
void print_rows(const opts_t *o, const mf_net_t *n, const row_t *rows, int nrows);

#endif
