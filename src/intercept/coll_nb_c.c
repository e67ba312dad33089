/* MPI-4 large-count variants of the nonblocking collectives: the same
 * bodies as coll_nb.c, MPI_Count counts (MPI_Ibarrier has none). */
#include "intercept/coll.h"
#include "intercept/nb_op.h"

MF_PUBLIC int MPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = count >= 0 &&
                  mf_allreduce(sendbuf, recvbuf, (uint64_t)count, datatype, op, comm, &rc);
    NB_END(PMPI_Iallreduce_c(sendbuf, recvbuf, count, datatype, op, comm, request));
}

MF_PUBLIC int MPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                            MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = count >= 0 && mf_reduce(sendbuf, recvbuf, (uint64_t)count, datatype, op,
                                          root, comm, &rc);
    NB_END(PMPI_Ireduce_c(sendbuf, recvbuf, count, datatype, op, root, comm, request));
}

MF_PUBLIC int MPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                           MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = count >= 0 && mf_bcast(buffer, (uint64_t)count, datatype, root, comm, &rc);
    NB_END(PMPI_Ibcast_c(buffer, count, datatype, root, comm, request));
}

MF_PUBLIC int MPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = mf_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                             comm, &rc);
    NB_END(PMPI_Iscatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                           comm, request));
}

MF_PUBLIC int MPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = mf_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                            comm, &rc);
    NB_END(PMPI_Igather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                          comm, request));
}

MF_PUBLIC int MPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = mf_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                               &rc);
    NB_END(PMPI_Iallgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                             request));
}

MF_PUBLIC int MPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf,
                                    const MPI_Count recvcounts[], MPI_Datatype datatype,
                                    MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = mf_reduce_scatter(sendbuf, recvbuf, NULL, recvcounts, datatype, op, comm, &rc);
    NB_END(PMPI_Ireduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op, comm, request));
}

MF_PUBLIC int MPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf,
                                          MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op,
                                          MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = recvcount >= 0 && mf_reduce_scatter_block(sendbuf, recvbuf,
                                                            (uint64_t)recvcount, datatype, op,
                                                            comm, &rc);
    NB_END(PMPI_Ireduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                        request));
}

MF_PUBLIC int MPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = count >= 0 &&
                  mf_scan(sendbuf, recvbuf, (uint64_t)count, datatype, op, 0, comm, &rc);
    NB_END(PMPI_Iscan_c(sendbuf, recvbuf, count, datatype, op, comm, request));
}

MF_PUBLIC int MPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                            MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = count >= 0 &&
                  mf_scan(sendbuf, recvbuf, (uint64_t)count, datatype, op, 1, comm, &rc);
    NB_END(PMPI_Iexscan_c(sendbuf, recvbuf, count, datatype, op, comm, request));
}

MF_PUBLIC int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    NB_BEGIN();
    if (nbop)
        handled = mf_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                              &rc);
    NB_END(PMPI_Ialltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                            request));
}
