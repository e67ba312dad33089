#!/bin/sh
# `make install` into a temporary prefix gives a user what MPICH, hwloc and
# libfabric give: a man page for every installed command and libmpifpga(7)
# (found with MANPATH), pkg-config metadata that builds against the installed
# headers and library, the docs in share/doc/mpifpga; libmpifpga(7) names
# every MPIFPGA_* setting; `make uninstall` leaves no file behind.  TAP.
srcdir=${top_srcdir:-.}
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpifpga-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
prefix=$tmp/prefix

make install prefix="$prefix" > "$tmp/install.log" 2>&1
ok $? "make install prefix=$prefix ($(tail -n 1 "$tmp/install.log"))"

# the board emulator exists where configure found verilator
emu=
[ -x mpifpga-fpga-emu ] && emu=mpifpga-fpga-emu
for cmd in mpifpga-run mpifpga-sim mpifpga-switchd mpifpga-info mpifpga-osu mpifpga-compare \
           mpifpga-compare-app $emu; do
    page=$(MANPATH="$prefix/share/man" man -w "$cmd" 2>/dev/null)
    [ "$page" = "$prefix/share/man/man1/$cmd.1" ] && [ -x "$prefix/bin/$cmd" ] &&
        MANPATH="$prefix/share/man" MANWIDTH=80 man "$cmd" 2>/dev/null | grep -q "$cmd"
    ok $? "man $cmd: the installed page for the installed command (${page:-none})"
done
page=$(MANPATH="$prefix/share/man" man -w 7 libmpifpga 2>/dev/null)
[ "$page" = "$prefix/share/man/man7/libmpifpga.7" ]
ok $? "man 7 libmpifpga (${page:-none})"

# every MPIFPGA_* name the sources read (the settings table's from the same
# source as mpifpga-info; the launcher's, engine's and tools' by hand)
MANPATH="$prefix/share/man" MANWIDTH=200 man 7 libmpifpga 2>/dev/null > "$tmp/l7"
missing=""
for v in $(grep -rhoE 'MPIFPGA_[A-Z_]+' "$srcdir/src" "$srcdir/fpga_model" |
           grep -v '_H$' | sort -u); do
    grep -qE "(^|[ ,])$v(\$|[ ,])" "$tmp/l7" || missing="$missing $v"
done
[ -z "$missing" ] && [ -s "$tmp/l7" ]
ok $? "libmpifpga(7) documents every MPIFPGA_* name the sources read${missing:+ (missing:$missing)}"

libs=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --libs mpifpga 2>&1 | sed "s/ *$//")
[ "$libs" = "-L$prefix/lib -lmpifpga" ]
ok $? "pkg-config --libs mpifpga: $libs"
cflags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags mpifpga 2>&1)
printf '#include <mpifpga/wire.h>\n#include <mpifpga/engine_msg.h>\n#include <mpifpga/ct.h>\nint main(void) { return MF_PROC_HDR_BYTES == 8 ? 0 : 1; }\n' > "$tmp/t.c"
${CC:-cc} $cflags "$tmp/t.c" -o "$tmp/t" 2> "$tmp/cc.log" && "$tmp/t"
ok $? "a program builds against the installed headers with pkg-config --cflags ($cflags)"
[ -f "$prefix/lib/libmpifpga.so" ]
ok $? "libmpifpga.so installed in \$libdir"
# the installed launcher finds the installed library and engine beside it
MPIFPGA_REPORT=$tmp/r.json timeout 120 "$prefix/bin/mpifpga-run" -n 2 \
    test/mpi/coll_check --quick --colls allreduce --sizes 8 > "$tmp/run" 2>&1 &&
    grep -q '"offloaded": *[1-9]' "$tmp/r.json"
ok $? "the installed mpifpga-run runs a job with offload ($(tail -n 1 "$tmp/run"))"
if [ -n "$emu" ]; then # and the installed board emulator beside it
    MPIFPGA_REPORT=$tmp/e.json timeout 120 "$prefix/bin/mpifpga-run" --device fpga-emu -n 2 \
        test/mpi/coll_check --quick --colls allreduce --sizes 8 > "$tmp/erun" 2>&1 &&
        grep -q '"device": *"fpga"' "$tmp/e.json" && grep -q '"offloaded": *[1-9]' "$tmp/e.json"
    ok $? "the installed mpifpga-run --device fpga-emu runs a job on the RTL ($(tail -n 1 "$tmp/erun"))"
fi

# the installed comparison commands find their python package, installed in
# $pkgdatadir (found relative to the command: prefix= moved it), not the build tree's
pkg=$prefix/share/mpifpga/mpifpga_compare
[ -f "$pkg/__init__.py" ] && [ -f "$pkg/sweep.py" ] && [ -f "$pkg/app.py" ] &&
    (cd "$tmp" && "$prefix/bin/mpifpga-compare" --help) > "$tmp/ch" 2>&1 &&
    grep -q '^usage: mpifpga-compare ' "$tmp/ch" &&
    (cd "$tmp" && "$prefix/bin/mpifpga-compare-app" --no-plot --out "$tmp/ca" --from-reports \
        "$srcdir/test/data/app_profile.json" "$srcdir/test/data/app_offload.json") > "$tmp/ca.out" 2>&1 &&
    grep -q '^cg_poisson ' "$tmp/ca.out" && [ -s "$tmp/ca/app.json" ]
ok $? "the installed mpifpga-compare and mpifpga-compare-app run from $pkg ($(tail -n 1 "$tmp/ca.out"))"

[ -f "$prefix/share/doc/mpifpga/README.md" ] && [ -f "$prefix/share/doc/mpifpga/model.md" ]
ok $? "docs in share/doc/mpifpga ($(ls "$prefix/share/doc/mpifpga" 2>/dev/null | tr '\n' ' '))"

make uninstall prefix="$prefix" > "$tmp/uninstall.log" 2>&1
left=$(find "$prefix" -type f 2>/dev/null | head -n 5)
[ -z "$left" ]
ok $? "make uninstall removes every installed file${left:+ (left: $left)}"

echo "1..$n"
[ "$failed" = 0 ]
