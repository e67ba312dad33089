/* MPICH 4.0 Reduce_scatter, Scatter, Gather and Barrier, transcribed
 * (conventions: mpich_ref.c). */
#include <stdlib.h>

#include "mpich_ref_int.h"

/* ==== Reduce_scatter ======================================================== */

/* src/mpi/coll/reduce_scatter/reduce_scatter_intra_recursive_halving.c,
 * MPIR_Reduce_scatter_intra_recursive_halving (read at pmodels/mpich 0500fec2,
 * 3.4-era; same structure in 4.0).  Commutative ops only. */
void ref_reduce_scatter_intra_recursive_halving(rctx_t *x, const MPI_Aint *recvcounts)
{
    int rank, comm_size, i;
    MPI_Aint total_count;
    int dst;
    int mask;
    int rem, newdst, send_idx, recv_idx, last_idx;
    MPI_Aint send_cnt, recv_cnt;
    int pof2, old_i, newrank;
    MPI_Aint esz = x->esize;

    comm_size = x->size;
    rank = x->rank;

    MPI_Aint *disps = calloc((size_t)comm_size, sizeof *disps);
    if (!disps) {
        x->oom = 1;
        return;
    }

    total_count = 0;
    for (i = 0; i < comm_size; i++) {
        disps[i] = total_count;
        total_count += recvcounts[i];
    }

    if (total_count == 0) {
        free(disps);
        return;
    }

    pof2 = comm_pof2(comm_size);

    rem = comm_size - pof2;

    if (rank < 2 * rem) {
        if (rank % 2 == 0) { /* even */
            /* MPIC_Send(tmp_results, total_count, datatype, rank + 1) */
            MPIC_Send(x, rank + 1, total_count * esz);
            newrank = -1;
        } else { /* odd */
            /* MPIC_Recv(tmp_recvbuf, total_count, datatype, rank - 1) */
            MPIC_Recv(x, rank - 1, total_count * esz);
            MPIR_Reduce_local(x, total_count);
            /* change the rank */
            newrank = rank / 2;
        }
    } else /* rank >= 2*rem */
        newrank = rank - rem;

    if (newrank != -1) {
        MPI_Aint *newcnts = calloc((size_t)pof2, sizeof *newcnts);
        MPI_Aint *newdisps = calloc((size_t)pof2, sizeof *newdisps);
        if (!newcnts || !newdisps) {
            x->oom = 1;
            free(newcnts);
            free(newdisps);
            free(disps);
            return;
        }

        for (i = 0; i < pof2; i++) {
            /* what does i map to in the old ranking? */
            old_i = (i < rem) ? i * 2 + 1 : i + rem;
            if (old_i < 2 * rem) {
                /* This process has to also do its left neighbor's
                 * work */
                newcnts[i] = recvcounts[old_i] + recvcounts[old_i - 1];
            } else
                newcnts[i] = recvcounts[old_i];
        }

        newdisps[0] = 0;
        for (i = 1; i < pof2; i++)
            newdisps[i] = newdisps[i - 1] + newcnts[i - 1];

        mask = pof2 >> 1;
        send_idx = recv_idx = 0;
        last_idx = pof2;
        while (mask > 0) {
            newdst = newrank ^ mask;
            /* find real rank of dest */
            dst = (newdst < rem) ? newdst * 2 + 1 : newdst + rem;

            send_cnt = recv_cnt = 0;
            if (newrank < newdst) {
                send_idx = recv_idx + mask;
                for (i = send_idx; i < last_idx; i++)
                    send_cnt += newcnts[i];
                for (i = recv_idx; i < send_idx; i++)
                    recv_cnt += newcnts[i];
            } else {
                recv_idx = send_idx + mask;
                for (i = send_idx; i < recv_idx; i++)
                    send_cnt += newcnts[i];
                for (i = recv_idx; i < last_idx; i++)
                    recv_cnt += newcnts[i];
            }

            /* Send data from tmp_results. Recv into tmp_recvbuf */
            if ((send_cnt != 0) && (recv_cnt != 0))
                MPIC_Sendrecv(x, dst, send_cnt * esz, dst, recv_cnt * esz);
            else if ((send_cnt == 0) && (recv_cnt != 0))
                MPIC_Recv(x, dst, recv_cnt * esz);
            else if ((recv_cnt == 0) && (send_cnt != 0))
                MPIC_Send(x, dst, send_cnt * esz);

            if (recv_cnt) {
                MPIR_Reduce_local(x, recv_cnt);
            }

            /* update send_idx for next iteration */
            send_idx = recv_idx;
            last_idx = recv_idx + mask;
            mask >>= 1;
        }
        free(newcnts);
        free(newdisps);
    }

    /* In the non-power-of-two case, all odd-numbered
     * processes of rank < 2*rem send to (rank-1) the result they
     * calculated for that process */
    if (rank < 2 * rem) {
        if (rank % 2) { /* odd */
            if (recvcounts[rank - 1]) {
                MPIC_Send(x, rank - 1, recvcounts[rank - 1] * esz);
            }
        } else { /* even */
            if (recvcounts[rank]) {
                MPIC_Recv(x, rank + 1, recvcounts[rank] * esz);
            }
        }
    }
    free(disps);
}

