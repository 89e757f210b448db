#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ext3-linux.py [--selftest] - Linux 6.1 replays Spindle's ext3 journal, and Spindle Linux's.

`make ext3-linux` runs this.  Four boots on the same QEMU machine (q35,
the image on AHCI port 0), Debian's own kernel booted with an initramfs
built here from Debian's packages (tools/compare-linux's machinery:
`apt-get download` into build/compare-linux/debs, nothing installed on
the host; busybox-static as the shell; the modules ahci, sd_mod, ext4
and what their .modinfo says they need -- jbd2, mbcache, crc16 -- and
crc32c_generic, which jbd2 asks the crypto API for when a journal has
checksums):

Spindle -> Linux
  1. tests/qemu/ext3/ext3-to-linux.scn: Spindle writes on a fresh
     `mke2fs -t ext3` image (fsync, sync), lists the tree ("TREE" lines:
     directories, and files with their cksum) and is killed without
     umount; its check, tools/ext3-crash-check.sh, finds needs_recovery
     and a log.
  2. Linux mounts a copy (`mount -t ext3`: its ext4 driver and jbd2
     replay Spindle's log), lists the tree and unmounts.  Here: Linux's
     kernel log says "recovery complete", its tree is Spindle's (the
     one file made after the last sync, ./late, may be there or not),
     and on the host `e2fsck -fn` is clean with needs_recovery gone.

Linux -> Spindle
  3. Linux writes on a fresh `mke2fs -t ext3` image (files written
     through dd conv=fsync, a directory, a rename, an rmdir, an append,
     a truncation, an unlink after a sync), syncs, lists the tree and
     resets at once (`echo b > /proc/sysrq-trigger`: no umount, no
     further write).  Here: `dumpe2fs -h` shows needs_recovery and a
     journal start other than 0 -- Linux's log is there to replay -- and
     the journal's features (printed: what Linux wrote).
  4. tests/qemu/ext3/ext3-from-linux.scn: Spindle mounts a copy
     (replaying Linux's log), lists the tree and unmounts; its checks:
     `e2fsck -fn` clean, needs_recovery gone, journal empty.  Here: its
     tree is Linux's.

Linux's lines are written to /dev/kmsg (printk prints them on the serial
console synchronously, so none is lost to the reset that follows).
Prints one line per step and "ext3-linux: OK"; exit 0 only if every
step held.  --selftest checks the tree comparison and the log parsing
on made-up logs.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import unittest
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
sys.path.insert(0, str(TOOLS))
import linuxboot  # noqa: E402  (Linux's kernel and initramfs, built as for the others)
WORK = ROOT / "build/ext3-linux"
QEMU_OUT = ROOT / "build/qemu"
TO_LINUX = ROOT / "tests/qemu/ext3/ext3-to-linux.scn"
FROM_LINUX = ROOT / "tests/qemu/ext3/ext3-from-linux.scn"
LINUX_CUT = WORK / "linux-cut.img"       # FROM_LINUX's prep= copies it
# A name Spindle made after its last sync: the cut may or may not keep it.
UNSYNCED = {"./late"}
# The Linux image: as big as ext3-from-linux.scn's disk.
LINUX_IMAGE_SIZE = "32M"
# Modules to insmod (their dependencies come first, from .modinfo).
LINUX_MODULES = ["ahci", "sd_mod", "crc32c_generic", "ext4"]
# Linux's console (tools/linuxboot.py): level <= 2 messages (ours, and
# ext4's errors, which are KERN_CRIT) on the serial port.
LINUX_APPEND = linuxboot.APPEND
load_compare_linux = linuxboot.load_compare_linux


class Ext3LinuxError(Exception):
    """A step that did not hold; the message says what."""


# ---------------------------------------------------------------------------
# The Linux guest's /init
# ---------------------------------------------------------------------------

# The same listing as the Spindle scenarios' tree(): sorted paths below
# /mnt but lost+found, "dir PATH" or "MD5 SIZE PATH" (busybox has md5sum
# on both sides; Debian's busybox-static has no cksum).
TREE_SH = (r'tree() { cd /mnt && find . -path ./lost+found -prune -o -print | sort | '
           r'while read -r p; do if [ -d "$p" ]; then say "TREE dir $p"; '
           r'else say "TREE $(md5sum < "$p" | cut -c1-32) $(wc -c < "$p") $p"; fi; '
           r'done; cd /; }')

