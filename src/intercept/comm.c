/*
 * Communicator constructors: each calls MPICH, then gives the new
 * communicator its CT row and entry (ct/ct_comm.c) on every member.
 * MPI_Comm_free needs no wrapper: freeing runs the attribute's delete
 * callback, which releases the row.  MPI_Comm_idup(_with_info) cannot run
 * collectives while the dup is pending, so its communicator gets its row
 * at its first collective, as does any communicator created by a call not
 * listed here (MPI_Comm_create_from_group, MPI_Intercomm_create, ...).
 */
#include "intercept/host.h"

/* Attach if the constructor succeeded and this rank is a member. */
static int attached(int rc, MPI_Comm *newcomm)
{
    if (rc == MPI_SUCCESS && newcomm && *newcomm != MPI_COMM_NULL)
        mf_comm_attach(*newcomm);
    return rc;
}

MF_PUBLIC int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return attached(PMPI_Comm_dup(comm, newcomm), newcomm);
}

MF_PUBLIC int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return attached(PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm);
}

MF_PUBLIC int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    return attached(PMPI_Comm_split(comm, color, key, newcomm), newcomm);
}

MF_PUBLIC int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    return attached(PMPI_Comm_split_type(comm, split_type, key, info, newcomm), newcomm);
}

MF_PUBLIC int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    return attached(PMPI_Comm_create(comm, group, newcomm), newcomm);
}

MF_PUBLIC int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    return attached(PMPI_Comm_create_group(comm, group, tag, newcomm), newcomm);
}

MF_PUBLIC int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart)
{
    return attached(PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart),
                    comm_cart);
}

MF_PUBLIC int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    return attached(PMPI_Cart_sub(comm, remain_dims, newcomm), newcomm);
}

MF_PUBLIC int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[],
                     int reorder, MPI_Comm *comm_graph)
{
    return attached(PMPI_Graph_create(comm_old, nnodes, indx, edges, reorder, comm_graph),
                    comm_graph);
}

MF_PUBLIC int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm *comm_dist_graph)
{
    return attached(PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights,
                                           info, reorder, comm_dist_graph),
                    comm_dist_graph);
}

MF_PUBLIC int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    return attached(PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights,
                                                    outdegree, destinations, destweights, info,
                                                    reorder, comm_dist_graph),
                    comm_dist_graph);
}

MF_PUBLIC int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    return attached(PMPI_Intercomm_merge(intercomm, high, newintracomm), newintracomm);
}
