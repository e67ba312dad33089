"""Output: compare.json, the rows of compare.csv (plus the offload and
MPICH minimum and maximum) with the run's metadata."""
import datetime
import json
import os
import socket

from .cli import PROG
from .common import fmt_cmd
from .csvout import CSV_COLUMNS


def metadata(o, plan, sweep, tools, argv, version):
    """What the runs were: tool, date, host, sizes, iterations, commands,
    elapsed seconds, the offload runs' reports."""
    cores = os.cpu_count() or 1
    mt = plan["modeled_time"]
    return {
        "tool": PROG, "version": version,
        "date": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
        "host": socket.gethostname(), "cores": cores, "ranks": o["ranks"],
        "oversubscribed": o["ranks"] > cores,
        "collectives": o["colls"],
        "topology": sweep.topology or plan["topology"] or "auto",
        "topology_requested": plan["topology"] or "auto",
        "params": plan["params"] or "u280",
        "host_params": o["host_params"] or "skx-opa",
        "min_bytes": o["min"], "max_bytes": o["max"],
        "iterations": o["iters"], "warmup": plan["warmup"],
        "mpich_iterations": o["mpich_iters"] if o["mpich"] else None,
        "mpich_warmup": plan["mpich_warmup"] if o["mpich"] else None,
        "modeled_time": mt,
        "variants": {
            "offload": "mpifpga-osu under mpifpga-run, modeled time (MPIFPGA_MODELED_TIME=%s)" % mt,
            "mpich": ("mpifpga-osu under mpifpga-run --baseline (plain MPICH, wall clock on this "
                      "machine)" if o["mpich"] else "skipped (--no-mpich)"),
            "baseline_model": "mpifpga-sim --baseline: MPICH's algorithms on the modeled fabric "
                              "with the host costs of the paper's CPU cluster",
            "offload_sim": "mpifpga-sim: the offload model without MPI processes"},
        "speedups": {"speedup_vs_mpich": "mpich_us / offload_us",
                     "speedup_vs_model": "baseline_model_us / offload_us"},
        "tools": tools,
        "command_line": fmt_cmd([PROG] + argv),
        "commands": sweep.commands,
        "elapsed_s": sweep.elapsed,
        "run_reports": sweep.reports,
        "columns": CSV_COLUMNS,
    }


def json_rows(rows):
    """The CSV columns (speedups rounded to 4 decimals) and the details."""
    jrows = []
    for r in rows:
        d = {k: r[k] for k in CSV_COLUMNS}
        d.update(r["_detail"])
        for k in ("speedup_vs_mpich", "speedup_vs_model"):
            if d[k] is not None:
                d[k] = round(d[k], 4)
        jrows.append(d)
    return jrows


def write_json(path, rows, meta):
    """Raises OSError."""
    doc = dict(meta)
    doc["results"] = json_rows(rows)
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
