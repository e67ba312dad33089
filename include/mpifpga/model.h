/*
 * Public API of the cycle-level MPI-FPGA switch-network model
 * (fpga_model/, doc/model.md).  One mf_net_t is the whole modeled network:
 * switches, links, the DMA engines of the nodes and one collective engine
 * context per rank.  Hosts post collectives (processor packets) at given
 * cycles; the model runs and reports each rank's completion cycle, and
 * writes the results the modeled hardware computed into the receive buffers.
 */
#ifndef MPIFPGA_MODEL_H
#define MPIFPGA_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "mpifpga/wire.h"

typedef struct mf_net mf_net_t;
struct mf_params;
struct mf_topo;

/* Host memory as the DMA engine sees it: plain memory, or callbacks (so a
 * sweep can stream gigabytes without materialising them). */
typedef struct {
    void *base;  /* plain memory of len bytes, or NULL to use the callbacks */
    size_t len;
    void (*read)(void *ctx, uint64_t off, void *dst, size_t n);
    void (*write)(void *ctx, uint64_t off, const void *src, size_t n);
    void *ctx;
} mf_buf_t;

typedef struct {
    int rank;            /* global rank */
    int status;          /* 0 ok, -1 error (message in err) */
    uint64_t post;       /* cycle the host posted the call */
    uint64_t complete;   /* cycle the call returns on the host */
    char err[160];
} mf_completion_t;

typedef void (*mf_done_fn)(void *user, const mf_completion_t *c);

typedef struct {
    mf_proc_hdr_t hdr;        /* opcode, ctx, alg, op, dtype, root, size */
    const uint32_t *counts;   /* reduce_scatter: bytes per comm rank, or NULL */
    mf_buf_t send, recv;
    uint64_t at;              /* host cycle at which the rank enters the call */
    mf_done_fn done;
    void *user;
} mf_coll_req_t;

typedef struct {
    uint64_t cycles;          /* current cycle */
    uint64_t active_cycles;   /* cycles in which something ran */
    uint64_t module_steps;    /* switch-cycles executed (produce phases run; a switch
                               * woken for a packet's arrival alone runs only its consume) */
    uint64_t link_bytes, link_pkts;
    uint64_t fifo_overflows;
    uint64_t peak_stream_bytes; /* largest collector buffer seen at one switch */
    size_t peak_pkts;         /* packets alive at once */
    uint64_t flow_steps;      /* CCM flows stepped, the model's unit of collective work */
    uint64_t idle_steps;      /* of them, steps that moved no byte: a packet flushed, an
                               * empty sink signalled, every CGR unit busy (grant_waits),
                               * or woken for nothing */
    uint64_t grant_waits;     /* steps of a reduction that lost the CGR arbitration: it
                               * asks again next cycle, as a held request line does */
    uint64_t credit_checks;   /* looks at a flow waiting for a partner's credits (or its
                               * L2 queue) that found none: not steps, but work (the
                               * partner's count read, likely a miss on another switch) */
    uint64_t packet_steps;    /* of module_steps, switch produces that moved a packet (an
                               * L1 grant or ejection) */
    uint64_t flow_only_steps; /* of module_steps, those that moved bytes of CCM flows and
                               * no packet: a flow filling its next packet */
} mf_net_stats_t;

/* Create a network of `nnodes` nodes with `ppn` ranks each. */
mf_net_t *mf_net_create(const struct mf_params *p, const struct mf_topo *t, char *err,
                        size_t errlen);
void mf_net_destroy(mf_net_t *n);
int mf_net_nranks(const mf_net_t *n);
uint64_t mf_net_now(const mf_net_t *n);
const struct mf_params *mf_net_params(const mf_net_t *n);
const struct mf_topo *mf_net_topo(const mf_net_t *n);
/* Networks created after this call take the cores available / nprocs as
 * their default thread count (processes sharing a node: mpiexec -n K
 * mpifpga-sim); MPIFPGA_THREADS still overrides it. */
void mf_net_share_cores(int nprocs);
/* Put the process's heap on transparent huge pages (2 MiB: a large
 * network's state costs a TLB entry per 2 MiB touched, not per 4 KiB).
 * For a program's main, before it allocates much: it sets glibc's malloc
 * up for the whole process (one heap for all threads, a 2 GiB reserve of
 * address space, marked MADV_HUGEPAGE; fpga_model/sim/hugepages.c).
 * Returns 0 when done, 1 when MPIFPGA_HUGEPAGES=0 turned it off, -1 when
 * not possible here (another allocator, an address-space limit): the
 * program runs on ordinary pages, with the same results.  Once per
 * process; later calls return the first call's answer. */
int mf_model_prefer_hugepages(void);

/* CT-config / CT-free packet from rank `grank` for row ctx (001 sec. 3.3). */
int mf_net_ct_config(mf_net_t *n, int grank, int ctx, const mf_ct_entry_t *e, char *err,
                     size_t errlen);
int mf_net_ct_free(mf_net_t *n, int grank, int ctx);

/* Post a collective from rank `grank` (processor packet).  Returns 0, or -1
 * with a message (no CT row, bad header).  req->counts is copied. */
int mf_net_post(mf_net_t *n, int grank, const mf_coll_req_t *req, char *err, size_t errlen);

/* Run until nothing is scheduled or `until` is reached.  Returns 0 when all
 * posted work completed, 1 when stopped at `until`, -1 on a model error (a
 * stall: work pending but nothing can move) with a message in err. */
int mf_net_run(mf_net_t *n, uint64_t until, char *err, size_t errlen);
/* A run stops with an error naming the stuck call when its flows step this
 * many cycles without moving a byte (a circular wait); 0 = never.  Default
 * MF_WATCHDOG_DEFAULT, or MPIFPGA_WATCHDOG_CYCLES at mf_net_create. */
#define MF_WATCHDOG_DEFAULT 10000000ull
void mf_net_set_watchdog(mf_net_t *n, uint64_t cycles);
/* A view for the user while mf_net_run runs: fn(ctx, cycle) after every
 * MF_PROGRESS_CYCLES-th cycle the network steps, counted over all its runs,
 * so a sweep of short calls ticks too (fn NULL: none).  It only observes:
 * no figure depends on it or on when it is called. */
#define MF_PROGRESS_CYCLES 1024u
void mf_net_set_progress(mf_net_t *n, void (*fn)(void *ctx, uint64_t cycle), void *ctx);
/* Collectives posted but not yet completed. */
size_t mf_net_pending(const mf_net_t *n);
void mf_net_stats(const mf_net_t *n, mf_net_stats_t *s);
/* Print what each unfinished collective waits for (diagnosing a stall). */
void mf_net_dump(const mf_net_t *n, FILE *out);

/* Convenience: cycles <-> nanoseconds for this network's clock. */
double mf_net_cycles_to_us(const mf_net_t *n, uint64_t cycles);

#endif
