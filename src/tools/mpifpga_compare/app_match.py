"""Matching the instances (collective call sites) of the profile and
offload reports, and the application time (Table 5 of 001)."""
from collections import Counter

from .reports import fint


def keyed(insts, extend):
    """{key: instance}; keys listed in extend get the call's parameters too
    (two instances at one call site), and an ordinal if still not unique."""
    res = {}
    for r in insts:
        k = r["key"]
        if k in extend:
            k = k + (r["comm_size"], r["bytes_per_call"], r["datatype"], r["op"])
        base, n = k, 1
        while k in res:
            n += 1
            k = base + (n,)
        res[k] = r
    return res


def label_of(r):
    fn = r["function"]
    return "%s@%s%s" % (r["collective"], r["site"], " (%s)" % fn if fn and fn != "?" else "")


def offload_status(o, reasons):
    """One token: yes (every call offloaded), fallback(REASONS) (none was;
    the reasons the offload run counted for that collective), partial(K/N),
    or - (not in the offload run)."""
    if o is None or o["calls"] is None or o["offloaded"] is None:
        return "-"
    calls, done = o["calls"], o["offloaded"]
    if done >= calls:
        return "yes"
    if done == 0:
        return "fallback(%s)" % (reasons.get(o["collective"]) or "?")
    return "partial(%s/%s)" % (fint(done), fint(calls))


def instance_row(p, o, reasons, coll_us):
    """The row of one instance: p its profile entry, o its offload entry
    (either may be None)."""
    src = p or o
    row = {"instance": label_of(src), "collective": src["collective"], "site": src["site"],
           "function": src["function"], "calls": fint(src["calls"]),
           "bytes_per_call": fint(src["bytes_per_call"]), "datatype": src["datatype"],
           "op": src["op"], "comm_size": fint(src["comm_size"])}
    row["baseline_us"] = p["host_us"] if p else None
    modeled = o is not None and (o["baseline_model_calls"] or 0) > 0
    row["baseline_model_us"] = o["baseline_model_us"] if modeled else None
    row["offload_us"] = o["offload_us"] if o else None
    row["offload"] = offload_status(o, reasons)
    # a call that fell back ran in MPI: its time is no offload to compare
    ok = (row["offload_us"] is not None and row["offload_us"] > 0 and
          not row["offload"].startswith("fallback"))
    row["speedup"] = (row["baseline_us"] / row["offload_us"]
                      if ok and row["baseline_us"] is not None else None)
    row["speedup_model"] = (row["baseline_model_us"] / row["offload_us"]
                            if ok and row["baseline_model_us"] is not None else None)
    row["baseline_share_pct"] = (row["baseline_us"] / coll_us * 100
                                 if row["baseline_us"] is not None and coll_us > 0 else None)
    row["_detail"] = {
        "module": src["module"], "offset": src["offset"], "file": src["file"],
        "line": src["line"],
        "in": "both" if p and o else ("profile only" if p else "offload only"),
        "profile_calls": fint(p["calls"]) if p else None,
        "offload_calls": fint(o["calls"]) if o else None,
        "offloaded": fint(o["offloaded"]) if o else None,
        "baseline_model_calls": fint(o["baseline_model_calls"]) if o else None,
        "baseline_max_us": p["host_us_max"] if p else None,
    }
    return row


