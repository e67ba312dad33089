/* The switch engine's message handling; see session.h. */
#include "server/session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpifpga/engine_msg.h"
#include "net/topo.h"
#include "params/params.h"
#include "server/baseline_calls.h"
#include "server/movers.h"
#include "sim/engine.h" /* MF_NEVER */
#include "transport/shmbuf.h"

#define LOG_PREFIX "mpifpga-switchd: "

/* What a rank's CT row holds, as far as the engine checks calls against it. */
typedef struct {
    uint16_t size, rank, global0;
    uint8_t valid;
} ct_row_t;

typedef struct member member_t;
typedef struct record record_t;

typedef struct {
    int bye;
    uint32_t pid;             /* from HELLO: reaches the rank's payload buffer */
    mf_shmbuf_t shm;          /* the rank's payload buffer (SHMBUF), or none */
    uint16_t addrlen;
    uint8_t addr[MF_EM_ADDR_MAX];
    ct_row_t ct[MF_MAX_CTX];
    char *ct_err[MF_MAX_CTX]; /* failed CT_CONFIG / CT_FREE, told with the next COLL */
    member_t *calls;          /* this rank's outstanding calls (rank_next list) */
} rank_t;

/* One member's call in a pending record. */
struct member {
    int present, arrived;
    int grank;
    uint32_t seq;
    int want_baseline; /* COLL flag MF_EM_F_BASELINE */
    int defer;         /* COLL flag MF_EM_F_DEFER: DATA of the result on FETCH */
    int in_shm;        /* COLL flag MF_EM_F_SHMBUF: send / recv point into it */
    mf_em_coll_t c;   /* c.counts -> counts below */
    uint32_t *counts;
    uint8_t *send;    /* send_bytes of DATA, collected */
    uint64_t got;
    char err[MF_EM_TEXT_MAX]; /* set: the call failed on this member */
    record_t *rec;
    member_t *rank_next;
    /* model run */
    uint8_t *recv;
    uint64_t at;      /* cycle it enters the model */
    uint64_t complete;
    int status;
    char merr[160];
};

/* The result of a deferred call, kept until its rank sends FETCH. */
typedef struct held {
    int grank;
    uint32_t seq;
    uint8_t *buf;
    uint64_t len;
    struct held *next;
} held_t;

/* The calls of one communicator's members, collected until all arrived. */
struct record {
    uint8_t ctx;
    uint16_t global0;
    int size, narrived;
    member_t *m; /* [size], indexed by comm rank */
    record_t *next;
};

struct mf_session {
    mf_net_t *net;
    int nranks;
    int have_secret;                      /* only HELLOs with this secret get in */
    uint8_t secret[MF_EM_SECRET_BYTES];
    rank_t **ranks; /* [nranks], allocated by an accepted HELLO */
    record_t *recs;
    held_t *held;   /* deferred results waiting for FETCH */
    mf_session_out_fn out;
    void *user;
    int verbose;
    mf_blc_t *blc;  /* modeled baseline times (MF_EM_F_BASELINE) */
    /* Set when a model run failed: the calls it held never leave the model,
     * so no later run can complete. */
    char broken[MF_EM_TEXT_MAX];
    uint8_t buf[MF_EM_MAX]; /* outgoing message */
};

/* snprintf for messages: cutting a long one short is intended. */
static int textf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int textf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n;
}

