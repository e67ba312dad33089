/*
 * mpifpga-osu: collective latency benchmark in the style of the OSU
 * Micro-Benchmarks 7 (osu_allreduce, osu_bcast, ...), written from scratch
 * for this project (no OSU code).  Runs unmodified under mpifpga-run, so
 * the measured MPI_ collectives go through libmpifpga; everything the
 * benchmark does for itself (the barrier before each timed call, the
 * reductions of the timings and of the validation verdicts) uses PMPI_
 * calls, which an interposition library does not see or count.
 *
 *   mpifpga-run -n N mpifpga-osu -c COLL [-m MIN:MAX] [-i ITERS] [-x WARMUP]
 *                                [-f] [-c] [-T TYPE] [--format table|csv|json]
 *
 * Files: osu.h, osu_coll.c (options, sweep, output), osu_kernels.c (calls,
 * buffers, validation).  Usage text: usage() below.
 */
#include "osu.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PROG "mpifpga-osu"
#define DEF_MIN 1
#define DEF_MAX (1u << 20)
#define LIMIT_MAX ((size_t)1 << 30) /* -m MAX at most 1 GiB */
#define LARGE_MSG 8192              /* > this: 100 iterations by default */
#define ITERS_SMALL 1000
#define ITERS_LARGE 100
#define DEF_WARMUP 10
#define VAL_ROUNDS 2     /* validated calls per size, after the timed loop */
#define PROGRESS_SLOW 2.0 /* seconds: a size this slow reports progress */

enum format { FMT_TABLE, FMT_CSV, FMT_JSON };

struct opts {
    int coll;       /* enum osu_coll, OSU_NCOLL = all, -1 = not given */
    size_t min, max;
    long iters;     /* 0: OSU default by size */
    long warmup;
    int full, validate;
    int type;       /* enum osu_type, -1: by collective */
    enum format fmt;
};

static int g_rank;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: " PROG " -c COLL [-m MIN:MAX] [-i ITERS] [-x WARMUP] [-f] [-c] [-T TYPE]\n"
        "                   [--format table|csv|json] [-h]\n"
        "  -c COLL, --coll COLL   allreduce reduce bcast scatter gather allgather\n"
        "                         reduce_scatter alltoall barrier, or all (each in turn)\n"
        "  -m, --message-size [MIN:]MAX  message sizes in bytes, doubling from MIN\n"
        "                         (rounded up to one element) to MAX; K, M, G suffixes\n"
        "                         (x1024); MIN: alone sets only MIN (default 1:1M)\n"
        "  -i, --iterations N     timed calls per size (default 1000 up to 8K, 100 above)\n"
        "  -x, --warmup N         untimed calls per size first (default 10)\n"
        "  -f, --full             also Min/Max Latency(us) and Iterations columns\n"
        "  -c, --validation       (-c not followed by a collective name) check the\n"
        "                         results after the timed calls; exit 1 on a failure\n"
        "  -T, --type TYPE        char, int, float, double (default: float for\n"
        "                         allreduce/reduce/reduce_scatter, char otherwise)\n"
        "  --format FMT           table (default, OSU layout), csv or json\n"
        "  -h, --help             this text\n"
        "Message size: the vector (allreduce, reduce, bcast), the block per rank\n"
        "(scatter, gather, allgather), the whole vector for reduce_scatter (split\n"
        "as OSU 7.4 does: n/P elements each, the first n%%P one more; fewer elements\n"
        "than ranks: one each for the first ranks); barrier has no size.  Root is rank 0.\n"
        "MPIFPGA_OSU_PROGRESS=1: a '# COLL BYTES done (S s)' line on stderr per size\n"
        "(always for a size that took more than 2 s).\n");
}

/* A bad argument: one line naming it (rank 0), then the usage. */
static int bad(const char *fmt, ...)
{
    if (g_rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, PROG ": ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
        usage(stderr);
    }
    return -1;
}

