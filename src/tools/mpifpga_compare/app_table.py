"""Output: the two text tables on stdout, the application time (Table 5
of 001) and the collective instances (fig. 14)."""
from .app_cli import PROG
from .common import fnum, ftab


def fs(v):
    if v is None:
        return "-"
    return "%.3f" % v if v == 0 or abs(v) >= 0.1 else "%.3g" % v



def app_table(app):
    w = max(len("Application") + 2, len(app["application"]))
    out = ["# %s: application time (Table 5): %s, %s ranks"
           % (PROG, app["application"], app["ranks"] if app["ranks"] is not None else "?"),
           "# %-*s %5s %12s %15s %11s %15s %18s %21s"
           % (w - 2, "Application", "Ranks", "Baseline(s)", "Collectives(s)", "Offload(s)",
              "Improvement(%)", "Model-baseline(s)", "Model-improvement(%)"),
           "%-*s %5s %12s %15s %11s %15s %18s %21s"
           % (w, app["application"], app["ranks"] if app["ranks"] is not None else "-",
              fs(app["baseline_s"]), fs(app["collective_s"]), fs(app["offload_s"]),
              fnum(app["improvement_pct"], "%.2f") or "-", fs(app["model_baseline_s"]),
              fnum(app["model_improvement_pct"], "%.2f") or "-")]
    return "\n".join(out)


def inst_table(rows, app):
    w = max([len("Instance") + 2] + [len(r["instance"]) for r in rows])
    out = ["# %s: collective instances (fig. 14), largest baseline first; us per rank, "
           "summed over the calls" % PROG,
           "# %-*s %8s %9s %13s %19s %12s %-10s %8s %14s %9s"
           % (w - 2, "Instance", "Calls", "Bytes", "Baseline(us)", "Baseline-model(us)",
              "Offload(us)", "Offloaded", "Speedup", "Speedup-model", "Share(%)")]
    for r in rows:
        out.append("%-*s %8s %9s %13s %19s %12s %-10s %8s %14s %9s" % (
            w, r["instance"], "-" if r["calls"] is None else r["calls"],
            "-" if r["bytes_per_call"] is None else r["bytes_per_call"],
            ftab(r["baseline_us"]), ftab(r["baseline_model_us"]), ftab(r["offload_us"]),
            r["offload"],
            fnum(r["speedup"], "%.2f") or "-", fnum(r["speedup_model"], "%.2f") or "-",
            fnum(r["baseline_share_pct"], "%.2f") or "-"))
    if not rows:
        out.append("(no collective instances in the reports)")
    return "\n".join(out)

