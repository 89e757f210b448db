#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
r"""Write a student's tree for one lab: Spindle minus that lab's own code.

    make lab N=3 DIR=~/lab3          (or: tools/mklab.py 3 ~/lab3)
    tools/mklab.py --list            the labs and the regions each removes
    tools/mklab.py --check           every marker well formed (used by CI)

Where it sits: the solution stays in the kernel, bracketed where it is,

    bool attempt_plug_merge(...)
    {
            /* LAB 3 BEGIN */
            ... the reference code ...
            /* LAB 3 END: return false; */
    }

or, for a stub of several lines, the END marker opens a comment whose
lines (after their " * ") are the stub's lines:

            /* LAB 5 END:
             * 	if (!generic_make_request_checks(bio))
             * 		return;
             */

and this script copies the repository (the files git tracks, or every file
outside build/ when there is no git) to DIR -- all but the labs' mutants,
wrong solutions written as patches over the right one.  In DIR the regions of lab N
are replaced by one comment that points at the handout, followed by what
the END marker gives after its colon (a stub that compiles: `return
-ENOSYS;`, `(void)plug;`, nothing); the marker lines of every other lab
are dropped and their code kept.  So lab N starts from the complete
reference kernel minus lab N, as xv6's lab branches do, and no lab needs
another one finished.

The tree gets a .lab/ folder for the grader: `lab` (the number), the
manifest of the grader's own files and tests with their SHA-256, and a tar
of the same files, from which `make grade` restores anything a student
changed (saying so).  When git is installed the tree is also a fresh git
repository with one commit, so `git diff` shows the student's work.
"""
import argparse
import hashlib
import io
import os
import re
import shutil
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LABS = ROOT / "labs"

BEGIN_RE = re.compile(r"^(\s*)/\* LAB (\d+) BEGIN\b[^*]*\*/\s*$")
END_RE = re.compile(r"^(\s*)/\* LAB (\d+) END(?::\s?(.*?))?\s*\*/\s*$")
END_OPEN_RE = re.compile(r"^(\s*)/\* LAB (\d+) END:\s*$")    # a stub of several lines
STUB_LINE_RE = re.compile(r"^\s*\*(?: (.*))?$")
STUB_CLOSE_RE = re.compile(r"^\s*\*/\s*$")
ANY_RE = re.compile(r"/\*\s*LAB\s+\d+\s+(BEGIN|END)")
MARKED_SUFFIXES = (".c", ".h", ".S")

# What the grader trusts only from a pristine copy: the grading definitions
# and handouts, every test, and the tools that build and judge them.
PROTECTED = ("labs/", "tests/",
             "tools/grade.py", "tools/mklab.py", "tools/cscan-model.py",
             "tools/pattern-check.py", "tools/trace-report.py",
             "tools/partcheck.py", "tools/grade-class.py", "tools/lab-repeat.py",
             "tools/test-labs.py",
             # the build, which runs before the tests and could rewrite them
             "Makefile", "user/user.mk", "fs/fs.mk", "linker.ld",
             "tools/install-deps.sh", "tools/gen_ksyms.sh", "tools/grub.cfg")


class MarkerError(Exception):
    pass


def lab_dirs():
    """{number: folder} for labs/NN-name/."""
    out = {}
    for d in sorted(LABS.glob("[0-9][0-9]-*")):
        if d.is_dir():
            out[int(d.name[:2])] = d
    return out


