/*
 * mpifpga-sim: the switch-network model on its own, no MPI processes.
 *   mpifpga-sim -c COLLECTIVE [-m MIN:MAX] [-i ITERS] [--topology T] [--nodes N]
 *               [--ppn K] [--root R] [--op OP] [--type TYPE] [--params P]
 *               [--format table|csv|json] [--baseline [--host-params H]] [--analytic]
 *   mpifpga-sim --traffic PATTERN --rate R [--topology T] [--cycles N]
 * Bad arguments: one line naming the argument, exit 2.
 * Under mpiexec -n K the sizes of a sweep run on K processes (cli/sim_mpi.c).
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

#include "cli/sim_cli.h"
#include "cli/sim_mpi.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpifpga-sim -c COLLECTIVE [-m MIN:MAX] [-i ITERS] [--topology torus:XxYxZ|fattree:RADIX]\n"
            "                   [--nodes N] [--ppn K] [--root R] [--op OP] [--type TYPE]\n"
            "                   [--params u280|novog|FILE] [--format table|csv|json] [--no-fast-path]\n"
            "                   [--baseline [--host-params skx-opa|FILE]] [--analytic]\n"
            "                   [--loop single|osu [-x WARMUP]] [--algorithm paper|tree|auto]\n"
            "                   [--threads N]\n"
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
            "loop:    single (the default): every rank posts each call at the same cycle;\n"
            "         osu: OSU's loop (a barrier after each call, each rank timed from its\n"
            "         own entry), -x WARMUP untimed iterations per size (default 2) before\n"
            "         the -i timed ones, as OSU's -i and -x\n"
            "threads: the switches of each cycle are shared among N threads (default: the\n"
            "         cores available, at most one per 64 switches; MPIFPGA_THREADS); every\n"
            "         figure is the same for any N\n"
            "mpiexec -n K mpifpga-sim ...: the same output; the default threads: each node's\n"
            "         cores shared among its processes.  A sweep's sizes spread over the K\n"
            "         processes (every size runs on a new network); one size, or every size\n"
            "         with MPIFPGA_SPLIT=switches, runs on a network whose switches are split\n"
            "         among them, exchanging after every active cycle (a torus, without\n"
            "         --baseline, --analytic; MPIFPGA_SPLIT=sizes: one size runs whole)\n"
            "mpiexec -n K mpifpga-sim --traffic ...: the network's switches split among K\n"
            "         processes, exchanging at the link-latency lookahead\n"
            "split:   the same figures for any K and any partition (MPIFPGA_PARTITION:\n"
            "         range, the default, cyclic or random[:SEED])\n"
            "progress: on a terminal, stderr shows the size running and the modeled time\n"
            "         it has reached, every MPIFPGA_SIM_PROGRESS seconds (default 1)\n");
}

void die2(const char *fmt, ...)
{
    va_list ap;
    if (sim_mpi_rank() == 0) { /* under mpiexec every rank stops here: one message */
        fprintf(stderr, "mpifpga-sim: ");
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, "\n");
    }
    sim_mpi_exit(2);
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
        {"format", required_argument, 0, 'f'},     {"traffic", required_argument, 0, 'X'},
        {"rate", required_argument, 0, 'R'},       {"cycles", required_argument, 0, 'C'},
        {"packet-phits", required_argument, 0, 'P'}, {"no-fast-path", no_argument, 0, 'F'},
        {"baseline", no_argument, 0, 'B'},         {"host-params", required_argument, 0, 'H'},
        {"analytic", no_argument, 0, 'A'},         {"loop", required_argument, 0, 'L'},
        {"algorithm", required_argument, 0, 'G'},  {"help", no_argument, 0, 'h'},
        {"threads", required_argument, 0, 'j'},  {"warmup", required_argument, 0, 'x'},
        {0, 0, 0, 0}};
    *o = (opts_t){.min = 0, .max = 1 << 20, .topo = NULL, .nodes = 0, .ppn = 1,
                  .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE, .params = "u280", .fmt = FMT_TABLE,
                  .cycles = 10000, .pkt_phits = 1, .host = "skx-opa", .warmup = -1};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":c:m:i:x:T:h", lo, NULL)) != -1) {
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
        case 'x': o->warmup = (int)parse_int("-x", optarg, 0, 100000000); break;
        case 'X':
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
    if (o->warmup >= 0 && !o->loop_osu)
        die2("-x: warm-up iterations are OSU's loop's: use it with --loop osu (--loop single "
             "posts every call at the same cycle and has none)");
    if (o->warmup < 0)
        o->warmup = 2;
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

static int default_iters(uint64_t bytes) { return bytes > 8192 ? 100 : 1000; } /* OSU defaults */

/* A sweep under mpiexec -n K: every process runs every size on its part
 * of the switches (MPIFPGA_SPLIT=switches, or auto with one size), or
 * each size runs whole on one process (sizes, or auto with more). */
static int split_switches;

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

/* The message sizes of a sweep (its points), at most 64. */
static int sweep_sizes(const opts_t *o, size_t es, uint64_t *sizes)
{
    if (o->coll == MF_OPC_BARRIER) {
        sizes[0] = 0;
        return 1;
    }
    int k = 0;
    for (uint64_t b = o->min > es ? o->min : es; k < 64 && b <= o->max; b = b ? b * 2 : 1)
        sizes[k++] = b;
    return k;
}

typedef struct {
    const opts_t *o;
    mf_params_t p;
    mf_topo_t t;
    mf_host_params_t host;
    mf_net_t *n;
    int P, npts, used; /* used: a size ran on n */
    int *members;
    uint64_t *lat;
    uint32_t *rs_counts;
    size_t es;
    uint64_t sizes[64], cost[64];
} sweep_t;

/* A new network with the job's communicator (exits on what setup rejects). */
static void sweep_net(sweep_t *w)
{
    char err[256];
    if (w->n) {
        mf_net_destroy(w->n);
        mf_topo_free(&w->t);
    }
    w->n = setup(w->o, &w->p, &w->t);
    if (split_switches)
        sim_split_net(w->n);
    sim_progress_watch(w->n);
    w->used = 0;
    w->P = mf_net_nranks(w->n);
    if (w->o->root >= w->P)
        die2("--root: %d is not a rank of the %d-rank job", w->o->root, w->P);
    if (!w->members) {
        w->members = malloc((size_t)w->P * sizeof *w->members);
        w->lat = calloc((size_t)w->P, sizeof *w->lat);
        w->rs_counts = calloc((size_t)w->P, sizeof *w->rs_counts);
        if (!w->members || !w->lat || !w->rs_counts)
            die2("out of memory");
        for (int i = 0; i < w->P; i++)
            w->members[i] = i;
    }
    if (mf_comm_setup(w->n, 0, w->P, w->members, err, sizeof err)) {
        fprintf(stderr, "mpifpga-sim: %s\n", err);
        sim_mpi_exit(1);
    }
}

/* One size of the sweep into *r. */
static int sweep_point(void *ctx, int i, void *row, char *err, size_t len)
{
    sweep_t *w = ctx;
    const opts_t *o = w->o;
    row_t *r = row;
    uint64_t b = w->sizes[i];
    /* every size on a new network: what a size leaves behind (the switch
     * allocators' round-robin pointers, the cycle it ends at, the links'
     * random streams) would change the next one's figures slightly, so a
     * row would depend on the sizes swept before it */
    if (w->used)
        sweep_net(w);
    w->used = 1;
    int P = w->P, *members = w->members;
    mf_coll_spec_t spec = {.opc = o->coll, .op = o->op, .dtype = o->dtype, .root = o->root,
                           .bytes = b / w->es * w->es, .algo = o->algo};
    if (o->coll == MF_OPC_REDUCE_SCATTER)
        spec.counts = osu_rs_counts(b, P, w->es, w->rs_counts);
    int iters = o->iters ? o->iters : default_iters(b);
    sim_progress(o, b);
    if (o->loop_osu) {
        /* every iteration is simulated: a smaller default than OSU's */
        int it = o->iters ? o->iters : (b > 8192 ? 10 : 50);
        if (mf_coll_loop_osu(w->n, &spec, P, members, it, o->warmup, &r->t, err, len))
            return -1;
        iters = r->simulated = it;
    } else if (mf_coll_loop(w->n, &spec, P, members, iters, !o->no_fast, &r->t, &r->simulated,
                            err, len)) {
        return -1;
    }
    if (o->baseline && mf_bl_coll_loop(w->n, &w->host, &spec, P, members, iters, !o->no_fast,
                                       &r->bl, &r->bl_simulated, err, len))
        return -1;
    if (o->analytic && analytic_row(w->n, &w->host, &spec, P, members, w->lat, r, err, len))
        return -1;
    r->bytes = b;
    r->iters = iters;
    return 0;
}

static int run_sweep(const opts_t *o)
{
    static sweep_t w;
    char err[256];
    w.o = o;
    /* bad arguments exit before anything is allocated */
    if (o->baseline && mf_host_params_load(o->host, &w.host, err, sizeof err))
        die2("--host-params: %s", err);
    if (o->analytic && o->root != 0)
        die2("--analytic: 001 Eqs. 3-6 are for root 0");
    if (!mf_op_valid_for(o->op, o->dtype))
        die2("--op: %s is not defined for --type %s", mf_op_name(o->op), mf_dtype_name(o->dtype));
    w.es = mf_elem_bytes(o->op, o->dtype);
    w.npts = sweep_sizes(o, w.es, w.sizes);
    if (!w.npts) /* OSU leaves such sizes out too, but a run of none says nothing */
        die2("-m: no size up to %llu B holds a whole %s element (%zu B); give a MAX of at "
             "least %zu", (unsigned long long)o->max, mf_dtype_name(o->dtype), w.es, w.es);
    sweep_net(&w);
    row_t *rows = calloc(64, sizeof *rows);
    if (!rows)
        die2("out of memory");
    int rc = 0;
    if (sim_mpi_active() && !split_switches) {
        /* estimated cost: the bytes moved, and a fixed part per point */
        for (int i = 0; i < w.npts; i++)
            w.cost[i] = w.sizes[i] + 4096;
        sim_sweep_t s = {w.npts, w.cost, sizeof *rows, rows, sweep_point, &w};
        rc = sim_mpi_sweep(&s, err, sizeof err);
    } else {
        for (int i = 0; i < w.npts && !rc; i++)
            rc = sweep_point(&w, i, &rows[i], err, sizeof err) ? 1 : 0;
    }
    if (sim_mpi_rank() == 0 || (split_switches && mf_dom_failed_here(w.n))) {
        sim_progress(o, 0);
        /* split: a domain that failed says why, rank 0 that one did */
        if (rc && (sim_mpi_rank() == 0 || mf_dom_failed_here(w.n)))
            fprintf(stderr, "mpifpga-sim: %s\n", err);
        else if (!rc)
            print_rows(o, w.n, rows, w.npts);
    }
    free(w.members);
    free(w.lat);
    free(w.rs_counts);
    free(rows);
    mf_net_destroy(w.n);
    mf_topo_free(&w.t);
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
    /* under mpiexec -n K: each process simulates a K-th of the switches */
    int split = sim_split_net(n);
    int rc = mf_traffic_run(n, &cfg, &r, err, sizeof err);
    mf_topo_describe(&t, topo, sizeof topo);
    if (rc) {
        /* one message: from the domain that failed */
        if (!split || mf_dom_failed_here(n))
            fprintf(stderr, "mpifpga-sim: %s\n", err);
    } else if (split && sim_mpi_rank() != 0) {
        /* rank 0 prints the figures, the same on every domain */
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
    mf_model_prefer_hugepages(); /* before the networks' allocations */
    opts_t o;
    parse_args(argc, argv, &o);
    /* under mpiexec -n K: the sizes of a sweep spread over the processes
     * (with one point, rank 0 runs it alone, no MPI_Init); a traffic run's
     * switches spread over them (net/domain.h) */
    int k = sim_mpi_env_size();
    if (k != 1) {
        uint64_t sizes[64];
        int npts = o.have_traffic ? 1 : sweep_sizes(&o, mf_elem_bytes(o.op, o.dtype), sizes);
        split_switches = !o.have_traffic && sim_split_mode(&o, npts);
        if (npts > 1 || k < 0 || o.have_traffic || split_switches) /* traffic: the switches spread */
            sim_mpi_start(&argc, &argv);
        else if (sim_mpi_rank() != 0)
            return 0;
        else
            fprintf(stderr, "mpifpga-sim: %s: rank 0 runs it, %d other process%s had "
                    "nothing to do\n", npts ? "one sweep point"
                    : "no sweep point (-m below one element)",
                    k - 1, k > 2 ? "es" : "");
    }
    sim_mpi_exit(o.have_traffic ? run_traffic(&o) : run_sweep(&o));
}
