#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools-linux.py [--selftest] [--machine q35|pc]... - lsblk, blkid, findmnt and sfdisk -g on Spindle and on Linux 6.1, diffed.

`make tools-linux` runs this.  For each machine (q35: the disks on AHCI;
pc: on IDE), two boots of the same QEMU machine with the same three disk
images, made once here on the host:

  root  48 MiB, an MBR partition holding an ext2 root file system
        (tools/root-image.sh: Spindle's userland, and Debian's lsblk,
        blkid, findmnt and sfdisk with their libraries);
  gpt   16 MiB, a GPT table made by sfdisk: an ext2 file system
        (PARTLABEL "data"), a swap area (mkswap, label "swp") and an
        empty partition;
  mbr   16 MiB, an MBR table with a primary partition, an extended one
        and two logical ones in it, the first holding an ext2 file system.

Spindle boots from its CD with root= the root disk's partition; Linux
(Debian's kernel and an initramfs built by tools/linuxboot.py: busybox,
the disk driver's modules, ext4 for ext2) mounts the same partition and
switch_root's into it, with proc, sysfs, devtmpfs and a tmpfs mounted
where Spindle's init mounts them.  Both then run the root's /etc/init.sh
(SCRIPT below: the same commands, the same binaries) -- the GPT disk's
ext2 partition mounted on /mnt, then each command of COMMANDS -- and
this tool compares the output, command by command, after the
normalisations NORMALISE lists (each with its reason); any other
difference fails, and is printed as a diff.

Prints one line per machine and "tools-linux: OK"; exit 0 only if
every output agreed.  --selftest checks the parsing and the
normalisations on made-up logs, booting nothing.
"""
import argparse
import difflib
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
import linuxboot  # noqa: E402

WORK = ROOT / "build/tools-linux"
QEMU_OUT = ROOT / "build/qemu"
TAG = "TOOLS-LINUX"

PROGS = ["/usr/bin/lsblk", "/usr/sbin/blkid", "/usr/bin/findmnt", "/usr/sbin/sfdisk"]

# What both kernels run, in this order; the name is the command line.
COMMANDS = [
    "cat /proc/partitions",
    "lsblk",
    "lsblk -b -o NAME,MAJ:MIN,RM,SIZE,RO,TYPE,MOUNTPOINTS",
    "lsblk -J",
    "blkid",
    "findmnt",
    "findmnt -o TARGET,SOURCE,FSTYPE,OPTIONS",
    "sfdisk -g /dev/${d}a /dev/${d}b /dev/${d}c /dev/${d}a1",
]

# /etc/init.sh on the root disk, the same for both kernels and both
# machines: $d is "hd" where the disks are IDE disks (Spindle on pc),
# else "sd".  Each command's output goes to a file first (not the
# console: no terminal, so no width or colour from one), then between
# BEGIN and END lines with its exit status.
SCRIPT = [
    "export PATH=/usr/sbin:/usr/bin:/bin",
    "if [ -e /sys/block/hda ]; then d=hd; else d=sd; fi",
    "mkdir -p /mnt && mount -t ext2 /dev/${d}b1 /mnt || echo %s FAIL: mount /mnt" % TAG,
    "run() { echo \"%s BEGIN $*\"; eval \"$*\" > /tmp/out 2>&1; s=$?; cat /tmp/out; "
    "echo \"%s END $s\"; }" % (TAG, TAG),
] + ["run '%s'" % c for c in COMMANDS] + [
    "umount /mnt",
    "echo %s done" % TAG,
]

# The machines: the disks' interface, Spindle's name for the first disk,
# the Linux modules that drive them (sd_mod: libata's disks are SCSI
# disks; ext4 mounts ext2, and asks the crypto API for crc32c).  The boot CD goes to AHCI port 5, so that the
# three disks take the places 0, 1, 2 (sda, sdb, sdc; on pc hda, hdb, hdc).
MACHINES = {
    "q35": {"if": "ahci", "disk": "sda", "cdrom": "ahci:5",
            "modules": ["ahci", "sd_mod", "crc32c_generic", "ext4"],
            # where Linux's sda, sdb, sdc must be: AHCI ports 0, 1, 2
            "ports": [("sda", "*/ata1/*"), ("sdb", "*/ata2/*"), ("sdc", "*/ata3/*")],
            # their SCSI ids (host:channel:target:lun): a host per port
            "scsi": ["0:0:0:0", "1:0:0:0", "2:0:0:0"]},
    "pc": {"if": "ide", "disk": "hda", "cdrom": "ahci:5",
           "modules": ["ata_piix", "sd_mod", "crc32c_generic", "ext4"],
           # primary master and slave, secondary master (SCSI ids 0, 1)
           "ports": [("sda", "*/ata1/host*/target*:0:0/*"), ("sdb", "*/ata1/host*/target*:0:1/*"),
                     ("sdc", "*/ata2/host*/target*:0:0/*")],
           "scsi": ["0:0:0:0", "0:0:1:0", "1:0:0:0"]},
}
DISKS = [("root", "48M"), ("gpt", "16M"), ("mbr", "16M")]


class ToolsLinuxError(Exception):
    """A step that did not hold; the message says what."""


# ---------------------------------------------------------------------------
# The disks, made once so that both kernels see the same UUIDs
# ---------------------------------------------------------------------------

def sh(cmd, **kw):
    env = dict(kw.pop("env", {}))
    full = dict(__import__("os").environ, **env)
    full["PATH"] = full.get("PATH", "") + ":/sbin:/usr/sbin"
    r = subprocess.run(cmd, shell=True, cwd=ROOT, env=full, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, executable="/bin/bash")
    if r.returncode:
        raise ToolsLinuxError("%s failed:\n%s" % (cmd, r.stdout.strip()))
    return r.stdout


def make_disks():
    """The three images in WORK; {name: path}."""
    imgs = {name: WORK / (name + ".img") for name, _ in DISKS}
    for name, size in DISKS:
        imgs[name].unlink(missing_ok=True)
        sh("truncate -s %s %s" % (size, imgs[name]))
    sh("tools/root-image.sh %s %s" % (imgs["root"], " ".join(shlex.quote(x) for x in SCRIPT)),
       env={"ROOT_PROGS": " ".join(PROGS)})
    gpt, mbr = imgs["gpt"], imgs["mbr"]
    sh("printf 'label: gpt\\nstart=1MiB, size=6MiB, type=L, name=data\\nsize=4MiB, type=S, "
       "name=swap\\ntype=L, name=empty\\n' | sfdisk -q %s" % gpt)
    sh("mke2fs -q -F -t ext2 -L data -E offset=%d %s 6M" % (1 << 20, gpt))
    swap = WORK / "swap.tmp"
    swap.unlink(missing_ok=True)
    sh("truncate -s 4M %s && mkswap -L swp %s && dd if=%s of=%s bs=1M seek=7 conv=notrunc "
       "status=none" % (swap, swap, swap, gpt))
    swap.unlink()
    sh("printf 'label: dos\\n1MiB,4MiB,83\\n,,5\\n,4MiB,83\\n,,83\\n' | sfdisk -q %s" % mbr)
    start = int(sh("sfdisk -d %s | sed -n 's|.*%s5 : start= *\\([0-9]*\\),.*|\\1|p'"
                   % (mbr, re.escape(str(mbr)))).strip())
    sh("mke2fs -q -F -t ext2 -L logical -E offset=%d %s 4M" % (start * 512, mbr))
    return imgs


# ---------------------------------------------------------------------------
# The two boots
# ---------------------------------------------------------------------------

LINUX_INIT = r"""
@INSMOD@
# Linux names libata's disks in the order sd_probe() runs for them, and
# it runs them in parallel: the names would change from boot to boot.
# Spindle names them in port order.  So no disk is bound on its own
# (drivers_autoprobe 0, set before sd_mod came); each is bound to sd
# here, one after the other (a bind returns once probed), in port order.
for id in @SCSI_IDS@; do
	n=0
	while [ ! -e /sys/bus/scsi/devices/$id ]; do
		n=$((n + 1)); [ $n -gt 600 ] && fail no SCSI device $id: $(ls /sys/bus/scsi/devices)
		sleep 0.1
	done
	echo $id > /sys/bus/scsi/drivers/sd/bind || fail bind $id to sd
done
n=0
while [ ! -b /dev/sda1 ] || [ ! -b /dev/sdb3 ] || [ ! -b /dev/sdc6 ]; do
	n=$((n + 1)); [ $n -gt 600 ] && fail the disks did not come: $(ls /dev/sd* /dev/hd* 2>&1) $(cat /proc/partitions)
	sleep 0.1
done
# and where each disk is, checked
for want in @PORTS@; do
	disk=${want%%=*}
	case $(readlink -f /sys/block/$disk) in
	${want#*=}) ;;
	*) fail "Linux's $disk is not the disk at ${want#*=}: $(readlink -f /sys/block/$disk)" ;;
	esac
done
mkdir -p /newroot
mount -t ext2 /dev/sda1 /newroot || fail mount -t ext2 /dev/sda1
# where Spindle's init mounts them, with its sources (user/bin/init.c)
for m in proc:proc sysfs:sys devtmpfs:dev tmpfs:tmp; do
	mount -t ${m%%:*} ${m%%:*} /newroot/${m#*:} || fail mount ${m%%:*}
done
# The initramfs's own /proc, /sys and /dev stay mounted: out of reach
# after switch_root, as Spindle's rootfs is after root=, and their mount
# IDs stay taken (freed, Linux would give them to the next mounts, and
# findmnt lists a mount's children in the order of their IDs).
exec switch_root /newroot /bin/busybox sh -c \
	'exec < /dev/console > /dev/console 2>&1; /bin/busybox sh /etc/init.sh; /bin/busybox poweroff -f'
"""


def linux_init(machine, kmods):
    m = MACHINES[machine]
    ports = " ".join("%s=%s" % (disk, where) for disk, where in m["ports"])
    sd = [i for i, (path, _) in enumerate(kmods) if path.endswith("/sd_mod.ko")]
    insmod = linuxboot.insmod_lines(kmods[:sd[0]]) + \
        "\necho 0 > /sys/bus/scsi/drivers_autoprobe\n" + linuxboot.insmod_lines(kmods[sd[0]:])
    return (linuxboot.INIT_HEAD.replace("@TAG@", TAG) +
            LINUX_INIT.replace("@INSMOD@", insmod).replace("@PORTS@", ports)
            .replace("@SCSI_IDS@", " ".join(m["scsi"])))


def scenario(machine, imgs, linux=None):
    """A scenario for tests/qemu/run.py: machine's disks, copies of imgs;
    Spindle from its CD, or linux = (vmlinuz, initrd) from -kernel."""
    m = MACHINES[machine]
    out = ["machine: %s" % machine, "memory: 256M", "timeout: 180"]
    if m["cdrom"]:
        out.append("cdrom: %s" % m["cdrom"])
    for i, (name, size) in enumerate(DISKS):
        out.append("disk: %s size=%s if=%s index=%d prep=cp %s {img}"
                   % (name, size, m["if"], i, imgs[name].relative_to(ROOT)))
    if linux:
        vmlinuz, initrd = linux
        out.append("qemu: -kernel %s -initrd %s -append %s" % (
            vmlinuz.relative_to(ROOT), initrd.relative_to(ROOT),
            shlex.quote(linuxboot.APPEND + " quiet")))
        out.append("exit: poweroff")
    else:
        out.append("cmdline: root=/dev/%s1 rw" % m["disk"])
        out.append("exit: pass")
    out += ["expect: ^%s done$" % TAG, "reject: ^%s FAIL" % TAG]
    return "\n".join(out) + "\n"


def run_scenario(path):
    """tests/qemu/run.py on one scenario file; its log."""
    r = subprocess.run([sys.executable, str(ROOT / "tests/qemu/run.py"), str(path)],
                       cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    name = Path(path).stem
    if r.returncode:
        raise ToolsLinuxError("the %s boot failed (build/qemu/%s.log):\n%s"
                              % (name, name, r.stdout.strip()))
    return (QEMU_OUT / (name + ".log")).read_text(errors="replace")


# ---------------------------------------------------------------------------
# Reading and comparing the outputs
# ---------------------------------------------------------------------------

# A kernel's own message on the console (both print them with a
# timestamp): not the commands' output.
KERNEL_LINE = re.compile(r"^\[ *\d+\.\d+\] ")


def sections(log):
    """{command: [output lines..., "exit N"]} from a log."""
    out, cur = {}, None
    for line in log.splitlines():
        if KERNEL_LINE.match(line):
            continue
        if line.startswith(TAG + " BEGIN "):
            cur = line[len(TAG + " BEGIN "):]
            out[cur] = []
        elif line.startswith(TAG + " END ") and cur is not None:
            out[cur].append("exit " + line[len(TAG + " END "):])
            cur = None
        elif cur is not None:
            out[cur].append(line)
    return out


def ide_to_sd(m):
    """hdX[N] -> sdX[N] (the letter's place is the disk's)."""
    return "sd" + m.group(1) + m.group(2)


def ide_majmin(m):
    """IDE's MAJ:MIN (3:0 hda, 3:64 hdb, 22:0 hdc, 22:64 hdd; the partition
    number added) -> sd's (8:0, 8:16, 8:32, 8:48)."""
    major, minor = int(m.group(1)), int(m.group(2))
    disk = (0 if major == 3 else 2) + minor // 64
    return "8:%d" % (disk * 16 + minor % 64)


def ide_partitions_line(m):
    """A /proc/partitions line of an IDE disk, as the sd disk's."""
    major, minor = ide_majmin(m).split(":")
    return "%4d  %7d %10s %s" % (int(major), int(minor), m.group(3), ide_to_sd(
        re.match(r"hd([a-d])(\d*)", m.group(4))))


# What may differ, and why; each (a machine or None for all, the start
# of the commands whose output it applies to or "" for all, regex,
# replacement), on both kernels' output.
NORMALISE = [
    # The per-mount atime flag: Linux's default is relatime; Spindle never
    # writes an access time on a read (fs/file.c), which is Linux's
    # noatime, and its mount options say so (fs/namespace.c).
    (None, "findmnt", re.compile(r",relatime\b"), ",noatime"),
    # tmpfs's limits: Spindle shows them even at their default, half of
    # RAM (fs/ramfs.c: so that a student sees where a full /tmp stops);
    # Linux only when they are not the default.  And half of RAM is not
    # the same figure on two kernels that keep different amounts for
    # themselves.
    (None, "findmnt", re.compile(r"^(.*\btmpfs\s+\S*?),size=\d+k,nr_inodes=\d+"), r"\1"),
    # Linux's devtmpfs is a tmpfs instance (shmem) with the limits it had
    # when made, early at boot, a mode and 64-bit inode numbers; Spindle's
    # is a directory of device nodes made on lookup (fs/devtmpfs.c), with
    # no file system behind it and no options to show.
    (None, "findmnt", re.compile(r"^(.*\bdevtmpfs\s+\S*?),size=\d+k,nr_inodes=\d+,mode=755,inode64$"),
     r"\1"),
    # Linux 6.1 has no driver for IDE disks but libata's (the old
    # drivers/ide went in 5.14): ata_piix makes them SCSI disks sda, sdb,
    # sdc (major 8).  Spindle's IDE driver keeps the old names and
    # numbers, hda (3:0), hdb (3:64), hdc (22:0).
    ("pc", "cat /proc/partitions",
     re.compile(r"^ *(3|22) +(\d+) +(\d+) (hd[a-d]\d*)$"), ide_partitions_line),
    ("pc", "", re.compile(r"\bhd([a-d])(\d*)\b"), ide_to_sd),
    ("pc", "", re.compile(r"\b(3|22):(\d+)\b"), ide_majmin),
    # ... and lsblk aligns MAJ:MIN's colon under the widest major: IDE's
    # 22 has two digits where sd's 8 has one, so the columns' padding
    # differs once the numbers are sd's.
    ("pc", "lsblk", re.compile(r"  +"), " "),
]


# blkid prints in the order of Linux's sysfs, a hash of the names
# (fs/sysfs.c): another order for hda, hdb, hdc than for sda, sdb, sdc.
SORTED = {("pc", "blkid")}


def normalise(machine, command, lines):
    out = []
    for line in lines:
        for machines, commands, pat, repl in NORMALISE:
            if machines not in (None, machine) or not command.startswith(commands):
                continue
            line = pat.sub(repl, line)
        out.append(line.rstrip())
    if (machine, command) in SORTED:
        out.sort()
    return out


def compare(machine, spindle, linux):
    """The differences between two logs' outputs, as diff lines (none: [])."""
    s, li = sections(spindle), sections(linux)
    out = []
    for cmd in COMMANDS:
        if cmd not in li or cmd not in s:
            out.append("%s: no output from %s" % (cmd, "Linux" if cmd not in li else "Spindle"))
            continue
        a = normalise(machine, cmd, s[cmd])
        b = normalise(machine, cmd, li[cmd])
        if a != b:
            out.append("$ " + cmd)
            out += list(difflib.unified_diff(b, a, "linux", "spindle", lineterm="", n=2))
    return out


def compare_machine(machine, imgs, linux):
    """Both boots on machine; raises ToolsLinuxError with the diff."""
    logs = {}
    for who, kernel in (("spindle", None), ("linux", linux)):
        scn = WORK / ("tools-linux-%s-%s.scn" % (machine, who))
        scn.write_text(scenario(machine, imgs, kernel))
        logs[who] = run_scenario(scn)
    diff = compare(machine, logs["spindle"], logs["linux"])
    if diff:
        raise ToolsLinuxError("%s: Spindle's output is not Linux's (- Linux, + Spindle):\n%s"
                              % (machine, "\n".join(diff)))
    print("tools-linux: %s: the same output from %d commands" % (machine, len(COMMANDS)),
          flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--selftest", action="store_true", help="test the parsers; boot nothing")
    ap.add_argument("--machine", action="append", choices=sorted(MACHINES),
                    help="only this machine (again for more); default: all")
    args = ap.parse_args()
    if args.selftest:
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(SelfTest)
        return 0 if unittest.TextTestRunner(verbosity=1).run(suite).wasSuccessful() else 1
    WORK.mkdir(parents=True, exist_ok=True)
    failed = 0
    try:
        imgs = make_disks()
    except ToolsLinuxError as e:
        raise SystemExit("tools-linux: %s" % e)
    for machine in args.machine or ["q35", "pc"]:
        modules = MACHINES[machine]["modules"]
        try:
            vmlinuz, initrd, kver = linuxboot.build(
                WORK / machine, modules, lambda kmods: linux_init(machine, kmods))
        except Exception as e:  # compare-linux's CompareError: a package or module
            raise SystemExit("tools-linux: %s" % e)
        try:
            compare_machine(machine, imgs, (vmlinuz, initrd))
        except ToolsLinuxError as e:
            print("tools-linux: FAIL: %s" % e, flush=True)
            failed += 1
    if failed:
        return 1
    print("tools-linux: OK")
    return 0


# ---------------------------------------------------------------------------
# --selftest
# ---------------------------------------------------------------------------

class SelfTest(unittest.TestCase):
    def log(self, body):
        return "[    1.0] booting\n%s BEGIN lsblk\n%s\n[    2.0] a kernel line\n%s END 0\n" % (
            TAG, body, TAG)

    def test_sections(self):
        s = sections(self.log("NAME MAJ:MIN\nsda 8:0"))
        self.assertEqual(s, {"lsblk": ["NAME MAJ:MIN", "sda 8:0", "exit 0"]})

    def test_ide(self):
        self.assertEqual(normalise("pc", "lsblk", ["hda 3:0", "`-hdb1 3:65", "hdc5 22:5"]),
                         ["sda 8:0", "`-sdb1 8:17", "sdc5 8:37"])
        self.assertEqual(normalise("q35", "lsblk", ["hda 3:0"]), ["hda 3:0"])
        self.assertEqual(normalise("pc", "cat /proc/partitions", ["  22        5       4096 hdc5"]),
                         ["   8       37       4096 sdc5"])
        self.assertEqual(normalise("pc", "blkid", ["/dev/hdb1: X", "/dev/hda1: Y"]),
                         ["/dev/sda1: Y", "/dev/sdb1: X"])
        self.assertEqual(normalise("q35", "blkid", ["/dev/sdb1: X", "/dev/sda1: Y"]),
                         ["/dev/sdb1: X", "/dev/sda1: Y"])

    def test_mounts(self):
        linux = ["/       /dev/sda1 ext2     rw,relatime",
                 "|-/dev  devtmpfs  devtmpfs rw,relatime,size=98144k,nr_inodes=24536,mode=755,inode64",
                 "|-/tmp  tmpfs     tmpfs    rw,relatime,inode64"]
        spindle = ["/       /dev/sda1 ext2     rw,noatime",
                   "|-/dev  devtmpfs  devtmpfs rw,noatime",
                   "|-/tmp  tmpfs     tmpfs    rw,noatime,size=119876k,nr_inodes=29969,inode64"]
        self.assertEqual(normalise("q35", "findmnt", linux), normalise("q35", "findmnt", spindle))
        # only those: another option, or another mode, still differs
        self.assertNotEqual(normalise("q35", "findmnt", [linux[1].replace("755", "700")]),
                            normalise("q35", "findmnt", [spindle[1]]))
        self.assertNotEqual(normalise("q35", "lsblk", linux), normalise("q35", "lsblk", spindle))

    def test_compare(self):
        li = self.log("sda 8:0 0 16M 0 disk")
        self.assertEqual([x for x in compare("pc", self.log("hda 3:0 0 16M 0 disk"), li)
                          if not x.endswith("no output from Linux")
                          and not x.endswith("no output from Spindle")], [])
        diff = compare("q35", self.log("sda 8:0 0 15M 0 disk"), li)
        self.assertIn("-sda 8:0 0 16M 0 disk", diff)
        self.assertIn("+sda 8:0 0 15M 0 disk", diff)

    def test_script(self):
        self.assertEqual(len([x for x in SCRIPT if x.startswith("run '")]), len(COMMANDS))
        init = linux_init("q35", [("/lib/modules/ahci.ko", []), ("/lib/modules/sd_mod.ko", [])])
        self.assertIn("insmod /lib/modules/ahci.ko || fail", init)
        self.assertIn("switch_root /newroot", init)
        self.assertLess(init.index("drivers_autoprobe"), init.index("insmod /lib/modules/sd_mod.ko"))
        self.assertLess(init.index("insmod /lib/modules/ahci.ko"), init.index("drivers_autoprobe"))


if __name__ == "__main__":
    sys.exit(main())
