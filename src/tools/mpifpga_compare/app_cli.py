"""mpifpga-compare-app's options, --help text and notes on stderr."""
import re
import sys

from .common import UsageError, parse_positive

PROG = "mpifpga-compare-app"

SYNOPSIS = """\
usage: mpifpga-compare-app [-n N] [--ppn K] [--topology T] [--params P] [--verify REGEX]
                           [--name NAME] [--out DIR] [--no-plot] -- PROGRAM [ARGS...]
       mpifpga-compare-app [--name NAME] [--out DIR] [--no-plot]
                           --from-reports PROFILE.json OFFLOAD.json"""


# "@bindir@" is replaced by the installed bindir when printed (usage()).
USAGE = SYNOPSIS + """
Compares an MPI application's run time with its collectives in MPICH on this
machine and offloaded to the modeled switch network: the whole application
(the 001 paper's Table 5) and each collective instance, i.e. call site (its
fig. 14).  Runs the program twice through mpifpga-run:
  profile  mpifpga-run --profile: plain MPICH, the time at each call site
           measured (DIR/profile.json, its output in DIR/profile.out, .err)
  offload  mpifpga-run --instances: collectives offloaded to the modeled
           switch, each call site's modeled time and the modeled time of
           MPICH's algorithms on the same fabric (DIR/offload.json, .out, .err)
  -n N            ranks (required with a PROGRAM)
  --ppn K         ranks per modeled node  \\
  --topology T    modeled topology         > passed on to both mpifpga-run runs
  --params P      switch parameter set    /
  --verify REGEX  the application's own check: REGEX (Python syntax; ^ and $
                  match at line ends) must match the output (stdout, else
                  stderr) of both runs; without it only the exit status is checked
  --name NAME     application name in the tables (default: PROGRAM's basename,
                  with --from-reports the module of most call sites)
  --out DIR       output directory (default ./compare-app)
  --no-plot       no gnuplot figure
  --from-reports PROFILE.json OFFLOAD.json
                  compute everything from the reports of earlier runs (written
                  by mpifpga-run --profile and --instances); runs nothing
  -h, --help      this text;  --version
Instances are matched between the reports by (module basename, offset,
collective); one found in only one report is listed with the other side empty
and a warning.
Application time (first table, DIR/app.csv; seconds):
  application, ranks
  baseline_s            profile run's wall time, MPI_Init to MPI_Finalize (slowest rank)
  collective_s          profile run's time in collectives: sum of host_us / 1e6
  offload_s             baseline_s - collective_s + sum of the offload run's offload_us / 1e6
  improvement_pct       (baseline_s - offload_s) / baseline_s * 100
  model_baseline_s      baseline_s - collective_s + sum of the offload run's modeled
                        MPICH time (baseline_model_us) / 1e6; an instance none of whose
                        calls was offloaded counts its host time; empty (with a note)
                        when an offloaded instance has no modeled MPICH time
  model_improvement_pct (model_baseline_s - offload_s) / model_baseline_s * 100
Collective instances (second table, DIR/instances.csv; microseconds per rank,
summed over the instance's calls; largest baseline first):
  instance              COLLECTIVE@SITE (FUNCTION); SITE is file:line, or
                        module+offset without debug information
  collective, site, function, datatype, op ('-': not a reduction), comm_size
  calls                 calls per rank;  bytes_per_call: message bytes per call
  baseline_us           profile run: time in MPICH's calls at the site
  baseline_model_us     offload run: MPICH's algorithms modeled on the same fabric
                        (offloaded calls; empty if none was modeled)
  offload_us            offload run: modeled time of the offloaded calls plus the
                        host time of calls that fell back to MPI
  speedup               baseline_us / offload_us
  speedup_model         baseline_model_us / offload_us
  baseline_share_pct    baseline_us / collective time of all instances * 100
  offload               yes: every call offloaded; fallback(REASON:N,...): none was
                        (the offload run's fallback reasons for that collective),
                        no speedup; partial(K/N): K of N calls offloaded
Writes DIR/app.csv, DIR/instances.csv, DIR/app.json (both tables with the
command, ranks, date, versions, the report paths and the verification outcome)
and with gnuplot DIR/instances.png, DIR/instances.svg (baseline, baseline-model
and offload time per instance, log scale; rerun: cd DIR && gnuplot instances.gp).
Launcher: $MPIFPGA_RUN, else mpifpga-run next to this script, else in
@bindir@, else on PATH.
Exit: 0 done; 1 a run or its verification failed, or a run's report is
unusable; 2 bad options or (--from-reports) an unreadable or invalid report."""



