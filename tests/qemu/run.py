#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
r"""Spindle's QEMU scenario runner: boot the kernel headless, judge the log.

Where it sits: `make test` runs the host unit tests (tests/unit/), then this
script.  For each scenario it creates fresh disk images, boots
build/spindle.iso in QEMU with the serial console going to a file, waits
for the guest to leave (or kills it at the scenario's timeout), and judges
the serial log and QEMU's exit status against the scenario's expectations,
in the spirit of Pintos's .ck files.

Usage
    tests/qemu/run.py                   run every scenario, one at a time
    tests/qemu/run.py boot-pc 'boot-*'  run the scenarios named (globs work)
    tests/qemu/run.py labs/03-plug/lab3-plug.scn   a scenario file kept elsewhere
    tests/qemu/run.py -j 2              run two guests at once
    tests/qemu/run.py -v boot-q35       also stream the serial output live
    tests/qemu/run.py --list            list the scenarios
    tests/qemu/run.py --selftest        test this script itself (no kernel needed)
    tests/qemu/run.py --kargs 'slab_debug=1 lockdep=1'   every scenario with
                                        these kernel options too (or KARGS=...)
    tests/qemu/run.py --reject '^BUG '  a reject: line for every scenario

Environment: QEMU=<binary> (default qemu-system-x86_64); ACCEL=kvm to use
KVM instead of TCG (nested KVM is *slower* on our machines: a GRUB boot took
~50 s under KVM against ~0.5 s under TCG); TIMEOUT_SCALE=<factor> multiplies
every scenario's timeout (e.g. 3 with ACCEL=kvm).

Output: `PASS <name> (<s>s)` or `FAIL <name>: <reason>` with the tail of
the log, then the closing line `<N> passed, <M> failed`.  Exit status 0 iff
every scenario passed (2: a usage error, 130: interrupted).  Files kept:
    build/qemu/<name>.log    the serial log, cleaned (see "The log" below)
    build/qemu/<name>/       disks, command-line file, raw serial log,
                             qemu.cmd (the exact command, to rerun by hand)
                             and qemu.stderr; wiped before each boot.

Scenario files: tests/qemu/scenarios/<name>.scn
------------------------------------------------
One `key: value` per line; the value is stripped of spaces at both ends
(so a regex that must end in a space says `[ ]` or `\s`).  Blank lines and
lines starting with `#` are ignored; the first comment lines describe the
scenario (shown by --list).  Keys marked * may repeat.

    machine: pc | q35          machine type (default q35)
    memory: 128M               guest RAM, as QEMU's -m takes it (default 128M)
    cpus: 2                    CPUs, QEMU's -smp (default 2, so that every
                               scenario also boots the other CPUs); 1 for
                               a scenario about one CPU, and the default
                               for a scenario with `qemu: -icount`, where
                               the other CPUs get no tick.  A `qemu: -smp`
                               line overrides it
    timeout: 60                seconds before the guest is killed (default 60)
    cmdline: <options>       * kernel command line, passed as the fw_cfg file
                               opt/spindle/cmdline; several lines are joined
                               with spaces.  Commas need no escaping.
    init: <shell line>       * one line of the script passed as fw_cfg file
                               opt/spindle/init.sh (init runs it with /bin/sh
                               instead of an interactive shell)
    disk: <id> <key=value>...* a disk, created fresh before each boot (below)
    cdrom: [ide:|ahci:]<index> where the boot CD goes (default 2 on the
                               machine's own controller: hdc on pc, AHCI
                               port 2 on q35, as QEMU's -cdrom does);
                               `cdrom: ahci:0` on pc puts it on an added
                               AHCI controller (SeaBIOS boots from there),
                               freeing all four IDE places for disks
    qemu: <args>             * extra QEMU arguments, split like a shell line
    expect: <regex>          * must appear in the log, after the previous
                               expect's match (so expects are in order)
    reject: <regex>          * must not appear anywhere in the log
    type: <regex> => <text>  * keyboard input on the serial console: once
                               <regex> matches the log (after where the
                               previous type: matched), <text> is sent;
                               escapes \n \r \t \\ and \xHH (\x03 is
                               Ctrl-C).  E.g. type: ^/ # $ => echo hi\n
                               (the shell's prompt, then a command line)
    check: <shell command>   * an outside check, run (bash, from the
                               repository root) after QEMU has exited,
                               only if the guest's judgement passed; it
                               must exit 0, else its output is the reason.
                               Placeholders {dir}, {src}, {log} (the
                               cleaned serial log).  E.g. the host reading
                               the pattern the guest wrote:
                               check: tools/pattern-check.py {dir}/d.img 0 1M 7
    exit: pass | fail | panic | poweroff | any | timeout
                               how QEMU must end (default pass); timeout:
                               the guest is meant to hang (a deadlock lab)
    enosys: allowed | <comm>...
                               the kernel may log a system call it does not
                               implement (`sys_<nr> (<name>) not implemented,
                               called by <comm>[<pid>]`): from any program
                               (allowed), or only from the programs named
                               (e.g. `enosys: usertest`, a test that makes
                               unimplemented calls on purpose).  Without
                               this key such a line fails the scenario:
                               it is a gap in the ABI a program ran into.

Disk lines: `disk: <id> [size=<n>[K|M|G|T]] [if=ahci|ide|nvme] [index=<n>]
[format=raw|qcow2] [driver=null-co|null-aio|blkdebug] [config=<file>]
[bus=<qemu bus>] [serial=<text>] [ns=<id>] [<other>=<value>...] [prep=<shell command>]`
    id       a name: the image is build/qemu/<scenario>/<id>.img
    size     image size, binary units as truncate(1) (required, except for
             a disk whose prep= creates the image itself)
    if       the controller: ahci (default on q35) or ide (default on pc).
             The runner adds the controller the machine lacks: a PIIX3 IDE
             controller on q35 (`-device piix3-ide,id=pide`), an AHCI one on
             pc (`-device ahci,id=ahci`).  nvme: an NVMe controller of its
             own for this disk (`-device nvme,drive=...,serial=...`), on
             either machine; the guest names them nvme0n1, nvme1n1, ... in
             the order of the disk lines (PCI slot order).
    index    IDE: 0..3 = hda..hdd (primary master, primary slave, secondary
             master, secondary slave); AHCI: the port, 0..5.  Default: the
             first free one.  The boot CD holds index 2 of the machine's own
             controller (IDE on pc, AHCI on q35) unless `cdrom:` moves it.
    format   raw (default) or qcow2 (created with qemu-img)
    driver   null-co / null-aio: QEMU's data-less disk (needs size=; takes
             latency-ns=, read-zeroes=on); blkdebug: error injection, with
             config=<rules file> (relative to the scenarios folder)
    bus      attach to this QEMU bus instead (for a controller added with
             `qemu:`), e.g. bus=ide2.0; index is then not used
    serial   if=nvme: the controller's serial number (default: the id)
    ns       if=nvme: no controller of its own: this disk is another
             namespace (`-device nvme-ns`) of the controller of the
             earlier disk <id>, whose own image is namespace 1; the guest
             names them nvme0n1, nvme0n2, ... in the order of the lines
    other    any other key=value goes to QEMU's -drive as is (cache=...)
    prep     a shell command run (bash, from the repository root, with
             /sbin on PATH) after the image is created.  It takes the REST
             OF THE LINE, so it must come last.  {img} is replaced by the
             image's path, e.g.  prep=echo 'size=4MiB' | sfdisk -q {img}
Placeholders usable in prep= and qemu: lines: {img} (prep only), {dir} (the
scenario's build folder), {src} (the scenarios folder).  QEMU runs from the
repository root, so relative paths in qemu: lines start there.

The log
-------
GRUB draws on the serial port with terminal escape codes before the kernel
runs.  The runner removes escape sequences, carriage returns and other
control characters (a cursor-positioning sequence becomes a line break),
and writes that cleaned text to build/qemu/<name>.log.  Regexes (Python's
`re`, multiline: ^ and $ match at line starts and ends) are matched against
the log's lines with the kernel's printk timestamp "[    1.234567] " taken
off the front, so `^Spindle ` means "a message that starts with Spindle".

Judging
-------
QEMU's exit status tells how the guest ended.  The kernel leaves through
isa-debug-exit (iobase 0xf4): writing v makes QEMU exit with (v << 1) | 1.
    status 1   pass      the kernel wrote 0: success
    status 3   fail      the kernel wrote 1: a test failed
    status 5   panic     the kernel wrote 2: panic
    status 0   poweroff  the guest powered off (ACPI), or reset/triple-
                         faulted (-no-reboot turns a reset into an exit)
    killed     timeout   still running at its timeout: a failure, unless
                         the scenario says exit: timeout
QEMU itself also exits with status 1 when it cannot start (a bad option, a
missing file); the runner tells that apart by QEMU's error message on stderr
("qemu-error", always a failure).

`exit:` says which endings the scenario accepts: pass = pass; fail = fail or
panic; panic = panic; poweroff = poweroff; any = any of those four;
timeout = only being killed at the timeout -- for a guest that is meant to
hang (the bio deadlock lab: deadlock-fifo.scn), judged by its expects.
Such a guest is stopped 3 s after every expect has matched, in order (it
hangs as it should; those seconds give a reject -- a writer that got
through after all -- time to show; the rest of the timeout would only be
waited out).
With `exit: pass` the log must also be clean: no line `TEST ... FAIL...`,
no `PANIC:`, and if any `TEST ` line was printed, the kernel's closing line
`<N> passed, <M> failed[, <K> skipped]` must follow the last one, with M = 0
and counts that agree with the TEST lines (a disagreement means lost output).
Then every expect must be found, in order, and no reject; and, whatever
the exit, no unimplemented system call the scenario's `enosys:` does not
allow.
"""

import argparse
import fnmatch
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import concurrent.futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

HERE = Path(__file__).resolve().parent          # tests/qemu
ROOT = HERE.parent.parent                       # the repository
SCENARIO_DIR = HERE / "scenarios"
BUILD_DIR = ROOT / "build" / "qemu"
DEFAULT_ISO = ROOT / "build" / "spindle.iso"

DEFAULT_MACHINE = "q35"
DEFAULT_CPUS = 2      # -smp: the other CPUs come up in every scenario
MAX_CPUS = 8          # Spindle's NR_CPUS
DEFAULT_MEMORY = "128M"
DEFAULT_TIMEOUT = 60.0          # seconds, per scenario
PREP_TIMEOUT = 120.0            # seconds, per disk prep= command
TAIL_LINES = 25                 # log lines shown with a failure
POLL_INTERVAL = 0.05            # seconds between checks on a running QEMU

# How many disks each controller takes, and where the boot CD goes.
IDE_SLOTS = 4                   # 2 channels x master/slave: hda..hdd
AHCI_SLOTS = 6                  # ICH9 AHCI has 6 ports
CDROM_DEFAULT_INDEX = 2         # where -cdrom puts it: hdc on pc, port 2 on q35
NATIVE_IF = {"pc": "ide", "q35": "ahci"}   # the machine's own disk controller
EXTRA_IDE_ID = "pide"           # controller ids the runner adds when needed
EXTRA_AHCI_ID = "ahci"

