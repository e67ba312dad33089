/*
 * Selection: can this call run on the switch, and as what?  Maps MPI
 * datatypes and ops to the AgLU's lane types and operations (wire.h) and
 * gives the fallback reason (engine_msg.h) when it cannot.
 *
 * Reductions accept exactly the (type, op) pairs MPICH 4.0 accepts for the
 * predefined types the AgLUs implement (doc/architecture.md, "Selection"),
 * so a call MPICH would reject is left to MPICH to reject.
 */
#ifndef MF_SELECT_H
#define MF_SELECT_H

#include <mpi.h>
#include <stdint.h>

#include "mpifpga/engine_msg.h"
#include "mpifpga/wire.h"

/* A datatype for a data-moving collective (bcast, gather, ...): any type
 * moves, by its type map (select/dtpack.h).  *size gets its size in bytes. */
mf_fb_reason_t mf_select_move_type(MPI_Datatype t, int *size);

/* A datatype + op for a reduction: *dt / *op get the AgLU lane type and
 * operation.  MF_FB_DERIVED, MF_FB_DATATYPE or MF_FB_OP otherwise. */
mf_fb_reason_t mf_select_reduce(MPI_Datatype t, MPI_Op op, mf_dtype_t *dt, mf_op_t *mop,
                                int *size);

/* The op alone: MF_FB_OP for user-defined ops, MINLOC/MAXLOC, REPLACE,
 * NO_OP (decided alike on every rank, so no vote is needed). */
mf_fb_reason_t mf_select_op_known(MPI_Op op);

#endif
