#!/bin/sh
# Prompt, clean endings of mpifpga-run jobs (issue 19): a rank's MPI_Abort,
# a rank killed with SIGKILL, the engine killed, SIGTERM and SIGINT to the
# launcher.  Each must end the job within 3 s with a nonzero status and a
# message, and leave no job process, no new /dev/shm entry and no
# temporary directory behind.  TAP output.
. "$(dirname "$0")/mpi/common.sh"

if [ $LIB = 0 ]; then
    skip "clean endings" "no library"
    finish
fi
PROG=$(cd "$BIN" && pwd)/endings
export TMPDIR="$tmp/t"
mkdir -p "$TMPDIR"
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc; }
under() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
shm_list() { ls /dev/shm 2>/dev/null | sort; }

# left CASE: what the job left behind ("" if nothing)
left() {
    sleep 0.2
    procs=$(pgrep -f "$PROG|mpifpga-switchd --nranks 2 .*$TMPDIR" | tr '\n' ' ')
    # a new entry of a live process belongs to another job on this machine
    # (ours has none left, checked above); one of a dead process is a leftover
    shm=$(shm_list | comm -13 "$tmp/shm0" - | while read -r f; do
              p=${f%%:*}; [ -d "/proc/$p" ] || echo "$f"; done)
    tmps=$(ls "$TMPDIR")
    echo "${procs:+processes $procs}${shm:+shm $shm}${tmps:+temp $tmps}"
}

# check CASE RC T0 T1 LOG: nonzero status, < 3 s, a message, nothing left
check() {
    what=$1 rc=$2 el=$(secs "$3" "$4") log=$5
    rest=$(left)
    [ "$rc" != 0 ] && under "$el" 3 && grep -qv "^rank [01] looping" "$log" && [ -z "$rest" ]
    ok $? "$what: exit $rc after ${el}s, $(head -c 70 "$log" | tr '\n' ' ')${rest:+; left: $rest}"
}

# start NAME: the launcher in the background, with SIGINT at its default
# (an asynchronous command of a script would ignore it) and a guard that
# kills it after 30 s so no case can hang the suite; L is its pid.
start() {
    env --default-signal=INT $RUNNER -n 2 "$PROG" loop > "$tmp/$1.log" 2>&1 &
    L=$!
    (sleep 30; kill -KILL $L 2>/dev/null) > /dev/null 2>&1 &
    G=$!
}
finish_case() { wait $L; rc=$?; t1=$(now); kill $G 2>/dev/null; }

# wait_up NAME: until both ranks said they loop (connected to the engine,
# one call offloaded; on a loaded machine MPI_Init can take seconds, and an
# engine killed before then only makes the job fall back to MPI), or 20 s
wait_up() {
    i=0
    while [ "$(grep -c '^rank [01] looping' "$tmp/$1.log")" -lt 2 ] && [ $i -lt 200 ]; do
        sleep 0.1; i=$((i + 1))
    done
    sleep 0.2
}

shm_list > "$tmp/shm0"
t0=$(now); timeout 30 $RUNNER -n 2 "$PROG" abort 1 > "$tmp/a.log" 2>&1; rc=$?; t1=$(now)
check "MPI_Abort on rank 1" $rc "$t0" "$t1" "$tmp/a.log"

start k
wait_up k; t0=$(now); kill -KILL "$(pgrep -f "^$PROG loop" | head -1)"; finish_case
check "a rank killed with SIGKILL" $rc "$t0" "$t1" "$tmp/k.log"

start e
wait_up e; t0=$(now); pkill -KILL -f "mpifpga-switchd --nranks 2 .*$TMPDIR"; finish_case
check "the engine killed mid-call" $rc "$t0" "$t1" "$tmp/e.log"
grep -q "switch engine .* exited during MPI_Allreduce" "$tmp/e.log"
ok $? "the ranks say the engine exited during MPI_Allreduce (an MPI error, no hang)"

# The job runs in the background of the launcher; its stdin must still be
# the launcher's (mpiexec forwards it to rank 0).
got=$(echo "stdin reaches rank 0" | timeout 30 $RUNNER -n 1 cat 2>/dev/null)
[ "$got" = "stdin reaches rank 0" ]
ok $? "stdin goes to the job ('$got')"

for sig in TERM INT; do
    start $sig
    wait_up $sig; t0=$(now); kill -$sig $L; finish_case
    check "SIG$sig to mpifpga-run" $rc "$t0" "$t1" "$tmp/$sig.log"
done
finish
