#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""insncount.py [--selftest] - instructions per I/O as the guest executes them.

The host side of the QEMU TCG plugin tools/insncount/insncount.c
(built as build/tools/insncount.so): what tools/compare-linux
--insn-plugin uses to turn a kernel's symbols into the plugin's
configuration and the plugin's snapshots into instructions per I/O.

The plugin counts every instruction each vCPU executes, those at kernel
addresses apart, and those in the kernel's idle loop (group `idle`, its
functions' address ranges); it counts the entries of the function a
polled I/O's spin calls once per iteration (`poll`: bio_poll on both
kernels), and the fewest instructions from one entry to the next -- one
empty iteration.  A snapshot is taken each time the guest runs the
kernel function behind /proc/version (MARK): the guest reads that file
before and after each workload.

How a job is bracketed.  A workload program's start-up (fio links
thirteen shared libraries and forks its job) would weigh on the figure,
so each job runs twice: first with 1/SMALL of its I/O, then whole, with
a mark before, between and after.  The whole run's count less the small
run's, over the difference of their I/O counts, is the cost of the I/Os
alone -- start-up, exit, the marks themselves cancel (the same idea as
compare-linux's dd_timed, which takes off a count=0 run).

What is left out of a segment's count:
- `idle`, whole: the idle loop's own instructions (its halts execute
  none: a halted vCPU counts nothing);
- the empty iterations of a polled spin: a segment of N I/Os with E
  entries of the poll function had E - N iterations that found nothing,
  each costing the shortest entry-to-entry distance G, so (E - N) * G
  is left out -- as if each I/O had been found complete by its first
  poll.  QEMU's NVMe completes in host time: how many iterations a spin
  takes is the host's doing.  Counting by distance rather than by
  address also covers what the poll calls wherever it lies (Linux's
  nvme_poll is in a module, loaded at an address that moves from boot
  to boot).
- the empty iterations of an SQPOLL thread's loop (io_sq_thread on both
  kernels), the same way: the thread spins until sq_thread_idle passes,
  for as long as the program it serves takes to publish the next SQE.
  Linux's empty iteration calls no function (its checks are inline), so
  the plugin is given the loop's function (`loop sqloop`) and counts
  each block that starts in it; the block run most often in a segment
  runs once per iteration: its runs are the iterations I, its shortest
  gap G one empty iteration.  The iterations that took SQEs are the
  entries P of io_submit_sqes (`sqsubmit`: only the thread submits on
  an SQPOLL ring), so (I - P) * G is left out.
Everything else the vCPU executed counts: the system calls, the block
layer, the driver, interrupts -- including the timer ticks that fall
inside the segment (a tick's cost is a kernel's, but how many ticks fall
in an interrupt-driven row depends on the waiting: the halts per I/O
column shows it).  The headline is the kernel-mode part ("kernel"): the
benchmark programs differ (bench, fio), the kernels' paths are compared.

With the plugin's `profile` directive each snapshot also lists the
blocks run since the one before, with their instructions and runs
(INSNPROF lines): profile_per_io() turns them into instructions per I/O
per function, with the same small/whole difference, from a kernel's
symbols (System.map, /proc/kallsyms).  Instructions at user addresses
count to "[user]".  compare-linux --insn-profile prints them.

    tools/insncount.py --selftest      the arithmetic and the parsers
