#!/bin/sh
# mpifpga-compare as a user sees it: a two-collective sweep at 2 ranks
# (offload with modeled time, plain MPICH, the baseline model) merged into
# an OSU-style table, compare.csv with the documented columns, compare.json
# with the run's metadata, PNG and SVG plots; --no-mpich leaves the MPICH
# column empty; a failing run names its command (exit 1); bad options are
# named (exit 2).  TAP output.
# Environment (AM_TESTS_ENVIRONMENT): MPIFPGA_RUN, MPIFPGA_SIM, top_builddir;
# MPIFPGA_OSU and MPIFPGA_COMPARE default to $top_builddir's.
top_builddir=${top_builddir:-.}
COMPARE=${MPIFPGA_COMPARE:-$top_builddir/mpifpga-compare}
MPIFPGA_OSU=${MPIFPGA_OSU:-$top_builddir/mpifpga-osu}
MPIFPGA_SIM=${MPIFPGA_SIM:-$top_builddir/mpifpga-sim}
MPIFPGA_RUN=${MPIFPGA_RUN:-$top_builddir/mpifpga-run}
export MPIFPGA_OSU MPIFPGA_SIM MPIFPGA_RUN
n=0
fails=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# compare: $COMPARE; run: $MPIFPGA_RUN; sim: $MPIFPGA_SIM; osu: $MPIFPGA_OSU"

timeout 300 "$COMPARE" -c allreduce,bcast -n 2 -m 8:64 -i 5 --mpich-iters 3 --out "$tmp/o" \
    > "$tmp/t" 2> "$tmp/e"
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$tmp/e" | tail -n 20
ok $rc "allreduce,bcast sweep at 2 ranks, sizes 8..64, exits 0"

[ "$(grep -c '^# Size' "$tmp/t")" = 2 ] && [ "$(grep -c '^[0-9]' "$tmp/t")" = 8 ] &&
    grep -q '^# mpifpga-compare: allreduce, 2 ranks, ' "$tmp/t" &&
    grep -q 'Offload(us) *MPICH(us) *Baseline-model(us) *Speedup-vs-MPICH *Speedup-vs-model' "$tmp/t"
ok $? "OSU-style table per collective with the offload/MPICH/model columns"

C=$tmp/o/compare.csv
head -1 "$C" | grep -qx 'collective,ranks,bytes,offload_us,mpich_us,baseline_model_us,offload_sim_us,speedup_vs_mpich,speedup_vs_model'
ok $? "compare.csv has the documented header"
awk -F, 'NR == 1 { next }
         { rows++; seen[$1 "/" $3] = 1
           if ($2 != 2 || !($4 > 0) || !($5 > 0) || !($6 > 0) || !($7 > 0) || $8 == "" || $9 == "") bad = 1 }
         END { split("allreduce bcast", cs, " "); split("8 16 32 64", bs, " ")
               for (i = 1; i <= 2; i++) for (j = 1; j <= 4; j++) if (!((cs[i] "/" bs[j]) in seen)) bad = 1
               exit bad || rows != 8 }' "$C"
ok $? "compare.csv: 2 collectives x 4 sizes, positive offload/mpich/baseline values, both speedups"

python3 - "$tmp/o/compare.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ranks"] == 2 and d["topology"].startswith(("torus", "fattree")) and d["params"], d
assert d["collectives"] == ["allreduce", "bcast"] and d["date"] and d["iterations"] == 5
assert d["mpich_iterations"] == 3 and d["modeled_time"] == "none"
for c in ("allreduce", "bcast"):
    cmds = d["commands"][c]
    assert "mpifpga-osu" in cmds["offload"] and "--baseline" in cmds["mpich"], cmds
    assert "mpifpga-sim" in cmds["baseline-model"] and "--nodes 2" in cmds["baseline-model"], cmds
r = d["results"]
assert len(r) == 8 and all(x["offload_us"] > 0 and x["mpich_us"] > 0 and x["baseline_model_us"] > 0
                           and x["offload_sim_us"] > 0 for x in r), r
