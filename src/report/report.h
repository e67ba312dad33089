/*
 * Run report: per collective, calls, offloaded calls, fallbacks by reason,
 * calls without data, bytes and modeled network time.  Summed over ranks
 * at MPI_Finalize; written as JSON (json-c) to MPIFPGA_REPORT and
 * summarised on stderr by rank 0 with MPIFPGA_VERBOSE.
 */
#ifndef MF_REPORT_H
#define MF_REPORT_H

#include <mpi.h>
#include <stdint.h>

#include "config/config.h"
#include "mpifpga/engine_msg.h"

typedef struct {
    uint64_t calls, offloaded, empty;
    uint64_t fallback[MF_FB_COUNT];
    uint64_t bytes, offloaded_bytes;
    uint64_t shm_payload;   /* offloaded calls whose payload went through the shared buffer */
    uint64_t queued;        /* MPI_I* / starts posted with #SA of the rank's calls outstanding */
    double modeled_us;
} mf_coll_stats_t;

/* Classes: the blocking collectives (index mf_coll_id_t), then their
 * nonblocking MPI_I* forms (MF_C_COUNT + id, intercept/coll_nb.c), then
 * their persistent MPI_*_init + MPI_Start forms (coll_persist.c). */
#define MF_REP_CLASSES (3 * MF_C_COUNT)
#define MF_REP_NB(id) (MF_C_COUNT + (int)(id))
#define MF_REP_PERSIST(id) (2 * MF_C_COUNT + (int)(id))

typedef struct {
    mf_coll_stats_t c[MF_REP_CLASSES];
    /* communicator memberships of this rank: all, with a CT row, refused for a full CT */
    uint64_t comms, comms_ct, comms_ct_full;
} mf_report_t;

/* "allreduce"; "iallreduce" for MF_REP_NB(MF_C_ALLREDUCE); "allreduce_init"
 * for MF_REP_PERSIST(MF_C_ALLREDUCE). */
const char *mf_report_class_name(int cls);

static inline void mf_report_call(mf_report_t *r, int c, uint64_t bytes)
{
    r->c[c].calls++;
    r->c[c].bytes += bytes;
}

/* Sum over MPI_COMM_WORLD (modeled time: max over ranks, every member of
 * a call sees the same time) and, on rank 0, write / print.  app_s: this
 * rank's MPI_Init-to-MPI_Finalize time.  With call sites recorded
 * (profile/callsite.h) the report also lists the collective instances.
 * Collective. */
void mf_report_finalize(const mf_report_t *r, const char *engine_desc, int rank, int nranks,
                        const mf_config_t *cfg, double app_s);

#endif
