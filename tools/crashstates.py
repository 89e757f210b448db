#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""crashstates.py BASE RECORDING SERIAL - every state a power cut could leave, checked.

The guest ran /tests/powercut -m (tests/user/powercut.c: create, append,
truncate, rename, unlink, mkdir, rmdir, each made durable by fsync and
then confirmed, "POWERCUT durable <n>") on an ext3 disk served by
tools/nbdcache.py in its recording mode: RECORDING holds every WRITE
(offset, data, FUA) and FLUSH in the order the disk received them, each
with how much of the guest's serial log (SERIAL, the raw file) had been
printed then.  BASE is the image before the run.  This rebuilds, offline,
what the disk's media could hold after a power cut at any moment --
CrashMonkey's and ALICE's method, where tools/powercut.py cuts live and
sees one moment per boot.

A disk with a volatile write cache promises only this: a write is on the
media once a FLUSH that came after its completion has completed, or at
once if it had FUA.  The rest may or may not be there, in any order.  So,
with an epoch the writes between two FLUSHes:

  - cut before record k (every k): the media as of the epoch's start,
    plus the epoch's FUA writes before k; the epoch's other writes lost;
  - reordered, at the end of each epoch (just before its FLUSH): the
    epoch's writes from its j-th on written, those before it lost, for
    every j -- the cache wrote back the later ones first.

Each distinct image is checked once, against the most the guest had
confirmed at the latest moment that image stands for:

  - e2fsck -fy on a copy may replay the journal and must fix nothing
    else; e2fsck -fn is clean after it;
  - the tree (debugfs rdump) is the one the writer's log says after its
    operations 0..j, for some j at least the operations confirmed durable
    then, the j-th possibly half done (a file's size anywhere between its
    old and new) -- so every confirmed file is there with its content,
    and no file holds anything but its own pattern (ordered mode: no
    metadata on the media before the data it points at).

