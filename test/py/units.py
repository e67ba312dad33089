"""Unit tests of the pure functions of the mpifpga_compare package (the
python behind mpifpga-compare and mpifpga-compare-app): size and option
parsing, number formats, the table, CSV and gnuplot formatters, report
loading and instance matching.  Prints TAP (one line per test).

usage: python3 units.py PACKAGE_PARENT_DIR DATA_DIR"""
import io
import os
import sys
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
DATA = sys.argv[2]

from mpifpga_compare import app_cli, app_csv, app_match, cli, common, csvout, osu  # noqa: E402
from mpifpga_compare import plot, reports, table  # noqa: E402
from mpifpga_compare.common import RunError, UsageError  # noqa: E402

LAUNCH = common.Launch("9.9", "/opt/x/bin", "/nowhere")


def sweep_row(coll, b, off, mpich, model, sim):
    r = {"collective": coll, "ranks": 2, "bytes": b, "offload_us": off, "mpich_us": mpich,
         "baseline_model_us": model, "offload_sim_us": sim}
    r["speedup_vs_mpich"] = mpich / off if mpich is not None else None
    r["speedup_vs_model"] = model / off if model is not None else None
    return r


class Sizes(unittest.TestCase):
    def test_suffixes(self):
        self.assertEqual(cli.parse_size("8", "maximum"), 8)
        self.assertEqual(cli.parse_size("1K", "maximum"), 1024)
        self.assertEqual(cli.parse_size("2m", "maximum"), 2 << 20)
        self.assertEqual(cli.parse_size(" 1G ", "maximum"), 1 << 30)

    def test_bad_sizes(self):
        for bad in ("0", "lots", "K", "-8", "1.5K", ""):
            with self.assertRaises(UsageError, msg=bad):
                cli.parse_size(bad, "minimum")

    def test_positive(self):
        self.assertEqual(common.parse_positive("-n", "12"), 12)
        for bad in ("0", "x", "-1", ""):
            with self.assertRaises(UsageError):
                common.parse_positive("-n", bad)


class SweepOptions(unittest.TestCase):
    def test_defaults(self):
        o = cli.parse_args([], LAUNCH)
        self.assertEqual((o["colls"], o["ranks"], o["min"], o["max"], o["format"]),
                         (["allreduce"], 8, 8, 1 << 20, "table"))

    def test_values(self):
        o = cli.parse_args(["-c", "bcast,bcast,gather", "-n", "4", "-m", "1K", "--format=csv",
                            "--no-mpich", "--topology", "torus:2x2x1"], LAUNCH)
        self.assertEqual((o["colls"], o["ranks"], o["min"], o["max"], o["format"], o["mpich"],
                          o["topology"]), (["bcast", "gather"], 4, 8, 1024, "csv", False,
                                           "torus:2x2x1"))
        self.assertEqual(cli.parse_args(["-m", "4"], LAUNCH)["min"], 4)

    def test_all_leaves_alltoall_out_above_32_ranks(self):
        o = cli.parse_args(["-c", "all", "-n", "64"], LAUNCH)
        self.assertNotIn("alltoall", o["colls"])
        self.assertEqual(len(o["colls"]), len(cli.COLLECTIVES) - 1)
        with self.assertRaises(UsageError):
            cli.parse_args(["-c", "alltoall", "-n", "33"], LAUNCH)

    def test_bad(self):
        for argv in (["-m", "64:8"], ["--format", "xml"], ["-c", "nosuch"], ["--no-plots=1"],
                     ["-c"], ["stray"], ["--out="], ["-n", "--no-plots"]):
            with self.assertRaises(UsageError, msg=argv):
                cli.parse_args(argv, LAUNCH)

    def test_usage_names_bindir(self):
        self.assertIn("else /opt/x/bin, else PATH", cli.usage("/opt/x/bin"))
        self.assertNotIn("@bindir@", cli.usage("/opt/x/bin"))
        self.assertIn(",".join(csvout.CSV_COLUMNS), cli.USAGE)


class Formats(unittest.TestCase):
    def test_ftab(self):
        self.assertEqual([common.ftab(v) for v in (None, 0, 0.005, 1.234, 999.99, 1234.56)],
                         ["-", "0.00", "0.005", "1.23", "999.99", "1234.6"])

    def test_fnum_fmt_cmd_gp_quote(self):
        self.assertEqual((common.fnum(None, "%.3f"), common.fnum(2, "%.3f")), ("", "2.000"))
        self.assertEqual(common.fmt_cmd(["a b", "c"], {"X": "1 2"}), "X='1 2' 'a b' c")
        self.assertEqual(common.gp_quote('a"b\\c'), '"a\\"b\\\\c"')

    def test_human_bytes(self):
        self.assertEqual([plot.human_bytes(b) for b in (8, 1024, 1536, 1 << 20)],
                         ["8 B", "1 KiB", "1536 B", "1 MiB"])


