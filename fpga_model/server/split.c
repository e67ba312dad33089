/* The switch engine split among MPI processes (split.h). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sim_mpi.h"
#include "net/domain.h"
#include "net/network.h"
#include "server/split.h"
#include "sim/engine.h" /* MF_NEVER */

#define PROG "mpifpga-switchd"

/* What the front hands the others, in the order it did it. */
enum { OP_CT_CONFIG = 1, OP_CT_FREE, OP_POST, OP_RUN, OP_END };

typedef struct {
    uint8_t *b;
    size_t n, cap;
    int oom;
} blob_t;

/* A member posted in another process: where its completion goes (done is
 * NULL while the rank has no call away). */
typedef struct {
    mf_done_fn done;
    void *user;
    void *recv;
    size_t recv_len;
} away_t;

/* A member posted here by a replaying process, until its run ends. */
typedef struct {
    int grank;
    mf_completion_t c;
    uint8_t *send, *recv;
    uint64_t recv_len;
    uint32_t *counts;
} here_t;

struct mf_split {
    mf_net_t *net;
    int ended;
    blob_t batch;   /* front: what the others replay at the next run */
    away_t *away;   /* front: by global rank, members posted elsewhere */
    size_t naway;   /* how many of them since the last run */
};

/* ---- a byte stream ---------------------------------------------------------- */

static void put(blob_t *x, const void *p, size_t n)
{
    if (x->n + n > x->cap && !x->oom) {
        size_t cap = x->cap ? x->cap : 4096;
        while (cap < x->n + n)
            cap *= 2;
        uint8_t *b = realloc(x->b, cap);
        if (!b)
            x->oom = 1;
        else {
            x->b = b;
            x->cap = cap;
        }
    }
    if (x->oom)
        return;
    memcpy(x->b + x->n, p, n);
    x->n += n;
}

static void put_u32(blob_t *x, uint32_t v) { put(x, &v, sizeof v); }
static void put_u64(blob_t *x, uint64_t v) { put(x, &v, sizeof v); }

/* n bytes from *at into p (NULL: skip them); -1 past end. */
static int get(const uint8_t **at, const uint8_t *end, void *p, size_t n)
{
    if ((size_t)(end - *at) < n)
        return -1;
    if (p)
        memcpy(p, *at, n);
    *at += n;
    return 0;
}

/* ---- the MPI steps (nonblocking on both sides: they must match) ------------- */

/* The batch from the front to every other process. */
static void bcast_batch(blob_t *x, int front)
{
    uint64_t n = x->n;
    MPI_Request r;
    MPI_Ibcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD, &r);
    sim_mpi_lazy_wait(&r);
    if (!front) {
        if (n > x->cap) {
            free(x->b);
            x->b = malloc(n);
            x->cap = x->b ? n : 0;
        }
        if (!x->b) {
            fprintf(stderr, PROG ": out of memory for the front's %llu-byte batch\n",
                    (unsigned long long)n);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        x->n = n;
    }
    for (uint64_t at = 0; at < n; at += INT_MAX) { /* MPI counts are int */
        int chunk = n - at < INT_MAX ? (int)(n - at) : INT_MAX;
        MPI_Ibcast(x->b + at, chunk, MPI_BYTE, 0, MPI_COMM_WORLD, &r);
        sim_mpi_lazy_wait(&r);
    }
}

/* Every process's blob gathered at the front (*all, its size in *n; the
 * front's own is empty). */
