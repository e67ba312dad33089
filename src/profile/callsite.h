/*
 * Collective instances (issue 6; 001 sec. 6.3, fig. 14): every call site
 * of a collective in the application is one instance, and the figures of
 * its calls are summed per instance -- calls, bytes, host time measured,
 * modeled offload time, modeled baseline time.
 *
 * A call site is the first caller frame outside libmpifpga and MPICH
 * (its Fortran bindings included), named by module and offset so that
 * every rank of an SPMD job names it alike whatever its load address.
 * MPIFPGA_INSTANCES=1 turns this on (MPIFPGA_PROFILE=1 implies it); off,
 * a call pays one predictable branch.  Under MPI_THREAD_MULTIPLE (where
 * nothing is offloaded) threads record their calls under a lock.
 */
#ifndef MF_CALLSITE_H
#define MF_CALLSITE_H

#include <mpi.h>
#include <stdint.h>

#include "config/config.h"

/* One intercepted call in progress, on the wrapper's stack. */
typedef struct {
    int on;              /* recording this call */
    int inst;            /* instance index, -1 if the site could not be named */
    double t0;           /* host clock at entry, seconds */
    uint64_t bytes;      /* per-rank block bytes (mf_offload fills it) */
    int offloaded;       /* the device ran it */
    double offload_us;   /* modeled time of the call on this rank */
    double baseline_us;  /* modeled baseline time (0: none) */
} mf_site_call_t;

extern int mf_sites_on;  /* recording enabled in this job */

/* Start recording (MPI_Init, after the configuration is read). */
void mf_sites_init(const mf_config_t *cfg);

/* Wrapper entry / exit.  ret: __builtin_return_address(0) of the public
 * MPI_ function; type and op name the call (op MPI_OP_NULL for data
 * movers). */
void mf_site_begin_slow(mf_site_call_t *s, mf_coll_id_t id, void *ret, MPI_Datatype type,
                        MPI_Op op, MPI_Comm comm);
void mf_site_end_slow(mf_site_call_t *s);

/* The virtual clock of modeled time stops and restarts at the same
 * boundaries (src/intercept/wtime.c). */
void mf_vclock_pause(void);
void mf_vclock_resume(void);

static inline void mf_site_begin(mf_site_call_t *s, mf_coll_id_t id, void *ret,
                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    mf_vclock_pause();
    s->on = 0;
    if (__builtin_expect(mf_sites_on, 0))
        mf_site_begin_slow(s, id, ret, type, op, comm);
}

static inline int mf_site_end(mf_site_call_t *s, int rc)
{
    if (__builtin_expect(s->on, 0))
        mf_site_end_slow(s);
    mf_vclock_resume();
    return rc;
}

/* The call being recorded, for mf_offload (NULL when none). */
mf_site_call_t *mf_site_current(void);

/* Figures per instance as the report merges them. */
typedef struct {
    char module[256];     /* absolute path of the module holding the call */
    char func[64];        /* dladdr's symbol of the caller, "" unknown */
    char dtype[32], op[24];
    uint64_t offset;      /* call instruction, relative to the module's load bias */
    int32_t coll;         /* mf_coll_id_t */
    int32_t comm_size;    /* of the first call (-1 if calls differed) */
    uint64_t calls, offloaded, bytes, baseline_calls;
    double host_us, offload_us, baseline_us;
} mf_site_rec_t;

/* This rank's instances: how many, and a copy of them. */
int mf_sites_count(void);
void mf_sites_copy(mf_site_rec_t *out);
void mf_sites_fini(void);

#endif
