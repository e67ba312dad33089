#!/usr/bin/env python3
"""Check expressions against a libmpifpga JSON report (MPIFPGA_REPORT=path).

    check_report.py REPORT EXPR [EXPR ...]

Each EXPR is a comparison over report fields, e.g.

    'allreduce.fallback.derived_datatype>=1'
    'allreduce.offloaded==0'
    'allreduce.bytes==320'
    'allreduce.modeled_us>0'
    'allreduce.fallback.op+allreduce.fallback.derived_datatype>=2'
    'nranks==2'                     (top-level fields: nranks, engine)
    '*.offloaded==0'                (* = every collective in the report)
    '*.calls==*.fallback.disabled+*.empty'

A dotted path is looked up from the top of the report, or else under
"collectives" (so 'allreduce.calls' means collectives.allreduce.calls).  An
expression with '*' must hold for every collective.  Operators: comparisons,
+ - * /, and, or, not, parentheses, numbers and quoted strings.

Prints one line per expression ("ok: EXPR" / "FAILED: EXPR  (values)"),
exits 0 iff all hold, 1 naming the first failing expression on stderr,
2 on usage errors, an unreadable report, or an unknown field.
"""
import ast
import json
import operator
import sys

COLLS = ["allreduce", "reduce", "bcast", "scatter", "gather", "allgather",
         "reduce_scatter", "reduce_scatter_block", "barrier"]

BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub,
          ast.Mult: operator.mul, ast.Div: operator.truediv}
CMPOPS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
          ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}
WILD = "__ALL__"


class Unknown(Exception):
    pass


def dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        raise ValueError("not a field path")
    parts.append(node.id)
    return list(reversed(parts))


def lookup(report, parts):
    for base in (report, report.get("collectives", {})):
        cur = base
        try:
            for p in parts:
                cur = cur[p]
        except (KeyError, TypeError, IndexError):
            continue
        return cur
    raise Unknown(".".join(parts))


class Evaluator:
    def __init__(self, report, coll):
        self.report = report
        self.coll = coll        # what '*' stands for in this round
        self.seen = {}          # path -> value, for the failure message

    def ev(self, n):
        if isinstance(n, ast.Expression):
            return self.ev(n.body)
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, (ast.Name, ast.Attribute)):
            parts = [self.coll if p == WILD else p for p in dotted(n)]
            v = lookup(self.report, parts)
            self.seen[".".join(parts)] = v
            return v
        if isinstance(n, ast.BinOp) and type(n.op) in BINOPS:
            return BINOPS[type(n.op)](self.ev(n.left), self.ev(n.right))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -self.ev(n.operand)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            return not self.ev(n.operand)
        if isinstance(n, ast.BoolOp):
            vals = (self.ev(v) for v in n.values)
            return all(vals) if isinstance(n.op, ast.And) else any(vals)
        if isinstance(n, ast.Compare):
            left = self.ev(n.left)
            for op, right_node in zip(n.ops, n.comparators):
                if type(op) not in CMPOPS:
                    raise ValueError("unsupported comparison")
                right = self.ev(right_node)
                if not CMPOPS[type(op)](left, right):
                    return False
                left = right
            return True
        raise ValueError("unsupported syntax: %s" % type(n).__name__)


def check(report, expr):
    """Returns (holds, detail)."""
    tree = ast.parse(expr.replace("*.", WILD + "."), mode="eval")
    colls = [None]
    if WILD in expr.replace("*.", WILD + "."):
        colls = [c for c in COLLS if c in report.get("collectives", {})]
        if not colls:
            raise Unknown("collectives")
    for c in colls:
        e = Evaluator(report, c)
        if not e.ev(tree):
            vals = ", ".join("%s=%s" % kv for kv in e.seen.items())
            return False, vals
    return True, ""


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        sys.stderr.write("usage: check_report.py REPORT EXPR [EXPR ...]\n")
        return 2
    try:
        with open(argv[1]) as f:
            report = json.load(f)
    except (OSError, ValueError) as err:
        sys.stderr.write("check_report: cannot read report %s: %s\n" % (argv[1], err))
        return 2
    first_fail = None
    for expr in argv[2:]:
        try:
            holds, detail = check(report, expr)
        except Unknown as err:
            sys.stderr.write("check_report: %s: no field '%s' in %s\n" % (expr, err, argv[1]))
            return 2
        except (SyntaxError, ValueError, TypeError, ZeroDivisionError) as err:
            sys.stderr.write("check_report: bad expression '%s': %s\n" % (expr, err))
            return 2
        if holds:
            print("ok: %s" % expr)
        else:
            print("FAILED: %s  (%s)" % (expr, detail))
            if first_fail is None:
                first_fail = expr
    if first_fail is not None:
        sys.stderr.write("check_report: FAILED: %s\n" % first_fail)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
