/*
 * The "model" device: collectives go to mpifpga-switchd, which runs them
 * in the modeled switch network (include/mpifpga/engine_msg.h over
 * src/transport/fabric.h).  A call is posted as COLL and its payload as
 * DATA chunks; its result comes back as DATA and RESULT, tagged with the
 * call's sequence number, whenever the rank next reads (several calls may
 * be outstanding: nonblocking and persistent collectives).  With the
 * engine on this host the payload of a call posted while none is
 * outstanding goes through a shared buffer instead
 * (src/transport/shmbuf.h): COLL, then RESULT, no DATA.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/device.h"
#include "transport/fabric.h"
#include "transport/shmbuf.h"

#define WAIT_SLICE_MS 1000 /* how often a waiting rank checks the engine is alive */
#define SHM_MIN (1u << 20) /* smallest payload buffer: small calls never regrow it */

/* A posted call waiting for its verdict. */
typedef struct {
    uint32_t seq;
    int used;
    int shm;       /* its payload is in the shared buffer, not in DATA */
    int defer;     /* its result DATA comes when asked for (FETCH) */
    int fetched;
    void *recv;    /* room for recv_bytes of result (NULL: not wanted) */
    uint64_t recv_bytes, send_bytes;
    int have_result;
    mf_em_result_t res;
    uint64_t got;  /* result bytes received */
} pend_t;

typedef struct {
    mf_fab_t *fab;
    mf_fab_peer_t engine;
    int grank;
    uint32_t seq;
    mf_engine_loc_t loc;
    int engine_local;        /* engine on this host: its pid can be checked */
    int welcomed;            /* the engine accepted this rank (BYE at close) */
    mf_em_welcome_t welcome;
    mf_shmbuf_t shm;         /* payload buffer shared with the engine, or none */
    uint64_t shm_max;        /* largest one to try; 0: payloads go in DATA */
    int verbose;
    char desc[1024];
    pend_t *pend;            /* posted calls (used ones), npend slots */
    int npend;
    int outstanding;         /* posted calls without a verdict taken */
    char call_name[48];      /* the last call posted, for messages */
    uint8_t msg[MF_EM_MAX];
} model_t;

static model_t *M(mf_device_t *d) { return d->priv; }

/* The engine's process is gone (only checkable on its own host). */
static int engine_gone(const model_t *m)
{
    return m->engine_local && mf_engine_pid_gone(m->loc.pid);
}

static void gone_msg(const model_t *m, const char *during, char *err, size_t len);

/* Transport hook: stop waiting on a send when the engine is gone. */
static int gone_check(void *ctx, char *err, size_t len)
{
    model_t *m = ctx;
    if (!engine_gone(m))
        return 0;
    gone_msg(m, "while this rank was sending to it", err, len);
    return 1;
}

static void gone_msg(const model_t *m, const char *during, char *err, size_t len)
{
    snprintf(err, len,
             "the switch engine (mpifpga-switchd, pid %d) exited %s; see its messages above, "
             "then rerun (or set MPIFPGA_ENABLE=0 to run without offload)",
             m->loc.pid, during);
}

static int send_msg(model_t *m, size_t n, char *err, size_t len)
{
    if (n == 0) {
        snprintf(err, len, "internal error: message does not fit the %u-byte limit", MF_EM_MAX);
        return -1;
    }
    return mf_fab_send(m->fab, m->engine, m->msg, n, err, len);
}

/* One message within a wait slice: its length, 0 if none came and the
 * engine is alive, -1 on an error or when the engine is gone ("exited
 * `during` [call]"; the text is only formatted then). */
static ssize_t recv_slice(model_t *m, const char *during, const char *call, int wait_ms,
                          const uint8_t **msg, void **tok, char *err, size_t len)
{
    ssize_t n = mf_fab_recv(m->fab, wait_ms, msg, tok, err, len);
    if (n == 0 && engine_gone(m)) {
        char what[96];
        snprintf(what, sizeof what, "%s%s", during, call ? call : "");
        gone_msg(m, what, err, len);
        return -1;
    }
    return n;
}

