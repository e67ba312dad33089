/*
 * The transcription's private interface (mpich_ref.h is the one
 * test/test_sched.c uses): the "MPI runtime" one rank sees and the default
 * selection and driver (mpich_ref.c), and the algorithms by collective:
 *   mpich_ref_bcast.c  Bcast, Reduce
 *   mpich_ref_all.c    Allreduce, Allgather
 *   mpich_ref_rs.c     Reduce_scatter, Scatter, Gather, Barrier
 *   mpich_ref_check.c  properties independent of MPICH (pairing, progress)
 */
#ifndef MF_TEST_MPICH_REF_INT_H
#define MF_TEST_MPICH_REF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "mpich_ref.h"

typedef int64_t MPI_Aint;

#define MPL_MIN(a, b) ((a) < (b) ? (a) : (b))

typedef struct {
    int rank, size; /* comm_ptr->rank, comm_ptr->local_size */
    MPI_Aint esize; /* datatype size */
    ref_evlist_t *out;
    const ref_evlist_t *prev; /* previous run, all ranks; NULL in the first */
    int *nrecv_from;          /* receives posted so far, per source */
    int oom;
    int *size_err;            /* [size]: MPICH's own end-of-algorithm size check failed */
} rctx_t;

/* mpich_ref.c: the runtime */
void ref_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* comm_ptr->pof2: largest power of two <= comm_size (MPL_pof2) */
int comm_pof2(int comm_size);
void MPIC_Send(rctx_t *x, int dst, MPI_Aint bytes);
MPI_Aint MPIC_Recv(rctx_t *x, int src, MPI_Aint cap);
MPI_Aint MPIC_Sendrecv(rctx_t *x, int dst, MPI_Aint sbytes, int src, MPI_Aint rcap);
void MPIR_Reduce_local(rctx_t *x, MPI_Aint count);

/* the algorithms */
void ref_bcast_intra_binomial(rctx_t *x, MPI_Aint count, int root);
void ref_bcast_intra_scatter_recursive_doubling_allgather(rctx_t *x, MPI_Aint count, int root);
void ref_bcast_intra_scatter_ring_allgather(rctx_t *x, MPI_Aint count, int root);
void ref_reduce_intra_binomial(rctx_t *x, MPI_Aint count, int root);
void ref_reduce_intra_reduce_scatter_gather(rctx_t *x, MPI_Aint count, int root);
void ref_allreduce_intra_recursive_doubling(rctx_t *x, MPI_Aint count);
void ref_allreduce_intra_reduce_scatter_allgather(rctx_t *x, MPI_Aint count);
void ref_allgather_intra_recursive_doubling(rctx_t *x, MPI_Aint recvcount);
void ref_allgather_intra_brucks(rctx_t *x, MPI_Aint recvcount);
void ref_allgather_intra_ring(rctx_t *x, MPI_Aint recvcount);
void ref_reduce_scatter_intra_recursive_halving(rctx_t *x, const MPI_Aint *recvcounts);
void ref_reduce_scatter_intra_pairwise(rctx_t *x, const MPI_Aint *recvcounts);
void ref_scatter_intra_binomial(rctx_t *x, MPI_Aint sendcount, int root);
void ref_gather_intra_binomial(rctx_t *x, MPI_Aint sendcount, int root);
void ref_barrier_intra_dissemination(rctx_t *x);

#endif
