"""mpifpga-compare's runs: the baseline model (mpifpga-sim), the offload
(mpifpga-osu under mpifpga-run with modeled time) and plain MPICH
(mpifpga-osu under mpifpga-run --baseline), one of each per collective."""
import json
import os
import subprocess
import sys
import threading
import time
from collections import deque

from .cli import PROG
from .common import RunError, fmt_cmd, wait_noting
from .osu import OSU_HEADER, SIM_HEADER, osu_results, parse_csv, sim_results
from .progress import PROGRESS, note


class SimRejected(Exception):
    """mpifpga-sim refused an option value (exit 2) at the first
    collective: the user's mistake, reported as a bad option."""


def run(label, cmd, env_extra=None, env_drop=(), quiet_after=20.0):
    """Run cmd; pass on the benchmark's progress lines ('# ...', printed by
    mpifpga-osu for a size that takes over 2 s), say 'still running' every
    quiet_after seconds, keep a stderr tail for the error message.
    Returns (stdout, seconds).  Raises RunError on a non-zero exit."""
    env = dict(os.environ)
    for k in env_drop:
        env.pop(k, None)
    env.update(env_extra or {})
    t0 = time.monotonic()
    note("%s: %s" % (label, fmt_cmd(cmd, env_extra)))
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, env=env, start_new_session=True)
    except OSError as e:
        raise RunError("%s: cannot run %s: %s" % (label, cmd[0], e))
    out = []
    tail = deque(maxlen=20)

    def read_out():
        out.append(p.stdout.read().decode("utf-8", "replace"))

    def read_err():
        for raw in p.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            tail.append(line)
            if line.startswith("# "):
                print("%s:   %s: %s [%.0f s]" % (PROG, label, line[2:], time.monotonic() - t0),
                      file=sys.stderr, flush=True)

    threads = [threading.Thread(target=read_out, daemon=True),
               threading.Thread(target=read_err, daemon=True)]
    for t in threads:
        t.start()
    wait_noting(p, label, t0, quiet_after, note)
    for t in threads:
        t.join()
    secs = time.monotonic() - t0
    if p.returncode != 0:
        how = ("exit %d" % p.returncode if p.returncode > 0
               else "signal %d" % -p.returncode)
        msg = "%s failed (%s after %.1f s)\n  command: %s" % (label, how, secs,
                                                              fmt_cmd(cmd, env_extra))
        if tail:
            msg += "\n  its stderr (last %d lines):\n" % len(tail)
            msg += "\n".join("    " + l for l in tail)
        else:
            msg += "\n  (no stderr output)"
        err = RunError(msg)
        err.returncode = p.returncode
        err.stderr_tail = list(tail)
        raise err
    PROGRESS["done"] += 1
    note("%s: done in %.1f s" % (label, secs))
    return "".join(out), secs


class Sweep:
    """The runs' results: per collective the model's {bytes: (offload_us,
    baseline_us)} ("sim"), the offload and MPICH runs' {bytes: {avg, min,
    max, ...}}; their commands, seconds and the offload runs' reports."""

    def __init__(self):
        self.results = {}
        self.commands = {}
        self.elapsed = {}
        self.reports = {}
        self.topology = None  # what mpifpga-sim modeled


def run_model(o, plan, tools, sweep):
    """1. The model (seconds): first, so that a bad --topology, --params or
    --host-params is reported before minutes of MPI runs."""
    for coll in o["colls"]:
        cmd = [tools["sim"], "-c", coll, "-m", plan["sizes"], "-i", str(o["iters"]),
               "--nodes", str(o["ranks"]), "--baseline", "--format", "csv"] + plan["net_opts"] + \
              (["--host-params", o["host_params"]] if o["host_params"] else [])
        label = "[%s] baseline-model" % coll
        sweep.commands.setdefault(coll, {})["baseline-model"] = fmt_cmd(cmd)
        try:
            text, secs = run(label, cmd)
        except RunError as e:
            if getattr(e, "returncode", None) == 2 and coll == o["colls"][0]:
                # mpifpga-sim: exit 2 = a bad argument (one line naming it)
                raise SimRejected("; ".join(getattr(e, "stderr_tail", [])) or str(e))
            raise
        sweep.elapsed.setdefault(coll, {})["baseline-model"] = round(secs, 3)
        sim, topology = sim_results(parse_csv(text, SIM_HEADER, label, cmd), coll)
        sweep.topology = sweep.topology or topology
        if not sim:
            raise RunError("%s printed no %s rows\n  command: %s" % (label, coll, fmt_cmd(cmd)))
        sweep.results.setdefault(coll, {})["sim"] = sim