static int wait_welcome(model_t *m, int timeout_s, char *err, size_t len)
{
    for (int waited = 0; waited < timeout_s * 1000; waited += WAIT_SLICE_MS) {
        const uint8_t *msg;
        void *tok;
        ssize_t n = recv_slice(m, "before this rank connected", NULL, WAIT_SLICE_MS, &msg, &tok, err, len);
        if (n < 0)
            return -1;
        if (n == 0)
            continue;
        int rc = mf_em_unpack_welcome(msg, (size_t)n, &m->welcome);
        mf_fab_release(m->fab, tok);
        if (rc) {
            snprintf(err, len, "the engine answered HELLO with a malformed message");
            return -1;
        }
        if (m->welcome.status) {
            snprintf(err, len, "the engine refused this rank: %s", m->welcome.text);
            return -1;
        }
        m->welcomed = 1;
        mf_fab_peers_known(m->fab); /* the engine opened our doorbell before WELCOME */
        return 0;
    }
    snprintf(err, len,
             "no answer from the switch engine at %.60s within %d s "
             "(MPIFPGA_CONNECT_TIMEOUT); is mpifpga-switchd running for this job?",
             m->loc.addr, timeout_s);
    return -1;
}

static int hello(model_t *m, int nranks, int node, int port, char *err, size_t len)
{
    mf_em_hello_t h = {.version = MF_EM_VERSION, .nranks = (uint32_t)nranks,
                       .pid = (uint32_t)getpid(),
                       .fwd = {.rank = (uint16_t)m->grank, .node = (uint16_t)node,
                               .port = (uint8_t)port}};
    memcpy(h.secret, m->loc.secret, sizeof h.secret);
    size_t alen = sizeof h.addr;
    if (mf_fab_name(m->fab, h.addr, &alen)) {
        snprintf(err, len, "cannot read this rank's libfabric address");
        return -1;
    }
    h.addrlen = (uint16_t)alen;
    mf_em_hdr_t eh = {.type = MF_EM_HELLO, .grank = (uint32_t)m->grank};
    return send_msg(m, mf_em_pack_hello(&eh, &h, m->msg, sizeof m->msg), err, len);
}

/* Provider part of "<provider>/<hex>". */
static int addr_provider(const char *addr, char *prov, size_t n)
{
    const char *slash = strrchr(addr, '/');
    if (!slash || (size_t)(slash - addr) >= n || slash == addr)
        return -1;
    memcpy(prov, addr, (size_t)(slash - addr));
    prov[slash - addr] = 0;
    return 0;
}

static int model_open(mf_device_t *d, const mf_engine_loc_t *loc, int grank, int nranks,
                      int node, int port, const mf_config_t *cfg, char *err, size_t len)
{
    int timeout_s = cfg->connect_timeout;
    char prov[64], host[64] = "";
    model_t *m = calloc(1, sizeof *m);
    if (!m)
        return snprintf(err, len, "out of memory"), -1;
    d->priv = m;
    m->grank = grank;
    m->loc = *loc;
    m->shm = MF_SHMBUF_NONE;
    m->verbose = cfg->verbose;
    gethostname(host, sizeof host - 1);
    m->engine_local = loc->pid > 0 && !strcmp(host, loc->host);
    m->shm_max = m->engine_local ? cfg->shm_payload : 0;
    if (addr_provider(loc->addr, prov, sizeof prov)) {
        snprintf(err, len, "engine address '%.80s' is not '<provider>/<hex>'", loc->addr);
        return -1;
    }
    if (mf_fab_open(prov, 8, &m->fab, err, len))
        return -1;
    if (mf_fab_peer_from_string(m->fab, loc->addr, &m->engine, err, len)) {
        char why[256];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, len, "cannot reach the engine at MPIFPGA_ENGINE=%.80s (%s)", loc->addr, why);
        return -1;
    }
    mf_fab_set_gone_check(m->fab, gone_check, m);
    mf_fab_set_send_timeout(m->fab, timeout_s * 1000); /* until the engine answers */
    if (hello(m, nranks, node, port, err, len) || wait_welcome(m, timeout_s, err, len))
        return -1;
    mf_fab_set_send_timeout(m->fab, 0); /* a busy engine may take long to read */
    if (m->welcome.cycle_ns > 0)
        d->dma_bytes_per_ns = m->welcome.dma_bytes_per_cycle / m->welcome.cycle_ns;
    d->sa = (int)m->welcome.sa;
    snprintf(m->desc, sizeof m->desc,
             "switch engine pid %d at %s: %s, %u nodes x %u ranks, params %s, %.3f ns/cycle",
             (int)m->welcome.pid, loc->addr, m->welcome.topo, m->welcome.nnodes,
             m->welcome.ppn, m->welcome.params, m->welcome.cycle_ns);
    return 0;
}

