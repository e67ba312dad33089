/*
 * mpifpga-osu: the measured collective calls, their buffers, and the
 * validation (osu.h).  Written from scratch for this project.
 *
 * Validation patterns: every element is a small integer that depends on the
 * sending rank, the element index and the validation round, so every result
 * is exact in char, int, float and double (sums of a few ranks of values
 * below 23 stay far below 2^24; char sums wrap the same way in MPI and
 * here).  Root is rank 0 for reduce, bcast, scatter and gather.
 */
#include "osu.h"
#include "mpifpga/osu.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OSU_ROOT 0
#define OSU_ALIGN 4096

const struct osu_collinfo osu_colls[OSU_NCOLL] = {
    [OSU_ALLREDUCE] = {"allreduce", "Allreduce", 1},
    [OSU_REDUCE] = {"reduce", "Reduce", 1},
    [OSU_BCAST] = {"bcast", "Broadcast", 0},
    [OSU_SCATTER] = {"scatter", "Scatter", 0},
    [OSU_GATHER] = {"gather", "Gather", 0},
    [OSU_ALLGATHER] = {"allgather", "Allgather", 0},
    [OSU_REDUCE_SCATTER] = {"reduce_scatter", "Reduce_scatter", 1},
    [OSU_ALLTOALL] = {"alltoall", "All-to-All Personalized Exchange", 0},
    [OSU_BARRIER] = {"barrier", "Barrier", 0},
};

const struct osu_typeinfo osu_types[OSU_NTYPE] = {
    [OSU_T_CHAR] = {"char", "MPI_CHAR", sizeof(char)},
    [OSU_T_INT] = {"int", "MPI_INT", sizeof(int)},
    [OSU_T_FLOAT] = {"float", "MPI_FLOAT", sizeof(float)},
    [OSU_T_DOUBLE] = {"double", "MPI_DOUBLE", sizeof(double)},
};

MPI_Datatype osu_mpi_type(enum osu_type t)
{
    switch (t) {
    case OSU_T_CHAR: return MPI_CHAR;
    case OSU_T_INT: return MPI_INT;
    case OSU_T_FLOAT: return MPI_FLOAT;
    default: return MPI_DOUBLE;
    }
}

/* Pattern for reductions (summed over ranks) and for data movement. */
static long red_val(int r, size_t j, int k)
{
    return (long)(((size_t)r * 7 + j * 3 + (size_t)k * 5 + 1) % 23);
}

static long mov_val(int r, size_t j, int k)
{
    return (long)(((size_t)r * 13 + j * 7 + (size_t)k * 29 + 3) % 101);
}

/* Alltoall: element j of the block rank r sends to rank d. */
static long a2a_val(int r, int d, int p, size_t j, int k)
{
    return mov_val(r * p + d, j, k);
}

/* Store v as element j of a buffer of type t (char wraps modulo 256). */
static void put(enum osu_type t, char *buf, size_t j, long v)
{
    switch (t) {
    case OSU_T_CHAR: buf[j] = (char)(unsigned char)(v & 0xff); break;
    case OSU_T_INT: ((int *)(void *)buf)[j] = (int)v; break;
    case OSU_T_FLOAT: ((float *)(void *)buf)[j] = (float)v; break;
    default: ((double *)(void *)buf)[j] = (double)v; break;
    }
}

static size_t esize(const struct osu_case *c)
{
    return osu_types[c->type].size;
}

static void *xalloc(size_t n)
{
    void *p = NULL;
    if (n < 64)
        n = 64;
    if (posix_memalign(&p, OSU_ALIGN, n) != 0)
        return NULL;
    memset(p, 0, n);
    return p;
}

int osu_alloc(struct osu_case *c, size_t max_bytes)
{
    size_t es = esize(c), p = (size_t)c->nranks, s = 0, r = 0;
    size_t count = max_bytes / es;
    switch (c->coll) {
    case OSU_ALLREDUCE:
    case OSU_REDUCE: s = r = count * es; break;
    case OSU_BCAST: s = count * es; break;
    case OSU_SCATTER: s = p * count * es; r = count * es; break;
    case OSU_GATHER:
    case OSU_ALLGATHER: s = count * es; r = p * count * es; break;
    case OSU_REDUCE_SCATTER: /* mf_osu_rs_counts: at most count / p + 1 each */
        s = (count ? count : 1) * es;
        r = (count / p + 1) * es;
        break;
    case OSU_ALLTOALL: s = r = p * count * es; break;
    default: break;
    }
    c->sbuf = xalloc(s);
    c->rbuf = xalloc(r);
    c->ebuf = xalloc(s > r ? s : r);
    c->rcounts = calloc(p, sizeof(int));
    if (!c->sbuf || !c->rbuf || !c->ebuf || !c->rcounts) {
        osu_free(c);
        return -1;
    }
    return 0;
}

