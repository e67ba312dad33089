/* Offloaded calls that complete later; see nb_op.h. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "intercept/host.h"
#include "intercept/nb_op.h"

#define WAIT_SLICE_MS 1 /* a waiting rank serves MPICH's progress this often */

static mf_nb_op_t *ops;  /* registered, not yet released */
static int nposted;      /* of them, still waiting for verdicts */

mf_nb_op_t *mf_nb_new(int persistent)
{
    mf_nb_op_t *op = calloc(1, sizeof *op);
    if (!op)
        return NULL;
    op->persistent = persistent;
    op->req = MPI_REQUEST_NULL;
    op->inner = MPI_REQUEST_NULL;
    op->rc = MPI_SUCCESS;
    op->entry = mf_vtime_enter(&op->entry_ns);
    op->dma_end = op->entry;
    return op;
}

void mf_nb_discard(mf_nb_op_t *op)
{
    if (!op)
        return;
    free(op->tickets);
    free(op->trecv);
    free(op);
}

int mf_nb_add_ticket(mf_nb_op_t *op, uint32_t ticket)
{
    if (op->nt == op->cap) {
        int cap = op->cap ? 2 * op->cap : 4;
        uint32_t *t = realloc(op->tickets, (size_t)cap * sizeof *t);
        if (!t)
            return -1;
        op->tickets = t;
        op->cap = cap;
    }
    op->tickets[op->nt++] = ticket;
    op->left++;
    return 0;
}

static void unlink_op(mf_nb_op_t *op)
{
    for (mf_nb_op_t **p = &ops; *p; p = &(*p)->next)
        if (*p == op) {
            *p = op->next;
            return;
        }
}

/* ---- generalized requests of MPI_I* ---------------------------------------- */

static int nb_query(void *extra, MPI_Status *st)
{
    mf_vtime_at_least(((mf_nb_op_t *)extra)->done);
    PMPI_Status_set_elements(st, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return ((mf_nb_op_t *)extra)->rc;
}

static int nb_free(void *extra)
{
    mf_nb_op_t *op = extra;
    if (op->state == MF_NB_POSTED)
        nposted--; /* freed unfinished (erroneous): its verdicts are dropped */
    unlink_op(op);
    mf_nb_discard(op);
    return MPI_SUCCESS;
}

static int nb_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS; /* a collective cannot be cancelled (MPI-4.0 sec. 6.12) */
}

/* ---- the op's life ---------------------------------------------------------- */

static void finish(mf_nb_op_t *op)
{
    double dma = op->dma_end, modeled = op->entry + op->rank_us * 1e-6;
    if (op->inner == MPI_REQUEST_NULL && op->nt)
        mf_offload_finish(op);
    op->done = modeled > dma ? modeled : dma;
    op->state = MF_NB_DONE;
    nposted--;
    if (!op->persistent)
        PMPI_Grequest_complete(op->req);
}

int mf_nb_register(mf_nb_op_t *op, MPI_Request *req)
{
    if (!op->persistent) {
        int rc = PMPI_Grequest_start(nb_query, nb_free, nb_cancel, op, req);
        if (rc != MPI_SUCCESS)
            return rc; /* the posted pieces still complete; their results are dropped */
    }
    op->req = *req;
    op->state = MF_NB_POSTED;
    op->next = ops;
    ops = op;
    nposted++;
    if (op->left == 0 && op->inner == MPI_REQUEST_NULL)
        finish(op);
    return MPI_SUCCESS;
}

mf_nb_op_t *mf_nb_find(MPI_Request req)
{
    if (!ops || req == MPI_REQUEST_NULL)
        return NULL;
    for (mf_nb_op_t *op = ops; op; op = op->next)
        if (op->req == req)
            return op;
    return NULL;
}

int mf_nb_outstanding(void) { return nposted; }

/* The device's verdict on one piece, into the op. */
static void take(mf_nb_op_t *op, const mf_dev_result_t *r)
{
    op->left--;
    if (r->status == MF_DEV_DONE) {
        op->rank_us += r->rank_us;
        op->net_us += r->net_us;
        op->shm += r->shm != 0;
        return;
    }
    if (op->rc != MPI_SUCCESS)
        return;
    op->rc = MPI_ERR_OTHER;
    if (r->status == MF_DEV_FALLBACK) /* no vote goes with a deferred call */
        snprintf(op->err, sizeof op->err, "mpifpga: the engine answered a nonblocking %s with "
                 "a fallback (%s), which only a vote may cause", mf_coll_id_mpi_name(op->c.id),
                 mf_fb_name(r->reason));
    else
        snprintf(op->err, sizeof op->err, "mpifpga: %.300s", r->text);
}

static void poll_op(mf_nb_op_t *op, int *timeout_ms)
{
    if (op->inner != MPI_REQUEST_NULL) {
        int flag = 0;
        op->rc = PMPI_Test(&op->inner, &flag, MPI_STATUS_IGNORE);
        if (flag || op->rc != MPI_SUCCESS)
            finish(op);
        return;
    }
    for (int i = 0; i < op->nt && op->left; i++) {
        mf_dev_result_t r;
        if (!op->tickets[i])
            continue;
        int got = mf_host.dev.ops->poll(&mf_host.dev, op->tickets[i], *timeout_ms, &r);
        *timeout_ms = 0; /* one wait per progress call */
        if (got == 0)
            return; /* pieces complete in order */
        op->tickets[i] = 0;
        if (got < 0)
            r.status = MF_DEV_ERROR;
        take(op, &r);
    }
    if (!op->left)
        finish(op);
}

void mf_nb_progress(int timeout_ms)
{
    if (!nposted)
        return;
    for (mf_nb_op_t *op = ops, *next; op; op = next) {
        next = op->next; /* finish() may let MPICH free a request, never this list's links */
        if (op->state == MF_NB_POSTED)
            poll_op(op, &timeout_ms);
    }
}

static int all_done(mf_nb_op_t *const *list, int n)
{
    for (int i = 0; i < n; i++)
        if (list[i] && list[i]->state == MF_NB_POSTED)
            return 0;
    return 1;
}

void mf_nb_wait(mf_nb_op_t *const *list, int n)
{
    while (!all_done(list, n)) {
        int flag;
        mf_nb_progress(WAIT_SLICE_MS);
        /* MPICH's progress: point-to-point traffic other members may need
         * before they start this collective (no request is completed) */
        PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
}

void mf_nb_release(mf_nb_op_t *op)
{
    mf_vtime_at_least(op->done);
    unlink_op(op);
    mf_nb_discard(op);
}

void mf_nb_drain(MPI_Comm comm)
{
    for (mf_nb_op_t *op = ops; op; op = op->next)
        if (op->state == MF_NB_POSTED && (comm == MPI_COMM_NULL || op->c.comm == comm))
            mf_nb_wait(&op, 1);
}
