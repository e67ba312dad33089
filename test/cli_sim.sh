#!/bin/sh
# mpifpga-sim as a user sees it: output formats, bad arguments (one line
# naming the argument, exit 2), synthetic traffic.  TAP output.
SIM=${MPIFPGA_SIM:-./mpifpga-sim}
n=0
fails=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$SIM" -c allreduce -m 8:1024 -i 3 > "$tmp/t" 2>&1
ok $? "table sweep runs"
grep -q '^# Size' "$tmp/t" && [ "$(grep -c '^[0-9]' "$tmp/t")" = 8 ]
ok $? "table has an OSU-style header and one row per size 8..1024"

"$SIM" -c bcast -m 4:64 -i 2 --nodes 5 --format csv > "$tmp/c" 2>&1
head -1 "$tmp/c" | grep -qx 'collective,topology,nodes,bytes,offload_us'
ok $? "csv header is collective,topology,nodes,bytes,offload_us"
awk -F, 'NR>1 && ($1!="bcast" || $3!=5 || $5<=0) {bad=1} END {exit bad || NR!=5}' "$tmp/c"
ok $? "csv rows: bcast, 5 nodes, positive latency, sizes 8..64 (doubles)"

"$SIM" -c gather -m 64:64 -i 1 --topology fattree:16 --nodes 20 --format json > "$tmp/j" 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["topology"]=="fattree:16" and d["results"][0]["bytes"]==64' "$tmp/j"
ok $? "json output parses and names the fat tree"

# how many iterations were simulated, not added up as repeats (fast path):
# a 4x4x4 Allreduce repeats its first of 100; a 3x3x3 Gather's first is a
# cycle slower (a round-robin pointer it found decided), so two; with
# --no-fast-path or --loop osu, all of them
"$SIM" -c allreduce -m 65536:65536 --topology torus:4x4x4 --baseline --format json > "$tmp/si" 2>&1
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; assert (r["iterations"], r["simulated_iterations"]) == (100, 1) and 1 <= r["baseline_simulated_iterations"] <= 100, r' "$tmp/si"
ok $? "json: a 4x4x4 Allreduce simulates 1 of its 100 iterations, the baseline at least 1"
for args in "-i 40:2" "-i 40 --no-fast-path:40" "-i 7 --loop osu:7"; do
    "$SIM" -c gather -m 1024:1024 --topology torus:3x3x3 ${args%:*} --format json > "$tmp/si" 2>&1
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; assert r["simulated_iterations"] == int(sys.argv[2]), r' "$tmp/si" "${args#*:}"
    ok $? "json: a 3x3x3 Gather with ${args%:*} simulates ${args#*:} iterations"
done

"$SIM" -c bcast -m 8:8 -i 3 --nodes 8 --loop osu -x 4 --format json > "$tmp/x" 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert (d["loop"], d["warmup_iterations"], d["results"][0]["iterations"]) == ("osu", 4, 3), d' "$tmp/x"
ok $? "json: --loop osu -x 4 -i 3 says loop osu, 4 warm-up and 3 timed iterations"

"$SIM" -c allreduce -m 8:8 -i 1 --topology torus:4x2x2 --type int32 --op max --format csv > "$tmp/i" 2>&1
grep -q 'allreduce,torus:4x2x2,16,8,' "$tmp/i"
ok $? "--topology torus:4x2x2 gives 16 nodes"

for bad in "-c nosuch" "-c allreduce --op nosuch" "-c allreduce --type quad" "-c allreduce -m 9:3" \
           "-c allreduce --topology ring:4" "-c allreduce --params /nonexistent/x" \
           "-c allreduce --nodes 0" "-c bcast --root 8 --nodes 8" "--traffic nosuch --rate 0.1" \
           "--traffic uniform" "--traffic uniform --rate 1.5" "-c allreduce --type double --op bxor" "-c allreduce --bogus" \
           "-c allreduce -m 4:4" "-c allreduce --type double_int --op maxloc -m 0:8" \
           "-c bcast -m 8:8 -x 5" "-c bcast -m 8:8 --loop osu -x -1"; do
    # shellcheck disable=SC2086
    "$SIM" $bad > "$tmp/o" 2> "$tmp/e"
    rc=$?
    [ $rc = 2 ] && [ "$(wc -l < "$tmp/e")" = 1 ] && [ ! -s "$tmp/o" ]
    ok $? "bad arguments '$bad' -> exit 2 with one line ($(head -c 90 "$tmp/e"))"
done

"$SIM" --traffic uniform --rate 0.05 --nodes 8 --cycles 2000 > "$tmp/tr" 2>&1
ok $? "uniform traffic runs"
awk '/^accepted/ {a=$2} /^avg latency/ {l=$3} END {exit !(a > 0.04 && a < 0.06 && l > 100)}' "$tmp/tr"
ok $? "below saturation accepted throughput equals offered load, latency > one link"

"$SIM" --traffic tornado --rate 0.1 --topology torus:4x4x1 --cycles 1000 --packet-phits 4 --format csv > "$tmp/tc" 2>&1
head -1 "$tmp/tc" | grep -q '^pattern,topology,nodes,rate'
ok $? "traffic csv output"

