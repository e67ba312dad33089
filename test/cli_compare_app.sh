#!/bin/sh
# mpifpga-compare-app as a user sees it, without running MPI: --from-reports
# on the synthetic reports test/data/app_profile.json and app_offload.json
# (profile: wall 10 s, 4 s in three collective call sites; offload: 1 s
# modeled, 2 s of MPICH's algorithms modeled) gives the application row
# (offload 7 s, 30 % better; model baseline 8 s, 12.5 %), the per-instance
# table sorted by baseline time with its speedups and shares, app.csv and
# instances.csv with the documented headers, app.json, PNG and SVG figures;
# app_offload_partial.json lists an instance found in one report only with a
# warning and leaves the model columns empty; the two runs go through
# $MPIFPGA_RUN (here a stand-in that copies the reports) with the options
# passed on and --verify checked; bad options and bad reports exit 2 with a
# message, a failing run exits 1 naming it.  TAP output.
# Environment: top_builddir; MPIFPGA_COMPARE_APP defaults to
# $top_builddir/mpifpga-compare-app; srcdir (else this script's directory/..)
# locates test/data.
top_builddir=${top_builddir:-.}
COMPARE_APP=${MPIFPGA_COMPARE_APP:-$top_builddir/mpifpga-compare-app}
srcdir=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
data=$srcdir/test/data
n=0
fails=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# compare-app: $COMPARE_APP; data: $data"

# near A B: numbers A and B equal to 1e-6 (relative), A non-empty
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d
                                           s = b < 0 ? -b : b; exit !(a != "" && d <= 1e-6 * (s + 1)) }'; }

P=$data/app_profile.json
O=$data/app_offload.json
timeout 120 "$COMPARE_APP" --out "$tmp/o" --from-reports "$P" "$O" > "$tmp/t" 2> "$tmp/e"
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$tmp/e" | tail -n 20
[ $rc = 0 ] && ! grep -q -i 'warning' "$tmp/e"
ok $? "--from-reports on the synthetic reports exits 0 without warnings"

# Table 5 row on stdout: application ranks baseline coll offload impr model-base model-impr
grep -q '^# mpifpga-compare-app: application time (Table 5): cg_poisson, 4 ranks' "$tmp/t" &&
    grep -q 'Baseline(s) *Collectives(s) *Offload(s) *Improvement(%) *Model-baseline(s) *Model-improvement(%)' "$tmp/t" &&
    grep '^cg_poisson ' "$tmp/t" | awk 'NF == 8 && $2 == 4 && $3 == "10.000" && $4 == "4.000" &&
                                          $5 == "7.000" && $6 == "30.00" && $7 == "8.000" &&
                                          $8 == "12.50" { good = 1 } END { exit !good }'
ok $? "stdout: application row 10 s - 4 s + 1 s = 7 s, 30.00 %; model 8 s, 12.50 %"

A=$tmp/o/app.csv
head -1 "$A" | grep -qx 'application,ranks,baseline_s,collective_s,offload_s,improvement_pct,model_baseline_s,model_improvement_pct'
ok $? "app.csv has the documented header"
[ "$(wc -l < "$A")" = 2 ] && IFS=, read -r app ranks b c o i mb mi <<EOF
$(sed -n 2p "$A")
EOF
[ "$app" = cg_poisson ] && [ "$ranks" = 4 ] && near "$b" 10 && near "$c" 4 && near "$o" 7 &&
    near "$i" 30 && near "$mb" 8 && near "$mi" 12.5
ok $? "app.csv: cg_poisson,4,baseline 10,collective 4,offload 7,30 %,model 8,12.5 % ($(sed -n 2p "$A"))"

I=$tmp/o/instances.csv
head -1 "$I" | grep -qx 'instance,collective,site,function,calls,bytes_per_call,datatype,op,comm_size,baseline_us,baseline_model_us,offload_us,speedup,speedup_model,baseline_share_pct,offload'
ok $? "instances.csv has the documented header"

# The reports list bcast, allreduce@123, allreduce@200 (profile) in other
# orders; sorted by baseline time: allreduce@123 (2 s), allreduce@200 (1.5 s), bcast (0.5 s).
python3 - "$I" > "$tmp/ie" 2>&1 <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = [("allreduce@cg.c:123 (cg_solve)", "allreduce", "cg.c:123", "cg_solve", "1000", "8",
         "MPI_DOUBLE", "MPI_SUM", "4", 2e6, 1e6, 4e5, 5.0, 2.5, 50.0),
        ("allreduce@cg.c:200 (dot)", "allreduce", "cg.c:200", "dot", "500", "16",
         "MPI_DOUBLE", "MPI_SUM", "4", 1.5e6, 7.5e5, 5e5, 3.0, 1.5, 37.5),
        ("bcast@main.c:50 (setup)", "bcast", "main.c:50", "setup", "10", "4096",
         "MPI_BYTE", "-", "4", 5e5, 2.5e5, 1e5, 5.0, 2.5, 12.5)]
