/* Domain decomposition of a network over K processes; see domain.h. */
#include "net/domain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/domain_int.h"
#include "net/network.h"

mf_dom_msg_t *mf_dom_slot(mf_dom_t *d)
{
    mf_dom_outbox_t *b = &d->box[mf_sim_tid];
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        mf_dom_msg_t *m = realloc(b->m, cap * sizeof *m);
        if (!m) {
            b->oom = 1;
            return NULL;
        }
        b->m = m;
        b->cap = cap;
    }
    return &b->m[b->n++];
}

/* Bytes of a payload of len bytes that the record starting at byte at holds. */
static uint32_t record_bytes(uint32_t len, uint32_t at)
{
    return len - at < MF_DOM_DATA_BYTES ? len - at : MF_DOM_DATA_BYTES;
}

static void send_pkt(void *ctx, uint32_t link, mf_pkt_t *k, uint64_t sent, uint64_t head)
{
    mf_dom_t *d = ctx;
    uint32_t to = (uint32_t)d->sw_dom[d->net->topo->peer_sw[link]];
    mf_dom_msg_t *m = mf_dom_slot(d);
    if (m)
        *m = (mf_dom_msg_t){.kind = MF_DOM_PKT, .to = to, .id = link, .cycle = head,
                            .sent = sent, .h = k->h, .src = k->src, .nphits = k->nphits,
                            .in_vc = k->in_vc, .zero = k->zero, .len = k->len,
                            .tail_fx = k->tail_fx, .born = k->born};
    uint32_t len = k->zero ? 0 : k->len;
    for (uint32_t at = 0, part = 1; at < len; at += MF_DOM_DATA_BYTES, part++) {
        if (!(m = mf_dom_slot(d)))
            break;
        *m = (mf_dom_msg_t){.kind = MF_DOM_PKT, .to = to, .id = link, .state = part,
                            .cycle = head, .sent = sent};
        memcpy(m->data, mf_pkt_data(k) + at, record_bytes(len, at));
    }
    mf_pkt_free(&d->net->pool, k);
}

static void send_stop(void *ctx, uint32_t fifo, uint8_t state, uint64_t cycle)
{
    mf_dom_t *d = ctx;
    const mf_topo_t *t = d->net->topo;
    unsigned vcs = d->net->p.vcs;
    int sw = (int)(fifo / ((unsigned)t->max_ports * vcs));
    int port = (int)(fifo / vcs % (unsigned)t->max_ports);
    mf_dom_msg_t *m = mf_dom_slot(d);
    if (m)
        *m = (mf_dom_msg_t){.kind = MF_DOM_STOP,
                            .to = (uint32_t)d->sw_dom[t->peer_sw[sw * t->max_ports + port]],
                            .id = fifo, .state = state, .cycle = cycle};
}

/* A switch of another domain must never run here. */
static void stray(mf_module_t *m, mf_sim_t *sim)
{
    (void)sim;
    mf_switch_t *s = (mf_switch_t *)m;
    mf_net_t *n = s->net;
    if (!n->failed) {
        n->failed = 1;
        snprintf(n->err, sizeof n->err,
                 "domain %d woke switch %d, which domain %d simulates (a block reached "
                 "across the domain boundary)", n->dom->ops.self, s->id, n->dom->sw_dom[s->id]);
    }
}

int mf_dom_failed_here(const mf_net_t *n) { return n->failed; }

int mf_dom_self(const mf_net_t *n) { return n->dom ? n->dom->ops.self : 0; }

int mf_dom_local(const mf_net_t *n, int sw)
{
    return !n->dom || n->dom->sw_dom[sw] == n->dom->ops.self;
}

uint64_t mf_dom_lookahead(const mf_net_t *n)
{
    /* a jittery link can be as short as a cycle (link.c) */
    if (!n->dom || n->p.link_jitter_sd_ns > 0 || n->link_lat < 2)
        return 1;
    return n->link_lat - 1; /* FIFO stop signals take link_lat too */
}

