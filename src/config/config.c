/* MPIFPGA_* environment variables (config.h). */
#include "config/config.h"
#include "mpifpga/ct.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const coll_names[MF_C_COUNT] = {
    "reduce", "allreduce", "bcast", "scatter", "gather", "allgather",
    "reduce_scatter", "reduce_scatter_block", "barrier", "scan", "exscan", "alltoall", "alltoallv"};
static const char *const coll_mpi_names[MF_C_COUNT] = {
    "MPI_Reduce", "MPI_Allreduce", "MPI_Bcast", "MPI_Scatter", "MPI_Gather", "MPI_Allgather",
    "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Barrier", "MPI_Scan", "MPI_Exscan",
    "MPI_Alltoall", "MPI_Alltoallv"};

const char *mf_coll_id_name(mf_coll_id_t c) { return c < MF_C_COUNT ? coll_names[c] : "?"; }
const char *mf_coll_id_mpi_name(mf_coll_id_t c)
{
    return c < MF_C_COUNT ? coll_mpi_names[c] : "?";
}

typedef int (*parse_fn)(const char *v, void *field, size_t fsize, char *err, size_t len);

typedef struct {
    const char *name;
    const char *def;
    size_t off, fsize;
    parse_fn parse;
    const char *help;
} var_t;

static int parse_bool(const char *v, void *f, size_t n, char *err, size_t len)
{
    (void)n;
    if (!strcasecmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "y") ||
        !strcasecmp(v, "on") || !strcasecmp(v, "true"))
        return *(int *)f = 1, 0;
    if (!strcasecmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "n") ||
        !strcasecmp(v, "off") || !strcasecmp(v, "false"))
        return *(int *)f = 0, 0;
    snprintf(err, len, "'%s' is not a boolean (use 1/0, yes/no, on/off)", v);
    return -1;
}

/* Sizes: a number with an optional K/M/G suffix (powers of 1024). */
static int parse_size(const char *v, void *f, size_t n, char *err, size_t len)
{
    (void)n;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10, end++;
    else if (*end == 'm' || *end == 'M')
        shift = 20, end++;
    else if (*end == 'g' || *end == 'G')
        shift = 30, end++;
    if (errno || end == v || *end || *v == '-' || (shift && x > (~0ull >> shift))) {
        snprintf(err, len, "'%s' is not a byte size (e.g. 0, 4096, 64K, 1M)", v);
        return -1;
    }
    *(uint64_t *)f = (uint64_t)x << shift;
    return 0;
}

/* Pieces must fit the processor header's 29-bit size (001 sec. 3.2). */
static int parse_segment(const char *v, void *f, size_t n, char *err, size_t len)
{
    if (parse_size(v, f, n, err, len))
        return -1;
    uint64_t x = *(uint64_t *)f;
    if (x < 64 || x > MF_PROC_MAX_SIZE) {
        snprintf(err, len, "'%s' is outside 64 .. %u bytes (29-bit size field)", v,
                 MF_PROC_MAX_SIZE);
        return -1;
    }
    return 0;
}

static int parse_int_range(const char *v, int *f, long lo, long hi, char *err, size_t len)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) {
        snprintf(err, len, "'%s' is not an integer in %ld..%ld", v, lo, hi);
        return -1;
    }
    *f = (int)x;
    return 0;
}

static int parse_ppn(const char *v, void *f, size_t n, char *err, size_t len)
{
    (void)n;
    return parse_int_range(v, f, 1, 1024, err, len);
}

static int parse_slots(const char *v, void *f, size_t n, char *err, size_t len)
{
    (void)n; /* 5-bit context ID: at most 32 CT rows (001 sec. 3.2) */
    return parse_int_range(v, f, 0, MF_MAX_CTX, err, len);
}

static int parse_timeout(const char *v, void *f, size_t n, char *err, size_t len)
{
    (void)n;
    return parse_int_range(v, f, 1, 3600, err, len);
}

static int parse_verbose(const char *v, void *f, size_t n, char *err, size_t len)
{
    (void)n;
    return parse_int_range(v, f, 0, 2, err, len);
}

static int parse_modeled(const char *v, void *f, size_t n, char *err, size_t len)
{
    if (!strcasecmp(v, "wall"))
        return *(int *)f = MF_MODELED_WALL, 0;
    if (!strcasecmp(v, "cpu"))
        return *(int *)f = MF_MODELED_CPU, 0;
    if (!strcasecmp(v, "none"))
        return *(int *)f = MF_MODELED_NONE, 0;
    if (parse_bool(v, f, n, err, len) == 0) {
        if (*(int *)f)
            *(int *)f = MF_MODELED_CPU; /* 1: the load-independent clock */
        return 0;
    }
    snprintf(err, len, "'%s' is not 0, 1, cpu, none or wall", v);
    return -1;
}