"""
import bisect
import re
import sys
import unittest

# Each job also runs with 1/SMALL of its I/O, whose count is taken off.
SMALL = 16

# The functions of each kernel: the mark, and the groups counted apart.
# A group's first function is the one whose entries count its iterations.
SYMBOLS = {
    "spindle": {
        "mark": "version_show",                 # fs/proc.c, /proc/version
        # kernel/sched/core.c: the idle task's loop and what it calls
        # before it halts (safe_halt is inline)
        "idle": ["cpu_startup_entry", "idle_balance", "touch_softlockup_watchdog"],
        # fs/direct-io.c's spin calls bio_poll() once per iteration
        "poll": "bio_poll",
        # fs/io_uring.c: the SQPOLL thread's loop, and its submission
        "sqloop": "io_sq_thread",
        "sqsubmit": "io_submit_sqes",
    },
    "linux": {
        "mark": "version_proc_show",            # Linux's fs/proc/version.c
        # Linux's kernel/sched/idle.c: do_idle() and the x86 halt under it
        # (cpu_idle_poll, idle=poll's spin, is cpu_idle_poll.isra.0 in
        # Debian's build: GCC's clone of it)
        "idle": ["do_idle", "default_idle_call", "arch_cpu_idle", "default_idle",
                 "arch_cpu_idle_enter", "arch_cpu_idle_exit", "cpu_idle_poll",
                 "cpu_idle_poll.isra.0",
                 "tick_nohz_idle_enter", "tick_nohz_idle_exit", "tick_nohz_idle_stop_tick",
                 "tick_nohz_idle_retain_tick", "tick_nohz_idle_got_tick",
                 "tick_nohz_get_sleep_length", "cpuidle_idle_call"],
        # io_uring's IOPOLL loop (io_uring/io_uring.c io_iopoll_check()
        # -> io_do_iopoll() -> iocb_bio_iopoll()) calls bio_poll() once
        # per iteration for the one request of a QD1 ring
        "poll": "bio_poll",
        # io_uring/sqpoll.c's loop (__io_sq_thread inline in it), and
        # io_uring/io_uring.c's submission, which it calls for SQEs
        "sqloop": "io_sq_thread",
        "sqsubmit": "io_submit_sqes",
    },
}
GROUPS = ("idle", "poll", "sqsubmit")



def linux_names():
    """Every Linux symbol the configuration may name."""
    want = SYMBOLS["linux"]
    return {want["mark"], want["poll"], want["sqloop"], want["sqsubmit"]} | set(want["idle"])


SYM_LINE = re.compile(r"^([0-9a-fA-F]{8,16}) ([a-zA-Z]) (\S+)(?:\s+\[(\S+)\])?\s*$")
SHARE_LINE = re.compile(r"^INSNSHARE mark=(\S+) ([0-9a-f]+) ([0-9a-f]+) (\d+)$")
PROF_LINE = re.compile(r"^INSNPROF mark=(\S+) ([0-9a-f]+) (\d+) (\d+)$")
LOOP_LINE = re.compile(r"^INSNLOOP mark=(\S+) vcpu=(\d+) (\S+) ([0-9a-f]+) (\d+) (\d+) (\d+)$")
SNAP_LINE = re.compile(r"^INSNCOUNT mark=(\S+) vcpu=(\d+) insns=(\d+) kernel=(\d+) halts=(\d+)"
                       r"(?: atomics=(\d+))?((?: \S+=\d+/\d+/\d+/\d+)*)$")


class InsnError(Exception):
    """Something the figures cannot be made from; the message says what."""


def parse_symbols(text):
    """System.map or /proc/kallsyms text -> sorted [(address, name)] of the
    text symbols (types t, T, w, W)."""
    out = []
    for line in text.splitlines():
        m = SYM_LINE.match(line.strip())
        if m and m.group(2) in "tTwW":
            out.append((int(m.group(1), 16), m.group(3)))
    return sorted(out)


def function_ranges(syms, names):
    """{name: (start, end)} for those of names syms has: a function ends
    where the next symbol at a higher address begins."""
    addrs = sorted({a for a, _ in syms})
    following = {a: b for a, b in zip(addrs, addrs[1:])}
    out = {}
    for addr, name in syms:
        if name in names and name not in out and addr in following:
            out[name] = (addr, following[addr])
    return out


def conf_text(syms, kernel):
    """The plugin's configuration for kernel ("spindle" or "linux") from
    its symbols; InsnError if the mark, the idle loop's first function or
    the poll function is missing (another idle function not in this
    kernel build is skipped: inlined)."""
    want = SYMBOLS[kernel]
    found = function_ranges(syms, {want["mark"], want["poll"], want["sqloop"],
                                   want["sqsubmit"]} | set(want["idle"]))
    for name in (want["mark"], want["poll"], want["idle"][0], want["sqloop"],
                 want["sqsubmit"]):
        if name not in found:
            raise InsnError("%s: no symbol %s" % (kernel, name))
    lines = ["# tools/insncount.py for %s" % kernel,
             "mark %x" % found[want["mark"]][0],
             "entry poll %x  # %s" % (found[want["poll"]][0], want["poll"]),
             "entry idle %x  # %s" % (found[want["idle"][0]][0], want["idle"][0]),
             "entry sqsubmit %x  # %s" % (found[want["sqsubmit"]][0], want["sqsubmit"]),
             "loop sqloop %x %x  # %s" % (found[want["sqloop"]] + (want["sqloop"],))]
    for name in want["idle"]:
        if name in found:
            lines.append("range idle %x %x  # %s" % (found[name] + (name,)))
    return "\n".join(lines) + "\n"


def parse_snapshots(text):
    """The plugin's output -> [snapshot], one per mark in order (the exit
    line left out), each {"insns", "halts", GROUP: (insns, entries, gap,
    at), "loops": {(group, site): (entries, gap)}} summed over the vCPUs
    (the shortest gap of any)."""
    snaps, order = {}, []
    for line in text.splitlines():
        if line.startswith(("INSNPROF ", "INSNSHARE ")):
            continue                    # parse_profiles(), parse_moves()'
        m = LOOP_LINE.match(line)
        if m:
            if m.group(1) != "exit":
                loops = snaps[m.group(1)].setdefault("loops", {})
                key, n, gap = (m.group(3), int(m.group(4), 16)), int(m.group(5)), int(m.group(6))
                n0, gap0 = loops.get(key, (0, 0))
                loops[key] = (n0 + n, min(g for g in (gap, gap0) if g) if gap or gap0 else 0)
            continue
        m = SNAP_LINE.match(line)
        if not m:
            if line.strip():
                raise InsnError("not a snapshot line: %r" % line)
            continue
        label = m.group(1)
        if label == "exit":
            continue
        if label not in snaps:
            snaps[label] = {"insns": 0, "kernel": 0, "halts": 0, "atomics": 0}
            order.append(label)
        s = snaps[label]
        s["insns"] += int(m.group(3))
        s["kernel"] += int(m.group(4))
        s["halts"] += int(m.group(5))
        s["atomics"] += int(m.group(6) or 0)
        for field in m.group(7).split():
            name, _, val = field.partition("=")
            n, e, gap, at = (int(x) for x in val.split("/"))
            n0, e0, gap0, at0 = s.get(name, (0, 0, 0, 0))
            if gap and (not gap0 or gap < gap0):    # the vCPU with the shortest gap
                gap0, at0 = gap, 0
            s[name] = (n0 + n, e0 + e, gap0, at0 + (at if gap == gap0 else 0))
    return [snaps[k] for k in order]


def segment(a, b, ios):
    """What the vCPUs executed between snapshots a and b for ios I/Os:
    "all" of it; what is left out of it, "idle" and "poll_spin"; "own",
    the rest; "kernel", the part of own at kernel addresses; "user",
    the program's own (all less kernel mode); "halts"; "polls" (entries
    of the poll function) and "poll_gap" (an empty iteration's cost);
    the SQ thread's "sq_iters", "sq_passes" (those that submitted),
    "sq_gap" and "sq_spin", what its empty iterations cost; "atomics",
    the kernel's locked read-modify-writes (the idle loop's and the
    empty polls' among them: nothing is left out of this one)."""
    idle = b["idle"][0] - a["idle"][0]
    polls = b["poll"][1] - a["poll"][1]
    gap = b["poll"][2]          # since a: the plugin starts afresh at each mark
    spin = max(0, polls - ios) * gap
    sq_iters, sq_gap, sq_passes = sq_loop(a, b)
    sq_spin = max(0, sq_iters - sq_passes) * sq_gap
    every, kernel = b["insns"] - a["insns"], b["kernel"] - a["kernel"]
    return {"all": every, "halts": b["halts"] - a["halts"], "idle": idle,
            "atomics": b["atomics"] - a["atomics"],
            "poll_spin": spin, "polls": polls, "poll_gap": gap,
            "sq_iters": sq_iters, "sq_passes": sq_passes, "sq_gap": sq_gap,
            "sq_spin": sq_spin,
            "own": every - idle - spin - sq_spin, "kernel": kernel - idle - spin - sq_spin,
            "user": every - kernel}


def sq_loop(a, b):
    """The SQ thread's loop between snapshots a and b: (iterations, one
    empty iteration's instructions, iterations that submitted).  The
    iterations are the runs of the loop's site run most often; its
    shortest gap is an empty iteration."""
    before, after = a.get("loops", {}), b.get("loops", {})
    runs = {k: n - before.get(k, (0, 0))[0] for k, (n, _) in after.items()
            if k[0] == "sqloop"}
    passes = b["sqsubmit"][1] - a["sqsubmit"][1] if "sqsubmit" in b else 0
    if not runs or max(runs.values()) <= 0:
        return 0, 0, passes
    site = max(runs, key=lambda k: (runs[k], -k[1]))
    return runs[site], after[site][1], passes


def per_io(snaps, jobs):
    """jobs: [(key, I/Os of the whole run)], in the order they ran, each
    run small (I/Os // SMALL) then whole with three marks -> {key: figures
    per I/O: segment()'s, and polls}."""
    if len(snaps) != 3 * len(jobs):
        raise InsnError("%d snapshots for %d jobs (three each)" % (len(snaps), len(jobs)))
    out = {}
    for i, (key, ios) in enumerate(jobs):
        small_ios = ios // SMALL
        if small_ios < 1:
            raise InsnError("%s: %d I/Os, too few to run 1/%d of them" % (key, ios, SMALL))
        small = segment(snaps[3 * i], snaps[3 * i + 1], small_ios)
        whole = segment(snaps[3 * i + 1], snaps[3 * i + 2], ios)
        n = ios - small_ios
        out[key] = {f: (whole[f] - small[f]) / n
                    for f in ("own", "kernel", "user", "all", "idle", "poll_spin", "halts", "atomics",
                              "polls", "sq_iters", "sq_passes", "sq_spin")}
        out[key]["poll_gap"] = whole["poll_gap"]
        out[key]["sq_gap"] = whole["sq_gap"]
    return out


def parse_profiles(text):
    """The plugin's INSNPROF lines -> [{block address: instructions run}],
    one per mark in order (the exit line's left out): what ran between
    that mark and the one before."""
    profs, order = {}, []
    for line in text.splitlines():
        if not line.startswith("INSNPROF "):
            continue
        m = PROF_LINE.match(line)
        if not m:
            raise InsnError("not a profile line: %r" % line)
        label = m.group(1)
        if label == "exit":
            continue
        if label not in profs:
            profs[label] = {}
            order.append(label)
        addr = int(m.group(2), 16)
        profs[label][addr] = profs[label].get(addr, 0) + int(m.group(3)) * int(m.group(4))
    return [profs[k] for k in order]


def parse_moves(text):
    """The plugin's INSNSHARE lines (its `share` directive) -> [{(line
    address, instruction address): moves}], one per mark in order (the
    exit line's left out): the cache lines that moved between vCPUs
    between that mark and the one before, and the instructions that
    moved them.  A mark with no line moved has an empty dict only if a
    snapshot line names it: labels come from the INSNCOUNT lines."""
    moves, order = {}, []
    for line in text.splitlines():
        m = SNAP_LINE.match(line)
        if m and m.group(1) != "exit" and m.group(1) not in moves:
            moves[m.group(1)] = {}
            order.append(m.group(1))
        if not line.startswith("INSNSHARE "):
            continue
        m = SHARE_LINE.match(line)
        if not m:
            raise InsnError("not a sharing line: %r" % line)
        if m.group(1) == "exit":
            continue
        key = (int(m.group(2), 16), int(m.group(3), 16))
        seg = moves.setdefault(m.group(1), {})
        seg[key] = seg.get(key, 0) + int(m.group(4))
    return [moves[k] for k in order]


def parse_all_symbols(text):
    """System.map text -> sorted [(address, name)] of every symbol, data
    too (c2c.py names the lines with them)."""
    out = []
    for line in text.splitlines():
        m = SYM_LINE.match(line.strip())
        if m:
            out.append((int(m.group(1), 16), m.group(3)))
    return sorted(out)


class Symbols:
    """Block addresses to function names: the text symbol at or below."""

    def __init__(self, syms):
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]

    def function(self, addr):
        if not is_kernel(addr):
            return "[user]"
        i = bisect.bisect_right(self.addrs, addr) - 1
        return self.names[i] if i >= 0 else "[unknown]"


