/*
 * Completion of offloaded nonblocking and persistent collectives (nb_op.h):
 * MPI_Wait, Waitall, Waitany, Waitsome, Test, Testall, Testany, Testsome,
 * and MPI_Request_get_status.
 *
 * When no request is one of ours these are MPICH's, after one check of an
 * empty list.  Otherwise:
 *   - Wait / Waitall first finish every op of ours among the requests,
 *     driving the device and MPICH's progress meanwhile (nb_op.c), then
 *     let MPICH complete the requests;
 *   - Waitany / Waitsome / Testany / Testsome / Test / Testall show MPICH
 *     ops of ours that still wait for a verdict as MPI_REQUEST_NULL (Test
 *     and Testall then say flag 0, modifying nothing, as MPI-4.0 sec.
 *     3.7.5 asks); the wait forms repeat until something completes.
 * Modeled time: a call that completes an op of ours sets v = max(v, the
 * op's done) and the time it waited is not computation; a test that
 * completes nothing of ours is charged like any computation.
 */
#include <stdlib.h>

#include "intercept/host.h"
#include "intercept/nb_op.h"
#include "profile/callsite.h"

#define WAIT_SLICE_MS 1

/* What completing request i means for us, taken before MPICH may free the
 * op with its generalized request. */
typedef struct {
    mf_nb_op_t *op;   /* NULL: not ours */
    int persistent;
    double done;
} mine_t;

static int any_mine(int n, const MPI_Request *reqs)
{
    for (int i = 0; reqs && i < n; i++)
        if (mf_nb_find(reqs[i]))
            return 1;
    return 0;
}

static void snapshot(int n, const MPI_Request *reqs, mine_t *m)
{
    for (int i = 0; i < n; i++) {
        mf_nb_op_t *op = mf_nb_find(reqs[i]);
        m[i] = (mine_t){op, op ? op->persistent : 0, op ? op->done : 0};
    }
}

/* Request i completed: v moves to its done; a persistent op is released.
 * 1 if it was ours. */
static int completed(mine_t *m)
{
    if (!m->op)
        return 0;
    mf_vtime_at_least(m->done);
    if (m->persistent)
        mf_nb_release(m->op);
    m->op = NULL;
    return 1;
}

/* Leave a call that waited for ops of ours: the waiting is not computation. */
static int leave_uncharged(int rc)
{
    mf_vtime_hold(mf_vtime_now());
    mf_vclock_resume();
    return rc;
}

/* Copy of reqs with ops of ours still waiting for a verdict hidden; their
 * count in *hidden.  NULL if out of memory. */
static MPI_Request *hide_unfinished(int n, const MPI_Request *reqs, int *hidden)
{
    MPI_Request *copy = malloc((n > 0 ? (size_t)n : 1) * sizeof *copy);
    *hidden = 0;
    for (int i = 0; copy && i < n; i++) {
        mf_nb_op_t *op = mf_nb_find(reqs[i]);
        int wait = op && op->state == MF_NB_POSTED;
        copy[i] = wait ? MPI_REQUEST_NULL : reqs[i];
        *hidden += wait;
    }
    return copy;
}

/* ops[i]: the op of reqs[i] or NULL; m: room for snapshots. */
static int collect(int n, const MPI_Request *reqs, mine_t **m, mf_nb_op_t ***ops)
{
    *m = malloc((size_t)n * sizeof **m);
    *ops = malloc((size_t)n * sizeof **ops);
    if (!*m || !*ops) {
        free(*m);
        free(*ops);
        return -1;
    }
    for (int i = 0; i < n; i++)
        (*ops)[i] = mf_nb_find(reqs[i]);
    return 0;
}

MF_PUBLIC int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    mf_nb_op_t *op = request ? mf_nb_find(*request) : NULL;
    mine_t m;
    if (!op)
        return PMPI_Wait(request, status);
    mf_vclock_pause();
    mf_nb_wait(&op, 1);
    snapshot(1, request, &m);
    int rc = PMPI_Wait(request, status);
    completed(&m);
    return leave_uncharged(rc);
}

MF_PUBLIC int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    mine_t *m;
    mf_nb_op_t **ops;
    if (count <= 0 || !reqs || !any_mine(count, reqs) || collect(count, reqs, &m, &ops))
        return PMPI_Waitall(count, reqs, statuses);
    mf_vclock_pause();
    mf_nb_wait(ops, count);
    snapshot(count, reqs, m);
    int rc = PMPI_Waitall(count, reqs, statuses);
    for (int i = 0; i < count; i++)
        completed(&m[i]);
    free(m);
    free(ops);
    return leave_uncharged(rc);
}

MF_PUBLIC int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    mf_nb_op_t *op = request ? mf_nb_find(*request) : NULL;
    mine_t m;
    if (!op)
        return PMPI_Test(request, flag, status);
    mf_nb_progress(0);
    if (op->state == MF_NB_POSTED) {
        int probe;
        PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &probe, MPI_STATUS_IGNORE);
        *flag = 0;
        return MPI_SUCCESS;
    }
    mf_vclock_pause();
    snapshot(1, request, &m);
    int rc = PMPI_Test(request, flag, status);
    if (*flag)
        completed(&m);
    return leave_uncharged(rc);
}

