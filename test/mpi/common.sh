# Shared by the test/mpi_*.sh drivers (sourced).  TAP helpers and the MPI
# launcher.  Environment (set by the Makefile's AM_TESTS_ENVIRONMENT):
#   MPIFPGA_RUN   the launcher (mpifpga-run [--topology T] [--ppn K] -n N PROG
#                 ARGS; exits with the program's status).  Unset: plain
#                 mpiexec without the library -- report checks are then
#                 "# SKIP no library" (never the case under `make check`).
#   top_builddir  the test programs are $top_builddir/test/mpi/<name>
#                 (default: the current directory's test/mpi).
#   MPI_TEST_TIMEOUT  seconds per MPI run (default 120).
n=0
fails=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
finish() { echo "1..$n"; [ "$fails" = 0 ]; exit $?; }

MPI_DIR=$(cd "$(dirname "$0")/mpi" && pwd)
BIN=${top_builddir:-.}/test/mpi
TIMEOUT=${MPI_TEST_TIMEOUT:-120}
if [ -n "$MPIFPGA_RUN" ]; then
    LIB=1
    RUNNER=$MPIFPGA_RUN
else
    LIB=0
    RUNNER=mpiexec
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# launcher: $RUNNER ($( [ $LIB = 1 ] && echo library || echo 'plain MPICH, no library'))"

# mpirun LOG N PROG ARGS...: run under timeout, output to LOG; returns the
# program's status (124 on timeout).
RUN_ENV=
mpirun() {
    log=$1; np=$2; prog=$3; shift 3
    # shellcheck disable=SC2086
    env $RUN_ENV timeout "$TIMEOUT" $RUNNER -n "$np" "$BIN/$prog" "$@" > "$log" 2>&1
}

# withenv "VAR=value VAR2=value" CMD ARGS...: CMD (run_ok, mpirun) with that
# extra environment for the MPI run (values without spaces).
withenv() {
    RUN_ENV=$1; shift
    "$@"; r=$?
    RUN_ENV=
    return $r
}

# why LOG RC: a short reason for a failed run, as TAP comments (the
# program's own "ok"/"not ok" lines must not reach the TAP driver as tests).
why() {
    [ "$2" = 124 ] && echo "# timed out after ${TIMEOUT}s"
    { grep -A1 '^not ok' "$1"; tail -n 15 "$1"; } | head -n 40 | sed 's/^/#   /'
}

# run_ok DESC LOG N PROG ARGS...: one TAP line for a whole program run.
run_ok() {
    desc=$1; shift
    log=$1
    if [ ! -x "$BIN/$3" ]; then ok 1 "$desc ($BIN/$3 not built)"; return 1; fi
    mpirun "$@"
    rc=$?
    ok $rc "$desc (exit $rc, $(grep -c '^ok' "$log") ok, $(grep -c '^not ok' "$log") not ok)"
    [ $rc = 0 ] || why "$log" $rc
    return $rc
}

# report_ok DESC REPORT EXPR...: check a report with check_report.py.
report_ok() {
    desc=$1; shift
    if [ $LIB = 0 ]; then skip "$desc" "no library"; return 0; fi
    if [ ! -s "$1" ]; then ok 1 "$desc (no report written to $1)"; return 1; fi
    python3 "$MPI_DIR/check_report.py" "$@" > "$tmp/cr.out" 2>&1
    rc=$?
    ok $rc "$desc"
    [ $rc = 0 ] || sed 's/^/#   /' "$tmp/cr.out"
    return $rc
}
