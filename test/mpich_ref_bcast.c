/* MPICH 4.0 Bcast and Reduce, transcribed (conventions: mpich_ref.c). */
#include <stdlib.h>

#include "mpich_ref_int.h"

/* ==== Bcast ================================================================= */

/* src/mpi/coll/bcast/bcast_intra_binomial.c, MPIR_Bcast_intra_binomial
 * (read at pmodels/mpich c197f614, 3.4-era; same structure in 4.x). */
void ref_bcast_intra_binomial(rctx_t *x, MPI_Aint count, int root)
{
    int rank, comm_size, src, dst;
    int relative_rank, mask;
    MPI_Aint nbytes = 0, type_size = x->esize;

    comm_size = x->size;
    rank = x->rank;

    /* If there is only one process, return */
    if (comm_size == 1)
        return;

    nbytes = type_size * count;
    if (nbytes == 0)
        return; /* nothing to do */

    relative_rank = (rank >= root) ? rank - root : rank - root + comm_size;

    mask = 0x1;
    while (mask < comm_size) {
        if (relative_rank & mask) {
            src = rank - mask;
            if (src < 0)
                src += comm_size;
            MPIC_Recv(x, src, nbytes); /* MPIC_Recv(buffer, count, datatype, src, ...) */
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
            MPIC_Send(x, dst, nbytes); /* MPIC_Send(buffer, count, datatype, dst, ...) */
        }
        mask >>= 1;
    }
}

/* src/mpi/coll/bcast/bcast_utils.c, MPII_Scatter_for_bcast
 * (read at pmodels/mpich 0165933e, 4.1-era; same structure in 4.0). */
static void ref_MPII_Scatter_for_bcast(rctx_t *x, int root, MPI_Aint nbytes)
{
    int rank, comm_size, src, dst;
    int relative_rank, mask;
    MPI_Aint scatter_size, recv_size = 0;
    MPI_Aint curr_size, send_size;

    comm_size = x->size;
    rank = x->rank;
    relative_rank = (rank >= root) ? rank - root : rank - root + comm_size;

    scatter_size = (nbytes + comm_size - 1) / comm_size; /* ceiling division */
    curr_size = (rank == root) ? nbytes : 0;              /* root starts with all the data */

    mask = 0x1;
    while (mask < comm_size) {
        if (relative_rank & mask) {
            src = rank - mask;
            if (src < 0)
                src += comm_size;
            recv_size = nbytes - relative_rank * scatter_size;
            /* recv_size is larger than what might actually be sent by the
             * sender. */
            if (recv_size <= 0) {
                curr_size = 0; /* this process doesn't receive any data
                                * because of uneven division */
            } else {
                /* MPIC_Recv(tmp_buf + relative_rank * scatter_size, recv_size, MPI_BYTE, src)
                 * then MPIR_Get_count_impl(&status, MPI_BYTE, &curr_size) */
                curr_size = MPIC_Recv(x, src, recv_size);
            }
            break;
        }
        mask <<= 1;
    }

    mask >>= 1;
    while (mask > 0) {
        if (relative_rank + mask < comm_size) {
            send_size = curr_size - scatter_size * mask;
            /* mask is also the size of this process's subtree */
            if (send_size > 0) {
                dst = rank + mask;
                if (dst >= comm_size)
                    dst -= comm_size;
                MPIC_Send(x, dst, send_size);
                curr_size -= send_size;
            }
        }
        mask >>= 1;
    }
}

/* src/mpi/coll/bcast/bcast_intra_scatter_recursive_doubling_allgather.c,
 * MPIR_Bcast_intra_scatter_recursive_doubling_allgather (read at pmodels/mpich
 * 050b6681, 4.2-era; same structure in 4.0).  Includes MPICH's
 * "EXPERIMENTAL" non-power-of-two part, which runs only if the algorithm is
 * forced on a non-power-of-two communicator. */
