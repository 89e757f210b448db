#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""format-check.py - clang-format on the C lines changed since main.

Where it sits: `make format-check` (and CI) runs it.  It never rewrites a
file; it prints what clang-format (the repository's .clang-format) would
change in the lines that differ from the base, and fails if anything.
Whole files are never judged: the code was written before .clang-format,
and a check that flagged old lines would only teach people to ignore it.

The base is where the work left main: `git merge-base HEAD <ref>` for the
first of origin/main, main that exists (or FORMAT_BASE=<ref>); with none
(a clone of one branch) only uncommitted changes are checked.  The lines
compared are those of `git diff <base>`: commits since then, staged and
unstaged edits alike.

One deliberate leniency: a difference only in the spaces *inside* a line
(after its indentation) is not reported.  The code aligns its trailing
comments and #define values in columns with spaces, which clang-format
cannot express (it aligns to the longest line of a group, or not at all);
indentation, line breaks, braces and the spaces that separate tokens
(`a+b` against `a + b`) are still checked.

Exit status: 0 clean, 1 something to reformat, 2 the tools are missing.
"""

import os
import re
import shutil
import subprocess
import sys


def git(*args):
    return subprocess.run(["git"] + list(args), capture_output=True, text=True)


def base_commit():
    refs = [os.environ["FORMAT_BASE"]] if os.environ.get("FORMAT_BASE") else \
        ["origin/main", "main"]
    for ref in refs:
        r = git("merge-base", "HEAD", ref)
        if r.returncode == 0:
            return r.stdout.strip(), ref
    return "HEAD", "HEAD (no main to compare with)"


def inner(line):
    """A line with its indentation kept and every other run of
    whitespace made one space."""
    m = re.match(r"^(\s*)(.*?)\s*$", line)
    return m.group(1) + re.sub(r"\s+", " ", m.group(2))


def hunks(diff):
    """(header, removed lines, added lines) of each hunk of a unified diff,
    with the file it is in."""
    name, header, old, new = None, None, [], []
    for line in diff.splitlines():
        if line.startswith("+++ "):
            if header:
                yield name, header, old, new
            name, header, old, new = line[4:].split("\t")[0], None, [], []
        elif line.startswith("--- "):
            continue
        elif line.startswith("@@"):
            if header:
                yield name, header, old, new
            header, old, new = line, [], []
        elif line.startswith("-"):
            old.append(line[1:])
        elif line.startswith("+"):
            new.append(line[1:])
    if header:
        yield name, header, old, new


def main():
    tool = shutil.which("clang-format-diff") or shutil.which("clang-format-diff-14")
    if not tool or not shutil.which("clang-format"):
        print("format-check: needs clang-format and clang-format-diff (make deps)")
        return 2
    base, what = base_commit()
    changes = git("diff", "-U0", "--no-color", "--no-ext-diff", base, "--",
                  "*.c", "*.h")
    if changes.returncode != 0:
        print(changes.stderr.strip())
        return 2
    if not changes.stdout.strip():
        print("format-check: no C changes since %s" % what)
        return 0
    r = subprocess.run([tool, "-p1", "-style=file"], input=changes.stdout,
                       capture_output=True, text=True)
    if r.returncode not in (0, 1):
        print(r.stderr.strip())
        return 2
    bad = 0
    for name, header, old, new in hunks(r.stdout):
        if [inner(x) for x in old] == [inner(x) for x in new]:
            continue            # alignment inside lines only: the author's
        bad += 1
        print("%s: %s" % (name, header))
        for x in old:
            print("-" + x)
        for x in new:
            print("+" + x)
    if bad:
        print("format-check: %d place(s) to reformat in lines changed since %s "
              "(clang-format-diff -p1 -i applies them: git diff -U0 %s | "
              "clang-format-diff -p1 -i)" % (bad, what, base[:12]))
        return 1
    print("format-check: the lines changed since %s are formatted" % what)
    return 0


if __name__ == "__main__":
    sys.exit(main())
