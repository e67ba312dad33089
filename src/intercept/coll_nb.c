/*
 * Nonblocking collectives (MPI_Ibcast ... MPI_Ibarrier) offloaded.
 *
 * Each MPI_I* call runs through the same builders and the same offload
 * decision as its blocking twin (coll.c, offload.c), so the decision is
 * identical on all members.  This first step posts and completes the call
 * in the network at the start (the device runs one call to completion),
 * and returns an MPI generalized request (MPI_Grequest_start) that is
 * already complete: MPI_Wait/Test/Waitall/Waitany/Testall of unmodified
 * programs complete it without a busy wait and without intercepting them.
 *
 * Modeled time: the call enters the model at the rank's virtual time v;
 * v then goes back to the start (the collective runs on in the network
 * while the host computes), and the request's query function -- which
 * MPICH runs when MPI_Wait/Test completes the request -- sets
 * v = max(v, modeled completion): overlap as in doc/architecture.md.
 *
 * A call that falls back runs MPICH's own PMPI_I* function and returns
 * its request.  Not done yet (doc/architecture.md): a post/complete split
 * in the device and engine, so that a start does not wait for the other
 * members (see "Nonblocking collectives" there for what that implies).
 */
#include <stdlib.h>

#include "intercept/coll.h"
#include "intercept/host.h"
#include "intercept/offload.h"
#include "profile/callsite.h"

typedef struct {
    double done; /* modeled completion, s of virtual time */
} nb_req_t;

static int nb_query(void *extra, MPI_Status *st)
{
    mf_vtime_at_least(((nb_req_t *)extra)->done);
    PMPI_Status_set_elements(st, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int nb_free(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

static int nb_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS; /* already complete: nothing to cancel */
}

/* A completed generalized request carrying the modeled completion time. */
static int complete_request(double done, MPI_Request *req)
{
    nb_req_t *x = malloc(sizeof *x);
    int rc;
    if (!x)
        return mf_raise(MPI_COMM_WORLD, "mpifpga: out of memory for a nonblocking "
                                        "collective's request");
    x->done = done;
    rc = PMPI_Grequest_start(nb_query, nb_free, nb_cancel, x, req);
    if (rc != MPI_SUCCESS) {
        free(x);
        return rc;
    }
    return PMPI_Grequest_complete(*req);
}

/* Pause v, note the start; the builder runs the call (1: handled). */
#define NB_BEGIN()                                                                              \
    int rc = MPI_SUCCESS, handled;                                                              \
    mf_vclock_pause();                                                                          \
    double start = mf_vtime_now();                                                              \
    mf_offload_form = 1;

/* Handled: hold v at the start and hand back a completed request;
 * else run MPICH's nonblocking call (FALLBACK). */
#define NB_END(FALLBACK)                                                                        \
    mf_offload_form = 0;                                                                          \
    if (handled && rc == MPI_SUCCESS) {                                                         \
        double done = mf_vtime_now();                                                           \
        mf_vtime_hold(start);                                                                   \
        rc = complete_request(done, request);                                                   \
    } else if (!handled) {                                                                      \
        rc = FALLBACK;                                                                          \
    }                                                                                           \
    mf_vclock_resume();                                                                         \
    return rc;

MF_PUBLIC int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                             MPI_Request *request)
{
    NB_BEGIN();
    handled = count >= 0 && mf_allreduce(sendbuf, recvbuf, (uint64_t)count, datatype, op, comm,
                                         &rc);
    NB_END(PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request));
}

MF_PUBLIC int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    handled = count >= 0 && mf_reduce(sendbuf, recvbuf, (uint64_t)count, datatype, op, root,
                                      comm, &rc);
    NB_END(PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request));
}

MF_PUBLIC int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
                         MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    handled = count >= 0 && mf_bcast(buffer, (uint64_t)count, datatype, root, comm, &rc);
    NB_END(PMPI_Ibcast(buffer, count, datatype, root, comm, request));
}

MF_PUBLIC int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    handled = mf_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                         &rc);
    NB_END(PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                         request));
}

MF_PUBLIC int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    handled = mf_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                        &rc);
    NB_END(PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                        request));
}

MF_PUBLIC int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    NB_BEGIN();
    handled = mf_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &rc);
    NB_END(PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           request));
}

MF_PUBLIC int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                  MPI_Request *request)
{
    NB_BEGIN();
    handled = mf_reduce_scatter(sendbuf, recvbuf, recvcounts, NULL, datatype, op, comm, &rc);
    NB_END(PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request));
}

MF_PUBLIC int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                        MPI_Request *request)
{
    NB_BEGIN();
    handled = recvcount >= 0 && mf_reduce_scatter_block(sendbuf, recvbuf, (uint64_t)recvcount,
                                                        datatype, op, comm, &rc);
    NB_END(PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                      request));
}

MF_PUBLIC int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    handled = mf_barrier(comm, &rc);
    NB_END(PMPI_Ibarrier(comm, request));
}