static int parse_algorithm(const char *v, void *f, size_t n, char *err, size_t len)
{
    mf_algo_mode_t m;
    (void)n;
    if (mf_algo_mode_parse(v, &m)) {
        snprintf(err, len, "'%s' is not paper, tree or auto", v);
        return -1;
    }
    *(int *)f = (int)m;
    return 0;
}

static int parse_scale(const char *v, void *f, size_t n, char *err, size_t len)
{
    (void)n;
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d >= 0 && d <= 1e6)) {
        snprintf(err, len, "'%s' is not a factor between 0 and 1e6", v);
        return -1;
    }
    *(double *)f = d;
    return 0;
}

/* A decimal number in [lo, hi] (lo excluded if lo_open) into a double. */
static int parse_real(const char *v, double *f, double lo, int lo_open, double hi,
                      const char *what, char *err, size_t len)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !((lo_open ? d > lo : d >= lo) && d <= hi)) {
        snprintf(err, len, "'%s' is not %s (%g %s x <= %g)", v, what, lo, lo_open ? "<" : "<=",
                 hi);
        return -1;
    }
    *f = d;
    return 0;
}

static int parse_mhz(const char *v, void *f, size_t n, char *err, size_t len)
{
    (void)n;
    return parse_real(v, f, 0, 1, 1e4, "a clock in MHz", err, len);
}

static int parse_ns(const char *v, void *f, size_t n, char *err, size_t len)
{
    (void)n;
    return parse_real(v, f, 0, 0, 1e7, "a latency in ns", err, len);
}

static int parse_str(const char *v, void *f, size_t n, char *err, size_t len)
{
    if (strlen(v) >= n) {
        snprintf(err, len, "value longer than %zu characters", n - 1);
        return -1;
    }
    strcpy(f, v);
    return 0;
}

static int parse_device(const char *v, void *f, size_t n, char *err, size_t len)
{
    if (strcmp(v, "model") && strcmp(v, "fpga")) {
        snprintf(err, len, "'%s' is not a device (model = the modeled network, fpga = boards)", v);
        return -1;
    }
    return parse_str(v, f, n, err, len);
}

int mf_config_parse_colls(const char *s, uint32_t *mask, char *err, size_t errlen)
{
    uint32_t all = (1u << MF_C_COUNT) - 1, m = 0;
    int negate = s[0] == '^';
    char buf[256];
    if (snprintf(buf, sizeof buf, "%s", s + negate) >= (int)sizeof buf)
        return snprintf(err, errlen, "collective list too long"), -1;
    if (!strcmp(buf, "all") || !strcmp(buf, "")) {
        *mask = negate ? 0 : all;
        return 0;
    }
    for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int i = 0;
        while (i < MF_C_COUNT && strcasecmp(t, coll_names[i]))
            i++;
        if (i == MF_C_COUNT) {
            snprintf(err, errlen,
                     "unknown collective '%s' (use all, or a list of reduce, allreduce, bcast, "
                     "scatter, gather, allgather, reduce_scatter, reduce_scatter_block, barrier, "
                     "scan, exscan, alltoall, alltoallv; "
                     "^list excludes)", t);
            return -1;
        }
        m |= 1u << i;
    }
    *mask = negate ? all & ~m : m;
    return 0;
}

static int parse_colls(const char *v, void *f, size_t n, char *err, size_t len)
{
    (void)n;
    return mf_config_parse_colls(v, f, err, len);
}

