#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
r"""Grade Spindle's labs: a line per test with its points, then `Score: X/Y`.

    make grade                 in a student's tree: that tree's lab;
                               in the reference tree: every lab
    make grade LAB=3           one lab (LAB=3,5 several)
    tools/grade.py --json F    also write the verdicts as JSON (the class grader)
    tools/grade.py --until-caught   cheapest test first, stop at the first not OK
                               (tools/test-labs.py's mutants: what caught one)
    tools/grade.py --boots 3   every lab's unit tests, but only lab 3's boots: the
                               others' boot tests say SKIP (tools/test-labs.py's
                               skeletons)

Where it sits: each lab's folder holds `grade`, its grading definition, one
test a line:

    <points> unit <program> <test> [<test>...]   Check tests of build/unit/<program>
                                                 (names or globs; all must pass)
    <points> scenario <name>                     a QEMU scenario: labs/NN-name/<name>.scn,
                                                 else tests/qemu/scenarios/<name>.scn
    <points> ktest <name> <suite.case> [...]     in-kernel test cases, by their TEST
                                                 lines in that scenario's log (one boot
                                                 serves every line that names it)
    uses <lab> [<lab>...]                        these tests also run code another lab
                                                 removes (that lab's skeleton may fail
                                                 them; tools/test-labs.py allows it)

The grader builds the tree (kernel, initramfs, unit-test programs), runs
each Check program once with CK_VERBOSITY=verbose and reads one verdict per
test, boots each scenario with tests/qemu/run.py's own functions, and
prints, per test, OK / FAIL / TIMEOUT with the time it took and its points.
A failing line names its log and says what is wrong on its own: a Check
test's whole message (its got/want lines too), an assertion as its test
wrote it, a boot's first reason and first unseen `expect:` line; a tree
that does not build gets the compiler's first error, quoted, once.  One
lab graded also shows the student's answers-labN.txt (words) and time.txt
(hours), which earn no points; --json records them for the class grader.
The exit status is 0 only at full marks.  `tools/grade.py --selftest`
checks these lines against made-up logs and sources.

It does not trust the tree it grades: in a student's tree (one with .lab/,
written by tools/mklab.py) every file of the manifest -- the grading
definitions, the tests, the tools that judge -- is compared with its
SHA-256 and restored from .lab/pristine.tar when changed, and the grader
says so.  In a git checkout it names any local change to those files.

Verdicts repeat: the lab scenarios that can run under QEMU's instruction
counter (`-icount shift=0,sleep=off`) say so in their own `qemu:` line, and
every other one is judged only on facts that do not depend on timing
(data written, order from the trace, ranges) and are recorded (`record:
yes`, QEMU's record/replay), so that a failing run's line names the
`make replay R=...` that boots it again exactly; RECORD=1 records every
scenario of the grade.  TIMEOUT_SCALE=<f> stretches
every timeout, for a slow machine; tools/lab-repeat.py runs a grade many
times and counts the verdicts.
"""
import argparse
import fnmatch
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "qemu"))
import run as scenario_runner           # noqa: E402  (tests/qemu/run.py)
sys.path.insert(0, str(ROOT / "tools"))
import mklab                            # noqa: E402  (what the grader protects)

CHECK_LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>-?\d+):(?P<kind>[PFE]):"
                        r"(?P<tcase>[^:]+):(?P<test>[^:]+):(?P<iter>\d+): ?(?P<msg>.*)$", re.S)
UNIT_TIMEOUT = 30               # seconds per Check test (Check's CK_DEFAULT_TIMEOUT)


class Test:
    """One graded line."""

    def __init__(self, lab, points, kind, args, where):
        self.lab, self.points, self.kind, self.args, self.where = lab, points, kind, args, where
        self.verdict, self.seconds, self.why, self.log = None, 0.0, "", None

    @property
    def name(self):
        if self.kind == "unit":
            return "%s: %s" % (self.args[0], " ".join(self.args[1:]))
        if self.kind == "ktest":
            return "%s: %s" % (self.args[0], " ".join(self.args[1:]))
        return "scenario %s" % self.args[0]

    @property
    def earned(self):
        return self.points if self.verdict == "OK" else 0


