/* bench/model_speed (b): one 1 MiB Allreduce per torus (model_speed.h). */
#include "model_speed.h"

/* ------------------------------------------------------------------------
 * (b) One 1 MiB Allreduce per torus size, each in a fresh process.
 * ------------------------------------------------------------------------ */
typedef struct {
    int status;           /* 0 ok, -1 failed (msg) */
    int k, ranks, nsw;
    double build_s, run_s;
    double avg_us, max_us;
    uint64_t max_cycles, sim_cycles;
    uint64_t module_steps; /* switch produces the engine ran (mf_net_stats) */
    uint64_t packet_steps, flow_only_steps; /* of them: moved packets; bytes of flows alone */
    uint64_t flow_steps, idle_steps; /* CCM flow steps, those that moved nothing */
    uint64_t credit_checks; /* looks at flows waiting for credits that found none */
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
    r.module_steps = st.module_steps;
    r.packet_steps = st.packet_steps;
    r.flow_only_steps = st.flow_only_steps;
    r.flow_steps = st.flow_steps;
    r.idle_steps = st.idle_steps - st.grant_waits;
    r.credit_checks = st.credit_checks;
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

int bench_allreduce(const opts_t *o)
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
           "simulation wall s;\n");
    printf("   steps M = switch produces the engine ran (a switch with nothing to do, or only "
           "a packet arriving, costs none), ns/step = cpu s / steps:\n");
    printf("   what one switch-cycle costs, which grows once the switches' state no longer "
           "fits the cache;\n");
    printf("   pkt %% = steps that moved a packet, flow %% = steps that moved bytes of flows "
           "alone (a streaming-flow fast path's most);\n");
    printf("   flows M = CCM flow steps, idle %% = those that moved no byte (CGR arbitration "
           "lost aside),\n   waits M = looks at a flow waiting for a partner's credits that found "
           "none: the model's work, the same on any machine.\n\n");
    printf("%-9s %6s %9s %9s %9s %7s %8s %8s %8s %8s %7s %6s %6s %8s %6s %7s %8s %10s %10s  "
           "%s\n",
           "torus",
           "ranks", "lat(us)", "max(us)", "cycles", "build s", "wall s", "cpu s", "Mrcyc/s",
           "steps M", "ns/step", "pkt %", "flow %", "flows M", "idle %", "waits M", "RSS MiB",
           "peak pkts",
           "stream KiB",
           "target");
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
            double ns_step = r.module_steps ? r.cpu_s * 1e9 / (double)r.module_steps : 0;
            double idle = r.flow_steps ? 100.0 * (double)r.idle_steps / (double)r.flow_steps : 0;
            double of = r.module_steps ? 100.0 / (double)r.module_steps : 0;
            printf("%-9s %6d %9.2f %9.2f %9llu %7.2f %8.2f %8.2f %8.3f %8.1f %7.0f %6.1f %6.1f "
                   "%8.1f %6.1f %7.2f %8.0f %10llu %10.1f  %s\n",
                   name, r.ranks, r.avg_us, r.max_us, (unsigned long long)r.max_cycles,
                   r.build_s, wall, r.cpu_s, mrcs, r.module_steps / 1e6, ns_step,
                   of * (double)r.packet_steps, of * (double)r.flow_only_steps,
                   r.flow_steps / 1e6, idle, r.credit_checks / 1e6, mib,
                   (unsigned long long)r.peak_pkts,
                   r.peak_stream_bytes / 1024.0, target);
        }
        fflush(stdout);
    }
    printf("(b) took %.0f s\n", now_s() - t0);
    return rc;
}
