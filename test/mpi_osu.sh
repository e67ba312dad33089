#!/bin/sh
# mpifpga-osu (bench/osu): the OSU-style collective latency benchmark runs
# every collective at -n 2 and -n 3 with validation (csv: every collective,
# sizes 4..4096 doubling, every row "pass", 0 < min <= avg <= max), its json
# parses, -T double works, 64K..1M calls validate with the shared payload
# buffer and with part of them in messages, a bad option exits 2 naming
# the option, and under the library the report counts only the measured
# calls (the benchmark's own barriers and timing reductions are PMPI_).
# TAP output.
. "$(dirname "$0")/mpi/common.sh"

OSU=${top_builddir:-.}/mpifpga-osu

# osu LOG N ARGS...: mpifpga-osu at -n N; stdout to LOG, stderr to LOG.err.
osu() {
    log=$1; np=$2; shift 2
    # shellcheck disable=SC2086
    env $RUN_ENV timeout "$TIMEOUT" $RUNNER -n "$np" "$OSU" "$@" > "$log" 2> "$log.err"
}

# osu_ok DESC LOG N ARGS...: one TAP line for a run that must exit 0.
osu_ok() {
    desc=$1; shift
    if [ ! -x "$OSU" ]; then ok 1 "$desc ($OSU not built)"; return 1; fi
    osu "$@"
    rc=$?
    ok $rc "$desc (exit $rc)"
    if [ $rc != 0 ]; then
        [ $rc = 124 ] && echo "# timed out after ${TIMEOUT}s"
        tail -n 15 "$1" "$1.err" | sed 's/^/#   /'
    fi
    return $rc
}

# py_ok DESC FILE: a check in python3 (script on stdin, file as argv[1]).
py_ok() {
    desc=$1; shift
    python3 - "$@" > "$tmp/py.out" 2>&1
    rc=$?
    ok $rc "$desc"
    [ $rc = 0 ] || sed 's/^/#   /' "$tmp/py.out"
    return $rc
}

for np in 2 3; do
    osu_ok "-c all, csv, validated, at -n $np" "$tmp/all$np.csv" $np \
        -c all -m 4:4096 -i 20 -x 2 -c -f --format csv
    if [ -s "$tmp/all$np.csv" ]; then
        py_ok "-n $np: every collective, sizes 4..4096, all pass, 0 < min <= avg <= max" \
            "$tmp/all$np.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ["allreduce", "reduce", "bcast", "scatter", "gather", "allgather",
        "reduce_scatter", "alltoall", "barrier"]
sizes = [4 << i for i in range(11)]          # 4, 8, ..., 4096
bad = []
for c in want:
    got = [r for r in rows if r["collective"] == c]
    b = [int(r["bytes"]) for r in got]
    if b != ([0] if c == "barrier" else sizes):
        bad.append("%s: sizes %s" % (c, b))
    for r in got:
        avg, mn, mx = float(r["avg_us"]), float(r["min_us"]), float(r["max_us"])
        if r["validation"] != "pass":
            bad.append("%s %s: validation %r" % (c, r["bytes"], r["validation"]))
        if not (0 < mn <= avg <= mx):
            bad.append("%s %s: min %s avg %s max %s" % (c, r["bytes"], mn, avg, mx))
        if int(r["iterations"]) != 20:
            bad.append("%s %s: iterations %s" % (c, r["bytes"], r["iterations"]))
extra = sorted({r["collective"] for r in rows} - set(want))
if extra:
    bad.append("unknown collectives %s" % extra)
print("\n".join(bad) or "%d rows" % len(rows))
sys.exit(1 if bad else 0)
EOF
    else
        ok 1 "-n $np: csv contents (no output)"
    fi
done

osu_ok "-c all --format json at -n 2" "$tmp/all.json" 2 -c all -m 4:64 -i 5 -x 1 -c --format json
if [ -s "$tmp/all.json" ]; then
    py_ok "json parses: 9 sections, ranks 2, every result validated" "$tmp/all.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, list) and len(d) == 9, "want an array of 9 sections"
