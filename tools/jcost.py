#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""jcost.py [--kernel spindle|linux|both] [--picture OP] [--selftest] - what the ext3 journal writes, on the disk, Spindle against Linux 6.1.

`make jcost` runs this.  The same workload (WORKLOAD below: a busybox
ash script, the same text on both kernels) runs on the same ext3 image
(the host's `mke2fs -t ext3 -b 1024`, 16 MiB; mounted with `commit=600`,
so that every commit comes from an fsync or a sync and none from the
timer) on the same machine (q35, under `-icount shift=0,sleep=off`),
once on Spindle and once on Debian's Linux 6.1 (tools/ext3-linux.py's
initramfs: busybox-static, ahci, sd_mod, ext4).  The disk is
tools/nbdcache.py in its recording mode, on AHCI port 0: every WRITE
(offset, length, FUA) and FLUSH is logged in the order the disk received
it, with the length the guest's serial log had then.

Each operation of the workload is framed by lines on the console:

    JCOST op NAME     the operation and the fsync that makes it durable
    JCOST home NAME   a sync(2): what is still only in the log goes home
    JCOST end NAME

so a record belongs to the window whose line was the last one printed
before the record reached the disk.  Nothing the kernels say about
themselves is used: each written 1 KiB block is classified on the host,
from the image alone --

  - the journal's blocks are the journal inode's (`debugfs stat <8>`);
    a journal block's own header says what it is (descriptor, commit,
    revoke, superblock: JBD2's magic and block type), anything else
    there is a copy of the home block that the descriptor before it
    names (its tags, parsed here for the journal's features);
  - superblocks, group descriptors, bitmaps and inode tables come from
    `dumpe2fs`; any other block is looked up with `debugfs icheck` and
    `ncheck` (and `stat` for indirect blocks) in the image as the disk
    held it at the end of that window.

Prints, for each kernel, a table per operation (blocks written by kind,
requests, flushes, FUA writes) and, with --picture OP, the sequence of
one window's writes and flushes, blkparse-like; --markdown prints only
docs/fs.md's table.  --no-boot classifies the recordings the last run
left.  --selftest checks the parsers, the classification and --check's
verdicts on images and journal blocks made here.

    tools/jcost.py --check BASE RECORDING SERIAL OP PATH BLOCK

judges one window of a recording (tests/qemu/scenarios/ext3-fsync-disk.scn):
block BLOCK of PATH was appended and fsynced; one commit block, the data
before the log, the inode's table block logged, a flush on each side of
the commit block, nothing written home before it.  Exit 0 only if all hold.
"""
import argparse
import collections
import importlib.machinery
import importlib.util
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
WORK = ROOT / "build/jcost"
QEMU_OUT = ROOT / "build/qemu"
sys.path.insert(0, str(TOOLS))
import nbdcache  # noqa: E402  (the recording's format)

BLOCK = 1024
IMAGE_SIZE = "16M"
# a fixed UUID and hash seed, and E2FSPROGS_FAKE_TIME: the same image on every run
MKFS = ["mke2fs", "-q", "-F", "-t", "ext3", "-b", str(BLOCK),
        "-U", "4a636f73-7400-4000-8000-000000000001",
        "-E", "hash_seed=4a636f73-7400-4000-8000-000000000002"]
MOUNT = "mount -t ext3 -o commit=600,barrier=1 /dev/sda /mnt"

# The workload: the same text on both kernels.  `sync FILE` is busybox's
# fsync(2) of FILE (a directory too); `sync` alone is sync(2).
WORKLOAD = r"""
op() { say "JCOST op $1"; }
home() { say "JCOST home $1"; sync; say "JCOST end $1"; }
mkdir -p /mnt
MOUNT || fail mount
cd /mnt || fail cd
for r in 1 2; do
	op create$r;  : > c$r && sync c$r || fail create;  home create$r
	op write$r;   head -c 1024 /dev/zero > w$r && sync w$r || fail write;  home write$r
	op append$r;  head -c 1024 /dev/zero >> w$r && sync w$r || fail append;  home append$r
	op rename$r;  mv w$r v$r && sync . || fail rename;  home rename$r
	op unlink$r;  rm v$r && sync . || fail unlink;  home unlink$r
	op mkdir$r;   mkdir d$r && sync . || fail mkdir;  home mkdir$r
	op rmdir$r;   rmdir d$r && sync . || fail rmdir;  home rmdir$r
done
cd /
say "JCOST op umount"
umount /mnt || fail umount
say "JCOST end umount"
say "JCOST done"
""".replace("MOUNT", MOUNT)

OPS = ["create", "write", "append", "rename", "unlink", "mkdir", "rmdir"]
WHAT = {"create": "`: > f`, fsync f", "write": "1 KiB to a new file, fsync",
        "append": "a new 1 KiB block, fsync", "rename": "`mv`, fsync dir",
        "unlink": "`rm`, fsync dir", "mkdir": "fsync dir", "rmdir": "fsync dir"}

SPINDLE_SCN = """\
machine: q35
memory: 128M
timeout: 120
disk: x size=64K if=ahci index=1 prep=cp {base} {dir}/j.img && python3 tools/nbdcache.py serve {dir}/j.img {dir}/nbd.sock --record {dir}/writes.rec --serial {dir}/serial.raw
qemu: -icount shift=0,sleep=off
qemu: -drive if=none,id=nbd0,format=raw,file.driver=nbd,file.server.type=unix,file.server.path={dir}/nbd.sock -device ide-hd,drive=nbd0,bus=ide.0
init: say() { echo "$*"; }
init: fail() { say "JCOST FAIL: $*"; exit 1; }
"""

SCN_TAIL = """\
expect: ^JCOST op create1$
expect: ^JCOST done$
reject: ^JCOST FAIL
reject: EXT2-fs error
reject: EXT4-fs error
"""

# ---------------------------------------------------------------------------
# JBD2's on-disk format (include/spindle/jbd2.h; Linux's include/linux/jbd2.h)
# ---------------------------------------------------------------------------

JBD2_MAGIC = 0xC03B3998
JBD2_TYPES = {1: "descriptor", 2: "commit", 3: "journal sb", 4: "journal sb", 5: "revoke"}
INCOMPAT_REVOKE, INCOMPAT_64BIT, INCOMPAT_CSUM_V2, INCOMPAT_CSUM_V3 = 0x1, 0x2, 0x8, 0x10
FLAG_SAME_UUID, FLAG_LAST_TAG = 0x2, 0x8


def jbd2_header(data):
    """(block type, sequence) of a journal block, or None: not a header."""
    magic, btype, seq = struct.unpack_from(">III", data)
    return (btype, seq) if magic == JBD2_MAGIC and btype in JBD2_TYPES else None


def jsb_incompat(data):
    """A journal superblock's incompatible features."""
    return struct.unpack_from(">I", data, 0x28)[0]


def tag_bytes(incompat):
    """journal_tag_bytes(): a descriptor tag's size for these features."""
    if incompat & INCOMPAT_CSUM_V3:
        return 16
    size = 12 + (2 if incompat & INCOMPAT_CSUM_V2 else 0)
    return size if incompat & INCOMPAT_64BIT else size - 4


def descriptor_tags(data, incompat):
    """The home block numbers a descriptor block names, in order."""
    size, pos, out = tag_bytes(incompat), 12, []
    csum = incompat & (INCOMPAT_CSUM_V2 | INCOMPAT_CSUM_V3)
    end = len(data) - (4 if csum else 0)
    while pos + size <= end:
        block = struct.unpack_from(">I", data, pos)[0]
        if incompat & INCOMPAT_CSUM_V3:
            flags = struct.unpack_from(">I", data, pos + 4)[0]
            high = struct.unpack_from(">I", data, pos + 8)[0]
        else:
            flags = struct.unpack_from(">H", data, pos + 6)[0]
            high = struct.unpack_from(">I", data, pos + 8)[0] if incompat & INCOMPAT_64BIT else 0
        if incompat & INCOMPAT_64BIT:
            block |= high << 32
        out.append(block)
        pos += size + (0 if flags & FLAG_SAME_UUID else 16)
        if flags & FLAG_LAST_TAG:
            break
    return out


def revoke_blocks(data, incompat):
    """The block numbers a revoke block revokes."""
    count = struct.unpack_from(">I", data, 12)[0]
    width = 8 if incompat & INCOMPAT_64BIT else 4
    return [struct.unpack_from(">Q" if width == 8 else ">I", data, p)[0]
            for p in range(16, min(count, len(data)), width)]


# ---------------------------------------------------------------------------
# The image's layout, from the host's e2fsprogs
# ---------------------------------------------------------------------------

def e2(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True,
                       env={"PATH": "/usr/sbin:/sbin:/usr/bin:/bin", "LC_ALL": "C",
                            "E2FSPROGS_FAKE_TIME": "1700000000"})
    if r.returncode:
        raise SystemExit("jcost: %s: %s" % (" ".join(cmd), r.stderr.strip()))
    return r.stdout


RANGE = r"(\d+)(?:-(\d+))?"


def static_layout(img):
    """{block: kind} for the blocks whose role mke2fs fixed: superblocks,
    group descriptors, reserved GDT blocks, bitmaps, inode tables (dumpe2fs)."""
    kinds = {}

    def put(first, last, kind):
        for b in range(int(first), int(last or first) + 1):
            kinds[b] = kind
    for line in e2(["dumpe2fs", str(img)]).splitlines():
        for pat, kind in ((r"superblock at " + RANGE, "superblock"),
                          (r"Group descriptors at " + RANGE, "group desc"),
                          (r"Reserved GDT blocks at " + RANGE, "reserved gdt"),
                          (r"Block bitmap at " + RANGE, "block bitmap"),
                          (r"Inode bitmap at " + RANGE, "inode bitmap"),
                          (r"Inode table at " + RANGE, "inode table")):
            m = re.search(pat, line)
            if m:
                put(m.group(1), m.group(2), kind)
    return kinds


def stat_blocks(text):
    """debugfs stat's BLOCKS: list -> ({logical: physical}, {physical: IND|DIND|TIND})."""
    m = re.search(r"^(?:BLOCKS|EXTENTS):\n(.*?)(?:\nTOTAL|\n\n|\Z)", text, re.M | re.S)
    data, meta = {}, {}
    if not m:
        return data, meta
    for part in m.group(1).replace("\n", " ").split(","):
        part = part.strip()
        mm = re.match(r"^\((\w+)(?:-(\d+))?\):(\d+)(?:-(\d+))?$", part)
        if not mm:
            continue
        lo, hi, plo, phi = mm.groups()
        if not lo.isdigit():
            meta[int(plo)] = lo
            continue
        for i in range(int(hi or lo) - int(lo) + 1):
            data[int(lo) + i] = int(plo) + i
    return data, meta


def journal_blocks(img):
    """{physical block: journal logical block} of the journal inode <8>."""
    data, _ = stat_blocks(e2(["debugfs", "-R", "stat <8>", str(img)]))
    return {p: lgc for lgc, p in data.items()}


def owners(img, blocks):
    """{block: "dir PATH" | "data PATH" | "indirect PATH"} from debugfs icheck,
    ncheck and stat on img; blocks no inode owns are left out."""
    if not blocks:
        return {}
    out = e2(["debugfs", "-R", "icheck " + " ".join(map(str, sorted(blocks))), str(img)])
    ino_of = {}
    for line in out.splitlines()[1:]:
        w = line.split()
        if len(w) == 2 and w[1].isdigit():
            ino_of[int(w[0])] = int(w[1])
    inodes = sorted(set(ino_of.values()))
    if not inodes:
        return {}
    paths = {2: "/"}
    for line in e2(["debugfs", "-R", "ncheck " + " ".join(map(str, inodes)), str(img)]).splitlines()[1:]:
        w = line.split(None, 1)
        if len(w) == 2 and w[0].isdigit():
            paths.setdefault(int(w[0]), w[1].strip())
    result = {}
    for ino in inodes:
        text = e2(["debugfs", "-R", "stat <%d>" % ino, str(img)])
        isdir = re.search(r"Type: directory", text) is not None
        _, meta = stat_blocks(text)
        name = paths.get(ino, "<%d>" % ino)
        if name.startswith("//"):
            name = name[1:]
        for b, i in ino_of.items():
            if i == ino:
                result[b] = ("indirect " if b in meta else "dir " if isdir else "data ") + name
    return result


# ---------------------------------------------------------------------------
# One recording, classified
# ---------------------------------------------------------------------------

MARK = re.compile(rb"JCOST (op|home|end) (\S+)\r?\n")


def windows(serial):
    """[(byte offset where the line starts, phase, op)] of the JCOST lines."""
    out = []
    for m in MARK.finditer(serial):
        start = serial.rfind(b"\n", 0, m.start()) + 1
        out.append((start, m.group(1).decode(), m.group(2).decode()))
    return out


def window_of(marks, seen):
    """The (phase, op) a record belongs to: the last line begun before it
    (seen: how many bytes of the log were printed when it arrived)."""
    cur = ("mount", "mount")
    for start, phase, op in marks:
        if start < seen:
            cur = (phase, op)
        else:
            break
    return cur


Write = collections.namedtuple("Write", "idx window fua block count kinds")


def classify(base, records, marks):
    """Every record of a recording as [Write | ("F", window)].
    base: the image before the run.  kinds: one label per block."""
    image = bytearray(Path(base).read_bytes())
    static = static_layout(base)
    jmap = journal_blocks(base)
    jlog = {lgc: p for p, lgc in jmap.items()}
    incompat = jsb_incompat(image[jlog[0] * BLOCK:(jlog[0] + 1) * BLOCK])
    # pass 1: every descriptor written, to name the copies after it
    descs = []                          # (record idx, journal logical block, home blocks)
    for i, (kind, _, offset, data, _) in enumerate(records):
        if kind != "W":
            continue
        for k in range(len(data) // BLOCK):
            b = offset // BLOCK + k
            blk = data[k * BLOCK:(k + 1) * BLOCK]
            hdr = jbd2_header(blk) if b in jmap else None
            if hdr and hdr[0] in (3, 4):
                incompat = jsb_incompat(blk)
            elif hdr and hdr[0] == 1:
                descs.append((i, jmap[b], descriptor_tags(blk, incompat)))

    def copy_of(i, lgc):
        best = None
        for di, dl, tags in descs:
            if dl < lgc <= dl + len(tags) and (best is None or di <= i):
                best = tags[lgc - dl - 1]
        return best

    events, pending = [], []            # (event index, block index, block): owner unknown
    cur = None

    def resolve(img_bytes, todo, final=False):
        """Name the blocks of todo by their owners in img_bytes."""
        if not todo:
            return []
        with tempfile.NamedTemporaryFile(dir=WORK, suffix=".img") as t:
            t.write(img_bytes)
            t.flush()
            named = owners(t.name, {b for _, _, b in todo})
        left = []
        for ei, k, b in todo:
            if b in named:
                events[ei].kinds[k] = named[b]
            elif final:
                events[ei].kinds[k] = "unowned"
            else:
                left.append((ei, k, b))
        return left

    later = []
    for i, (kind, fua, offset, data, seen) in enumerate(records):
        w = window_of(marks, seen)
        if cur is None or w[1] != cur[1]:
            # an operation's blocks are named in the image as the disk held
            # it after the operation and its sync: everything home by then
            later += resolve(image, pending)
            pending.clear()
            cur = w
        if kind == "F":
            events.append(("F", w))
            continue
        if kind != "W":
            continue
        first, n = offset // BLOCK, len(data) // BLOCK
        kinds = []
        for k in range(n):
            b = first + k
            blk = data[k * BLOCK:(k + 1) * BLOCK]
            if b in jmap:
                hdr = jbd2_header(blk)
                if hdr:
                    label = JBD2_TYPES[hdr[0]]
                    if hdr[0] == 5:
                        label += " %s" % ",".join(map(str, revoke_blocks(blk, incompat)))
                else:
                    home = copy_of(i, jmap[b])
                    label = "copy of %s" % (home if home is not None else "?")
                kinds.append("journal " + label)
            elif b in static:
                kinds.append(static[b])
            else:
                kinds.append("?")
                pending.append((len(events), k, b))
        image[offset:offset + len(data)] = data
        events.append(Write(i, w, fua, first, n, kinds))
    later += resolve(image, pending)
    # what none of those images owned (a block freed by then): the image
    # after the whole run, else "unowned"
    resolve(image, later, final=True)
    # each copy in the log named by what its home block is
    homes = {}
    for ev in events:
        if isinstance(ev, Write):
            for lab in ev.kinds:
                m = re.match(r"journal copy of (\d+)$", lab)
                if m and int(m.group(1)) not in static:
                    homes[int(m.group(1))] = None
    with tempfile.NamedTemporaryFile(dir=WORK, suffix=".img") as t:
        t.write(image)
        t.flush()
        homes.update(owners(t.name, set(homes)))
    for ev in events:
        if isinstance(ev, Write):
            for k, lab in enumerate(ev.kinds):
                m = re.match(r"journal copy of (\d+)$", lab)
                if m:
                    home = int(m.group(1))
                    what = static.get(home) or homes.get(home) or copy_owner(home, events)
                    ev.kinds[k] = "journal copy of %d (%s)" % (home, what)
    return events


def copy_owner(home, events):
    """What a logged block is at home: what a write to that block was
    classified as, else "metadata"."""
    for other in events:
        if isinstance(other, Write) and other.block <= home < other.block + other.count:
            lab = other.kinds[home - other.block]
            if not lab.startswith("journal"):
                return lab.split()[0]
    return "metadata"


def category(label):
    """A block's column in the table."""
    if label.startswith("journal "):
        rest = label[len("journal "):]
        for c in ("descriptor", "commit", "revoke", "journal sb"):
            if rest.startswith(c):
                return {"journal sb": "jsb"}.get(c, c)
        return "copy"
    first = label.split()[0]
    return {"superblock": "sb", "group": "gdt", "reserved": "gdt", "block": "bitmap",
            "inode": "bitmap" if "bitmap" in label else "itable",
            "dir": "dir", "data": "data", "indirect": "ind"}.get(first, "other")


COLUMNS = ["data", "descriptor", "copy", "revoke", "commit", "jsb",
           "sb", "gdt", "bitmap", "itable", "dir", "ind", "other"]
JOURNAL = {"descriptor", "copy", "revoke", "commit", "jsb"}


def tally(events):
    """{(op, phase): Counter of columns, requests, flushes, fua}."""
    t = collections.defaultdict(collections.Counter)
    for ev in events:
        if isinstance(ev, Write):
            phase, op = ev.window
            c = t[(op, phase)]
            c["requests"] += 1
            c["fua"] += 1 if ev.fua else 0
            for lab in ev.kinds:
                c[category(lab)] += 1
        else:
            phase, op = ev[1]
            t[(op, phase)]["flushes"] += 1
    return t


def table(name, t, rnd):
    """The per-operation table of one kernel, round rnd's operations."""
    lines = ["%s (round %d; blocks of 1 KiB; 'fsync' = the operation and its fsync, "
             "'sync' = the sync(2) after it)" % (name, rnd),
             "%-8s %-5s %5s | %4s %4s %4s %4s %4s %4s | %4s %4s %4s %5s %4s %4s | %4s %5s %3s"
             % ("op", "phase", "data", "desc", "copy", "rvk", "cmt", "jsb", "jsum",
                "sb", "gdt", "bmap", "itab", "dir", "ind", "req", "flush", "fua")]
    rows = [("%s%d" % (op, rnd), op) for op in OPS] + [("umount", "umount")]
    for key, op in rows:
        for phase, label in (("op", "fsync"), ("home", "sync")):
            c = t.get((key, phase))
            if c is None:
                if key == "umount" and phase == "op":
                    c = collections.Counter()
                else:
                    continue
            jsum = sum(c[x] for x in JOURNAL)
            lines.append("%-8s %-5s %5d | %4d %4d %4d %4d %4d %4d | %4d %4d %4d %5d %4d %4d | %4d %5d %3d"
                         % (op if phase == "op" else "", "umount" if key == "umount" else label,
                            c["data"], c["descriptor"], c["copy"], c["revoke"], c["commit"],
                            c["jsb"], jsum, c["sb"], c["gdt"], c["bitmap"], c["itable"],
                            c["dir"], c["ind"] + c["other"], c["requests"], c["flushes"], c["fua"]))
    return "\n".join(lines)


def markdown(tables, rnd=2):
    """docs/fs.md's table: round rnd of each kernel, {name: tally}."""
    out = ["| operation | kernel | fsync: data | fsync: log blocks (copies) | fsync: flushes "
           "| sync: log blocks | sync: home blocks | sync: flushes | blocks in all |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for op in OPS:
        for n, (name, t) in enumerate(tables.items()):
            f = t.get(("%s%d" % (op, rnd), "op"), collections.Counter())
            h = t.get(("%s%d" % (op, rnd), "home"), collections.Counter())
            flog = sum(f[x] for x in JOURNAL)
            hlog = sum(h[x] for x in JOURNAL)
            fhome = sum(f[x] for x in COLUMNS if x not in JOURNAL and x != "data")
            hhome = sum(h[x] for x in COLUMNS if x not in JOURNAL and x != "data")
            total = f["data"] + flog + fhome + h["data"] + hlog + hhome
            out.append("| %s | %s | %d | %d (%d) | %d | %d | %d | %d | %d |" % (
                "%s (%s)" % (op, WHAT[op]) if n == 0 else "", name.split()[0],
                f["data"], flog, f["copy"], f["flushes"], hlog, hhome + fhome + h["data"],
                h["flushes"], total))
    return "\n".join(out)


PHASE_NOTE = {"op": "", "home": "   [sync]", "end": "   [after]", "mount": ""}


def picture(events, op):
    """One window's writes and flushes, in the order the disk got them."""
    out = ["  %3s  %-6s %-13s %s" % ("#", "action", "block+count", "what")]
    n = 0
    for ev in events:
        if isinstance(ev, Write) and ev.window[1] == op:
            # runs of one kind
            k = 0
            while k < ev.count:
                j = k
                while j + 1 < ev.count and ev.kinds[j + 1] == ev.kinds[k]:
                    j += 1
                what = ev.kinds[k] if j == k else "%s (x%d)" % (ev.kinds[k], j - k + 1)
                out.append("  %3s  %-6s %-13s %s%s" % (
                    n if k == 0 else "", ("W" + (" FUA" if ev.fua else "")) if k == 0 else "",
                    "%d+%d" % (ev.block + k, j - k + 1), what,
                    PHASE_NOTE[ev.window[0]]))
                k = j + 1
            n += 1
        elif not isinstance(ev, Write) and ev[1][1] == op:
            out.append("  %3s  %-6s %-13s %s" % (n, "FLUSH", "", PHASE_NOTE[ev[1][0]].strip()))
            n += 1
    return "\n".join(out)


# ---------------------------------------------------------------------------
# --check: one fsync's commit, as the disk saw it
# ---------------------------------------------------------------------------

def check_fsync(final, events, op, path, last):
    """What a user of ordered mode relies on, read from the recording of
    window op (block `last` of path appended, then an fsync); final: the
    image after the run.  Returns [(holds, what)]."""
    win = [ev for ev in events if (ev.window if isinstance(ev, Write) else ev[1]) == ("op", op)]
    writes = [(n, ev) for n, ev in enumerate(win) if isinstance(ev, Write)]
    flushes = [n for n, ev in enumerate(win) if not isinstance(ev, Write)]

    def where(pred):
        return [n for n, ev in writes if any(pred(lab) for lab in ev.kinds)]
    commits = where(lambda lab: lab == "journal commit")
    logs = where(lambda lab: lab.startswith("journal ") and lab != "journal commit"
                 and not lab.startswith("journal journal sb"))
    data = where(lambda lab: lab == "data " + path)
    fdata, _ = stat_blocks(e2(["debugfs", "-R", "stat " + path, str(final)]))
    m = re.search(r"located at block (\d+)", e2(["debugfs", "-R", "imap " + path, str(final)]))
    itable = int(m.group(1)) if m else None
    appended = [n for n, ev in writes if last in fdata and ev.block <= fdata[last] < ev.block + ev.count]
    copies = {lab for _, ev in writes for lab in ev.kinds}
    home_meta = [n for n, ev in writes
                 if any(not lab.startswith("journal ") and not lab.startswith("data ")
                        for lab in ev.kinds)]
    out = [(len(commits) == 1, "one commit block in the fsync (%d)" % len(commits))]
    c = commits[0] if commits else None
    out.append((bool(appended) and c is not None and max(appended) < c,
                "the appended block (%s's block %s, disk block %s) written before the commit block"
                % (path, last, fdata.get(last) if last is not None else None)))
    out.append((bool(data) and bool(logs) and max(data) < min(logs),
                "ordered mode: the file's data before the first log block"))
    out.append((itable is not None and any(lab.startswith("journal copy of %d " % itable)
                                          for lab in copies),
                "the log holds a copy of %s's inode table block (%s)" % (path, itable)))
    pre = c is not None and logs and any(max(logs) < f < c for f in flushes)
    out.append((bool(pre), "a FLUSH between the last log block and the commit block (REQ_PREFLUSH)"))
    post = c is not None and (win[c].fua or any(f > c for f in flushes))
    out.append((bool(post), "the commit block FUA, or a FLUSH after it (REQ_FUA on a disk without FUA)"))
    out.append((not home_meta, "no metadata written in place during the fsync (the checkpoint "
                "comes after the commit)"))
    return out


def main_check(args):
    base, rec, serial, op, path, last = args.check
    events = classify(base, nbdcache.read_records(rec), windows(Path(serial).read_bytes()))
    final = bytearray(Path(base).read_bytes())
    for kind, _, offset, data, _ in nbdcache.read_records(rec):
        if kind == "W":
            final[offset:offset + len(data)] = data
    print(picture(events, op))
    with tempfile.NamedTemporaryFile(dir=WORK, suffix=".img") as t:
        t.write(final)
        t.flush()
        verdicts = check_fsync(t.name, events, op, path, int(last))
    for ok, what in verdicts:
        print("jcost: %s: %s" % ("ok" if ok else "FAIL", what))
    bad = sum(1 for ok, _ in verdicts if not ok)
    print("jcost: %d passed, %d failed" % (len(verdicts) - bad, bad))
    return 1 if bad else 0


# ---------------------------------------------------------------------------
# The boots
# ---------------------------------------------------------------------------

def load(name, path):
    loader = importlib.machinery.SourceFileLoader(name, str(path))
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def make_base():
    WORK.mkdir(parents=True, exist_ok=True)
    base = WORK / "base.img"
    base.unlink(missing_ok=True)
    subprocess.run(["truncate", "-s", IMAGE_SIZE, str(base)], check=True)
    e2(MKFS + [str(base)])
    return base


def run_scenario(name, text):
    scn = WORK / (name + ".scn")
    scn.write_text(text)
    r = subprocess.run([sys.executable, str(ROOT / "tests/qemu/run.py"), str(scn)], cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        raise SystemExit("jcost: the %s boot failed (build/qemu/%s.log):\n%s"
                         % (name, name, r.stdout.strip()))
    return QEMU_OUT / name


def spindle_text(base):
    lines = [SPINDLE_SCN.replace("{base}", str(base.relative_to(ROOT)))]
    lines += ["init: " + x for x in WORKLOAD.strip().splitlines()]
    return "\n".join(lines) + "\n" + SCN_TAIL + "exit: pass\n"


def boot_spindle(base):
    return run_scenario("jcost-spindle", spindle_text(base))


def boot_linux(base):
    e3 = load("ext3_linux", TOOLS / "ext3-linux.py")
    cl = e3.load_compare_linux()
    try:
        src, kver = cl.linux_packages(["busybox-static"])
        root = WORK / "initramfs"
        cl.busybox_root(src, root)
        kmods = cl.install_modules(src, kver, root, e3.LINUX_MODULES, {})
    except cl.CompareError as e:
        raise SystemExit("jcost: %s" % e)
    init = [e3.INIT_HEAD]
    init += ["insmod %s %s || fail insmod %s" % (p, " ".join(a), p) for p, a in kmods]
    init.append("n=0\nwhile [ ! -b /dev/sda ]; do n=$((n + 1)); [ $n -gt 600 ] && fail no sda; "
                "sleep 0.1; done")
    init.append("fail() { say \"JCOST FAIL: $*\"; poweroff -f; }")
    init.append(WORKLOAD)
    init.append("poweroff -f")
    (root / "init").write_text("\n".join(init) + "\n")
    (root / "init").chmod(0o755)
    initrd = WORK / "initrd.cpio"
    cl.write_initrd(root, initrd)
    vmlinuz = WORK / "vmlinuz"
    shutil.copy2(src / "boot" / ("vmlinuz-" + kver), vmlinuz)
    head = "\n".join(x for x in SPINDLE_SCN.splitlines() if not x.startswith("init:"))
    head = head.replace("{base}", str(base.relative_to(ROOT)))
    text = head + "\nqemu: -kernel %s -initrd %s -append %s\n" % (
        vmlinuz.relative_to(ROOT), initrd.relative_to(ROOT), shlex.quote(e3.LINUX_APPEND))
    text += SCN_TAIL + "exit: poweroff\n"
    print("jcost: Linux %s" % kver, flush=True)
    return run_scenario("jcost-linux", text)


def report(name, outdir, base, pictures, rounds=(1, 2), quiet=False):
    records = nbdcache.read_records(outdir / "writes.rec")
    marks = windows((outdir / "serial.raw").read_bytes())
    events = classify(base, records, marks)
    t = tally(events)
    if quiet:
        return events, t
    for rnd in rounds:
        print(table(name, t, rnd))
        print()
    for op in pictures:
        print("%s: the writes and flushes of '%s', in the order the disk got them" % (name, op))
        print(picture(events, op))
        print()
    return events, t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", choices=["spindle", "linux", "both"], default="both")
    ap.add_argument("--picture", action="append", default=[],
                    help="print this window's sequence (e.g. write2); may repeat")
    ap.add_argument("--no-boot", action="store_true",
                    help="classify the recordings the last run left in build/qemu")
    ap.add_argument("--markdown", action="store_true",
                    help="print only docs/fs.md's table (round 2, both kernels)")
    ap.add_argument("--table-round", type=int, choices=[1, 2], action="append",
                    help="print only this round's table (default: both)")
    ap.add_argument("--check", nargs=6, metavar=("BASE", "RECORDING", "SERIAL", "OP", "PATH", "BLOCK"),
                    help="judge the fsync of window OP (block BLOCK of PATH appended) in a recording")
    ap.add_argument("--selftest", action="store_true", help="test the parsers; boot nothing")
    args = ap.parse_args()
    if args.check:
        WORK.mkdir(parents=True, exist_ok=True)
        return main_check(args)
    if args.selftest:
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(SelfTest)
        return 0 if unittest.TextTestRunner(verbosity=1).run(suite).wasSuccessful() else 1
    kernels = ["spindle", "linux"] if args.kernel == "both" else [args.kernel]
    base = WORK / "base.img" if args.no_boot else make_base()
    tables = {}
    for k in kernels:
        outdir = QEMU_OUT / ("jcost-" + k) if args.no_boot else \
            (boot_spindle if k == "spindle" else boot_linux)(base)
        name = "Spindle" if k == "spindle" else "Linux 6.1"
        _, tables[name] = report(name, outdir, base, args.picture, args.table_round or (1, 2),
                                 quiet=args.markdown)
    if args.markdown:
        print(markdown(tables))
    return 0


# ---------------------------------------------------------------------------
# --selftest
# ---------------------------------------------------------------------------

class SelfTest(unittest.TestCase):
    def test_tags(self):
        uuid = bytes(16)
        hdr = struct.pack(">III", JBD2_MAGIC, 1, 7)
        # plain (no checksums, 32 bits): 8-byte tags, a UUID after the first
        blk = hdr + struct.pack(">IHH", 100, 0, 0) + uuid + struct.pack(">IHH", 101, 0, 2) + \
            struct.pack(">IHH", 102, 0, 2 | 8) + struct.pack(">IHH", 103, 0, 2)
        blk += bytes(BLOCK - len(blk))
        self.assertEqual(jbd2_header(blk), (1, 7))
        self.assertEqual(descriptor_tags(blk, INCOMPAT_REVOKE), [100, 101, 102])
        # csum v3: 16-byte tags, flags a 32-bit word
        blk = hdr + struct.pack(">IIII", 200, 0, 0, 0) + uuid + struct.pack(">IIII", 201, 2 | 8, 0, 0)
        blk += bytes(BLOCK - len(blk))
        self.assertEqual(descriptor_tags(blk, INCOMPAT_CSUM_V3), [200, 201])
        self.assertEqual(tag_bytes(INCOMPAT_CSUM_V2), 10)
        self.assertEqual(tag_bytes(INCOMPAT_64BIT | INCOMPAT_CSUM_V2), 14)

    def test_revoke(self):
        blk = struct.pack(">IIII", JBD2_MAGIC, 5, 3, 16 + 8) + struct.pack(">II", 55, 66)
        blk += bytes(BLOCK - len(blk))
        self.assertEqual(revoke_blocks(blk, 0), [55, 66])
        self.assertIsNone(jbd2_header(bytes(BLOCK)))

    def test_windows(self):
        serial = b"boot\r\nJCOST op create1\r\nJCOST home create1\nJCOST end create1\n"
        marks = windows(serial)
        self.assertEqual([(p, o) for _, p, o in marks],
                         [("op", "create1"), ("home", "create1"), ("end", "create1")])
        self.assertEqual(window_of(marks, 0), ("mount", "mount"))
        self.assertEqual(window_of(marks, marks[0][0]), ("mount", "mount"))
        self.assertEqual(window_of(marks, marks[0][0] + 1), ("op", "create1"))
        self.assertEqual(window_of(marks, marks[1][0]), ("op", "create1"))
        self.assertEqual(window_of(marks, len(serial)), ("end", "create1"))

    def test_stat_blocks(self):
        text = "Inode: 8\nBLOCKS:\n(0-11):100-111, (IND):112, (12-13):113-114\nTOTAL: 15\n\n"
        data, meta = stat_blocks(text)
        self.assertEqual(data[0], 100)
        self.assertEqual(data[13], 114)
        self.assertEqual(meta, {112: "IND"})

    def test_check_fsync(self):
        """--check's verdicts on made-up windows: the commit as it should
        be, then the data after the commit block, then no flushes."""
        WORK.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=WORK) as d:
            img = Path(d) / "t.img"
            subprocess.run(["truncate", "-s", "4M", str(img)], check=True)
            e2(MKFS + [str(img)])
            src = Path(d) / "f"
            src.write_bytes(b"x" * 2048)
            e2(["debugfs", "-w", "-R", "write %s f" % src, str(img)])
            fdata, _ = stat_blocks(e2(["debugfs", "-R", "stat /f", str(img)]))
            itab = int(re.search(r"located at block (\d+)",
                                 e2(["debugfs", "-R", "imap /f", str(img)])).group(1))
            w = ("op", "append")

            def ev(block, *kinds):
                return Write(0, w, False, block, len(kinds), list(kinds))
            data = ev(fdata[0], "data /f", "data /f")
            log = ev(900, "journal descriptor", "journal copy of %d (inode table)" % itab)
            commit = ev(902, "journal commit")
            good = [data, log, ("F", w), commit, ("F", w)]
            self.assertTrue(all(ok for ok, _ in check_fsync(img, good, "append", "/f", 1)))
            late = [log, ("F", w), commit, ("F", w), data]
            bad = [what for ok, what in check_fsync(img, late, "append", "/f", 1) if not ok]
            self.assertEqual(len(bad), 2)
            self.assertIn("before the commit block", bad[0])
            nobarrier = [data, log, commit]
            bad = [what for ok, what in check_fsync(img, nobarrier, "append", "/f", 1) if not ok]
            self.assertEqual(len(bad), 2)
            self.assertIn("PREFLUSH", bad[0])
            home = [data, log, ("F", w), ev(itab, "inode table"), commit, ("F", w)]
            bad = [what for ok, what in check_fsync(img, home, "append", "/f", 1) if not ok]
            self.assertEqual(len(bad), 1)
            self.assertIn("in place", bad[0])

    def test_layout_and_owner(self):
        """On an image made here: the layout and the owner of a file's and
        a directory's blocks, read back through the host's e2fsprogs."""
        WORK.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=WORK) as d:
            img = Path(d) / "t.img"
            subprocess.run(["truncate", "-s", "4M", str(img)], check=True)
            e2(MKFS + [str(img)])
            src = Path(d) / "f"
            src.write_bytes(b"x" * 3000)
            e2(["debugfs", "-w", "-R", "write %s f" % src, str(img)])
            lay = static_layout(img)
            self.assertEqual(lay[1], "superblock")
            self.assertIn("inode table", lay.values())
            j = journal_blocks(img)
            self.assertIn(0, j.values())
            fdata, _ = stat_blocks(e2(["debugfs", "-R", "stat f", str(img)]))
            rdata, _ = stat_blocks(e2(["debugfs", "-R", "stat /", str(img)]))
            got = owners(img, {fdata[0], fdata[2], rdata[0]})
            self.assertEqual(got, {fdata[0]: "data /f", fdata[2]: "data /f", rdata[0]: "dir /"})
            self.assertTrue(all(category(lay[b]) in ("sb", "gdt", "bitmap", "itable") for b in lay))


if __name__ == "__main__":
    sys.exit(main())
