"""Parsing the CSV that mpifpga-osu and mpifpga-sim print."""
import csv
import io

from .common import RunError, fmt_cmd

OSU_HEADER = ["collective", "bytes", "avg_us", "min_us", "max_us", "iterations",
              "validation"]
SIM_HEADER = ["collective", "topology", "nodes", "bytes", "offload_us",
              "baseline_us", "speedup"]


def parse_csv(text, header, label, cmd):
    lines = [l for l in text.splitlines() if l.strip() and not l.startswith("#")]
    if not lines:
        raise RunError("%s printed no CSV\n  command: %s" % (label, fmt_cmd(cmd)))
    got = [h.strip() for h in lines[0].split(",")]
    if got[:len(header)] != header:
        raise RunError("%s: unexpected CSV header '%s' (expected it to start with '%s')\n"
                       "  command: %s" % (label, lines[0], ",".join(header), fmt_cmd(cmd)))
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    if not rows:
        raise RunError("%s printed a CSV header but no rows\n  command: %s"
                       % (label, fmt_cmd(cmd)))
    return rows


def num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if v == v else None


def osu_results(rows, coll, label, cmd):
    res = {}
    for r in rows:
        if r["collective"] != coll:
            continue
        try:
            b = int(r["bytes"])
        except ValueError:
            raise RunError("%s: bad bytes field '%s'\n  command: %s" % (label, r["bytes"], fmt_cmd(cmd)))
        res[b] = {"avg": num(r["avg_us"]), "min": num(r["min_us"]), "max": num(r["max_us"]),
                  "iterations": r.get("iterations"), "validation": r.get("validation") or ""}
    if not res:
        raise RunError("%s printed no %s rows\n  command: %s" % (label, coll, fmt_cmd(cmd)))
    return res



def sim_results(rows, coll):
    """mpifpga-sim's rows for coll as {bytes: (offload_us, baseline_us)},
    and the topology it modeled (None if no row)."""
    sim = {}
    topology = None
    for r in rows:
        if r["collective"] == coll:
            sim[int(r["bytes"])] = (num(r["offload_us"]), num(r["baseline_us"]))
            topology = topology or r["topology"]
    return sim, topology
