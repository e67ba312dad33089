#!/bin/sh
# mpifpga-info as a user sees it: every MPIFPGA_* setting with its
# effective value, the engine's parameter set, the modeled network for N
# ranks, the libfabric providers, hwloc's view; a bad setting is named and
# exits 2.  TAP output.
INFO=${top_builddir:-.}/mpifpga-info
n=0
fails=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$INFO" -n 12 > "$tmp/o" 2>&1
rc=$?
[ $rc = 0 ] || tail -n 20 "$tmp/o" | sed 's/^/# /'
ok $rc "mpifpga-info runs"
for v in ENABLE COLLS MIN_BYTES MAX_BYTES SEGMENT_BYTES DEVICE ENGINE SWITCHD TOPOLOGY PARAMS \
         PPN CT_SLOTS CONNECT_TIMEOUT PROVIDER MODELED_TIME VERBOSE REPORT; do
    grep -q "^MPIFPGA_$v " "$tmp/o" || { echo "# missing MPIFPGA_$v"; false; } || break
done
ok $? "every MPIFPGA_* setting is listed"
grep -q '^MPIFPGA_CT_SLOTS *= 32 ' "$tmp/o"
ok $? "defaults shown (MPIFPGA_CT_SLOTS = 32)"
grep -q '^ct_entries *= 32' "$tmp/o" && grep -q '^name *= u280' "$tmp/o"
ok $? "the engine's parameter set (u280) is printed"
grep -q '^torus:3x2x2, 12 nodes' "$tmp/o"
ok $? "-n 12: the network auto mode models (torus:3x2x2)"
grep -q '^shm .*available' "$tmp/o" && grep -q '^tcp;ofi_rxm .*available' "$tmp/o"
ok $? "libfabric providers shm and tcp;ofi_rxm listed"
grep -q '^MPI-FPGA boards (Xilinx PCI vendor 0x10ee): [0-9]' "$tmp/o"
ok $? "board discovery (hwloc) reported"

MPIFPGA_CT_SLOTS=7 MPIFPGA_COLLS=^bcast "$INFO" -q > "$tmp/e" 2>&1
grep -q '^MPIFPGA_CT_SLOTS *= 7 ' "$tmp/e" && grep -q '^MPIFPGA_COLLS *= \^bcast ' "$tmp/e"
ok $? "effective values from the environment"

MPIFPGA_MIN_BYTES=lots "$INFO" -q > "$tmp/b" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "MPIFPGA_MIN_BYTES: 'lots' is not a byte size" "$tmp/b"
ok $? "a bad setting is named, exit 2 (got $rc)"
MPIFPGA_COLLS=allreduce,nosuch "$INFO" -q > "$tmp/c" 2>&1
[ $? = 2 ] && grep -q "unknown collective 'nosuch'" "$tmp/c"
ok $? "a bad collective list is named, exit 2"
"$INFO" -n 0 > "$tmp/n" 2>&1
[ $? = 2 ]
ok $? "-n 0 is refused with exit 2"

echo "1..$n"
[ "$fails" = 0 ]
