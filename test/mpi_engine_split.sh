#!/bin/sh
# The switch engine split among MPI processes (mpifpga-run --engine-procs K,
# fpga_model/server/split.h): mpifpga-osu's every collective, validated,
# prints the same CSV with one engine process and with two (range and
# cyclic partitions, a torus and a fat tree), coll_check's results match
# MPICH's through a split engine, bad values are refused before any run
# (exit 2, one message), a job stopped mid-run takes every engine process with it,
# jobs stopped in start-up leave no MPICH or UCX shared-memory segment,
# and nothing is left behind.  TAP output.
. "$(dirname "$0")/mpi/common.sh"

OSU=${top_builddir:-.}/mpifpga-osu
SWITCHD_MPI=${top_builddir:-.}/mpifpga-switchd-mpi
shm_before=$(ls /dev/shm | sort)

# osu K LOG ARGS...: mpifpga-osu through an engine of K processes.
osu() {
    k=$1; log=$2; shift 2
    # shellcheck disable=SC2086
    env $RUN_ENV MPIFPGA_ENGINE_PROCS="$k" MPIFPGA_MODELED_TIME=none timeout "$TIMEOUT" \
        $RUNNER "$@" > "$log" 2> "$log.err"
}

# same DESC ARGS...: one engine process and two print the same rows, all
# validated.
same() {
    desc=$1; shift
    osu 1 "$tmp/one.csv" "$@"; r1=$?
    osu 2 "$tmp/two.csv" "$@"; r2=$?
    rows=$(grep -c ',pass$' "$tmp/two.csv")
    all=$(grep -vc '^collective,' "$tmp/two.csv")
    cmp -s "$tmp/one.csv" "$tmp/two.csv"; c=$?
    [ $r1 = 0 ] && [ $r2 = 0 ] && [ $c = 0 ] && [ "$rows" -gt 0 ] && [ "$rows" = "$all" ]
    ok $? "$desc: two engine processes print one's $all rows, $rows validated (exit $r1 / $r2)"
    [ $c = 0 ] || diff "$tmp/one.csv" "$tmp/two.csv" | head -n 10 | sed 's/^/#   /'
    [ $r2 = 0 ] || tail -n 5 "$tmp/two.csv.err" | sed 's/^/#   /'
}

[ -x "$SWITCHD_MPI" ]; ok $? "the split engine is built ($SWITCHD_MPI)"

same "every collective, 4 B-16 KiB, torus:2x2x1 -n 4" --topology torus:2x2x1 -n 4 \
    "$OSU" -c all -m 4:16K -i 5 -x 1 -f -c --format csv
withenv "MPIFPGA_PARTITION=cyclic" same "reduce_scatter 4 B-64 KiB, torus:4x2x1 -n 8, cyclic" \
    --topology torus:4x2x1 -n 8 "$OSU" -c reduce_scatter -m 4:64K -i 3 -x 1 -f -c --format csv

same "allreduce 4 B-64 KiB on a fat tree (aggregation engines), fattree:4 -n 8" \
    --topology fattree:4 -n 8 "$OSU" -c allreduce -m 4:64K -i 3 -x 1 -f -c --format csv

# the engine says it is split (its notes, MPIFPGA_VERBOSE=2)
withenv "MPIFPGA_VERBOSE=2" osu 2 "$tmp/v.csv" -n 2 "$OSU" -c bcast -m 8:8 -i 2 -x 1
grep -q 'split among 2 engine processes' "$tmp/v.csv.err"
ok $? "the engine's notes say the network is split among 2 engine processes"

withenv "MPIFPGA_ENGINE_PROCS=2" run_ok "coll_check --quick at -n 3 through a split engine" \
    "$tmp/cc" 3 coll_check --quick

# refusals: exit 2, one line, no run
refused() {
    desc=$1; want=$2; shift 2
    env "$@" "$MPIFPGA_RUN" -n 2 "$OSU" -c bcast -m 8:8 -i 2 > "$tmp/r.out" 2> "$tmp/r.err"
    rc=$?
    [ $rc = 2 ] && grep -q -- "$want" "$tmp/r.err" && [ ! -s "$tmp/r.out" ]
    ok $? "$desc: exit $rc, '$want'"
    [ $rc = 2 ] || sed 's/^/#   /' "$tmp/r.err"
}
refused "--engine-procs 0" "is not a positive process count" MPIFPGA_ENGINE_PROCS=0
refused "--engine-procs two" "is not a positive process count" MPIFPGA_ENGINE_PROCS=two
refused "a bad partition" "MPIFPGA_PARTITION='stripes'" MPIFPGA_ENGINE_PROCS=2 \
    MPIFPGA_PARTITION=stripes

