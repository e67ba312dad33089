/*
 * A job to end badly (test/mpi_endings.sh):
 *   endings abort R   rank R calls MPI_Abort(MPI_COMM_WORLD, 3) after one
 *                     offloaded allreduce; the others wait in a barrier
 *   endings loop      every rank loops on offloaded allreduces until it is
 *                     killed (the driver kills a rank, the engine or the
 *                     launcher); each first prints "rank R looping", after
 *                     MPI_Init and one offloaded call
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int me;
    double x = 1, y = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (argc > 2 && !strcmp(argv[1], "abort") && me == atoi(argv[2]))
        MPI_Abort(MPI_COMM_WORLD, 3);
    if (argc > 1 && !strcmp(argv[1], "loop")) {
        /* the driver acts only once both ranks got here (connected) */
        printf("rank %d looping\n", me);
        fflush(stdout);
        for (;;) {
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            usleep(5000);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
