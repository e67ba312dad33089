/*
 * Devices: where offloaded collectives go, behind one ops table (as
 * libfabric providers are).  Two backends:
 *   model  the modeled switch network in mpifpga-switchd, reached over
 *          libfabric (device_model.c) -- the default
 *   fpga   MPI-FPGA boards found with hwloc (device_fpga.c); this build
 *          finds and reports them but has no board driver, so opening it
 *          fails and every call falls back (reason engine_unavailable)
 */
#ifndef MF_DEVICE_H
#define MF_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "mpifpga/engine_msg.h"

/* Where the engine is and how to reach it (agreed by all ranks at Init). */
typedef struct {
    char addr[640];          /* "<provider>/<hex>" (MF_FAB_ADDRSTR_MAX) */
    int pid;                            /* engine process, 0 if unknown */
    char host[64];                      /* host it runs on ("" unknown) */
    uint8_t secret[MF_EM_SECRET_BYTES]; /* the job's secret for HELLO (all zero: none) */
} mf_engine_loc_t;

/* One collective call of this rank, as the device sees it. */
typedef struct {
    mf_proc_hdr_t hdr;       /* processor header (opcode, ctx, alg, op, dtype, root, size) */
    mf_fb_reason_t vote;     /* MF_FB_NONE, or this rank's reason to fall back */
    int comm_size, comm_rank, global0;
    const void *send;        /* send_bytes of payload (NULL if 0) */
    uint64_t send_bytes;
    void *recv;              /* room for recv_bytes of result */
    uint64_t recv_bytes;
    const uint32_t *counts;  /* mf_opcode_ncounts(opcode) counts (wire.h), or NULL */
    uint64_t entry_ns;       /* modeled time: virtual time at entry (ns), 0 none */
    const char *mpi_name;    /* for messages: "MPI_Allreduce" */
    int want_baseline;       /* nonzero: also get the modeled baseline time (baseline_us) */
    int defer;               /* a nonblocking / persistent start: the rank may not read for
                                long, so the result waits in the engine until polled */
} mf_dev_call_t;

typedef enum { MF_DEV_DONE = 0, MF_DEV_FALLBACK = 1, MF_DEV_ERROR = -1 } mf_dev_status_t;

typedef struct {
    mf_dev_status_t status;
    mf_fb_reason_t reason;   /* MF_DEV_FALLBACK: why */
    double net_us;           /* modeled time of the call in the network */
    double rank_us;          /* modeled: this rank's completion - its entry */
    double baseline_us;      /* modeled: this rank's time under MPICH's own algorithm on the
                                same fabric (want_baseline); 0 if not asked or unavailable */
    int shm;                 /* the payload went through the shared buffer, not messages */
    char text[MF_EM_TEXT_MAX + 80]; /* MF_DEV_ERROR: what went wrong */
} mf_dev_result_t;

typedef struct mf_device mf_device_t;

typedef struct {
    const char *name;
    /* Connect rank `grank` of `nranks`; node/port: its forwarding entry;
     * cfg: the settings (connect timeout, payload buffer size). */
    int (*open)(mf_device_t *d, const mf_engine_loc_t *loc, int grank, int nranks, int node,
                int port, const mf_config_t *cfg, char *err, size_t len);
    int (*ct_config)(mf_device_t *d, int ctx, const mf_ct_entry_t *e, char *err, size_t len);
    int (*ct_free)(mf_device_t *d, int ctx, char *err, size_t len);
    /* Post one call: its processor header and payload leave at once, and
     * *ticket names it until its verdict is taken.  Several calls may be
     * outstanding; the device keeps c->recv and c->recv_bytes (the result
     * lands there whenever the engine sends it) and nothing else of c.
     * 0, or -1 with err (nothing posted). */
    int (*post)(mf_device_t *d, const mf_dev_call_t *c, uint32_t *ticket, char *err,
                size_t len);
    /* The verdict of posted call `ticket`, waiting for it up to timeout_ms
     * (0: only what already came; < 0: until it comes).  1: done, *r filled
     * and the ticket forgotten; 0: not yet; -1: r->text says what failed
     * (the device is then unusable). */
    int (*poll)(mf_device_t *d, uint32_t ticket, int timeout_ms, mf_dev_result_t *r);
    void (*close)(mf_device_t *d); /* says goodbye, frees */
    /* Text for mpifpga-info / the report: "engine tcp;ofi_rxm/... (torus ...)". */
    const char *(*describe)(mf_device_t *d);
} mf_device_ops_t;

struct mf_device {
    const mf_device_ops_t *ops;
    void *priv;
    double dma_bytes_per_ns; /* the processor DMA's rate (set by open; 0 unknown) */
    int sa;                  /* simultaneous aggregations per switch (0 unknown) */
    int blocking_only;       /* set by open: nonblocking and persistent starts fall back
                                (reason unsupported) */
};

extern const mf_device_ops_t mf_device_model_ops;
extern const mf_device_ops_t mf_device_fpga_ops;

/* Run one call to completion (or fallback / error verdict): post, then
 * poll until its verdict.  0, or -1 with r->text. */
int mf_dev_coll(mf_device_t *d, const mf_dev_call_t *c, mf_dev_result_t *r);

/* The ops table named by MPIFPGA_DEVICE. */
const mf_device_ops_t *mf_device_lookup(const char *name);

/* 1 if process pid (the engine, on this host) is gone or a zombie (rank 0
 * started it in auto mode and has not reaped it yet); 0 if it runs or pid
 * is unknown (<= 0). */
int mf_engine_pid_gone(int pid);

#endif
