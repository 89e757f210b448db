#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tree.py - checks of the tree as a whole: who includes whom, and that
every file a comment or a document names is there.

Where it sits: `make lint` runs it (after its own --selftest) before
lint.py's compiler checks; it reads the files git tracks, builds nothing
and takes a second.

    tools/lint/tree.py              check the tree; exit 1 with findings
    tools/lint/tree.py --selftest   check the checks on planted examples

1. Includes.  A folder's private header is for that folder (its
   subfolders included): block/blk.h and block/elevator-internal.h for
   block/, fs/internal.h for fs/.  Anything else goes through include/
   (<spindle/...>), so no `#include "../..."` may climb out of the
   including file's top-level folder (fs/ext2/ may include
   "../internal.h": it stays in fs/).  Tests are exempt -- everything under
   tests/ (the in-kernel suites of tests/kernel/ among them) reaches into
   what it tests.

2. Named paths.  A path rooted at one of the repository's top-level
   folders (kernel/ block/ fs/ drivers/ include/ lib/ user/ tools/ tests/
   labs/ docs/) and ending in a file name with an extension
   (`block/blk-core.c`, `docs/block.md`) must exist, when it is named in
   a comment of the code (C and assembly comments; `#` comments and
   docstrings of Python, shell and make files) or anywhere in a
   Markdown document.  Not checked:
   - another project's path, said so right before it: "Linux's
     block/blk-core.c", "Linux block/genhd.c", "xv6's kernel/bio.c" --
     the path follows one of the words in OTHER_PROJECTS (an optional
     "'s", a backquote or a bracket between them);
   - a path with a wildcard or a placeholder (`tests/unit/check_<name>.c`,
     `tests/qemu/scenarios/*.scn`, NAME, NN or N: `user/bin/NAME.c`,
     `labs/NN-name/README.md`) -- it names a pattern, not a file;
   - a path under include/linux/ or include/uapi/asm-generic/: Linux's
     header folders, which Spindle does not have;
   - build products: a path under build/ is not rooted at a checked
     folder, and a name ending in .o, .elf, .iso, .img, .log or .cpio is
     something the build makes.
   A path is taken from its first character after a space, a quote, a
   bracket or the start of the line, so "/proc/partitions" or
   "/sys/block/sda/stat" (whose "block/" follows a "/") is never one.
