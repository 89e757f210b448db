#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""powercut.py [-n N] [--seed S] [--fs ext2|ext3] [--disk ahci|nvme] - cut the power under a writing guest, N times.

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
of AHCI (sda): the same checks, through the NVMe driver's Flush.  On the
plain image file a cut keeps every write QEMU completed, so there the
flushes are not what is tested (see --fs ext3's cache disk below).
QEMU 7.2's NVMe controller drops a Write's FUA bit; the driver's quirk
sends a Flush after a FUA write instead (docs/nvme.md, *Bring-up*), and
--fs ext3 --disk nvme cuts the cache disk behind that controller.

With --fs ext3 the disk holds an ext3 file system (the host's mke2fs -t
ext3, 1 KiB blocks) and the writer changes its name space
(/tests/powercut -m: create, append, truncate, rename -- also over
another file --, unlink, mkdir, rmdir, each made durable by fsync of the
file and of its directories before "POWERCUT durable <n>").  The moment
of the cut is taken in the guest's own time: the guest runs under
-icount (one instruction a nanosecond), a background `sleep` of a length
drawn from the seed prints "POWERCUT cut", and QEMU is killed (SIGKILL)
as soon as the host sees that line.  Then (cut_ext3, ext3_verdict):

  (a) the host's e2fsck -fy on a copy replays the journal and must find
      nothing else to fix, and e2fsck -fn is clean after it; a second
      boot of Spindle mounts another copy (its own replay) and unmounts
      it, and e2fsck -fn must be clean on that one too;
  (b) on both copies the tree (debugfs rdump) is the one the log says was
      durable -- every file with its size and its content -- or that with
      the one operation that was announced but not confirmed done;
  (c) so a rename in flight left the old name or the new one, never both
      or neither (reported on its own).

The ext3 disk has a volatile write cache that the cut really loses:
tools/nbdcache.py, an NBD server QEMU's NBD client writes to, which keeps
each written sector in memory until a FLUSH (FUA writes go through) and,
at the cut, keeps a random subset of the cached sectors (from the seed)
and loses the rest.  (SIGKILL of QEMU over a plain image file loses
nothing QEMU wrote: the host's page cache keeps it; --raw does that.)
Each moment is cut twice, mounted with barrier=1 and with barrier=0
(commit blocks without PREFLUSH/FUA: nothing ever flushed), and printed
side by side; --barrier picks one, --ext2 adds the same writer on ext2,
whose e2fsck -fy repair then is its recovery.  Exit 0 only if barrier=1
lost nothing.  The moment is reproducible from the seed in guest time;
where the writer is at that moment is not quite: QEMU's I/O completes on
host threads, which -icount does not order.

Prints one line per cut and "<N> cuts, <L> durable writes lost"; exit 0
only with none lost.  The random moments come from --seed (default: the
time), printed so a failing run can be repeated; the cut itself lands
where the guest happens to be at that moment on this machine.
"""
import argparse
import importlib.util
import os
import random
import shutil
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
MAX_DELAY = 0.35                        # seconds after the writer starts (wall clock)
EXT3_MAX_DELAY = 3.0                    # --fs ext3: seconds of guest time

sys.path.insert(0, str(ROOT / "tools"))
import nbdcache  # noqa: E402  (tools/nbdcache.py: the disk with a volatile cache)

spec = importlib.util.spec_from_file_location("run", ROOT / "tests/qemu/run.py")
run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run)

# the disk's line and its name in the guest, per --disk
DISKS = {"ahci": ("if=ahci index=0", "sda"), "nvme": ("if=nvme", "nvme0n1")}
# --fs ext3's disk with a volatile cache (tools/nbdcache.py), on the same controller
CACHE_DEVICES = {"ahci": "ide-hd,drive=disk-a,bus=ide.0",
                 "nvme": "nvme,serial=POWERCUT,drive=disk-a"}

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


# ---------------------------------------------------------------------------
# --fs ext3: a metadata-heavy writer, cut in its own time
# ---------------------------------------------------------------------------

MBLOCK = 128 * 1024                     # powercut.c -m: file k's pattern at k * MBLOCK
EXT3_OPS = 400                          # operations the writer is asked for
EXT3_SIZE = 32 << 20

SCENARIO_EXT3 = """\
machine: q35
disk: a size=%d {if}
qemu: -icount shift=0,sleep=off
init: mkdir /mnt
init: mount {mount} /dev/{dev} /mnt
init: (sleep {delay}; echo POWERCUT cut) &
init: /tests/powercut -m /mnt %d
init: while :; do sleep 1000; done
""" % (EXT3_SIZE, EXT3_OPS)

# Spindle's own replay of a cut image: mount (recovery), umount.
SCENARIO_EXT3_REPLAY = """\
machine: q35
disk: a size=%d if=ahci index=0 prep=cp {src} {img}
init: mkdir /mnt
init: mount -t ext3 /dev/sda /mnt
init: umount /mnt
init: echo umount status $?
expect: ^umount status 0$
reject: EXT2-fs error
exit: pass
""" % EXT3_SIZE


def ext3_ops(log):
    """The writer's log -> ([(n, op words)], {durable n}, done?)."""
    ops, durable = [], set()
    for line in log.splitlines():
        w = line.split()
        if line.startswith("POWERCUT op ") and len(w) >= 4:
            ops.append((int(w[2]), w[3:]))
        elif line.startswith("POWERCUT durable ") and len(w) == 3:
            durable.add(int(w[2]))
    return ops, durable, "POWERCUT done" in log


def ext3_apply(state, op):
    """The tree after op: state maps a path to "dir" or (k, size)."""
    state = dict(state)
    kind, args = op[0], op[1:]
    if kind == "mkdir":
        state[args[0]] = "dir"
    elif kind == "rmdir" or kind == "unlink":
        state.pop(args[0], None)
    elif kind in ("create", "append"):
        state[args[0]] = (int(args[1]), int(args[2]))
    elif kind == "truncate":
        state[args[0]] = (state[args[0]][0], int(args[1]))
    elif kind == "rename":
        state[args[1]] = state.pop(args[0])
    else:
        raise ValueError("unknown operation %r" % (op,))
    return state


def ext3_expected(log):
    """(the tree as of the last durable operation, the operation after it
    that may or may not have happened or None, how many were durable)."""
    ops, durable, _ = ext3_ops(log)
    state, pending, n = {}, None, 0
    for num, op in ops:
        if num in durable:
            state = ext3_apply(state, op)
            n += 1
        else:
            pending = op            # only the last one can lack its line
    return state, pending, n


def image_tree(img, out):
    """The image's tree by debugfs rdump: {path: "dir" | bytes}."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    subprocess.run(["debugfs", "-R", "rdump / %s" % out, str(img)], capture_output=True)
    tree = {}
    for path in sorted(out.rglob("*")):
        rel = str(path.relative_to(out))
        if rel == "lost+found" or rel.startswith("lost+found/"):
            continue
        tree[rel] = "dir" if path.is_dir() else path.read_bytes()
    return tree


def tree_matches(tree, want, loose=None):
    """The names of tree that differ from want (empty: it matches).
    loose: a path whose size may lie between two bounds (a write in
    flight), as (path, low, high)."""
    bad = []
    for path in sorted(set(tree) | set(want)):
        got, exp = tree.get(path), want.get(path)
        if got is None or exp is None:
            bad.append(path)
        elif exp == "dir" or got == "dir":
            if exp != got:
                bad.append(path)
        else:
            k, size = exp
            ok_sizes = {size}
            if loose and loose[0] == path:
                ok_sizes = set(range(loose[1], loose[2] + 1))
            if len(got) not in ok_sizes or got != pattern(k * MBLOCK, len(got)):
                bad.append(path)
    return bad


def ext3_verdict(tree, log):
    """(lost, note) for one copy: lost counts the durable names missing or
    wrong; note says which state matched, or what broke (a rename in
    flight that left both names or neither)."""
    state, pending, n = ext3_expected(log)
    if not tree_matches(tree, state):
        return 0, "%d durable ops, tree as durable" % n
    if pending:
        after = ext3_apply(state, pending)
        loose = None
        if pending[0] == "create":
            loose = (pending[1], 0, int(pending[3]))
        elif pending[0] == "append":
            loose = (pending[1], state[pending[1]][1], int(pending[3]))
        if not tree_matches(tree, after, loose):
            return 0, "%d durable ops, tree with '%s' done" % (n, " ".join(pending))
        if pending[0] == "rename":
            # the rest of the tree as durable, and these two names wrong
            old, new = pending[1], pending[2]
            neither = old not in tree and new not in tree
            both = old in tree and new in tree and new not in state    # not a replace
            if (neither or both) and set(tree_matches(tree, state)) <= {old, new}:
                return 1, "RENAME NOT ATOMIC: %s -> %s, %s" % (
                    old, new, "both there" if both else "neither there")
    bad = tree_matches(tree, state)
    lost = len([p for p in bad if p in state])
    return max(lost, 1), "%d durable ops; differs at %s" % (n, ", ".join(bad[:6]))


def fsck(img, replay):
    """e2fsck on img: with replay, -fy (the journal's replay; anything
    else it fixes is damage) then -fn; else -fn.  Returns None or what is
    wrong."""
    if replay:
        r = subprocess.run(["e2fsck", "-fy", str(img)], capture_output=True, text=True)
        fixes = [x for x in r.stdout.splitlines() if x.endswith("? yes")]
        if r.returncode & ~1 or fixes:
            return "e2fsck -fy exit %d, fixed %s" % (r.returncode, fixes[:3])
    r = subprocess.run(["e2fsck", "-fn", str(img)], capture_output=True, text=True)
    if r.returncode:
        lines = [x for x in r.stdout.splitlines() if "?" in x or "rror" in x]
        return "e2fsck -fn exit %d: %s" % (r.returncode, lines[:3])
    return None


# The ways each moment is cut: ext3 with and without barriers, and ext2
# (the same writer; ext2's fsync writes the device's metadata and flushes).
MODES = {"barrier=1": ("ext3", "-t ext3 -o barrier=1"),
         "barrier=0": ("ext3", "-t ext3 -o barrier=0"),
         "ext2": ("ext2", "-t ext2")}


def cut_ext3(k, delay, iso, mode, cache_seed=None, ctrl="ahci"):
    """One boot, cut at guest time delay; (durable ops, lost, note).
    mode: a key of MODES.  cache_seed: the disk is tools/nbdcache.py's,
    whose cache loses a random subset (from this seed) of its unflushed
    sectors at the cut.  ctrl: a key of DISKS, the disk's controller."""
    fstype, mount = MODES[mode]
    text = SCENARIO_EXT3.replace("{mount}", mount).replace("{delay}", "%.3f" % delay)
    text = text.replace("{if}", DISKS[ctrl][0]).replace("{dev}", DISKS[ctrl][1])
    name = "powercut-%s%d-%s" % ("cache-" if cache_seed is not None else "", k,
                                 mode.replace("=", ""))
    if cache_seed is not None:
        text = "\n".join(x for x in text.splitlines() if not x.startswith("disk:")) + "\n"
    scn = run.parse_scenario(text, name)
    run.place_disks(scn)
    workdir = WORK / name
    run.prepare(scn, workdir)
    img = workdir / "a.img"
    raw = workdir / "serial.raw"
    cmd = run.qemu_command(scn, iso, workdir, raw)
    disk = None
    if cache_seed is not None:
        with open(img, "wb") as f:
            f.truncate(EXT3_SIZE)
        sock = workdir / "nbd.sock"
        disk = nbdcache.CacheDisk(img, sock)
        cmd += ["-drive", "if=none,id=disk-a,format=raw,file.driver=nbd,"
                "file.server.type=unix,file.server.path=%s" % sock,
                "-device", CACHE_DEVICES[ctrl]]
    subprocess.run(["mke2fs", "-q", "-F", "-t", fstype, "-b", "1024", str(img)], check=True)
    with open(workdir / "qemu.stderr", "wb") as err:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if raw.exists() and b"POWERCUT cut" in raw.read_bytes():
            break
        time.sleep(0.005)                # polling the log for the guest's line
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)     # the power cut
    proc.wait()
    log = run.clean_log(raw.read_bytes())
    notes, lost = [], 0
    if disk:
        kept, dropped = disk.cut(random.Random(cache_seed))
        if disk.error:
            return None, None, "the cache disk: %s" % disk.error
        notes.append("cache: %d flushes, %d sectors kept, %d lost" % (disk.flushes, kept, dropped))
    if "POWERCUT start" not in log:
        return None, None, "the writer never started"
    if "POWERCUT cut" not in log:
        return None, None, "no cut line within 120 s"
    host = workdir / "host.img"
    shutil.copyfile(img, host)
    bad = fsck(host, True)
    l, note = ext3_verdict(image_tree(host, workdir / "host.tree"), log)
    lost = max(lost, l)
    if fstype == "ext2":
        # ext2 has no journal: e2fsck -fy repairing it is its normal recovery
        notes.append("host: %s, %s" % ("e2fsck repaired" if bad else "e2fsck clean", note))
        _, _, n = ext3_expected(log)
        return n, lost, "; ".join(notes)
    notes.append("host: " + (bad or note))
    if bad:
        lost = max(lost, 1)
    # Spindle's own replay, on another copy
    spindle = WORK / (name + "-cut.img")
    shutil.copyfile(img, spindle)
    rtext = SCENARIO_EXT3_REPLAY.replace("{src}", str(spindle.relative_to(ROOT)))
    rfile = WORK / (name + "-replay.scn")
    rfile.write_text(rtext)
    r = subprocess.run([sys.executable, str(ROOT / "tests/qemu/run.py"), str(rfile)], cwd=ROOT,
                       capture_output=True, text=True)
    rimg = ROOT / "build/qemu" / (name + "-replay") / "a.img"
    if r.returncode:
        notes.append("spindle: replay boot failed")
        lost = max(lost, 1)
    else:
        bad = fsck(rimg, False)
        l, note = ext3_verdict(image_tree(rimg, workdir / "spindle.tree"), log)
        lost = max(lost, l, 1 if bad else 0)
        notes.append("spindle: " + (bad or note))
    _, _, n = ext3_expected(log)
    return n, lost, "; ".join(notes)


def main_ext3(args, rng, iso):
    """--fs ext3: each moment cut with barrier=1, barrier=0 (and ext2)."""
    barriers = ["barrier=1", "barrier=0"] if args.barrier is None else ["barrier=%d" % args.barrier]
    if args.ext2:
        barriers.append("ext2")
    total = {b: 0 for b in barriers}
    bad = {b: 0 for b in barriers}
    for k in range(args.n):
        delay = rng.uniform(0.05, args.max_delay)
        cache_seed = None if args.raw else rng.getrandbits(32)
        for b in barriers:
            durable, lost, note = cut_ext3(k, delay, iso, b, cache_seed, args.disk)
            if durable is None:
                print("cut %d %s: %s" % (k, b, note), flush=True)
                bad[b] += 1
                continue
            total[b] += lost
            bad[b] += 1 if lost else 0
            print("cut %d at %.3f s %s: %d ops durable, %d lost (%s)"
                  % (k, delay, b, durable, lost, note), flush=True)
    for b in barriers:
        print("%s: %d cuts, %d lost (%d cuts damaged)" % (b, args.n, total[b], bad[b]))
    return 0 if not total.get("barrier=1") and not bad.get("barrier=1") else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=10, help="cuts")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--max-delay", type=float, default=MAX_DELAY,
                    help="longest wait after the writer starts, seconds")
    ap.add_argument("--fs", choices=["ext2", "ext3"], help="cut under file writes on this file system")
    ap.add_argument("--barrier", type=int, choices=[0, 1], default=None,
                    help="ext3: only this barrier= (default: each cut with 1, then 0)")
    ap.add_argument("--ext2", action="store_true",
                    help="ext3: each moment also cut on ext2, the same writer")
    ap.add_argument("--raw", action="store_true",
                    help="ext3: a plain raw image (SIGKILL loses nothing QEMU wrote) "
                    "instead of the disk with a volatile cache (tools/nbdcache.py)")
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
    if args.fs == "ext3":
        if args.max_delay == MAX_DELAY:
            args.max_delay = EXT3_MAX_DELAY
        return main_ext3(args, rng, iso)
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