EXIT_CHOICES = ("pass", "fail", "panic", "poweroff", "any", "timeout")
DISK_DRIVERS = ("file", "null-co", "null-aio", "blkdebug")
DISK_FORMATS = ("raw", "qcow2")


class ScenarioError(Exception):
    """A mistake in a scenario file, reported as <file>:<line>: <what>."""


# ---------------------------------------------------------------------------
# Scenarios: the parsed form of a .scn file
# ---------------------------------------------------------------------------

@dataclass
class Disk:
    id: str
    iface: str = ""             # "ahci", "ide" or "nvme"; "" until defaulted
    index: Optional[int] = None  # IDE index / AHCI port; None until allocated
    size: Optional[str] = None   # as written, e.g. "64M"
    format: str = "raw"
    driver: str = "file"
    config: Optional[str] = None  # blkdebug rules file
    bus: Optional[str] = None     # explicit QEMU bus
    serial: Optional[str] = None  # if=nvme: the controller's serial number
    ns_of: Optional[str] = None   # if=nvme: a namespace of that disk's controller
    prep: Optional[str] = None    # shell command
    extra: List[str] = field(default_factory=list)   # "key=value" for -drive
    line: int = 0


@dataclass
class Expectation:
    regex: str
    pattern: "re.Pattern"
    line: int


@dataclass
class Scenario:
    name: str
    path: Optional[Path] = None
    description: str = ""
    machine: str = DEFAULT_MACHINE
    memory: str = DEFAULT_MEMORY
    cpus: Optional[int] = None      # None: --cpus, else DEFAULT_CPUS
    timeout: float = DEFAULT_TIMEOUT
    cmdline: List[str] = field(default_factory=list)
    init: List[str] = field(default_factory=list)
    disks: List[Disk] = field(default_factory=list)
    cdrom_index: int = CDROM_DEFAULT_INDEX
    cdrom_if: str = ""              # "": the machine's own controller
    qemu_args: List[str] = field(default_factory=list)
    record: bool = False        # record: yes -- QEMU record/replay (make replay)
    expects: List[Expectation] = field(default_factory=list)
    rejects: List[Expectation] = field(default_factory=list)
    checks: List[str] = field(default_factory=list)
    typing: List[tuple] = field(default_factory=list)   # (compiled regex, bytes)
    exit: str = "pass"
    enosys: List[str] = field(default_factory=list)     # ["allowed"] or comms


SIZE_RE = re.compile(r"^(\d+)([KMGT]?)$")
SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
MEMORY_RE = re.compile(r"^\d+[MG]?$")
ID_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
KEY_RE = re.compile(r"^[a-z][a-z0-9_.-]*$")


def parse_size(text):
    """'64M' -> 67108864.  Binary units, as truncate(1) reads them."""
    m = SIZE_RE.match(text)
    if not m:
        raise ValueError("bad size %r (want a number with K, M, G or T)" % text)
    return int(m.group(1)) * SIZE_UNITS[m.group(2)]


def parse_scenario(text, name, path=None):
    """Parse the text of a .scn file into a Scenario; raise ScenarioError."""
    scn = Scenario(name=name, path=path)
    where = str(path) if path else name
    seen_single = set()
    describing = True           # still in the leading comment block?
    description = []

    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("#"):
            if describing:
                description.append(line.lstrip("#").strip())
            continue
        if not line:
            continue
        describing = False

        def error(msg):
            return ScenarioError("%s:%d: %s" % (where, lineno, msg))

        key, colon, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if not colon or not key.isidentifier():
            raise error("expected 'key: value', got %r" % line)

        if key in ("machine", "memory", "cpus", "timeout", "exit", "cdrom", "record", "enosys"):
            if key in seen_single:
                raise error("'%s' given twice" % key)
            seen_single.add(key)

        if key == "machine":
            if value not in NATIVE_IF:
                raise error("machine must be pc or q35, not %r" % value)
            scn.machine = value
        elif key == "memory":
            if not MEMORY_RE.match(value):
                raise error("bad memory size %r (e.g. 128M)" % value)
            scn.memory = value
        elif key == "cpus":
            if not value.isdigit() or not 1 <= int(value) <= MAX_CPUS:
                raise error("cpus must be 1 to %d, not %r" % (MAX_CPUS, value))
            scn.cpus = int(value)
        elif key == "timeout":
            try:
                scn.timeout = float(value)
            except ValueError:
                scn.timeout = -1
            if scn.timeout <= 0:
                raise error("timeout must be a positive number of seconds")
        elif key == "exit":
            if value not in EXIT_CHOICES:
                raise error("exit must be one of %s" % "|".join(EXIT_CHOICES))
            scn.exit = value
        elif key == "enosys":
            scn.enosys = value.split()
            if not scn.enosys or ("allowed" in scn.enosys and len(scn.enosys) > 1):
                raise error("enosys is 'allowed' or the names of the programs allowed")
        elif key == "cdrom":
            iface, _, index = value.rpartition(":")
            if not index.isdigit() or iface not in ("", "ide", "ahci"):
                raise error("cdrom must be an index, or ide:<index> / ahci:<index>")
            scn.cdrom_index = int(index)
            scn.cdrom_if = iface
        elif key == "cmdline":
            if value:
                scn.cmdline.append(value)
        elif key == "init":
            scn.init.append(value)
        elif key == "record":
            if value not in ("yes", "no"):
                raise error("record must be yes or no")
            scn.record = value == "yes"
        elif key == "qemu":
            try:
                scn.qemu_args.extend(shlex.split(value))
            except ValueError as e:
                raise error("qemu: %s" % e)
        elif key in ("expect", "reject"):
            try:
                pattern = re.compile(value, re.MULTILINE)
            except re.error as e:
                raise error("bad regex %r: %s" % (value, e))
            exp = Expectation(value, pattern, lineno)
            (scn.expects if key == "expect" else scn.rejects).append(exp)
        elif key == "type":
            regex, arrow, text = value.partition("=>")
            if not arrow or not regex.strip():
                raise error("type needs '<regex> => <text>'")
            try:
                pattern = re.compile(regex.strip(), re.MULTILINE)
                data = decode_typing(text.lstrip(" "))
            except (re.error, ValueError) as e:
                raise error("type: %s" % e)
            scn.typing.append((pattern, data))
        elif key == "check":
            if not value:
                raise error("check needs a shell command")
            scn.checks.append(value)
        elif key == "disk":
            try:
                scn.disks.append(parse_disk(value, lineno))
            except ValueError as e:
                raise error(str(e))
        else:
            raise error("unknown key %r" % key)

    scn.description = " ".join(d for d in description if d)
    if scn.cpus is None and "-icount" in scn.qemu_args and "-smp" not in scn.qemu_args:
        # Under -icount QEMU 7.2 runs the CPUs in turn on one thread, and
        # the other CPUs' local APIC timers never fire (their LOC line in
        # /proc/interrupts stays 0): a CPU but 0 would have no tick.  An
        # -icount scenario measures one CPU's path anyway.
        scn.cpus = 1
    try:
        place_disks(scn)
    except ValueError as e:
        raise ScenarioError("%s: %s" % (where, e))
    return scn


def decode_typing(text):
    """'echo hi\\n' -> b'echo hi\\n' with the escapes a type: line allows."""
    out, i = bytearray(), 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        nxt = text[i + 1:i + 2]
        if nxt in ("n", "r", "t", "\\"):
            out += {"n": b"\n", "r": b"\r", "t": b"\t", "\\": b"\\"}[nxt]
            i += 2
        elif nxt == "x" and re.match(r"[0-9a-fA-F]{2}$", text[i + 2:i + 4]):
            out.append(int(text[i + 2:i + 4], 16))
            i += 4
        else:
            raise ValueError("bad escape in %r" % text)
    return bytes(out)


def parse_disk(value, lineno):
    """Parse what follows 'disk:'.  prep= swallows the rest of the line."""
    head, sep, prep = value.partition("prep=")
    if sep and head and not head[-1].isspace():
        # "xprep=" inside another value: not a prep key after all.
        raise ValueError("prep= must be its own key, last on the line")
    words = head.split()
    if not words:
        raise ValueError("disk needs an id")
    disk = Disk(id=words[0], line=lineno)
    if not ID_RE.match(disk.id):
        raise ValueError("bad disk id %r (a letter, then letters, digits, - or _)"
                         % disk.id)
    if sep:
        disk.prep = prep.strip()
        if not disk.prep:
            raise ValueError("empty prep=")

    for word in words[1:]:
        k, eq, v = word.partition("=")
        if not eq or not KEY_RE.match(k) or not v:
            raise ValueError("expected key=value, got %r" % word)
        if k == "size":
            parse_size(v)                       # only to check it
            disk.size = v
        elif k == "if":
            if v not in ("ahci", "ide", "nvme"):
                raise ValueError("if must be ahci, ide or nvme, not %r" % v)
            disk.iface = v
        elif k == "index":
            if not v.isdigit():
                raise ValueError("index must be a number")
            disk.index = int(v)
        elif k == "format":
            if v not in DISK_FORMATS:
                raise ValueError("format must be one of %s" % ", ".join(DISK_FORMATS))
            disk.format = v
        elif k == "driver":
            if v not in DISK_DRIVERS:
                raise ValueError("driver must be one of %s" % ", ".join(DISK_DRIVERS))
            disk.driver = v
        elif k == "config":
            disk.config = v
        elif k == "bus":
            disk.bus = v
        elif k == "serial":
            disk.serial = v
        elif k == "ns":
            disk.ns_of = v
        elif k in ("file", "id", "media"):
            raise ValueError("%s= is set by the runner" % k)
        else:
            disk.extra.append(word)

    if disk.driver.startswith("null"):
        if disk.size is None:
            raise ValueError("driver=%s needs size=" % disk.driver)
        if disk.prep:
            raise ValueError("driver=%s has no image to prep" % disk.driver)
    elif disk.size is None and not disk.prep:
        raise ValueError("disk %s needs size= (or a prep= that creates {img})"
                         % disk.id)
    if disk.serial is not None and disk.iface != "nvme":
        raise ValueError("serial= is for if=nvme")
    if disk.ns_of is not None and (disk.iface != "nvme" or disk.serial is not None):
        raise ValueError("ns= is for if=nvme, without serial= (the controller's)")
    if disk.iface == "nvme" and (disk.index is not None or disk.bus):
        raise ValueError("if=nvme takes no index= or bus= (a controller per disk)")
    if disk.driver == "blkdebug" and not disk.config:
        raise ValueError("driver=blkdebug needs config=<rules file>")
    if disk.config and disk.driver != "blkdebug":
        raise ValueError("config= is for driver=blkdebug")
    if disk.format != "raw" and disk.driver != "file":
        raise ValueError("format=%s needs an image file" % disk.format)
    return disk