static int find_coll(const char *s)
{
    if (!strcasecmp(s, "all"))
        return OSU_NCOLL;
    for (int i = 0; i < OSU_NCOLL; i++)
        if (!strcasecmp(s, osu_colls[i].name))
            return i;
    return -1;
}

static int find_type(const char *s)
{
    if (!strncasecmp(s, "mpi_", 4))
        s += 4;
    for (int i = 0; i < OSU_NTYPE; i++)
        if (!strcasecmp(s, osu_types[i].name))
            return i;
    return -1;
}

/* "4096", "4K", "1M", "1G": bytes; -1 if not a size. */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned long long mul = 1;
    switch (*end) {
    case 'k': case 'K': mul = 1ull << 10; end++; break;
    case 'm': case 'M': mul = 1ull << 20; end++; break;
    case 'g': case 'G': mul = 1ull << 30; end++; break;
    default: break;
    }
    if (*end || v > (1ull << 40))
        return -1;
    *out = (size_t)(v * mul);
    return 0;
}

static int parse_count(const char *s, long lo, long *out)
{
    char *end;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > 100000000L)
        return -1;
    *out = v;
    return 0;
}

static int parse_range(const char *s, struct opts *o)
{
    const char *colon = strchr(s, ':');
    char buf[64];
    if (strlen(s) >= sizeof buf)
        return -1;
    if (!colon) /* MAX alone, as OSU's -m */
        return parse_size(s, &o->max);
    memcpy(buf, s, (size_t)(colon - s));
    buf[colon - s] = 0;
    if (buf[0] && parse_size(buf, &o->min))
        return -1;
    if (colon[1] && parse_size(colon + 1, &o->max))
        return -1;
    return buf[0] || colon[1] ? 0 : -1;
}

/* The value of option NAME: "--name=V", "-xV" or the next argument. */
static const char *optval(int argc, char **argv, int *i, const char *a, const char *name)
{
    size_t n = strlen(name);
    if (!strncmp(a, name, n) && a[n] == '=')
        return a + n + 1;
    if (name[1] != '-' && a[n]) /* "-i20" */
        return a + n;
    if (*i + 1 < argc)
        return argv[++*i];
    return NULL;
}

/* a is the long option lng, as "--lng" or "--lng=VALUE". */
static int is_long(const char *a, const char *lng)
{
    size_t n = strlen(lng);
    return !strncmp(a, lng, n) && (a[n] == 0 || a[n] == '=');
}

/* Identical on every rank and before any communication (-h/--help was
 * answered before MPI_Init: help_asked). */
