/*
 * offload_wall: wall-clock time per call of an MPI collective loop, run
 * through mpifpga-run (offloaded to the engine) or with --baseline (plain
 * MPICH), to check that waiting ranks do not spin (issue 4: 8 ranks on a
 * 2-core machine, 8-byte MPI_Allreduce well under 1 ms per call).
 *
 *   mpifpga-run [--baseline] -n 8 bench/offload_wall [-b BYTES] [-i ITERS] [-c allreduce|bcast|barrier]
 *
 * Prints one line from rank 0: collective, bytes, iterations, us per call
 * (mean over the timed loop after 10 warm-up calls), and the process CPU
 * time per call of rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static void one(const char *c, char *a, char *b, int bytes)
{
    if (!strcmp(c, "bcast"))
        MPI_Bcast(a, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(c, "barrier"))
        MPI_Barrier(MPI_COMM_WORLD);
    else
        MPI_Allreduce(a, b, bytes / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int bytes = 8, iters = 1000, rank, size, opt;
    const char *coll = "allreduce";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((opt = getopt(argc, argv, "b:i:c:")) != -1) {
        if (opt == 'b')
            bytes = atoi(optarg);
        else if (opt == 'i')
            iters = atoi(optarg);
        else if (opt == 'c')
            coll = optarg;
    }
    if (bytes < 8 || iters < 1) {
        if (rank == 0)
            fprintf(stderr, "offload_wall: -b BYTES >= 8, -i ITERS >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *a = calloc((size_t)bytes, 1), *b = calloc((size_t)bytes, 1);
    for (int i = 0; i < 10; i++)
        one(coll, a, b, bytes);
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), c0 = cpu_s();
    for (int i = 0; i < iters; i++)
        one(coll, a, b, bytes);
    double t = MPI_Wtime() - t0, c = cpu_s() - c0;
    if (rank == 0)
        printf("%s ranks=%d bytes=%d iters=%d  %.1f us/call wall, %.1f us/call cpu (rank 0)\n",
               coll, size, bytes, iters, t / iters * 1e6, c / iters * 1e6);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