/* src/mpi/coll/reduce_scatter/reduce_scatter_intra_pairwise.c,
 * MPIR_Reduce_scatter_intra_pairwise (read at pmodels/mpich 019c12d4,
 * 4.2-era; same structure in 4.0).  sendbuf != MPI_IN_PLACE (OSU). */
void ref_reduce_scatter_intra_pairwise(rctx_t *x, const MPI_Aint *recvcounts)
{
    int rank, comm_size, i;
    int src, dst;
    MPI_Aint esz = x->esize;

    rank = x->rank;
    comm_size = x->size;

    MPI_Aint total_count;
    total_count = 0;
    for (i = 0; i < comm_size; i++)
        total_count += recvcounts[i];

    if (total_count == 0)
        return;

    for (i = 1; i < comm_size; i++) {
        src = (rank - i + comm_size) % comm_size;
        dst = (rank + i) % comm_size;

        /* send the data that dst needs. recv data that this process
         * needs from src into tmp_recvbuf */
        MPIC_Sendrecv(x, dst, recvcounts[dst] * esz, src, recvcounts[rank] * esz);

        MPIR_Reduce_local(x, recvcounts[rank]);
    }
}

/* ==== Scatter / Gather ====================================================== */

/* src/mpi/coll/scatter/scatter_intra_binomial.c, MPIR_Scatter_intra_binomial
 * (read at pmodels/mpich 00ee4504, 4.2-era; same structure in 4.0).
 * sendcount = recvcount, sendtype = recvtype (OSU). */
void ref_scatter_intra_binomial(rctx_t *x, MPI_Aint sendcount, int root)
{
    MPI_Aint recvcount = sendcount;
    int rank, comm_size;
    int relative_rank;
    MPI_Aint curr_cnt, send_subtree_cnt;
    int mask, src, dst;
    MPI_Aint tmp_buf_size = 0;
    MPI_Aint esz = x->esize;

    rank = x->rank;
    comm_size = x->size;

    relative_rank = (rank >= root) ? rank - root : rank - root + comm_size;

    MPI_Aint nbytes;
    if (rank == root) {
        MPI_Aint sendtype_size = esz;
        nbytes = sendtype_size * sendcount;
    } else {
        MPI_Aint recvtype_size = esz;
        nbytes = recvtype_size * recvcount;
    }

    curr_cnt = 0;

    /* all even nodes other than root need a temporary buffer to
     * receive data of max size (nbytes*comm_size)/2 */
    if (relative_rank && !(relative_rank % 2)) {
        tmp_buf_size = (nbytes * comm_size) / 2;
    }

    if (rank == root) {
        if (root != 0) {
            tmp_buf_size = nbytes * comm_size;
            curr_cnt = nbytes * comm_size;
        } else
            curr_cnt = sendcount * comm_size;
    }

    /* root has all the data; others have zero so far */

    mask = 0x1;
    while (mask < comm_size) {
        if (relative_rank & mask) {
            src = rank - mask;
            if (src < 0)
                src += comm_size;

            /* The leaf nodes receive directly into recvbuf because
             * they don't have to forward data to anyone. Others
             * receive data into a temporary buffer. */
            if (relative_rank % 2) {
                MPIC_Recv(x, src, recvcount * esz); /* MPIC_Recv(recvbuf, recvcount, recvtype) */
            } else {
                /* MPIC_Recv(tmp_buf, tmp_buf_size, MPI_BYTE, src);
                 * MPIR_Get_count_impl(&status, MPI_BYTE, &curr_cnt) */
                curr_cnt = MPIC_Recv(x, src, tmp_buf_size);
            }
            break;
        }
        mask <<= 1;
    }

    mask >>= 1;
    while (mask > 0) {
        if (relative_rank + mask < comm_size) {
            dst = rank + mask;
            if (dst >= comm_size)
                dst -= comm_size;

            if ((rank == root) && (root == 0)) {
                send_subtree_cnt = curr_cnt - sendcount * mask;
                /* MPIC_Send(sendbuf + extent * sendcount * mask, send_subtree_cnt, sendtype) */
                MPIC_Send(x, dst, send_subtree_cnt * esz);
            } else {
                /* non-zero root and others */
                send_subtree_cnt = curr_cnt - nbytes * mask;
                /* MPIC_Send(tmp_buf + nbytes * mask, send_subtree_cnt, MPI_BYTE) */
                MPIC_Send(x, dst, send_subtree_cnt);
            }
            curr_cnt -= send_subtree_cnt;
        }
        mask >>= 1;
    }
}

/* MPIR_CVAR_GATHER_VSMALL_MSG_SIZE default (gather_intra_binomial.c) */
#define MPIR_CVAR_GATHER_VSMALL_MSG_SIZE 1024

/* src/mpi/coll/gather/gather_intra_binomial.c, MPIR_Gather_intra_binomial
 * (read at pmodels/mpich 07b78091, 4.3-era; same structure in 4.0).  Every
 * send carries curr_cnt bytes (leaf: sendcount of sendtype = nbytes;
 * vsmall: tmp_buf; else a struct of sendbuf + curr_cnt - nbytes bytes). */
