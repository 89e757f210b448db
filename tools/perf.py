#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""perf.py [--runs N] [--icount-only] [--cmdline OPTS] - Spindle's performance, in figures that repeat.

`make perf` runs this.  It boots the fixed workloads of
tests/qemu/perf/perf.scn (bench's O_DIRECT reads and writes on null_blk, a
RAM disk and QEMU null-co disks on AHCI and IDE; buffered dd of a block
device) and tests/qemu/perf/perf-file.scn (buffered dd of a file on ext2,
on the RAM disk) twice each:

  under -icount shift=0,sleep=off   QEMU counts guest instructions as
                                    nanoseconds, so a run's "time" is its
                                    instruction count: the same figures
                                    come back on a busy machine, run after
                                    run.  Reported: guest instructions per
                                    I/O (per MiB for dd).
  in wall-clock time                what a user sees on this machine, with
                                    its noise: IOPS and MB/s, the median
                                    of --runs boots (default 3).

and prints one table.  --cmdline adds kernel options to every boot
(vdso=0: the clock as a system call, docs/performance.md's "The clock in
user space").  docs/performance.md explains the method (what
icount models and what it does not) and keeps the latest table.
Exit status: 0, or 1 if a boot failed (its log is in build/qemu/).
"""
import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "tests/qemu/perf/perf.scn"
# Kept apart from perf.scn, whose lines tools/compare-linux translates for
# Linux one by one: a file system on Linux is not part of that comparison.
FILE_SCENARIO = ROOT / "tests/qemu/perf/perf-file.scn"
WORK = ROOT / "build/perf"

BENCH_RE = re.compile(r"^BENCH dev=(\S+) rw=(\S+) bs=(\d+) qd=(\d+) iops=(\d+) MBps=([\d.]+)")
# bench's io_uring engine names itself (and its options) at the line's end
ENGINE_RE = re.compile(r" engine=(\S+)$")
DD_RE = re.compile(r"^(\d+) bytes .* copied, ([\d.]+) s")


ICOUNT = "qemu: -icount shift=0,sleep=off\n"
EXTRA = ""      # --cmdline's "cmdline:" line, added to every boot


def run_scenario(name, text):
    """Boot scenario text once, as build/perf/<name>.scn; its cleaned serial
    log.  The boot must pass its own judgement (tests/qemu/run.py)."""
    WORK.mkdir(parents=True, exist_ok=True)
    scn = WORK / (name + ".scn")
    scn.write_text(text)
    r = subprocess.run([sys.executable, str(ROOT / "tests/qemu/run.py"), str(scn)],
                       cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout)
        raise SystemExit("perf: the %s boot failed (see build/qemu/%s.log)" % (name, name))
    return (ROOT / "build/qemu" / (name + ".log")).read_text()


def boot(name, icount, text=None):
    """Run the workloads once (perf.scn, or text); their parsed figures."""
    text = text if text is not None else SCENARIO.read_text()
    return parse(run_scenario(name, text + (ICOUNT if icount else "") + EXTRA))


def boot_all(name, icount):
    """perf.scn's workloads, then perf-file.scn's: their figures, in order."""
    out = boot(name, icount)
    out.update(boot(name + "-file", icount, FILE_SCENARIO.read_text()))
    return out


def workload(rw, bs, qd, engine=None):
    """A row's name: workload("randread", 4096, 32) -> 'randread 4K QD32';
    an io_uring row names its engine and options, which the BENCH line
    does: 'randread 4K QD32 io_uring,hipri'."""
    size = "%dK" % (bs // 1024) if bs < 1 << 20 else "%dM" % (bs >> 20)
    name = "%s %s QD%s" % (rw, size, qd)
    return name + " " + engine if engine and engine.startswith("io_uring") else name


def parse(log):
    """{key: (ns per I/O, IOPS, MB/s)}; key is (dev, workload) in run order."""
    out, dd_what = {}, None
    for line in log.splitlines():
        line = re.sub(r"^\[[ \d.]+\] ", "", line)
        m = BENCH_RE.match(line)
        if m:
            dev, rw, bs, qd, iops, mbps = m.groups()
            iops = int(iops)
            engine = ENGINE_RE.search(line)
            key = (dev, workload(rw, int(bs), qd, engine.group(1) if engine else None))
            out[key] = (1e9 / iops if iops else float("inf"), iops, float(mbps))
            continue
        if line.startswith("PERF dd "):
            dd_what = line[len("PERF dd "):].split(None, 2)
            continue
        m = DD_RE.match(line)
        if m and dd_what:
            # "PERF dd read": of the block device sda;
            # "PERF dd read ram0 ext2 file": of what the rest names
            op, dev, what = (dd_what + ["sda", ""])[:3]
            nbytes, secs = int(m.group(1)), float(m.group(2))
            mib = nbytes / (1 << 20)
            out[(dev, "dd %s 1M (buffered%s)" % (op, ", " + what if what else ""))] = (
                secs * 1e9 / mib, mib / secs if secs else 0, nbytes / secs / 1e6 if secs else 0)
            dd_what = None
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="wall-clock boots (median)")
    ap.add_argument("--icount-only", action="store_true", help="skip the wall-clock boots")
    ap.add_argument("--cmdline", default="", help="kernel options added to every boot")
    args = ap.parse_args()
    global EXTRA
    EXTRA = "cmdline: %s\n" % args.cmdline if args.cmdline else ""

    counted = boot_all("perf-icount", True)
    walls = [] if args.icount_only else [boot_all("perf-wall-%d" % i, False)
                                         for i in range(args.runs)]

    print("%-8s %-40s %14s %12s %10s" % ("device", "workload", "instr per I/O", "IOPS", "MB/s"))
    for key, (ns, _, _) in counted.items():
        dev, what = key
        unit = "per MiB" if what.startswith("dd") else ""
        if walls and all(key in w for w in walls):
            iops = statistics.median(w[key][1] for w in walls)
            mbps = statistics.median(w[key][2] for w in walls)
            wall = "%12.0f %10.1f" % (iops, mbps)
        else:
            wall = "%12s %10s" % ("-", "-")
        print("%-8s %-40s %14s %s%s" % (dev, what, "{:,.0f}".format(ns), wall,
                                        "   (instructions " + unit + ")" if unit else ""))
    if walls:
        print("(instructions: one -icount boot, exact; IOPS and MB/s: median of %d "
              "wall-clock boots)" % len(walls))
    return 0


if __name__ == "__main__":
    sys.exit(main())
