/*
 * Parameter sets of the switch model (see params.h).
 *
 * One table row per key drives parsing, range checks and printing.  The
 * built-in sets are the data files u280.conf / novog.conf, compiled in as
 * string literals by conf2h.sh (u280.conf.h, novog.conf.h); a user file is
 * applied on top of the u280 set.  Documents: 001 = MPI-FPGA paper,
 * 000 = Novo-G# dissertation, 002 = multi-FPGA stream computing (credits).
 */
#include "params.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "u280.conf.h" /* static const char u280_conf[] */
#include "novog.conf.h" /* static const char novog_conf[] */

/* q of 001 Eq. 2: "a constant (set to 2) to provide slack" (001 sec. 4.1). */
#define MF_EQ2_Q 2u
/* The derived margin bounds a jittery link latency by mean + 4 sd: the largest
 * latency in 000 Table 3.3 (224 ns) is mean 175.7 ns + 3.9 sd (12.34 ns). */
#define MF_JITTER_BOUND_SD 4.0
/* Longest line of a parameter file, and largest file accepted. */
#define MF_LINE_MAX 1024
#define MF_FILE_MAX (1u << 20)

/* ------------------------------------------------------------------------ */
/* Key table                                                                 */

typedef enum { MF_T_STR, MF_T_UINT, MF_T_U64, MF_T_DBL } mf_ptype_t;

enum {
    MF_F_MIN_OPEN = 1u << 0, /* value must be strictly greater than min */
    MF_F_MUL64 = 1u << 1,    /* multiple of 64 */
    MF_F_POW2 = 1u << 2,     /* power of two */
};

typedef struct {
    const char *key;
    mf_ptype_t type;
    size_t off;
    double min, max; /* inclusive unless MF_F_MIN_OPEN; unused for STR, U64 */
    unsigned flags;
    const char *help;
} mf_pdef_t;

#define ROW(k, t, lo, hi, fl, h) { #k, t, offsetof(mf_params_t, k), lo, hi, fl, h }

static const mf_pdef_t mf_pdefs[] = {
    ROW(name, MF_T_STR, 0, 0, 0, "parameter set name"),
    ROW(clock_mhz, MF_T_DBL, 0, 5000, MF_F_MIN_OPEN, "switch clock [MHz]"),
    ROW(phit_bits, MF_T_UINT, 64, 4096, MF_F_MUL64, "phit width [bits], multiple of 64"),
    ROW(dma_phits_per_cycle, MF_T_UINT, 1, 16, 0, "DMA engine / packet converter phits per cycle"),
    ROW(datapath_phits_per_cycle, MF_T_UINT, 1, 16, 0, "switch datapath phits per cycle"),
    ROW(net_pkt_phits, MF_T_UINT, 1, 64, MF_F_POW2, "max payload phits per network packet, power of two"),
    ROW(link_latency_ns, MF_T_DBL, 0, 1e6, 0, "mean one-way link latency [ns]"),
    ROW(link_jitter_sd_ns, MF_T_DBL, 0, 1e5, 0, "Gaussian sd of link latency [ns], 0 = none"),
    ROW(link_gbps, MF_T_DBL, 0, 1e4, MF_F_MIN_OPEN, "peak link bandwidth [Gb/s]"),
    ROW(vcs, MF_T_UINT, 2, 64, 0, "VCs per input port, >= 2 for dateline torus routing"),
    ROW(input_fifo_bytes, MF_T_UINT, 1, 1u << 30, 0, "input FIFO per port [bytes], split over VCs"),
    ROW(fifo_margin_phits, MF_T_UINT, 0, 1u << 24, 0, "back-pressure margin m [phits], 0 = derive"),
    ROW(router_stage_cycles, MF_T_UINT, 1, 64, 0, "cycles per router stage (RC, VA, SA, ST)"),
    ROW(ct_entries, MF_T_UINT, 1, 32, 0, "communicator table rows N_C (5-bit context ID)"),
    ROW(max_ranks, MF_T_UINT, 2, 65536, 0, "MAX_R, max MPI ranks (16-bit rank)"),
    ROW(sa_cgr, MF_T_UINT, 1, 64, 0, "CGR units per switch (SA)"),
    ROW(aglu_latency_cycles, MF_T_UINT, 0, 1024, 0, "AgLU pipeline depth [cycles]"),
    ROW(collector_cycles, MF_T_UINT, 0, 1024, 0, "collector / L2 switch traversal [cycles]"),
    ROW(pcie_latency_ns, MF_T_DBL, 0, 1e7, 0, "one-way PCIe DMA latency [ns]"),
    ROW(host_overhead_ns, MF_T_DBL, 0, 1e7, 0, "host cost to post / complete an offloaded call [ns]"),
    ROW(oversub, MF_T_UINT, 1, 64, 0, "fat-tree leaf down:up ratio (3 = 3:1)"),
    ROW(seed, MF_T_U64, 0, 0, 0, "jitter / traffic RNG seed"),
};

