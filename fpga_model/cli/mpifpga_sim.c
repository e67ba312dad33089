/*
 * mpifpga-sim: the switch-network model on its own, no MPI processes.
 *   mpifpga-sim -c COLLECTIVE [-m MIN:MAX] [-i ITERS] [--topology T] [--nodes N]
 *               [--ppn K] [--root R] [--op OP] [--type TYPE] [--params P]
 *               [--format table|csv|json] [--baseline [--host-params H]] [--analytic]
 *   mpifpga-sim --traffic PATTERN --rate R [--topology T] [--cycles N]
 * Bad arguments: one line naming the argument, exit 2.
 */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline/baseline.h"
#include "baseline/loggp.h"
#include "coll/run.h"
#include "mpifpga/osu.h"
#include "mpifpga/ct.h"
#include "mpifpga/model.h"
#include "net/topo.h"
#include "params/params.h"
#include "traffic/traffic.h"

typedef enum { FMT_TABLE, FMT_CSV, FMT_JSON } fmt_t;

typedef struct {
    mf_opcode_t coll;
    int have_coll;
    uint64_t min, max;
    int iters;          /* 0 = OSU defaults */
    const char *topo;
    int nodes, ppn, root;
    mf_op_t op;
    mf_dtype_t dtype;
    const char *params;
    fmt_t fmt;
    int have_traffic;
    mf_traffic_pattern_t pattern;
    double rate;
    uint64_t cycles;
    unsigned pkt_phits;
    int no_fast;
    int baseline;       /* also run MPICH's algorithms on the same fabric */
    const char *host;   /* baseline host parameter set */
    int analytic;       /* print 001 Eqs. 3-6 beside the simulation (Bcast) */
    int loop_osu;       /* --loop osu: OSU's barrier-separated loop, ranks skewed */
    mf_algo_mode_t algo; /* --algorithm paper|tree|auto */
} opts_t;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpifpga-sim -c COLLECTIVE [-m MIN:MAX] [-i ITERS] [--topology torus:XxYxZ|fattree:RADIX]\n"
            "                   [--nodes N] [--ppn K] [--root R] [--op OP] [--type TYPE]\n"
            "                   [--params u280|novog|FILE] [--format table|csv|json] [--no-fast-path]\n"
            "                   [--baseline [--host-params skx-opa|FILE]] [--analytic]\n"
            "                   [--loop single|osu] [--algorithm paper|tree|auto] [--threads N]\n"
            "       mpifpga-sim --traffic PATTERN --rate R [--topology ...] [--nodes N] [--cycles N]\n"
            "                   [--packet-phits P] [--params ...] [--threads N]\n"
            "collectives: bcast reduce allreduce scatter gather allgather reduce_scatter scan exscan\n"
            "             alltoall (at most 32 ranks) barrier\n"
            "ops: sum prod min max land lor lxor band bor bxor minloc maxloc cprod\n"
            "types: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float double\n"
            "       float_int double_int long_int 2int short_int (minloc, maxloc)\n"
            "       (cprod: float or double lanes taken as (re, im) pairs)\n"
            "patterns: uniform transpose bitcomp neighbor tornado\n"
            "algorithms: paper (001 Table 1, MPICH's selection; the default), tree (streaming\n"
            "            trees for bcast, reduce, allreduce, rings in every dimension at once\n"
            "            for allgather, reduce_scatter, on a whole torus, one rank per node),\n"
            "            auto (the trees, except allreduce up to 2 KiB); on a fat tree the leaf\n"
            "            and spine switches aggregate bcast, reduce, allreduce, allgather of the\n"
            "            whole machine in every mode (001 sec. 4.4)\n"
            "threads: the switches of each cycle are shared among N threads (default: the\n"
            "         cores available, at most one per 64 switches; MPIFPGA_THREADS); every\n"
            "         figure is the same for any N\n");
}

__attribute__((noreturn, format(printf, 1, 2))) static void die2(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "mpifpga-sim: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    exit(2);
}

/* One progress line on stderr while a sweep runs, only when it is a
 * terminal (a log or pipe gets exactly what it got before); bytes 0 clears
 * it before the table. */