def is_kernel(addr):
    """x86-64 kernels live in the upper canonical half (the plugin's test)."""
    return addr >> 63 == 1


def diff_per_io(small, whole, n):
    """{key: count} of a small and a whole run -> {key: (whole - small) / n}:
    what each key costs per I/O, the runs' common start-up cancelled."""
    return {k: (whole.get(k, 0) - small.get(k, 0)) / n for k in set(small) | set(whole)}


def profile_per_io(snaps, profs, syms, jobs):
    """As per_io(), per function: {key: {function: instructions per I/O}}.
    snaps are needed only to check that every mark has its profile."""
    if len(profs) != len(snaps) or len(profs) != 3 * len(jobs):
        raise InsnError("%d profiles for %d snapshots and %d jobs" % (len(profs), len(snaps),
                                                                    len(jobs)))
    where = Symbols(syms)

    def by_function(prof):
        out = {}
        for addr, n in prof.items():
            f = where.function(addr)
            out[f] = out.get(f, 0) + n
        return out
    out = {}
    for i, (key, ios) in enumerate(jobs):
        small_ios = ios // SMALL
        small, whole = by_function(profs[3 * i + 1]), by_function(profs[3 * i + 2])
        n = ios - small_ios
        out[key] = diff_per_io(small, whole, n)
    return out


