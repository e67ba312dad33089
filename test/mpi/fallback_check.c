/* fallback_check: calls the library cannot offload must fall back to MPICH
 * and still give the right answer.  Each case runs the MPI_ call and the
 * PMPI_ version of the same call on identical buffers and compares.
 *
 *   fallback_check            (needs >= 2 ranks for the intercommunicator
 *                              case; with 1 rank that case is a TAP SKIP)
 *
 * Cases and the fallback reason the library is expected to count (checked
 * from the report by test/mpi_fallback.sh, not here):
 *   derived datatype (MPI_Type_contiguous of 2 ints) in Bcast
 *                          -> offloaded, moved by its type map (no fallback)
 *   the same type in Allreduce with a user-defined sum (MPICH rejects
 *   predefined ops on derived types)                   -> derived_datatype or op
 *   MPI_2INT with MPI_MINLOC           -> offloaded (AgLU pair lanes), vs MPICH
 *   a user-defined op (MPI_Op_create, commutative sum) -> op
 *   MPI_LONG_DOUBLE with MPI_SUM                       -> datatype
 *   Bcast/Allreduce across an intercommunicator        -> intercomm
 *   Allreduce on MPI_COMM_SELF                         -> comm_size
 *   Bcast where rank 0 passes MPI_Type_contiguous(4, MPI_INT) x 1 and the
 *   others MPI_INT x 4 (same type signature, legal): right answer, no hang.
 *
 * Plain MPI: builds with mpicc, runs under mpiexec without the library.
 * Bookkeeping uses PMPI_ only.  TAP from rank 0; exit 0 iff all passed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, wsize, ntest, nfail;

/* one TAP line for a verdict that must hold on every rank */
static void report(int good, const char *why, const char *desc)
{
    struct { int ok, rank; } in = {good ? 1 : 0, wrank}, out;
    PMPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
    char msg[256] = "";
    if (!out.ok) {
        if (out.rank == wrank && wrank != 0)
            PMPI_Send(why ? why : "", (int)strlen(why ? why : "") + 1, MPI_CHAR, 0, 5, MPI_COMM_WORLD);
        if (wrank == 0) {
            if (out.rank == 0)
                snprintf(msg, sizeof msg, "%s", why ? why : "");
            else
                PMPI_Recv(msg, sizeof msg, MPI_CHAR, out.rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    ntest++;
    if (!out.ok)
        nfail++;
    if (wrank == 0) {
        printf("%s %d - %s\n", out.ok ? "ok" : "not ok", ntest, desc);
        if (!out.ok)
            printf("# rank %d: %s\n", out.rank, msg);
        fflush(stdout);
    }
}

static void skip(const char *desc, const char *reason)
{
    ntest++;
    if (wrank == 0) {
        printf("ok %d - %s # SKIP %s\n", ntest, desc, reason);
        fflush(stdout);
    }
}

static char why[256];
static int check_rc(int rc, const char *call)
{
    if (rc == MPI_SUCCESS)
        return 1;
    char es[MPI_MAX_ERROR_STRING];
    int l;
    PMPI_Error_string(rc, es, &l);
    snprintf(why, sizeof why, "%.40s returned %d: %.180s", call, rc, es);
    return 0;
}
static int cmp_ints(const int *got, const int *exp, int n)
{
    for (int i = 0; i < n; i++)
        if (got[i] != exp[i]) {
            snprintf(why, sizeof why, "element %d: got %d, expected %d", i, got[i], exp[i]);
            return 0;
        }
    return 1;
}

/* commutative sum of ints; works on any type made of ints (the derived
 * pair type too: *len counts elements of *dt) */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int sz;
    PMPI_Type_size(*dt, &sz);
    long n = (long)*len * (sz / (int)sizeof(int));
    for (long i = 0; i < n; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

#define N 10

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    PMPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int good;

    /* 1, 2: derived datatype (2 contiguous ints).  MPICH (like the standard)
     * rejects predefined ops on derived types, so the Allreduce uses a
     * user-defined commutative sum: the library may count it as
     * derived_datatype or op; the Bcast is offloaded by its type map
     * (select/dtpack.h) and must still match MPICH. */
    {
        MPI_Datatype pair;
        MPI_Op op;
        MPI_Type_contiguous(2, MPI_INT, &pair);
        MPI_Type_commit(&pair);
        MPI_Op_create(user_sum, 1, &op);
        int in[2 * N], got[2 * N], exp[2 * N];
        for (int i = 0; i < 2 * N; i++) in[i] = (wrank + 1) * (i + 1);
        memset(got, 0, sizeof got); memset(exp, 0, sizeof exp);
        why[0] = 0;
        good = check_rc(MPI_Allreduce(in, got, N, pair, op, MPI_COMM_WORLD), "MPI_Allreduce");
        PMPI_Allreduce(in, exp, N, pair, op, MPI_COMM_WORLD);
        good = good && cmp_ints(got, exp, 2 * N);
        for (int i = 0; good && i < 2 * N; i++)
            if (got[i] != (i + 1) * wsize * (wsize + 1) / 2) {
                snprintf(why, sizeof why, "element %d: got %d, expected %d", i, got[i],
                         (i + 1) * wsize * (wsize + 1) / 2);
                good = 0;
            }
        report(good, why, "MPI_Allreduce on MPI_Type_contiguous(2, MPI_INT), user-defined sum (derived datatype)");
        MPI_Op_free(&op);

        for (int i = 0; i < 2 * N; i++) got[i] = exp[i] = wrank == wsize - 1 ? 7 * i + 1 : -1;
        why[0] = 0;
        good = check_rc(MPI_Bcast(got, N, pair, wsize - 1, MPI_COMM_WORLD), "MPI_Bcast");
        PMPI_Bcast(exp, N, pair, wsize - 1, MPI_COMM_WORLD);
        good = good && cmp_ints(got, exp, 2 * N);
        report(good, why, "MPI_Bcast of MPI_Type_contiguous(2, MPI_INT) from the last rank (derived datatype, offloaded)");
        MPI_Type_free(&pair);
    }

    /* 3: MPI_2INT with MPI_MINLOC (offloaded since issue 17; the result must equal MPICH's) */
    {
        struct { int v, i; } in[N], got[N], exp[N];
        for (int i = 0; i < N; i++) {
            in[i].v = (wrank * 37 + i * 11) % 5; /* ties: MINLOC takes the lowest index */
            in[i].i = wrank;
        }
        memset(got, 0, sizeof got); memset(exp, 0, sizeof exp);
        why[0] = 0;
        good = check_rc(MPI_Allreduce(in, got, N, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD), "MPI_Allreduce");
        PMPI_Allreduce(in, exp, N, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
        good = good && cmp_ints((int *)got, (int *)exp, 2 * N);
        report(good, why, "MPI_Allreduce MPI_2INT MPI_MINLOC (offloaded, equals MPICH)");
    }

    /* 4: user-defined op */
    {
        MPI_Op op;
        MPI_Op_create(user_sum, 1, &op);
        int in[N], got[N], exp[N];
        for (int i = 0; i < N; i++) in[i] = wrank * 100 + i;
        memset(got, 0, sizeof got); memset(exp, 0, sizeof exp);
        why[0] = 0;
        good = check_rc(MPI_Allreduce(in, got, N, MPI_INT, op, MPI_COMM_WORLD), "MPI_Allreduce");
        PMPI_Allreduce(in, exp, N, MPI_INT, op, MPI_COMM_WORLD);
        good = good && cmp_ints(got, exp, N);
        report(good, why, "MPI_Allreduce MPI_INT with a user-defined op (MPI_Op_create, commutative sum)");

        memset(got, 0, sizeof got); memset(exp, 0, sizeof exp);
        why[0] = 0;
        good = check_rc(MPI_Reduce(in, got, N, MPI_INT, op, 0, MPI_COMM_WORLD), "MPI_Reduce");
        PMPI_Reduce(in, exp, N, MPI_INT, op, 0, MPI_COMM_WORLD);
        good = good && (wrank != 0 || cmp_ints(got, exp, N));
        report(good, why, "MPI_Reduce MPI_INT with a user-defined op, root 0");
        MPI_Op_free(&op);
    }

    /* 5: MPI_LONG_DOUBLE sum (small integers: exact) */
    {
        long double in[N], got[N], exp[N];
        for (int i = 0; i < N; i++) in[i] = (long double)(wrank + 1) * (i + 1);
        memset(got, 0, sizeof got); memset(exp, 0, sizeof exp);
        why[0] = 0;
        good = check_rc(MPI_Allreduce(in, got, N, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
        PMPI_Allreduce(in, exp, N, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; good && i < N; i++)
            if (got[i] != exp[i]) {
                snprintf(why, sizeof why, "element %d: got %Lg, expected %Lg", i, got[i], exp[i]);
                good = 0;
            }
        report(good, why, "MPI_Allreduce MPI_LONG_DOUBLE MPI_SUM (unsupported type)");
    }

    /* 6, 7: intercommunicator from the two halves */
    if (wsize >= 2) {
        MPI_Comm half, inter;
        int lo = wrank < wsize / 2;
        MPI_Comm_split(MPI_COMM_WORLD, lo, wrank, &half);
        /* local leader 0 of each half; remote leader: world rank of the other half's first */
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, lo ? wsize / 2 : 0, 99, &inter);
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        int hr;
        MPI_Comm_rank(half, &hr);

        /* Bcast from rank 0 of the low group to the whole high group */
        int got[N], exp[N];
        int root = lo ? (hr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        for (int i = 0; i < N; i++) got[i] = exp[i] = lo && hr == 0 ? 3 * i + 5 : -1;
        why[0] = 0;
        good = check_rc(MPI_Bcast(got, N, MPI_INT, root, inter), "MPI_Bcast");
        PMPI_Bcast(exp, N, MPI_INT, root, inter);
        good = good && cmp_ints(got, exp, N);
        report(good, why, "MPI_Bcast across an intercommunicator (MPI_ROOT in the low half)");

        /* Allreduce: each group gets the reduction of the other group */
        int in[N];
        for (int i = 0; i < N; i++) in[i] = (wrank + 1) * (i + 2);
        memset(got, 0, sizeof got); memset(exp, 0, sizeof exp);
        why[0] = 0;
        good = check_rc(MPI_Allreduce(in, got, N, MPI_INT, MPI_SUM, inter), "MPI_Allreduce");
        PMPI_Allreduce(in, exp, N, MPI_INT, MPI_SUM, inter);
        good = good && cmp_ints(got, exp, N);
        report(good, why, "MPI_Allreduce MPI_INT MPI_SUM across an intercommunicator");
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    } else {
        skip("MPI_Bcast across an intercommunicator", "needs 2 ranks");
        skip("MPI_Allreduce across an intercommunicator", "needs 2 ranks");
    }

    /* 8: communicator of size 1 */
    {
        int in[N], got[N], exp[N];
        for (int i = 0; i < N; i++) in[i] = wrank * 1000 + i;
        memset(got, 0, sizeof got); memset(exp, 0, sizeof exp);
        why[0] = 0;
        good = check_rc(MPI_Allreduce(in, got, N, MPI_INT, MPI_SUM, MPI_COMM_SELF), "MPI_Allreduce");
        PMPI_Allreduce(in, exp, N, MPI_INT, MPI_SUM, MPI_COMM_SELF);
        good = good && cmp_ints(got, exp, N) && cmp_ints(got, in, N);
        report(good, why, "MPI_Allreduce MPI_INT MPI_SUM on MPI_COMM_SELF (communicator of size 1)");
    }

    /* 9: mixed type signatures in one Bcast: rank 0 contiguous(4, MPI_INT) x 1,
     * the others MPI_INT x 4 */
    {
        MPI_Datatype four;
        MPI_Type_contiguous(4, MPI_INT, &four);
        MPI_Type_commit(&four);
        int got[4], exp[4];
        for (int i = 0; i < 4; i++) got[i] = exp[i] = wrank == 0 ? 11 * (i + 1) : -1;
        why[0] = 0;
        if (wrank == 0) {
            good = check_rc(MPI_Bcast(got, 1, four, 0, MPI_COMM_WORLD), "MPI_Bcast");
            PMPI_Bcast(exp, 1, four, 0, MPI_COMM_WORLD);
        } else {
            good = check_rc(MPI_Bcast(got, 4, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
            PMPI_Bcast(exp, 4, MPI_INT, 0, MPI_COMM_WORLD);
        }
        good = good && cmp_ints(got, exp, 4);
        for (int i = 0; good && i < 4; i++)
            if (got[i] != 11 * (i + 1)) {
                snprintf(why, sizeof why, "element %d: got %d, expected %d", i, got[i], 11 * (i + 1));
                good = 0;
            }
        report(good, why, "MPI_Bcast with contiguous(4, MPI_INT) x 1 at the root and MPI_INT x 4 elsewhere");
        MPI_Type_free(&four);
    }

    if (wrank == 0) {
        printf("1..%d\n", ntest);
        fflush(stdout);
    }
    MPI_Finalize();
    return nfail ? 1 : 0;
}