"$SIM" --traffic neighbor --rate 0.1 --nodes 8 --cycles 1000 --format json > "$tmp/tj" 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["pattern"]=="neighbor" and d["accepted"]>0' "$tmp/tj"
ok $? "traffic json output parses"

"$SIM" -c allreduce -m 8:8 -i 1 --ppn 8 --nodes 2 --format csv > "$tmp/p8" 2>&1
ok $? "allreduce with 8 ranks per node (more than the 6 CGR units) completes"
"$SIM" -c allreduce -m 8:4096 -i 1 --topology fattree:16 --nodes 24 --format csv > "$tmp/f16" 2>&1
ok $? "allreduce on a radix-16 fat tree (12 ranks per leaf) completes"

"$SIM" -c allreduce -m 8:4096 -i 2 --nodes 8 --baseline --format csv > "$tmp/b" 2>&1
head -1 "$tmp/b" | grep -qx 'collective,topology,nodes,bytes,offload_us,baseline_us,speedup'
ok $? "--baseline csv header adds baseline_us,speedup"
awk -F, 'NR>1 && !($6 > $5 && ($7 - $6/$5) < 0.01 && ($6/$5 - $7) < 0.01) {bad=1} END {exit bad || NR!=11}' "$tmp/b"
ok $? "--baseline: every row's baseline is slower than the offload and speedup = baseline/offload"

"$SIM" -c gather -m 64:128 -i 1 --nodes 5 --baseline --format json > "$tmp/bj" 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["results"]; assert d["host_params"]=="skx-opa" and all(x["baseline_us"]>0 and x["speedup"]>0 for x in r)' "$tmp/bj"
ok $? "--baseline json: host_params, baseline_us and speedup per result"

"$SIM" -c bcast -m 8:1024 -i 1 --nodes 16 --analytic > "$tmp/an" 2>&1
grep -q '^# 001 Eqs. 3-6' "$tmp/an" && awk '/^# Size +Bl/ {t=1; next} t && /^[0-9]/ {n++; if ($2 <= 0 || $3 <= 0) bad=1} END {exit bad || n != 8}' "$tmp/an"
ok $? "--analytic prints Eqs. 3-6 beside the simulation for each size"

# A bcast on a fat tree leaves packets in the network after its last
# completion; the next iteration starts once they drain (it used to be
# posted in the model's past and fail).
"$SIM" -c bcast --nodes 16 -m 8:256K -i 3 --topology fattree:8 > "$tmp/ft" 2>&1 &&
    [ "$(grep -c '^[0-9]' "$tmp/ft")" = 16 ]
ok $? "bcast, 3 iterations, 16 nodes on fattree:8: every size runs ($(grep -m1 past "$tmp/ft"))"

# The watchdog: flows that step without moving a byte stop the run with a
# message naming the call.  A limit below one link's latency trips it on a
# healthy run, which shows the message; 10M cycles (the default) is far above.
MPIFPGA_WATCHDOG_CYCLES=50 "$SIM" -c allreduce --nodes 8 -m 65536:65536 -i 1 > "$tmp/o" 2> "$tmp/e"
[ $? != 0 ] && grep -q 'watchdog: no data moved for 50 active cycles.*allreduce on context 0 at rank [0-9]* (switch [0-9]*)' "$tmp/e"
ok $? "watchdog names the stuck call and its switch ($(head -c 120 "$tmp/e"))"
MPIFPGA_WATCHDOG_CYCLES=0 "$SIM" -c allreduce --nodes 8 -m 65536:65536 -i 1 > "$tmp/o" 2>&1
ok $? "MPIFPGA_WATCHDOG_CYCLES=0 turns it off"
MPIFPGA_WATCHDOG_CYCLES=soon "$SIM" -c allreduce --nodes 8 -m 8:8 -i 1 > "$tmp/o" 2> "$tmp/e"
[ $? != 0 ] && grep -q "MPIFPGA_WATCHDOG_CYCLES='soon': expected a number" "$tmp/e"
ok $? "a bad MPIFPGA_WATCHDOG_CYCLES is refused ($(head -c 90 "$tmp/e"))"
# The baseline's packets are progress too: its 256 KiB scatter on 16 nodes
# runs ~100000 cycles with no engine flow at all, and once tripped a limit
# of 20000 (a 4 MiB scatter on 128 nodes did at the default limit).
MPIFPGA_WATCHDOG_CYCLES=20000 "$SIM" -c scatter --nodes 16 -m 262144:262144 -i 1 --baseline \
    > "$tmp/o" 2> "$tmp/e"
[ $? = 0 ] && [ "$(grep -c '^262144 ' "$tmp/o")" = 1 ]
ok $? "the watchdog counts the baseline's packets as progress ($(head -c 90 "$tmp/e"))"
# Reductions waiting for room must not hold the CGR units: on this scan six
# of them once took a switch's six units every cycle and a seventh that
# could move starved for good (~12 s here).
MPIFPGA_WATCHDOG_CYCLES=300000 "$SIM" -c scan --topology fattree:16 --nodes 128 \
    -m 1048576:1048576 -i 1 > "$tmp/o" 2> "$tmp/e"
