/* The switch engine's message handling; see session.h. */
#include "server/session_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpifpga/engine_msg.h"
#include "net/topo.h"
#include "params/params.h"
#include "server/baseline_calls.h"
#include "sim/engine.h" /* MF_NEVER */
#include "transport/shmbuf.h"

int ses_textf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n;
}

void ses_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(LOG_PREFIX, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- names -------------------------------------------------------------- */

const char *ses_mpi_name(unsigned opc)
{
    static const char *const names[] = {
        [MF_OPC_BARRIER] = "MPI_Barrier",     [MF_OPC_BCAST] = "MPI_Bcast",
        [MF_OPC_REDUCE] = "MPI_Reduce",       [MF_OPC_ALLREDUCE] = "MPI_Allreduce",
        [MF_OPC_SCATTER] = "MPI_Scatter",     [MF_OPC_GATHER] = "MPI_Gather",
        [MF_OPC_ALLGATHER] = "MPI_Allgather", [MF_OPC_REDUCE_SCATTER] = "MPI_Reduce_scatter",
        [MF_OPC_SCAN] = "MPI_Scan",           [MF_OPC_EXSCAN] = "MPI_Exscan",
        [MF_OPC_ALLTOALL] = "MPI_Alltoall",   [MF_OPC_ALLTOALLV] = "MPI_Alltoallv",
    };
    if (opc < sizeof names / sizeof names[0] && names[opc])
        return names[opc];
    return mf_opcode_name((mf_opcode_t)opc);
}

const char *ses_alg_name(unsigned alg)
{
    static const char *const names[] = {"binomial", "recursive doubling", "Rabenseifner",
                                        "ring"};
    return alg < 4 ? names[alg] : "?";
}

/* ---- output ------------------------------------------------------------- */

int ses_emit(mf_session_t *s, int grank, size_t n, const char *what)
{
    if (n == 0) {
        ses_log("internal error: cannot pack %s for rank %d", what, grank);
        return -1;
    }
    if (s->out(s->user, grank, s->buf, n)) {
        ses_log("cannot send %s to rank %d", what, grank);
        return -1;
    }
    return 0;
}

int ses_send_result(mf_session_t *s, int grank, uint32_t seq, const mf_em_result_t *r)
{
    mf_em_hdr_t h = {.type = MF_EM_RESULT, .grank = (uint32_t)grank, .seq = seq};
    return ses_emit(s, grank, mf_em_pack_result(&h, r, s->buf, sizeof s->buf), "RESULT");
}

int ses_send_error(mf_session_t *s, int grank, uint32_t seq, const char *text)
{
    mf_em_result_t r = {.status = -1,
                        .cycle_ns = mf_params_cycle_ns(mf_net_params(s->net))};
    ses_textf(r.text, sizeof r.text, "%s", text);
    if (s->verbose)
        ses_log("rank %d call %u: %s", grank, seq, text);
    return ses_send_result(s, grank, seq, &r);
}

/* DATA chunks of buf: chunk i starts at mf_em_chunk_off(i). */
int ses_send_data(mf_session_t *s, int grank, uint32_t seq, const uint8_t *buf, uint64_t len)
{
    for (uint32_t i = 0; mf_em_chunk_off(i) < len; i++) {
        uint64_t off = mf_em_chunk_off(i), n = len - off;
        if (n > MF_EM_DATA_MAX)
            n = MF_EM_DATA_MAX;
        mf_em_hdr_t h = {.type = MF_EM_DATA, .grank = (uint32_t)grank, .seq = seq, .off = i};
        size_t m = mf_em_pack_data(&h, buf + off, (size_t)n, s->buf, sizeof s->buf);
        if (ses_emit(s, grank, m, "DATA"))
            return -1;
    }
    return 0;
}

/* ---- create / destroy --------------------------------------------------- */

/* The network's own calls (mf_session_net_t without a split). */
static int net_ct_config(void *ctx, int grank, int row, const mf_ct_entry_t *e, char *err,
                         size_t len)
{
    return mf_net_ct_config(ctx, grank, row, e, err, len);
}
static int net_ct_free(void *ctx, int grank, int row) { return mf_net_ct_free(ctx, grank, row); }
static int net_post(void *ctx, int grank, const mf_coll_req_t *req, int comm_size, char *err,
                    size_t len)
{
    (void)comm_size;
    return mf_net_post(ctx, grank, req, err, len);
}
static int net_run(void *ctx, char *err, size_t len) { return mf_net_run(ctx, MF_NEVER, err, len); }

void mf_session_set_net(mf_session_t *s, const mf_session_net_t *ops) { s->ops = *ops; }

mf_session_t *mf_session_create(mf_net_t *net, int nranks, mf_session_out_fn out, void *user)
{
    if (!net || !out || nranks < 1 || nranks > mf_net_nranks(net)) {
        ses_log("cannot start a session for %d ranks on a network of %d rank slots: "
               "give --nranks between 1 and nodes x ppn",
               nranks, net ? mf_net_nranks(net) : 0);
        return NULL;
    }
    mf_session_t *s = calloc(1, sizeof *s);
    if (!s)
        goto oom;
    s->ranks = calloc((size_t)nranks, sizeof *s->ranks);
    if (!s->ranks)
        goto oom;
    s->blc = mf_blc_create(net, ses_log);
    if (!s->blc)
        goto oom;
    s->net = net;
    s->ops = (mf_session_net_t){net_ct_config, net_ct_free, net_post, net_run, net};
    s->nranks = nranks;
    s->out = out;
    s->user = user;
    return s;
oom:
    ses_log("out of memory creating the session for %d ranks", nranks);
    if (s)
        free(s->ranks);
    free(s);
    return NULL;
}


void mf_session_destroy(mf_session_t *s)
{
    if (!s)
        return;
    while (s->recs)
        ses_record_free(s, s->recs);
    while (s->held) {
        held_t *h = s->held;
        s->held = h->next;
        free(h->buf);
        free(h);
    }
    for (int g = 0; g < s->nranks; g++) {
        if (!s->ranks[g])
            continue;
        for (int c = 0; c < MF_MAX_CTX; c++)
            free(s->ranks[g]->ct_err[c]);
        mf_shmbuf_release(&s->ranks[g]->shm);
        free(s->ranks[g]);
    }
    free(s->ranks);
    mf_blc_destroy(s->blc);
    free(s);
}

void mf_session_set_verbose(mf_session_t *s, int verbose) { s->verbose = verbose; }

int mf_session_peer_name(const mf_session_t *s, int grank, const uint8_t **addr, size_t *len)
{
    if (grank < 0 || grank >= s->nranks || !s->ranks[grank])
        return -1;
    *addr = s->ranks[grank]->addr;
    *len = s->ranks[grank]->addrlen;
    return 0;
}

int mf_session_done(const mf_session_t *s)
{
    int seen = 0;
    for (int g = 0; g < s->nranks; g++) {
        if (!s->ranks[g])
            continue;
        if (!s->ranks[g]->bye)
            return 0;
        seen = 1;
    }
    return seen;
}

unsigned long mf_session_baseline_simulated(const mf_session_t *s)
{
    return mf_blc_simulated(s->blc);
}

/* ---- HELLO -------------------------------------------------------------- */

static void welcome_shape(const mf_session_t *s, mf_em_welcome_t *w)
{
    const mf_topo_t *t = mf_net_topo(s->net);
    const mf_params_t *p = mf_net_params(s->net);
    w->nranks = (uint32_t)s->nranks;
    w->nnodes = (uint32_t)t->nnodes;
    w->ppn = (uint32_t)t->ppn;
    w->pid = (uint32_t)getpid();
    w->cycle_ns = mf_params_cycle_ns(p);
    w->dma_bytes_per_cycle = p->dma_phits_per_cycle * (uint32_t)mf_params_phit_bytes(p);
    w->sa = p->sa_cgr;
    ses_textf(w->params, sizeof w->params, "%s", p->name);
    mf_topo_describe(t, w->topo, sizeof w->topo);
}

/* Why this HELLO cannot be accepted (into why), or 0 if it can. */
static int hello_refusal(const mf_session_t *s, const mf_em_hdr_t *h, const mf_em_hello_t *b,
                         const mf_em_welcome_t *w, char *why, size_t len)
{
    unsigned g = h->grank, ppn = w->ppn;
    if (b->version != MF_EM_VERSION)
        return ses_textf(why, len,
                        "rank %u speaks engine protocol version %u, this engine version %d: "
                        "build libmpifpga and mpifpga-switchd from the same mpifpga",
                        g, b->version, MF_EM_VERSION), 1;
    if (s->have_secret && memcmp(b->secret, s->secret, MF_EM_SECRET_BYTES))
        return ses_textf(why, len,
                        "rank %u belongs to another job: its MPIFPGA_JOB_SECRET is not this "
                        "engine's (every job needs its own engine; mpifpga-run starts one)",
                        g), 1;
    if (b->nranks != (uint32_t)s->nranks)
        return ses_textf(why, len,
                        "rank %u runs in a job of %u ranks, the engine was started for %d "
                        "(%s, %u nodes, ppn %u): restart mpifpga-switchd with "
                        "--nranks %u",
                        g, b->nranks, s->nranks, w->topo, w->nnodes, ppn, b->nranks), 1;
    if (g >= (unsigned)s->nranks)
        return ses_textf(why, len, "global rank %u is out of range for a job of %d ranks", g,
                        s->nranks), 1;
    if (b->fwd.rank != g || b->fwd.node != g / ppn || b->fwd.port != g % ppn)
        return ses_textf(why, len,
                        "rank %u says it is rank %u on node %u port %u, the model places "
                        "rank %u on node %u port %u (ppn %u): restart "
                        "mpifpga-switchd with --ppn set to the job's ranks per node",
                        g, b->fwd.rank, b->fwd.node, b->fwd.port, g, g / ppn, g % ppn, ppn), 1;
    return 0;
}

void mf_session_set_secret(mf_session_t *s, const uint8_t secret[MF_EM_SECRET_BYTES])
{
    memcpy(s->secret, secret, MF_EM_SECRET_BYTES);
    s->have_secret = 1;
}

static int accept_rank(mf_session_t *s, int g, const mf_em_hello_t *b, char *why, size_t len)
{
    rank_t *r = s->ranks[g];
    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r)
            return ses_textf(why, len, "engine out of memory"), -1;
        r->shm = MF_SHMBUF_NONE;
        s->ranks[g] = r;
    } else if (!r->bye) {
        ses_log("rank %d said HELLO again: taking its new address", g);
    }
    r->bye = 0;
    r->pid = b->pid;
    mf_shmbuf_release(&r->shm); /* a new process has new descriptors */
    r->addrlen = b->addrlen;
    memcpy(r->addr, b->addr, b->addrlen);
    return 0;
}

