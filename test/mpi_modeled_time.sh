#!/bin/sh
# Modeled time (MPIFPGA_MODELED_TIME): MPI_Wtime never runs backwards, an
# isolated MPI_Allreduce takes the model's latency (from mpifpga-sim, the
# same model without MPI), a delayed rank skews the others by the delay,
# fallbacks keep host time.  At -n 2 with MPIFPGA_MODELED_TIME=1 (the
# thread's CPU time between calls) and at -n 3 with cpu.  (`wall` counts
# time a rank is descheduled, so its figures follow the host's load: it is
# kept only to compare, and not held to them here.)  TAP output.
. "$(dirname "$0")/mpi/common.sh"

SIM=${MPIFPGA_SIM:-${top_builddir:-.}/mpifpga-sim}
if [ $LIB = 0 ]; then
    skip "modeled time" "no library"
    finish
fi
model_us() { "$SIM" -c allreduce -m 8:8 -i 1 --nodes "$1" --format csv | tail -n 1 | cut -d, -f5; }

for run in "2 1" "3 cpu"; do
    set -- $run
    L=$(model_us "$1")
    withenv "MPIFPGA_MODELED_TIME=$2" run_ok \
        "modeled time at -n $1 (MPIFPGA_MODELED_TIME=$2, model latency $L us)" \
        "$tmp/m$1" "$1" modeled_time "$L"
    grep '^# ' "$tmp/m$1"
done
finish
