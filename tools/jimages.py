#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""jimages.py [--selftest] [--src DIR] [NAME...] - e2fsprogs' journal test
images replayed by Spindle's journal recovery, judged by e2fsck's replay.

    tools/jimages.py                         every case (make jimages)
    tools/jimages.py j_short_trans           one case
    tools/jimages.py --seeds DIR             fuzz_jbd2's raw seeds (make-corpus.sh)
    tools/jimages.py [--ext3] --image CASE OUT   a case's image, before replay
    tools/jimages.py --compare ORIG IMG      IMG, replayed by Spindle's kernel,
                                             against e2fsck's replay of ORIG

`make jimages` runs this.  e2fsprogs keeps, in its tests/j_* folders, the
journals its own recovery must get right: good logs (checksum v2 and v3,
32- and 64-bit block numbers, revokes, long transactions) and damaged
ones (a bad commit, descriptor or revoke block, a bad revoke count, a
journal superblock with a bad magic or checksum).  Each folder holds an
image (image.gz) or a script that makes one with mke2fs and debugfs's
journal writer, and the output e2fsck must print (expect, expect.1).
A script's image is the copy it leaves, log written and not replayed,
in JOURNAL_DUMP_DIR (e2fsprogs' own hook).  The j_short_* scripts run a
second time ("+ext3") with mke2fs making ext3 instead of ext4: a
superblock Spindle's mount accepts, a journal mapped by indirect blocks.

Fetching (the Debian way, nothing committed: GPL test data):
  `apt-get source --download-only e2fsprogs=<the host's version>` into
  build/jimages/src (a deb-src source in /etc/apt/sources.list.d/, which
  `make deps` writes: tools/deb-src.sh), then tests/j_* out of the
  upstream tarball.  A failed fetch is an error, never a skip.

For each case, three copies of the image before any replay:
  A  Spindle: build/jimages/jbd2_replay (tests/jimages/jbd2_replay.c:
     fs/jbd2/ and fs/ext2/check.c built for the host) prints the ext3
     mount's verdict on the superblock and replays the journal in place;
  B  e2fsck -E journal_only -y: e2fsprogs' own replay and nothing else;
  O  the image untouched.
and the checks:
  - the mount: refused, with an "EXT2-fs" line, exactly when the image
    has an incompat feature Spindle's ext3 lacks (all of e2fsprogs'
    images are ext4: extents, 64bit, flex_bg);
  - e2fsck's verdict (read from its output) is in e2fsprogs' expect file
    for the case: the oracle is the one e2fsprogs tests itself against;
  - e2fsck replayed (with or without "transaction N was corrupt, replay
    was aborted"): Spindle's load returns 0 with j_failed_commit the
    same N, and A equals B byte for byte -- home blocks and the journal
    superblock -- except four fields of the file system's superblock that
    the two writers stamp differently: s_wtime, s_wtime_hi,
    s_kbytes_written, and s_checksum over them (and s_state after an
    aborted replay: e2fsck marks the errors there, Spindle's mount in
    fs/ext2/super.c, which the host program does not run).  Then, with
    needs_recovery cleared on A as the mount would (debugfs), `e2fsck
    -fn` says the same of A as of B, word for word.  Where e2fsck goes on to repair what
    its replay left (j_long_trans: the log wipes the inode table, the
    journal's inode with it), A is judged against the log as `debugfs
    -R "logdump -a"` reads it instead: every logged block home with its
    last committed copy, nothing else written;
  - e2fsck refused the log (a checksum error, a bad revoke count, a bad
    journal superblock), or the journal has a feature Spindle does not
    read (fast_commit, checksum v1): Spindle's load fails with a "JBD2:"
    line and A equals O -- not one byte written, home block or journal.
    Where e2fsck wrote home blocks anyway (it replays the good blocks of
    a transaction one of whose blocks has a bad checksum, as Linux 6.1
    does) the blocks are listed: Spindle replays nothing of a damaged
    log (docs/ext2.md, "ext3: the journal").

Each case's journal is left in build/fuzz/corpus/jbd2/ as a seed of
fuzz_jbd2's raw mode (as --seeds writes them), for make fuzz.
Prints one line per case (PASS/FAIL, the verdicts, why) and a summary;
exit 1 if a case failed or the fetch did; --selftest checks the verdict
parsing and the image comparison on made-up data, fetching nothing.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
WORK = ROOT / "build/jimages"
SRC = WORK / "src"
REPLAY = WORK / "jbd2_replay"
# make fuzz's own corpus of fuzz_jbd2 (tests/fuzz/fuzz.mk): each run
# leaves the journals there as seeds, never in the committed ones
FUZZ_SEEDS = ROOT / "build/fuzz/corpus/jbd2"

# ext3's incompat features Spindle mounts (fs/ext2/check.c:
# EXT2_FEATURE_INCOMPAT_SUPP, and needs_recovery as ext3)
SPINDLE_FS_INCOMPAT = {"filetype", "needs_recovery"}
INCOMPAT_NAMES = {"compression", "filetype", "needs_recovery", "journal_dev", "meta_bg",
                  "extent", "extents", "64bit", "mmp", "flex_bg", "ea_inode", "dirdata",
                  "metadata_csum_seed", "large_dir", "inline_data", "encrypt", "casefold",
                  "fname_encoding", "fast_commit"}
# journal features fs/jbd2/journal.c reads (JBD2_KNOWN_INCOMPAT_FEATURES);
# journal_checksum (v1) is refused at recovery
SPINDLE_JOURNAL_FEATURES = {"journal_incompat_revoke", "journal_64bit",
                            "journal_async_commit", "journal_checksum_v2",
                            "journal_checksum_v3"}

# Byte ranges of the file system's superblock (offsets inside it) that
# e2fsck and Spindle's side may stamp differently after the same replay.
SB_STAMPS = {"s_wtime": (0x30, 4), "s_kbytes_written": (0x178, 8),
             "s_wtime_hi": (0x274, 1), "s_checksum": (0x3FC, 4)}
SB_STATE = {"s_state": (0x3A, 2)}
SB_OFFSET = 1024
CHUNK = 1 << 20


class JimagesError(Exception):
    pass


def sh(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace", **kw)


# --- fetching ------------------------------------------------------------------------

def fetch(src):
    """tests/ of e2fsprogs' source for the host's version, under src."""
    done = glob.glob(str(src / "e2fsprogs-*/tests/j_short_trans"))
    if done:
        return Path(done[0]).parent
    version = sh(["dpkg-query", "-W", "-f=${Version}", "e2fsprogs"]).stdout.strip()
    if not version:
        raise JimagesError("dpkg-query names no installed e2fsprogs (make deps)")
    src.mkdir(parents=True, exist_ok=True)
    print("jimages: apt-get source --download-only e2fsprogs=%s" % version, flush=True)
    r = sh(["apt-get", "source", "--download-only", "e2fsprogs=%s" % version], cwd=src)
    if r.returncode:
        raise JimagesError(
            "apt-get source failed (exit %d): %s\n  It needs a deb-src source: `make deps` as "
            "root writes /etc/apt/sources.list.d/spindle-deb-src.sources (tools/deb-src.sh) "
            "and runs apt-get update." % (r.returncode, (r.stdout.strip().splitlines() or [""])[-1]))
    tarballs = [t for t in glob.glob(str(src / "e2fsprogs_*.orig.tar.*"))
                if not t.endswith(".asc")]
    if not tarballs:
        raise JimagesError("apt-get source left no e2fsprogs_*.orig.tar.* in %s" % src)
    want = re.compile(r"^[^/]+/tests/(j_[^/]+/.*|filter\.sed|mke2fs\.conf\.in)$")
    with tarfile.open(tarballs[0]) as tar:
        members = [m for m in tar.getmembers() if want.match(m.name) and m.isfile()]
        tar.extractall(src, members=members)
    done = glob.glob(str(src / "e2fsprogs-*/tests/j_short_trans"))
    if not done:
        raise JimagesError("no tests/j_short_trans in %s" % tarballs[0])
    return Path(done[0]).parent


# --- the images before replay --------------------------------------------------------

def unpack_image(case, out):
    """The image of a case that ships one (image.gz, image.bz2), into out."""
    for name, opener in (("image.gz", "gzip"), ("image.bz2", "bzip2")):
        p = case / name
        if p.exists():
            # sparse: the 128 MiB images are mostly zeros
            zero = bytes(CHUNK)
            with open(out, "wb") as f, subprocess.Popen([opener, "-dc", str(p)],
                                                         stdout=subprocess.PIPE) as z:
                while True:
                    chunk = z.stdout.read(CHUNK)
                    if not chunk:
                        break
                    if chunk == zero[:len(chunk)]:
                        f.seek(len(chunk), os.SEEK_CUR)
                    else:
                        f.write(chunk)
                f.truncate()
            if z.returncode:
                raise JimagesError("%s -dc %s failed" % (opener, p))
            return True
    return False


# mke2fs as a j_* script calls it (-T ext4, -O 64bit,...), making instead
# an ext3 that Spindle mounts: usage type ext3 (has_journal only, in the
# tests' mke2fs.conf) and no 64bit.  For --image --ext3.
MKE2FS_EXT3 = r"""#!/bin/bash
a=("$@")
for i in "${!a[@]}"; do
	[ "${a[$i]}" = ext4 ] && a[$i]=ext3
	a[$i]=$(printf '%s' "${a[$i]}" | sed -e 's/^64bit,//; s/,64bit//; s/^64bit$/^64bit/')
done
exec mke2fs "${a[@]}"
"""


def image_from_script(case, tests, out, tmp, ext3=False):
    """Run a case's script as e2fsprogs' test harness would; the image it
    makes, with the log written and not yet replayed, is the one the
    script copies into JOURNAL_DUMP_DIR (e2fsprogs' own hook for this)."""
    dump = tmp / "dump"
    dump.mkdir()
    mke2fs = "mke2fs"
    if ext3:
        mke2fs = tmp / "mke2fs-ext3"
        mke2fs.write_text(MKE2FS_EXT3)
        mke2fs.chmod(0o755)
    conf = tmp / "mke2fs.conf"
    shutil.copy(tests / "mke2fs.conf.in", conf)
    env = dict(os.environ, LC_ALL="C", TZ="GMT0", E2FSCK_CONFIG="/dev/null",
               MKE2FS_CONFIG=str(conf), E2FSPROGS_SKIP_PROGRESS="yes",
               JOURNAL_DUMP_DIR=str(dump))
    script = ("test_name=%s; test_dir=%s; cmd_dir=%s; TMPFILE=%s/image; "
              "FSCK=e2fsck; MKE2FS=%s; DEBUGFS=debugfs; DEBUGFS_EXE=$(command -v debugfs); "
              "DUMPE2FS=dumpe2fs; TUNE2FS=tune2fs; CLEAN_OUTPUT='sed -f %s/filter.sed'; "
              "DIFF_OPTS=-u; . %s/script" % (case.name, case, tests, tmp, mke2fs, tests, case))
    sh(["bash", "-c", script], cwd=tmp, env=env)
    made = dump / ("%s.img" % case.name)
    if not made.exists():
        return False
    made.rename(out)
    return True


# --- the verdicts --------------------------------------------------------------------

def e2fsck_verdict(out):
    """What e2fsck's journal replay did, from its output: (kind, detail, line).
    "replayed" may be followed by repairs of what the replay left (a log
    that overwrote the journal's own inode): the kind is then "repaired"."""
    m = re.search(r"Journal transaction (\d+) was corrupt, replay was aborted\.", out)
    if m:
        return "aborted", int(m.group(1)), m.group(0)
    for line in ("Journal checksum error found", "while recovering journal"):
        if line in out:
            return "refused", None, line
    if "recovering journal" in out:
        after = out[out.index("recovering journal"):]
        if re.search(r"\? yes|CLEARED", after):
            return "repaired", None, "recovering journal"
        return "replayed", None, "recovering journal"
    for line in ("Journal superblock is corrupt", "has an invalid journal"):
        if line in out:
            return "refused", None, line
    if "unsupported feature" in out:
        return "unopened", None, "unsupported feature"
    return "nothing", None, None


def spindle_verdict(out):
    """jbd2_replay's two lines: (mount accepted, load errno, replayed, failed_commit)."""
    mount = re.search(r"^mount: (accepted|refused)", out, re.M)
    load = re.search(r"^jbd2: load (-?\d+) replayed (\d+) revoked \d+ failed_commit (\d+)",
                     out, re.M)
    if not mount or not load:
        raise JimagesError("jbd2_replay printed no verdict:\n" + out)
    return (mount.group(1) == "accepted", int(load.group(1)), int(load.group(2)),
            int(load.group(3)))


def features(img, label):
    out = sh(["dumpe2fs", "-h", str(img)]).stdout
    m = re.search(r"^%s:\s*(.*)$" % label, out, re.M)
    return set(m.group(1).split()) if m else set()


def block_size(img):
    m = re.search(r"^Block size:\s*(\d+)", sh(["dumpe2fs", "-h", str(img)]).stdout, re.M)
    return int(m.group(1)) if m else 1024


def next_data(f, pos):
    """The first byte at or after pos that is not in a hole (the end if none)."""
    try:
        return os.lseek(f.fileno(), pos, os.SEEK_DATA)
    except OSError:  # ENXIO: only holes from pos on
        return os.fstat(f.fileno()).st_size


def differing_blocks(a, b, bs, allowed=()):
    """Blocks where files a and b differ, outside the byte ranges allowed
    ((start, length) pairs, file offsets).  Ranges that are holes in both
    (the images are sparse: 512 MiB of mostly nothing) are skipped."""
    out = []
    with open(a, "rb") as fa, open(b, "rb") as fb:
        pos = 0
        while True:
            skip = min(next_data(fa, pos), next_data(fb, pos))
            if skip > pos:
                pos = skip - skip % CHUNK
            fa.seek(pos)
            fb.seek(pos)
            x, y = fa.read(CHUNK), fb.read(CHUNK)
            if not x and not y:
                break
            if x != y:
                x, y = bytearray(x.ljust(len(y), b"\0")), bytearray(y.ljust(len(x), b"\0"))
                for start, length in allowed:
                    lo, hi = max(start - pos, 0), min(start + length - pos, len(x))
                    if lo < hi:
                        x[lo:hi] = y[lo:hi]
                for off in range(0, len(x), bs):
                    if x[off:off + bs] != y[off:off + bs]:
                        out.append((pos + off) // bs)
            pos += CHUNK
    return out


def sb_ranges(fields):
    return [(SB_OFFSET + off, n) for off, n in fields.values()]


def expect_text(case):
    return "".join(p.read_text(errors="replace") for p in sorted(case.glob("expect*"))
                   if p.is_file())


JBD2_MAGIC = bytes.fromhex("c03b3998")
TAG_RE = re.compile(r"^\s*FS block (\d+) logged at journal block (\d+) \(flags (0x[0-9a-f]+)\)")


def logged_homes(img, jblocks, bs):
    """The log as e2fsprogs reads it (debugfs logdump -a): {home block: its
    last copy in a committed transaction, unescaped}; None if the log
    revokes a block (not modelled here)."""
    out = subprocess.run(["debugfs", "-R", "logdump -a", str(img)], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout
    if "Revoke" in out:
        return None
    homes, pending = {}, {}
    with open(img, "rb") as f:
        for line in out.splitlines():
            m = TAG_RE.match(line)
            if m:
                home, jblk, flags = int(m.group(1)), int(m.group(2)), int(m.group(3), 16)
                f.seek(jblocks[jblk] * bs)
                data = bytearray(f.read(bs))
                if flags & 1:  # JBD2_FLAG_ESCAPE: the magic number put back
                    data[0:4] = JBD2_MAGIC
                pending[home] = bytes(data)
            elif "(commit block)" in line:
                homes.update(pending)
                pending = {}
    return homes


def check_against_log(a, o, jblocks, bs):
    """Problems of Spindle's replay A judged against the log itself: each
    logged home holds its last copy, and nothing else but the journal's
    superblock changed."""
    homes = logged_homes(o, jblocks, bs)
    if homes is None:
        return ["e2fsck repaired after its replay and the log revokes: no oracle"]
    wrong = []
    with open(a, "rb") as f:
        for home, data in sorted(homes.items()):
            f.seek(home * bs)
            if f.read(bs) != data:
                wrong.append(home)
    extra = sorted(set(differing_blocks(a, o, bs)) - set(homes) - {jblocks[0]})
    problems = []
    if wrong:
        problems.append("home blocks not as logged: %s" % wrong[:8])
    if extra:
        problems.append("blocks the log does not carry written: %s" % extra[:8])
    if not homes:
        problems.append("logdump shows no committed block")
    return problems


# --- one case -------------------------------------------------------------------------

def case_image(case, tests, tmp, ext3=False):
    """A case's image before replay, tmp/O.img, and its journal's blocks:
    (path, [block, ...]), (path, None) without a journal inode, or None
    if the case gives no image."""
    o = tmp / "O.img"
    if not unpack_image(case, o):
        if not (case / "script").exists() or not image_from_script(case, tests, o, tmp, ext3):
            return None
    jino = re.search(r"^Journal inode:\s*(\d+)", sh(["dumpe2fs", "-h", str(o)]).stdout, re.M)
    if not jino:
        return o, None
    return o, journal_blocks(o, int(jino.group(1)))


RUN_RE = re.compile(r"\((\d+)(?:-(\d+))?\):(\d+)(?:-(\d+))?")


def journal_blocks(img, ino):
    """The journal inode's blocks in logical order, from debugfs's stat:
    its runs "(logical-range):physical-range", whether the inode maps by
    extents or by indirect blocks -- whose own blocks, "(IND):n", and
    extent-tree blocks, "(ETB0):n", are not the journal's."""
    out = subprocess.run(["debugfs", "-R", "stat <%d>" % ino, str(img)], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout
    m = re.search(r"^(?:BLOCKS|EXTENTS):\n(.*?)(?:\nTOTAL|\Z)", out, re.M | re.S)
    if not m:
        raise JimagesError("debugfs shows no blocks of inode %d" % ino)
    blocks = []
    for run in RUN_RE.finditer(m.group(1)):
        first = int(run.group(1))
        last = int(run.group(2) or first)
        if first != len(blocks):
            raise JimagesError("inode %d has a hole at block %d" % (ino, len(blocks)))
        blocks.extend(range(int(run.group(3)), int(run.group(3)) + last - first + 1))
    if not blocks:
        raise JimagesError("inode %d maps no block" % ino)
    return blocks


def run_case(case, tests, tmp, ext3=False, seeds=None):
    """(ok, line) for one j_* folder, or None if it gives no image to replay.
    With seeds, the case's journal is also written there as a fuzz seed."""
    name = case.name + ("+ext3" if ext3 else "")
    got = case_image(case, tests, tmp, ext3)
    if got is None:
        return None
    o, jblocks = got
    if jblocks is None:
        return True, "%-40s SKIP no journal inode (external journal or journal device)" % name
    a, b = tmp / "A.img", tmp / "B.img"
    for copy in (a, b):
        subprocess.run(["cp", "--sparse=always", str(o), str(copy)], check=True)
    bs = block_size(o)
    if seeds and bs in (1024, 4096):
        seeds.mkdir(parents=True, exist_ok=True)
        (seeds / ("e2fsprogs-" + name)).write_bytes(journal_seed(o, jblocks, bs))
    fs_feat = features(o, "Filesystem features")
    j_feat = features(o, "Journal features") - {"(none)"}
    jmap = tmp / "journal.map"
    jmap.write_text("".join("%d\n" % x for x in jblocks))

    r = subprocess.run([str(REPLAY), str(a), str(jmap)], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, errors="replace")
    if r.returncode:
        return False, "%-40s FAIL jbd2_replay exit %d: %s" % (name, r.returncode, r.stderr)
    mounted, err, replayed, failed = spindle_verdict(r.stdout)
    log = r.stderr
    ek = sh(["e2fsck", "-E", "journal_only", "-y", str(b)]).stdout
    kind, tid, line = e2fsck_verdict(ek)
    problems = []

    # the mount's verdict on the superblock
    unknown = (fs_feat & INCOMPAT_NAMES) - SPINDLE_FS_INCOMPAT
    if mounted == bool(unknown):
        problems.append("mount %s with incompat features %s" %
                        ("accepted" if mounted else "refused", sorted(unknown)))
    if not mounted and "EXT2-fs" not in log:
        problems.append("mount refused without an EXT2-fs line")
    # the oracle is e2fsprogs' own
    unread = j_feat - SPINDLE_JOURNAL_FEATURES
    # (j_short_trans_recover replays with debugfs's "jr", the same code:
    # its expect has debugfs's words, not e2fsck's)
    replays_with_debugfs = 'echo "jr"' in (case / "script").read_text(errors="replace") \
        if (case / "script").exists() else False
    if line and not unread and not replays_with_debugfs and line not in expect_text(case):
        problems.append("e2fsck said %r, which e2fsprogs' expect does not" % line)

    if unread or kind in ("refused", "unopened"):
        what = ("journal features %s unread" % sorted(unread)) if unread else \
            "e2fsck: %s" % line
        if err >= 0:
            problems.append("load %d where it must refuse (%s)" % (err, what))
        elif "JBD2:" not in log:
            problems.append("refused without a JBD2: line")
        written = differing_blocks(a, o, bs)
        if written:
            problems.append("refused yet wrote blocks %s" % written[:8])
        journal = set(jblocks)
        extra = [x for x in differing_blocks(b, o, bs, sb_ranges({"sb": (0, 1024)}))
                 if x not in journal]
        jline = next((l for l in log.splitlines() if "JBD2:" in l), "")
        note = "refused: %s" % jline.strip()
        if extra and kind == "refused":
            note += "; e2fsck wrote %d blocks (%s...), Spindle none" % (
                len(extra), ",".join(map(str, extra[:4])))
    else:
        if err != 0:
            problems.append("load %d where e2fsck replayed" % err)
        want_failed = tid if kind == "aborted" else 0
        if failed != want_failed:
            problems.append("failed_commit %d, e2fsck %d" % (failed, want_failed))
        if kind == "repaired":
            # the log overwrote what e2fsck checks next (j_long_trans: the
            # inode table, the journal's inode with it), so e2fsck's image
            # holds its repairs too: A is judged against the log itself
            problems += check_against_log(a, o, jblocks, bs)
            note = ("replayed %d blocks as debugfs logdump reads the log (e2fsck then "
                    "repaired what its replay left)" % replayed)
        else:
            fields = dict(SB_STAMPS, **(SB_STATE if kind == "aborted" else {}))
            # -n: a log may leave bitmaps whose checksums fail (j_short_trans
            # zeroes them); debugfs would not open the file system for writing
            sh(["debugfs", "-w", "-n", "-R", "feature ^needs_recovery", str(a)])
            diff = differing_blocks(a, b, bs, sb_ranges(fields))
            if diff:
                problems.append("differs from e2fsck's replay in blocks %s" % diff[:8])
            ra, rb = sh(["e2fsck", "-fn", str(a)]), sh(["e2fsck", "-fn", str(b)])
            fa, fb = ra.returncode, rb.returncode
            if fa != fb:
                problems.append("e2fsck -fn exit %d, on e2fsck's replay %d" % (fa, fb))
            elif ra.stdout.replace(str(a), "IMG") != rb.stdout.replace(str(b), "IMG"):
                problems.append("e2fsck -fn finds other things than on e2fsck's replay:\n%s"
                                % ra.stdout)
            note = "%s: %d blocks replayed, byte-exact; e2fsck -fn exit %d" % (
                "aborted at transaction %d" % tid if kind == "aborted" else kind, replayed, fa)
    mount = "mount accepted" if mounted else "mount refused (%s)" % ",".join(sorted(unknown))
    if problems:
        return False, "%-40s FAIL %s\n    %s\n%s" % (name, "; ".join(problems), mount, log)
    return True, "%-40s PASS %s; %s" % (name, note, mount)


# --- fuzz seeds -----------------------------------------------------------------------

RAW_MAX = 64 * 1024  # tests/fuzz/fuzz_jbd2.c's raw mode reads no more
JSB_MAXLEN, JSB_INCOMPAT, JSB_CHECKSUM = 16, 40, 0xFC
JBD2_CSUM_V2V3 = 0x08 | 0x10


def crc32c(crc, data):
    """Linux's __crc32c_le: CRC32C, reflected, no inversion in or out."""
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc


def jsb_csum(sb):
    """jbd2_superblock_csum: over the 1024 bytes, s_checksum as 0."""
    sb = bytearray(sb[:1024])
    sb[JSB_CHECKSUM:JSB_CHECKSUM + 4] = bytes(4)
    return crc32c(0xFFFFFFFF, sb)


def journal_seed(o, jblocks, bs):
    """fuzz_jbd2's raw input from an image's journal: a flag byte (raw,
    and the block size), then the journal's first blocks -- as many as
    the fuzzer reads, fewer if the log ends sooner -- with s_maxlen cut to
    them and the superblock's checksum redone when it was right."""
    end = len(jblocks)
    out = subprocess.run(["debugfs", "-R", "logdump", str(o)], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout
    m = re.search(r"at block (\d+): end of journal", out)
    if m:
        end = int(m.group(1)) + 1
    n = max(2, min(end, RAW_MAX // bs, len(jblocks)))
    with open(o, "rb") as f:
        blocks = []
        for b in jblocks[:n]:
            f.seek(b * bs)
            blocks.append(f.read(bs))
    sb = bytearray(blocks[0])
    incompat = int.from_bytes(sb[JSB_INCOMPAT:JSB_INCOMPAT + 4], "big")
    csum_ok = jsb_csum(sb) == int.from_bytes(sb[JSB_CHECKSUM:JSB_CHECKSUM + 4], "big")
    if int.from_bytes(sb[JSB_MAXLEN:JSB_MAXLEN + 4], "big") > n:
        sb[JSB_MAXLEN:JSB_MAXLEN + 4] = n.to_bytes(4, "big")
        if incompat & JBD2_CSUM_V2V3 and csum_ok:
            sb[JSB_CHECKSUM:JSB_CHECKSUM + 4] = jsb_csum(sb).to_bytes(4, "big")
    blocks[0] = bytes(sb)
    return bytes([0x80 | (bs == 4096)]) + b"".join(blocks)


def write_seeds(tests, outdir):
    outdir.mkdir(parents=True, exist_ok=True)
    made = 0
    for case in sorted(p for p in tests.glob("j_*") if p.is_dir()):
        with tempfile.TemporaryDirectory(dir=WORK) as t:
            got = case_image(case, tests, Path(t))
            if got is None or got[1] is None:
                continue
            o, jblocks = got
            bs = block_size(o)
            if bs not in (1024, 4096):
                continue
            (outdir / ("e2fsprogs-" + case.name)).write_bytes(journal_seed(o, jblocks, bs))
            made += 1
    print("jimages: %d journal seeds in %s" % (made, outdir))
    return 0 if made else 1


# --- for a QEMU scenario ----------------------------------------------------------------

def write_image(tests, name, out, ext3):
    """--image: a case's image before replay, into out (sparse)."""
    case = tests / name
    if not case.is_dir():
        raise JimagesError("no case %s in %s" % (name, tests))
    WORK.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=WORK) as t:
        got = case_image(case, tests, Path(t), ext3)
        if got is None:
            raise JimagesError("%s gives no image to replay" % name)
        subprocess.run(["cp", "--sparse=always", str(got[0]), str(out)], check=True)
    return 0


def compare_replay(orig, img):
    """--compare: img (replayed by Spindle's kernel) against e2fsck's
    replay of orig: the same blocks but for the superblock's stamps, and
    needs_recovery gone from both."""
    WORK.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=WORK) as t:
        b = Path(t) / "B.img"
        subprocess.run(["cp", "--sparse=always", str(orig), str(b)], check=True)
        kind = e2fsck_verdict(sh(["e2fsck", "-E", "journal_only", "-y", str(b)]).stdout)[0]
        if kind not in ("replayed", "aborted"):
            print("jimages: e2fsck did not just replay %s (%s)" % (orig, kind))
            return 1
        if "needs_recovery" in features(img, "Filesystem features"):
            print("jimages: %s still has needs_recovery" % img)
            return 1
        diff = differing_blocks(img, b, block_size(b), sb_ranges(SB_STAMPS))
    if diff:
        print("jimages: %s differs from e2fsck's replay in blocks %s" % (img, diff[:8]))
        return 1
    print("jimages: %s is e2fsck's replay, byte for byte (but %s)" % (img, ", ".join(SB_STAMPS)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--selftest", action="store_true", help="test the parsers; fetch nothing")
    ap.add_argument("--src", type=Path, default=SRC, help="where the source goes (%(default)s)")
    ap.add_argument("--seeds", type=Path, metavar="DIR",
                    help="write fuzz_jbd2's raw seeds (the journals) into DIR, replay nothing")
    ap.add_argument("--image", nargs=2, metavar=("CASE", "OUT"),
                    help="write CASE's image, before replay, to OUT; replay nothing")
    ap.add_argument("--ext3", action="store_true",
                    help="with --image, a script's case made as ext3 instead of ext4")
    ap.add_argument("--compare", nargs=2, metavar=("ORIG", "IMG"),
                    help="IMG, replayed by Spindle's kernel, against e2fsck's replay of ORIG")
    ap.add_argument("names", nargs="*", help="only these j_* cases")
    args = ap.parse_args()
    if args.selftest:
        sys.argv = sys.argv[:1]
        unittest.main(module=__name__, verbosity=1)
    if args.compare:
        return compare_replay(Path(args.compare[0]), Path(args.compare[1]))
    try:
        tests = fetch(args.src)
    except (JimagesError, OSError, subprocess.SubprocessError, tarfile.TarError) as e:
        print("jimages: fetching e2fsprogs' test images failed: %s" % e)
        return 1
    if args.image:
        try:
            return write_image(tests, args.image[0], Path(args.image[1]), args.ext3)
        except (JimagesError, subprocess.SubprocessError) as e:
            print("jimages: %s" % e)
            return 1
    if args.seeds:
        WORK.mkdir(parents=True, exist_ok=True)
        return write_seeds(tests, args.seeds)
    if not REPLAY.exists():
        print("jimages: %s is not built (make jimages builds it)" % REPLAY)
        return 1
    cases = sorted(p for p in tests.glob("j_*") if p.is_dir())
    if args.names:
        cases = [c for c in cases if c.name in args.names]
    # the short scripts' cases twice: as e2fsprogs makes them (ext4: the
    # journal mapped by an extent) and as ext3 (mapped by indirect blocks,
    # a superblock Spindle's mount accepts).  Not the long ones: their log
    # of 4097 blocks from block 259 on overwrites, in ext3's layout, the
    # inode table and the journal's own indirect blocks, which e2fsck
    # reads again in mid-replay ("while recovering journal").
    runs = [(c, False) for c in cases] + \
        [(c, True) for c in cases if c.name.startswith("j_short_")]
    failed = passed = skipped = 0
    for case, ext3 in runs:
        with tempfile.TemporaryDirectory(dir=WORK) as t:
            try:
                res = run_case(case, tests, Path(t), ext3, FUZZ_SEEDS)
            except (JimagesError, subprocess.SubprocessError) as e:
                res = (False, "%-40s FAIL %s" % (case.name, e))
        if res is None:
            if not ext3:
                print("%-40s SKIP no image: its script made none that needs a replay" % case.name)
                skipped += 1
            continue
        print(res[1], flush=True)
        if not res[0]:
            failed += 1
        elif " SKIP " in res[1]:
            skipped += 1
        else:
            passed += 1
    print("jimages: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed or not passed else 0


# --- --selftest -------------------------------------------------------------------------

class SelfTest(unittest.TestCase):
    def test_e2fsck_verdicts(self):
        self.assertEqual(e2fsck_verdict("x: recovering journal\nJournal transaction 3 was "
                                        "corrupt, replay was aborted.\n")[:2], ("aborted", 3))
        self.assertEqual(e2fsck_verdict("x: recovering journal\nJournal checksum error "
                                        "found in x\n")[0], "refused")
        self.assertEqual(e2fsck_verdict("x: recovering journal\n")[0], "replayed")
        self.assertEqual(e2fsck_verdict("x: clean\n")[0], "nothing")

    def test_spindle_verdict(self):
        out = "mount: refused (-22)\njbd2: load 0 replayed 10 revoked 0 failed_commit 3 sequence 5\n"
        self.assertEqual(spindle_verdict(out), (False, 0, 10, 3))
        with self.assertRaises(JimagesError):
            spindle_verdict("mount: accepted\n")

    def test_crc32c(self):
        # RFC 3720's check value, with Linux's inversions done by hand
        self.assertEqual(crc32c(0xFFFFFFFF, b"123456789") ^ 0xFFFFFFFF, 0xE3069283)

    def test_run_re(self):
        runs = "(0-11):553-564, (IND):565, (12-1035):566-1589, (DIND):1590, (1036):1592"
        got = [m.groups() for m in RUN_RE.finditer(runs)]
        self.assertEqual(got, [("0", "11", "553", "564"), ("12", "1035", "566", "1589"),
                               ("1036", None, "1592", None)])

    def test_differing_blocks(self):
        with tempfile.TemporaryDirectory() as t:
            a, b = Path(t) / "a", Path(t) / "b"
            data = bytearray(8192)
            a.write_bytes(data)
            data[SB_OFFSET + 0x30] = 1     # s_wtime: allowed
            data[5000] = 7                 # block 4 of 1 KiB
            b.write_bytes(data)
            self.assertEqual(differing_blocks(a, b, 1024, sb_ranges(SB_STAMPS)), [4])
            self.assertEqual(differing_blocks(a, b, 1024), [1, 4])
            # far apart, with a hole between them in both files
            with open(a, "r+b") as f:
                f.truncate(64 << 20)
                f.seek((64 << 20) - 1024)
                f.write(b"x")
            with open(b, "r+b") as f:
                f.truncate(64 << 20)
            self.assertEqual(differing_blocks(a, b, 1024), [1, 4, (64 << 10) - 1])


if __name__ == "__main__":
    sys.exit(main())
