#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""stress.py [-n N] [-j J] [--load L] [SCENARIO...] - is any scenario flaky?

`make stress N=20` runs this.  It runs the QEMU scenarios
(tests/qemu/run.py; every one, or the names and globs given) N times,
J guests at once (default 4, on a machine with fewer cores: the guests
compete for CPU as they would on a loaded CI machine), optionally with L
busy processes of background load (niced, ended with the runs), and
tallies the verdicts per scenario (with --kargs and --reject, as test-debug
boots them, on as many CPUs: `make stress DEBUG=1`):

    scenario                   passed  runs  failures
    ide-timeout                  19/20        run 7: expect (line 11) not found ... build/stress/run-07/ide-timeout.log

A scenario whose verdict is not the same in every run is flaky: the
closing line counts them, and the exit status is 1 if there is any (or
if a scenario failed every time).  The logs of every failing run are
kept in build/stress/run-<k>/ (the cleaned log, the raw serial output,
QEMU's command line and stderr), so a failure can be read after the
scenario has passed again.  Runs go one after the other; each is a
whole `run.py -j J` over the scenarios chosen.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QEMU_BUILD = ROOT / "build/qemu"
OUT = ROOT / "build/stress"
KEEP = ("serial.raw", "qemu.cmd", "qemu.stderr", "cmdline", "init.sh")
LINE_RE = re.compile(r"^(PASS|FAIL) (\S+?)(?::| \()(.*)$")


def start_load(n):
    """n niced busy loops in their own session each; their pids."""
    procs = []
    for _ in range(n):
        procs.append(subprocess.Popen(["nice", "-n", "19", "sh", "-c", "while :; do :; done"],
                                      start_new_session=True))
    return procs


def stop_load(procs):
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


def keep_failure(k, name):
    """Copy a failing scenario's log and run files out of build/qemu
    before the next run overwrites them; the kept log's path."""
    dest = OUT / ("run-%02d" % k)
    dest.mkdir(parents=True, exist_ok=True)
    log = QEMU_BUILD / (name + ".log")
    kept = dest / (name + ".log")
    if log.exists():
        shutil.copy(log, kept)
    work = QEMU_BUILD / name
    for f in KEEP:
        if (work / f).exists():
            (dest / name).mkdir(exist_ok=True)
            shutil.copy(work / f, dest / name / f)
    return kept


def one_run(k, jobs, scenarios, extra):
    """One pass of run.py; {scenario: None (passed) or its first reason}."""
    cmd = [sys.executable, str(ROOT / "tests/qemu/run.py"), "-j", str(jobs)] + extra + scenarios
    p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    verdicts = {}
    for line in p.stdout.splitlines():
        m = LINE_RE.match(line)
        if not m:
            continue
        verdict, name, rest = m.groups()
        verdicts[name] = None if verdict == "PASS" else rest.strip()
    if not verdicts:
        sys.exit("stress: run.py ran nothing:\n" + p.stdout[-2000:])
    for name, reason in verdicts.items():
        if reason is not None:
            verdicts[name] = "%s (%s)" % (reason, os.path.relpath(keep_failure(k, name), ROOT))
    return verdicts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=20, help="runs of the suite (default 20)")
    ap.add_argument("-j", dest="jobs", type=int, default=4, help="guests at once (default 4)")
    ap.add_argument("--load", type=int, default=0, metavar="L",
                    help="busy background processes during the runs (default 0)")
    ap.add_argument("--kargs", default="", metavar="ARGS",
                    help="kernel arguments added to every boot (make stress DEBUG=1 passes "
                         "test-debug's: the debug allocators and lockdep)")
    ap.add_argument("--cpus", type=int, default=0, metavar="N",
                    help="CPUs of every guest, as run.py --cpus (make stress DEBUG=1 passes "
                         "test-debug's)")
    ap.add_argument("--reject", default="", metavar="RE",
                    help="a log line matching RE fails the scenario (test-debug's reports)")
    ap.add_argument("scenarios", nargs="*", help="names or globs, as run.py takes them")
    args = ap.parse_args()
    extra = (["--kargs", args.kargs] if args.kargs else []) + \
            (["--cpus", str(args.cpus)] if args.cpus else []) + \
            (["--reject", args.reject] if args.reject else [])
    if args.n < 1 or args.jobs < 1 or args.load < 0:
        ap.error("-n and -j must be positive, --load not negative")

    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    tally = {}                  # scenario -> [passes, runs, [failures]]
    load = start_load(args.load)
    start = time.monotonic()
    try:
        for k in range(1, args.n + 1):
            t0 = time.monotonic()
            verdicts = one_run(k, args.jobs, args.scenarios, extra)
            failed = sorted(n for n, r in verdicts.items() if r is not None)
            print("run %d of %d: %d scenarios, %d failed%s (%.0f s)"
                  % (k, args.n, len(verdicts), len(failed),
                     ": " + " ".join(failed) if failed else "", time.monotonic() - t0),
                  flush=True)
            for name, reason in verdicts.items():
                t = tally.setdefault(name, [0, 0, []])
                t[1] += 1
                if reason is None:
                    t[0] += 1
                else:
                    t[2].append("run %d: %s" % (k, reason))
    finally:
        stop_load(load)

    print()
    print("%-26s %8s  %s" % ("scenario", "passed", "failures"))
    flaky = always = 0
    for name in sorted(tally):
        passes, runs, failures = tally[name]
        print("%-26s %5d/%-3d %s" % (name, passes, runs, failures[0] if failures else ""))
        for f in failures[1:]:
            print("%-26s %9s %s" % ("", "", f))
        flaky += 0 < passes < runs
        always += passes == 0
    print()
    print("%d runs of %d scenarios, %d guests at once, load %d, %.0f s: %d flaky, %d failed "
          "every run" % (args.n, len(tally), args.jobs, args.load, time.monotonic() - start,
                         flaky, always))
    return 1 if flaky or always else 0


if __name__ == "__main__":
    sys.exit(main())
