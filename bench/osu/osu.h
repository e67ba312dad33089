/*
 * mpifpga-osu: an OSU-Micro-Benchmarks-style collective latency benchmark
 * (written from scratch for this project; no OSU code).  Shared between
 * osu_coll.c (options, sweep, output) and osu_kernels.c (the timed
 * collective calls, buffer filling and validation).
 */
#ifndef MPIFPGA_OSU_H
#define MPIFPGA_OSU_H

#include <mpi.h>
#include <stddef.h>

/* The collectives, in the order "-c all" runs them. */
enum osu_coll {
    OSU_ALLREDUCE,
    OSU_REDUCE,
    OSU_BCAST,
    OSU_SCATTER,
    OSU_GATHER,
    OSU_ALLGATHER,
    OSU_REDUCE_SCATTER,
    OSU_ALLTOALL,
    OSU_BARRIER,
    OSU_NCOLL
};

/* -T: the element types. */
enum osu_type { OSU_T_CHAR, OSU_T_INT, OSU_T_FLOAT, OSU_T_DOUBLE, OSU_NTYPE };

struct osu_collinfo {
    const char *name;  /* "allreduce": -c and the csv/json name */
    const char *title; /* "Allreduce": the table header */
    int reduction;     /* uses MPI_SUM (default type float, else char) */
};
extern const struct osu_collinfo osu_colls[OSU_NCOLL];

struct osu_typeinfo {
    const char *name;  /* "float": -T */
    const char *mpi;   /* "MPI_FLOAT": printed */
    size_t size;
};
extern const struct osu_typeinfo osu_types[OSU_NTYPE];

MPI_Datatype osu_mpi_type(enum osu_type t);

/*
 * One collective at one message size.  bytes is the OSU message size: the
 * vector for allreduce/reduce/bcast, the per-rank block for
 * scatter/gather/allgather, the whole vector for reduce_scatter (each rank
 * receives count/P elements, at least 1); unused for barrier.
 */
struct osu_case {
    enum osu_coll coll;
    enum osu_type type;
    size_t bytes;
    int rank, nranks;
    char *sbuf, *rbuf, *ebuf; /* send, receive, expected (osu_alloc) */
    size_t sbytes, rbytes;    /* how much of sbuf / rbuf the call uses */
    int count;                /* elements per call argument (see above) */
    int *rcounts;             /* reduce_scatter: count on every rank (OSU 7.4 split) */
    size_t disp;              /* reduce_scatter: elements before this rank's block */
};

/* Buffers for every size up to max_bytes of coll; 0, or -1 out of memory. */
int osu_alloc(struct osu_case *c, size_t max_bytes);
void osu_free(struct osu_case *c);
/* Set bytes (and count, sbytes, rbytes) for one size. */
void osu_set_size(struct osu_case *c, size_t bytes);
/* Fill the send buffer with the pattern of validation round k. */
void osu_fill(struct osu_case *c, int k);
/* The collective call being measured (MPI_, so an interposer sees it). */
int osu_call(struct osu_case *c);
/* One validated call (round k): fill, poison the receive buffer, call,
 * check.  Returns the number of wrong elements on this rank (0: pass). */
long osu_validate(struct osu_case *c, int k);

#endif
