/*
 * A network split into domains (net/domain.h) without MPI: K copies of one
 * network in one process, a thread each, handing over what crosses through
 * memory (a barrier per exchange and per reduction), must give every
 * figure of the unsplit network's synthetic-traffic run -- on every
 * domain, since each ends with the combined figures.  Under the sanitizer
 * build (check-unit) and ThreadSanitizer (check-threads) this is what runs
 * net/domain.c; test/sim_domains.sh runs it under mpiexec.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dom_hub.h"
#include "net/domain.h"
#include "net/network.h"
#include "net/topo.h"
#include "params/params.h"
#include "tap.h"
#include "traffic/traffic.h"

#define MAXK HUB_MAXK

typedef struct {
    hub_member_t m; /* first: the ops' ctx */
    const mf_params_t *p;
    const mf_topo_t *t;
    mf_traffic_cfg_t cfg;
    mf_traffic_result_t res;
    int rc;
    char err[256];
} dom_t;

static void *run_domain(void *arg)
{
    dom_t *d = arg;
    mf_net_t *n = mf_net_create(d->p, d->t, d->err, sizeof d->err);
    d->rc = -1;
    if (!n)
        abort(); /* the others would wait at the barrier */
    mf_dom_ops_t ops = hub_ops(&d->m);
    if (d->m.hub->k > 1 && mf_dom_attach(n, &ops, &d->m.hub->part, d->err, sizeof d->err))
        abort();
    d->rc = mf_traffic_run(n, &d->cfg, &d->res, d->err, sizeof d->err);
    mf_net_destroy(n);
    return NULL;
}

static int same(const mf_traffic_result_t *a, const mf_traffic_result_t *b)
{
    return a->measured_pkts == b->measured_pkts && a->delivered_pkts == b->delivered_pkts &&
           a->avg_latency_cycles == b->avg_latency_cycles &&
           a->max_latency_cycles == b->max_latency_cycles && a->accepted == b->accepted &&
           a->saturated == b->saturated && a->cycles == b->cycles;
}

/* K domains (1: the unsplit network) of topo under params, split as
 * partition says (MPIFPGA_PARTITION's values); 0 or -1. */
static int run_split(const char *params, const char *topo, const char *pattern, double rate,
                     int k, const char *partition, mf_traffic_result_t *res, size_t *crossed)
{
    mf_params_t p;
    mf_topo_spec_t spec = {.kind = MF_TOPO_TORUS};
    mf_topo_t t;
    char err[256];
    hub_t hub;
    if (mf_params_load(params, &p, err, sizeof err) || mf_topo_parse(topo, &spec, err, sizeof err) ||
        hub_init(&hub, k, partition, err, sizeof err)) {
        diag("%s", err);
        return -1;
    }
    int nodes = spec.kind == MF_TOPO_TORUS ? spec.x * spec.y * spec.z : 8;
    spec.oversub = spec.oversub ? spec.oversub : (int)p.oversub;
    if (mf_topo_build(&spec, nodes, 1, &t, err, sizeof err)) {
        hub_fini(&hub);
        return -1;
    }
    dom_t d[MAXK];
    pthread_t th[MAXK];
    mf_traffic_cfg_t cfg = {.rate = rate, .pkt_phits = 1, .warmup = 600, .measure = 1500,
                            .drain_limit = 15000, .seed = p.seed};
    mf_traffic_parse(pattern, &cfg.pattern);
    for (int i = 0; i < k; i++) {
        d[i] = (dom_t){.m = {&hub, i}, .p = &p, .t = &t, .cfg = cfg};
        pthread_create(&th[i], NULL, run_domain, &d[i]);
    }
    int rc = 0;
    for (int i = 0; i < k; i++) {
        pthread_join(th[i], NULL);
        if (d[i].rc) {
            diag("domain %d of %d: %s", i, k, d[i].err);
            rc = -1;
        } else if (i && !same(&d[i].res, &d[0].res)) {
            diag("domain %d of %d ends with other figures than domain 0", i, k);
            rc = -1;
        }
    }
    *res = d[0].res;
    *crossed = hub.exchanged;
    hub_fini(&hub);
    mf_topo_free(&t);
    return rc;
}

/* The partitions are what they say: cyclic makes more cross than range,
 * and the specs the parser takes or refuses. */