/* Wire the ports that cross domains, and the copies read here. */
static void wire(mf_net_t *n, mf_dom_t *d)
{
    const mf_topo_t *t = n->topo;
    for (int s = 0; s < n->nsw; s++) {
        mf_l1_t *l = &n->sw[s].l1;
        for (int p = 0; p < l->nports; p++) {
            mf_outport_t *o = &l->out[p];
            int peer = t->peer_sw[s * t->max_ports + p];
            if (!o->connected || d->sw_dom[s] == d->sw_dom[peer])
                continue;
            if (mf_dom_local(n, s)) { /* here -> there: the link hands over, */
                o->remote = &d->port;
                o->remote_id = (uint32_t)(s * t->max_ports + p);
                for (unsigned v = 0; v < l->vcs; v++) /* and the copies read here */
                    mf_l1_peer_fifo(l, p, v)->known_before = &d->known;
            } else if (mf_dom_local(n, peer)) { /* there -> here: stops go back */
                for (unsigned v = 0; v < l->vcs; v++) {
                    mf_fifo_t *f = mf_l1_peer_fifo(l, p, v);
                    f->remote = &d->port;
                    f->remote_id = (uint32_t)((peer * t->max_ports + o->peer_port) * (int)l->vcs) + v;
                }
            }
        }
        if (!mf_dom_local(n, s))
            n->sw[s].mod.consume = n->sw[s].mod.produce = stray;
    }
}

/* splitmix64: the random partition's generator (the same on every domain) */
static uint64_t mix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int mf_dom_partition_parse(const char *spec, mf_dom_partition_t *p, char *err, size_t errlen)
{
    *p = (mf_dom_partition_t){.kind = MF_DOM_RANGE, .seed = 1};
    if (!spec || !*spec || !strcmp(spec, "range"))
        return 0;
    if (!strcmp(spec, "cyclic")) {
        p->kind = MF_DOM_CYCLIC;
        return 0;
    }
    if (!strncmp(spec, "random", 6) && (!spec[6] || spec[6] == ':')) {
        p->kind = MF_DOM_RANDOM;
        if (!spec[6])
            return 0;
        char *end;
        p->seed = strtoull(spec + 7, &end, 10);
        if (spec[7] && spec[7] != '-' && !*end)
            return 0;
    }
    snprintf(err, errlen, "MPIFPGA_PARTITION='%s': expected range, cyclic or random[:SEED]",
             spec);
    return -1;
}

/* Switch s's domain in sw_dom: every k-th switch for cyclic; else domain i
 * gets the switches at positions [nsw i / k, nsw (i + 1) / k) of an order
 * -- the switches' own for range, a shuffle for random. */
static int split(mf_dom_t *d, int nsw, int k, const mf_dom_partition_t *p)
{
    if (p->kind == MF_DOM_CYCLIC) {
        for (int s = 0; s < nsw; s++)
            d->sw_dom[s] = s % k;
        return 0;
    }
    int *order = malloc((size_t)nsw * sizeof *order);
    if (!order)
        return -1;
    for (int s = 0; s < nsw; s++)
        order[s] = s;
    uint64_t x = p->seed;
    if (p->kind == MF_DOM_RANDOM)
        for (int s = nsw - 1; s > 0; s--) { /* Fisher-Yates */
            int j = (int)(mix(&x) % (uint64_t)(s + 1)), t = order[s];
            order[s] = order[j];
            order[j] = t;
        }
    for (int i = 0; i < k; i++)
        for (int s = (int)((int64_t)nsw * i / k); s < (int)((int64_t)nsw * (i + 1) / k); s++)
            d->sw_dom[order[s]] = i;
    free(order);
    return 0;
}

