#!/bin/sh
# One network split among MPI processes (net/domain.h) against one process
# with threads: the wall time of a synthetic-traffic run -- or of any
# mpifpga-sim run given after `--`, e.g. one collective's size -- on one
# process with 1 and 2 threads and under mpiexec -n 2 and -n 4 (one thread
# each), the figures of every run compared with the first.  From the build
# directory:  bench/domain_speed.sh [TORUS [RATE [CYCLES]]]
# (default 8x8x8 0.6 20000), or bench/domain_speed.sh -- ARGS...
# (bench/domain_speed.sh -- -c allreduce -m 1M:1M --topology torus:8x8x8).
# Wall time: run it on an idle machine.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
sim=${MPIFPGA_SIM:-$top/mpifpga-sim}
if [ "${1:-}" = "--" ]; then
    shift
    cfg="$* --format csv"
    what="mpifpga-sim $*"
else
    torus=${1:-8x8x8} rate=${2:-0.6} cycles=${3:-20000}
    cfg="--traffic uniform --rate $rate --topology torus:$torus --cycles $cycles --format csv"
    what="uniform traffic at $rate on torus:$torus, $cycles measured cycles"
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
first=
row() { # label command...: wall seconds, and whether the figures match
    label=$1; shift
    s=$(date +%s.%N)
    "$@" > "$tmp/out" 2> "$tmp/err" || { echo "failed: $*" >&2; cat "$tmp/err" >&2; status=1; }
    e=$(date +%s.%N)
    sed 's/,[^,]*$//' "$tmp/out" > "$tmp/fig"
    [ -n "$first" ] || { cp "$tmp/fig" "$tmp/first"; first=1; }
    same=yes
    cmp -s "$tmp/fig" "$tmp/first" || { same=NO; status=1; }
    printf '%-34s %8.2f   %s\n' "$label" "$(echo "$e - $s" | bc)" "$same"
}
echo "# $what, $(date -u '+%F %H:%M UTC'), load average $(cut -d' ' -f1 /proc/loadavg)"
printf '%-34s %8s   %s\n' "how" "wall s" "same figures"
# shellcheck disable=SC2086
row "1 process, 1 thread" "$sim" $cfg --threads 1
# shellcheck disable=SC2086
row "1 process, 2 threads" "$sim" $cfg --threads 2
# shellcheck disable=SC2086
row "mpiexec -n 2, 1 thread each" env MPIFPGA_THREADS=1 mpiexec -n 2 "$sim" $cfg
# shellcheck disable=SC2086
row "mpiexec -n 4, 1 thread each" env MPIFPGA_THREADS=1 mpiexec -n 4 "$sim" $cfg
exit $status