class Lab:
    def __init__(self, number, folder):
        self.number, self.folder = number, folder
        self.title = folder.name[3:]
        readme = folder / "README.md"
        if readme.exists():
            first = readme.read_text().splitlines()[:1]
            if first and first[0].startswith("#"):
                self.title = re.sub(r"^Lab \d+:\s*", "", first[0].lstrip("# ").strip())
        self.tests, self.uses = [], set()
        spec = folder / "grade"
        for i, raw in enumerate(spec.read_text().splitlines(), 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            words = line.split()
            where = "%s:%d" % (spec.relative_to(ROOT), i)
            if words[0] == "uses" and len(words) > 1 and all(w.isdigit() for w in words[1:]):
                self.uses |= {int(w) for w in words[1:]}
                continue
            if len(words) < 3 or not words[0].isdigit() or \
                    words[1] not in ("unit", "scenario", "ktest"):
                raise SystemExit("grade: %s: expected '<points> unit|scenario|ktest ...': %s"
                                 % (where, raw))
            if words[1] in ("unit", "ktest") and len(words) < 4:
                raise SystemExit("grade: %s: a %s line names a %s and its tests"
                                 % (where, words[1], "program" if words[1] == "unit" else "scenario"))
            self.tests.append(Test(self, int(words[0]), words[1], words[2:], where))

    def scenario_path(self, name):
        for p in (self.folder / (name + ".scn"), scenario_runner.SCENARIO_DIR / (name + ".scn")):
            if p.exists():
                return p
        raise SystemExit("grade: lab %d: no scenario %s (in %s or tests/qemu/scenarios)"
                         % (self.number, name, self.folder.relative_to(ROOT)))


def all_labs():
    return {n: Lab(n, d) for n, d in mklab.lab_dirs().items() if (d / "grade").exists()}


# --- the grader's own files ------------------------------------------------

def verify_pristine():
    """Restore what a student changed of the grader's files; say what."""
    meta = ROOT / ".lab"
    if (meta / "manifest").exists():
        changed = []
        for line in (meta / "manifest").read_text().splitlines():
            digest, path = line.split(None, 1)
            f = ROOT / path
            if not f.exists() or hashlib.sha256(f.read_bytes()).hexdigest() != digest:
                changed.append(path)
        if changed:
            with tarfile.open(fileobj=io.BytesIO((meta / "pristine.tar").read_bytes())) as tar:
                for path in changed:
                    tar.extract(path, ROOT)
            for path in changed:
                print("grade: %s was changed; restored the handed-out copy" % path)
        return changed
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--"] + list(mklab.PROTECTED),
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             check=True).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        return []
    changed = [l[3:] for l in out.splitlines() if l.strip()]
    for path in changed:
        print("grade: note: %s differs from git's HEAD (grading it as it is)" % path)
    return changed


# --- building --------------------------------------------------------------

def build(out_dir, targets=("iso", "unit-progs")):
    log = out_dir / "build.log"
    with open(log, "a") as f:
        p = subprocess.run(["make", "-C", str(ROOT), "-j", os.environ.get("GRADE_JOBS", "2")]
                           + list(targets), stdout=f, stderr=subprocess.STDOUT)
    return p.returncode == 0, log


NO_BUILD = "the tree does not build"
GCC_ERROR = re.compile(r"^\S+?:\d+(?::\d+)?: (?:fatal )?error: |undefined reference to |"
                       r"^\S+: (?:fatal )?error: ")
GCC_CONTEXT = re.compile(r"^\S+?: In (?:function|member function) ")
GCC_QUOTE = re.compile(r"^ *\d* \| ")     # gcc's quoted source line and its caret


