/*
 * libfabric transport (fabric.h): one RDM endpoint, one completion queue
 * for sends and receives, a ring of posted receive buffers and a pool of
 * bounce buffers for sends.
 */
#include "transport/fabric.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include "mpifpga/engine_msg.h"
#include "transport/doorbell.h"
#include "transport/shm_stale.h"

#define NTX_MIN 32       /* bounce buffers for sends (at least; as many as receives) */
#define PEER_TX_MAX 2    /* mf_fab_try_send: sends in flight to one peer */
#define NCQE 16          /* completions read at once */
#define POLL_MAX_NS 500000L /* longest sleep between polls without a wait object */
#define BELL_POLL_MS 5      /* longest a receive waits on its doorbell between reads */

enum { BUF_RX, BUF_TX };

typedef struct {
    struct fi_context2 ctx; /* first: libfabric's per-operation context */
    int kind;
    int free;               /* TX: in the free pool */
    size_t len;             /* RX: length of the message received */
    mf_fab_peer_t peer;     /* TX: where it goes */
    uint8_t *data;
} fbuf_t;

struct mf_fab {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_ep *ep;
    struct fid_cq *cq;
    int blocking;
    int nrx;
    fbuf_t *rx, *tx;
    int ntx;
    uint8_t *rxmem, *txmem;
    int tx_free;            /* bounce buffers free */
    fbuf_t **ready;         /* received, not yet handed out (ring of nrx) */
    int rd_head, rd_count;
    char prov[64];
    int send_timeout_ms;    /* 0: none */
    mf_fab_gone_fn gone;
    void *gone_ctx;
    const volatile sig_atomic_t *interrupt; /* mf_fab_set_interrupt */
    int have_bell;          /* no wait object: receives wait on a doorbell */
    int hold;               /* mf_fab_hold_wakeups */
    mf_bell_t bell;
};

void mf_fab_set_send_timeout(mf_fab_t *f, int ms) { f->send_timeout_ms = ms; }

void mf_fab_set_gone_check(mf_fab_t *f, mf_fab_gone_fn fn, void *ctx)
{
    f->gone = fn;
    f->gone_ctx = ctx;
}

void mf_fab_set_interrupt(mf_fab_t *f, const volatile sig_atomic_t *flag)
{
    f->interrupt = flag;
}

static int fab_err(char *err, size_t len, const char *what, int rc)
{
    snprintf(err, len, "libfabric %s failed: %s", what, fi_strerror(rc < 0 ? -rc : rc));
    return -1;
}

static struct fi_info *make_hints(const char *prov)
{
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    h->caps = FI_MSG;
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->ep_attr->type = FI_EP_RDM;
    h->tx_attr->msg_order = FI_ORDER_SAS; /* a call's header precedes its data */
    h->domain_attr->mr_mode = 0;          /* plain memory, no registration */
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    if (prov && !getenv("FI_PROVIDER"))
        h->fabric_attr->prov_name = strdup(prov);
    return h;
}

/* A CQ with an fd wait object blocks in the kernel; where the provider has
 * none, fall back to a CQ without one, which mf_fab polls with sleeps. */
static int open_cq(mf_fab_t *f, char *err, size_t len)
{
    struct fi_cq_attr a = {.format = FI_CQ_FORMAT_MSG, .size = (size_t)(f->nrx + f->ntx + 16),
                           .wait_obj = FI_WAIT_FD};
    if (fi_cq_open(f->domain, &a, &f->cq, NULL) == 0) {
        f->blocking = 1;
        return 0;
    }
    a.wait_obj = FI_WAIT_NONE;
    int rc = fi_cq_open(f->domain, &a, &f->cq, NULL);
    return rc ? fab_err(err, len, "fi_cq_open", rc) : 0;
}

