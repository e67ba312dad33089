#!/bin/sh
# Every legal call (test/mpi/legal_args.c) at 3, 4 and 5 ranks, every root:
# insignificant arguments at their most surprising legal values, pair types
# (size != extent), derived types with holes, MINLOC/MAXLOC on the pairs,
# SUM/PROD on the complex types, Scan/Exscan, Alltoall (at -n 3 the split
# leaves one rank alone: its alltoall moves nothing in the network),
# count 0, uneven counts.  The
# results must be right, no run may hang (timeout), and the report must show
# that no intercepted call fell back: each was offloaded or moved nothing.
# TAP output.
. "$(dirname "$0")/mpi/common.sh"

for np in 3 4 5; do
    withenv "MPIFPGA_REPORT=$tmp/r$np.json" run_ok "legal_args at -n $np" "$tmp/l$np" $np legal_args
    report_ok "-n $np: every intercepted call offloaded or empty, none fell back" "$tmp/r$np.json" \
        '*.calls==*.offloaded+*.empty'
    report_ok "-n $np: scatter, gather, bcast, allgather, reduce offloaded for every root" \
        "$tmp/r$np.json" "scatter.offloaded==$((np * np * 7))" "gather.offloaded==$((np * np * 8))" \
        "bcast.offloaded==$((np * np * 7))" "allgather.offloaded==$((np * np * 6 + np))" \
        "reduce.offloaded==$((np * np * 5))" 'reduce_scatter.offloaded>0' \
        "allreduce.offloaded==$((np * 6))" "reduce_scatter_block.offloaded==$np" \
        "scan.offloaded==$((np * 2))" "exscan.offloaded==$((np * 2))" \
        "alltoall.offloaded==$((np * 3 - (np == 3)))" "alltoallv.offloaded==$((np * 2))"
done
finish
