#!/bin/sh
# mpiexec -n K mpifpga-sim -c ...: the collectives of one sweep point over
# a network whose switches are split among K processes (net/domain.h,
# domain_coll.c: windows of one active cycle) print every figure one
# process prints -- K = 2, 3, 4 (more processes than the two cores), other
# partitions, a sweep (MPIFPGA_SPLIT=switches), the OSU loop, fat trees.
# What cannot run split (--baseline, --analytic) runs whole in rank 0 unless asked for
# by name (one message, exit 2); so does MPIFPGA_SPLIT=sizes.  No process
# left.  TAP.
SIM_TEST_NAME=sim_split
. "$(dirname "$0")/sim_common.sh"

# one run's CSV against one process's, nothing on stderr
same() { # label, env assignments..., -- args
    label=$1; shift
    env "$@" --format csv < /dev/null > "$tmp/raw" 2> "$tmp/err"
    rc=$?
    [ $rc = 0 ] && cmp -s "$tmp/plain" "$tmp/raw" && [ ! -s "$tmp/err" ]
    st=$?
    ok $st "$label"
    [ $st = 0 ] || { echo "# exit $rc"; diff "$tmp/plain" "$tmp/raw" | sed 's/^/#   /'; sed 's/^/#   /' "$tmp/err"; }
}
# More processes than cores wait for a time slice at every window: -n 4 on
# this 2-core machine took 34 s beside one other job, and over 120 s beside
# two; 300 s leaves room, and a hang still ends.
mpirun() { k=$1; shift; echo timeout 300 "$MPIEXEC" -n "$k" "$SIM" "$@"; }

cfg="-c allreduce -m 262144:262144 --topology torus:4x4x4"
# shellcheck disable=SC2086
"$SIM" $cfg --format csv > "$tmp/plain" 2> /dev/null
[ "$(wc -l < "$tmp/plain")" = 2 ]
ok $? "one process: one row ($cfg)"
for k in 1 2 3 4; do
    # shellcheck disable=SC2046,SC2086
    same "mpiexec -n $k: the switches split, every figure of one process ($cfg)" \
        $(mpirun $k $cfg)
done
# shellcheck disable=SC2046,SC2086
same "mpiexec -n 3, MPIFPGA_PARTITION=cyclic: the same figures" \
    MPIFPGA_PARTITION=cyclic $(mpirun 3 $cfg)
# shellcheck disable=SC2046,SC2086
same "mpiexec -n 2 with 2 threads each: the same figures" \
    MPIFPGA_THREADS=2 MPIFPGA_SIM_SHARE_ALL=1 $(mpirun 2 $cfg)

# a sweep, every size split; the OSU loop
for cfg in "-c bcast -m 4:65536 --topology torus:4x4x2" \
           "-c allgather -m 4096:4096 --topology torus:4x2x2 --loop osu -i 3" \
           "-c reduce_scatter -m 65536:65536 --topology torus:4x4x2 --root 3"; do
    # shellcheck disable=SC2086
    "$SIM" $cfg --format csv > "$tmp/plain" 2> /dev/null
    # shellcheck disable=SC2046,SC2086
    same "MPIFPGA_SPLIT=switches mpiexec -n 2: the same figures ($cfg)" \
        MPIFPGA_SPLIT=switches $(mpirun 2 $cfg)
done

# a fat tree: its children post to aggregation engines in other processes
for cfg in "-c allreduce -m 65536:65536 --topology fattree:4 --nodes 16" \
           "-c bcast -m 8:65536 --topology fattree:8 --nodes 16 --ppn 2"; do
    # shellcheck disable=SC2086
    "$SIM" $cfg --format csv > "$tmp/plain" 2> /dev/null
    # shellcheck disable=SC2046,SC2086
    same "MPIFPGA_SPLIT=switches mpiexec -n 2, cyclic: the same figures ($cfg)" \
        MPIFPGA_SPLIT=switches MPIFPGA_PARTITION=cyclic $(mpirun 2 $cfg)
done

# what runs whole in rank 0: asked for, or what cannot be split
cfg="-c allreduce -m 4096:4096 --topology torus:4x4x2 --baseline"
# shellcheck disable=SC2086
"$SIM" $cfg --format csv > "$tmp/plain" 2> /dev/null
# shellcheck disable=SC2086
mpi 2 $cfg --format csv > "$tmp/raw" 2> "$tmp/err"
[ $? = 0 ] && cmp -s "$tmp/plain" "$tmp/raw" && grep -q 'rank 0 runs it' "$tmp/err"
ok $? "--baseline's one size under mpiexec -n 2: rank 0 runs it whole, the same figures"
cfg="-c allreduce -m 4096:4096 --topology torus:4x4x2"
# shellcheck disable=SC2086
MPIFPGA_SPLIT=sizes mpi 2 $cfg > "$tmp/raw" 2> "$tmp/err"
[ $? = 0 ] && grep -q 'rank 0 runs it' "$tmp/err"
ok $? "MPIFPGA_SPLIT=sizes, one size: rank 0 runs it whole"

# refused by name: one message, exit 2
for bad in "MPIFPGA_SPLIT=switches|-c bcast -m 8:8 --topology torus:4x2x2 --analytic|--analytic cannot run split" \
           "MPIFPGA_SPLIT=switches|-c bcast -m 8:8 --topology torus:4x2x2 --baseline|--baseline cannot run split" \
           "MPIFPGA_SPLIT=halves|-c bcast -m 8:8 --topology torus:4x2x2|MPIFPGA_SPLIT='halves': expected auto"; do
    envs=${bad%%|*}; rest=${bad#*|}; args=${rest%%|*}; says=${rest#*|}
    # shellcheck disable=SC2086
    env $envs timeout 120 "$MPIEXEC" -n 2 "$SIM" $args < /dev/null > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ $rc = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -qF -- "$says" "$tmp/err"
    ok $? "$envs $args: one message, exit 2 (got $rc: $(head -c 160 "$tmp/err"))"
done

finish
