#!/bin/sh
# mpiexec -n K mpifpga-sim --traffic: the network's switches split among K
# processes (net/domain.h), exchanging what crosses at the link-latency
# lookahead, print every figure one process prints: K = 2 (and 3, 4 on
# two configurations) on saturated and light loads, both topologies,
# multi-phit packets, jittery links (lookahead of one cycle), more
# processes than switches, threads inside the processes, other partitions
# (MPIFPGA_PARTITION).  A bad argument: one message, exit 2; no process
# left.  TAP.
SIM_TEST_NAME=sim_domains
. "$(dirname "$0")/sim_common.sh"
# the figures: every CSV column but the last (router-cycles per wall second)
figures() { sed 's/,[^,]*$//'; }

while read -r cfg; do
    [ -z "$cfg" ] && continue
    # shellcheck disable=SC2086
    "$SIM" $cfg --format csv 2> /dev/null | figures > "$tmp/plain"
    [ "$(wc -l < "$tmp/plain")" = 2 ] && ! grep -q ',0\.0000,' "$tmp/plain"
    ok $? "one process delivers packets: $cfg"
    # 4 processes on 2 cores take turns at every exchange: K = 4 (and 3,
    # more processes than switches on torus:2x1x1) where it matters most
    ks=2
    case $cfg in *transpose*) ks="2 4" ;; *2x1x1*) ks="2 3 4" ;; esac
    for k in $ks; do
        # shellcheck disable=SC2086
        mpi $k $cfg --format csv 2> "$tmp/err" > "$tmp/raw"
        rc=$?
        figures < "$tmp/raw" > "$tmp/mpi"
        [ $rc = 0 ] && cmp -s "$tmp/plain" "$tmp/mpi" && [ ! -s "$tmp/err" ]
        st=$?
        ok $st "mpiexec -n $k: every figure of one process: $cfg"
        [ $st = 0 ] || { echo "# exit $rc"; diff "$tmp/plain" "$tmp/mpi" | sed 's/^/#   /'; sed 's/^/#   /' "$tmp/err"; }
    done
done <<'CONFIGS'
--traffic transpose --rate 0.6 --topology torus:4x4x2 --cycles 3000
--traffic uniform --rate 0.85 --topology torus:4x4x4 --cycles 1500
--traffic uniform --rate 0.05 --topology torus:4x4x4 --cycles 2000
--traffic tornado --rate 0.4 --topology torus:4x4x1 --cycles 3000 --packet-phits 4
--traffic uniform --rate 0.3 --topology fattree:8 --cycles 3000
--traffic neighbor --rate 0.5 --topology torus:3x3x3 --cycles 3000 --params novog
--traffic uniform --rate 0.3 --topology torus:2x1x1 --cycles 2000
CONFIGS

# threads inside each process, every phase shared (MPIFPGA_SIM_SHARE_ALL)
cfg="--traffic transpose --rate 0.6 --topology torus:4x4x2 --cycles 3000 --format csv"
# shellcheck disable=SC2086
"$SIM" $cfg 2> /dev/null | figures > "$tmp/plain"
# shellcheck disable=SC2086
MPIFPGA_THREADS=2 MPIFPGA_SIM_SHARE_ALL=1 mpi 2 $cfg 2> /dev/null | figures > "$tmp/mpi"
cmp -s "$tmp/plain" "$tmp/mpi"
ok $? "mpiexec -n 2 with 2 threads each: the same figures"

# any partition (MPIFPGA_PARTITION): every link crossing, a shuffle
cfg="--traffic transpose --rate 0.6 --topology torus:4x4x2 --cycles 3000 --format csv"
for part in cyclic random:3; do
    # shellcheck disable=SC2086
    MPIFPGA_PARTITION=$part mpi 3 $cfg 2> "$tmp/err" | figures > "$tmp/mpi"
    cmp -s "$tmp/plain" "$tmp/mpi" && [ ! -s "$tmp/err" ]
    ok $? "mpiexec -n 3, MPIFPGA_PARTITION=$part: the same figures"
done
MPIFPGA_PARTITION=blocks mpi 2 $cfg > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
    grep -q "^mpifpga-sim: MPIFPGA_PARTITION='blocks': expected range, cyclic" "$tmp/err"
ok $? "MPIFPGA_PARTITION=blocks: one message, exit 2 (got $rc)"

# the table format: rank 0 prints it once
mpi 2 --traffic uniform --rate 0.2 --topology torus:4x4x2 --cycles 2000 > "$tmp/out" 2> "$tmp/err"
[ $? = 0 ] && [ "$(grep -c '^offered' "$tmp/out")" = 1 ] && [ ! -s "$tmp/err" ]
ok $? "the table is printed once, by rank 0, with nothing on stderr"

# a bad argument under mpiexec: one message, exit 2
mpi 2 --traffic uniform --rate 0.2 --topology torus:0x1x1 > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q '^mpifpga-sim: --topology' "$tmp/err"
ok $? "bad --topology under mpiexec -n 2: one message, exit 2 (got $rc)"

finish
