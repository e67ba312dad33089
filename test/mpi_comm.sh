#!/bin/sh
# comm_ctors: every intercepted communicator constructor (MPI_Comm_dup,
# _dup_with_info, _split, _split_type, _create, _create_group, MPI_Cart_create,
# _sub, MPI_Graph_create, MPI_Dist_graph_create, _adjacent,
# MPI_Intercomm_merge) and MPI_Comm_idup, with an Allreduce, Bcast and
# Barrier on each new communicator, then freed; then 3 x 40 dups (more than
# the 32 CT rows) each with an Allreduce.  Right results at -n 2, 3, 4; the
# -n 4 report shows every collective offloaded and every row released.
# TAP output.
. "$(dirname "$0")/mpi/common.sh"

withenv "MPIFPGA_REPORT=$tmp/c4.json" run_ok "comm_ctors at -n 4" "$tmp/c4" 4 comm_ctors
run_ok "comm_ctors at -n 2" "$tmp/c2" 2 comm_ctors
run_ok "comm_ctors at -n 3" "$tmp/c3" 3 comm_ctors

# Expected counts at -n 4, summed over the 4 ranks.  Memberships per
# constructor: 4 for dup, dup_with_info, split (rank%2: two comms of 2),
# split_type SHARED (one host: one comm of 4), Cart_create (2x2), Cart_sub
# (dim 0 kept: two comms of 2), Graph_create, Dist_graph_create,
# Dist_graph_create_adjacent, Intercomm_merge and idup (its row comes at
# its first collective) = 11 x 4 = 44; Comm_create and Comm_create_group
# of the even ranks {0,2}: 2 each = 4; so 48.  The program runs one
# Allreduce, one Bcast and one Barrier per membership: 48 each.  The dup
# loop adds 3 x 40 dups x 4 ranks = 480 memberships and 480 Allreduces.
# MPI_COMM_WORLD's row (given at MPI_Init) adds 4 memberships; nothing else
# is a communicator of the library (the intercommunicator and the helper
# halves it is built from never see a collective, MPI_COMM_SELF is unused,
# bookkeeping is PMPI_): memberships = 4 + 48 + 480 = 532.
report_ok "report of the -n 4 run: nranks 4" "$tmp/c4.json" 'nranks==4'
report_ok "exact counts: 528 Allreduce (5 ints), 48 Bcast (16 doubles), 48 Barrier" "$tmp/c4.json" \
    'allreduce.calls==528' 'allreduce.bytes==528*20' \
    'bcast.calls==48' 'bcast.bytes==48*128' 'barrier.calls==48' \
    'reduce.calls+scatter.calls+gather.calls+allgather.calls==0' \
    'reduce_scatter.calls+reduce_scatter_block.calls==0'
# No communicator used for a collective at -n 4 has size 1 (the smallest
# have 2 ranks) or is an intercommunicator, all use MPI_INT/SUM or
# MPI_DOUBLE, and at most 1 + 10 rows are live on a rank at once (WORLD +
# a batch of 10 dups; the constructors' comms are freed one by one, Cart +
# Cart_sub at most 2 together): every call is offloaded.
report_ok "every constructor's communicator offloaded: offloaded == calls" "$tmp/c4.json" \
    'allreduce.offloaded==allreduce.calls' 'bcast.offloaded==bcast.calls' \
    'barrier.offloaded==barrier.calls' \
    'allreduce.offloaded_bytes==allreduce.bytes' 'bcast.offloaded_bytes==bcast.bytes' \
    'allreduce.fallback.comm_size+allreduce.fallback.intercomm+allreduce.fallback.ct_full==0'
# 121 row-holding communicators per rank over the run (WORLD, the 13
# constructors' or fewer, 120 dups) but never more than 12 alive: all of
# them get a row only if MPI_Comm_free released the previous ones, so
# ct_full == 0 and every membership has a row (with_ct == memberships == 532).
report_ok "CT rows released on free: ct_full == 0, with_ct == memberships >= 532" "$tmp/c4.json" \
    'communicators.ct_full==0' 'communicators.with_ct>=532' \
    'communicators.with_ct==communicators.memberships'
finish
