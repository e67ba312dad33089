/*
 * vclock_app: an application-like loop for the one-clock test
 * (test/mpi_osu_loop.sh): ITERS x { fixed computation; MPI_Allreduce }.
 * Prints, on rank 0, the modeled time of the whole loop (MPI_Wtime,
 * slowest rank) and the part spent in the allreduces (mean over ranks).
 * Under MPIFPGA_MODELED_TIME=1 both must not depend on how many cores the
 * ranks share.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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
    double in = rank, out, in_coll = 0, sink = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        sink += compute(100000);
        double a = MPI_Wtime();
        MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        in_coll += MPI_Wtime() - a;
    }
    double total = MPI_Wtime() - t0, tmax, cmean;
    PMPI_Reduce(&total, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&in_coll, &cmean, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("total_us %.3f allreduce_us %.3f sink %g\n", tmax * 1e6,
               cmean / size / iters * 1e6, sink > 0 ? 1.0 : 0.0);
    MPI_Finalize();
    return 0;
}
