/*
 * Every legal call, offloaded and right (issue 17).  For every root:
 *  - arguments the standard makes insignificant get their most surprising
 *    legal value (non-root scatter send side NULL / -1 / MPI_DATATYPE_NULL,
 *    non-root gather receive side likewise, the ignored count of an
 *    MPI_IN_PLACE root, allgather's send side under MPI_IN_PLACE);
 *  - types whose size differs from their extent (the MINLOC/MAXLOC pair
 *    types) and derived types with holes move by their type map, and the
 *    holes of the receive buffer stay untouched;
 *  - one rank may pass MPI_Type_contiguous(3, MPI_DOUBLE) where the
 *    others pass 3 doubles (one type signature);
 *  - MPI_SUM / MPI_PROD on the complex types (C and Fortran), in the AgLU,
 *  - MPI_Scan / MPI_Exscan (rank 0's exscan buffer untouched, in place),
 *  - MPI_Alltoall (in place, on a split communicator), MPI_Alltoallv
 *    (uneven sizes with zeros, gapped displacements, in place),
 *  - MPI_MINLOC / MPI_MAXLOC on the pair types, ties to the lower index,
 *    the receive buffer's pad bytes untouched;
 *  - count 0, reduce_scatter with uneven counts including zeros, and the
 *    v-variants (which MPICH runs) with uneven counts including zeros.
 * Results are checked against values computed locally.  The driver
 * (test/mpi_legal.sh) checks in the report that nothing fell back.
 */
#include <mpi.h>
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_tap.h"

static int P, me;

#define N 3 /* elements per rank block */
#define HOLE (-7)

static int val(int rank, int i) { return 1000 * rank + 10 * i + 1; }

