#!/usr/bin/env python3
"""BookSim2 beside bench/model_speed, in one sitting (issue 23 item 5).

    bench/booksim_side.py BOOKSIM [TORUS ...]      (from the build directory)

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


def main(argv):
    if len(argv) < 2 or not os.access(argv[1], os.X_OK):
        sys.exit("usage: bench/booksim_side.py BOOKSIM [4x4x4|8x8x8]... "
                 "(BOOKSIM: a BookSim2 binary built locally)")
    if not os.access("bench/model_speed", os.X_OK):
        sys.exit("booksim_side: run from the build directory after 'make bench/model_speed'")
    tori = argv[2:] or ["4x4x4"]
    print("# bench/model_speed --only traffic ...", file=sys.stderr, flush=True)
    # one thread, as BookSim2 has: per CPU second is then one core against
    # one core (on several threads the model spends CPU on hand-overs)
    model_out = subprocess.run(["./bench/model_speed", "--only", "traffic"],
                               capture_output=True, text=True, check=True,
                               env=dict(os.environ, MPIFPGA_THREADS="1")).stdout
    model = model_rows(model_out)
    print(f"{'torus':<7}{'load':<10}{'rate':>6}{'BookSim2 M/s':>14}{'model M/s':>12}{'ratio':>8}")
    with tempfile.TemporaryDirectory(prefix="booksim_side.") as tmp:
        for t in tori:
            k = int(t.split("x")[0])
            routers = k ** 3
            period = 10000 if k == 4 else 2000
            sat = RATES[0]
            for r in RATES:
                _, _, acc = booksim(argv[1], k, r, 1000, tmp)
                if acc < 0.95 * r:
                    break
                sat = r
            for load, rate in (("0.05", 0.05), ("0.2", 0.2), ("near-sat", sat)):
                cyc, cpu, _ = booksim(argv[1], k, rate, period, tmp)
                bs = cyc * routers / cpu / 1e6 if cpu > 0 else 0.0
                m = model.get((t, load))
                ratio = f"{m / bs:.1f}x" if m and bs else "-"
                mtxt = f"{m:.3f}" if m else "-"
                print(f"{t:<7}{load:<10}{rate:>6.2f}{bs:>14.3f}{mtxt:>12}{ratio:>8}", flush=True)
    print("# model_speed's rows (Mrcyc/s per wall second, cpu = its CPU share, Mrcyc/cpu-s):")
    for line in model_out.splitlines():
        if re.match(r"^\d+x\d+x\d+$", line) or re.match(r"^\s+1 ", line):
            print(line)


if __name__ == "__main__":
    main(sys.argv)