def read_run_report(coll, rep, sweep):
    """The offload run's report: calls, offloaded, fallbacks; a warning
    when calls fell back.  A missing or unreadable report is skipped."""
    try:
        with open(rep) as f:
            rj = json.load(f)
        st = rj.get("collectives", {}).get(coll, {})
        sweep.reports[coll] = {"file": rep, "engine": rj.get("engine"), "calls": st.get("calls"),
                               "offloaded": st.get("offloaded"),
                               "fallback": {k: v for k, v in st.get("fallback", {}).items() if v}}
        calls, off = st.get("calls") or 0, st.get("offloaded") or 0
        if calls and off < calls:
            note("warning: %s: only %d of %d calls were offloaded (fallbacks: %s); "
                 "those ran in MPI on the host clock"
                 % (coll, off, calls, sweep.reports[coll]["fallback"] or "?"))
    except (OSError, ValueError):
        pass


def run_mpi(o, plan, tools, sweep):
    """2. Offload through MPI with modeled time, 3. plain MPICH."""
    outdir = o["out"]
    try:
        os.makedirs(outdir, exist_ok=True)  # the run reports go there
    except OSError as e:
        raise RunError("cannot create the output directory '%s': %s" % (outdir, e))
    ranks, mt = o["ranks"], plan["modeled_time"]
    for coll in o["colls"]:
        osu_args = [tools["osu"], "-c", coll, "-m", plan["sizes"]]
        rep = os.path.join(outdir, "report_%s.json" % coll)
        # --modeled-time would set MPIFPGA_MODELED_TIME=1, overriding cpu
        cmd = [tools["run"]] + (["--modeled-time"] if mt == "1" else []) + plan["net_opts"] + \
              ["--report", rep, "-n", str(ranks)] + osu_args + \
              ["-i", str(o["iters"]), "-x", str(plan["warmup"]), "--format", "csv"]
        env = {"MPIFPGA_MODELED_TIME": mt}
        label = "[%s] offload" % coll
        sweep.commands[coll]["offload"] = fmt_cmd(cmd, {"MPIFPGA_MODELED_TIME": mt})
        text, secs = run(label, cmd, env_extra=env)
        sweep.elapsed[coll]["offload"] = round(secs, 3)
        sweep.results[coll]["offload"] = osu_results(parse_csv(text, OSU_HEADER, label, cmd),
                                                     coll, label, cmd)
        read_run_report(coll, rep, sweep)

        if o["mpich"]:
            cmd = [tools["run"], "--baseline", "-n", str(ranks)] + osu_args + \
                  ["-i", str(o["mpich_iters"]), "-x", str(plan["mpich_warmup"]), "--format", "csv"]
            label = "[%s] mpich" % coll
            sweep.commands[coll]["mpich"] = fmt_cmd(cmd)
            text, secs = run(label, cmd, env_drop=("MPIFPGA_MODELED_TIME",))
            sweep.elapsed[coll]["mpich"] = round(secs, 3)
            sweep.results[coll]["mpich"] = osu_results(parse_csv(text, OSU_HEADER, label, cmd),
                                                       coll, label, cmd)


def run_all(o, plan, tools):
    """All the runs, model first.  Returns a Sweep; raises SimRejected,
    RunError or KeyboardInterrupt."""
    sweep = Sweep()
    run_model(o, plan, tools, sweep)
    run_mpi(o, plan, tools, sweep)
    return sweep