[ $? = 0 ] && [ "$(grep -c '^1048576 ' "$tmp/o")" = 1 ]
ok $? "a 1 MiB scan on a 128-node fat tree completes: no CGR unit held by a waiting reduction ($(head -c 90 "$tmp/e"))"

"$SIM" -c bcast --nodes 8 -m 65536:65536 -i 1 --algorithm tree > "$tmp/t" 2>&1 &&
    "$SIM" -c bcast --nodes 8 -m 65536:65536 -i 1 > "$tmp/p" 2>&1 &&
    t=$(awk '$1 == 65536 {print $4}' "$tmp/t") && p=$(awk '$1 == 65536 {print $4}' "$tmp/p") &&
    awk -v t="$t" -v p="$p" 'BEGIN {exit !(t > 0 && t < p)}'
ok $? "--algorithm tree: a 64 KiB bcast on 8 nodes streams faster than the paper's ($t < $p us)"
# Progress: one line on stderr while a sweep runs on a terminal (script(1)
# gives it one), nothing when stderr is a file.
"$SIM" -c allreduce --nodes 4 -m 8:1024 -i 1 > "$tmp/o" 2> "$tmp/e"
[ $? = 0 ] && [ ! -s "$tmp/e" ] && [ "$(grep -c '^[0-9]' "$tmp/o")" = 8 ]
ok $? "a sweep prints no progress when stderr is not a terminal"
script -qec "$SIM -c allreduce --nodes 4 -m 8:1024 -i 1" /dev/null > "$tmp/tty" 2>&1
[ $? = 0 ] && tr '\r' '\n' < "$tmp/tty" | grep -q '^.*# mpifpga-sim: allreduce 1024 B (up to 1024 B) \.\.\.' &&
    [ "$(tr '\r' '\n' < "$tmp/tty" | grep -c '^[0-9]')" = 8 ]
ok $? "on a terminal the sweep shows its progress, then the same 8 rows"
# On a terminal, a size that runs long shows the modeled time its network
# has reached (MPIFPGA_SIM_PROGRESS=0: at every tick, 1024 cycles); the
# table is the one a pipe gets.  `script` (bsdutils) gives the terminal.
"$SIM" -c allreduce -m 1048576:1048576 -i 1 --topology torus:4x4x4 > "$tmp/pipe" 2>&1
MPIFPGA_SIM_PROGRESS=0 script -qec "$SIM -c allreduce -m 1048576:1048576 -i 1 --topology torus:4x4x4" \
    "$tmp/pty" > /dev/null 2>&1
tr '\r' '\n' < "$tmp/pty" | sed -n 's/.* \([0-9.]*\) us of modeled time simulated.*/\1/p' > "$tmp/reach"
max=$(awk '$1 == 1048576 {print $4}' "$tmp/pipe")
[ "$(wc -l < "$tmp/reach")" -ge 10 ] && [ -n "$max" ] &&
    awk -v max="$max" '$1 <= prev || $1 > max {bad=1} {prev=$1} END {exit bad}' "$tmp/reach" &&
    tr -d '\r' < "$tmp/pty" | sed 's/.*\x1b\[K//' | grep -E '^(#|[0-9])' | grep -v '^# mpifpga-sim: allreduce' |
    diff - "$tmp/pipe" > /dev/null
ok $? "a terminal sees the modeled time reached grow to at most the latency ($(wc -l < "$tmp/reach") lines, last $(tail -1 "$tmp/reach") us of $max), the table unchanged"
MPIFPGA_SIM_PROGRESS=soon "$SIM" -c allreduce --nodes 8 -m 8:8 -i 1 > "$tmp/o" 2> "$tmp/e"
[ $? = 2 ] && grep -q "MPIFPGA_SIM_PROGRESS: 'soon' is not a number of seconds" "$tmp/e"
ok $? "a bad MPIFPGA_SIM_PROGRESS is refused ($(head -c 90 "$tmp/e"))"
"$SIM" -c bcast --nodes 8 -m 8:8 --algorithm trees > "$tmp/o" 2> "$tmp/e"
[ $? = 2 ] && grep -q "algorithm: 'trees' is not paper, tree or auto" "$tmp/e"
ok $? "a bad --algorithm is refused with exit 2 ($(head -c 80 "$tmp/e"))"

for bad in "-c allgather --analytic" "-c bcast --analytic --root 1 --nodes 4" \
           "-c allreduce --baseline --host-params nosuch" "--traffic uniform --rate 0.1 --baseline" \
           "-c alltoallv" "-c ct_config"; do
    # shellcheck disable=SC2086
    "$SIM" $bad > "$tmp/o" 2> "$tmp/e"
    rc=$?
    [ $rc = 2 ] && [ "$(wc -l < "$tmp/e")" = 1 ] && [ ! -s "$tmp/o" ]
    ok $? "bad arguments '$bad' -> exit 2 with one line ($(head -c 90 "$tmp/e"))"
done

echo "1..$n"
[ $fails = 0 ]