static void partitions(void)
{
    mf_traffic_result_t r;
    size_t by_range = 0, by_cycle = 0, by_shuffle = 0;
    int rc = run_split("u280", "torus:4x4x4", "uniform", 0.3, 2, "range", &r, &by_range) |
             run_split("u280", "torus:4x4x4", "uniform", 0.3, 2, "cyclic", &r, &by_cycle) |
             run_split("u280", "torus:4x4x4", "uniform", 0.3, 2, "random:3", &r, &by_shuffle);
    /* of a 4x4x4 torus's 384 links, range (two slabs of z) cuts 64, cyclic
     * every X link (128), a shuffle about half (192) */
    ok(!rc && by_range > 0 && 2 * by_cycle > 3 * by_range && by_shuffle > 2 * by_range,
       "the partitions differ: %zu messages crossed with range, %zu cyclic, %zu random:3",
       by_range, by_cycle, by_shuffle);
    static const char *good[] = {"", "range", "cyclic", "random", "random:0", "random:42"};
    static const char *bad[] = {"ranges", "cyclic:2", "random:", "random:-1", "random:x",
                                "random3", "Range"};
    mf_dom_partition_t p;
    char err[160];
    int n_ok = 0, n_refused = 0;
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        n_ok += mf_dom_partition_parse(good[i], &p, err, sizeof err) == 0;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        n_refused += mf_dom_partition_parse(bad[i], &p, err, sizeof err) == -1 &&
                     strstr(err, "MPIFPGA_PARTITION") && strstr(err, bad[i]);
    ok(n_ok == 6 && n_refused == 7 && !mf_dom_partition_parse("random:42", &p, err, sizeof err) &&
           p.kind == MF_DOM_RANDOM && p.seed == 42,
       "MPIFPGA_PARTITION: %d of 6 specs taken, %d of 7 refused with a message naming them",
       n_ok, n_refused);
}

int main(void)
{
    static const struct {
        const char *params, *topo, *pattern;
        double rate;
        int k, threads; /* threads per domain, every phase shared */
        const char *partition; /* NULL: switch number ranges */
    } cases[] = {
        {"u280", "torus:4x4x2", "transpose", 0.6, 2, 1, NULL}, /* saturated: FIFOs stop across */
        {"u280", "torus:4x4x2", "transpose", 0.6, 4, 1, NULL},
        {"u280", "torus:4x4x4", "uniform", 0.3, 3, 1, NULL},
        {"u280", "fattree:8", "uniform", 0.3, 2, 1, NULL},
        /* jittery links: windows of a cycle */
        {"novog", "torus:3x3x3", "neighbor", 0.5, 2, 1, NULL},
        {"u280", "torus:2x1x1", "uniform", 0.3, 3, 1, NULL},   /* a domain without switches */
        /* what a domain's threads hand over arrives in a different order
         * than it was made: the exchange sorts it */
        {"u280", "torus:4x4x2", "transpose", 0.6, 2, 3, NULL},
        {"u280", "torus:4x4x4", "uniform", 0.85, 2, 3, NULL},
        /* any partition: every link crossing, shuffles */
        {"u280", "torus:4x4x2", "transpose", 0.6, 3, 1, "cyclic"},
        {"u280", "torus:4x4x4", "uniform", 0.85, 2, 1, "random:5"},
        {"u280", "fattree:8", "uniform", 0.3, 4, 1, "random"},
        {"novog", "torus:3x3x3", "neighbor", 0.5, 2, 1, "cyclic"},
        {"u280", "torus:4x4x2", "transpose", 0.6, 2, 3, "random:11"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mf_traffic_result_t whole, split;
        size_t crossed = 0, none = 0;
        char threads[16];
        snprintf(threads, sizeof threads, "%d", cases[i].threads);
        setenv("MPIFPGA_THREADS", threads, 1); /* read by mf_net_create */
        if (cases[i].threads > 1)
            setenv("MPIFPGA_SIM_SHARE_ALL", "1", 1);
        else
            unsetenv("MPIFPGA_SIM_SHARE_ALL");
        const char *part = cases[i].partition;
        int rc1 = run_split(cases[i].params, cases[i].topo, cases[i].pattern, cases[i].rate, 1,
                            NULL, &whole, &none);
        int rck = run_split(cases[i].params, cases[i].topo, cases[i].pattern, cases[i].rate,
                            cases[i].k, part, &split, &crossed);
        ok(!rc1 && !rck && whole.delivered_pkts > 0 && crossed > 0 && same(&whole, &split),
           "%s %s at %.2f (%s), %d domains (%s) of %d thread%s: the unsplit network's figures "
           "(%llu packets, %zu messages crossed)",
           cases[i].topo, cases[i].pattern, cases[i].rate, cases[i].params, cases[i].k,
           part ? part : "range", cases[i].threads, cases[i].threads > 1 ? "s" : "",
           (unsigned long long)whole.delivered_pkts, crossed);
        if (!same(&whole, &split))
            diag("whole: %.4f accepted, %.2f latency, %llu cycles; split: %.4f, %.2f, %llu",
                 whole.accepted, whole.avg_latency_cycles, (unsigned long long)whole.cycles,
                 split.accepted, split.avg_latency_cycles, (unsigned long long)split.cycles);
    }
    partitions();
    return tap_done();
}