assert len(rows) == 3, rows
keys = ["instance", "collective", "site", "function", "calls", "bytes_per_call", "datatype",
        "op", "comm_size", "baseline_us", "baseline_model_us", "offload_us", "speedup",
        "speedup_model", "baseline_share_pct"]
for r, w in zip(rows, want):
    for k, v in zip(keys, w):
        if isinstance(v, float):
            assert abs(float(r[k]) - v) <= 1e-6 * v, (k, r[k], v)
        else:
            assert r[k] == v, (k, r[k], v)
EOF
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$tmp/ie"
ok $rc "instances.csv: 3 instances largest baseline first, speedups 5/3/5, model 2.5/1.5/2.5, shares 50/37.5/12.5"

grep -q '^# mpifpga-compare-app: collective instances (fig. 14)' "$tmp/t" &&
    grep -q 'Instance *Calls *Bytes *Baseline(us) *Baseline-model(us) *Offload(us) *Offloaded *Speedup *Speedup-model *Share(%)' "$tmp/t" &&
    [ "$(grep -E '^(allreduce|bcast)@' "$tmp/t" | awk '{ print $1 }' | tr '\n' ' ')" = \
      "allreduce@cg.c:123 allreduce@cg.c:200 bcast@main.c:50 " ] &&
    grep '^allreduce@cg.c:123 (cg_solve)' "$tmp/t" | awk '$(NF-2) == "5.00" && $(NF-1) == "2.50" && $NF == "50.00" { g = 1 } END { exit !g }'
ok $? "stdout: instance table in the same order with speedups and shares"

# An instance whose calls all fell back (as NAS FT's MPI_DOUBLE_COMPLEX
# reduce did before complex SUM was offloaded) is shown as a fallback with
# the collective's reasons, and gets no speedup; the offloaded ones say yes.
python3 - "$O" "$tmp/fb.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for i in d["instances"]:
    if i["collective"] == "bcast":
        i["offloaded"], i["baseline_model_calls"], i["baseline_model_us"] = 0, 0, 0
d.setdefault("collectives", {})["bcast"] = {"calls": 10, "offloaded": 0,
                                           "fallback": {"datatype": 10, "op": 0}}
json.dump(d, open(sys.argv[2], "w"))
EOF
timeout 120 "$COMPARE_APP" --no-plot --out "$tmp/fb" --from-reports "$P" "$tmp/fb.json" \
    > "$tmp/fbo" 2> "$tmp/fbe"
grep '^bcast@main.c:50' "$tmp/fbo" | grep -q ' fallback(datatype:10) *- *- ' &&
    grep '^allreduce@cg.c:123' "$tmp/fbo" | grep -q ' yes *5.00 ' &&
    grep -q '^bcast@main.c:50 (setup),.*,,,[0-9.]*,fallback(datatype:10)$' "$tmp/fb/instances.csv"
ok $? "a fallback instance: shown as fallback(datatype:10) with no speedup, offloaded ones as yes"

python3 - "$tmp/o/app.json" "$P" "$O" > "$tmp/je" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
a = d["app"]
assert a["application"] == "cg_poisson" and a["ranks"] == 4 and d["ranks"] == 4, a
assert abs(a["offload_s"] - 7) < 1e-9 and abs(a["improvement_pct"] - 30) < 1e-6, a
assert abs(a["model_baseline_s"] - 8) < 1e-9 and abs(a["model_improvement_pct"] - 12.5) < 1e-6, a
assert d["reports"] == {"profile": sys.argv[2], "offload": sys.argv[3]}, d["reports"]
assert d["date"] and d["versions"]["mpifpga-compare-app"] and d["from_reports"] is True
assert "checked" in d["verification"] and d["warnings"] == [], d
assert [i["instance"] for i in d["instances"]] == [
    "allreduce@cg.c:123 (cg_solve)", "allreduce@cg.c:200 (dot)", "bcast@main.c:50 (setup)"]
