#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lint.py - static analysis of the kernel: GCC's -fanalyzer, then cppcheck.

Where it sits: `make lint` (and CI) runs it with the kernel's C sources and
compiler flags (the Makefile's OBJS and CFLAGS), so it looks at exactly
what is built into build/spindle.elf, configured as it is built.

    tools/lint/lint.py [-j N] FILE.c...      (LINT_CFLAGS: the kernel's CFLAGS)

1. gcc $LINT_CFLAGS -fanalyzer -c FILE -o /dev/null, N files at a time
   (default 2).  The analyzer follows paths through each file -- a NULL
   that reaches a dereference, a leak on an error path, a double free --
   and with the kernel's -Werror any finding fails the file.
   tools/lint/analyzer-suppressions.txt turns one warning off for one file.
2. cppcheck over the same files, as one run (-j N): warning and portability
   checks, the kernel's include paths, only the kernel's configuration
   (not __ASSEMBLER__, not the host tests' SPINDLE_HOST).  Its findings
   are matched here against tools/lint/cppcheck-suppressions.txt
   (id:file[:line]  # reason): a finding not listed fails the run, and so
   does a listed one that no longer happens, so that the list stays as
   short as the code allows.

Every suppression must carry a reason.  Exit status 0 clean, 1 findings,
2 a tool or a file is missing.
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CPPCHECK_SUPPRESSIONS = HERE / "cppcheck-suppressions.txt"
ANALYZER_SUPPRESSIONS = HERE / "analyzer-suppressions.txt"
CPPCHECK_TEMPLATE = "{id}:{file}:{line}: {severity}: {message}"


def read_list(path):
    """(entry, reason, line number) of each non-comment line; a line
    without `# reason` is an error."""
    entries = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        entry, sep, reason = line.partition("#")
        if not sep or not reason.strip():
            raise SystemExit("%s:%d: a suppression needs a reason (# ...)" % (path, n))
        entries.append((entry.strip(), reason.strip(), n))
    return entries


def analyze(cc, cflags, extra, src):
    cmd = [cc] + cflags + ["-fanalyzer"] + extra.get(src, []) + ["-c", src, "-o", os.devnull]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    return src, p.returncode, (p.stdout + p.stderr).strip()


def run_analyzer(srcs, cflags, jobs):
    extra = {}
    for entry, _, n in read_list(ANALYZER_SUPPRESSIONS):
        parts = entry.split()
        if len(parts) != 2 or not parts[1].startswith("-Wno-analyzer-"):
            raise SystemExit("%s:%d: expected <file> -Wno-analyzer-<warning>"
                             % (ANALYZER_SUPPRESSIONS, n))
        if not (ROOT / parts[0]).exists():
            raise SystemExit("%s:%d: no file %s"
                             % (ANALYZER_SUPPRESSIONS, n, parts[0]))
        extra.setdefault(parts[0], []).append(parts[1])
    cc = os.environ.get("CC", "gcc")
    bad = 0
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for src, rc, out in pool.map(lambda s: analyze(cc, cflags, extra, s), srcs):
            if rc != 0 or out:
                bad += 1
                print(out)
    print("lint: gcc -fanalyzer: %d file(s), %d with findings" % (len(srcs), bad))
    return bad


def run_cppcheck(srcs, cflags, jobs):
    includes = [f for f in cflags if f.startswith("-I")]
    cmd = ["cppcheck", "-q", "-j", str(jobs), "--enable=warning,portability",
           "--std=c11", "--language=c", "-U__ASSEMBLER__", "-USPINDLE_HOST",
           "--template=" + CPPCHECK_TEMPLATE] + includes + srcs
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stdout + p.stderr)
        return 1
    findings = [line for line in (p.stdout + p.stderr).splitlines()
                if re.match(r"^\w+:[^:]+:\d+: ", line)]
    suppressions = read_list(CPPCHECK_SUPPRESSIONS)
    used = set()
    unlisted = 0
    for f in findings:
        ident, path, line = f.split(":", 3)[:3]
        hit = None
        for i, (entry, _, _) in enumerate(suppressions):
            parts = entry.split(":")
            if parts[0] == ident and parts[1] == path and \
                    (len(parts) < 3 or parts[2] == line):
                hit = i
                break
        if hit is None:
            unlisted += 1
            print(f)
        else:
            used.add(hit)
    stale = 0
    for i, (entry, reason, n) in enumerate(suppressions):
        # (a file not looked at this time cannot tell)
        if i not in used and entry.split(":")[1] in srcs:
            stale += 1
            print("%s:%d: suppression %s matches nothing now (%s): recheck, "
                  "then delete it" % (CPPCHECK_SUPPRESSIONS.relative_to(ROOT), n, entry, reason))
    print("lint: cppcheck: %d file(s), %d finding(s): %d suppressed as listed, "
          "%d not listed; %d stale suppression(s)"
          % (len(srcs), len(findings), len(findings) - unlisted, unlisted, stale))
    return unlisted + stale


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-j", type=int, default=2, help="parallel jobs (default 2)")
    ap.add_argument("srcs", nargs="+")
    args = ap.parse_args()
    for tool in ("cppcheck", os.environ.get("CC", "gcc")):
        if not shutil.which(tool):
            print("lint: needs %s (make deps)" % tool)
            return 2
    missing = [s for s in args.srcs if not (ROOT / s).exists()]
    if missing:
        print("lint: no such file: %s" % " ".join(missing))
        return 2
    # The kernel's flags, without the dependency files a build writes.
    cflags = [f for f in shlex.split(os.environ.get("LINT_CFLAGS", ""))
              if f not in ("-MMD", "-MP")]
    if not cflags:
        print("lint: set LINT_CFLAGS to the kernel's CFLAGS (make lint does)")
        return 2
    bad = run_analyzer(args.srcs, cflags, args.j)
    bad += run_cppcheck(args.srcs, cflags, args.j)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