class SweepOutputs(unittest.TestCase):
    rows = [sweep_row("bcast", 8, 2.0, None, 5.0, 1.5), sweep_row("bcast", 16, 2.5, 10.0, 6.0, 2.0)]
    meta = {"ranks": 2, "topology": "torus:2x1x1", "params": "u280", "date": "D"}

    def test_csv(self):
        self.assertEqual(csvout.csv_text(self.rows).splitlines(), [
            ",".join(csvout.CSV_COLUMNS),
            "bcast,2,8,2.000,,5.000,1.500,,2.5000",
            "bcast,2,16,2.500,10.000,6.000,2.000,4.0000,2.4000"])

    def test_table(self):
        lines = table.table("bcast", self.rows, self.meta).splitlines()
        self.assertEqual(lines[0], "# mpifpga-compare: bcast, 2 ranks, torus:2x1x1, params u280")
        self.assertEqual(lines[2].split(), ["8", "2.00", "-", "5.00", "-", "2.50"])
        self.assertEqual(lines[3].split(), ["16", "2.50", "10.00", "6.00", "4.00", "2.40"])

    def test_plot_script(self):
        terms = [("png size 900,600", "png"), ("svg size 900,600", "svg")]
        script, bases = plot.plot_script(self.rows, ["bcast"], self.meta, terms)
        self.assertEqual(bases, ["latency_bcast", "speedup"])
        self.assertIn("$lat_bcast << EOD\n# bytes offload_us offload_sim_us baseline_model_us "
                      "mpich_us\n8 2.0 1.5 5.0 NaN\n16 2.5 2.0 6.0 10.0\nEOD", script)
        self.assertEqual(script.count("\nset output "), 4)  # 2 figures x PNG, SVG


class OsuCsv(unittest.TestCase):
    def test_parse(self):
        text = "# comment\ncollective,bytes,avg_us,min_us,max_us,iterations,validation\n" \
               "bcast,8,1.5,1.0,2.0,10,ok\nreduce,8,9,9,9,10,\n"
        rows = osu.parse_csv(text, osu.OSU_HEADER, "t", ["x"])
        res = osu.osu_results(rows, "bcast", "t", ["x"])
        self.assertEqual(res[8]["avg"], 1.5)
        self.assertEqual(list(res), [8])
        self.assertIsNone(osu.num("nan"))

    def test_bad(self):
        with self.assertRaises(RunError):
            osu.parse_csv("a,b\n1,2\n", osu.OSU_HEADER, "t", ["x"])
        with self.assertRaises(RunError):
            osu.parse_csv("# only a comment\n", osu.OSU_HEADER, "t", ["x"])


class AppReports(unittest.TestCase):
    def load(self):
        return (reports.load_report(os.path.join(DATA, "app_profile.json"), "profile"),
                reports.load_report(os.path.join(DATA, "app_offload.json"), "offload"))

    def test_load(self):
        prof, off = self.load()
        self.assertEqual((prof["nranks"], prof["wall_s"], len(prof["instances"])), (4, 10.0, 3))
        self.assertEqual(prof["instances"][0]["key"], ("cg_poisson", "0x1000", "bcast"))
        with self.assertRaises(reports.DataError):
            reports.load_report(os.path.join(DATA, "app_profile.json"), "offload")

    def test_compare(self):
        prof, off = self.load()
        warnings, notes = [], []
        rows, app = app_match.compare(prof, off, warnings, notes)
        # the numbers test/cli_compare_app.sh documents: offload 7 s, 30 %; model 8 s, 12.5 %
        self.assertAlmostEqual(app["offload_s"], 7.0)
        self.assertAlmostEqual(app["improvement_pct"], 30.0)
        self.assertAlmostEqual(app["model_baseline_s"], 8.0)
        self.assertAlmostEqual(app["model_improvement_pct"], 12.5)
        self.assertEqual(warnings, [])
        base = [r["baseline_us"] for r in rows]
        self.assertEqual(base, sorted(base, reverse=True))
        app = dict([("application", "cg")] + list(app.items()))
        line = app_csv.app_csv(app).splitlines()[1]
        self.assertEqual(line, "cg,4,10.000000,4.000000,7.000000,30.000,8.000000,12.500")

    def test_offload_status(self):
        o = {"collective": "bcast", "calls": 4.0, "offloaded": 0.0}
        self.assertEqual(app_match.offload_status(o, {"bcast": "size:4"}), "fallback(size:4)")
        o["offloaded"] = 1.0
        self.assertEqual(app_match.offload_status(o, {}), "partial(1/4)")
        o["offloaded"] = 4.0
        self.assertEqual(app_match.offload_status(o, {}), "yes")
        self.assertEqual(app_match.offload_status(None, {}), "-")


class AppOptions(unittest.TestCase):
    def test_program(self):
        o = app_cli.parse_args(["-n", "4", "--verify", "-ok$", "prog", "-x"], LAUNCH)
        self.assertEqual((o["ranks"], o["program"], o["verify"].pattern), (4, ["prog", "-x"], "-ok$"))

    def test_bad(self):
        for argv in (["--bogus"], ["-n", "2"], ["--", "true"], ["--from-reports", "a"],
                     ["--from-reports", "a", "b", "-n", "2"], ["--verify", "(", "-n", "2", "t"]):
            with self.assertRaises(UsageError, msg=argv):
                app_cli.parse_args(argv, LAUNCH)


class Tap(unittest.TextTestResult):
    """One TAP line per test."""
    n = 0

    def tap(self, test, ok, why=""):
        Tap.n += 1
        print("%s %d - %s%s" % ("ok" if ok else "not ok", Tap.n, test.id().split(".", 1)[1],
                                "" if ok else "\n# " + why.replace("\n", "\n# ")))

    def addSuccess(self, test):
        super().addSuccess(test)
        self.tap(test, True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.tap(test, False, self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self.tap(test, False, self._exc_info_to_string(err, test))


if __name__ == "__main__":
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    result = unittest.TextTestRunner(stream=io.StringIO(), resultclass=Tap).run(suite)
    print("1..%d" % Tap.n)
    sys.exit(0 if result.wasSuccessful() and Tap.n > 0 else 1)