assert all(i["in"] == "both" for i in d["instances"])
assert d["columns"]["app"][0] == "application" and d["columns"]["instances"][-1] == "offload"
EOF
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$tmp/je"
ok $rc "app.json: both tables, ranks, date, versions, report paths, verification"

if command -v gnuplot > /dev/null 2>&1; then
    [ "$(od -An -tx1 -N8 "$tmp/o/instances.png" 2> /dev/null | tr -d ' \n')" = 89504e470d0a1a0a ] &&
        grep -q '<svg' "$tmp/o/instances.svg" 2> /dev/null && [ -s "$tmp/o/instances.gp" ] &&
        grep -q 'plot in .*instances.png instances.svg' "$tmp/t"
    ok $? "instances.png is a PNG, instances.svg an SVG (gnuplot script instances.gp)"
else
    ok 1 "PNG and SVG plots (gnuplot not installed: install gnuplot-nox)"
fi

timeout 120 "$COMPARE_APP" --no-plot --out "$tmp/np" --from-reports "$P" "$O" > "$tmp/npo" 2> "$tmp/npe"
rc=$?
[ $rc = 0 ] && [ ! -e "$tmp/np/instances.png" ] && [ ! -e "$tmp/np/instances.svg" ] &&
    grep -q 'plot skipped' "$tmp/npe" && cmp -s "$tmp/np/app.csv" "$A" && cmp -s "$tmp/np/instances.csv" "$I"
ok $? "--no-plot: no figure, a note, the same CSV files"

# One instance only in each report; one offloaded instance without a
# modeled MPICH time (model columns empty); a reduce whose calls all fell back.
timeout 120 "$COMPARE_APP" --no-plot --out "$tmp/pa" --from-reports "$P" "$data/app_offload_partial.json" \
    > "$tmp/pao" 2> "$tmp/pae"
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$tmp/pae" | tail -n 20
[ $rc = 0 ] && grep -q 'warning: bcast@main.c:50 (setup) is only in the profile report' "$tmp/pae" &&
    grep -q 'warning: reduce@io.c:77 (write_result) is only in the offload report' "$tmp/pae"
ok $? "an instance in only one report: a warning naming it and the report"
awk -F, 'NR == 1 { next }
         { rows++; order = order $2 "@" $3 " " }
         $3 == "main.c:50" && !($10 > 0 && $11 == "" && $12 == "" && $13 == "" && $15 > 0) { bad = 1 }
         $3 == "io.c:77" && !($10 == "" && $11 == "" && $12 > 0 && $13 == "" && $15 == "") { bad = 1 }
         $3 == "cg.c:123" && !($11 == "" && $13 > 0 && $14 == "") { bad = 1 }
         END { exit bad || rows != 4 || order != "allreduce@cg.c:123 allreduce@cg.c:200 bcast@main.c:50 reduce@io.c:77 " }' \
    "$tmp/pa/instances.csv"
ok $? "...listed with the missing side empty, after the instances with a baseline"
IFS=, read -r app ranks b c o i mb mi <<EOF
$(sed -n 2p "$tmp/pa/app.csv")
EOF
near "$o" 6.95 && near "$i" 30.5 && [ -z "$mb" ] && [ -z "$mi" ] &&
    grep -q 'model_baseline_s and model_improvement_pct left empty.*allreduce@cg.c:123' "$tmp/pae"
ok $? "...offload_s 10 - 4 + 0.95 = 6.95 s (30.5 %); model columns empty with a note ($(sed -n 2p "$tmp/pa/app.csv"))"

# The runs, through a stand-in launcher: it records its arguments, copies
# the synthetic report of its mode and runs the program with FAKE_MODE set.
cat > "$tmp/fake-run" <<'EOF'
#!/bin/sh
echo "$*" >> "$FAKE_LOG"
mode= rep=
while [ $# -gt 0 ]; do
  case $1 in
    --version) echo "mpifpga-run (mpifpga) fake"; exit 0 ;;
    --profile) mode=profile; shift ;;
    --instances) mode=offload; shift ;;
    --report) rep=$2; shift 2 ;;
    --ppn|--topology|--params) shift 2 ;;
    -n) shift 2; break ;;
    *) echo "fake-run: unexpected '$1'" >&2; exit 2 ;;
  esac
done
if [ "$mode" = "${FAKE_FAIL:-}" ]; then
  echo "fake-run: the $mode run crashed" >&2
  exit 3
