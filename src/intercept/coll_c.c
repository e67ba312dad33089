/* MPI-4 large-count variants: the same bodies as coll.c, MPI_Count counts. */
#include <stddef.h>

#include "intercept/coll.h"
#include "intercept/host.h"

MF_PUBLIC int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm)
{
    int rc;
    if (count >= 0 && mf_allreduce(sendbuf, recvbuf, (uint64_t)count, datatype, op, comm, &rc))
        return rc;
    return PMPI_Allreduce_c(sendbuf, recvbuf, count, datatype, op, comm);
}

MF_PUBLIC int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm)
{
    int rc;
    if (count >= 0 &&
        mf_reduce(sendbuf, recvbuf, (uint64_t)count, datatype, op, root, comm, &rc))
        return rc;
    return PMPI_Reduce_c(sendbuf, recvbuf, count, datatype, op, root, comm);
}

MF_PUBLIC int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    int rc;
    if (count >= 0 && mf_bcast(buffer, (uint64_t)count, datatype, root, comm, &rc))
        return rc;
    return PMPI_Bcast_c(buffer, count, datatype, root, comm);
}

MF_PUBLIC int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int rc;
    if (sendcount >= 0 && recvcount >= 0 &&
        mf_scatter(sendbuf, (uint64_t)sendcount, sendtype, recvbuf, (uint64_t)recvcount,
                   recvtype, root, comm, &rc))
        return rc;
    return PMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                          comm);
}

MF_PUBLIC int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int rc;
    if (sendcount >= 0 && recvcount >= 0 &&
        mf_gather(sendbuf, (uint64_t)sendcount, sendtype, recvbuf, (uint64_t)recvcount,
                  recvtype, root, comm, &rc))
        return rc;
    return PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                         comm);
}

MF_PUBLIC int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc;
    if (sendcount >= 0 && recvcount >= 0 &&
        mf_allgather(sendbuf, (uint64_t)sendcount, sendtype, recvbuf, (uint64_t)recvcount,
                     recvtype, comm, &rc))
        return rc;
    return PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

MF_PUBLIC int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int rc;
    if (mf_reduce_scatter(sendbuf, recvbuf, NULL, recvcounts, datatype, op, comm, &rc))
        return rc;
    return PMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

MF_PUBLIC int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int rc;
    if (recvcount >= 0 &&
        mf_reduce_scatter_block(sendbuf, recvbuf, (uint64_t)recvcount, datatype, op, comm, &rc))
        return rc;
    return PMPI_Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, op, comm);
}