MF_PUBLIC int MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    int hidden;
    if (count <= 0 || !reqs || !any_mine(count, reqs))
        return PMPI_Testall(count, reqs, flag, statuses);
    mf_nb_progress(0);
    MPI_Request *copy = hide_unfinished(count, reqs, &hidden);
    free(copy);
    if (hidden) {
        int probe;
        PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &probe, MPI_STATUS_IGNORE);
        *flag = 0;
        return MPI_SUCCESS;
    }
    mine_t *m = malloc((size_t)count * sizeof *m);
    if (!m)
        return PMPI_Testall(count, reqs, flag, statuses);
    mf_vclock_pause();
    snapshot(count, reqs, m);
    int rc = PMPI_Testall(count, reqs, flag, statuses);
    for (int i = 0; *flag && i < count; i++)
        completed(&m[i]);
    free(m);
    if (!*flag) {
        mf_vclock_resume();
        return rc;
    }
    return leave_uncharged(rc);
}

/* One Testany over reqs with unfinished ops of ours hidden: 1 if it found
 * something to report (*index may be MPI_UNDEFINED when nothing at all is
 * active), 0 if not yet; the MPI error in *rc. */
static int testany_once(int n, MPI_Request reqs[], int *index, MPI_Status *st, mine_t *m,
                        int *rc, int *ours)
{
    int hidden, flag = 0;
    MPI_Request *copy = hide_unfinished(n, reqs, &hidden);
    *ours = 0;
    if (!copy)
        return *rc = MPI_ERR_NO_MEM, 1;
    snapshot(n, reqs, m);
    *rc = PMPI_Testany(n, copy, index, &flag, st);
    int found = *rc != MPI_SUCCESS || (flag && (*index != MPI_UNDEFINED || !hidden));
    if (*rc == MPI_SUCCESS && flag && *index != MPI_UNDEFINED) {
        reqs[*index] = copy[*index];
        *ours = completed(&m[*index]);
    }
    free(copy);
    return found;
}

MF_PUBLIC int MPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    int rc, ours;
    mine_t *m;
    if (count <= 0 || !reqs || !any_mine(count, reqs) || !(m = malloc((size_t)count * sizeof *m)))
        return PMPI_Waitany(count, reqs, index, status);
    mf_vclock_pause();
    for (;;) {
        mf_nb_progress(0);
        if (testany_once(count, reqs, index, status, m, &rc, &ours))
            break;
        mf_nb_progress(WAIT_SLICE_MS);
    }
    free(m);
    return leave_uncharged(rc);
}

MF_PUBLIC int MPI_Testany(int count, MPI_Request reqs[], int *index, int *flag,
                          MPI_Status *status)
{
    int rc, ours;
    mine_t *m;
    if (count <= 0 || !reqs || !any_mine(count, reqs) || !(m = malloc((size_t)count * sizeof *m)))
        return PMPI_Testany(count, reqs, index, flag, status);
    mf_nb_progress(0);
    mf_vclock_pause();
    *flag = testany_once(count, reqs, index, status, m, &rc, &ours);
    if (!*flag)
        *index = MPI_UNDEFINED;
    free(m);
    if (!ours) {
        mf_vclock_resume();
        return rc;
    }
    return leave_uncharged(rc);
}

/* One Testsome with unfinished ops of ours hidden: 1 if it found something
 * to report (*outcount may be MPI_UNDEFINED when nothing is active). */
static int testsome_once(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[],
                         mine_t *m, int *rc, int *ours)
{
    int hidden;
    *ours = 0;
    MPI_Request *copy = hide_unfinished(n, reqs, &hidden);
    if (!copy)
        return *rc = MPI_ERR_NO_MEM, 1;
    snapshot(n, reqs, m);
    *rc = PMPI_Testsome(n, copy, outcount, idx, sts);
    for (int k = 0; *rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED && k < *outcount; k++) {
        reqs[idx[k]] = copy[idx[k]];
        *ours += completed(&m[idx[k]]);
    }
    free(copy);
    if (*rc == MPI_SUCCESS && *outcount == MPI_UNDEFINED && hidden)
        *outcount = 0; /* ours are still active */
    return *rc != MPI_SUCCESS || *outcount != 0;
}

MF_PUBLIC int MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                           MPI_Status statuses[])
{
    int rc, ours;
    mine_t *m;
    if (incount <= 0 || !reqs || !any_mine(incount, reqs) ||
        !(m = malloc((size_t)incount * sizeof *m)))
        return PMPI_Waitsome(incount, reqs, outcount, indices, statuses);
    mf_vclock_pause();
    for (;;) {
        mf_nb_progress(0);
        if (testsome_once(incount, reqs, outcount, indices, statuses, m, &rc, &ours))
            break;
        mf_nb_progress(WAIT_SLICE_MS);
    }
    free(m);
    return leave_uncharged(rc);
}

MF_PUBLIC int MPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                           MPI_Status statuses[])
{
    int rc, ours;
    mine_t *m;
    if (incount <= 0 || !reqs || !any_mine(incount, reqs) ||
        !(m = malloc((size_t)incount * sizeof *m)))
        return PMPI_Testsome(incount, reqs, outcount, indices, statuses);
    mf_nb_progress(0);
    mf_vclock_pause();
    testsome_once(incount, reqs, outcount, indices, statuses, m, &rc, &ours);
    free(m);
    if (!ours) {
        mf_vclock_resume();
        return rc;
    }
    return leave_uncharged(rc);
}

/* Status without completing: an op of ours still waiting for its verdict
 * is not complete. */
MF_PUBLIC int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    mf_nb_op_t *op = mf_nb_find(request);
    if (!op)
        return PMPI_Request_get_status(request, flag, status);
    mf_nb_progress(0);
    if (op->state == MF_NB_POSTED) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    return PMPI_Request_get_status(request, flag, status);
}
