#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fault-matrix.py [--short] [-j N] [CELL-GLOB...] - I/O errors on real emulated disks, cell by cell.

Each cell boots Spindle with one disk that QEMU's blkdebug driver makes
fail -- reads, writes or cache flushes (blkdebug's read_aio, write_aio and
flush_to_disk events), once or every time, with errno EIO or ENOSPC --
and runs /tests/faultcheck (tests/user/faultcheck.c) on it:

  controller   ahci | ide | nvme (a controller per disk: nvme0n1, nvme1n1;
               QEMU's NVMe answers any backend errno with a Write Fault or
               Unrecovered Read Error status, so the caller sees EIO)
  path         raw (the disk itself) | linear (dm-linear over it) |
               raid1 (dm-raid1 over it and a healthy second disk) |
               ext2 (a file of an ext2 file system on it, made by the
               host's mke2fs: faultcheck's file mode)
  fault        read | write | flush | meta (ext2 only: the write of the
               file's inode table block),  once | sticky,  eio | enospc

A cell passes when
  - the caller sees the error (raw, linear) or gets its data (raid1: the
    mirror drops the failing leg and goes on with the other);
  - no other chunk is lost or corrupted: the guest reads everything back,
    and the host finds the verification pattern in the raw image (for
    raid1, on the healthy leg);
  - no hang (the hung-task detector, armed at 5 s, stays silent; the boot
    ends before its timeout) and no panic;
  - the fault did happen: the caller's first try failed, or the mirror
    logged that it dropped the leg;
  - the log names the disk and the sector the way Linux does
    ("I/O error, dev sda, sector 1024 op 0x0:(READ) ...") for a read or
    write fault; a failed flush is one line, the flush command's
    ("... sector 0 op 0x2:(FLUSH) flags 0x0 phys_seg 0 ..."), none for
    the empty write that asked for it;
  - ext2: umount works, the host's debugfs finds the pattern in the file
    (but in the chunk a sticky write fault kept from the disk, whose
    failing block still holds the host's bytes), and e2fsck -fn finds the
    file system clean.

Prints one line per cell and "<passed> of <total> cells passed"; exit 0
only if all did.  The scenarios and blkdebug rules are generated into
build/faults/ (kept, to rerun one with tests/qemu/run.py).  --short runs
the CI subset: one cell per fault and path.  docs/testing.md keeps the
matrix.
"""
import argparse
import fnmatch
import itertools
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build/faults"
BAD_SECTOR = 1029                       # in faultcheck's BAD_CHUNK (8 x 128 sectors)
EVENTS = {"read": "read_aio", "write": "write_aio", "flush": "flush_to_disk", "meta": "write_aio"}
ERRNOS = {"eio": 5, "enospc": 28}
CHUNK = 64 * 1024
AREA = 2 << 20
# ext2: the host's mke2fs (tools/ext2-image.sh, 4 KiB blocks, from 1 MiB
# on) and debugfs put a 2 MiB file /g of 'z' bytes on a 24 MiB disk; its
# block 130 (in faultcheck's BAD_CHUNK, blocks 128-143) is block 207 of
# the file system, sectors 3704-3711 of the disk.  The images are the same
# bytes each run; a check asks debugfs again.
EXT2_FILE_BLOCK, EXT2_FS_BLOCK = 130, 207
EXT2_BAD_SECTOR = 2048 + EXT2_FS_BLOCK * 8 + 2
# fault "meta" (ext2 only): /g's inode (21) is in block 6, the inode table
EXT2_INODE_BLOCK = 6
EXT2_META_SECTOR = 2048 + EXT2_INODE_BLOCK * 8 + 2
EXT2_PREP = ("tools/ext2-image.sh {img} 4096 write && "
             "dd if={img} of={img}.fs bs=1M skip=1 status=none && "
             "head -c 2M /dev/zero | tr '\\0' z > {img}.g && "
             'debugfs -w -R "write {img}.g g" {img}.fs && '
             "dd if={img}.fs of={img} bs=1M seek=1 conv=notrunc status=none")


def cells():
    for ctrl, path, op, kind, err in itertools.product(
            ("ahci", "ide", "nvme"), ("raw", "linear", "raid1", "ext2"), ("read", "write", "flush", "meta"),
            ("once", "sticky"), ("eio", "enospc")):
        if op == "meta" and path != "ext2":
            continue                    # a file system's own blocks
        yield "%s-%s-%s-%s-%s" % (ctrl, path, op, kind, err), (ctrl, path, op, kind, err)


def short(name):
    """The CI subset: every fault on each device path, a data and a
    metadata write fault on ext2; sticky EIO, on one controller each."""
    ctrl, path, op, kind, err = name.split("-")
    if ctrl == "nvme":
        return False                    # not in CI yet: run them by name
    if path == "ext2" and op not in ("write", "meta"):
        return False
    return kind == "sticky" and err == "eio" and (ctrl == "ahci") == (op != "read")


def blkdebug_rules(path, op, kind, err):
    # iotype: only that kind of request fails (the event only arms the rule)
    rule = ['[inject-error]', 'event = "%s"' % EVENTS[op],
            'iotype = "%s"' % ("write" if op == "meta" else op),
            'errno = "%d"' % ERRNOS[err],
            'once = "%s"' % ("on" if kind == "once" else "off")]
    if op != "flush":
        rule.append('sector = "%d"' % (EXT2_META_SECTOR if op == "meta" else
                                       EXT2_BAD_SECTOR if path == "ext2" else BAD_SECTOR))
    return "# generated by tools/fault-matrix.py\n" + "\n".join(rule) + "\n"


def flush_log_checks(disk0):
    """A failed cache flush is one line, the flush command's, as Linux's
    blk_print_req_error prints it: none for the empty write (REQ_PREFLUSH,
    no data) that asked for the flush."""
    return [r"check: grep -Eq '(^|\] )[A-Za-z/ ]+ error, dev %s, sector 0 op 0x2:\(FLUSH\) "
            r"flags 0x0 phys_seg 0 prio class 0' {log}" % disk0,
            r"check: ! grep -Eq 'error, dev %s, sector [0-9]+ op 0x1:\(WRITE\) "
            r"flags 0x[0-9a-f]+ phys_seg 0 ' {log}" % disk0]


def ext2_scenario(lines, name, disk0, op, kind):
    """The ext2 path: mounted errors=remount-ro, faultcheck on its file
    /g, umount; the host's debugfs and e2fsck after."""
    sticky_write = op == "write" and kind == "sticky"
    ctrl = lines[5].split("if=")[1].split()[0]
    lines[5] = ("disk: a size=24M if=%s%s driver=blkdebug config=%s.blkdebug "
                "werror=report rerror=report prep=%s"
                % (ctrl, "" if ctrl == "nvme" else " index=0", (OUT / name).resolve(), EXT2_PREP))
    del lines[6]                        # no second disk
    part = disk0 + ("p1" if disk0[-1].isdigit() else "1")   # nvme0n1p1, sda1
    lines += ["init: mkdir /mnt",
              "init: mount -t ext2 -o errors=remount-ro /dev/%s /mnt" % part,
              "init: /tests/faultcheck /mnt/g %s %s error" % (op, kind),
              "init: cat /proc/mounts",
              "init: umount /mnt",
              "init: echo umount status $?",
              r"expect: ^EXT2-fs \(%s\): mounted filesystem read-write" % part,
              r"expect: ^TEST faultcheck\.%s_%s PASS$" % (op, kind),
              r"expect: ^1 passed, 0 failed$",
              # Spindle's ext2 leaves a data block's write error, and a
              # failed flush, to the caller (errseq): the file system stays
              # read-write.  Linux's ext2_fsync instead takes any EIO as
              # possible metadata loss ("detected IO error when writing
              # metadata buffers", ext2_error), which errors=remount-ro
              # turns into a read-only remount; these lines pin Spindle's
              # choice down
              r"expect: ^/dev/%s /mnt ext2 rw," % part,
              r"expect: ^umount status 0$",
              "reject: blocked for more than|PANIC|BUG:|EXT2-fs error|remounting filesystem read-only",
              # the ATA disk has no way to say ENOSPC: EIO as on Linux
              "check: grep -Eq '^faultcheck: .* first try errno 5,' {log}"]
    if op != "flush" and kind == "sticky":
        lines.append(r"check: grep -Eq '(^|\] )I/O error, dev %s, sector [0-9]+ op 0x%d:\(%s\)' {log}"
                     % (disk0, 0 if op == "read" else 1, "READ" if op == "read" else "WRITE"))
    if op == "flush":
        lines += flush_log_checks(disk0)
    fs, g = "{dir}/a.img.fs", "{dir}/g"
    lines.append("check: dd if={dir}/a.img of=%s bs=1M skip=1 status=none && "
                 "test \"$(debugfs -R 'bmap /g %d' %s 2>/dev/null)\" = %d"
                 % (fs, EXT2_FILE_BLOCK, fs, EXT2_FS_BLOCK))
    # e2fsck finds it clean, a sticky fault included: a data block's fault
    # leaves the metadata alone, and the only metadata a meta fault keeps
    # from the disk is /g's inode's new times (overwritten in place, /g
    # keeps its size and blocks); a lost allocation or bitmap write could
    # rightly leave e2fsck something to fix
    lines.append("check: rc=0; e2fsck -fn %s > {dir}/fsck.out 2>&1 || rc=$?; "
                 "cat {dir}/fsck.out; test $rc = 0" % fs)
    dump = "debugfs -R 'dump /g %s' %s 2>/dev/null" % (g, fs)
    if sticky_write:
        bad = 8 * CHUNK
        lines.append("check: %s && tools/pattern-check.py %s 0 %d 11 && "
                     "tools/pattern-check.py %s %d %d 11 && "
                     "test \"$(dd if=%s bs=4096 skip=%d count=1 status=none | tr -d z | wc -c)\" = 0"
                     % (dump, g, bad, g, bad + CHUNK, AREA - bad - CHUNK, g, EXT2_FILE_BLOCK))
    else:
        lines.append("check: %s && tools/pattern-check.py %s 0 %d 11" % (dump, g, AREA))
    lines.append("exit: pass")
    return "\n".join(lines) + "\n"


def scenario(name, ctrl, path, op, kind, err):
    disk0, disk1 = {"ahci": ("sda", "sdb"), "ide": ("hda", "hdb"),
                    "nvme": ("nvme0n1", "nvme1n1")}[ctrl]
    machine = "pc" if ctrl == "ide" else "q35"
    index = ("", "") if ctrl == "nvme" else (" index=0", " index=1")
    lines = ["# fault matrix cell %s (generated by tools/fault-matrix.py)" % name,
             "machine: " + machine,
             "memory: 128M",
             "timeout: 60",
             "cmdline: hung_task_timeout=5",
             # report the error to the guest: QEMU's default werror=enospc
             # would stop the machine instead
             "disk: a size=8M if=%s%s driver=blkdebug config=%s.blkdebug "
             "werror=report rerror=report" % (ctrl, index[0], (OUT / name).resolve()),
             "disk: b size=8M if=%s%s" % (ctrl, index[1])]
    if path == "ext2":
        return ext2_scenario(lines, name, disk0, op, kind)
    dev, expect = disk0, "error"
    if path == "linear":
        lines.append('cmdline: dm-mod.create="lin,,,rw,0 16384 linear %s 0"' % disk0)
        dev = "dm-0"
    elif path == "raid1":
        lines.append('cmdline: dm-mod.create="mir,,,rw,0 16384 mirror core 2 1024 nosync '
                     '2 %s 0 %s 0 1 handle_errors"' % (disk0, disk1))
        dev, expect = "dm-0", "data"
    lines += ["init: /tests/faultcheck %s %s %s %s" % (dev, op, kind, expect),
              r"expect: ^TEST faultcheck\.%s_%s PASS$" % (op, kind),
              r"expect: ^1 passed, 0 failed$",
              "reject: blocked for more than|PANIC|BUG:"]
    # the fault did happen: the caller's first try failed, or the mirror
    # dropped the leg
    if path == "raid1":
        lines.append("check: grep -q 'raid1: .* failed, continuing with 1 legs' {log}")
    else:
        lines.append("check: grep -Eq '^faultcheck: .* first try errno (5|28),' {log}")
    if op != "flush" and kind == "sticky":
        lines.append(r"check: grep -Eq '(^|\] )I/O error, dev %s, sector [0-9]+ op 0x%d:\(%s\)' {log}"
                     % (disk0, 0 if op == "read" else 1, op.upper()))
    if op == "flush":
        lines += flush_log_checks(disk0)
    # the host's view of what the guest wrote
    good = "b" if path == "raid1" else "a"
    if op == "write" and kind == "sticky" and path != "raid1":
        bad = 8 * CHUNK
        lines.append("check: tools/pattern-check.py {dir}/a.img 0 %d 11" % bad)
        lines.append("check: tools/pattern-check.py {dir}/a.img %d %d 11"
                     % (bad + CHUNK, AREA - bad - CHUNK))
    else:
        lines.append("check: tools/pattern-check.py {dir}/%s.img 0 %d 11" % (good, AREA))
    lines.append("exit: pass")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--short", action="store_true", help="the CI subset")
    ap.add_argument("-j", dest="jobs", type=int, default=2, help="guests at once")
    ap.add_argument("globs", nargs="*", metavar="CELL-GLOB")
    args = ap.parse_args()

    OUT.mkdir(parents=True, exist_ok=True)
    chosen = []
    for name, cell in cells():
        if args.short and not short(name):
            continue
        if args.globs and not any(fnmatch.fnmatch(name, g) for g in args.globs):
            continue
        (OUT / (name + ".blkdebug")).write_text(blkdebug_rules(*cell[1:]))
        (OUT / (name + ".scn")).write_text(scenario(name, *cell))
        chosen.append(name)
    if not chosen:
        sys.exit("fault-matrix: no cell matches")
    r = subprocess.run([sys.executable, str(ROOT / "tests/qemu/run.py"), "-j", str(args.jobs)]
                       + [str(OUT / (n + ".scn")) for n in chosen],
                       cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    passed = 0
    for line in r.stdout.splitlines():
        if line.startswith("PASS "):
            passed += 1
        if line.startswith(("PASS ", "FAIL ")) or line.startswith("    also:"):
            print(line)
    print("%d of %d cells passed" % (passed, len(chosen)))
    return 0 if passed == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