static void progress(const opts_t *o, uint64_t bytes)
{
    static int tty = -1;
    if (tty < 0)
        tty = isatty(STDERR_FILENO);
    if (!tty)
        return;
    if (!bytes) {
        fputs("\r\033[K", stderr);
        return;
    }
    fprintf(stderr, "\r\033[K# mpifpga-sim: %s %llu B (up to %llu B) ...", mf_opcode_name(o->coll),
            (unsigned long long)bytes, (unsigned long long)o->max);
    fflush(stderr);
}

static uint64_t parse_size(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    uint64_t mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1024, end++;
    else if (*end == 'M' || *end == 'm')
        mul = 1024 * 1024, end++;
    if (errno || end == s || *end || s[0] == '-')
        die2("%s: '%s' is not a size (bytes, optionally with K or M)", opt, s);
    return v * mul;
}

static long parse_int(const char *opt, const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        die2("%s: '%s' is not an integer in %ld..%ld", opt, s, lo, hi);
    return v;
}

static void parse_range(opts_t *o, const char *s)
{
    const char *colon = strchr(s, ':');
    char lo[64];
    if (!colon) {
        o->min = o->max = parse_size("-m", s);
        return;
    }
    if ((size_t)(colon - s) >= sizeof lo)
        die2("-m: '%s' is not MIN:MAX", s);
    memcpy(lo, s, (size_t)(colon - s));
    lo[colon - s] = 0;
    o->min = lo[0] ? parse_size("-m", lo) : 0;
    o->max = parse_size("-m", colon + 1);
    if (o->min > o->max)
        die2("-m: MIN %llu is larger than MAX %llu", (unsigned long long)o->min,
             (unsigned long long)o->max);
}

