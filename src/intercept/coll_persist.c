/*
 * Persistent collectives (MPI 4.0: MPI_Bcast_init ... MPI_Barrier_init,
 * MPI_Start / MPI_Startall, MPI_Request_free) offloaded.
 *
 * MPI_X_init, when the collective may be offloaded in this job, records
 * the call's arguments and hands the program a stand-in handle: a
 * persistent MPI_Barrier_init request on MPI_COMM_SELF, which MPICH
 * starts, completes and keeps valid across starts (MPICH 4.0 neither
 * completes a never-started persistent collective request in
 * MPI_Wait/MPI_Test -- they hang -- nor lets a generalized request be
 * restarted, so neither can stand in).  MPI_Start of a recorded request
 * posts the call (nb_op.h) through the same builder and decision as the
 * blocking twin (coll.c, offload.c: identical on every member), or starts
 * MPICH's own nonblocking call when the decision falls back, then starts
 * the stand-in; the completion calls (wait.c) finish the op before they
 * let MPICH report the stand-in complete.  Otherwise MPI_X_init is
 * MPICH's.
 */
#include <stdlib.h>
#include <string.h>

#include "intercept/coll.h"
#include "intercept/host.h"
#include "intercept/nb_op.h"
#include "intercept/offload.h"
#include "profile/callsite.h"

typedef struct pcoll {
    MPI_Request req;
    mf_coll_id_t id;
    const void *sbuf;
    void *rbuf;
    int scount, rcount, root;
    MPI_Datatype stype, rtype;
    MPI_Op op;
    MPI_Comm comm;
    int *counts; /* reduce_scatter: copied at init */
    mf_offload_plan_t plan; /* the call and its decision, made at init */
    struct pcoll *next;
} pcoll_t;

static pcoll_t *pcolls; /* the recorded requests (a program holds few) */

static pcoll_t **find(MPI_Request req)
{
    pcoll_t **p = &pcolls;
    while (*p && (*p)->req != req)
        p = &(*p)->next;
    return p;
}

static int run(const pcoll_t *p, int *rc);

/* Record the call under a stand-in request and plan it once (offload.h
 * mf_offload_plan_t): 1 done (*rc), 0 the caller runs PMPI_X_init
 * (offload not wanted in this job -- alike on every member). */
static int record(const pcoll_t *args, MPI_Request *req, int *rc)
{
    if (!mf_host.cfg.nonblocking || !mf_offload_wanted(args->id) || !req)
        return 0;
    pcoll_t *p = calloc(1, sizeof *p);
    int n = 0, planned = MPI_SUCCESS;
    if (!p)
        goto oom;
    *p = *args;
    p->counts = NULL;
    PMPI_Comm_size(args->comm, &n);
    if (args->counts && (n <= 0 || !(p->counts = malloc((size_t)n * sizeof *p->counts))))
        goto oom;
    if (args->counts)
        memcpy(p->counts, args->counts, (size_t)n * sizeof *p->counts);
    *rc = PMPI_Barrier_init(MPI_COMM_SELF, MPI_INFO_NULL, req);
    if (*rc != MPI_SUCCESS) {
        free(p->counts);
        free(p);
        return 1;
    }
    p->req = *req;
    mf_offload_form = 2;
    mf_offload_capture = &p->plan;
    run(p, &planned); /* not decided (bad arguments): every start is MPICH's */
    mf_offload_capture = NULL;
    mf_offload_form = 0;
    p->next = pcolls;
    pcolls = p;
    return 1;
oom: /* the other members go on with theirs: an error, not MPICH's call */
    free(p);
    *rc = mf_raise(args->comm, "mpifpga: out of memory recording a persistent collective");
    return 1;
}

/* A start that falls back: MPICH's own nonblocking call, whose request the
 * op waits for (every member falls back together, offload.c). */
static int mpich(const pcoll_t *p, MPI_Request *r)
{
    switch (p->id) {
    case MF_C_ALLREDUCE:
        return PMPI_Iallreduce(p->sbuf, p->rbuf, p->rcount, p->rtype, p->op, p->comm, r);
    case MF_C_REDUCE:
        return PMPI_Ireduce(p->sbuf, p->rbuf, p->rcount, p->rtype, p->op, p->root, p->comm, r);
    case MF_C_BCAST:
        return PMPI_Ibcast(p->rbuf, p->rcount, p->rtype, p->root, p->comm, r);
    case MF_C_SCATTER:
        return PMPI_Iscatter(p->sbuf, p->scount, p->stype, p->rbuf, p->rcount, p->rtype,
                             p->root, p->comm, r);
    case MF_C_GATHER:
        return PMPI_Igather(p->sbuf, p->scount, p->stype, p->rbuf, p->rcount, p->rtype,
                            p->root, p->comm, r);
    case MF_C_ALLGATHER:
        return PMPI_Iallgather(p->sbuf, p->scount, p->stype, p->rbuf, p->rcount, p->rtype,
                               p->comm, r);
    case MF_C_REDUCE_SCATTER:
        return PMPI_Ireduce_scatter(p->sbuf, p->rbuf, p->counts, p->rtype, p->op, p->comm, r);
    case MF_C_REDUCE_SCATTER_BLOCK:
        return PMPI_Ireduce_scatter_block(p->sbuf, p->rbuf, p->rcount, p->rtype, p->op,
                                          p->comm, r);
    case MF_C_SCAN:
        return PMPI_Iscan(p->sbuf, p->rbuf, p->rcount, p->rtype, p->op, p->comm, r);
    case MF_C_EXSCAN:
        return PMPI_Iexscan(p->sbuf, p->rbuf, p->rcount, p->rtype, p->op, p->comm, r);
    case MF_C_ALLTOALL:
        return PMPI_Ialltoall(p->sbuf, p->scount, p->stype, p->rbuf, p->rcount, p->rtype,
                              p->comm, r);
    default:
        return PMPI_Ibarrier(p->comm, r);
    }
}

