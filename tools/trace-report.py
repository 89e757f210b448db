#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trace-report.py LOG [--dev MAJ,MIN] [--png FILE] - read a block trace.

LOG is anything holding trace lines in blkparse's default layout: a
serial log of a boot with blktrace=<disk> show=blktrace (printk time
stamps are skipped), a file saved by the user-space blktrace, or real
`blkparse` output from Linux.  Prints a summary per operation, as
Linux's btt(1) would sum it up:

    op  queued  merged  requests  completed  avg_q2c_us  avg_d2c_us
    R      512     480        32         32       812.4       101.3
    dispatch order: 31 requests, 2 descents (a lower sector than the one before)

queued = Q events (bios), merged = M + F, requests = D (dispatched),
descents count how often the dispatched sector went down: a sweeping
elevator descends once per sweep, arrival order about every other time;
completed = C; q2c is a bio's time from Q to the C of the request that
carried it (what the submitter waited), d2c a request's time in the
device (D to C).  With --png, also draws sector against time for every
dispatch (D), reads and writes in two colours, with gnuplot -- the picture
in which an elevator's sweep is seen.  --dev picks one device when the
log holds several.

Debian's btt and iowatcher read the binary trace (docs/block.md, "The
binary trace"); use them for Q2C/D2C distributions, seeks and movies.
This script stays for what they do not do: it reads the text trace where
it already is -- the serial log of any boot, with no binary capture to a
second disk -- and it counts descents, the one figure that tells an
elevator's sweep from arrival order (scenario elevator-sweep checks it).
Its parser also serves tools/ext2-perf.py, tools/cscan-model.py and the
scenario runner's trace checks.

Exit status: 0, 1 if no trace line was found, 2 on bad arguments or a
missing gnuplot.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

# "  8,0    0        1     0.000000000   697  Q   W 223490 + 8 [kjournald]"
LINE_RE = re.compile(
    r"^(?:\[\s*\d+\.\d+\]\s*)?"                     # a printk time stamp
    r"\s*(\d+),(\d+)\s+(\d+)\s+(\d+)\s+(\d+\.\d+)\s+(\d+)\s+"
    r"([A-Z]{1,2})\s+([A-Z]+)\s*(.*)$")
RANGE_RE = re.compile(r"^(\d+) \+ (\d+)")


def parse(lines, dev=None):
    """The trace events: dicts with dev, time, action, rwbs, sector, sectors."""
    events = []
    for line in lines:
        m = LINE_RE.match(line.rstrip("\n"))
        if not m:
            continue
        d = "%s,%s" % (m.group(1), m.group(2))
        if dev and d != dev:
            continue
        ev = {"dev": d, "time": float(m.group(5)), "action": m.group(7),
              "rwbs": m.group(8), "sector": None, "sectors": 0, "rest": m.group(9)}
        r = RANGE_RE.match(m.group(9))
        if r:
            ev["sector"], ev["sectors"] = int(r.group(1)), int(r.group(2))
        events.append(ev)
    return events


def op_of(rwbs):
    """R, W, D (discard) or F (flush) from the RWBS letters."""
    core = rwbs.lstrip("F") or "F"
    if core.startswith("N") and rwbs.startswith("F"):
        return "F"
    return core[0]


def summarise(events):
    """Per op: counts and mean latencies in microseconds."""
    stats = collections.OrderedDict()
    queued = collections.defaultdict(list)          # dev -> [(sector, end, time, op)]
    dispatched = {}                                  # (dev, sector, sectors) -> time

    def st(op):
        return stats.setdefault(op, {"queued": 0, "merged": 0, "requests": 0,
                                     "completed": 0, "q2c": [], "d2c": []})
    for ev in events:
        a, op = ev["action"], op_of(ev["rwbs"])
        if a in ("P", "U", "UT"):
            continue
        if a == "Q" and ev["sector"] is not None:
            st(op)["queued"] += 1
            queued[ev["dev"]].append((ev["sector"], ev["sector"] + ev["sectors"],
                                      ev["time"], op))
        elif a in ("M", "F"):
            st(op)["merged"] += 1
        elif a == "D":
            st(op)["requests"] += 1
            dispatched[(ev["dev"], ev["sector"], ev["sectors"])] = ev["time"]
        elif a == "C":
            s = st(op)
            s["completed"] += 1
            key = (ev["dev"], ev["sector"], ev["sectors"])
            if key in dispatched:
                s["d2c"].append(ev["time"] - dispatched.pop(key))
            if ev["sector"] is None:
                continue
            start, end, left = ev["sector"], ev["sector"] + ev["sectors"], []
            for q in queued[ev["dev"]]:
                if q[3] == op and start <= q[0] and q[1] <= end:
                    s["q2c"].append(ev["time"] - q[2])
                else:
                    left.append(q)
            queued[ev["dev"]] = left
    return stats


def mean_us(values):
    return sum(values) / len(values) * 1e6 if values else 0.0


def report(stats, out=sys.stdout):
    out.write("op  queued  merged  requests  completed  avg_q2c_us  avg_d2c_us\n")
    for op, s in stats.items():
        out.write("%-2s %7d %7d %9d %10d %11.1f %11.1f\n" % (
            op, s["queued"], s["merged"], s["requests"], s["completed"],
            mean_us(s["q2c"]), mean_us(s["d2c"])))


def descents(events):
    """(requests dispatched, how often the sector went down), per device."""
    last, n, down = {}, 0, 0
    for ev in events:
        if ev["action"] != "D" or ev["sector"] is None:
            continue
        n += 1
        if ev["dev"] in last and ev["sector"] < last[ev["dev"]]:
            down += 1
        last[ev["dev"]] = ev["sector"]
    return n, down


def plot(events, png, title):
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        print("trace-report: gnuplot not found (Debian: apt-get install gnuplot-nox)",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for ev in events:
            if ev["action"] == "D" and ev["sector"] is not None:
                op = op_of(ev["rwbs"])
                if op not in files:
                    files[op] = open(os.path.join(tmp, op + ".dat"), "w")
                files[op].write("%.9f %d\n" % (ev["time"], ev["sector"]))
        for f in files.values():
            f.close()
        if not files:
            print("trace-report: no dispatch (D) events to plot", file=sys.stderr)
            return 1
        names = {"R": "reads", "W": "writes", "D": "discards", "F": "flushes"}
        script = ["set terminal png size 900,500", "set output '%s'" % png,
                  "set title '%s'" % title.replace("'", ""),
                  "set xlabel 'time (s)'", "set ylabel 'sector'", "set key outside",
                  "plot " + ", ".join("'%s' using 1:2 with linespoints pt 7 ps 0.5 title '%s'"
                                      % (os.path.join(tmp, op + ".dat"), names.get(op, op))
                                      for op in sorted(files))]
        p = subprocess.run([gnuplot], input="\n".join(script) + "\n", text=True,
                           capture_output=True)
        if p.returncode != 0:
            print("trace-report: gnuplot failed: %s" % p.stderr.strip(), file=sys.stderr)
            return 2
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log")
    ap.add_argument("--dev", help="MAJ,MIN of the device to report")
    ap.add_argument("--png", help="draw sector against time for dispatches")
    ap.add_argument("--title", default="dispatched requests: sector against time")
    args = ap.parse_args(argv)
    with open(args.log, errors="replace") as f:
        events = parse(f, args.dev)
    if not events:
        print("trace-report: no trace lines in %s" % args.log, file=sys.stderr)
        return 1
    report(summarise(events))
    print("dispatch order: %d requests, %d descents (a lower sector than the one before)"
          % descents(events))
    if args.png:
        return plot(events, args.png, args.title)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