"""

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent

TOP_FOLDERS = ("kernel", "block", "fs", "drivers", "include", "lib", "user",
               "tools", "tests", "labs", "docs")
# folder -> its private headers, repository paths
PRIVATE_HEADERS = {
    "block": ("block/blk.h", "block/elevator-internal.h"),
    "fs": ("fs/internal.h",),
}
TEST_FOLDERS = ("tests/",)
# Words that say the path after them is another project's.
OTHER_PROJECTS = ("Linux", "xv6", "xv6-riscv", "Pintos", "MINIX", "SerenityOS",
                  "Sortix", "QEMU", "busybox", "BusyBox", "glibc", "GRUB", "fio",
                  "util-linux", "e2fsprogs", "Check", "blktrace")
BUILT_SUFFIXES = (".o", ".elf", ".iso", ".img", ".log", ".cpio", ".d")
# Linux's header folders, which Spindle does not have (its own are
# include/spindle/ and include/uapi/): a path in them is always Linux's.
LINUX_ONLY = ("include/linux/", "include/uapi/asm-generic/")

PLACEHOLDER_RE = re.compile(r"(^|/)(NAME|NN|N)[-./]")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', re.M)
PATH_RE = re.compile(
    r"(?:(?<=^)|(?<=[\s`'\"(\[{<,;:=]))((?:%s)/[A-Za-z0-9_.+\-/<>*]*\.[A-Za-z0-9]+)"
    % "|".join(TOP_FOLDERS), re.M)
OTHER_RE = re.compile(r"\b(?:%s)(?:'s)?[`\[(\s]*$" % "|".join(re.escape(w) for w in OTHER_PROJECTS))


def top(path):
    return path.split("/", 1)[0]


def is_test(path):
    return path.startswith(TEST_FOLDERS)


# --- 1. includes ----------------------------------------------------------------

def include_findings(path, text, exists):
    """Findings for the includes of one file (path relative to the root)."""
    out = []
    if is_test(path):
        return out
    here = os.path.dirname(path)
    for m in INCLUDE_RE.finditer(text):
        kind, name = m.group(1), m.group(2)
        line = text.count("\n", 0, m.start()) + 1
        target = None
        if kind == '"':
            cand = os.path.normpath(os.path.join(here, name))
            if exists(cand):
                target = cand
            if name.startswith("../") and top(cand) != top(path):
                out.append('%s:%d: #include "%s" climbs out of %s/: use a header '
                           'of include/' % (path, line, name, top(path)))
                continue
        if target is None:
            cand = os.path.normpath(os.path.join("include", name))
            if exists(cand):
                target = cand
        for folder, headers in PRIVATE_HEADERS.items():
            if target in headers and top(path) != folder:
                out.append("%s:%d: %s is private to %s/" % (path, line, target, folder))
    return out


# --- 2. named paths ---------------------------------------------------------------

def c_comments(text):
    """The comments of C or assembly, with everything else blanked (line
    numbers kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(text[i:j])
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(text[i:j])
            i = j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append("\n" * text.count("\n", i, j + 1))
            i = j + 1
        else:
            out.append("\n" if text[i] == "\n" else " ")
            i += 1
    return "".join(out)


def hash_comments(text, python):
    """'#' comments (and, for Python, triple-quoted strings), the rest blanked."""
    keep = [" " * len(line) for line in text.split("\n")]
    lines = text.split("\n")
    for k, line in enumerate(lines):
        m = re.search(r"(^|\s)#", line)
        if m and not line.lstrip().startswith("#!"):
            keep[k] = " " * m.start() + line[m.start():]
    if python:
        for m in re.finditer(r'"""(.*?)"""', text, re.S):
            first = text.count("\n", 0, m.start())
            for k, part in enumerate(m.group(0).split("\n")):
                keep[first + k] = part
    return "\n".join(keep)


def commented_text(path, text):
    name = os.path.basename(path)
    ext = os.path.splitext(name)[1]
    if ext in (".c", ".h", ".S", ".ld"):
        return c_comments(text)
    if ext == ".md":
        return text
    if ext in (".py", ".sh", ".mk", ".scn") or name in ("Makefile", "grade") or \
            text.startswith("#!"):
        return hash_comments(text, ext == ".py" or text.startswith("#!/usr/bin/env python"))
    return None


def path_findings(path, text, exists):
    out = []
    body = commented_text(path, text)
    if body is None:
        return out
    for m in PATH_RE.finditer(body):
        named = m.group(1).rstrip(".")
        line_start = body.rfind("\n", 0, m.start()) + 1
        before = body[max(line_start - 200, 0):m.start()].replace("\n", " ")
        if OTHER_RE.search(before):
            continue
        if any(c in named for c in "<>*") or named.endswith(BUILT_SUFFIXES) or \
                named.startswith(LINUX_ONLY) or PLACEHOLDER_RE.search(named):
            continue
        if not exists(named):
            line = body.count("\n", 0, m.start()) + 1
            out.append("%s:%d: names %s, which is not in the tree" % (path, line, named))
    return out


# --- the tree, and the checks' own tests ---------------------------------------

def tracked_files():
    p = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                       cwd=ROOT, capture_output=True, text=True, check=True)
    return sorted(f for f in p.stdout.splitlines() if (ROOT / f).is_file())


def check_tree():
    files = tracked_files()
    known = set(files)
    dirs = {os.path.dirname(f) for f in files}

    def exists(p):
        return p in known or p in dirs or (ROOT / p).exists()

    findings = []
    for f in files:
        try:
            text = (ROOT / f).read_text()
        except (UnicodeDecodeError, OSError):
            continue
        if f.endswith((".c", ".h", ".S")):
            findings += include_findings(f, text, exists)
        findings += path_findings(f, text, exists)
    for line in findings:
        print(line)
    print("lint: tree: %d file(s), %d finding(s)" % (len(files), len(findings)))
    return 1 if findings else 0