static void parse_args(int argc, char **argv, opts_t *o)
{
    static const struct option lo[] = {
        {"collective", required_argument, 0, 'c'}, {"message-size", required_argument, 0, 'm'},
        {"iterations", required_argument, 0, 'i'}, {"topology", required_argument, 0, 't'},
        {"nodes", required_argument, 0, 'n'},      {"ppn", required_argument, 0, 'k'},
        {"root", required_argument, 0, 'r'},       {"op", required_argument, 0, 'o'},
        {"type", required_argument, 0, 'T'},       {"params", required_argument, 0, 'p'},
        {"format", required_argument, 0, 'f'},     {"traffic", required_argument, 0, 'x'},
        {"rate", required_argument, 0, 'R'},       {"cycles", required_argument, 0, 'C'},
        {"packet-phits", required_argument, 0, 'P'}, {"no-fast-path", no_argument, 0, 'F'},
        {"baseline", no_argument, 0, 'B'},         {"host-params", required_argument, 0, 'H'},
        {"analytic", no_argument, 0, 'A'},         {"loop", required_argument, 0, 'L'},
        {"algorithm", required_argument, 0, 'G'},  {"help", no_argument, 0, 'h'},
        {"threads", required_argument, 0, 'j'},
        {0, 0, 0, 0}};
    *o = (opts_t){.min = 0, .max = 1 << 20, .topo = NULL, .nodes = 0, .ppn = 1,
                  .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE, .params = "u280", .fmt = FMT_TABLE,
                  .cycles = 10000, .pkt_phits = 1, .host = "skx-opa"};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":c:m:i:T:h", lo, NULL)) != -1) {
        switch (c) {
        case 'c':
            if (mf_coll_parse(optarg, &o->coll) || !mf_opcode_is_coll(o->coll))
                die2("-c: unknown collective '%s' (bcast reduce allreduce scatter gather "
                     "allgather reduce_scatter scan exscan alltoall barrier)", optarg);
            if (o->coll == MF_OPC_ALLTOALLV)
                die2("-c alltoallv: its sizes differ per rank; sweep alltoall (uniform blocks)");
            o->have_coll = 1;
            break;
        case 'm': parse_range(o, optarg); break;
        case 'i': o->iters = (int)parse_int("-i", optarg, 1, 100000000); break;
        case 't': o->topo = optarg; break;
        case 'n': o->nodes = (int)parse_int("--nodes", optarg, 1, 65535); break;
        case 'k': o->ppn = (int)parse_int("--ppn", optarg, 1, 1024); break;
        case 'r': o->root = (int)parse_int("--root", optarg, 0, 65534); break;
        case 'o':
            if (mf_op_parse(optarg, &o->op))
                die2("--op: unknown operation '%s' (sum prod min max land lor lxor band bor bxor)",
                     optarg);
            break;
        case 'T':
            if (mf_dtype_parse(optarg, &o->dtype))
                die2("--type: unknown datatype '%s' (int8..int64 uint8..uint64 float double)",
                     optarg);
            break;
        case 'p': o->params = optarg; break;
        case 'f':
            if (!strcmp(optarg, "table")) o->fmt = FMT_TABLE;
            else if (!strcmp(optarg, "csv")) o->fmt = FMT_CSV;
            else if (!strcmp(optarg, "json")) o->fmt = FMT_JSON;
            else die2("--format: '%s' is not table, csv or json", optarg);
            break;
        case 'x':
            if (mf_traffic_parse(optarg, &o->pattern))
                die2("--traffic: unknown pattern '%s' (uniform transpose bitcomp neighbor tornado)",
                     optarg);
            o->have_traffic = 1;
            break;
        case 'R': {
            char *end;
            o->rate = strtod(optarg, &end);
            if (end == optarg || *end || !(o->rate > 0) || o->rate > 64)
                die2("--rate: '%s' is not a positive injection rate (phits per node per cycle)",
                     optarg);
            break;
        }
        case 'C': o->cycles = (uint64_t)parse_int("--cycles", optarg, 1, 2000000000L); break;
        case 'P': o->pkt_phits = (unsigned)parse_int("--packet-phits", optarg, 1, 64); break;
        case 'F': o->no_fast = 1; break;
        case 'L':
            if (strcmp(optarg, "osu") && strcmp(optarg, "single"))
                die2("--loop: '%s' is not single or osu", optarg);
            o->loop_osu = !strcmp(optarg, "osu");
            break;
        case 'B': o->baseline = 1; break;
        case 'H': o->host = optarg; break;
        case 'A': o->analytic = 1; break;
        case 'G':
            if (mf_algo_mode_parse(optarg, &o->algo))
                die2("--algorithm: '%s' is not paper, tree or auto", optarg);
            break;
        case 'j': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 1 || v > 64)
                die2("--threads: '%s' is not a number of threads from 1 to 64", optarg);
            setenv("MPIFPGA_THREADS", optarg, 1); /* read where the network is built */
            break;
        }
        case 'h': usage(stdout); exit(0);
        case ':': die2("%s: missing argument", argv[optind - 1]);
        default: die2("%s: unknown option (see --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        die2("%s: unexpected argument", argv[optind]);
    if (o->have_coll == o->have_traffic)
        die2("give exactly one of -c COLLECTIVE or --traffic PATTERN (see --help)");
    if (o->have_traffic && o->rate <= 0)
        die2("--rate: required with --traffic");
    if (o->analytic && (!o->have_coll || o->coll != MF_OPC_BCAST))
        die2("--analytic: 001 Eqs. 3-6 are for Bcast: use it with -c bcast");
    if (o->analytic)
        o->baseline = 1;
    if (o->have_traffic && o->baseline)
        die2("--baseline: only with -c COLLECTIVE");
    if (o->have_traffic && o->rate > o->pkt_phits)
        die2("--rate: %g exceeds one %u-phit packet per node per cycle", o->rate, o->pkt_phits);
}

/* Build params, topology and network; exits 2 on a bad --params/--topology. */
static mf_net_t *setup(const opts_t *o, mf_params_t *p, mf_topo_t *t)
{
    char err[256];
    mf_topo_spec_t spec = {.kind = MF_TOPO_TORUS};
    if (mf_params_load(o->params, p, err, sizeof err))
        die2("--params: %s", err);
    if (o->topo && mf_topo_parse(o->topo, &spec, err, sizeof err))
        die2("--topology: %s", err);
    int nodes = o->nodes;
    if (!nodes && spec.kind == MF_TOPO_TORUS && spec.x)
        nodes = spec.x * spec.y * spec.z;
    if (!nodes)
        nodes = 8;
    spec.oversub = spec.oversub ? spec.oversub : (int)p->oversub;
    if (mf_topo_build(&spec, nodes, o->ppn, t, err, sizeof err))
        die2("--topology/--nodes: %s", err);
    mf_net_t *n = mf_net_create(p, t, err, sizeof err);
    if (!n) {
        fprintf(stderr, "mpifpga-sim: %s\n", err);
        exit(1);
    }
    return n;
}