def first_compiler_error(text):
    """The first error of a build log, as gcc printed it: the line itself,
    the "In function" line before it and gcc's quoted source and caret
    after it; else make's own "***" line; else []."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if GCC_ERROR.search(line):
            quote = [lines[i - 1]] if i and GCC_CONTEXT.match(lines[i - 1]) else []
            quote.append(line)
            for after in lines[i + 1:i + 3]:
                if not GCC_QUOTE.match(after):
                    break
                quote.append(after)
            return quote
    return [l for l in lines if re.match(r"^make(\[\d+\])?: \*\*\* ", l)][:1]


def build_failure(log):
    """The why of a tree that does not build: the first error, quoted."""
    try:
        quote = first_compiler_error(Path(log).read_text(errors="replace"))
    except OSError:
        quote = []
    return NO_BUILD + ("; the first error:\n" + "\n".join("  " + q for q in quote)
                       if quote else "")


# --- unit tests --------------------------------------------------------------

def run_unit_program(program, out_dir, cache):
    """{test name: (verdict, message)} of one Check program, run once."""
    if program in cache:
        return cache[program]
    exe = ROOT / "build" / "unit" / program
    log = out_dir / (program + ".log")
    # Check's own settings, whatever the student's shell exports: every test
    # forked (a crash or a hang is that test's, and timeouts work), none left out
    env = dict(os.environ, CK_VERBOSITY="verbose", CK_FORK="yes",
               CK_DEFAULT_TIMEOUT=str(UNIT_TIMEOUT * timeout_scale()))
    for k in ("CK_RUN_CASE", "CK_RUN_SUITE", "CK_INCLUDE_TAGS", "CK_EXCLUDE_TAGS",
              "CK_TIMEOUT_MULTIPLIER"):
        env.pop(k, None)
    start = time.monotonic()
    try:
        p = subprocess.run([str(exe)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=600 * timeout_scale())
        text = p.stdout.decode(errors="replace")
    except FileNotFoundError:
        text = "%s: not built\n" % exe
    except subprocess.TimeoutExpired as e:
        text = (e.stdout or b"").decode(errors="replace") + "\n(program killed after 600s)\n"
    log.write_text(text)
    cache[program] = (parse_check(text), log, time.monotonic() - start)
    return cache[program]


def parse_check(text):
    """{test name: (verdict, message)} from Check's verbose output."""
    results = {}
    for line in check_messages(text):
        m = CHECK_LINE.match(line)
        if m:
            msg = m.group("msg")
            verdict = "OK" if m.group("kind") == "P" else \
                "TIMEOUT" if "timeout expired" in msg.lower() else "FAIL"
            name = m.group("test")
            if verdict != "OK":
                msg = as_written(m.group("file"), int(m.group("line")), msg)
            # a loop test reports once per iteration: its first failure stands
            if name not in results or results[name][0] == "OK":
                if verdict != "OK" and m.group("iter") != "0":
                    msg = "%s (table row %s)" % (msg, m.group("iter"))
                results[name] = (verdict, msg)
    return results


# --- an assertion as its test wrote it -----------------------------------------

ASSERT_CALL = re.compile(r"\b(ck_assert\w*|KT_ASSERT\w*)\s*\(")
CHECK_OPS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def call_args(text, start):
    """The top-level arguments of the call whose "(" is at text[start],
    whitespace collapsed; None if it does not close."""
    args, depth, cur, quote, i = [], 0, [], None, start
    while i < len(text):
        c = text[i]
        if quote:
            cur.append(c)
            if c == "\\":
                cur.append(text[i + 1:i + 2])
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
            cur.append(c)
        elif c in "([{":
            depth += 1
            if depth > 1:
                cur.append(c)
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append("".join(cur))
                return [re.sub(r"\s+", " ", a).strip() for a in args]
            cur.append(c)
        elif c == "," and depth == 1:
            args.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    return None


def source_assertion(path, line):
    """(macro, [arguments]) of the assertion at path:line, as written."""
    try:
        lines = (ROOT / path).read_text(errors="replace").splitlines()
    except OSError:
        return None
    if not 0 < line <= len(lines):
        return None
    text = "\n".join(lines[line - 1:line + 20])
    m = ASSERT_CALL.search(lines[line - 1])
    if not m:
        return None
    args = call_args(text, m.end() - 1)
    return (m.group(1), args) if args else None


