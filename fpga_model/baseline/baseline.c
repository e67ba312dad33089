/*
 * Baseline MPI on the modeled fabric (baseline.h): MPICH's schedules
 * (sched.c) executed by LogGP hosts whose messages cross the modeled
 * routers and links as unicast packets.
 *
 * One engine module per network.  Host-side times (CPU, NIC) are kept in
 * fractional cycles; the module runs a rank when its CPU or NIC has
 * something due, and the network's unicast ejection hook delivers packets
 * to the receiving NIC.  Messages between a pair of ranks arrive in order
 * (deterministic routing, one VC per flow: doc/model.md sec. 6), so a
 * receive matches the next completed message of its source.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/baseline.h"
#include "hw/switch.h"

/* Packet kinds, in the (model-only) tag of a unicast packet. */
enum { PK_DATA = 0, PK_RTS = 1, PK_CTS = 2 };

/* A message queued at a NIC for injection. */
typedef struct txmsg {
    struct txmsg *next;
    int dst;            /* comm rank */
    int kind;
    uint64_t bytes;
    double start;       /* cycle its first byte leaves host memory */
} txmsg_t;

/* What rank r has received from rank s (one receiver-sender channel). */
typedef struct {
    uint64_t key;       /* (r << 32 | s) + 1, 0 = empty slot */
    double *done;       /* completion times of messages not yet matched */
    int head, n, cap;
    double rts_at;      /* an RTS waiting for its receive, or -1 */
} chan_t;

typedef struct {
    int grank;
    mf_bl_prog_t prog;
    int pc;             /* current step */
    int in_step;
    double cpu;         /* CPU free at (cycles) */
    int send_wait;      /* 1: rendezvous send waiting for the CTS */
    double send_done;   /* local completion of the step's send, -1 unknown */
    double recv_done;   /* the step's message is in host memory, -1 unknown */
    int need_rts;       /* rendezvous receive posted, RTS not yet here */
    /* NIC */
    txmsg_t *txq, *txq_tail;
    uint64_t tx_off;    /* bytes of txq's head already injected */
    double nic_free;    /* the NIC's host-memory side is busy until (send and receive) */
    double gap_free;    /* next message may start (g) */
    int finished;
    double end;
    uint64_t sched;     /* cycle the rank is scheduled for, MF_NEVER if none */
} rank_t;

typedef struct {
    uint64_t at;
    int rank;
} event_t;

typedef struct {
    mf_module_t mod;
    mf_net_t *net;
    const mf_host_params_t *h;
    /* host costs in cycles */
    double os, orr, gap, G, red, nic, copy;
    uint64_t mtu;
    /* current collective */
    int size;
    rank_t *rk;
    int *of_grank;      /* comm rank by global rank, -1 if not a member */
    uint64_t *complete; /* cycle each rank's call returned */
    chan_t *ch;
    size_t chcap, chn;
    event_t *ev;
    size_t nev, capev;
    int left;           /* ranks not finished */
    int failed;
    char err[200];
} bl_t;

static double cyc(const bl_t *b, double ns) { return ns / mf_params_cycle_ns(&b->net->p); }

static uint64_t ceil_cycle(double t) { return t <= 0 ? 0 : (uint64_t)ceil(t - 1e-9); }

static void fail(bl_t *b, const char *msg)
{
    if (!b->failed) {
        b->failed = 1;
        snprintf(b->err, sizeof b->err, "baseline: %s", msg);
    }
}

/* ---- event heap -------------------------------------------------------- */

static int ev_less(const event_t *a, const event_t *b)
{
    return a->at < b->at || (a->at == b->at && a->rank < b->rank);
}

