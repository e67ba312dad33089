#!/bin/sh
# Summarises Yosys's `stat` after synth_xilinx (rtl/rtl.am, make synth):
# the whole design's LUT / FF / DSP / BRAM / URAM / LUTRAM / carry / wide-mux
# counts, then each module's cells per instance and its instance count.
#   synth_summary.sh TOP DATA_BYTES stat.txt
set -eu
if [ $# -ne 3 ] || [ ! -s "$3" ]; then
    echo "usage: synth_summary.sh TOP DATA_BYTES yosys-stat-output (missing or empty: $*)" >&2
    exit 2
fi
awk -v top="$1" -v bytes="$2" '
    function flush() {
        if (mod == "") return
        order[++nmods] = mod
        lut[mod] = l; ff[mod] = f; dsp[mod] = d; bram[mod] = b; carry[mod] = c; mux[mod] = m
        uram[mod] = u; lutram[mod] = r
    }
    function bin2dec(s,    v, i) {
        v = 0
        for (i = 1; i <= length(s); i++) v = 2 * v + substr(s, i, 1)
        return v
    }
    # $paramod\mf_aglu_int\N=s32(quote)00..01000 -> mf_aglu_int N=8
    function pretty(name,    p) {
        sub(/^\$paramod\$[0-9a-f]+\\/, "", name); sub(/^\$paramod\\/, "", name)
        if (match(name, /\\[A-Z_]+=s32.[01]+/)) {
            p = substr(name, RSTART + 1, RLENGTH - 1)
            split(p, kv, "=s32\047")
            name = substr(name, 1, RSTART - 1) " " kv[1] "=" bin2dec(kv[2])
        }
        return name
    }
    /^=== / {
        flush()
        mod = $2; l = f = d = b = u = r = c = m = 0
        if (mod == "design") { hier = 1; mod = "" }
        next
    }
    # the hierarchy tree: 2 more spaces of indentation per level; a
    # module has its count times the parent count
    hier && NF == 2 && $2 ~ /^[0-9]+$/ && $1 !~ /^(BUFG|IBUF|OBUF|INV|FD|LUT|DSP|CARRY|MUXF|RAMB)/ {
        depth = (match($0, /[^ ]/) - 4) / 2
        times[depth] = $2 * (depth > 0 ? times[depth - 1] : 1)
        inst[$1] += times[depth]
        next
    }
    $1 ~ /^LUT[1-6]$/ { l += $2; if (hier) L += $2 }
    $1 ~ /^FD[RSCP]E$/ { f += $2; if (hier) F += $2 }
    $1 ~ /^DSP48E2$/ { d += $2; if (hier) D += $2 }
    $1 ~ /^RAMB(18|36)E2$/ { b += $2; if (hier) B += $2 }
    $1 ~ /^URAM288$/ { u += $2; if (hier) U += $2 }
    $1 ~ /^RAM(32|64|128|256|512)[MXS]/ { r += $2; if (hier) R += $2 }
    $1 ~ /^CARRY[48]$/ { c += $2; if (hier) C += $2 }
    $1 ~ /^MUXF[789]$/ { m += $2; if (hier) M += $2 }
    END {
        if (!hier) { # one module, no hierarchy section: its counts are the whole design
            flush(); k = order[nmods]
            L = lut[k]; F = ff[k]; D = dsp[k]; B = bram[k]; U = uram[k]; R = lutram[k]
            C = carry[k]; M = mux[k]
        }
        printf "# synth_xilinx -family xcup: %s, %d-byte (%d-bit) datapath\n", top, bytes, 8 * bytes
        # 001 Table 3, Direct design: the whole switch (router, DMA,
        # transceivers, FIFOs, CCM, 6 CGRs with 144 64-bit AgLUs), Vivado
        # on the U280; for scale only (doc/rtl.md)
        printf "%-8s %9s %14s\n", "resource", "count", "001 Table 3"
        printf "%-8s %9d %14d\n%-8s %9d %14d\n%-8s %9d %14d\n%-8s %9d %14d\n",
               "LUT", L, 401852, "FF", F, 448117, "DSP", D, 1441, "BRAM", B, 454
        printf "%-8s %9d %14s\n%-8s %9d %14s\n%-8s %9d %14s\n%-8s %9d %14s\n",
               "URAM", U, "-", "LUTRAM", R, "-", "CARRY", C, "-", "MUXF7-9", M, "-"
        printf "# per module instance (LUT FF DSP CARRY MUXF), instances\n"
        for (i = 1; i <= nmods; i++) {
            k = order[i]
            printf "#   %-34s %6d %5d %3d %5d %6d  x%d\n", pretty(k), lut[k], ff[k], dsp[k],
                   carry[k], mux[k], (k in inst) ? inst[k] : 1
        }
        if (L == 0) { print "synth_summary.sh: no LUT in the stat output" > "/dev/stderr"; exit 1 }
    }' "$3"
