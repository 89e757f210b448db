#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
r"""Tests of the GDB helpers (tools/gdb/spindle.py) on a halted kernel.

Where it sits: `make test-gdb` (and so `make test`) runs it after the
kernel is built.  Each case, tests/gdb/<name>.gdb, boots a QEMU scenario
-- a .scn file in the format of tests/qemu/run.py, whose parser and QEMU
command line this script borrows -- under GDB, stops it at a breakpoint
on a known function, runs the helpers, and judges what they print.

Usage
    tests/gdb/run.py                 every case, and the constants check
    tests/gdb/run.py lab5-fifo-hangs the cases named

The constants check: the few #defines the helpers repeat (task states,
REQ_* and BIO_* flags) and the kernel's list of sleep primitives
(kernel/sched/debug.c) must be the kernel's own, read from the sources.

A case file is a GDB script whose leading comment lines carry the test:

    # scenario: <path of a .scn, from the repository root>
    # expect: <regex>        * must match a line of GDB's output, each
    #                          after the previous one's (in order)
    # reject: <regex>        * must match no line of GDB's output
    # log: <regex>           * must match a line of the guest's serial log
    #                          (the kernel's own account, as a cross-check)
    # sorted: <title>        * the list sp-elv prints as "<title>: N
    #                          request(s)" must have N lines after it, their
    #                          sectors in rising order (checked here, from
    #                          the text, not by the helper)
    # timeout: <seconds>       for the whole GDB run (default 120)

The rest of the file is GDB commands; a `continue` to a breakpoint is how
a case waits for the state it looks at, never a sleep.  The runner starts
GDB as

    gdb -batch -nx -ex 'file build/spindle.elf' -x tools/gdb/spindle.py \
        -ex 'target remote | exec qemu-system-x86_64 -S -gdb stdio ...' \
        -x <case>.gdb -ex kill

GDB starts QEMU itself and talks to its stub over a pipe: no port to
choose, nothing to wait for before connecting.  QEMU starts halted (-S)
and runs only when the case says `continue`.  GDB's output is kept in
build/gdb/<name>.out, the serial log in build/gdb/<name>/serial.log.

Exit status 0 iff every case passed.
"""

import importlib.util
import re
import shlex
import signal
import subprocess
import sys
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BUILD = ROOT / "build" / "gdb"
ELF = ROOT / "build" / "spindle.elf"
ISO = ROOT / "build" / "spindle.iso"
HELPERS = ROOT / "tools" / "gdb" / "spindle.py"
DEFAULT_TIMEOUT = 120


def scenario_runner():
    """tests/qemu/run.py as a module: its scenario parser and QEMU line."""
    spec = importlib.util.spec_from_file_location("qemu_run", ROOT / "tests/qemu/run.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def parse_case(path):
    case = {"scenario": None, "expect": [], "reject": [], "log": [],
            "sorted": [], "timeout": DEFAULT_TIMEOUT}
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        m = re.match(r"#\s*(scenario|expect|reject|log|sorted|timeout):\s?(.*)$", line)
        if not m:
            continue
        key, value = m.group(1), m.group(2).strip()
        try:
            if key == "scenario":
                case["scenario"] = ROOT / value
            elif key == "timeout":
                case["timeout"] = float(value)
            elif key == "sorted":
                case["sorted"].append(value)
            else:
                case[key].append(re.compile(value))
        except (ValueError, re.error) as e:
            raise SystemExit("%s:%d: %s" % (path, lineno, e))
    if case["scenario"] is None:
        raise SystemExit("%s: no `# scenario:` line" % path)
    if not case["expect"]:
        raise SystemExit("%s: no `# expect:` line (a test that cannot fail)" % path)
    return case


def check_sorted(lines, title):
    """The reasons the list `title` in sp-elv's output is not N requests
    in rising sector order (empty: it is)."""
    head = re.compile(r"^\s+%s: (\d+) request\(s\)$" % re.escape(title))
    row = re.compile(r"^\s+rq 0x[0-9a-f]+\s+tag\s+-?\d+\s+\S+\s+[RWFD] (\d+)\+\d+")
    for i, line in enumerate(lines):
        m = head.match(line)
        if not m:
            continue
        n = int(m.group(1))
        sectors = []
        for rline in lines[i + 1:i + 1 + n]:
            r = row.match(rline)
            if not r:
                return ["%s: %d rows announced, found %r" % (title, n, rline)]
            sectors.append(int(r.group(1)))
        if len(sectors) != n:
            return ["%s: %d rows announced, %d printed" % (title, n, len(sectors))]
        if sectors != sorted(sectors):
            return ["%s: sectors not in rising order: %s" % (title, sectors)]
        return []
    return ["no list %r in the output" % title]


def judge(case, out, log):
    """The reasons a case failed; empty when it passed."""
    reasons = []
    lines = out.splitlines()
    pos = 0
    for rx in case["expect"]:
        for i in range(pos, len(lines)):
            if rx.search(lines[i]):
                pos = i + 1
                break
        else:
            reasons.append("expected (after GDB output line %d): %s" % (pos, rx.pattern))
            break
    for rx in case["reject"]:
        for line in lines:
            if rx.search(line):
                reasons.append("rejected line in GDB output: %s" % line)
    for title in case["sorted"]:
        reasons += check_sorted(lines, title)
    log_lines = log.splitlines()
    for rx in case["log"]:
        if not any(rx.search(line) for line in log_lines):
            reasons.append("not in the serial log: %s" % rx.pattern)
    return reasons


def run_case(qr, path):
    name = path.stem
    case = parse_case(path)
    scn = qr.load_scenario(case["scenario"])
    workdir = BUILD / name
    qr.prepare(scn, workdir)
    raw_log = workdir / "serial.raw"
    qemu = os.environ.get("QEMU") or "qemu-system-x86_64"
    cmd = qr.qemu_command(scn, ISO, workdir, raw_log, qemu)
    cmd += ["-S", "-gdb", "stdio"]
    # QEMU's own messages must not reach GDB's pipe: stdout is the stub.
    qemu_line = "exec %s 2>%s" % (" ".join(shlex.quote(a) for a in cmd),
                                  shlex.quote(str(workdir / "qemu.stderr")))
    (workdir / "qemu.cmd").write_text(qemu_line + "\n")
    gdb = ["gdb", "-batch", "-nx",
           "-ex", "set pagination off",
           "-ex", "set width 0",
           "-ex", "file " + str(ELF),
           "-x", str(HELPERS),
           "-ex", "target remote | " + qemu_line,
           "-x", str(path),
           "-ex", "kill"]
    proc = subprocess.Popen(gdb, cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=case["timeout"])
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        timed_out = True
    out = out.decode(errors="replace")
    (BUILD / (name + ".out")).write_text(out)
    log = ""
    if raw_log.exists():
        log = qr.message_text(qr.clean_log(raw_log.read_bytes()))
        (workdir / "serial.log").write_text(log)
    reasons = judge(case, out, log)
    if timed_out:
        reasons.insert(0, "GDB still running after %gs: killed" % case["timeout"])
    return name, reasons, out


def helper_constants():
    """The module-level constants of tools/gdb/spindle.py, evaluated from
    its source (it imports gdb, so it cannot be imported here)."""
    import ast
    tree = ast.parse(HELPERS.read_text())
    values = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name) and node.targets[0].id.isupper() and \
                not isinstance(node.value, ast.Dict):
            expr = ast.Expression(node.value)
            values[node.targets[0].id] = eval(compile(expr, str(HELPERS), "eval"),
                                              {"__builtins__": {}}, {})
    return values