static void ev_push(bl_t *b, uint64_t at, int rank)
{
    if (b->nev == b->capev) {
        size_t cap = b->capev ? 2 * b->capev : 64;
        event_t *v = realloc(b->ev, cap * sizeof *v);
        if (!v) {
            fail(b, "out of memory");
            return;
        }
        b->ev = v, b->capev = cap;
    }
    size_t i = b->nev++;
    b->ev[i] = (event_t){at, rank};
    while (i && ev_less(&b->ev[i], &b->ev[(i - 1) / 2])) {
        event_t t = b->ev[i];
        b->ev[i] = b->ev[(i - 1) / 2], b->ev[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static event_t ev_pop(bl_t *b)
{
    event_t top = b->ev[0];
    b->ev[0] = b->ev[--b->nev];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < b->nev && ev_less(&b->ev[l], &b->ev[m]))
            m = l;
        if (r < b->nev && ev_less(&b->ev[r], &b->ev[m]))
            m = r;
        if (m == i)
            break;
        event_t t = b->ev[i];
        b->ev[i] = b->ev[m], b->ev[m] = t;
        i = m;
    }
    return top;
}

/* Run rank r at cycle `at` (or earlier if it is already scheduled earlier). */
static void schedule(bl_t *b, int r, double t)
{
    uint64_t at = ceil_cycle(t), now = b->net->sim.now;
    if (at <= now)
        at = now + 1; /* the module may already have run this cycle */
    rank_t *k = &b->rk[r];
    if (k->sched != MF_NEVER && k->sched > now && k->sched <= at)
        return;
    k->sched = at;
    ev_push(b, at, r);
    mf_sim_wake(&b->net->sim, &b->mod, at);
}

/* ---- channels ----------------------------------------------------------- */

static chan_t *chan(bl_t *b, int r, int s)
{
    uint64_t key = ((uint64_t)r << 32 | (uint32_t)s) + 1;
    if (2 * (b->chn + 1) > b->chcap) { /* grow: keep the load below 1/2 */
        size_t cap = b->chcap ? 2 * b->chcap : 256;
        chan_t *nt = calloc(cap, sizeof *nt);
        if (!nt) {
            fail(b, "out of memory");
            return NULL;
        }
        for (size_t i = 0; i < b->chcap; i++) {
            if (!b->ch[i].key)
                continue;
            size_t j = (size_t)(b->ch[i].key * 0x9E3779B97F4A7C15ull) & (cap - 1);
            while (nt[j].key)
                j = (j + 1) & (cap - 1);
            nt[j] = b->ch[i];
        }
        free(b->ch);
        b->ch = nt, b->chcap = cap;
    }
    size_t j = (size_t)(key * 0x9E3779B97F4A7C15ull) & (b->chcap - 1);
    while (b->ch[j].key && b->ch[j].key != key)
        j = (j + 1) & (b->chcap - 1);
    if (!b->ch[j].key) {
        b->ch[j] = (chan_t){.key = key, .rts_at = -1};
        b->chn++;
    }
    return &b->ch[j];
}

static void chan_push(bl_t *b, chan_t *c, double t)
{
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 4;
        double *v = malloc((size_t)cap * sizeof *v);
        if (!v) {
            fail(b, "out of memory");
            return;
        }
        for (int i = 0; i < c->n; i++)
            v[i] = c->done[(c->head + i) % c->cap];
        free(c->done);
        c->done = v, c->head = 0, c->cap = cap;
    }
    c->done[(c->head + c->n++) % c->cap] = t;
}

static double chan_pop(chan_t *c)
{
    if (!c->n)
        return -1;
    double t = c->done[c->head];
    c->head = (c->head + 1) % c->cap;
    c->n--;
    return t;
}

/* ---- NIC ----------------------------------------------------------------- */

/* Queue a message at rank r's NIC, leaving host memory from cycle t. */
static double nic_send(bl_t *b, int r, int dst, int kind, uint64_t bytes, double t)
{
    rank_t *k = &b->rk[r];
    txmsg_t *m = malloc(sizeof *m);
    if (!m) {
        fail(b, "out of memory");
        return t;
    }
    double start = t > k->nic_free ? t : k->nic_free;
    if (start < k->gap_free)
        start = k->gap_free;
    double busy = (double)bytes * b->G;
    *m = (txmsg_t){NULL, dst, kind, bytes, start};
    k->nic_free = start + busy;
    k->gap_free = start + b->gap;
    if (k->txq_tail)
        k->txq_tail->next = m;
    else
        k->txq = m, k->tx_off = 0;
    k->txq_tail = m;
    schedule(b, r, start + b->nic);
    return start + busy; /* the last byte has left host memory */
}

