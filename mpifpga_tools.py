"""Pieces shared by mpifpga-compare and mpifpga-compare-app (python3).

Installed in $(pkgdatadir); in the build tree `make` copies it next to the
scripts, which look there first.
"""
import os
import shutil
import subprocess


class UsageError(Exception):
    """Bad options: the script prints its usage and exits 2."""


class RunError(Exception):
    """A run or a tool failed: the script says why and exits 1."""


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