def as_written(path, line, msg):
    """Check's message with the assertion's text as the test wrote it.

    Check quotes an assertion after the preprocessor has expanded the
    macros in it when one assertion macro passes it on to another
    (ck_assert(READ_ONCE(x) == 1) reads "Assertion '(*(const volatile
    __typeof__(x) *)&(x)) == 1' failed"); the source line has it as
    written.  A message that already quotes the source, or whose source
    is not an assertion, is returned as it is."""
    m = re.match(r"Assertion '(.*)' failed(.*)$", msg, re.S)
    found = m and source_assertion(path, line)
    if not found:
        return msg
    expanded, tail = m.group(1), m.group(2)
    macro, args = found
    cmp = re.match(r"ck_assert_\w+?_(eq|ne|lt|le|gt|ge)$", macro)
    if macro in ("ck_assert", "ck_assert_msg") and args:
        if expanded == args[0]:
            return msg
        return "Assertion '%s' failed%s" % (args[0], tail)
    if cmp and len(args) >= 2:
        op = " %s " % CHECK_OPS[cmp.group(1)]
        want = args[0] + op + args[1]
        if expanded == want:
            return msg
        for k in [i for i in range(len(expanded)) if expanded.startswith(op, i)]:
            x, y = expanded[:k], expanded[k + len(op):]
            if tail.startswith(": %s == " % x) and (", %s == " % y) in tail:
                tail = tail.replace(": %s == " % x, ": %s == " % args[0], 1)
                tail = tail.replace(", %s == " % y, ", %s == " % args[1], 1)
                return "Assertion '%s' failed%s" % (want, tail)
        return "Assertion '%s' failed%s" % (want, tail)
    return msg


def check_messages(text):
    """Check's result lines, each with the lines its message went on to
    (a test's "got ... want ..." on lines of their own) joined on."""
    out = []
    for line in text.splitlines():
        if CHECK_LINE.match(line) or not out or re.match(r"^(Running suite|\d+%: Checks:)", line):
            out.append(line)
        elif line.strip():
            out[-1] += "\n" + line.rstrip()
    return out


def grade_unit(test, out_dir, cache):
    program, patterns = test.args[0], test.args[1:]
    results, log, seconds = run_unit_program(program, out_dir, cache)
    test.seconds, test.log = seconds, log
    chosen = [n for n in results if any(fnmatch.fnmatchcase(n, p) for p in patterns)]
    missing = [p for p in patterns if not any(fnmatch.fnmatchcase(n, p) for n in results)]
    if missing:
        test.verdict = "FAIL"
        test.why = "no result for %s (did %s build and run?)" % (", ".join(missing), program)
        return
    bad = [(n, results[n]) for n in chosen if results[n][0] != "OK"]
    if not bad:
        test.verdict = "OK"
        return
    test.verdict = "TIMEOUT" if any(v == "TIMEOUT" for _, (v, _) in bad) else "FAIL"
    test.why = "; ".join("%s: %s" % (n, msg) for n, (_, msg) in bad[:3])


# --- scenarios ---------------------------------------------------------------

def timeout_scale():
    try:
        return float(os.environ.get("TIMEOUT_SCALE") or 1)
    except ValueError:
        raise SystemExit("grade: TIMEOUT_SCALE must be a number")


KTEST_LINE = re.compile(r"^TEST (\S+) (PASS|FAIL|SKIP)\b:? ?(.*)$", re.M)


def boot(test, out_dir, cache):
    """Run test's scenario once per grade; (Result, verdict, why)."""
    key = ("scenario", test.lab.number, test.args[0])
    if key in cache:
        return cache[key]
    path = test.lab.scenario_path(test.args[0])
    cfg = scenario_runner.Config(iso=ROOT / "build" / "spindle.iso",
                                 build_dir=out_dir / "qemu",
                                 qemu=os.environ.get("QEMU") or "qemu-system-x86_64",
                                 timeout_scale=timeout_scale(),
                                 record=os.environ.get("RECORD") == "1")
    cfg.build_dir.mkdir(parents=True, exist_ok=True)
    try:
        scn = scenario_runner.load_scenario(path)
    except scenario_runner.ScenarioError as e:
        cache[key] = (None, "FAIL", "bad scenario file: %s" % e)
        return cache[key]
    r = scenario_runner.run_scenario(scn, cfg)
    if r.passed:
        cache[key] = (r, "OK", "")
    else:
        cache[key] = (r, "TIMEOUT" if r.reasons[0].startswith("timed out") else "FAIL",
                      scenario_why(r.reasons))
    return cache[key]


