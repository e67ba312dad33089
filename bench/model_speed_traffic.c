/* bench/model_speed (a): router speed under synthetic traffic (model_speed.h). */
#include "model_speed.h"

/* ------------------------------------------------------------------------
 * (a) Router speed under synthetic traffic.
 * ------------------------------------------------------------------------ */

typedef struct {
    int k;             /* torus k x k x k */
    unsigned flits;    /* packet size */
    double rate;
    uint64_t warmup, measure, drain;
    mf_traffic_result_t r;
    double cpu_s; /* CPU seconds of the mf_traffic_run call */
} trun_t;

/* One traffic run on a fresh network (mf_traffic_run: one run per network). */
static int traffic_once(trun_t *x)
{
    char err[256];
    net_t w;
    if (net_open(&w, x->k, err, sizeof err)) {
        fprintf(stderr, "model_speed: torus %d^3: %s\n", x->k, err);
        return -1;
    }
    mf_traffic_cfg_t cfg = {.pattern = MF_TR_UNIFORM, .rate = x->rate, .pkt_phits = x->flits,
                            .warmup = x->warmup, .measure = x->measure,
                            .drain_limit = x->drain, .seed = w.p.seed};
    double c0 = cpu_s();
    int rc = mf_traffic_run(w.n, &cfg, &x->r, err, sizeof err);
    x->cpu_s = cpu_s() - c0;
    if (rc)
        fprintf(stderr, "model_speed: traffic %d^3 rate %.3f: %s\n", x->k, x->rate, err);
    net_close(&w);
    return rc;
}

/* Warm-up: several (5, --quick 3) zero-load latencies (link latency x
 * (average hops + 1)), so that the measurement window starts in steady
 * state. */
int g_quick;

static uint64_t warmup_cycles(int k)
{
    mf_params_t p;
    char err[128];
    if (mf_params_load(PARAMS, &p, err, sizeof err))
        return 4000;
    uint64_t lat = mf_params_ns_to_cycles(&p, p.link_latency_ns);
    return (g_quick ? 3 : 5) * lat * (uint64_t)(3 * k / 4 + 1);
}

static int accepted_ok(const mf_traffic_result_t *r)
{
    return !r->saturated && r->accepted >= 0.95 * r->offered;
}

/* Highest rate on the coarse grid 0.3, 0.4, ... 1.0 (then 1.2 ... 2.0 if
 * the packets allow more than one flit per cycle and 1.0 still passes) whose
 * accepted throughput is >= 95 % of offered and whose measured packets
 * drain, refined by one half step.  Below 0.3: 0.25, 0.2, ... 0.05.
 * The run at the returned rate is left in *best. */
static int find_saturation(int k, unsigned flits, const opts_t *o, trun_t *best, char *log,
                           size_t loglen)
{
    double grid[32];
    int ng = 0;
    double maxrate = flits > 1 ? 2.0 : 1.0; /* 1-flit: at most one packet per cycle */
    for (int i = 3; i <= 10; i++)
        grid[ng++] = i / 10.0;
    for (double r = 1.2; r <= maxrate + 1e-9; r += 0.2)
        grid[ng++] = r;
    uint64_t meas = o->quick ? 1500 : 3000;
    /* drain limit: the latency tail near saturation is several times the
     * average (e.g. 8x8x8, 1 flit, 0.35: avg 773, max 2438 cycles) */
    uint64_t wu = warmup_cycles(k);
    trun_t base = {.k = k, .flits = flits, .warmup = wu, .measure = meas,
                   .drain = meas > 2 * wu ? meas : 2 * wu};
    size_t used = 0;
    int have = 0;
    double pass = 0, fail = 0;
    log[0] = 0;
#define TRY(rate_, ok_)                                                                   \
    do {                                                                                  \
        trun_t x_ = base;                                                                 \
        x_.rate = (rate_);                                                                \
        if (traffic_once(&x_))                                                            \
            return -1;                                                                    \
        (ok_) = accepted_ok(&x_.r);                                                       \
        if (used < loglen)                                                                \
            used += (size_t)snprintf(log + used, loglen - used, " %.2f:%.3f%s", x_.rate,  \
                                     x_.r.accepted, (ok_) ? "" : (x_.r.saturated ? "!d" : "!")); \
        if (ok_) {                                                                        \
            *best = x_;                                                                   \
            have = 1;                                                                     \
        }                                                                                 \
    } while (0)
    int ok;
    for (int i = 0; i < ng; i++) {
        TRY(grid[i], ok);
        if (!ok) {
            fail = grid[i];
            break;
        }
        pass = grid[i];
    }
    if (!have) { /* saturates below the grid: walk down */
        for (double r = 0.25; r > 0.04; r -= 0.05) {
            TRY(r, ok);
            if (ok) {
                pass = r;
                break;
            }
            fail = r;
        }
        if (!have)
            return -1;
    }
    if (fail > 0 && fail - pass > 0.06) { /* one refinement step */
        double mid = (pass + fail) / 2;
        TRY(mid, ok);
    }
#undef TRY
    return 0;
}

