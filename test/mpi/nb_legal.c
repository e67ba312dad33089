/*
 * Legal programs that hang if a nonblocking collective's start waits for
 * the other members, or if the engine stalls on a rank that is not
 * reading (src/intercept/nb_op.h).  Run at -n >= 3 under a timeout; each
 * case checks its results against closed forms.
 *
 *   nb_legal   all cases; exit 0 iff every check held
 *
 * 1. dependency: rank 0 starts an Ibarrier and an Iallreduce, then sends
 *    to rank 1, which receives before it starts them.
 * 2. a rank that does not read: rank 0 starts two 2 MiB Iallreduces (the
 *    second's result comes back in messages, not the shared buffer) and
 *    blocks in MPI_Recv; the others complete theirs, run a 1 MiB blocking
 *    Allreduce among themselves -- which needs the engine while rank 0's
 *    results wait for it -- and only then rank 1 sends to rank 0.
 * 3. many outstanding: 64 Iallreduces and 64 Ibcasts on two communicators,
 *    completed by Waitsome / Testany / Waitall.
 * 4. freeing a communicator with a call outstanding on it, then waiting.
 * 5. a mixed Waitany over point-to-point and collective requests.
 * 6. a persistent Allgather into a strided (derived) receive type, started
 *    three times (plain MPICH 4.0.x asserts in mpidu_sched.c on a derived
 *    type's reference count here; the offloaded call must not).
 * 7. the MPI-4 large-count forms MPI_I*_c, all eight at once.
 * 8. MPI_Iscan, MPI_Iexscan, MPI_Ialltoall and their persistent forms.
 * 9. polling MPI_Request_get_status until the call is complete.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_tap.h"

static int rank, size;

static void dependency(void)
{
    MPI_Request r[2];
    int x = rank + 1, sum = 0, token = 0, good = 1;
    if (rank == 0) {
        MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
        MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
        token = 42;
        MPI_Send(&token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else {
        if (rank == 1)
            MPI_Recv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
        MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
    }
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    good = sum == size * (size + 1) / 2 && (rank != 1 || token == 42);
    mpi_tap_ok(good, "a start does not wait: rank 0 sends after starting, rank 1 starts after "
               "receiving (sum %d)", sum);
}

static void not_reading(void)
{
    const int n = 2 << 20 >> 3, m = 1 << 20 >> 3;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    double *ra = malloc(n * sizeof *ra), *rb = malloc(n * sizeof *rb);
    double *c = malloc(m * sizeof *c), *rc = malloc(m * sizeof *rc);
    MPI_Request r[2];
    MPI_Comm others;
    int token = 0, good = 1;
    for (int i = 0; i < n; i++)
        a[i] = rank + i, b[i] = 2.0 * rank - i;
    for (int i = 0; i < m; i++)
        c[i] = rank;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0, rank, &others);
    MPI_Iallreduce(a, ra, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Iallreduce(b, rb, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[1]);
    if (rank == 0) {
        MPI_Recv(&token, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    } else {
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        MPI_Allreduce(c, rc, m, MPI_DOUBLE, MPI_SUM, others);
        for (int i = 0; i < m; i++)
            good &= rc[i] == (double)size * (size - 1) / 2;
        if (rank == 1)
            MPI_Send(&size, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
    }
    double s = (double)size * (size - 1) / 2;
    for (int i = 0; i < n; i++)
        good &= ra[i] == s + (double)size * i && rb[i] == 2 * s - (double)size * i;
    good &= rank != 0 || token == size;
    mpi_tap_ok(good, "the engine serves the others while rank 0 does not read its 2 x 2 MiB "
               "of results");
    MPI_Comm_free(&others);
    free(a), free(b), free(ra), free(rb), free(c), free(rc);
}

#define MANY 64
static void many(void)
{
    static int in[MANY], out[MANY], bc[MANY];
    MPI_Request r[2 * MANY];
    MPI_Comm dup;
    int good = 1, done = 0, outcount, idx[2 * MANY];
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int k = 0; k < MANY; k++) {
        in[k] = rank * k;
        bc[k] = rank == k % size ? 1000 + k : -1;
        MPI_Iallreduce(&in[k], &out[k], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[k]);
        MPI_Ibcast(&bc[k], 1, MPI_INT, k % size, dup, &r[MANY + k]);
    }
    while (done < MANY) { /* half of them by Waitsome */
        MPI_Waitsome(2 * MANY, r, &outcount, idx, MPI_STATUSES_IGNORE);
        good &= outcount > 0 && outcount != MPI_UNDEFINED;
        done += outcount > 0 ? outcount : MANY;
    }
    for (int flag = 1, index; flag;) { /* some by Testany */
        MPI_Testany(2 * MANY, r, &index, &flag, MPI_STATUS_IGNORE);
        flag = flag && index != MPI_UNDEFINED;
    }
    MPI_Waitall(2 * MANY, r, MPI_STATUSES_IGNORE);
    for (int k = 0; k < 2 * MANY; k++)
        good &= r[k] == MPI_REQUEST_NULL;
    for (int k = 0; k < MANY; k++)
        good &= out[k] == k * size * (size - 1) / 2 && bc[k] == 1000 + k;
    mpi_tap_ok(good, "%d calls outstanding at once on two communicators, completed by "
               "Waitsome, Testany and Waitall", 2 * MANY);
    MPI_Comm_free(&dup);
}

