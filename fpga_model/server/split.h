/*
 * The switch engine split among MPI processes (issue 23):
 * `mpiexec -n K mpifpga-switchd-mpi ...`, which mpifpga-run starts for
 * MPIFPGA_ENGINE_PROCS=K.  Every process builds the whole network and
 * simulates a share of its switches (net/domain.h, the exchange over MPI
 * of cli/sim_mpi.c).  Process 0, the front, talks to the ranks and runs
 * the session (session.h); what the session does to the network goes
 * through mf_split_session_net: the front posts the members on its own
 * switches and batches the rest -- communicator-table changes, the other
 * members' calls with their data -- which it hands to every other process
 * when the session runs the model.  Each of them replays the batch (its
 * own members only), all run the model together, and the others send back
 * their members' completions and received bytes, which the front hands to
 * the session as if its own network had produced them.  The figures and
 * the bytes are the one-process engine's (test/engine_split.sh).
 */
#ifndef MF_SERVER_SPLIT_H
#define MF_SERVER_SPLIT_H

#include <stddef.h>

#include "mpifpga/model.h"
#include "server/session.h"

typedef struct mf_split mf_split_t;

/* Split net among the processes of the MPI job (MPI started: sim_mpi.h),
 * as MPIFPGA_PARTITION says (range by default).  NULL with a message in
 * err (a bad partition, out of memory). */
mf_split_t *mf_split_create(mf_net_t *net, char *err, size_t len);
void mf_split_destroy(mf_split_t *sp);
/* 1 in process 0, which runs the session. */
int mf_split_front(const mf_split_t *sp);
/* The front's session goes through these (mf_session_set_net). */
mf_session_net_t mf_split_session_net(mf_split_t *sp);
/* Every other process: replay what the front sends until it says the job
 * is over.  0, or 1 after a failure (its message on stderr). */
int mf_split_serve(mf_split_t *sp);
/* The front, on every way out once mf_split_create succeeded: the others
 * stop serving. */
void mf_split_end(mf_split_t *sp);

#endif
