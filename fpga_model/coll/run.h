/*
 * Driving collectives through the model without MPI processes: set up a
 * communicator's CT rows the way the host side does (CT-config packets built
 * with mf_ct_entry_build), post one collective on every member, run, and
 * collect per-rank latencies.  Used by mpifpga-sim, the tests and the
 * benchmarks.
 */
#ifndef MF_COLL_RUN_H
#define MF_COLL_RUN_H

#include <stdint.h>
#include "mpifpga/ct.h"
#include "mpifpga/model.h"

typedef struct {
    mf_opcode_t opc;
    mf_op_t op;
    mf_dtype_t dtype;
    int root;          /* comm rank */
    int ctx;           /* CT row */
    uint64_t bytes;    /* OSU message size of this collective (see osu_hdr_size) */
    const uint32_t *counts; /* reduce_scatter per-rank bytes, NULL = uniform */
    mf_algo_mode_t algo;    /* the paper's algorithms (0), streaming trees, or auto */
} mf_coll_spec_t;

typedef struct {
    double avg_us, min_us, max_us; /* over ranks of (complete - post) */
    uint64_t max_cycles;           /* slowest rank, cycles */
    uint64_t end;                  /* cycle the last rank completed */
} mf_coll_timing_t;

/* Processor-header size for an OSU message size (doc/protocol.md):
 * reduce_scatter: size / P rounded down to elements; barrier: 0; others as is. */
uint64_t mf_osu_hdr_size(mf_opcode_t opc, uint64_t osu_bytes, int comm_size, size_t esize);

/* Members[i] is the global rank of comm rank i. */
int mf_comm_setup(mf_net_t *n, int ctx, int size, const int *members, char *err, size_t len);

/* Post on all members at cycle `at`, run to completion.  send/recv may be
 * NULL (timing only, no payload).  lat_cycles[i] (optional) gets comm rank
 * i's latency. */
int mf_coll_once(mf_net_t *n, const mf_coll_spec_t *c, int size, const int *members,
                 mf_buf_t *send, mf_buf_t *recv, uint64_t at, uint64_t *lat_cycles,
                 mf_coll_timing_t *t, char *err, size_t len);

/* OSU 7.x's timing loop as its collective benchmarks run it (e.g.
 * osu_allreduce.c): one MPI_Barrier, then `skip` + `iters` iterations of
 * { t_start = MPI_Wtime(); collective; t_stop = MPI_Wtime(); MPI_Barrier },
 * each rank entering each call as late after the others as it left the
 * previous one (no host time in between, as under MPIFPGA_MODELED_TIME=
 * none), so barrier exit skew reaches the collective as on a real machine.
 * As the engine behind the plugin does (fpga_model/server/session.c), a
 * call enters the model once every member has made it, at cycles as far
 * apart as the members' clocks, the earliest at the model's current cycle:
 * consecutive calls on one communicator never overlap in the model.  Each rank's
 * figure is its mean of t_stop - t_start over the last `iters` iterations;
 * t gets their mean (OSU's "Avg Latency"), min and max over ranks.  The
 * barrier runs in the model too, on the collective's CT row. */
int mf_coll_loop_osu(mf_net_t *n, const mf_coll_spec_t *c, int size, const int *members,
                     int iters, int skip, mf_coll_timing_t *t, char *err, size_t len);

/* Fold one rank's latency (us) into t's spread over ranks and *sum. */
void mf_coll_timing_add(mf_coll_timing_t *t, double us, double *sum);
/* Per-rank latencies (complete[i] - at, into lat_cycles if given) and their
 * spread over ranks, for one call that all members entered at `at`. */
void mf_coll_timing_fill(const mf_net_t *n, uint64_t at, const uint64_t *complete, int size,
                         uint64_t *lat_cycles, mf_coll_timing_t *t);

/* OSU-style timing loop: `iters` back-to-back calls, each started when the
 * previous one ended on every rank (coll/iter.c).  With no link jitter, an
 * iteration that starts as an earlier one did -- the same switch
 * allocators' pointers, or pointers that decided nothing, at the same
 * phase of the clock-driven parts (mf_net_shift_period) -- repeats it and
 * every one after it, so the rest are added up, not simulated (fast path;
 * test_coll checks it gives the full simulation's figures).  *simulated
 * gets the number of iterations really run. */
int mf_coll_loop(mf_net_t *n, const mf_coll_spec_t *c, int size, const int *members, int iters,
                 int fast, mf_coll_timing_t *t, int *simulated, char *err, size_t len);

/* The loop behind mf_coll_loop, for any way of running one iteration
 * (the offload here, the baseline in baseline/baseline.c): `once` runs one
 * collective with every member entering at `at`, filling per-rank latencies
 * and the timing (its `end` is when the last rank completed). */
typedef int (*mf_once_fn)(void *ctx, uint64_t at, uint64_t *lat_cycles, mf_coll_timing_t *t,
                          char *err, size_t len);
int mf_iter_loop(mf_net_t *n, int size, int iters, int fast, mf_once_fn once, void *ctx,
                 mf_coll_timing_t *t, int *simulated, char *err, size_t len);

#endif