int mf_dom_attach(mf_net_t *n, const mf_dom_ops_t *ops, const mf_dom_partition_t *part,
                  char *err, size_t errlen)
{
    static const mf_dom_partition_t by_range = {.kind = MF_DOM_RANGE};
    if (n->cfg.credit_hop) {
        /* the engines' copies of one another (domain_coll.c) carry credits
         * seen the next cycle only */
        snprintf(err, errlen,
                 "credit_hop_cycles = %u: credits over the path are not modeled on a "
                 "network split among processes; run it in one process (-n 1)",
                 n->cfg.credit_hop);
        return -1;
    }
    mf_dom_t *d = calloc(1, sizeof *d);
    if (!d)
        goto oom;
    d->ops = *ops;
    d->net = n;
    d->port = (mf_remote_port_t){.pkt = send_pkt, .stop = send_stop, .ctx = d};
    if (!(d->sw_dom = malloc((size_t)n->nsw * sizeof *d->sw_dom)) ||
        split(d, n->nsw, ops->ndomains, part ? part : &by_range) ||
        mf_dom_engines_attach(n, d))
        goto oom;
    n->dom = d;
    wire(n, d);
    return 0;
oom:
    if (d) {
        mf_dom_engines_free(d);
        free(d->sw_dom);
    }
    free(d);
    snprintf(err, errlen, "out of memory for the domain");
    return -1;
}

void mf_dom_free(mf_net_t *n)
{
    if (!n->dom)
        return;
    for (int t = 0; t < MF_SIM_MAX_THREADS; t++)
        free(n->dom->box[t].m);
    mf_dom_engines_free(n->dom);
    free(n->dom->sw_dom);
    free(n->dom);
    n->dom = NULL;
}

/* The order things are applied in: per link by departure, a packet
 * before its payload's records in order, per FIFO by cycle, a stop
 * (recorded in a consume) before a resume (in the produce) of the same
 * cycle -- whichever thread recorded them. */
static int by_dest(const void *a, const void *b)
{
    const mf_dom_msg_t *x = a, *y = b;
    int px = x->kind == MF_DOM_PKT, py = y->kind == MF_DOM_PKT;
    uint64_t kx[5] = {x->to, x->kind, x->id, px ? x->sent : x->cycle, px ? x->state : !x->state};
    uint64_t ky[5] = {y->to, y->kind, y->id, py ? y->sent : y->cycle, py ? y->state : !y->state};
    return mf_dom_key_cmp(kx, ky, 5);
}

/* All threads' messages, in by_dest order. */
static int gather_out(mf_dom_t *d, mf_dom_msg_t **out, size_t *nout)
{
    size_t total = 0;
    for (int t = 0; t < MF_SIM_MAX_THREADS; t++) {
        if (d->box[t].oom)
            return -1;
        total += d->box[t].n;
    }
    mf_dom_msg_t *all = malloc((total ? total : 1) * sizeof *all);
    if (!all)
        return -1;
    size_t at = 0;
    for (int t = 0; t < MF_SIM_MAX_THREADS; t++) {
        if (!d->box[t].n)
            continue; /* maybe never allocated */
        memcpy(all + at, d->box[t].m, d->box[t].n * sizeof *all);
        at += d->box[t].n;
        d->box[t].n = 0;
    }
    qsort(all, total, sizeof *all, by_dest);
    *out = all;
    *nout = total;
    return 0;
}

/* The packet in[*i] from another domain, and its payload's records after
 * it (*i is left at the last), onto the copy of its link here.  0, -1 out
 * of memory, -2 a payload record missing or out of order. */