static int on_hello(mf_session_t *s, const mf_em_hdr_t *h, const uint8_t *msg, size_t len)
{
    mf_em_hello_t b;
    mf_em_welcome_t w = {0};
    welcome_shape(s, &w);
    if (mf_em_unpack_hello(msg, len, &b)) {
        w.status = -1;
        ses_textf(w.text, sizeof w.text,
                 "malformed HELLO from rank %u (%zu bytes): build libmpifpga and "
                 "mpifpga-switchd from the same mpifpga", h->grank, len);
    } else if (hello_refusal(s, h, &b, &w, w.text, sizeof w.text) ||
               accept_rank(s, (int)h->grank, &b, w.text, sizeof w.text)) {
        w.status = -1;
    }
    if (w.status)
        ses_log("refused rank %u: %s", h->grank, w.text);
    else if (s->verbose)
        ses_log("rank %u (pid %u) joined", h->grank, b.pid);
    mf_em_hdr_t o = {.type = MF_EM_WELCOME, .grank = h->grank};
    if (ses_emit(s, (int)h->grank, mf_em_pack_welcome(&o, &w, s->buf, sizeof s->buf), "WELCOME"))
        return -1;
    return w.status ? -1 : 0;
}

/* The state of an accepted rank, or NULL (logged) if g has not said HELLO. */
rank_t *ses_live_rank(mf_session_t *s, const mf_em_hdr_t *h)
{
    static const char *const names[MF_EM_TYPE_COUNT] = {
        "?", "HELLO", "WELCOME", "CT_CONFIG", "CT_FREE", "COLL", "DATA", "RESULT", "BYE",
        "SHMBUF", "FETCH"};
    if (h->grank < (uint32_t)s->nranks && s->ranks[h->grank])
        return s->ranks[h->grank];
    ses_log("%s from rank %u, which has not been accepted by a HELLO: ignored", names[h->type],
           h->grank);
    return NULL;
}

