/*
 * faults: the switch engine dies in the middle of a job.
 *
 *   faults kill    rank 0 kills the engine (MPIFPGA_ENGINE_PID, set by
 *                  mpifpga-run) after 5 good MPI_Allreduce calls; the next
 *                  MPI_Allreduce must return an error on every rank (the
 *                  communicator's handler is MPI_ERRORS_RETURN) within a
 *                  few seconds, its text saying the engine exited.
 *   faults plain   5 MPI_Allreduce calls that must succeed (used with an
 *                  unreachable engine address: they fall back to MPI).
 *
 * Prints TAP from rank 0; exit 0 iff every check held on every rank.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "mpi_tap.h"

static int good_allreduces(int n)
{
    int rank, size, good = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int k = 0; k < n; k++) {
        int in = rank + k, out = -1;
        good &= MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS;
        good &= out == size * (size - 1) / 2 + size * k;
    }
    return good;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mpi_tap_ok(good_allreduces(5), "5 MPI_Allreduce give the right sum");
    if (argc > 1 && !strcmp(argv[1], "kill")) {
        const char *pid = getenv("MPIFPGA_ENGINE_PID");
        mpi_tap_ok(pid != NULL, "MPIFPGA_ENGINE_PID is set by mpifpga-run");
        if (rank == 0 && pid)
            kill((pid_t)atoi(pid), SIGKILL);
        PMPI_Barrier(MPI_COMM_WORLD);
        int in = 1, out = 0, len = 0;
        double t0 = MPI_Wtime();
        int rc = MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        double waited = MPI_Wtime() - t0;
        char msg[MPI_MAX_ERROR_STRING] = "";
        if (rc != MPI_SUCCESS)
            MPI_Error_string(rc, msg, &len);
        printf("# rank %d: after %.1f s: %s\n", rank, waited, rc ? msg : "no error");
        mpi_tap_ok(rc != MPI_SUCCESS, "MPI_Allreduce after the engine died returns an error");
        mpi_tap_ok(strstr(msg, "engine") && strstr(msg, "exited"), "the error says the engine exited");
        mpi_tap_ok(waited < 10, "the error comes within 10 s");
    }
    int status = mpi_tap_finish();
    MPI_Finalize();
    return status;
}