def scenario_why(reasons):
    """What a failed boot's line says: its first reason, the first expect:
    line it did not see (when that is not the first reason: a hang's
    timeout comes before it), and how to replay a recorded run."""
    why = [reasons[0]]
    missed = [x for x in reasons if x.startswith("expect (line")]
    if missed and missed[0] not in why:
        why.append(missed[0])
    why += [x for x in reasons[1:] if x.startswith("recorded:")]
    return "\n".join(why)


def grade_scenario(test, out_dir, cache):
    r, test.verdict, test.why = boot(test, out_dir, cache)
    if r:
        test.seconds, test.log = r.seconds, r.log_path


def grade_ktest(test, out_dir, cache):
    """Every named TEST line PASS; a missing line is the boot's verdict."""
    r, verdict, why = boot(test, out_dir, cache)
    if r is None:
        test.verdict, test.why = verdict, why
        return
    test.seconds, test.log = r.seconds, r.log_path
    seen = {}
    for m in KTEST_LINE.finditer(scenario_runner.message_text(r.log)):
        # a case that failed once stays failed: a later PASS line of the
        # same name (a second run, or a forged printk) does not clear it
        if m.group(1) not in seen or seen[m.group(1)][0] == "PASS":
            seen[m.group(1)] = (m.group(2), m.group(3))
    problems = []
    for pat in test.args[1:]:
        hits = [n for n in seen if fnmatch.fnmatchcase(n, pat)]
        if not hits:
            problems.append("no TEST %s line (%s)" % (pat, why or "the boot ended without it"))
        problems += ["TEST %s %s %s" % (n, seen[n][0], seen[n][1]) for n in hits
                     if seen[n][0] != "PASS"]
    if not problems:
        test.verdict = "OK"
    else:
        test.verdict = "TIMEOUT" if verdict == "TIMEOUT" and \
            any(p.startswith("no TEST") for p in problems) else "FAIL"
        test.why = "; ".join(problems[:3])


# --- what a student hands in besides code -------------------------------------

def handed_in(lab, tree=None):
    """answers-labN.txt (the handout's questions) and time.txt (the hours
    spent, a number), at the top of the tree, as MIT's 6.1810 collects
    them: {"answers": {"file", "words"}, "time": {"hours", "text"}};
    words and hours are None when the file is missing, and hours also when
    time.txt holds no number (text then says what it holds)."""
    tree = tree or ROOT
    name = "answers-lab%d.txt" % lab
    f = tree / name
    words = len(f.read_text(errors="replace").split()) if f.is_file() else None
    t = tree / "time.txt"
    hours, text = None, None
    if t.is_file():
        text = " ".join(t.read_text(errors="replace").split())[:60]
        m = re.match(r"^(\d+(?:\.\d+)?)\b", text)
        hours = float(m.group(1)) if m else None
    return {"answers": {"file": name, "words": words},
            "time": {"file": "time.txt", "hours": hours, "text": text}}


def fmt_hours(h):
    return ("%g" % h) if h is not None else None


def handed_in_lines(lab, got):
    """What make grade says about them, one line each."""
    a, t = got["answers"], got["time"]
    handout = rel(lab.folder / "README.md")
    lines = ["%s: %s" % (a["file"], "%d words" % a["words"] if a["words"] else
                         "missing: your answers to the questions of %s" % handout
                         if a["words"] is None else "empty")]
    if t["hours"] is not None:
        lines.append("time.txt: %s hours" % fmt_hours(t["hours"]))
    elif t["text"] is None:
        lines.append("time.txt: missing: the hours you spent on this lab, a number")
    else:
        lines.append("time.txt: no number of hours at its start: '%s'" % t["text"])
    return lines


