/*
 * Collectives over a network split into domains (net/domain_coll.c),
 * without MPI (test/dom_hub.c): every domain must end with the unsplit
 * network's figures -- every rank's completion cycle, the spread, where
 * the run ends -- for any K and any partition, in mf_coll_once's single
 * call, the repeated loop with its fast path, and the OSU loop, with
 * windows small enough that credits bind call after call.  Calls with
 * data leave every rank's receive buffer as the unsplit run does, bit for
 * bit (packets carry their payload across).  What cannot cross (a fat
 * tree's aggregation engines) fails the run on every domain with a
 * message, and no domain hangs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/run.h"
#include "dom_hub.h"
#include "net/network.h"
#include "net/topo.h"
#include "params/params.h"
#include "tap.h"

enum { SINGLE, LOOP, OSU };
enum { WATCHDOG = 200 }; /* active cycles without data moved */

typedef struct {
    const char *topo;
    mf_opcode_t opc;
    uint64_t bytes;
    int how;       /* SINGLE, LOOP or OSU */
    int data;      /* send real data: rank r's element i is r + 1 + i / 4 */
    uint32_t fifo; /* the engines' input FIFO, the credit window (0: u280's) */
    int root;
} case_t;

/* What a run ends with, on one domain. */
typedef struct {
    mf_coll_timing_t t;
    uint64_t lat[64], now;
    int simulated;
} result_t;

typedef struct {
    hub_member_t m; /* first: the ops' ctx */
    const case_t *c;
    const mf_params_t *p;
    const mf_topo_t *t;
    double *recv; /* with data: P slices of RECV_CAP bytes, each filled by
                   * the domain of its rank */
    result_t res;
    int rc;
    char err[256];
} dom_t;

/* Ranks of c's network (one rank a node): a torus's nodes, 16 on a fat
 * tree. */
static int ranks_of(const case_t *c)
{
    int x, y, z;
    return sscanf(c->topo, "torus:%dx%dx%d", &x, &y, &z) == 3 ? x * y * z : 16;
}

/* Receive room per rank: the largest result (an Allgather's P blocks). */
static size_t recv_cap(const case_t *c, int P)
{
    return (size_t)c->bytes * (size_t)P;
}

/* With data: every rank's send buffer (rank r's element i r + 1 + i / 4,
 * exact in double), and receive buffers into recv for the ranks of this
 * domain; the others are not posted here.  0, or -1 out of memory. */
static int make_bufs(mf_net_t *n, const case_t *c, int P, double *recv, mf_buf_t **send,
                     mf_buf_t **rb, double **vals)
{
    size_t cnt = c->bytes / sizeof(double);
    *send = calloc((size_t)P, sizeof **send);
    *rb = calloc((size_t)P, sizeof **rb);
    *vals = malloc((size_t)P * cnt * sizeof **vals + 1);
    if (!*send || !*rb || !*vals)
        return -1;
    for (int r = 0; r < P; r++) {
        for (size_t i = 0; i < cnt; i++)
            (*vals)[(size_t)r * cnt + i] = r + 1 + (double)i / 4;
        (*send)[r] = (mf_buf_t){.base = *vals + (size_t)r * cnt, .len = c->bytes};
        if (mf_dom_local(n, mf_rank_switch(n, r)))
            (*rb)[r] = (mf_buf_t){.base = (char *)recv + (size_t)r * recv_cap(c, P),
                                  .len = recv_cap(c, P)};
    }
    return 0;
}

static int run_case(mf_net_t *n, const case_t *c, double *recv, result_t *r, char *err,
                    size_t len)
{
    int P = mf_net_nranks(n), members[64];
    for (int i = 0; i < P; i++)
        members[i] = i;
    mf_coll_spec_t s = {.opc = c->opc, .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE, .bytes = c->bytes,
                        .root = c->root};
    mf_buf_t *send = NULL, *rb = NULL;
    double *vals = NULL;
    if (c->data && make_bufs(n, c, P, recv, &send, &rb, &vals))
        abort();
    int rc = mf_comm_setup(n, 0, P, members, err, len);
    if (!rc && c->how == SINGLE)
        rc = mf_coll_once(n, &s, P, members, send, rb, mf_net_now(n), r->lat, &r->t, err, len);
    else if (!rc && c->how == LOOP)
        rc = mf_coll_loop(n, &s, P, members, 20, 1, &r->t, &r->simulated, err, len);
    else if (!rc)
        rc = mf_coll_loop_osu(n, &s, P, members, 3, 1, &r->t, err, len);
    r->now = mf_net_now(n);
    free(send);
    free(rb);
    free(vals);
    return rc;
}