/* Inject the packets of rank r's NIC that are due by `now`. */
static void nic_progress(bl_t *b, int r, uint64_t now)
{
    rank_t *k = &b->rk[r];
    mf_net_t *n = b->net;
    mf_engine_t *e = &n->eng[k->grank];
    while (k->txq) {
        txmsg_t *m = k->txq;
        uint64_t len = m->bytes - k->tx_off < b->mtu ? m->bytes - k->tx_off : b->mtu;
        double head = m->start + b->nic + (double)k->tx_off * b->G;
        if (ceil_cycle(head) > now) {
            schedule(b, r, head);
            return;
        }
        mf_pkt_t *p = mf_pkt_alloc(&n->pool);
        if (!p) {
            fail(b, "out of memory allocating a packet");
            return;
        }
        int last = k->tx_off + len == m->bytes;
        p->h = (mf_net_hdr_t){.dest = (uint16_t)b->rk[m->dst].grank, .opcode = MF_OPC_UNICAST,
                              .tag = (uint8_t)m->kind, .last = (uint8_t)last};
        p->src = (uint16_t)k->grank;
        p->in_port = MF_PORT_NONE;
        p->nphits = (uint16_t)((len + n->phit_bytes - 1) / n->phit_bytes);
        p->len = (uint32_t)len;
        p->born = now;
        p->ready = now;
        double tail = head + (double)len * b->G;
        uint64_t tail_fx = (uint64_t)(tail * MF_FX_ONE);
        p->tail_fx = tail_fx > mf_fx(now) ? tail_fx : mf_fx(now);
        mf_route_compute(e->sw, p);
        mf_pq_push(&e->tx, p);
        mf_switch_wake(e->sw, now);
        k->tx_off += len;
        if (last) {
            k->txq = m->next;
            if (!k->txq)
                k->txq_tail = NULL;
            k->tx_off = 0;
            free(m);
        }
    }
}

/* ---- CPU: MPICH's blocking steps ---------------------------------------- */

static int rendezvous(const bl_t *b, uint64_t bytes) { return bytes > b->h->eager_max_bytes; }

static void send_cts(bl_t *b, int r, int s, double t)
{
    nic_send(b, r, s, PK_CTS, 0, t);
}

/* Post the step's receive and send at the rank's CPU time. */
static void step_begin(bl_t *b, int r)
{
    rank_t *k = &b->rk[r];
    const mf_bl_step_t *st = &k->prog.v[k->pc];
    k->in_step = 1;
    k->send_done = st->send_to >= 0 ? -1 : k->cpu;
    k->recv_done = st->recv_from >= 0 ? -1 : k->cpu;
    k->send_wait = 0;
    k->need_rts = 0;
    if (st->recv_from >= 0 && rendezvous(b, st->recv_bytes)) {
        chan_t *c = chan(b, r, st->recv_from);
        if (c && c->rts_at >= 0) {
            send_cts(b, r, st->recv_from, c->rts_at > k->cpu ? c->rts_at : k->cpu);
            c->rts_at = -1;
        } else {
            k->need_rts = 1;
        }
    }
    if (st->send_to >= 0) {
        k->cpu += b->os;
        if (!rendezvous(b, st->send_bytes))
            k->cpu += (double)st->send_bytes * b->copy; /* into the eager buffer */
        if (rendezvous(b, st->send_bytes)) {
            nic_send(b, r, st->send_to, PK_RTS, 0, k->cpu);
            k->send_wait = 1;
        } else {
            nic_send(b, r, st->send_to, PK_DATA, st->send_bytes, k->cpu);
            k->send_done = k->cpu;
        }
    }
}

