/* board_bytes: every collective the board engine runs, written out byte for
 * byte, so that a run through the fpga device (mpifpga-run --device
 * fpga-emu) and a run under plain mpiexec can be compared with cmp.
 *
 *   board_bytes OUT     each rank writes its results to OUT.<rank>
 *
 * An unmodified MPI program (no PMPI_, nothing of libmpifpga).  Cases:
 * Barrier, Bcast, Reduce, Allreduce, Scatter, Gather, Allgather,
 * Reduce_scatter and Reduce_scatter_block; MPI_INT (SUM, MAX, BAND),
 * MPI_UNSIGNED_CHAR (BOR), MPI_LONG (PROD), MPI_FLOAT and MPI_DOUBLE (SUM,
 * MIN: small integers, exact in any order), MPI_2INT (MAXLOC); counts 0, 1,
 * 7 and 1000 elements; MPI_IN_PLACE where MPI allows it; on
 * MPI_COMM_WORLD, the halves of a split (even / odd ranks), a communicator
 * of the ranks in reverse order, and one of the first three ranks.  Only
 * the buffers MPI defines are written (a non-root's Reduce buffer is not).
 * Exit status 0 unless an MPI call or a file failed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 1000
#define MAXP 8

typedef struct { MPI_Datatype t; MPI_Op op; size_t size; const char *name; } tcase_t;

static const int counts[] = {0, 1, 7, MAXN};
static FILE *out;
static int world_rank;

/* Element i of member r's input for case c, as bytes of type k. */
static void fill(void *buf, int k, const tcase_t *tc, int r, int n, int c)
{
    for (int i = 0; i < n; i++) {
        int v = (r * 7 + i * 3 + c) % 11 - 3; /* small integers, some negative */
        if (tc->op == MPI_PROD)
            v = (i + r + c) % 5 == 0 ? 2 : (i + r) % 7 == 0 ? -1 : 1;
        switch (k) {
        case 0: ((int *)buf)[i] = v * 1000 + i; break;
        case 1: ((unsigned char *)buf)[i] = (unsigned char)(1u << ((r + i + c) % 8)); break;
        case 2: ((long *)buf)[i] = v; break;
        case 3: ((float *)buf)[i] = (float)v; break;
        case 4: ((double *)buf)[i] = v * 0.5; break;
        case 5: ((int *)buf)[2 * i] = v, ((int *)buf)[2 * i + 1] = r; break;
        }
    }
}

static const tcase_t types[] = {
    {0, 0, sizeof(int), "int"}, {0, 0, 1, "uchar"}, {0, 0, sizeof(long), "long"},
    {0, 0, sizeof(float), "float"}, {0, 0, sizeof(double), "double"},
    {0, 0, 2 * sizeof(int), "2int"},
};

/* The (type, op) pairs run: index into types and into ops[] (run_comm). */
typedef struct { int k, op; } pair_t;