static void *run_domain(void *arg)
{
    dom_t *d = arg;
    mf_net_t *n = mf_net_create(d->p, d->t, d->err, sizeof d->err);
    if (!n)
        abort(); /* the others would wait at the barrier */
    mf_dom_ops_t ops = hub_ops(&d->m);
    if (d->m.hub->k > 1 && mf_dom_attach(n, &ops, &d->m.hub->part, d->err, sizeof d->err))
        abort();
    /* the watchdog counts over all domains: a short one must not fire in
     * a split run that does not fire unsplit */
    mf_net_set_watchdog(n, WATCHDOG);
    d->rc = run_case(n, d->c, d->recv, &d->res, d->err, sizeof d->err);
    mf_net_destroy(n);
    return NULL;
}

static int same(const result_t *a, const result_t *b)
{
    return a->t.avg_us == b->t.avg_us && a->t.min_us == b->t.min_us &&
           a->t.max_us == b->t.max_us && a->t.end == b->t.end &&
           a->t.max_cycles == b->t.max_cycles && a->now == b->now &&
           a->simulated == b->simulated && !memcmp(a->lat, b->lat, sizeof a->lat);
}

/* Case c over k domains split as partition says: 0 with every domain's
 * figures the same (domain 0's in *r); -1 with the messages in diag, or
 * with the first domain's message in err.  With data, *recv gets every
 * rank's receive buffer (P slices of recv_cap; the caller frees it). */
static int run_split(const case_t *c, int k, const char *partition, result_t *r, char *err,
                     size_t len, size_t *crossed, double **recv)
{
    mf_params_t p;
    mf_topo_spec_t spec = {.kind = MF_TOPO_TORUS};
    mf_topo_t t;
    hub_t hub;
    if (mf_params_load("u280", &p, err, len) || mf_topo_parse(c->topo, &spec, err, len) ||
        hub_init(&hub, k, partition, err, len))
        return -1;
    if (c->fifo)
        p.input_fifo_bytes = c->fifo;
    int nodes = ranks_of(c);
    spec.oversub = spec.oversub ? spec.oversub : (int)p.oversub;
    if (mf_topo_build(&spec, nodes, 1, &t, err, len)) {
        hub_fini(&hub);
        return -1;
    }
    double *rb = c->data ? calloc((size_t)nodes, recv_cap(c, nodes)) : NULL;
    if (c->data && !rb)
        abort();
    dom_t d[HUB_MAXK];
    pthread_t th[HUB_MAXK];
    for (int i = 0; i < k; i++) {
        d[i] = (dom_t){.m = {&hub, i}, .c = c, .p = &p, .t = &t, .recv = rb};
        pthread_create(&th[i], NULL, run_domain, &d[i]);
    }
    int rc = 0;
    err[0] = 0;
    for (int i = 0; i < k; i++) {
        pthread_join(th[i], NULL);
        if (d[i].rc) { /* every domain's message, " / " between */
            size_t at = strlen(err);
            snprintf(err + at, len - at, "%s%s", at ? " / " : "", d[i].err);
            rc = -1;
        } else if (i && !same(&d[i].res, &d[0].res)) {
            snprintf(err, len, "domain %d of %d ends with other figures than domain 0", i, k);
            rc = -1;
        }
    }
    *r = d[0].res;
    if (recv)
        *recv = rb;
    else
        free(rb);
    if (crossed)
        *crossed = hub.exchanged;
    hub_fini(&hub);
    mf_topo_free(&t);
    return rc;
}


/* The unsplit run's results are the collective's: an Allreduce's element
 * i is the sum over ranks of r + 1 + i / 4 on every rank; a Bcast's is the
 * root's on every other rank (the root's own buffer is its send buffer). */
static void check_data(const case_t *c, const double *recv)
{
    int P = ranks_of(c), bad = 0;
    size_t cnt = c->bytes / sizeof(double), stride = recv_cap(c, P) / sizeof(double);
    if (c->opc != MF_OPC_ALLREDUCE && c->opc != MF_OPC_BCAST)
        return;
    for (int r = 0; r < P; r++)
        for (size_t i = 0; i < cnt && !(c->opc == MF_OPC_BCAST && r == c->root); i++) {
            double want = c->opc == MF_OPC_BCAST ? c->root + 1 + (double)i / 4
                                                 : P * (P + 1) / 2.0 + P * ((double)i / 4);
            bad += recv[(size_t)r * stride + i] != want;
        }
    ok(!bad, "%s %s %llu B unsplit with data: every rank receives the %s (%d elements wrong)",
       c->topo, mf_opcode_name(c->opc), (unsigned long long)c->bytes,
       c->opc == MF_OPC_BCAST ? "root's data" : "sum over ranks", bad);
}

static const char *how_name(int how)
{
    return how == SINGLE ? "one call" : how == LOOP ? "loop" : "OSU loop";
}

