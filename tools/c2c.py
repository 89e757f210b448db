#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""c2c.py [--cpus N] [--qd Q] [--size S] [--device nullb|nvme] [--top K] - the cache lines Spindle's CPUs pass between them, per I/O.

The question behind blk-mq: when every CPU submits to its own hardware
queue, what do the CPUs still share?  A lock shows in lock_stat
(docs/locking.md), but a shared counter, a reference count or a flag
written by every CPU costs as much without any lock: each write by one
CPU takes the 64-byte line away from the others' caches, and each of
them pays a cache-to-cache transfer to get it back.  Linux's `perf c2c`
finds such lines on hardware from its memory-sampling counters; QEMU
has none to offer, so this counts them exactly.

How.  It boots Spindle as `make perf-scaling` does (tools/scaling.py:
q35, -smp N, multi-threaded TCG, null_blk with a hardware queue per CPU
or QEMU's NVMe with a queue pair per CPU, one bench job pinned to each
CPU) with the TCG plugin tools/insncount/insncount.c and its `share`
directive: every kernel-mode load and store at a kernel address is
followed, line by line, as MESI caches would hold the line, and each
load of a line another vCPU modified, or store to a line another vCPU
holds, counts one move -- to the line and to the instruction.  The job
runs twice between marks, 1/16 of it and whole, as in compare-linux
--insn-plugin (tools/insncount.py), so start-up and exit cancel; what is
left is divided by the I/Os.  Printed: the moves per I/O in all, then
the K lines that moved most, each with the kernel symbol it lies in (a
variable of the kernel image) or `[heap]` (kmalloc'd or a page: the
functions then say what it is), and the functions whose instructions
moved it.

The count depends on how the vCPUs interleave (host threads, the host's
scheduling): a line every I/O writes on every CPU moves about once per
I/O whatever the host does, a line touched once in a while moves once
in a while -- the first kind is what limits scaling, and it is what
stands out.  The plugin makes the guest many times slower (a callback
per memory access under one lock): keep --size small.

    tools/c2c.py                          # null_blk, 2 CPUs, 8 MiB per job: a minute
    tools/c2c.py --device nvme --top 30
    tools/c2c.py --selftest               # the arithmetic, no boot
