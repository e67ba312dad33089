/* MPICH 4.0 Allreduce and Allgather, transcribed (conventions: mpich_ref.c). */
#include <stdlib.h>

#include "mpich_ref_int.h"

/* ==== Allreduce ============================================================= */

/* src/mpi/coll/allreduce/allreduce_intra_recursive_doubling.c,
 * MPIR_Allreduce_intra_recursive_doubling (read at pmodels/mpich 0917e160,
 * 3.3-era; same structure in 4.0).  Commutative op. */
void ref_allreduce_intra_recursive_doubling(rctx_t *x, MPI_Aint count)
{
    int comm_size, rank;
    int mask, dst, is_commutative = 1, pof2, newrank, rem, newdst;
    MPI_Aint nb = count * x->esize;

    comm_size = x->size;
    rank = x->rank;

    /* get nearest power-of-two less than or equal to comm_size */
    pof2 = comm_pof2(comm_size);

    rem = comm_size - pof2;

    /* In the non-power-of-two case, all even-numbered
     * processes of rank < 2*rem send their data to
     * (rank+1). These even-numbered processes no longer
     * participate in the algorithm until the very end. The
     * remaining processes form a nice power-of-two. */

    if (rank < 2 * rem) {
        if (rank % 2 == 0) { /* even */
            MPIC_Send(x, rank + 1, nb); /* MPIC_Send(recvbuf, count, datatype, rank + 1) */
            newrank = -1;
        } else { /* odd */
            MPIC_Recv(x, rank - 1, nb); /* MPIC_Recv(tmp_buf, count, datatype, rank - 1) */
            MPIR_Reduce_local(x, count);
            /* change the rank */
            newrank = rank / 2;
        }
    } else /* rank >= 2*rem */
        newrank = rank - rem;

    if (newrank != -1) {
        mask = 0x1;
        while (mask < pof2) {
            newdst = newrank ^ mask;
            /* find real rank of dest */
            dst = (newdst < rem) ? newdst * 2 + 1 : newdst + rem;

            /* Send the most current data, which is in recvbuf. Recv
             * into tmp_buf */
            MPIC_Sendrecv(x, dst, nb, dst, nb);

            if (is_commutative || (dst < rank)) {
                MPIR_Reduce_local(x, count);
            } else {
                MPIR_Reduce_local(x, count); /* + local copy */
            }
            mask <<= 1;
        }
    }
    /* In the non-power-of-two case, all odd-numbered
     * processes of rank < 2*rem send the result to
     * (rank-1), the ranks who didn't participate above. */
    if (rank < 2 * rem) {
        if (rank % 2) /* odd */
            MPIC_Send(x, rank - 1, nb);
        else /* even */
            MPIC_Recv(x, rank + 1, nb);
    }
}

/* src/mpi/coll/allreduce/allreduce_intra_reduce_scatter_allgather.c,
 * MPIR_Allreduce_intra_reduce_scatter_allgather (read at pmodels/mpich
 * 0917e160, 3.3-era; same structure in 4.0).  MPICH asserts count >= pof2. */
void ref_allreduce_intra_reduce_scatter_allgather(rctx_t *x, MPI_Aint count)
{
    int comm_size, rank;
    int mask, dst, pof2, newrank, rem, newdst, i, send_idx, recv_idx, last_idx;
    MPI_Aint send_cnt, recv_cnt;
    MPI_Aint esz = x->esize;

    comm_size = x->size;
    rank = x->rank;

    /* get nearest power-of-two less than or equal to comm_size */
    pof2 = comm_pof2(comm_size);

    rem = comm_size - pof2;

    if (rank < 2 * rem) {
        if (rank % 2 == 0) { /* even */
            MPIC_Send(x, rank + 1, count * esz);
            newrank = -1;
        } else { /* odd */
            MPIC_Recv(x, rank - 1, count * esz);
            MPIR_Reduce_local(x, count);
            /* change the rank */
            newrank = rank / 2;
        }
    } else /* rank >= 2*rem */
        newrank = rank - rem;

    if (newrank != -1) {
        MPI_Aint *cnts = calloc((size_t)pof2, sizeof *cnts);
        MPI_Aint *disps = calloc((size_t)pof2, sizeof *disps);
        if (!cnts || !disps) {
            x->oom = 1;
            free(cnts);
            free(disps);
            return;
        }

        for (i = 0; i < pof2; i++)
            cnts[i] = count / pof2;
        if ((count % pof2) > 0) {
            for (i = 0; i < (count % pof2); i++)
                cnts[i] += 1;
        }

        disps[0] = 0;
        for (i = 1; i < pof2; i++)
            disps[i] = disps[i - 1] + cnts[i - 1];

        mask = 0x1;
        send_idx = recv_idx = 0;
        last_idx = pof2;
        while (mask < pof2) {
            newdst = newrank ^ mask;
            /* find real rank of dest */
            dst = (newdst < rem) ? newdst * 2 + 1 : newdst + rem;

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
             * because the value is needed in the allgather
             * step below. */
            if (mask < pof2)
                last_idx = recv_idx + pof2 / mask;
        }

        /* now do the allgather */

        mask >>= 1;
        while (mask > 0) {
            newdst = newrank ^ mask;
            /* find real rank of dest */
            dst = (newdst < rem) ? newdst * 2 + 1 : newdst + rem;

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

            MPIC_Sendrecv(x, dst, send_cnt * esz, dst, recv_cnt * esz);

            if (newrank > newdst)
                send_idx = recv_idx;

            mask >>= 1;
        }
        free(cnts);
        free(disps);
    }
    /* In the non-power-of-two case, all odd-numbered
     * processes of rank < 2*rem send the result to
     * (rank-1), the ranks who didn't participate above. */
    if (rank < 2 * rem) {
        if (rank % 2) /* odd */
            MPIC_Send(x, rank - 1, count * esz);
        else /* even */
            MPIC_Recv(x, rank + 1, count * esz);
    }
}

