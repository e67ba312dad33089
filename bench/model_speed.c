/*
 * bench/model_speed: how fast and how big the cycle-level switch model is.
 * Not a test: it prints figures and exits 0 unless something failed to run.
 * See bench/README.md.
 *
 *   (a) router speed: simulated router-cycles per wall-second, uniform random
 *       unicast traffic (fpga_model/traffic) on 4x4x4 and 8x8x8 tori, 1- and
 *       4-flit packets, at 0.05, 0.2 and near saturation (found by a coarse
 *       search); BookSim2 is measured beside it by bench/booksim_side.py;
 *   (b) one 1 MiB Allreduce (double, sum, all ranks, timing only) on 4x4x4,
 *       8x8x8 and 16x16x16 tori: wall time, peak RSS and the model's own
 *       peak packet / stream-buffer figures, each size in a fresh process.
 *
 *   model_speed [--quick] [--only traffic|allreduce] [--allreduce-limit SECONDS]
 *               [--allreduce-mem-limit GIB]
 */
#include "model_speed.h"

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process: wall time much above it means the machine was
 * busy with something else and the speeds are too low. */
double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int g_busy; /* some run got < 90 % of a core */

/* ---- a network built the way mpifpga-sim's setup() builds it ---------- */

int net_open(net_t *w, int k, char *err, size_t len)
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

void net_close(net_t *w)
{
    mf_net_destroy(w->n);
    mf_topo_free(&w->t);
    w->n = NULL;
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
    int huge = mf_model_prefer_hugepages(); /* inherited by the forked runs */
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
    machine_probe_print();
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
    printf("\n# heap: %s\n\n", huge == 0 ? "transparent huge pages (MPIFPGA_HUGEPAGES=0: off)"
           : huge == 1 ? "ordinary pages (MPIFPGA_HUGEPAGES=0)"
                       : "ordinary pages (huge pages not possible here)");
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
