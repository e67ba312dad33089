#!/bin/sh
# Prompt, clean endings of mpifpga-run jobs (issue 19): a rank's MPI_Abort,
# a rank killed with SIGKILL, the engine killed, SIGTERM and SIGINT to the
# launcher (also from timeout(1), which signals the whole group).  Each
# must end the job within 3 s with a nonzero status and a
# message, and leave no job process, no new /dev/shm entry and no
# temporary directory behind.  TAP output.
. "$(dirname "$0")/mpi/common.sh"

if [ $LIB = 0 ]; then
    skip "clean endings" "no library"
    finish
fi
PROG=$(cd "$BIN" && pwd)/endings
# each case gets its own TMPDIR: the launcher's job directory must be gone
newtmp() { TMPDIR="$tmp/t.$1"; export TMPDIR; mkdir -p "$TMPDIR"; }
newtmp a
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc; }
under() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# The ranks record their pids and the engine's (endings.c): what this job
# left is told apart from what tests running beside it do.
export ENDINGS_PIDS="$tmp/pids"
alive() { [ -r "/proc/$1/stat" ] && [ "$(cut -d')' -f2 "/proc/$1/stat" | cut -d' ' -f2)" != Z ]; }
# left: what the job left behind ("" if nothing); then forget its pids
left() {
    sleep 0.2
    procs= shm=
    for p in $(ls "$ENDINGS_PIDS" | grep -v '^up\.'); do
        alive "$p" && procs="$procs $p"
        for f in /dev/shm/"$p":*; do [ -e "$f" ] && shm="$shm ${f##*/}"; done
    done
    tmps=$(ls "$TMPDIR")
    rm -f "$ENDINGS_PIDS"/*
    echo "${procs:+processes$procs }${shm:+shm$shm }${tmps:+temp $tmps}"
}

# check CASE RC T0 T1 LOG: nonzero status, < 4 s, a message, nothing left.
# A stop takes 0.05-2 s (CI); the launcher's cleanup may add a second
# when a job beside it has just left an unmapped MPI segment (clean_shm
# looks at it twice a second apart).
check() {
    what=$1 rc=$2 el=$(secs "$3" "$4") log=$5
    rest=$(left)
    [ "$rc" != 0 ] && under "$el" 4 && [ -s "$log" ] && [ -z "$rest" ]
    ok $? "$what: exit $rc after ${el}s, $(head -c 70 "$log" | tr '\n' ' ')${rest:+; left: $rest}"
}

# start NAME: the launcher in the background, with SIGINT at its default
# (an asynchronous command of a script would ignore it) and a guard that
# kills it after 30 s so no case can hang the suite; L is its pid.
start() {
    newtmp "$1"
    env --default-signal=INT $RUNNER -n 2 "$PROG" loop > "$tmp/$1.log" 2>&1 &
    L=$!
    (sleep 30; kill -KILL $L 2>/dev/null) > /dev/null 2>&1 &
    G=$!
}
finish_case() { wait $L; rc=$?; t1=$(now); kill $G 2>/dev/null; }

# wait_up: until both ranks are in their loop after an offloaded call (or 20 s)
wait_up() {
    i=0
    while [ "$(ls "$ENDINGS_PIDS" | grep -c '^up\.')" -lt 2 ] && [ $i -lt 200 ]; do
        sleep 0.1; i=$((i + 1))
    done
    sleep 0.2
}

# The abort is timed from the rank's MPI_Abort (endings.c writes its time
# to abort.at), like the other cases from their kill: the job's start-up
# is no part of its ending, and under make check -j2 it alone has taken
# more than a second (CI: 3.05 s from launch to end).
mkdir -p "$ENDINGS_PIDS"
timeout 30 $RUNNER -n 2 "$PROG" abort 1 > "$tmp/a.log" 2>&1; rc=$?; t1=$(now)
t0=$(cat "$ENDINGS_PIDS/abort.at" 2>/dev/null) || t0=0
rm -f "$ENDINGS_PIDS/abort.at"
check "MPI_Abort on rank 1" $rc "$t0" "$t1" "$tmp/a.log"

start k
wait_up; r=$(pgrep -f "^$PROG loop" | head -1)
t0=$(now); kill -KILL "${r:-0}"; finish_case
check "a rank killed with SIGKILL" $rc "$t0" "$t1" "$tmp/k.log"

start e
wait_up; t0=$(now); pkill -KILL -f "mpifpga-switchd --nranks 2 .*$TMPDIR"; finish_case
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
    wait_up; t0=$(now); kill -$sig $L; finish_case
    check "SIG$sig to mpifpga-run" $rc "$t0" "$t1" "$tmp/$sig.log"
done

# timeout(1) signals the launcher, then its whole process group: the
# second SIGTERM reaches the launcher while it cleans up, and must not cut
# that short (a race: without the fix it left the job directory in one
# run of three to two of three, so three runs, each must be clean)
for g in 1 2 3; do
    newtmp g$g
    timeout -s TERM 600 $RUNNER -n 2 "$PROG" loop > "$tmp/g.log" 2>&1 &
    L=$!
    wait_up; t0=$(now); kill -TERM $L; wait $L; rc=$?; t1=$(now)
    check "SIGTERM to timeout(1) around mpifpga-run (its process group signalled twice), run $g" \
        $rc "$t0" "$t1" "$tmp/g.log"
done

# The launcher's own functions run on stand-ins, each case in a subshell
# with tmp set to a job directory (job_dir CASE makes it).  launcher_fns
# NAME... prints those functions' text, as the launcher has them; verdict
# CASE WANT DESC checks what the case wrote to $TMPDIR/CASE.out.
job_dir() { newtmp "$1"; jobdir=$TMPDIR/job; mkdir -p "$jobdir"; }
launcher_fns() { sed -n "$(for f; do printf '/^%s() {/,/^}/p;' "$f"; done)" "$RUNNER"; }
verdict() {
    got=$(cat "$TMPDIR/$1.out" 2>/dev/null)
    rm -f "$TMPDIR/$1.out"
    rm -rf "$jobdir"
    [ "$got" = "$2" ]
    ok $? "$3 ($got)"
}

# After a failed job mpiexec may return before a rank is gone (CI: "left:
# processes ..." after an MPI_Abort).  The launcher's wait_ranks kills a
# rank still there after half its patience -- only one whose environment
# names the job's directory, not a process that took over a rank's pid.
# Its functions, as the launcher has them, on two stand-ins.
job_dir w
( tmp=$jobdir
  eval "$(launcher_fns alive wait_gone job_env job_rank wait_ranks)"
  MPIFPGA_BELL_DIR=$jobdir sleep 60 & ours=$!
  MPIFPGA_BELL_DIR=$jobdir.not sleep 60 & other=$!
  : > "$jobdir/rank.$ours"; : > "$jobdir/rank.$other"
  sleep 0.2
  wait_ranks 10
  alive $ours; a=$?; alive $other; b=$?
  kill $other 2>/dev/null
  echo "$a $b" > "$TMPDIR/w.out" )
verdict w "1 0" "a rank still running after a failed job is killed; a process with another job's directory is not"

# A process of a failed job that outlived its mpiexec (one stuck in
# MPI_Init whose hydra proxy was orphaned) is killed by sweep_job: it
# carries the job's directory in its environment.  A process whose
# directory is inside this one's belongs to another job.  sweep_job
# returns once those it killed are gone, so they are looked at at once
# (a SIGKILLed sleep dies too fast for this to tell that wait from none).
job_dir s
( tmp=$jobdir
  eval "$(launcher_fns alive wait_gone job_env sweep_job)"
  MPIFPGA_BELL_DIR=$jobdir sleep 60 & ours=$!
  MPIFPGA_BELL_DIR=$jobdir/inner sleep 60 & inner=$!
  sleep 0.2
  sweep_job 10
  alive $ours; a=$?; alive $inner; b=$?
  kill $ours $inner 2>/dev/null
  echo "$a $b" > "$TMPDIR/s.out" )
verdict s "1 0" "a process of a failed job that outlived mpiexec is killed; one of a job inside its directory is not"

# MPICH's and UCX's segments carry no pid: clean_shm removes those made
# since the job started that no live process maps, and keeps an older one
# and one a live process maps (another job's).  The kept ones get their
# names only once dated or mapped: a launcher of a test running beside this
# one would rightly remove an unmapped new one (CI: the mapped one went
# while python started).
job_dir m
old=/dev/shm/mpich_shar_tmpT$$a new=/dev/shm/mpich_shar_tmpT$$b used=/dev/shm/ucx_shm_posix_T$$c
( tmp=$jobdir
  eval "$(launcher_fns alive wait_gone mapped clean_shm)"
  head -c 4096 /dev/zero > /dev/shm/mfT$$a
  touch -d '2000-01-01' /dev/shm/mfT$$a # older than any job's start
  mv /dev/shm/mfT$$a "$old"
  : > "$tmp/.start"
  # a live process maps $used until clean_shm is done (the file $tmp/done);
  # $new is made once it has (unmapped for about the second clean_shm waits)
  python3 -c 'import mmap, os, sys, time
f = open(sys.argv[1], "w+b"); f.truncate(4096); m = mmap.mmap(f.fileno(), 4096)
os.rename(sys.argv[1], sys.argv[2]); print(flush=True)
for _ in range(3000):
    if os.path.exists(sys.argv[3]): break
    time.sleep(0.02)' /dev/shm/mfT$$c "$used" "$tmp/done" |
      { read -r _; head -c 4096 /dev/zero > "$new"; clean_shm 0; : > "$tmp/done"; }
  r=; for f in "$old" "$new" "$used"; do [ -e "$f" ] && r="${r}1" || r="${r}0"; done
  echo "$r" > "$TMPDIR/m.out" )
rm -f "$old" "$new" "$used" /dev/shm/mfT$$a /dev/shm/mfT$$c
verdict m 101 "an unmapped MPI segment made during the job is removed; an older one and a mapped one are kept (old new mapped)"
finish
