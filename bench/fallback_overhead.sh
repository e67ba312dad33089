#!/bin/sh
# Interception overhead on calls that fall back, in instructions
# (valgrind --tool=callgrind): a loop of MPI_Allreduce (128 doubles, 2
# ranks) with MPIFPGA_ENABLE=0, so every call goes through libmpifpga's
# wrapper to PMPI_Allreduce.  Prints, per rank, the wrapper's inclusive
# instructions per call, PMPI_Allreduce's, and the difference as a share
# of MPICH's own.  Run from the build tree after `make bench`:
#   sh bench/fallback_overhead.sh [CALLS]
set -eu
calls=${1:-20000}
top=$(cd "$(dirname "$0")/.." && pwd)
lib=$top/.libs/libmpifpga.so
prog=$top/bench/fallback_loop
[ -x "$prog" ] || { echo "fallback_overhead: $prog not built (make bench)" >&2; exit 2; }
command -v valgrind > /dev/null || { echo "fallback_overhead: valgrind not installed" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MPIFPGA_ENABLE=0 timeout 900 mpiexec -n 2 -genv LD_PRELOAD "$lib" \
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" "$prog" "$calls" > /dev/null 2>&1
echo "# $calls fallback MPI_Allreduce calls (128 doubles, 2 ranks, MPIFPGA_ENABLE=0)"
echo "# rank-process  wrapper_Ir/call  PMPI_Ir/call  overhead_Ir/call  overhead_%"
for f in "$tmp"/cg.*; do
    callgrind_annotate --inclusive=yes "$f" 2> /dev/null | awk -v n="$calls" -v f="${f##*.}" '
        /coll\.c:MPI_Allreduce \[/ { gsub(",", "", $1); w = $1 }
        /[?]+:PMPI_Allreduce \[/   { gsub(",", "", $1); p = $1 }
        END { if (!w || !p) { print f ": no data"; exit 1 }
              printf "%-12s  %15.0f  %12.0f  %16.0f  %9.2f\n", f, w / n, p / n, (w - p) / n,
                     100 * (w - p) / p }'
done
