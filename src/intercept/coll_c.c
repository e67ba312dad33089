/* MPI-4 large-count variants: the same bodies as coll.c, MPI_Count counts. */
#include <stddef.h>

#include "intercept/coll.h"
#include "intercept/host.h"
#include "profile/callsite.h"

MF_PUBLIC int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_ALLREDUCE, __builtin_return_address(0), datatype, op, comm);
    if (!(count >= 0 && mf_allreduce(sendbuf, recvbuf, (uint64_t)count, datatype, op, comm, &rc)))
        rc = PMPI_Allreduce_c(sendbuf, recvbuf, count, datatype, op, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_ALLTOALL, __builtin_return_address(0), recvtype, MPI_OP_NULL,
                  comm);
    if (!mf_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &rc))
        rc = PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_SCAN, __builtin_return_address(0), datatype, op, comm);
    if (!(count >= 0 && mf_scan(sendbuf, recvbuf, (uint64_t)count, datatype, op, 0, comm, &rc)))
        rc = PMPI_Scan_c(sendbuf, recvbuf, count, datatype, op, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_EXSCAN, __builtin_return_address(0), datatype, op, comm);
    if (!(count >= 0 && mf_scan(sendbuf, recvbuf, (uint64_t)count, datatype, op, 1, comm, &rc)))
        rc = PMPI_Exscan_c(sendbuf, recvbuf, count, datatype, op, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_REDUCE, __builtin_return_address(0), datatype, op, comm);
    if (!(count >= 0 &&
          mf_reduce(sendbuf, recvbuf, (uint64_t)count, datatype, op, root, comm, &rc)))
        rc = PMPI_Reduce_c(sendbuf, recvbuf, count, datatype, op, root, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_BCAST, __builtin_return_address(0), datatype, MPI_OP_NULL, comm);
    if (!(count >= 0 && mf_bcast(buffer, (uint64_t)count, datatype, root, comm, &rc)))
        rc = PMPI_Bcast_c(buffer, count, datatype, root, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_SCATTER, __builtin_return_address(0),
                  recvbuf == MPI_IN_PLACE ? sendtype : recvtype, MPI_OP_NULL, comm);
    if (!(mf_scatter(sendbuf, (int64_t)sendcount, sendtype, recvbuf, (int64_t)recvcount,
                     recvtype, root, comm, &rc)))
        rc = PMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                          comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_GATHER, __builtin_return_address(0),
                  sendbuf == MPI_IN_PLACE ? recvtype : sendtype, MPI_OP_NULL, comm);
    if (!(mf_gather(sendbuf, (int64_t)sendcount, sendtype, recvbuf, (int64_t)recvcount,
                    recvtype, root, comm, &rc)))
        rc = PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                         comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_ALLGATHER, __builtin_return_address(0), recvtype, MPI_OP_NULL, comm);
    if (!(mf_allgather(sendbuf, (int64_t)sendcount, sendtype, recvbuf, (int64_t)recvcount,
                       recvtype, comm, &rc)))
        rc = PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_REDUCE_SCATTER, __builtin_return_address(0), datatype, op, comm);
    if (!(mf_reduce_scatter(sendbuf, recvbuf, NULL, recvcounts, datatype, op, comm, &rc)))
        rc = PMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_REDUCE_SCATTER_BLOCK, __builtin_return_address(0),
                  datatype, op, comm);
    if (!(recvcount >= 0 &&
          mf_reduce_scatter_block(sendbuf, recvbuf, (uint64_t)recvcount, datatype, op, comm, &rc)))
        rc = PMPI_Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, op, comm);
    return mf_site_end(&site, rc);
}