/* Match the step's receive against messages already in. */
static void step_match(bl_t *b, int r)
{
    rank_t *k = &b->rk[r];
    const mf_bl_step_t *st = &k->prog.v[k->pc];
    if (k->recv_done >= 0 || st->recv_from < 0)
        return;
    chan_t *c = chan(b, r, st->recv_from);
    if (c)
        k->recv_done = chan_pop(c);
}

static void finish_rank(bl_t *b, int r)
{
    rank_t *k = &b->rk[r];
    k->finished = 1;
    k->end = k->cpu;
    b->left--;
    b->net->pending--;
}

static void cpu_progress(bl_t *b, int r, uint64_t now)
{
    rank_t *k = &b->rk[r];
    while (!k->finished && !b->failed) {
        if (k->pc == k->prog.n) {
            finish_rank(b, r);
            return;
        }
        if (!k->in_step) {
            if (ceil_cycle(k->cpu) > now) {
                schedule(b, r, k->cpu);
                return;
            }
            step_begin(b, r);
        }
        step_match(b, r);
        if (k->send_done < 0 || k->recv_done < 0)
            return; /* an arrival will run the rank again */
        const mf_bl_step_t *st = &k->prog.v[k->pc];
        double t = k->cpu;
        if (k->send_done > t)
            t = k->send_done;
        if (k->recv_done > t)
            t = k->recv_done;
        if (st->recv_from >= 0)
            t += b->orr + (rendezvous(b, st->recv_bytes) ? 0 : (double)st->recv_bytes * b->copy);
        t += (double)st->reduce_bytes * b->red;
        k->cpu = t;
        k->in_step = 0;
        k->pc++;
    }
}

/* ---- packet arrival (the network's unicast ejection hook) ---------------- */

static void on_cts(bl_t *b, int s, double t)
{
    rank_t *k = &b->rk[s];
    const mf_bl_step_t *st = k->in_step ? &k->prog.v[k->pc] : NULL;
    if (!st || !k->send_wait) {
        fail(b, "CTS for a rank not waiting to send");
        return;
    }
    k->send_wait = 0;
    k->send_done = nic_send(b, s, st->send_to, PK_DATA, st->send_bytes, t);
    schedule(b, s, k->send_done);
}

static void on_rts(bl_t *b, int r, int s, double t)
{
    rank_t *k = &b->rk[r];
    const mf_bl_step_t *st = k->in_step ? &k->prog.v[k->pc] : NULL;
    if (st && k->need_rts && st->recv_from == s) {
        k->need_rts = 0;
        send_cts(b, r, s, t);
        return;
    }
    chan_t *c = chan(b, r, s);
    if (c)
        c->rts_at = t;
}

static void on_eject(mf_net_t *n, mf_engine_t *e, mf_pkt_t *p)
{
    bl_t *b = n->eject_ctx;
    int r = b->of_grank[e->grank], s = b->of_grank[p->src];
    if (r < 0 || s < 0) {
        fail(b, "packet for or from a rank outside the communicator");
        return;
    }
    rank_t *k = &b->rk[r];
    uint64_t tail = mf_fx_ceil(p->tail_fx);
    double ejected = (double)(tail > n->sim.now ? tail : n->sim.now);
    double begin = ejected > k->nic_free ? ejected : k->nic_free;
    k->nic_free = begin + (double)p->len * b->G;
    double t = k->nic_free + b->nic; /* in host memory */
    if (!p->h.last)
        return;
    switch (p->h.tag) {
    case PK_DATA: {
        chan_t *c = chan(b, r, s);
        if (c)
            chan_push(b, c, t);
        schedule(b, r, t);
        break;
    }
    case PK_RTS:
        on_rts(b, r, s, t);
        break;
    default:
        on_cts(b, r, t);
        break;
    }
}

/* ---- engine module -------------------------------------------------------- */

