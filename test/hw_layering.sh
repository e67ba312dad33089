#!/bin/sh
# The hardware model as connected blocks (doc/model.md, "Blocks and
# ports"): no hw block includes switch.h or another block's header, no
# block calls another block's function, every hw/*.c belongs to a block,
# and fpga_model has no include circle -- then each kind of violation is
# planted in a copy of the tree and must be caught.  TAP.
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
PYTHONDONTWRITEBYTECODE=1 exec python3 "$srcdir/test/py/hw_layering.py" "$srcdir/fpga_model"
