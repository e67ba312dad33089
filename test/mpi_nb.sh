#!/bin/sh
# Nonblocking collectives (test/mpi/nb_coll.c): nine MPI_I* calls per
# round outstanding at once on two communicators, completed by Waitall,
# Waitany and Test loops, results against closed forms, at -n 4 and -n 3;
# the same nine as persistent requests (MPI_*_init), started 40 times by
# MPI_Startall / MPI_Start and completed by MPI_Waitall / MPI_Test;
# the report must count every one offloaded under its own class
# (iallreduce, ...) and >= 1000 in all.  Then modeled time: Iallreduce +
# compute + Wait must overlap (less than Allreduce + compute by 30 % of
# the collective's latency), and neither call may end sooner after the
# first member's t0 than the least time a member takes in the model
# (mpifpga-sim's min_us for the same Allreduce on the same torus: a figure
# without host time in it).
# Then nb_legal at -n 4 and -n 3: legal programs that hang if a start
# waits for the other members or the engine stalls on a rank that is not
# reading (test/mpi/nb_legal.c); of its 64 + 64 calls started at once,
# those started with 6 (u280 #SA) of the rank's calls outstanding are
# counted queued: 61 + 61 per rank.  MPIFPGA_NONBLOCKING=0 leaves them to
# MPICH, counted as disabled.  TAP output.
. "$(dirname "$0")/mpi/common.sh"

it=40
for np in 4 3; do
    withenv "MPIFPGA_REPORT=$tmp/r$np.json" run_ok "nb_coll $it rounds at -n $np" \
        "$tmp/n$np" $np nb_coll $it
    each=$((np * it))
    report_ok "-n $np: every nonblocking call offloaded, counted per class" "$tmp/r$np.json" \
        "iallreduce.offloaded==$each" "ibcast.offloaded==$each" "ireduce.offloaded==$each" \
        "iallgather.offloaded==$each" "iscatter.offloaded==$each" "igather.offloaded==$each" \
        "ireduce_scatter.offloaded==$each" "ireduce_scatter_block.offloaded==$each" \
        "ibarrier.offloaded==$each" "allreduce.calls==0" \
        "iallreduce.offloaded+ibcast.offloaded+ireduce.offloaded+iallgather.offloaded+iscatter.offloaded+igather.offloaded+ireduce_scatter.offloaded+ireduce_scatter_block.offloaded+ibarrier.offloaded>=1000"
    withenv "MPIFPGA_REPORT=$tmp/p$np.json" run_ok "persistent: $it starts at -n $np" \
        "$tmp/p$np" $np nb_coll persist $it
    report_ok "-n $np: every persistent start offloaded, counted per class" "$tmp/p$np.json" \
        "allreduce_init.offloaded==$each" "bcast_init.offloaded==$each" \
        "reduce_init.offloaded==$each" "allgather_init.offloaded==$each" \
        "scatter_init.offloaded==$each" "gather_init.offloaded==$each" \
        "reduce_scatter_init.offloaded==$each" "reduce_scatter_block_init.offloaded==$each" \
        "barrier_init.offloaded==$each" "iallreduce.calls==0"
    withenv "MPIFPGA_REPORT=$tmp/l$np.json" run_ok "legal programs that hang if a start waits, at -n $np" \
        "$tmp/l$np" $np nb_legal
    report_ok "-n $np: nb_legal's calls offloaded" "$tmp/l$np.json" \
        "iallreduce.offloaded>=$((np * 67))" "ibcast.offloaded==$((np * 65))" \
        "ibarrier.offloaded==$np" \
        "ibcast.queued_calls==$((np * 61))" "iallreduce.queued_calls==$((np * 61))" \
        "allgather_init.offloaded==$((np * 3))" "iscatter.offloaded==$np" \
        "igather.offloaded==$np" "ireduce_scatter_block.offloaded==$np" \
        "iscan.offloaded==$np" "iexscan.offloaded==$np" "ialltoall.offloaded==$np" \
        "scan_init.offloaded==$((np * 2))" "alltoall_init.offloaded==$((np * 2))"
done
# MPIFPGA_NONBLOCKING=0: MPICH's own nonblocking and persistent collectives,
# counted as disabled.
withenv "MPIFPGA_REPORT=$tmp/d.json MPIFPGA_NONBLOCKING=0" run_ok "nb_coll with MPIFPGA_NONBLOCKING=0 (MPICH's own) at -n 4" \
    "$tmp/d" 4 nb_coll 5
report_ok "MPIFPGA_NONBLOCKING=0: every MPI_I* call fell back (disabled), right results" "$tmp/d.json" \
    "iallreduce.offloaded==0" "iallreduce.fallback.disabled==20" "ibarrier.fallback.disabled==20"
if [ $LIB = 1 ]; then
    min_us=$("${MPIFPGA_SIM:-./mpifpga-sim}" -c allreduce -m 65536:65536 --topology torus:2x2x1 \
        --format json | sed -n 's/.*"min_us":\([0-9.]*\).*/\1/p')
    echo "# the model's least member time, 64 KiB Allreduce, torus:2x2x1: ${min_us:-none} us"
    withenv "MPIFPGA_MODELED_TIME=1 MPIFPGA_TOPOLOGY=torus:2x2x1" \
        run_ok "overlap in modeled time at -n 4" "$tmp/o" 4 nb_coll overlap 65536 "${min_us:-0}"
    grep '^# ' "$tmp/o"
else
    skip "overlap in modeled time" "no library"
fi
finish