typedef struct {
    uint64_t bytes;
    mf_coll_timing_t t, bl; /* offload; baseline (--baseline) */
    int iters;
    /* --analytic: one call simulated, rank P-1 and the root (rank 0), us */
    double bl_last, is_last, bl_root, is_root;
    mf_loggp_bcast_t eq;
} row_t;

static double speedup(const row_t *r) { return r->t.avg_us > 0 ? r->bl.avg_us / r->t.avg_us : 0; }

static int default_iters(uint64_t bytes) { return bytes > 8192 ? 100 : 1000; } /* OSU defaults */

static void json_add_analytic(json_object *r, const row_t *w)
{
    static const char *const keys[8] = {"baseline_last_us", "eq3_us", "offload_last_us", "eq4_us",
                                        "baseline_root_us", "eq5_us", "offload_root_us", "eq6_us"};
    double v[8] = {w->bl_last, w->eq.eq3, w->is_last, w->eq.eq4,
                   w->bl_root, w->eq.eq5, w->is_root, w->eq.eq6};
    for (int i = 0; i < 8; i++)
        json_object_object_add(r, keys[i], json_object_new_double(v[i]));
}

/* 001 Eqs. 3-6 beside one simulated call (--analytic). */
static void print_analytic(const row_t *rows, int nrows)
{
    printf("# 001 Eqs. 3-6 (LogGP, sec. 5) beside the simulation, one call, us:\n"
           "#   rank P-1: baseline sim / Eq. 3, offload sim / Eq. 4;"
           " root: baseline sim / Eq. 5, offload sim / Eq. 6\n");
    printf("%-10s %10s %10s %10s %10s %10s %10s %10s %10s\n", "# Size", "Bl(P-1)", "Eq.3",
           "Is(P-1)", "Eq.4", "Bl(root)", "Eq.5", "Is(root)", "Eq.6");
    for (int i = 0; i < nrows; i++) {
        const row_t *r = &rows[i];
        printf("%-10llu %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f\n",
               (unsigned long long)r->bytes, r->bl_last, r->eq.eq3, r->is_last, r->eq.eq4,
               r->bl_root, r->eq.eq5, r->is_root, r->eq.eq6);
    }
    if (nrows) {
        const mf_loggp_t *b = &rows[0].eq.bl, *s = &rows[0].eq.is;
        printf("# terms (us; G in us/B): baseline L %.3f O_s %.3f O_r %.3f g %.3f G %.6f;"
               " in-switch L %.3f O_s %.3f O_r %.3f G %.6f\n",
               b->L, b->os, b->orr, b->g, b->G, s->L, s->os, s->orr, s->G);
    }
}

