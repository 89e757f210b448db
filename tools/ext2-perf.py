#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ext2-perf.py [--machine q35|pc] [--excerpt] [--png DIR] - ext2 write-back and readahead, measured.

`make perf-ext2` runs this.  For each machine (q35: the disk on AHCI,
sda; pc: on IDE, hda) it boots Spindle once under -icount
shift=0,sleep=off (docs/performance.md: a guest nanosecond is one guest
instruction) with a fresh ext2 image (the host's mke2fs, 4 KiB blocks, by
tools/ext2-image.sh), and with the disk's block trace on:

  write   dd if=/dev/zero of=/mnt/big bs=1M count=64, then sync: the
          dirty pages reach the disk through the flusher's and sync's
          writeback batches (fs/fs-writeback.c, fs/mpage.c)
  read    umount and mount (the file's pages are dropped), then
          dd if=/mnt/big of=/dev/null bs=1M: a cold sequential read,
          served by readahead
  bench   bench on the file: aio randread 4K QD8, and read 1M QD1

and prints per machine: the write requests on the file's data (count,
average and largest KiB) against the bound 64 MiB / the largest request
x 1.1 -- the largest request of page-cache pages being max_sectors_kb or
max_segments pages, whichever is less -- and the metadata's apart; the
read requests the same way; MB/s of each; and bench's lines.  Data and
metadata are told apart by the host's debugfs map of the file (after
e2fsck -fn finds the image clean); the trace is read by
tools/trace-report.py's parser.  Write MB/s is 64 MiB over the time from
the trace's start (just before dd) to the last write's completion (sync
waits for it); read MB/s is dd's own.  Under -icount these count guest
instructions, and the host's disk time not at all (docs/performance.md):
they move from run to run, the request counts and sizes do not.

  --excerpt     also print the trace of one writeback batch (q35)
  --png DIR     draw every write dispatch of the q35 run, sector against
                time, as DIR/ext2-writeback.png (gnuplot)
  --log         analyse the last boots again instead of booting
  --check LOG IMG MIB
                judge a scenario (tests/qemu/scenarios/ext2-writeback.scn)
                that wrote and read /big, MIB MiB, with the same markers:
                exit 0 if the data went in no more requests than the
                bound and every read shorter than a readahead window was
                cut by a block that is not the file's data

