#!/bin/sh
# ct_exhaust: 40 live communicators (more than the 32 CT slots), an
# Allreduce on each, free, 5 more.  Right results always; with
# MPIFPGA_CT_SLOTS=2 the report counts ct_full fallbacks.  TAP output.
. "$(dirname "$0")/mpi/common.sh"

withenv "MPIFPGA_REPORT=$tmp/ct.json" run_ok "ct_exhaust at -n 2" "$tmp/ct" 2 ct_exhaust
report_ok "40 live communicators: some offloaded, offloaded + ct_full <= calls" "$tmp/ct.json" \
    'allreduce.offloaded>=1' 'allreduce.offloaded+allreduce.fallback.ct_full<=allreduce.calls'
run_ok "ct_exhaust at -n 3" "$tmp/ct3" 3 ct_exhaust
withenv "MPIFPGA_CT_SLOTS=2 MPIFPGA_REPORT=$tmp/ct2.json" \
    run_ok "ct_exhaust with MPIFPGA_CT_SLOTS=2 at -n 2" "$tmp/ct2" 2 ct_exhaust
report_ok "MPIFPGA_CT_SLOTS=2: fallback.ct_full counted" "$tmp/ct2.json" \
    'allreduce.fallback.ct_full>=1' 'allreduce.offloaded>=1'
finish