static void print_rows(const opts_t *o, const mf_net_t *n, const row_t *rows, int nrows)
{
    char topo[64];
    mf_topo_describe(mf_net_topo(n), topo, sizeof topo);
    int ranks = mf_net_nranks(n);
    const char *cname = mf_opcode_name(o->coll);
    if (o->fmt == FMT_CSV) {
        printf("collective,topology,nodes,bytes,offload_us%s%s\n",
               o->baseline ? ",baseline_us,speedup" : "",
               o->analytic ? ",baseline_last_us,eq3_us,offload_last_us,eq4_us,baseline_root_us,"
                             "eq5_us,offload_root_us,eq6_us" : "");
        for (int i = 0; i < nrows; i++) {
            const row_t *r = &rows[i];
            printf("%s,%s,%d,%llu,%.3f", cname, topo, mf_net_topo(n)->nnodes,
                   (unsigned long long)r->bytes, r->t.avg_us);
            if (o->baseline)
                printf(",%.3f,%.3f", r->bl.avg_us, speedup(r));
            if (o->analytic)
                printf(",%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f", r->bl_last, r->eq.eq3,
                       r->is_last, r->eq.eq4, r->bl_root, r->eq.eq5, r->is_root, r->eq.eq6);
            printf("\n");
        }
        return;
    }
    if (o->fmt == FMT_JSON) {
        json_object *root = json_object_new_object(), *arr = json_object_new_array();
        json_object_object_add(root, "collective", json_object_new_string(cname));
        json_object_object_add(root, "topology", json_object_new_string(topo));
        json_object_object_add(root, "nodes", json_object_new_int(mf_net_topo(n)->nnodes));
        json_object_object_add(root, "ranks", json_object_new_int(ranks));
        json_object_object_add(root, "params", json_object_new_string(mf_net_params(n)->name));
        json_object_object_add(root, "datatype", json_object_new_string(mf_dtype_name(o->dtype)));
        if (o->baseline)
            json_object_object_add(root, "host_params", json_object_new_string(o->host));
        for (int i = 0; i < nrows; i++) {
            json_object *r = json_object_new_object();
            json_object_object_add(r, "bytes", json_object_new_int64((int64_t)rows[i].bytes));
            json_object_object_add(r, "offload_us", json_object_new_double(rows[i].t.avg_us));
            json_object_object_add(r, "min_us", json_object_new_double(rows[i].t.min_us));
            json_object_object_add(r, "max_us", json_object_new_double(rows[i].t.max_us));
            json_object_object_add(r, "iterations", json_object_new_int(rows[i].iters));
            if (o->baseline) {
                json_object_object_add(r, "baseline_us", json_object_new_double(rows[i].bl.avg_us));
                json_object_object_add(r, "speedup", json_object_new_double(speedup(&rows[i])));
            }
            if (o->analytic)
                json_add_analytic(r, &rows[i]);
            json_object_array_add(arr, r);
        }
        json_object_object_add(root, "results", arr);
        printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY));
        json_object_put(root);
        return;
    }
    printf("# mpifpga-sim: osu_%s through the modeled switch network\n", cname);
    printf("# topology %s, %d nodes, %d ranks, params %s, datatype %s\n", topo,
           mf_net_topo(n)->nnodes, ranks, mf_net_params(n)->name, mf_dtype_name(o->dtype));
    if (o->baseline)
        printf("# baseline: MPICH's algorithms as point-to-point messages on the same fabric, "
               "host params %s\n", o->host);
    printf("%-10s %18s %18s %18s %12s", "# Size", "Avg Latency(us)", "Min Latency(us)",
           "Max Latency(us)", "Iterations");
    if (o->baseline)
        printf(" %15s %10s", "Baseline(us)", "Speedup");
    printf("\n");
    for (int i = 0; i < nrows; i++) {
        printf("%-10llu %18.2f %18.2f %18.2f %12d", (unsigned long long)rows[i].bytes,
               rows[i].t.avg_us, rows[i].t.min_us, rows[i].t.max_us, rows[i].iters);
        if (o->baseline)
            printf(" %15.2f %10.2f", rows[i].bl.avg_us, speedup(&rows[i]));
        printf("\n");
    }
    if (o->analytic)
        print_analytic(rows, nrows);
}

/* One offload call and one baseline call, ranks 0 and P-1, beside Eqs. 3-6. */
static int analytic_row(mf_net_t *n, const mf_host_params_t *h, const mf_coll_spec_t *spec, int P,
                        const int *members, uint64_t *lat, row_t *r, char *err, size_t len)
{
    mf_coll_timing_t t;
    if (mf_coll_once(n, spec, P, members, NULL, NULL, mf_net_now(n), lat, &t, err, len))
        return -1;
    r->is_root = mf_net_cycles_to_us(n, lat[0]);
    r->is_last = mf_net_cycles_to_us(n, lat[P - 1]);
    if (mf_bl_coll_once(n, h, spec, P, members, mf_net_now(n), lat, &t, err, len))
        return -1;
    r->bl_root = mf_net_cycles_to_us(n, lat[0]);
    r->bl_last = mf_net_cycles_to_us(n, lat[P - 1]);
    mf_loggp_bcast(n, h, P, members, spec->bytes, &r->eq);
    return 0;
}

/* MPI_Reduce_scatter's counts in bytes as OSU 7.4 passes them (not a
 * uniform size / P, which is 0 below one element per rank). */