static int model_ct(mf_device_t *d, int type, int ctx, const mf_ct_entry_t *e, char *err,
                    size_t len)
{
    model_t *m = M(d);
    mf_em_hdr_t h = {.type = (uint8_t)type, .grank = (uint32_t)m->grank};
    mf_em_ct_t b = {.ctx = (uint8_t)ctx};
    if (e)
        b.entry = *e;
    return send_msg(m, mf_em_pack_ct(&h, &b, m->msg, sizeof m->msg), err, len);
}

static int model_ct_config(mf_device_t *d, int ctx, const mf_ct_entry_t *e, char *err,
                           size_t len)
{
    return model_ct(d, MF_EM_CT_CONFIG, ctx, e, err, len);
}

static int model_ct_free(mf_device_t *d, int ctx, char *err, size_t len)
{
    return model_ct(d, MF_EM_CT_FREE, ctx, NULL, err, len);
}

/* ---- shared payload buffer --------------------------------------------- */

static int shm_reply(model_t *m, mf_em_shmbuf_t *b, char *err, size_t len)
{
    for (;;) {
        const uint8_t *msg;
        void *tok;
        ssize_t n = recv_slice(m, "while mapping this rank's payload buffer", NULL, WAIT_SLICE_MS,
                               &msg, &tok, err,
                               len);
        if (n < 0)
            return -1;
        if (n == 0)
            continue;
        int rc = mf_em_unpack_shmbuf(msg, (size_t)n, b);
        mf_fab_release(m->fab, tok);
        if (rc)
            return snprintf(err, len, "unexpected answer from the engine to SHMBUF"), -1;
        return 0;
    }
}

static void shm_note(const model_t *m, const char *why)
{
    if (m->verbose && m->grank == 0)
        fprintf(stderr, "mpifpga: rank 0: payloads of %s go in messages: %s\n",
                m->shm_max ? "this size" : "every call", why);
}

/* A payload buffer of at least `need` bytes, shared with the engine: 0, or
 * 1 if the payload must go in DATA (why is noted with MPIFPGA_VERBOSE),
 * or -1 with err if talking to the engine failed. */
static int shm_grow(model_t *m, uint64_t need, char *err, size_t len)
{
    mf_shmbuf_t nb;
    mf_em_shmbuf_t b = {0};
    char why[200];
    uint64_t size = m->shm.size * 2 > need ? m->shm.size * 2 : need;
    size = size < SHM_MIN ? SHM_MIN : (size + 4095) & ~(uint64_t)4095;
    if (size > m->shm_max)
        size = need;
    if (mf_shmbuf_create(&nb, size, why, sizeof why)) {
        m->shm_max = need - 1; /* smaller calls may still fit */
        return shm_note(m, why), 1;
    }
    b.fd = (uint32_t)nb.fd;
    b.size = size;
    mf_em_hdr_t h = {.type = MF_EM_SHMBUF, .grank = (uint32_t)m->grank};
    if (send_msg(m, mf_em_pack_shmbuf(&h, &b, m->msg, sizeof m->msg), err, len) ||
        shm_reply(m, &b, err, len)) {
        mf_shmbuf_release(&nb);
        return -1;
    }
    mf_shmbuf_release(&m->shm); /* the engine dropped it */
    if (b.status) {
        mf_shmbuf_release(&nb);
        m->shm_max = 0;
        return shm_note(m, b.text), 1;
    }
    m->shm = nb;
    return 0;
}