def place_disks(scn):
    """Default each disk's controller and give it a free index.

    A slot is (controller, index).  The boot CD takes (the machine's own
    controller, cdrom_index); explicit indexes are checked first, then the
    others get the lowest free index in order of appearance.
    """
    native = NATIVE_IF[scn.machine]
    slots = {"ide": IDE_SLOTS, "ahci": AHCI_SLOTS}
    scn.cdrom_if = scn.cdrom_if or native
    if scn.cdrom_index >= slots[scn.cdrom_if]:
        raise ValueError("cdrom index %d out of range for %s"
                         % (scn.cdrom_index, scn.cdrom_if))
    used = {(scn.cdrom_if, scn.cdrom_index): "the boot CD"}
    ids = set()
    for d in scn.disks:
        if d.id in ids:
            raise ValueError("disk id %r used twice" % d.id)
        d.iface = d.iface or native
        if d.ns_of is not None:
            ctrl = next((c for c in scn.disks if c.id == d.ns_of), None)
            if ctrl is None or d.ns_of not in ids or ctrl.iface != "nvme" or ctrl.ns_of:
                raise ValueError("line %d: ns=%s names no earlier if=nvme disk with a controller"
                                 % (d.line, d.ns_of))
        ids.add(d.id)
        if d.iface == "nvme" or d.bus or d.index is None:
            continue
        if d.index >= slots[d.iface]:
            raise ValueError("line %d: %s index %d out of range (0..%d)"
                             % (d.line, d.iface, d.index, slots[d.iface] - 1))
        if (d.iface, d.index) in used:
            raise ValueError("line %d: %s index %d is taken by %s"
                             % (d.line, d.iface, d.index, used[(d.iface, d.index)]))
        used[(d.iface, d.index)] = "disk " + d.id
    for d in scn.disks:
        if d.iface == "nvme" or d.bus or d.index is not None:
            continue
        free = [i for i in range(slots[d.iface]) if (d.iface, i) not in used]
        if not free:
            raise ValueError("line %d: no free %s slot for disk %s"
                             % (d.line, d.iface, d.id))
        d.index = free[0]
        used[(d.iface, d.index)] = "disk " + d.id


def load_scenario(path):
    return parse_scenario(path.read_text(), path.stem, path)


def all_scenario_paths():
    return sorted(SCENARIO_DIR.glob("*.scn"))


# ---------------------------------------------------------------------------
# The QEMU command line
# ---------------------------------------------------------------------------

def qopt(value):
    """Escape a value for QEMU's option parser, where ',' separates options
    and ',,' stands for a literal comma."""
    return str(value).replace(",", ",,")


def substitute(text, **places):
    """Replace {img}, {dir}, {src} by their values (paths) in text."""
    for name, value in places.items():
        text = text.replace("{%s}" % name, str(value))
    return text


def disk_image(workdir, disk):
    return workdir / (disk.id + ".img")


def drive_source(disk, workdir):
    """The -drive options that say where a disk's data comes from."""
    if disk.driver.startswith("null"):
        return ["driver=" + disk.driver, "size=" + disk.size]
    img = disk_image(workdir, disk)
    if disk.driver == "blkdebug":
        rules = SCENARIO_DIR / disk.config
        # blkdebug's own syntax: blkdebug:RULES:IMAGE (no ':' allowed in them)
        return ["file=" + qopt("blkdebug:%s:%s" % (rules, img)), "format=" + disk.format]
    return ["file=" + qopt(img), "format=" + disk.format]


def serial_sock(raw_log):
    return raw_log.parent / "serial.sock"


def serial_chardev(scn, raw_log):
    """COM1: a file -- or, when the scenario types, a socket the runner
    connects to (QEMU waits for it); the runner then writes the log file
    itself from what it reads.  (QEMU's own logfile= on a socket logged a
    chunk twice when a slow reader made the socket's write come up short.)"""
    if not scn.typing:
        return "file,id=serial0,path=" + qopt(raw_log)
    return "socket,id=serial0,path=%s,server=on,wait=on" % qopt(serial_sock(raw_log))


class Typist:
    """Types a scenario's type: lines into the serial socket, each once the
    log shows its regex.  A thread of its own reads everything the guest
    writes there, at once, into the log file, so that the socket never
    fills however slow the host is."""

    def __init__(self, scn, raw_log, deadline):
        import socket
        self.steps, self.raw_log, self.pos = list(scn.typing), raw_log, 0
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        while True:                                 # QEMU creates it at start
            try:
                self.sock.connect(str(serial_sock(raw_log)))
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(POLL_INTERVAL)
        self.log = open(raw_log, "ab")
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError:
                return
            if not data:                            # QEMU closed it: the end
                return
            self.log.write(data)
            self.log.flush()

    def poll(self):
        if not self.steps:
            return
        try:
            text = message_text(clean_log(self.raw_log.read_bytes()))
        except FileNotFoundError:
            return
        pattern, data = self.steps[0]
        m = pattern.search(text, self.pos)
        if m:
            self.pos = m.end()
            self.steps.pop(0)
            try:
                self.sock.sendall(data)
            except OSError:
                pass

    def close(self):
        self.reader.join(timeout=5)     # QEMU has exited: the socket is at EOF
        try:
            self.sock.shutdown(2)
        except OSError:
            pass
        self.reader.join(timeout=5)
        self.sock.close()
        self.log.close()


