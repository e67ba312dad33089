/* mismatch: ranks disagree on the count of one MPI_Allreduce (rank 0 passes 8
 * MPI_INT, the others 16).  That is erroneous MPI; the library is expected to
 * detect it and return an error on every rank -- not hang, not give a wrong
 * answer.  MPI_ERRORS_RETURN is set on MPI_COMM_WORLD so the error comes back
 * as a return code.  Checks, on every rank:
 *   - the return code is not MPI_SUCCESS;
 *   - MPI_Error_string's text contains "MPI_Allreduce" (printed as a "#" line;
 *     it should also name the disagreeing ranks, e.g. 0 and 1).
 * Then the same for a root (MPI_Bcast), an op and a datatype (MPI_Allreduce)
 * that differ between rank 0 and the others: each text must name what
 * differs.  Then a correct MPI_Allreduce must still work (the library
 * recovered).
 *
 *   mismatch          the real check: NEEDS THE LIBRARY.  Under plain MPICH
 *                     the mismatched call hangs or misbehaves (always run it
 *                     under `timeout`).
 *   mismatch --dry    skips the mismatched call and checks everything else
 *                     (runs under plain mpiexec).
 *
 * Needs >= 2 ranks (with 1 rank there is nothing to disagree with: SKIP).
 * TAP from rank 0 (bookkeeping with PMPI_); exit 0 iff every rank got the
 * error (and, with --dry, iff the rest passed).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "mpi_tap.h"

static int wrank, wsize;

/* One erroneous call: an error on every rank whose text names the
 * collective and what differs. */
static void expect_error(int rc, const char *coll, const char *what, const char *desc)
{
    char es[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, es, &len);
    printf("# rank %d: %s\n", wrank, rc != MPI_SUCCESS ? es : "no error");
    fflush(stdout);
    mpi_tap_ok(rc != MPI_SUCCESS && strstr(es, coll) && strstr(es, what), "%s", desc);
}

/* Root, op and datatype disagreements (count is above). */
static void more_mismatches(int *in, int *out)
{
    expect_error(MPI_Bcast(in, 4, MPI_INT, wrank == 0 ? 0 : 1, MPI_COMM_WORLD), "MPI_Bcast",
                 "root", "MPI_Bcast with root 0 on rank 0 and 1 elsewhere: error naming root");
    expect_error(MPI_Allreduce(in, out, 4, MPI_INT, wrank == 0 ? MPI_SUM : MPI_MAX,
                               MPI_COMM_WORLD),
                 "MPI_Allreduce", "op", "MPI_Allreduce with SUM on rank 0 and MAX elsewhere: "
                 "error naming the op");
    expect_error(MPI_Allreduce(in, out, 4, wrank == 0 ? MPI_INT : MPI_FLOAT, MPI_SUM,
                               MPI_COMM_WORLD),
                 "MPI_Allreduce", "datatype", "MPI_Allreduce of MPI_INT on rank 0 and MPI_FLOAT "
                 "elsewhere: error naming the datatype");
}

int main(int argc, char **argv)
{
    int dry = argc > 1 && !strcmp(argv[1], "--dry");
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    PMPI_Comm_size(MPI_COMM_WORLD, &wsize);
    mpi_tap_ok(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS,
           "MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)");

    int in[16], out[16];
    for (int i = 0; i < 16; i++) in[i] = wrank + i;
    if (wsize < 2) {
        mpi_tap_skip("mismatched counts give an error", "needs 2 ranks");
        mpi_tap_skip("error string names MPI_Allreduce", "needs 2 ranks");
    } else if (dry) {
        mpi_tap_skip("mismatched counts give an error", "--dry (needs the library)");
        mpi_tap_skip("error string names MPI_Allreduce", "--dry (needs the library)");
        /* exercise the error-string path on a real error code */
        char es[MPI_MAX_ERROR_STRING];
        int len = 0;
        int rc = MPI_Error_string(MPI_ERR_COUNT, es, &len);
        mpi_tap_ok(rc == MPI_SUCCESS && len > 0 && (int)strlen(es) == len,
               "--dry: MPI_Error_string works on MPI_ERR_COUNT");
    } else {
        int rc = MPI_Allreduce(in, out, wrank == 0 ? 8 : 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        mpi_tap_ok(rc != MPI_SUCCESS, "MPI_Allreduce with count 8 on rank 0 and 16 elsewhere returns an error on every rank");
        int has = 0;
        if (rc != MPI_SUCCESS) {
            char es[MPI_MAX_ERROR_STRING];
            int len = 0, cls = 0;
            MPI_Error_string(rc, es, &len);
            MPI_Error_class(rc, &cls);
            for (char *p = es; *p; p++)
                if (*p == '\n') *p = ' ';
            printf("# rank %d: error class %d: %s\n", wrank, cls, es);
            fflush(stdout);
            has = strstr(es, "MPI_Allreduce") != NULL;
        }
        mpi_tap_ok(has, "the error string names MPI_Allreduce");
        more_mismatches(in, out);
    }

    /* the communicator still works afterwards */
    for (int i = 0; i < 16; i++) out[i] = -1;
    int rc = MPI_Allreduce(in, out, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int good = rc == MPI_SUCCESS;
    for (int i = 0; i < 16; i++)
        good &= out[i] == wsize * (wsize - 1) / 2 + wsize * i;
    mpi_tap_ok(good, "a matching MPI_Allreduce afterwards gives the right result");

    int status = mpi_tap_finish();
    MPI_Finalize();
    return status;
}