# --- the report --------------------------------------------------------------

def rel(p):
    try:
        return str(Path(p).resolve().relative_to(ROOT))
    except ValueError:
        return str(p)


def report(test):
    line = "%s: %s (%.1fs) %d/%d" % (test.name, test.verdict, test.seconds,
                                     test.earned, test.points)
    print(line)
    if test.verdict != "OK":
        if test.why:
            print("    " + test.why.replace("\n", "\n    "))
        if test.log:
            print("    log: %s" % rel(test.log))
    sys.stdout.flush()


def until_caught(labs, args):
    """Grade cheapest first and stop at the first test not OK: what caught
    a wrong solution, without the minutes the rest would take.  The score
    is then only bounded: at most full marks minus that test's points."""
    tests = [t for lab in labs for t in lab.tests]
    order = [t for t in tests if t.kind == "unit"] + [t for t in tests if t.kind != "unit"]
    programs = sorted({"build/unit/" + t.args[0] for t in order if t.kind == "unit"})
    built, build_log, cache, caught = set(), None, {}, None
    for t in order:
        need = "unit" if t.kind == "unit" else "iso"
        if need not in built and not args.no_build:
            ok, build_log = build(args.out, programs if need == "unit" else ["iso"])
            if not ok:
                t.verdict, t.why, t.log = "FAIL", build_failure(build_log), build_log
                report(t)
                caught = t
                break
            built.add(need)
        if t.kind == "unit":
            grade_unit(t, args.out, cache)
        elif t.kind == "ktest":
            grade_ktest(t, args.out, cache)
        else:
            grade_scenario(t, args.out, cache)
        report(t)
        if t.verdict != "OK":
            caught = t
            break
    possible = sum(t.points for t in tests)
    at_most = possible - caught.points if caught else possible
    print("Score: at most %d/%d" % (at_most, possible) if caught else
          "Score: %d/%d" % (possible, possible))
    if args.json:
        args.json.write_text(json.dumps({
            "labs": [lab.number for lab in labs], "possible": possible, "at_most": at_most,
            "built": not (caught and caught.why.startswith(NO_BUILD)),
            "caught_by": caught and {"name": caught.name, "verdict": caught.verdict,
                                     "points": caught.points, "why": caught.why,
                                     "seconds": round(caught.seconds, 1)},
            "ran": [t.name for t in order if t.verdict],
        }, indent=1) + "\n")
    return 0 if not caught else 1