Exit status: 0, or 1 if the boot failed (its log is in build/qemu/).
"""
import argparse
import sys
import unittest
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS))
import insncount  # noqa: E402  (the plugin's host side)
import scaling    # noqa: E402  (the workload, and tools/compare-linux as scaling.CL)

CL = scaling.CL
ROOT = CL.ROOT


def per_io(moves, ios, small_ios):
    """moves: parse_moves()'s three segments of one job (before the small
    run -- unused --, the small run, the whole run) -> {(line, pc): moves
    per I/O}, the small run taken off the whole."""
    if len(moves) != 3:
        raise insncount.InsnError("%d marks where three were expected" % len(moves))
    small, whole = moves[1], moves[2]
    n = ios - small_ios
    return insncount.diff_per_io(small, whole, n)


HOT = 0.01


def lines_table(moves, text_syms, all_syms, top):
    """The report: moves per I/O in all, then the top lines, each with its
    symbol and the functions that moved it."""
    funcs = insncount.Symbols(text_syms)
    names = insncount.Symbols(all_syms)
    start = min((a for a, n in all_syms if n == "_text"), default=0)
    end = max((a for a, n in all_syms if n == "_end"), default=0)
    by_line = {}
    for (line, pc), v in moves.items():
        f = funcs.function(pc)
        per = by_line.setdefault(line, {})
        per[f] = per.get(f, 0) + v
    # Lines a program's pages pass through (fork's copies, fresh pages
    # zeroed, a pipe) move a few times each, in the small run as in the
    # whole, and their difference is noise around zero; a line that moves
    # with the I/O moves at least once per HOT I/Os.
    hot = {line: sum(v.values()) for line, v in by_line.items()}
    hot = {line: v for line, v in hot.items() if v >= HOT}
    out = ["moves per I/O on the %d lines that move at least once per %d I/Os: %.2f"
           % (len(hot), round(1 / HOT), sum(hot.values())), "",
           "| line | lies in | moves/IO | moved by (moves/IO) |", "|---|---|---:|---|"]
    for line in sorted(by_line, key=lambda x: -sum(by_line[x].values()))[:top]:
        per = by_line[line]
        where = names.function(line) if start <= line < end else "[heap]"
        who = ", ".join("%s %.2f" % (f, v) for f, v in
                        sorted(per.items(), key=lambda x: -x[1])[:4] if v >= 0.005)
        out.append("| %x | %s | %.2f | %s |" % (line, where, sum(per.values()), who))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cpus", type=int, default=2, help="virtual CPUs and jobs (default 2)")
    ap.add_argument("--qd", type=int, default=4, help="queue depth per job (default 4)")
    ap.add_argument("--size", default="8M", help="bytes per job (default 8M)")
    ap.add_argument("--device", choices=sorted(scaling.DEVICES), default="nullb")
    ap.add_argument("--top", type=int, default=20, help="lines shown (default 20)")
    ap.add_argument("--selftest", action="store_true")
    args = ap.parse_args()
    if args.selftest:
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(SelfTest)
        return 0 if unittest.TextTestRunner(verbosity=1).run(suite).wasSuccessful() else 1
    CL.ensure_plugin("c2c")
    smap = (ROOT / "build/System.map").read_text()
    text_syms = insncount.parse_symbols(smap)
    conf = insncount.conf_text(text_syms, "spindle") + "share\n"
    base = scaling.scenario_text(args.cpus, args.qd, args.size, args.device)
    scn = CL.runner.parse_scenario(base, "c2c")
    jobs = [w for kind, w in CL.workloads(scn) if kind == "job"]
    if len(jobs) != 1:
        raise SystemExit("c2c: %d jobs in the workload, one expected" % len(jobs))
    job = jobs[0]
    ios = job.numjobs * (job.size // job.bs)
    small_ios = job.numjobs * (CL.small_job(job).size // job.bs)
    name = "c2c-%s-%d" % (args.device, args.cpus)
    text = CL.spindle_text(base, 1, insn=True) + CL.plugin_line(name, conf)
    print("c2c: Spindle, q35, %d CPUs, %s: %s" % (args.cpus, args.device, job.scaled(1)),
          flush=True)
    log = CL.perf.run_scenario(name, text)
    try:
        CL.spindle_parse(log, scn)
        raw = (ROOT / "build/perf" / (name + ".insn")).read_text()
        moves = per_io(insncount.parse_moves(raw), ios, small_ios)
    except (OSError, CL.CompareError, insncount.InsnError) as e:
        raise SystemExit("c2c: %s (see build/qemu/%s.log)" % (e, name))
    print(lines_table(moves, text_syms, insncount.parse_all_symbols(smap), args.top))
    return 0


class SelfTest(unittest.TestCase):
    MAP = ("ffffffff80100000 T _text\nffffffff80100100 T blk_mq_get_request\n"
           "ffffffff80100200 T blk_mq_free_request\nffffffff80100300 T _etext\n"
           "ffffffff80200000 D jiffies\nffffffff80200040 D other\n"
           "ffffffff80300000 B _end\n")

    def test_report(self):
        text = ("INSNCOUNT mark=0 vcpu=0 insns=1 kernel=1 halts=0\n"
                "INSNCOUNT mark=1 vcpu=0 insns=1 kernel=1 halts=0\n"
                "INSNSHARE mark=1 ffffffff80200000 ffffffff80100110 10\n"
                "INSNCOUNT mark=2 vcpu=0 insns=1 kernel=1 halts=0\n"
                "INSNSHARE mark=2 ffffffff80200000 ffffffff80100110 160\n"
                "INSNSHARE mark=2 ffff888000123440 ffffffff80100210 100\n"
                "INSNSHARE mark=2 ffff888000123440 ffffffff80100110 80\n"
                "INSNCOUNT mark=exit vcpu=0 insns=1 kernel=1 halts=0\n"
                "INSNSHARE mark=exit ffffffff80200000 ffffffff80100110 5\n")
        segs = insncount.parse_moves(text)
        self.assertEqual(len(segs), 3)
        self.assertEqual(segs[0], {})
        got = per_io(segs, 1600, 100)      # 1500 I/Os between small and whole
        self.assertAlmostEqual(got[(0xffffffff80200000, 0xffffffff80100110)], 0.1)
        report = lines_table(got, insncount.parse_symbols(self.MAP),
                             insncount.parse_all_symbols(self.MAP), 5)
        self.assertIn("moves per I/O on the 2 lines that move at least once per 100 I/Os: "
                      "0.22", report)
        # the heap line first (0.12), then jiffies (0.10)
        rows = [r for r in report.splitlines() if r.startswith("| ff")]
        self.assertEqual(rows[0], "| ffff888000123440 | [heap] | 0.12 | "
                         "blk_mq_free_request 0.07, blk_mq_get_request 0.05 |")
        self.assertEqual(rows[1], "| ffffffff80200000 | jiffies | 0.10 | blk_mq_get_request 0.10 |")

    def test_broken(self):
        with self.assertRaisesRegex(insncount.InsnError, "not a sharing line"):
            insncount.parse_moves("INSNSHARE mark=0 zz\n")
        with self.assertRaisesRegex(insncount.InsnError, "2 marks"):
            per_io([{}, {}], 10, 1)


if __name__ == "__main__":
    sys.exit(main())
