#!/bin/sh
# mkman.sh NAME SUMMARY VERSION COMMAND [ARGS...]
# Write a man page (section 1) for NAME on stdout from what `COMMAND ARGS`
# prints (its --help): the help text is the page's single source, so the
# page cannot drift from it.  Fails if the command fails or prints nothing.
set -e
name=$1 summary=$2 version=$3
shift 3
help=$("$@" 2>&1) || {
  rc=$?
  echo "mkman.sh: '$*' failed (exit $rc); it printed:" >&2
  printf '%s\n' "$help" | head -n 40 >&2
  exit 1
}
[ -n "$help" ] || { echo "mkman.sh: '$*' printed nothing" >&2; exit 1; }
upper=$(printf '%s' "$name" | tr '[:lower:]' '[:upper:]')
# troff: backslashes escaped, lines starting with . or ' protected
body=$(printf '%s\n' "$help" | sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/")
cat <<MAN
.TH $upper 1 "" "mpifpga $version" "MPI-FPGA"
.SH NAME
$name \\- $summary
.SH DESCRIPTION
The text below is what
.B $name --help
prints.
.PP
.nf
$body
.fi
.SH SEE ALSO
.BR libmpifpga (7),
.BR mpifpga-run (1),
.BR mpifpga-sim (1),
.BR mpifpga-info (1);
the documentation in share/doc/mpifpga (README.md, doc/*.md).
MAN
