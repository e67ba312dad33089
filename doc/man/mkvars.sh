#!/bin/sh
# mkvars.sh TEMPLATE VERSION COMMAND [ARGS...]
# Fill libmpifpga(7)'s template: @VERSION@, and @VARIABLES@ with one entry
# per setting that `COMMAND ARGS` (mpifpga-info -q) lists -- the settings
# table is the single source of the page's ENVIRONMENT section.
set -e
tmpl=$1 version=$2
shift 2
vars=$(env -i PATH="$PATH" "$@" | awk '
    /^MPIFPGA_/ { name = $1; d = $0; sub(/.*\(default /, "", d); sub(/\)[^)]*$/, "", d); next }
    name != "" && /^ +# / {
        t = $0; sub(/^ +# /, "", t); gsub(/\\/, "\\e", t)
        printf ".TP\n.B %s\n(default %s) %s\n", name, d == "" ? "empty" : d, t
        name = ""
    }')
[ -n "$vars" ] || { echo "mkvars.sh: '$*' listed no settings" >&2; exit 1; }
VARS=$vars VERSION=$version awk '
    { gsub(/@VERSION@/, ENVIRON["VERSION"]) }
    /^@VARIABLES@$/ { print ENVIRON["VARS"]; next }
    { print }' "$tmpl"