Exit status: 0, or 1 if a boot failed (its log is in build/qemu/).
"""
import argparse
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILE_MIB = 64


def tool(name, module):
    """tools/<name> as a module (a dash in a name keeps import from it)."""
    spec = importlib.util.spec_from_file_location(module, ROOT / "tools" / name)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


TR = tool("trace-report.py", "trace_report")
PERF = tool("perf.py", "perf")

MACHINES = {"q35": ("ahci", "sda"), "pc": ("ide", "hda")}


def scenario(machine):
    """The boot's scenario text (tests/qemu/run.py's format)."""
    bus, disk = MACHINES[machine]
    init = [
        "mkdir /mnt",
        "mount -t ext2 /dev/%s1 /mnt" % disk,
        "echo PERF max_sectors_kb",
        "cat /sys/block/%s/queue/max_sectors_kb" % disk,
        "echo PERF max_segments",
        "cat /sys/block/%s/queue/max_segments" % disk,
        "echo PERF read_ahead_kb",
        "cat /sys/block/%s/queue/read_ahead_kb" % disk,
        "echo 1 > /sys/block/%s/trace" % disk,
        "dd if=/dev/zero of=/mnt/big bs=1M count=%d" % FILE_MIB,
        "sync",
        "echo 0 > /sys/block/%s/trace" % disk,
        "echo PERF write trace",
        "blktrace %s" % disk,
        "echo PERF write end",
        "umount /mnt",
        "mount -t ext2 /dev/%s1 /mnt" % disk,
        "echo 1 > /sys/block/%s/trace" % disk,
        "echo PERF read dd",
        "dd if=/mnt/big of=/dev/null bs=1M",
        "echo 0 > /sys/block/%s/trace" % disk,
        "echo PERF read trace",
        "blktrace %s" % disk,
        "echo PERF read end",
        "bench /mnt/big randread 4k 8 8M aio",
        "bench /mnt/big read 1M 1 %dM" % FILE_MIB,
        "umount /mnt",
        "echo PERF done",
    ]
    return "".join([
        "# made by tools/ext2-perf.py: ext2 write-back and readahead on %s\n" % bus,
        "machine: %s\n" % machine,
        "memory: 512M\n",
        "timeout: 900\n",
        "disk: e size=160M if=%s index=0 prep=tools/ext2-image.sh {img} 4096 write\n" % bus,
        "qemu: -icount shift=0,sleep=off\n",
    ] + ["init: %s\n" % line for line in init] + [
        "expect: ^PERF done$\n",
        "reject: EXT2-fs error\n",
        "reject: events lost\n",
        "reject: BENCH .*FAIL\n",
        "exit: pass\n",
    ])


def boot(machine):
    """Boot the scenario once (tools/perf.py's way); its cleaned serial log."""
    return PERF.run_scenario("ext2-perf-%s" % machine, scenario(machine))


def strip(line):
    return re.sub(r"^\[[ \d.]+\] ", "", line)


def section(lines, start, end):
    """The lines between the marker lines start and end."""
    out, on = [], False
    for line in lines:
        s = strip(line)
        if s == start:
            on = True
        elif s == end:
            on = False
        elif on:
            out.append(line)
    return out


def value_after(lines, marker):
    for i, line in enumerate(lines):
        if strip(line) == marker:
            return int(strip(lines[i + 1]))
    raise SystemExit("ext2-perf: no %r in the log" % marker)


def requests(events, op):
    """The op's dispatched requests (D) in order: (sector, KiB)."""
    return [(ev["sector"], ev["sectors"] / 2) for ev in events
            if ev["action"] == "D" and TR.op_of(ev["rwbs"]) == op and ev["sectors"]]


def data_sectors(img, name):
    """The disk sectors of file name's data blocks (not its indirect
    blocks), by the host's debugfs on tools/ext2-image.sh's layout (one
    partition 1 MiB on, 4 KiB blocks); e2fsck -fn must find the file
    system clean first (tools/ext2-fsck.sh, which copies it to IMG.fs)."""
    r = subprocess.run(["bash", str(ROOT / "tools/ext2-fsck.sh"), img],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise SystemExit("ext2-perf: e2fsck -fn found the file system unclean:\n" + r.stdout)
    r = subprocess.run(["debugfs", "-R", "stat /" + name, img + ".fs"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=True)
    blocks = []
    # "(0-11):52-63, (IND):64, (12-1035):65-1088, ...": ranges of file
    # blocks are data, (IND)/(DIND)/(TIND) the map's own blocks
    for first, last in re.findall(r"\(\d+(?:-\d+)?\):(\d+)(?:-(\d+))?", r.stdout):
        blocks.extend(range(int(first), int(last or first) + 1))
    part = 2048
    return {part + b * 8 + i for b in blocks for i in range(8)}


def analyse(log, img=None, name="big"):
    lines = log.splitlines()
    max_kb = value_after(lines, "PERF max_sectors_kb")
    segs = value_after(lines, "PERF max_segments")
    ra_kb = value_after(lines, "PERF read_ahead_kb")
    wev = TR.parse(section(lines, "PERF write trace", "PERF write end"))
    rev = TR.parse(section(lines, "PERF read trace", "PERF read end"))
    w, r = requests(wev, "W"), requests(rev, "R")
    data = data_sectors(img, name) if img else None
    wdone = [ev["time"] for ev in wev if ev["action"] == "C" and TR.op_of(ev["rwbs"]) == "W"]
    read_secs = None
    for i, line in enumerate(lines):
        if strip(line) == "PERF read dd":
            for later in lines[i + 1:]:
                m = re.match(r"^(\d+) bytes .* copied, ([\d.]+) s", strip(later))
                if m:
                    read_secs = float(m.group(2))
                    break
            break
    bench = [strip(line) for line in lines if strip(line).startswith("BENCH ")]
    # page-cache pages are seldom neighbours in memory: a request of them
    # holds at most max_segments pages, whatever max_sectors_kb allows
    req_kb = min(max_kb, segs * 4)
    return {"max_kb": max_kb, "segs": segs, "req_kb": req_kb, "ra_kb": ra_kb,
            "w": w, "r": r, "wev": wev, "data": data,
            "write_secs": max(wdone) if wdone else None, "read_secs": read_secs,
            "bench": bench}


def split(reqs, data):
    """reqs parted into those on the file's data and the rest (metadata)."""
    if data is None:
        return reqs, []
    return [q for q in reqs if q[0] in data], [q for q in reqs if q[0] not in data]


def short_reads_unexplained(reads, data, window_kb):
    """Data reads under a readahead window not cut by a block that is not
    the file's (an indirect block just before or after), nor by the file's
    end: each should have been a full window."""
    last = max(data)
    out = []
    for sector, kb in reads:
        end = sector + int(kb * 2)
        if kb >= window_kb or (sector - 1) not in data or end not in data or end > last:
            continue
        out.append((sector, kb))
    return out


def check(a, mib):
    """The facts a test may assert (they hold whatever the timing, with
    sync writing the whole file in one pass): the file's data reached the
    disk in no more than mib / request limit x 1.1 requests, and the cold
    read's data requests are whole readahead windows, but where a block
    that is not the file's data cuts one."""
    wd, _ = split(a["w"], a["data"])
    rd, _ = split(a["r"], a["data"])
    bound = mib * 1024 / a["req_kb"] * 1.1
    short = short_reads_unexplained(rd, a["data"], a["ra_kb"])
    print("ext2-perf: %d data write requests (bound %.1f), %d data read requests, "
          "%d short reads unexplained" % (len(wd), bound, len(rd), len(short)))
    ok = wd and rd and len(wd) <= bound and not short
    return 0 if ok else 1


def write_dispatches(events):
    """The write phase's dispatches (D), timed from the trace's start."""
    return [ev for ev in events if ev["action"] == "D" and TR.op_of(ev["rwbs"]) == "W"]


def batch_excerpt(events, data, req_kb):
    """The trace lines of one writeback batch of the file's data: from the
    plug (P) before the first full-size data request to the completions of
    what that plug dispatched."""
    start = next((i for i, ev in enumerate(events) if ev["action"] == "D" and
                  ev["sector"] in data and ev["sectors"] == req_kb * 2), None)
    if start is None:
        return []
    while start > 0 and events[start]["action"] != "P":
        start -= 1
    out, pending = [], 0
    for ev in events[start:]:
        out.append(ev)
        if ev["action"] == "D":
            pending += 1
        elif ev["action"] == "C":
            pending -= 1
            if pending <= 0:
                break
    return out


def kib(reqs):
    if not reqs:
        return "0 requests"
    sizes = [q[1] for q in reqs]
    return "%d requests, avg %.0f KiB, min %.0f KiB, max %.0f KiB" % (
        len(sizes), sum(sizes) / len(sizes), min(sizes), max(sizes))


def report(machine, a):
    bus = MACHINES[machine][0]
    mib = FILE_MIB
    bound = mib * 1024 / a["req_kb"] * 1.1
    print("%s (%s): max_sectors_kb %d, max_segments %d (so %d KiB of page-cache pages), "
          "read_ahead_kb %d" % (machine, bus, a["max_kb"], a["segs"], a["req_kb"], a["ra_kb"]))
    wd, wm = split(a["w"], a["data"])
    rd, rm = split(a["r"], a["data"])
    print("  write %d MiB + sync, file data: %s; bound %.1f (%s)"
          % (mib, kib(wd), bound, "met" if wd and len(wd) <= bound else "MISSED"))
    print("  write, metadata (bitmaps, inode, indirect blocks): %s" % kib(wm))
    if a["write_secs"]:
        print("  write MB/s (icount, dd to the last write's completion): %.1f"
              % (mib * 1048576 / a["write_secs"] / 1e6))
    print("  read %d MiB cold, file data: %s" % (mib, kib(rd)))
    print("  read, metadata (indirect blocks): %s" % kib(rm))
    short = short_reads_unexplained(rd, a["data"], a["ra_kb"])
    print("  data reads under %d KiB not cut by an indirect block: %d" % (a["ra_kb"], len(short)))
    if a["read_secs"]:
        print("  read MB/s (icount, dd's own): %.1f" % (mib * 1048576 / a["read_secs"] / 1e6))
    for line in a["bench"]:
        print("  " + line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--machine", choices=sorted(MACHINES), action="append",
                    help="only this machine (default: both)")
    ap.add_argument("--png", metavar="DIR", help="draw the q35 run's write dispatches")
    ap.add_argument("--excerpt", action="store_true",
                    help="print the trace of one writeback batch of the q35 run")
    ap.add_argument("--log", action="store_true",
                    help="analyse the last boots' logs (build/qemu/ext2-perf-*) again")
    ap.add_argument("--check", nargs=3, metavar=("LOG", "IMG", "MIB"),
                    help="judge a scenario's log (a test): the write bound and the "
                    "read windows, for a file /big of MIB MiB in IMG")
    args = ap.parse_args()
    if args.check:
        log, img, mib = args.check
        return check(analyse(Path(log).read_text(), img), int(mib))
    for machine in args.machine or ["q35", "pc"]:
        log = (ROOT / ("build/qemu/ext2-perf-%s.log" % machine)).read_text() if args.log \
            else boot(machine)
        a = analyse(log, str(ROOT / ("build/qemu/ext2-perf-%s/e.img" % machine)))
        report(machine, a)
        if args.excerpt and machine == "q35":
            for ev in batch_excerpt(a["wev"], a["data"], a["req_kb"]):
                print("    %12.9f %-2s %-3s %s" % (ev["time"], ev["action"], ev["rwbs"], ev["rest"]))
        if args.png and machine == "q35":
            png = str(Path(args.png) / "ext2-writeback.png")
            rc = TR.plot(write_dispatches(a["wev"]), png,
                         "ext2 on AHCI: 64 MiB written and synced, every write dispatched")
            if rc:
                return rc
            print("  picture: " + png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
