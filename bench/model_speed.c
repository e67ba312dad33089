/*
 * bench/model_speed: how fast and how big the cycle-level switch model is.
 * Not a test: it prints figures and exits 0 unless something failed to run.
 * See bench/README.md.
 *
 *   (a) router speed: simulated router-cycles per wall-second, uniform random
 *       unicast traffic (fpga_model/traffic) on 4x4x4 and 8x8x8 tori, 1- and
 *       4-flit packets, at 0.05, 0.2 and near saturation (found by a coarse
 *       search), compared with BookSim2 where its figure is known;
 *   (b) one 1 MiB Allreduce (double, sum, all ranks, timing only) on 4x4x4,
 *       8x8x8 and 16x16x16 tori: wall time, peak RSS and the model's own
 *       peak packet / stream-buffer figures, each size in a fresh process.
 *
 *   model_speed [--quick] [--only traffic|allreduce] [--allreduce-limit SECONDS]
 *               [--allreduce-mem-limit GIB]
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "coll/run.h"
#include "mpifpga/model.h"
#include "net/topo.h"
#include "params/params.h"
#include "traffic/traffic.h"

#define PARAMS "u280"

typedef struct {
    int quick;
    int traffic, allreduce;
    unsigned limit_s; /* per-size wall limit of the allreduce children */
    double mem_gib;   /* per-size address-space limit (RLIMIT_AS), 0 = none */
} opts_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process: wall time much above it means the machine was
 * busy with something else and the speeds are too low. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int g_busy; /* some run got < 90 % of a core */

/* ------------------------------------------------------------------------
 * A network built the way mpifpga-sim's setup() builds it.
 * ------------------------------------------------------------------------ */
typedef struct {
    mf_params_t p;
    mf_topo_t t;
    mf_net_t *n;
} net_t;

static int net_open(net_t *w, int k, char *err, size_t len)
{
    char topo[64];
    mf_topo_spec_t spec = {.kind = MF_TOPO_TORUS};
    memset(w, 0, sizeof *w);
    snprintf(topo, sizeof topo, "torus:%dx%dx%d", k, k, k);
    if (mf_params_load(PARAMS, &w->p, err, len) || mf_topo_parse(topo, &spec, err, len))
        return -1;
    spec.oversub = spec.oversub ? spec.oversub : (int)w->p.oversub;
    if (mf_topo_build(&spec, k * k * k, 1, &w->t, err, len))
        return -1;
    w->n = mf_net_create(&w->p, &w->t, err, len);
    if (!w->n) {
        mf_topo_free(&w->t);
        return -1;
    }
    return 0;
}

static void net_close(net_t *w)
{
    mf_net_destroy(w->n);
    mf_topo_free(&w->t);
    w->n = NULL;
}

/* ------------------------------------------------------------------------
 * (a) Router speed under synthetic traffic.
 * ------------------------------------------------------------------------ */

/* BookSim2 (iq router, 2 VCs x 8 flits, DOR), 4x4x4 torus, 1-flit packets,
 * uniform random: million router-cycles/s on this machine (issue #2). */
static const double booksim_mrcs[3] = {0.77, 0.35, 0.17};

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
static int g_quick;

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

static void print_traffic_row(const trun_t *x, const char *label, int bs_idx)
{
    char ref[32] = "-", ratio[32] = "-";
    double mrcs = x->r.router_cycles_per_s / 1e6;
    double share = x->r.wall_s > 0 ? x->cpu_s / x->r.wall_s : 1;
    if (share < 0.9)
        g_busy = 1;
    if (bs_idx >= 0) {
        snprintf(ref, sizeof ref, "%.2f", booksim_mrcs[bs_idx]);
        snprintf(ratio, sizeof ratio, "%.1fx", mrcs / booksim_mrcs[bs_idx]);
    }
    printf("%-7s %5u %-9s %6.3f %8.3f%-2s %9.1f %8llu %7.2f %5.0f%% %10.3f %9s %7s\n", "",
           x->flits, label, x->rate, x->r.accepted, x->r.saturated ? " !" : "",
           x->r.avg_latency_cycles, (unsigned long long)x->r.cycles, x->r.wall_s, 100 * share,
           mrcs, ref, ratio);
}