def usage(bindir):
    """The --help text, naming the bindir the launcher was made for."""
    return USAGE.replace("@bindir@", bindir)


def note(msg):
    print("%s: %s" % (PROG, msg), file=sys.stderr, flush=True)



def parse_args(argv, launch):
    """The options as a dict; --help and --version print and exit 0.
    Raises UsageError."""
    o = {"ranks": None, "ppn": None, "topology": None, "params": None, "verify": None,
         "name": None, "out": "compare-app", "plot": True, "from_reports": None,
         "program": []}
    with_value = {"-n", "-np", "--ppn", "--topology", "--params", "--verify", "--name", "--out"}
    run_only = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            o["program"] = argv[i + 1:]
            break
        if not a.startswith("-") or a == "-":
            o["program"] = argv[i:]  # the program; the rest is its arguments
            break
        val = None
        if a.startswith("--") and "=" in a:
            a, val = a.split("=", 1)
            if a not in with_value:
                raise UsageError("option '%s' takes no value" % a)
        elif a in with_value:
            # a regex may well start with '-'; other values may not start with '--'
            if i + 1 >= len(argv) or (a != "--verify" and argv[i + 1].startswith("--")):
                raise UsageError("option '%s' needs a value" % a)
            i += 1
            val = argv[i]
        elif a == "--from-reports":
            files = argv[i + 1:i + 3]
            if len(files) < 2 or any(f.startswith("-") or not f for f in files):
                raise UsageError("--from-reports needs two report files: PROFILE.json OFFLOAD.json")
            o["from_reports"] = files
            i += 3
            continue
        i += 1
        if a in ("-h", "--help"):
            print(usage(launch.bindir))
            sys.exit(0)
        elif a == "--version":
            print("%s (mpifpga) %s" % (PROG, launch.version))
            sys.exit(0)
        elif a in ("-n", "-np"):
            o["ranks"] = parse_positive(a, val)
            run_only.append(a)
        elif a == "--ppn":
            o["ppn"] = parse_positive(a, val)
            run_only.append(a)
        elif a in ("--topology", "--params"):
            if not val:
                raise UsageError("%s: empty value" % a)
            o[a[2:]] = val
            run_only.append(a)
        elif a == "--verify":
            if not val:
                raise UsageError("--verify: empty regular expression")
            try:
                o["verify"] = re.compile(val, re.MULTILINE)
            except re.error as e:
                raise UsageError("--verify: '%s' is not a valid regular expression (%s)" % (val, e))
            run_only.append(a)
        elif a == "--name":
            if not val:
                raise UsageError("--name: empty name")
            o["name"] = val
        elif a == "--out":
            if not val:
                raise UsageError("--out: empty directory name")
            o["out"] = val
        elif a in ("--no-plot", "--no-plots"):
            o["plot"] = False
        else:
            raise UsageError("unknown option '%s'" % a)
    if o["from_reports"]:
        if o["program"]:
            raise UsageError("--from-reports runs nothing: unexpected program '%s'" % o["program"][0])
        if run_only:
            raise UsageError("%s only applies when running a program, not with --from-reports"
                             % "/".join(sorted(set(run_only))))
    else:
        if not o["program"]:
            raise UsageError("no program to run (give -n N -- PROGRAM [ARGS...], "
                             "or --from-reports PROFILE.json OFFLOAD.json)")
        if o["ranks"] is None:
            raise UsageError("-n N is required to run '%s'" % o["program"][0])
    return o