static void bl_produce(mf_module_t *m, mf_sim_t *sim)
{
    bl_t *b = (bl_t *)m;
    uint64_t now = sim->now;
    while (b->nev && b->ev[0].at <= now && !b->failed) {
        event_t ev = ev_pop(b);
        rank_t *k = &b->rk[ev.rank];
        if (k->sched == ev.at)
            k->sched = MF_NEVER;
        nic_progress(b, ev.rank, now);
        cpu_progress(b, ev.rank, now);
    }
    if (b->failed) {
        b->net->failed = 1;
        snprintf(b->net->err, sizeof b->net->err, "%s", b->err);
    }
}

static void bl_free(void *p)
{
    bl_t *b = p;
    if (!b)
        return;
    free(b->ev);
    free(b);
}

/* The network's baseline engine, created on first use. */
static bl_t *engine(mf_net_t *n, char *err, size_t len)
{
    if (n->baseline)
        return n->baseline;
    bl_t *b = calloc(1, sizeof *b);
    if (!b || mf_sim_add(&n->sim, &b->mod, NULL, bl_produce)) {
        free(b);
        snprintf(err, len, "out of memory");
        return NULL;
    }
    b->net = n;
    n->baseline = b;
    n->baseline_free = bl_free;
    return b;
}

static int set_costs(bl_t *b, const mf_host_params_t *h, char *err, size_t len)
{
    mf_net_t *n = b->net;
    char why[200];
    if (mf_host_params_check(h, why, sizeof why)) {
        snprintf(err, len, "%s", why);
        return -1;
    }
    uint64_t mtu_phits = (h->mtu_bytes + n->phit_bytes - 1) / n->phit_bytes;
    if (mtu_phits + n->margin > n->vc_cap || mtu_phits > UINT16_MAX) {
        snprintf(err, len,
                 "host set '%s': mtu_bytes = %u (%llu phits) + back-pressure margin %u phits "
                 "exceeds a VC's FIFO (%u phits) of parameter set '%s': lower mtu_bytes",
                 h->name, h->mtu_bytes, (unsigned long long)mtu_phits, n->margin, n->vc_cap,
                 n->p.name);
        return -1;
    }
    b->h = h;
    b->os = cyc(b, h->o_send_ns);
    b->orr = cyc(b, h->o_recv_ns);
    b->gap = cyc(b, h->gap_ns);
    b->G = cyc(b, h->G_ps_per_byte / 1000.0);
    b->red = cyc(b, h->reduce_ps_per_byte / 1000.0);
    b->nic = cyc(b, h->nic_latency_ns);
    b->copy = cyc(b, h->eager_copy_ps_per_byte / 1000.0);
    b->mtu = h->mtu_bytes;
    return 0;
}

void mf_bl_call_from_spec(const mf_coll_spec_t *c, int size, mf_bl_call_t *call,
                          uint64_t *counts_buf)
{
    size_t es = mf_elem_bytes(c->op, c->dtype);
    *call = (mf_bl_call_t){.opc = c->opc, .size = size, .root = c->root, .esize = es,
                           .bytes = mf_osu_hdr_size(c->opc, c->bytes, size, es)};
    if (c->opc == MF_OPC_REDUCE_SCATTER && c->counts && counts_buf) {
        for (int i = 0; i < size; i++)
            counts_buf[i] = c->counts[i];
        call->counts = counts_buf;
    }
}

