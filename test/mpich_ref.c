/*
 * MPICH 4.0 collective algorithms, transcribed for test/test_sched.c (see
 * mpich_ref.h).  Sources: github.com/pmodels/mpich, src/mpi/coll/.  The
 * stored copies read were not all tagged v4.0.x (the file index holds one or
 * a few versions per file); each function names the file and the version it
 * was read from.  The algorithms' communication structure is the same in
 * 3.3 .. 4.x; only argument types (int -> MPI_Aint count, errflag by pointer
 * or value) and error handling changed between those versions.
 *
 * Conventions of the transcription:
 *   MPIC_Send(buf, n, T, dst)            -> SEND   {dst, n * size(T)}
 *   MPIC_Recv(buf, n, T, src)            -> RECV   {src, size of the matching send}
 *   MPIC_Sendrecv(.., n, T, dst, .., m, T, src) -> SENDRECV
 *   MPIR_Reduce_local(.., n, T, op)      -> REDUCE {n * size(T)}   (n > 0)
 *   MPIR_Get_count(&status, MPI_BYTE, &x) -> x = bytes of that receive
 * Local copies, packing and error handling are left out.  Element counts
 * keep MPICH's names; "esize" is the datatype size.
 */
#include "mpich_ref.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t MPI_Aint;

#define MPL_MIN(a, b) ((a) < (b) ? (a) : (b))

/* ---- event lists ------------------------------------------------------------ */