void osu_free(struct osu_case *c)
{
    free(c->sbuf);
    free(c->rbuf);
    free(c->ebuf);
    free(c->rcounts);
    c->sbuf = c->rbuf = c->ebuf = NULL;
    c->rcounts = NULL;
}

void osu_set_size(struct osu_case *c, size_t bytes)
{
    size_t es = esize(c), p = (size_t)c->nranks;
    size_t count = bytes / es;
    c->bytes = bytes;
    c->count = (int)count;
    switch (c->coll) {
    case OSU_ALLREDUCE:
    case OSU_REDUCE: c->sbytes = c->rbytes = count * es; break;
    case OSU_BCAST: c->sbytes = count * es; c->rbytes = 0; break;
    case OSU_SCATTER: c->sbytes = p * count * es; c->rbytes = count * es; break;
    case OSU_GATHER:
    case OSU_ALLGATHER: c->sbytes = count * es; c->rbytes = p * count * es; break;
    case OSU_REDUCE_SCATTER: { /* the counts OSU 7.4 passes (include/mpifpga/osu.h) */
        uint64_t *counts = calloc(p, sizeof *counts);
        if (!counts)
            abort();
        mf_osu_rs_counts(bytes, (int)p, es, counts);
        c->disp = 0;
        for (size_t i = 0; i < p; i++) {
            c->rcounts[i] = (int)counts[i];
            if (i < (size_t)c->rank)
                c->disp += counts[i];
        }
        c->count = (int)counts[c->rank];
        c->sbytes = count * es;
        c->rbytes = counts[c->rank] * es;
        free(counts);
        break;
    }
    case OSU_ALLTOALL: c->sbytes = c->rbytes = p * count * es; break;
    default: c->count = 0; c->sbytes = c->rbytes = 0; break;
    }
}

void osu_fill(struct osu_case *c, int k)
{
    size_t es = esize(c), n = (size_t)c->count;
    switch (c->coll) {
    case OSU_ALLREDUCE:
    case OSU_REDUCE:
    case OSU_REDUCE_SCATTER:
        for (size_t j = 0; j < c->sbytes / es; j++)
            put(c->type, c->sbuf, j, red_val(c->rank, j, k));
        break;
    case OSU_BCAST:
        if (c->rank == OSU_ROOT)
            for (size_t j = 0; j < n; j++)
                put(c->type, c->sbuf, j, mov_val(OSU_ROOT, j, k));
        break;
    case OSU_SCATTER:
        if (c->rank == OSU_ROOT)
            for (int d = 0; d < c->nranks; d++)
                for (size_t j = 0; j < n; j++)
                    put(c->type, c->sbuf, (size_t)d * n + j, mov_val(d, j, k));
        break;
    case OSU_GATHER:
    case OSU_ALLGATHER:
        for (size_t j = 0; j < n; j++)
            put(c->type, c->sbuf, j, mov_val(c->rank, j, k));
        break;
    case OSU_ALLTOALL:
        for (int d = 0; d < c->nranks; d++)
            for (size_t j = 0; j < n; j++)
                put(c->type, c->sbuf, (size_t)d * n + j, a2a_val(c->rank, d, c->nranks, j, k));
        break;
    default: break;
    }
}

