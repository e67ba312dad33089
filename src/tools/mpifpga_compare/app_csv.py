"""Output: app.csv (the application time, Table 5 of 001) and
instances.csv (per collective instance, fig. 14)."""
import csv
import io

from .common import fnum

APP_COLUMNS = ["application", "ranks", "baseline_s", "collective_s", "offload_s",
               "improvement_pct", "model_baseline_s", "model_improvement_pct"]
INST_COLUMNS = ["instance", "collective", "site", "function", "calls", "bytes_per_call",
                "datatype", "op", "comm_size", "baseline_us", "baseline_model_us",
                "offload_us", "speedup", "speedup_model", "baseline_share_pct", "offload"]


def app_csv(app):
    s = io.StringIO()
    w = csv.writer(s, lineterminator="\n")
    w.writerow(APP_COLUMNS)
    w.writerow([app["application"], "" if app["ranks"] is None else app["ranks"]] +
               [fnum(app[k], "%.6f") for k in ("baseline_s", "collective_s", "offload_s")] +
               [fnum(app["improvement_pct"], "%.3f"), fnum(app["model_baseline_s"], "%.6f"),
                fnum(app["model_improvement_pct"], "%.3f")])
    return s.getvalue()


def inst_csv(rows):
    s = io.StringIO()
    w = csv.writer(s, lineterminator="\n")
    w.writerow(INST_COLUMNS)
    for r in rows:
        w.writerow([r[k] if r[k] is not None else "" for k in INST_COLUMNS[:9]] +
                   [fnum(r[k], "%.3f") for k in ("baseline_us", "baseline_model_us",
                                                  "offload_us")] +
                   [fnum(r["speedup"], "%.4f"), fnum(r["speedup_model"], "%.4f"),
                    fnum(r["baseline_share_pct"], "%.3f"), r["offload"]])
    return s.getvalue()

