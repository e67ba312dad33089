"""Reading mpifpga-run's JSON reports (--profile and --instances runs)."""
import json
import math
import os


class DataError(Exception):
    """A report is unreadable or invalid (the message names the file)."""


def number(v, where, default=None):
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise DataError("%s is not a number (%s)" % (where, json.dumps(v)))
    return float(v)


def text(v, default=""):
    if v is None:
        return default
    return v if isinstance(v, str) else str(v)


def fint(v):
    """A count as an int when it is whole."""
    if v is None:
        return None
    return int(v) if v == int(v) else v


def read_json(path, role):
    """The report's top-level object; DataError if it cannot be read or
    is not a JSON object."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise DataError("cannot read the %s report '%s': %s" % (role, path, e.strerror or e))
    try:
        doc = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise DataError("the %s report '%s' is not UTF-8 text (not a JSON report)" % (role, path))
    except ValueError as e:
        raise DataError("the %s report '%s' is not valid JSON: %s" % (role, path, e))
    if not isinstance(doc, dict):
        raise DataError("the %s report '%s' is not a run report (a JSON object expected)"
                        % (role, path))
    return doc


def fallback_reasons(doc):
    """collective -> "reason:n,..." of its fallbacks in this run."""
    reasons = {}
    colls = doc.get("collectives")
    for coll, c in (colls.items() if isinstance(colls, dict) else []):
        fb = c.get("fallback") if isinstance(c, dict) else None
        if isinstance(fb, dict):
            reasons[coll] = ",".join("%s:%s" % (r, fint(n)) for r, n in sorted(fb.items())
                                     if isinstance(n, (int, float)) and n > 0)
    return reasons


def parse_instance(d, w, role):
    """One entry of "instances" (w names it in messages) as a dict with
    its match key; DataError if it is malformed."""
    if not isinstance(d, dict):
        raise DataError("%s is not an object" % w)
    coll = d.get("collective")
    if not isinstance(coll, str) or not coll:
        raise DataError("%s has no collective name" % w)
    module = text(d.get("module"))
    offset = text(d.get("offset"))
    site = text(d.get("site"))
    if not site:
        site = ("%s+%s" % (os.path.basename(module), offset)) if module or offset else "?"
    # without a module offset (an older report) the site names the instance
    key = (os.path.basename(module), offset or ("site:" + site), coll)
    r = {"key": key, "collective": coll, "site": site, "module": module, "offset": offset,
         "function": text(d.get("function")), "file": text(d.get("file")),
         "line": d.get("line"), "datatype": text(d.get("datatype")),
         "op": text(d.get("op"))}
    for f in ("calls", "ranks", "bytes_per_call", "comm_size", "offloaded",
              "host_us", "host_us_max", "offload_us", "baseline_model_us",
              "baseline_model_calls"):
        r[f] = number(d.get(f), "%s.%s" % (w, f))
    need = "host_us" if role == "profile" else "offload_us"
    if r[need] is None:
        raise DataError("%s (%s at %s) has no %s" % (w, coll, site, need))
    return r


def load_report(path, role):
    """The report as {'nranks', 'engine', 'mode', 'wall_s', 'instances': [...]}.
    Raises DataError naming the file and what is wrong with it."""
    doc = read_json(path, role)
    mode = doc.get("mode")
    if mode is not None and mode != role:
        raise DataError("'%s' is a report of a%s %s run, but the %s report was expected%s"
                        % (path, "n" if str(mode)[:1] in "aeiou" else "", mode, role,
                           " (reports swapped?)" if mode in ("profile", "offload") else ""))
    if "instances" not in doc:
        raise DataError("the %s report '%s' has no \"instances\": run with a libmpifpga that "
                        "writes instances (mpifpga-run --%s)"
                        % (role, path, "profile" if role == "profile" else "instances"))
    insts = doc["instances"]
    if not isinstance(insts, list):
        raise DataError("the %s report '%s': \"instances\" is not a list" % (role, path))
    where = "the %s report '%s'" % (role, path)
    app = doc.get("app")
    if app is not None and not isinstance(app, dict):
        raise DataError("%s: \"app\" is not an object" % where)
    app = app or {}
    wall = number(app.get("wall_s"), "%s: app.wall_s" % where)
    if role == "profile" and wall is None:
        raise DataError("%s has no app.wall_s (the application's wall time): run with a "
                        "libmpifpga that writes it" % where)
    nranks = doc.get("nranks")
    nranks = int(number(nranks, "%s: nranks" % where)) if nranks is not None else None
    reasons = fallback_reasons(doc)
    out = [parse_instance(d, "%s: instances[%d]" % (where, k), role) for k, d in enumerate(insts)]
    return {"path": path, "nranks": nranks, "engine": doc.get("engine"), "mode": mode,
            "wall_s": wall, "wall_s_mean": number(app.get("wall_s_mean"), "%s: app.wall_s_mean"
                                                  % where),
            "version": doc.get("version"), "instances": out, "reasons": reasons}