def source_files(root=ROOT):
    """The repository's files, relative paths: git's list when it has one."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root, check=True,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
        files = [f for f in out.decode().split("\0") if f]
        if files:
            return sorted(f for f in files if (root / f).is_file())
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        dirnames[:] = [d for d in dirnames
                       if not (rel == Path(".") and d in ("build", ".git"))]
        files += [str(rel / f) if str(rel) != "." else f for f in filenames]
    return sorted(files)


def regions(path, text):
    """[(lab, begin line, end line, last line, indent, stub)] of one file,
    0-based: the solution is the lines strictly between begin and end, and
    the region (markers and stub included) runs from begin to last.
    Raises MarkerError on a marker that does not pair up."""
    out, open_ = [], None
    lines = text.splitlines()
    i = -1
    while i + 1 < len(lines):
        i += 1
        line = lines[i]
        b, e, eo = BEGIN_RE.match(line), END_RE.match(line), END_OPEN_RE.match(line)
        if eo:
            if not open_ or open_[0] != int(eo.group(2)):
                raise MarkerError("%s:%d: LAB %s END without its BEGIN"
                                  % (path, i + 1, eo.group(2)))
            stub, start = [], i
            while True:
                i += 1
                if i >= len(lines):
                    raise MarkerError("%s:%d: the stub of LAB %s END never closes"
                                      % (path, start + 1, eo.group(2)))
                if STUB_CLOSE_RE.match(lines[i]):
                    break
                m = STUB_LINE_RE.match(lines[i])
                if not m:
                    raise MarkerError("%s:%d: a stub line starts with ' * ': %s"
                                      % (path, i + 1, lines[i].strip()))
                stub.append(m.group(1) or "")
            out.append((open_[0], open_[1], start, i, open_[2], "\n".join(stub)))
            open_ = None
        elif b:
            if open_:
                raise MarkerError("%s:%d: LAB %s BEGIN inside LAB %d (opened at line %d)"
                                  % (path, i + 1, b.group(2), open_[0], open_[1] + 1))
            open_ = (int(b.group(2)), i, b.group(1))
        elif e:
            if not open_ or open_[0] != int(e.group(2)):
                raise MarkerError("%s:%d: LAB %s END without its BEGIN"
                                  % (path, i + 1, e.group(2)))
            out.append((open_[0], open_[1], i, i, open_[2], (e.group(3) or "").strip()))
            open_ = None
        elif ANY_RE.search(line):
            raise MarkerError("%s:%d: a LAB marker must be alone on its line: %s"
                              % (path, i + 1, line.strip()))
    if open_:
        raise MarkerError("%s:%d: LAB %d BEGIN never ends" % (path, open_[1] + 1, open_[0]))
    return out


def all_regions():
    """{path: regions} for every marked source file of the repository."""
    found = {}
    for f in source_files():
        if not f.endswith(MARKED_SUFFIXES):
            continue
        text = (ROOT / f).read_text(errors="replace")
        if "LAB " not in text:
            continue
        r = regions(f, text)
        if r:
            found[f] = r
    return found


def transform(text, lab, regs, handout):
    """text with lab's regions stubbed out and other labs' markers dropped.
    lab may be a set of labs (tools/test-labs.py stubs all but one), and
    handout then a {lab: handout} dict."""
    stubbed = {lab} if isinstance(lab, int) else set(lab)
    lines = text.splitlines(keepends=True)
    out, i = [], 0
    for (n, first, end, last, indent, stub) in regs:
        out += lines[i:first]
        if n in stubbed:
            out.append("%s/* LAB %d: your code here (%s). */\n"
                       % (indent, n, handout[n] if isinstance(handout, dict) else handout))
            for stub_line in stub.split("\n") if stub else []:
                out.append("%s%s\n" % (indent, stub_line) if stub_line.strip() else "\n")
        else:
            out += lines[first + 1:end]
        i = last + 1
    out += lines[i:]
    return "".join(out)


def withheld(path):
    """Not in a student's tree: the labs' mutants (labs/NN-name/mutants/),
    whose patches carry the reference solution in their context lines."""
    parts = Path(path).parts
    return len(parts) > 2 and parts[0] == "labs" and parts[2] == "mutants"


def protected(path):
    return any(path == p or (p.endswith("/") and path.startswith(p)) for p in PROTECTED)


# build/'s folders that hold runs, not what make builds: never copied
# into another tree's build/
RUN_OUTPUTS = {"labs", "grade", "class", "qemu", "unit-asan", "own", "compdb",
               # what the test and measurement tools leave: a Linux guest's
               # packages (build/compare-linux is near 1 GB), disk images
               "compare-linux", "ext3-linux", "ext2-bigdir", "grade-ssh", "perf",
               "powercut", "stress", "faults", "fuzz", "gdb"}


def copy_build(tree, root=ROOT):
    """Copy what is built in root into tree/build (not the runs' outputs or
    disk images), keeping times, so that make in tree rebuilds only what
    tree's own newer files change (a build from nothing takes minutes)."""
    build = root / "build"

    def skip(folder, names):
        # sockets and FIFOs a run left behind (tools/nbdcache.py's NBD
        # socket) cannot be copied, and are no part of a build
        odd = [n for n in names
               if stat.S_ISSOCK(os.lstat(os.path.join(folder, n)).st_mode) or
               stat.S_ISFIFO(os.lstat(os.path.join(folder, n)).st_mode)]
        if Path(folder) != build:
            return odd
        return odd + [n for n in names if n in RUN_OUTPUTS or n.startswith("disk-")]
    if build.exists():
        shutil.copytree(build, tree / "build", symlinks=True, ignore=skip)


def align_times(tree, root=ROOT):
    """After copy_build(): each of tree's files that reads as root's gets
    root's time, and every other file the time now.  make decides by
    times alone, and a submission's files carry whatever times its
    author's machine gave them -- an edited file older than root's
    objects would not be compiled.  Now make sees in tree what it sees
    in root, except that whatever differs is newer than every object."""
    import filecmp
    import time
    now = time.time()
    for dirpath, dirnames, filenames in os.walk(tree):
        rel = Path(dirpath).relative_to(tree)
        dirnames[:] = [d for d in dirnames if not (rel == Path(".") and d in ("build", ".git"))]
        for name in filenames:
            f = Path(dirpath) / name
            if f.is_symlink():
                continue
            ref = root / rel / name
            if ref.is_file() and not ref.is_symlink() and filecmp.cmp(ref, f, shallow=False):
                st = ref.stat()
                os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
            else:
                os.utime(f, (now, now))


