#!/usr/bin/env python3
"""BookSim2 beside bench/model_speed, in one sitting (issue 23 item 5).

    bench/booksim_side.py [--quick] [--rounds N] BOOKSIM [TORUS ...]   (from the build directory)

BOOKSIM is a BookSim2 binary built locally (not part of this repository:
git clone https://github.com/booksim/booksim2 && make -C booksim2/src, which
needs flex and bison).  For each torus (default 4x4x4; 4x4x4 and/or 8x8x8)
BookSim2 runs with 1-flit packets, uniform random traffic, dimension-order
routing and an input-queued router with 2 VCs x 8 flits (its defaults
otherwise) at 0.05 and 0.2 flits/node/cycle and at its own near-saturation
load (the highest of 0.10, 0.15, ... 1.00 whose accepted rate is >= 95 % of
the offered one); then bench/model_speed --only traffic runs.  One table:
million router-cycles per CPU second of each (simulated cycles x routers /
CPU seconds) and the ratio, the model on one thread (MPIFPGA_THREADS=1) as
BookSim2 runs on one.  CPU seconds, not wall: on a busy machine a
simulator's wall time includes other jobs' share of the cores (model_speed
prints its per-CPU-second figure beside the per-wall one).

The sitting is N rounds (default 3), each the model's table and then
BookSim2's runs, so that the two are measured minutes apart, not one
after the other in one block: a slow phase of the machine then slows
both halves of a round.  Per row the table gives each simulator's median
over the rounds, the median of the rounds' ratios, and their lowest and
highest.  Each round's figures follow the table.  Both simulators are
deterministic (fixed seeds), so the near-saturation loads are found once.
--quick: model_speed --quick and BookSim2 runs a fifth as long, for a
look at the set-up, not for a figure to quote.
"""
import os
import re
import resource
import subprocess
import sys
import tempfile

RATES = [0.10, 0.15, 0.20, 0.25, 0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70, 0.75,
         0.80, 0.90, 1.00]


