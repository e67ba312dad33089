/* Synthetic traffic generator and measurement (see traffic.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "net/domain.h"
#include "net/network.h"
#include "traffic/traffic.h"

static const char *const names[MF_TR_COUNT] = {"uniform", "transpose", "bitcomp", "neighbor",
                                               "tornado"};

int mf_traffic_parse(const char *s, mf_traffic_pattern_t *p)
{
    static const struct { const char *alias; mf_traffic_pattern_t p; } alias[] = {
        {"uniform", MF_TR_UNIFORM}, {"random", MF_TR_UNIFORM}, {"transpose", MF_TR_TRANSPOSE},
        {"tran", MF_TR_TRANSPOSE}, {"bitcomp", MF_TR_BITCOMP}, {"bc", MF_TR_BITCOMP},
        {"bit-complement", MF_TR_BITCOMP}, {"neighbor", MF_TR_NEIGHBOR},
        {"neighbour", MF_TR_NEIGHBOR}, {"nn", MF_TR_NEIGHBOR}, {"tornado", MF_TR_TORNADO},
        {"torn", MF_TR_TORNADO}};
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (!strcasecmp(s, alias[i].alias)) {
            *p = alias[i].p;
            return 0;
        }
    return -1;
}

const char *mf_traffic_name(mf_traffic_pattern_t p) { return p < MF_TR_COUNT ? names[p] : "?"; }

static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double unif(uint64_t *s) { return ((rnd(s) >> 11) + 0.5) / 9007199254740992.0; }

/* Node index <-> torus coordinates (nodes fill the box in x, y, z order). */
static int torus_dest(const mf_topo_t *t, mf_traffic_pattern_t p, int src, uint64_t *rng)
{
    int c[3], d[3], X = t->dims[0], Y = t->dims[1], Z = t->dims[2];
    mf_torus_coord(t, t->node_sw[src], c);
    memcpy(d, c, sizeof d);
    switch (p) {
    case MF_TR_TRANSPOSE: /* 000 Table 5.1: (x,y,z) -> (z,x,y) */
        d[0] = c[2] % X, d[1] = c[0] % Y, d[2] = c[1] % Z;
        break;
    case MF_TR_BITCOMP:
        d[0] = X - 1 - c[0], d[1] = Y - 1 - c[1], d[2] = Z - 1 - c[2];
        break;
    case MF_TR_TORNADO: /* (x + XSIZE/2 - 1, y, z) */
        d[0] = (c[0] + (X + 1) / 2 - 1) % X;
        break;
    case MF_TR_NEIGHBOR: {
        int dim = (int)(rnd(rng) % 3), dir = rnd(rng) & 1 ? 1 : -1;
        d[dim] = (c[dim] + dir + t->dims[dim]) % t->dims[dim];
        break;
    }
    default:
        break;
    }
    int sw = mf_torus_switch(t, d);
    for (int i = 0; i < t->nnodes; i++) /* node on that switch, if any */
        if (t->node_sw[i] == sw)
            return i;
    return src;
}

static int index_dest(const mf_topo_t *t, mf_traffic_pattern_t p, int src, uint64_t *rng)
{
    int N = t->nnodes;
    switch (p) {
    case MF_TR_TRANSPOSE: { /* swap the two halves of the node index bits */
        int bits = 0;
        while ((1 << bits) < N)
            bits++;
        int h = bits / 2, lo = src & ((1 << h) - 1), hi = src >> h;
        int d = (lo << (bits - h)) | hi;
        return d < N ? d : src;
    }
    case MF_TR_BITCOMP:
        return N - 1 - src;
    case MF_TR_TORNADO:
        return (src + (N + 1) / 2 - 1) % N;
    case MF_TR_NEIGHBOR:
        return (src + (rnd(rng) & 1 ? 1 : N - 1)) % N;
    default:
        return src;
    }
}

int mf_traffic_dest(const mf_topo_t *t, mf_traffic_pattern_t p, int src, uint64_t *rng)
{
    if (p == MF_TR_UNIFORM) {
        if (t->nnodes < 2)
            return src;
        int d = (int)(rnd(rng) % (uint64_t)(t->nnodes - 1));
        return d >= src ? d + 1 : d;
    }
    return t->kind == MF_TOPO_TORUS ? torus_dest(t, p, src, rng) : index_dest(t, p, src, rng);
}

/* The generator is a module of its own: it runs only in cycles in which
 * some node injects (geometric skip-ahead of each node's Bernoulli process). */
typedef struct {
    mf_module_t mod;
    mf_net_t *net;
    const mf_traffic_cfg_t *cfg;
    uint64_t *next;  /* next injection cycle per node */
    uint64_t *rng;
    double p;        /* packets per node per cycle */
    double log_q;    /* log(1 - p), the same in every gap */
    uint64_t stop;   /* no injection from this cycle on */
    int stopped;     /* run over: the module may still be woken once */
    uint64_t win_lo, win_hi;
    uint64_t measured, delivered, win_phits;
    uint64_t last_done; /* cycle the last measured packet was delivered */
    double lat_sum, lat_max;
} gen_t;