/* ==== Allgather ============================================================= */

/* src/mpi/coll/allgather/allgather_intra_recursive_doubling.c,
 * MPIR_Allgather_intra_recursive_doubling (read at pmodels/mpich 0165933e,
 * 4.1-era; same structure in 4.0).  MPICH asserts comm_size is a power of
 * two, so the EXPERIMENTAL part below never runs. */
void ref_allgather_intra_recursive_doubling(rctx_t *x, MPI_Aint recvcount)
{
    int comm_size, rank;
    int j, i;
    MPI_Aint curr_cnt, last_recv_cnt = 0;
    int dst;
    int mask, dst_tree_root, my_tree_root, nprocs_completed, k, tmp_mask, tree_root;
    MPI_Aint esz = x->esize;

    comm_size = x->size;
    rank = x->rank;

    curr_cnt = recvcount;

    mask = 0x1;
    i = 0;
    while (mask < comm_size) {
        dst = rank ^ mask;

        dst_tree_root = dst >> i;
        dst_tree_root <<= i;

        my_tree_root = rank >> i;
        my_tree_root <<= i;

        if (dst < comm_size) {
            /* MPIC_Sendrecv(recvbuf + send_offset, curr_cnt, recvtype, dst,
             *               recvbuf + recv_offset, (comm_size - dst_tree_root) * recvcount,
             *               recvtype, dst);
             * MPIR_Get_count_impl(&status, recvtype, &last_recv_cnt) */
            last_recv_cnt = MPIC_Sendrecv(x, dst, curr_cnt * esz, dst,
                                          (comm_size - dst_tree_root) * recvcount * esz) / esz;
            curr_cnt += last_recv_cnt;
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

            tmp_mask = mask >> 1;

            while (tmp_mask) {
                dst = rank ^ tmp_mask;

                tree_root = rank >> k;
                tree_root <<= k;

                if ((dst > rank) && (rank < tree_root + nprocs_completed) &&
                    (dst >= tree_root + nprocs_completed)) {
                    MPIC_Send(x, dst, last_recv_cnt * esz);
                } else if ((dst < rank) && (dst < tree_root + nprocs_completed) &&
                           (rank >= tree_root + nprocs_completed)) {
                    last_recv_cnt =
                        MPIC_Recv(x, dst, (comm_size - (my_tree_root + mask)) * recvcount * esz) /
                        esz;
                    curr_cnt += last_recv_cnt;
                }
                tmp_mask >>= 1;
                k--;
            }
        }
        /* --END EXPERIMENTAL-- */

        mask <<= 1;
        i++;
    }
}

/* src/mpi/coll/allgather/allgather_intra_brucks.c, MPIR_Allgather_intra_brucks
 * (read at pmodels/mpich 07b78091, 4.3-era; same structure in 4.0). */
void ref_allgather_intra_brucks(rctx_t *x, MPI_Aint recvcount)
{
    int comm_size, rank;
    MPI_Aint recvtype_sz = x->esize;
    int pof2, src, rem;
    int dst;

    if (recvcount == 0) /* ((sendcount == 0) && (sendbuf != MPI_IN_PLACE)) || (recvcount == 0) */
        return;

    rank = x->rank;
    comm_size = x->size;

    /* do the first \floor(\lg p) steps */

    MPI_Aint curr_cnt;
    curr_cnt = recvcount;
    pof2 = 1;
    while (pof2 <= comm_size / 2) {
        src = (rank + pof2) % comm_size;
        dst = (rank - pof2 + comm_size) % comm_size;

        MPIC_Sendrecv(x, dst, curr_cnt * recvtype_sz, src, curr_cnt * recvtype_sz);
        curr_cnt *= 2;
        pof2 *= 2;
    }

    /* if comm_size is not a power of two, one more step is needed */

    rem = comm_size - pof2;
    if (rem) {
        src = (rank + pof2) % comm_size;
        dst = (rank - pof2 + comm_size) % comm_size;

        MPIC_Sendrecv(x, dst, rem * recvcount * recvtype_sz, src, rem * recvcount * recvtype_sz);
    }
}

/* src/mpi/coll/allgather/allgather_intra_ring.c, MPIR_Allgather_intra_ring
 * (read at pmodels/mpich 0500fec2, 3.4-era; same structure in 4.0). */
void ref_allgather_intra_ring(rctx_t *x, MPI_Aint recvcount)
{
    int comm_size, rank;
    int j, i;
    int left, right, jnext;
    MPI_Aint nb = recvcount * x->esize;

    if (recvcount == 0)
        return;

    comm_size = x->size;
    rank = x->rank;

    left = (comm_size + rank - 1) % comm_size;
    right = (rank + 1) % comm_size;

    j = rank;
    jnext = left;
    for (i = 1; i < comm_size; i++) {
        /* MPIC_Sendrecv(recvbuf + j * recvcount * extent, recvcount, recvtype, right,
         *               recvbuf + jnext * recvcount * extent, recvcount, recvtype, left) */
        MPIC_Sendrecv(x, right, nb, left, nb);
        (void)j; /* only selects the buffer blocks */
        j = jnext;
        jnext = (comm_size + jnext - 1) % comm_size;
    }
}