void ref_gather_intra_binomial(rctx_t *x, MPI_Aint sendcount, int root)
{
    MPI_Aint recvcount = sendcount;
    int comm_size, rank;
    int relative_rank;
    int mask, src, dst, relative_src;
    MPI_Aint curr_cnt = 0, nbytes;
    int recvblks;
    int missing;
    MPI_Aint tmp_buf_size;
    MPI_Aint esz = x->esize;

    rank = x->rank;
    comm_size = x->size;

    relative_rank = (rank >= root) ? rank - root : rank - root + comm_size;

    if (rank == root) {
        nbytes = esz * recvcount;
    } else {
        nbytes = esz * sendcount;
    }

    /* Find the number of missing nodes in my sub-tree compared to
     * a balanced tree */
    for (mask = 1; mask < comm_size; mask <<= 1)
        ;
    --mask;
    while (relative_rank & mask)
        mask >>= 1;
    missing = (relative_rank | mask) - comm_size + 1;
    if (missing < 0)
        missing = 0;
    tmp_buf_size = (mask - missing);

    /* If the message is smaller than the threshold, we will copy
     * our message in there too */
    if (nbytes < MPIR_CVAR_GATHER_VSMALL_MSG_SIZE)
        tmp_buf_size++;

    tmp_buf_size *= nbytes;

    /* For zero-ranked root, we don't need any temporary buffer */
    if ((rank == root) && (!root || (nbytes >= MPIR_CVAR_GATHER_VSMALL_MSG_SIZE)))
        tmp_buf_size = 0;

    curr_cnt = nbytes;

    mask = 0x1;
    while (mask < comm_size) {
        if ((mask & relative_rank) == 0) {
            src = relative_rank | mask;
            if (src < comm_size) {
                src = (src + root) % comm_size;

                if (rank == root) {
                    recvblks = mask;
                    if ((2 * recvblks) > comm_size)
                        recvblks = comm_size - recvblks;

                    if ((rank + mask + recvblks == comm_size) ||
                        (((rank + mask) % comm_size) < ((rank + mask + recvblks) % comm_size))) {
                        /* MPIC_Recv(recvbuf + ..., recvblks * recvcount, recvtype, src) */
                        MPIC_Recv(x, src, (MPI_Aint)recvblks * recvcount * esz);
                    } else if (nbytes < MPIR_CVAR_GATHER_VSMALL_MSG_SIZE) {
                        /* MPIC_Recv(tmp_buf, recvblks * nbytes, MPI_BYTE, src) */
                        MPIC_Recv(x, src, recvblks * nbytes);
                    } else {
                        /* indexed type: blocks[0] + blocks[1] = recvcount * recvblks */
                        MPIC_Recv(x, src, (MPI_Aint)recvblks * recvcount * esz);
                    }
                } else { /* Intermediate nodes store in temporary buffer */
                    /* Estimate the amount of data that is going to come in */
                    recvblks = mask;
                    relative_src = ((src - root) < 0) ? (src - root + comm_size) : (src - root);
                    if (relative_src + mask > comm_size)
                        recvblks -= (relative_src + mask - comm_size);

                    MPIC_Recv(x, src, recvblks * nbytes);
                    curr_cnt += (recvblks * nbytes);
                }
            }
        } else {
            dst = relative_rank ^ mask;
            dst = (dst + root) % comm_size;

            if (!tmp_buf_size) {
                /* leaf nodes send directly from sendbuf */
                MPIC_Send(x, dst, sendcount * esz);
            } else if (nbytes < MPIR_CVAR_GATHER_VSMALL_MSG_SIZE) {
                MPIC_Send(x, dst, curr_cnt); /* MPIC_Send(tmp_buf, curr_cnt, MPI_BYTE) */
            } else {
                /* struct { sendcount of sendtype; curr_cnt - nbytes bytes } */
                MPIC_Send(x, dst, sendcount * esz + (curr_cnt - nbytes));
            }
            break;
        }
        mask <<= 1;
    }
}

/* ==== Barrier =============================================================== */

/* src/mpi/coll/barrier/barrier_intra_k_dissemination.c (pmodels/mpich
 * 7e03fe85, 4.0-era): MPIR_Barrier_intra_k_dissemination(comm, k = 2) returns
 * MPIR_Barrier_intra_dissemination, transcribed here. */
void ref_barrier_intra_dissemination(rctx_t *x)
{
    int size, rank, src, dst, mask;

    size = x->size;
    rank = x->rank;

    if (size == 1) /* k_dissemination: if (nranks == 1) goto fn_exit */
        return;

    mask = 0x1;
    while (mask < size) {
        dst = (rank + mask) % size;
        src = (rank - mask + size) % size;
        /* MPIC_Sendrecv(NULL, 0, MPI_BYTE, dst, NULL, 0, MPI_BYTE, src) */
        MPIC_Sendrecv(x, dst, 0, src, 0);
        mask <<= 1;
    }
}
