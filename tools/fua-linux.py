#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fua-linux.py - does Linux 6.1's FUA reach a disk behind QEMU's NVMe controller?

The second opinion for docs/fs.md's finding that QEMU 7.2's NVMe
controller drops a Write's FUA bit.  One boot of Debian's own Linux
(tools/compare-linux's machinery: `apt-get download` into
build/compare-linux/debs, busybox-static as the shell, the modules nvme,
ext4 and what they need) on the machine tests/qemu/scenarios/nvme-fua.scn
gives Spindle: an 8 MiB ext3 image served by tools/nbdcache.py in its
recording mode, attached with `-device nvme`, and QEMU's own trace of
what its NBD client sends (`-trace nbd_send_request`).  Linux prints its
queue's view (queue/write_cache, queue/fua), mounts the file system with
barrier=1 and writes eight 4 KiB files, each with `dd conv=fsync` (a
journal commit: its commit block with REQ_PREFLUSH | REQ_FUA), and
unmounts.  Printed: what Linux said, the recorded writes with FUA and
the flushes, and the NBD writes QEMU sent with NBD_CMD_FLAG_FUA (0x1).

Exit 0 if the boot passed (a measurement, not a verdict).
"""
import shlex
import subprocess
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
WORK = ROOT / "build/fua-linux"
NAME = "fua-linux"
MODULES = ["nvme", "crc32c_generic", "ext4"]
sys.path.insert(0, str(TOOLS))
import linuxboot  # noqa: E402  (Linux's kernel and initramfs)
import nbdcache  # noqa: E402  (the recording's format)

APPEND = linuxboot.APPEND

INIT = r'''#!/bin/sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
say() { echo "<2>$*" > /dev/kmsg; }
@INSMOD@
n=0
while [ ! -b /dev/nvme0n1 ]; do
	n=$((n + 1)); [ $n -gt 600 ] && say "FUA-LINUX FAIL no nvme0n1" && poweroff -f
	sleep 0.1
done
q=/sys/block/nvme0n1/queue
say "FUA-LINUX $(uname -r): queue/write_cache $(cat $q/write_cache), queue/fua $(cat $q/fua)"
mkdir -p /mnt
mount -t ext3 -o barrier=1 /dev/nvme0n1 /mnt || say "FUA-LINUX FAIL mount"
i=0
while [ $i -lt 8 ]; do
	yes "file $i" | head -c 4096 | dd of=/mnt/f$i bs=4k conv=fsync 2>/dev/null ||
		say "FUA-LINUX FAIL dd f$i"
	i=$((i + 1))
done
umount /mnt || say "FUA-LINUX FAIL umount"
say "FUA-LINUX done"
poweroff -f
'''


def build():
    """The kernel and the initramfs; (vmlinuz, initrd)."""
    def init(kmods):
        return INIT.replace("@INSMOD@", "\n".join("insmod " + p for p, _ in kmods))
    vmlinuz, initrd, _ = linuxboot.build(WORK, MODULES, init)
    return vmlinuz, initrd


def scenario(vmlinuz, initrd):
    return "\n".join([
        "machine: q35",
        "memory: 256M",
        "timeout: 180",
        'disk: x size=64K if=ahci index=1 prep=PATH="$PATH:/sbin" mke2fs -q -F -t ext3 -b 1024 '
        "{dir}/c.img 8M && python3 tools/nbdcache.py serve {dir}/c.img {dir}/nbd.sock "
        "--record {dir}/writes.rec",
        "qemu: -drive if=none,id=nbd0,format=raw,file.driver=nbd,file.server.type=unix,"
        "file.server.path={dir}/nbd.sock -device nvme,serial=LINUXFUA,drive=nbd0 "
        "-trace nbd_send_request,file={dir}/trace.log",
        "qemu: -kernel %s -initrd %s -append %s" % (vmlinuz, initrd, shlex.quote(APPEND)),
        "expect: ^FUA-LINUX \\S+: queue/write_cache",
        "expect: ^FUA-LINUX done$",
        "reject: ^FUA-LINUX FAIL",
        "exit: poweroff",
    ]) + "\n"


def main():
    if len(sys.argv) > 1:
        print(__doc__.strip())
        return 0 if sys.argv[1] in ("-h", "--help") else 2
    vmlinuz, initrd = build()
    scn = WORK / (NAME + ".scn")
    scn.write_text(scenario(vmlinuz, initrd))
    if subprocess.run([sys.executable, str(ROOT / "tests/qemu/run.py"), str(scn)],
                      cwd=ROOT).returncode:
        return 1
    out = ROOT / "build/qemu" / NAME
    for line in (ROOT / "build/qemu" / (NAME + ".log")).read_text().splitlines():
        if "FUA-LINUX" in line:
            print(line.split("] ", 1)[-1])
    records = nbdcache.read_records(out / "writes.rec")
    writes = [r for r in records if r[0] == "W"]
    print("the disk received: %d writes, %d of them FUA, %d flushes"
          % (len(writes), sum(1 for r in writes if r[1]), sum(1 for r in records if r[0] == "F")))
    sent = [x for x in (out / "trace.log").read_text().splitlines() if "(write)" in x]
    print("QEMU's NBD client sent: %d writes, %d with NBD_CMD_FLAG_FUA"
          % (len(sent), sum(1 for x in sent if ".flags = 0x1" in x)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