fi
cp "$FAKE_DATA/app_$mode.json" "$rep" || exit 4
FAKE_MODE=$mode
export FAKE_MODE
exec "$@"
EOF
cat > "$tmp/cg_poisson" <<'EOF'
#!/bin/sh
echo "cg_poisson $*: residual 1e-10 under $FAKE_MODE"
echo "VERIFICATION SUCCESSFUL"
EOF
chmod +x "$tmp/fake-run" "$tmp/cg_poisson"
FAKE_DATA=$data
FAKE_LOG=$tmp/log
export FAKE_DATA FAKE_LOG

MPIFPGA_RUN=$tmp/fake-run timeout 120 "$COMPARE_APP" --no-plot --out "$tmp/r" --ppn 2 --topology torus:2x2x1 \
    --params novog --verify '^VERIFICATION SUCCESSFUL$' -n 4 -- "$tmp/cg_poisson" -s 64 > "$tmp/ro" 2> "$tmp/re"
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$tmp/re" | tail -n 20
[ $rc = 0 ] && cmp -s "$tmp/r/app.csv" "$A" && cmp -s "$tmp/r/instances.csv" "$I"
ok $? "a run through \$MPIFPGA_RUN gives the same tables"
[ "$(cat "$tmp/log")" = "--version
--profile --ppn 2 --topology torus:2x2x1 --params novog --report $tmp/r/profile.json -n 4 $tmp/cg_poisson -s 64
--instances --ppn 2 --topology torus:2x2x1 --params novog --report $tmp/r/offload.json -n 4 $tmp/cg_poisson -s 64" ]
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$tmp/log"
ok $rc "profile run with --profile, offload run with --instances, --ppn/--topology/--params passed on"
grep -q 'residual 1e-10 under profile' "$tmp/r/profile.out" && grep -q 'under offload' "$tmp/r/offload.out" &&
    [ -f "$tmp/r/profile.err" ] && [ -f "$tmp/r/offload.err" ] && [ -s "$tmp/r/profile.json" ] &&
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
v = d["verification"]
assert v["profile"] == "passed" and v["offload"] == "passed" and v["checked"] == "regex", v
assert d["reports"]["offload"].endswith("/offload.json") and d["command"].endswith("cg_poisson -s 64"), d
assert d["application"] == "cg_poisson" and d["versions"]["mpifpga-run"] == "mpifpga-run (mpifpga) fake"
assert d["runs"]["profile"]["command"] and d["ppn"] == 2 and d["topology"] == "torus:2x2x1"
' "$tmp/r/app.json" && grep -q 'verification passed' "$tmp/re"
ok $? "outputs in profile.out/.err, offload.out/.err; app.json records the verification and command"

: > "$FAKE_LOG"
MPIFPGA_RUN=$tmp/fake-run timeout 120 "$COMPARE_APP" --no-plot --out "$tmp/r2" -n 4 "$tmp/cg_poisson" \
    > /dev/null 2> "$tmp/re"
rc=$?
[ $rc = 0 ] && grep -q 'only the exit status' "$tmp/re" &&
    python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["verification"]["checked"] == "exit status only"' \
        "$tmp/r2/app.json"
ok $? "without --verify: a note that only the exit status was checked"

MPIFPGA_RUN=$tmp/fake-run timeout 120 "$COMPARE_APP" --no-plot --out "$tmp/r3" --verify 'under profile' \
    -n 4 -- "$tmp/cg_poisson" > /dev/null 2> "$tmp/re"
rc=$?
[ $rc = 1 ] && grep -q "verification did not pass under offload" "$tmp/re" &&
    grep -q 'profile run: verification passed' "$tmp/re"
ok $? "--verify not matching the offload run's output: exit 1 naming it ($(grep -m1 'did not' "$tmp/re" | head -c 80))"

: > "$FAKE_LOG"
FAKE_FAIL=profile MPIFPGA_RUN=$tmp/fake-run timeout 120 "$COMPARE_APP" --no-plot --out "$tmp/r4" \
    -n 4 -- "$tmp/cg_poisson" > /dev/null 2> "$tmp/re"
rc=$?
[ $rc = 1 ] && grep -q 'the profile run failed (exit 3' "$tmp/re" && grep -q 'command: .*fake-run --profile' "$tmp/re" &&
    grep -q '    fake-run: the profile run crashed' "$tmp/re" && ! grep -q -- '--instances' "$FAKE_LOG"
ok $? "a failing run: exit 1, names the run and its command, its stderr tail; no further run"

mkdir "$tmp/noinst"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); del d["instances"]; json.dump(d, open(sys.argv[2], "w"))
' "$P" "$tmp/noinst/app_profile.json"
cp "$O" "$tmp/noinst/app_offload.json"
FAKE_DATA=$tmp/noinst MPIFPGA_RUN=$tmp/fake-run timeout 120 "$COMPARE_APP" --no-plot --out "$tmp/r5" \
    -n 4 -- "$tmp/cg_poisson" > /dev/null 2> "$tmp/re"