static int take_pkt(mf_net_t *n, const mf_dom_msg_t *in, size_t nin, size_t *i)
{
    const mf_dom_msg_t *m = &in[*i];
    const mf_topo_t *t = n->topo;
    mf_outport_t *o = &n->sw[m->id / (uint32_t)t->max_ports].l1.out[m->id % (uint32_t)t->max_ports];
    uint32_t len = m->zero ? 0 : m->len;
    if (m->state || len > n->pool.payload_cap)
        return -2;
    mf_pkt_t *k = mf_pkt_alloc(&n->pool);
    if (!k)
        return -1;
    k->h = m->h;
    k->src = m->src;
    k->nphits = m->nphits;
    k->in_vc = m->in_vc;
    k->out_vc = m->in_vc;
    k->zero = m->zero;
    k->len = m->len;
    k->tail_fx = m->tail_fx;
    k->born = m->born;
    for (uint32_t at = 0, part = 1; at < len; at += MF_DOM_DATA_BYTES, part++) {
        const mf_dom_msg_t *r = &in[++*i];
        if (*i >= nin || r->kind != MF_DOM_PKT || r->id != m->id || r->sent != m->sent ||
            r->state != part) {
            mf_pkt_free(&n->pool, k);
            return -2;
        }
        memcpy(mf_pkt_data(k) + at, r->data, record_bytes(len, at));
    }
    mf_link_put(&o->link, k, m->cycle);
    mf_l1_arriving(o, m->cycle);
    return 0;
}

static void take_stop(mf_net_t *n, const mf_dom_msg_t *m)
{
    unsigned per_sw = (unsigned)n->topo->max_ports * n->p.vcs;
    mf_l1_t *l = &n->sw[m->id / per_sw].l1;
    mf_fifo_apply_remote(mf_l1_fifo(l, m->id % per_sw), (uint8_t)m->state, m->cycle);
}

/* A failure here stops the run once every domain has learnt it (the
 * caller's reduction): the exchange itself still takes place.  (Set from
 * a switch's phase, on one thread: the first message stays.) */
void mf_dom_fail(mf_net_t *n, const char *msg)
{
    if (!__atomic_exchange_n(&n->failed, 1, __ATOMIC_ACQ_REL)) {
        snprintf(n->err, sizeof n->err, "%s", msg);
    }
}

int mf_dom_exchange(mf_net_t *n, uint64_t end, char *err, size_t errlen)
{
    mf_dom_t *d = n->dom;
    mf_dom_msg_t *out = NULL, *in = NULL;
    size_t nout = 0, nin = 0;
    mf_dom_publish(n, end);
    if (gather_out(d, &out, &nout))
        mf_dom_fail(n, "out of memory for the domain exchange");
    if (d->ops.exchange(d->ops.ctx, out, nout, &in, &nin, err, errlen)) {
        free(out);
        return -1;
    }
    for (size_t i = 0; i < nin && !n->failed; i++) {
        /* what crossed must matter only after the window (the lookahead) */
        uint64_t seen = in[i].cycle + (in[i].kind == MF_DOM_STOP ? n->link_lat : 0);
        if (seen < end)
            mf_dom_fail(n, "something from another domain takes effect inside the window that "
                    "sent it: the lookahead exceeds the link latency (a bug)");
        else if (in[i].kind == MF_DOM_STOP)
            take_stop(n, &in[i]);
        else if (in[i].kind != MF_DOM_PKT) {
            if (mf_dom_take_engine_msg(n, &in[i]))
                mf_dom_fail(n, "out of memory for the copies of another domain's engines");
        } else {
            int rc = take_pkt(n, in, nin, &i);
            if (rc)
                mf_dom_fail(n, rc == -1 ? "out of memory for a packet from another domain"
                                        : "a packet from another domain came without all of "
                                          "its payload (a bug in the exchange)");
        }
    }
    mf_dom_apply_aggs(n);
    d->known = end;
    free(out);
    free(in);
    return 0;
}

uint64_t mf_dom_failed_vote(const mf_net_t *n)
{
    return n->failed ? 1 + (uint64_t)mf_dom_self(n) : 0;
}

int mf_dom_failure(const mf_net_t *n, uint64_t failed, char *err, size_t errlen)
{
    if (n->failed)
        snprintf(err, errlen, "%s", n->err);
    else
        snprintf(err, errlen, "domain %llu of the network failed (its message is above)",
                 (unsigned long long)failed - 1);
    return -1;
}

int mf_dom_reduce(mf_net_t *n, uint64_t *v, const int *op, int nv, char *err, size_t errlen)
{
    return n->dom ? n->dom->ops.reduce(n->dom->ops.ctx, v, op, nv, err, errlen) : 0;
}
