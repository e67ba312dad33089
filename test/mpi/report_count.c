/* report_count: a known number of calls, for checking the library's report
 * counts (test/mpi_report.sh, at -n 2):
 *   10 x MPI_Allreduce of 4 MPI_INT (SUM) on MPI_COMM_WORLD  (16 bytes each)
 *    3 x MPI_Bcast of 100 bytes (MPI_BYTE) from rank 0
 *    1 x MPI_Barrier
 * Nothing else goes through MPI_ collectives (checks use plain C).
 * Exit 0 iff the results are right; prints TAP from rank 0.
 */
#include <mpi.h>
#include <stdio.h>

#include "mpi_tap.h"

int main(int argc, char **argv)
{
    int rank, size, good = 1;
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int k = 0; k < 10; k++) {
        int in[4], out[4];
        for (int i = 0; i < 4; i++) in[i] = (rank + 1) * (i + k);
        MPI_Allreduce(in, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < 4; i++)
            good &= out[i] == (i + k) * size * (size + 1) / 2;
    }
    for (int k = 0; k < 3; k++) {
        unsigned char b[100];
        for (int i = 0; i < 100; i++) b[i] = rank == 0 ? (unsigned char)(i * 7 + k) : 0;
        MPI_Bcast(b, 100, MPI_BYTE, 0, MPI_COMM_WORLD);
        for (int i = 0; i < 100; i++)
            good &= b[i] == (unsigned char)(i * 7 + k);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    mpi_tap_ok(good, "10 Allreduce, 3 Bcast, 1 Barrier give the right results");
    int status = mpi_tap_finish();
    MPI_Finalize();
    return status;
}