void ref_bcast_intra_scatter_recursive_doubling_allgather(rctx_t *x, MPI_Aint count,
                                                                 int root)
{
    int rank, comm_size, dst;
    int relative_rank, mask;
    MPI_Aint curr_size, recv_size = 0;
    int j, k, i, tmp_mask;
    MPI_Aint type_size = x->esize, nbytes;
    int relative_dst, dst_tree_root, my_tree_root;
    int tree_root, nprocs_completed;

    comm_size = x->size;
    rank = x->rank;
    relative_rank = (rank >= root) ? rank - root : rank - root + comm_size;

    nbytes = type_size * count;
    if (nbytes == 0)
        return; /* nothing to do */

    MPI_Aint scatter_size;
    scatter_size = (nbytes + comm_size - 1) / comm_size; /* ceiling division */

    ref_MPII_Scatter_for_bcast(x, root, nbytes);

    /* curr_size is the amount of data that this process now has stored in
     * buffer at byte offset (relative_rank*scatter_size) */
    curr_size = MPL_MIN(scatter_size, (nbytes - (relative_rank * scatter_size)));
    if (curr_size < 0)
        curr_size = 0;

    mask = 0x1;
    i = 0;
    while (mask < comm_size) {
        relative_dst = relative_rank ^ mask;

        dst = (relative_dst + root) % comm_size;

        dst_tree_root = relative_dst >> i;
        dst_tree_root <<= i;

        my_tree_root = relative_rank >> i;
        my_tree_root <<= i;

        MPI_Aint send_offset, recv_offset;
        send_offset = my_tree_root * scatter_size;
        recv_offset = dst_tree_root * scatter_size;
        (void)send_offset;

        if (relative_dst < comm_size) {
            /* MPIC_Sendrecv(tmp_buf + send_offset, curr_size, MPI_BYTE, dst,
             *               tmp_buf + recv_offset, max(nbytes - recv_offset, 0), MPI_BYTE, dst)
             * then MPIR_Get_count_impl(&status, MPI_BYTE, &recv_size) */
            recv_size = MPIC_Sendrecv(x, dst, curr_size, dst,
                                      (nbytes - recv_offset < 0 ? 0 : nbytes - recv_offset));
            curr_size += recv_size;
        }

        /* --BEGIN EXPERIMENTAL-- */
        if (dst_tree_root + mask > comm_size) {
            nprocs_completed = comm_size - my_tree_root - mask;
            j = mask;
            k = 0;
            while (j) {
                j >>= 1;
                k++;
            }
            k--;

            MPI_Aint offset;
            offset = scatter_size * (my_tree_root + mask);
            tmp_mask = mask >> 1;

            while (tmp_mask) {
                relative_dst = relative_rank ^ tmp_mask;
                dst = (relative_dst + root) % comm_size;

                tree_root = relative_rank >> k;
                tree_root <<= k;

                /* send only if this proc has data and destination
                 * doesn't have data. */
                if ((relative_dst > relative_rank) &&
                    (relative_rank < tree_root + nprocs_completed) &&
                    (relative_dst >= tree_root + nprocs_completed)) {
                    /* recv_size was set in the previous receive. */
                    MPIC_Send(x, dst, recv_size);
                }
                /* recv only if this proc. doesn't have data and sender
                 * has data */
                else if ((relative_dst < relative_rank) &&
                         (relative_dst < tree_root + nprocs_completed) &&
                         (relative_rank >= tree_root + nprocs_completed)) {
                    recv_size = MPIC_Recv(x, dst, nbytes - offset < 0 ? 0 : nbytes - offset);
                    curr_size += recv_size;
                }
                tmp_mask >>= 1;
                k--;
            }
        }
        /* --END EXPERIMENTAL-- */

        mask <<= 1;
        i++;
    }

    /* check that we received as much as we expected:
     * MPIR_ERR_COLL_CHECK_SIZE(curr_size, nbytes, ...) */
    if (curr_size != nbytes)
        x->size_err[x->rank] = 1;
}

/* src/mpi/coll/bcast/bcast_intra_scatter_ring_allgather.c,
 * MPIR_Bcast_intra_scatter_ring_allgather (read at pmodels/mpich 0ad268a7,
 * 3.3-era "MPIR_Bcast__intra__"; same structure in 4.0). */
void ref_bcast_intra_scatter_ring_allgather(rctx_t *x, MPI_Aint count, int root)
{
    int rank, comm_size;
    MPI_Aint scatter_size;
    int j, i;
    MPI_Aint nbytes, type_size = x->esize;
    int left, right, jnext;
    MPI_Aint curr_size = 0;
    MPI_Aint recvd_size;

    comm_size = x->size;
    rank = x->rank;

    /* If there is only one process, return */
    if (comm_size == 1)
        return;

    nbytes = type_size * count;
    if (nbytes == 0)
        return; /* nothing to do */

    scatter_size = (nbytes + comm_size - 1) / comm_size; /* ceiling division */

    ref_MPII_Scatter_for_bcast(x, root, nbytes);

    /* Calculate how much data we already have */
    curr_size = MPL_MIN(scatter_size,
                        nbytes - ((rank - root + comm_size) % comm_size) * scatter_size);
    if (curr_size < 0)
        curr_size = 0;

    left = (comm_size + rank - 1) % comm_size;
    right = (rank + 1) % comm_size;
    j = rank;
    jnext = left;
    for (i = 1; i < comm_size; i++) {
        MPI_Aint left_count, right_count, left_disp, right_disp;
        int rel_j, rel_jnext;

        rel_j = (j - root + comm_size) % comm_size;
        rel_jnext = (jnext - root + comm_size) % comm_size;
        left_count = MPL_MIN(scatter_size, (nbytes - rel_jnext * scatter_size));
        if (left_count < 0)
            left_count = 0;
        left_disp = rel_jnext * scatter_size;
        right_count = MPL_MIN(scatter_size, (nbytes - rel_j * scatter_size));
        if (right_count < 0)
            right_count = 0;
        right_disp = rel_j * scatter_size;
        (void)left_disp;
        (void)right_disp;

        /* MPIC_Sendrecv(tmp_buf + right_disp, right_count, MPI_BYTE, right,
         *               tmp_buf + left_disp, left_count, MPI_BYTE, left) */
        recvd_size = MPIC_Sendrecv(x, right, right_count, left, left_count);
        curr_size += recvd_size;
        j = jnext;
        jnext = (comm_size + jnext - 1) % comm_size;
    }

    /* check that we received as much as we expected (curr_size != nbytes) */
    if (curr_size != nbytes)
        x->size_err[x->rank] = 1;
}

