"""The hardware model's layering rules (doc/model.md, "Blocks and ports").

check(root) returns the violations found in the fpga_model tree at root:
  * a block's .c or header includes hw/switch.h, net/network.h or another
    block's header (only its own, hw/ports.h and the lower-level shared
    headers are allowed);
  * a block's .c calls a function another block's header declares;
  * a hw/*.c file that belongs to no block (so new files get a place);
  * a CCM file that reaches another engine other than through the partner
    port (the engine array, the port's ctx used as anything but the first
    argument of a call, or a call of the port's implementation itself):
    only hw/ccm_partner.c, the implementation, may;
  * an include circle anywhere in the tree.
main() runs it on the tree, then plants one violation of each kind in a
copy and checks that each is caught (TAP).
"""
import os
import re
import shutil
import sys
import tempfile

# block -> (its .c files, its headers); globs are "prefix*"
BLOCKS = {
    "l1": (["l1_switch.c", "route.c", "vc_alloc.c", "sw_alloc.c"], ["hw/l1_switch.h"]),
    "l2": (["l2_switch.c"], ["hw/l2_switch.h"]),
    "ccm": (["ccm.c", "ccm_*", "flow.c"], ["hw/ccm.h", "hw/ccm_build.h"]),
    "ct": (["ct.c"], ["hw/ct.h"]),
    "cgr": (["cgr.c"], ["hw/cgr.h"]),
    "collector": (["collector.c"], ["hw/collector.h"]),
    "dma": (["dma.c"], ["hw/dma.h"]),
    # lower-level shared types and the ports: any block may use them
    "ports": (["ports.c"], ["hw/ports.h"]),
    "pkt": (["pkt.c"], ["hw/pkt.h"]),
    "fifo": (["fifo.c"], ["hw/fifo.h"]),
    "link": (["link.c"], ["hw/link.h"]),
    "aglu": (["aglu.c"], ["hw/aglu.h"]),
}
SHARED = {"ports", "pkt", "fifo", "link"}
# headers outside hw/ a block may include (lower level than every block)
LOWER = re.compile(r"^(mpifpga/.*|sim/engine\.h|params/params\.h|net/topo\.h)$")
EXTRA_ALLOWED = {"cgr": {"hw/aglu.h"}, "aglu": set()}
WIRING = {"switch.c"}  # the one place that knows every block of a switch
PARTNER_IMPL = "ccm_partner.c"  # the partner port over the network's engines
PARTNER_ESCAPE = re.compile(r"\bengines\b|partners->ctx\b(?!\s*,)|\bmf_engines_\w+\s*\(")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\])*"')
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
DECL = re.compile(r"^[A-Za-z_][\w \t\*]*?\b([a-z_]\w*)\s*\(", re.M)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def code_of(text):
    return STRING.sub('""', COMMENT.sub(" ", text))


def block_of(name):
    for blk, (files, _) in BLOCKS.items():
        for pat in files:
            if name == pat or (pat.endswith("*") and name.startswith(pat[:-1])):
                return blk
    return None


def allowed_includes(blk):
    own = set(BLOCKS[blk][1])
    shared = {h for b in SHARED for h in BLOCKS[b][1]}
    return own | shared | EXTRA_ALLOWED.get(blk, set())


def exported(root, blk):
    """Functions a block's headers declare (prototypes and static inlines)."""
    names = set()
    for h in BLOCKS[blk][1]:
        path = os.path.join(root, h)
        if os.path.exists(path):
            names |= set(DECL.findall(code_of(read(path))))
    return names - {"if", "for", "while", "switch", "return", "sizeof"}


def check_includes(root, violations):
    hw = os.path.join(root, "hw")
    for name in sorted(os.listdir(hw)):
        if not name.endswith((".c", ".h")) or name in WIRING or name == "switch.h":
            continue
        rel = "hw/" + name
        blk = block_of(name) if name.endswith(".c") else None
        if name.endswith(".h"):
            blk = next((b for b, (_, hs) in BLOCKS.items() if rel in hs), None)
        if blk is None:
            violations.append("%s belongs to no block (hw_layering.py BLOCKS)" % rel)
            continue
        ok = allowed_includes(blk)
        for inc in INCLUDE.findall(read(os.path.join(hw, name))):
            if inc not in ok and not LOWER.match(inc):
                violations.append("%s (block %s) includes %s" % (rel, blk, inc))