INIT_HEAD = linuxboot.INIT_HEAD.replace("@TAG@", "EXT3-LINUX")

INIT_BODY = r"""
n=0
while [ ! -b /dev/sda ]; do
	n=$((n + 1)); [ $n -gt 600 ] && fail no /dev/sda: $(ls /sys/block)
	sleep 0.1
done
mode=$(sed -n 's/.* ext3linux=\([a-z]*\).*/\1/p' /proc/cmdline)
say "EXT3-LINUX $(uname -r) mode $mode"
mkdir -p /mnt
mount -t ext3 /dev/sda /mnt || fail mount -t ext3 /dev/sda
dmesg | grep -e 'EXT4-fs' -e 'JBD2' | while read -r l; do say "LINUX-DMESG $l"; done
@TREE@
case $mode in
check)
	tree
	say "TREE END"
	umount /mnt || fail umount
	say "EXT3-LINUX done"
	poweroff -f
	;;
write)
	cd /mnt || fail cd
	i=0
	while [ $i -lt 8 ]; do
		yes "file $i" | head -c $((16384 + i * 8192)) | dd of=l$i bs=4k conv=fsync 2>/dev/null ||
			fail write l$i
		i=$((i + 1))
	done
	mkdir dir gone || fail mkdir
	echo moved > dir/old && mv dir/old dir/new || fail mv
	rmdir gone || fail rmdir
	echo first > app || fail app
	sync
	rm l6 || fail rm
	echo appended >> app || fail append
	dd if=/dev/zero of=l5 bs=1k count=0 seek=20 2>/dev/null || fail truncate
	cd /
	sync
	tree
	say "TREE END"
	say "EXT3-LINUX reset"
	echo b > /proc/sysrq-trigger
	fail sysrq b did not reset
	;;
*)
	fail unknown mode $mode
	;;
esac
"""


def init_script(kmods):
    """The Linux guest's /init; kmods: (path in the initramfs, params)."""
    lines = [INIT_HEAD]
    for path, params in kmods:
        lines.append("insmod %s %s || fail insmod %s" % (path, " ".join(params), path))
    return "\n".join(lines) + INIT_BODY.replace("@TREE@", TREE_SH)


def build_linux(cl):
    """The kernel and the initramfs in build/ext3-linux; (vmlinuz, initrd, kver)."""
    return linuxboot.build(WORK, LINUX_MODULES, init_script)


def linux_scenario(vmlinuz, initrd, mode, prep):
    """A scenario for tests/qemu/run.py: Linux from -kernel/-initrd on
    the machine the Spindle scenarios use, the image made by prep."""
    append = "%s ext3linux=%s" % (LINUX_APPEND, mode)
    return "\n".join([
        "machine: q35",
        "memory: 256M",
        "timeout: 180",
        "disk: a size=%s if=ahci index=0 prep=%s" % (LINUX_IMAGE_SIZE, prep),
        "qemu: -kernel %s -initrd %s -append %s" % (
            vmlinuz.relative_to(ROOT), initrd.relative_to(ROOT), shlex.quote(append)),
        "expect: ^EXT3-LINUX \\S+ mode %s$" % mode,
        "expect: ^TREE END$",
        "expect: ^EXT3-LINUX %s$" % ("done" if mode == "check" else "reset"),
        "reject: ^EXT3-LINUX FAIL",
        "reject: EXT4-fs error",
        "reject: ^LINUX-DMESG .*(error|corrupt|invalid)",
        "exit: poweroff",
    ]) + "\n"


# ---------------------------------------------------------------------------
# Logs and the host's view of an image
# ---------------------------------------------------------------------------

TIMESTAMP = re.compile(r"^\[[ \d.]+\] ")


def tree_of(log):
    """The TREE lines of a log -> {path: "dir" | "MD5 SIZE"}."""
    tree, ended = {}, False
    for line in log.splitlines():
        line = TIMESTAMP.sub("", line)
        if line == "TREE END":
            ended = True
        elif line.startswith("TREE ") and not ended:
            words = line.split()
            if words[1] == "dir" and len(words) == 3:
                tree[words[2]] = "dir"
            elif len(words) == 4:
                tree[words[3]] = "%s %s" % (words[1], words[2])
            else:
                raise Ext3LinuxError("a TREE line I cannot read: %r" % line)
    if not ended:
        raise Ext3LinuxError("the log has no TREE END: the listing is not whole")
    if not tree:
        raise Ext3LinuxError("the listing is empty")
    return tree


