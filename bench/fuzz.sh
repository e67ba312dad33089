#!/bin/sh
# Fuzz every decoder of external input with libFuzzer (bench/README.md,
# doc/testing.md): builds test/fuzz/fuzz_<target>.c with clang
# (-fsanitize=fuzzer,address,undefined), runs each target FUZZ_SECONDS
# seconds from its checked-in corpus, and prints per target the executions,
# executions per second, corpus size and findings.  Exit status 1 if any
# target found something (the crash input is kept under
# <builddir>/fuzz-build/artifacts/; add it to test/fuzz/corpus/<target>/
# once fixed).
#
#   make fuzz [FUZZ_SECONDS=60]        (or: bench/fuzz.sh SRCDIR BUILDDIR TARGET...)
# Environment: CLANG (clang), FUZZ_SECONDS (60), MPI_CFLAGS (mpich's -I).
set -eu

src=$(cd "${1:?usage: fuzz.sh SRCDIR BUILDDIR TARGET...}" && pwd)
build=$(cd "${2:?usage: fuzz.sh SRCDIR BUILDDIR TARGET...}" && pwd)
shift 2
[ $# -gt 0 ] || set -- wire engine_msg conf site config
CLANG=${CLANG:-clang}
secs=${FUZZ_SECONDS:-60}
mpi_cflags=${MPI_CFLAGS:-$(pkg-config --cflags mpich 2>/dev/null || true)}
work=$build/fuzz-build

if ! command -v "$CLANG" >/dev/null 2>&1; then
  echo "fuzz.sh: $CLANG not found: install Debian's clang (apt-get install clang), or set CLANG" >&2
  exit 2
fi
mkdir -p "$work/artifacts"
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
  > "$work/probe.c"
if ! "$CLANG" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" >/dev/null 2>&1; then
  echo "fuzz.sh: $CLANG cannot build with -fsanitize=fuzzer (no libFuzzer): install Debian's clang" >&2
  exit 2
fi
rm -f "$work/probe.c" "$work/probe"

cflags="-g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
  -fno-omit-frame-pointer -I$src/include -I$src/fpga_model -I$build/fpga_model/params -I$src/src
  -I$src/test $mpi_cflags"

sources() {
  case $1 in
    wire) echo src/proto/wire.c ;;
    engine_msg) echo src/proto/engine_msg.c src/proto/wire.c ;;
    conf) echo fpga_model/params/conf.c fpga_model/params/params.c fpga_model/params/host.c ;;
    site) echo src/profile/site_merge.c ;;
    config) echo src/config/config.c src/proto/wire.c ;;
    *) echo "fuzz.sh: unknown target '$1' (wire, engine_msg, conf, site, config)" >&2; return 1 ;;
  esac
}

found=0
for t in "$@"; do
  files="$src/test/fuzz/fuzz_$t.c"
  for f in $(sources "$t"); do files="$files $src/$f"; done
  # shellcheck disable=SC2086 # word splitting of the flag and file lists is meant
  "$CLANG" $cflags $files -lm -o "$work/fuzz_$t"
  mkdir -p "$work/corpus/$t"
  log=$work/fuzz_$t.log
  rm -f "$work/artifacts/$t-"*
  # New inputs go to the work corpus (first directory), never to the source tree.
  "$work/fuzz_$t" -max_total_time="$secs" -print_final_stats=1 -timeout=10 \
    -artifact_prefix="$work/artifacts/$t-" "$work/corpus/$t" "$src/test/fuzz/corpus/$t" \
    > "$log" 2>&1 || true
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
  finds=$(find "$work/artifacts" -name "$t-*" -type f | wc -l)
  inputs=$(find "$work/corpus/$t" "$src/test/fuzz/corpus/$t" -type f | wc -l)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  printf '%-10s %12s execs in %4s s  %9s execs/s  corpus %5s  findings %s\n' \
    "$t" "${execs:-?}" "${took:-<$secs}" "${rate:-?}" "$inputs" "$finds"
  if [ "$finds" -gt 0 ]; then
    found=1
    grep -E 'ERROR|invariant failed|runtime error' "$log" | head -n 3 | sed 's/^/    /'
    find "$work/artifacts" -name "$t-*" -type f | sed 's/^/    input: /'
  fi
done
exit "$found"
