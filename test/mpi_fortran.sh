#!/bin/sh
# fcheck (Fortran `use mpi`: ALLREDUCE, BCAST, REDUCE, ALLGATHER, GATHER,
# SCATTER, BARRIER against known results) at 1, 2 and 3 ranks; the report of
# the 3-rank run must count exactly the Fortran calls (they go through the C
# MPI_ functions the library intercepts).  Fails if fcheck was not built (no
# Fortran compiler: install gfortran).  TAP output.
. "$(dirname "$0")/mpi/common.sh"

run_ok "fcheck at -n 1" "$tmp/f1" 1 fcheck
run_ok "fcheck at -n 2" "$tmp/f2" 2 fcheck
if withenv "MPIFPGA_REPORT=$tmp/f3.json" run_ok "fcheck at -n 3" "$tmp/f3" 3 fcheck; then
    report_ok "-n 3 report counts every Fortran call (per rank: 4 ALLREDUCE, 2 BCAST, 2 REDUCE, ...)" \
        "$tmp/f3.json" 'nranks==3' 'allreduce.calls==12' 'bcast.calls==6' 'reduce.calls==6' \
        'allgather.calls==3' 'gather.calls==3' 'scatter.calls==3' 'barrier.calls==3' \
        'allreduce.offloaded>0'
else
    ok 1 "-n 3 report counts every Fortran call (fcheck did not run)"
fi
finish
