#!/usr/bin/env python3
"""Check the collective instances of a run report (MPIFPGA_INSTANCES).

usage: check_instances.py REPORT [--total N] [--mode M] [SELECTOR... -- CONDITION...]

SELECTORs (key=value, or key~regex) pick exactly one instance; every
CONDITION (key==v, key!=v, key>v, key>=v, key<v, or key~regex) must hold
for it.  The extra key `source_line` is the text of the site's line in its
source file.  --total N: the report lists exactly N instances; --mode M:
its "mode" is M.  Exit 0 if all holds, else 1 with what did not.
"""
import json
import re
import sys

OPS = ("==", "!=", ">=", "<=", ">", "<", "~")


def split_cond(text):
    for op in OPS:
        i = text.find(op)
        if i > 0:
            return text[:i], op, text[i + len(op):]
    raise SystemExit("bad condition '%s'" % text)


def value(inst, key):
    if key == "source_line":
        try:
            with open(inst["file"]) as f:
                return f.read().splitlines()[int(inst["line"]) - 1]
        except (OSError, IndexError, ValueError, KeyError):
            return ""
    return inst.get(key)


def holds(inst, key, op, want):
    got = value(inst, key)
    if op == "~":
        return re.search(want, str(got)) is not None
    if isinstance(got, (int, float)):
        w = float(want)
        return {"==": got == w, "!=": got != w, ">": got > w, ">=": got >= w,
                "<": got < w, "<=": got <= w}[op]
    return {"==": str(got) == want, "!=": str(got) != want}.get(op, False)


def main(argv):
    if not argv:
        raise SystemExit(__doc__)
    rep = json.load(open(argv[0]))
    args, errors = argv[1:], []
    insts = rep.get("instances")
    if insts is None:
        print("the report has no instances")
        return 1
    while args and args[0] in ("--total", "--mode"):
        opt, want = args[0], args[1]
        args = args[2:]
        got = len(insts) if opt == "--total" else rep.get("mode")
        if str(got) != want:
            errors.append("%s: want %s, got %s" % (opt, want, got))
    sel, conds = (args[:args.index("--")], args[args.index("--") + 1:]) if "--" in args \
        else (args, [])
    match = [i for i in insts
             if all(holds(i, *split_cond(s.replace("=", "==", 1) if "~" not in s else s))
                    for s in sel)]
    if sel and len(match) != 1:
        errors.append("%d instances match %s (want 1); instances: %s"
                      % (len(match), " ".join(sel),
                         ", ".join("%s@%s(%s)" % (i["collective"], i["site"], i["function"])
                                   for i in insts)))
    for c in conds if len(match) == 1 else []:
        k, op, want = split_cond(c)
        if not holds(match[0], k, op, want):
            errors.append("%s: got %r" % (c, value(match[0], k)))
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
