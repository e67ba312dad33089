# Shared by test/sim_mpi.sh and test/sim_domains.sh (sourced): mpifpga-sim
# under mpiexec.  TAP helpers, a temporary directory, every run bounded by
# a timeout, and a tag in the environment of every process the test starts,
# so that "nothing left behind" counts the test's own processes and not
# those of a test running beside it (make -j2 check runs sim_golden.sh's
# mpifpga-sim at the same time).  Set SIM_TEST_NAME before sourcing.
SIM=${MPIFPGA_SIM:-./mpifpga-sim}
MPIEXEC=${MPIEXEC:-mpiexec}
case $SIM in /*) ;; *) SIM=$(pwd)/$SIM ;; esac
n=0
fails=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
SIM_MPI_TEST_TAG="$SIM_TEST_NAME.$$.$(date +%s)"
export SIM_MPI_TEST_TAG
if ! command -v "$MPIEXEC" > /dev/null 2>&1; then
    echo "1..0 # SKIP no $MPIEXEC"
    exit 0
fi
# every run bounded: a rank waiting forever fails the test instead
mpi() { k=$1; shift; timeout 120 "$MPIEXEC" -n "$k" "$SIM" "$@" < /dev/null; }

# The last check: no mpifpga-sim, mpifpga-sim-mpi, mpiexec or hydra proxy
# with this test's tag is left; then the plan and the exit status.
finish() {
    sleep 1
    left=""
    for env in /proc/[0-9]*/environ; do
        dir=${env%/environ}
        case "$(cat "$dir/comm" 2> /dev/null)" in
            mpifpga-sim* | mpiexec* | hydra*) ;;
            *) continue ;;
        esac
        grep -qz "^SIM_MPI_TEST_TAG=$SIM_MPI_TEST_TAG\$" "$env" 2> /dev/null &&
            left="$left ${dir#/proc/}"
    done
    [ -z "$left" ]
    ok $? "no mpifpga-sim, mpiexec or proxy process of this test left (${left:-none})"
    echo "1..$n"
    [ "$fails" = 0 ]
    exit $?
}
