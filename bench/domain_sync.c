/*
 * What one window's synchronisation costs the domains of a split network
 * (net/domain.h) under mpiexec: the exchange of what crossed the
 * boundaries and the reduction that finds the next event, through the
 * very functions mpifpga-sim's domains use (cli/sim_mpi.c).  A split of
 * collectives would pay it after every active cycle (doc/model.md section
 * 9c), so this is the figure that says whether that is affordable.
 *
 *   mpiexec -n K ./bench/domain_sync [WINDOWS [MESSAGES]]
 *
 * WINDOWS (default 200000) exchanges, each sending MESSAGES (default 2)
 * messages to every other process, then a reduction of four 64-bit values
 * (as traffic.c's windows do).  Rank 0 prints microseconds per window.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli/sim_mpi.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    long windows = argc > 1 ? atol(argv[1]) : 200000, per = argc > 2 ? atol(argv[2]) : 2;
    if (windows < 1 || per < 0) {
        fprintf(stderr, "usage: mpiexec -n K %s [WINDOWS [MESSAGES]]\n", argv[0]);
        return 2;
    }
    if (sim_mpi_env_size() == 1) {
        fprintf(stderr, "domain_sync: run it under mpiexec -n K (K >= 2)\n");
        return 2;
    }
    sim_mpi_start(&argc, &argv);
    mf_dom_ops_t ops;
    if (sim_mpi_domain_ops(&ops))
        return 2;
    int k = ops.ndomains;
    size_t nout = (size_t)(k - 1) * (size_t)per;
    mf_dom_msg_t *out = calloc(nout ? nout : 1, sizeof *out);
    if (!out) {
        fprintf(stderr, "domain_sync: out of memory\n");
        sim_mpi_abort(1);
    }
    for (int d = 0, i = 0; d < k; d++) /* sorted by destination, as domain.c sends */
        for (long j = 0; d != ops.self && j < per; j++)
            out[i++] = (mf_dom_msg_t){.kind = MF_DOM_PKT, .to = (uint32_t)d, .id = (uint32_t)j};
    const int op[4] = {MF_DOM_MIN, MF_DOM_MAX, MF_DOM_SUM, MF_DOM_SUM};
    char err[256];
    double t0 = now_s();
    for (long w = 0; w < windows; w++) {
        mf_dom_msg_t *in = NULL;
        size_t nin = 0;
        uint64_t v[4] = {(uint64_t)w + 110, 0, 1, nout};
        if (ops.exchange(ops.ctx, out, nout, &in, &nin, err, sizeof err) ||
            ops.reduce(ops.ctx, v, op, 4, err, sizeof err)) {
            fprintf(stderr, "domain_sync: %s\n", err);
            sim_mpi_abort(1);
        }
        free(in);
        if (nin != nout || v[2] != (uint64_t)k) {
            fprintf(stderr, "domain_sync: window %ld: %zu messages in, %zu expected\n", w, nin,
                    nout);
            sim_mpi_abort(1);
        }
    }
    double us = (now_s() - t0) / (double)windows * 1e6;
    if (ops.self == 0)
        printf("%d processes, %ld windows, %ld messages to each other process: %.2f us a "
               "window (exchange + reduction)\n", k, windows, per, us);
    free(out);
    sim_mpi_exit(0);
}