def selftest():
    """The failure lines and the hand-in, from made-up logs and sources."""
    import tempfile
    failures = []

    def want(got, expected, what):
        if got != expected:
            failures.append("%s:\n  got  %r\n  want %r" % (what, got, expected))
    log = ("  CC       block/blk-plug.c\n"
           "block/blk-plug.c: In function 'blk_finish_plug':\n"
           "block/blk-plug.c:42:9: error: 'plg' undeclared (first use in this function)\n"
           "   42 |         plg = NULL;\n"
           "      |         ^~~\n"
           "block/blk-plug.c:50:1: error: expected ';' before '}' token\n"
           "make: *** [Makefile:233: build/block/blk-plug.o] Error 1\n")
    want(first_compiler_error(log),
         ["block/blk-plug.c: In function 'blk_finish_plug':",
          "block/blk-plug.c:42:9: error: 'plg' undeclared (first use in this function)",
          "   42 |         plg = NULL;", "      |         ^~~"], "gcc's first error")
    want(first_compiler_error("ld: build/x.o: in function `f':\n"
                              "x.c:(.text+0x5): undefined reference to `g'\nmake: *** [a] Error 1\n"),
         ["x.c:(.text+0x5): undefined reference to `g'"], "the linker's")
    want(first_compiler_error("make: *** No rule to make target 'x'.  Stop.\n"),
         ["make: *** No rule to make target 'x'.  Stop."], "make's own")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "check_x.c"
        src.write_text("\tck_assert(READ_ONCE(p->n) == 1);\n"
                       "\tck_assert_int_eq(READ_ONCE(p->n),\n\t\t\t min(a, b));\n"
                       "\tck_assert(x == 1);\n"
                       "\tck_assert_msg(y, \"got %d, want 2\", y);\n")
        exp = "(*(const volatile __typeof__(p->n) *)&(p->n))"
        want(as_written(str(src), 1, "Assertion '%s == 1' failed" % exp),
             "Assertion 'READ_ONCE(p->n) == 1' failed", "ck_assert, expanded")
        mn = "({ __typeof__(a) _a = (a); _a < b ? _a : b; })"
        want(as_written(str(src), 2, "Assertion '%s == %s' failed: %s == 0, %s == 3"
                        % (exp, mn, exp, mn)),
             "Assertion 'READ_ONCE(p->n) == min(a, b)' failed: READ_ONCE(p->n) == 0, "
             "min(a, b) == 3", "ck_assert_int_eq over two lines, expanded")
        want(as_written(str(src), 4, "Assertion 'x == 1' failed"), "Assertion 'x == 1' failed",
             "ck_assert as written")
        want(as_written(str(src), 5, "got 3, want 2"), "got 3, want 2", "ck_assert_msg's message")
        want(as_written(str(src), 9, "Assertion 'q' failed"), "Assertion 'q' failed",
             "past the end of the file")
        tree = Path(tmp)
        want(handed_in(3, tree), {"answers": {"file": "answers-lab3.txt", "words": None},
                                  "time": {"file": "time.txt", "hours": None, "text": None}},
             "nothing handed in")
        (tree / "answers-lab3.txt").write_text("1. The plug batches.\n2. Because.\n")
        (tree / "time.txt").write_text("6.5\n")
        want(handed_in(3, tree), {"answers": {"file": "answers-lab3.txt", "words": 6},
                                  "time": {"file": "time.txt", "hours": 6.5, "text": "6.5"}},
             "answers and hours")
        (tree / "time.txt").write_text("about six hours\n")
        want(handed_in(3, tree)["time"]["hours"], None, "hours not a number")
    want(check_messages("Running suite(s): E\n97%: Checks: 3, Failures: 1, Errors: 0\n"
                        "t.c:3:P:Core:a:0: Passed\n"
                        "t.c:343:F:Core:b:0: cscan, the wrap: \"r5 r1\"\n  got  r5 r1\n"
                        "  want r1 r5\nt.c:9:P:Core:c:0: Passed\n"),
         ["Running suite(s): E", "97%: Checks: 3, Failures: 1, Errors: 0",
          "t.c:3:P:Core:a:0: Passed",
          "t.c:343:F:Core:b:0: cscan, the wrap: \"r5 r1\"\n  got  r5 r1\n  want r1 r5",
          "t.c:9:P:Core:c:0: Passed"], "a Check message over three lines")
    want(parse_check("t.c:343:F:Core:b:2: the wrap\n  got  r5 r1\n  want r1 r5\n"
                     "t.c:9:E:Core:c:0: (after this point) Received signal 11\n"),
         {"b": ("FAIL", "the wrap\n  got  r5 r1\n  want r1 r5 (table row 2)"),
          "c": ("FAIL", "(after this point) Received signal 11")}, "Check's verdicts")
    want(scenario_why(["timed out after 60s: QEMU killed; expected exit: pass",
                       "no closing line", "expect (line 12) not found: ^PATTERN verify",
                       "expect (line 13) not found: ^x",
                       "recorded: replay it exactly with `make replay R=build/x`"]),
         "timed out after 60s: QEMU killed; expected exit: pass\n"
         "expect (line 12) not found: ^PATTERN verify\n"
         "recorded: replay it exactly with `make replay R=build/x`", "a hang's reasons")
    want(scenario_why(["expect (line 3) not found: ^a", "expect (line 4) not found: ^b"]),
         "expect (line 3) not found: ^a", "the first expect only")
    for f in failures:
        print("grade selftest: " + f)
    print("grade selftest: %s" % ("ok" if not failures else "%d failure(s)" % len(failures)))
    return 1 if failures else 0