def selftest():
    tree = {"block/blk.h", "block/elevator-internal.h", "fs/internal.h", "fs/sysfs.c",
            "fs/ext2/file.c", "block/blk-core.c", "include/spindle/blkdev.h",
            "tests/kernel/block_test.c", "docs/block.md", "drivers/char/serial.c",
            "labs/README.md"}
    dirs = {os.path.dirname(f) for f in tree}

    def exists(p):
        return p in tree or p in dirs

    Q3 = '"' * 3
    cases = [
        # (file, text, how many findings)
        ("fs/sysfs.c", '#include "../block/elevator-internal.h"\n', 1),
        ("fs/sysfs.c", '#include "../block/blk.h"\n', 1),
        ("drivers/char/serial.c", '#include "../../fs/internal.h"\n', 1),
        ("fs/sysfs.c", '#include <spindle/blkdev.h>\n#include "internal.h"\n', 0),
        ("fs/ext2/file.c", '#include "../internal.h"\n', 0),
        ("block/blk-core.c", '#include "blk.h"\n#include "elevator-internal.h"\n', 0),
        ("tests/kernel/block_test.c", '#include "../../block/blk.h"\n', 0),
        ("fs/sysfs.c", "/* see block/blk-core.c and docs/block.md */\n", 0),
        ("fs/sysfs.c", "/* see block/blk-sysfs.c */\n", 1),
        ("fs/sysfs.c", "// kernel/mm/paging.c sets it up\n", 1),
        ("fs/sysfs.c", 'x = "block/nothere.c"; /* a string, not a comment */\n', 0),
        ("fs/sysfs.c", "/* Linux's block/genhd.c, as Linux block/bdev.c */\n", 0),
        ("fs/sysfs.c", "/* xv6's `kernel/bio.c` does it */\n", 0),
        ("fs/sysfs.c", "/* /sys/block/sda/stat.txt and /proc/x */\n", 0),
        ("fs/sysfs.c", "/* tests/unit/check_<name>.c, tests/qemu/*.scn */\n", 0),
        ("fs/sysfs.c", "/* kernel/arch/x86/boot.o is built */\n", 0),
        ("docs/block.md", "Read `block/blk-core.c`, then `block/blk-mq.c`.\n", 1),
        ("docs/block.md", "Linux's `block/blk-mq.c` is bigger.\n", 0),
        ("tools/x.py", Q3 + "x.py - reads docs/gone.md" + Q3 + '\nopen("docs/gone.md")\n', 1),
        ("tools/x.py", '# docs/block.md\nopen("docs/gone.md")\n', 0),
        ("Makefile", "# tools/lint/nothere.py runs it\n", 1),
        ("docs/block.md", "`user/bin/NAME.c`, labs/NN-name/README.md\n", 0),
        ("docs/block.md", "Linux's split: `include/linux/ata.h`\n", 0),
        ("docs/block.md", "labs/README.md and labs/NOPE.md\n", 1),
        ("docs/block.md", "Spindle's `include/uapi/linux/nothere.h`\n", 1),
    ]
    bad = 0
    for path, text, want in cases:
        got = []
        if path.endswith((".c", ".h")):
            got += include_findings(path, text, exists)
        got += path_findings(path, text, exists)
        if len(got) != want:
            bad += 1
            print("selftest: %s %r: %d finding(s), expected %d: %s"
                  % (path, text, len(got), want, got))
    print("lint: tree selftest: %d case(s), %d wrong" % (len(cases), bad))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--selftest", action="store_true", help="test the checks themselves")
    args = ap.parse_args()
    return selftest() if args.selftest else check_tree()


if __name__ == "__main__":
    sys.exit(main())
