"""mpifpga-compare's options and --help text."""
import sys

from .common import UsageError, parse_positive
from .csvout import CSV_COLUMNS

PROG = "mpifpga-compare"

COLLECTIVES = ["allreduce", "reduce", "bcast", "scatter", "gather", "allgather",
               "reduce_scatter", "alltoall", "barrier"]
ALLTOALL_MAX_RANKS = 32  # the switch tells sources apart by a 5-bit tag

# "@bindir@" is replaced by the installed bindir when printed (usage()).
USAGE = """\
usage: mpifpga-compare [-c COLL[,COLL...]|all] [-n N] [-m [MIN:]MAX] [-i ITERS]
                       [--mpich-iters K] [--topology T] [--params P] [--host-params H]
                       [--out DIR] [--format table|csv|json] [--no-plots] [--no-mpich] [-h]
Sweeps message sizes for each collective at N ranks three ways and compares:
  offload         mpifpga-osu under mpifpga-run, collectives offloaded to the
                  modeled switch network, modeled time (MPIFPGA_MODELED_TIME)
  mpich           mpifpga-osu under mpifpga-run --baseline: plain MPICH on this machine
  baseline-model  mpifpga-sim --baseline: MPICH's algorithms on the same modeled
                  fabric with the paper's CPU-cluster host costs (its offload
                  column is kept as offload-sim)
  -c COLL         allreduce reduce bcast scatter gather allgather reduce_scatter
                  alltoall (at most 32 ranks) barrier, a comma-separated list, or
                  all (default allreduce; all leaves alltoall out above 32 ranks)
  -n N            ranks / modeled nodes (default 8)
  -m [MIN:]MAX    message sizes in bytes, doubling; K, M, G suffixes (x1024)
                  (default 8:1M; MIN defaults to 8)
  -i ITERS        timed calls per size for offload and the model (default 10)
  --mpich-iters K timed calls per size for MPICH (default 10; MPICH busy-polls,
                  so with more ranks than cores each call takes milliseconds)
  --topology T    torus, torus:XxYxZ, fattree:R[:O] (default: fitted to N)
  --params P      switch parameter set: u280, novog or a file (default u280)
  --host-params H host cost set of the baseline model: skx-opa or a file
  --out DIR       output directory (default ./mpifpga-compare-out)
  --format F      what goes to stdout: table (default), csv or json
  --no-plots      no gnuplot figures
  --no-mpich      skip the plain-MPICH runs (mpich columns left empty)
  -h, --help      this text;  --version
  --app ...       compare an application instead (Table 5 / fig. 14 of 001):
                  mpifpga-compare --app [OPTIONS] -n N -- PROGRAM [ARGS];
                  see mpifpga-compare-app --help and doc/applications.md
Writes DIR/compare.csv (columns: %s),
DIR/compare.json (the same rows plus the run's metadata), DIR/report_COLL.json
(mpifpga-run's report of the offload run: calls offloaded, fallbacks) and with
gnuplot DIR/latency_COLL.png/.svg, DIR/speedup.png/.svg and DIR/plots.gp
(rerun with 'cd DIR && gnuplot plots.gp').  Tools: $MPIFPGA_RUN, $MPIFPGA_SIM,
$MPIFPGA_OSU, else next to this script, else @bindir@, else PATH.
Exit: 0 done, 1 a run failed, 2 bad options.""" % ",".join(CSV_COLUMNS)


def usage(bindir):
    """The --help text, naming the bindir the launcher was made for."""
    return USAGE.replace("@bindir@", bindir)


def parse_size(text, what):
    t = text.strip()
    mult = 1
    if t[-1:].upper() in ("K", "M", "G"):
        mult = 1024 ** ("KMG".index(t[-1].upper()) + 1)
        t = t[:-1]
    if not t.isdigit():
        raise UsageError("-m: '%s' is not a %s size in bytes" % (text, what))
    v = int(t) * mult
    if v < 1:
        raise UsageError("-m: the %s size must be at least 1 byte" % what)
    return v


def parse_args(argv, launch):
    """The options as a dict; --help and --version print and exit 0.
    Raises UsageError."""
    o = {"colls": ["allreduce"], "ranks": 8, "min": 8, "max": 1024 * 1024,
         "iters": 10, "mpich_iters": 10, "topology": None, "params": None,
         "host_params": None, "out": "mpifpga-compare-out", "format": "table",
         "plots": True, "mpich": True}
    with_value = {"-c", "--coll", "-n", "-np", "-m", "--message-size", "-i",
                  "--iterations", "--mpich-iters", "--topology", "--params",
                  "--host-params", "--out", "--format"}
    i = 0
    while i < len(argv):
        a = argv[i]
        val = None
        if a.startswith("--") and "=" in a:
            a, val = a.split("=", 1)
            if a not in with_value:
                raise UsageError("option '%s' takes no value" % a)
        elif a in with_value:
            if i + 1 >= len(argv) or argv[i + 1].startswith("--"):
                raise UsageError("option '%s' needs a value" % a)
            i += 1
            val = argv[i]
        i += 1
        if a in ("-h", "--help"):
            print(usage(launch.bindir))
            sys.exit(0)
        elif a == "--version":
            print("%s (mpifpga) %s" % (PROG, launch.version))
            sys.exit(0)
        elif a in ("-c", "--coll"):
            if val == "all":
                o["colls"] = list(COLLECTIVES)
                o["colls_all"] = True
                continue
            o["colls_all"] = False
            colls = []
            for c in val.split(","):
                if c not in COLLECTIVES:
                    raise UsageError("-c: unknown collective '%s' (one of %s, or all)"
                                     % (c, " ".join(COLLECTIVES)))
                if c not in colls:
                    colls.append(c)
            o["colls"] = colls
        elif a in ("-n", "-np"):
            o["ranks"] = parse_positive(a, val)
        elif a in ("-m", "--message-size"):
            if ":" in val:
                lo, hi = val.split(":", 1)
                o["min"] = parse_size(lo, "minimum")
                o["max"] = parse_size(hi, "maximum")
            else:
                o["max"] = parse_size(val, "maximum")
                o["min"] = min(8, o["max"])
            if o["min"] > o["max"]:
                raise UsageError("-m: minimum %d is larger than maximum %d" % (o["min"], o["max"]))
        elif a in ("-i", "--iterations"):
            o["iters"] = parse_positive(a, val)
        elif a == "--mpich-iters":
            o["mpich_iters"] = parse_positive(a, val)
        elif a in ("--topology", "--params", "--host-params"):
            if not val:
                raise UsageError("%s: empty value" % a)
            o[a[2:].replace("-", "_")] = val
        elif a == "--out":
            if not val:
                raise UsageError("--out: empty directory name")
            o["out"] = val
        elif a == "--format":
            if val not in ("table", "csv", "json"):
                raise UsageError("--format: '%s' is not table, csv or json" % val)
            o["format"] = val
        elif a == "--no-plots":
            o["plots"] = False
        elif a == "--no-mpich":
            o["mpich"] = False
        else:
            raise UsageError("unknown option '%s'" % a if a.startswith("-")
                             else "unexpected argument '%s'" % a)
    if "alltoall" in o["colls"] and o["ranks"] > ALLTOALL_MAX_RANKS:
        if not o.get("colls_all"):
            raise UsageError("-c alltoall: at most %d ranks (the switch tells sources apart "
                             "by a 5-bit tag); got -n %d" % (ALLTOALL_MAX_RANKS, o["ranks"]))
        o["colls"].remove("alltoall")
    return o