static void gather_blobs(const blob_t *mine, uint8_t **all, size_t *n)
{
    int k, self, len = (int)mine->n;
    MPI_Comm_size(MPI_COMM_WORLD, &k);
    MPI_Comm_rank(MPI_COMM_WORLD, &self);
    int *cnt = self ? NULL : calloc((size_t)k * 2, sizeof *cnt);
    MPI_Request r;
    MPI_Igather(&len, 1, MPI_INT, cnt, 1, MPI_INT, 0, MPI_COMM_WORLD, &r);
    sim_mpi_lazy_wait(&r);
    size_t total = 0;
    if (!self) {
        if (!cnt)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (int i = 0; i < k; i++) {
            cnt[k + i] = (int)total;
            total += (size_t)cnt[i];
        }
        *all = malloc(total ? total : 1);
        if (!*all)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Igatherv(mine->b, len, MPI_BYTE, self ? NULL : *all, cnt, cnt ? cnt + k : NULL, MPI_BYTE,
                 0, MPI_COMM_WORLD, &r);
    sim_mpi_lazy_wait(&r);
    free(cnt);
    if (!self)
        *n = total;
}

/* ---- the front: the session's network calls --------------------------------- */

static int front_ct_config(void *ctx, int grank, int row, const mf_ct_entry_t *e, char *err,
                           size_t len)
{
    mf_split_t *sp = ctx;
    if (mf_net_ct_config(sp->net, grank, row, e, err, len))
        return -1; /* nothing changed: nothing to replay */
    put_u32(&sp->batch, OP_CT_CONFIG);
    put_u32(&sp->batch, (uint32_t)grank);
    put_u32(&sp->batch, (uint32_t)row);
    put(&sp->batch, e, sizeof *e);
    return 0;
}

static int front_ct_free(void *ctx, int grank, int row)
{
    mf_split_t *sp = ctx;
    if (mf_net_ct_free(sp->net, grank, row))
        return -1;
    put_u32(&sp->batch, OP_CT_FREE);
    put_u32(&sp->batch, (uint32_t)grank);
    put_u32(&sp->batch, (uint32_t)row);
    return 0;
}

static int front_post(void *ctx, int grank, const mf_coll_req_t *req, int comm_size, char *err,
                      size_t len)
{
    mf_split_t *sp = ctx;
    if (grank < 0 || grank >= mf_net_nranks(sp->net) ||
        mf_dom_local(sp->net, mf_rank_switch(sp->net, grank)))
        return mf_net_post(sp->net, grank, req, err, len);
    if (!sp->away && !(sp->away = calloc((size_t)mf_net_nranks(sp->net), sizeof *sp->away)))
        return snprintf(err, len, "out of memory handing a call to another process"), -1;
    if (sp->away[grank].done) /* the session runs each call before the next */
        return snprintf(err, len, "rank %d posted twice before a run", grank), -1;
    sp->away[grank] = (away_t){req->done, req->user, req->recv.base, req->recv.len};
    sp->naway++;
    blob_t *x = &sp->batch;
    put_u32(x, OP_POST);
    put_u32(x, (uint32_t)grank);
    put(x, &req->hdr, sizeof req->hdr);
    put_u64(x, req->at);
    put_u32(x, req->counts ? (uint32_t)comm_size : 0);
    if (req->counts)
        put(x, req->counts, (size_t)comm_size * sizeof *req->counts);
    put_u32(x, req->send.base != NULL);
    put_u64(x, req->send.len);
    if (req->send.base)
        put(x, req->send.base, req->send.len);
    put_u32(x, req->recv.base != NULL);
    put_u64(x, req->recv.len);
    return 0;
}

/* Rank r's away call is over: its received bytes (nbytes of data, if any)
 * to its buffer, its completion c to the session. */
static void complete_away(mf_split_t *sp, int r, const mf_completion_t *c, const void *data,
                          uint64_t nbytes)
{
    away_t mine = sp->away[r];
    sp->away[r] = (away_t){0};
    sp->naway--;
    if (mine.recv && nbytes)
        memcpy(mine.recv, data, nbytes < mine.recv_len ? nbytes : mine.recv_len);
    mine.done(mine.user, c);
}

/* One away member's completion (from a replaying process's blob) to the
 * session.  0, or -1 if the blob is cut short. */
static int take_completion(mf_split_t *sp, const uint8_t **at, const uint8_t *end)
{
    mf_completion_t c;
    uint64_t nbytes;
    if (get(at, end, &c, sizeof c) || get(at, end, &nbytes, sizeof nbytes) ||
        (uint64_t)(end - *at) < nbytes)
        return -1;
    if (sp->away && c.rank >= 0 && c.rank < mf_net_nranks(sp->net) && sp->away[c.rank].done)
        complete_away(sp, c.rank, &c, *at, nbytes);
    *at += nbytes;
    return 0;
}

static int front_run(void *ctx, char *err, size_t len)
{
    mf_split_t *sp = ctx;
    if (sp->batch.oom)
        MPI_Abort(MPI_COMM_WORLD, 1); /* the others would replay half a batch */
    put_u32(&sp->batch, OP_RUN);
    bcast_batch(&sp->batch, 1);
    sp->batch.n = 0;
    int rc = mf_net_run(sp->net, MF_NEVER, err, len);
    blob_t none = {0};
    uint8_t *all = NULL;
    size_t n = 0;
    gather_blobs(&none, &all, &n);
    /* each process's blob: the first post failure (empty if none), then
     * its members' completions */
    const uint8_t *at = all, *end = all + n;
    while (at < end) {
        uint32_t elen, count;
        if (get(&at, end, &elen, sizeof elen) || (size_t)(end - at) < elen)
            break;
        if (elen && !rc) {
            snprintf(err, len, "%.*s", (int)elen, (const char *)at);
            rc = -1;
        }
        at += elen;
        if (get(&at, end, &count, sizeof count))
            break;
        for (uint32_t i = 0; i < count; i++)
            if (take_completion(sp, &at, end))
                at = end;
    }
    free(all);
    if (sp->naway && !rc) {
        snprintf(err, len, "%zu members' completions did not come back from the other processes",
                 sp->naway);
        rc = -1;
    }
    for (int r = 0; sp->naway && r < mf_net_nranks(sp->net); r++)
        if (sp->away[r].done) { /* a blob cut short (a bug): fail, never hang */
            mf_completion_t c = {.rank = r, .status = -1};
            snprintf(c.err, sizeof c.err, "the engine process running rank %d lost its result", r);
            complete_away(sp, r, &c, NULL, 0);
        }
    return rc;
}

mf_session_net_t mf_split_session_net(mf_split_t *sp)
{
    return (mf_session_net_t){front_ct_config, front_ct_free, front_post, front_run, sp};
}

void mf_split_end(mf_split_t *sp)
{
    if (!sp || sp->ended)
        return;
    sp->ended = 1;
    sp->batch.n = 0;
    put_u32(&sp->batch, OP_END);
    bcast_batch(&sp->batch, 1);
}

/* ---- the others: replay --------------------------------------------------- */

static void here_done(void *user, const mf_completion_t *c)
{
    here_t *h = user;
    h->c = *c;
}

/* Post the member at *at if it is on this process's switches (it is
 * always read past).  0; -1 the batch is cut short; 1 the post failed
 * (the first message in perr). */
static int replay_post(mf_net_t *n, const uint8_t **at, const uint8_t *end, here_t *h,
                       int *nhere, char *perr, size_t plen)
{
    uint32_t grank, ncounts, has_send, has_recv;
    uint64_t send_len;
    mf_coll_req_t req = {0};
    if (get(at, end, &grank, 4) || get(at, end, &req.hdr, sizeof req.hdr) ||
        get(at, end, &req.at, 8) || get(at, end, &ncounts, 4) ||
        (uint64_t)(end - *at) < (uint64_t)ncounts * 4)
        return -1;
    const uint8_t *counts = *at;
    *at += (size_t)ncounts * 4;
    if (get(at, end, &has_send, 4) || get(at, end, &send_len, 8) ||
        (has_send && (uint64_t)(end - *at) < send_len))
        return -1;
    const uint8_t *send = *at;
    *at += has_send ? send_len : 0;
    if (get(at, end, &has_recv, 4) || get(at, end, &req.recv.len, 8))
        return -1;
    if (!mf_dom_local(n, mf_rank_switch(n, (int)grank)))
        return 0;
    here_t *m = &h[(*nhere)++];
    *m = (here_t){.grank = (int)grank, .recv_len = has_recv ? req.recv.len : 0,
                  .c = {.rank = (int)grank, .status = -1}};
    m->counts = ncounts ? malloc((size_t)ncounts * 4) : NULL;
    m->send = has_send ? malloc(send_len ? send_len : 1) : NULL;
    m->recv = has_recv ? calloc(1, req.recv.len ? req.recv.len : 1) : NULL;
    if ((ncounts && !m->counts) || (has_send && !m->send) || (has_recv && !m->recv)) {
        snprintf(m->c.err, sizeof m->c.err, "out of memory for rank %u's call", grank);
        return perr[0] ? 1 : (snprintf(perr, plen, "%s", m->c.err), 1);
    }
    if (ncounts)
        memcpy(m->counts, counts, (size_t)ncounts * 4);
    if (has_send)
        memcpy(m->send, send, send_len);
    req.counts = m->counts;
    req.send = (mf_buf_t){.base = m->send, .len = send_len};
    req.recv.base = m->recv;
    req.done = here_done;
    req.user = m;
    char err[200];
    if (mf_net_post(n, (int)grank, &req, err, sizeof err) == 0)
        return 0;
    snprintf(m->c.err, sizeof m->c.err, "%.150s", err);
    if (!perr[0])
        snprintf(perr, plen, "rank %u: %.150s", grank, err);
    return 1;
}

/* This process's part of a run: the first post failure, then every
 * member's completion and received bytes. */
static void send_completions(const here_t *h, int nhere, const char *perr)
{
    blob_t x = {0};
    put_u32(&x, (uint32_t)strlen(perr));
    put(&x, perr, strlen(perr));
    put_u32(&x, (uint32_t)nhere);
    for (int i = 0; i < nhere; i++) {
        put(&x, &h[i].c, sizeof h[i].c);
        put_u64(&x, h[i].recv ? h[i].recv_len : 0);
        if (h[i].recv)
            put(&x, h[i].recv, h[i].recv_len);
    }
    if (x.oom) {
        fprintf(stderr, PROG ": out of memory for the results of a run\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    gather_blobs(&x, NULL, NULL);
    free(x.b);
}

/* Replay one batch.  1 when it says the job is over, 0 to go on, -1 when
 * it is malformed. */
static int replay(mf_split_t *sp, const blob_t *x)
{
    const uint8_t *at = x->b, *end = x->b + x->n;
    here_t *h = NULL;
    int nhere = 0, rc = 0;
    char perr[200] = "";
    /* room for every post of the batch: the model keeps pointers to them */
    size_t posts = x->n / (4 + 4 + sizeof(mf_proc_hdr_t) + 8 + 4 + 4 + 8 + 4 + 8) + 1;
    if (!(h = calloc(posts, sizeof *h)))
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (uint32_t op; !rc && get(&at, end, &op, 4) == 0;) {
        uint32_t g, row;
        mf_ct_entry_t e;
        char err[200];
        if (op == OP_CT_CONFIG) {
            if (get(&at, end, &g, 4) || get(&at, end, &row, 4) || get(&at, end, &e, sizeof e))
                rc = -1;
            else if (mf_net_ct_config(sp->net, (int)g, (int)row, &e, err, sizeof err))
                fprintf(stderr, PROG ": CT_CONFIG that process 0 took: %s\n", err);
        } else if (op == OP_CT_FREE) {
            if (get(&at, end, &g, 4) || get(&at, end, &row, 4))
                rc = -1;
            else
                mf_net_ct_free(sp->net, (int)g, (int)row);
        } else if (op == OP_POST) {
            rc = replay_post(sp->net, &at, end, h, &nhere, perr, sizeof perr) < 0 ? -1 : 0;
        } else if (op == OP_RUN) {
            if (mf_net_run(sp->net, MF_NEVER, err, sizeof err))
                fprintf(stderr, PROG ": process %d: %s\n", mf_dom_self(sp->net), err);
            send_completions(h, nhere, perr);
            break;
        } else if (op == OP_END) {
            rc = 1;
        } else
            rc = -1;
    }
    for (int i = 0; i < nhere; i++) {
        free(h[i].send);
        free(h[i].recv);
        free(h[i].counts);
    }
    free(h);
    return rc;
}

int mf_split_serve(mf_split_t *sp)
{
    for (;;) {
        bcast_batch(&sp->batch, 0);
        int rc = replay(sp, &sp->batch);
        if (rc < 0) {
            fprintf(stderr, PROG ": process %d: a malformed batch from process 0\n",
                    mf_dom_self(sp->net));
            return 1;
        }
        if (rc > 0)
            return 0;
    }
}

/* ---- set-up ----------------------------------------------------------------- */

mf_split_t *mf_split_create(mf_net_t *net, char *err, size_t len)
{
    mf_dom_ops_t ops;
    mf_dom_partition_t part;
    if (sim_mpi_domain_ops(&ops))
        return snprintf(err, len, "MPI is not running"), NULL;
    if (mf_dom_partition_parse(getenv("MPIFPGA_PARTITION"), &part, err, len))
        return NULL;
    mf_split_t *sp = calloc(1, sizeof *sp);
    if (!sp)
        return snprintf(err, len, "out of memory"), NULL;
    sp->net = net;
    if (mf_dom_attach(net, &ops, &part, err, len)) {
        free(sp);
        return NULL;
    }
    return sp;
}

int mf_split_front(const mf_split_t *sp) { return mf_dom_self(sp->net) == 0; }

void mf_split_destroy(mf_split_t *sp)
{
    if (!sp)
        return;
    free(sp->batch.b);
    free(sp->away);
    free(sp);
}