static void free_outstanding(void)
{
    MPI_Comm dup;
    MPI_Request r;
    int x = 1, sum = 0;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, dup, &r);
    MPI_Comm_free(&dup); /* MPI-4.0 sec. 7.4.3: the call completes normally */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    mpi_tap_ok(sum == size, "a communicator freed with a call outstanding (sum %d)", sum);
}

static void mixed_waitany(void)
{
    MPI_Request r[3];
    int x = rank, sum = -1, from = -1, to = rank, left = 3, good = 1, index;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Irecv(&from, 1, MPI_INT, prev, 3, MPI_COMM_WORLD, &r[0]);
    MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(&to, 1, MPI_INT, next, 3, MPI_COMM_WORLD, &r[2]);
    while (left) {
        MPI_Waitany(3, r, &index, MPI_STATUS_IGNORE);
        good &= index >= 0 && index < 3 && r[index] == MPI_REQUEST_NULL;
        left--;
    }
    MPI_Waitany(3, r, &index, MPI_STATUS_IGNORE);
    good &= index == MPI_UNDEFINED;
    good &= from == prev && sum == size * (size - 1) / 2;
    mpi_tap_ok(good, "Waitany over Irecv, Iallreduce and Isend");
}

static void persistent_freed_type(void)
{
    enum { K = 8 };
    int mine[K], *all = malloc((size_t)size * K * 2 * sizeof *all), good = 1;
    MPI_Datatype strided, every_other;
    MPI_Request r;
    MPI_Type_vector(K, 1, 2, MPI_INT, &strided); /* K ints, stride 2 */
    MPI_Type_create_resized(strided, 0, (MPI_Aint)(2 * K * sizeof(int)), &every_other);
    MPI_Type_commit(&every_other);
    MPI_Allgather_init(mine, K, MPI_INT, all, 1, every_other, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    for (int it = 0; it < 3; it++) {
        for (int i = 0; i < K; i++)
            mine[i] = rank * 100 + i + it;
        for (int i = 0; i < size * K * 2; i++)
            all[i] = -1;
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (int q = 0; q < size; q++)
            for (int i = 0; i < K; i++)
                good &= all[q * 2 * K + 2 * i] == q * 100 + i + it &&
                        all[q * 2 * K + 2 * i + 1] == -1;
    }
    MPI_Request_free(&r);
    MPI_Type_free(&every_other); /* not before: MPICH 4.0 asserts on a type freed under a
                                    persistent collective request */
    MPI_Type_free(&strided);
    free(all);
    mpi_tap_ok(good, "a persistent Allgather into a derived (strided) type, 3 starts");
}

static void large_count(void)
{
    int x = rank + 1, ar = 0, red = 0, bc = rank ? -1 : 77, sc = -1, good = 1;
    int *ag = malloc((size_t)size * sizeof *ag), *ga = malloc((size_t)size * sizeof *ga);
    int *in = malloc((size_t)size * sizeof *in), rs = 0, rsb = 0;
    MPI_Count *counts = malloc((size_t)size * sizeof *counts);
    MPI_Request r[8];
    for (int i = 0; i < size; i++)
        in[i] = rank * i, counts[i] = 1;
    MPI_Iallreduce_c(&x, &ar, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Ireduce_c(&x, &red, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Ibcast_c(&bc, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[2]);
    MPI_Iscatter_c(in, 1, MPI_INT, &sc, 1, MPI_INT, 1, MPI_COMM_WORLD, &r[3]);
    MPI_Igather_c(&x, 1, MPI_INT, ga, 1, MPI_INT, 2, MPI_COMM_WORLD, &r[4]);
    MPI_Iallgather_c(&x, 1, MPI_INT, ag, 1, MPI_INT, MPI_COMM_WORLD, &r[5]);
    MPI_Ireduce_scatter_c(in, &rs, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[6]);
    MPI_Ireduce_scatter_block_c(in, &rsb, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[7]);
    MPI_Waitall(8, r, MPI_STATUSES_IGNORE);
    int tri = size * (size - 1) / 2;
    good = ar == size * (size + 1) / 2 && (rank || red == size) && bc == 77 && sc == rank &&
           rs == tri * rank && rsb == tri * rank;
    for (int i = 0; i < size; i++)
        good &= ag[i] == i + 1 && (rank != 2 || ga[i] == i + 1);
    mpi_tap_ok(good, "the eight MPI_I*_c large-count forms");
    free(ag), free(ga), free(in), free(counts);
}

static void scans_alltoall(void)
{
    int x = rank + 1, sc = 0, ex = -1, psc = 0, good = 1;
    int *to = malloc((size_t)size * sizeof *to), *from = malloc((size_t)size * sizeof *from);
    int *pfrom = malloc((size_t)size * sizeof *pfrom);
    MPI_Request r[3], p[2];
    for (int i = 0; i < size; i++)
        to[i] = rank * 100 + i;
    MPI_Iscan(&x, &sc, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Iexscan(&x, &ex, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
    MPI_Ialltoall(to, 1, MPI_INT, from, 1, MPI_INT, MPI_COMM_WORLD, &r[2]);
    MPI_Scan_init(&x, &psc, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &p[0]);
    MPI_Alltoall_init(to, 1, MPI_INT, pfrom, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &p[1]);
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
    for (int it = 0; it < 2; it++) {
        MPI_Startall(2, p);
        MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
    }
    good = sc == (rank + 1) * (rank + 2) / 2 && psc == sc && (rank == 0 || ex == rank * (rank + 1) / 2);
    for (int i = 0; i < size; i++)
        good &= from[i] == i * 100 + rank && pfrom[i] == from[i];
    mpi_tap_ok(good, "MPI_Iscan, MPI_Iexscan, MPI_Ialltoall, MPI_Scan_init, MPI_Alltoall_init");
    MPI_Request_free(&p[0]);
    MPI_Request_free(&p[1]);
    free(to), free(from), free(pfrom);
}

static void get_status(void)
{
    int x = 2, sum = 0, flag = 0, polls = 0;
    MPI_Request r;
    MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    while (!flag && polls < 10000000) {
        MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
        polls++;
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    mpi_tap_ok(flag && sum == 2 * size && r == MPI_REQUEST_NULL,
               "MPI_Request_get_status reports the call complete (%d polls)", polls);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 3) {
        if (rank == 0)
            fprintf(stderr, "nb_legal needs at least 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    dependency();
    not_reading();
    many();
    free_outstanding();
    mixed_waitany();
    persistent_freed_type();
    large_count();
    scans_alltoall();
    get_status();
    int rc = mpi_tap_finish();
    MPI_Finalize();
    return rc;
}
