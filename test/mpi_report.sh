#!/bin/sh
# report_count at -n 2: 10 MPI_Allreduce of 4 ints, 3 MPI_Bcast of 100 bytes,
# 1 MPI_Barrier per rank; the JSON report (MPIFPGA_REPORT) must count exactly
# that, summed over the ranks, and say which payloads went through the
# shared payload buffer (MPIFPGA_SHM_PAYLOAD: default, off, and a limit
# that the allreduce's 64 + 16 bytes fit and the bcast's do not).  TAP output.
. "$(dirname "$0")/mpi/common.sh"

withenv "MPIFPGA_REPORT=$tmp/r.json" run_ok "report_count at -n 2" "$tmp/r" 2 report_count
report_ok "report is JSON with nranks and engine" "$tmp/r.json" 'nranks==2' 'engine!=""'
grep -q '"counts": *"calls, offloaded, fallback, empty and bytes are summed over ranks' "$tmp/r.json"
ok $? "report says its call counts are summed over ranks"
report_ok "allreduce: 20 calls, 20 offloaded, 320 bytes" "$tmp/r.json" \
    'allreduce.calls==20' 'allreduce.offloaded==20' 'allreduce.bytes==320' \
    'allreduce.offloaded_bytes==320' 'allreduce.empty==0' 'allreduce.modeled_us>0'
report_ok "bcast: 6 calls (600 bytes); barrier: 2 calls" "$tmp/r.json" \
    'bcast.calls==6' 'bcast.bytes==600' 'barrier.calls==2'
report_ok "nothing else counted" "$tmp/r.json" \
    'reduce.calls==0' 'scatter.calls==0' 'gather.calls==0' 'allgather.calls==0' \
    'reduce_scatter.calls==0' 'reduce_scatter_block.calls==0'
report_ok "modeled time is positive" "$tmp/r.json" 'allreduce.modeled_us>0' 'bcast.modeled_us>0'
report_ok "engine on this host: every payload in the shared buffer, none for barrier" \
    "$tmp/r.json" 'allreduce.shm_payload_calls==20' 'bcast.shm_payload_calls==6' \
    'barrier.shm_payload_calls==0'

withenv "MPIFPGA_REPORT=$tmp/off.json MPIFPGA_SHM_PAYLOAD=0" run_ok \
    "report_count at -n 2, MPIFPGA_SHM_PAYLOAD=0" "$tmp/off" 2 report_count
report_ok "MPIFPGA_SHM_PAYLOAD=0: same counts, every payload in messages" "$tmp/off.json" \
    'allreduce.offloaded==20' 'allreduce.offloaded_bytes==320' 'bcast.calls==6' \
    'allreduce.shm_payload_calls==0' 'bcast.shm_payload_calls==0'

withenv "MPIFPGA_REPORT=$tmp/cap.json MPIFPGA_SHM_PAYLOAD=96" run_ok \
    "report_count at -n 2, MPIFPGA_SHM_PAYLOAD=96" "$tmp/cap" 2 report_count
report_ok "MPIFPGA_SHM_PAYLOAD=96: allreduce (80 bytes) shared, bcast (100+) in messages" \
    "$tmp/cap.json" 'allreduce.shm_payload_calls==20' 'bcast.shm_payload_calls==0' \
    'bcast.offloaded==6'
finish