static int parse(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){.coll = -1, .min = DEF_MIN, .max = DEF_MAX, .warmup = DEF_WARMUP,
                       .type = -1, .fmt = FMT_TABLE};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-f") || !strcmp(a, "--full")) {
            o->full = 1;
        } else if (!strcmp(a, "--validation") || !strcmp(a, "--validate")) {
            o->validate = 1;
        } else if (!strncmp(a, "-c", 2) && a[2] != '-') {
            /* -c COLL selects the collective; -c followed by an option (or
             * nothing) is OSU's validation flag. */
            v = a[2] ? a + 2 : (i + 1 < argc && argv[i + 1][0] != '-') ? argv[++i] : NULL;
            if (!v) {
                o->validate = 1;
                continue;
            }
            if ((o->coll = find_coll(v)) < 0)
                return bad("-c: unknown collective '%s'", v);
        } else if (is_long(a, "--coll")) {
            if (!(v = optval(argc, argv, &i, a, "--coll")))
                return bad("--coll needs a collective");
            if ((o->coll = find_coll(v)) < 0)
                return bad("--coll: unknown collective '%s'", v);
        } else if (!strncmp(a, "-m", 2) || is_long(a, "--message-size")) {
            const char *nm = a[1] == '-' ? "--message-size" : "-m";
            if (!(v = optval(argc, argv, &i, a, nm)))
                return bad("%s needs MIN:MAX", nm);
            if (parse_range(v, o))
                return bad("%s: '%s' is not [MIN]:[MAX] bytes (K, M, G suffixes)", nm, v);
        } else if (!strncmp(a, "-i", 2) || is_long(a, "--iterations")) {
            const char *nm = a[1] == '-' ? "--iterations" : "-i";
            if (!(v = optval(argc, argv, &i, a, nm)))
                return bad("%s needs a count", nm);
            if (parse_count(v, 1, &o->iters))
                return bad("%s: '%s' is not a positive iteration count", nm, v);
        } else if (!strncmp(a, "-x", 2) || is_long(a, "--warmup")) {
            const char *nm = a[1] == '-' ? "--warmup" : "-x";
            if (!(v = optval(argc, argv, &i, a, nm)))
                return bad("%s needs a count", nm);
            if (parse_count(v, 0, &o->warmup))
                return bad("%s: '%s' is not a warm-up count >= 0", nm, v);
        } else if (!strncmp(a, "-T", 2) || is_long(a, "--type")) {
            const char *nm = a[1] == '-' ? "--type" : "-T";
            if (!(v = optval(argc, argv, &i, a, nm)))
                return bad("%s needs a type", nm);
            if ((o->type = find_type(v)) < 0)
                return bad("%s: unknown type '%s' (char, int, float, double)", nm, v);
        } else if (is_long(a, "--format")) {
            if (!(v = optval(argc, argv, &i, a, "--format")))
                return bad("--format needs table, csv or json");
            if (!strcmp(v, "table"))
                o->fmt = FMT_TABLE;
            else if (!strcmp(v, "csv"))
                o->fmt = FMT_CSV;
            else if (!strcmp(v, "json"))
                o->fmt = FMT_JSON;
            else
                return bad("--format: '%s' is not table, csv or json", v);
        } else if (a[0] == '-') {
            return bad("unknown option '%s'", a);
        } else {
            return bad("unexpected argument '%s'", a);
        }
    }
    if (o->coll < 0)
        return bad("no collective given (-c COLL)");
    if (o->max > LIMIT_MAX)
        return bad("-m: MAX %zu is above 1G", o->max);
    if (o->min > o->max)
        return bad("-m: MIN %zu is above MAX %zu", o->min, o->max);
    for (int c = 0; c < OSU_NCOLL; c++) {
        if ((o->coll != OSU_NCOLL && o->coll != c) || c == OSU_BARRIER)
            continue;
        int t = o->type >= 0 ? o->type : osu_colls[c].reduction ? OSU_T_FLOAT : OSU_T_CHAR;
        if (o->max < osu_types[t].size)
            return bad("-m: MAX %zu is below one %s element (%zu bytes)", o->max,
                       osu_types[t].mpi, osu_types[t].size);
    }
    return 0;
}

/* ---- output ----------------------------------------------------------------- */

struct row {
    size_t bytes;
    double avg, min, max;
    long iters;
    int valid; /* -1 not validated, 0 fail, 1 pass */
};

static const char *vword(int v, int table)
{
    if (v < 0)
        return "";
    return table ? (v ? "Pass" : "Fail") : (v ? "pass" : "fail");
}

static void table_head(const struct opts *o, enum osu_coll c, enum osu_type t, int first)
{
    if (!first)
        printf("\n");
    printf("# OSU MPI %s Latency Test (" PROG ")\n", osu_colls[c].title);
    if (c != OSU_BARRIER) {
        printf("# Datatype: %s.\n", osu_types[t].mpi);
        printf("%-10s%18s", "# Size", "Avg Latency(us)");
    } else {
        printf("# %16s", "Avg Latency(us)");
    }
    if (o->full)
        printf("%18s%18s%12s", "Min Latency(us)", "Max Latency(us)", "Iterations");
    if (o->validate)
        printf("%12s", "Validation");
    printf("\n");
    fflush(stdout);
}