for s in d:
    assert s["ranks"] == 2, s
    assert s["results"], s["collective"]
    for r in s["results"]:
        assert r["validation"] == "pass", (s["collective"], r)
        assert 0 < r["min_us"] <= r["avg_us"] <= r["max_us"], (s["collective"], r)
        assert set(r) == {"bytes", "avg_us", "min_us", "max_us", "iterations", "validation"}
print([s["collective"] for s in d])
EOF
else
    ok 1 "json parses (no output)"
fi

if osu_ok "-T double allreduce, table, at -n 2" "$tmp/dbl" 2 -c allreduce -T double -m 1:1024 -i 10 -c -f; then
    grep -q '^# Datatype: MPI_DOUBLE\.$' "$tmp/dbl" &&
        [ "$(grep -c 'Pass$' "$tmp/dbl")" = 8 ] && ! grep -q 'Fail' "$tmp/dbl"
    rc=$?
    ok $rc "-T double: MPI_DOUBLE, sizes 8..1024 all Pass"
    [ $rc = 0 ] || sed 's/^/#   /' "$tmp/dbl"
else
    ok 1 "-T double output (the run failed)"
fi

# -c validation passes for every collective with every datatype.
for T in char int float double; do
    if osu_ok "-c all -T $T validated at -n 3" "$tmp/t$T" 3 -c all -T "$T" -m 4:256 -i 3 -x 1 \
        -c --format csv; then
        awk -F, 'NR > 1 && $7 != "pass" { bad = 1 } END { exit bad || NR < 2 }' "$tmp/t$T"
        ok $? "-T $T: every collective and size passes validation"
    else
        ok 1 "-T $T: every collective and size passes validation (the run failed)"
    fi
done

# Payloads past the shared buffer's first 1 MiB (it grows), and with a
# limit that sends the larger calls' payloads in messages instead: every
# result still validates.
for cap in 1G 512K; do
    withenv "MPIFPGA_SHM_PAYLOAD=$cap" osu_ok "-c all 64K..1M validated at -n 3, \
MPIFPGA_SHM_PAYLOAD=$cap" "$tmp/big$cap" 3 -c all -m 64K:1M -i 2 -x 1 -c --format csv &&
        awk -F, 'NR > 1 && $7 != "pass" { bad = 1 } END { exit bad || NR < 30 }' "$tmp/big$cap"
    ok $? "MPIFPGA_SHM_PAYLOAD=$cap: every collective, 64K..1M, passes validation"
done

if [ -x "$OSU" ]; then
    osu "$tmp/badopt" 2 -c allreduce --no-such-option
    rc=$?
    [ $rc = 2 ] && grep -q -- "--no-such-option" "$tmp/badopt.err" &&
        [ "$(grep -c -- "--no-such-option" "$tmp/badopt.err")" = 1 ]
    ok $? "bad option: exit 2 ($rc), one message naming it"
    [ $rc = 2 ] || sed 's/^/#   /' "$tmp/badopt.err"
    osu "$tmp/badcoll" 2 -c nosuchcoll
    rc=$?
    [ $rc = 2 ] && grep -q "nosuchcoll" "$tmp/badcoll.err"
    ok $? "bad collective: exit 2 ($rc), message naming it"
else
    ok 1 "bad option ($OSU not built)"
fi

# Under the library: 2 ranks x 3 sizes x (1 warm-up + 5 timed + 2 validated)
# allreduce calls, an MPI_Barrier before each warm-up and timed call (as
# OSU does), and nothing else (validation barriers and the timing
# reductions are PMPI_).
if [ "$LIB" = 1 ]; then
    withenv "MPIFPGA_REPORT=$tmp/r.json" osu_ok "report run: allreduce 4..16 at -n 2" \
        "$tmp/rep" 2 -c allreduce -m 4:16 -i 5 -x 1 -c
fi
report_ok "report: 48 allreduce calls, 36 barriers, no reduce counted" "$tmp/r.json" \
    'allreduce.calls==48' 'barrier.calls==36' 'reduce.calls==0'
finish
