/* The baseline's ranks at work (baseline_int.h): LogGP CPUs and NICs
 * running MPICH's blocking steps, and the packets that carry their
 * messages through the modeled network. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/baseline_int.h"

double bl_cyc(const bl_t *b, double ns) { return ns / mf_params_cycle_ns(&b->net->p); }


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

void bl_ev_push(bl_t *b, uint64_t at, int rank)
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

event_t bl_ev_pop(bl_t *b)
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
    bl_ev_push(b, at, r);
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
void bl_nic_progress(bl_t *b, int r, uint64_t now)
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
        p->zero = 1; /* the host's bytes are not carried */
        p->born = now;
        p->ready = now;
        double tail = head + (double)len * b->G;
        uint64_t tail_fx = (uint64_t)(tail * MF_FX_ONE);
        p->tail_fx = tail_fx > mf_fx(now) ? tail_fx : mf_fx(now);
        mf_route_compute(&e->sw->l1, p);
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

void bl_cpu_progress(bl_t *b, int r, uint64_t now)
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

void bl_on_eject(mf_net_t *n, mf_engine_t *e, mf_pkt_t *p)
{
    bl_t *b = n->eject_ctx;
    int r = b->of_grank[e->grank], s = b->of_grank[p->src];
    if (r < 0 || s < 0) {
        fail(b, "packet for or from a rank outside the communicator");
        return;
    }
    rank_t *k = &b->rk[r];
    n->progress_at = n->sim.active_cycles; /* data moved: the watchdog's clock (network.c) */
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