def check_calls(root, violations):
    hw = os.path.join(root, "hw")
    owners = {}
    for blk in BLOCKS:
        if blk not in SHARED and blk != "aglu":
            for fn in exported(root, blk):
                owners[fn] = blk
    for name in sorted(os.listdir(hw)):
        blk = block_of(name) if name.endswith(".c") else None
        if blk is None:
            continue
        for fn in sorted(set(CALL.findall(code_of(read(os.path.join(hw, name)))))):
            if owners.get(fn, blk) != blk:
                violations.append("hw/%s (block %s) calls %s() of block %s" %
                                  (name, blk, fn, owners[fn]))


def check_partners(root, violations):
    hw = os.path.join(root, "hw")
    for name in sorted(os.listdir(hw)):
        if not name.endswith(".c") or name in WIRING or name == PARTNER_IMPL:
            continue
        for m in PARTNER_ESCAPE.finditer(code_of(read(os.path.join(hw, name)))):
            violations.append("hw/%s reaches another engine past the partner port (%s)" %
                              (name, m.group(0)))


def include_graph(root):
    graph = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            if name.endswith((".c", ".h")):
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                graph[rel] = [i for i in INCLUDE.findall(read(os.path.join(dirpath, name)))
                              if os.path.exists(os.path.join(root, i))]
    return graph


def check_circles(root, violations):
    graph = include_graph(root)
    state = {}

    def visit(node, path):
        state[node] = 1
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                cyc = path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
                violations.append("include circle: " + " -> ".join(cyc))
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])


def check(root):
    violations = []
    check_includes(root, violations)
    check_calls(root, violations)
    check_partners(root, violations)
    check_circles(root, violations)
    return violations


def planted(root, edits):
    """A copy of root with edits applied: (file, old, new) replacements."""
    tmp = tempfile.mkdtemp(prefix="hw_layering.")
    copy = os.path.join(tmp, "fpga_model")
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("*.o", "*.lo", ".libs", ".deps",
                                                              ".dirstamp"))
    for rel, old, new in edits:
        path = os.path.join(copy, rel)
        text = read(path)
        if old not in text:
            raise SystemExit("Bail out! plant: %r not in %s" % (old, rel))
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new, 1))
    return tmp, copy


MUTATIONS = [
    ("a block that includes switch.h",
     [("hw/cgr.c", '#include "hw/cgr.h"', '#include "hw/cgr.h"\n#include "hw/switch.h"')],
     "includes hw/switch.h"),
    ("a block that includes another block's header",
     [("hw/dma.c", '#include "hw/dma.h"', '#include "hw/dma.h"\n#include "hw/collector.h"')],
     "includes hw/collector.h"),
    ("a block that calls another block's function",
     [("hw/dma.c", "    rx->pkts++;", "    mf_l2_emit(NULL, NULL, now);\n    rx->pkts++;")],
     "calls mf_l2_emit() of block l2"),
    ("an engine reached past the partner port",
     [("hw/ccm.c", "m->partners->wake(m->partners->ctx, c->st[i].src - 1, now + 1);",
       "mf_wake(&((mf_engine_t *)m->partners->ctx)[c->st[i].src - 1].ccm->wake, now + 1);")],
     "past the partner port"),
    ("a call of the partner port's implementation, not the port",
     [("hw/ccm_credits.c",
       "return mf_partner_taken(m->partners, k->dest, c->req.hdr.ctx, c->seq, k->tag, now);",
       "return mf_engines_taken(m->partners->ctx, k->dest, c->req.hdr.ctx, c->seq, k->tag, now);")],
     "past the partner port (mf_engines_taken("),
    ("an include circle",
     [("hw/pkt.h", '#include "mpifpga/wire.h"', '#include "mpifpga/wire.h"\n#include "hw/fifo.h"')],
     "include circle"),
    ("a file in hw/ that belongs to no block",
     [],  # hw/stray.c is added below
     "belongs to no block"),
]


def main():
    root = sys.argv[1]
    tests = 1 + len(MUTATIONS)
    print("1..%d" % tests)
    found = check(root)
    for v in found:
        print("# " + v)
    print("%sok 1 - fpga_model keeps the layering rules (%d violations)" %
          ("" if not found else "not ", len(found)))
    failed = bool(found)
    for i, (what, edits, expect) in enumerate(MUTATIONS, start=2):
        tmp, copy = planted(root, edits)
        if expect == "belongs to no block":
            with open(os.path.join(copy, "hw", "stray.c"), "w", encoding="utf-8") as f:
                f.write("int mf_stray(void) { return 0; }\n")
        got = [v for v in check(copy) if expect in v]
        shutil.rmtree(tmp)
        print("%sok %d - planted %s is caught%s" %
              ("" if got else "not ", i, what, (": " + got[0]) if got else ""))
        failed |= not got
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