/* ---- CT_CONFIG / CT_FREE ------------------------------------------------ */

static void ct_remember(rank_t *r, int g, int ctx, const char *text)
{
    ses_log("rank %d, context %d: %s", g, ctx, text);
    free(r->ct_err[ctx]);
    r->ct_err[ctx] = strdup(text); /* NULL on OOM: the row check still catches it */
}

static int on_ct(mf_session_t *s, const mf_em_hdr_t *h, const uint8_t *msg, size_t len)
{
    rank_t *r = ses_live_rank(s, h);
    int config = h->type == MF_EM_CT_CONFIG, g = (int)h->grank;
    mf_em_ct_t b;
    char err[MF_EM_TEXT_MAX];
    if (!r)
        return -1;
    if (mf_em_unpack_ct(msg, len, &b, config)) {
        ses_log("malformed %s from rank %d (%zu bytes): ignored", config ? "CT_CONFIG" : "CT_FREE",
               g, len);
        return -1;
    }
    ct_row_t *row = &r->ct[b.ctx];
    if (!config) {
        row->valid = 0;
        free(r->ct_err[b.ctx]);
        r->ct_err[b.ctx] = NULL;
        if (s->ops.ct_free(s->ops.ctx, g, b.ctx)) {
            ct_remember(r, g, b.ctx, "CT_FREE rejected by the model");
            return -1;
        }
        return 0;
    }
    row->valid = 0;
    if (s->ops.ct_config(s->ops.ctx, g, b.ctx, &b.entry, err, sizeof err)) {
        char text[MF_EM_TEXT_MAX];
        ses_textf(text, sizeof text, "CT_CONFIG failed: %s", err);
        ct_remember(r, g, b.ctx, text);
        return -1;
    }
    free(r->ct_err[b.ctx]);
    r->ct_err[b.ctx] = NULL;
    *row = (ct_row_t){.size = b.entry.size, .rank = b.entry.rank, .global0 = b.entry.global0,
                      .valid = 1};
    return 0;
}

