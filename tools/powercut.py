#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""powercut.py [-n N] [--seed S] [--fs ext2] [--disk ahci|nvme] - cut the power under a writing guest, N times.

`make powercut N=50` runs this.  Each cut boots Spindle with an AHCI disk
whose image starts filled with the byte 0xa5, runs /tests/powercut
(tests/user/powercut.c: 64 KiB buffered writes of the verification
pattern, an fsync after every two, "POWERCUT durable <n>" printed only
once fsync has returned), and kills QEMU with SIGKILL at a random moment
after the writer starts -- the power cut.  Then it reads the raw image:

  - every block the guest reported durable holds the pattern (an fsync that
    returned before its write-back reached the disk would show here);
  - nothing after the last block the guest began to write changed (still
    0xa5): no write went where it was not sent.

With --fs ext2 the disk holds an ext2 file system (the host's mke2fs,
1 KiB blocks) and the writer makes files on it instead (/tests/powercut -f:
one 64 KiB file at a time, each followed by an fsync of the file and one of
its directory, "POWERCUT durable-file <i>" once both have returned).  After
the cut the host repairs a copy of the image with `e2fsck -fy`, as ext2
needs after a crash (it has no journal), and reads every durable file back
with debugfs: present, 64 KiB, the pattern.  `--check-fs IMG LOG` does only
that check, on an image and serial log a scenario left (ext2-crash.scn).

--disk nvme puts the disk on QEMU's NVMe controller (nvme0n1) instead
of AHCI (sda): the same checks, through the NVMe driver's Flush.

