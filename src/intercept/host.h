/*
 * libmpifpga's process-wide state and the internal interfaces between its
 * parts (doc/architecture.md, "Host side"):
 *   intercept/init.c   MPI_Init*, MPI_Finalize: config, engine, device
 *   intercept/comm.c   communicator constructors -> ct/ct_comm.c
 *   intercept/coll*.c  the collectives -> select/, then mf_offload()
 *   intercept/offload.c one call through the device, or the reason not to
 *   ct/ct_comm.c       per-communicator state, CT-row agreement and entries
 *   report/report.c    counters, JSON report, stderr summary
 */
#ifndef MF_HOST_H
#define MF_HOST_H

#include <mpi.h>
#include <stdint.h>

#include "config/config.h"
#include "device/device.h"
#include "report/report.h"

typedef struct {
    int initialized;          /* between our MPI_Init and MPI_Finalize */
    int active;               /* offload possible: device open on every rank */
    mf_fb_reason_t off_reason;/* !active: why (disabled, engine, threads) */
    mf_config_t cfg;
    int grank, nranks;
    mf_device_t dev;
    int dev_open;
    mf_engine_loc_t engine;
    int spawned_pid;          /* rank 0 in auto mode: the engine it started */
    int err_class;            /* MPI error class of offload errors */
    mf_report_t rep;
    double t_init;            /* PMPI_Wtime after MPI_Init: the application's time */
} mf_host_t;

extern mf_host_t mf_host;

/* The library is built with -fvisibility=hidden: only the MPI_ functions it
 * intercepts are exported, so its own calls bind directly. */
#define MF_PUBLIC __attribute__((visibility("default")))

/* Per-communicator state (an attribute on the communicator). */
typedef struct {
    int ctx;                  /* CT row, or -1 */
    mf_fb_reason_t reason;    /* ctx < 0: why every call falls back */
    int size, rank, global0;
    uint32_t addr[MF_ALLTOALL_MAX_MEMBERS]; /* global ranks (alltoall), if size <= 32 */
} mf_comm_t;

/* ct/ct_comm.c */
int mf_comm_init(void);                  /* create the keyval; attach MPI_COMM_WORLD */
void mf_comm_finalize(void);
/* Give a new communicator its state (collective over comm; call on every
 * member right after it is created).  Never fails: problems become a
 * fallback reason. */
void mf_comm_attach(MPI_Comm comm);
/* The state of comm, attaching it first if it has none (a communicator we
 * did not see created: the first collective on it is made by all members). */
const mf_comm_t *mf_comm_get(MPI_Comm comm);

/* intercept/wtime.c: modeled time.  enter: the rank's virtual time now
 * (seconds) and, with modeled time on, the same in ns for the engine (else
 * 0); leave: the call took rank_us of modeled time. */
double mf_vtime_enter(uint64_t *entry_ns);
void mf_vtime_leave(double entry, double rank_us);
/* Nonblocking calls (coll_nb.c), inside the call: now = v (s); hold(t):
 * v goes back to t, the call's start (the collective runs on in the model
 * while the host computes); at_least(t), at completion: v = max(v, t). */
double mf_vtime_now(void);
void mf_vtime_hold(double t);
void mf_vtime_at_least(double t);

/* Turn a device error into an MPI error on comm (its error handler runs). */
int mf_raise(MPI_Comm comm, const char *text);

#endif
