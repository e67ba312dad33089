#!/bin/sh
# mpiexec -n K mpifpga-sim spreads a sweep's sizes over K processes and
# prints, on stdout, byte for byte what one process prints: K = 1, 2, 4 for
# every collective family's representative, both topologies, --baseline,
# --analytic, --loop osu, the three formats, one-point runs (traffic), the
# sweeps whose sizes depend on each other (--ppn > 1, link jitter).  Bad
# arguments and a failing point: one message, nonzero exit, no hang, no
# process left.  TAP.
SIM_TEST_NAME=sim_mpi
. "$(dirname "$0")/sim_common.sh"

i=0
while read -r cfg; do
    [ -z "$cfg" ] && continue
    i=$((i + 1))
    # shellcheck disable=SC2086
    "$SIM" $cfg 2> /dev/null | grep -v '^model speed' > "$tmp/plain.$i"
    [ "$(wc -l < "$tmp/plain.$i")" -ge 2 ]
    ok $? "one process runs: $cfg"
    for k in 1 2 4; do
        # shellcheck disable=SC2086
        mpi $k $cfg 2> "$tmp/err" > "$tmp/raw"
        rc=$?
        grep -v '^model speed' "$tmp/raw" > "$tmp/mpi"
        [ $rc = 0 ] && cmp -s "$tmp/plain.$i" "$tmp/mpi"
        ok $? "mpiexec -n $k prints what one process prints: $cfg"
    done
done <<'CONFIGS'
-c allreduce -m 4:65536 --topology torus:4x4x4 --baseline --format csv
-c bcast -m 4:65536 --topology torus:4x4x4 --analytic
-c reduce_scatter -m 4:65536 --topology torus:4x4x4 --baseline --format json
-c allgather -m 4:65536 --topology torus:4x4x4 --algorithm auto --format json
-c allgather -m 4:65536 --topology fattree:8 --format json
-c allreduce -m 4:4096 --topology torus:4x4x4 --loop osu --format json
-c alltoall -m 8:16384 --nodes 27 --baseline --format json
-c gather -m 8:16384 --nodes 20 --root 5 --baseline --format json
-c bcast -m 8:1024 --nodes 8 --ppn 4 --baseline --format json
-c allreduce -m 4:1024 --topology torus:4x4x2 --params novog --format json
--traffic uniform --rate 0.3 --topology torus:4x4x2 --cycles 2000
CONFIGS

# why the split is exact: every size runs on a new network, so a size's row
# is the row of that size run alone (on one network a fat tree's 128 B and
# 4 KiB Allgather rows moved in the 6th digit with the sizes before them)
"$SIM" -c allgather -m 4:65536 --topology fattree:8 --format json > "$tmp/sweep" 2> /dev/null
for b in 128 4096; do
    "$SIM" -c allgather -m $b:$b --topology fattree:8 --format json > "$tmp/one" 2> /dev/null
    python3 -c 'import json,sys
s = [r for r in json.load(open(sys.argv[1]))["results"] if r["bytes"] == int(sys.argv[3])]
assert s == json.load(open(sys.argv[2]))["results"]' "$tmp/sweep" "$tmp/one" $b
    ok $? "the sweep's $b B row is the row of -m $b:$b alone (fattree:8 allgather, every digit)"
done

# the threads each process shares the switches among: the same figures
cfg="-c allreduce -m 4:65536 --topology torus:4x4x4 --baseline --format csv"
# shellcheck disable=SC2086
MPIFPGA_THREADS=2 mpi 2 $cfg > "$tmp/mpi" 2> /dev/null
[ $? = 0 ] && cmp -s "$tmp/plain.1" "$tmp/mpi"
ok $? "MPIFPGA_THREADS=2 under mpiexec -n 2 prints what one process prints"