Prints the number of states and the first failing one (its records, what
is wrong); exit 0 only if every state passes.  --all checks them all;
--selftest checks the enumeration on a recording made up in the code.
"""
import argparse
import concurrent.futures
import hashlib
import importlib.util
import itertools
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import nbdcache  # noqa: E402  (the recording's format)

spec = importlib.util.spec_from_file_location("powercut", ROOT / "tools/powercut.py")
powercut = importlib.util.module_from_spec(spec)
spec.loader.exec_module(powercut)

SECTOR = nbdcache.SECTOR
DURABLE_RE = re.compile(rb"POWERCUT durable (\d+)\r?\n")


def sectors(rec):
    """A write record as [(sector, its 512 bytes)]."""
    _, _, offset, data, _ = rec
    return [(offset // SECTOR + i, data[i * SECTOR:(i + 1) * SECTOR])
            for i in range(len(data) // SECTOR)]


def states(records):
    """Every crash state: [(overlay, serial size the cut stands for, what
    it is)], an overlay being {sector: bytes} over the base image.  The
    serial size: what the guest had printed when the first record the
    state lacks arrived."""
    out = []
    split = [sectors(r) if r[0] == "W" else [] for r in records]
    media = {}                          # on the media as of the epoch's start
    epoch = []                          # indices of this epoch's writes
    end_seen = records[-1][4] if records else 0

    def close_epoch(seen):
        # reordered: the epoch's writes from its j-th on kept (FUA ones always)
        for j in range(1, len(epoch)):
            img = dict(media)
            for n, i in enumerate(epoch):
                if n >= j or records[i][1]:
                    img.update(split[i])
            out.append((img, seen, "cut before record %d, the epoch's records %d.. written "
                        "(the volatile ones of %d..%d lost)" % (epoch[-1] + 1, epoch[j], epoch[0], epoch[j] - 1)))

    fua_so_far = dict(media)
    for k, rec in enumerate(records):
        kind, fua, _, _, seen = rec
        out.append((dict(fua_so_far), seen, "cut before record %d" % k))
        if kind == "W":
            epoch.append(k)
            if fua:
                fua_so_far.update(split[k])
        elif kind == "F":
            close_epoch(seen)
            for i in epoch:
                media.update(split[i])
            epoch = []
            fua_so_far = dict(media)
    close_epoch(end_seen)
    out.append((fua_so_far, end_seen, "cut after the last record"))
    return out


def overlay_key(overlay):
    h = hashlib.sha1()
    for n in sorted(overlay):
        h.update(n.to_bytes(8, "little"))
        h.update(overlay[n])
    return h.digest()


def durable_before(serial, seen):
    """How many operations the guest had confirmed in serial[:seen]."""
    n = 0
    for m in DURABLE_RE.finditer(serial[:seen]):
        n = max(n, int(m.group(1)) + 1)
    return n


def tree_ok(tree, ops, confirmed):
    """None if tree is the state after ops[:j] for some j >= confirmed,
    ops[j - 1] possibly half done; else what differs."""
    state = {}
    for _, op in ops[:confirmed]:
        state = powercut.ext3_apply(state, op)
    best = None
    for j in range(confirmed, len(ops) + 1):
        if not powercut.tree_matches(tree, state):
            return None
        if j < len(ops):
            op = ops[j][1]
            after = powercut.ext3_apply(state, op)
            loose = None
            if op[0] == "create":
                loose = (op[1], 0, int(op[3]))
            elif op[0] == "append":
                loose = (op[1], state[op[1]][1], int(op[3]))
            if loose and not powercut.tree_matches(tree, after, loose):
                return None
            if best is None:
                best = powercut.tree_matches(tree, state)
            state = after
    return "the tree is no state the writer went through from op %d on; it differs at %s" % (
        confirmed, ", ".join((best or powercut.tree_matches(tree, state))[:6]))


def check_one(args):
    """One state: None, or what is wrong."""
    base, overlay, confirmed, ops, work = args
    work = Path(work)
    work.mkdir(parents=True)
    image = bytearray(base)
    for n, data in overlay.items():
        image[n * SECTOR:(n + 1) * SECTOR] = data
    img = work / "state.img"
    img.write_bytes(image)
    try:
        bad = powercut.fsck(img, True)
        if bad:
            return bad
        return tree_ok(powercut.image_tree(img, work / "tree"), ops, confirmed)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def selftest():
    """states() on a recording made up here: which sectors each crash
    state holds."""
    def w(sector, fua=False):
        return ("W", fua, sector * SECTOR, bytes([sector]) * SECTOR, 0)
    flush = ("F", False, 0, b"", 0)
    #          0     1      2             3     4      5
    records = [w(1), flush, w(2, True), w(3), w(4), flush]
    got = [(sorted(o), what) for o, _, what in states(records)]
    want = [
        ([], "cut before record 0"),
        ([], "cut before record 1"),            # 1 is volatile: lost
        ([1], "cut before record 2"),
        ([1, 2], "cut before record 3"),        # 2 had FUA
        ([1, 2], "cut before record 4"),
        ([1, 2], "cut before record 5"),
        # the epoch 2..4 before its flush: its later writes kept
        ([1, 2, 3, 4], "cut before record 5, the epoch's records 3.. written (the volatile ones of 2..2 lost)"),
        ([1, 2, 4], "cut before record 5, the epoch's records 4.. written (the volatile ones of 2..3 lost)"),
        ([1, 2, 3, 4], "cut after the last record"),
    ]
    if got != want:
        for g, x in itertools.zip_longest(got, want):
            print("%s %s\n    want %s" % ("ok " if g == x else "BAD", g, x))
        return 1
    print("crashstates: selftest ok (%d states)" % len(want))
    return 0


def main():
    if sys.argv[1:] == ["--selftest"]:
        return selftest()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", help="the image before the run")
    ap.add_argument("recording", help="tools/nbdcache.py's record of the run")
    ap.add_argument("serial", help="the guest's raw serial log (serial.raw)")
    ap.add_argument("--all", action="store_true", help="check every state, not stop at the first bad one")
    ap.add_argument("-j", type=int, default=2, help="states checked at once")
    args = ap.parse_args()
    base = Path(args.base).read_bytes()
    records = nbdcache.read_records(args.recording)
    serial = Path(args.serial).read_bytes()
    ops, _, done = powercut.ext3_ops(powercut.run.clean_log(serial))
    if not ops or not done:
        print("crashstates: the writer did not finish (%d operations logged)" % len(ops))
        return 1
    writes = sum(1 for r in records if r[0] == "W")
    flushes = sum(1 for r in records if r[0] == "F")
    fuas = sum(1 for r in records if r[0] == "W" and r[1])
    # one check per distinct image, against the most confirmed for it
    uniq = {}
    for overlay, seen, what in states(records):
        key = overlay_key(overlay)
        confirmed = durable_before(serial, seen)
        if key not in uniq or confirmed > uniq[key][1]:
            uniq[key] = (overlay, confirmed, what)
    print("crashstates: %d writes (%d FUA), %d flushes, %d operations: %d distinct crash states"
          % (writes, fuas, flushes, len(ops), len(uniq)), flush=True)
    bad = 0
    items = list(uniq.values())
    with tempfile.TemporaryDirectory(prefix="crashstates-") as tmp:
        jobs = [(base, overlay, confirmed, ops, "%s/%d" % (tmp, i))
                for i, (overlay, confirmed, _) in enumerate(items)]
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(args.j, 1)) as pool:
            for (_, confirmed, what), verdict in zip(items, pool.map(check_one, jobs)):
                if verdict is None:
                    continue
                bad += 1
                if bad <= 3:
                    print("crashstates: BAD: %s (%d operations confirmed): %s" % (what, confirmed, verdict),
                          flush=True)
                if not args.all:
                    pool.shutdown(wait=True, cancel_futures=True)
                    break
    if bad:
        print("crashstates: %s bad" % ("%d states" % bad if args.all else "a state"))
        return 1
    print("crashstates: all %d states consistent, every confirmed operation there" % len(uniq))
    return 0


if __name__ == "__main__":
    sys.exit(main())
