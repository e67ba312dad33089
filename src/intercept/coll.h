/*
 * Shared bodies of the intercepted collectives (coll.c), with 64-bit
 * counts so MPI_X and MPI_X_c use the same code.  Each returns 1 when it
 * handled the call (*rc is the MPI return code), 0 when the caller must
 * run the PMPI_ function.
 */
#ifndef MF_COLL_H
#define MF_COLL_H

#include <mpi.h>
#include <stdint.h>

int mf_allreduce(const void *sbuf, void *rbuf, uint64_t count, MPI_Datatype t, MPI_Op op,
                 MPI_Comm comm, int *rc);
int mf_reduce(const void *sbuf, void *rbuf, uint64_t count, MPI_Datatype t, MPI_Op op, int root,
              MPI_Comm comm, int *rc);
int mf_bcast(void *buf, uint64_t count, MPI_Datatype t, int root, MPI_Comm comm, int *rc);
/* Scatter, gather, allgather take the counts as passed (signed): a count
 * the standard makes insignificant on this rank (e.g. a non-root's
 * scatter sendcount) may be anything, and is never looked at. */
int mf_scatter(const void *sbuf, int64_t scount, MPI_Datatype stype, void *rbuf, int64_t rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm, int *rc);
int mf_gather(const void *sbuf, int64_t scount, MPI_Datatype stype, void *rbuf, int64_t rcount,
              MPI_Datatype rtype, int root, MPI_Comm comm, int *rc);
int mf_allgather(const void *sbuf, int64_t scount, MPI_Datatype stype, void *rbuf,
                 int64_t rcount, MPI_Datatype rtype, MPI_Comm comm, int *rc);
/* Element counts per comm rank: icounts (MPI_Reduce_scatter) or ccounts
 * (MPI_Reduce_scatter_c), the other NULL. */
int mf_reduce_scatter(const void *sbuf, void *rbuf, const int *icounts, const MPI_Count *ccounts,
                      MPI_Datatype t, MPI_Op op, MPI_Comm comm, int *rc);
int mf_reduce_scatter_block(const void *sbuf, void *rbuf, uint64_t count, MPI_Datatype t,
                            MPI_Op op, MPI_Comm comm, int *rc);
int mf_barrier(MPI_Comm comm, int *rc);
int mf_alltoall(const void *sbuf, int64_t scount, MPI_Datatype stype, void *rbuf, int64_t rcount,
                MPI_Datatype rtype, MPI_Comm comm, int *rc);
/* MPI_Scan (exclusive 0) and MPI_Exscan (1). */
int mf_scan(const void *sbuf, void *rbuf, uint64_t count, MPI_Datatype t, MPI_Op op,
            int exclusive, MPI_Comm comm, int *rc);

#endif
