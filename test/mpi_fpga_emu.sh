#!/bin/sh
# The board path end to end without a board (issue 20 item 4, doc/board.md):
# board_bytes -- every collective the board engine runs, several types and
# ops, MPI_IN_PLACE, zero counts, split, reversed and 3-rank communicators --
# under `mpifpga-run --device fpga-emu -n 4` (the fpga device's driver on
# the FIFOs of mpifpga-fpga-emu, i.e. the Verilated rtl/mf_engine.sv) and
# under plain mpiexec -n 4: every rank's result bytes must be the same, the
# report must say device fpga with every call offloaded, and the job must
# leave nothing behind, also when a rank aborts.  Also coll_check --quick
# through the RTL, nonblocking calls (they fall back on this device), and
# --device fpga with no board.  Registered only when
# configure found verilator (test/local.am).  TAP output.
. "$(dirname "$0")/mpi/common.sh"

if [ $LIB = 0 ]; then
    skip "the board emulator" "no library"
    finish
fi
EMU_RUN="$MPIFPGA_RUN --device fpga-emu"
NP=4

$MPIFPGA_RUN --device foo -n $NP true > "$tmp/bad.log" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "not model, fpga-emu or fpga" "$tmp/bad.log"
ok $? "mpifpga-run --device foo: exit 2 naming the devices (exit $rc)"

# plain MPICH: the reference bytes
RUNNER=${MPIEXEC:-mpiexec} run_ok "board_bytes under plain mpiexec -n $NP" "$tmp/ref.log" $NP \
    board_bytes "$tmp/ref"
# the board path, in a directory of its own to see what it leaves
mkdir "$tmp/job"
RUNNER=$EMU_RUN withenv "TMPDIR=$tmp/job MPIFPGA_REPORT=$tmp/emu.json" run_ok \
    "board_bytes under mpifpga-run --device fpga-emu -n $NP" "$tmp/emu.log" $NP \
    board_bytes "$tmp/emu"
for r in $(seq 0 $((NP - 1))); do
    [ -s "$tmp/ref.$r" ] && cmp "$tmp/ref.$r" "$tmp/emu.$r" > "$tmp/cmp.$r" 2>&1
    ok $? "rank $r: the RTL's result bytes are MPICH's ($(wc -c < "$tmp/ref.$r" 2>/dev/null || echo no) bytes)"
    sed 's/^/#   /' "$tmp/cmp.$r"
done
report_ok "report: device fpga, all nine collectives offloaded, none fell back" "$tmp/emu.json" \
    'device=="fpga"' 'nranks==4' '*.offloaded==*.calls-*.empty' \
    'barrier.offloaded>0' 'bcast.offloaded>0' 'reduce.offloaded>0' 'allreduce.offloaded>0' \
    'scatter.offloaded>0' 'gather.offloaded>0' 'allgather.offloaded>0' \
    'reduce_scatter.offloaded>0' 'reduce_scatter_block.offloaded>0' 'allreduce.modeled_us>0'
left=$(ls -A "$tmp/job"; pgrep -f "$tmp/job" 2>/dev/null)
[ -z "$left" ]
ok $? "a clean run leaves no FIFOs, files or processes (${left:-none})"

# coll_check: every (type, op) pair the library offloads, each call's result
# compared with MPICH's PMPI_ one in the same run.
RUNNER=$EMU_RUN withenv "MPIFPGA_REPORT=$tmp/cc.json" run_ok \
    "coll_check --quick under --device fpga-emu at -n $NP" "$tmp/cc.log" $NP coll_check --quick
report_ok "coll_check: every call offloaded but those of one-rank communicators" "$tmp/cc.json" \
    'device=="fpga"' '*.offloaded==*.calls-*.empty-*.fallback.comm_size' 'allreduce.offloaded>500'

# Nonblocking and persistent starts fall back on this device (doc/board.md),
# counted as unsupported; their results stay right.
RUNNER=$EMU_RUN withenv "MPIFPGA_REPORT=$tmp/nb.json" run_ok \
    "nb_coll under --device fpga-emu at -n $NP" "$tmp/nb.log" $NP nb_coll 5
report_ok "MPI_I* calls fell back as unsupported" "$tmp/nb.json" \
    'iallreduce.offloaded==0' "iallreduce.fallback.unsupported==$((NP * 5))" \
    "ibarrier.fallback.unsupported==$((NP * 5))"

# No board at MPIFPGA_FPGA_DEV (--device fpga): every rank says so, every
# call runs in MPI (engine_unavailable) and the bytes are still MPICH's.
RUNNER="$MPIFPGA_RUN --device fpga" withenv "MPIFPGA_FPGA_DEV=$tmp/none/xdma0 MPIFPGA_REPORT=$tmp/none.json" \
    run_ok "board_bytes under --device fpga with no board" "$tmp/none.log" $NP board_bytes "$tmp/none"
grep -q "cannot open the board's H2C queue $tmp/none/xdma0_h2c_3" "$tmp/none.log"
ok $? "no board: the message names the missing queue"
cmp "$tmp/ref.0" "$tmp/none.0" > /dev/null 2>&1
ok $? "no board: rank 0's bytes are MPICH's"
report_ok "no board: device fpga, every call fell back (engine_unavailable)" "$tmp/none.json" \
    'device=="fpga"' '*.offloaded==0' 'allreduce.fallback.engine_unavailable>0'

# A rank aborts after an offloaded allreduce: the job fails, and the
# launcher still stops the emulator and removes its FIFOs.
mkdir "$tmp/abort"
RUNNER=$EMU_RUN withenv "TMPDIR=$tmp/abort" mpirun "$tmp/abort.log" $NP endings abort 1
rc=$?
[ $rc != 0 ] && [ $rc != 124 ]
ok $? "a rank's MPI_Abort ends the job (exit $rc)"
sleep 0.2
left=$(ls -A "$tmp/abort"; pgrep -f "$tmp/abort" 2>/dev/null)
[ -z "$left" ]
ok $? "after the abort: no FIFOs, files or processes left (${left:-none})"
finish
