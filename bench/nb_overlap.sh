#!/bin/sh
# Overlap of a nonblocking collective with host work, in modeled time
# (MPIFPGA_MODELED_TIME=1): per vector size, an offloaded MPI_Allreduce
# alone, MPI_Allreduce + independent compute (half its latency, thread CPU
# time), and MPI_Iallreduce + the same compute + MPI_Wait (least of 15:
# host noise in the charged CPU time only adds).
# With overlap the last is about the latency, not latency + compute.
#   bench/nb_overlap.sh [NP] [BYTES...]     (run from the build directory)
# The test (test/mpi_nb.sh) asserts the overlap at 64 KiB.
np=${1:-4}
[ $# -gt 0 ] && shift
sizes=${*:-8192 65536 262144 1048576}
for b in $sizes; do
    echo "bytes $b:"
    MPIFPGA_MODELED_TIME=1 timeout 120 ./mpifpga-run -n "$np" test/mpi/nb_coll overlap "$b" |
        grep '^# modeled'
done
