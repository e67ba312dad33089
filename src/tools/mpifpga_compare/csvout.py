"""Output: compare.csv (and stdout with --format csv)."""
import csv
import io

CSV_COLUMNS = ["collective", "ranks", "bytes", "offload_us", "mpich_us",
               "baseline_model_us", "offload_sim_us", "speedup_vs_mpich",
               "speedup_vs_model"]


def f3(v):
    return "" if v is None else "%.3f" % v



def csv_text(rows):
    s = io.StringIO()
    w = csv.writer(s, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in rows:
        w.writerow([r["collective"], r["ranks"], r["bytes"]] +
                   [f3(r[k]) for k in CSV_COLUMNS[3:7]] +
                   ["" if r[k] is None else "%.4f" % r[k] for k in CSV_COLUMNS[7:]])
    return s.getvalue()