static uint64_t gap(gen_t *g, int node)
{
    if (g->p >= 1.0)
        return 1;
    double u = unif(&g->rng[node]);
    return 1 + (uint64_t)floor(log(u) / g->log_q);
}

static void inject(gen_t *g, int node, uint64_t now)
{
    mf_net_t *n = g->net;
    int dst_node = mf_traffic_dest(n->topo, g->cfg->pattern, node, &g->rng[node]);
    if (dst_node == node)
        return; /* e.g. transpose on the diagonal: no traffic */
    mf_pkt_t *k = mf_pkt_alloc(&n->pool);
    if (!k) {
        n->failed = 1;
        strcpy(n->err, "out of memory allocating a packet");
        return;
    }
    int src = node * n->topo->ppn, dst = dst_node * n->topo->ppn;
    k->h = (mf_net_hdr_t){.dest = (uint16_t)dst, .opcode = MF_OPC_UNICAST};
    k->src = (uint16_t)src;
    k->in_port = MF_PORT_NONE;
    k->nphits = (uint16_t)g->cfg->pkt_phits;
    k->len = k->nphits * n->phit_bytes;
    k->zero = 1; /* its payload is not carried (nor sent to another domain) */
    k->born = now;
    k->ready = now + n->stage; /* packet converter */
    k->tail_fx = mf_fx(k->ready) + (uint64_t)k->nphits * MF_FX_ONE / n->p.dma_phits_per_cycle;
    mf_engine_t *e = &n->eng[src];
    mf_route_compute(&e->sw->l1, k);
    mf_pq_push(&e->tx, k);
    mf_switch_wake(e->sw, k->ready);
    if (now >= g->win_lo && now < g->win_hi)
        g->measured++;
}

static void gen_produce(mf_module_t *m, mf_sim_t *sim)
{
    gen_t *g = (gen_t *)m;
    uint64_t now = sim->now, next = MF_NEVER;
    if (g->stopped)
        return;
    for (int i = 0; i < g->net->topo->nnodes; i++) {
        if (g->next[i] == now) {
            inject(g, i, now);
            g->next[i] = now + gap(g, i);
        }
        if (g->next[i] < next)
            next = g->next[i];
    }
    if (next < g->stop)
        mf_sim_wake(sim, m, next);
}