def instance_remarks(lab, p, o, prof, off, warnings, notes):
    """Warnings (an instance in one report only, call counts that differ)
    and notes (calls that fell back, calls without a modeled MPICH time)."""
    if not o:
        warnings.append("%s is only in the profile report (%s): no offload time; its "
                        "baseline time still counts in collective_s" % (lab, prof["path"]))
    elif not p:
        warnings.append("%s is only in the offload report (%s): no baseline time; its "
                        "offload time still counts in offload_s" % (lab, off["path"]))
    else:
        if p["calls"] is not None and o["calls"] is not None and p["calls"] != o["calls"]:
            warnings.append("%s: %s calls in the profile run, %s in the offload run"
                            % (lab, fint(p["calls"]), fint(o["calls"])))
    if o:
        modeled = (o["baseline_model_calls"] or 0) > 0
        calls, done = o["calls"], o["offloaded"]
        if calls is not None and done is not None and done < calls:
            notes.append("%s: %s of %s calls fell back to MPI in the offload run (their host "
                         "time is in offload_us%s)"
                         % (lab, fint(calls - done), fint(calls),
                            "" if done == 0 else ", not in baseline_model_us"))
        if modeled and done is not None and o["baseline_model_calls"] < done:
            notes.append("%s: MPICH's algorithms modeled for %s of %s offloaded calls"
                         % (lab, fint(o["baseline_model_calls"]), fint(done)))


def sort_rows(rows):
    """By baseline time, largest first; instances without one last, by
    offload time.  Equal names get an ordinal."""
    rows.sort(key=lambda r: (r["baseline_us"] is None,
                             -(r["baseline_us"] if r["baseline_us"] is not None
                               else (r["offload_us"] or 0)), r["instance"]))
    seen = Counter(r["instance"] for r in rows)
    nth = Counter()
    for r in rows:
        if seen[r["instance"]] > 1:
            nth[r["instance"]] += 1
            r["instance"] += " [%d]" % nth[r["instance"]]


def app_time(prof, off, coll_us, warnings, notes):
    """The application row (Table 5): the profile run's wall time with the
    collectives' time replaced by the offload's, and by the modeled MPICH's."""
    base = prof["wall_s"]
    coll_s = coll_us / 1e6
    offload_s = base - coll_s + sum(r["offload_us"] for r in off["instances"]) / 1e6
    imp = (base - offload_s) / base * 100 if base > 0 else None
    missing = []
    model_us = 0.0
    for r in off["instances"]:
        done = r["offloaded"] if r["offloaded"] is not None else r["calls"]
        if done is not None and done == 0 and not (r["baseline_model_calls"] or 0) > 0:
            model_us += r["offload_us"]  # all on the host in both cases
        elif (r["baseline_model_calls"] or 0) > 0:
            model_us += r["baseline_model_us"] or 0.0
        else:
            missing.append(label_of(r))
    if missing:
        model_base = model_imp = None
        notes.append("model_baseline_s and model_improvement_pct left empty: %d offloaded "
                     "instance%s no modeled MPICH time (baseline_model_calls 0): %s"
                     % (len(missing), " has" if len(missing) == 1 else "s have",
                        ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")))
    else:
        model_base = base - coll_s + model_us / 1e6
        model_imp = (model_base - offload_s) / model_base * 100 if model_base > 0 else None
    if coll_s > base:
        warnings.append("the profile run's collective time (%.6f s) exceeds its wall time "
                        "(%.6f s): are the reports from the same application?" % (coll_s, base))
    return {"ranks": prof["nranks"], "baseline_s": base, "collective_s": coll_s,
            "offload_s": offload_s, "improvement_pct": imp, "model_baseline_s": model_base,
            "model_improvement_pct": model_imp}


def compare(prof, off, warnings, notes):
    """Match the instances; return (instance rows, application row)."""
    pc = Counter(r["key"] for r in prof["instances"])
    oc = Counter(r["key"] for r in off["instances"])
    extend = {k for k, n in list(pc.items()) + list(oc.items()) if n > 1}
    P = keyed(prof["instances"], extend)
    O = keyed(off["instances"], extend)
    keys = list(P) + [k for k in O if k not in P]

    coll_us = sum(r["host_us"] for r in prof["instances"])
    rows = []
    for k in keys:
        p, o = P.get(k), O.get(k)
        row = instance_row(p, o, off["reasons"], coll_us)
        rows.append(row)
        instance_remarks(row["instance"], p, o, prof, off, warnings, notes)
    sort_rows(rows)
    return rows, app_time(prof, off, coll_us, warnings, notes)
