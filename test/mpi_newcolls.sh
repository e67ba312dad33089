#!/bin/sh
# The collectives beyond 001's seven (test/mpi/new_colls.c, issue 21):
# Scan, Exscan, Alltoall, Alltoallv and complex SUM/PROD at 3 and 4 ranks,
# every call's result compared with MPICH's own (PMPI_) for the same
# arguments, and the report must count them all offloaded: at 4 ranks x 60
# iterations that is more than 1000 calls.  TAP output.
. "$(dirname "$0")/mpi/common.sh"

for np in 3 4; do
    withenv "MPIFPGA_REPORT=$tmp/r$np.json" run_ok "new_colls at -n $np" "$tmp/n$np" $np new_colls 60
    report_ok "-n $np: scan, exscan, alltoall, alltoallv, complex allreduce/reduce all offloaded" \
        "$tmp/r$np.json" "scan.offloaded==$((np * 60))" "exscan.offloaded==$((np * 60))" \
        "alltoall.offloaded==$((np * 60))" "alltoallv.offloaded==$((np * 60))" \
        "allreduce.offloaded==$((np * 60))" "reduce.offloaded==$((np * 60))" \
        'scan.offloaded+exscan.offloaded+alltoall.offloaded+alltoallv.offloaded+allreduce.offloaded+reduce.offloaded>=1000 or nranks==3'
done
finish
