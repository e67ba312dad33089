"""Pieces shared by mpifpga-compare and mpifpga-compare-app."""
import os
import shlex
import shutil
import signal
import subprocess
import time


class UsageError(Exception):
    """Bad options: the command prints its usage and exits 2."""


class RunError(Exception):
    """A run or a tool failed: the command says why and exits 1."""


class Launch:
    """What the launcher script knows: the version and bindir `make`
    substituted into it, and its own directory (the build tree when run
    from there, else the installed bindir)."""

    def __init__(self, version, bindir, here):
        self.version = version
        self.bindir = bindir
        self.here = here

    def find_tool(self, name, envvar):
        return find_tool(name, envvar, self.here, self.bindir)


def parse_positive(opt, text):
    if not text.isdigit() or int(text) < 1:
        raise UsageError("%s: '%s' is not a positive integer" % (opt, text))
    return int(text)


def find_tool(name, envvar, here, bindir):
    """$envvar, else `name` in `here` (the calling script's directory: the
    build tree), else in bindir (unless still an @-placeholder), else PATH."""
    v = os.environ.get(envvar)
    if v:
        if os.path.isfile(v) and os.access(v, os.X_OK):
            return os.path.abspath(v)
        raise RunError("%s=%s is not an executable file" % (envvar, v))
    dirs = [here]
    if not bindir.startswith("@"):
        dirs.append(bindir)
    # realpath: mpifpga-run finds its library and engine next to itself
    for d in dirs:
        p = os.path.join(d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return os.path.realpath(p)
    p = shutil.which(name)
    if p:
        return os.path.realpath(p)
    raise RunError("cannot find %s (looked in %s and on PATH; set %s)"
                   % (name, " and ".join(dirs), envvar))


def fmt_cmd(cmd, env_extra=None):
    """A command (with the variables it adds to the environment) as one
    shell-quoted line."""
    pre = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in (env_extra or {}).items())
    return (pre + " " if pre else "") + " ".join(shlex.quote(c) for c in cmd)


def ftab(v):
    """A time or speedup in a text table: '-' for none, 2 decimals (2
    significant digits below 0.01), 1 decimal from 1000 on."""
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return "%.1f" % v
    return "%.2f" % v if v == 0 or abs(v) >= 0.01 else "%.2g" % v


def gp_quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def gnuplot_terms(gnuplot, size):
    """(terminal, extension) for PNG (pngcairo if this gnuplot has it) and
    SVG, both `size` ("900,600"; may hold a %d for the caller to fill)."""
    try:
        p = subprocess.run([gnuplot, "-e", "set terminal"], capture_output=True, text=True,
                           timeout=30, stdin=subprocess.DEVNULL)
        listing = p.stdout + p.stderr
    except (OSError, subprocess.TimeoutExpired):
        listing = ""
    names = {l.split()[0] for l in listing.splitlines() if l.strip()}
    png = ("pngcairo size %s font 'Sans,10'" % size if "pngcairo" in names
           else "png size %s" % size)
    return [(png, "png"), ("svg size %s dynamic font 'Sans,10'" % size, "svg")]


def run_gnuplot(gnuplot, outdir, script_name, script, note):
    """Write script to outdir/script_name and run gnuplot on it in outdir.
    Returns True if it worked; else says why with note() and returns False."""
    try:
        with open(os.path.join(outdir, script_name), "w") as f:
            f.write(script)
        p = subprocess.run([gnuplot, script_name], cwd=outdir, capture_output=True,
                           text=True, timeout=300, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        note("gnuplot could not run: %s" % e)
        return False
    if p.returncode != 0:
        note("gnuplot failed (exit %d); CSV and JSON are written. Its stderr:\n%s"
             % (p.returncode, "\n".join(p.stderr.splitlines()[-10:])))
        return False
    return True


def fnum(v, fmt):
    """v in fmt, or '' for none."""
    return "" if v is None else fmt % v


def wait_noting(p, what, t0, quiet_after, note):
    """Wait for process p, saying "WHAT: still running (N s)" through note
    every quiet_after seconds; on Ctrl-C stop its process group (the
    session started for it) and re-raise."""
    try:
        while True:
            try:
                p.wait(timeout=quiet_after)
                return
            except subprocess.TimeoutExpired:
                note("%s: still running (%.0f s)" % (what, time.monotonic() - t0))
    except KeyboardInterrupt:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except OSError:
            pass
        p.wait()
        raise
