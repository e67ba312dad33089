/* callsites: known collective call sites, for checking per-call-site
 * attribution (MPIFPGA_INSTANCES / MPIFPGA_PROFILE).
 *
 * Expected instances, per rank, all on MPI_COMM_WORLD:
 *
 *   function     collective      calls  bytes per call
 *   site_a       MPI_Allreduce       7    64  (8 MPI_DOUBLE, MPI_SUM)
 *   site_b       MPI_Allreduce       3   400  (100 MPI_INT, MPI_MAX)
 *   site_bcast   MPI_Bcast           5    16  (16 MPI_BYTE, root 0)
 *
 * Each collective appears exactly once in the source, inside its own
 * noinline function, so a call site maps to one function.  Nothing else goes
 * through the MPI_ collectives: the pass/fail verdict is combined with
 * PMPI_Allreduce, which the library neither intercepts nor counts.
 *
 * Plain MPI; runs at any number of ranks.  Exit status 0 and one line
 * "callsites ok" from rank 0 iff every result is right on every rank; on
 * error a message on stderr from the failing rank and exit status 1.
 */
#include <mpi.h>
#include <stdio.h>

#define A_CALLS 7
#define A_COUNT 8
#define B_CALLS 3
#define B_COUNT 100
#define BCAST_CALLS 5
#define BCAST_BYTES 16

static int rank, nranks;

static int fail(const char *what, int call, int index)
{
    fprintf(stderr, "callsites: rank %d: %s wrong (call %d, element %d)\n",
            rank, what, call, index);
    return 0;
}

/* Allreduce SUM of 8 doubles.  Inputs are small integers, so the sum is
 * exact in any order: element i on rank r is (r + 1) * (i + 1) + call. */
__attribute__((noinline)) static int site_a(int call)
{
    double in[A_COUNT], out[A_COUNT];
    for (int i = 0; i < A_COUNT; i++)
        in[i] = (double)((rank + 1) * (i + 1) + call);
    if (MPI_Allreduce(in, out, A_COUNT, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        return fail("site_a return code", call, -1);
    for (int i = 0; i < A_COUNT; i++) {
        /* sum over r of (r + 1) * (i + 1) + call */
        double expect = (double)((i + 1) * nranks * (nranks + 1) / 2 +
                                 call * nranks);
        if (out[i] != expect)
            return fail("site_a result", call, i);
    }
    return 1;
}

/* Allreduce MAX of 100 ints: element i on rank r is ((r + i) mod nranks) *
 * 1000 + i - call, so the maximum is (nranks - 1) * 1000 + i - call, reached
 * on a different rank for each i. */
__attribute__((noinline)) static int site_b(int call)
{
    int in[B_COUNT], out[B_COUNT];
    for (int i = 0; i < B_COUNT; i++)
        in[i] = ((rank + i) % nranks) * 1000 + i - call;
    if (MPI_Allreduce(in, out, B_COUNT, MPI_INT, MPI_MAX, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        return fail("site_b return code", call, -1);
    for (int i = 0; i < B_COUNT; i++)
        if (out[i] != (nranks - 1) * 1000 + i - call)
            return fail("site_b result", call, i);
    return 1;
}

/* Bcast of 16 bytes from rank 0; the content depends on the call. */
__attribute__((noinline)) static int site_bcast(int call)
{
    unsigned char buf[BCAST_BYTES];
    for (int i = 0; i < BCAST_BYTES; i++)
        buf[i] = rank == 0 ? (unsigned char)(17 * call + i) : 0xEE;
    if (MPI_Bcast(buf, BCAST_BYTES, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        return fail("site_bcast return code", call, -1);
    for (int i = 0; i < BCAST_BYTES; i++)
        if (buf[i] != (unsigned char)(17 * call + i))
            return fail("site_bcast result", call, i);
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &nranks);

    int good = 1;
    for (int k = 0; k < A_CALLS; k++)
        good &= site_a(k);
    for (int k = 0; k < B_CALLS; k++)
        good &= site_b(k);
    for (int k = 0; k < BCAST_CALLS; k++)
        good &= site_bcast(k);

    int all = 0;
    if (PMPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        all = 0;
    if (all && rank == 0)
        printf("callsites ok\n");
    fflush(stdout);
    MPI_Finalize();
    return all ? 0 : 1;
}