/* 1 if the call's payload goes through the shared buffer, 0 if in DATA,
 * -1 with err. */
static int use_shm(model_t *m, const mf_dev_call_t *c, char *err, size_t len)
{
    uint64_t need = mf_em_shmbuf_recv_off(c->send_bytes) + c->recv_bytes;
    if (c->vote || need == 0 || need > m->shm_max || need < c->recv_bytes)
        return 0; /* no payload, too large, or no buffer to be had */
    if (need <= m->shm.size)
        return 1;
    int rc = shm_grow(m, need, err, len);
    return rc < 0 ? -1 : !rc;
}

/* ---- a call -------------------------------------------------------------- */

static int send_call(model_t *m, const mf_dev_call_t *c, int shm, char *err, size_t len)
{
    mf_em_hdr_t h = {.type = MF_EM_COLL, .grank = (uint32_t)m->grank, .seq = m->seq,
                     .flags = (c->want_baseline ? MF_EM_F_BASELINE : 0) |
                              (shm ? MF_EM_F_SHMBUF : 0) | (c->defer ? MF_EM_F_DEFER : 0)};
    mf_em_coll_t b = {.hdr = c->hdr, .vote = (uint8_t)c->vote,
                      .comm_size = (uint16_t)c->comm_size, .comm_rank = (uint16_t)c->comm_rank,
                      .global0 = (uint16_t)c->global0,
                      .send_bytes = c->vote ? 0 : c->send_bytes,
                      .recv_bytes = c->vote ? 0 : c->recv_bytes, .entry_ns = c->entry_ns,
                      .ncounts = c->counts ? mf_opcode_ncounts(c->hdr.opcode,
                                                               (unsigned)c->comm_size)
                                           : 0,
                      .counts = c->counts};
    if (shm && b.send_bytes)
        memcpy(m->shm.base, c->send, (size_t)b.send_bytes);
    if (send_msg(m, mf_em_pack_coll(&h, &b, m->msg, sizeof m->msg), err, len))
        return -1;
    if (shm)
        return 0;
    h.type = MF_EM_DATA;
    h.flags = 0;
    for (uint64_t off = 0; off < b.send_bytes; off += MF_EM_DATA_MAX) {
        uint64_t n = b.send_bytes - off < MF_EM_DATA_MAX ? b.send_bytes - off : MF_EM_DATA_MAX;
        h.off = (uint32_t)(off / MF_EM_DATA_MAX);
        size_t w = mf_em_pack_data(&h, (const uint8_t *)c->send + off, (size_t)n, m->msg,
                                   sizeof m->msg);
        if (send_msg(m, w, err, len))
            return -1;
    }
    return 0;
}


static pend_t *pend_find(model_t *m, uint32_t seq)
{
    for (int i = 0; i < m->npend; i++)
        if (m->pend[i].used && m->pend[i].seq == seq)
            return &m->pend[i];
    return NULL;
}

static pend_t *pend_new(model_t *m)
{
    for (int i = 0; i < m->npend; i++)
        if (!m->pend[i].used)
            return &m->pend[i];
    int n = m->npend ? 2 * m->npend : 8;
    pend_t *p = realloc(m->pend, (size_t)n * sizeof *p);
    if (!p)
        return NULL;
    memset(p + m->npend, 0, (size_t)(n - m->npend) * sizeof *p);
    int first_new = m->npend;
    m->pend = p;
    m->npend = n;
    return &p[first_new];
}

/* The result the engine wrote into the shared buffer, to the caller. */
static int shm_result(model_t *m, pend_t *p, char *err, size_t len)
{
    uint64_t n = p->res.recv_bytes;
    if (n > p->recv_bytes)
        return snprintf(err, len, "the engine wrote %llu result bytes, %llu expected",
                        (unsigned long long)n, (unsigned long long)p->recv_bytes), -1;
    if (p->recv && n) /* NULL: the caller does not want this result */
        memcpy(p->recv, m->shm.base + mf_em_shmbuf_recv_off(p->send_bytes), (size_t)n);
    p->got = n;
    return 0;
}

