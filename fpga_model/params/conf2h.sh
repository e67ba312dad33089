#!/bin/sh
# Turn a parameter file into a C header holding it as one string literal:
#   sh conf2h.sh u280.conf u280_conf > u280.conf.h
# gives  static const char u280_conf[] = "line 1\n" "line 2\n" ... "";
# One output line per input line; backslashes, double quotes and '?' (no
# trigraphs) are escaped, CRs of CRLF files dropped.  POSIX sh, tr, awk, sed.
set -eu

if [ $# -ne 2 ]; then
    echo "usage: sh conf2h.sh FILE.conf C_IDENTIFIER > FILE.conf.h" >&2
    exit 2
fi
src=$1
ident=$2

case $ident in
    '' | [0-9]* | *[!A-Za-z0-9_]*)
        echo "conf2h.sh: '$ident' is not a C identifier" >&2
        exit 2 ;;
esac
if [ ! -r "$src" ]; then
    echo "conf2h.sh: cannot read '$src'" >&2
    exit 1
fi

# Comment text: the file name with '*' made harmless so it cannot end the comment.
srcname=$(printf '%s' "$src" | sed 's,\*,_,g')

printf '/* Generated from %s by conf2h.sh; do not edit. */\n' "$srcname"
printf 'static const char %s[] =\n' "$ident"
# tr drops CRs; awk terminates an unterminated last line; sed escapes and quotes.
tr -d '\r' < "$src" | awk '{ print }' |
sed -e 's/\\/\\\\/g' \
    -e 's/"/\\"/g' \
    -e 's/?/\\?/g' \
    -e 's/^/    "/' \
    -e 's/$/\\n"/'
printf '    "";\n'
