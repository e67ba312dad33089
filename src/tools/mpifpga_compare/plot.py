"""Output: plots.gp, a self-contained gnuplot script (the data as
datablocks), and the figures it writes: latency_COLL and speedup, as PNG
and SVG."""
import shutil

from .cli import PROG
from .common import gnuplot_terms, gp_quote, run_gnuplot

VARIANTS = [  # (key in a row, legend)
    ("offload_us", "offload (modeled, via MPI)"),
    ("offload_sim_us", "offload-sim (model alone)"),
    ("baseline_model_us", "baseline-model (MPICH algorithms, modeled)"),
    ("mpich_us", "MPICH on this machine"),
]


def human_bytes(b):
    for unit, m in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= m and b % m == 0:
            return "%d %s" % (b // m, unit)
    return "%d B" % b


def latency_figure(gp, coll, crow, sub):
    """Append coll's datablock to gp; return the figure's body lines, or
    None if there is nothing to plot."""
    series = [(k, t) for k, t in VARIANTS if any(r[k] is not None for r in crow)]
    if not crow or not series:
        return None
    name = "lat_" + coll
    gp.append("$%s << EOD" % name)
    gp.append("# bytes " + " ".join(k for k, _ in series))
    for r in crow:
        gp.append(" ".join([str(r["bytes"])] + ["NaN" if r[k] is None else repr(r[k])
                                                for k, _ in series]))
    gp.append("EOD")
    body = ["set title %s" % gp_quote("%s latency: %s" % (coll, sub)),
            "set ylabel 'latency (us)'", "set logscale y", "set grid",
            "set key top left"]
    if all(r["bytes"] == 0 for r in crow):  # barrier: no message size
        body += ["unset logscale x", "set style data histogram",
                 "set style histogram clustered gap 1", "set style fill solid 0.8 border -1",
                 "set xtics ('' 0)", "set xlabel 'no message (barrier)'", "set boxwidth 0.9",
                 "set key below",
                 "plot " + ", \\\n     ".join("$%s using %d title %s" % (name, i + 2, gp_quote(t))
                                             for i, (_, t) in enumerate(series))]
    else:
        xs = sorted({r["bytes"] for r in crow if r["bytes"] > 0})
        step = (len(xs) + 9) // 10
        tics = ", ".join("%s %d" % (gp_quote(human_bytes(b)), b) for b in xs[::step])
        body += ["set logscale x 2", "set xlabel 'message size'",
                 "set xtics (%s)" % tics,
                 "set xrange [%g:%g]" % (xs[0] / 1.25, xs[-1] * 1.25),
                 "plot " + ", \\\n     ".join(
                     "$%s using 1:%d with linespoints lw 2 pt %d title %s"
                     % (name, i + 2, 5 + 2 * i, gp_quote(t)) for i, (_, t) in enumerate(series))]
    return body


def speedup_figure(gp, rows, colls, sub):
    """Speedup of the offload over the baseline model at a few sizes (fig.
    10 of 001): append the datablock to gp; return the body lines, or None."""
    have = [r for r in rows if r["speedup_vs_model"] is not None]
    sizes = sorted({r["bytes"] for r in have if r["bytes"] > 0})
    picks = sorted({sizes[0], sizes[len(sizes) // 2], sizes[-1]}) if sizes else []
    bar_colls = [c for c in colls if any(r["collective"] == c for r in have)]
    if not bar_colls:
        return None
    ncols = max(1, len(picks))
    gp.append("$speedup << EOD")
    gp.append("collective " + " ".join(gp_quote(human_bytes(b)) for b in picks)
              if picks else 'collective "no message"')
    for c in bar_colls:
        byb = {r["bytes"]: r["speedup_vs_model"] for r in have if r["collective"] == c}
        if set(byb) == {0}:  # barrier: its one value in the first slot
            vals = [byb[0]] + [None] * (ncols - 1)
            label = c + " (no message)"
        else:
            vals = [byb.get(b) for b in picks] if picks else [None]
            label = c
        gp.append(" ".join([gp_quote(label)] + ["NaN" if v is None else repr(v) for v in vals]))
    gp.append("EOD")
    return ["set title %s" % gp_quote("offload speedup over the MPICH baseline model: %s" % sub),
            "set ylabel 'speedup (baseline-model / offload)'", "set grid ytics",
            "set yrange [0:*]", "set style data histogram",
            "set style histogram clustered gap 1", "set style fill solid 0.8 border -1",
            "set boxwidth 0.9", "set key top left autotitle columnhead",
            "set xtics rotate by -30 nomirror", "set datafile missing 'NaN'",
            "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'black'",
            "plot " + ", \\\n     ".join(
                "$speedup using %d%s" % (i + 2, ":xtic(1)" if i == 0 else "")
                for i in range(ncols))]


def plot_script(rows, colls, meta, terms):
    """A self-contained gnuplot script (data as datablocks) writing the
    latency figures and the speedup bar chart in every terminal of terms.
    Returns (script, figure basenames)."""
    gp = ["# %s plots (gnuplot 5); rerun: cd DIR && gnuplot plots.gp" % PROG,
          "# generated %s" % meta["date"], "set encoding utf8", ""]
    figures = []  # (basename, body lines)
    sub = "%d ranks, %s, params %s" % (meta["ranks"], meta["topology"], meta["params"])
    for coll in colls:
        body = latency_figure(gp, coll, [r for r in rows if r["collective"] == coll], sub)
        if body:
            figures.append(("latency_" + coll, body))
    body = speedup_figure(gp, rows, colls, sub)
    if body:
        figures.append(("speedup", body))

    for base, body in figures:
        for term, ext in terms:
            gp.append("")
            gp.append("reset")
            gp.append("set terminal %s" % term)
            gp.append("set termoption noenhanced")  # collective names have '_'
            gp.append("set output %s" % gp_quote(base + "." + ext))
            gp.extend(body)
            gp.append("unset output")
    return "\n".join(gp) + "\n", [b for b, _ in figures]


def make_plots(o, rows, meta, note):
    """Write plots.gp into the output directory and run gnuplot on it.
    Returns (ok, the figure files written); ok is False if gnuplot failed
    (said with note())."""
    if not o["plots"]:
        note("plots skipped (--no-plots)")
        return True, []
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        note("gnuplot not found: no plots (CSV and JSON written)")
        return True, []
    terms = gnuplot_terms(gnuplot, "900,600")
    script, bases = plot_script(rows, o["colls"], meta, terms)
    if not run_gnuplot(gnuplot, o["out"], "plots.gp", script, note):
        return False, []
    return True, [b + "." + ext for b in bases for _, ext in terms]
