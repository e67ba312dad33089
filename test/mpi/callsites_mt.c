/*
 * Call sites under MPI_THREAD_MULTIPLE: two threads of each rank call
 * MPI_Allreduce at once, each on its own duplicate of MPI_COMM_WORLD, from
 * two call sites.  Offload is off with threads (reason "threads"), but the
 * calls are still recorded per call site.  Expected instances:
 *   thread_a  allreduce  9 calls  8 bytes (2 MPI_INT, MPI_SUM)
 *   thread_b  allreduce  4 calls  8 bytes (1 MPI_DOUBLE, MPI_MAX)
 * Prints "callsites_mt ok" on rank 0; exit 1 on a wrong result.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static MPI_Comm comm_a, comm_b;
static int nprocs, bad_a, bad_b;

static void *thread_a(void *arg)
{
    (void)arg;
    for (int i = 0; i < 9; i++) {
        int x[2] = {1, i}, y[2] = {0, 0};
        MPI_Allreduce(x, y, 2, MPI_INT, MPI_SUM, comm_a);
        bad_a |= y[0] != nprocs || y[1] != i * nprocs;
    }
    return NULL;
}

static void *thread_b(void *arg)
{
    int rank = *(const int *)arg;
    for (int i = 0; i < 4; i++) {
        double x = rank + i, y = -1;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, comm_b);
        bad_b |= y != nprocs - 1 + i;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, bad, any_bad = 1;
    pthread_t a, b;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "callsites_mt: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_a);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_b);
    if (pthread_create(&a, NULL, thread_a, NULL) || pthread_create(&b, NULL, thread_b, &rank)) {
        fprintf(stderr, "callsites_mt: pthread_create failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    bad = bad_a || bad_b;
    PMPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD); /* not an instance */
    if (bad)
        fprintf(stderr, "callsites_mt: rank %d: wrong result (a %d, b %d)\n", rank, bad_a, bad_b);
    else if (rank == 0 && !any_bad)
        printf("callsites_mt ok\n");
    MPI_Comm_free(&comm_a);
    MPI_Comm_free(&comm_b);
    MPI_Finalize();
    return any_bad;
}