/* ---- BYE ---------------------------------------------------------------- */

static int on_bye(mf_session_t *s, const mf_em_hdr_t *h)
{
    rank_t *r = ses_live_rank(s, h);
    if (!r)
        return -1;
    if (r->calls)
        ses_log("rank %u said BYE with a collective call outstanding", h->grank);
    r->bye = 1;
    mf_shmbuf_release(&r->shm);
    if (s->verbose)
        ses_log("rank %u finished", h->grank);
    return 0;
}

/* ---- SHMBUF ------------------------------------------------------------- */

/* Rank g's payload buffer becomes the one SHMBUF names (none for size 0);
 * -1 with text if it cannot. */
static int map_shmbuf(rank_t *r, unsigned g, const mf_em_shmbuf_t *b, char *text, size_t len)
{
    if (r->calls) /* its buffer is in use: a rank sends SHMBUF between calls */
        return ses_textf(text, len, "rank %u has a call outstanding: SHMBUF is taken only "
                     "between calls", g), -1;
    mf_shmbuf_release(&r->shm);
    if (b->size && mf_shmbuf_attach(&r->shm, (int)r->pid, (int)b->fd, b->size, text, len))
        return -1;
    return 0;
}

/* Map the rank's new payload buffer (replacing its old one) and say whether
 * that worked; a rank whose buffer cannot be mapped sends DATA instead. */
static int on_shmbuf(mf_session_t *s, const mf_em_hdr_t *h, const uint8_t *msg, size_t len)
{
    rank_t *r = ses_live_rank(s, h);
    mf_em_shmbuf_t b, reply = {0};
    if (!r)
        return -1;
    if (mf_em_unpack_shmbuf(msg, len, &b)) {
        ses_log("malformed SHMBUF from rank %u (%zu bytes): ignored", h->grank, len);
        return -1;
    }
    reply.size = b.size;
    if (map_shmbuf(r, h->grank, &b, reply.text, sizeof reply.text)) {
        reply.status = -1;
        if (s->verbose)
            ses_log("rank %u: %s; its payloads go in DATA messages", h->grank, reply.text);
    }
    mf_em_hdr_t o = {.type = MF_EM_SHMBUF, .grank = h->grank};
    return ses_emit(s, (int)h->grank, mf_em_pack_shmbuf(&o, &reply, s->buf, sizeof s->buf),
                "SHMBUF");
}

/* ---- dispatch ----------------------------------------------------------- */

int mf_session_handle(mf_session_t *s, const uint8_t *msg, size_t len)
{
    mf_em_hdr_t h;
    if (mf_em_unpack_hdr(msg, len, &h)) {
        ses_log("malformed message (%zu bytes, type %d): ignored", len, len ? msg[0] : -1);
        return -1;
    }
    switch (h.type) {
    case MF_EM_HELLO: return on_hello(s, &h, msg, len);
    case MF_EM_CT_CONFIG:
    case MF_EM_CT_FREE: return on_ct(s, &h, msg, len);
    case MF_EM_COLL: return ses_on_coll(s, &h, msg, len);
    case MF_EM_DATA: return ses_on_data(s, &h, msg, len);
    case MF_EM_BYE: return on_bye(s, &h);
    case MF_EM_SHMBUF: return on_shmbuf(s, &h, msg, len);
    case MF_EM_FETCH: return ses_on_fetch(s, &h);
    default:
        ses_log("rank %u sent a %s message, which only the engine sends: ignored", h.grank,
               h.type == MF_EM_WELCOME ? "WELCOME" : "RESULT");
        return -1;
    }
}
