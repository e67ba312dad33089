/*
 * Nonblocking collectives (MPI_Ibcast ... MPI_Ibarrier) offloaded.
 *
 * Each MPI_I* call runs through the same builders and the same offload
 * decision as its blocking twin (coll.c, offload.c), so the decision is
 * identical on all members.  With mf_offload_deferred set, mf_offload
 * posts the call to the device and returns: the start never waits for
 * another member.  The program gets a generalized request that nb_op.c
 * completes when the device has the call's verdict; MPI_Wait / Test /
 * Waitall / Waitany / ... (wait.c) drive the device and MPICH meanwhile,
 * without a busy wait.  Modeled time: see nb_op.h.
 *
 * A call that falls back runs MPICH's own PMPI_I* function and returns its
 * request.
 */
#include "intercept/coll.h"
#include "intercept/host.h"
#include "intercept/nb_op.h"
#include "intercept/offload.h"
#include "profile/callsite.h"

MF_PUBLIC int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                             MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = count >= 0 && mf_allreduce(sendbuf, recvbuf, (uint64_t)count, datatype, op, comm,
                                             &rc);
    NB_END(PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request));
}

MF_PUBLIC int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = count >= 0 && mf_reduce(sendbuf, recvbuf, (uint64_t)count, datatype, op, root,
                                          comm, &rc);
    NB_END(PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request));
}

MF_PUBLIC int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
                         MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = count >= 0 && mf_bcast(buffer, (uint64_t)count, datatype, root, comm, &rc);
    NB_END(PMPI_Ibcast(buffer, count, datatype, root, comm, request));
}

MF_PUBLIC int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
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
    if (nbop)
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
    if (nbop)
        handled = mf_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &rc);
    NB_END(PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           request));
}

MF_PUBLIC int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                  MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = mf_reduce_scatter(sendbuf, recvbuf, recvcounts, NULL, datatype, op, comm, &rc);
    NB_END(PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request));
}

MF_PUBLIC int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                        MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = recvcount >= 0 && mf_reduce_scatter_block(sendbuf, recvbuf, (uint64_t)recvcount,
                                                            datatype, op, comm, &rc);
    NB_END(PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                      request));
}

MF_PUBLIC int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = mf_barrier(comm, &rc);
    NB_END(PMPI_Ibarrier(comm, request));
}

MF_PUBLIC int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = count >= 0 &&
                  mf_scan(sendbuf, recvbuf, (uint64_t)count, datatype, op, 0, comm, &rc);
    NB_END(PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, request));
}

MF_PUBLIC int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = count >= 0 &&
                  mf_scan(sendbuf, recvbuf, (uint64_t)count, datatype, op, 1, comm, &rc);
    NB_END(PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, request));
}

MF_PUBLIC int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = mf_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                              &rc);
    NB_END(PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                          request));
}
