#!/bin/bash
# bench/credit_return.sh: how much the modeled figures depend on assumption 8
# (doc/model.md): by default a sender sees its partner's stream credits the
# cycle after the partner consumed the bytes.  With credit_hop_cycles = N
# (a parameter of the set) they come back over the path instead, N cycles
# a hop.  This prints each size's latency both ways, side by side.
#
#   bench/credit_return.sh [TOPOLOGY] [COLLECTIVES] [MIN:MAX] [CYCLES]
#   defaults: torus:4x4x8  allreduce,bcast,reduce,scatter,gather,allgather,reduce_scatter
#             65536:4194304  114 (u280: a 440 ns link is 110 cycles at 250 MHz,
#             plus the router's four one-cycle stages)
# Run from the build tree.  Output: collective, bytes, offload_us as by
# default and with credits over the path, and the change.
set -euo pipefail
topo=${1:-torus:4x4x8}
colls=${2:-allreduce,bcast,reduce,scatter,gather,allgather,reduce_scatter}
sizes=${3:-65536:4194304}
hop=${4:-114}
sim=${MPIFPGA_SIM:-./mpifpga-sim}
[[ $hop =~ ^[1-9][0-9]*$ ]] || { echo "credit_return.sh: CYCLES must be a positive integer, not '$hop'" >&2; exit 2; }
[ -x "$sim" ] || { echo "credit_return.sh: no $sim here; run it from the build tree (or set MPIFPGA_SIM)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/credit_return.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf 'credit_hop_cycles = %s\n' "$hop" >"$work/path.conf"
printf '%-15s %9s %12s %12s %8s\n' collective bytes next_cycle over_path change
for c in ${colls//,/ }; do
    "$sim" -c "$c" -m "$sizes" -i 1 --topology "$topo" --format csv | tail -n +2 | cut -d, -f4,5 >"$work/a"
    "$sim" -c "$c" -m "$sizes" -i 1 --topology "$topo" --params "$work/path.conf" --format csv \
        | tail -n +2 | cut -d, -f4,5 >"$work/b"
    paste -d, "$work/a" "$work/b" |
        awk -F, -v c="$c" '{printf "%-15s %9d %12.3f %12.3f %+7.2f%%\n", c, $1, $2, $4, ($4 / $2 - 1) * 100}'
done