int main(void)
{
    static const case_t cases[] = {
        {"torus:4x4x4", MF_OPC_ALLREDUCE, 131072, SINGLE, 0, 0, 0}, /* Rabenseifner: credits bind */
        {"torus:4x4x4", MF_OPC_ALLREDUCE, 8, LOOP, 0, 0, 0},          /* recursive doubling, fast path */
        {"torus:4x2x2", MF_OPC_ALLREDUCE, 32768, LOOP, 0, 1024, 0}, /* credits bind, call after call */
        {"torus:4x4x2", MF_OPC_BCAST, 65536, SINGLE, 0, 0, 0},
        {"torus:4x4x2", MF_OPC_REDUCE_SCATTER, 262144, SINGLE, 0, 0, 0},
        {"torus:4x2x2", MF_OPC_ALLGATHER, 4096, OSU, 0, 0, 0},
        {"torus:4x4x2", MF_OPC_REDUCE, 65536, SINGLE, 0, 0, 0},
        /* calls that start and end within a cycle or two */
        {"torus:4x2x2", MF_OPC_ALLREDUCE, 0, LOOP, 0, 0, 0},
        {"torus:4x2x2", MF_OPC_BARRIER, 0, OSU, 0, 0, 0},
        {"torus:4x2x2", MF_OPC_BCAST, 0, SINGLE, 0, 0, 3},
        /* a fat tree's children post to their aggregation engines */
        {"fattree:4", MF_OPC_ALLREDUCE, 65536, SINGLE, 0, 0, 0}, /* credits bind */
        {"fattree:8", MF_OPC_BCAST, 1024, OSU, 0, 0, 0},
        {"fattree:4", MF_OPC_REDUCE, 8192, LOOP, 0, 0, 0},
        /* data crosses with its packets */
        {"torus:4x2x2", MF_OPC_ALLREDUCE, 16384, SINGLE, 1, 0, 0},
        {"torus:4x2x2", MF_OPC_BCAST, 8192, SINGLE, 1, 0, 5},
        {"torus:4x2x2", MF_OPC_ALLGATHER, 1024, SINGLE, 1, 0, 0},
        {"torus:4x2x2", MF_OPC_REDUCE_SCATTER, 32768, SINGLE, 1, 0, 0},
        {"fattree:8", MF_OPC_ALLREDUCE, 8192, SINGLE, 1, 0, 0},
    };
    static const struct {
        int k;
        const char *part;
    } splits[] = {{2, "range"}, {3, "cyclic"}, {4, "random:5"}};
    char err[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const case_t *c = &cases[i];
        result_t one, split;
        size_t crossed = 0;
        double *recv_one = NULL, *recv_split = NULL;
        if (run_split(c, 1, "range", &one, err, sizeof err, NULL, &recv_one)) {
            ok(0, "%s %s %llu B unsplit: %s", c->topo, mf_opcode_name(c->opc),
               (unsigned long long)c->bytes, err);
            free(recv_one);
            continue;
        }
        if (c->data)
            check_data(c, recv_one);
        for (size_t s = 0; s < sizeof splits / sizeof splits[0]; s++) {
            int rc = run_split(c, splits[s].k, splits[s].part, &split, err, sizeof err, &crossed,
                               &recv_split);
            size_t bytes = c->data ? (size_t)ranks_of(c) * recv_cap(c, ranks_of(c)) : 0;
            int data_same = !c->data || (recv_split && !memcmp(recv_split, recv_one, bytes));
            ok(!rc && same(&split, &one) && crossed > 0 && data_same,
               "%s %s %llu B%s, %s, over %d domains (%s): the unsplit figures (avg %.3f us, "
               "end at cycle %llu)%s, %zu messages crossed%s%s",
               c->topo, mf_opcode_name(c->opc), (unsigned long long)c->bytes,
               c->data ? " with data" : "", how_name(c->how), splits[s].k, splits[s].part,
               split.t.avg_us, (unsigned long long)split.t.end,
               !c->data ? "" : data_same ? " and every rank's received bytes"
                                         : " but other received bytes",
               crossed, rc ? ": " : "", rc ? err : "");
            free(recv_split);
            recv_split = NULL;
        }
        free(recv_one);
    }
    /* what cannot cross fails every domain's run, with a message */
    static const struct {
        case_t c;
        const char *says;
    } refused[] = {
        /* every member fails at its start: no domain waits for another */
        {{"torus:4x2x2", MF_OPC_BCAST, 4096, SINGLE, 0, 0, 99}, "root 99 is not a rank"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        result_t r;
        int rc = run_split(&refused[i].c, 2, "range", &r, err, sizeof err, NULL, NULL);
        ok(rc && strstr(err, refused[i].says), "%s %s %s split in two: refused (%s)",
           refused[i].c.topo, mf_opcode_name(refused[i].c.opc),
           refused[i].c.data ? "with data" : "without data", err);
    }
    return tap_done();
}
