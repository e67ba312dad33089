/* fallback_loop N: N MPI_Allreduce calls of 128 doubles on MPI_COMM_WORLD
 * (for bench/fallback_overhead.sh, which runs it with offload disabled). */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    double a[128] = {0}, b[128];
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 10000;
    for (int i = 0; i < n; i++)
        MPI_Allreduce(a, b, 128, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