def compare_trees(want, got, maybe=()):
    """What differs between two listings, as lines ("" lists: none);
    names in maybe may be in got or not, with any content."""
    out = []
    for path in sorted(set(want) | set(got)):
        if path in maybe and path not in want:
            continue
        if path not in got:
            out.append("%s: missing (was %s)" % (path, want[path]))
        elif path not in want:
            out.append("%s: not expected (%s)" % (path, got[path]))
        elif want[path] != got[path]:
            out.append("%s: %s, expected %s" % (path, got[path], want[path]))
    return out


def dumpe2fs(img):
    """`dumpe2fs -h` of img as {field: value}."""
    r = subprocess.run(["dumpe2fs", "-h", str(img)], capture_output=True, text=True,
                       env=host_env())
    if r.returncode:
        raise Ext3LinuxError("dumpe2fs -h %s: %s" % (img, r.stderr.strip()))
    return {k.strip(): v.strip() for k, _, v in
            (line.partition(":") for line in r.stdout.splitlines()) if _}


def host_env():
    """The environment with /sbin on PATH (e2fsprogs)."""
    env = dict(os.environ)
    env["PATH"] = env.get("PATH", "") + ":/sbin:/usr/sbin"
    return env


def fsck_clean(img):
    """e2fsck -fn on img: clean (exit 0), or Ext3LinuxError with its output."""
    r = subprocess.run(["e2fsck", "-fn", str(img)], capture_output=True, text=True,
                       env=host_env())
    if r.returncode:
        raise Ext3LinuxError("e2fsck -fn %s exit %d:\n%s" % (img, r.returncode, r.stdout))