int osu_call(struct osu_case *c)
{
    MPI_Datatype dt = osu_mpi_type(c->type);
    MPI_Comm w = MPI_COMM_WORLD;
    switch (c->coll) {
    case OSU_ALLREDUCE: return MPI_Allreduce(c->sbuf, c->rbuf, c->count, dt, MPI_SUM, w);
    case OSU_REDUCE: return MPI_Reduce(c->sbuf, c->rbuf, c->count, dt, MPI_SUM, OSU_ROOT, w);
    case OSU_BCAST: return MPI_Bcast(c->sbuf, c->count, dt, OSU_ROOT, w);
    case OSU_SCATTER:
        return MPI_Scatter(c->sbuf, c->count, dt, c->rbuf, c->count, dt, OSU_ROOT, w);
    case OSU_GATHER:
        return MPI_Gather(c->sbuf, c->count, dt, c->rbuf, c->count, dt, OSU_ROOT, w);
    case OSU_ALLGATHER: return MPI_Allgather(c->sbuf, c->count, dt, c->rbuf, c->count, dt, w);
    case OSU_REDUCE_SCATTER:
        return MPI_Reduce_scatter(c->sbuf, c->rbuf, c->rcounts, dt, MPI_SUM, w);
    case OSU_ALLTOALL: return MPI_Alltoall(c->sbuf, c->count, dt, c->rbuf, c->count, dt, w);
    default: return MPI_Barrier(w);
    }
}

/* Elements of got that differ from want (n elements of es bytes). */
static long compare(const char *got, const char *want, size_t n, size_t es)
{
    long bad = 0;
    for (size_t j = 0; j < n; j++)
        if (memcmp(got + j * es, want + j * es, es) != 0)
            bad++;
    return bad;
}

long osu_validate(struct osu_case *c, int k)
{
    size_t es = esize(c), n = (size_t)c->count, p = (size_t)c->nranks;
    int rc;

    if (c->coll == OSU_BARRIER) {
        PMPI_Barrier(MPI_COMM_WORLD);
        rc = osu_call(c);
        return rc == MPI_SUCCESS ? 0 : 1;
    }
    osu_fill(c, k);
    /* Poison what the call must overwrite, with a byte that differs from
     * round to round: repeated 0xA5 / 0xC3 bytes are never a pattern value
     * in int, float or double; in char only a wrapped sum over many ranks
     * can hit one, and then not in both rounds. */
    int poison = (k & 1) ? 0xA5 : 0xC3;
    memset(c->rbuf, poison, c->rbytes);
    if (c->coll == OSU_BCAST && c->rank != OSU_ROOT)
        memset(c->sbuf, poison, c->sbytes);
    PMPI_Barrier(MPI_COMM_WORLD);
    rc = osu_call(c);
    if (rc != MPI_SUCCESS)
        return 1;

    switch (c->coll) {
    case OSU_ALLREDUCE:
    case OSU_REDUCE:
        if (c->coll == OSU_REDUCE && c->rank != OSU_ROOT)
            return 0;
        for (size_t j = 0; j < n; j++) {
            long s = 0;
            for (int q = 0; q < c->nranks; q++)
                s += red_val(q, j, k);
            put(c->type, c->ebuf, j, s);
        }
        return compare(c->rbuf, c->ebuf, n, es);
    case OSU_REDUCE_SCATTER:
        for (size_t i = 0; i < n; i++) {
            long s = 0;
            for (int q = 0; q < c->nranks; q++)
                s += red_val(q, c->disp + i, k);
            put(c->type, c->ebuf, i, s);
        }
        return compare(c->rbuf, c->ebuf, n, es);
    case OSU_BCAST:
        for (size_t j = 0; j < n; j++)
            put(c->type, c->ebuf, j, mov_val(OSU_ROOT, j, k));
        return compare(c->sbuf, c->ebuf, n, es);
    case OSU_SCATTER:
        for (size_t j = 0; j < n; j++)
            put(c->type, c->ebuf, j, mov_val(c->rank, j, k));
        return compare(c->rbuf, c->ebuf, n, es);
    case OSU_GATHER:
    case OSU_ALLGATHER:
        if (c->coll == OSU_GATHER && c->rank != OSU_ROOT)
            return 0;
        for (size_t d = 0; d < p; d++)
            for (size_t j = 0; j < n; j++)
                put(c->type, c->ebuf, d * n + j, mov_val((int)d, j, k));
        return compare(c->rbuf, c->ebuf, p * n, es);
    case OSU_ALLTOALL:
        for (size_t s = 0; s < p; s++)
            for (size_t j = 0; j < n; j++)
                put(c->type, c->ebuf, s * n + j, a2a_val((int)s, c->rank, (int)p, j, k));
        return compare(c->rbuf, c->ebuf, p * n, es);
    default: return 0;
    }
}
