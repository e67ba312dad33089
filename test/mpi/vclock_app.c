/*
 * vclock_app: an application-like loop for the one-clock test
 * (test/mpi_osu_loop.sh): ITERS x { fixed computation; MPI_Allreduce }.
 * Prints, on rank 0:
 *   total_us      the modeled time of the whole loop (MPI_Wtime, slowest rank);
 *   allreduce_us  the part spent in the allreduces (mean over ranks);
 *   compute_us    the loop's computation on the critical path, as the rank
 *                 itself measures it: per iteration the most thread CPU time
 *                 any rank spent between two allreduces, summed;
 *   network_us    total_us - compute_us: what the model added.
 * Under MPIFPGA_MODELED_TIME=1 the clock between calls is the thread's CPU
 * time, so compute_us is the host's speed on this work (a virtual machine
 * without steal accounting charges time its vCPU was preempted to whichever
 * thread ran), and network_us must not depend on how many cores the ranks
 * share.  The per-rank measurements are combined with PMPI calls after the
 * loop, so they are neither intercepted nor inside the timed part.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "thread_cpu.h"

/* About 100 us of arithmetic on this machine; the same work on any core. */
static double compute(int n)
{
    volatile double x = 1.0;
    for (int i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 50;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *cpu = calloc((size_t)iters, sizeof *cpu);
    double *cpu_max = calloc((size_t)iters, sizeof *cpu_max);
    if (!cpu || !cpu_max) {
        fprintf(stderr, "vclock_app: out of memory for %d iterations\n", iters);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double in = rank, out, in_coll = 0, sink = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    double left = thread_cpu_s(); /* when this rank left the last MPI call */
    for (int i = 0; i < iters; i++) {
        sink += compute(100000);
        double a = MPI_Wtime();
        cpu[i] = thread_cpu_s() - left;
        MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        left = thread_cpu_s();
        in_coll += MPI_Wtime() - a;
    }
    double total = MPI_Wtime() - t0, tmax, cmean, crit = 0;
    PMPI_Reduce(&total, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&in_coll, &cmean, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(cpu, cpu_max, iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    for (int i = 0; i < iters; i++)
        crit += cpu_max[i];
    if (rank == 0)
        printf("total_us %.3f allreduce_us %.3f compute_us %.3f network_us %.3f sink %g\n",
               tmax * 1e6, cmean / size / iters * 1e6, crit * 1e6, (tmax - crit) * 1e6,
               sink > 0 ? 1.0 : 0.0);
    free(cpu);
    free(cpu_max);
    MPI_Finalize();
    return 0;
}
