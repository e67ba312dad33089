#!/bin/sh
# BookSim2 beside bench/model_speed, in one sitting (issue 23 item 5).
#
#   bench/booksim_side.sh BOOKSIM [TORUS...]     (from the build directory)
#
# BOOKSIM is a BookSim2 binary built locally (it is not part of this
# repository: git clone https://github.com/booksim/booksim2 && make -C
# booksim2/src, which needs flex and bison).  For each torus (default 4x4x4,
# one of 4x4x4 8x8x8) it runs BookSim2 with 1-flit packets, uniform random
# traffic, dimension-order routing, an input-queued router with 2 VCs x 8
# flits (BookSim2's defaults otherwise), at 0.05 and 0.2 flits/node/cycle and
# at its own near-saturation load (the highest of 0.30, 0.35, ... 1.00 whose
# accepted rate is >= 95 % of the offered one), then bench/model_speed
# --only traffic, and prints one table: million router-cycles per second of
# each (simulated cycles x routers / seconds) and the ratio.
#
# Seconds are CPU seconds for both (BookSim2's own "Total run time" is wall
# time, so its run is timed with the shell's CPU clock instead; the model's
# per-wall-second figure is divided by its run's CPU share): on a busy
# machine a simulator's wall time includes other jobs' share of the cores,
# its CPU time does not.
set -u
BS=${1:?usage: bench/booksim_side.sh BOOKSIM [4x4x4|8x8x8]...}
shift
tori=${*:-4x4x4}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/booksim_side.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
[ -x "$BS" ] || { echo "booksim_side: $BS is not an executable BookSim2 binary" >&2; exit 2; }
[ -x bench/model_speed ] || { echo "booksim_side: run from the build directory after 'make bench/model_speed'" >&2; exit 2; }

# booksim K RATE PERIOD: prints "cycles cpu_s accepted"
booksim() {
    cat > "$tmp/cfg" <<EOF
topology = torus;
k = $1;
n = 3;
routing_function = dim_order;
num_vcs = 2;
vc_buf_size = 8;
traffic = uniform;
packet_size = 1;
injection_rate = $2;
sim_type = throughput;
sample_period = $3;
EOF
    t0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
    "$BS" "$tmp/cfg" > "$tmp/out" 2>&1
    t1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
    ticks=$(getconf CLK_TCK)
    cyc=$(sed -n 's/^Time taken is \([0-9]*\) cycles.*/\1/p' "$tmp/out" | tail -1)
    acc=$(sed -n 's/^Accepted flit rate average *= *\([0-9.e-]*\).*/\1/p' "$tmp/out" | tail -1)
    echo "${cyc:-0} $(echo "$t0 $t1 $ticks" | awk '{printf "%.3f", ($2 - $1) / $3}') ${acc:-0}"
}

echo "# model_speed (--only traffic) ..." >&2
./bench/model_speed --only traffic > "$tmp/model" || exit 1

printf '%-6s %-9s %-8s %12s %12s %8s\n' torus load rate booksim_M model_M ratio
for t in $tori; do
    k=${t%%x*}
    routers=$((k * k * k))
    period=$((k == 4 ? 10000 : 2000))
    # BookSim2's own near-saturation load
    sat=0.30
    for r in 0.30 0.35 0.40 0.45 0.50 0.55 0.60 0.65 0.70 0.75 0.80 0.90 1.00; do
        set -- $(booksim "$k" "$r" 1000)
        ok=$(echo "$3 $r" | awk '{print ($1 >= 0.95 * $2) ? 1 : 0}')
        [ "$ok" = 1 ] || break
        sat=$r
    done
    for load in 0.05 0.2 near-sat; do
        r=$load
        [ "$load" = near-sat ] && r=$sat
        set -- $(booksim "$k" "$r" "$period")
        bsm=$(echo "$1 $routers $2" | awk '{ if ($3 > 0) printf "%.3f", $1 * $2 / $3 / 1e6; else print 0 }')
        # the model's row: torus header line, then rows "1 <load> ..."
        mm=$(awk -v t="$t" -v l="$load" '
            $1 == t { inside = 1; next }
            /^[0-9]+x[0-9]+x[0-9]+$/ { inside = 0 }
            inside && $1 == 1 && $2 == l { c = $9; sub("%", "", c);
                                           if (c > 0) printf "%.3f", $10 / (c / 100); exit }' "$tmp/model")
        ratio=$(echo "${mm:-0} $bsm" | awk '{ if ($2 > 0) printf "%.1fx", $1 / $2; else print "-" }')
        printf '%-6s %-9s %-8s %12s %12s %8s\n' "$t" "$load" "$r" "$bsm" "${mm:--}" "$ratio"
    done
done
echo "# model_speed's own rows (Mrcyc/s there is per wall second; cpu column = its CPU share):"
grep -E '^[0-9]+x|^ +1 ' "$tmp/model"
