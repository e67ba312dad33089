#!/bin/sh
# fallback_check (derived datatypes in reductions, MPI_MINLOC vs MPICH, user op, MPI_LONG_DOUBLE,
# intercommunicator, MPI_COMM_SELF, mixed type signatures): right results
# through the fallback path, and the report counts each fallback reason.
# Then the switches: MPIFPGA_ENABLE=0, MPIFPGA_COLLS=^bcast,
# MPIFPGA_ENGINE=none.  TAP output.
. "$(dirname "$0")/mpi/common.sh"

withenv "MPIFPGA_REPORT=$tmp/fb.json" run_ok "fallback_check at -n 4" "$tmp/fb" 4 fallback_check
report_ok "report counts each fallback reason" "$tmp/fb.json" \
    'bcast.fallback.derived_datatype==0' \
    'allreduce.fallback.derived_datatype+allreduce.fallback.op>=3' \
    'allreduce.fallback.op>=1' 'reduce.fallback.op>=1' \
    'allreduce.fallback.datatype>=1' \
    'allreduce.fallback.intercomm>=1' 'bcast.fallback.intercomm>=1' \
    'allreduce.fallback.comm_size>=1'
run_ok "fallback_check at -n 2" "$tmp/fb2" 2 fallback_check
run_ok "fallback_check at -n 1 (intercommunicator cases skip)" "$tmp/fb1" 1 fallback_check

# MPIFPGA_ENABLE=0: nothing offloaded, every call with data counted as disabled
withenv "MPIFPGA_ENABLE=0 MPIFPGA_REPORT=$tmp/off.json" \
    run_ok "coll_check --quick with MPIFPGA_ENABLE=0 at -n 2" "$tmp/off" 2 coll_check --quick --pmpi-reference
report_ok "MPIFPGA_ENABLE=0: offloaded==0, calls == fallback.disabled + empty" "$tmp/off.json" \
    '*.offloaded==0' 'allreduce.fallback.disabled>0' \
    'allreduce.calls==allreduce.fallback.disabled+allreduce.empty' \
    'bcast.calls==bcast.fallback.disabled+bcast.empty' \
    'reduce_scatter.calls==reduce_scatter.fallback.disabled+reduce_scatter.empty'

# MPIFPGA_COLLS=^bcast: Bcast disabled, Allreduce still offloaded
withenv "MPIFPGA_COLLS=^bcast MPIFPGA_REPORT=$tmp/nob.json" \
    run_ok "coll_check (allreduce, bcast) with MPIFPGA_COLLS=^bcast at -n 2" "$tmp/nob" 2 coll_check \
    --quick --colls allreduce,bcast --shapes world,halves
report_ok "MPIFPGA_COLLS=^bcast: bcast counted disabled, allreduce offloaded" "$tmp/nob.json" \
    'bcast.fallback.disabled>=1' 'bcast.offloaded==0' 'allreduce.offloaded>=1'

# MPIFPGA_ENGINE=none: no engine, everything falls back as engine_unavailable
withenv "MPIFPGA_ENGINE=none MPIFPGA_REPORT=$tmp/noe.json" \
    run_ok "coll_check (allreduce) with MPIFPGA_ENGINE=none at -n 2" "$tmp/noe" 2 coll_check \
    --quick --pmpi-reference --colls allreduce --shapes world
report_ok "MPIFPGA_ENGINE=none: engine_unavailable counted, nothing offloaded" "$tmp/noe.json" \
    'allreduce.fallback.engine_unavailable>=1' '*.offloaded==0'
finish
