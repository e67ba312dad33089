/* ct_exhaust: more live communicators than the switch's 32 communicator-table
 * (CT) slots.  40 MPI_Comm_dup(MPI_COMM_WORLD), an MPI_Allreduce (MPI_INT,
 * MPI_SUM, exact) on each while all are alive, then all freed; then 5 new
 * dups must work too (freed slots are reused).  The calls that find no free
 * slot fall back (the report counts them as fallback.ct_full; checked by
 * test/mpi_ct.sh, e.g. with MPIFPGA_CT_SLOTS=2).
 *
 * Plain MPI; bookkeeping with PMPI_.  TAP from rank 0; exit 0 iff all passed.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "mpi_tap.h"

#define NLIVE 40
#define NAGAIN 5
#define N 16

static int wrank, wsize;

/* Allreduce on comm, checked against the known sum; 1 if right */
static int check_allreduce(MPI_Comm comm, int salt)
{
    int in[N], out[N];
    for (int i = 0; i < N; i++) {
        in[i] = (wrank + 1) * (i + salt);
        out[i] = -1;
    }
    if (MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, comm) != MPI_SUCCESS)
        return 0;
    for (int i = 0; i < N; i++)
        if (out[i] != (i + salt) * wsize * (wsize + 1) / 2) {
            fprintf(stderr, "ct_exhaust: rank %d comm %d element %d: got %d, expected %d\n",
                    wrank, salt, i, out[i], (i + salt) * wsize * (wsize + 1) / 2);
            return 0;
        }
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Comm c[NLIVE];
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    PMPI_Comm_size(MPI_COMM_WORLD, &wsize);

    int good = 1;
    for (int k = 0; k < NLIVE; k++) {
        good &= MPI_Comm_dup(MPI_COMM_WORLD, &c[k]) == MPI_SUCCESS;
        MPI_Comm_set_errhandler(c[k], MPI_ERRORS_RETURN);
    }
    mpi_tap_ok(good, "%d MPI_Comm_dup of MPI_COMM_WORLD, all alive", NLIVE);
    for (int k = 0; k < NLIVE; k++)
        mpi_tap_ok(check_allreduce(c[k], k), "MPI_Allreduce MPI_INT SUM on live dup %d", k);
    /* once more in reverse order: communicators that got a slot keep it */
    good = 1;
    for (int k = NLIVE - 1; k >= 0; k--)
        good &= check_allreduce(c[k], 100 + k);
    mpi_tap_ok(good, "second round of MPI_Allreduce on all %d dups, reverse order", NLIVE);
    good = 1;
    for (int k = 0; k < NLIVE; k++)
        good &= MPI_Comm_free(&c[k]) == MPI_SUCCESS && c[k] == MPI_COMM_NULL;
    mpi_tap_ok(good, "all %d dups freed", NLIVE);

    for (int k = 0; k < NAGAIN; k++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &c[k]);
        MPI_Comm_set_errhandler(c[k], MPI_ERRORS_RETURN);
    }
    for (int k = 0; k < NAGAIN; k++)
        mpi_tap_ok(check_allreduce(c[k], 1000 + k), "after freeing: MPI_Allreduce on new dup %d", k);
    for (int k = 0; k < NAGAIN; k++)
        MPI_Comm_free(&c[k]);
    mpi_tap_ok(check_allreduce(MPI_COMM_WORLD, 7), "MPI_Allreduce on MPI_COMM_WORLD at the end");

    int status = mpi_tap_finish();
    MPI_Finalize();
    return status;
}