/* Build every member's program; 0 or -1 with err. */
static int build(bl_t *b, const mf_coll_spec_t *c, int size, const int *members, char *err,
                 size_t len)
{
    mf_net_t *n = b->net;
    uint64_t *cnt = calloc((size_t)size, sizeof *cnt);
    b->rk = calloc((size_t)size, sizeof *b->rk);
    b->complete = calloc((size_t)size, sizeof *b->complete);
    b->of_grank = malloc((size_t)n->nranks * sizeof *b->of_grank);
    if (!cnt || !b->rk || !b->complete || !b->of_grank) {
        free(cnt);
        snprintf(err, len, "out of memory");
        return -1;
    }
    for (int g = 0; g < n->nranks; g++)
        b->of_grank[g] = -1;
    mf_bl_call_t call;
    mf_bl_call_from_spec(c, size, &call, cnt);
    mf_bl_alg_t alg = mf_bl_select(&call);
    int rc = 0;
    for (int i = 0; i < size && rc == 0; i++) {
        if (members[i] < 0 || members[i] >= n->nranks || b->of_grank[members[i]] >= 0) {
            snprintf(err, len, "bad member list: global rank %d", members[i]);
            rc = -1;
            break;
        }
        b->of_grank[members[i]] = i;
        b->rk[i].grank = members[i];
        b->rk[i].sched = MF_NEVER;
        rc = mf_bl_schedule(&call, alg, i, &b->rk[i].prog, err, len);
    }
    free(cnt);
    return rc;
}

static void release(bl_t *b)
{
    for (int i = 0; b->rk && i < b->size; i++) {
        mf_bl_prog_free(&b->rk[i].prog);
        for (txmsg_t *m = b->rk[i].txq, *nx; m; m = nx) {
            nx = m->next;
            free(m);
        }
    }
    for (size_t i = 0; i < b->chcap; i++)
        free(b->ch[i].done);
    free(b->ch);
    free(b->rk);
    free(b->complete);
    free(b->of_grank);
    b->ch = NULL, b->chcap = b->chn = 0;
    b->rk = NULL;
    b->complete = NULL;
    b->of_grank = NULL;
    b->nev = 0;
}

int mf_bl_coll_once(mf_net_t *n, const mf_host_params_t *h, const mf_coll_spec_t *c, int size,
                    const int *members, uint64_t at, uint64_t *lat_cycles, mf_coll_timing_t *t,
                    char *err, size_t len)
{
    bl_t *b = engine(n, err, len);
    int rc = -1;
    if (!b || set_costs(b, h, err, len))
        return -1;
    if (n->on_eject) {
        snprintf(err, len, "the network is running synthetic traffic");
        return -1;
    }
    b->size = size;
    b->failed = 0;
    if (build(b, c, size, members, err, len))
        goto out;
    if (at < n->sim.now) {
        snprintf(err, len, "baseline: start cycle %llu is in the past (now %llu)",
                 (unsigned long long)at, (unsigned long long)n->sim.now);
        goto out;
    }
    n->on_eject = on_eject;
    n->eject_ctx = b;
    b->left = size;
    n->pending += (size_t)size;
    for (int i = 0; i < size; i++) {
        b->rk[i].cpu = (double)at;
        b->rk[i].nic_free = b->rk[i].gap_free = (double)at;
        ev_push(b, at, i);
    }
    mf_sim_wake(&n->sim, &b->mod, at);
    rc = mf_net_run(n, MF_NEVER, err, len);
    n->pending -= (size_t)b->left;
    n->on_eject = NULL;
    n->eject_ctx = NULL;
    if (rc)
        goto out;
    for (int i = 0; i < size; i++)
        b->complete[i] = ceil_cycle(b->rk[i].end);
    mf_coll_timing_fill(n, at, b->complete, size, lat_cycles, t);
out:
    release(b);
    return rc;
}

typedef struct {
    mf_net_t *n;
    const mf_host_params_t *h;
    const mf_coll_spec_t *c;
    int size;
    const int *members;
} loop_ctx_t;

static int once(void *ctx, uint64_t at, uint64_t *lat, mf_coll_timing_t *t, char *err, size_t len)
{
    loop_ctx_t *o = ctx;
    return mf_bl_coll_once(o->n, o->h, o->c, o->size, o->members, at, lat, t, err, len);
}

int mf_bl_coll_loop(mf_net_t *n, const mf_host_params_t *h, const mf_coll_spec_t *c, int size,
                    const int *members, int iters, int fast, mf_coll_timing_t *t, int *simulated,
                    char *err, size_t len)
{
    loop_ctx_t o = {n, h, c, size, members};
    return mf_iter_loop(n, size, iters, fast, once, &o, t, simulated, err, len);
}