EOF
ok $? "compare.json parses: ranks, topology, params, date, command lines, 8 results"

if command -v gnuplot > /dev/null 2>&1; then
    good=0
    for f in latency_allreduce latency_bcast speedup; do
        [ "$(od -An -tx1 -N8 "$tmp/o/$f.png" 2> /dev/null | tr -d ' \n')" = 89504e470d0a1a0a ] ||
            { echo "# $f.png is not a PNG"; good=1; }
        grep -q '<svg' "$tmp/o/$f.svg" 2> /dev/null || { echo "# $f.svg has no <svg"; good=1; }
    done
    ok $good "latency_allreduce, latency_bcast and speedup as PNG and SVG"
else
    ok 1 "PNG and SVG plots (gnuplot not installed: install gnuplot-nox)"
fi

timeout 300 "$COMPARE" -c bcast -n 2 -m 8:16 -i 3 --no-mpich --no-plots --format csv --out "$tmp/nm" \
    > "$tmp/nmo" 2> "$tmp/nme"
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$tmp/nme" | tail -n 20
[ $rc = 0 ] && awk -F, 'NR > 1 { rows++; if ($5 != "" || $8 != "" || !($4 > 0) || !($6 > 0) || $9 == "") bad = 1 }
                        END { exit bad || rows != 2 }' "$tmp/nm/compare.csv" &&
    cmp -s "$tmp/nmo" "$tmp/nm/compare.csv" && [ ! -e "$tmp/nm/speedup.png" ] &&
    grep -q 'plots skipped' "$tmp/nme"
ok $? "--no-mpich: mpich_us and speedup_vs_mpich empty, others filled; --format csv prints the CSV; --no-plots"

MPIFPGA_OSU=/bin/false timeout 300 "$COMPARE" -c bcast -n 2 -m 8:8 -i 1 --no-plots --out "$tmp/f" \
    > "$tmp/fo" 2> "$tmp/fe"
rc=$?
[ $rc = 1 ] && grep -q 'offload failed' "$tmp/fe" && grep -q 'command: .*/bin/false' "$tmp/fe"
ok $? "a failing run exits 1 naming its command ($(grep -m1 'failed' "$tmp/fe" | head -c 80))"

for bad in "--bogus" "-c nosuch" "-c allreduce,nosuch" "-m 64:8" "-m 8:lots" "-n 0" "-i x" \
           "--mpich-iters 0" "--format xml" "-c" "-c alltoall -n 64"; do
    name=${bad%% *}
    case $bad in "-c alltoall"*) name="at most 32 ranks" ;; "-c "*) name=nosuch ;;
                 "-m 8:"*) name=lots ;; "-m "*) name=64 ;; "--format "*) name=xml ;; esac
    # shellcheck disable=SC2086
    timeout 60 "$COMPARE" --out "$tmp/b" $bad > "$tmp/bo" 2> "$tmp/be"
    rc=$?
    [ $rc = 2 ] && [ ! -s "$tmp/bo" ] && head -1 "$tmp/be" | grep -q -e "$name" &&
        grep -q '^usage: mpifpga-compare' "$tmp/be" && [ ! -e "$tmp/b" ]
    ok $? "bad option '$bad' -> exit 2 naming it, with usage ($(head -1 "$tmp/be" | head -c 80))"
done

timeout 60 "$COMPARE" -n 2 -m 8:8 --topology ring:4 --no-plots --out "$tmp/bt" > "$tmp/bo" 2> "$tmp/be"
rc=$?
[ $rc = 2 ] && grep -q 'ring:4' "$tmp/be" && grep -q '^usage: mpifpga-compare' "$tmp/be"
ok $? "a topology mpifpga-sim rejects -> exit 2 before any MPI run ($(grep -m1 'bad option' "$tmp/be" | head -c 100))"

echo "1..$n"
[ $fails = 0 ]