/* Measurement cycles so that the whole run (warm-up + window + drain) takes
 * about target_s at the speed seen in the pilot run. */
static uint64_t size_window(const trun_t *pilot, int nsw, double target_s, uint64_t min_meas)
{
    double speed = pilot->r.router_cycles_per_s;
    double total = speed > 0 ? target_s * speed / nsw : 0;
    double drain = 2 * pilot->r.avg_latency_cycles;
    double m = total - (double)pilot->warmup - drain;
    if (m < (double)min_meas)
        m = (double)min_meas;
    return (uint64_t)(m / 100 + 1) * 100;
}

/* One row; the last column is the speed per CPU second (the wall figure
 * divided by the run's CPU share), the one to compare with another
 * simulator measured beside it (bench/booksim_side.py). */
static void print_traffic_row(const trun_t *x, const char *label)
{
    double mrcs = x->r.router_cycles_per_s / 1e6;
    double share = x->r.wall_s > 0 ? x->cpu_s / x->r.wall_s : 1;
    if (share < 0.9)
        g_busy = 1;
    double per_cpu = x->cpu_s > 0 ? (double)x->r.cycles * x->k * x->k * x->k / x->cpu_s / 1e6 : 0;
    printf("%-7s %5u %-9s %6.3f %8.3f%-2s %9.1f %8llu %7.2f %5.0f%% %10.3f %11.3f\n", "",
           x->flits, label, x->rate, x->r.accepted, x->r.saturated ? " !" : "",
           x->r.avg_latency_cycles, (unsigned long long)x->r.cycles, x->r.wall_s, 100 * share,
           mrcs, per_cpu);
}

int bench_traffic(const opts_t *o)
{
    static const int tori[2] = {4, 8};
    static const unsigned flits[2] = {1, 4};
    double target_s = o->quick ? 0.3 : 1.5;
    uint64_t min_meas = o->quick ? 1000 : 2000;
    double t0 = now_s();
    int rc = 0;

    printf("== (a) router speed: uniform random unicast, params %s\n", PARAMS);
    printf("   rate and accepted in flits (phits) per node per cycle; a run is warm-up + "
           "measurement window + drain;\n");
    printf("   router-cycles/s = simulated cycles x switches / wall s (mf_traffic_run), "
           "one fresh network per run;\n");
    printf("   cpu = CPU time / wall time of the run (below ~90%%: the machine was busy, "
           "speeds are low).\n");
    printf("   near saturation: highest rate with accepted >= 95%% of offered that drains, "
           "from a coarse search\n");
    printf("   (short runs; tried rate:accepted, '!' = below 95%%, '!d' = did not drain).\n");
    printf("   Mrcyc/cpu-s = the same per CPU second of the run.  No BookSim2 figures are built\n");
    printf("   in: measure it beside this one with bench/booksim_side.py BOOKSIM (bench/README.md).\n\n");
    printf("%-7s %5s %-9s %6s %10s %9s %8s %7s %6s %10s %11s\n", "torus", "flits", "load",
           "rate", "accepted", "lat(cyc)", "cycles", "wall s", "cpu", "Mrcyc/s", "Mrcyc/cpu-s");
    for (int ti = 0; ti < 2; ti++) {
        int k = tori[ti], nsw = k * k * k;
        printf("%dx%dx%d\n", k, k, k);
        for (int fi = 0; fi < 2; fi++) {
            unsigned f = flits[fi];
            trun_t sat;
            char log[512];
            if (find_saturation(k, f, o, &sat, log, sizeof log)) {
                printf("%-7s %5u saturation search failed:%s\n", "", f, log);
                rc = 1;
                continue;
            }
            static const double rates[2] = {0.05, 0.2};
            for (int ri = 0; ri < 3; ri++) {
                trun_t pilot, x;
                if (ri < 2) {
                    pilot = (trun_t){.k = k, .flits = f, .rate = rates[ri],
                                     .warmup = warmup_cycles(k), .measure = 1000,
                                     .drain = 10000};
                    if (traffic_once(&pilot)) {
                        rc = 1;
                        continue;
                    }
                } else {
                    pilot = sat;
                }
                x = pilot;
                x.measure = size_window(&pilot, nsw, target_s, min_meas);
                x.drain = 10 * x.measure;
                if (traffic_once(&x)) {
                    rc = 1;
                    continue;
                }
                print_traffic_row(&x, ri == 0 ? "0.05" : ri == 1 ? "0.2" : "near-sat");
                fflush(stdout);
            }
            printf("%-7s %5s   search:%s\n", "", "", log);
            fflush(stdout);
        }
    }
    if (g_busy)
        printf("WARNING: some runs got less than 90%% of a CPU core (other load on the "
               "machine): their speeds are underestimated.\n");
    printf("(a) took %.0f s\n\n", now_s() - t0);
    return rc;
}