static int open_ep(mf_fab_t *f, char *err, size_t len)
{
    struct fi_av_attr av = {.type = FI_AV_TABLE};
    int rc = fi_fabric(f->info->fabric_attr, &f->fabric, NULL);
    if (rc)
        return fab_err(err, len, "fi_fabric", rc);
    rc = fi_domain(f->fabric, f->info, &f->domain, NULL);
    if (rc)
        return fab_err(err, len, "fi_domain", rc);
    if (open_cq(f, err, len))
        return -1;
    rc = fi_av_open(f->domain, &av, &f->av, NULL);
    if (rc)
        return fab_err(err, len, "fi_av_open", rc);
    rc = fi_endpoint(f->domain, f->info, &f->ep, NULL);
    if (rc)
        return fab_err(err, len, "fi_endpoint", rc);
    if ((rc = fi_ep_bind(f->ep, &f->cq->fid, FI_TRANSMIT | FI_RECV)) ||
        (rc = fi_ep_bind(f->ep, &f->av->fid, 0)))
        return fab_err(err, len, "fi_ep_bind", rc);
    rc = fi_enable(f->ep);
    return rc ? fab_err(err, len, "fi_enable", rc) : 0;
}

static int post_rx(mf_fab_t *f, fbuf_t *b, char *err, size_t len);
static void ring(mf_fab_t *f, mf_fab_peer_t peer);

static int alloc_bufs(mf_fab_t *f, char *err, size_t len)
{
    f->rx = calloc((size_t)f->nrx, sizeof *f->rx);
    f->ready = calloc((size_t)f->nrx, sizeof *f->ready);
    f->rxmem = malloc((size_t)f->nrx * MF_EM_MAX);
    f->tx = calloc((size_t)f->ntx, sizeof *f->tx);
    f->txmem = malloc((size_t)f->ntx * MF_EM_MAX);
    if (!f->rx || !f->ready || !f->rxmem || !f->tx || !f->txmem) {
        snprintf(err, len, "out of memory for %d transport buffers", f->nrx + f->ntx);
        return -1;
    }
    for (int i = 0; i < f->ntx; i++)
        f->tx[i] = (fbuf_t){.kind = BUF_TX, .free = 1, .data = f->txmem + (size_t)i * MF_EM_MAX};
    f->tx_free = f->ntx;
    for (int i = 0; i < f->nrx; i++) {
        f->rx[i] = (fbuf_t){.kind = BUF_RX, .data = f->rxmem + (size_t)i * MF_EM_MAX};
        if (post_rx(f, &f->rx[i], err, len))
            return -1;
    }
    return 0;
}

/* Without a wait object, receives block on a doorbell (doorbell.h);
 * if it cannot be made they poll with sleeps. */
static void open_bell(mf_fab_t *f)
{
    uint8_t name[MF_EM_ADDR_MAX];
    size_t n = sizeof name;
    if (!f->blocking && fi_getname(&f->ep->fid, name, &n) == 0 &&
        mf_bell_open(&f->bell, name, n) == 0)
        f->have_bell = 1;
}

int mf_fab_open(const char *prov, int nrx, mf_fab_t **out, char *err, size_t errlen)
{
    mf_fab_t *f = calloc(1, sizeof *f);
    struct fi_info *hints = make_hints(prov ? prov : MF_FAB_DEFAULT_PROV);
    *out = NULL;
    if (!f || !hints) {
        snprintf(err, errlen, "out of memory opening the transport");
        goto fail;
    }
    f->nrx = nrx > 0 ? nrx : 8;
    f->ntx = f->nrx > NTX_MIN ? f->nrx : NTX_MIN;
    int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &f->info);
    if (rc) {
        const char *p = getenv("FI_PROVIDER");
        snprintf(err, errlen,
                 "no libfabric provider '%s' with reliable datagram messaging (%s); "
                 "check `fi_info -p %s`, or set FI_PROVIDER=tcp or shm",
                 p ? p : hints->fabric_attr->prov_name, fi_strerror(-rc),
                 p ? p : hints->fabric_attr->prov_name);
        goto fail;
    }
    snprintf(f->prov, sizeof f->prov, "%s", f->info->fabric_attr->prov_name);
    f->bell.fd = -1;
    if (!strcmp(f->prov, "shm"))
        mf_shm_clear_stale();
    if (open_ep(f, err, errlen) || alloc_bufs(f, err, errlen))
        goto fail;
    open_bell(f);
    fi_freeinfo(hints);
    *out = f;
    return 0;
fail:
    if (hints)
        fi_freeinfo(hints);
    mf_fab_close(f);
    return -1;
}