static const uint32_t *osu_rs_counts(uint64_t bytes, int P, size_t es, uint32_t *out)
{
    uint64_t *elems = calloc((size_t)P, sizeof *elems);
    if (!elems)
        return NULL;
    mf_osu_rs_counts(bytes, P, es, elems);
    for (int i = 0; i < P; i++)
        out[i] = (uint32_t)(elems[i] * es);
    free(elems);
    return out;
}

static int run_sweep(const opts_t *o)
{
    mf_params_t p;
    mf_topo_t t;
    mf_host_params_t host;
    char err[256];
    /* bad arguments exit before anything is allocated */
    if (o->baseline && mf_host_params_load(o->host, &host, err, sizeof err))
        die2("--host-params: %s", err);
    if (o->analytic && o->root != 0)
        die2("--analytic: 001 Eqs. 3-6 are for root 0");
    if (!mf_op_valid_for(o->op, o->dtype))
        die2("--op: %s is not defined for --type %s", mf_op_name(o->op), mf_dtype_name(o->dtype));
    mf_net_t *n = setup(o, &p, &t);
    int P = mf_net_nranks(n), rc = 1, nrows = 0;
    if (o->root >= P)
        die2("--root: %d is not a rank of the %d-rank job", o->root, P);
    int *members = malloc((size_t)P * sizeof *members);
    uint64_t *lat = calloc((size_t)P, sizeof *lat);
    uint32_t *rs_counts = calloc((size_t)P, sizeof *rs_counts);
    row_t *rows = calloc(64, sizeof *rows);
    size_t es = mf_elem_bytes(o->op, o->dtype);
    if (!members || !lat || !rows || !rs_counts) {
        fprintf(stderr, "mpifpga-sim: out of memory\n");
        exit(1);
    }
    for (int i = 0; i < P; i++)
        members[i] = i;
    if (mf_comm_setup(n, 0, P, members, err, sizeof err))
        goto fail;
    uint64_t first = o->coll == MF_OPC_BARRIER ? 0 : (o->min > es ? o->min : es);
    for (uint64_t b = first; nrows < 64; b = b ? b * 2 : 1) {
        if (o->coll != MF_OPC_BARRIER && b > o->max)
            break;
        if (o->coll == MF_OPC_BARRIER && nrows)
            break;
        mf_coll_spec_t spec = {.opc = o->coll, .op = o->op, .dtype = o->dtype, .root = o->root,
                               .bytes = b / es * es, .algo = o->algo};
        if (o->coll == MF_OPC_REDUCE_SCATTER)
            spec.counts = osu_rs_counts(b, P, es, rs_counts);
        int iters = o->iters ? o->iters : default_iters(b), sim;
        progress(o, b);
        if (o->loop_osu) {
            /* every iteration is simulated: a smaller default than OSU's */
            int it = o->iters ? o->iters : (b > 8192 ? 10 : 50);
            if (mf_coll_loop_osu(n, &spec, P, members, it, 2, &rows[nrows].t, err, sizeof err))
                goto fail;
            iters = it;
        } else if (mf_coll_loop(n, &spec, P, members, iters, !o->no_fast, &rows[nrows].t, &sim,
                                err, sizeof err)) {
            goto fail;
        }
        if (o->baseline && mf_bl_coll_loop(n, &host, &spec, P, members, iters, !o->no_fast,
                                           &rows[nrows].bl, &sim, err, sizeof err))
            goto fail;
        if (o->analytic && analytic_row(n, &host, &spec, P, members, lat, &rows[nrows], err,
                                        sizeof err))
            goto fail;
        rows[nrows].bytes = b;
        rows[nrows++].iters = iters;
    }
    progress(o, 0);
    print_rows(o, n, rows, nrows);
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "mpifpga-sim: %s\n", err);
out:
    free(members);
    free(lat);
    free(rs_counts);
    free(rows);
    mf_net_destroy(n);
    mf_topo_free(&t);
    return rc;
}

/* Warm-up: a fifth of the window, but at least a few zero-load latencies
 * (network diameter x (link + router pipeline)) so that the measured
 * packets see a network in steady state. */