int ref_evl_push(ref_evlist_t *l, const ref_ev_t *e)
{
    if (l->n == l->cap) {
        int nc = l->cap ? 2 * l->cap : 16;
        ref_ev_t *nv = realloc(l->v, (size_t)nc * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n++] = *e;
    return 0;
}

void ref_evlist_free(ref_evlist_t *l)
{
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

int ref_ev_equal(const ref_ev_t *a, const ref_ev_t *b)
{
    return a->kind == b->kind && a->speer == b->speer && a->sbytes == b->sbytes &&
           a->rpeer == b->rpeer && a->rbytes == b->rbytes && a->red == b->red;
}

void ref_ev_format(const ref_ev_t *e, char *buf, size_t len)
{
    switch (e->kind) {
    case REF_SEND:
        snprintf(buf, len, "SEND ->%d %lluB", e->speer, (unsigned long long)e->sbytes);
        break;
    case REF_RECV:
        snprintf(buf, len, "RECV <-%d %lluB", e->rpeer, (unsigned long long)e->rbytes);
        break;
    case REF_SENDRECV:
        snprintf(buf, len, "SENDRECV ->%d %lluB <-%d %lluB", e->speer,
                 (unsigned long long)e->sbytes, e->rpeer, (unsigned long long)e->rbytes);
        break;
    case REF_REDUCE:
        snprintf(buf, len, "REDUCE %lluB", (unsigned long long)e->red);
        break;
    case REF_EMPTY:
        snprintf(buf, len, "EMPTY STEP");
        break;
    default:
        snprintf(buf, len, "kind %d?", e->kind);
    }
}

/* ---- the "MPI runtime" seen by one rank ---------------------------------------- */

typedef struct {
    int rank, size; /* comm_ptr->rank, comm_ptr->local_size */
    MPI_Aint esize; /* datatype size */
    ref_evlist_t *out;
    const ref_evlist_t *prev; /* previous run, all ranks; NULL in the first */
    int *nrecv_from;          /* receives posted so far, per source */
    int oom;
    int *size_err;            /* [size]: MPICH's own end-of-algorithm size check failed */
} rctx_t;

static void fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (!err || !errlen)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Size of the k-th message from src to x->rank in the previous run, or the
 * posted size if there is none (yet). */
static MPI_Aint match_size(rctx_t *x, int src, MPI_Aint cap, int *matched)
{
    int k = x->nrecv_from[src]++;
    *matched = 0;
    if (!x->prev)
        return cap;
    const ref_evlist_t *s = &x->prev[src];
    for (int i = 0; i < s->n; i++) {
        const ref_ev_t *e = &s->v[i];
        if ((e->kind == REF_SEND || e->kind == REF_SENDRECV) && e->speer == x->rank) {
            if (k-- == 0) {
                *matched = 1;
                return (MPI_Aint)e->sbytes;
            }
        }
    }
    return cap;
}

static void MPIC_Send(rctx_t *x, int dst, MPI_Aint bytes)
{
    ref_ev_t e = {REF_SEND, dst, (uint64_t)bytes, -1, 0, 0, 0, 0};
    if (ref_evl_push(x->out, &e))
        x->oom = 1;
}

/* returns the received size (MPIR_Get_count) */
static MPI_Aint MPIC_Recv(rctx_t *x, int src, MPI_Aint cap)
{
    int m;
    MPI_Aint got = match_size(x, src, cap, &m);
    ref_ev_t e = {REF_RECV, -1, 0, src, (uint64_t)got, 0, (uint64_t)cap, m};
    if (ref_evl_push(x->out, &e))
        x->oom = 1;
    return got;
}

static MPI_Aint MPIC_Sendrecv(rctx_t *x, int dst, MPI_Aint sbytes, int src, MPI_Aint rcap)
{
    int m;
    MPI_Aint got = match_size(x, src, rcap, &m);
    ref_ev_t e = {REF_SENDRECV, dst, (uint64_t)sbytes, src, (uint64_t)got, 0, (uint64_t)rcap, m};
    if (ref_evl_push(x->out, &e))
        x->oom = 1;
    return got;
}

static void MPIR_Reduce_local(rctx_t *x, MPI_Aint count)
{
    if (count <= 0)
        return; /* MPIR_Reduce_local with count 0 does nothing */
    ref_ev_t e = {REF_REDUCE, -1, 0, -1, 0, (uint64_t)(count * x->esize), 0, 0};
    if (ref_evl_push(x->out, &e))
        x->oom = 1;
}

/* comm_ptr->pof2: largest power of two <= comm_size (MPL_pof2) */
static int comm_pof2(int comm_size)
{
    int p = 1;
    while (p * 2 <= comm_size)
        p *= 2;
    return p;
}

/* ==== Bcast ================================================================= */

/* src/mpi/coll/bcast/bcast_intra_binomial.c, MPIR_Bcast_intra_binomial
 * (read at pmodels/mpich c197f614, 3.4-era; same structure in 4.x). */
static void ref_bcast_intra_binomial(rctx_t *x, MPI_Aint count, int root)
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
static void ref_bcast_intra_scatter_recursive_doubling_allgather(rctx_t *x, MPI_Aint count,
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
static void ref_bcast_intra_scatter_ring_allgather(rctx_t *x, MPI_Aint count, int root)
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
static void ref_reduce_intra_binomial(rctx_t *x, MPI_Aint count, int root)
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
static void ref_reduce_intra_reduce_scatter_gather(rctx_t *x, MPI_Aint count, int root)
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

/* ==== Allreduce ============================================================= */

/* src/mpi/coll/allreduce/allreduce_intra_recursive_doubling.c,
 * MPIR_Allreduce_intra_recursive_doubling (read at pmodels/mpich 0917e160,
 * 3.3-era; same structure in 4.0).  Commutative op. */
static void ref_allreduce_intra_recursive_doubling(rctx_t *x, MPI_Aint count)
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
static void ref_allreduce_intra_reduce_scatter_allgather(rctx_t *x, MPI_Aint count)
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
static void ref_allgather_intra_recursive_doubling(rctx_t *x, MPI_Aint recvcount)
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
static void ref_allgather_intra_brucks(rctx_t *x, MPI_Aint recvcount)
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
static void ref_allgather_intra_ring(rctx_t *x, MPI_Aint recvcount)
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

/* ==== Reduce_scatter ======================================================== */

/* src/mpi/coll/reduce_scatter/reduce_scatter_intra_recursive_halving.c,
 * MPIR_Reduce_scatter_intra_recursive_halving (read at pmodels/mpich 0500fec2,
 * 3.4-era; same structure in 4.0).  Commutative ops only. */
static void ref_reduce_scatter_intra_recursive_halving(rctx_t *x, const MPI_Aint *recvcounts)
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
static void ref_reduce_scatter_intra_pairwise(rctx_t *x, const MPI_Aint *recvcounts)
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
static void ref_scatter_intra_binomial(rctx_t *x, MPI_Aint sendcount, int root)
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
static void ref_gather_intra_binomial(rctx_t *x, MPI_Aint sendcount, int root)
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
static void ref_barrier_intra_dissemination(rctx_t *x)
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

/* ==== default selection ===================================================== */

static int is_pof2(int n) { return n > 0 && !(n & (n - 1)); }

static MPI_Aint rs_count(const mf_bl_call_t *c, int i)
{
    return (MPI_Aint)((c->counts ? c->counts[i] : c->bytes) / c->esize);
}

/*
 * MPICH 4.0: MPIR_<Coll>_impl with MPIR_CVAR_<COLL>_INTRA_ALGORITHM=auto calls
 * MPIR_<Coll>_allcomm_auto, which asks MPIR_Csel_search (src/mpi/coll/src/
 * csel.c) with the tree built from maint/tuning/coll/mpir/generic.json
 * (compiled in as MPII_coll_generic_json).  The ch4 device's own tree
 * (maint/tuning/coll/ch4/generic.json) sends a flat communicator
 * ("comm_hierarchy=any") to composition beta/gamma, i.e. to the netmod, which
 * calls MPIR_<Coll>_impl.  The MPIR_CVAR_*_SHORT/LONG_MSG_SIZE CVARs of the
 * older MPIR_<Coll>_intra_auto are still declared but no longer consulted.
 *
 * csel.c measures: avg_msg_size = type_size * count (bcast, reduce,
 * allreduce); total_msg_size = type_size * recvcount * comm_size (allgather),
 * type_size * sum(recvcounts) (reduce_scatter); count<pow2 compares the
 * element count with comm_ptr->pof2; comm_size<N is resolved with '<' when the
 * tree is pruned for the communicator (MPIR_Csel_prune).
 *
 * generic.json (pmodels/mpich 7e03fe85), flat intracommunicator:
 *   bcast:     comm_size<8 -> binomial;
 *              comm_size=pow2: avg<=12288 binomial, avg<=524288
 *                              scatter_recursive_doubling_allgather, else
 *                              scatter_ring_allgather;
 *              any: avg<=12288 binomial, else scatter_ring_allgather
 *   allreduce: avg<=0 (commutative) smp; avg<=8 recursive_doubling;
 *              built-in op: count<pof2 recursive_doubling, else
 *              reduce_scatter_allgather
 *   reduce:    avg<=2048 binomial; built-in op: count<pof2 binomial, else
 *              reduce_scatter_gather
 *   allgather: pow2: total<524288 recursive_doubling, else ring;
 *              any: total<81920 brucks, else ring
 *   reduce_scatter (commutative): total<524288 recursive_halving, else pairwise
 *   gather, scatter: binomial
 *   barrier:   k_dissemination, k=2 (= dissemination)
 */
mf_bl_alg_t ref_select(const mf_bl_call_t *c)
{
    int comm_size = c->size;
    int pof2 = comm_pof2(comm_size);
    MPI_Aint esz = (MPI_Aint)c->esize;
    MPI_Aint count = (MPI_Aint)c->bytes / esz;
    MPI_Aint avg_msg_size = count * esz;

    switch (c->opc) {
    case MF_OPC_BARRIER:
        return MF_BL_BARRIER_DISSEMINATION;
    case MF_OPC_BCAST:
        if (comm_size < 8)
            return MF_BL_BCAST_BINOMIAL;
        if (is_pof2(comm_size)) {
            if (avg_msg_size <= 12288)
                return MF_BL_BCAST_BINOMIAL;
            if (avg_msg_size <= 524288)
                return MF_BL_BCAST_SCATTER_RD_ALLGATHER;
            return MF_BL_BCAST_SCATTER_RING_ALLGATHER;
        }
        if (avg_msg_size <= 12288)
            return MF_BL_BCAST_BINOMIAL;
        return MF_BL_BCAST_SCATTER_RING_ALLGATHER;
    case MF_OPC_ALLREDUCE:
        /* avg_msg_size<=0 with a commutative op selects MPIR_Allreduce_intra_smp,
         * which this model does not have; count 0 moves no data anyway. */
        if (avg_msg_size <= 8)
            return MF_BL_ALLREDUCE_RECURSIVE_DOUBLING;
        if (count < pof2)
            return MF_BL_ALLREDUCE_RECURSIVE_DOUBLING;
        return MF_BL_ALLREDUCE_REDUCE_SCATTER_ALLGATHER;
    case MF_OPC_REDUCE:
        if (avg_msg_size <= 2048)
            return MF_BL_REDUCE_BINOMIAL;
        if (count < pof2)
            return MF_BL_REDUCE_BINOMIAL;
        return MF_BL_REDUCE_SCATTER_GATHER;
    case MF_OPC_ALLGATHER: {
        MPI_Aint total_msg_size = esz * count * comm_size;
        if (is_pof2(comm_size))
            return total_msg_size < 524288 ? MF_BL_ALLGATHER_RECURSIVE_DOUBLING
                                           : MF_BL_ALLGATHER_RING;
        return total_msg_size < 81920 ? MF_BL_ALLGATHER_BRUCK : MF_BL_ALLGATHER_RING;
    }
    case MF_OPC_REDUCE_SCATTER: {
        MPI_Aint total = 0;
        for (int i = 0; i < comm_size; i++)
            total += rs_count(c, i);
        return total * esz < 524288 ? MF_BL_REDUCE_SCATTER_RECURSIVE_HALVING
                                    : MF_BL_REDUCE_SCATTER_PAIRWISE;
    }
    case MF_OPC_SCATTER:
        return MF_BL_SCATTER_BINOMIAL;
    case MF_OPC_GATHER:
        return MF_BL_GATHER_BINOMIAL;
    default:
        return MF_BL_NALGS;
    }
}

/* ==== driver ================================================================ */

static mf_opcode_t alg_opcode(mf_bl_alg_t a)
{
    switch (a) {
    case MF_BL_BCAST_BINOMIAL:
    case MF_BL_BCAST_SCATTER_RD_ALLGATHER:
    case MF_BL_BCAST_SCATTER_RING_ALLGATHER:
        return MF_OPC_BCAST;
    case MF_BL_REDUCE_BINOMIAL:
    case MF_BL_REDUCE_SCATTER_GATHER:
        return MF_OPC_REDUCE;
    case MF_BL_ALLREDUCE_RECURSIVE_DOUBLING:
    case MF_BL_ALLREDUCE_REDUCE_SCATTER_ALLGATHER:
        return MF_OPC_ALLREDUCE;
    case MF_BL_ALLGATHER_RECURSIVE_DOUBLING:
    case MF_BL_ALLGATHER_BRUCK:
    case MF_BL_ALLGATHER_RING:
        return MF_OPC_ALLGATHER;
    case MF_BL_REDUCE_SCATTER_RECURSIVE_HALVING:
    case MF_BL_REDUCE_SCATTER_PAIRWISE:
        return MF_OPC_REDUCE_SCATTER;
    case MF_BL_SCATTER_BINOMIAL:
        return MF_OPC_SCATTER;
    case MF_BL_GATHER_BINOMIAL:
        return MF_OPC_GATHER;
    case MF_BL_BARRIER_DISSEMINATION:
        return MF_OPC_BARRIER;
    default:
        return MF_OPC_COUNT;
    }
}

int ref_applies(const mf_bl_call_t *c, mf_bl_alg_t alg, char *err, size_t errlen)
{
    if ((int)alg < 0 || alg >= MF_BL_NALGS || alg_opcode(alg) != c->opc) {
        fail(err, errlen, "algorithm %d is not one of opcode %d", (int)alg, (int)c->opc);
        return 0;
    }
    if (c->size < 1 || c->esize == 0) {
        fail(err, errlen, "bad call (size %d, esize %zu)", c->size, c->esize);
        return 0;
    }
    MPI_Aint count = (MPI_Aint)c->bytes / (MPI_Aint)c->esize;
    int pof2 = comm_pof2(c->size);
    switch (alg) {
    case MF_BL_ALLGATHER_RECURSIVE_DOUBLING:
        if (!is_pof2(c->size)) {
            /* MPIR_Assert(!(comm_size & (comm_size - 1))) */
            fail(err, errlen, "allgather recursive doubling: MPICH asserts pof2 comm_size");
            return 0;
        }
        break;
    case MF_BL_REDUCE_SCATTER_GATHER:
    case MF_BL_ALLREDUCE_REDUCE_SCATTER_ALLGATHER:
        if (count < pof2) {
            /* MPIR_Assert(count >= pof2) */
            fail(err, errlen, "Rabenseifner: MPICH asserts count (%lld) >= pof2 (%d)",
                 (long long)count, pof2);
            return 0;
        }
        break;
    default:
        break;
    }
    if ((c->opc == MF_OPC_BCAST || c->opc == MF_OPC_REDUCE || c->opc == MF_OPC_SCATTER ||
         c->opc == MF_OPC_GATHER) &&
        (c->root < 0 || c->root >= c->size)) {
        fail(err, errlen, "root %d out of range", c->root);
        return 0;
    }
    return 1;
}

static void run_rank(rctx_t *x, const mf_bl_call_t *c, mf_bl_alg_t alg, const MPI_Aint *rc)
{
    MPI_Aint count = (MPI_Aint)c->bytes / x->esize;
    switch (alg) {
    case MF_BL_BCAST_BINOMIAL:
        ref_bcast_intra_binomial(x, count, c->root);
        break;
    case MF_BL_BCAST_SCATTER_RD_ALLGATHER:
        ref_bcast_intra_scatter_recursive_doubling_allgather(x, count, c->root);
        break;
    case MF_BL_BCAST_SCATTER_RING_ALLGATHER:
        ref_bcast_intra_scatter_ring_allgather(x, count, c->root);
        break;
    case MF_BL_REDUCE_BINOMIAL:
        ref_reduce_intra_binomial(x, count, c->root);
        break;
    case MF_BL_REDUCE_SCATTER_GATHER:
        ref_reduce_intra_reduce_scatter_gather(x, count, c->root);
        break;
    case MF_BL_ALLREDUCE_RECURSIVE_DOUBLING:
        ref_allreduce_intra_recursive_doubling(x, count);
        break;
    case MF_BL_ALLREDUCE_REDUCE_SCATTER_ALLGATHER:
        ref_allreduce_intra_reduce_scatter_allgather(x, count);
        break;
    case MF_BL_ALLGATHER_RECURSIVE_DOUBLING:
        ref_allgather_intra_recursive_doubling(x, count);
        break;
    case MF_BL_ALLGATHER_BRUCK:
        ref_allgather_intra_brucks(x, count);
        break;
    case MF_BL_ALLGATHER_RING:
        ref_allgather_intra_ring(x, count);
        break;
    case MF_BL_REDUCE_SCATTER_RECURSIVE_HALVING:
        ref_reduce_scatter_intra_recursive_halving(x, rc);
        break;
    case MF_BL_REDUCE_SCATTER_PAIRWISE:
        ref_reduce_scatter_intra_pairwise(x, rc);
        break;
    case MF_BL_SCATTER_BINOMIAL:
        ref_scatter_intra_binomial(x, count, c->root);
        break;
    case MF_BL_GATHER_BINOMIAL:
        ref_gather_intra_binomial(x, count, c->root);
        break;
    case MF_BL_BARRIER_DISSEMINATION:
        ref_barrier_intra_dissemination(x);
        break;
    default:
        break;
    }
}

static int lists_equal(const ref_evlist_t *a, const ref_evlist_t *b, int size)
{
    for (int r = 0; r < size; r++) {
        if (a[r].n != b[r].n)
            return 0;
        for (int i = 0; i < a[r].n; i++)
            if (!ref_ev_equal(&a[r].v[i], &b[r].v[i]))
                return 0;
    }
    return 1;
}

static void free_lists(ref_evlist_t *l, int size)
{
    if (!l)
        return;
    for (int r = 0; r < size; r++)
        ref_evlist_free(&l[r]);
    free(l);
}

int ref_schedule_all(const mf_bl_call_t *c, mf_bl_alg_t alg, ref_evlist_t *out, char *err,
                     size_t errlen)
{
    int size = c->size, rc = -1;
    if (!ref_applies(c, alg, err, errlen))
        return -1;

    MPI_Aint *recvcounts = calloc((size_t)size, sizeof *recvcounts);
    int *nrecv = calloc((size_t)size, sizeof *nrecv);
    int *size_err = calloc((size_t)size, sizeof *size_err);
    ref_evlist_t *prev = NULL, *cur = NULL;
    if (!recvcounts || !nrecv || !size_err)
        goto oom;
    for (int i = 0; i < size; i++)
        recvcounts[i] = rs_count(c, i);

    /* Each run feeds every receive the size of its matching send in the
     * previous run; a size is right once the sizes it depends on are, so the
     * runs reach a fixed point after at most (longest chain of dependent
     * messages + 1) runs. */
    for (int run = 0; run < 4 * size + 16; run++) {
        cur = calloc((size_t)size, sizeof *cur);
        if (!cur)
            goto oom;
        memset(size_err, 0, (size_t)size * sizeof *size_err);
        for (int r = 0; r < size; r++) {
            memset(nrecv, 0, (size_t)size * sizeof *nrecv);
            rctx_t x = {r, size, (MPI_Aint)c->esize, &cur[r], prev, nrecv, 0, size_err};
            run_rank(&x, c, alg, recvcounts);
            if (x.oom)
                goto oom;
        }
        if (prev && lists_equal(prev, cur, size)) {
            for (int r = 0; r < size; r++)
                if (size_err[r]) {
                    fail(err, errlen, "rank %d: MPICH's received-size check fails", r);
                    goto done;
                }
            /* fixed point: every receive must have found its send and fit */
            for (int r = 0; r < size; r++)
                for (int i = 0; i < cur[r].n; i++) {
                    const ref_ev_t *e = &cur[r].v[i];
                    if (e->kind != REF_RECV && e->kind != REF_SENDRECV)
                        continue;
                    if (!e->matched) {
                        fail(err, errlen, "rank %d event %d: receive from %d has no matching send",
                             r, i, e->rpeer);
                        goto done;
                    }
                    if (e->rbytes > e->rcap) {
                        fail(err, errlen, "rank %d event %d: %llu B from %d exceed the posted %llu",
                             r, i, (unsigned long long)e->rbytes, e->rpeer,
                             (unsigned long long)e->rcap);
                        goto done;
                    }
                }
            for (int r = 0; r < size; r++) {
                ref_evlist_free(&out[r]);
                out[r] = cur[r];
            }
            free(cur);
            cur = NULL;
            rc = 0;
            goto done;
        }
        free_lists(prev, size);
        prev = cur;
        cur = NULL;
    }
    fail(err, errlen, "no fixed point of the received sizes");
    goto done;
oom:
    fail(err, errlen, "out of memory");
done:
    free_lists(prev, size);
    free_lists(cur, size);
    free(recvcounts);
    free(nrecv);
    free(size_err);
    return rc;
}

/* ==== properties independent of MPICH ======================================= */

static int is_send(const ref_ev_t *e) { return e->kind == REF_SEND || e->kind == REF_SENDRECV; }
static int is_recv(const ref_ev_t *e) { return e->kind == REF_RECV || e->kind == REF_SENDRECV; }

int ref_check_pairing(const ref_evlist_t *ev, int size, char *err, size_t errlen)
{
    for (int s = 0; s < size; s++)
        for (int q = 0; q < size; q++) {
            int i = 0, j = 0, k = 0;
            for (;;) {
                while (i < ev[s].n && !(is_send(&ev[s].v[i]) && ev[s].v[i].speer == q))
                    i++;
                while (j < ev[q].n && !(is_recv(&ev[q].v[j]) && ev[q].v[j].rpeer == s))
                    j++;
                if (i == ev[s].n && j == ev[q].n)
                    break;
                if (i == ev[s].n) {
                    fail(err, errlen, "rank %d receives a message no. %d from %d that %d never sends",
                         q, k, s, s);
                    return 0;
                }
                if (j == ev[q].n) {
                    fail(err, errlen, "rank %d sends a message no. %d to %d that %d never receives", s,
                         k, q, q);
                    return 0;
                }
                if (ev[s].v[i].sbytes != ev[q].v[j].rbytes) {
                    fail(err, errlen,
                         "message no. %d %d->%d: sent %llu B (event %d), received %llu B (event %d)",
                         k, s, q, (unsigned long long)ev[s].v[i].sbytes, i,
                         (unsigned long long)ev[q].v[j].rbytes, j);
                    return 0;
                }
                i++, j++, k++;
            }
        }
    return 1;
}

/* index of the event at rank q that is the k-th receive from s (-1: none) */
static int nth_recv(const ref_evlist_t *l, int s, int k)
{
    for (int j = 0; j < l->n; j++)
        if (is_recv(&l->v[j]) && l->v[j].rpeer == s && k-- == 0)
            return j;
    return -1;
}

static int nth_send(const ref_evlist_t *l, int q, int k)
{
    for (int j = 0; j < l->n; j++)
        if (is_send(&l->v[j]) && l->v[j].speer == q && k-- == 0)
            return j;
    return -1;
}

/* ordinal of event i of rank r among r's sends to peer (or receives from) */
static int ordinal(const ref_evlist_t *l, int i, int peer, int sends)
{
    int k = 0;
    for (int j = 0; j < i; j++)
        if (sends ? (is_send(&l->v[j]) && l->v[j].speer == peer)
                  : (is_recv(&l->v[j]) && l->v[j].rpeer == peer))
            k++;
    return k;
}

int ref_check_progress(const ref_evlist_t *ev, int size, char *err, size_t errlen)
{
    int *pc = calloc((size_t)size, sizeof *pc);
    if (!pc) {
        fail(err, errlen, "out of memory");
        return 0;
    }
    int ok = 1;
    for (;;) {
        int progress = 0, done = 1;
        for (int r = 0; r < size; r++) {
            while (pc[r] < ev[r].n) {
                const ref_ev_t *e = &ev[r].v[pc[r]];
                int can = 1;
                if (is_send(e)) { /* the receiver has posted the matching receive */
                    int j = nth_recv(&ev[e->speer], r, ordinal(&ev[r], pc[r], e->speer, 1));
                    can = can && j >= 0 && pc[e->speer] >= j;
                }
                if (is_recv(e)) { /* the sender has posted the matching send */
                    int j = nth_send(&ev[e->rpeer], r, ordinal(&ev[r], pc[r], e->rpeer, 0));
                    can = can && j >= 0 && pc[e->rpeer] >= j;
                }
                if (!can)
                    break;
                pc[r]++;
                progress = 1;
            }
            if (pc[r] < ev[r].n)
                done = 0;
        }
        if (done)
            break;
        if (!progress) {
            char buf[64];
            size_t o = 0;
            if (err && errlen) {
                o += (size_t)snprintf(err, errlen, "deadlock under synchronous sends:");
                for (int r = 0; r < size && o < errlen; r++)
                    if (pc[r] < ev[r].n) {
                        ref_ev_format(&ev[r].v[pc[r]], buf, sizeof buf);
                        o += (size_t)snprintf(err + o, errlen - o, " [%d@%d %s]", r, pc[r], buf);
                    }
            }
            ok = 0;
            break;
        }
    }
    free(pc);
    return ok;
}