/* Account one engine message to the posted call it names. */
static int take_msg(model_t *m, const uint8_t *msg, size_t n, char *err, size_t len)
{
    mf_em_hdr_t h;
    pend_t *p = NULL;
    if (mf_em_unpack_hdr(msg, n, &h) || !(p = pend_find(m, h.seq))) {
        snprintf(err, len, "unexpected message from the engine (type %u, call %u, which is not "
                 "outstanding)", msg[0], h.seq);
        return -1;
    }
    if (h.type == MF_EM_RESULT) {
        if (mf_em_unpack_result(msg, n, &p->res))
            return snprintf(err, len, "malformed RESULT from the engine"), -1;
        p->have_result = 1;
        return p->shm && p->res.status == 0 ? shm_result(m, p, err, len) : 0;
    }
    const uint8_t *data;
    size_t dn;
    uint64_t off = mf_em_chunk_off(h.off);
    if (h.type != MF_EM_DATA || mf_em_unpack_data(msg, n, &data, &dn) ||
        off + dn > p->recv_bytes) {
        snprintf(err, len, "malformed or out-of-range result data from the engine");
        return -1;
    }
    if (p->recv) /* NULL: the caller does not want this result */
        memcpy((uint8_t *)p->recv + off, data, dn);
    p->got += dn;
    return 0;
}

static int pend_done(const pend_t *p)
{
    return p->have_result && (p->res.status != 0 || p->got >= p->res.recv_bytes);
}

/* Read what the engine sent, waiting up to timeout_ms for the first
 * message (< 0: one wait slice); then whatever else already came. */
static int progress(model_t *m, int timeout_ms, const char *call, char *err, size_t len)
{
    int wait = timeout_ms < 0 ? WAIT_SLICE_MS : timeout_ms;
    for (;;) {
        const uint8_t *msg;
        void *tok;
        ssize_t n = wait ? recv_slice(m, "during ", call, wait, &msg, &tok, err, len)
                         : mf_fab_recv(m->fab, 0, &msg, &tok, err, len);
        if (n <= 0)
            return (int)n;
        int rc = take_msg(m, msg, (size_t)n, err, len);
        mf_fab_release(m->fab, tok);
        if (rc)
            return -1;
        wait = 0;
    }
}

/* Every message of the call has reached the engine.  The caller may not
 * drive this endpoint again for long (a nonblocking start returns to the
 * program), and some providers move a large message only while both
 * sides progress (libfabric shm's segmented copies).  The engine always
 * reads, so this wait is short. */
static int flush_sends(model_t *m, const char *call, char *err, size_t len)
{
    for (;;) {
        if (mf_fab_flush(m->fab, WAIT_SLICE_MS, err, len) == 0)
            return 0;
        if (engine_gone(m)) {
            char what[96];
            snprintf(what, sizeof what, "while this rank was posting %s", call ? call : "a call");
            gone_msg(m, what, err, len);
            return -1;
        }
    }
}

static int model_post(mf_device_t *d, const mf_dev_call_t *c, uint32_t *ticket, char *err,
                      size_t len)
{
    model_t *m = M(d);
    /* the shared buffer holds one call's payload, and grows only between calls */
    int shm = m->outstanding ? 0 : use_shm(m, c, err, len);
    if (shm < 0)
        return -1;
    pend_t *p = pend_new(m);
    if (!p)
        return snprintf(err, len, "out of memory for an outstanding call"), -1;
    m->seq++;
    mf_fab_hold_wakeups(m->fab, 1); /* header and data: one wake-up of the engine */
    int sent = send_call(m, c, shm, err, len);
    mf_fab_hold_wakeups(m->fab, 0);
    if (sent || flush_sends(m, c->mpi_name, err, len))
        return -1;
    *p = (pend_t){.used = 1, .seq = m->seq, .shm = shm, .defer = c->defer, .recv = c->recv,
                  .recv_bytes = c->vote ? 0 : c->recv_bytes,
                  .send_bytes = c->vote ? 0 : c->send_bytes};
    snprintf(m->call_name, sizeof m->call_name, "%s", c->mpi_name ? c->mpi_name : "a call");
    m->outstanding++;
    *ticket = m->seq;
    return 0;
}