static void table_row(const struct opts *o, enum osu_coll c, const struct row *r)
{
    if (c != OSU_BARRIER)
        printf("%-10zu", r->bytes);
    printf("%18.2f", r->avg);
    if (o->full)
        printf("%18.2f%18.2f%12ld", r->min, r->max, r->iters);
    if (o->validate)
        printf("%12s", vword(r->valid, 1));
    printf("\n");
    fflush(stdout);
}

static void csv_row(enum osu_coll c, const struct row *r)
{
    printf("%s,%zu,%.3f,%.3f,%.3f,%ld,%s\n", osu_colls[c].name, r->bytes, r->avg, r->min,
           r->max, r->iters, vword(r->valid, 0));
    fflush(stdout);
}

static json_object *json_section(enum osu_coll c, enum osu_type t, int nranks)
{
    json_object *s = json_object_new_object();
    json_object_object_add(s, "collective", json_object_new_string(osu_colls[c].name));
    json_object_object_add(s, "datatype", c == OSU_BARRIER
                                              ? NULL
                                              : json_object_new_string(osu_types[t].mpi));
    json_object_object_add(s, "ranks", json_object_new_int(nranks));
    json_object_object_add(s, "results", json_object_new_array());
    return s;
}

static json_object *jdouble(double v)
{
    /* three decimals, like the csv (json-c prints a double's shortest
     * round-trip form otherwise, e.g. 1.2350000000000001) */
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", v);
    return json_object_new_double_s(v, buf);
}

static void json_row(json_object *sec, const struct row *r)
{
    json_object *o = json_object_new_object(), *res;
    json_object_object_add(o, "bytes", json_object_new_int64((int64_t)r->bytes));
    json_object_object_add(o, "avg_us", jdouble(r->avg));
    json_object_object_add(o, "min_us", jdouble(r->min));
    json_object_object_add(o, "max_us", jdouble(r->max));
    json_object_object_add(o, "iterations", json_object_new_int64(r->iters));
    json_object_object_add(o, "validation",
                           r->valid < 0 ? NULL : json_object_new_string(vword(r->valid, 0)));
    json_object_object_get_ex(sec, "results", &res);
    json_object_array_add(res, o);
}

/* ---- the sweep -------------------------------------------------------------- */

/* One size: warm-up, timed calls, validation; row filled on rank 0 (the
 * verdict on every rank).  Returns 0, or 1 if validation failed. */
