#!/bin/sh
# Collective instances (doc/applications.md): every call site of a
# collective is one instance in the report, with its own counts and times.
#   callsites / callsites_f at -n 2: MPI_Allreduce from site_a (7 calls of
#     8 doubles, SUM) and site_b (3 calls of 100 ints, MAX), and (C) a Bcast
#     site (5 calls of 16 bytes): three / two instances, named file:line on
#     the source line of the call, offloaded with modeled offload and
#     baseline times; the same in profile mode (MPI only, host times);
#     a stripped binary names its sites module+offset.
#   The proxy applications (bench/apps) verify their own answers with
#   offload and in profile mode.
#   MPIFPGA_VERBOSE=1 lists the instances on stderr.
#   mpifpga-compare --app on cg_poisson: both runs, the application and
#     instance tables with the documented columns.
# TAP output.
. "$(dirname "$0")/mpi/common.sh"
CHECK="python3 $MPI_DIR/check_instances.py"
APPS=../../bench/apps

# inst_ok DESC REPORT ARGS...: one TAP line for a check_instances.py call.
inst_ok() {
    desc=$1; shift
    if [ ! -s "$1" ]; then ok 1 "$desc (no report written to $1)"; return 1; fi
    $CHECK "$@" > "$tmp/ci.out" 2>&1
    rc=$?
    ok $rc "$desc"
    [ $rc = 0 ] || sed 's/^/#   /' "$tmp/ci.out"
}

# ---- C call sites, offloaded ------------------------------------------------
R=$tmp/c.json
withenv "MPIFPGA_INSTANCES=1 MPIFPGA_REPORT=$R" run_ok "callsites at -n 2, instances on" \
    "$tmp/c" 2 callsites
inst_ok "three instances, offload mode" "$R" --total 3 --mode offload
inst_ok "site_a: 7 allreduce calls of 64 bytes, MPI_DOUBLE/MPI_SUM, on its source line" "$R" \
    function=site_a collective=allreduce -- calls==7 bytes_per_call==64 datatype==MPI_DOUBLE \
    op==MPI_SUM comm_size==2 ranks==2 'site~^callsites\.c:[0-9]+$' 'source_line~MPI_Allreduce'
inst_ok "site_b: 3 allreduce calls of 400 bytes, MPI_INT/MPI_MAX, on its source line" "$R" \
    function=site_b collective=allreduce -- calls==3 bytes_per_call==400 datatype==MPI_INT \
    op==MPI_MAX 'site~^callsites\.c:[0-9]+$' 'source_line~MPI_Allreduce'
inst_ok "bcast site: 5 calls of 16 bytes, no op" "$R" collective=bcast -- calls==5 \
    bytes_per_call==16 op==- 'source_line~MPI_Bcast'
inst_ok "offloaded calls carry modeled offload and baseline times" "$R" function=site_a -- \
    offloaded==7 'offload_us>0' 'host_us>0' baseline_model_calls==7 'baseline_model_us>0'

withenv "MPIFPGA_INSTANCES=1 MPIFPGA_VERBOSE=1" run_ok "callsites at -n 2, verbose" "$tmp/v" 2 \
    callsites
[ "$(grep -c '^mpifpga: allreduce@callsites\.c:[0-9]* *[73] ' "$tmp/v")" = 2 ] &&
    grep -q '^mpifpga: bcast@callsites\.c:[0-9]* *5 ' "$tmp/v"
ok $? "MPIFPGA_VERBOSE=1 lists the three instances with their calls on stderr"

# ---- the same in profile mode: MPI only, measured -----------------------------
R=$tmp/p.json
withenv "MPIFPGA_PROFILE=1 MPIFPGA_REPORT=$R" run_ok "callsites at -n 2, profile mode" \
    "$tmp/p" 2 callsites
inst_ok "profile mode: the same three instances, nothing offloaded" "$R" --total 3 \
    --mode profile function=site_a -- calls==7 offloaded==0 'host_us>0' baseline_model_calls==0
inst_ok "profile mode: site_b and the bcast site" "$R" function=site_b -- calls==3 offloaded==0
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d['app']['wall_s'] > 0 and 'profile' in d['engine'] else 1)" "$R" 2>/dev/null
ok $? "profile report: application time and engine says profile mode"

# ---- names of any length, inlined call sites (issue 19) --------------------------
R=$tmp/l.json
withenv "MPIFPGA_INSTANCES=1 MPIFPGA_REPORT=$R" run_ok "callsites_long at -n 2, instances on" \
    "$tmp/l" 2 callsites_long
LONG=a_call_site_function_whose_name_is_much_longer_than_sixty_three_characters_to_test_naming
inst_ok "a 90-character function name is reported whole (not cut at 63)" "$R" --total 2 \
    function=$LONG -- calls==2 'site~^callsites_long\.c:[0-9]+$' 'source_line~MPI_Allreduce'