static void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logmsg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(LOG_PREFIX, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- names -------------------------------------------------------------- */

static const char *mpi_name(unsigned opc)
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

static const char *alg_name(unsigned alg)
{
    static const char *const names[] = {"binomial", "recursive doubling", "Rabenseifner",
                                        "ring"};
    return alg < 4 ? names[alg] : "?";
}

/* ---- output ------------------------------------------------------------- */

static int emit(mf_session_t *s, int grank, size_t n, const char *what)
{
    if (n == 0) {
        logmsg("internal error: cannot pack %s for rank %d", what, grank);
        return -1;
    }
    if (s->out(s->user, grank, s->buf, n)) {
        logmsg("cannot send %s to rank %d", what, grank);
        return -1;
    }
    return 0;
}

static int send_result(mf_session_t *s, int grank, uint32_t seq, const mf_em_result_t *r)
{
    mf_em_hdr_t h = {.type = MF_EM_RESULT, .grank = (uint32_t)grank, .seq = seq};
    return emit(s, grank, mf_em_pack_result(&h, r, s->buf, sizeof s->buf), "RESULT");
}

static int send_error(mf_session_t *s, int grank, uint32_t seq, const char *text)
{
    mf_em_result_t r = {.status = -1,
                        .cycle_ns = mf_params_cycle_ns(mf_net_params(s->net))};
    textf(r.text, sizeof r.text, "%s", text);
    if (s->verbose)
        logmsg("rank %d call %u: %s", grank, seq, text);
    return send_result(s, grank, seq, &r);
}

/* DATA chunks of buf: chunk i starts at mf_em_chunk_off(i). */
static int send_data(mf_session_t *s, int grank, uint32_t seq, const uint8_t *buf, uint64_t len)
{
    for (uint32_t i = 0; mf_em_chunk_off(i) < len; i++) {
        uint64_t off = mf_em_chunk_off(i), n = len - off;
        if (n > MF_EM_DATA_MAX)
            n = MF_EM_DATA_MAX;
        mf_em_hdr_t h = {.type = MF_EM_DATA, .grank = (uint32_t)grank, .seq = seq, .off = i};
        size_t m = mf_em_pack_data(&h, buf + off, (size_t)n, s->buf, sizeof s->buf);
        if (emit(s, grank, m, "DATA"))
            return -1;
    }
    return 0;
}

/* ---- create / destroy --------------------------------------------------- */

mf_session_t *mf_session_create(mf_net_t *net, int nranks, mf_session_out_fn out, void *user)
{
    if (!net || !out || nranks < 1 || nranks > mf_net_nranks(net)) {
        logmsg("cannot start a session for %d ranks on a network of %d rank slots: "
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
    s->blc = mf_blc_create(net, logmsg);
    if (!s->blc)
        goto oom;
    s->net = net;
    s->nranks = nranks;
    s->out = out;
    s->user = user;
    return s;
oom:
    logmsg("out of memory creating the session for %d ranks", nranks);
    if (s)
        free(s->ranks);
    free(s);
    return NULL;
}

static void member_release(member_t *m)
{
    free(m->counts);
    if (!m->in_shm) {
        free(m->send);
        free(m->recv);
    }
    m->counts = NULL;
    m->send = m->recv = NULL;
}

/* Unlink the record's members from their ranks' call lists, free it. */
static void record_free(mf_session_t *s, record_t *rec)
{
    for (record_t **p = &s->recs; *p; p = &(*p)->next)
        if (*p == rec) {
            *p = rec->next;
            break;
        }
    for (int i = 0; i < rec->size; i++) {
        member_t *m = &rec->m[i];
        if (!m->present)
            continue;
        rank_t *r = s->ranks[m->grank];
        for (member_t **q = r ? &r->calls : NULL; q && *q; q = &(*q)->rank_next)
            if (*q == m) {
                *q = m->rank_next;
                break;
            }
        member_release(m);
    }
    free(rec->m);
    free(rec);
}

void mf_session_destroy(mf_session_t *s)
{
    if (!s)
        return;
    while (s->recs)
        record_free(s, s->recs);
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
    textf(w->params, sizeof w->params, "%s", p->name);
    mf_topo_describe(t, w->topo, sizeof w->topo);
}

/* Why this HELLO cannot be accepted (into why), or 0 if it can. */
static int hello_refusal(const mf_session_t *s, const mf_em_hdr_t *h, const mf_em_hello_t *b,
                         const mf_em_welcome_t *w, char *why, size_t len)
{
    unsigned g = h->grank, ppn = w->ppn;
    if (b->version != MF_EM_VERSION)
        return textf(why, len,
                        "rank %u speaks engine protocol version %u, this engine version %d: "
                        "build libmpifpga and mpifpga-switchd from the same mpifpga",
                        g, b->version, MF_EM_VERSION), 1;
    if (s->have_secret && memcmp(b->secret, s->secret, MF_EM_SECRET_BYTES))
        return textf(why, len,
                        "rank %u belongs to another job: its MPIFPGA_JOB_SECRET is not this "
                        "engine's (every job needs its own engine; mpifpga-run starts one)",
                        g), 1;
    if (b->nranks != (uint32_t)s->nranks)
        return textf(why, len,
                        "rank %u runs in a job of %u ranks, the engine was started for %d "
                        "(%s, %u nodes, ppn %u): restart mpifpga-switchd with "
                        "--nranks %u",
                        g, b->nranks, s->nranks, w->topo, w->nnodes, ppn, b->nranks), 1;
    if (g >= (unsigned)s->nranks)
        return textf(why, len, "global rank %u is out of range for a job of %d ranks", g,
                        s->nranks), 1;
    if (b->fwd.rank != g || b->fwd.node != g / ppn || b->fwd.port != g % ppn)
        return textf(why, len,
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
            return textf(why, len, "engine out of memory"), -1;
        r->shm = MF_SHMBUF_NONE;
        s->ranks[g] = r;
    } else if (!r->bye) {
        logmsg("rank %d said HELLO again: taking its new address", g);
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
        textf(w.text, sizeof w.text,
                 "malformed HELLO from rank %u (%zu bytes): build libmpifpga and "
                 "mpifpga-switchd from the same mpifpga", h->grank, len);
    } else if (hello_refusal(s, h, &b, &w, w.text, sizeof w.text) ||
               accept_rank(s, (int)h->grank, &b, w.text, sizeof w.text)) {
        w.status = -1;
    }
    if (w.status)
        logmsg("refused rank %u: %s", h->grank, w.text);
    else if (s->verbose)
        logmsg("rank %u (pid %u) joined", h->grank, b.pid);
    mf_em_hdr_t o = {.type = MF_EM_WELCOME, .grank = h->grank};
    if (emit(s, (int)h->grank, mf_em_pack_welcome(&o, &w, s->buf, sizeof s->buf), "WELCOME"))
        return -1;
    return w.status ? -1 : 0;
}

/* The state of an accepted rank, or NULL (logged) if g has not said HELLO. */
static rank_t *live_rank(mf_session_t *s, const mf_em_hdr_t *h)
{
    static const char *const names[MF_EM_TYPE_COUNT] = {
        "?", "HELLO", "WELCOME", "CT_CONFIG", "CT_FREE", "COLL", "DATA", "RESULT", "BYE",
        "SHMBUF", "FETCH"};
    if (h->grank < (uint32_t)s->nranks && s->ranks[h->grank])
        return s->ranks[h->grank];
    logmsg("%s from rank %u, which has not been accepted by a HELLO: ignored", names[h->type],
           h->grank);
    return NULL;
}

/* ---- CT_CONFIG / CT_FREE ------------------------------------------------ */

static void ct_remember(rank_t *r, int g, int ctx, const char *text)
{
    logmsg("rank %d, context %d: %s", g, ctx, text);
    free(r->ct_err[ctx]);
    r->ct_err[ctx] = strdup(text); /* NULL on OOM: the row check still catches it */
}

static int on_ct(mf_session_t *s, const mf_em_hdr_t *h, const uint8_t *msg, size_t len)
{
    rank_t *r = live_rank(s, h);
    int config = h->type == MF_EM_CT_CONFIG, g = (int)h->grank;
    mf_em_ct_t b;
    char err[MF_EM_TEXT_MAX];
    if (!r)
        return -1;
    if (mf_em_unpack_ct(msg, len, &b, config)) {
        logmsg("malformed %s from rank %d (%zu bytes): ignored", config ? "CT_CONFIG" : "CT_FREE",
               g, len);
        return -1;
    }
    ct_row_t *row = &r->ct[b.ctx];
    if (!config) {
        row->valid = 0;
        free(r->ct_err[b.ctx]);
        r->ct_err[b.ctx] = NULL;
        if (mf_net_ct_free(s->net, g, b.ctx)) {
            ct_remember(r, g, b.ctx, "CT_FREE rejected by the model");
            return -1;
        }
        return 0;
    }
    row->valid = 0;
    if (mf_net_ct_config(s->net, g, b.ctx, &b.entry, err, sizeof err)) {
        char text[MF_EM_TEXT_MAX];
        textf(text, sizeof text, "CT_CONFIG failed: %s", err);
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
    rank_t *r = live_rank(s, h);
    if (!r)
        return -1;
    if (r->calls)
        logmsg("rank %u said BYE with a collective call outstanding", h->grank);
    r->bye = 1;
    mf_shmbuf_release(&r->shm);
    if (s->verbose)
        logmsg("rank %u finished", h->grank);
    return 0;
}

/* ---- comparing the members' calls --------------------------------------- */

typedef enum {
    F_SIZE, F_OPCODE, F_DTYPE, F_OP, F_ROOT, F_COUNT, F_ALG, F_COUNTS, F_NFIELDS
} field_t;

static const char *const field_what[F_NFIELDS] = {
    "the communicator size", "the collective", "the datatype", "the operation",
    "the root", "count", "the algorithm", "recvcounts",
};

static int same_counts(const member_t *a, const member_t *b)
{
    if (a->c.ncounts != b->c.ncounts)
        return 0;
    /* alltoallv: the members' own send / receive sizes differ; ranks agree */
    size_t n = mf_opcode_shared_counts(a->c.hdr.opcode, a->c.comm_size);
    n = n < a->c.ncounts ? n : a->c.ncounts;
    return !n || !memcmp(a->counts, b->counts, n * sizeof *a->counts);
}

/* Keys of every member for field f into keys[]: equal keys = equal values.
 * Returns 1 if they differ. */
static int field_keys(const record_t *rec, field_t f, uint64_t *keys)
{
    int differ = 0;
    for (int i = 0; i < rec->size; i++) {
        const member_t *m = &rec->m[i];
        switch (f) {
        case F_SIZE: keys[i] = m->c.comm_size; break;
        case F_OPCODE: keys[i] = m->c.hdr.opcode; break;
        case F_DTYPE: keys[i] = m->c.hdr.dtype; break;
        case F_OP: keys[i] = m->c.hdr.op; break;
        case F_ROOT: keys[i] = m->c.hdr.root; break;
        case F_COUNT: keys[i] = m->c.hdr.size; break;
        case F_ALG: keys[i] = m->c.hdr.alg; break;
        default: /* the first member with the same array; usually member 0 */
            keys[i] = (uint64_t)i;
            for (int j = 0; j < i; j++)
                if ((j == 0 || keys[j] == (uint64_t)j) && same_counts(&rec->m[j], m)) {
                    keys[i] = (uint64_t)j;
                    break;
                }
        }
        differ |= keys[i] != keys[0];
    }
    return differ;
}

static void put_value(char *buf, size_t len, const member_t *m, field_t f)
{
    const mf_proc_hdr_t *h = &m->c.hdr;
    switch (f) {
    case F_SIZE: textf(buf, len, "size %u", m->c.comm_size); return;
    case F_OPCODE: textf(buf, len, "%s", mpi_name(h->opcode)); return;
    case F_DTYPE: textf(buf, len, "datatype %s", mf_dtype_name(h->dtype)); return;
    case F_OP: textf(buf, len, "op %s", mf_op_name(h->op)); return;
    case F_ROOT: textf(buf, len, "root %u", h->root); return;
    case F_COUNT: textf(buf, len, "%u bytes", h->size); return;
    case F_ALG: textf(buf, len, "algorithm %s", alg_name(h->alg)); return;
    default: break;
    }
    if (!m->c.ncounts) {
        textf(buf, len, "no recvcounts");
        return;
    }
    size_t n = (size_t)textf(buf, len, "recvcounts");
    for (uint32_t i = 0; i < m->c.ncounts && n < len; i++)
        n += (size_t)textf(buf + n, len - n, i ? ",%u" : " %u", m->counts[i]);
}

/* Append to a bounded text; once full, later appends are dropped. */
typedef struct {
    char *p;
    size_t len, n;
} text_t;

static void tput(text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tput(text_t *t, const char *fmt, ...)
{
    if (t->n >= t->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->p + t->n, t->len - t->n, fmt, ap);
    va_end(ap);
    t->n = k < 0 ? t->len : t->n + (size_t)k;
}

static void put_run(text_t *t, int start, int end, int *any)
{
    tput(t, "%s%d", *any ? "," : "", start);
    if (end > start)
        tput(t, "%s%d", end == start + 1 ? "," : "-", end);
    *any = 1;
}

/* The comm ranks (global: their global ranks) of the members whose key is
 * `key`, runs shortened: "0-3,5". */
static void put_ranks(text_t *t, const record_t *rec, const uint64_t *keys, uint64_t key,
                      int global)
{
    int start = -1, prev = -1, any = 0;
    for (int i = 0; i < rec->size; i++) {
        if (keys[i] != key)
            continue;
        int v = global ? rec->m[i].grank : i;
        if (start >= 0 && v == prev + 1) {
            prev = v;
            continue;
        }
        if (start >= 0)
            put_run(t, start, prev, &any);
        start = prev = v;
    }
    if (start >= 0)
        put_run(t, start, prev, &any);
}

static int globals_differ(const record_t *rec)
{
    for (int i = 0; i < rec->size; i++)
        if (rec->m[i].grank != i)
            return 1;
    return 0;
}

/* One "comm ranks 0,1 pass 8 bytes" per distinct value of field f. */
static void describe_field(text_t *t, const record_t *rec, const uint64_t *keys, field_t f)
{
    char val[512];
    int globals = globals_differ(rec);
    tput(t, "%s: members disagree on %s:", mpi_name(rec->m[0].c.hdr.opcode), field_what[f]);
    for (int i = 0, first = 1; i < rec->size; i++) {
        int j, cnt = 0;
        for (j = 0; j < i && keys[j] != keys[i]; j++)
            ;
        if (j < i)
            continue; /* value already listed */
        for (j = i; j < rec->size; j++)
            cnt += keys[j] == keys[i];
        tput(t, "%s comm rank%s ", first ? "" : ",", cnt > 1 ? "s" : "");
        put_ranks(t, rec, keys, keys[i], 0);
        if (globals) {
            tput(t, " (global ");
            put_ranks(t, rec, keys, keys[i], 1);
            tput(t, ")");
        }
        put_value(val, sizeof val, &rec->m[i], f);
        tput(t, " %s %s", cnt > 1 ? "pass" : "passes", val);
        first = 0;
    }
}

/* Describe the first field the members disagree on into text ("...") if
 * it is too long); 0 if they all agree, -1 out of memory. */
static int args_differ(const record_t *rec, char *text, size_t len)
{
    char big[1024];
    text_t t = {big, sizeof big, 0};
    int nf = mf_opcode_has_counts(rec->m[0].c.hdr.opcode) ? F_NFIELDS : F_COUNTS;
    uint64_t *keys = malloc((size_t)rec->size * sizeof *keys);
    if (!keys)
        return -1;
    for (int f = 0; f < nf; f++)
        if (field_keys(rec, (field_t)f, keys)) {
            describe_field(&t, rec, keys, (field_t)f);
            break;
        }
    free(keys);
    if (t.n == 0)
        return 0;
    textf(text, len, "%s", big);
    if (t.n >= len && len > 4)
        memcpy(text + len - 4, "...", 4);
    return 1;
}

/* ---- completing a call -------------------------------------------------- */

static double cycle_ns(const mf_session_t *s)
{
    return mf_params_cycle_ns(mf_net_params(s->net));
}

/* The same RESULT (no DATA) to every member. */
static int result_all(mf_session_t *s, const record_t *rec, int status, int reason,
                      const char *text)
{
    int rc = 0;
    mf_em_result_t r = {.status = status, .reason = (uint8_t)reason, .cycle_ns = cycle_ns(s)};
    textf(r.text, sizeof r.text, "%s", text);
    if (status < 0)
        logmsg("call on context %u (comm rank 0 = global %u) failed: %s", rec->ctx,
               rec->global0, text);
    for (int i = 0; i < rec->size; i++)
        if (send_result(s, rec->m[i].grank, rec->m[i].seq, &r))
            rc = -1;
    return rc;
}

/* Comm rank of the first member that voted for fallback, or -1. */
static int first_vote(const record_t *rec)
{
    for (int i = 0; i < rec->size; i++)
        if (rec->m[i].c.vote != MF_FB_NONE)
            return i;
    return -1;
}

/* Why member m cannot run its call (its own failure, its CT row), into
 * text; 0 if it can. */
static int member_error(mf_session_t *s, const record_t *rec, int i, char *text, size_t len)
{
    const member_t *m = &rec->m[i];
    const char *coll = mpi_name(m->c.hdr.opcode);
    rank_t *r = s->ranks[m->grank];
    const ct_row_t *row = &r->ct[rec->ctx];
    if (m->err[0])
        return textf(text, len, "%s: rank %d: %s", coll, m->grank, m->err), 1;
    if (r->ct_err[rec->ctx]) {
        textf(text, len, "%s: rank %d: %s", coll, m->grank, r->ct_err[rec->ctx]);
        free(r->ct_err[rec->ctx]); /* told once */
        r->ct_err[rec->ctx] = NULL;
        return 1;
    }
    if (!row->valid)
        return textf(text, len,
                        "%s: rank %d has no communicator-table row for context %u (never "
                        "configured, or freed): send CT_CONFIG before the call",
                        coll, m->grank, rec->ctx), 1;
    if (row->size != m->c.comm_size || row->rank != m->c.comm_rank ||
        row->global0 != rec->global0)
        return textf(text, len,
                        "%s: rank %d: its CT row %u is for comm rank %u of %u (comm rank 0 = "
                        "global %u), the call is for comm rank %u of %u (global %u)",
                        coll, m->grank, rec->ctx, row->rank, row->size, row->global0,
                        m->c.comm_rank, m->c.comm_size, rec->global0), 1;
    return 0;
}

static void member_done(void *user, const mf_completion_t *c)
{
    member_t *m = user;
    m->complete = c->complete;
    m->status = c->status;
    if (c->status) /* formatting costs on every call otherwise */
        textf(m->merr, sizeof m->merr, "%s", c->err);
}

/* Post member m at cycle `at`; -1 with err on failure.  timing_only: the
 * model carries zeros of the same sizes (movers.h places the bytes). */
static int post_one(mf_session_t *s, member_t *m, uint64_t at, int timing_only, char *err,
                    size_t len)
{
    /* A receive buffer even for timing-only calls (the result is placed
     * there); the model gets NULL bases only then: with a NULL base it
     * carries zeros silently, with a real one it checks the lengths. */
    if (!m->in_shm)
        m->recv = malloc(m->c.recv_bytes ? (size_t)m->c.recv_bytes : 1);
    if (!m->recv)
        return textf(err, len, "engine cannot allocate the %llu-byte receive buffer",
                        (unsigned long long)m->c.recv_bytes), -1;
    mf_coll_req_t req = {
        .hdr = m->c.hdr, .at = at, .done = member_done, .user = m,
        .counts = mf_opcode_has_counts(m->c.hdr.opcode) ? m->counts : NULL,
        .send = {.base = timing_only ? NULL : m->send, .len = (size_t)m->c.send_bytes},
        .recv = {.base = timing_only ? NULL : m->recv, .len = (size_t)m->c.recv_bytes}};
    return mf_net_post(s->net, m->grank, &req, err, len);
}

/* Entry cycles: with modeled time (every member sent its virtual entry
 * time) members enter as far apart as their entry times, the earliest at
 * the model's current cycle -- process skew is modeled, not assumed away;
 * else all enter now. */
static void entry_cycles(mf_session_t *s, record_t *rec, uint64_t now)
{
    uint64_t vmin = UINT64_MAX;
    int timed = 1;
    for (int i = 0; i < rec->size; i++) {
        timed &= rec->m[i].c.entry_ns != 0;
        if (rec->m[i].c.entry_ns < vmin)
            vmin = rec->m[i].c.entry_ns;
    }
    for (int i = 0; i < rec->size; i++) {
        member_t *m = &rec->m[i];
        m->at = now;
        if (timed)
            m->at += (uint64_t)((double)(m->c.entry_ns - vmin) / cycle_ns(s) + 0.5);
    }
}

/* Post every member at its entry cycle; on failure the text says why.
 * The members' calls were checked to agree, so a post that fails fails on
 * the first member, leaving the model untouched. */
static int post_all(mf_session_t *s, record_t *rec, int timing_only, char *text, size_t len)
{
    char err[200];
    for (int i = 0; i < rec->size; i++) {
        member_t *m = &rec->m[i];
        if (post_one(s, m, m->at, timing_only, err, sizeof err) == 0)
            continue;
        textf(text, len, "%s: rank %d: %s", mpi_name(m->c.hdr.opcode), m->grank, err);
        if (i > 0) /* members 0..i-1 wait in the model for ever */
            textf(s->broken, sizeof s->broken, "%s", text);
        return -1;
    }
    return 0;
}

/* The members' baseline latencies (comm rank order) if any member asked
 * for them (MF_EM_F_BASELINE), else NULL; the caller frees.  Where the
 * baseline cannot be had the latencies are 0 (baseline_calls.c logs why). */
static uint64_t *baseline_lat(mf_session_t *s, const record_t *rec)
{
    int want = 0;
    for (int i = 0; i < rec->size; i++)
        want |= rec->m[i].want_baseline;
    if (!want)
        return NULL;
    uint64_t *lat = calloc((size_t)rec->size, sizeof *lat);
    int *members = malloc((size_t)rec->size * sizeof *members);
    if (!lat || !members) {
        logmsg("out of memory for the baseline of a %d-member call: RESULTs carry "
               "baseline_cycles 0", rec->size);
        free(members);
        free(lat);
        return NULL;
    }
    for (int i = 0; i < rec->size; i++)
        members[i] = rec->m[i].grank;
    /* the members agree on the call (args_differ), member 0 speaks for all */
    const member_t *m0 = &rec->m[0];
    mf_blc_call_t call = {.hdr = m0->c.hdr, .size = rec->size, .members = members,
                          .counts = m0->c.ncounts ? m0->counts : NULL};
    mf_blc_latency(s->blc, &call, lat); /* -1: lat stays 0 */
    free(members);
    return lat;
}

/* The member's result DATA: now, or on FETCH for a deferred call (the
 * buffer moves to the held list).  0, or -1 if it cannot be sent / kept. */
static int deliver(mf_session_t *s, member_t *m)
{
    if (!m->defer || !m->c.recv_bytes)
        return send_data(s, m->grank, m->seq, m->recv, m->c.recv_bytes);
    held_t *h = malloc(sizeof *h);
    if (!h)
        return -1;
    *h = (held_t){.grank = m->grank, .seq = m->seq, .buf = m->recv, .len = m->c.recv_bytes,
                  .next = s->held};
    m->recv = NULL;
    s->held = h;
    return 0;
}

/* DATA of the receive buffer, then RESULT, to each member: its own time
 * (completion - its entry), the call's (last completion - first entry)
 * and, if asked for, its baseline time. */
static int send_results(mf_session_t *s, record_t *rec, uint64_t at)
{
    uint64_t end = at, *bl = baseline_lat(s, rec);
    int rc = 0;
    for (int i = 0; i < rec->size; i++)
        if (rec->m[i].complete > end)
            end = rec->m[i].complete;
    for (int i = 0; i < rec->size; i++) {
        member_t *m = &rec->m[i];
        mf_em_result_t r = {.status = m->status ? -1 : 0, .cycle_ns = cycle_ns(s),
                            .net_cycles = end - at, .rank_cycles = m->complete - m->at};
        if (m->status) {
            textf(r.text, sizeof r.text, "%s: rank %d: %s", mpi_name(m->c.hdr.opcode),
                     m->grank, m->merr);
            logmsg("%s", r.text);
        } else {
            r.recv_bytes = m->c.recv_bytes;
            r.baseline_cycles = bl ? bl[i] : 0;
            if (!m->in_shm && deliver(s, m))
                rc = -1;
        }
        if (send_result(s, m->grank, m->seq, &r))
            rc = -1;
    }
    free(bl);
    return rc;
}

/* The members' buffers as movers.h sees them, if the call is a data
 * movement it can place (else NULL); the caller frees. */
static mf_mover_member_t *movers_of(const record_t *rec)
{
    const mf_proc_hdr_t *h = &rec->m[0].c.hdr;
    if (!mf_mover_opcode(h->opcode)) /* reductions, barrier: nothing to allocate */
        return NULL;
    mf_mover_member_t *mv = malloc((size_t)rec->size * sizeof *mv);
    for (int i = 0; mv && i < rec->size; i++)
        mv[i] = (mf_mover_member_t){rec->m[i].send, rec->m[i].c.send_bytes, NULL,
                                    rec->m[i].c.recv_bytes};
    if (mv && mf_mover_applies(h->opcode, h->root, h->size, mv, rec->size))
        return mv;
    free(mv);
    return NULL;
}

/* Data movements run timing-only and get their bytes placed (movers.h);
 * other calls carry their bytes through the model. */
static void place_results(const record_t *rec, mf_mover_member_t *mv)
{
    const mf_proc_hdr_t *h = &rec->m[0].c.hdr;
    for (int i = 0; i < rec->size; i++)
        mv[i].recv = rec->m[i].recv;
    mf_mover_place(h->opcode, h->root, h->size, mv, rec->size);
}

static int run_model(mf_session_t *s, record_t *rec)
{
    char text[MF_EM_TEXT_MAX], err[200];
    uint64_t at = mf_net_now(s->net);
    mf_mover_member_t *mv = movers_of(rec);
    entry_cycles(s, rec, at);
    if (post_all(s, rec, mv != NULL, text, sizeof text)) {
        free(mv);
        return result_all(s, rec, -1, 0, text), -1;
    }
    if (mf_net_run(s->net, MF_NEVER, err, sizeof err)) {
        textf(text, sizeof text, "%s: the model failed: %s", mpi_name(rec->m[0].c.hdr.opcode),
                 err);
        textf(s->broken, sizeof s->broken, "%s", text);
        free(mv);
        return result_all(s, rec, -1, 0, text), -1;
    }
    if (mv)
        place_results(rec, mv);
    free(mv);
    return send_results(s, rec, at);
}

/* Every member arrived: fall back, refuse or run, then forget the call. */
static int record_complete(mf_session_t *s, record_t *rec)
{
    char text[MF_EM_TEXT_MAX];
    int rc = 0, v = first_vote(rec), d;
    if (v >= 0) {
        const member_t *m = &rec->m[v];
        textf(text, sizeof text, "comm rank %d (global rank %d) falls back to MPI: %s", v,
                 m->grank, mf_fb_name((mf_fb_reason_t)m->c.vote));
        rc = result_all(s, rec, 1, m->c.vote, text);
        goto out;
    }
    for (int i = 0; i < rec->size; i++)
        if (member_error(s, rec, i, text, sizeof text)) {
            rc = result_all(s, rec, -1, 0, text);
            goto out;
        }
    d = args_differ(rec, text, sizeof text);
    if (d) {
        if (d < 0)
            textf(text, sizeof text, "engine out of memory comparing the members' calls");
        rc = result_all(s, rec, -1, 0, text);
        goto out;
    }
    if (s->broken[0]) {
        textf(text, sizeof text, "the model failed in an earlier call (%s): restart the "
                 "job and mpifpga-switchd", s->broken);
        rc = result_all(s, rec, -1, 0, text);
        goto out;
    }
    rc = run_model(s, rec);
out:
    record_free(s, rec);
    return rc;
}

static int member_arrive(mf_session_t *s, member_t *m)
{
    if (m->arrived)
        return 0;
    m->arrived = 1;
    record_t *rec = m->rec;
    if (++rec->narrived < rec->size)
        return 0;
    return record_complete(s, rec);
}

/* ---- COLL / DATA -------------------------------------------------------- */

/* The record this member's call belongs to: the oldest of its communicator
 * whose slot for it is free (a rank's calls on one communicator arrive in
 * its program order, so its k-th outstanding call meets the others' k-th),
 * else a new one at the end. */
static record_t *record_get(mf_session_t *s, const mf_em_coll_t *c)
{
    record_t **tail = &s->recs;
    for (record_t *r = s->recs; r; r = r->next) {
        if (r->ctx == c->hdr.ctx && r->global0 == c->global0 &&
            (c->comm_rank >= r->size || !r->m[c->comm_rank].present))
            return r;
        tail = &r->next;
    }
    record_t *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->m = calloc(c->comm_size, sizeof *r->m);
    if (!r->m) {
        free(r);
        return NULL;
    }
    r->ctx = c->hdr.ctx;
    r->global0 = c->global0;
    r->size = c->comm_size;
    *tail = r;
    return r;
}

/* The call's payload is in rank r's buffer: send and recv point into it. */
static void member_in_shm(member_t *m, const rank_t *r)
{
    uint64_t off = mf_em_shmbuf_recv_off(m->c.send_bytes);
    m->in_shm = 1;
    if (!r->shm.base || off < m->c.send_bytes || off + m->c.recv_bytes < off ||
        off + m->c.recv_bytes > r->shm.size) {
        textf(m->err, sizeof m->err,
                 "the call's %llu + %llu payload bytes do not fit the rank's %llu-byte "
                 "payload buffer (SHMBUF)",
                 (unsigned long long)m->c.send_bytes, (unsigned long long)m->c.recv_bytes,
                 (unsigned long long)r->shm.size);
        return;
    }
    m->send = r->shm.base;
    m->recv = r->shm.base + off;
}

/* Take the call into slot m; its buffers; m->err if they cannot be had. */
static void member_fill(member_t *m, record_t *rec, const rank_t *r, int g,
                        const mf_em_hdr_t *h, const mf_em_coll_t *c)
{
    *m = (member_t){.present = 1, .grank = g, .seq = h->seq, .c = *c, .rec = rec,
                    .want_baseline = (h->flags & MF_EM_F_BASELINE) != 0,
                    .defer = (h->flags & MF_EM_F_DEFER) != 0};
    m->c.counts = NULL;
    if (c->vote != MF_FB_NONE)
        return; /* no DATA follows a vote */
    if (c->ncounts) {
        m->counts = malloc(c->ncounts * sizeof *m->counts);
        if (!m->counts)
            goto oom;
        memcpy(m->counts, c->counts, c->ncounts * sizeof *m->counts);
        m->c.counts = m->counts;
    }
    if (h->flags & MF_EM_F_SHMBUF)
        return member_in_shm(m, r);
    if (c->send_bytes > SIZE_MAX / 2)
        goto oom;
    m->send = malloc(c->send_bytes ? (size_t)c->send_bytes : 1);
    if (!m->send)
        goto oom;
    return;
oom:
    textf(m->err, sizeof m->err, "engine cannot allocate %llu bytes for the call",
             (unsigned long long)c->send_bytes);
}

static int on_coll(mf_session_t *s, const mf_em_hdr_t *h, const uint8_t *msg, size_t len)
{
    rank_t *r = live_rank(s, h);
    int g = (int)h->grank;
    mf_em_coll_t c;
    char text[MF_EM_TEXT_MAX];
    if (!r)
        return -1;
    if (mf_em_unpack_coll(msg, len, &c)) {
        textf(text, sizeof text, "malformed COLL message (%zu bytes): build libmpifpga and "
                 "mpifpga-switchd from the same mpifpga", len);
        send_error(s, g, h->seq, text);
        return -1;
    }
    record_t *rec = record_get(s, &c);
    if (!rec)
        return send_error(s, g, h->seq, "engine out of memory"), -1;
    if (c.comm_rank >= rec->size) {
        textf(text, sizeof text,
                 "%s: comm rank %u of a %u-member communicator, but members that called "
                 "earlier on context %u (comm rank 0 = global %u) say it has %d members",
                 mpi_name(c.hdr.opcode), c.comm_rank, c.comm_size, c.hdr.ctx, c.global0,
                 rec->size);
        return send_error(s, g, h->seq, text), -1;
    }
    member_t *m = &rec->m[c.comm_rank];
    member_fill(m, rec, r, g, h, &c);
    m->rank_next = r->calls;
    r->calls = m;
    if (m->err[0] || c.vote != MF_FB_NONE || c.send_bytes == 0 || m->in_shm)
        return member_arrive(s, m);
    return 0;
}

static member_t *find_call(rank_t *r, uint32_t seq)
{
    for (member_t *m = r->calls; m; m = m->rank_next)
        if (m->seq == seq)
            return m;
    return NULL;
}

static int on_data(mf_session_t *s, const mf_em_hdr_t *h, const uint8_t *msg, size_t len)
{
    rank_t *r = live_rank(s, h);
    const uint8_t *data;
    size_t n;
    if (!r)
        return -1;
    member_t *m = find_call(r, h->seq);
    if (mf_em_unpack_data(msg, len, &data, &n) || !m) {
        logmsg("DATA from rank %u for call %u, which is not waiting for data: ignored", h->grank,
               h->seq);
        return -1;
    }
    if (m->err[0] || m->c.vote != MF_FB_NONE)
        return 0; /* the call fails / falls back anyway */
    uint64_t off = mf_em_chunk_off(h->off);
    if (m->arrived || off + n > m->c.send_bytes) {
        textf(m->err, sizeof m->err,
                 "DATA chunk %u (bytes %llu..%llu) lies beyond the %llu bytes announced in "
                 "COLL",
                 h->off, (unsigned long long)off, (unsigned long long)(off + n),
                 (unsigned long long)m->c.send_bytes);
        return member_arrive(s, m) ? -1 : 0;
    }
    memcpy(m->send + off, data, n);
    m->got += n;
    if (m->got >= m->c.send_bytes)
        return member_arrive(s, m);
    return 0;
}

/* ---- SHMBUF ------------------------------------------------------------- */

/* Rank g's payload buffer becomes the one SHMBUF names (none for size 0);
 * -1 with text if it cannot. */
static int map_shmbuf(rank_t *r, unsigned g, const mf_em_shmbuf_t *b, char *text, size_t len)
{
    if (r->calls) /* its buffer is in use: a rank sends SHMBUF between calls */
        return textf(text, len, "rank %u has a call outstanding: SHMBUF is taken only "
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
    rank_t *r = live_rank(s, h);
    mf_em_shmbuf_t b, reply = {0};
    if (!r)
        return -1;
    if (mf_em_unpack_shmbuf(msg, len, &b)) {
        logmsg("malformed SHMBUF from rank %u (%zu bytes): ignored", h->grank, len);
        return -1;
    }
    reply.size = b.size;
    if (map_shmbuf(r, h->grank, &b, reply.text, sizeof reply.text)) {
        reply.status = -1;
        if (s->verbose)
            logmsg("rank %u: %s; its payloads go in DATA messages", h->grank, reply.text);
    }
    mf_em_hdr_t o = {.type = MF_EM_SHMBUF, .grank = h->grank};
    return emit(s, (int)h->grank, mf_em_pack_shmbuf(&o, &reply, s->buf, sizeof s->buf),
                "SHMBUF");
}

/* ---- FETCH ------------------------------------------------------------- */

static int on_fetch(mf_session_t *s, const mf_em_hdr_t *h)
{
    if (!live_rank(s, h))
        return -1;
    for (held_t **p = &s->held; *p; p = &(*p)->next) {
        held_t *x = *p;
        if (x->grank != (int)h->grank || x->seq != h->seq)
            continue;
        *p = x->next;
        int rc = send_data(s, x->grank, x->seq, x->buf, x->len);
        free(x->buf);
        free(x);
        return rc;
    }
    logmsg("FETCH from rank %u for call %u, which has no result held: ignored", h->grank, h->seq);
    return -1;
}

/* ---- dispatch ----------------------------------------------------------- */

int mf_session_handle(mf_session_t *s, const uint8_t *msg, size_t len)
{
    mf_em_hdr_t h;
    if (mf_em_unpack_hdr(msg, len, &h)) {
        logmsg("malformed message (%zu bytes, type %d): ignored", len, len ? msg[0] : -1);
        return -1;
    }
    switch (h.type) {
    case MF_EM_HELLO: return on_hello(s, &h, msg, len);
    case MF_EM_CT_CONFIG:
    case MF_EM_CT_FREE: return on_ct(s, &h, msg, len);
    case MF_EM_COLL: return on_coll(s, &h, msg, len);
    case MF_EM_DATA: return on_data(s, &h, msg, len);
    case MF_EM_BYE: return on_bye(s, &h);
    case MF_EM_SHMBUF: return on_shmbuf(s, &h, msg, len);
    case MF_EM_FETCH: return on_fetch(s, &h);
    default:
        logmsg("rank %u sent a %s message, which only the engine sends: ignored", h.grank,
               h.type == MF_EM_WELCOME ? "WELCOME" : "RESULT");
        return -1;
    }
}
