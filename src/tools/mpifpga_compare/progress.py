"""mpifpga-compare's notes on stderr and, on a terminal, the progress line
under them (runs done of all, elapsed time)."""
import sys
import time

from .cli import PROG

PROGRESS = {"done": 0, "total": 0, "t0": 0.0}  # runs, for the terminal's progress line


def note(msg):
    if PROGRESS["total"] and sys.stderr.isatty():
        sys.stderr.write("\r\033[K")  # the progress line gives way
    print("%s: %s" % (PROG, msg), file=sys.stderr, flush=True)
    show_progress()


def show_progress():
    """One line at the bottom of a terminal: runs done of all, elapsed time.
    Nothing when stderr is not a terminal (logs get what they always got)."""
    if not PROGRESS["total"] or not sys.stderr.isatty():
        return
    sys.stderr.write("\r\033[K%s: run %d of %d done, %.0f s" % (
        PROG, PROGRESS["done"], PROGRESS["total"], time.monotonic() - PROGRESS["t0"]))
    sys.stderr.flush()



def clear_progress():
    """The runs are over: no progress line under what follows."""
    if PROGRESS["total"] and sys.stderr.isatty():
        sys.stderr.write("\r\033[K")
    PROGRESS["total"] = 0
