"""mpifpga-compare-app's two runs of the application through mpifpga-run:
profile (--profile: plain MPICH, each call site timed) and offload
(--instances: the collectives offloaded to the modeled switch)."""
import os
import subprocess
import time

from .app_cli import note
from .common import RunError, fmt_cmd, wait_noting
from .reports import DataError, load_report

RUNS = (("profile", "--profile"), ("offload", "--instances"))  # (label, mpifpga-run flag)
# settings the runs set themselves: from the environment they would break them
OWN_SETTINGS = ("MPIFPGA_ENABLE", "MPIFPGA_REPORT", "MPIFPGA_PROFILE")


def file_tail(path, n=20):
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return []
    return lines[-n:]


def run_app(label, cmd, out_path, err_path, env, quiet_after=30.0):
    """Run cmd with its stdout and stderr in files; say 'still running'
    every quiet_after seconds.  Returns seconds.  Raises RunError naming the
    command, with its stderr tail, on a non-zero exit."""
    note("%s run: %s" % (label, fmt_cmd(cmd)))
    t0 = time.monotonic()
    try:
        with open(out_path, "wb") as fo, open(err_path, "wb") as fe:
            try:
                p = subprocess.Popen(cmd, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL,
                                     env=env, start_new_session=True)
            except OSError as e:
                raise RunError("the %s run: cannot run %s: %s" % (label, cmd[0], e))
            wait_noting(p, "%s run" % label, t0, quiet_after, note)
    except OSError as e:
        raise RunError("the %s run: cannot write its output: %s" % (label, e))
    secs = time.monotonic() - t0
    if p.returncode != 0:
        how = ("exit %d" % p.returncode if p.returncode > 0 else "signal %d" % -p.returncode)
        msg = "the %s run failed (%s after %.1f s)\n  command: %s" % (label, how, secs, fmt_cmd(cmd))
        tail = file_tail(err_path)
        if tail:
            msg += "\n  its stderr (last %d lines; all of it in %s):\n" % (len(tail), err_path)
            msg += "\n".join("    " + l for l in tail)
        else:
            msg += "\n  (no stderr output; its stdout is in %s)" % out_path
        raise RunError(msg)
    note("%s run: done in %.1f s" % (label, secs))
    return secs


def verified(regex, out_path, err_path):
    for path in (out_path, err_path):
        try:
            with open(path, "rb") as f:
                text = f.read().decode("utf-8", "replace")
        except OSError:
            continue
        if regex.search(text):
            return True
    return False


def tool_version(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=20,
                           stdin=subprocess.DEVNULL)
        lines = (p.stdout or p.stderr).strip().splitlines()
        return lines[0] if p.returncode == 0 and lines else None
    except (OSError, subprocess.TimeoutExpired):
        return None



def run_environment():
    """This process's environment without the settings the runs set
    themselves (each ignored with a note)."""
    env = dict(os.environ)
    for k in OWN_SETTINGS:
        if k in env:
            note("ignoring %s=%s from the environment (the runs set their own mode "
                 "and report)" % (k, env[k]))
            env.pop(k)
    if env.get("MPIFPGA_ENGINE") == "none":  # would keep the offload run off the engine
        note("ignoring MPIFPGA_ENGINE=none from the environment")
        env.pop("MPIFPGA_ENGINE")
    return env


def run_one(o, launcher, label, flag, net, env, runs, verification):
    """One run; its report's path.  Raises RunError if it fails, fails its
    verification or writes no report."""
    outdir = o["out"]
    rep = os.path.join(outdir, label + ".json")
    out_p = os.path.join(outdir, label + ".out")
    err_p = os.path.join(outdir, label + ".err")
    try:
        os.remove(rep)  # no stale report from an earlier run
    except FileNotFoundError:
        pass
    except OSError as e:
        raise RunError("cannot remove the old report '%s': %s" % (rep, e))
    cmd = [launcher, flag] + net + ["--report", rep, "-n", str(o["ranks"])] + o["program"]
    secs = run_app(label, cmd, out_p, err_p, env)
    runs[label] = {"command": fmt_cmd(cmd), "elapsed_s": round(secs, 3),
                   "stdout": out_p, "stderr": err_p}
    if o["verify"]:
        good = verified(o["verify"], out_p, err_p)
        verification[label] = "passed" if good else "failed"
        if not good:
            raise RunError("the application's verification did not pass under %s: "
                           "'%s' matches neither its stdout (%s) nor its stderr (%s)"
                           % (label, o["verify"].pattern, out_p, err_p))
        note("%s run: verification passed ('%s' found)" % (label, o["verify"].pattern))
    else:
        verification[label] = "exit status 0"
    if not os.path.exists(rep):
        raise RunError("the %s run wrote no report '%s' (does this libmpifpga "
                       "support mpifpga-run %s?)" % (label, rep, flag))
    return rep


def run_both(o, launcher, env, runs, verification):
    """The profile run, then the offload run; their loaded reports
    (profile, offload, {label: path}).  Raises RunError."""
    net = ((["--ppn", str(o["ppn"])] if o["ppn"] else []) +
           (["--topology", o["topology"]] if o["topology"] else []) +
           (["--params", o["params"]] if o["params"] else []))
    paths = {}
    for label, flag in RUNS:
        paths[label] = run_one(o, launcher, label, flag, net, env, runs, verification)
    if not o["verify"]:
        note("note: only the exit status of the runs was checked (--verify REGEX "
             "checks the application's own output)")
    verification["checked"] = "regex" if o["verify"] else "exit status only"
    try:
        prof = load_report(paths["profile"], "profile")
        off = load_report(paths["offload"], "offload")
    except DataError as e:
        raise RunError(str(e))
    return prof, off, paths