void mf_fab_close(mf_fab_t *f)
{
    if (!f)
        return;
    if (f->have_bell)
        mf_bell_close(&f->bell);
    if (f->ep)
        fi_close(&f->ep->fid);
    if (f->av)
        fi_close(&f->av->fid);
    if (f->cq)
        fi_close(&f->cq->fid);
    if (f->domain)
        fi_close(&f->domain->fid);
    if (f->fabric)
        fi_close(&f->fabric->fid);
    if (f->info)
        fi_freeinfo(f->info);
    free(f->rx);
    free(f->ready);
    free(f->rxmem);
    free(f->tx);
    free(f->txmem);
    free(f);
}

const char *mf_fab_provider(const mf_fab_t *f) { return f->prov; }
int mf_fab_blocking(const mf_fab_t *f) { return f->blocking; }

int mf_fab_name(mf_fab_t *f, void *buf, size_t *len)
{
    return fi_getname(&f->ep->fid, buf, len) ? -1 : 0;
}

int mf_fab_addr_string(mf_fab_t *f, char *buf, size_t len)
{
    uint8_t name[MF_EM_ADDR_MAX];
    size_t n = sizeof name;
    if (mf_fab_name(f, name, &n))
        return -1;
    int w = snprintf(buf, len, "%s/", f->prov);
    if (w < 0 || (size_t)w + 2 * n + 1 > len)
        return -1;
    for (size_t i = 0; i < n; i++)
        sprintf(buf + w + 2 * i, "%02x", name[i]);
    return 0;
}