# the split engine on its own: --check and bad options end every process,
# and a bad option is said once, not by every process
for c in "0|--check --nranks 4" "2|--check --nranks 4|MPIFPGA_PARTITION=x" \
         "2|--nranks 4 --topology bogus" "2|--nranks 4 --bogus"; do
    want=${c%%|*}; rest=${c#*|}; args=${rest%%|*}; envs=; [ "$rest" = "$args" ] || envs=${rest#*|}
    # shellcheck disable=SC2086
    env $envs timeout 60 "${MPIEXEC:-mpiexec}" -n 2 "$SWITCHD_MPI" $args < /dev/null \
        > "$tmp/c.out" 2>&1
    rc=$?
    said=$(grep -c '^mpifpga-switchd:' "$tmp/c.out")
    [ $rc = "$want" ] && [ "$said" = $((want / 2)) ]
    ok $? "mpiexec -n 2 mpifpga-switchd-mpi $args${envs:+ ($envs)}: every process ends, exit $rc, $said message(s)"
    [ $rc = "$want" ] || sed 's/^/#   /' "$tmp/c.out"
done

# a job stopped mid-run takes its engine processes with it, and none of
# them dies of a signal on the way: a crash handler (libpsm2's, loaded with
# libfabric) would leave <prog>.<host>-<pid>,vm.btr in the working
# directory, here a directory of its own
mkdir "$tmp/kdir"
osu_abs=$(cd "$(dirname "$OSU")" && pwd)/${OSU##*/}
(cd "$tmp/kdir" && MPIFPGA_ENGINE_PROCS=2 MPIFPGA_MODELED_TIME=none exec "$MPIFPGA_RUN" \
    --topology torus:4x2x1 -n 8 "$osu_abs" -c allreduce -m 1M:1M -i 1000) > "$tmp/k.out" 2>&1 &
job=$!
i=0
while ! pgrep -f "$SWITCHD_MPI" > /dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 1
kill -TERM $job
wait $job
rc=$?
i=0
while pgrep -f "$SWITCHD_MPI" > /dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
left=$(pgrep -f "$SWITCHD_MPI" | wc -l)
[ $rc = 143 ] && [ "$left" = 0 ]
ok $? "SIGTERM to mpifpga-run mid-run: exit $rc, $left engine processes left"
crashed=$(grep -c 'terminated with signal\|Segmentation fault' "$tmp/k.out")
left_files=$(ls -A "$tmp/kdir" | wc -l)
[ "$crashed" = 0 ] && [ "$left_files" = 0 ]
ok $? "... no process of the job died of a signal ($crashed said so), no file left in its directory ($left_files)"
[ "$crashed" = 0 ] || grep -m 3 'terminated with signal\|Segmentation fault' "$tmp/k.out" | sed 's/^/#   /'
pkill -KILL -f "$SWITCHD_MPI" 2> /dev/null

# jobs stopped in start-up, while the ranks and the split engine are in
# MPI_Init: MPICH's and UCX's shared-memory segments, removed by their
# creator only once every process has mapped them, must not stay (checked
# below); the stops are spread over the start-up, which takes about a second
stopped=0
for s in 0 0.05 0.1 0.15 0.2 0.25 0.3 0.4 0.5; do
    MPIFPGA_ENGINE_PROCS=2 MPIFPGA_MODELED_TIME=none "$MPIFPGA_RUN" --topology torus:4x2x1 \
        -n 8 "$OSU" -c allreduce -m 1M:1M -i 1000 > "$tmp/s.out" 2>&1 &
    job=$!
    i=0
    while ! pgrep -f "$SWITCHD_MPI" > /dev/null && [ $i -lt 200 ]; do sleep 0.02; i=$((i + 1)); done
    sleep $s
    kill -TERM $job
    wait $job
    [ $? = 143 ] && stopped=$((stopped + 1))
done
[ $stopped = 9 ]
ok $? "SIGTERM to mpifpga-run 0-0.5 s into start-up: $stopped of 9 jobs stopped with exit 143"

# new /dev/shm entries of processes that are gone (libfabric's shm
# regions are named <pid>:...; other tests' live ones are theirs), and
# MPICH's or UCX's segments no process maps (they carry no pid) and still
# there 3 s on: one a test beside this one makes is unmapped for a moment
# (mpi_endings.sh's stand-in for about a second)
sleep 0.5
left=$(pgrep -f "$SWITCHD_MPI" | wc -l)
ls /dev/shm | sort > "$tmp/shm"
leaked=0 unmapped=
for f in $(echo "$shm_before" | comm -13 - "$tmp/shm"); do
    case $f in mpich_shar_tmp*|ucx_shm_posix_*)
        grep -qsF "/dev/shm/$f" /proc/[0-9]*/maps || unmapped="$unmapped $f"
        continue ;;
    esac
    pid=${f%%:*}
    case $pid in ''|*[!0-9]*) continue ;; esac
    kill -0 "$pid" 2> /dev/null || leaked=$((leaked + 1))
done
[ -z "$unmapped" ] || sleep 3
for f in $unmapped; do
    [ -e "/dev/shm/$f" ] && ! grep -qsF "/dev/shm/$f" /proc/[0-9]*/maps &&
        { leaked=$((leaked + 1)); echo "# left: $f"; }
done
[ "$left" = 0 ] && [ "$leaked" = 0 ]
ok $? "nothing left behind: $left engine processes, $leaked /dev/shm regions of gone processes or unmapped MPI segments"
finish