static void on_eject(mf_net_t *n, mf_engine_t *e, mf_pkt_t *k)
{
    gen_t *g = n->eject_ctx;
    uint64_t now = n->sim.now, tail = mf_fx_ceil(k->tail_fx);
    (void)e;
    if (now >= g->win_lo && now < g->win_hi)
        g->win_phits += k->nphits;
    if (k->born >= g->win_lo && k->born < g->win_hi) {
        double lat = (double)((tail > now ? tail : now) - k->born);
        g->delivered++;
        g->last_done = now;
        g->lat_sum += lat;
        if (lat > g->lat_max)
            g->lat_max = lat;
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The window, then until every measured packet is delivered. */
static int run_alone(gen_t *g, char *err, size_t errlen)
{
    mf_net_t *n = g->net;
    while (n->sim.now < g->win_hi || g->delivered < g->measured) {
        if (n->failed || n->sim.now >= g->stop)
            break;
        int st = mf_sim_step(&n->sim);
        if (st < 0) {
            snprintf(err, errlen, "out of memory in the cycle engine");
            return -1;
        }
        if (st == 0)
            break;
    }
    if (n->failed) {
        snprintf(err, errlen, "%s", n->err);
        return -1;
    }
    return 0;
}

/* The figures of every domain, summed (or the largest) on each. */
static int combine(gen_t *g, char *err, size_t errlen)
{
    enum { MEAS, DELIV, PHITS, LSUM, LMAX, DONE, NV };
    static const int op[NV] = {MF_DOM_SUM, MF_DOM_SUM, MF_DOM_SUM, MF_DOM_SUM, MF_DOM_MAX,
                               MF_DOM_MAX};
    /* latencies are whole cycles: their sum is exact as an integer */
    uint64_t v[NV] = {g->measured, g->delivered, g->win_phits, (uint64_t)g->lat_sum,
                      (uint64_t)g->lat_max, g->last_done};
    if (mf_dom_reduce(g->net, v, op, NV, err, errlen))
        return -1;
    g->measured = v[MEAS];
    g->delivered = v[DELIV];
    g->win_phits = v[PHITS];
    g->lat_sum = (double)v[LSUM];
    g->lat_max = (double)v[LMAX];
    g->last_done = v[DONE];
    return 0;
}

/* Windows of the domains' lookahead, each followed by the exchange; the
 * run ends where run_alone's would, at a window's end (a window with
 * nothing to do anywhere is skipped). */
static int run_windows(gen_t *g, char *err, size_t errlen)
{
    mf_net_t *n = g->net;
    enum { NEXT, FAILED, MEAS, DELIV, NV };
    static const int op[NV] = {MF_DOM_MIN, MF_DOM_MAX, MF_DOM_SUM, MF_DOM_SUM};
    uint64_t lookahead = mf_dom_lookahead(n);
    for (uint64_t t = n->sim.now;;) {
        uint64_t end = t + lookahead < g->stop ? t + lookahead : g->stop;
        while (!n->failed && mf_sim_next(&n->sim) < end)
            if (mf_sim_step(&n->sim) < 0) /* the others learn it below */
                mf_dom_fail(n, "out of memory in the cycle engine");
        /* every domain takes part in every exchange, failed or not */
        if (mf_dom_exchange(n, end, err, errlen))
            return -1; /* the exchange's own failure: it stops the job */
        uint64_t v[NV] = {mf_sim_next(&n->sim), mf_dom_failed_vote(n), g->measured, g->delivered};
        if (mf_dom_reduce(n, v, op, NV, err, errlen))
            return -1;
        if (v[FAILED])
            return mf_dom_failure(n, v[FAILED], err, errlen);
        if ((end >= g->win_hi && v[DELIV] >= v[MEAS]) || end >= g->stop || v[NEXT] == MF_NEVER)
            break;
        t = v[NEXT] > end ? v[NEXT] : end;
    }
    return combine(g, err, errlen);
}

int mf_traffic_run(mf_net_t *n, const mf_traffic_cfg_t *cfg, mf_traffic_result_t *res,
                   char *err, size_t errlen)
{
    int N = n->topo->nnodes, rc = -1;
    if (cfg->rate <= 0 || cfg->pkt_phits < 1 || cfg->pkt_phits > n->p.net_pkt_phits) {
        snprintf(err, errlen, "traffic needs rate > 0 and 1 <= packet phits <= %u",
                 n->p.net_pkt_phits);
        return -1;
    }
    if (cfg->rate > cfg->pkt_phits) {
        snprintf(err, errlen,
                 "rate %.3g exceeds one %u-phit packet per node per cycle (the converter's limit)",
                 cfg->rate, cfg->pkt_phits);
        return -1;
    }
    if (n->traffic_owned) {
        snprintf(err, errlen, "one traffic run per network: create a new one");
        return -1;
    }
    /* owned by the network: the cycle engine keeps a pointer to the module */
    gen_t *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    n->traffic_owned = g;
    *g = (gen_t){.net = n, .cfg = cfg, .p = cfg->rate / cfg->pkt_phits};
    g->log_q = log(1.0 - g->p);
    g->next = calloc((size_t)N, sizeof *g->next);
    g->rng = calloc((size_t)N, sizeof *g->rng);
    if (!g->next || !g->rng || mf_sim_add(&n->sim, &g->mod, NULL, gen_produce)) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    uint64_t t0 = n->sim.now;
    g->win_lo = t0 + cfg->warmup;
    g->win_hi = g->win_lo + cfg->measure;
    g->stop = g->win_hi + cfg->drain_limit;
    n->eject_ctx = g;
    n->on_eject = on_eject;
    uint64_t first = MF_NEVER;
    for (int i = 0; i < N; i++) {
        g->rng[i] = cfg->seed * 1000003u + (uint64_t)i;
        /* a node of another domain injects there */
        g->next[i] = mf_dom_local(n, n->topo->node_sw[i]) ? t0 + gap(g, i) - 1 : MF_NEVER;
        if (g->next[i] < first)
            first = g->next[i];
    }
    if (first != MF_NEVER)
        mf_sim_wake(&n->sim, &g->mod, first);
    double w0 = now_s();
    if (n->dom ? run_windows(g, err, errlen) : run_alone(g, err, errlen))
        goto out;
    double wall = now_s() - w0;
    /* the cycle the result was settled by: the last measured delivery, or
     * the window's end; the drain limit when they did not all arrive (the
     * same for any split into domains) */
    int saturated = g->delivered < g->measured;
    uint64_t cycles = (saturated ? g->stop : g->last_done > g->win_hi ? g->last_done : g->win_hi) - t0;
    *res = (mf_traffic_result_t){
        .measured_pkts = g->measured, .delivered_pkts = g->delivered,
        .avg_latency_cycles = g->delivered ? g->lat_sum / g->delivered : 0,
        .max_latency_cycles = g->lat_max,
        .offered = cfg->rate,
        .accepted = (double)g->win_phits / ((double)N * (double)cfg->measure),
        .saturated = saturated, .cycles = cycles, .wall_s = wall,
        .router_cycles_per_s = wall > 0 ? (double)cycles * n->nsw / wall : 0};
    rc = 0;
out:
    /* stop generating; packets still in flight are freed with the network */
    g->stopped = 1;
    n->on_eject = NULL;
    n->eject_ctx = NULL;
    free(g->next);
    free(g->rng);
    return rc;

}
