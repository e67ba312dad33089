#!/bin/sh
# Start cost of a job: wall time of a trivial MPI program (MPI_Init,
# MPI_Barrier, MPI_Finalize) at -n 2 under plain mpiexec, mpifpga-run
# --baseline (library, no engine) and mpifpga-run (library + engine), the
# median of 7 runs each.  Issue 19's goal: mpifpga-run within 0.5 s of
# mpiexec.   bench/start_cost.sh [RUNS]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-7}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'C'
#include <mpi.h>
int main(int c, char **v) { MPI_Init(&c, &v); MPI_Barrier(MPI_COMM_WORLD); MPI_Finalize(); return 0; }
C
mpicc -o "$tmp/t" "$tmp/t.c" || exit 1
median() { # command...: median wall seconds of $runs runs
    for i in $(seq "$runs"); do
        s=$(date +%s.%N); "$@" > /dev/null 2>&1 || echo "failed: $*" >&2; e=$(date +%s.%N)
        echo "$e - $s" | bc
    done | sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }'
}
plain=$(median mpiexec -n 2 "$tmp/t")
base=$(median "$top/mpifpga-run" --baseline -n 2 "$tmp/t")
run=$(median "$top/mpifpga-run" -n 2 "$tmp/t")
printf '%-32s %8s\n' "launcher (-n 2, trivial program)" "wall s"
printf '%-32s %8s\n' "mpiexec" "$plain" "mpifpga-run --baseline" "$base" "mpifpga-run" "$run"
printf '%-32s %8s\n' "mpifpga-run - mpiexec" "$(echo "$run - $plain" | bc)"