/* The recorded call through its builder: at MPI_X_init, with
 * mf_offload_capture set, this plans it (record). */
static int run(const pcoll_t *p, int *rc)
{
    switch (p->id) {
    case MF_C_ALLREDUCE:
        return p->rcount >= 0 && mf_allreduce(p->sbuf, p->rbuf, (uint64_t)p->rcount, p->rtype,
                                              p->op, p->comm, rc);
    case MF_C_REDUCE:
        return p->rcount >= 0 && mf_reduce(p->sbuf, p->rbuf, (uint64_t)p->rcount, p->rtype,
                                           p->op, p->root, p->comm, rc);
    case MF_C_BCAST:
        return p->rcount >= 0 && mf_bcast(p->rbuf, (uint64_t)p->rcount, p->rtype, p->root,
                                          p->comm, rc);
    case MF_C_SCATTER:
        return mf_scatter(p->sbuf, p->scount, p->stype, p->rbuf, p->rcount, p->rtype, p->root,
                          p->comm, rc);
    case MF_C_GATHER:
        return mf_gather(p->sbuf, p->scount, p->stype, p->rbuf, p->rcount, p->rtype, p->root,
                         p->comm, rc);
    case MF_C_ALLGATHER:
        return mf_allgather(p->sbuf, p->scount, p->stype, p->rbuf, p->rcount, p->rtype,
                            p->comm, rc);
    case MF_C_REDUCE_SCATTER:
        return mf_reduce_scatter(p->sbuf, p->rbuf, p->counts, NULL, p->rtype, p->op, p->comm,
                                 rc);
    case MF_C_REDUCE_SCATTER_BLOCK:
        return p->rcount >= 0 && mf_reduce_scatter_block(p->sbuf, p->rbuf, (uint64_t)p->rcount,
                                                         p->rtype, p->op, p->comm, rc);
    case MF_C_BARRIER:
        return mf_barrier(p->comm, rc);
    case MF_C_SCAN:
    case MF_C_EXSCAN:
        return p->rcount >= 0 && mf_scan(p->sbuf, p->rbuf, (uint64_t)p->rcount, p->rtype, p->op,
                                         p->id == MF_C_EXSCAN, p->comm, rc);
    case MF_C_ALLTOALL:
        return mf_alltoall(p->sbuf, p->scount, p->stype, p->rbuf, p->rcount, p->rtype, p->comm,
                           rc);
    default:
        return 0;
    }
}

/* A start: the call is posted into an op that completes with the stand-in
 * (nb_op.h), or MPICH's nonblocking call is; then the stand-in starts. */
static int start_one(MPI_Request *req)
{
    pcoll_t *p = *find(*req);
    int rc = MPI_SUCCESS, handled = 0;
    if (!p || !mf_host.initialized)
        return PMPI_Start(req);
    mf_vclock_pause();
    mf_nb_op_t *op = mf_nb_new(1);
    if (!op) {
        rc = mf_raise(p->comm, "mpifpga: out of memory starting a persistent collective");
        mf_vclock_resume();
        return rc;
    }
    op->c.comm = p->comm;
    mf_offload_form = 2;
    mf_offload_deferred = op;
    handled = p->plan.decided && mf_offload_planned(&p->plan, &rc);
    mf_offload_deferred = NULL;
    mf_offload_form = 0;
    if (!handled)
        rc = mpich(p, &op->inner);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Start(req);
    if (rc == MPI_SUCCESS)
        rc = mf_nb_register(op, req);
    else
        mf_nb_discard(op);
    if (handled)
        mf_vtime_hold(mf_vtime_now()); /* posting is not computation */
    mf_vclock_resume();
    return rc;
}

MF_PUBLIC int MPI_Start(MPI_Request *request)
{
    return start_one(request);
}