def booksim(binary, k, rate, period, tmp):
    """(simulated cycles, CPU seconds, accepted flit rate) of one run."""
    cfg = os.path.join(tmp, "cfg")
    with open(cfg, "w") as f:
        f.write(f"topology = torus;\nk = {k};\nn = 3;\nrouting_function = dim_order;\n"
                f"num_vcs = 2;\nvc_buf_size = 8;\ntraffic = uniform;\npacket_size = 1;\n"
                f"injection_rate = {rate};\nsim_type = throughput;\n"
                f"sample_period = {period};\n")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([binary, cfg], capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    cyc = [int(m) for m in re.findall(r"^Time taken is (\d+) cycles", out, re.M)]
    acc = [float(m) for m in re.findall(r"^Accepted flit rate average\s*=\s*([0-9.eE+-]+)", out,
                                        re.M)]
    if not cyc or not acc:
        sys.exit(f"booksim_side: no result from {binary} at rate {rate}:\n{out[-400:]}")
    return cyc[-1], cpu, acc[-1]


def model_rows(text):
    """{(torus, load): M router-cycles per CPU second} from model_speed's table."""
    rows, torus = {}, None
    for line in text.splitlines():
        f = line.split()
        if len(f) == 1 and re.fullmatch(r"\d+x\d+x\d+", f[0]):
            torus = f[0]
        elif torus and len(f) >= 9 and f[0] == "1":
            cpu = [i for i, x in enumerate(f) if x.endswith("%")]
            if not cpu or cpu[0] + 1 >= len(f):
                continue
            c = cpu[0]  # cpu share; then Mrcyc/s per wall s and per CPU s
            try:
                rows[(torus, f[1])] = float(f[c + 2])
            except (IndexError, ValueError):  # an older model_speed: no per-CPU column
                share = float(f[c][:-1]) / 100
                rows[(torus, f[1])] = float(f[c + 1]) / share if share > 0 else 0.0
    return rows


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2 if n else 0.0


def parse_args(argv):
    """(rounds, quick, booksim binary, tori) or exit with the usage."""
    usage = ("usage: bench/booksim_side.py [--quick] [--rounds N] BOOKSIM [4x4x4|8x8x8]... "
             "(BOOKSIM: a BookSim2 binary built locally)")
    args, rounds, quick = argv[1:], 3, False
    while args[:1] in (["--quick"], ["--rounds"]):
        if args[0] == "--quick":
            quick, args = True, args[1:]
            continue
        if len(args) < 2 or not args[1].isdigit() or not 1 <= int(args[1]) <= 20:
            sys.exit(f"booksim_side: --rounds takes a count from 1 to 20\n{usage}")
        rounds, args = int(args[1]), args[2:]
    if not args or args[0].startswith("-"):
        sys.exit(usage)
    if not os.access(args[0], os.X_OK):
        sys.exit(f"booksim_side: {args[0]}: not an executable BookSim2 binary\n{usage}")
    tori = args[1:] or ["4x4x4"]
    for t in tori:
        if t not in ("4x4x4", "8x8x8"):
            sys.exit(f"booksim_side: torus {t!r}: model_speed measures 4x4x4 and 8x8x8\n{usage}")
    return rounds, quick, args[0], tori


def booksim_saturation(binary, k, tmp):
    """Highest of RATES whose accepted rate is >= 95 % of the offered one."""
    sat = RATES[0]
    for r in RATES:
        _, _, acc = booksim(binary, k, r, 1000, tmp)
        if acc < 0.95 * r:
            break
        sat = r
    return sat


def run_model(quick, tori, loads):
    """One bench/model_speed --only traffic table: (rows, text)."""
    # one thread, as BookSim2 has: per CPU second is then one core against
    # one core (on several threads the model spends CPU on hand-overs)
    cmd = ["./bench/model_speed", "--only", "traffic"] + (["--quick"] if quick else [])
    run = subprocess.run(cmd, capture_output=True, text=True,
                         env=dict(os.environ, MPIFPGA_THREADS="1"))
    if run.returncode:
        sys.exit(f"booksim_side: {' '.join(cmd)} exited {run.returncode}:\n"
                 f"{run.stdout[-400:]}{run.stderr[-400:]}")
    rows = model_rows(run.stdout)
    missing = [f"{t} {load}" for t in tori for load in loads if not rows.get((t, load))]
    if missing:  # rather than a table of '-'
        sys.exit(f"booksim_side: no 1-flit figure for {', '.join(missing)} in model_speed's "
                 f"table (has its format changed?):\n{run.stdout[-600:]}")
    return rows, run.stdout


def main(argv):
    rounds, quick, binary, tori = parse_args(argv)
    if not os.access("bench/model_speed", os.X_OK):
        sys.exit("booksim_side: run from the build directory after 'make bench/model_speed'")
    loads = ("0.05", "0.2", "near-sat")
    per_round = []  # [{(torus, load): (rate, booksim, model)}]
    model_out = ""
    with tempfile.TemporaryDirectory(prefix="booksim_side.") as tmp:
        sat = {t: booksim_saturation(binary, int(t.split("x")[0]), tmp) for t in tori}
        for n in range(rounds):
            print(f"# round {n + 1} of {rounds}: bench/model_speed --only traffic, then BookSim2",
                  file=sys.stderr, flush=True)
            model, model_out = run_model(quick, tori, loads)
            row = {}
            for t in tori:
                k = int(t.split("x")[0])
                period = (10000 if k == 4 else 2000) // (5 if quick else 1)
                for load, rate in zip(loads, (0.05, 0.2, sat[t])):
                    cyc, cpu, _ = booksim(binary, k, rate, period, tmp)
                    bs = cyc * k ** 3 / cpu / 1e6 if cpu > 0 else 0.0
                    row[(t, load)] = (rate, bs, model.get((t, load)))
            per_round.append(row)
    print(f"{rounds} round(s); M router-cycles per CPU second, medians over the rounds; "
          "ratio = median of the rounds' ratios (lowest-highest)")
    print(f"{'torus':<7}{'load':<10}{'rate':>6}{'BookSim2':>10}{'model':>10}{'ratio':>8}"
          f"{'range':>15}")
    for t in tori:
        for load in loads:
            got = [r[(t, load)] for r in per_round]
            bs = [g[1] for g in got if g[1] > 0]
            m = [g[2] for g in got if g[2]]
            ratios = [g[2] / g[1] for g in got if g[2] and g[1] > 0]
            rtxt = f"{median(ratios):.1f}x" if ratios else "-"
            span = f"{min(ratios):.1f}-{max(ratios):.1f}x" if ratios else "-"
            mtxt = f"{median(m):.3f}" if m else "-"
            print(f"{t:<7}{load:<10}{got[0][0]:>6.2f}{median(bs):>10.3f}{mtxt:>10}{rtxt:>8}"
                  f"{span:>15}")
    print("# each round: torus load BookSim2 model ratio")
    for n, row in enumerate(per_round):
        for (t, load), (_, bs, m) in row.items():
            ratio = f"{m / bs:.1f}x" if m and bs else "-"
            print(f"#   {n + 1} {t} {load:<9} {bs:.3f} {m if m else 0:.3f} {ratio}")
    print("# model_speed's rows, last round (Mrcyc/s per wall second, cpu = its CPU share, "
          "Mrcyc/cpu-s):")
    for line in model_out.splitlines():
        if re.match(r"^\d+x\d+x\d+$", line) or re.match(r"^\s+1 ", line):
            print(line)


if __name__ == "__main__":
    main(sys.argv)
