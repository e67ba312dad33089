/* mpiexec -n K mpifpga-sim: the sweep's points over K processes (sim_mpi.h). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/sim_mpi.h"
#include "mpifpga/model.h"

static int active, rank, size = 1;
static int crowded; /* more processes on this node than cores */
static const char *prog = "mpifpga-sim"; /* for messages: argv[0]'s name */

void sim_mpi_start(int *argc, char ***argv)
{
    if (active)
        return;
    if (*argc > 0 && (*argv)[0]) {
        const char *slash = strrchr((*argv)[0], '/');
        prog = slash ? slash + 1 : (*argv)[0];
    }
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    active = 1;
    /* threads: the node's cores shared among the processes on it */
    MPI_Comm node;
    int local = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    crowded = local > sysconf(_SC_NPROCESSORS_ONLN);
    mf_net_share_cores(local);
}

int sim_mpi_active(void) { return active; }
int sim_mpi_rank(void) { return active ? rank : sim_mpi_env_rank(); }
int sim_mpi_size(void)
{
    int k = sim_mpi_env_size();
    return active ? size : k > 0 ? k : 1;
}

void sim_mpi_exit(int rc)
{
    fflush(stdout);
    if (active)
        MPI_Finalize();
    exit(rc);
}

void sim_mpi_abort(int rc)
{
    fflush(stdout);
    if (active)
        MPI_Abort(MPI_COMM_WORLD, rc);
    exit(rc);
}

/* Wait for a nonblocking collective without spinning a core (MPICH's
 * blocking calls poll): a rank done with its points leaves its core to the
 * others while it waits.  It polls (yielding) for a while first, so that
 * a step the others are about to take costs no millisecond. */
