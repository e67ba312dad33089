#!/bin/sh
# The model's figures as recorded: every mpifpga-sim run listed in
# test/data/sim_golden.txt (a "## ARGS" line, then what `mpifpga-sim ARGS
# --format csv` printed) prints exactly that again.  Work on the model's
# speed (load hints, memory layout, wake-ups skipped) must not move a
# figure; this catches one that does, on any thread count (the engine's
# default here; sim_threads.sh compares thread counts).  Traffic runs drop
# their last column (router-cycles per second: wall time).
#
# A change meant to move figures regenerates the file and says in its
# commit which figures moved and why:
#     test/sim_golden.sh --update      # in the source tree, after make
# (a build elsewhere: MPIFPGA_SIM=BUILD/mpifpga-sim top_srcdir=SRC)
# TAP.
SIM=${MPIFPGA_SIM:-./mpifpga-sim}
GOLD=${top_srcdir:-.}/test/data/sim_golden.txt
n=0
fails=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# What mpifpga-sim ARGS prints, as recorded.
run() {
    # shellcheck disable=SC2086
    timeout 300 "$SIM" $1 --format csv > "$tmp/raw" 2>&1
    echo "exit $?" >> "$tmp/raw"
    case "$1" in
        --traffic*) sed '/^exit /!s/,[^,]*$//' "$tmp/raw" ;;
        *) cat "$tmp/raw" ;;
    esac
}

if [ "$1" = "--update" ]; then
    grep '^## ' "$GOLD" | sed 's/^## //' > "$tmp/args"
    while read -r args; do
        echo "## $args"
        run "$args"
    done < "$tmp/args" > "$tmp/new"
    mv "$tmp/new" "$GOLD"
    echo "sim_golden.sh: rewrote $GOLD ($(grep -c '^## ' "$GOLD") runs); git diff shows what moved"
    exit 0
fi

if [ ! -r "$GOLD" ]; then
    echo "1..0 # $GOLD is missing"
    exit 1
fi
# split the file into one expected block per run
awk -v dir="$tmp" '/^## /{i++; sub(/^## /, ""); print > (dir "/args." i); next}
                   {print > (dir "/want." i)}' "$GOLD"
i=1
while [ -r "$tmp/args.$i" ]; do
    args=$(cat "$tmp/args.$i")
    run "$args" > "$tmp/got.$i"
    if cmp -s "$tmp/want.$i" "$tmp/got.$i"; then
        ok 0 "figures as recorded: $args"
    else
        ok 1 "figures as recorded: $args"
        diff "$tmp/want.$i" "$tmp/got.$i" | head -8 | sed 's/^/#   /'
        echo "#   (intended? test/sim_golden.sh --update, and say why in the commit)"
    fi
    i=$((i + 1))
done
[ "$n" -ge 20 ]
ok $? "the file holds the runs ($n)"
echo "1..$n"
[ "$fails" = 0 ]
