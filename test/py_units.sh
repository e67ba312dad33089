#!/bin/sh
# Unit tests of the python package behind mpifpga-compare and
# mpifpga-compare-app (test/py/units.py), on the copy `make` puts in the
# build tree.  TAP.
top_builddir=${top_builddir:-.}
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
PYTHONDONTWRITEBYTECODE=1 exec python3 "$srcdir/test/py/units.py" "$top_builddir" "$srcdir/test/data"