/* The verdict of a finished call, into r. */
static int verdict(const pend_t *p, mf_dev_result_t *r)
{
    const mf_em_result_t *res = &p->res;
    if (res->status == 1) {
        r->status = MF_DEV_FALLBACK;
        r->reason = res->reason < MF_FB_COUNT ? (mf_fb_reason_t)res->reason : MF_FB_DATATYPE;
        return 1;
    }
    if (res->status != 0) {
        r->status = MF_DEV_ERROR;
        snprintf(r->text, sizeof r->text, "%s", res->text);
        return 1;
    }
    r->status = MF_DEV_DONE;
    r->shm = p->shm;
    r->net_us = (double)res->net_cycles * res->cycle_ns / 1000.0;
    r->rank_us = (double)res->rank_cycles * res->cycle_ns / 1000.0;
    r->baseline_us = (double)res->baseline_cycles * res->cycle_ns / 1000.0;
    return 1;
}

static int need_fetch(const pend_t *p)
{
    return p->defer && !p->fetched && p->have_result && p->res.status == 0 && !p->shm &&
           p->got < p->res.recv_bytes;
}

/* Ask for a deferred call's result DATA; the engine sends it at once. */
static int fetch(model_t *m, pend_t *p, char *err, size_t len)
{
    mf_em_hdr_t h = {.type = MF_EM_FETCH, .grank = (uint32_t)m->grank, .seq = p->seq};
    p->fetched = 1;
    return send_msg(m, mf_em_pack_hdr(&h, m->msg), err, len);
}

static int model_poll(mf_device_t *d, uint32_t ticket, int timeout_ms, mf_dev_result_t *r)
{
    model_t *m = M(d);
    pend_t *p = pend_find(m, ticket);
    *r = (mf_dev_result_t){.status = MF_DEV_ERROR};
    if (!p)
        return snprintf(r->text, sizeof r->text, "call %u is not outstanding", ticket), -1;
    for (int first = 1; !pend_done(p); first = 0) {
        if (need_fetch(p)) { /* the result is ready: take its DATA now */
            if (fetch(m, p, r->text, sizeof r->text))
                return -1;
            timeout_ms = -1;
        }
        if (!first && timeout_ms >= 0)
            return 0;
        if (progress(m, timeout_ms, m->call_name, r->text, sizeof r->text) < 0)
            return -1;
    }
    p->used = 0;
    m->outstanding--;
    return verdict(p, r);
}

static void model_close(mf_device_t *d)
{
    model_t *m = M(d);
    if (!m)
        return;
    if (m->fab && m->welcomed) {
        char err[256];
        mf_em_hdr_t h = {.type = MF_EM_BYE, .grank = (uint32_t)m->grank};
        size_t n = mf_em_pack_hdr(&h, m->msg);
        if (!engine_gone(m) && (mf_fab_send(m->fab, m->engine, m->msg, n, err, sizeof err) ||
                                mf_fab_flush(m->fab, 2000, err, sizeof err)))
            fprintf(stderr, "mpifpga: rank %d: saying goodbye to the engine: %s\n", m->grank, err);
    }
    mf_fab_close(m->fab);
    mf_shmbuf_release(&m->shm);
    free(m->pend);
    free(m);
    d->priv = NULL;
}

static const char *model_describe(mf_device_t *d) { return M(d) ? M(d)->desc : "model (closed)"; }

const mf_device_ops_t mf_device_model_ops = {
    .name = "model",
    .open = model_open,
    .ct_config = model_ct_config,
    .ct_free = model_ct_free,
    .post = model_post,
    .poll = model_poll,
    .close = model_close,
    .describe = model_describe,
};