/* In array order, as MPI_Startall starts them; stops at the first error. */
MF_PUBLIC int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    if (count < 0 || (count > 0 && !array_of_requests))
        return PMPI_Startall(count, array_of_requests); /* MPICH reports it */
    for (int i = 0; i < count; i++) {
        int rc = start_one(&array_of_requests[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

MF_PUBLIC int MPI_Request_free(MPI_Request *request)
{
    if (request) {
        pcoll_t **pp = find(*request), *p = *pp;
        if (p) {
            *pp = p->next;
            mf_offload_plan_free(&p->plan);
            free(p->counts);
            free(p);
        }
    }
    return PMPI_Request_free(request);
}

/* ---- the MPI_X_init interface --------------------------------------------- */

MF_PUBLIC int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    pcoll_t a = {.id = MF_C_ALLREDUCE, .sbuf = sendbuf, .rbuf = recvbuf, .rcount = count,
                 .rtype = datatype, .op = op, .comm = comm};
    int rc;
    if (record(&a, request, &rc))
        return rc;
    return PMPI_Allreduce_init(sendbuf, recvbuf, count, datatype, op, comm, info,
                                      request);
}

MF_PUBLIC int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                              MPI_Info info, MPI_Request *request)
{
    pcoll_t a = {.id = MF_C_REDUCE, .sbuf = sendbuf, .rbuf = recvbuf, .rcount = count,
                 .rtype = datatype, .op = op, .root = root, .comm = comm};
    int rc;
    if (record(&a, request, &rc))
        return rc;
    return PMPI_Reduce_init(sendbuf, recvbuf, count, datatype, op, root, comm, info,
                                   request);
}

MF_PUBLIC int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root,
                             MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    pcoll_t a = {.id = MF_C_BCAST, .rbuf = buffer, .rcount = count, .rtype = datatype,
                 .root = root, .comm = comm};
    int rc;
    if (record(&a, request, &rc))
        return rc;
    return PMPI_Bcast_init(buffer, count, datatype, root, comm, info, request);
}

MF_PUBLIC int MPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    pcoll_t a = {.id = MF_C_SCATTER, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
                 .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype, .root = root,
                 .comm = comm};
    int rc;
    if (record(&a, request, &rc))
        return rc;
    return PMPI_Scatter_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    root, comm, info, request);
}

MF_PUBLIC int MPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                              MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    pcoll_t a = {.id = MF_C_GATHER, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
                 .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype, .root = root,
                 .comm = comm};
    int rc;
    if (record(&a, request, &rc))
        return rc;
    return PMPI_Gather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   root, comm, info, request);
}

MF_PUBLIC int MPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    pcoll_t a = {.id = MF_C_ALLGATHER, .sbuf = sendbuf, .scount = sendcount,
                 .stype = sendtype, .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype,
                 .comm = comm};
    int rc;
    if (record(&a, request, &rc))
        return rc;
    return PMPI_Allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                      recvtype, comm, info, request);
}

MF_PUBLIC int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                      MPI_Info info, MPI_Request *request)
{
    pcoll_t a = {.id = MF_C_REDUCE_SCATTER, .sbuf = sendbuf, .rbuf = recvbuf,
                 .rtype = datatype, .op = op, .comm = comm, .counts = (int *)recvcounts};
    int rc;
    if (record(&a, request, &rc))
        return rc;
    return PMPI_Reduce_scatter_init(sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                           info, request);
}

MF_PUBLIC int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                            MPI_Info info, MPI_Request *request)
{
    pcoll_t a = {.id = MF_C_REDUCE_SCATTER_BLOCK, .sbuf = sendbuf, .rbuf = recvbuf,
                 .rcount = recvcount, .rtype = datatype, .op = op, .comm = comm};
    int rc;
    if (record(&a, request, &rc))
        return rc;
    return PMPI_Reduce_scatter_block_init(sendbuf, recvbuf, recvcount, datatype, op,
                                                 comm, info, request);
}

MF_PUBLIC int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    pcoll_t a = {.id = MF_C_BARRIER, .comm = comm};
    int rc;
    if (record(&a, request, &rc))
        return rc;
    return PMPI_Barrier_init(comm, info, request);
}

MF_PUBLIC int MPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    pcoll_t a = {.id = MF_C_SCAN, .sbuf = sendbuf, .rbuf = recvbuf, .rcount = count,
                 .rtype = datatype, .op = op, .comm = comm};
    int rc;
    if (record(&a, request, &rc))
        return rc;
    return PMPI_Scan_init(sendbuf, recvbuf, count, datatype, op, comm, info, request);
}

MF_PUBLIC int MPI_Exscan_init(const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                              MPI_Request *request)
{
    pcoll_t a = {.id = MF_C_EXSCAN, .sbuf = sendbuf, .rbuf = recvbuf, .rcount = count,
                 .rtype = datatype, .op = op, .comm = comm};
    int rc;
    if (record(&a, request, &rc))
        return rc;
    return PMPI_Exscan_init(sendbuf, recvbuf, count, datatype, op, comm, info, request);
}

MF_PUBLIC int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    pcoll_t a = {.id = MF_C_ALLTOALL, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
                 .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype, .comm = comm};
    int rc;
    if (record(&a, request, &rc))
        return rc;
    return PMPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                              info, request);
}