static void emit(const void *buf, size_t bytes)
{
    if (bytes && fwrite(buf, 1, bytes, out) != bytes) {
        fprintf(stderr, "board_bytes: rank %d: write failed\n", world_rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static MPI_Datatype type_of(int k)
{
    MPI_Datatype t[] = {MPI_INT, MPI_UNSIGNED_CHAR, MPI_LONG, MPI_FLOAT, MPI_DOUBLE, MPI_2INT};
    return t[k];
}

/* Reductions of one (type, op) and count on comm. */
static void reductions(MPI_Comm comm, int k, MPI_Op op, int n, int c)
{
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    MPI_Datatype t = type_of(k);
    size_t es = types[k].size, bytes = (size_t)n * es;
    tcase_t tc = types[k];
    tc.op = op;
    static char in[MAXP * MAXN * 16], res[MAXP * MAXN * 16];
    int root = c % p, rcounts[MAXP];
    fill(in, k, &tc, r, n, c);
    MPI_Allreduce(in, res, n, t, op, comm);
    emit(res, bytes);
    memcpy(res, in, bytes); /* in place */
    MPI_Allreduce(MPI_IN_PLACE, res, n, t, op, comm);
    emit(res, bytes);
    MPI_Reduce(in, r == root ? res : NULL, n, t, op, root, comm);
    if (r == root)
        emit(res, bytes);
    /* in place at root 0: MPICH 4.0.2 crashes at another root above 2 KiB
     * (pmodels/mpich#6540, as test/mpi/coll_check.c notes) */
    memcpy(res, in, bytes);
    MPI_Reduce(r == 0 ? MPI_IN_PLACE : res, r == 0 ? res : NULL, n, t, op, 0, comm);
    if (r == 0)
        emit(res, bytes);
    /* reduce_scatter: block i gets (n + i) % 3 elements more or less */
    int total = 0;
    for (int i = 0; i < p; i++)
        total += rcounts[i] = n ? (n + i) % 3 + n / p : 0;
    fill(in, k, &tc, r, total, c + 1);
    MPI_Reduce_scatter(in, res, rcounts, t, op, comm);
    emit(res, (size_t)rcounts[r] * es);
    MPI_Reduce_scatter_block(in, res, n / p, t, op, comm);
    emit(res, (size_t)(n / p) * es);
}

/* Data movers of n ints on comm. */
static void movers(MPI_Comm comm, int n, int c)
{
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    static int in[MAXP * MAXN], res[MAXP * MAXN];
    tcase_t tc = types[0];
    int root = (c + 1) % p;
    size_t bytes = (size_t)n * sizeof(int);
    fill(in, 0, &tc, r, n * p, c);
    memcpy(res, in, bytes);
    MPI_Bcast(res, n, MPI_INT, root, comm);
    emit(res, bytes);
    MPI_Scatter(r == root ? in : NULL, n, MPI_INT, res, n, MPI_INT, root, comm);
    emit(res, bytes);
    memcpy(res, in, bytes * p); /* root in place: its block stays */
    MPI_Scatter(r == root ? res : NULL, n, MPI_INT, r == root ? MPI_IN_PLACE : res, n, MPI_INT,
                root, comm);
    emit(res, r == root ? bytes * p : bytes);
    MPI_Gather(in, n, MPI_INT, r == root ? res : NULL, n, MPI_INT, root, comm);
    if (r == root)
        emit(res, bytes * p);
    MPI_Allgather(in, n, MPI_INT, res, n, MPI_INT, comm);
    emit(res, bytes * p);
    memset(res, 0, bytes * p);
    memcpy(res + (size_t)r * n, in, bytes);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, res, n, MPI_INT, comm);
    emit(res, bytes * p);
    MPI_Barrier(comm);
}

static void run_comm(MPI_Comm comm, int c0)
{
    static const pair_t pairs[] = {
        {0, 0}, {0, 1}, {0, 2}, {1, 3}, {2, 4}, {3, 0}, {4, 0}, {4, 5}, {5, 6},
    };
    MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_BAND, MPI_BOR, MPI_PROD, MPI_MIN, MPI_MAXLOC};
    for (size_t j = 0; j < sizeof counts / sizeof *counts; j++) {
        movers(comm, counts[j], c0 + (int)j);
        for (size_t q = 0; q < sizeof pairs / sizeof *pairs; q++)
            reductions(comm, pairs[q].k, ops[pairs[q].op], counts[j],
                       c0 + (int)(j + q));
    }
}

int main(int argc, char **argv)
{
    char path[512];
    int p;
    MPI_Comm half, reversed, three;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc != 2 || p > MAXP) {
        if (world_rank == 0)
            fprintf(stderr, "usage: board_bytes OUT (at most %d ranks)\n", MAXP);
        MPI_Finalize();
        return 2;
    }
    snprintf(path, sizeof path, "%s.%d", argv[1], world_rank);
    if (!(out = fopen(path, "wb"))) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &half);
    MPI_Comm_split(MPI_COMM_WORLD, 0, p - world_rank, &reversed);
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < 3 ? 0 : MPI_UNDEFINED, world_rank, &three);
    run_comm(MPI_COMM_WORLD, 0);
    run_comm(half, 1);
    run_comm(reversed, 2);
    if (three != MPI_COMM_NULL) {
        run_comm(three, 3);
        MPI_Comm_free(&three);
    }
    MPI_Comm_free(&half);
    MPI_Comm_free(&reversed);
    if (fclose(out)) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return 0;
}