/* ==== Reduce ================================================================ */

/* src/mpi/coll/reduce/reduce_intra_binomial.c, MPIR_Reduce_intra_binomial
 * (read at pmodels/mpich 16d09a93, 4.3-era; same structure in 4.0).
 * Commutative op: lroot = root, no final send to root. */
void ref_reduce_intra_binomial(rctx_t *x, MPI_Aint count, int root)
{
    int comm_size, rank, is_commutative = 1;
    int mask, relrank, source, lroot;
    MPI_Aint nb = count * x->esize;

    rank = x->rank;
    comm_size = x->size;

    mask = 0x1;
    if (is_commutative)
        lroot = root;
    else
        lroot = 0;
    relrank = (rank - lroot + comm_size) % comm_size;

    while (/*(mask & relrank) == 0 && */ mask < comm_size) {
        /* Receive */
        if ((mask & relrank) == 0) {
            source = (relrank | mask);
            if (source < comm_size) {
                source = (source + lroot) % comm_size;
                MPIC_Recv(x, source, nb); /* MPIC_Recv(tmp_buf, count, datatype, source) */
                MPIR_Reduce_local(x, count);
            }
        } else {
            /* I've received all that I'm going to.  Send my result to
             * my parent */
            source = ((relrank & (~mask)) + lroot) % comm_size;
            MPIC_Send(x, source, nb); /* MPIC_Send(recvbuf, count, datatype, source) */
            break;
        }
        mask <<= 1;
    }
    /* (!is_commutative && root != 0): not reached for commutative ops */
}

/* src/mpi/coll/reduce/reduce_intra_reduce_scatter_gather.c,
 * MPIR_Reduce_intra_reduce_scatter_gather (read at pmodels/mpich 0500fec2,
 * 3.4-era; same structure in 4.0).  MPICH asserts count >= pof2. */
