"""Output: instances.gp, a self-contained gnuplot script (the data as a
datablock), and the figure it writes, instances.png and .svg: the
baseline, baseline-model and offload time per instance, log scale."""
import math
import shutil

from .app_cli import PROG
from .common import gnuplot_terms, gp_quote, run_gnuplot

SERIES = [  # (key in an instance row, legend)
    ("baseline_us", "baseline: MPICH on this machine (profile run)"),
    ("baseline_model_us", "baseline-model: MPICH algorithms, modeled fabric"),
    ("offload_us", "offload: modeled switch"),
]
PLOT_MAX = 30  # instances in the figure (the largest by baseline time)


def plot_script(rows, app, date, terms):
    """A self-contained gnuplot script (data as a datablock): a clustered bar
    chart of the baseline, baseline-model and offload time per instance, log y.
    Returns (script, n instances plotted) or (None, 0) if nothing to plot."""
    pos = lambda v: v is not None and v > 0
    rows = [r for r in rows if any(pos(r[k]) for k, _ in SERIES)][:PLOT_MAX]
    series = [(k, t) for k, t in SERIES if any(pos(r[k]) for r in rows)]
    if not rows or not series:
        return None, 0
    gp = ["# %s figure (gnuplot 5); rerun: cd DIR && gnuplot instances.gp" % PROG,
          "# generated %s" % date, "set encoding utf8", "",
          "$inst << EOD",
          " ".join([gp_quote("instance")] + [gp_quote(t) for _, t in series])]
    for r in rows:
        gp.append(" ".join([gp_quote(r["instance"])] +
                           [repr(r[k]) if pos(r[k]) else "NaN" for k, _ in series]))
    gp.append("EOD")
    width = min(2400, max(900, 260 + 110 * len(rows)))
    vals = [r[k] for r in rows for k, _ in series if pos(r[k])]
    lo = 10 ** math.floor(math.log10(min(vals) / 2))  # every bar visibly above the axis
    hi = 10 ** math.ceil(math.log10(max(vals) * 1.5))
    sub = "%s, %s ranks" % (app["application"], app["ranks"] if app["ranks"] is not None else "?")
    body = ["set title %s" % gp_quote("collective instances: %s" % sub),
            "set ylabel 'time in the calls, per rank (us)'", "set logscale y",
            "set grid ytics", "set style data histogram",
            "set style histogram clustered gap 1", "set style fill solid 0.8 border -1",
            "set boxwidth 0.9", "set key below vertical maxcols 1 autotitle columnhead",
            "set xtics rotate by 30 right nomirror", "set datafile missing 'NaN'",
            "set format y '%g'", "set yrange [%g:%g]" % (lo, hi),
            "set xrange [-0.6:%g]" % (len(rows) - 0.4),
            # the first label, rotated, reaches left of the axis
            "set lmargin %d" % max(10, int(len(rows[0]["instance"]) * 0.87) - 4),
            "plot " + ", \\\n     ".join("$inst using %d%s" % (i + 2, ":xtic(1)" if i == 0 else "")
                                        for i in range(len(series)))]
    for term, ext in terms:
        gp.append("")
        gp.append("reset")
        gp.append("set terminal %s" % (term % width))
        gp.append("set termoption noenhanced")  # names have '_' and '@'
        gp.append("set output %s" % gp_quote("instances." + ext))
        gp.extend(body)
        gp.append("unset output")
    return "\n".join(gp) + "\n", len(rows)



def make_plot(outdir, rows, app, date, note):
    """Write instances.gp into outdir and run gnuplot on it.  Returns (ok,
    the figure files written); ok is False if gnuplot failed (said)."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        note("gnuplot not found: no plot (CSV and JSON written)")
        return True, []
    terms = gnuplot_terms(gnuplot, "%d,650")
    script, nplot = plot_script(rows, app, date, terms)
    if script is None:
        note("no instance with a positive time: no plot")
        return True, []
    if nplot < len(rows):
        note("the plot shows the %d instances with the largest baseline time of %d"
             % (nplot, len(rows)))
    if not run_gnuplot(gnuplot, outdir, "instances.gp", script, note):
        return False, []
    return True, ["instances." + ext for _, ext in terms]