Prints one line per cut and "<N> cuts, <L> durable writes lost"; exit 0
only with none lost.  The random moments come from --seed (default: the
time), printed so a failing run can be repeated; the cut itself lands
where the guest happens to be at that moment on this machine.
"""
import argparse
import importlib.util
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build/powercut"
BLOCK = 64 * 1024
BLOCKS = 256                            # 16 MiB of writes
FILL = 0xA5
SEED = 21                               # powercut.c's pattern seed
MASK = (1 << 64) - 1

spec = importlib.util.spec_from_file_location("run", ROOT / "tests/qemu/run.py")
run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run)

# the disk's line and its name in the guest, per --disk
DISKS = {"ahci": ("if=ahci index=0", "sda"), "nvme": ("if=nvme", "nvme0n1")}

SCENARIO = """\
machine: q35
disk: a size=%d {if}
init: /tests/powercut {dev} %d
""" % (BLOCKS * BLOCK + (4 << 20), BLOCKS)


def splitmix64(x):
    z = (x + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


_blocks = {}


def pattern(offset, length):
    """The pattern's bytes at device bytes [offset, offset + length)."""
    if (offset, length) not in _blocks:
        _blocks[(offset, length)] = b"".join(
            splitmix64(SEED + (offset + i) // 8).to_bytes(8, "little")
            for i in range(0, length, 8))
    return _blocks[(offset, length)]


SCENARIO_FS = """\
machine: q35
disk: a size=%d {if}
init: mkdir /mnt
init: mount -t ext2 /dev/{dev} /mnt
init: /tests/powercut -f /mnt %d
""" % (BLOCKS * BLOCK + (8 << 20), BLOCKS)


def check_fs(img, log):
    """An ext2 image after a cut: (durable files, lost, note) per the log."""
    durable = [int(line.split()[2]) for line in log.splitlines()
               if line.startswith("POWERCUT durable-file ")]
    fixed = Path(str(img) + ".fsck")
    fixed.write_bytes(Path(img).read_bytes())
    fsck = subprocess.run(["e2fsck", "-fy", str(fixed)], capture_output=True, text=True)
    if fsck.returncode & ~3:            # 4: left uncorrected, 8: could not run
        return len(durable), len(durable), "e2fsck -fy exit %d: %s" % (
            fsck.returncode, fsck.stdout.strip().splitlines()[-1:])
    lost = 0
    out = Path(str(img) + ".dump")
    for i in durable:
        out.unlink(missing_ok=True)
        subprocess.run(["debugfs", "-R", "dump /f%d %s" % (i, out), str(fixed)],
                       capture_output=True)
        data = out.read_bytes() if out.exists() else b""
        if data != pattern(i * BLOCK, BLOCK):
            print("  f%d: %s" % (i, "missing" if not out.exists() else
                                 "%d bytes, not the pattern" % len(data)))
            lost += 1
    note = "e2fsck: clean" if fsck.returncode == 0 else "e2fsck: repaired"
    return len(durable), lost, note


def cut(k, delay, iso, fs=None, disk="ahci"):
    """One boot, killed delay seconds after the writer starts; (durable, begun, lost, note)."""
    text = (SCENARIO_FS if fs else SCENARIO).replace("{if}", DISKS[disk][0])
    scn = run.parse_scenario(text.replace("{dev}", DISKS[disk][1]), "powercut-%d" % k)
    run.place_disks(scn)
    workdir = WORK / str(k)
    run.prepare(scn, workdir)
    img = workdir / "a.img"
    size = img.stat().st_size
    with open(img, "wb") as f:
        f.write(bytes([FILL]) * size)
    if fs:
        subprocess.run(["mke2fs", "-q", "-F", "-t", "ext2", "-b", "1024", str(img)], check=True)
    raw = workdir / "serial.raw"
    cmd = run.qemu_command(scn, iso, workdir, raw)
    proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    started = None
    while proc.poll() is None and time.monotonic() < deadline:
        text = raw.read_bytes() if raw.exists() else b""
        if started is None and b"POWERCUT start" in text:
            started = time.monotonic()
        if started is not None and time.monotonic() - started >= delay:
            break
        time.sleep(0.005)                # polling the log, not waiting for a result
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)     # the power cut
    proc.wait()
    log = run.clean_log(raw.read_bytes())
    if started is None:
        return None, None, None, "the writer never started"
    if fs:
        durable, lost, note = check_fs(img, log)
        return durable, None, lost, note + (", done" if "POWERCUT done" in log else "")
    durable = begun = 0
    for line in log.splitlines():
        if line.startswith("POWERCUT durable "):
            durable = int(line.split()[2])
        elif line.startswith("POWERCUT writing "):
            begun = int(line.split()[2]) + 1
    data = img.read_bytes()
    lost = 0
    for b in range(durable):
        if data[b * BLOCK:(b + 1) * BLOCK] != pattern(b * BLOCK, BLOCK):
            lost += 1
    untouched = data[begun * BLOCK:]
    if untouched.count(FILL) != len(untouched):
        first = next(i for i, c in enumerate(untouched) if c != FILL)
        return durable, begun, lost, "byte %d, past every write, changed" % (begun * BLOCK + first)
    return durable, begun, lost, "done" if "POWERCUT done" in log else "cut"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=10, help="cuts")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--max-delay", type=float, default=0.35,
                    help="longest wait after the writer starts, seconds")
    ap.add_argument("--fs", choices=["ext2"], help="cut under file writes on this file system")
    ap.add_argument("--disk", choices=sorted(DISKS), default="ahci", help="the disk's controller")
    ap.add_argument("--check-fs", nargs=2, metavar=("IMG", "LOG"),
                    help="only check an ext2 image against a writer's serial log")
    args = ap.parse_args()
    if args.check_fs:
        img, logfile = args.check_fs
        durable, lost, note = check_fs(img, Path(logfile).read_text(errors="replace"))
        print("%d files durable, %d lost (%s)" % (durable, lost, note))
        return 0 if durable and not lost and not note.startswith("e2fsck -fy exit") else 1
    seed = args.seed if args.seed is not None else int(time.time())
    rng = random.Random(seed)
    iso = ROOT / "build/spindle.iso"
    print("powercut: seed %d" % seed)
    total_lost, bad = 0, 0
    for k in range(args.n):
        delay = rng.uniform(0, args.max_delay)
        durable, begun, lost, note = cut(k, delay, iso, args.fs, args.disk)
        if durable is None:
            print("cut %d: %s" % (k, note))
            bad += 1
            continue
        total_lost += lost
        if args.fs:
            if note.startswith("e2fsck -fy exit"):
                bad += 1
            print("cut %d after %.3f s: %d files durable, %d lost (%s)"
                  % (k, delay, durable, lost, note))
            continue
        if note not in ("cut", "done"):
            bad += 1
        print("cut %d after %.3f s: %d blocks durable, %d begun, %d lost (%s)"
              % (k, delay, durable, begun, lost, note))
    print("%d cuts, %d durable writes lost" % (args.n, total_lost))
    return 0 if total_lost == 0 and bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
