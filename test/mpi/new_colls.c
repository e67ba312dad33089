/*
 * The collectives beyond 001's seven (issue 21), each compared with what
 * MPICH itself computes for the same arguments (the PMPI_ call, which the
 * plugin does not intercept): MPI_Scan, MPI_Exscan, MPI_Alltoall,
 * MPI_Alltoallv and the complex types' SUM / PROD, many times over with
 * changing data and sizes, so the run report can count them offloaded.
 *   new_colls [iterations]   (default 60)
 */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_tap.h"

#define MAXN 40 /* elements per block */

static int P, me, bad_scan, bad_a2a, bad_cplx;

static int ival(int it, int r, int i) { return (it * 7 + r * 13 + i * 3) % 101 - 50; }

static void scans(int it, int n)
{
    int in[MAXN], got[MAXN], want[MAXN];
    for (int i = 0; i < n; i++)
        in[i] = ival(it, me, i), got[i] = want[i] = -1;
    MPI_Scan(in, got, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    PMPI_Scan(in, want, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    bad_scan += memcmp(got, want, sizeof(int) * (size_t)n) != 0;
    MPI_Exscan(in, got, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    PMPI_Exscan(in, want, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    bad_scan += me && memcmp(got, want, sizeof(int) * (size_t)n) != 0; /* rank 0: undefined */
}

static void alltoalls(int it, int n)
{
    int in[64 * MAXN], got[64 * MAXN], want[64 * MAXN];
    int sc[64], sd[64], rc[64], rd[64], st = 0, rt = 0;
    for (int k = 0; k < P * n; k++)
        in[k] = ival(it, me, k), got[k] = want[k] = -1;
    MPI_Alltoall(in, n, MPI_INT, got, n, MPI_INT, MPI_COMM_WORLD);
    PMPI_Alltoall(in, n, MPI_INT, want, n, MPI_INT, MPI_COMM_WORLD);
    bad_a2a += memcmp(got, want, sizeof(int) * (size_t)(P * n)) != 0;
    for (int j = 0; j < P; j++) { /* uneven, some empty, as NAS IS's key exchange */
        sc[j] = (it + me + 2 * j) % (n + 1), sd[j] = st, st += sc[j];
        rc[j] = (it + j + 2 * me) % (n + 1), rd[j] = rt, rt += rc[j];
    }
    for (int k = 0; k < rt; k++)
        got[k] = want[k] = -1;
    MPI_Alltoallv(in, sc, sd, MPI_INT, got, rc, rd, MPI_INT, MPI_COMM_WORLD);
    PMPI_Alltoallv(in, sc, sd, MPI_INT, want, rc, rd, MPI_INT, MPI_COMM_WORLD);
    bad_a2a += memcmp(got, want, sizeof(int) * (size_t)rt) != 0;
}

/* Gaussian integers: exact, so only -0 vs +0 may differ (compared as numbers). */
static int same_complex(const double complex *a, const double complex *b, int n)
{
    for (int i = 0; i < n; i++)
        if (creal(a[i]) != creal(b[i]) || cimag(a[i]) != cimag(b[i]))
            return 0;
    return 1;
}

static void complexes(int it, int n)
{
    double complex in[MAXN], got[MAXN], want[MAXN];
    for (int i = 0; i < n; i++)
        in[i] = ((it + me + i) % 2 ? 1.0 : -1.0) + ((it + me * i) % 3 - 1) * I;
    MPI_Allreduce(in, got, n, MPI_C_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
    PMPI_Allreduce(in, want, n, MPI_C_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
    bad_cplx += !same_complex(got, want, n);
    MPI_Reduce(in, got, n, MPI_DOUBLE_COMPLEX, MPI_SUM, it % P, MPI_COMM_WORLD);
    PMPI_Reduce(in, want, n, MPI_DOUBLE_COMPLEX, MPI_SUM, it % P, MPI_COMM_WORLD);
    bad_cplx += me == it % P && !same_complex(got, want, n);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int iters = argc > 1 ? atoi(argv[1]) : 60;
    if (P > 64) {
        mpi_tap_ok(0, "at most 64 ranks");
        MPI_Finalize();
        return 1;
    }
    for (int it = 0; it < iters; it++) {
        int n = 1 + it % MAXN;
        scans(it, n);
        alltoalls(it, n);
        complexes(it, n);
    }
    mpi_tap_ok(!bad_scan, "scan / exscan: %d iterations as MPICH computes them", iters);
    mpi_tap_ok(!bad_a2a, "alltoall / alltoallv: %d iterations as MPICH moves them", iters);
    mpi_tap_ok(!bad_cplx, "complex PROD / SUM: %d iterations as MPICH computes them", iters);
    int rc = mpi_tap_finish();
    MPI_Finalize();
    return rc;
}