# one point, asked to spread the sizes (MPIFPGA_SPLIT=sizes; the default
# splits the switches, test/sim_split.sh): rank 0 runs it, one note, the
# output of one process
"$SIM" -c bcast -m 64:64 --format csv > "$tmp/plain" 2> /dev/null
MPIFPGA_SPLIT=sizes mpi 2 -c bcast -m 64:64 --format csv > "$tmp/mpi" 2> "$tmp/err"
rc=$?
# (counted among mpifpga-sim's own lines: a line from mpiexec about the
# machine, seen once in CI, is not this test's business)
[ $rc = 0 ] && cmp -s "$tmp/plain" "$tmp/mpi" && [ "$(grep -c '^mpifpga-sim' "$tmp/err")" = 1 ] &&
    grep -q '^mpifpga-sim: one sweep point: rank 0 runs it, 1 other process had nothing to do' "$tmp/err"
st=$?
[ $st = 0 ] || sed 's/^/#   /' "$tmp/err"
ok $st "a single size, MPIFPGA_SPLIT=sizes: rank 0 runs it, one note that the other process had nothing to do"
if [ $st != 0 ]; then
    # what differed (it failed once in CI at b2c1dad and not in 25 runs here)
    echo "# exit $rc; stderr:"; sed 's/^/#   /' "$tmp/err"
    diff "$tmp/plain" "$tmp/mpi" | head -5 | sed 's/^/#   /'
fi

# a bad argument: every rank stops, one message, exit 2
start=$(date +%s)
mpi 2 -c allreduce --frobnicate > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
    grep -q '^mpifpga-sim: --frobnicate: unknown option' "$tmp/err"
ok $? "bad argument under mpiexec -n 2: one message, exit 2 (got $rc)"
mpi 2 -c allreduce -m 8:64 --topology torus:0x1x1 > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q '^mpifpga-sim: --topology' "$tmp/err"
ok $? "bad --topology under mpiexec -n 2 (found after MPI_Init): one message, exit 2 (got $rc)"

# a point fails (the watchdog set far too low): sizes from 8 KiB fail, on
# whichever rank: one message, every rank exits nonzero, no row printed
MPIFPGA_WATCHDOG_CYCLES=50 "$SIM" -c allreduce -m 4:65536 --topology torus:4x4x4 > /dev/null 2>&1
[ $? = 1 ]
ok $? "the failing point fails in one process"
for k in 2 4; do
    MPIFPGA_WATCHDOG_CYCLES=50 mpi $k -c allreduce -m 4:65536 --topology torus:4x4x4 \
        > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ $rc = 1 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
        grep -q '^mpifpga-sim: watchdog' "$tmp/err"
    ok $? "a failing point under mpiexec -n $k: one message, exit 1, no rows (got $rc)"
done
[ $(($(date +%s) - start)) -lt 100 ]
ok $? "the failing runs end promptly"

# the plain program does not link MPI (MPICH brings UCX's memory hooks into
# every run); under mpiexec it becomes mpifpga-sim-mpi, found beside it
if command -v ldd > /dev/null 2>&1; then
    ! ldd "$SIM" | grep -q -i -e 'libmpi' -e 'libucm'
    ok $? "mpifpga-sim itself links neither MPI nor UCX"
fi
mkdir "$tmp/lone"
cp "$SIM" "$tmp/lone/mpifpga-sim"
cfg="-c allreduce -m 4:64 --topology torus:2x2x2 --format csv"
# shellcheck disable=SC2086
timeout 120 "$MPIEXEC" -n 2 "$tmp/lone/mpifpga-sim" $cfg > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if [ -x "${MPIFPGA_PKGLIBEXECDIR:-/nonexistent}/mpifpga-sim-mpi" ]; then
    # an installed one is found instead: it runs the sweep
    # shellcheck disable=SC2086
    "$SIM" $cfg > "$tmp/plain" 2> /dev/null
    [ $rc = 0 ] && cmp -s "$tmp/plain" "$tmp/out"
    ok $? "without mpifpga-sim-mpi beside it, the installed one runs the sweep"
else
    [ $rc = 1 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
        grep -q '^mpifpga-sim: under mpiexec a sweep runs as mpifpga-sim-mpi' "$tmp/err"
    ok $? "without mpifpga-sim-mpi: one message naming it, exit 1 (got $rc)"
fi

finish