def qemu_command(scn, iso, workdir, raw_log, qemu_bin="qemu-system-x86_64",
                 accel="tcg"):
    """Build the argument list that boots scenario scn.

    workdir holds the disk images and the fw_cfg files (see prepare()),
    raw_log receives the serial port.  Nothing is created here.
    """
    cmd = [qemu_bin,
           "-M", scn.machine,
           "-m", scn.memory,
           "-accel", accel,
           "-display", "none",
           "-no-reboot",               # a reset ends QEMU (status 0)
           "-monitor", "none",
           "-chardev", serial_chardev(scn, raw_log),
           "-serial", "chardev:serial0",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=4",
           "-boot", "d"]

    # The controller the machine lacks, if a disk (or the CD) wants it.
    foreign = {"pc": "ahci", "q35": "ide"}[scn.machine]
    cd_if = scn.cdrom_if or NATIVE_IF[scn.machine]
    if cd_if == foreign or any(d.iface == foreign and not d.bus for d in scn.disks):
        if foreign == "ide":
            cmd += ["-device", "piix3-ide,id=" + EXTRA_IDE_ID]
        else:
            cmd += ["-device", "ahci,id=" + EXTRA_AHCI_ID]

    # The boot CD, placed explicitly so that disks can be put around it.
    if cd_if == foreign:
        bus = ("%s.%d" % (EXTRA_AHCI_ID, scn.cdrom_index) if foreign == "ahci" else
               "%s.%d,unit=%d" % (EXTRA_IDE_ID, scn.cdrom_index // 2, scn.cdrom_index % 2))
        cmd += ["-drive", "if=none,id=cd,file=%s,media=cdrom" % qopt(iso),
                "-device", "ide-cd,drive=cd,bus=" + bus]
    elif scn.machine == "pc":
        cmd += ["-drive", "file=%s,media=cdrom,if=ide,index=%d"
                % (qopt(iso), scn.cdrom_index)]
    else:
        cmd += ["-drive", "if=none,id=cd,file=%s,media=cdrom" % qopt(iso),
                "-device", "ide-cd,drive=cd,bus=ide.%d" % scn.cdrom_index]

    for d in scn.disks:
        source = drive_source(d, workdir) + d.extra
        if scn.machine == "pc" and d.iface == "ide" and not d.bus:
            # The legacy form: QEMU attaches it to PIIX's hda..hdd.
            cmd += ["-drive", ",".join(source + ["if=ide", "index=%d" % d.index])]
            continue
        drive_id = "disk-" + d.id
        if d.iface == "nvme" and d.ns_of:
            # another namespace on the bus of that disk's controller
            cmd += ["-drive", ",".join(["if=none", "id=" + drive_id] + source),
                    "-device", "nvme-ns,drive=%s,bus=nvme-%s" % (drive_id, d.ns_of)]
            continue
        if d.iface == "nvme":
            # One controller per disk; PCI slots in the order of the lines.
            cmd += ["-drive", ",".join(["if=none", "id=" + drive_id] + source),
                    "-device", "nvme,drive=%s,serial=%s,id=nvme-%s"
                    % (drive_id, qopt(d.serial or d.id), d.id)]
            continue
        if d.bus:
            bus = d.bus
        elif d.iface == "ahci":
            # q35's built-in AHCI is bus ide.N (one bus per port).
            bus = "%s.%d" % ("ide" if scn.machine == "q35" else EXTRA_AHCI_ID, d.index)
        else:
            # the PIIX3 controller added on q35: channel index/2, unit index%2
            bus = "%s.%d,unit=%d" % (EXTRA_IDE_ID, d.index // 2, d.index % 2)
        cmd += ["-drive", ",".join(["if=none", "id=" + drive_id] + source),
                "-device", "ide-hd,drive=%s,bus=%s" % (drive_id, bus)]

    if scn.cmdline:
        cmd += ["-fw_cfg", "name=opt/spindle/cmdline,file=" + qopt(workdir / "cmdline")]
    if scn.init:
        cmd += ["-fw_cfg", "name=opt/spindle/init.sh,file=" + qopt(workdir / "init.sh")]

    if "-smp" not in scn.qemu_args:
        cmd += ["-smp", str(scn.cpus or DEFAULT_CPUS)]
    cmd += [substitute(a, dir=workdir, src=SCENARIO_DIR) for a in scn.qemu_args]
    return cmd


def rr_command(cmd, mode, rrfile):
    """cmd under QEMU's record/replay (mode "record" or "replay"): every
    drive behind a blkreplay driver, the instruction counter in rr mode
    (the scenario's own -icount is replaced), the RTC on the virtual clock
    and no network, as QEMU's docs/system/replay.rst asks.  One CPU: QEMU
    7.2 refuses to record a machine with several ("Record/replay feature
    is not supported for 'smp'").  A replay needs the disks as they were
    before the recorded boot: prepare() makes them again the same way."""
    out, i, n = [], 0, 0
    while i < len(cmd):
        a = cmd[i]
        if a in ("-icount", "-smp") and i + 1 < len(cmd):
            i += 2
            continue
        if a == "-drive" and i + 1 < len(cmd):
            opts = cmd[i + 1].split(",")
            keys = dict(o.split("=", 1) for o in opts if "=" in o)
            n += 1
            if keys.get("if") == "none":
                real = keys["id"] + "-direct"
                opts = ["id=" + real if o == "id=" + keys["id"] else o for o in opts]
                out += ["-drive", ",".join(opts),
                        "-drive", "driver=blkreplay,if=none,image=%s,id=%s" % (real, keys["id"])]
            else:           # pc's legacy if=ide,index=N: the same, spelled out
                index = int(keys.get("index", 0))
                real, rid = "rr%d-direct" % n, "rr%d" % n
                opts = [o for o in opts if not o.startswith(("if=", "index="))]
                kind = "ide-cd" if keys.get("media") == "cdrom" else "ide-hd"
                out += ["-drive", ",".join(["if=none", "id=" + real] + opts),
                        "-drive", "driver=blkreplay,if=none,image=%s,id=%s" % (real, rid),
                        "-device", "%s,drive=%s,bus=ide.%d,unit=%d"
                        % (kind, rid, index // 2, index % 2)]
            i += 2
            continue
        out.append(a)
        i += 1
    return out + ["-smp", "1", "-icount", "shift=0,rr=%s,rrfile=%s" % (mode, qopt(rrfile)),
                  "-rtc", "clock=vm", "-net", "none"]


# ---------------------------------------------------------------------------
# Cleaning the serial log
# ---------------------------------------------------------------------------

# Terminal escape sequences (ECMA-48), as GRUB's menu code writes them:
CSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")        # ESC [ ... final: cursor, colour, clear
OSC_RE = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")  # ESC ] ... BEL: titles
ESC_RE = re.compile(r"\x1b[ -/]*[0-~]?")                 # ESC 7, ESC ( B, a lone ESC
CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f]")  # all but \t \n ESC
BREAK = "\x00"          # stands for "a cursor move" until the end of clean_log
TIMESTAMP_RE = re.compile(r"^\[ *\d+\.\d+\] ", re.MULTILINE)


def clean_log(raw):
    """Turn the bytes from the serial port into plain text lines.

    A cursor-positioning sequence (ESC [ row;col H) becomes a line break, so
    that text drawn at different screen places does not run together; but
    never an empty line: a break where a line has just started is dropped.
    """
    text = raw.decode("utf-8", errors="replace")
    text = OSC_RE.sub("", text)                 # first: it may end with a BEL
    text = CONTROL_RE.sub("", text)             # carriage returns, NULs, bells
    text = CSI_RE.sub(lambda m: BREAK if m.group()[-1] in "Hf" else "", text)
    text = ESC_RE.sub("", text)
    text = re.sub(BREAK + "+", BREAK, text)
    text = re.sub("(^|\n)" + BREAK, r"\1", text)     # already at a line start
    text = re.sub(BREAK + "(?=\n|$)", "", text)       # a line ends anyway
    return text.replace(BREAK, "\n")


def message_text(log):
    """The log with printk's "[    0.123456] " taken off each line: what
    expect/reject and the test-line rules are matched against."""
    return TIMESTAMP_RE.sub("", log)


# ---------------------------------------------------------------------------
# Judging a finished run
# ---------------------------------------------------------------------------

# QEMU's exit status -> outcome.  isa-debug-exit: value v -> (v << 1) | 1.
STATUS_OUTCOME = {1: "pass", 3: "fail", 5: "panic", 0: "poweroff"}
OUTCOME_TEXT = {
    "pass": "kernel reported success (QEMU status 1)",
    "fail": "kernel reported failure (QEMU status 3)",
    "panic": "kernel panicked (QEMU status 5)",
    "poweroff": "guest powered off or reset (QEMU status 0)",
    "timeout": "timed out: QEMU killed",
    "qemu-error": "QEMU did not start",
}
ACCEPTED = {                    # exit: <choice> -> outcomes it accepts
    "pass": {"pass"},
    "fail": {"fail", "panic"},
    "panic": {"panic"},
    "poweroff": {"poweroff"},
    "any": {"pass", "fail", "panic", "poweroff"},
    "timeout": {"timeout"},     # the guest is meant to hang: a deadlock lab
}

TEST_RE = re.compile(r"^TEST \S+ (PASS|FAIL|SKIP)\b")
CLOSING_RE = re.compile(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$")


# Lines QEMU prints while the guest runs that are not failures to start:
# its NVMe controller reports every failed backend request ("aio failed:
# Input/output error", from a blkdebug disk) and answers the guest with an
# error status, which is what the scenario is about.
QEMU_RUNTIME_REPORTS = (": aio failed: ",)


def qemu_errors(stderr):
    """QEMU's own error lines (warnings and notes are not errors: "info:
    QEMU waiting for connection" comes with every typed-into console)."""
    return [l for l in stderr.splitlines()
            if l.strip() and "warning:" not in l and ": info:" not in l
            and not any(r in l for r in QEMU_RUNTIME_REPORTS)]


def outcome_of(status, timed_out, stderr=""):
    """Name how QEMU ended: pass, fail, panic, poweroff, timeout,
    qemu-error, or 'status N' for anything unexpected."""
    if timed_out:
        return "timeout"
    # QEMU exits 1 when it cannot start -- the same status as a kernel
    # success, so look for its error message.
    if status == 1 and qemu_errors(stderr):
        return "qemu-error"
    if status in STATUS_OUTCOME:
        return STATUS_OUTCOME[status]
    return "status %d" % status


def describe(outcome, stderr=""):
    if outcome == "qemu-error":
        return "%s: %s" % (OUTCOME_TEXT[outcome], qemu_errors(stderr)[0])
    if outcome in OUTCOME_TEXT:
        return OUTCOME_TEXT[outcome]
    status = int(outcome.split()[1])
    if status < 0:
        return "QEMU killed by signal %d" % -status
    return "QEMU exited with unexpected status %d" % status


def check_test_lines(text):
    """The kernel's test-report rules for `exit: pass`: list what's wrong.

    A log may hold several test runs (the kernel's suites, then user-space
    test programs run one after another), each ending with its closing
    line: every closing line must agree with the TEST lines since the one
    before it, and no TEST line may come after the last closing line.
    """
    problems = []
    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    pending = False             # TEST lines not yet covered by a closing line
    for line in text.splitlines():
        if line.startswith("TEST "):
            pending = True
            m = TEST_RE.match(line)
            if m:
                counts[m.group(1)] += 1
            if " FAIL" in line:
                problems.append("test failed: " + line)
        if "PANIC:" in line:
            problems.append("panic: " + line.strip())
        closing = CLOSING_RE.match(line.strip())
        if closing and pending:
            passed, failed = int(closing.group(1)), int(closing.group(2))
            if failed:
                problems.append("closing line reports %d failed" % failed)
            said = [("passed", passed, counts["PASS"]), ("failed", failed, counts["FAIL"])]
            if closing.group(3) is not None:
                said.append(("skipped", int(closing.group(3)), counts["SKIP"]))
            for word, n, seen in said:
                if n != seen:
                    problems.append("closing line says %d %s but the log has %d such "
                                    "TEST lines" % (n, word, seen))
            counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
            pending = False
    if pending:
        problems.append("no closing line '<N> passed, <M> failed' after the last TEST line")
    return problems


# The kernel's line for a call it lacks (kernel/arch/x86/syscall.c), once
# per number: the comm is what `enosys:` names.  Not anchored at the line's
# start: a program's output without a newline may come before it.
ENOSYS_RE = re.compile(r"sys_\d+ \(\S+\) not implemented, called by ([^\n\[]+)\[\d+\]")


def check_enosys(scn, text):
    """The unimplemented system calls the log shows and scn does not allow."""
    if scn.enosys == ["allowed"]:
        return []
    bad = [m.group(0) for m in ENOSYS_RE.finditer(text) if m.group(1) not in scn.enosys]
    if not bad:
        return []
    more = " (and %d more)" % (len(bad) - 3) if len(bad) > 3 else ""
    return ["system call not implemented (a gap in the ABI; `enosys:` allows one "
            "made on purpose): %s%s" % ("; ".join(bad[:3]), more)]


def judge(scn, outcome, log, stderr="", timeout=None):
    """Return the reasons scenario scn failed (empty: it passed).

    outcome is from outcome_of(); log is the cleaned serial log; timeout
    the one that was applied (scn.timeout times TIMEOUT_SCALE).
    """
    reasons = []
    if outcome not in ACCEPTED[scn.exit]:
        why = describe(outcome, stderr)
        if outcome == "timeout":
            why = "timed out after %gs: QEMU killed" % (timeout or scn.timeout)
        reasons.append("%s; expected exit: %s" % (why, scn.exit))

    text = message_text(log)
    if scn.exit == "pass":
        reasons += check_test_lines(text)
    reasons += check_enosys(scn, text)

    pos = 0
    for exp in scn.expects:
        m = exp.pattern.search(text, pos)
        if m is None:
            later = "" if pos == 0 or not exp.pattern.search(text) else \
                " after the previous expect (it appears earlier)"
            reasons.append("expect (line %d) not found%s: %s" % (exp.line, later, exp.regex))
            continue            # keep pos: check the rest after the last match
        pos = m.end()
    for rej in scn.rejects:
        m = rej.pattern.search(text)
        if m:
            line = text[:m.start()].count("\n")
            reasons.append("reject (line %d) matched: %s"
                           % (rej.line, text.splitlines()[line] if text else ""))
    return reasons


# ---------------------------------------------------------------------------
# Running one scenario
# ---------------------------------------------------------------------------

@dataclass
class Config:
    iso: Path = DEFAULT_ISO
    build_dir: Path = BUILD_DIR
    qemu: str = "qemu-system-x86_64"
    accel: str = "tcg"
    timeout_scale: float = 1.0
    verbose: bool = False
    record: bool = False        # RECORD=1: record every scenario (make replay)


@dataclass
class Result:
    name: str
    reasons: List[str]
    seconds: float = 0.0
    log_path: Optional[Path] = None
    log: str = ""
    stderr: str = ""
    qemu_signal: int = 0    # QEMU itself died of this signal (its own bug)
    note: str = ""          # said beside the verdict (a boot retried)

    @property
    def passed(self):
        return not self.reasons


# The QEMU processes now running, so that Ctrl-C can end exactly those;
# once _stopping is set, no new one starts.
_running = set()
_running_lock = threading.Lock()
_stopping = threading.Event()


def kill_group(proc):
    """Kill proc and anything it started: QEMU runs in its own session."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def prepare(scn, workdir):
    """Make a fresh workdir: fw_cfg files and disk images.  Raise
    RuntimeError with the reason if a disk cannot be made."""
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    if scn.cmdline:
        # No trailing newline: the kernel appends this to GRUB's line.
        (workdir / "cmdline").write_text(" ".join(scn.cmdline))
    if scn.init:
        (workdir / "init.sh").write_text("\n".join(scn.init) + "\n")

    env = dict(os.environ)
    env["PATH"] = env.get("PATH", "/usr/bin:/bin") + ":/usr/sbin:/sbin"
    for d in scn.disks:
        if d.driver.startswith("null"):
            continue
        img = disk_image(workdir, d)
        if d.size is not None:
            if d.format == "raw":
                with open(img, "wb") as f:          # a sparse file, as truncate -s
                    f.truncate(parse_size(d.size))
            else:
                subprocess.run(["qemu-img", "create", "-q", "-f", d.format,
                                str(img), str(parse_size(d.size))], check=True)
        if d.prep:
            cmd = substitute(d.prep, img=shlex.quote(str(img)),
                             dir=shlex.quote(str(workdir)),
                             src=shlex.quote(str(SCENARIO_DIR)))
            try:
                p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", cmd],
                                   cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   timeout=PREP_TIMEOUT)
            except subprocess.TimeoutExpired:
                raise RuntimeError("prep of disk %s took over %gs" % (d.id, PREP_TIMEOUT))
            if p.returncode != 0:
                out = p.stdout.decode(errors="replace").strip()
                raise RuntimeError("prep of disk %s exited %d: %s\n%s"
                                   % (d.id, p.returncode, cmd, out))
        if not img.exists():
            raise RuntimeError("disk %s: prep did not create %s" % (d.id, img))
        if d.config and not (SCENARIO_DIR / d.config).exists():
            raise RuntimeError("disk %s: no blkdebug rules file %s"
                               % (d.id, SCENARIO_DIR / d.config))


class LiveLog:
    """For -v: print the serial output as it grows, line by line, cleaned."""

    def __init__(self, path):
        self.path, self.offset, self.partial = path, 0, b""

    def poll(self, final=False):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return
        self.offset += len(data)
        data = self.partial + data
        done, _, self.partial = data.rpartition(b"\n")
        if final:
            done, self.partial = data, b""
        if done:
            text = clean_log(done)
            if text.strip():
                print(text.rstrip("\n"), flush=True)


HANG_LOOK_INTERVAL = 0.5       # seconds between looks at a meant-to-hang guest's log
HANG_GRACE = 3.0               # ...and how long it runs on once it hangs as expected,
                               # so that a reject after the hang still shows


def hang_reached(scn, raw_log):
    """A guest meant to hang (exit: timeout) has shown every expect, in
    order: it hangs as the scenario says, so waiting out the timeout would
    only cost time.  The rejects are judged on the log as it stands."""
    if not scn.expects or not raw_log.exists():
        return False
    text = message_text(clean_log(raw_log.read_bytes()))
    pos = 0
    for exp in scn.expects:
        m = exp.pattern.search(text, pos)
        if m is None:
            return False
        pos = m.end()
    return True


# Signals that mean QEMU itself crashed (SIGSEGV, SIGBUS, SIGABRT): a
# defect of the emulator, not a verdict on the kernel.  QEMU 7.2's
# multi-threaded TCG very rarely dies in memory_region_dispatch_write()
# while several vCPUs do MMIO at once (twice in about 600 boots with
# tasks on every CPU); such a boot is made once more.
QEMU_CRASH_SIGNALS = (11, 7, 6)


def run_scenario(scn, cfg):
    """Boot scenario scn and judge it; a boot in which QEMU itself crashed
    is made once more, and says so.  Returns a Result."""
    r = boot_scenario(scn, cfg)
    if r.qemu_signal in QEMU_CRASH_SIGNALS and not _stopping.is_set():
        crashed = cfg.build_dir / (scn.name + ".qemu-crash.log")
        if r.log_path and r.log_path.exists():
            shutil.copyfile(r.log_path, crashed)
        first = r.qemu_signal
        r = boot_scenario(scn, cfg)
        r.note = ("QEMU died of signal %d on the first boot (a QEMU bug; its log is %s): "
                  "booted again" % (first, os.path.relpath(crashed, ROOT)))
    return r


def boot_scenario(scn, cfg):
    """Boot scenario scn once and judge it.  Returns a Result."""
    workdir = cfg.build_dir / scn.name
    raw_log = workdir / "serial.raw"
    log_path = cfg.build_dir / (scn.name + ".log")
    start = time.monotonic()
    try:
        prepare(scn, workdir)
    except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
        return Result(scn.name, [str(e)], time.monotonic() - start)

    cmd = qemu_command(scn, cfg.iso, workdir, raw_log, cfg.qemu, cfg.accel)
    recording = scn.record or cfg.record
    if recording:
        cmd = rr_command(cmd, "record", workdir / "replay.bin")
        (workdir / "scenario").write_text(str(scn.path) + "\n")
    (workdir / "qemu.cmd").write_text(
        "cd %s && %s\n" % (shlex.quote(str(ROOT)), " ".join(shlex.quote(a) for a in cmd)))
    if cfg.verbose:
        print("==> %s: %s" % (scn.name, workdir / "qemu.cmd"), flush=True)

    timeout = scn.timeout * cfg.timeout_scale
    timed_out = False
    with open(workdir / "qemu.stderr", "wb") as err:
        with _running_lock:
            if _stopping.is_set():
                return Result(scn.name, ["interrupted"])
            try:
                # A session of its own, so that kill_group() reaches all of it.
                proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL,
                                        stdout=err, stderr=err,
                                        start_new_session=True)
            except OSError as e:
                return Result(scn.name, ["cannot run %s: %s" % (cfg.qemu, e)])
            _running.add(proc)
        live = LiveLog(raw_log) if cfg.verbose else None
        deadline = time.monotonic() + timeout
        typist = None
        try:
            if scn.typing:
                typist = Typist(scn, raw_log, deadline)
            next_look = time.monotonic() + HANG_LOOK_INTERVAL
            hung_at = None
            while proc.poll() is None:
                if typist:
                    typist.poll()
                now = time.monotonic()
                if scn.exit == "timeout" and hung_at is None and now >= next_look and \
                        hang_reached(scn, raw_log):
                    hung_at = now
                if now >= deadline or (hung_at is not None and now >= hung_at + HANG_GRACE):
                    timed_out = True
                    kill_group(proc)
                    proc.wait()
                    break
                if now >= next_look:
                    next_look = now + HANG_LOOK_INTERVAL
                if live:
                    live.poll()
                time.sleep(POLL_INTERVAL)
        except OSError as e:                # the serial socket never came
            kill_group(proc)
            proc.wait()
            return Result(scn.name, ["cannot connect to the serial socket: %s" % e])
        finally:
            if typist:
                typist.close()
            with _running_lock:
                _running.discard(proc)
        if live:
            live.poll(final=True)
    raw = raw_log.read_bytes() if raw_log.exists() else b""
    log = clean_log(raw)
    log_path.write_text(log)
    stderr = (workdir / "qemu.stderr").read_text(errors="replace")
    outcome = outcome_of(proc.returncode, timed_out, stderr)
    reasons = judge(scn, outcome, log, stderr, timeout)
    if not reasons:
        reasons = run_checks(scn, workdir, log_path)
    if recording:
        (workdir / "recorded.log").write_text(log)
        if reasons:
            reasons.append("recorded: replay it exactly with `make replay R=%s`"
                           % os.path.relpath(workdir, ROOT))
    qemu_signal = -proc.returncode if proc.returncode < 0 and not timed_out else 0
    return Result(scn.name, reasons, time.monotonic() - start, log_path, log, stderr,
                  qemu_signal)


def replay(recorded, cfg):
    """Boot a recorded scenario again from its log (recorded/replay.bin),
    on disks made afresh, and compare its serial log with the recorded one.
    Returns an exit status."""
    recorded = recorded.resolve()
    try:
        scn = load_scenario(Path((recorded / "scenario").read_text().strip()))
    except OSError:
        print("run.py: %s holds no recorded run (scenario file missing)" % recorded,
              file=sys.stderr)
        return 2
    workdir = recorded.parent / (recorded.name + "-replay")
    raw_log = workdir / "serial.raw"
    prepare(scn, workdir)
    cmd = rr_command(qemu_command(scn, cfg.iso, workdir, raw_log, cfg.qemu, cfg.accel),
                     "replay", recorded / "replay.bin")
    (workdir / "qemu.cmd").write_text(
        "cd %s && %s\n" % (shlex.quote(str(ROOT)), " ".join(shlex.quote(a) for a in cmd)))
    timeout = scn.timeout * cfg.timeout_scale * 4      # replay runs slower than the record
    with open(workdir / "qemu.stderr", "wb") as err:
        try:
            subprocess.run(cmd, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                           timeout=timeout)
        except subprocess.TimeoutExpired:
            print("run.py: the replay did not end within %gs" % timeout)
            return 1
    log = clean_log(raw_log.read_bytes() if raw_log.exists() else b"")
    (workdir / "replayed.log").write_text(log)
    before = (recorded / "recorded.log").read_text()
    print("replayed %s from %s: %s" % (scn.name, recorded / "replay.bin",
          "the serial log is identical (%d bytes)" % len(log) if log == before else
          "the serial log DIFFERS from the recorded one"))
    print("log: %s" % (workdir / "replayed.log"))
    return 0 if log == before else 1


def run_checks(scn, workdir, log_path):
    """The scenario's check: commands, in order; the reasons they failed."""
    env = dict(os.environ)
    env["PATH"] = env.get("PATH", "/usr/bin:/bin") + ":/usr/sbin:/sbin"
    reasons = []

    def shown(path):            # a path in a reason: from the repository, if inside it
        try:
            return str(Path(path).resolve().relative_to(ROOT))
        except ValueError:
            return str(path)
    for check in scn.checks:
        cmd = substitute(check, dir=shlex.quote(str(workdir)),
                         src=shlex.quote(str(SCENARIO_DIR)),
                         log=shlex.quote(str(log_path)))
        # the command as it ran, not with its {dir} and {log}
        check = substitute(check, dir=shlex.quote(shown(workdir)),
                           src=shlex.quote(shown(SCENARIO_DIR)),
                           log=shlex.quote(shown(log_path)))
        try:
            p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", cmd],
                               cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=PREP_TIMEOUT)
        except subprocess.TimeoutExpired:
            reasons.append("check took over %gs: %s" % (PREP_TIMEOUT, check))
            continue
        if p.returncode != 0:
            out = p.stdout.decode(errors="replace").strip()
            reasons.append("check exited %d: %s%s" % (p.returncode, check,
                           ("\n        " + out.replace("\n", "\n        ")) if out else ""))
    return reasons


def report(result):
    """Print PASS/FAIL for one result (and the log's tail on failure)."""
    if result.passed:
        print("PASS %s (%.1fs)" % (result.name, result.seconds))
        if result.note:
            print("    note: " + result.note)
        return
    first, *others = result.reasons
    out = ["FAIL %s: %s" % (result.name, first)]
    out += ["    also: " + r for r in others]
    if result.note:
        out.append("    note: " + result.note)
    if result.stderr.strip():
        out.append("    --- QEMU stderr ---")
        out += ["    " + l for l in result.stderr.strip().splitlines()[-10:]]
    if result.log_path:
        tail = result.log.rstrip("\n").splitlines()[-TAIL_LINES:]
        out.append("    --- last %d lines of %s ---" % (len(tail), result.log_path))
        out += ["    | " + l for l in tail]
    print("\n".join(out))


# ---------------------------------------------------------------------------
# Self-test: the parser, command builder, cleaner and judge on canned input
# ---------------------------------------------------------------------------

CLOSING_OK = "TEST boot.banner PASS\nTEST boot.cmdline PASS\n2 passed, 0 failed\n"


class SelfTest(unittest.TestCase):

    def scn(self, text):
        return parse_scenario(text, "t")

    # --- parsing ---------------------------------------------------------

    def test_defaults(self):
        s = self.scn("# A boot test.\n# Second line.\n\nexpect: ^Spindle\n")
        self.assertEqual((s.machine, s.memory, s.timeout, s.exit),
                         ("q35", "128M", 60.0, "pass"))
        self.assertEqual(s.description, "A boot test. Second line.")

    def test_all_keys(self):
        s = self.scn("machine: pc\nmemory: 256M\ntimeout: 3.5\nexit: fail\n"
                     "cmdline: test=boot\ncmdline: dm-mod.create=\"a,,,,0 8 linear 8:0 0\"\n"
                     "init: echo hi\ninit: exit 0\n"
                     "disk: a size=64M\n"
                     "disk: b if=ide index=3 size=1G prep=echo 'x=1' | sfdisk {img} && true\n"
                     "qemu: -device piix3-ide,id=p2 -name 'a b'\n"
                     "expect: ^Spindle \nreject: oops\n")
        self.assertEqual((s.machine, s.memory, s.timeout, s.exit), ("pc", "256M", 3.5, "fail"))
        self.assertEqual(s.cmdline[1], 'dm-mod.create="a,,,,0 8 linear 8:0 0"')
        self.assertEqual(s.init, ["echo hi", "exit 0"])
        a, b = s.disks
        self.assertEqual((a.iface, a.index, a.size), ("ide", 0, "64M"))
        self.assertEqual((b.iface, b.index), ("ide", 3))
        self.assertEqual(b.prep, "echo 'x=1' | sfdisk {img} && true")
        self.assertEqual(s.qemu_args, ["-device", "piix3-ide,id=p2", "-name", "a b"])
        self.assertEqual([e.regex for e in s.expects], ["^Spindle"])
        self.assertEqual(s.rejects[0].line, 13)

    def test_index_allocation_skips_cd(self):
        s = self.scn("disk: a size=1M\ndisk: b size=1M\ndisk: c size=1M index=0\n"
                     "disk: d size=1M if=ide\n")
        self.assertEqual([(d.iface, d.index) for d in s.disks],
                         [("ahci", 1), ("ahci", 3), ("ahci", 0), ("ide", 0)])
        s = self.scn("machine: pc\ncdrom: 3\ndisk: a size=1M\ndisk: b size=1M\ndisk: c size=1M\n")
        self.assertEqual([d.index for d in s.disks], [0, 1, 2])

    def test_errors(self):
        bad = {
            "colour: red": "unknown key",
            "machine: isapc": "machine must be",
            "machine: pc\nmachine: q35": "given twice",
            "timeout: 0": "positive",
            "exit: maybe": "exit must be",
            "memory: lots": "bad memory",
            "expect: (": "bad regex",
            "disk: a": "needs size=",
            "disk: a size=12Q": "bad size",
            "disk: 1a size=1M": "bad disk id",
            "disk: a size=1M if=scsi": "if must be",
            "disk: a driver=null-co": "needs size=",
            "disk: a size=1M driver=blkdebug": "needs config=",
            "disk: a size=1M index=2": "taken by the boot CD",
            "disk: a size=1M index=6": "out of range",
            "disk: a size=1M\ndisk: a size=1M": "used twice",
            "machine: pc\n" + "".join("disk: d%d size=1M if=ide\n" % i for i in range(4)): "no free ide slot",
            "disk: a size=1M file=x": "set by the runner",
            "just words": "expected 'key: value'",
        }
        for text, msg in bad.items():
            with self.subTest(text=text):
                with self.assertRaises(ScenarioError) as cm:
                    self.scn(text)
                self.assertIn(msg, str(cm.exception))
        with self.assertRaises(ScenarioError) as cm:
            self.scn("\n\ntimeout: x\n")
        self.assertTrue(str(cm.exception).startswith("t:3:"))

    def test_shipped_scenarios_parse(self):
        paths = all_scenario_paths()
        self.assertTrue(paths, "no scenarios in %s" % SCENARIO_DIR)
        for p in paths:
            with self.subTest(scenario=p.name):
                load_scenario(p)

    # --- the command line --------------------------------------------------

    def cmd(self, text, **kw):
        s = self.scn(text)
        return qemu_command(s, Path("/i/spindle.iso"), Path("/w"), Path("/w/serial.raw"), **kw)

    def test_command_pc(self):
        c = self.cmd("machine: pc\ncmdline: test=boot\n"
                     "disk: a size=1M index=0\ndisk: n driver=null-co size=1G latency-ns=5000\n"
                     "disk: s size=1M if=ahci\n")
        line = " ".join(c)
        self.assertEqual(c[:5], ["qemu-system-x86_64", "-M", "pc", "-m", "128M"])
        self.assertIn("-accel tcg", line)
        self.assertIn("-device isa-debug-exit,iobase=0xf4,iosize=4", line)
        self.assertIn("-drive file=/i/spindle.iso,media=cdrom,if=ide,index=2", line)
        self.assertIn("-drive file=/w/a.img,format=raw,if=ide,index=0", line)
        self.assertIn("-drive driver=null-co,size=1G,latency-ns=5000,if=ide,index=1", line)
        self.assertIn("-device ahci,id=ahci", line)
        self.assertIn("-device ide-hd,drive=disk-s,bus=ahci.0", line)
        self.assertIn("-fw_cfg name=opt/spindle/cmdline,file=/w/cmdline", line)
        self.assertNotIn("init.sh", line)

    def test_command_nvme(self):
        c = self.cmd("disk: a size=1M\ndisk: n size=1M if=nvme serial=ab,c\n"
                     "disk: m size=2M if=nvme\n")
        line = " ".join(c)
        self.assertIn("-device ide-hd,drive=disk-a,bus=ide.0", line)
        self.assertIn("-drive if=none,id=disk-n,file=/w/n.img,format=raw "
                      "-device nvme,drive=disk-n,serial=ab,,c", line)
        self.assertIn("-device nvme,drive=disk-m,serial=m", line)
        self.assertLess(line.index("disk-n"), line.index("disk-m"))
        c = self.cmd("disk: n size=1M if=nvme\ndisk: o size=1M if=nvme ns=n\n")
        self.assertIn("-device nvme,drive=disk-n,serial=n,id=nvme-n -drive if=none,id=disk-o,"
                      "file=/w/o.img,format=raw -device nvme-ns,drive=disk-o,bus=nvme-n",
                      " ".join(c))
        for text, err in {"disk: a size=1M if=nvme index=0": "no index",
                          "disk: a size=1M if=nvme ns=a": "names no earlier",
                          "disk: a size=1M\ndisk: b size=1M if=nvme ns=a": "names no earlier",
                          "disk: a size=1M if=nvme\ndisk: b size=1M if=nvme ns=a serial=x": "ns= is for",
                          "disk: a size=1M if=ahci serial=x": "serial= is for"}.items():
            with self.assertRaisesRegex(ScenarioError, err):
                self.scn(text + "\n")

    def test_command_q35(self):
        c = self.cmd("disk: a size=1M\ndisk: h size=1M if=ide index=3\n"
                     "disk: x size=1M bus=my.0\n"
                     "disk: e size=1M driver=blkdebug config=r.conf\ninit: true\n"
                     "qemu: -device piix3-ide,id=my -drive file={dir}/x,if=none,id=q\n",
                     qemu_bin="/opt/q", accel="kvm")
        line = " ".join(c)
        self.assertEqual(c[0], "/opt/q")
        self.assertIn("-accel kvm", line)
        self.assertIn("-drive if=none,id=cd,file=/i/spindle.iso,media=cdrom "
                      "-device ide-cd,drive=cd,bus=ide.2", line)
        self.assertIn("-drive if=none,id=disk-a,file=/w/a.img,format=raw "
                      "-device ide-hd,drive=disk-a,bus=ide.0", line)
        self.assertIn("-device piix3-ide,id=pide", line)
        self.assertIn("-device ide-hd,drive=disk-h,bus=pide.1,unit=1", line)
        self.assertIn("-device ide-hd,drive=disk-x,bus=my.0", line)
        self.assertIn("file=blkdebug:%s/r.conf:/w/e.img,format=raw" % SCENARIO_DIR, line)
        self.assertIn("-device ide-hd,drive=disk-e,bus=ide.1", line)
        self.assertIn("-fw_cfg name=opt/spindle/init.sh,file=/w/init.sh", line)
        self.assertIn("-drive file=/w/x,if=none,id=q", line)
        self.assertNotIn("opt/spindle/cmdline", line)

    def test_commas_in_paths_are_doubled(self):
        s = self.scn("cmdline: a=b,c\n")
        c = qemu_command(s, Path("/x,y.iso"), Path("/w,1"), Path("/w,1/serial.raw"))
        self.assertIn("name=opt/spindle/cmdline,file=/w,,1/cmdline", c)
        self.assertIn("file,id=serial0,path=/w,,1/serial.raw", c)
        self.assertIn("if=none,id=cd,file=/x,,y.iso,media=cdrom", c)

    # --- cleaning the log --------------------------------------------------

    def test_clean_log(self):
        raw = (b"\x1b[H\x1b[J\x1b[1;1H\x1b[H\x1b[J\x1b[1;1H  Booting `Spindle'\r\n\r\n"
               b"\rSpindle 0.1 x86_64\r\n\x1b[0;37;40mcolour\x1b[0m\x1b(B\x1b7 ok\r\n"
               b"menu\x1b[5;3Hitem\x00\x07\r\n\x1b]0;title\x07tail")
        self.assertEqual(clean_log(raw),
                         "  Booting `Spindle'\n\nSpindle 0.1 x86_64\ncolour ok\n"
                         "menu\nitem\ntail")

    def test_timestamps_removed_for_matching(self):
        log = "[    0.000000] Spindle 0.1\n[   12.345678] TEST a.b PASS\nplain [1.0] kept\n"
        self.assertEqual(message_text(log), "Spindle 0.1\nTEST a.b PASS\nplain [1.0] kept\n")

    # --- judging -----------------------------------------------------------

    BOOT = "exit: pass\nexpect: ^Spindle \\S\nexpect: Command line: .*test=boot\n"
    LOG = "  Booting `Spindle'\nSpindle 0.1\nCommand line: test=boot\n" + CLOSING_OK

    def judge(self, scn_text, outcome, log, stderr=""):
        return judge(self.scn(scn_text), outcome, log, stderr)

    def test_pass(self):
        self.assertEqual(self.judge(self.BOOT, "pass", self.LOG), [])
        skipped = self.LOG.replace("2 passed, 0 failed\n",
                                   "TEST x.y SKIP: no disk\n2 passed, 0 failed, 1 skipped\n")
        self.assertEqual(self.judge(self.BOOT, "pass", skipped), [])
        stamped = "".join("[    0.%06d] %s\n" % (i, l)
                          for i, l in enumerate(self.LOG.splitlines()))
        self.assertEqual(self.judge(self.BOOT, "pass", stamped), [])

    def test_fail_line(self):
        log = self.LOG.replace("TEST boot.cmdline PASS", "TEST boot.cmdline FAIL: no fw_cfg")
        r = self.judge(self.BOOT, "pass", log)
        self.assertIn("test failed: TEST boot.cmdline FAIL: no fw_cfg", r)
        self.assertTrue(any("says 2 passed but the log has 1" in x for x in r), r)

    def test_failed_count(self):
        log = self.LOG.replace("0 failed", "1 failed")
        self.assertTrue(any("reports 1 failed" in x for x in
                            self.judge(self.BOOT, "pass", log)))

    def test_two_runs_each_closed(self):
        two = CLOSING_OK + "TEST user.a PASS\n1 passed, 0 failed\n"
        self.assertEqual(self.judge("", "pass", two), [])
        r = self.judge("", "pass", CLOSING_OK + "TEST user.a PASS\n2 passed, 0 failed\n")
        self.assertEqual(r, ["closing line says 2 passed but the log has 1 such TEST lines"])
        r = self.judge("", "pass", CLOSING_OK + "TEST user.a PASS\n")
        self.assertIn("no closing line", r[0])

    def test_missing_closing_line(self):
        log = self.LOG.replace("2 passed, 0 failed\n", "")
        r = self.judge(self.BOOT, "pass", log)
        self.assertEqual(len(r), 1)
        self.assertIn("no closing line", r[0])
        # A closing line before the last TEST line does not count either.
        log = self.LOG.replace(CLOSING_OK, "1 passed, 0 failed\nTEST a.b PASS\n")
        self.assertIn("no closing line", self.judge(self.BOOT, "pass", log)[0])

    def test_no_test_lines_no_closing_needed(self):
        log = "Spindle 0.1\nCommand line: test=boot\n"
        self.assertEqual(self.judge(self.BOOT, "pass", log), [])

    def test_panic(self):
        log = self.LOG + "PANIC: page fault at 0xdead\n"
        r = self.judge(self.BOOT, "pass", log)
        self.assertEqual(r, ["panic: PANIC: page fault at 0xdead"])
        r = self.judge(self.BOOT, "panic", log)
        self.assertIn("kernel panicked (QEMU status 5); expected exit: pass", r[0])
        fault = "exit: fail\nexpect: ^PANIC: \n"
        self.assertEqual(self.judge(fault, "panic", log), [])
        self.assertEqual(self.judge(fault, "fail", log), [])
        self.assertEqual(len(self.judge(fault, "pass", log)), 1)
        self.assertEqual(len(self.judge(fault, "panic", self.LOG)), 1)   # no PANIC: line

    def test_timeout(self):
        r = self.judge("timeout: 3\nexit: any\n", "timeout", "")
        self.assertEqual(r, ["timed out after 3s: QEMU killed; expected exit: any"])

    def test_expected_hang(self):
        scn = "timeout: 3\nexit: timeout\nexpect: ^INFO: task init:1 blocked\n"
        log = "Spindle 0.1\nINFO: task init:1 blocked for more than 2 seconds.\n"
        self.assertEqual(self.judge(scn, "timeout", log), [])
        r = self.judge(scn, "timeout", "Spindle 0.1\n")
        self.assertEqual(r, ["expect (line 3) not found: ^INFO: task init:1 blocked"])
        r = self.judge(scn, "pass", log)
        self.assertIn("kernel reported success (QEMU status 1); expected exit: timeout", r[0])
        self.assertEqual(len(self.judge(scn, "panic", log + "PANIC: x\n")), 1)

    def test_other_outcomes(self):
        self.assertEqual(self.judge("exit: poweroff\n", "poweroff", ""), [])
        self.assertEqual(self.judge("exit: any\n", "poweroff", ""), [])
        self.assertEqual(len(self.judge("exit: pass\n", "poweroff", "")), 1)
        r = self.judge("exit: any\n", "qemu-error", "", "qemu-system-x86_64: -drive x: nope\n")
        self.assertIn("QEMU did not start: qemu-system-x86_64: -drive x: nope", r[0])
        self.assertIn("signal 9", self.judge("exit: any\n", "status -9", "")[0])

    def test_outcome_of(self):
        self.assertEqual(outcome_of(1, False), "pass")
        self.assertEqual(outcome_of(3, False), "fail")
        self.assertEqual(outcome_of(5, False), "panic")
        self.assertEqual(outcome_of(0, False), "poweroff")
        self.assertEqual(outcome_of(-9, True), "timeout")
        self.assertEqual(outcome_of(7, False), "status 7")
        self.assertEqual(outcome_of(1, False, "qemu-system-x86_64: warning: TCG doesn't "
                                    "support requested feature\n"), "pass")
        self.assertEqual(outcome_of(1, False, "qemu-system-x86_64: -m x: bad\n"), "qemu-error")
        self.assertEqual(outcome_of(1, False, "qemu-system-x86_64: aio failed: "
                                    "Input/output error\n"), "pass")

    def test_cdrom_on_the_other_controller(self):
        line = " ".join(self.cmd("machine: pc\ncdrom: ahci:0\n" +
                                 "".join("disk: d%d size=1M if=ide index=%d\n" % (i, i)
                                         for i in range(4))))
        self.assertIn("-device ahci,id=ahci", line)
        self.assertIn("-device ide-cd,drive=cd,bus=ahci.0", line)
        self.assertIn("if=ide,index=2", line)          # hdc is a disk now
        with self.assertRaises(ScenarioError):
            self.scn("machine: pc\ncdrom: scsi:0\n")
        with self.assertRaises(ScenarioError):
            self.scn("machine: pc\ncdrom: ahci:0\ndisk: a size=1M if=ahci index=0\n")

    def test_typing(self):
        s = self.scn("type: ^/ # $ => echo hi\\n\ntype: sleep => \\x03\n")
        self.assertEqual([d for _, d in s.typing], [b"echo hi\n", b"\x03"])
        line = " ".join(self.cmd("type: x => y\n"))
        self.assertIn("-chardev socket,id=serial0,path=/w/serial.sock,server=on,wait=on ", line)
        self.assertNotIn("logfile=", line)      # the runner writes the log itself
        for bad in ("type: no arrow\n", "type: x => \\q\n", "type: ( => x\n"):
            with self.assertRaises(ScenarioError):
                self.scn(bad)

    def test_checks(self):
        scn = self.scn("check: test -d {dir} && grep -q hello {log}\n"
                       "check: echo 'the image is wrong'; exit 3\n"
                       "check: grep -q absent {log}\n")
        self.assertEqual(len(scn.checks), 3)
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "t.log"
            log.write_text("hello\n")
            r = run_checks(scn, Path(tmp), log)
        self.assertEqual(len(r), 2)
        self.assertIn("check exited 3", r[0])
        self.assertIn("the image is wrong", r[0])
        # the failing command as it ran: its placeholders filled in
        self.assertIn("grep -q absent %s" % log, r[1])
        self.assertNotIn("{log}", r[1])
        with self.assertRaises(ScenarioError):
            self.scn("check:\n")

    def test_outside_tools(self):
        """tools/pattern-check.py and tools/partcheck.py, the checks' oracles."""
        def tool(*args):
            return subprocess.run([sys.executable, str(ROOT / "tools" / args[0])] +
                                  [str(a) for a in args[1:]], capture_output=True, text=True)
        def splitmix64(x):
            m = (1 << 64) - 1
            z = (x + 0x9E3779B97F4A7C15) & m
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
            return z ^ (z >> 31)
        with tempfile.TemporaryDirectory() as tmp:
            img = Path(tmp) / "d.img"
            with open(img, "wb") as f:
                f.truncate(4 << 20)
                f.seek(1 << 20)
                k0 = (1 << 20) // 8
                f.write(b"".join(splitmix64(7 + k0 + i).to_bytes(8, "little")
                                 for i in range(512)))
            self.assertEqual(tool("pattern-check.py", img, "1M", 4096, 7).returncode, 0)
            self.assertEqual(tool("pattern-check.py", img, "1M", 4096, 8).returncode, 1)
            self.assertEqual(tool("pattern-check.py", img, "1M", 4104, 7).returncode, 1)
            self.assertEqual(tool("pattern-check.py", img, "2M", 4096, 7, "--zero").returncode, 0)
            # stripe 1 of 2, 4 KiB chunks, at 3 MiB: its chunk j is chunk
            # 2j + 1 of the striped device
            with open(img, "r+b") as f:
                f.seek(3 << 20)
                for j in range(4):
                    k0 = ((2 * j + 1) * 4096) // 8
                    f.write(b"".join(splitmix64(9 + k0 + i).to_bytes(8, "little")
                                     for i in range(512)))
            striped = ("--base=3M", "--stripe=2:1:4K")
            self.assertEqual(tool("pattern-check.py", img, 0, "16K", 9, *striped).returncode, 0)
            self.assertEqual(tool("pattern-check.py", img, "4K", "8K", 9, *striped).returncode, 0)
            self.assertEqual(tool("pattern-check.py", img, 0, "16K", 9, "--base=3M",
                                  "--stripe=2:0:4K").returncode, 1)
            self.assertEqual(tool("pattern-check.py", img, 0, "16K", 9, "--base=3M",
                                  "--stripe=2:1:8K").returncode, 1)
            self.assertEqual(tool("pattern-check.py", img, 0, "16K", 9, "--base=3M").returncode, 1)
            self.assertEqual(tool("pattern-check.py", img, 0, "16K", 9,
                                  "--stripe=2:2:4K").returncode, 2)
            self.assertEqual(tool("pattern-check.py", img, 0, "16K", 9,
                                  "--stripe=2:1").returncode, 2)
            if shutil.which("sfdisk") or Path("/sbin/sfdisk").exists():
                env = dict(os.environ, PATH=os.environ.get("PATH", "") + ":/sbin:/usr/sbin")
                subprocess.run(["sfdisk", "-q", str(img)], input="label: dos\n,1MiB\n,,E\n,1MiB\n",
                               text=True, check=True, env=env, capture_output=True)
                log = Path(tmp) / "t.log"
                table = ("==> /proc/partitions <==\nmajor minor  #blocks  name\n\n"
                         "   8        0       4096 sda\n   8        1       1024 sda1\n"
                         "   8        2          1 sda2\n")
                log.write_text(table + "   8        5       1024 sda5\n")
                self.assertEqual(tool("partcheck.py", img, "sda", log).returncode, 0)
                log.write_text(table)
                r = tool("partcheck.py", img, "sda", log)
                self.assertEqual(r.returncode, 1)
                self.assertIn("sda5", r.stdout)

    def test_trace_report(self):
        """tools/trace-report.py: counts and latencies from blkparse lines."""
        lines = ["[    1.0]   8,0    0        1     0.000000000     1  Q   W 0 + 8 [a]",
                 "  8,0    0        2     0.000100000     1  G   W 0 + 8 [a]",
                 "  8,0    0        3     0.000200000     1  Q   W 8 + 8 [a]",
                 "  8,0    0        4     0.000300000     1  M   W 8 + 8 [a]",
                 "  8,0    0        5     0.000400000     1 UT   N [a] 1",
                 "  8,0    0        6     0.001000000     1  D   W 0 + 16 [a]",
                 "  8,0    0        7     0.003000000     2  C   W 0 + 16 [0]",
                 "  8,0    0        8     0.004000000     1  Q   R 100 + 8 [a]",
                 "  8,0    0        9     0.005000000     1  D   R 100 + 8 [a]",
                 "  8,0    0       10     0.006000000     1  D   R 50 + 8 [a]",
                 "  8,16   0        1     0.000000000     1  Q   R 0 + 8 [a]",
                 "not a trace line"]
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "t.log"
            log.write_text("\n".join(lines) + "\n")
            r = subprocess.run([sys.executable, str(ROOT / "tools" / "trace-report.py"),
                                str(log), "--dev", "8,0"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = {l.split()[0]: l.split() for l in r.stdout.splitlines()[1:3]}
        # W: 2 queued, 1 merged, 1 request, 1 completed, q2c (3.0 + 2.8)/2 ms, d2c 2 ms
        self.assertEqual(rows["W"][1:5], ["2", "1", "1", "1"])
        self.assertEqual(rows["W"][5:], ["2900.0", "2000.0"])
        self.assertEqual(rows["R"][1:5], ["1", "0", "2", "0"])
        self.assertIn("dispatch order: 3 requests, 1 descents", r.stdout)

    def test_expect_order_and_reject(self):
        scn = "expect: ^Command line\nexpect: ^Spindle[ ]\nreject: TEST boot\\.banner\n"
        r = self.judge(scn, "pass", self.LOG)
        self.assertEqual(len(r), 2, r)
        self.assertIn("not found after the previous expect (it appears earlier): ^Spindle[ ]", r[0])
        self.assertIn("reject (line 3) matched: TEST boot.banner PASS", r[1])
        r = self.judge("expect: ^nothing$\n", "pass", self.LOG)
        self.assertEqual(r, ["expect (line 1) not found: ^nothing$"])

    def test_enosys(self):
        gap = "sys_247 (waitid) not implemented, called by sh[12]\n"
        odd = "[    1.000000] 3 filessys_9999 (unknown) not implemented, called by usertest[7]\n"
        # none allowed: each line is a reason, and fails even exit: any
        r = self.judge("", "pass", self.LOG + gap)
        self.assertEqual(len(r), 1, r)
        self.assertIn("system call not implemented", r[0])
        self.assertIn("sys_247 (waitid) not implemented, called by sh[12]", r[0])
        self.assertEqual(len(self.judge("exit: any\n", "pass", self.LOG + odd)), 1)
        # allowed from anyone, or from the programs named only
        self.assertEqual(self.judge("enosys: allowed\n", "pass", self.LOG + gap + odd), [])
        self.assertEqual(self.judge("enosys: usertest fuzz\n", "pass", self.LOG + odd), [])
        r = self.judge("enosys: usertest\n", "pass", self.LOG + gap + odd)
        self.assertEqual(len(r), 1, r)
        self.assertIn("called by sh[12]", r[0])
        self.assertNotIn("usertest", r[0])
        self.assertEqual(self.scn("enosys: a b\n").enosys, ["a", "b"])
        for bad in ("enosys:\n", "enosys: allowed sh\n", "enosys: a\nenosys: b\n"):
            self.assertRaises(ScenarioError, self.scn, bad)

    # --- a real QEMU: the timeout kill -------------------------------------

    def test_qemu_timeout_kill(self):
        """Boot QEMU with an empty 'CD': SeaBIOS finds nothing to boot and
        idles, so the runner must kill it at the timeout."""
        qemu = os.environ.get("QEMU", "qemu-system-x86_64")
        if not shutil.which(qemu):
            self.skipTest("%s not installed" % qemu)
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            (tmp / "empty.iso").write_bytes(b"")
            scn = self.scn("timeout: 2\nexit: any\ncmdline: a,b\ndisk: a size=1M "
                           "prep=printf x > {img}.note && test -f {img}\n")
            scn.name = "selftest-timeout"
            cfg = Config(iso=tmp / "empty.iso", build_dir=tmp, qemu=qemu)
            r = run_scenario(scn, cfg)
            self.assertEqual(r.reasons, ["timed out after 2s: QEMU killed; expected exit: any"],
                             r.stderr)
            self.assertLess(r.seconds, 10)
            self.assertEqual((tmp / "selftest-timeout" / "cmdline").read_text(), "a,b")
            self.assertTrue((tmp / "selftest-timeout" / "a.img.note").exists())
            self.assertTrue((tmp / "selftest-timeout.log").exists())
            self.assertFalse(_running)

    def test_qemu_crash_boots_again(self):
        """A QEMU that dies of SIGSEGV on its first boot: the runner says
        so, keeps that log, and judges the second boot."""
        qemu = os.environ.get("QEMU", "qemu-system-x86_64")
        if not shutil.which(qemu):
            self.skipTest("%s not installed" % qemu)
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            (tmp / "empty.iso").write_bytes(b"")
            fake = tmp / "crashing-qemu"
            fake.write_text("#!/bin/sh\n[ -e %s ] || { touch %s; kill -SEGV $$; }\nexec %s \"$@\"\n"
                            % (tmp / "once", tmp / "once", shutil.which(qemu)))
            fake.chmod(0o755)
            scn = self.scn("timeout: 2\nexit: any\n")
            scn.name = "selftest-crash"
            cfg = Config(iso=tmp / "empty.iso", build_dir=tmp, qemu=str(fake))
            r = run_scenario(scn, cfg)
            self.assertEqual(r.reasons, ["timed out after 2s: QEMU killed; expected exit: any"])
            self.assertIn("QEMU died of signal 11 on the first boot", r.note)
            self.assertTrue((tmp / "selftest-crash.qemu-crash.log").exists())
            self.assertEqual(r.qemu_signal, 0)


def selftest():
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(SelfTest)
    result = unittest.TextTestRunner(verbosity=1).run(suite)
    return 0 if result.wasSuccessful() else 1


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

def select(patterns, paths):
    """Scenario paths whose name matches one of patterns (names or globs;
    'boot-pc', 'boot-pc.scn' and tests/qemu/scenarios/boot-pc.scn all do;
    a path to a .scn file elsewhere, e.g. labs/03-plug/lab3-plug.scn, runs it)."""
    if not patterns:
        return paths
    chosen = []
    for pat in patterns:
        if pat.endswith(".scn") and Path(pat).is_file() and \
                Path(pat).resolve().parent != SCENARIO_DIR:
            chosen.append(Path(pat).resolve())      # a scenario kept elsewhere (labs/)
            continue
        pat = Path(pat).name
        if pat.endswith(".scn"):
            pat = pat[:-4]
        hits = [p for p in paths if fnmatch.fnmatchcase(p.stem, pat)]
        if not hits:
            print("run.py: no scenario matches %r (see --list)" % pat, file=sys.stderr)
            return None
        chosen += [p for p in hits if p not in chosen]
    return chosen


def interrupt(signum, frame):
    """SIGTERM (make or CI giving up) ends the run like Ctrl-C does."""
    raise KeyboardInterrupt


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Boot Spindle in QEMU for each scenario and judge the serial log.",
        epilog="Scenario format: see the top of this file or tests/qemu/README.md.")
    ap.add_argument("scenarios", nargs="*", metavar="NAME",
                    help="scenario names or globs (default: all)")
    ap.add_argument("-j", dest="jobs", type=int, default=1, metavar="N",
                    help="run N guests in parallel (default 1)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="stream each guest's serial output live (needs -j 1)")
    ap.add_argument("--list", action="store_true", help="list the scenarios and exit")
    ap.add_argument("--iso", type=Path, default=DEFAULT_ISO,
                    help="the ISO to boot (default build/spindle.iso)")
    ap.add_argument("--selftest", action="store_true",
                    help="test the runner itself, on canned logs")
    ap.add_argument("--replay", type=Path, metavar="DIR",
                    help="replay the recorded run kept in DIR (build/qemu/<name>)")
    ap.add_argument("--cpus", type=int, metavar="N", default=0,
                    help="CPUs for every scenario without a cpus: or -smp line of "
                         "its own (default %d)" % DEFAULT_CPUS)
    ap.add_argument("--kargs", metavar="OPTIONS", default=os.environ.get("KARGS", ""),
                    help="kernel options added to every scenario's command line, "
                         "e.g. 'slab_debug=1 lockdep=1' (default: $KARGS)")
    ap.add_argument("--reject", metavar="REGEX", action="append", default=[],
                    help="a reject: line added to every scenario (may repeat)")
    args = ap.parse_args(argv)

    if args.selftest:
        return selftest()
    if args.replay:
        return replay(args.replay, Config(iso=args.iso.resolve(),
                                          qemu=os.environ.get("QEMU") or "qemu-system-x86_64"))
    if args.jobs < 1:
        ap.error("-j needs a positive number")
    if args.verbose and args.jobs > 1:
        ap.error("-v streams one guest at a time: use it with -j 1")

    paths = select(args.scenarios, all_scenario_paths())
    if paths is None:
        return 2
    if not paths:
        print("run.py: no scenarios in %s" % SCENARIO_DIR, file=sys.stderr)
        return 2

    # Parse everything first: a broken scenario file fails as that scenario.
    scenarios, results = [], []
    for p in paths:
        try:
            scenarios.append(load_scenario(p))
        except ScenarioError as e:
            if args.list:
                print("%-20s (error: %s)" % (p.stem, e))
            results.append(Result(p.stem, ["bad scenario file: %s" % e]))
    if args.cpus:
        if not 1 <= args.cpus <= MAX_CPUS:
            ap.error("--cpus: 1 to %d" % MAX_CPUS)
        for s in scenarios:
            if s.cpus is None:
                s.cpus = args.cpus
    if args.kargs.strip():
        # after the scenario's own options; each debug option reads its last
        for s in scenarios:
            s.cmdline.append(args.kargs.strip())
    for regex in args.reject:
        try:
            pattern = re.compile(regex, re.MULTILINE)
        except re.error as e:
            ap.error("--reject: bad regex %r: %s" % (regex, e))
        for s in scenarios:
            s.rejects.append(Expectation(regex, pattern, 0))
    if args.list:
        for s in scenarios:
            print("%-20s %-4s %s" % (s.name, s.machine, s.description))
        return 0

    cfg = Config(iso=args.iso.resolve(),
                 qemu=os.environ.get("QEMU") or "qemu-system-x86_64",
                 accel="kvm" if os.environ.get("ACCEL") == "kvm" else "tcg",
                 verbose=args.verbose, record=os.environ.get("RECORD") == "1")
    try:
        cfg.timeout_scale = float(os.environ.get("TIMEOUT_SCALE") or 1)
    except ValueError:
        ap.error("TIMEOUT_SCALE must be a number")
    if not cfg.iso.is_file():
        print("run.py: %s not found: build it with 'make' first" % cfg.iso, file=sys.stderr)
        return 2
    if not shutil.which(cfg.qemu):
        print("run.py: %s not found (apt-get install qemu-system-x86)" % cfg.qemu,
              file=sys.stderr)
        return 2
    cfg.build_dir.mkdir(parents=True, exist_ok=True)

    for r in results:
        report(r)
    signal.signal(signal.SIGTERM, interrupt)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs)
    try:
        futures = [pool.submit(run_scenario, s, cfg) for s in scenarios]
        for f in concurrent.futures.as_completed(futures):
            r = f.result()
            results.append(r)
            report(r)
            sys.stdout.flush()
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        with _running_lock:
            _stopping.set()
            for proc in list(_running):
                kill_group(proc)
        print("\ninterrupted", file=sys.stderr)
        return 130
    pool.shutdown()

    passed = sum(r.passed for r in results)
    print("%d passed, %d failed" % (passed, len(results) - passed))
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