def main(argv=None):
    if (argv if argv is not None else sys.argv[1:])[:1] == ["--selftest"]:
        return selftest()
    ap = argparse.ArgumentParser(description="Grade Spindle's labs.")
    ap.add_argument("--lab", default=os.environ.get("LAB", ""),
                    help="lab number(s), comma-separated (default: the tree's lab, or all)")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "grade",
                    help="folder for logs (default build/grade)")
    ap.add_argument("--no-build", action="store_true", help="grade what is built already")
    ap.add_argument("--json", type=Path, help="also write the verdicts to this file")
    ap.add_argument("--until-caught", action="store_true",
                    help="for tools/test-labs.py's mutants: cheapest tests first (unit tests, "
                    "then boots in the grade file's order), building only what the next test "
                    "needs, and stop at the first one not OK")
    ap.add_argument("--boots", default=None,
                    help="for tools/test-labs.py's skeletons: boot only these labs' scenarios "
                    "(comma-separated); the other labs' ktest and scenario lines say SKIP and "
                    "earn nothing")
    args = ap.parse_args(argv)

    labs = all_labs()
    try:
        boots = None if args.boots is None else {int(x) for x in args.boots.split(",") if x}
    except ValueError:
        ap.error("--boots takes lab numbers, e.g. --boots 3")
    mine = ROOT / ".lab" / "lab"
    if args.lab:
        try:
            wanted = [int(x) for x in args.lab.split(",") if x]
        except ValueError:
            ap.error("LAB must be numbers, e.g. LAB=3 or LAB=3,5")
    elif mine.exists():
        wanted = [int(mine.read_text())]
    else:
        wanted = sorted(labs)
    for n in wanted:
        if n not in labs:
            ap.error("no lab %d (labs: %s)" % (n, ", ".join(map(str, sorted(labs)))))

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "build.log").unlink(missing_ok=True)
    changed = verify_pristine()
    if mine.exists():
        labs = all_labs()                   # re-read: a grade file may have been restored
    if args.until_caught:
        return until_caught([labs[n] for n in wanted], args)
    built, build_log = (True, None) if args.no_build else build(args.out)
    no_build = None if built else build_failure(build_log)
    if no_build:
        print("grade: " + no_build.replace("\n", "\n    "))
        print("    log: %s" % rel(build_log))
    cache = {}
    for n in wanted:
        lab = labs[n]
        print("== lab %d: %s ==" % (n, lab.title))
        for t in lab.tests:
            if not built:
                t.verdict, t.why, t.log = "FAIL", NO_BUILD + " (the first error is above)", None
            elif t.kind == "unit":
                grade_unit(t, args.out, cache)
            elif boots is not None and n not in boots:
                t.verdict, t.why = "SKIP", "not booted (--boots %s)" % args.boots
            elif t.kind == "ktest":
                grade_ktest(t, args.out, cache)
            else:
                grade_scenario(t, args.out, cache)
            report(t)
    tests = [t for n in wanted for t in labs[n].tests]
    score, possible = sum(t.earned for t in tests), sum(t.points for t in tests)
    # a student's hand-in (one lab graded: a student's tree, the class
    # grader, make grade LAB=N); not graded, shown and collected
    got = handed_in(wanted[0]) if len(wanted) == 1 else None
    if got:
        for line in handed_in_lines(labs[wanted[0]], got):
            print(line)
    if args.json:
        args.json.write_text(json.dumps({
            "labs": wanted, "score": score, "possible": possible,
            "per_lab": {str(n): [sum(t.earned for t in labs[n].tests),
                                 sum(t.points for t in labs[n].tests)] for n in wanted},
            "uses": {str(n): sorted(labs[n].uses) for n in wanted},
            "changed_files": changed, "built": built, "build_error": no_build,
            "handed_in": got,
            "tests": [{"lab": t.lab.number, "name": t.name, "verdict": t.verdict,
                       "points": t.points, "earned": t.earned,
                       "seconds": round(t.seconds, 1), "why": t.why} for t in tests],
        }, indent=1) + "\n")
    print("Score: %d/%d" % (score, possible))
    return 0 if score == possible else 1


if __name__ == "__main__":
    sys.exit(main())