def header_defines(path):
    """{NAME: value} of the `#define NAME <integer expression>` lines."""
    out = {}
    for m in re.finditer(r"^#define\s+([A-Z_0-9]+)\s+([0-9xu() <]+?)\s*(?:/\*.*)?$",
                         (ROOT / path).read_text(), re.M):
        try:
            out[m.group(1)] = eval(m.group(2).replace("u", ""), {"__builtins__": {}}, {})
        except SyntaxError:
            pass
    return out


def check_constants():
    """The helpers repeat a few #defines and one list of the kernel's (they
    are not in the debug information); the reasons they differ, if any."""
    c = helper_constants()
    reasons = []
    sched = header_defines("include/spindle/sched.h")
    for name in ("TASK_RUNNING", "TASK_INTERRUPTIBLE", "TASK_UNINTERRUPTIBLE",
                 "TASK_DEAD", "EXIT_ZOMBIE", "THREAD_SIZE"):
        if sched.get(name) != c[name]:
            reasons.append("%s: sched.h %s, spindle.py %s" % (name, sched.get(name), c[name]))
    types = header_defines("include/spindle/blk_types.h")
    for bit, name in c["REQ_FLAGS"]:
        if types.get("REQ_" + name) != bit:
            reasons.append("REQ_%s: blk_types.h %s, spindle.py %s" % (name, types.get("REQ_" + name), bit))
    for bit, name in c["BIO_FLAGS"]:
        if types.get("BIO_" + name) != bit:
            reasons.append("BIO_%s: blk_types.h %s, spindle.py %s" % (name, types.get("BIO_" + name), bit))
    debug = (ROOT / "kernel/sched/debug.c").read_text()
    m = re.search(r"sched_function_prefixes\[\] = \{(.*?)\};", debug, re.S)
    prefixes = tuple(re.findall(r'"([^"]+)"', m.group(1))) if m else None
    if prefixes != c["SCHED_PREFIXES"]:
        reasons.append("sched_function_prefixes: debug.c %s, spindle.py %s"
                       % (prefixes, c["SCHED_PREFIXES"]))
    return reasons


def main(argv):
    if not ELF.exists() or not ISO.exists():
        print("tests/gdb: build the kernel first (make)", file=sys.stderr)
        return 2
    cases = sorted(HERE.glob("*.gdb"))
    if argv:
        cases = [c for c in cases if c.stem in argv]
        if len(cases) != len(argv):
            print("tests/gdb: no such case among %s" % argv, file=sys.stderr)
            return 2
    BUILD.mkdir(parents=True, exist_ok=True)
    qr = scenario_runner()
    failed = 0
    if not argv:
        reasons = check_constants()
        print("%s gdb/constants%s" % ("FAIL" if reasons else "PASS",
                                       ": " + "; ".join(reasons) if reasons else ""))
        failed += bool(reasons)
    for path in cases:
        name, reasons, out = run_case(qr, path)
        if reasons:
            failed += 1
            print("FAIL gdb/%s: %s" % (name, reasons[0]))
            for r in reasons[1:]:
                print("    " + r)
            print("  --- GDB output (build/gdb/%s.out), last lines ---" % name)
            for line in out.splitlines()[-30:]:
                print("  " + line)
        else:
            print("PASS gdb/%s" % name)
    total = len(cases) + (0 if argv else 1)
    print("%d passed, %d failed" % (total - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