#define MF_NKEYS (sizeof mf_pdefs / sizeof mf_pdefs[0])

typedef struct {
    const char *name;
    const char *text;
} mf_builtin_t;

static const mf_builtin_t mf_builtins[] = {
    { "u280", u280_conf },
    { "novog", novog_conf },
};

static const char *const mf_builtin_names[] = { "u280", "novog", NULL };

const char *const *mf_params_builtin_names(void) { return mf_builtin_names; }

/* ------------------------------------------------------------------------ */
/* Small helpers                                                             */

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

static const mf_pdef_t *find_key(const char *key)
{
    for (size_t i = 0; i < MF_NKEYS; i++)
        if (strcmp(mf_pdefs[i].key, key) == 0)
            return &mf_pdefs[i];
    return NULL;
}

static void *field(mf_params_t *p, const mf_pdef_t *d) { return (char *)p + d->off; }

static const void *cfield(const mf_params_t *p, const mf_pdef_t *d)
{
    return (const char *)p + d->off;
}

/* Decimal unsigned integer, whole string, no sign. */
static int parse_u64(const char *s, uint64_t *out)
{
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* Finite floating-point number, whole string. */
static int parse_double(const char *s, double *out)
{
    if (!*s)
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* Check a numeric value against its row: range and shape flags.  text is
 * the value as written, for the message. */
static int check_range(const mf_pdef_t *d, double v, const char *text, const char *where,
                       char *err, size_t errlen)
{
    int low = (d->flags & MF_F_MIN_OPEN) ? !(v > d->min) : v < d->min;
    if (low || v > d->max)
        return fail(err, errlen, "%s%s = %s out of range %s%g, %g] (%s)", where, d->key, text,
                    (d->flags & MF_F_MIN_OPEN) ? "(" : "[", d->min, d->max, d->help);
    if ((d->flags & MF_F_MUL64) && fmod(v, 64) != 0)
        return fail(err, errlen, "%s%s = %s is not a multiple of 64 (%s)", where, d->key, text,
                    d->help);
    if ((d->flags & MF_F_POW2) && !is_pow2((uint64_t)v))
        return fail(err, errlen, "%s%s = %s is not a power of two (%s)", where, d->key, text,
                    d->help);
    return 0;
}

static int set_string(mf_params_t *p, const mf_pdef_t *d, const char *value, const char *where,
                      char *err, size_t errlen)
{
    size_t len = strlen(value);
    if (len == 0 || len >= sizeof p->name)
        return fail(err, errlen, "%sbad value '%s' for key '%s' (1..%zu characters)", where, value,
                    d->key, sizeof p->name - 1);
    memcpy(field(p, d), value, len + 1);
    return 0;
}

/* Parse, check and store one value.  where is "" or "file:line: ". */
static int set_field(mf_params_t *p, const mf_pdef_t *d, const char *value, const char *where,
                     char *err, size_t errlen)
{
    uint64_t u;
    double v;
    switch (d->type) {
    case MF_T_STR:
        return set_string(p, d, value, where, err, errlen);
    case MF_T_U64:
        if (parse_u64(value, &u))
            return fail(err, errlen, "%sbad value '%s' for key '%s' (expected an unsigned integer)",
                        where, value, d->key);
        *(uint64_t *)field(p, d) = u;
        return 0;
    case MF_T_UINT:
        if (parse_u64(value, &u))
            return fail(err, errlen, "%sbad value '%s' for key '%s' (expected an unsigned integer)",
                        where, value, d->key);
        if (check_range(d, u > UINT_MAX ? HUGE_VAL : (double)u, value, where, err, errlen))
            return -1;
        *(unsigned *)field(p, d) = (unsigned)u;
        return 0;
    case MF_T_DBL:
        if (parse_double(value, &v))
            return fail(err, errlen, "%sbad value '%s' for key '%s' (expected a number)", where,
                        value, d->key);
        if (check_range(d, v, value, where, err, errlen))
            return -1;
        *(double *)field(p, d) = v;
        return 0;
    }
    return fail(err, errlen, "%sinternal: bad type for key '%s'", where, d->key);
}

/* ------------------------------------------------------------------------ */
/* Text parser                                                               */

/* Split "key = value  # comment".  Returns 0 for a blank/comment line, 1 for
 * a pair (key, value trimmed, in place), -1 for a line without '='. */
static int split_line(char *line, char **key, char **value)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    char *s = trim(line);
    if (!*s)
        return 0;
    char *eq = strchr(s, '=');
    if (!eq)
        return -1;
    *eq = '\0';
    *key = trim(s);
    *value = trim(eq + 1);
    return 1;
}

/* Copy the next line of text into buf; returns the start of the following
 * line, or NULL at the end.  *too_long is set if the line did not fit. */
static const char *next_line(const char *text, char *buf, size_t buflen, int *too_long)
{
    if (!*text)
        return NULL;
    size_t n = strcspn(text, "\n");
    *too_long = n >= buflen;
    size_t keep = *too_long ? buflen - 1 : n;
    memcpy(buf, text, keep);
    buf[keep] = '\0';
    return text[n] ? text + n + 1 : text + n;
}

static int apply_line(mf_params_t *p, char *line, const char *src, unsigned lineno,
                      unsigned seen[MF_NKEYS], char *err, size_t errlen)
{
    char *key, *value;
    int kind = split_line(line, &key, &value);
    if (kind == 0)
        return 0;
    if (kind < 0)
        return fail(err, errlen, "%s:%u: expected 'key = value'", src, lineno);
    const mf_pdef_t *d = find_key(key);
    if (!d)
        return fail(err, errlen, "%s:%u: unknown key '%s'", src, lineno, key);
    size_t i = (size_t)(d - mf_pdefs);
    if (seen[i])
        return fail(err, errlen, "%s:%u: duplicate key '%s' (first set on line %u)", src, lineno,
                    key, seen[i]);
    seen[i] = lineno;
    char where[MF_LINE_MAX];
    snprintf(where, sizeof where, "%s:%u: ", src, lineno);
    return set_field(p, d, value, where, err, errlen);
}

/* Apply every line of text to p.  With require_all, every key must be set
 * (built-in sets are complete). */
static int apply_text(mf_params_t *p, const char *text, const char *src, int require_all,
                      char *err, size_t errlen)
{
    unsigned seen[MF_NKEYS] = { 0 };
    char line[MF_LINE_MAX];
    unsigned lineno = 0;
    int too_long;
    while ((text = next_line(text, line, sizeof line, &too_long))) {
        lineno++;
        if (too_long)
            return fail(err, errlen, "%s:%u: line longer than %d characters", src, lineno,
                        MF_LINE_MAX - 1);
        if (apply_line(p, line, src, lineno, seen, err, errlen))
            return -1;
    }
    for (size_t i = 0; require_all && i < MF_NKEYS; i++)
        if (!seen[i])
            return fail(err, errlen, "%s: missing key '%s'", src, mf_pdefs[i].key);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Loading                                                                   */

static const mf_builtin_t *find_builtin(const char *name)
{
    for (size_t i = 0; i < sizeof mf_builtins / sizeof mf_builtins[0]; i++)
        if (strcasecmp(mf_builtins[i].name, name) == 0)
            return &mf_builtins[i];
    return NULL;
}

static int load_builtin(const mf_builtin_t *b, mf_params_t *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    return apply_text(p, b->text, b->name, 1, err, errlen);
}

/* Whole file as a NUL-terminated string (caller frees), or NULL with err. */
static char *read_text_file(FILE *f, const char *path, char *err, size_t errlen)
{
    char *buf = malloc(MF_FILE_MAX + 1);
    if (!buf) {
        fail(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    size_t n = fread(buf, 1, MF_FILE_MAX + 1, f);
    if (ferror(f) || n > MF_FILE_MAX || memchr(buf, '\0', n)) {
        fail(err, errlen, "%s: %s", path,
             ferror(f) ? "cannot read file" : n > MF_FILE_MAX ? "file too large" : "not a text file");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* u280 defaults, named after the file, then the file's keys. */
static int load_file(FILE *f, const char *path, mf_params_t *p, char *err, size_t errlen)
{
    char *text = read_text_file(f, path, err, errlen);
    if (!text)
        return -1;
    int rc = load_builtin(find_builtin("u280"), p, err, errlen);
    if (rc == 0) {
        snprintf(p->name, sizeof p->name, "%s", base_name(path));
        rc = apply_text(p, text, path, 0, err, errlen);
    }
    free(text);
    return rc;
}

int mf_params_load(const char *name, mf_params_t *p, char *err, size_t errlen)
{
    if (!name || !p)
        return fail(err, errlen, "mf_params_load: no parameter set name");
    mf_params_t tmp;
    int rc;
    const mf_builtin_t *b = find_builtin(name);
    if (b) {
        rc = load_builtin(b, &tmp, err, errlen);
    } else {
        FILE *f = fopen(name, "r");
        if (!f)
            return fail(err, errlen,
                        "unknown parameter set '%s' (built-in: u280, novog; or a file path)", name);
        rc = load_file(f, name, &tmp, err, errlen);
        fclose(f);
    }
    if (rc)
        return rc;
    char why[MF_LINE_MAX];
    if (mf_params_check(&tmp, why, sizeof why))
        return fail(err, errlen, "%s: %s", b ? b->name : name, why);
    *p = tmp;
    return 0;
}

int mf_params_set(mf_params_t *p, const char *key, const char *value, char *err, size_t errlen)
{
    char kbuf[MF_LINE_MAX], vbuf[MF_LINE_MAX];
    if (!p || !key)
        return fail(err, errlen, "mf_params_set: no key");
    if (!value) { /* key holds "key=value" */
        const char *eq = strchr(key, '=');
        if (!eq)
            return fail(err, errlen, "override '%s' is not key=value", key);
        snprintf(vbuf, sizeof vbuf, "%s", eq + 1);
        snprintf(kbuf, sizeof kbuf, "%.*s", (int)(eq - key), key);
    } else {
        snprintf(kbuf, sizeof kbuf, "%s", key);
        snprintf(vbuf, sizeof vbuf, "%s", value);
    }
    const char *k = trim(kbuf), *v = trim(vbuf);
    const mf_pdef_t *d = find_key(k);
    if (!d)
        return fail(err, errlen, "unknown key '%s'", k);
    return set_field(p, d, v, "", err, errlen);
}

/* ------------------------------------------------------------------------ */
/* Printing                                                                  */

/* Shortest of %.15g / %.17g that reads back as the same double. */
static void format_double(char *buf, size_t len, double v)
{
    snprintf(buf, len, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, len, "%.17g", v);
}

static void format_value(const mf_params_t *p, const mf_pdef_t *d, char *buf, size_t len)
{
    const void *f = cfield(p, d);
    switch (d->type) {
    case MF_T_STR: snprintf(buf, len, "%s", (const char *)f); break;
    case MF_T_UINT: snprintf(buf, len, "%u", *(const unsigned *)f); break;
    case MF_T_U64: snprintf(buf, len, "%" PRIu64, *(const uint64_t *)f); break;
    case MF_T_DBL: format_double(buf, len, *(const double *)f); break;
    }
}

static void print_derived(const mf_params_t *p, FILE *out)
{
    fprintf(out, "# derived: cycle %g ns, link %g bytes/cycle, link latency %" PRIu64
                 " cycles, margin m %u phits,\n",
            mf_params_cycle_ns(p), mf_params_link_bpc_fx(p) / 65536.0,
            mf_params_ns_to_cycles(p, p->link_latency_ns), mf_params_margin_phits(p));
    fprintf(out, "#   CT %" PRIu64 " bits (001 Eq. 1), min input buffer %" PRIu64
                 " bytes for tree depth 6 (001 Eq. 2)\n",
            mf_ct_size_bits(p->max_ranks, p->ct_entries), mf_min_buf_bytes(p, 6));
}

void mf_params_print(const mf_params_t *p, FILE *out)
{
    char val[64];
    fprintf(out, "# MPI-FPGA model parameters '%s' (load with mf_params_load)\n", p->name);
    for (size_t i = 0; i < MF_NKEYS; i++) {
        format_value(p, &mf_pdefs[i], val, sizeof val);
        fprintf(out, "%-24s = %-12s # %s\n", mf_pdefs[i].key, val, mf_pdefs[i].help);
    }
    print_derived(p, out);
}

/* ------------------------------------------------------------------------ */
/* Whole-set checks                                                          */

/* Every field against its table row (for sets built or changed in code). */
static int check_rows(const mf_params_t *p, char *err, size_t errlen)
{
    if (!memchr(p->name, '\0', sizeof p->name) || !p->name[0])
        return fail(err, errlen, "name is empty or not NUL-terminated");
    char text[64];
    for (size_t i = 0; i < MF_NKEYS; i++) {
        const mf_pdef_t *d = &mf_pdefs[i];
        if (d->type != MF_T_UINT && d->type != MF_T_DBL)
            continue;
        double v = d->type == MF_T_UINT ? *(const unsigned *)cfield(p, d)
                                        : *(const double *)cfield(p, d);
        if (!isfinite(v))
            return fail(err, errlen, "%s is not a finite number", d->key);
        format_value(p, d, text, sizeof text);
        if (check_range(d, v, text, "", err, errlen))
            return -1;
    }
    return 0;
}

/* Relations between fields.  Needs check_rows() first (no zero divisors). */
static int check_relations(const mf_params_t *p, char *err, size_t errlen)
{
    unsigned phit = mf_params_phit_bytes(p);
    uint64_t pkt = (uint64_t)p->net_pkt_phits * phit;
    uint64_t vc_phits = (uint64_t)p->input_fifo_bytes / phit / p->vcs;
    if (p->input_fifo_bytes % phit)
        return fail(err, errlen, "input_fifo_bytes = %u is not a whole number of %u-byte phits",
                    p->input_fifo_bytes, phit);
    if ((uint64_t)p->input_fifo_bytes < 2 * pkt || vc_phits < p->net_pkt_phits)
        return fail(err, errlen,
                    "input_fifo_bytes = %u too small: needs >= 2 network packets and one per VC "
                    "(%u VCs x %" PRIu64 " bytes)",
                    p->input_fifo_bytes, p->vcs, pkt);
    unsigned m = mf_params_margin_phits(p);
    if ((uint64_t)m + p->net_pkt_phits > vc_phits)
        return fail(err, errlen,
                    "back-pressure margin m = %u phits + one %u-phit packet exceeds the %" PRIu64
                    "-phit FIFO of each VC (input_fifo_bytes = %u, vcs = %u)",
                    m, p->net_pkt_phits, vc_phits, p->input_fifo_bytes, p->vcs);
    return 0;
}

int mf_params_check(const mf_params_t *p, char *err, size_t errlen)
{
    if (!p)
        return fail(err, errlen, "mf_params_check: no parameter set");
    if (check_rows(p, err, errlen))
        return -1;
    return check_relations(p, err, errlen);
}

/* ------------------------------------------------------------------------ */
/* Derived figures                                                           */

double mf_params_cycle_ns(const mf_params_t *p) { return 1000.0 / p->clock_mhz; }

unsigned mf_params_phit_bytes(const mf_params_t *p) { return p->phit_bits / 8; }

uint64_t mf_params_ns_to_cycles(const mf_params_t *p, double ns)
{
    double c = ns / mf_params_cycle_ns(p);
    if (!(c > 0))
        return 0;
    if (c >= 18446744073709549568.0) /* largest double below 2^64 */
        return UINT64_MAX;
    return (uint64_t)floor(c + 0.5);
}

/* Gb/s -> bytes per cycle: gbps * 1e9 / 8 / (clock_mhz * 1e6). */
static double link_bytes_per_cycle(const mf_params_t *p)
{
    return p->link_gbps * 125.0 / p->clock_mhz;
}

uint32_t mf_params_link_bpc_fx(const mf_params_t *p)
{
    double fx = floor(link_bytes_per_cycle(p) * 65536.0 + 0.5);
    return fx >= (double)UINT32_MAX ? UINT32_MAX : fx < 1 ? 1u : (uint32_t)fx;
}

/* ceil() that ignores floating-point dust just above an integer. */
static double ceil_eps(double x) { return ceil(x - 1e-9); }

/* Margin m: data the upstream node keeps sending while the stop signal makes
 * its round trip (001 sec. 2.5; the same bound as 002 Eq. 3, RX depth >
 * 2 x link delay): 2 x latency in cycles x link phits per cycle, rounded up.
 * A jittery link counts its latency as mean + MF_JITTER_BOUND_SD sd. */
unsigned mf_params_margin_phits(const mf_params_t *p)
{
    if (p->fifo_margin_phits)
        return p->fifo_margin_phits;
    double lat_ns = p->link_latency_ns + MF_JITTER_BOUND_SD * p->link_jitter_sd_ns;
    double lat_cycles = lat_ns / mf_params_cycle_ns(p);
    double phits_per_cycle = link_bytes_per_cycle(p) / mf_params_phit_bytes(p);
    double m = ceil_eps(2.0 * lat_cycles * phits_per_cycle);
    return m >= (double)UINT_MAX ? UINT_MAX : (unsigned)m;
}

/* 001 Eq. 1 (sec. 3.2): Size = (log(MAX_R) x (log(MAX_R) + 2) + 8) x N_C bits,
 * log2 rounded up. */
uint64_t mf_ct_size_bits(unsigned max_ranks, unsigned n_ctx)
{
    uint64_t lg = 0;
    while (lg < 64 && (1ull << lg) < max_ranks)
        lg++;
    return (lg * (lg + 2) + 8) * n_ctx;
}

/* 001 Eq. 2 (sec. 4.1): min buf = (m + (d + q) x (L / T_clk)) x Ph, q = 2;
 * L / T_clk unrounded, the phit count rounded up, result in bytes. */
uint64_t mf_min_buf_bytes(const mf_params_t *p, unsigned depth)
{
    double l_cycles = p->link_latency_ns / mf_params_cycle_ns(p);
    double phits = mf_params_margin_phits(p) + ((double)depth + MF_EQ2_Q) * l_cycles;
    return (uint64_t)ceil_eps(phits) * mf_params_phit_bytes(p);
}
