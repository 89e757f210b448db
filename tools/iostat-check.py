#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""iostat-check.py [--selftest] LOG - sysstat's `iostat -x` on Spindle
(tests/qemu/scenarios/iostat-bench.scn) against /proc/diskstats read
around it.

The log holds sdb's /proc/diskstats line and /proc/uptime at three
moments -- 0 before iostat, 1 after it, 2 once the loads have stopped --
and iostat's three reports between IOSTAT-BEGIN and IOSTAT-END: the
first since boot, then two 1-second intervals, all three read between
moments 0 and 1.  Checked:

  the kernel's counters (Documentation/admin-guide/iostats.rst's
  fields): nothing in flight at 2; from 0 to 2, io_ticks grew by no
  more than the time that passed, the weighted time by no less than
  io_ticks; at 2, with the disk idle since, the weighted time equals
  the I/Os' own times summed (fields 4 + 8 + 15 + 17; each counts an
  I/O from its start to its end);
  iostat's report since boot: each rate (r/s, w/s, rkB/s, wkB/s) times
  an uptime between moments 0 and 1 lies between the counters' values
  at 0 and at 1;
  the interval reports: the rates summed, times a second (iostat's
  interval is at least that), within the counters' growth from 0 to 1;
  the disk was seen busy (r/s and w/s above 0); %util at most 100;
  aqu-sz, r_await, w_await not negative, and aqu-sz at most the
  depth the disk can hold (AHCI: 32 commands).