def run_scenario(path):
    """tests/qemu/run.py on one scenario file; its cleaned log."""
    r = subprocess.run([sys.executable, str(ROOT / "tests/qemu/run.py"), str(path)],
                       cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    name = Path(path).stem
    if r.returncode:
        raise Ext3LinuxError("the %s boot failed (build/qemu/%s.log):\n%s"
                             % (name, name, r.stdout.strip()))
    return (QEMU_OUT / (name + ".log")).read_text(errors="replace")


# ---------------------------------------------------------------------------
# The steps
# ---------------------------------------------------------------------------

def spindle_to_linux(vmlinuz, initrd):
    log = run_scenario(TO_LINUX)
    spindle = tree_of(log)
    cut = WORK / "spindle-cut.img"
    shutil.copy2(QEMU_OUT / TO_LINUX.stem / "a.img", cut)
    print("ext3-linux: 1. Spindle wrote %d names and was cut; its log needs recovery"
          % len(spindle), flush=True)
    scn = WORK / "ext3-linux-replay.scn"
    scn.write_text(linux_scenario(vmlinuz, initrd, "check", "cp %s {img}" % cut.relative_to(ROOT)))
    log = run_scenario(scn)
    if not re.search(r"^(\[[ \d.]+\] )?LINUX-DMESG .*EXT4-fs \(sda\): recovery complete",
                     log, re.M):
        raise Ext3LinuxError("Linux's kernel log has no 'recovery complete': it replayed nothing")
    diff = compare_trees(spindle, tree_of(log), UNSYNCED)
    if diff:
        raise Ext3LinuxError("Linux's tree after its replay is not Spindle's:\n  " +
                             "\n  ".join(diff))
    img = QEMU_OUT / scn.stem / "a.img"
    fsck_clean(img)
    if "needs_recovery" in dumpe2fs(img).get("Filesystem features", ""):
        raise Ext3LinuxError("needs_recovery still set after Linux's umount")
    print("ext3-linux: 2. Linux replayed it ('recovery complete'): the same %d names and "
          "contents; e2fsck -fn clean" % len(spindle), flush=True)


def linux_to_spindle(vmlinuz, initrd):
    scn = WORK / "ext3-linux-write.scn"
    scn.write_text(linux_scenario(vmlinuz, initrd, "write",
                                  'PATH="$PATH:/sbin" mke2fs -q -F -t ext3 {img}'))
    log = run_scenario(scn)
    linux = tree_of(log)
    shutil.copy2(QEMU_OUT / scn.stem / "a.img", LINUX_CUT)
    head = dumpe2fs(LINUX_CUT)
    if "needs_recovery" not in head.get("Filesystem features", ""):
        raise Ext3LinuxError("Linux's image has no needs_recovery: nothing to replay")
    if head.get("Journal start", "0") == "0":
        raise Ext3LinuxError("Linux's journal start is 0: its log is empty")
    print("ext3-linux: 3. Linux wrote %d names and was reset: needs_recovery, journal "
          "start %s, journal features %s, checksum %s" % (
              len(linux), head["Journal start"], head.get("Journal features", "?"),
              head.get("Journal checksum type", "none")), flush=True)
    log = run_scenario(FROM_LINUX)
    m = re.search(r"^(?:\[[ \d.]+\] )?(JBD2: recovery of sda-8: .*)$", log, re.M)
    diff = compare_trees(linux, tree_of(log))
    if diff:
        raise Ext3LinuxError("Spindle's tree after its replay is not Linux's:\n  " +
                             "\n  ".join(diff))
    print("ext3-linux: 4. Spindle replayed it (%s): the same %d names and contents; "
          "e2fsck -fn clean" % (m.group(1) if m else "?", len(linux)), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--selftest", action="store_true", help="test the parsers; boot nothing")
    args = ap.parse_args()
    if args.selftest:
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(SelfTest)
        return 0 if unittest.TextTestRunner(verbosity=1).run(suite).wasSuccessful() else 1
    WORK.mkdir(parents=True, exist_ok=True)
    cl = load_compare_linux()
    try:
        vmlinuz, initrd, kver = build_linux(cl)
    except cl.CompareError as e:
        raise SystemExit("ext3-linux: %s" % e)
    print("ext3-linux: Linux %s, %s" % (kver, initrd.relative_to(ROOT)), flush=True)
    try:
        spindle_to_linux(vmlinuz, initrd)
        linux_to_spindle(vmlinuz, initrd)
    except Ext3LinuxError as e:
        print("ext3-linux: FAIL: %s" % e)
        return 1
    print("ext3-linux: OK")
    return 0


# ---------------------------------------------------------------------------
# --selftest
# ---------------------------------------------------------------------------

class SelfTest(unittest.TestCase):
    LOG = """[    1.5] EXT3-LINUX 6.1.0 mode check
[    1.6] TREE dir .
[    1.6] TREE 0cc175b9c0f1b6a831c399e269772661 15 ./app
[    1.7] TREE dir ./dir
TREE 12 6 ./dir/new
[    1.8] TREE END
[    1.9] TREE 1 1 ./after-the-end
"""

    def test_tree(self):
        self.assertEqual(tree_of(self.LOG), {".": "dir", "./app": "0cc175b9c0f1b6a831c399e269772661 15",
                                             "./dir": "dir", "./dir/new": "12 6"})
        with self.assertRaisesRegex(Ext3LinuxError, "no TREE END"):
            tree_of(self.LOG.replace("TREE END", "TREE"))
        with self.assertRaisesRegex(Ext3LinuxError, "cannot read"):
            tree_of(self.LOG.replace("./app", "./a b"))

    def test_compare(self):
        want = tree_of(self.LOG)
        self.assertEqual(compare_trees(want, dict(want)), [])
        got = dict(want, **{"./late": "1 9"})
        self.assertEqual(compare_trees(want, got, UNSYNCED), [])
        self.assertEqual(compare_trees(want, got), ["./late: not expected (1 9)"])
        got = dict(want, **{"./app": "0cc175b9c0f1b6a831c399e269772661 9"})
        del got["./dir/new"]
        self.assertEqual(compare_trees(want, got),
                         ["./app: 0cc175b9c0f1b6a831c399e269772661 9, expected "
                          "0cc175b9c0f1b6a831c399e269772661 15",
                          "./dir/new: missing (was 12 6)"])

    def test_init(self):
        init = init_script([("/lib/modules/jbd2.ko", []), ("/lib/modules/ext4.ko", [])])
        self.assertLess(init.index("insmod /lib/modules/jbd2.ko"),
                        init.index("insmod /lib/modules/ext4.ko"))
        self.assertIn("echo b > /proc/sysrq-trigger", init)
        self.assertNotIn("@TREE@", init)
        scn = linux_scenario(ROOT / "build/v", ROOT / "build/i", "write", "true")
        self.assertIn("ext3linux=write", scn)
        self.assertIn("expect: ^EXT3-LINUX reset$", scn)


if __name__ == "__main__":
    sys.exit(main())