# ---------------------------------------------------------------------------

class SelfTest(unittest.TestCase):
    MAP = """ffffffff80100000 T _text
ffffffff80184260 t version_show
ffffffff80184290 t version_show_alias
ffffffff80184290 t other
ffffffff801842c0 T cpu_startup_entry
ffffffff80184300 T bio_poll
ffffffff80184380 T blk_mq_poll
ffffffff80184400 t io_submit_sqes
ffffffff80184440 t io_sq_thread
ffffffff80184480 t after
ffffffff80200000 D some_data
"""

    def test_ranges(self):
        syms = parse_symbols(self.MAP)
        self.assertNotIn((0xffffffff80200000, "some_data"), syms)
        r = function_ranges(syms, {"version_show", "blk_mq_poll", "after"})
        # ends at the next higher address, not at an alias's
        self.assertEqual(r["version_show"], (0xffffffff80184260, 0xffffffff80184290))
        self.assertEqual(r["blk_mq_poll"], (0xffffffff80184380, 0xffffffff80184400))
        self.assertNotIn("after", r)        # the last text symbol has no end
        kallsyms = "ffffffffc0001000 t nvme_poll\t[nvme]\nffffffffc0001100 t nvme_x\t[nvme]\n"
        self.assertEqual(function_ranges(parse_symbols(kallsyms), {"nvme_poll"}),
                         {"nvme_poll": (0xffffffffc0001000, 0xffffffffc0001100)})

    def test_conf(self):
        conf = conf_text(parse_symbols(self.MAP), "spindle")
        self.assertIn("mark ffffffff80184260\n", conf)
        self.assertIn("entry poll ffffffff80184300  # bio_poll\n", conf)
        self.assertIn("range idle ffffffff801842c0 ffffffff80184300  # cpu_startup_entry", conf)
        self.assertNotIn("idle_balance", conf)          # not in this map: skipped
        self.assertIn("entry sqsubmit ffffffff80184400  # io_submit_sqes\n", conf)
        self.assertIn("loop sqloop ffffffff80184440 ffffffff80184480  # io_sq_thread\n", conf)
        with self.assertRaisesRegex(InsnError, "no symbol version_proc_show"):
            conf_text(parse_symbols(self.MAP), "linux")

    @staticmethod
    def snap(label, insns, user, halts, idle, poll):
        return ("INSNCOUNT mark=%s vcpu=0 insns=%d kernel=%d halts=%d idle=%d/%d/0/0 "
                "poll=0/%d/%d/%d\n" % ((label, insns, insns - user, halts) + idle + poll))

    def test_per_io(self):
        # A job of 1600 I/Os, its small run 100.  Each run costs 50,000
        # instructions of start-up (10,000 of them in user mode); each I/O
        # 1,000 of its own (100 in user mode), 300 in the idle loop, one
        # halt and, polled, 5 iterations of the spin, 40 instructions each.
        per = 1000 + 300 + 5 * 40
        text = (self.snap(0, 1000, 0, 0, (0, 0), (0, 0, 0))
                + self.snap(1, 1000 + 50000 + 100 * per, 10000 + 100 * 100, 100,
                            (100 * 300, 9), (500, 40, 400))
                + self.snap(2, 1000 + 2 * 50000 + 1700 * per, 20000 + 1700 * 100, 1700,
                            (1700 * 300, 18), (1700 * 5, 40, 6400))
                + "INSNCOUNT mark=exit vcpu=0 insns=1 kernel=1 halts=0 idle=0/0/0/0 "
                  "poll=0/0/0/0\n")
        snaps = parse_snapshots(text)
        self.assertEqual(len(snaps), 3)
        got = per_io(snaps, [("row", 1600)])["row"]
        self.assertAlmostEqual(got["all"], 1500)
        self.assertAlmostEqual(got["idle"], 300)
        self.assertAlmostEqual(got["halts"], 1)
        self.assertAlmostEqual(got["polls"], 5)
        self.assertEqual(got["poll_gap"], 40)
        # the 4 empty iterations of each I/O's 5 go
        self.assertAlmostEqual(got["poll_spin"], 160)
        self.assertAlmostEqual(got["own"], 1000 + 40)
        self.assertAlmostEqual(got["user"], 100)
        self.assertAlmostEqual(got["kernel"], 1000 + 40 - 100)

    def test_sq_loop(self):
        # An SQPOLL job of 1600 I/Os (small run 100) on two vCPUs: the SQ
        # thread's loop head (site 440) runs 50 times an I/O, one of them
        # submitting (io_submit_sqes), 30 instructions an empty one; site
        # 450 runs on the submitting iterations only.  1,000 a submission.
        def snap(label, ios, gap):
            own = 1000 * ios + 30 * 49 * ios
            return ("INSNCOUNT mark=%d vcpu=0 insns=%d kernel=%d halts=0 idle=0/0/0/0 "
                    "poll=0/0/0/0 sqsubmit=0/%d/0/0\n" % (label, 7 + own, 7 + own, ios)
                    + "INSNLOOP mark=%d vcpu=1 sqloop ffffffff80184440 %d %d 9\n"
                    % (label, 20 * ios, gap)
                    + "INSNLOOP mark=%d vcpu=0 sqloop ffffffff80184440 %d %d 9\n"
                    % (label, 30 * ios, gap + 5)
                    + "INSNLOOP mark=%d vcpu=0 sqloop ffffffff80184450 %d 900 1\n"
                    % (label, ios))
        text = snap(0, 0, 0) + snap(1, 100, 30) + snap(2, 1700, 30)
        got = per_io(parse_snapshots(text), [("row", 1600)])["row"]
        self.assertEqual(got["sq_gap"], 30)             # the shortest of the vCPUs'
        self.assertAlmostEqual(got["sq_iters"], 50)
        self.assertAlmostEqual(got["sq_passes"], 1)
        self.assertAlmostEqual(got["sq_spin"], 49 * 30)
        self.assertAlmostEqual(got["kernel"], 1000)
        # a row without the SQ thread leaves nothing out
        plain = per_io(parse_snapshots("".join(self.snap(i, 10 * i, 0, 0, (0, 0), (0, 0, 0))
                                               for i in range(3))), [("row", 1600)])["row"]
        self.assertEqual((plain["sq_spin"], plain["sq_iters"]), (0, 0))

    def test_vcpus_summed(self):
        text = ("INSNCOUNT mark=0 vcpu=0 insns=10 kernel=9 halts=1 idle=2/1/0/0 poll=0/5/30/2\n"
                "INSNCOUNT mark=0 vcpu=1 insns=5 kernel=4 halts=2 idle=1/1/0/0 poll=0/9/20/7\n")
        s = parse_snapshots(text)[0]
        self.assertEqual((s["insns"], s["kernel"], s["halts"]), (15, 13, 3))
        self.assertEqual(s["idle"], (3, 2, 0, 0))
        self.assertEqual(s["poll"], (0, 14, 20, 7))     # the shortest gap, and its count

    def test_atomics(self):
        # the plugin's locked read-modify-writes, summed over the vCPUs;
        # a line from before the field counts none
        g = " idle=1/1/0/0 poll=0/0/0/0"
        text = ("INSNCOUNT mark=0 vcpu=0 insns=10 kernel=9 halts=1" + g + "\n"
                "INSNCOUNT mark=1 vcpu=0 insns=20 kernel=18 halts=1 atomics=4" + g + "\n"
                "INSNCOUNT mark=1 vcpu=1 insns=5 kernel=4 halts=2 atomics=3" + g + "\n")
        a, b = parse_snapshots(text)
        self.assertEqual((a["atomics"], b["atomics"]), (0, 7))
        self.assertEqual(b["idle"], (2, 2, 0, 0))
        self.assertEqual(segment(a, b, 1)["atomics"], 7)

    def test_broken(self):
        with self.assertRaisesRegex(InsnError, "2 snapshots for 1 jobs"):
            per_io(parse_snapshots(self.snap(0, 1, 0, 0, (0, 0), (0, 0, 0))
                                   + self.snap(1, 1, 0, 0, (0, 0), (0, 0, 0))), [("row", 1600)])
        with self.assertRaisesRegex(InsnError, "not a snapshot line"):
            parse_snapshots("insncount: something went wrong\n")
        with self.assertRaisesRegex(InsnError, "too few"):
            per_io(parse_snapshots("".join(self.snap(i, i, 0, 0, (0, 0), (0, 0, 0))
                                           for i in range(3))), [("row", 1)])