def write_tree(lab, dest, stubbed=None):
    """Lab's tree in dest.  stubbed: the labs whose regions it stubs, if
    not lab's alone (tools/test-labs.py's check 3: every lab but one and
    those it uses, at once); lab is then the tree's .lab/lab."""
    labs = lab_dirs()
    if lab not in labs:
        raise SystemExit("mklab: no lab %d (labs: %s)" % (lab, ", ".join(map(str, sorted(labs)))))
    stubbed = {lab} if stubbed is None else set(stubbed)
    handout = {n: "labs/%s/README.md" % labs[n].name for n in labs}
    if dest.exists() and any(dest.iterdir()):
        raise SystemExit("mklab: %s exists and is not empty: choose a new folder" % dest)
    marked = all_regions()
    for m in sorted(stubbed):
        if not any(n == m for regs in marked.values() for (n, *_rest) in regs):
            raise SystemExit("mklab: lab %d marks no code (no /* LAB %d BEGIN */ anywhere)"
                             % (m, m))
    dest.mkdir(parents=True, exist_ok=True)
    manifest, tar_buf = [], io.BytesIO()
    with tarfile.open(fileobj=tar_buf, mode="w") as tar:
        for f in source_files():
            if withheld(f):
                continue
            src, dst = ROOT / f, dest / f
            dst.parent.mkdir(parents=True, exist_ok=True)
            if f in marked:
                dst.write_text(transform(src.read_text(), stubbed, marked[f], handout))
                shutil.copymode(src, dst)
            else:
                shutil.copy2(src, dst)
            if protected(f):
                manifest.append("%s  %s\n" % (hashlib.sha256(dst.read_bytes()).hexdigest(), f))
                tar.add(dst, arcname=f)
    meta = dest / ".lab"
    meta.mkdir()
    (meta / "lab").write_text("%d\n" % lab)
    (meta / "manifest").write_text("".join(manifest))
    (meta / "pristine.tar").write_bytes(tar_buf.getvalue())
    if shutil.which("git"):
        git = ["git", "-c", "user.name=Spindle labs", "-c", "user.email=labs@spindle.invalid"]
        subprocess.run(git + ["init", "-q"], cwd=dest, check=True)
        subprocess.run(git + ["add", "-A"], cwd=dest, check=True)
        subprocess.run(git + ["commit", "-q", "-m",
                              "Spindle lab %d handout (%s)" % (lab, labs[lab].name)],
                       cwd=dest, check=True)
    removed = sum(1 for regs in marked.values() for r in regs if r[0] in stubbed)
    print("mklab: lab %d (%s) written to %s: %d region(s) to write; read %s"
          % (lab, labs[lab].name, dest, removed, handout[lab]) +
          ("" if stubbed == {lab} else " (labs %s stubbed)" % ",".join(map(str, sorted(stubbed)))))


def main(argv=None):
    ap = argparse.ArgumentParser(description="Write a student's tree for one lab.")
    ap.add_argument("lab", nargs="?", type=int, help="the lab's number")
    ap.add_argument("dir", nargs="?", type=Path, help="the folder to create")
    ap.add_argument("--list", action="store_true", help="list the labs and their regions")
    ap.add_argument("--check", action="store_true", help="check every marker and exit")
    args = ap.parse_args(argv)
    try:
        marked = all_regions()
    except MarkerError as e:
        print("mklab: %s" % e, file=sys.stderr)
        return 1
    labs = lab_dirs()
    if args.check or args.list:
        bad = 0
        for n in sorted(labs):
            here = ["%s:%d" % (f, first + 1) for f, regs in sorted(marked.items())
                    for (m, first, *_rest) in regs if m == n]
            if args.list:
                print("%2d %-24s %s" % (n, labs[n].name, " ".join(here) or "(no code marked)"))
            if not here:
                print("mklab: lab %d marks no code" % n, file=sys.stderr)
                bad = 1
        stray = sorted({m for regs in marked.values() for (m, *_r) in regs} - set(labs))
        if stray:
            print("mklab: markers for labs without a folder: %s" % stray, file=sys.stderr)
            bad = 1
        return bad
    if args.lab is None or args.dir is None:
        ap.error("usage: mklab.py N DIR (make lab N=<n> DIR=<path>)")
    write_tree(args.lab, args.dir.expanduser().resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