rc=$?
[ $rc = 1 ] && grep -q 'has no "instances": run with a libmpifpga that writes instances' "$tmp/re"
ok $? "a run whose report has no instances: exit 1 saying so"

# Bad options: exit 2, the message first, the synopsis, nothing written.
for bad in "--bogus" "-n 0 -- true" "-n x -- true" "-- true" "-n 2" "" "--ppn 0 -n 2 true" \
           "--verify ( -n 2 true" "--from-reports $P" "--from-reports $P $O -n 2" \
           "--from-reports $P $O true" "--out"; do
    case $bad in
        "--bogus") name=bogus ;; "-n 0"*) name="'0'" ;; "-n x"*) name="'x'" ;; "-- true") name="-n N" ;;
        "-n 2"|"") name="no program" ;; "--ppn"*) name=ppn ;; "--verify"*) name="regular expression" ;;
        "--from-reports $P") name="two report files" ;; *" -n 2") name="only applies" ;;
        *" true") name="runs nothing" ;; "--out") name=out ;;
    esac
    # shellcheck disable=SC2086
    timeout 60 "$COMPARE_APP" --out "$tmp/b" $bad > "$tmp/bo" 2> "$tmp/be"
    rc=$?
    [ $rc = 2 ] && [ ! -s "$tmp/bo" ] && head -1 "$tmp/be" | grep -q -e "$name" &&
        grep -q '^usage: mpifpga-compare-app' "$tmp/be" && [ ! -e "$tmp/b" ] && ! grep -q Traceback "$tmp/be"
    ok $? "bad options '$bad' -> exit 2 ($(head -1 "$tmp/be" | head -c 90))"
done

# Bad reports (with --from-reports: the user's input): exit 2 naming the file and the problem.
echo '{"nranks": 4, "mode": "profile", "app": {"wall_s": 1}, "instances": [' > "$tmp/trunc.json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); del d["instances"]; json.dump(d, open(sys.argv[2], "w"))
d = json.load(open(sys.argv[1])); d["instances"][0]["host_us"] = "lots"; json.dump(d, open(sys.argv[3], "w"))
d = json.load(open(sys.argv[1])); del d["app"]; json.dump(d, open(sys.argv[4], "w"))
' "$P" "$tmp/noinst.json" "$tmp/str.json" "$tmp/nowall.json"
for case in "$tmp/missing.json|$O|cannot read the profile report" \
            "$tmp/trunc.json|$O|is not valid JSON" \
            "$P|$tmp/trunc.json|offload report .* is not valid JSON" \
            "$tmp/noinst.json|$O|has no \"instances\": run with a libmpifpga that writes instances" \
            "$O|$P|is a report of an offload run, but the profile report was expected" \
            "$tmp/str.json|$O|host_us is not a number" \
            "$tmp/nowall.json|$O|has no app.wall_s" \
            "$data|$O|cannot read the profile report"; do
    p=${case%%|*}; rest=${case#*|}; o=${rest%%|*}; msg=${rest#*|}
    timeout 60 "$COMPARE_APP" --out "$tmp/b" --from-reports "$p" "$o" > "$tmp/bo" 2> "$tmp/be"
    rc=$?
    [ $rc = 2 ] && [ ! -s "$tmp/bo" ] && grep -q -e "$msg" "$tmp/be" && [ ! -e "$tmp/b" ] &&
        ! grep -q Traceback "$tmp/be"
    ok $? "bad report ($(basename "$p"), $(basename "$o")) -> exit 2: $(head -1 "$tmp/be" | sed "s|$tmp/||g" | head -c 100)"
done

"$COMPARE_APP" --help > "$tmp/h" 2>&1 && grep -q '^usage: mpifpga-compare-app' "$tmp/h"
good=$?
for c in baseline_s collective_s offload_s improvement_pct model_baseline_s model_improvement_pct \
         instance calls baseline_us baseline_model_us offload_us speedup speedup_model baseline_share_pct; do
    grep -q "^  $c " "$tmp/h" || { echo "# --help does not document $c"; good=1; }
done
ok $good "--help documents the columns"

echo "1..$n"
[ $fails = 0 ]