void ref_reduce_intra_reduce_scatter_gather(rctx_t *x, MPI_Aint count, int root)
{
    int comm_size, rank, pof2, rem, newrank;
    int mask, i, j, send_idx = 0;
    int recv_idx, last_idx = 0, newdst;
    int dst, newroot, newdst_tree_root, newroot_tree_root;
    MPI_Aint send_cnt, recv_cnt;
    MPI_Aint esz = x->esize;

    comm_size = x->size;
    rank = x->rank;

    /* get nearest power-of-two less than or equal to comm_size */
    pof2 = comm_pof2(comm_size);

    rem = comm_size - pof2;

    MPI_Aint *cnts = calloc((size_t)pof2, sizeof *cnts);
    MPI_Aint *disps = calloc((size_t)pof2, sizeof *disps);
    if (!cnts || !disps) {
        x->oom = 1;
        free(cnts);
        free(disps);
        return;
    }

    if (rank < 2 * rem) {
        if (rank % 2 != 0) { /* odd */
            MPIC_Send(x, rank - 1, count * esz); /* MPIC_Send(recvbuf, count, datatype, rank - 1) */
            /* temporarily set the rank to -1 so that this
             * process does not pariticipate in recursive
             * doubling */
            newrank = -1;
        } else { /* even */
            MPIC_Recv(x, rank + 1, count * esz); /* MPIC_Recv(tmp_buf, count, datatype, rank + 1) */
            MPIR_Reduce_local(x, count);
            /* change the rank */
            newrank = rank / 2;
        }
    } else /* rank >= 2*rem */
        newrank = rank - rem;

    if (newrank != -1) {
        for (i = 0; i < pof2; i++)
            cnts[i] = count / pof2;
        if ((count % pof2) > 0) {
            for (i = 0; i < (count % pof2); i++)
                cnts[i] += 1;
        }

        if (pof2)
            disps[0] = 0;
        for (i = 1; i < pof2; i++)
            disps[i] = disps[i - 1] + cnts[i - 1];

        mask = 0x1;
        send_idx = recv_idx = 0;
        last_idx = pof2;
        while (mask < pof2) {
            newdst = newrank ^ mask;
            /* find real rank of dest */
            dst = (newdst < rem) ? newdst * 2 : newdst + rem;

            send_cnt = recv_cnt = 0;
            if (newrank < newdst) {
                send_idx = recv_idx + pof2 / (mask * 2);
                for (i = send_idx; i < last_idx; i++)
                    send_cnt += cnts[i];
                for (i = recv_idx; i < send_idx; i++)
                    recv_cnt += cnts[i];
            } else {
                recv_idx = send_idx + pof2 / (mask * 2);
                for (i = send_idx; i < recv_idx; i++)
                    send_cnt += cnts[i];
                for (i = recv_idx; i < last_idx; i++)
                    recv_cnt += cnts[i];
            }

            /* Send data from recvbuf. Recv into tmp_buf */
            MPIC_Sendrecv(x, dst, send_cnt * esz, dst, recv_cnt * esz);

            MPIR_Reduce_local(x, recv_cnt);
            /* update send_idx for next iteration */
            send_idx = recv_idx;
            mask <<= 1;

            /* update last_idx, but not in last iteration
             * because the value is needed in the gather
             * step below. */
            if (mask < pof2)
                last_idx = recv_idx + pof2 / mask;
        }
    }

    /* now do the gather to root */

    if (root < 2 * rem) {
        if (root % 2 != 0) {
            if (rank == root) { /* recv */
                /* initialize the arrays that weren't initialized */
                for (i = 0; i < pof2; i++)
                    cnts[i] = count / pof2;
                if ((count % pof2) > 0) {
                    for (i = 0; i < (count % pof2); i++)
                        cnts[i] += 1;
                }

                if (pof2)
                    disps[0] = 0;
                for (i = 1; i < pof2; i++)
                    disps[i] = disps[i - 1] + cnts[i - 1];

                MPIC_Recv(x, 0, cnts[0] * esz); /* MPIC_Recv(recvbuf, cnts[0], datatype, 0) */
                newrank = 0;
                send_idx = 0;
                last_idx = 2;
            } else if (newrank == 0) { /* send */
                MPIC_Send(x, root, cnts[0] * esz); /* MPIC_Send(recvbuf, cnts[0], datatype, root) */
                newrank = -1;
            }
            newroot = 0;
        } else
            newroot = root / 2;
    } else
        newroot = root - rem;

    if (newrank != -1) {
        j = 0;
        mask = 0x1;
        while (mask < pof2) {
            mask <<= 1;
            j++;
        }
        mask >>= 1;
        j--;
        while (mask > 0) {
            newdst = newrank ^ mask;

            /* find real rank of dest */
            dst = (newdst < rem) ? newdst * 2 : newdst + rem;
            /* if root is playing the role of newdst=0, adjust for
             * it */
            if ((newdst == 0) && (root < 2 * rem) && (root % 2 != 0))
                dst = root;

            newdst_tree_root = newdst >> j;
            newdst_tree_root <<= j;

            newroot_tree_root = newroot >> j;
            newroot_tree_root <<= j;

            send_cnt = recv_cnt = 0;
            if (newrank < newdst) {
                /* update last_idx except on first iteration */
                if (mask != pof2 / 2)
                    last_idx = last_idx + pof2 / (mask * 2);

                recv_idx = send_idx + pof2 / (mask * 2);
                for (i = send_idx; i < recv_idx; i++)
                    send_cnt += cnts[i];
                for (i = recv_idx; i < last_idx; i++)
                    recv_cnt += cnts[i];
            } else {
                recv_idx = send_idx - pof2 / (mask * 2);
                for (i = send_idx; i < last_idx; i++)
                    send_cnt += cnts[i];
                for (i = recv_idx; i < send_idx; i++)
                    recv_cnt += cnts[i];
            }

            if (newdst_tree_root == newroot_tree_root) {
                /* send and exit */
                /* MPIC_Send(recvbuf + disps[send_idx], send_cnt, datatype, dst) */
                MPIC_Send(x, dst, send_cnt * esz);
                break;
            } else {
                /* recv and continue */
                /* MPIC_Recv(recvbuf + disps[recv_idx], recv_cnt, datatype, dst) */
                MPIC_Recv(x, dst, recv_cnt * esz);
            }

            if (newrank > newdst)
                send_idx = recv_idx;

            mask >>= 1;
            j--;
        }
    }
    free(cnts);
    free(disps);
}