static int bench_traffic(const opts_t *o)
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
    printf("   BookSim2 reference (issue #2): iq router, 2 VCs x 8 flits, DOR, 4x4x4 torus, "
           "1-flit packets:\n");
    printf("   %.2f / %.2f / %.2f M router-cycles/s at 0.05 / 0.2 / near saturation "
           "(its own saturation point); target >= 5x.\n\n",
           booksim_mrcs[0], booksim_mrcs[1], booksim_mrcs[2]);
    printf("%-7s %5s %-9s %6s %10s %9s %8s %7s %6s %10s %9s %7s\n", "torus", "flits", "load",
           "rate", "accepted", "lat(cyc)", "cycles", "wall s", "cpu", "Mrcyc/s", "BookSim2",
           "ratio");
    for (int ti = 0; ti < 2; ti++) {
        int k = tori[ti], nsw = k * k * k;
        printf("%dx%dx%d\n", k, k, k);
        for (int fi = 0; fi < 2; fi++) {
            unsigned f = flits[fi];
            int bs = (k == 4 && f == 1);
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
                print_traffic_row(&x, ri == 0 ? "0.05" : ri == 1 ? "0.2" : "near-sat",
                                  bs ? ri : -1);
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

/* ------------------------------------------------------------------------
 * (b) One 1 MiB Allreduce per torus size, each in a fresh process.
 * ------------------------------------------------------------------------ */
typedef struct {
    int status;           /* 0 ok, -1 failed (msg) */
    int k, ranks, nsw;
    double build_s, run_s;
    double avg_us, max_us;
    uint64_t max_cycles, sim_cycles;
    uint64_t peak_pkts, peak_stream_bytes;
    long maxrss_kb;
    double cpu_s; /* user + system seconds of the child (wait4) */
    char msg[320];
} ares_t;

static volatile sig_atomic_t g_result_fd = -1;
static mf_net_t *volatile g_net;

/* Time limit hit in the child: say how far the simulation got. */
static void on_alarm(int sig)
{
    (void)sig;
    ares_t r = {.status = -2};
    if (g_net)
        r.sim_cycles = mf_net_now(g_net);
    if (g_result_fd >= 0) {
        ssize_t w = write(g_result_fd, &r, sizeof r);
        (void)w;
    }
    _exit(3);
}

static void allreduce_child(int k, int fd, unsigned limit_s, double mem_gib)
{
    ares_t r = {.k = k};
    char err[256];
    net_t w;
    g_result_fd = fd;
    if (mem_gib > 0) { /* fail with "out of memory" rather than hurt the machine */
        struct rlimit rl;
        rl.rlim_cur = rl.rlim_max = (rlim_t)(mem_gib * 1073741824.0);
        setrlimit(RLIMIT_AS, &rl);
    }
    signal(SIGALRM, on_alarm);
    if (limit_s)
        alarm(limit_s);
    double t0 = now_s();
    if (net_open(&w, k, err, sizeof err)) {
        r.status = -1;
        snprintf(r.msg, sizeof r.msg, "%s", err);
        goto out;
    }
    g_net = w.n;
    int P = mf_net_nranks(w.n);
    int *members = malloc((size_t)P * sizeof *members);
    for (int i = 0; i < P; i++)
        members[i] = i;
    r.ranks = P;
    r.nsw = w.t.nswitches;
    mf_coll_spec_t spec = {.opc = MF_OPC_ALLREDUCE, .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE,
                           .root = 0, .ctx = 0, .bytes = 1u << 20};
    mf_coll_timing_t t;
    if (mf_comm_setup(w.n, 0, P, members, err, sizeof err)) {
        r.status = -1;
        snprintf(r.msg, sizeof r.msg, "comm setup: %s", err);
        goto close;
    }
    double t1 = now_s();
    r.build_s = t1 - t0;
    if (mf_coll_once(w.n, &spec, P, members, NULL, NULL, mf_net_now(w.n), NULL, &t, err,
                     sizeof err)) {
        r.status = -1;
        snprintf(r.msg, sizeof r.msg, "allreduce: %s", err);
        goto close;
    }
    r.run_s = now_s() - t1;
    alarm(0);
    mf_net_stats_t st;
    mf_net_stats(w.n, &st);
    r.avg_us = t.avg_us;
    r.max_us = t.max_us;
    r.max_cycles = t.max_cycles;
    r.sim_cycles = st.cycles;
    r.peak_pkts = st.peak_pkts;
    r.peak_stream_bytes = st.peak_stream_bytes;
close:
    alarm(0);
    g_net = NULL;
    free(members);
    net_close(&w);
out:;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    r.maxrss_kb = ru.ru_maxrss;
    ssize_t wr = write(fd, &r, sizeof r);
    _exit(wr == (ssize_t)sizeof r ? 0 : 1);
}

/* Run one size in a child; the parent of the children is the small launcher
 * process forked at start-up, so each child's ru_maxrss is its own. */
static int allreduce_one(int k, unsigned limit_s, double mem_gib, ares_t *r)
{
    int pfd[2];
    if (pipe(pfd))
        return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(pfd[0]);
        allreduce_child(k, pfd[1], limit_s, mem_gib);
    }
    close(pfd[1]);
    memset(r, 0, sizeof *r);
    double t0 = now_s();
    ssize_t got = 0;
    while (got < (ssize_t)sizeof *r) {
        ssize_t m = read(pfd[0], (char *)r + got, sizeof *r - (size_t)got);
        if (m < 0 && errno == EINTR)
            continue;
        if (m <= 0)
            break;
        got += m;
    }
    close(pfd[0]);
    int st;
    struct rusage ru;
    while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
        ;
    double wall = now_s() - t0;
    if (got != (ssize_t)sizeof *r) {
        memset(r, 0, sizeof *r);
        r->status = -1;
        if (WIFSIGNALED(st))
            snprintf(r->msg, sizeof r->msg, "child killed by signal %d after %.0f s%s",
                     WTERMSIG(st), wall, WTERMSIG(st) == SIGKILL ? " (out of memory?)" : "");
        else
            snprintf(r->msg, sizeof r->msg, "child exited with status %d after %.0f s",
                     WIFEXITED(st) ? WEXITSTATUS(st) : -1, wall);
    }
    r->k = k;
    if (r->status == -2) {
        snprintf(r->msg, sizeof r->msg,
                 "not finished after %u s (--allreduce-limit): simulated %llu cycles so far",
                 limit_s, (unsigned long long)r->sim_cycles);
        r->run_s = wall;
    }
    if (!r->maxrss_kb || r->status)
        r->maxrss_kb = ru.ru_maxrss; /* wait4: the child's high-water mark */
    r->cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
               (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
    return 0;
}

static int bench_allreduce(const opts_t *o)
{
    int sizes[3] = {4, 8, 16}, nsizes = o->quick ? 2 : 3, rc = 0;
    double t0 = now_s();
    printf("== (b) one 1 MiB Allreduce (double, sum), all ranks, timing only (NULL buffers), "
           "params %s\n", PARAMS);
    printf("   each size in a fresh child process: wall = network build + simulation, "
           "peak RSS = child's ru_maxrss;\n");
    printf("   peak pkts / peak stream = mf_net_stats peak_pkts / peak_stream_bytes; "
           "per-size limits: %u s wall, %.1f GiB address space (RLIMIT_AS).\n",
           o->limit_s, o->mem_gib);
    printf("   targets (issue #2): 16x16x16 in <= 120 s wall and <= 2 GiB (2048 MiB) peak "
           "RSS.\n");
    printf("   cpu s = the child's user + system time; Mrcyc/s = simulated cycles x switches / "
           "simulation wall s.\n\n");
    printf("%-9s %6s %9s %9s %9s %7s %8s %8s %8s %8s %10s %10s  %s\n", "torus", "ranks",
           "lat(us)", "max(us)", "cycles", "build s", "wall s", "cpu s", "Mrcyc/s", "RSS MiB",
           "peak pkts", "stream KiB", "target");
    for (int i = 0; i < nsizes; i++) {
        int k = sizes[i];
        ares_t r;
        char name[32], target[64] = "-";
        snprintf(name, sizeof name, "%dx%dx%d", k, k, k);
        if (allreduce_one(k, o->limit_s, o->mem_gib, &r)) {
            printf("%-9s fork failed: %s\n", name, strerror(errno));
            rc = 1;
            continue;
        }
        double wall = r.build_s + r.run_s, mib = r.maxrss_kb / 1024.0;
        if (k == 16) {
            /* a stopped run missed the time target if the limit was >= 120 s, and
             * the memory target if it was already above 2 GiB */
            const char *tt = r.status == 0 ? (wall <= 120 ? "MET" : "MISSED")
                             : r.status == -2 && o->limit_s >= 120 ? "MISSED"
                                                                   : "UNKNOWN";
            const char *mt = mib > 2048 ? "MISSED" : r.status == 0 ? "MET" : "UNKNOWN";
            snprintf(target, sizeof target, "<= 120 s %s, <= 2048 MiB %s", tt, mt);
        }
        if (r.status) {
            printf("%-9s %6d %s; cpu %.0f s, peak RSS %.0f MiB  %s\n", name, k * k * k, r.msg,
                   r.cpu_s, mib, target);
            if (r.status == -1)
                rc = 1;
        } else {
            double mrcs = r.run_s > 0 ? (double)r.sim_cycles * r.nsw / r.run_s / 1e6 : 0;
            printf("%-9s %6d %9.2f %9.2f %9llu %7.2f %8.2f %8.2f %8.3f %8.0f %10llu %10.1f  %s\n",
                   name, r.ranks, r.avg_us, r.max_us, (unsigned long long)r.max_cycles,
                   r.build_s, wall, r.cpu_s, mrcs, mib, (unsigned long long)r.peak_pkts,
                   r.peak_stream_bytes / 1024.0, target);
        }
        fflush(stdout);
    }
    printf("(b) took %.0f s\n", now_s() - t0);
    return rc;
}

/* ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f, "usage: model_speed [--quick] [--only traffic|allreduce] "
               "[--allreduce-limit SECONDS]\n"
               "  --quick            short traffic runs; allreduce on 4x4x4 and 8x8x8 only\n"
               "  --only WHAT        run only the traffic (a) or the allreduce (b) part\n"
               "  --allreduce-limit  wall-second limit per allreduce size (default 600, 0 = "
               "none)\n"
               "  --allreduce-mem-limit GIB  address-space limit per allreduce size (default\n"
               "                     the smaller of 12 GiB and 60%% of RAM, 0 = none)\n");
}

int main(int argc, char **argv)
{
    opts_t o = {.traffic = 1, .allreduce = 1, .limit_s = 600, .mem_gib = 12};
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psz > 0 && 0.6 * pages * (double)psz / 1073741824.0 < o.mem_gib)
        o.mem_gib = 0.6 * pages * (double)psz / 1073741824.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            o.quick = g_quick = 1;
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            i++;
            if (!strcmp(argv[i], "traffic"))
                o.allreduce = 0;
            else if (!strcmp(argv[i], "allreduce"))
                o.traffic = 0;
            else {
                fprintf(stderr, "model_speed: --only: '%s' is not traffic or allreduce\n",
                        argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--allreduce-limit") && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || v < 0 || v > 86400) {
                fprintf(stderr, "model_speed: --allreduce-limit: '%s' is not 0..86400\n",
                        argv[i]);
                return 2;
            }
            o.limit_s = (unsigned)v;
        } else if (!strcmp(argv[i], "--allreduce-mem-limit") && i + 1 < argc) {
            char *end;
            double v = strtod(argv[++i], &end);
            if (*end || end == argv[i] || !(v >= 0) || v > 1e6) {
                fprintf(stderr, "model_speed: --allreduce-mem-limit: '%s' is not a size in GiB\n",
                        argv[i]);
                return 2;
            }
            o.mem_gib = v;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "model_speed: %s: unknown or incomplete option\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }

    struct utsname u;
    char cpu[128] = "?";
    FILE *ci = fopen("/proc/cpuinfo", "r");
    if (ci) {
        char line[256];
        while (fgets(line, sizeof line, ci))
            if (!strncmp(line, "model name", 10)) {
                char *c = strchr(line, ':');
                if (c) {
                    snprintf(cpu, sizeof cpu, "%s", c + 2);
                    cpu[strcspn(cpu, "\n")] = 0;
                }
                break;
            }
        fclose(ci);
    }
    printf("# model_speed:");
    for (int i = 0; i < argc; i++)
        printf(" %s", argv[i]);
    printf("\n# machine: nproc %ld, %s, %s\n", sysconf(_SC_NPROCESSORS_ONLN),
           uname(&u) == 0 ? u.machine : "?", cpu);
    /* The model is linked in statically: the link time of this binary says
     * which model was measured; the source tree's revision is what it is
     * now (it may have moved on since the link). */
    char rev[64] = "?";
#ifdef MF_SRCDIR
    FILE *g = popen("git -C '" MF_SRCDIR "' describe --always --dirty 2>/dev/null", "r");
    if (g) {
        if (fgets(rev, sizeof rev, g))
            rev[strcspn(rev, "\n")] = 0;
        else
            strcpy(rev, "?");
        pclose(g);
    }
#endif
    char linked[64] = "?";
    struct stat sb;
    if (stat("/proc/self/exe", &sb) == 0)
        strftime(linked, sizeof linked, "%Y-%m-%d %H:%M:%S", localtime(&sb.st_mtime));
    printf("# binary linked %s (the model is linked in statically); source tree now at "
           "git %s\n", linked, rev);
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime(&now));
    printf("# started %s", when);
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        double l1;
        if (fscanf(la, "%lf", &l1) == 1)
            printf(", load average %.2f (figures are wall-clock: run on an idle machine)", l1);
        fclose(la);
    }
    printf("\n\n");
    fflush(stdout);

    /* The allreduce children are forked from a launcher made now, while
     * this process is still small: ru_maxrss starts from the RSS inherited
     * at fork, and the traffic part grows this process. */
    int go[2] = {-1, -1}, rc = 0;
    pid_t launcher = -1;
    if (o.allreduce && o.traffic) {
        if (pipe(go))
            return 1;
        launcher = fork();
        if (launcher < 0)
            return 1;
        if (launcher == 0) {
            char c;
            close(go[1]);
            ssize_t m;
            while ((m = read(go[0], &c, 1)) < 0 && errno == EINTR)
                ;
            if (m != 1) /* parent gone or gave up */
                _exit(1);
            int arc = bench_allreduce(&o);
            fflush(stdout); /* _exit does not flush stdio */
            _exit(arc ? 1 : 0);
        }
        close(go[0]);
    }
    if (o.traffic)
        rc |= bench_traffic(&o);
    fflush(stdout);
    if (launcher > 0) {
        int st;
        ssize_t w = write(go[1], "g", 1);
        (void)w;
        close(go[1]);
        while (waitpid(launcher, &st, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(st) || WEXITSTATUS(st))
            rc = 1;
    } else if (o.allreduce) {
        rc |= bench_allreduce(&o);
    }
    return rc;
}
