/*
 * Parameter sets of the switch model (see params.h).
 *
 * One table row per key (conf.h) drives parsing, range checks and printing.  The
 * built-in sets are the data files u280.conf / novog.conf, compiled in as
 * string literals by conf2h.sh (u280.conf.h, novog.conf.h); a user file is
 * applied on top of the u280 set.  Documents: 001 = MPI-FPGA paper,
 * 000 = Novo-G# dissertation, 002 = multi-FPGA stream computing (credits).
 */
#include "params.h"
#include "conf.h"

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
    ROW(park_mib, MF_T_UINT, 0, 1u << 20, 0, "switch memory parking gather streams [MiB], 0 = FIFOs only"),
    ROW(eject_per_port, MF_T_UINT, 0, 1, 0, "collective packets enter the collector by a lane per input port (1) or one shared lane (0)"),
    ROW(credit_hop_cycles, MF_T_UINT, 0, 1u << 20, 0, "cycles a stream's credits take back per hop of the path [cycles], 0 = seen the next cycle"),
    ROW(pcie_latency_ns, MF_T_DBL, 0, 1e7, 0, "one-way PCIe DMA latency [ns]"),
    ROW(host_overhead_ns, MF_T_DBL, 0, 1e7, 0, "host cost to post / complete an offloaded call [ns]"),
    ROW(oversub, MF_T_UINT, 1, 64, 0, "fat-tree leaf down:up ratio (3 = 3:1)"),
    ROW(seed, MF_T_U64, 0, 0, 0, "jitter / traffic RNG seed"),
};


static const mf_builtin_t mf_builtins[] = {
    { "u280", u280_conf },
    { "novog", novog_conf },
};

static const char *const mf_builtin_names[] = { "u280", "novog", NULL };

const char *const *mf_params_builtin_names(void) { return mf_builtin_names; }

static int check_relations(const void *obj, char *err, size_t errlen);

static const mf_conf_schema_t schema = {
    "parameter set", mf_pdefs, sizeof mf_pdefs / sizeof mf_pdefs[0],
    mf_builtins, sizeof mf_builtins / sizeof mf_builtins[0], sizeof(mf_params_t),
    check_relations,
};

int mf_params_load(const char *name, mf_params_t *p, char *err, size_t errlen)
{
    return mf_conf_load(&schema, name, p, err, errlen);
}

int mf_params_set(mf_params_t *p, const char *key, const char *value, char *err, size_t errlen)
{
    return mf_conf_set(&schema, p, key, value, err, errlen);
}

int mf_params_check(const mf_params_t *p, char *err, size_t errlen)
{
    return mf_conf_check(&schema, p, err, errlen);
}

/* Relations between fields.  Needs check_rows() first (no zero divisors). */
static int check_relations(const void *obj, char *err, size_t errlen)
{
    const mf_params_t *p = obj;
    unsigned phit = mf_params_phit_bytes(p);
    uint64_t pkt = (uint64_t)p->net_pkt_phits * phit;
    uint64_t vc_phits = (uint64_t)p->input_fifo_bytes / phit / p->vcs;
    if (p->input_fifo_bytes % phit)
        return mf_conf_fail(err, errlen, "input_fifo_bytes = %u is not a whole number of %u-byte phits",
                    p->input_fifo_bytes, phit);
    if ((uint64_t)p->input_fifo_bytes < 2 * pkt || vc_phits < p->net_pkt_phits)
        return mf_conf_fail(err, errlen,
                    "input_fifo_bytes = %u too small: needs >= 2 network packets and one per VC "
                    "(%u VCs x %" PRIu64 " bytes)",
                    p->input_fifo_bytes, p->vcs, pkt);
    unsigned m = mf_params_margin_phits(p);
    if ((uint64_t)m + p->net_pkt_phits > vc_phits)
        return mf_conf_fail(err, errlen,
                    "back-pressure margin m = %u phits + one %u-phit packet exceeds the %" PRIu64
                    "-phit FIFO of each VC (input_fifo_bytes = %u, vcs = %u)",
                    m, p->net_pkt_phits, vc_phits, p->input_fifo_bytes, p->vcs);
    return 0;
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
    fprintf(out, "# MPI-FPGA model parameters '%s' (load with mf_params_load)\n", p->name);
    mf_conf_print(&schema, p, out);
    print_derived(p, out);
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