Exit 0 if every figure holds, else 1 with what did not.
"""
import re
import sys
import unittest

# diskstats fields after the name, 0-based
READS, RSECT, RTICKS, WRITES, WSECT, WTICKS, INFLIGHT, IOTICKS, WEIGHTED = 0, 2, 3, 4, 6, 7, 8, 9, 10
DTICKS, FTICKS = 14, 16
MAX_DEPTH = 32          # AHCI's NCQ: commands a port holds at once
# iostat prints two decimals; the uptime has them too
ROUND = 0.01


def parse(log):
    """({moment: (uptime s, [fields])}, [reports: {column: value}])."""
    snaps, up = {}, {}
    for m in re.finditer(r"^DISKSTATS (\d) uptime ([\d.]+) ", log, re.M):
        up[int(m.group(1))] = float(m.group(2))
    for m in re.finditer(r"^DISKSTATS (\d) +\d+ +\d+ sdb ((?:\d+ ?)+)$", log, re.M):
        k = int(m.group(1))
        snaps[k] = (up[k], [int(x) for x in m.group(2).split()])
    m = re.search(r"^IOSTAT-BEGIN$(.*?)^IOSTAT-END$", log, re.M | re.S)
    if not m:
        raise ValueError("no iostat output between IOSTAT-BEGIN and IOSTAT-END")
    reports, cols = [], None
    for line in m.group(1).splitlines():
        words = line.split()
        if words[:1] == ["Device"]:
            cols = words[1:]
        elif words[:1] == ["sdb"] and cols:
            reports.append(dict(zip(cols, (float(x) for x in words[1:]))))
    return snaps, reports


def check(snaps, reports):
    """What does not hold, as lines ([]: everything holds)."""
    bad = []
    if sorted(snaps) != [0, 1, 2]:
        return ["diskstats read at moments %s, not 0, 1, 2" % sorted(snaps)]
    if len(reports) != 3:
        return ["iostat printed %d reports for sdb, not 3" % len(reports)]
    (u0, s0), (u1, s1), (u2, s2) = snaps[0], snaps[1], snaps[2]

    # the kernel's own counters
    if s2[INFLIGHT] != 0:
        bad.append("%d I/Os still in flight with the disk idle" % s2[INFLIGHT])
    elapsed_ms = (u2 - u0) * 1000 + 20          # two uptimes' rounding
    if s2[IOTICKS] - s0[IOTICKS] > elapsed_ms:
        bad.append("io_ticks grew by %d ms in %.0f ms" % (s2[IOTICKS] - s0[IOTICKS], elapsed_ms))
    if s2[WEIGHTED] - s0[WEIGHTED] < s2[IOTICKS] - s0[IOTICKS]:
        bad.append("the weighted time grew by %d ms, less than io_ticks' %d" % (
            s2[WEIGHTED] - s0[WEIGHTED], s2[IOTICKS] - s0[IOTICKS]))
    own = s2[RTICKS] + s2[WTICKS] + s2[DTICKS] + s2[FTICKS]
    # each field is rounded down to a ms on its own: 4 ms, and 1% for
    # requests merged away (in flight until merged, with no time of their own)
    if abs(s2[WEIGHTED] - own) > 4 + own // 100:
        bad.append("idle disk: weighted time %d ms, the I/Os' own times sum to %d ms" % (
            s2[WEIGHTED], own))

    # the report since boot
    first = reports[0]
    for col, field, scale in (("r/s", READS, 1), ("w/s", WRITES, 1),
                              ("rkB/s", RSECT, 0.5), ("wkB/s", WSECT, 0.5)):
        lo = s0[field] * scale / u1 - ROUND
        hi = s1[field] * scale / u0 + ROUND
        if not lo * 0.99 <= first[col] <= hi * 1.01:
            bad.append("report 1 (since boot): %s %.2f, diskstats say %.2f..%.2f" % (
                col, first[col], lo, hi))

    # the interval reports
    for col, field, scale in (("r/s", READS, 1), ("w/s", WRITES, 1),
                              ("rkB/s", RSECT, 0.5), ("wkB/s", WSECT, 0.5)):
        seen = sum(r[col] for r in reports[1:]) * 0.99     # an interval: >= 1 s
        grew = (s1[field] - s0[field]) * scale
        if seen > grew * 1.01 + 2 * ROUND:
            bad.append("reports 2-3: %s summed %.2f, more than diskstats' growth %.2f" % (
                col, seen, grew))
    for i, r in enumerate(reports[1:], 2):
        if r["r/s"] <= 0 or r["w/s"] <= 0:
            bad.append("report %d: r/s %.2f, w/s %.2f: the disk's load not seen" % (
                i, r["r/s"], r["w/s"]))
    for i, r in enumerate(reports, 1):
        if r["%util"] > 100.0:
            bad.append("report %d: %%util %.2f" % (i, r["%util"]))
        for col in ("aqu-sz", "r_await", "w_await"):
            if r[col] < 0:
                bad.append("report %d: %s %.2f" % (i, col, r[col]))
        if r["aqu-sz"] > MAX_DEPTH:
            bad.append("report %d: aqu-sz %.2f, more than the disk's %d commands" % (
                i, r["aqu-sz"], MAX_DEPTH))
    return bad


def main(argv):
    if argv[1:2] == ["--selftest"]:
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(SelfTest)
        return 0 if unittest.TextTestRunner(verbosity=1).run(suite).wasSuccessful() else 1
    if len(argv) != 2:
        sys.exit(__doc__.strip())
    try:
        snaps, reports = parse(open(argv[1], errors="replace").read())
    except (ValueError, KeyError) as e:
        sys.exit("iostat-check: %s" % e)
    bad = check(snaps, reports)
    for line in bad:
        print("iostat-check:", line)
    r = reports[1] if len(reports) > 1 else {}
    print("iostat-check: %s (interval report: r/s %s, w/s %s, %%util %s, aqu-sz %s)" % (
        "OK" if not bad else "%d problem(s)" % len(bad), r.get("r/s"), r.get("w/s"),
        r.get("%util"), r.get("aqu-sz")))
    return 1 if bad else 0


class SelfTest(unittest.TestCase):
    HEAD = ("Device r/s rkB/s rrqm/s %rrqm r_await rareq-sz w/s wkB/s wrqm/s %wrqm w_await "
            "wareq-sz d/s dkB/s drqm/s %drqm d_await dareq-sz f/s f_await aqu-sz %util")

    def log(self, util="50.00", weighted2=1500):
        def ds(k, up, reads, writes, inflight, io, weighted, rt=700, wt=800):
            return ("DISKSTATS %d uptime %.2f 1.00\nDISKSTATS %d    8      16 sdb "
                    "%d 0 %d %d %d 0 %d %d %d %d %d 0 0 0 0 0 0\n" % (
                        k, up, k, reads, reads * 128, rt, writes, writes * 128, wt,
                        inflight, io, weighted))
        def rep(r, w):
            return "sdb %d %d 0 0 1 64 %d %d 0 0 1 64 0 0 0 0 0 0 0 0 0.5 %s\n" % (
                r, r * 64, w, w * 64, util)
        return (ds(0, 10.0, 1000, 1000, 2, 900, 800) + "IOSTAT-BEGIN\n" +
                self.HEAD + "\n" + rep(100, 100) + self.HEAD + "\n" + rep(200, 200) +
                self.HEAD + "\n" + rep(200, 200) + "IOSTAT-END\n" +
                ds(1, 12.1, 1500, 1500, 2, 1400, 1450) +
                ds(2, 12.2, 1510, 1510, 0, 1450, weighted2))

    def test_ok(self):
        self.assertEqual(check(*parse(self.log())), [])

    def test_util(self):
        self.assertTrue(any("%util 130.00" in x for x in check(*parse(self.log(util="130.00")))))

    def test_weighted(self):
        self.assertTrue(any("weighted time 1700" in x for x in
                            check(*parse(self.log(weighted2=1700)))))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