#define F(x) offsetof(mf_config_t, x), sizeof(((mf_config_t *)0)->x)
static const var_t vars[] = {
    {"MPIFPGA_ENABLE", "1", F(enable), parse_bool, "offload collectives at all (0: every call goes to MPI)"},
    {"MPIFPGA_COLLS", "all", F(colls), parse_colls, "collectives to offload: all, a list, or ^list to exclude"},
    {"MPIFPGA_MIN_BYTES", "0", F(min_bytes), parse_size, "offload only messages of at least this many bytes"},
    {"MPIFPGA_MAX_BYTES", "0", F(max_bytes), parse_size, "offload only messages up to this many bytes (0: no limit)"},
    {"MPIFPGA_SEGMENT_BYTES", "256M", F(segment_bytes), parse_segment, "bcast/reduce/allreduce vectors longer than this go as several calls (<= 29-bit size field)"},
    {"MPIFPGA_DEVICE", "model", F(device), parse_device, "model: the modeled switch network; fpga: real boards"},
    {"MPIFPGA_FPGA_DEV", "/dev/xdma0", F(fpga_dev), parse_str, "fpga device: prefix of the board's stream queues, <prefix>_h2c_<q> and <prefix>_c2h_<q> (XDMA/QDMA), q = the rank's host port"},
    {"MPIFPGA_FPGA_MHZ", "250", F(fpga_mhz), parse_mhz, "fpga device: the board engine's clock, which turns its cycle counts into time (001 sec. 6: 250 MHz)"},
    {"MPIFPGA_FPGA_PCIE_NS", "500", F(fpga_pcie_ns), parse_ns, "fpga device: one-way host-board PCIe latency added to each call's engine cycles, in and out (u280.conf's assumption: 500)"},
    {"MPIFPGA_ENGINE", "auto", F(engine), parse_str, "engine address; auto: rank 0 starts one; none: no engine"},
    {"MPIFPGA_SWITCHD", "auto", F(switchd), parse_str, "engine program for auto mode (auto: next to libmpifpga, then PATH)"},
    {"MPIFPGA_TOPOLOGY", "auto", F(topology), parse_str, "modeled topology in auto mode (auto: torus fitted to the job)"},
    {"MPIFPGA_PARAMS", "u280", F(params), parse_str, "parameter set of the modeled switch (u280, novog, or a file)"},
    {"MPIFPGA_PPN", "1", F(ppn), parse_ppn, "ranks per modeled node: rank r is on node r / PPN"},
    {"MPIFPGA_CT_SLOTS", "32", F(ct_slots), parse_slots, "communicator-table rows per rank (0..32, 001 sec. 3.2)"},
    {"MPIFPGA_CONNECT_TIMEOUT", "10", F(connect_timeout), parse_timeout, "seconds to wait for the engine at MPI_Init"},
    {"MPIFPGA_PROVIDER", "auto", F(provider), parse_str, "libfabric provider in auto mode (auto: shm on one host, else tcp;ofi_rxm)"},
    {"MPIFPGA_SHM_PAYLOAD", "1G", F(shm_payload), parse_size, "engine on this host: payloads go through a shared buffer per rank of up to this many bytes, not messages (0: always messages)"},
    {"MPIFPGA_ALGORITHM", "paper", F(algorithm), parse_algorithm, "the switches' algorithms: paper (001 Table 1, MPICH's selection), tree (streaming trees for Bcast, Reduce, Allreduce, rings in every dimension at once for Allgather and Reduce_scatter, where the communicator is the whole torus, one rank per node) or auto; on a fat tree the leaf and spine switches aggregate Bcast, Reduce, Allreduce and Allgather of the whole machine in every mode"},
    {"MPIFPGA_MODELED_TIME", "0", F(modeled_time), parse_modeled, "MPI_Wtime on a virtual clock: modeled time in offloaded calls; between MPI calls 1/cpu the thread's CPU time, none nothing, wall the host wall clock (load-dependent)"},
    {"MPIFPGA_COMPUTE_SCALE", "1", F(compute_scale), parse_scale, "modeled time: factor on the CPU time charged between MPI calls (e.g. 0.5 for a host twice as fast)"},
    {"MPIFPGA_VERBOSE", "0", F(verbose), parse_verbose, "1: summary on stderr at MPI_Finalize; 2: also warnings per communicator"},
    {"MPIFPGA_REPORT", "", F(report), parse_str, "write the run report as JSON to this path at MPI_Finalize"},
    {"MPIFPGA_INSTANCES", "0", F(instances), parse_bool, "per call site of each collective: calls, bytes, host and modeled times (in the report)"},
    {"MPIFPGA_NONBLOCKING", "1", F(nonblocking), parse_bool, "offload MPI_I* collectives and persistent starts (0: MPICH runs them)"},
    {"MPIFPGA_PROFILE", "0", F(profile), parse_bool, "profile mode: no offload, every call runs in MPI and is measured per call site"},
};
#undef F
#define NVARS (sizeof vars / sizeof vars[0])

int mf_config_load(mf_config_t *cfg, char *err, size_t errlen)
{
    int rc = 0;
    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < NVARS; i++) {
        const var_t *v = &vars[i];
        char e[256];
        void *field = (char *)cfg + v->off;
        if (v->parse(v->def, field, v->fsize, e, sizeof e))
            abort(); /* a default that does not parse is a bug in this table */
        const char *val = getenv(v->name);
        if (!val || v->parse(val, field, v->fsize, e, sizeof e) == 0)
            continue;
        if (rc == 0)
            snprintf(err, errlen, "%s: %s", v->name, e);
        v->parse(v->def, field, v->fsize, e, sizeof e);
        rc = -1;
    }
    return rc;
}

void mf_config_print(const mf_config_t *cfg, FILE *out)
{
    (void)cfg; /* values are printed as given: the env string or the default */
    for (size_t i = 0; i < NVARS; i++) {
        const char *val = getenv(vars[i].name);
        fprintf(out, "%-24s = %-12s (default %s%s)\n", vars[i].name, val ? val : vars[i].def,
                vars[i].def[0] ? vars[i].def : "\"\"", "");
        fprintf(out, "%-24s   # %s\n", "", vars[i].help);
    }
}
