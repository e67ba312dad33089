/*
 * Parameter sets of the switch model.  Every figure has a default taken from a
 * reference document; the built-in sets live as data in fpga_model/params
 * (u280.conf, novog.conf: one `key = value  # source` per line, compiled in
 * by conf2h.sh) and a user may load their own file.
 */
#ifndef MF_PARAMS_H
#define MF_PARAMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct mf_params {
    char name[64];
    /* clock and datapath */
    double clock_mhz;               /* switch clock */
    unsigned phit_bits;             /* phit width */
    unsigned dma_phits_per_cycle;   /* DMA engine / packet converter rate */
    unsigned datapath_phits_per_cycle; /* switch-internal ports, CGR, L1/L2 */
    unsigned net_pkt_phits;         /* max payload phits of a network packet */
    /* transceiver link */
    double link_latency_ns;         /* mean one-way FPGA-to-FPGA latency */
    double link_jitter_sd_ns;       /* Gaussian sd of link latency, 0 = none */
    double link_gbps;               /* peak link bandwidth */
    /* router */
    unsigned vcs;                   /* VCs per input port (>= 2 for datelines) */
    unsigned input_fifo_bytes;      /* input FIFO per port, split over VCs */
    unsigned fifo_margin_phits;     /* back-pressure margin m; 0 = derive */
    unsigned router_stage_cycles;   /* cycles per pipeline stage (RC,VA,SA,ST) */
    /* collective support */
    unsigned ct_entries;            /* CT rows N_C */
    unsigned max_ranks;             /* MAX_R */
    unsigned sa_cgr;                /* CGR units per switch (SA) */
    unsigned aglu_latency_cycles;   /* AgLU pipeline depth */
    unsigned collector_cycles;      /* collector / L2 switch traversal */
    unsigned park_mib;              /* switch memory parking streams the FIFOs cannot hold */
    unsigned eject_per_port;        /* collective packets: one collector lane per input port */
    unsigned credit_hop_cycles;     /* stream credits travel back this long a hop; 0 = next cycle */
    /* processor <-> switch */
    double pcie_latency_ns;         /* one-way PCIe DMA latency */
    double host_overhead_ns;        /* host cost to post / complete an offloaded call */
    /* fat tree */
    unsigned oversub;               /* leaf down:up ratio (3 = 3:1) */
    uint64_t seed;                  /* jitter / traffic RNG seed */
} mf_params_t;

/* Fill p with the built-in set `name` ("u280", "novog", case-insensitive) or,
 * if name is a readable file, the u280 defaults (renamed to the file's base
 * name unless it sets `name`) overridden by that file.  The result passes
 * mf_params_check.  Returns 0, or -1 with a one-line message in err (unknown
 * key, bad value, out of range, unknown set); p is unchanged on error. */
int mf_params_load(const char *name, mf_params_t *p, char *err, size_t errlen);
/* Apply one override: key and value, or value == NULL and key = "key=value".
 * Checks that key's type and range only; call mf_params_check after a batch
 * of overrides for the relations between keys (e.g. FIFO vs packet size). */
int mf_params_set(mf_params_t *p, const char *key, const char *value, char *err, size_t errlen);
/* Whole-set check: every key's range plus the relations between keys (FIFO
 * holds >= 2 packets and one per VC, margin + packet fits a VC's FIFO).
 * Returns 0, or -1 with a one-line message. */
int mf_params_check(const mf_params_t *p, char *err, size_t errlen);
/* Print as a loadable file (key = value  # help), derived figures as comments. */
void mf_params_print(const mf_params_t *p, FILE *out);
/* Names of the built-in sets, NULL-terminated. */
const char *const *mf_params_builtin_names(void);

/* Derived figures (cycles are switch clock cycles). */
double mf_params_cycle_ns(const mf_params_t *p);
unsigned mf_params_phit_bytes(const mf_params_t *p);
uint64_t mf_params_ns_to_cycles(const mf_params_t *p, double ns); /* rounded */
/* link bandwidth in bytes per cycle as 16.16 fixed point */
uint32_t mf_params_link_bpc_fx(const mf_params_t *p);
/* Back-pressure margin m in phits: fifo_margin_phits, or if 0 the stop-signal
 * round trip 2 x link latency (mean + 4 sd) in cycles x link phits per cycle,
 * rounded up (001 sec. 2.5; cf. 002 Eq. 3). */
unsigned mf_params_margin_phits(const mf_params_t *p);
/* 001 Eq. 1: CT size in bits for MAX_R, N_C */
uint64_t mf_ct_size_bits(unsigned max_ranks, unsigned n_ctx);
/* 001 Eq. 2: minimum input buffer bytes for tree depth d, q = 2 */
uint64_t mf_min_buf_bytes(const mf_params_t *p, unsigned depth);

#endif