static int one_size(const struct opts *o, struct osu_case *c, size_t bytes, struct row *r)
{
    long iters = o->iters ? o->iters : bytes > LARGE_MSG ? ITERS_LARGE : ITERS_SMALL;
    double t = 0, lat, sum = 0, mn = 0, mx = 0;

    osu_set_size(c, bytes);
    osu_fill(c, 0);
    /* MPI_Barrier between calls, as OSU does: under the plugin it is
     * offloaded too, so with modeled time every call starts from ranks the
     * modeled network has just synchronised. */
    for (long i = 0; i < o->warmup; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        osu_call(c);
    }
    for (long i = 0; i < iters; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        osu_call(c);
        t += MPI_Wtime() - t0;
    }
    lat = t / (double)iters * 1e6;
    PMPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&lat, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&lat, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    r->bytes = c->coll == OSU_BARRIER ? 0 : bytes;
    r->avg = sum / c->nranks;
    r->min = mn;
    r->max = mx;
    r->iters = iters;
    r->valid = -1;
    if (o->validate) {
        long wrong = 0, all = 0;
        for (int k = 1; k <= VAL_ROUNDS; k++)
            wrong += osu_validate(c, k);
        PMPI_Allreduce(&wrong, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        r->valid = all == 0;
        if (all && g_rank == 0)
            fprintf(stderr, "# %s %zu: validation failed, %ld wrong elements over all ranks\n",
                    osu_colls[c->coll].name, bytes, all);
    }
    return r->valid == 0;
}

/* Every size of one collective.  Returns -1 out of memory, else the number
 * of sizes that failed validation. */
static int run_coll(const struct opts *o, enum osu_coll coll, int nranks, int first,
                    json_object **secp)
{
    enum osu_type t = o->type >= 0 ? (enum osu_type)o->type
                      : osu_colls[coll].reduction ? OSU_T_FLOAT : OSU_T_CHAR;
    size_t es = osu_types[t].size;
    size_t lo = o->min > es ? (o->min + es - 1) / es * es : es, hi = lo;
    int progress = getenv("MPIFPGA_OSU_PROGRESS") && !strcmp(getenv("MPIFPGA_OSU_PROGRESS"), "1");
    struct osu_case c = {.coll = coll, .type = t, .rank = g_rank, .nranks = nranks};
    int oom, any_oom = 0, fails = 0;
    json_object *sec = NULL;

    if (coll == OSU_BARRIER)
        lo = hi = 0;
    else
        while (hi * 2 <= o->max)
            hi *= 2;
    oom = osu_alloc(&c, hi) != 0;
    PMPI_Allreduce(&oom, &any_oom, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_oom) {
        if (g_rank == 0)
            fprintf(stderr, PROG ": %s: out of memory for %zu-byte messages\n",
                    osu_colls[coll].name, hi);
        if (!oom)
            osu_free(&c);
        return -1;
    }
    if (g_rank == 0) {
        if (o->fmt == FMT_TABLE)
            table_head(o, coll, t, first);
        else if (o->fmt == FMT_JSON)
            sec = json_section(coll, t, nranks);
    }
    for (size_t b = lo; b <= hi; b = b ? b * 2 : 1) {
        struct row r;
        double t0 = MPI_Wtime();
        fails += one_size(o, &c, b, &r);
        if (g_rank == 0) {
            double el = MPI_Wtime() - t0;
            if (o->fmt == FMT_TABLE)
                table_row(o, coll, &r);
            else if (o->fmt == FMT_CSV)
                csv_row(coll, &r);
            else
                json_row(sec, &r);
            if (progress || el > PROGRESS_SLOW)
                fprintf(stderr, "# %s %zu done (%.2f s)\n", osu_colls[coll].name, b, el);
        }
        if (coll == OSU_BARRIER)
            break;
    }
    osu_free(&c);
    *secp = sec;
    return fails;
}

/* -h/--help anywhere: the text, before MPI_Init, so that it (and the man
 * page built from it) needs no process manager.  Under mpiexec only the
 * first rank prints it (hydra's PMI_RANK or PMIx's PMIX_RANK unset or 0,
 * as mpifpga-sim reads them: fpga_model/cli/sim_mpi_env.c). */
static int help_asked(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            const char *r = getenv("PMI_RANK");
            if (!r)
                r = getenv("PMIX_RANK");
            if (!r || !strcmp(r, "0"))
                usage(stdout);
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o;
    int nranks, status = 0;

    if (help_asked(argc, argv))
        return 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    if (parse(argc, argv, &o) != 0) {
        MPI_Finalize();
        return 2;
    }
    /* json: one object for one collective, an array of them for "all". */
    json_object *jout = NULL;
    if (g_rank == 0 && o.fmt == FMT_JSON && o.coll == OSU_NCOLL)
        jout = json_object_new_array();
    if (g_rank == 0 && o.fmt == FMT_CSV)
        printf("collective,bytes,avg_us,min_us,max_us,iterations,validation\n");

    for (int c = 0, first = 1; c < OSU_NCOLL; c++) {
        if (o.coll != OSU_NCOLL && o.coll != c)
            continue;
        json_object *sec = NULL;
        int f = run_coll(&o, (enum osu_coll)c, nranks, first, &sec);
        first = 0;
        if (sec && jout)
            json_object_array_add(jout, sec);
        else if (sec)
            jout = sec;
        if (f < 0) {
            status = 1;
            break;
        }
        if (f > 0)
            status = 1;
    }

    if (jout) {
        printf("%s\n", json_object_to_json_string_ext(jout, JSON_C_TO_STRING_PRETTY |
                                                                 JSON_C_TO_STRING_SPACED));
        json_object_put(jout);
    }
    fflush(stdout);
    MPI_Finalize();
    return status;
}
