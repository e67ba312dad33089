"""Output: app.json, both tables with the command, ranks, date, versions,
the report paths, the verification outcome, warnings and notes."""
import json
import socket

from .app_cli import PROG
from .app_csv import APP_COLUMNS, INST_COLUMNS
from .common import fmt_cmd

FORMULAS = {
    "collective_s": "sum of the profile run's host_us / 1e6",
    "offload_s": "baseline_s - collective_s + sum of the offload run's offload_us / 1e6",
    "improvement_pct": "(baseline_s - offload_s) / baseline_s * 100",
    "model_baseline_s": "baseline_s - collective_s + sum of the offload run's "
                        "baseline_model_us / 1e6 (offload_us for instances with no "
                        "call offloaded)",
    "model_improvement_pct": "(model_baseline_s - offload_s) / model_baseline_s * 100",
    "speedup": "baseline_us / offload_us",
    "speedup_model": "baseline_model_us / offload_us",
    "baseline_share_pct": "baseline_us / sum of baseline_us * 100"}


def rnd(v, nd):
    return None if v is None else round(v, nd)


def json_instance(r):
    """An instance row with its times rounded, and its details."""
    d = {k: r[k] for k in INST_COLUMNS}
    for k in ("baseline_us", "baseline_model_us", "offload_us"):
        d[k] = rnd(d[k], 6)
    for k in ("speedup", "speedup_model", "baseline_share_pct"):
        d[k] = rnd(d[k], 6)
    d.update(r["_detail"])
    return d


def app_doc(c, rows, app):
    """The document; c holds what the comparison was made of (see
    app.Comparison)."""
    o, prof, off = c.o, c.prof, c.off
    return {
        "tool": PROG, "version": c.version, "date": c.date, "host": socket.gethostname(),
        "command_line": fmt_cmd([PROG] + c.argv),
        "command": fmt_cmd(o["program"]) if o["program"] else None,
        "application": app["application"], "ranks": app["ranks"], "ppn": o["ppn"],
        "topology": o["topology"], "params": o["params"],
        "engine": off["engine"], "launcher": c.launcher,
        "versions": c.versions,
        "reports": {"profile": c.paths["profile"], "offload": c.paths["offload"]},
        "from_reports": bool(o["from_reports"]),
        "runs": c.runs, "verification": c.verification,
        "profile_wall_s_mean": prof["wall_s_mean"], "offload_run_wall_s": off["wall_s"],
        "app": {k: (rnd(v, 9) if k.endswith("_s") else rnd(v, 6) if k.endswith("_pct") else v)
                for k, v in app.items()},
        "instances": [json_instance(r) for r in rows],
        "warnings": c.warnings, "notes": c.notes,
        "columns": {"app": APP_COLUMNS, "instances": INST_COLUMNS},
        "formulas": FORMULAS,
    }


def write_json(path, doc):
    """Raises OSError."""
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
