/* callsites_long: call sites that are hard to name (test/mpi_instances.sh).
 *
 *   a function whose name is 90 characters long: 2 MPI_Allreduce calls of
 *   one int, written over six lines (the report names it whole, not cut
 *   at 63 characters, on the line where the call starts);
 *   inlined_sum, always inlined into outer_caller: 3 MPI_Allreduce calls of
 *   two doubles (the report names the innermost frame, inlined_sum, on the
 *   line of its MPI_Allreduce, and says inlined_in outer_caller).
 *
 * Plain MPI, any rank count.  Exit 0 and "callsites_long ok" from rank 0
 * iff every result is right; the verdict is combined with PMPI_Allreduce.
 */
#include <mpi.h>
#include <stdio.h>

static int nranks;

__attribute__((noinline)) static int
a_call_site_function_whose_name_is_much_longer_than_sixty_three_characters_to_test_naming(int v)
{
    int out = 0;
    int rc = MPI_Allreduce(&v,
                           &out,
                           1,
                           MPI_INT,
                           MPI_SUM,
                           MPI_COMM_WORLD);  /* a call over six lines */
    if (rc != MPI_SUCCESS)
        return 0;
    return out == v * nranks;
}

static inline __attribute__((always_inline)) int inlined_sum(double v)
{
    double in[2] = {v, 2 * v}, out[2] = {0, 0};
    if (MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
        return 0;
    return out[0] == v * nranks && out[1] == 2 * v * nranks;
}

__attribute__((noinline)) static int outer_caller(int k) { return inlined_sum(k + 1.0); }

int main(int argc, char **argv)
{
    int good = 1, all = 0;
    MPI_Init(&argc, &argv);
    PMPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int k = 0; k < 2; k++)
        good &= a_call_site_function_whose_name_is_much_longer_than_sixty_three_characters_to_test_naming(k + 3);
    for (int k = 0; k < 3; k++)
        good &= outer_caller(k);
    if (PMPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        all = 0;
    if (!all)
        fprintf(stderr, "callsites_long: a result was wrong\n");
    else if (PMPI_Comm_size(MPI_COMM_WORLD, &nranks) == MPI_SUCCESS && argc >= 0) {
        int me;
        PMPI_Comm_rank(MPI_COMM_WORLD, &me);
        if (me == 0)
            printf("callsites_long ok\n");
    }
    MPI_Finalize();
    return all ? 0 : 1;
}
