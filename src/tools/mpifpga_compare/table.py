"""Output: the text tables on stdout, one per collective."""
from .cli import PROG
from .common import ftab


def table(coll, rows, meta):
    out = ["# %s: %s, %d ranks, %s, params %s" % (PROG, coll, meta["ranks"],
                                                  meta["topology"], meta["params"])]
    out.append("# %-8s %12s %12s %19s %17s %17s" % ("Size", "Offload(us)", "MPICH(us)",
                                                   "Baseline-model(us)", "Speedup-vs-MPICH",
                                                   "Speedup-vs-model"))
    for r in rows:
        out.append("%-10d %12s %12s %19s %17s %17s" % (
            r["bytes"], ftab(r["offload_us"]), ftab(r["mpich_us"]), ftab(r["baseline_model_us"]),
            ftab(r["speedup_vs_mpich"]), ftab(r["speedup_vs_model"])))
    return "\n".join(out)

