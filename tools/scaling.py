#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scaling.py [--runs N] [--cpus 1,2,4] [--qd Q] [--size S] [--device nullb|nvme] [--png FILE] - the block layer's IOPS against CPUs, Spindle and Linux.

`make perf-scaling` runs this.  For each CPU count N of --cpus it boots
Spindle and Debian's Linux 6.1 on the same QEMU machine (q35, -smp N,
multi-threaded TCG: `-accel tcg,thread=multi`, each virtual CPU a host
thread) with N hardware queues, elevator none, and runs one job N times
at once, one copy pinned to each CPU.  The device (--device):

  nullb     null_blk, submit_queues=N, completing in the submitter's
            context (irqmode=0): the block layer alone (the default)
  nvme      QEMU's NVMe controller with a null-co namespace: a queue
            pair per CPU on both kernels, each with its MSI-X vector

The job, on nullb0 or nvme0n1:

  Spindle   bench nullb0 randread 4k Q S aio numjobs=N
  Linux     fio --ioengine=libaio --iodepth=Q --io_size=S --numjobs=N
                --cpus_allowed=0-(N-1) --cpus_allowed_policy=split
                --group_reporting  (tools/compare-linux's translation)

Boots are interleaved -- Spindle N=1, Linux N=1, Spindle N=2, ... --
--runs times, so that a change in the host's load falls on both kernels
alike.  Printed: per N the median IOPS (min-max over the runs) of each
kernel and its speed-up over N=1, and each boot's host load.  With --png,
the same as a gnuplot picture (IOPS against CPUs, one line per kernel).

This is wall-clock time on the host: the figures depend on its cores and
its load (os.cpu_count() is printed).  A guest can go no faster with
more virtual CPUs than the host has cores to run them: on a 2-core host
the 4-CPU rows cannot scale beyond 2.  docs/performance.md, "Scaling
with CPUs", explains the method and keeps the latest table.
    tools/scaling.py --selftest     the table and the translation, no boot
Exit status: 0, or 1 if a boot or a download failed.
"""
import argparse
import importlib.machinery
import importlib.util
import os
import statistics
import subprocess
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent


def load_compare():
    """tools/compare-linux, whose name has no .py, as a module: its
    translation of bench to fio, its Linux initramfs and its parsers."""
    loader = importlib.machinery.SourceFileLoader("compare_linux", str(TOOLS / "compare-linux"))
    spec = importlib.util.spec_from_loader("compare_linux", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


CL = load_compare()
perf, runner = CL.perf, CL.runner
ROOT = CL.ROOT
WORK = ROOT / "build/scaling"


DEVICES = {
    # --device: (the disk's name in the guest, its scenario lines, what the picture says)
    "nullb": ("nullb0",
              "cmdline: null_blk.nr_devices=1 null_blk.submit_queues=%(n)d null_blk.irqmode=0 "
              "null_blk.hw_queue_depth=64\n",
              "null_blk submit_queues = N"),
    "nvme": ("nvme0n1",
             "disk: n size=8G if=nvme driver=null-co\n",
             "NVMe, a queue pair per CPU"),
}


def scenario_text(ncpus, qd, size, device="nullb"):
    """The workload for N CPUs, in perf.scn's format: what compare-linux
    translates for Linux, and what Spindle boots as it is.  The elevator
    is set with an echo (both kernels take it): Linux's default for a
    single hardware queue would be mq-deadline."""
    dev, lines, _ = DEVICES[device]
    return ("machine: q35\n"
            "memory: 512M\n"
            "cpus: %d\n"
            "qemu: -accel tcg,thread=multi\n"
            "timeout: 600\n"
            "%s"
            "init: echo none > /sys/block/%s/queue/scheduler\n"
            "init: bench %s randread 4k %d %s aio numjobs=%d\n"
            % (ncpus, lines % {"n": ncpus}, dev, dev, qd, size, ncpus))


def iops_of(figures):
    """The one bench/fio row of a parsed log: its IOPS."""
    rows = [v for k, v in figures.items() if not k[1].startswith("dd ")]
    if len(rows) != 1:
        raise CL.CompareError("%d rows where one was expected" % len(rows))
    return rows[0][1]


def speedups(med):
    """{N: median IOPS} -> {N: IOPS(N) / IOPS(smallest N)}."""
    base = med[min(med)]
    return {n: (v / base if base else 0.0) for n, v in med.items()}


def table(spindle, linux):
    """spindle, linux: {N: [IOPS per run]} -> the printed table."""
    s_med = {n: statistics.median(v) for n, v in spindle.items()}
    l_med = {n: statistics.median(v) for n, v in linux.items()}
    s_up, l_up = speedups(s_med), speedups(l_med)
    head = "%4s  %26s %8s  %26s %8s  %9s" % ("CPUs", "Spindle IOPS (min-max)", "speed-up",
                                             "Linux IOPS (min-max)", "speed-up", "S / L")
    out = [head, "-" * len(head)]
    for n in sorted(spindle):
        out.append("%4d  %26s %7.2fx  %26s %7.2fx  %9.2f" % (
            n, "%d (%d-%d)" % (s_med[n], min(spindle[n]), max(spindle[n])), s_up[n],
            "%d (%d-%d)" % (l_med[n], min(linux[n]), max(linux[n])), l_up[n],
            s_med[n] / l_med[n] if l_med[n] else 0.0))
    return "\n".join(out)


def plot(spindle, linux, png, title, device="nullb"):
    """IOPS against CPUs, one line per kernel, with the min-max of the
    runs as error bars; gnuplot (make deps installs gnuplot-nox)."""
    WORK.mkdir(parents=True, exist_ok=True)
    data = WORK / "scaling.dat"
    with open(data, "w") as f:
        f.write("# cpus spindle_median spindle_min spindle_max linux_median linux_min linux_max\n")
        for n in sorted(spindle):
            s, l_ = spindle[n], linux[n]
            f.write("%d %d %d %d %d %d %d\n" % (n, statistics.median(s), min(s), max(s),
                                                statistics.median(l_), min(l_), max(l_)))
    script = "\n".join([
        "set terminal png size 800,500 noenhanced",
        "set output '%s'" % png,
        "set title '%s'" % title.replace("'", ""),
        "set xlabel 'CPUs (-smp N, multi-threaded TCG), %s'" % DEVICES[device][2],
        "set ylabel 'IOPS, 4K random reads'",
        "set xtics (%s)" % ", ".join(str(n) for n in sorted(spindle)),
        "set xrange [0.5:%g]" % (max(spindle) + 0.5),
        "set yrange [0:*]",
        "set key top right",
        "set grid",
        "plot '%s' using 1:2:3:4 with yerrorlines lw 2 title 'Spindle (bench numjobs=N)', \\"
        % data,
        "     '%s' using 1:5:6:7 with yerrorlines lw 2 title 'Linux 6.1 (fio numjobs=N)'"
        % data,
    ]) + "\n"
    if png.exists():
        png.unlink()
    r = subprocess.run(["gnuplot"], input=script, text=True, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    # gnuplot reading a script from its input exits 0 after an error
    if r.returncode or not png.exists():
        raise SystemExit("scaling: gnuplot drew nothing: %s" % r.stdout)


def selftest():
    """The table's arithmetic and the workload's translation for Linux,
    without a boot."""
    import unittest

    class T(unittest.TestCase):
        def test_table(self):
            t = table({1: [100, 90, 120], 2: [190, 200, 150]}, {1: [50, 50, 50], 2: [75, 80, 70]})
            rows = t.splitlines()
            self.assertIn("100 (90-120)", rows[2])
            self.assertIn("1.00x", rows[2])
            self.assertIn("190 (150-200)", rows[3])
            self.assertIn("1.90x", rows[3])     # Spindle 190 / 100
            self.assertIn("1.50x", rows[3])     # Linux 75 / 50
            self.assertTrue(rows[3].endswith("2.53"))   # 190 / 75

        def test_workload(self):
            scn = runner.parse_scenario(scenario_text(2, 4, "32M"), "t")
            self.assertEqual(scn.cpus, 2)
            self.assertEqual(CL.module_params(scn)["null_blk"],
                             ["nr_devices=1", "submit_queues=2", "irqmode=0", "hw_queue_depth=64"])
            jobs = [w for k, w in CL.workloads(scn) if k == "job"]
            self.assertEqual(len(jobs), 1)
            a = jobs[0].fio_args("/dev/nullb0", 1)
            for want in ("--numjobs=2", "--cpus_allowed=0-1", "--iodepth=4",
                         "--io_size=%d" % (32 << 20), "--rw=randread", "--bs=4096"):
                self.assertIn(want, a)
            self.assertIn("bench nullb0 randread 4K 4 32M aio numjobs=2",
                          CL.spindle_text(scenario_text(2, 4, "32M"), 1))

        def test_workload_nvme(self):
            text = scenario_text(2, 4, "32M", "nvme")
            scn = runner.parse_scenario(text, "t")
            self.assertNotIn("null_blk", CL.module_params(scn))
            jobs = [w for k, w in CL.workloads(scn) if k == "job"]
            self.assertEqual(len(jobs), 1)
            a = jobs[0].fio_args("/dev/nvme0n1", 1)
            for want in ("--numjobs=2", "--cpus_allowed=0-1", "--iodepth=4"):
                self.assertIn(want, a)
            self.assertIn("bench nvme0n1 randread 4K 4 32M aio numjobs=2",
                          CL.spindle_text(text, 1))

        def test_iops_of(self):
            self.assertEqual(iops_of({("nullb0", "randread 4K QD4"): (1.0, 1234, 5.0)}), 1234)
            with self.assertRaises(CL.CompareError):
                iops_of({})

    r = unittest.TextTestRunner(verbosity=1).run(unittest.defaultTestLoader.loadTestsFromTestCase(T))
    return 0 if r.wasSuccessful() else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="boots of each kernel at each N")
    ap.add_argument("--cpus", default="1,2,4", help="CPU counts, comma-separated")
    ap.add_argument("--qd", type=int, default=4, help="I/Os in flight per job (default 4)")
    ap.add_argument("--size", default="256M",
                    help="bytes read per job (default 256M: long enough that the jobs' "
                    "start and end skew does not decide the figure)")
    ap.add_argument("--device", choices=sorted(DEVICES), default="nullb",
                    help="null_blk (default) or QEMU's NVMe controller")
    ap.add_argument("--png", type=Path, help="draw the figure into this file")
    ap.add_argument("--selftest", action="store_true", help="test the table and the "
                    "translation; boot nothing")
    args = ap.parse_args()
    if args.selftest:
        return selftest()
    if args.png:
        args.png = args.png.resolve()
    cpus = [int(x) for x in args.cpus.split(",") if x]

    texts, scns, linux_texts = {}, {}, {}
    try:
        for n in cpus:
            texts[n] = scenario_text(n, args.qd, args.size, args.device)
            scns[n] = runner.parse_scenario(texts[n], "scaling")
            CL.workloads(scns[n])
            vmlinuz, initrd, kver = CL.build_linux(scns[n], 1, "initrd-scaling-%s-%d.cpio" % (args.device, n))
            linux_texts[n] = CL.linux_text(texts[n], vmlinuz, initrd)
    except CL.CompareError as e:
        raise SystemExit("scaling: %s" % e)
    print("scaling: Linux %s; %s; CPUs %s; bench/fio 4K randread, QD %d per job, %s per job; "
          "host: %d CPUs" % (kver, DEVICES[args.device][0], ", ".join(map(str, cpus)), args.qd,
                             args.size, os.cpu_count() or 0), flush=True)

    spindle = {n: [] for n in cpus}
    linux = {n: [] for n in cpus}
    loads = []
    for i in range(args.runs):
        for n in cpus:
            name = "scaling-%s-spindle-%d-%d" % (args.device, n, i)
            s = CL.timed_boot(lambda nm, t: CL.spindle_parse(perf.run_scenario(nm, t), scns[n]),
                              name, CL.spindle_text(texts[n], 1), loads)
            spindle[n].append(iops_of(s))
            name = "scaling-%s-linux-%d-%d" % (args.device, n, i)
            lx = CL.timed_boot(lambda nm, t: CL.boot_linux(nm, t, False), name,
                               linux_texts[n], loads)
            linux[n].append(iops_of(lx))
            print("  run %d, %d CPUs: Spindle %d IOPS, Linux %d IOPS"
                  % (i, n, spindle[n][-1], linux[n][-1]), flush=True)
    print()
    print(table(spindle, linux))
    vals = [v for _, b, a in loads for v in (b, a)]
    cond = ("median (min-max) of %d wall-clock boots of each, interleaved; multi-threaded TCG "
            "on %d host CPUs, host load average (1 min) %.1f-%.1f over the boots"
            % (args.runs, os.cpu_count() or 0, min(vals), max(vals)))
    print("(%s)" % cond)
    for name, before, after in loads:
        print("  %-28s host load %.2f -> %.2f" % (name, before, after))
    if args.png:
        plot(spindle, linux, args.png,
             "%s 4K random reads against CPUs, %d host CPUs"
             % (DEVICES[args.device][0], os.cpu_count() or 0), args.device)
        print("picture: %s" % args.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
