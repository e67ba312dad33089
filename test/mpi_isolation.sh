#!/bin/sh
# Job isolation (issue 19): an engine accepts only its own job's ranks.
# mpifpga-run gives the engine and the ranks a per-job secret
# (MPIFPGA_JOB_SECRET) that HELLO carries; ranks with another secret are
# refused with a message and run in MPICH; two jobs at once on one machine
# do not interfere.  TAP output.
. "$(dirname "$0")/mpi/common.sh"

LIBSO=${top_builddir:-.}/.libs/libmpifpga.so
SWITCHD=${top_builddir:-.}/mpifpga-switchd
if [ $LIB = 0 ]; then
    skip "job isolation" "no library"
    finish
fi
A=0123456789abcdef0123456789abcdef
B=fedcba9876543210fedcba9876543210

# An engine of job A, started by hand.
MPIFPGA_JOB_SECRET=$A MPIFPGA_BELL_DIR=$tmp "$SWITCHD" --nranks 2 --provider shm --quiet \
    --addr-file "$tmp/addr" --watch-pid $$ &
E=$!
i=0
while [ ! -s "$tmp/addr" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
addr=$(cat "$tmp/addr" 2>/dev/null)

# ranks SECRET LOG REPORT: the new_colls program against that engine
ranks() {
    timeout "$TIMEOUT" mpiexec -n 2 -genv LD_PRELOAD "$LIBSO" -genv MPIFPGA_ENGINE "$addr" \
        -genv MPIFPGA_ENGINE_PID "$E" -genv MPIFPGA_JOB_SECRET "$1" -genv MPIFPGA_BELL_DIR "$tmp" \
        -genv MPIFPGA_REPORT "$3" "$BIN/new_colls" 5 > "$2" 2>&1
}
ranks $B "$tmp/b.log" "$tmp/b.json"
rc=$?
[ $rc = 0 ] && grep -q "belongs to another job" "$tmp/b.log"
ok $? "another job's ranks are refused with a message and run in MPICH (exit $rc: $(grep -m1 -o 'rank [0-9]* belongs to another job' "$tmp/b.log"))"
report_ok "refused ranks: every call fell back (engine_unavailable), results right" "$tmp/b.json" \
    "scan.offloaded==0" "scan.fallback.engine_unavailable==10"
ranks $A "$tmp/a.log" "$tmp/a.json"
ok $? "the engine's own job's ranks get in"
report_ok "its own job's calls are offloaded" "$tmp/a.json" "scan.offloaded==10"
kill $E 2>/dev/null; wait $E 2>/dev/null

# Two jobs at once through mpifpga-run, each with its own engine and secret.
timeout "$TIMEOUT" $RUNNER -n 2 "$BIN/new_colls" 30 > "$tmp/j1.log" 2>&1 & J1=$!
timeout "$TIMEOUT" $RUNNER -n 2 "$BIN/new_colls" 30 > "$tmp/j2.log" 2>&1 & J2=$!
wait $J1; r1=$?; wait $J2; r2=$?
[ $r1 = 0 ] && [ $r2 = 0 ] && ! grep -q '^not ok' "$tmp/j1.log" "$tmp/j2.log" &&
    [ "$(grep -c '^ok' "$tmp/j1.log")" = 3 ] && [ "$(grep -c '^ok' "$tmp/j2.log")" = 3 ]
ok $? "two jobs at once: both right (exit $r1, $r2)"
finish
