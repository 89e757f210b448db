# SPDX-License-Identifier: MIT
"""linuxboot.py - Debian's Linux 6.1 booted on the QEMU machines of the
Spindle scenarios, for the tools that hold Spindle against it
(tools/tools-linux.py, tools/ext3-linux.py, tools/fua-linux.py).

The steps they all take: tools/compare-linux's machinery (`apt-get
download` into build/compare-linux/debs, nothing installed on the host)
fetches the kernel and busybox-static; an initramfs is built from
busybox, the .ko files of the modules named (and of what their .modinfo
says they need, in load order) and the caller's /init; the kernel and
the initramfs are copied into the caller's build folder.  A scenario for
tests/qemu/run.py then boots them with `qemu: -kernel ... -initrd ...`.
"""
import importlib.machinery
import importlib.util
import shutil
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent

# Linux's console: level <= 2 messages on the serial port; /dev/kmsg not
# rate-limited; a panic ends QEMU.
APPEND = "console=ttyS0 loglevel=3 printk.devkmsg=on panic=-1"

# The first lines of every /init: busybox's applets, the kernel's file
# systems, say (through printk: on the console before a reset can cut it
# off) and fail.  @TAG@ is the caller's name for its FAIL lines.
INIT_HEAD = r"""#!/bin/sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
say() { echo "<2>$*" > /dev/kmsg; }
fail() { say "@TAG@ FAIL: $*"; poweroff -f; }
"""


def load_compare_linux():
    """tools/compare-linux (no .py: a command) as a module."""
    path = TOOLS / "compare-linux"
    loader = importlib.machinery.SourceFileLoader("compare_linux", str(path))
    spec = importlib.util.spec_from_loader("compare_linux", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def insmod_lines(kmods):
    """The /init lines that load kmods ((path, params), in order)."""
    return "\n".join("insmod %s %s|| fail insmod %s" % (path, "".join(p + " " for p in params),
                                                         path) for path, params in kmods)


def build(work, modules, init_text, extra=()):
    """The kernel and an initramfs in work: busybox, the modules and the
    /init init_text(kmods) returns.  Returns (vmlinuz, initrd, kernel
    release); compare-linux's CompareError if a package or a module
    cannot be had."""
    cl = load_compare_linux()
    work.mkdir(parents=True, exist_ok=True)
    src, kver = cl.linux_packages(["busybox-static"] + list(extra))
    root = work / "initramfs"
    cl.busybox_root(src, root)
    kmods = cl.install_modules(src, kver, root, modules, {})
    init = root / "init"
    init.write_text(init_text(kmods))
    init.chmod(0o755)
    initrd = work / "initrd.cpio"
    cl.write_initrd(root, initrd)
    vmlinuz = work / "vmlinuz"
    shutil.copy2(src / "boot" / ("vmlinuz-" + kver), vmlinuz)
    return vmlinuz, initrd, kver
