#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scaling.py [--runs N] [--cpus 1,2,4] [--qd Q] [--size S] [--device nullb|nvme] [--png FILE] [--host-profile] - the block layer's IOPS against CPUs, Spindle and Linux.

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

--host-profile asks where the host's time goes instead: one boot of each
kernel per N, whose QEMU process is under `perf record` (root, or
kernel.perf_event_paranoid <= 0) from the line the guest prints before
the job to the one after it (HOSTPROF-BEGIN/-END around bench,
compare-linux's FIO-BEGIN/-END around fio).  Divided by the job's I/Os,
that is the host CPU time each guest I/O costs, in four parts: the
guest's own code as QEMU translated it ("JIT"), QEMU's C code (helpers,
the soft TLB, cpu_exec, devices), the host kernel, and libraries; then
the QEMU functions whose cost per I/O grows most from the fewest CPUs to
the most.  Sampling (perf's cpu-clock, a sample every 100 us of CPU):
a difference below some 0.05 us per I/O is noise.

    tools/scaling.py --selftest     the table and the translation, no boot
Exit status: 0, or 1 if a boot or a download failed.
"""
import argparse
import collections
import importlib.machinery
import importlib.util
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
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


# --- --host-profile --------------------------------------------------------

PERF_PERIOD_NS = 100000         # perf record -e cpu-clock -c: a sample per 100 us of CPU
PERF_LINE_RE = re.compile(r"^\s*[\d.]+%\s+(\d+)\s+(.+?)\s+\[[.k]\]\s+(\S+)")


def part_of(dso):
    """Which of the four parts of the host's time a perf DSO is."""
    if dso.startswith("[JIT]"):
        return "JIT"
    if dso.startswith("qemu-system") or dso.startswith("accel-tcg"):
        return "QEMU"
    if dso == "[kernel.kallsyms]":
        return "host kernel"
    return "libraries"


def parse_perf_report(text):
    """`perf report --stdio -n --sort dso,sym` -> {(part, symbol): samples}.
    An address QEMU's stripped binary has no name for is counted in its
    4 KiB region ("0x7d8000+"), so that runs can still be compared."""
    out = collections.Counter()
    for line in text.splitlines():
        m = PERF_LINE_RE.match(line)
        if not m:
            continue
        n, dso, sym = int(m.group(1)), m.group(2).strip(), m.group(3)
        part = part_of(dso)
        if part == "JIT":
            sym = "(translated guest code)"
        elif sym.startswith("0x"):
            sym = "%#x+" % (int(sym, 16) & ~0xfff)
        out[(part, sym)] += n
    return out


class PerfAttach:
    """perf record on the QEMU process of boot `name` (run.py puts
    build/qemu/<name>/ in its command line and its serial output there)
    while the job runs: from the guest's line BEGIN_RE to its END_RE, as
    the serial output shows them (a thread polls it every 10 ms), so that
    the boot and the power-off stay out of the figures."""

    BEGIN_RE = re.compile(r"^(HOSTPROF-BEGIN|FIO-BEGIN)", re.M)
    END_RE = re.compile(r"^(HOSTPROF-END|FIO-END)", re.M)

    def __init__(self, name):
        self.data = WORK / ("%s.perf" % name)
        self.serial = ROOT / "build/qemu" / name / "serial.raw"
        self.pattern = "qemu-system.*/build/qemu/%s/" % re.escape(name)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.error = None
        self.window = 0.0

    def _log(self):
        try:
            return self.serial.read_text(errors="replace").replace("\r", "")
        except OSError:
            return ""

    def _wait(self, regex, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if regex.search(self._log()):
                return True
            time.sleep(0.01)
        return False

    def _run(self):
        if not self._wait(self.BEGIN_RE, 600):
            self.error = "the job never began (no %s in %s)" % (self.BEGIN_RE.pattern, self.serial)
            return
        r = subprocess.run(["pgrep", "-f", self.pattern], stdout=subprocess.PIPE, text=True)
        if not r.stdout.split():
            self.error = "no QEMU process matches %s" % self.pattern
            return
        t0 = time.monotonic()
        rec = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-c",
                                str(PERF_PERIOD_NS), "-p", r.stdout.split()[0], "-o",
                                str(self.data)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        ended = self._wait(self.END_RE, 600)
        self.window = time.monotonic() - t0
        rec.send_signal(2)              # SIGINT: perf writes its file and exits
        err = rec.communicate(timeout=60)[1]
        if not ended:
            self.error = "the job never ended (no %s)" % self.END_RE.pattern
        elif rec.returncode not in (0, -2):
            self.error = "perf record failed: %s" % err.strip()

    def __enter__(self):
        WORK.mkdir(parents=True, exist_ok=True)
        for f in (self.data, self.serial):
            if f.exists():
                f.unlink()
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.thread.join(timeout=120)
        return False

    def samples(self):
        if self.error:
            raise SystemExit("scaling: %s" % self.error)
        r = subprocess.run(["perf", "report", "--stdio", "-n", "--sort", "dso,sym", "-i",
                            str(self.data)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
        return parse_perf_report(r.stdout)


def per_io_ns(samples, ios):
    """Samples of the job's window, in ns per I/O: {(part, symbol): ns}."""
    return {k: v * PERF_PERIOD_NS / ios for k, v in samples.items()}


def profile_table(costs, top=12):
    """costs: {(kernel, N): {(part, symbol): ns per I/O}} -> printed text:
    the four parts per kernel and N, then the QEMU symbols that grow most
    from the smallest N to the largest, per kernel."""
    parts = ("JIT", "QEMU", "host kernel", "libraries")
    head = "%-8s %4s  " % ("kernel", "CPUs") + "".join("%13s" % p for p in parts) + "%13s" % "total"
    out = ["host CPU time per guest I/O, us (QEMU's process while the job ran)", head,
           "-" * len(head)]
    for (kernel, n) in sorted(costs):
        c = costs[(kernel, n)]
        by = {p: sum(v for (pp, _), v in c.items() if pp == p) for p in parts}
        out.append("%-8s %4d  " % (kernel, n) + "".join("%13.3f" % (by[p] / 1000) for p in parts)
                   + "%13.3f" % (sum(by.values()) / 1000))
    for kernel in sorted({k for k, _ in costs}):
        ns = sorted(n for k, n in costs if k == kernel)
        if len(ns) < 2:
            continue
        lo, hi = costs[(kernel, ns[0])], costs[(kernel, ns[-1])]
        rows = sorted(((hi.get(k, 0) - lo.get(k, 0), k) for k in set(lo) | set(hi)
                       if k[0] == "QEMU"), reverse=True)[:top]
        out.append("")
        out.append("%s: QEMU's functions whose cost per I/O grows most from %d to %d CPUs (us)"
                   % (kernel, ns[0], ns[-1]))
        for d, (_, sym) in rows:
            out.append("  %-34s %8.3f -> %8.3f  (%+.3f)" % (sym, lo.get(("QEMU", sym), 0) / 1000,
                                                          hi.get(("QEMU", sym), 0) / 1000, d / 1000))
    return "\n".join(out)


def host_profile(args, cpus):
    """--host-profile: one boot per kernel and N, the job's window under
    perf record."""
    if not shutil.which("perf"):
        raise SystemExit("scaling: --host-profile needs perf (Debian's linux-perf)")
    costs = {}
    try:
        for n in cpus:
            text = scenario_text(n, args.qd, args.size, args.device)
            scn = runner.parse_scenario(text, "scaling")
            vmlinuz, initrd, _ = CL.build_linux(scn, 1, "initrd-scaling-%s-%d.cpio"
                                                % (args.device, n))
            spindle = re.sub(r"^(init: bench .*)$", r"init: echo HOSTPROF-BEGIN\n\1\n"
                             r"init: echo HOSTPROF-END", CL.spindle_text(text, 1), flags=re.M)
            for kernel in ("Spindle", "Linux"):
                name = "hostprof-%s-%s-%d" % (args.device, kernel.lower(), n)
                with PerfAttach(name) as pa:
                    if kernel == "Spindle":
                        figures = CL.spindle_parse(perf.run_scenario(name, spindle), scn)
                    else:
                        figures = CL.boot_linux(name, CL.linux_text(text, vmlinuz, initrd), False)
                ios = n * (perf_size(args.size) // 4096)
                costs[(kernel, n)] = per_io_ns(pa.samples(), ios)
                print("  %s, %d CPUs: %d IOPS, %.2f s profiled" % (kernel, n, iops_of(figures),
                                                                  pa.window), flush=True)
    except CL.CompareError as e:
        raise SystemExit("scaling: %s" % e)
    print()
    print(profile_table(costs))
    return 0


def perf_size(text):
    """"256M" -> bytes, as bench reads its SIZE."""
    m = re.fullmatch(r"(\d+)([KMG]?)", text.strip().upper())
    if not m:
        raise SystemExit("scaling: bad size %r" % text)
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


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

        def test_perf_report(self):
            text = "\n".join([
                "# Samples: 3K of event 'cpu-clock'",
                "    40.00%          400  [JIT] tid 123             [.] 0x00007f0012345678",
                "    20.00%          200  qemu-system-x86_64        [.] cpu_get_ticks",
                "    10.00%          100  qemu-system-x86_64        [.] 0x00000000007d8678",
                "     5.00%           50  qemu-system-x86_64        [.] 0x00000000007d8010",
                "     5.00%           50  [kernel.kallsyms]         [k] finish_task_switch.isra.0",
                "     1.00%           10  libglib-2.0.so.0.7400.6   [.] g_tree_lookup",
            ])
            c = parse_perf_report(text)
            self.assertEqual(c[("JIT", "(translated guest code)")], 400)
            self.assertEqual(c[("QEMU", "cpu_get_ticks")], 200)
            self.assertEqual(c[("QEMU", "0x7d8000+")], 150)
            self.assertEqual(c[("host kernel", "finish_task_switch.isra.0")], 50)
            self.assertEqual(c[("libraries", "g_tree_lookup")], 10)
            ns = per_io_ns(c, 1000)
            self.assertEqual(ns[("QEMU", "cpu_get_ticks")], 200 * PERF_PERIOD_NS / 1000)
            t = profile_table({("Spindle", 1): {("QEMU", "a"): 1000.0, ("JIT", "x"): 2000.0},
                               ("Spindle", 2): {("QEMU", "a"): 3000.0, ("JIT", "x"): 2000.0}})
            self.assertIn("Spindle     1", t)
            self.assertIn("(+2.000)", t)
            self.assertEqual(perf_size("256M"), 256 << 20)
            self.assertEqual(perf_size("16K"), 16 << 10)

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
    ap.add_argument("--host-profile", action="store_true",
                    help="where the host's CPU time goes per guest I/O (perf record on QEMU)")
    ap.add_argument("--selftest", action="store_true", help="test the table and the "
                    "translation; boot nothing")
    args = ap.parse_args()
    if args.selftest:
        return selftest()
    if args.png:
        args.png = args.png.resolve()
    cpus = [int(x) for x in args.cpus.split(",") if x]
    if args.host_profile:
        return host_profile(args, cpus)

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