class ProfileTest(unittest.TestCase):
    def test_profile(self):
        syms = parse_symbols(SelfTest.MAP)
        # marks 0, 1, 2 around a small run of 100 I/Os and a whole of 1600:
        # blk_mq_poll's block runs 10 per I/O plus 50 at start-up, bio_poll's
        # 5 per I/O; 30 user instructions per I/O
        def prof(label, ios):
            return ("INSNPROF mark=%s ffffffff80184390 4 %d\n" % (label, 10 * ios + 50)
                    + "INSNPROF mark=%s ffffffff80184300 3 %d\n" % (label, 5 * ios)
                    + "INSNPROF mark=%s 401000 30 %d\n" % (label, ios))
        text = (SelfTest.snap(0, 0, 0, 0, (0, 0), (0, 0, 0)) + prof(0, 0)
                + SelfTest.snap(1, 1, 0, 0, (0, 0), (0, 0, 0)) + prof(1, 100)
                + SelfTest.snap(2, 2, 0, 0, (0, 0), (0, 0, 0)) + prof(2, 1600)
                + "INSNCOUNT mark=exit vcpu=0 insns=1 kernel=1 halts=0 idle=0/0/0/0 "
                  "poll=0/0/0/0\nINSNPROF mark=exit 401000 30 7\n")
        got = profile_per_io(parse_snapshots(text), parse_profiles(text), syms,
                             [("row", 1600)])["row"]
        self.assertAlmostEqual(got["blk_mq_poll"], 40)
        self.assertAlmostEqual(got["bio_poll"], 15)
        self.assertAlmostEqual(got["[user]"], 30)
        with self.assertRaisesRegex(InsnError, "not a profile line"):
            parse_profiles("INSNPROF mark=0 zz\n")


def selftest():
    load = unittest.defaultTestLoader.loadTestsFromTestCase
    suite = unittest.TestSuite([load(SelfTest), load(ProfileTest)])
    return 0 if unittest.TextTestRunner(verbosity=1).run(suite).wasSuccessful() else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--selftest"]:
        sys.exit(selftest())
    sys.exit(__doc__)
