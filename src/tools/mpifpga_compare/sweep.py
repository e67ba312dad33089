"""mpifpga-compare: one message-size sweep per collective, three ways, merged
into one table, CSV, JSON and gnuplot figures.

  offload         mpifpga-osu under mpifpga-run with modeled time: the
                  collectives of an unmodified MPI program offloaded to the
                  modeled switch network (latency of the modeled hardware)
  mpich           mpifpga-osu under mpifpga-run --baseline: plain MPICH
                  measured on this machine (wall clock)
  baseline-model  mpifpga-sim --baseline: MPICH's algorithms modeled on the
                  same fabric with the host costs of the paper's CPU cluster;
                  its offload column (the model without MPI processes) is
                  kept as offload-sim for reference

Exit status: 0 success, 1 a run failed (the command and its stderr tail are
printed), 2 bad options.
"""
import os
import sys
import time

from .cli import PROG, parse_args, usage
from .common import RunError, UsageError
from .csvout import csv_text
from .jsonout import metadata, write_json
from .plot import make_plots
from .progress import PROGRESS, clear_progress, note
from .runs import SimRejected, run_all
from .table import table


def run_app_mode(argv, launch):
    """--app: the application comparison is mpifpga-compare-app's job."""
    try:
        tool = launch.find_tool("mpifpga-compare-app", "MPIFPGA_COMPARE_APP")
    except RunError as e:
        note(str(e))
        return 1
    os.execv(tool, [tool] + argv)


def plan_runs(o):
    """What every run shares: modeled time, topology, parameters, sizes,
    warm-up calls."""
    # A micro-benchmark computes nothing between its calls: its figures are
    # the model's alone, the same on any number of cores
    # (doc/architecture.md, "Modeled time").
    note("offload runs with MPIFPGA_MODELED_TIME=none: modeled time only, "
         "as mpifpga-sim --loop osu predicts")
    # mpifpga-run's MPIFPGA_TOPOLOGY/MPIFPGA_PARAMS defaults would otherwise
    # differ from mpifpga-sim's: pass the same values to both explicitly.
    topology = o["topology"] or (os.environ.get("MPIFPGA_TOPOLOGY")
                                 if os.environ.get("MPIFPGA_TOPOLOGY", "auto") != "auto" else None)
    params = o["params"] or os.environ.get("MPIFPGA_PARAMS") or None
    return {"modeled_time": "none", "topology": topology, "params": params,
            "net_opts": (["--topology", topology] if topology else []) +
                        (["--params", params] if params else []),
            "sizes": "%d:%d" % (o["min"], o["max"]),
            "warmup": max(1, min(10, o["iters"] // 5)),
            "mpich_warmup": max(1, min(10, o["mpich_iters"] // 5))}


def merge_rows(o, results):
    """One row per (collective, bytes): the three ways and both speedups."""
    rows = []
    for coll in o["colls"]:
        R = results[coll]
        off, mp, sim = R.get("offload", {}), R.get("mpich", {}), R.get("sim", {})
        for b in sorted(set(off) | set(mp) | set(sim)):
            r = {"collective": coll, "ranks": o["ranks"], "bytes": b,
                 "offload_us": off[b]["avg"] if b in off else None,
                 "mpich_us": mp[b]["avg"] if b in mp else None,
                 "baseline_model_us": sim[b][1] if b in sim else None,
                 "offload_sim_us": sim[b][0] if b in sim else None}
            o_us = r["offload_us"]
            ok = o_us is not None and o_us > 0
            r["speedup_vs_mpich"] = r["mpich_us"] / o_us if ok and r["mpich_us"] is not None else None
            r["speedup_vs_model"] = (r["baseline_model_us"] / o_us
                                     if ok and r["baseline_model_us"] is not None else None)
            r["_detail"] = {
                "offload_min_us": off[b]["min"] if b in off else None,
                "offload_max_us": off[b]["max"] if b in off else None,
                "mpich_min_us": mp[b]["min"] if b in mp else None,
                "mpich_max_us": mp[b]["max"] if b in mp else None}
            rows.append(r)
    return rows


def write_files(outdir, rows, meta):
    """compare.csv and compare.json; False (said) if they cannot be written."""
    try:
        with open(os.path.join(outdir, "compare.csv"), "w") as f:
            f.write(csv_text(rows))
        write_json(os.path.join(outdir, "compare.json"), rows, meta)
    except OSError as e:
        note("cannot write into '%s': %s" % (outdir, e))
        return False
    return True


def print_results(o, rows, meta, plots, t_start):
    """The tables (or the CSV or JSON) on stdout, then where the files are."""
    clear_progress()
    outdir = o["out"]
    if o["format"] == "csv":
        sys.stdout.write(csv_text(rows))
    elif o["format"] == "json":
        with open(os.path.join(outdir, "compare.json")) as f:
            sys.stdout.write(f.read())
    else:
        print("\n\n".join(table(c, [r for r in rows if r["collective"] == c], meta)
                          for c in o["colls"]))
    where = ["%s: wrote %s" % (PROG, os.path.join(outdir, "compare.csv")),
             "%s: wrote %s" % (PROG, os.path.join(outdir, "compare.json"))]
    if plots:
        where.append("%s: plots in %s: %s (script plots.gp)" % (PROG, outdir, " ".join(plots)))
    where.append("%s: total %.1f s" % (PROG, time.monotonic() - t_start))
    print("\n".join(where), file=sys.stdout if o["format"] == "table" else sys.stderr)
    sys.stdout.flush()


def main(argv, launch):
    if argv[:1] == ["--app"]:
        return run_app_mode(argv[1:], launch)
    try:
        o = parse_args(argv, launch)
    except UsageError as e:
        note(str(e))
        print(usage(launch.bindir), file=sys.stderr)
        return 2

    try:
        tools = {"sim": launch.find_tool("mpifpga-sim", "MPIFPGA_SIM"),
                 "run": launch.find_tool("mpifpga-run", "MPIFPGA_RUN"),
                 "osu": launch.find_tool("mpifpga-osu", "MPIFPGA_OSU")}
    except RunError as e:
        note(str(e))
        return 1

    plan = plan_runs(o)
    t_start = time.monotonic()
    PROGRESS.update(done=0, t0=t_start,
                    total=len(o["colls"]) * (3 if o["mpich"] else 2))
    try:
        sweep = run_all(o, plan, tools)
    except SimRejected as e:
        note("bad option value (mpifpga-sim says: %s)" % e)
        print(usage(launch.bindir), file=sys.stderr)
        return 2
    except RunError as e:
        note(str(e))
        return 1
    except KeyboardInterrupt:
        note("interrupted")
        return 130

    rows = merge_rows(o, sweep.results)
    meta = metadata(o, plan, sweep, tools, argv, launch.version)
    if not write_files(o["out"], rows, meta):
        return 1
    ok, plots = make_plots(o, rows, meta, note)
    if not ok:
        return 1
    print_results(o, rows, meta, plots, t_start)
    return 0


def command_main(argv, launch):
    """The mpifpga-compare command: main; a closed stdout exits 1."""
    try:
        return main(argv, launch)
    except BrokenPipeError:
        return 1