void sim_mpi_lazy_wait(MPI_Request *r)
{
    const struct timespec ms = {0, 1000000};
    for (int done = 0, polls = 0;; polls++) {
        MPI_Test(r, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        if (polls < 1000)
            sched_yield();
        else
            nanosleep(&ms, NULL);
    }
}

/* Finish a domain exchange's step started as *r, on a crowded node.  MPICH
 * polls while it waits, which with a core per process is fastest, and its
 * blocking calls are faster than the nonblocking ones (2 against 6 us a
 * window, bench/domain_sync), so uncrowded the callers make the blocking
 * calls instead.  With more processes than cores a poller would hold the
 * core of the process it waits for until its time slice ends (16 ms a
 * window), so here it yields between polls (40-65 us a window for 3-4
 * processes on 2 cores). */
static void sync_wait(MPI_Request *r)
{
    for (int done = 0;;) {
        MPI_Test(r, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        sched_yield();
    }
}

/* Largest estimated cost first, each to the least-loaded rank (lowest rank
 * on a tie): the same on every rank. */
static void assign(int npts, const uint64_t *cost, int k, int *owner)
{
    uint64_t *load = calloc((size_t)k, sizeof *load);
    char *done = calloc((size_t)npts, 1);
    if (!load || !done) {
        fprintf(stderr, "mpifpga-sim: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int n = 0; n < npts; n++) {
        int big = -1, r = 0;
        for (int i = 0; i < npts; i++)
            if (!done[i] && (big < 0 || cost[i] > cost[big]))
                big = i;
        for (int j = 1; j < k; j++)
            if (load[j] < load[r])
                r = j;
        done[big] = 1;
        owner[big] = r;
        load[r] += cost[big];
    }
    free(load);
    free(done);
}

typedef struct {
    int64_t status; /* 0 not run here, 1 done, 2 failed (64 bits: the row after it aligned) */
    char err[256];  /* as one process's buffer: the same message, cut the same */
} rec_t;

int sim_mpi_share_rc(int rc)
{
    MPI_Request req;
    MPI_Ibcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
    sim_mpi_lazy_wait(&req);
    return rc;
}

int sim_mpi_sweep(const sim_sweep_t *s, char *err, size_t len)
{
    /* one record a point: status, message, row (rows are plain data) */
    size_t recsz = (sizeof(rec_t) + s->row_size + 7) / 8 * 8;
    int *owner = malloc((size_t)s->npts * sizeof *owner), rc = 0;
    char *mine = calloc((size_t)s->npts, recsz), *all = NULL;
    if (rank == 0)
        all = calloc((size_t)size * (size_t)s->npts, recsz);
    if (!owner || !mine || (rank == 0 && !all)) {
        fprintf(stderr, "mpifpga-sim: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    assign(s->npts, s->cost, size, owner);
    if (rank == 0 && s->npts < size)
        fprintf(stderr, "mpifpga-sim: %d sweep point%s for %d processes: %d had nothing to do\n",
                s->npts, s->npts == 1 ? "" : "s", size, size - s->npts);
    for (int i = 0; i < s->npts; i++) {
        rec_t *r = (rec_t *)(mine + (size_t)i * recsz);
        if (owner[i] != rank)
            continue;
        if (s->run(s->ctx, i, r + 1, r->err, sizeof r->err)) {
            r->status = 2; /* the network is not drained: run no more */
            break;
        }
        r->status = 1;
    }
    MPI_Request req;
    int bytes = (int)((size_t)s->npts * recsz);
    MPI_Igather(mine, bytes, MPI_BYTE, all, bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
    sim_mpi_lazy_wait(&req);
    /* in sweep order, as one process: the first failure ends the sweep (a
     * rank stops at its first failure, so a point it left is after one) */
    for (int i = 0; rank == 0 && i < s->npts; i++) {
        rec_t *r = (rec_t *)(all + (size_t)owner[i] * (size_t)bytes + (size_t)i * recsz);
        if (r->status != 1) {
            snprintf(err, len, "%s", r->status ? r->err : "sweep point not run");
            rc = 1;
            break;
        }
        memcpy((char *)s->rows + (size_t)i * s->row_size, r + 1, s->row_size);
    }
    rc = sim_mpi_share_rc(rc);
    free(owner);
    free(mine);
    free(all);
    return rc;
}

/* ---- the processes as domains of one network (net/domain.h) ------------- */

static void oom_abort(void)
{
    fprintf(stderr, "%s: out of memory for the domain exchange\n", prog);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int dom_exchange(void *ctx, const mf_dom_msg_t *out, size_t nout, mf_dom_msg_t **in,
                        size_t *nin, char *err, size_t errlen)
{
    (void)ctx;
    (void)err;
    (void)errlen;
    int *scount = calloc((size_t)size * 4, sizeof *scount);
    if (!scount)
        oom_abort();
    int *sdisp = scount + size, *rcount = scount + 2 * size, *rdisp = scount + 3 * size;
    /* counts and offsets in bytes: out is sorted by destination */
    for (size_t i = 0; i < nout; i++)
        scount[out[i].to] += (int)sizeof *out;
    MPI_Request req;
    if (!crowded)
        MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
    else {
        MPI_Ialltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD, &req);
        sync_wait(&req);
    }
    size_t total = 0;
    for (int r = 0; r < size; r++) {
        sdisp[r] = r ? sdisp[r - 1] + scount[r - 1] : 0;
        rdisp[r] = (int)total;
        total += (size_t)rcount[r];
    }
    mf_dom_msg_t *got = malloc(total ? total : 1);
    if (!got)
        oom_abort(); /* the others wait in the exchange: no way back */
    /* from each sender in its order, senders in rank order: the same on
     * every run */
    if (!crowded)
        MPI_Alltoallv(out, scount, sdisp, MPI_BYTE, got, rcount, rdisp, MPI_BYTE, MPI_COMM_WORLD);
    else {
        MPI_Ialltoallv(out, scount, sdisp, MPI_BYTE, got, rcount, rdisp, MPI_BYTE,
                       MPI_COMM_WORLD, &req);
        sync_wait(&req);
    }
    *in = got;
    *nin = total / sizeof *got;
    free(scount);
    return 0;
}

/* Every rank's values gathered and combined here: MPICH 4.0's MPI_MIN and
 * MPI_MAX on MPI_UINT64_T compare as signed (the minimum of 111 and
 * UINT64_MAX, the engine's "never", came out UINT64_MAX). */
static int dom_reduce(void *ctx, uint64_t *v, const int *op, int n, char *err, size_t errlen)
{
    (void)ctx;
    (void)err;
    (void)errlen;
    uint64_t *all = malloc((size_t)size * (size_t)n * sizeof *all);
    if (!all)
        oom_abort();
    MPI_Request req;
    if (!crowded)
        MPI_Allgather(v, n, MPI_UINT64_T, all, n, MPI_UINT64_T, MPI_COMM_WORLD);
    else {
        MPI_Iallgather(v, n, MPI_UINT64_T, all, n, MPI_UINT64_T, MPI_COMM_WORLD, &req);
        sync_wait(&req);
    }
    for (int i = 0; i < n; i++) {
        uint64_t x = all[i];
        for (int r = 1; r < size; r++)
            x = mf_dom_combine(op[i], x, all[(size_t)r * (size_t)n + (size_t)i]);
        v[i] = x;
    }
    free(all);
    return 0;
}

int sim_mpi_domain_ops(mf_dom_ops_t *ops)
{
    if (!active)
        return -1;
    *ops = (mf_dom_ops_t){.ndomains = size, .self = rank, .exchange = dom_exchange,
                          .reduce = dom_reduce};
    return 0;
}