inst_ok "an inlined call: the innermost function, its MPI_Allreduce line, inlined_in the outer" \
    "$R" function=inlined_sum -- calls==3 inlined_in==outer_caller \
    'site~^callsites_long\.c:[0-9]+$' 'source_line~MPI_Allreduce'

# ---- no debug information: module+offset -------------------------------------
if command -v strip > /dev/null && [ -x "$BIN/callsites" ]; then
    strip -o "$tmp/callsites_stripped" "$BIN/callsites"
    R=$tmp/s.json
    env MPIFPGA_INSTANCES=1 MPIFPGA_REPORT="$R" timeout "$TIMEOUT" $RUNNER -n 2 \
        "$tmp/callsites_stripped" > "$tmp/s" 2>&1
    ok $? "stripped callsites runs"
    inst_ok "stripped binary: sites are module+offset, still three" "$R" --total 3 \
        collective=bcast -- 'site~^callsites_stripped\+0x[0-9a-f]+$' calls==5
else
    skip "stripped callsites runs" "no strip"
    skip "stripped binary: sites are module+offset" "no strip"
fi

# ---- MPI_THREAD_MULTIPLE: two threads record at once --------------------------
R=$tmp/mt.json
withenv "MPIFPGA_INSTANCES=1 MPIFPGA_REPORT=$R" run_ok "callsites_mt at -n 2 (two threads)" \
    "$tmp/mt" 2 callsites_mt
inst_ok "threads: thread_a 9 calls, thread_b 4 calls, none offloaded" "$R" --total 2 \
    function=thread_a -- calls==9 bytes_per_call==8 datatype==MPI_INT offloaded==0 'host_us>0'
inst_ok "threads: thread_b's instance" "$R" function=thread_b -- calls==4 op==MPI_MAX offloaded==0

# ---- Fortran ---------------------------------------------------------------------
if [ -x "$BIN/callsites_f" ]; then
    R=$tmp/f.json
    withenv "MPIFPGA_INSTANCES=1 MPIFPGA_REPORT=$R" run_ok "callsites_f at -n 2" "$tmp/f" 2 \
        callsites_f
    inst_ok "Fortran: two allreduce instances" "$R" --total 2
    inst_ok "Fortran site_a: 7 calls of 8 MPI_DOUBLE_PRECISION, SUM, on its source line" "$R" \
        collective=allreduce datatype=MPI_DOUBLE_PRECISION -- calls==7 bytes_per_call==64 \
        op==MPI_SUM 'site~^callsites_f\.f90:[0-9]+$' 'source_line~(?i)mpi_allreduce' offloaded==7
    inst_ok "Fortran site_b: 3 calls of 100 MPI_INTEGER, MAX, on the first of its continuation lines" "$R" \
        collective=allreduce datatype=MPI_INTEGER -- calls==3 bytes_per_call==400 op==MPI_MAX \
        'source_line~(?i)mpi_allreduce'
else
    ok 1 "callsites_f built (configure found no MPI Fortran compiler)"
fi

# ---- proxy applications verify themselves --------------------------------------
for mode in offload profile; do
    envs="MPIFPGA_INSTANCES=1"
    [ $mode = profile ] && envs="MPIFPGA_PROFILE=1"
    withenv "$envs" run_ok "cg_poisson at -n 2 ($mode)" "$tmp/cg.$mode" 2 $APPS/cg_poisson 12 12 12
    grep -q '^VERIFICATION PASSED' "$tmp/cg.$mode"
    ok $? "cg_poisson verifies its solution ($mode)"
    withenv "$envs" run_ok "fproxy at -n 3 ($mode)" "$tmp/fp.$mode" 3 $APPS/fproxy
    grep -q '^ *VERIFICATION PASSED' "$tmp/fp.$mode"
    ok $? "fproxy verifies its answers ($mode)"
done

# ---- mpifpga-compare --app ---------------------------------------------------------
COMPARE=${top_builddir:-.}/mpifpga-compare
O=$tmp/app
timeout 300 "$COMPARE" --app -n 2 --out "$O" --verify '^VERIFICATION PASSED' --no-plot \
    -- "$BIN/$APPS/cg_poisson" 12 12 12 > "$tmp/app.out" 2> "$tmp/app.err"
rc=$?
ok $rc "mpifpga-compare --app on cg_poisson at -n 2 exits 0"
[ $rc = 0 ] || tail -n 15 "$tmp/app.err" | sed 's/^/#   /'
head -1 "$O/app.csv" 2>/dev/null |
    grep -qx 'application,ranks,baseline_s,collective_s,offload_s,improvement_pct,model_baseline_s,model_improvement_pct'
ok $? "app.csv has the documented header"
awk -F, 'NR > 1 && $2 == "allreduce" && $5 > 0 && $12 > 0 && $13 != "" { n++ } END { exit !(n >= 2) }' \
    "$O/instances.csv" 2>/dev/null
ok $? "instances.csv: at least two allreduce instances with calls, offload time and speedup"
finish
