/* mpiexec -n K mpifpga-sim: the sweep's points (message sizes) spread over
 * K processes, one whole network each; rank 0 prints what one process
 * prints.  MPI is initialised only under a process manager (hydra's
 * PMI_RANK / PMI_SIZE, PMIx's PMIX_RANK) with more than one process; a
 * plain run never calls MPI_Init. */
#ifndef MF_SIM_MPI_H
#define MF_SIM_MPI_H

#include <stddef.h>
#include <stdint.h>
#include "net/domain.h"

/* This process's rank and the job's size from the process manager's
 * environment (0 and 1 when there is none), before any MPI_Init. */
int sim_mpi_env_rank(void);
int sim_mpi_env_size(void);

/* MPI_Init, and the node's cores divided among its processes (the default
 * thread count of networks created afterwards).  Call when env size > 1. */
void sim_mpi_start(int *argc, char ***argv);
int sim_mpi_active(void);
/* Rank and size: MPI's once started, else the environment's. */
int sim_mpi_rank(void);
int sim_mpi_size(void);
/* MPI_Finalize when started, then exit(rc). */
__attribute__((noreturn)) void sim_mpi_exit(int rc);

/* Stop every process of the job (MPI_Abort), or this one without MPI. */
__attribute__((noreturn)) void sim_mpi_abort(int rc);

/* Rank 0's rc, on every rank (waits without spinning). */
int sim_mpi_share_rc(int rc);

/* One sweep point: fill row (row_size bytes) for point i; 0, or -1 with a
 * message in err. */
typedef int (*sim_point_fn)(void *ctx, int i, void *row, char *err, size_t len);
typedef struct {
    int npts;
    const uint64_t *cost; /* estimated cost of each point */
    size_t row_size;
    void *rows;           /* npts rows; all of them filled on rank 0 */
    sim_point_fn run;
    void *ctx;
} sim_sweep_t;

/* Run the sweep over the MPI processes: points assigned by cost (largest
 * first, each to the least-loaded rank), each rank running its own in
 * sweep order; results gathered to rank 0.  A point must not depend on
 * the ones before it (mpifpga-sim runs each size on a new network).
 * Returns the same on every rank: 0, or 1 with (on rank 0) the message of
 * the first failing point, in sweep order, in err. */
int sim_mpi_sweep(const sim_sweep_t *s, char *err, size_t len);

#ifdef MPI_VERSION /* mpi.h included before */
/* Wait for r without spinning a core (MPICH's waits poll). */
void sim_mpi_lazy_wait(MPI_Request *r);
#endif

/* The processes as the domains of one network (net/domain.h): this
 * process's number, their count, and the exchange over MPI.  0, or -1
 * when MPI is not running. */
int sim_mpi_domain_ops(mf_dom_ops_t *ops);

#endif