static uint64_t warmup_cycles(const opts_t *o, const mf_params_t *p, const mf_topo_t *t)
{
    int diam = t->kind == MF_TOPO_TORUS ? t->dims[0] / 2 + t->dims[1] / 2 + t->dims[2] / 2
                                        : 2 * t->levels;
    uint64_t hop = mf_params_ns_to_cycles(p, p->link_latency_ns) + 4 * p->router_stage_cycles;
    uint64_t w = 3 * (uint64_t)(diam + 1) * hop;
    return o->cycles / 5 > w ? o->cycles / 5 : w;
}

static int run_traffic(const opts_t *o)
{
    mf_params_t p;
    mf_topo_t t;
    mf_net_t *n = setup(o, &p, &t);
    char err[256], topo[64];
    mf_traffic_cfg_t cfg = {.pattern = o->pattern, .rate = o->rate, .pkt_phits = o->pkt_phits,
                            .warmup = warmup_cycles(o, &p, &t), .measure = o->cycles,
                            .drain_limit = 10 * o->cycles, .seed = p.seed};
    mf_traffic_result_t r;
    int rc = mf_traffic_run(n, &cfg, &r, err, sizeof err);
    mf_topo_describe(&t, topo, sizeof topo);
    if (rc) {
        fprintf(stderr, "mpifpga-sim: %s\n", err);
    } else if (o->fmt == FMT_CSV) {
        printf("pattern,topology,nodes,rate,packet_phits,avg_latency_cycles,max_latency_cycles,"
               "accepted,saturated,cycles,router_cycles_per_s\n");
        printf("%s,%s,%d,%.4f,%u,%.2f,%.0f,%.4f,%d,%llu,%.0f\n", mf_traffic_name(o->pattern), topo,
               t.nnodes, o->rate, o->pkt_phits, r.avg_latency_cycles, r.max_latency_cycles,
               r.accepted, r.saturated, (unsigned long long)r.cycles, r.router_cycles_per_s);
    } else if (o->fmt == FMT_JSON) {
        json_object *j = json_object_new_object();
        json_object_object_add(j, "pattern", json_object_new_string(mf_traffic_name(o->pattern)));
        json_object_object_add(j, "topology", json_object_new_string(topo));
        json_object_object_add(j, "nodes", json_object_new_int(t.nnodes));
        json_object_object_add(j, "rate", json_object_new_double(o->rate));
        json_object_object_add(j, "packet_phits", json_object_new_int((int)o->pkt_phits));
        json_object_object_add(j, "accepted", json_object_new_double(r.accepted));
        json_object_object_add(j, "avg_latency_cycles", json_object_new_double(r.avg_latency_cycles));
        json_object_object_add(j, "max_latency_cycles", json_object_new_double(r.max_latency_cycles));
        json_object_object_add(j, "saturated", json_object_new_boolean(r.saturated));
        json_object_object_add(j, "cycles", json_object_new_int64((int64_t)r.cycles));
        json_object_object_add(j, "router_cycles_per_s", json_object_new_double(r.router_cycles_per_s));
        printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY));
        json_object_put(j);
    } else {
        printf("# mpifpga-sim: %s traffic on %s (%d nodes), %u-phit packets, params %s\n",
               mf_traffic_name(o->pattern), topo, t.nnodes, o->pkt_phits, p.name);
        printf("offered      %.4f phits/node/cycle\n", o->rate);
        printf("accepted     %.4f phits/node/cycle%s\n", r.accepted,
               r.saturated ? "  (saturated: measured packets did not drain)" : "");
        printf("avg latency  %.2f cycles (%.3f us)\n", r.avg_latency_cycles,
               r.avg_latency_cycles * mf_params_cycle_ns(&p) / 1000);
        printf("max latency  %.0f cycles\n", r.max_latency_cycles);
        printf("packets      %llu measured, %llu delivered\n",
               (unsigned long long)r.measured_pkts, (unsigned long long)r.delivered_pkts);
        printf("model speed  %.0f router-cycles/s (%llu cycles x %d switches in %.3f s)\n",
               r.router_cycles_per_s, (unsigned long long)r.cycles, t.nswitches, r.wall_s);
    }
    mf_net_destroy(n);
    mf_topo_free(&t);
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    opts_t o;
    parse_args(argc, argv, &o);
    return o.have_traffic ? run_traffic(&o) : run_sweep(&o);
}