static void root_only_scatter_gather(int root)
{
    int isroot = me == root, good = 1;
    int *all = malloc(sizeof(int) * (size_t)(N * P)), mine[N];
    for (int r = 0; r < P; r++)
        for (int i = 0; i < N; i++)
            all[r * N + i] = isroot ? val(r, i) : -1;
    /* Scatter: non-roots pass NULL, -1, MPI_DATATYPE_NULL as send side. */
    memset(mine, 0, sizeof mine);
    MPI_Scatter(isroot ? all : NULL, isroot ? N : -1, isroot ? MPI_INT : MPI_DATATYPE_NULL,
                mine, N, MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        good &= mine[i] == val(me, i);
    mpi_tap_ok(good, "scatter root %d: non-root send side NULL/-1/DATATYPE_NULL", root);

    /* Scatter, root in place: its recvcount -1 and recvtype NULL are ignored. */
    good = 1;
    memset(mine, 0, sizeof mine);
    if (isroot)
        MPI_Scatter(all, N, MPI_INT, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
    else
        MPI_Scatter(NULL, -1, MPI_DATATYPE_NULL, mine, N, MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; i < N && !isroot; i++)
        good &= mine[i] == val(me, i);
    for (int i = 0; i < N && isroot; i++)
        good &= all[root * N + i] == val(root, i);
    mpi_tap_ok(good, "scatter root %d: MPI_IN_PLACE root with recvcount -1", root);

    /* Gather: non-roots pass NULL, -1, MPI_DATATYPE_NULL as receive side. */
    good = 1;
    for (int i = 0; i < N; i++)
        mine[i] = val(me, i);
    if (isroot)
        memset(all, 0, sizeof(int) * (size_t)(N * P));
    MPI_Gather(mine, N, MPI_INT, isroot ? all : NULL, isroot ? N : -1,
               isroot ? MPI_INT : MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
    for (int k = 0; k < N * P && isroot; k++)
        good &= all[k] == val(k / N, k % N);
    mpi_tap_ok(good, "gather root %d: non-root receive side NULL/-1/DATATYPE_NULL", root);

    /* Gather, root in place: its sendcount -1 and sendtype NULL are ignored. */
    good = 1;
    if (isroot) {
        for (int k = 0; k < N * P; k++)
            all[k] = k / N == root ? val(root, k % N) : 0;
        MPI_Gather(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, all, N, MPI_INT, root, MPI_COMM_WORLD);
        for (int k = 0; k < N * P; k++)
            good &= all[k] == val(k / N, k % N);
    } else {
        MPI_Gather(mine, N, MPI_INT, NULL, -1, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
    }
    mpi_tap_ok(good, "gather root %d: MPI_IN_PLACE root with sendcount -1", root);
    free(all);
}

static void root_only_reduce(int root)
{
    int isroot = me == root, good = 1;
    long v[N], sum[N];
    for (int i = 0; i < N; i++)
        v[i] = val(me, i);
    MPI_Reduce(v, isroot ? sum : NULL, N, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD);
    for (int i = 0; i < N && isroot; i++) {
        long want = 0;
        for (int r = 0; r < P; r++)
            want += val(r, i);
        good &= sum[i] == want;
    }
    mpi_tap_ok(good, "reduce root %d: non-root recvbuf NULL", root);
    good = 1;
    if (isroot)
        MPI_Reduce(MPI_IN_PLACE, v, N, MPI_LONG, MPI_MAX, root, MPI_COMM_WORLD);
    else
        MPI_Reduce(v, NULL, N, MPI_LONG, MPI_MAX, root, MPI_COMM_WORLD);
    for (int i = 0; i < N && isroot; i++)
        good &= v[i] == val(P - 1, i);
    mpi_tap_ok(good, "reduce root %d: MPI_IN_PLACE root", root);
}

static void allgather_in_place(void)
{
    int *all = malloc(sizeof(int) * (size_t)(N * P)), good = 1;
    for (int k = 0; k < N * P; k++)
        all[k] = k / N == me ? val(me, k % N) : 0;
    MPI_Allgather(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, all, N, MPI_INT, MPI_COMM_WORLD);
    for (int k = 0; k < N * P; k++)
        good &= all[k] == val(k / N, k % N);
    mpi_tap_ok(good, "allgather: MPI_IN_PLACE with sendcount -1, sendtype NULL");
    free(all);
}

/* ---- pair types: size != extent ---------------------------------------- */

typedef struct { double v; int i; } dbl_int_t;
typedef struct { long v; int i; } long_int_t;
typedef struct { short v; int i; } short_int_t;
typedef struct { long double v; int i; } ldbl_int_t;
typedef struct { float v; int i; } flt_int_t;

#define PAIR_FILL(T, buf, n, base)                                                         \
    for (int k_ = 0; k_ < (n); k_++) {                                                     \
        memset(&((T *)(buf))[k_], 0x5a, sizeof(T));                                        \
        ((T *)(buf))[k_].v = (base) + k_;                                                  \
        ((T *)(buf))[k_].i = -((base) + k_);                                               \
    }
#define PAIR_OK(T, buf, n, base, good)                                                     \
    for (int k_ = 0; k_ < (n); k_++)                                                       \
        good &= ((T *)(buf))[k_].v == (base) + k_ && ((T *)(buf))[k_].i == -((base) + k_);

#define PAIR_CASE(T, MT, root)                                                             \
    do {                                                                                   \
        T b[N], blk[N], *all = malloc(sizeof(T) * (size_t)(N * P));                        \
        int good = 1;                                                                      \
        PAIR_FILL(T, b, N, me == root ? 7 : 0);                                            \
        MPI_Bcast(b, N, MT, root, MPI_COMM_WORLD);                                         \
        PAIR_OK(T, b, N, 7, good);                                                         \
        mpi_tap_ok(good, "bcast %s root %d", #MT, root);                                   \
        good = 1;                                                                          \
        for (int r = 0; r < P; r++)                                                        \
            PAIR_FILL(T, all + r * N, N, 100 * r);                                         \
        MPI_Scatter(all, N, MT, blk, N, MT, root, MPI_COMM_WORLD);                         \
        PAIR_OK(T, blk, N, 100 * me, good);                                                \
        mpi_tap_ok(good, "scatter %s root %d", #MT, root);                                 \
        good = 1;                                                                          \
        memset(all, 0, sizeof(T) * (size_t)(N * P));                                       \
        MPI_Gather(blk, N, MT, all, N, MT, root, MPI_COMM_WORLD);                          \
        for (int r = 0; r < P && me == root; r++)                                          \
            PAIR_OK(T, all + r * N, N, 100 * r, good);                                     \
        mpi_tap_ok(good, "gather %s root %d", #MT, root);                                  \
        good = 1;                                                                          \
        memset(all, 0, sizeof(T) * (size_t)(N * P));                                       \
        MPI_Allgather(blk, N, MT, all, N, MT, MPI_COMM_WORLD);                             \
        for (int r = 0; r < P; r++)                                                        \
            PAIR_OK(T, all + r * N, N, 100 * r, good);                                     \
        mpi_tap_ok(good, "allgather %s (root loop %d)", #MT, root);                        \
        free(all);                                                                         \
    } while (0)

static void pair_types(int root)
{
    PAIR_CASE(dbl_int_t, MPI_DOUBLE_INT, root);
    PAIR_CASE(long_int_t, MPI_LONG_INT, root);
    PAIR_CASE(short_int_t, MPI_SHORT_INT, root);
    PAIR_CASE(ldbl_int_t, MPI_LONG_DOUBLE_INT, root);
    PAIR_CASE(flt_int_t, MPI_FLOAT_INT, root);
}

/* ---- MINLOC / MAXLOC in the network --------------------------------------- */

/* Rank r's element i: value (r + i) % 3 (ties across ranks), index 100 - r,
 * so on a tie the lowest index is the highest rank's. */
static int loc_val(int r, int i) { return (r + i) % 3; }
static int loc_idx(int r) { return 100 - r; }

/* The expected pair for element i over P ranks. */
static void loc_want(int i, int max, int *v, int *idx)
{
    *v = loc_val(0, i);
    *idx = loc_idx(0);
    for (int r = 1; r < P; r++) {
        int x = loc_val(r, i), better = max ? x > *v : x < *v;
        if (better || (x == *v && loc_idx(r) < *idx))
            *v = x, *idx = loc_idx(r);
    }
}

#define LOC_CASE(T, MT, OPN, MAX, root, good)                                              \
    do {                                                                                   \
        T in[N], out[N];                                                                   \
        memset(out, 0x77, sizeof out); /* pad bytes must keep 0x77 */                       \
        for (int i = 0; i < N; i++)                                                        \
            in[i].v = loc_val(me, i), in[i].i = loc_idx(me);                               \
        if ((root) < 0)                                                                    \
            MPI_Allreduce(in, out, N, MT, OPN, MPI_COMM_WORLD);                            \
        else                                                                               \
            MPI_Reduce(in, me == (root) ? out : NULL, N, MT, OPN, root, MPI_COMM_WORLD);    \
        for (int i = 0; i < N && ((root) < 0 || me == (root)); i++) {                      \
            int wv, wi;                                                                    \
            loc_want(i, MAX, &wv, &wi);                                                    \
            T probe;                                                                       \
            memset(&probe, 0x77, sizeof probe);                                            \
            probe.v = out[i].v, probe.i = out[i].i;                                        \
            good &= out[i].v == wv && out[i].i == wi &&                                    \
                    memcmp(&probe, &out[i], sizeof probe) == 0;                            \
        }                                                                                  \
    } while (0)

typedef struct { int v; int i; } int2_t;

static void loc_ops(int root)
{
    int good = 1;
    LOC_CASE(dbl_int_t, MPI_DOUBLE_INT, MPI_MINLOC, 0, root, good);
    LOC_CASE(short_int_t, MPI_SHORT_INT, MPI_MAXLOC, 1, root, good);
    mpi_tap_ok(good, "reduce root %d: MINLOC double_int, MAXLOC short_int, ties to the lower "
               "index, pad bytes untouched", root);
}

static void loc_all(void)
{
    int good = 1;
    LOC_CASE(int2_t, MPI_2INT, MPI_MINLOC, 0, -1, good);
    LOC_CASE(flt_int_t, MPI_FLOAT_INT, MPI_MAXLOC, 1, -1, good);
    LOC_CASE(long_int_t, MPI_LONG_INT, MPI_MINLOC, 0, -1, good);
    mpi_tap_ok(good, "allreduce: MINLOC 2int, MAXLOC float_int, MINLOC long_int");
    dbl_int_t in[64], out;
    for (int r = 0; r < P; r++)
        in[r].v = loc_val(me, r), in[r].i = loc_idx(me);
    MPI_Reduce_scatter_block(in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    int wv, wi;
    loc_want(me, 1, &wv, &wi);
    mpi_tap_ok(out.v == wv && out.i == wi, "reduce_scatter_block MAXLOC double_int");
}

/* ---- complex SUM and PROD in the network ----------------------------------- */

/* Rank r's element i: re in {1, -1}, im in {-1, 0, 1}; sums and products
 * over P ranks are small Gaussian integers, exact in any order. */
static double complex cval(int r, int i)
{
    return (r % 2 ? -1.0 : 1.0) + ((r + i) % 3 - 1) * I;
}

/* result[i] against the closed form over all ranks, compared as numbers
 * (a product may end in -0 where another order gives +0). */
static int complex_ok(const double complex *got, int prod)
{
    int good = 1;
    for (int i = 0; i < N; i++) {
        double complex w = prod ? 1.0 : 0.0;
        for (int r = 0; r < P; r++)
            w = prod ? w * cval(r, i) : w + cval(r, i);
        good &= creal(got[i]) == creal(w) && cimag(got[i]) == cimag(w);
    }
    return good;
}

static void complex_ops(int root)
{
    double complex in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = cval(me, i), out[i] = 0;
    MPI_Reduce(in, out, N, MPI_C_DOUBLE_COMPLEX, MPI_PROD, root, MPI_COMM_WORLD);
    mpi_tap_ok(me != root || complex_ok(out, 1), "reduce root %d: PROD of C double complex",
               root);
}

static void complex_all(void)
{
    double complex in[N], out[N];
    float complex fin[N], fout[N];
    for (int i = 0; i < N; i++)
        in[i] = cval(me, i), fin[i] = (float complex)in[i];
    MPI_Allreduce(in, out, N, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    mpi_tap_ok(complex_ok(out, 0), "allreduce: SUM of C double complex");
    MPI_Allreduce(in, out, N, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
    mpi_tap_ok(complex_ok(out, 1), "allreduce: PROD of Fortran DOUBLE COMPLEX");
    MPI_Allreduce(fin, fout, N, MPI_C_FLOAT_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        out[i] = (double complex)fout[i];
    mpi_tap_ok(complex_ok(out, 1), "allreduce: PROD of C float complex");
}

/* ---- prefix reductions: Scan and Exscan in the network ------------------- */

static void scans(void)
{
    int in[N], out[N], good = 1;
    for (int i = 0; i < N; i++)
        in[i] = val(me, i), out[i] = HOLE;
    MPI_Scan(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
        int w = 0;
        for (int r = 0; r <= me; r++)
            w += val(r, i);
        good &= out[i] == w;
    }
    mpi_tap_ok(good, "scan: int SUM over ranks 0..me");
    for (int i = 0; i < N; i++)
        out[i] = HOLE;
    MPI_Exscan(in, out, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    good = 1;
    for (int i = 0; i < N; i++) /* val grows with the rank: max of 0..me-1 is me-1's */
        good &= me == 0 ? out[i] == HOLE : out[i] == val(me - 1, i);
    mpi_tap_ok(good, "exscan: int MAX over ranks 0..me-1, rank 0's buffer untouched");
    double d[N];
    for (int i = 0; i < N; i++)
        d[i] = val(me, i);
    MPI_Exscan(MPI_IN_PLACE, d, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    good = 1;
    for (int i = 0; i < N; i++) {
        double w = me == 0 ? val(0, i) : 0; /* rank 0 keeps its input (undefined) */
        for (int r = 0; r < me; r++)
            w += val(r, i);
        good &= d[i] == w;
    }
    mpi_tap_ok(good, "exscan: MPI_IN_PLACE double SUM");
    double complex z[N], zo[N];
    for (int i = 0; i < N; i++)
        z[i] = cval(me, i);
    MPI_Scan(z, zo, N, MPI_C_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
    good = 1;
    for (int i = 0; i < N; i++) {
        double complex w = 1.0;
        for (int r = 0; r <= me; r++)
            w *= cval(r, i);
        good &= creal(zo[i]) == creal(w) && cimag(zo[i]) == cimag(w);
    }
    mpi_tap_ok(good, "scan: C double complex PROD");
}

/* ---- Alltoall: a personalized exchange in the network -------------------- */

static int a2a_val(int from, int to, int i) { return 1000 * from + 10 * to + i; }

/* Block j of rank r holds a2a_val(r, j, .); after the exchange block s of
 * rank me must hold a2a_val(s, me, .), on comm (rank me_c of size P_c). */
static int a2a_run(MPI_Comm comm, int in_place)
{
    int pc, mc, good = 1;
    MPI_Comm_size(comm, &pc);
    MPI_Comm_rank(comm, &mc);
    int *in = malloc(sizeof(int) * (size_t)(pc * N)), *out = malloc(sizeof(int) * (size_t)(pc * N));
    for (int j = 0; j < pc; j++)
        for (int i = 0; i < N; i++)
            in[j * N + i] = a2a_val(mc, j, i), out[j * N + i] = HOLE;
    if (in_place)
        MPI_Alltoall(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, in, N, MPI_INT, comm);
    else
        MPI_Alltoall(in, N, MPI_INT, out, N, MPI_INT, comm);
    const int *got = in_place ? in : out;
    for (int s = 0; s < pc; s++)
        for (int i = 0; i < N; i++)
            good &= got[s * N + i] == a2a_val(s, mc, i);
    free(in);
    free(out);
    return good;
}

/* Alltoallv: rank s sends (s + d) % 3 ints to rank d (zeros included),
 * at gapped displacements; receive displacements in reverse rank order. */
static int v_count(int s, int d) { return (s + d) % 3; }

static int a2av_run(int in_place)
{
    int sc[64], sd[64], rc[64], rd[64], good = 1, stot = 0, rtot = 0;
    for (int j = 0; j < P; j++) {
        sc[j] = v_count(me, j), sd[j] = stot, stot += sc[j] + 1; /* one-int gap */
        rc[j] = v_count(j, me);
    }
    for (int j = P - 1; j >= 0; j--)
        rd[j] = rtot, rtot += rc[j] + 2;
    int *in = malloc(sizeof(int) * (size_t)(stot + 1)), *out = malloc(sizeof(int) * (size_t)(rtot + 1));
    for (int k = 0; k <= rtot; k++)
        out[k] = HOLE;
    for (int j = 0; j < P; j++)
        for (int i = 0; i < sc[j]; i++)
            in[sd[j] + i] = a2a_val(me, j, i);
    if (in_place) { /* the blocks travel from and to recvbuf */
        for (int j = 0; j < P; j++)
            for (int i = 0; i < rc[j]; i++)
                out[rd[j] + i] = a2a_val(me, j, i);
        MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, out, rc, rd, MPI_INT,
                      MPI_COMM_WORLD);
    } else {
        MPI_Alltoallv(in, sc, sd, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD);
    }
    for (int s = 0; s < P; s++) {
        for (int i = 0; i < rc[s]; i++)
            good &= out[rd[s] + i] == a2a_val(s, me, i);
        good &= out[rd[s] + rc[s]] == HOLE; /* the gap after each block untouched */
    }
    free(in);
    free(out);
    return good;
}

static void alltoalls(void)
{
    mpi_tap_ok(a2av_run(0), "alltoallv: uneven sizes with zeros, gapped displacements");
    mpi_tap_ok(a2av_run(1), "alltoallv: MPI_IN_PLACE (send arguments ignored)");
    mpi_tap_ok(a2a_run(MPI_COMM_WORLD, 0), "alltoall: every block to its rank");
    mpi_tap_ok(a2a_run(MPI_COMM_WORLD, 1), "alltoall: MPI_IN_PLACE (send arguments ignored)");
    MPI_Comm half; /* members are not consecutive global ranks: addresses travel along */
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, P - me, &half);
    mpi_tap_ok(a2a_run(half, 0), "alltoall on a split, reversed communicator");
    MPI_Comm_free(&half);
}

/* ---- derived types with holes ------------------------------------------ */

/* N ints at stride 2: the odd slots are holes that must keep HOLE. */
static void derived_holes(int root)
{
    MPI_Datatype vec, res;
    MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int b[2 * N], good = 1;
    for (int i = 0; i < 2 * N; i++)
        b[i] = i % 2 ? HOLE : (me == root ? val(root, i / 2) : 0);
    MPI_Bcast(b, 1, vec, root, MPI_COMM_WORLD);
    for (int i = 0; i < 2 * N; i++)
        good &= b[i] == (i % 2 ? HOLE : val(root, i / 2));
    mpi_tap_ok(good, "bcast vector(3,1,2) root %d: data right, holes untouched", root);

    /* An int resized to extent 8: a rank's block of N is strided. */
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &res);
    MPI_Type_commit(&res);
    int *all = malloc(sizeof(int) * (size_t)(2 * N * P));
    for (int k = 0; k < 2 * N * P; k++)
        all[k] = HOLE;
    for (int i = 0; i < 2 * N; i++)
        b[i] = i % 2 ? HOLE : val(me, i / 2);
    good = 1;
    MPI_Gather(b, N, res, all, N, res, root, MPI_COMM_WORLD);
    for (int k = 0; k < 2 * N * P && me == root; k++)
        good &= all[k] == (k % 2 ? HOLE : val(k / (2 * N), (k / 2) % N));
    mpi_tap_ok(good, "gather resized int (extent 8) root %d: blocks strided, holes kept", root);
    good = 1;
    for (int k = 0; k < 2 * N * P; k++)
        all[k] = HOLE;
    MPI_Allgather(b, 1, vec, all, N, res, MPI_COMM_WORLD);
    for (int k = 0; k < 2 * N * P; k++)
        good &= all[k] == (k % 2 ? HOLE : val(k / (2 * N), (k / 2) % N));
    mpi_tap_ok(good, "allgather vector -> resized (same signature) (root loop %d)", root);
    free(all);
    MPI_Type_free(&vec);
    MPI_Type_free(&res);
}

/* Rank 0 passes one contiguous(3, double), the others 3 doubles: one
 * type signature, so the same packed bytes. */
static void same_signature(int root)
{
    MPI_Datatype c3;
    MPI_Type_contiguous(3, MPI_DOUBLE, &c3);
    MPI_Type_commit(&c3);
    double v[3];
    for (int i = 0; i < 3; i++)
        v[i] = me == root ? root + 0.25 * i : -1;
    if (me == 0)
        MPI_Bcast(v, 1, c3, root, MPI_COMM_WORLD);
    else
        MPI_Bcast(v, 3, MPI_DOUBLE, root, MPI_COMM_WORLD);
    mpi_tap_ok(v[0] == root && v[1] == root + 0.25 && v[2] == root + 0.5,
               "bcast root %d: contiguous(3,double) on rank 0, 3 doubles elsewhere", root);
    MPI_Type_free(&c3);
}

/* ---- count 0, uneven counts --------------------------------------------- */

static void zero_counts(void)
{
    int x = 42, y = 42, good;
    MPI_Bcast(&x, 0, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&x, &y, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(&x, &y, 0, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Scatter(&x, 0, MPI_INT, &y, 0, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(&x, 0, MPI_INT, &y, 0, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allgather(&x, 0, MPI_INT, &y, 0, MPI_INT, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(&x, &y, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    good = x == 42 && y == 42;
    mpi_tap_ok(good, "count 0 in every collective: buffers untouched");
}

/* Rank r receives (r % 3) elements: 0, 1, 2, 0, ... */
static void uneven(void)
{
    int *cnt = malloc(sizeof(int) * (size_t)P), *dsp = malloc(sizeof(int) * (size_t)P), tot = 0;
    for (int r = 0; r < P; r++) {
        cnt[r] = r % 3;
        dsp[r] = tot;
        tot += cnt[r];
    }
    int *v = malloc(sizeof(int) * (size_t)(tot + 1)), out[3] = {HOLE, HOLE, HOLE}, good = 1;
    for (int k = 0; k < tot; k++)
        v[k] = me + k;
    MPI_Reduce_scatter(v, out, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++)
        good &= out[i] == (i < cnt[me] ? P * (P - 1) / 2 + P * (dsp[me] + i) : HOLE);
    mpi_tap_ok(good, "reduce_scatter counts 0,1,2,...: right and nothing past own count");

    good = 1;
    int *all = malloc(sizeof(int) * (size_t)(tot + 1)), mine[3] = {0, 0, 0};
    for (int k = 0; k < tot; k++)
        all[k] = 5000 + k;
    MPI_Scatterv(all, cnt, dsp, MPI_INT, mine, cnt[me], MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < cnt[me]; i++)
        good &= mine[i] == 5000 + dsp[me] + i;
    memset(all, 0, sizeof(int) * (size_t)(tot + 1));
    MPI_Gatherv(mine, cnt[me], MPI_INT, all, cnt, dsp, MPI_INT, P - 1, MPI_COMM_WORLD);
    for (int k = 0; k < tot && me == P - 1; k++)
        good &= all[k] == 5000 + k;
    memset(all, 0, sizeof(int) * (size_t)(tot + 1));
    MPI_Allgatherv(mine, cnt[me], MPI_INT, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
    for (int k = 0; k < tot; k++)
        good &= all[k] == 5000 + k;
    mpi_tap_ok(good, "scatterv/gatherv/allgatherv counts 0,1,2,...");
    free(cnt), free(dsp), free(v), free(all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (int root = 0; root < P; root++) {
        root_only_scatter_gather(root);
        root_only_reduce(root);
        pair_types(root);
        derived_holes(root);
        same_signature(root);
        loc_ops(root);
        complex_ops(root);
    }
    loc_all();
    complex_all();
    scans();
    alltoalls();
    allgather_in_place();
    zero_counts();
    uneven();
    int rc = mpi_tap_finish();
    MPI_Finalize();
    return rc;
}
