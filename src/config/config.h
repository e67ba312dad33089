/*
 * libmpifpga configuration: one table of MPIFPGA_* environment variables
 * (name, default, help, parser), as UCC maps its config tables to env
 * vars.  mf_config_load reads them; mpifpga-info prints the table with the
 * effective values; README.md documents the same table.
 */
#ifndef MF_CONFIG_H
#define MF_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mpifpga/wire.h"

/* Report / selection index of each intercepted collective (the _c
 * variants count under their base name). */
typedef enum {
    MF_C_REDUCE, MF_C_ALLREDUCE, MF_C_BCAST, MF_C_SCATTER, MF_C_GATHER, MF_C_ALLGATHER,
    MF_C_REDUCE_SCATTER, MF_C_REDUCE_SCATTER_BLOCK, MF_C_BARRIER, MF_C_SCAN, MF_C_EXSCAN,
    MF_C_ALLTOALL, MF_C_ALLTOALLV,
    MF_C_COUNT
} mf_coll_id_t;
const char *mf_coll_id_name(mf_coll_id_t c);     /* "allreduce" */
const char *mf_coll_id_mpi_name(mf_coll_id_t c); /* "MPI_Allreduce" */

/* Modeled time: off, or what advances the virtual clock between MPI calls
 * (src/intercept/wtime.c): the thread's CPU time (1, cpu), nothing (none),
 * or -- host-load dependent, for comparison only -- the wall clock. */
enum { MF_MODELED_OFF = 0, MF_MODELED_WALL = 1, MF_MODELED_CPU = 2, MF_MODELED_NONE = 3 };

typedef struct {
    int enable;               /* MPIFPGA_ENABLE */
    uint32_t colls;           /* MPIFPGA_COLLS: bit per mf_coll_id_t */
    uint64_t min_bytes;       /* MPIFPGA_MIN_BYTES */
    uint64_t max_bytes;       /* MPIFPGA_MAX_BYTES (0 = no limit) */
    uint64_t segment_bytes;   /* MPIFPGA_SEGMENT_BYTES: largest vector piece per call */
    char device[16];          /* MPIFPGA_DEVICE: model | fpga */
    char fpga_dev[256];       /* MPIFPGA_FPGA_DEV: board queue prefix (<prefix>_h2c_<q>) */
    double fpga_mhz;          /* MPIFPGA_FPGA_MHZ: the board engine's clock */
    double fpga_pcie_ns;      /* MPIFPGA_FPGA_PCIE_NS: one-way host-board latency */
    char engine[640];         /* MPIFPGA_ENGINE: auto | none | address */
    char switchd[512];        /* MPIFPGA_SWITCHD: engine program (auto mode) */
    char topology[64];        /* MPIFPGA_TOPOLOGY (auto mode) */
    char params[256];         /* MPIFPGA_PARAMS (auto mode) */
    int ppn;                  /* MPIFPGA_PPN: ranks per modeled node */
    int ct_slots;             /* MPIFPGA_CT_SLOTS: CT rows per rank (<= 32) */
    int connect_timeout;      /* MPIFPGA_CONNECT_TIMEOUT, seconds */
    char provider[64];        /* MPIFPGA_PROVIDER: libfabric provider (auto mode) */
    uint64_t shm_payload;     /* MPIFPGA_SHM_PAYLOAD: largest shared payload buffer, 0 none */
    int modeled_time;         /* MPIFPGA_MODELED_TIME: MF_MODELED_* */
    int algorithm;            /* MPIFPGA_ALGORITHM: mf_algo_mode_t */
    double compute_scale;     /* MPIFPGA_COMPUTE_SCALE: factor on charged CPU time */
    int verbose;              /* MPIFPGA_VERBOSE: 0 quiet, 1 summary, 2 + per-comm */
    char report[512];         /* MPIFPGA_REPORT: JSON report path ("" none) */
    int instances;            /* MPIFPGA_INSTANCES: per-call-site figures in the report */
    int profile;              /* MPIFPGA_PROFILE: passthrough to MPI, call sites measured */
    int nonblocking;          /* MPIFPGA_NONBLOCKING: offload MPI_I* and persistent starts
                               * (they run at the start: see doc/architecture.md) */
} mf_config_t;

/* Defaults, then the environment.  Returns 0, or -1 with the first bad
 * variable named in err (cfg then holds defaults for it). */
int mf_config_load(mf_config_t *cfg, char *err, size_t errlen);

/* One line per variable: name, effective value, default, description. */
void mf_config_print(const mf_config_t *cfg, FILE *out);

/* Parse a collective list ("all", "allreduce,bcast", "^bcast"). */
int mf_config_parse_colls(const char *s, uint32_t *mask, char *err, size_t errlen);

#endif
