#!/bin/sh
# The parallel engine (mpifpga-sim --threads, MPIFPGA_THREADS) prints the
# same figures for any thread count: every collective family, both
# topologies, fat-tree aggregation, the baseline and synthetic traffic, on
# 1 to 4 threads, and with every wake-up the engine skips taken
# (MPIFPGA_SIM_FULL_WAKES), and without the load hints; also with credits
# that come back over the path (the Scan on a fat tree: a flow parked on
# its stream's credits woken by another stream's, which arrive later,
# missed its own and ran 0.2 % fast).  The runs take the
# hints (MPIFPGA_SIM_HINTS=1), which by default only networks of 128
# switches or more do: these are small so that the test is quick, and the
# hooks must be checked on every thread count (and under ThreadSanitizer).
# Only the model-speed line (wall time) may differ.  TAP.
SIM=${MPIFPGA_SIM:-./mpifpga-sim}
# thread counts besides 1 (make check-threads, under ThreadSanitizer, and
# make check-unit, under ASan: "2")
COUNTS=${SIM_THREADS_COUNTS:-"2 3 4"}
# SIM_THREADS_CHECKS=threads: only the thread counts against one thread,
# not the reverse-order, full-wake and no-hint runs, which are orderings
# on one thread (make check-threads: a data race needs two threads)
CHECKS=${SIM_THREADS_CHECKS:-all}
case $CHECKS in all | threads) ;; *) echo "Bail out! SIM_THREADS_CHECKS='$CHECKS' is not all or threads"; exit 1 ;; esac
n=0
fails=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# credits that come back over the path (credit_hop_cycles, doc/model.md
# assumption 8): sent between phases, so the same on every thread count
printf 'credit_hop_cycles = 114\n' > "$tmp/credits.conf"
i=0
while read -r cfg; do
    [ -z "$cfg" ] && continue
    cfg=$(echo "$cfg" | sed "s|@CREDITS@|$tmp/credits.conf|")
    i=$((i + 1))
    for t in 1 $COUNTS; do
        # shellcheck disable=SC2086
        # every phase shared, however few switches it has (by default a
        # phase is shared from 16 due switches a thread: these networks
        # are small so that the test is quick)
        MPIFPGA_SIM_HINTS=1 MPIFPGA_SIM_SHARE_ALL=1 timeout 300 "$SIM" $cfg --threads $t \
            > "$tmp/raw.$t" 2>&1
        echo "exit $?" >> "$tmp/raw.$t"
        grep -v '^model speed' "$tmp/raw.$t" > "$tmp/out.$i.$t"
    done
    grep -q '^exit 0$' "$tmp/out.$i.1" && [ "$(wc -l < "$tmp/out.$i.1")" -ge 3 ]
    ok $? "1 thread runs: $cfg"
    for t in $COUNTS; do
        cmp -s "$tmp/out.$i.1" "$tmp/out.$i.$t"
        ok $? "$t threads print what 1 thread prints: $cfg"
    done
    [ "$CHECKS" = threads ] && continue
    # the order check: 16 slices a phase run last first on one thread; a
    # block that read or wrote another switch's state inside a phase would
    # see it changed (data races themselves: make check-threads)
    # shellcheck disable=SC2086
    MPIFPGA_SIM_HINTS=1 MPIFPGA_SIM_REVERSE=1 timeout 300 "$SIM" $cfg --threads 4 \
        > "$tmp/raw.r" 2>&1
    echo "exit $?" >> "$tmp/raw.r"
    grep -v '^model speed' "$tmp/raw.r" > "$tmp/out.$i.r"
    cmp -s "$tmp/out.$i.1" "$tmp/out.$i.r"
    ok $? "phases run in reverse slice order print the same: $cfg"
    # the wake-up check: a switch skips the produce of a cycle in which
    # only a packet arrived, and is not woken by a partner's take unless
    # it waits for credits; running those produces too changes nothing
    # shellcheck disable=SC2086
    MPIFPGA_SIM_FULL_WAKES=1 timeout 300 "$SIM" $cfg --threads 1 > "$tmp/raw.w" 2>&1
    echo "exit $?" >> "$tmp/raw.w"
    grep -v '^model speed' "$tmp/raw.w" > "$tmp/out.$i.w"
    cmp -s "$tmp/out.$i.1" "$tmp/out.$i.w"
    ok $? "switches run in every cycle they used to print the same: $cfg"
    # the load hints are hints: without them, the same
    # shellcheck disable=SC2086
    MPIFPGA_SIM_HINTS=0 timeout 300 "$SIM" $cfg --threads 1 > "$tmp/raw.h" 2>&1
    echo "exit $?" >> "$tmp/raw.h"
    grep -v '^model speed' "$tmp/raw.h" > "$tmp/out.$i.h"
    cmp -s "$tmp/out.$i.1" "$tmp/out.$i.h"
    ok $? "without the load hints the same: $cfg"
done <<'CONFIGS'
-c allreduce -m 8:65536 -i 2 --nodes 27 --format csv
-c reduce_scatter -m 64:65536 -i 1 --topology torus:3x3x3 --algorithm auto --format csv
-c allgather -m 8:65536 -i 1 --topology torus:4x4x2 --algorithm auto --format csv
-c bcast -m 8:131072 -i 1 --topology torus:4x4x2 --algorithm tree --format csv
-c allreduce -m 1024:131072 -i 1 --topology fattree:8 --nodes 32 --format csv
-c allgather -m 8:16384 -i 1 --topology fattree:4 --nodes 13 --ppn 3 --root 4 --format csv
-c gather -m 8:16384 -i 2 --nodes 27 --root 5 --format csv
-c alltoall -m 8:65536 -i 1 --nodes 27 --format csv
-c scan -m 8:8192 -i 1 --nodes 27 --format csv
-c allreduce -m 8:4096 -i 3 --nodes 27 --loop osu --format csv
-c bcast -m 8:16384 -i 1 --nodes 8 --ppn 4 --baseline --format csv
-c allreduce -m 1024:65536 -i 2 --topology torus:3x3x2 --ppn 2 --format csv
-c scatter -m 1024:65536 -i 1 --topology torus:8x2x2 --params @CREDITS@ --format csv
-c allreduce -m 1024:131072 -i 1 --topology fattree:8 --nodes 32 --params @CREDITS@ --format csv
-c scan -m 65536:131072 -i 1 --topology fattree:8 --nodes 32 --params @CREDITS@ --format csv
--traffic uniform --rate 0.3 --topology torus:4x4x2 --cycles 4000
--traffic transpose --rate 0.6 --topology torus:4x4x2 --cycles 3000
CONFIGS

MPIFPGA_THREADS=0 "$SIM" -c bcast -m 8:8 > "$tmp/o" 2> "$tmp/e"
[ $? != 0 ] && grep -q "MPIFPGA_THREADS='0'" "$tmp/e"
ok $? "MPIFPGA_THREADS=0 is refused with a message naming it"
"$SIM" -c bcast -m 8:8 --threads 65 > "$tmp/o" 2> "$tmp/e"
[ $? = 2 ] && grep -q -- "--threads: '65'" "$tmp/e"
ok $? "--threads 65 -> exit 2 naming the argument"

echo "1..$n"
[ $fails = 0 ]
