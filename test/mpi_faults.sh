#!/bin/sh
# Faults and set-up paths (issue 4, 4. and 7.):
#  * the engine dies mid-job: the next offloaded call returns an error on
#    every rank within seconds, saying the engine exited (faults kill);
#  * an engine that is never reached: a warning, and every call falls back
#    to MPI with reason engine_unavailable -- results stay right;
#  * plain `mpiexec -genv LD_PRELOAD=libmpifpga.so` (no mpifpga-run): rank 0
#    starts an engine for the job and calls are offloaded;
#  * bad MPIFPGA_* values and bad mpifpga-run options: clear messages.
# TAP output; every run bounded by timeout.
. "$(dirname "$0")/mpi/common.sh"

LIBSO=${top_builddir:-.}/.libs/libmpifpga.so
MPIEXEC=${MPIEXEC:-mpiexec}

if [ $LIB = 0 ]; then
    skip "fault tests" "no library"
    finish
fi

run_ok "engine killed mid-job: next MPI_Allreduce errors on every rank within 10 s" \
    "$tmp/k" 3 faults kill
grep '^# rank 0' "$tmp/k"

# Plain mpiexec with the library preloaded; MPIFPGA_ENGINE as given.
plain() {
    log=$1; shift
    env "$@" timeout "$TIMEOUT" "$MPIEXEC" -n 2 -genv LD_PRELOAD "$LIBSO" "$BIN/faults" plain \
        > "$log" 2>&1
}

plain "$tmp/u" MPIFPGA_ENGINE="tcp;ofi_rxm/0200b48bc00002020000000000000000" \
    MPIFPGA_CONNECT_TIMEOUT=2 MPIFPGA_REPORT="$tmp/u.json"
ok $? "unreachable engine: the program still runs right (calls fall back)"
grep -q "collectives run in MPI" "$tmp/u"
ok $? "unreachable engine: a warning says collectives run in MPI"
grep 'mpifpga:' "$tmp/u" | head -n 2 | sed 's/^/# /'
report_ok "unreachable engine: every call counted engine_unavailable" "$tmp/u.json" \
    'allreduce.calls==10' 'allreduce.offloaded==0' 'allreduce.fallback.engine_unavailable==10'

plain "$tmp/a" MPIFPGA_REPORT="$tmp/a.json"
ok $? "plain mpiexec + LD_PRELOAD: rank 0 starts an engine, results right"
report_ok "plain mpiexec + LD_PRELOAD: calls offloaded" "$tmp/a.json" \
    'allreduce.calls==10' 'allreduce.offloaded==10'

plain "$tmp/b" MPIFPGA_CT_SLOTS=99 MPIFPGA_REPORT="$tmp/b.json"
ok $? "bad MPIFPGA_CT_SLOTS: the program still runs right"
grep -q "MPIFPGA_CT_SLOTS: '99' is not an integer in 0..32; offload disabled" "$tmp/b"
ok $? "bad MPIFPGA_CT_SLOTS: the message names the variable and the range"
report_ok "bad MPIFPGA_CT_SLOTS: calls counted as disabled" "$tmp/b.json" \
    'allreduce.offloaded==0' 'allreduce.fallback.disabled==10'

timeout 30 "$RUNNER" -n 2 sh -c 'exit 3' > "$tmp/x" 2>&1
rc=$?
[ $rc = 3 ]
ok $? "mpifpga-run returns the program's exit status (3, got $rc)"

# mpifpga-run's own errors: exit 2 and a message, nothing started.
bad_run() {
    desc=$1; want=$2; shift 2
    timeout 30 "$RUNNER" "$@" > "$tmp/o" 2>&1
    rc=$?
    grep -q -- "$want" "$tmp/o"
    found=$?
    [ $rc = 2 ] && [ $found = 0 ]
    ok $? "mpifpga-run $desc: exit 2 (got $rc) with '$want'"
    [ $found = 0 ] || sed 's/^/#   /' "$tmp/o" | head -n 5
}
bad_run "without -n" "-n N is required" "$BIN/faults"
bad_run "-n 0" "not a positive rank count" -n 0 "$BIN/faults"
bad_run "--ppn x" "--ppn: 'x' is not a positive integer" --ppn x -n 2 "$BIN/faults"
bad_run "--topology bogus" "topology" --topology bogus -n 2 "$BIN/faults"
bad_run "--params nosuch" "params" --params nosuch -n 2 "$BIN/faults"
finish
