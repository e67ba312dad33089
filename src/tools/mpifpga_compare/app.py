"""mpifpga-compare-app: an MPI application's run time with its collectives
on the host (MPICH) and offloaded to the modeled switch network, the whole
application (the 001 paper's Table 5) and per collective instance (its
fig. 14), from two runs through mpifpga-run (app_runs) or, with
--from-reports, from the two reports of earlier runs.  An instance is a
collective call site, matched between the reports by (basename of the
module, offset in it, collective); the columns are described in --help.

Exit status: 0 success, 1 a run or its verification failed or a run's report
is unusable (the command and its stderr tail are printed), 2 bad options or,
with --from-reports, an unreadable or invalid report.
"""
import datetime
import os
import platform
import sys
import time
from collections import Counter

from .app_cli import PROG, SYNOPSIS, note, parse_args
from .app_csv import app_csv, inst_csv
from .app_json import app_doc, write_json
from .app_match import compare
from .app_plot import make_plot
from .app_runs import run_both, run_environment, tool_version
from .app_table import app_table, inst_table
from .common import RunError, UsageError
from .reports import DataError, load_report


class Comparison:
    """What a comparison is made of: the options, the reports (and the runs
    that wrote them), versions, warnings and notes."""

    def __init__(self, o, argv, version):
        self.o = o
        self.argv = argv
        self.version = version
        self.versions = {PROG: version, "python": platform.python_version()}
        self.runs = {}
        self.verification = None
        self.launcher = None
        self.paths = {}
        self.prof = self.off = None
        self.warnings, self.notes = [], []
        self.shown = 0  # warnings already on stderr
        self.date = None


def make_outdir(outdir):
    """False (said) if the output directory cannot be created."""
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as e:
        note("cannot create the output directory '%s': %s" % (outdir, e))
        return False
    return True


def from_reports(c):
    """--from-reports: load the two reports.  Returns an exit status."""
    paths = {"profile": c.o["from_reports"][0], "offload": c.o["from_reports"][1]}
    try:
        c.prof = load_report(paths["profile"], "profile")
        c.off = load_report(paths["offload"], "offload")
    except DataError as e:
        note(str(e))
        return 2
    note("computing from existing reports (nothing is run): %s, %s"
         % (paths["profile"], paths["offload"]))
    c.paths = paths
    c.verification = {"checked": "nothing (--from-reports: no run)"}
    return 0 if make_outdir(c.o["out"]) else 1


def from_runs(c, launch):
    """Run the program twice through mpifpga-run.  Returns an exit status."""
    o = c.o
    try:
        c.launcher = launch.find_tool("mpifpga-run", "MPIFPGA_RUN")
    except RunError as e:
        note(str(e))
        return 1
    c.versions["mpifpga-run"] = tool_version([c.launcher, "--version"])
    ranks = o["ranks"]
    cores = os.cpu_count() or 1
    if ranks > cores * (o["ppn"] or 1) and ranks > cores:
        # said now, before the long runs, and kept for app.json
        c.warnings.append("%d ranks on %d cores: MPICH busy-polls, so the profile run's "
                          "collective times are inflated by oversubscription"
                          % (ranks, cores))
        note("warning: " + c.warnings[-1])
        c.shown = len(c.warnings)
    env = run_environment()
    if not make_outdir(o["out"]):
        return 1
    c.verification = {"regex": o["verify"].pattern if o["verify"] else None}
    try:
        c.prof, c.off, c.paths = run_both(o, c.launcher, env, c.runs, c.verification)
    except RunError as e:
        note(str(e))
        return 1
    except KeyboardInterrupt:
        note("interrupted")
        return 130
    return 0


def app_name(c):
    """--name, else the program's basename, else the module of most call
    sites, else the profile report's name."""
    o = c.o
    name = o["name"]
    if not name and o["program"]:
        name = os.path.basename(o["program"][0])
    if not name:
        mods = Counter(os.path.basename(r["module"])
                       for r in c.prof["instances"] + c.off["instances"] if r["module"])
        name = mods.most_common(1)[0][0] if mods else \
            os.path.splitext(os.path.basename(c.paths["profile"]))[0]
    return name


def compare_reports(c):
    """The instance rows and the application row, warnings said."""
    o, prof, off, warnings = c.o, c.prof, c.off, c.warnings
    if prof["nranks"] is not None and off["nranks"] is not None and prof["nranks"] != off["nranks"]:
        warnings.append("the profile report has %d ranks, the offload report %d"
                        % (prof["nranks"], off["nranks"]))
    if not o["from_reports"] and prof["nranks"] is not None and prof["nranks"] != o["ranks"]:
        warnings.append("-n %d, but the profile report says %d ranks" % (o["ranks"], prof["nranks"]))

    rows, app = compare(prof, off, warnings, c.notes)
    if app["ranks"] is None:
        app["ranks"] = o["ranks"] if o["ranks"] else off["nranks"]
    app = dict([("application", app_name(c))] + list(app.items()))
    for w in warnings[c.shown:]:
        note("warning: " + w)
    for n_ in c.notes:
        note("note: " + n_)
    return rows, app


def write_files(c, rows, app):
    """app.csv, instances.csv, app.json; False (said) if they cannot be written."""
    outdir = c.o["out"]
    c.date = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    for label, rep in (("profile", c.prof), ("offload", c.off)):
        if rep.get("version"):
            c.versions["libmpifpga (%s report)" % label] = rep["version"]
    doc = app_doc(c, rows, app)
    try:
        with open(os.path.join(outdir, "app.csv"), "w") as f:
            f.write(app_csv(app))
        with open(os.path.join(outdir, "instances.csv"), "w") as f:
            f.write(inst_csv(rows))
        write_json(os.path.join(outdir, "app.json"), doc)
    except OSError as e:
        note("cannot write into '%s': %s" % (outdir, e))
        return False
    return True


def print_results(c, rows, app, plots, t_start):
    """Both tables on stdout, then where the files are."""
    outdir = c.o["out"]
    print(app_table(app))
    print()
    print(inst_table(rows, app))
    print()
    for f in ("app.csv", "instances.csv", "app.json"):
        print("%s: wrote %s" % (PROG, os.path.join(outdir, f)))
    if plots:
        print("%s: plot in %s: %s (script instances.gp)" % (PROG, outdir, " ".join(plots)))
    if c.warnings:
        print("%s: %d warning%s (on stderr and in app.json)"
              % (PROG, len(c.warnings), "" if len(c.warnings) == 1 else "s"))
    print("%s: total %.1f s" % (PROG, time.monotonic() - t_start))
    sys.stdout.flush()


def main(argv, launch):
    try:
        o = parse_args(argv, launch)
    except UsageError as e:
        note(str(e))
        print(SYNOPSIS + "\n(%s --help: the options and the columns)" % PROG, file=sys.stderr)
        return 2

    t_start = time.monotonic()
    c = Comparison(o, argv, launch.version)
    rc = from_reports(c) if o["from_reports"] else from_runs(c, launch)
    if rc:
        return rc
    rows, app = compare_reports(c)
    if not write_files(c, rows, app):
        return 1
    plots = []
    if not o["plot"]:
        note("plot skipped (--no-plot)")
    else:
        ok, plots = make_plot(o["out"], rows, app, c.date, note)
        if not ok:
            return 1
    print_results(c, rows, app, plots, t_start)
    return 0


def command_main(argv, launch):
    """The mpifpga-compare-app command: main; a closed stdout exits 1, ^C 130."""
    try:
        return main(argv, launch)
    except BrokenPipeError:
        return 1
    except KeyboardInterrupt:
        note("interrupted")
        return 130