int mf_fab_peer_from_name(mf_fab_t *f, const void *name, size_t len, mf_fab_peer_t *peer,
                          char *err, size_t errlen)
{
    fi_addr_t a;
    int rc = fi_av_insert(f->av, name, 1, &a, 0, NULL);
    if (rc != 1)
        return fab_err(err, errlen, "fi_av_insert", rc < 0 ? rc : -FI_EINVAL);
    *peer = a;
    if (f->have_bell)
        mf_bell_add_peer(&f->bell, a, name, len);
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int mf_fab_peer_from_string(mf_fab_t *f, const char *addr, mf_fab_peer_t *peer, char *err,
                            size_t errlen)
{
    const char *slash = strrchr(addr, '/');
    uint8_t name[MF_EM_ADDR_MAX];
    size_t n = 0;
    if (!slash || (size_t)(slash - addr) != strlen(f->prov) ||
        strncmp(addr, f->prov, strlen(f->prov))) {
        snprintf(err, errlen, "engine address '%.80s' is not a '%s/<hex>' address of this provider",
                 addr, f->prov);
        return -1;
    }
    for (const char *h = slash + 1; *h; h += 2) {
        int hi = hexval(h[0]), lo = h[1] ? hexval(h[1]) : -1;
        if (hi < 0 || lo < 0 || n == sizeof name) {
            snprintf(err, errlen, "engine address '%.80s': bad hex after '/'", addr);
            return -1;
        }
        name[n++] = (uint8_t)(hi << 4 | lo);
    }
    return mf_fab_peer_from_name(f, name, n, peer, err, errlen);
}

static int post_rx(mf_fab_t *f, fbuf_t *b, char *err, size_t len)
{
    for (;;) {
        ssize_t rc = fi_recv(f->ep, b->data, MF_EM_MAX, NULL, FI_ADDR_UNSPEC, &b->ctx);
        if (rc == 0)
            return 0;
        if (rc != -FI_EAGAIN)
            return fab_err(err, len, "fi_recv", (int)rc);
        (void)fi_cq_read(f->cq, NULL, 0); /* drive progress, then retry */
    }
}

/* Account one completion: a send frees its bounce buffer, a receive is
 * queued for mf_fab_recv. */
static void complete(mf_fab_t *f, const struct fi_cq_msg_entry *e)
{
    fbuf_t *b = e->op_context;
    if (b->kind == BUF_TX) {
        b->free = 1;
        f->tx_free++;
        return;
    }
    b->len = e->len;
    f->ready[(f->rd_head + f->rd_count) % f->nrx] = b;
    f->rd_count++;
}

static int cq_error(mf_fab_t *f, char *err, size_t len)
{
    struct fi_cq_err_entry e = {0};
    if (fi_cq_readerr(f->cq, &e, 0) < 0)
        return fab_err(err, len, "fi_cq_readerr", -FI_EOTHER);
    snprintf(err, len, "libfabric %s completion failed: %s (%s)",
             e.flags & FI_SEND ? "send" : "receive", fi_strerror(e.err),
             fi_cq_strerror(f->cq, e.prov_errno, e.err_data, NULL, 0));
    if (e.op_context && ((fbuf_t *)e.op_context)->kind == BUF_TX) {
        ((fbuf_t *)e.op_context)->free = 1;
        f->tx_free++;
    }
    return -1;
}

/* Handle a batch returned by fi_cq_read / fi_cq_sread: >0 entries, 0
 * nothing, -1 error. */
static int take(mf_fab_t *f, ssize_t n, struct fi_cq_msg_entry *e, char *err, size_t len)
{
    if (n == -FI_EAGAIN)
        return 0;
    if (n == -FI_EAVAIL)
        return cq_error(f, err, len);
    if (n < 0)
        return fab_err(err, len, "fi_cq_read", (int)n);
    for (ssize_t i = 0; i < n; i++)
        complete(f, &e[i]);
    return (int)n;
}

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Wait for at least one completion, at most until `deadline` (ns, <0 none).
 * `bell`: a receive is awaited, so a doorbell (if any) may be waited on;
 * send completions come without a ring.  1 progress, 0 timed out, -1 error. */
static int wait_some(mf_fab_t *f, int64_t deadline, int bell, char *err, size_t len)
{
    struct fi_cq_msg_entry e[NCQE];
    long sleep_ns = 2000;
    for (;;) {
        int r = take(f, fi_cq_read(f->cq, e, NCQE), e, err, len);
        if (r)
            return r < 0 ? -1 : 1;
        int64_t left = deadline < 0 ? 1000000000 : deadline - now_ns();
        if (left <= 0 || (f->interrupt && *f->interrupt))
            return 0;
        if (f->blocking) {
            int ms = (int)(left / 1000000) + 1;
            r = take(f, fi_cq_sread(f->cq, e, NCQE, NULL, ms > 1000 ? 1000 : ms), e, err, len);
            if (r)
                return r < 0 ? -1 : 1;
            continue;
        }
        if (bell && f->have_bell) {
            int ms = (int)(left / 1000000) + 1;
            mf_bell_wait(&f->bell, ms < BELL_POLL_MS ? ms : BELL_POLL_MS);
            continue;
        }
        struct timespec ts = {0, sleep_ns < left ? sleep_ns : (long)left};
        nanosleep(&ts, NULL);
        if (sleep_ns < POLL_MAX_NS)
            sleep_ns *= 2;
    }
}

static int64_t deadline_of(int timeout_ms)
{
    return timeout_ms < 0 ? -1 : now_ns() + (int64_t)timeout_ms * 1000000;
}

static fbuf_t *get_tx(mf_fab_t *f)
{
    for (int i = 0; i < f->ntx; i++)
        if (f->tx[i].free) {
            f->tx[i].free = 0;
            f->tx_free--;
            return &f->tx[i];
        }
    return NULL;
}

/* While a send waits: give up at the deadline, or when the peer is gone.
 * 0 keep waiting, -1 give up (message in err). */
static int send_wait(mf_fab_t *f, int64_t deadline, int64_t *next_check, char *err,
                     size_t errlen)
{
    if (f->have_bell)
        mf_bell_flush(&f->bell); /* the receiver may have to read to free room */
    int r = wait_some(f, now_ns() + 1000000, 0, err, errlen); /* 1 ms: EAGAIN clears fast */
    if (r < 0)
        return -1;
    if (r > 0 || now_ns() < *next_check)
        return 0;
    *next_check = now_ns() + 1000000000;
    if (f->gone && f->gone(f->gone_ctx, err, errlen))
        return -1;
    if (deadline >= 0 && now_ns() > deadline) {
        snprintf(err, errlen, "the %s provider did not take a message within %d ms: the peer "
                 "is unreachable or not reading", f->prov, f->send_timeout_ms);
        return -1;
    }
    return 0;
}

int mf_fab_send(mf_fab_t *f, mf_fab_peer_t peer, const void *msg, size_t len, char *err,
                size_t errlen)
{
    int64_t deadline = f->send_timeout_ms ? deadline_of(f->send_timeout_ms) : -1;
    int64_t next_check = now_ns() + 1000000000;
    if (len > MF_EM_MAX) {
        snprintf(err, errlen, "transport message of %zu bytes exceeds %u", len, MF_EM_MAX);
        return -1;
    }
    while (f->tx_free == 0)
        if (send_wait(f, deadline, &next_check, err, errlen))
            return -1;
    fbuf_t *b = get_tx(f);
    memcpy(b->data, msg, len);
    b->peer = peer;
    for (;;) {
        ssize_t rc = fi_send(f->ep, b->data, len, NULL, (fi_addr_t)peer, &b->ctx);
        if (rc == 0) {
            ring(f, peer);
            return 0;
        }
        if (rc != -FI_EAGAIN) {
            b->free = 1;
            f->tx_free++;
            return fab_err(err, errlen, "fi_send", (int)rc);
        }
        if (send_wait(f, deadline, &next_check, err, errlen)) {
            b->free = 1;
            f->tx_free++;
            return -1;
        }
    }
}

static void ring(mf_fab_t *f, mf_fab_peer_t peer)
{
    if (f->have_bell && f->hold)
        mf_bell_defer(&f->bell, peer);
    else if (f->have_bell)
        mf_bell_ring(&f->bell, peer);
}

static int in_flight_to(const mf_fab_t *f, mf_fab_peer_t peer)
{
    int n = 0;
    for (int i = 0; i < f->ntx; i++)
        n += !f->tx[i].free && f->tx[i].peer == peer;
    return n;
}

int mf_fab_try_send(mf_fab_t *f, mf_fab_peer_t peer, const void *msg, size_t len, char *err,
                    size_t errlen)
{
    struct fi_cq_msg_entry e[NCQE];
    if (len > MF_EM_MAX) {
        snprintf(err, errlen, "transport message of %zu bytes exceeds %u", len, MF_EM_MAX);
        return -1;
    }
    if (take(f, fi_cq_read(f->cq, e, NCQE), e, err, errlen) < 0) /* frees finished sends */
        return -1;
    if (f->tx_free == 0 || in_flight_to(f, peer) >= PEER_TX_MAX)
        return 1;
    fbuf_t *b = get_tx(f);
    memcpy(b->data, msg, len);
    b->peer = peer;
    ssize_t rc = fi_send(f->ep, b->data, len, NULL, (fi_addr_t)peer, &b->ctx);
    if (rc == 0) {
        ring(f, peer);
        return 0;
    }
    b->free = 1;
    f->tx_free++;
    if (rc == -FI_EAGAIN) {
        if (f->have_bell)
            mf_bell_flush(&f->bell); /* the receiver may have to read to free room */
        return 1;
    }
    return fab_err(err, errlen, "fi_send", (int)rc);
}

void mf_fab_peers_known(mf_fab_t *f)
{
    if (f->have_bell)
        mf_bell_unlink(&f->bell);
}

void mf_fab_hold_wakeups(mf_fab_t *f, int hold)
{
    f->hold = hold;
    if (!hold && f->have_bell)
        mf_bell_flush(&f->bell);
}

ssize_t mf_fab_recv(mf_fab_t *f, int timeout_ms, const uint8_t **msg, void **token, char *err,
                    size_t errlen)
{
    int64_t deadline = deadline_of(timeout_ms);
    while (f->rd_count == 0) {
        int r = wait_some(f, deadline, 1, err, errlen);
        if (r < 0)
            return -1;
        if (r == 0)
            return 0;
    }
    fbuf_t *b = f->ready[f->rd_head];
    f->rd_head = (f->rd_head + 1) % f->nrx;
    f->rd_count--;
    *msg = b->data;
    *token = b;
    return (ssize_t)b->len;
}

void mf_fab_release(mf_fab_t *f, void *token)
{
    char err[128];
    if (post_rx(f, token, err, sizeof err))
        fprintf(stderr, "mpifpga: %s\n", err);
}

int mf_fab_flush(mf_fab_t *f, int timeout_ms, char *err, size_t errlen)
{
    int64_t deadline = deadline_of(timeout_ms);
    while (f->tx_free < f->ntx) {
        int r = wait_some(f, deadline, 0, err, errlen);
        if (r < 0)
            return -1;
        if (r == 0) {
            snprintf(err, errlen, "%d sends still in flight after %d ms", f->ntx - f->tx_free,
                     timeout_ms);
            return -1;
        }
    }
    return 0;
}
