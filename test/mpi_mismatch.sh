#!/bin/sh
# mismatch: ranks pass different counts to one MPI_Allreduce; the library
# must return an error naming MPI_Allreduce on every rank -- not hang, not a
# wrong answer -- and keep working.  Needs the library: under plain MPICH
# (MPIFPGA_RUN unset) only `mismatch --dry` runs and the real check SKIPs.
# Every run is bounded by timeout.  TAP output.
. "$(dirname "$0")/mpi/common.sh"

run_ok "mismatch --dry at -n 2 (everything but the mismatched call)" "$tmp/d" 2 mismatch --dry
if [ $LIB = 1 ]; then
    for np in 2 3; do
        run_ok "mismatched MPI_Allreduce counts at -n $np: error on every rank, no hang" \
            "$tmp/m$np" $np mismatch
        grep '^# rank' "$tmp/m$np" | head -n 4
    done
else
    skip "mismatched MPI_Allreduce counts: error on every rank, no hang" "no library"
fi
finish
