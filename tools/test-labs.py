#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test-labs.py [-j N] [LAB...] - prove the labs ask for what they say.

    make test-labs          every lab (CI runs it)
    tools/test-labs.py 3 5  some
    tools/test-labs.py --mutants-only 4    only lab 4's mutants (writing them)
    tools/test-labs.py --no-mutants        all but the mutants
    tools/test-labs.py --pairs             also every lab's boots in every
                                           skeleton (3 below: O(labs^2))

For the reference tree, every lab's skeleton and every lab's own tree it
checks three things:
  1. the reference tree (this one) gets full marks on every lab;
  2. lab N's skeleton (tools/mklab.py N) builds (on a copy of this
     tree's build/: only what the skeleton rewrote compiles again), and
     its own lab scores below full marks -- the lab really asks for
     something;
  3. no lab's tests need another lab's code, except a lab whose grading
     definition says `uses N` (its tests run lab N's code too, e.g. a
     stack of dm devices splits bios with lab 1's bio_split):
     a. in lab N's skeleton every other lab's unit tests still pass, and
     b. lab M's own tree -- this tree with the regions of every lab but
        M and those M uses stubbed at once, as each skeleton stubs them
        (build/labs/alone-M) -- gets full marks on lab M, boots included.
     3b replaces booting lab M in each of the other labs' skeletons: that
     was a grade per skeleton and lab, O(labs^2) boots (13 of the 19
     minutes `make test-labs` took with 10 labs, by the times of its
     build/labs/grade-*.txt); 3b is one grade of one lab
     per lab (in CI, idle machine: test-labs 1,162 s -> 691 s).  It proves more in one way and less in another: lab M
     passes without any of the others' code at once, not only without
     one at a time; but a stub that breaks lab M only while another
     lab's code is complete (one stub's harm hidden by another's) would
     pass 3b and fail the old check.  `tools/test-labs.py --pairs` also
     boots every lab in every skeleton, the old check, for when a lab or
     a stub changes.
First, before any build, the words about each lab must agree: the
banner grade.py prints (`== lab N: <the handout's title> ==`) wherever a
handout or doc shows one, the hours in labs/README.md's table and the
handout's estimate, the total points in the handout and the grade
file, the handout naming answers-labN.txt and time.txt (what the
graders collect), labs/README.md's row and the handout naming every
function that holds the lab's regions (what the student writes), every
path:line in labs/ pointing at what its text says is there (the
assertion, the quoted line, a name in backticks), and each row of
labs/README.md's repeat table counting as many verdicts as the lab has
tests.  Then the mutants: every labs/NN-name/mutants/*.patch is a plausible wrong
solution, written as a patch over the reference code of lab NN's regions
(its first line says what the mistake is).  Each is applied to a scratch
copy of this tree (build/labs/mutant-tree-K, with a copy of build/ so that
only what the patch touches is rebuilt), graded on its own lab cheapest
test first (tools/grade.py --until-caught: unit tests, then boots) until
one test is not OK, and the patch is taken out again.  A mutant that no
test catches, that does not apply, does not build, or changes code
outside its lab's regions is a problem.  Two trees grade at once.
Then a student's tampering: in lab 3's skeleton a test made to pass
whatever the code does, and the lab's points raised, must be restored by
the grader, which says so, and the score must stay the skeleton's.
Then the class grader (tools/grade-class.py) grades a folder of three lab 3
submissions -- the reference tree, the skeleton, and a half-done patch
(the plug attached and flushed, but no plug merge and no flush from
schedule()) -- and the CSV must rank them: full marks, least, between;
and it must count the reference's answers-lab3.txt and time.txt and find
the skeleton's missing.
Skeletons are written to build/labs/skel-N, lab N's own tree to
build/labs/alone-N, and graded N at a time (default 2: two guests at
once, which the verdicts must survive).  Prints a table
and exits 0 only if every check holds.
"""
import argparse
import concurrent.futures
import csv
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "labs"


sys.path.insert(0, str(ROOT / "tools"))
import mklab                            # noqa: E402  (the one list of labs)


def labs():
    return sorted(n for n, d in mklab.lab_dirs().items() if (d / "grade").exists())


def grade(tree, tag, build=True, which=None, boots=None):
    """Grade the labs which (default every lab) in tree, booting only the
    scenarios of the labs boots (default all); the JSON verdicts, or None
    if it did not run."""
    out = OUT / ("grade-" + tag)
    log = OUT / ("grade-%s.txt" % tag)
    if out.exists():
        shutil.rmtree(out)
    cmd = [sys.executable, str(tree / "tools" / "grade.py"), "--lab",
           ",".join(map(str, which or labs())), "--out", str(out),
           "--json", str(out / "verdicts.json")]
    if boots is not None:
        cmd += ["--boots", ",".join(map(str, boots))]
    if not build:
        cmd.append("--no-build")
    out.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as f:
        subprocess.run(cmd, cwd=tree, stdout=f, stderr=subprocess.STDOUT)
    try:
        return json.loads((out / "verdicts.json").read_text()), log
    except (OSError, ValueError):
        return None, log


def skeleton(n, pairs=False):
    """Lab n's skeleton, graded: every lab's unit tests, lab n's boots
    (with pairs, every lab's boots)."""
    tree = OUT / ("skel-%d" % n)
    if tree.exists():
        shutil.rmtree(tree)
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "mklab.py"), str(n), str(tree)],
                       cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        return ("skel", n), None, p.stdout.decode()
    # what this tree has built: the skeleton's rewritten files are newer
    # than it, so make rebuilds them and what depends on them, and
    # nothing else (each skeleton built from nothing took minutes)
    mklab.copy_build(tree)
    verdicts, log = grade(tree, "skel-%d" % n, boots=None if pairs else [n])
    return ("skel", n), verdicts, str(log)


def alone_stubbed(n, uses):
    """The labs whose regions lab n's own tree stubs: all but n and those it uses."""
    return sorted(set(labs()) - {n} - set(uses.get(str(n), [])))


def alone(n, uses):
    """Lab n's tests, in full, in a tree where every other lab's regions
    are stubbed at once but those of the labs n uses (check 3)."""
    tree = OUT / ("alone-%d" % n)
    if tree.exists():
        shutil.rmtree(tree)
    try:
        mklab.write_tree(n, tree, stubbed=alone_stubbed(n, uses))
    except SystemExit as e:
        return ("alone", n), None, str(e)
    mklab.copy_build(tree)
    verdicts, log = grade(tree, "alone-%d" % n, which=[n])
    return ("alone", n), verdicts, str(log)


# --- what the handouts say ---------------------------------------------------

HOURS_RE = re.compile(r"(?:About|Expected time:) (\d+)(?:-| to )(\d+) hours")
README_ROW_RE = re.compile(r"^\| (\d+) \| \[[^]]*\]\([^)]*\) \|.*\| ([^|]*) \|$", re.M)
BANNER_RE = re.compile(r"== lab (\d+): (.*?) ==")
TOTAL_RES = (re.compile(r"^\| \*\*(\d+)\*\* \|", re.M), re.compile(r"Score: X/(\d+)"),
             re.compile(r"grade` \((\d+) points\)"))


REPEAT_ROW_RE = re.compile(r"^\| (\d+) \| ([^|]*?) \| (\d+) \| [^|]*?/(\d+) in \d+ of \d+ \| "
                           r"\d+ \(([^)]*)\) \|", re.M)
# a C function's definition: its name at the start of a line, before "("
FUNCTION_RE = re.compile(r"^[A-Za-z_][\w \t*]*?\b(\w+)\s*\(")


def region_functions():
    """{lab: [(function, "file:line")]}: the functions whose bodies hold
    each lab's regions -- what the student writes."""
    out = {}
    for f, regs in sorted(mklab.all_regions().items()):
        lines = (ROOT / f).read_text().splitlines()
        for r in regs:
            lab, begin = r[0], r[1]
            for i in range(begin - 1, -1, -1):
                m = FUNCTION_RE.match(lines[i])
                if m and not lines[i].rstrip().endswith(";"):
                    out.setdefault(lab, []).append((m.group(1), "%s:%d" % (f, begin + 1)))
                    break
    return out


def names(text, function):
    """Does text name function in backticks (`f`, `f()`, `f(args)`)?"""
    return re.search(r"`%s(?:`|\()" % re.escape(function), text) is not None


FILE_LINE_RE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.(?:c|h|S|py|scn)):(\d+)(?::\d+)?")
IDENT_RE = re.compile(r"[A-Za-z_]\w*")
GCC_QUOTE_RE = re.compile(r"^\s*(\d+) \| (.*)$")


def squeeze(text):
    return re.sub(r"\s+", "", text)


def file_line_problems(doc):
    """Every path:line a document names must point at what it says is
    there: after "path:line: " an assertion (a failing test's line), the
    assertion there; a compiler error's quoted source line, that line but
    for the name the error is about; otherwise a name in backticks on the
    same line of the document, on that line of the file."""
    problems = []
    lines = doc.read_text().splitlines()
    for i, text in enumerate(lines):
        for m in FILE_LINE_RE.finditer(text):
            path, n = m.group(1), int(m.group(2))
            where = "%s:%d names %s:%d" % (doc.relative_to(ROOT), i + 1, path, n)
            f = ROOT / path
            if not f.is_file():
                problems.append("%s: no such file" % where)
                continue
            src = f.read_text(errors="replace").splitlines()
            if not 0 < n <= len(src):
                problems.append("%s: the file has %d lines" % (where, len(src)))
                continue
            after = text[m.end():]
            statement = squeeze(" ".join(src[n - 1:n + 4]))
            if re.match(r"^: (?:fatal )?(?:error|warning): ", after):
                quote = GCC_QUOTE_RE.match(lines[i + 1]) if i + 1 < len(lines) else None
                if not quote or int(quote.group(1)) != n:
                    problems.append("%s: a compiler error, but no quote of line %d under it"
                                    % (where, n))
                    continue
                about = set(re.findall(r"[\u2018']([A-Za-z_]\w*)[\u2019']", after))
                missing = set(IDENT_RE.findall(quote.group(2))) - about - \
                    set(IDENT_RE.findall(src[n - 1]))
                if missing:
                    problems.append("%s: the quoted line has %s, line %d does not: %s"
                                    % (where, ", ".join(sorted(missing)), n, src[n - 1].strip()))
            elif after.startswith(": "):
                expr = after[2:].split(": ")[0]
                if squeeze(expr) not in statement:
                    problems.append("%s: '%s' is not at that line: %s"
                                    % (where, expr, src[n - 1].strip()))
            else:
                named = re.findall(r"`([A-Za-z_]\w*)", text)
                if not named:
                    problems.append("%s: with no name in backticks on its line to check "
                                    "it against" % where)
                elif not any(re.search(r"\b%s\b" % x, src[n - 1]) for x in named):
                    problems.append("%s: line %d has none of %s: %s"
                                    % (where, n, ", ".join(named), src[n - 1].strip()))
    return problems


def handouts_check(wanted):
    """labs/README.md, the handouts and grade.py agree on each lab's banner,
    hours and total points; the disagreements."""
    import grade as grader              # tools/grade.py: the titles and points it uses
    problems = []
    graded = grader.all_labs()
    readme = (ROOT / "labs" / "README.md").read_text()
    hours = {int(n): h.strip() for n, h in README_ROW_RE.findall(readme)}
    docs = sorted((ROOT / "labs").glob("**/*.md")) + sorted((ROOT / "docs").glob("*.md"))
    for doc in docs:
        for n, title in BANNER_RE.findall(doc.read_text()):
            lab = graded.get(int(n))
            if lab and title != lab.title:
                problems.append("%s shows the banner '== lab %s: %s ==', grade.py prints "
                                "'== lab %s: %s =='" % (doc.relative_to(ROOT), n, title, n,
                                                        lab.title))
    for n in wanted:
        lab = graded[n]
        handout = lab.folder / "README.md"
        text = handout.read_text()
        said = HOURS_RE.findall(text)
        if len(said) != 1:
            problems.append("%s: %d estimates of the hours ('About N-M hours'), want one"
                            % (handout.relative_to(ROOT), len(said)))
        elif hours.get(n) != "%s-%s" % said[0]:
            problems.append("lab %d: labs/README.md says %s hours, its handout %s-%s"
                            % (n, hours.get(n), *said[0]))
        for name in ("answers-lab%d.txt" % n, "time.txt"):     # what grade.py collects
            if "`%s`" % name not in text:
                problems.append("%s never names `%s`, which the graders collect"
                                % (handout.relative_to(ROOT), name))
        total = sum(t.points for t in lab.tests)
        mentions = [int(x) for r in TOTAL_RES for x in r.findall(text)]
        if not mentions:
            problems.append("%s never says the lab's total (%d points)"
                            % (handout.relative_to(ROOT), total))
        for m in mentions:
            if m != total:
                problems.append("%s says %d points in all; its grade file gives %d"
                                % (handout.relative_to(ROOT), m, total))
    # what the student writes: every function holding a lab's region, by
    # name, in labs/README.md's row and in the handout
    rows = {int(n): row for n, row in re.findall(r"^\| (\d+) \| (\[.*)$", readme, re.M)}
    for n, fns in sorted(region_functions().items()):
        if n not in wanted:
            continue
        handout = graded[n].folder / "README.md"
        for fn, where in fns:
            if not names(rows.get(n, "").split(" | ")[1] if n in rows else "", fn):
                problems.append("labs/README.md's row for lab %d does not name `%s` (%s), "
                                "which the student writes" % (n, fn, where))
            if not names(handout.read_text(), fn):
                problems.append("%s does not name `%s` (%s), which the student writes"
                                % (handout.relative_to(ROOT), fn, where))
    for doc in sorted((ROOT / "labs").glob("**/*.md")):
        problems += file_line_problems(doc)
    # the measured repeats: each row's verdicts are as many as the lab's
    # tests, and its score out of the lab's total
    for n, tree, runs, possible, verdicts in REPEAT_ROW_RE.findall(readme):
        lab = graded.get(int(n))
        if not lab or int(n) not in wanted:
            continue
        counted = sum(int(x) for x in re.findall(r"(\d+) [A-Z]+", verdicts))
        if counted != len(lab.tests) or int(possible) != sum(t.points for t in lab.tests):
            problems.append("labs/README.md's repeat table, lab %s %s: %d verdicts out of %s "
                            "points, the lab has %d tests and %d points: measure it again "
                            "(tools/lab-repeat.py)" % (n, tree, counted, possible,
                                                       len(lab.tests),
                                                       sum(t.points for t in lab.tests)))
    print("handouts: %s" % ("banners, hours, totals, functions and repeats agree"
                            if not problems else "%d disagreement(s)" % len(problems)))
    return problems


# --- mutants ------------------------------------------------------------------

def mutant_patches(wanted):
    """[(lab, patch)] of every labs/NN-name/mutants/*.patch of the labs wanted."""
    out = []
    for n, d in sorted(mklab.lab_dirs().items()):
        if n in wanted:
            out += [(n, p) for p in sorted((d / "mutants").glob("*.patch"))]
    # those of one file one after the other: taking a patch out rebuilds
    # its file, which the next mutant of the same file rebuilds anyway
    return sorted(out, key=lambda m: (m[0], patched_files(m[1]), m[1].name))


def mutant_description(patch):
    first = patch.read_text().splitlines()[:1]
    return first[0].strip() if first and not first[0].startswith(("diff ", "--- ")) else ""


def patched_files(patch):
    return re.findall(r"^\+\+\+ b/(\S+)", patch.read_text(), re.M)


def mutant_tree(k):
    """A scratch copy of this tree and of what is built in it."""
    tree = OUT / ("mutant-tree-%d" % k)
    if tree.exists():
        shutil.rmtree(tree)
    for f in mklab.source_files():
        (tree / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, tree / f, follow_symlinks=False)
    mklab.copy_build(tree)
    return tree


def only_its_regions(lab, files, tree):
    """The files outside lab's regions, as the patch left them: they must
    read as in this tree, or the mutant is not a student's solution."""
    changed = []
    for f in files:
        before, after = (ROOT / f).read_text(), (tree / f).read_text()
        try:
            same = mklab.transform(before, lab, mklab.regions(f, before), "") == \
                mklab.transform(after, lab, mklab.regions(f, after), "")
        except mklab.MarkerError:
            same = False
        if not same:
            changed.append(f)
    return changed


def run_mutant(lab, patch, tree):
    """Apply, grade until caught, take out; a dict for the table."""
    r = {"lab": lab, "name": patch.stem, "what": mutant_description(patch), "problem": None,
         "caught_by": None, "score": "", "seconds": 0.0}
    start = time.monotonic()
    files = patched_files(patch)
    p = subprocess.run(["patch", "-p1", "--forward", "--batch", "--no-backup-if-mismatch",
                        "-r", "-", "-i", str(patch)], cwd=tree,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        if p.returncode != 0 or not files:
            r["problem"] = "does not apply to the reference: %s" % p.stdout.decode().strip()[-300:]
            return r
        if not r["what"]:
            r["problem"] = "its first line must say what the mistake is"
            return r
        outside = only_its_regions(lab, files, tree)
        if outside:
            r["problem"] = "changes %s outside lab %d's regions" % (", ".join(outside), lab)
            return r
        out = OUT / ("grade-mutant-%d-%s" % (lab, patch.stem))
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        env = dict(os.environ, GRADE_JOBS="1")
        with open(out / "grade.txt", "w") as f:
            subprocess.run([sys.executable, str(tree / "tools" / "grade.py"), "--lab", str(lab),
                            "--until-caught", "--out", str(out), "--json", str(out / "verdicts.json")],
                           cwd=tree, env=env, stdout=f, stderr=subprocess.STDOUT)
        try:
            v = json.loads((out / "verdicts.json").read_text())
        except (OSError, ValueError):
            r["problem"] = "the grader did not run (see %s)" % (out / "grade.txt")
            return r
        if not v["built"]:
            r["problem"] = "does not build (see %s): a mutant must compile" % (out / "build.log")
        elif v["caught_by"] is None:
            r["problem"] = "survives: full marks %d/%d (see %s)" % (v["possible"], v["possible"],
                                                                   out / "grade.txt")
            r["score"] = "%d/%d" % (v["possible"], v["possible"])
        else:
            c = v["caught_by"]
            r["caught_by"] = "%s (%s)" % (c["name"], c["verdict"])
            r["score"] = "<=%d/%d" % (v["at_most"], v["possible"])
        return r
    finally:
        for f in files:                 # the reference back, newer than the mutant's objects
            if (ROOT / f).exists():
                shutil.copyfile(ROOT / f, tree / f)
        r["seconds"] = time.monotonic() - start


MIN_MUTANTS = 6                 # wrong solutions every lab keeps


def mutants_check(wanted, jobs):
    """Every mutant of the labs wanted must be caught; the problems."""
    todo = mutant_patches(wanted)
    start = time.monotonic()
    trees = queue.Queue()
    for k in range(max(1, jobs) if todo else 0):
        trees.put(mutant_tree(k))

    def one(item):
        tree = trees.get()
        try:
            return run_mutant(item[0], item[1], tree)
        finally:
            trees.put(tree)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(one, todo)) if todo else []
    problems = []
    per_lab = {}
    print("%-3s %-30s %-9s %s" % ("lab", "mutant", "score", "caught by"))
    for r in results:
        per_lab[r["lab"]] = per_lab.get(r["lab"], 0) + 1
        print("%-3d %-30s %-9s %s  (%.0fs)" % (r["lab"], r["name"], r["score"] or "-",
                                              r["caught_by"] or "NOT CAUGHT: " + r["problem"],
                                              r["seconds"]))
        if r["problem"]:
            problems.append("lab %d mutant %s (%s): %s" % (r["lab"], r["name"], r["what"],
                                                           r["problem"]))
    for n in wanted:
        if per_lab.get(n, 0) < MIN_MUTANTS:
            problems.append("lab %d has %d mutants; every lab keeps at least %d"
                            % (n, per_lab.get(n, 0), MIN_MUTANTS))
    print("mutants: %d graded in %.0fs, %d caught" % (len(results), time.monotonic() - start,
                                                      sum(1 for r in results if r["caught_by"])))
    return problems


def tamper_check(lab=3, test_file="tests/unit/check_plug.c"):
    """A changed test and grading file in a graded skeleton; the problems."""
    tree = OUT / ("skel-%d" % lab)
    before = json.loads((OUT / ("grade-skel-%d" % lab) / "verdicts.json").read_text())
    f = tree / test_file
    f.write_text(f.read_text().replace("ck_assert", "(void)"))
    g = tree / "labs" / [d.name for d in (tree / "labs").glob("%02d-*" % lab)][0] / "grade"
    g.write_text(g.read_text().replace("\n5 ", "\n50 "))
    out = OUT / "grade-tamper"
    p = subprocess.run([sys.executable, str(tree / "tools" / "grade.py"), "--out", str(out),
                        "--json", str(out / "verdicts.json")], cwd=tree,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = p.stdout.decode(errors="replace")
    (OUT / "grade-tamper.txt").write_text(text)
    problems = []
    for changed in (test_file, str(g.relative_to(tree))):
        if "grade: %s was changed; restored" % changed not in text:
            problems.append("tampering: the grader did not report restoring %s (see %s)"
                            % (changed, OUT / "grade-tamper.txt"))
    after = json.loads((out / "verdicts.json").read_text())
    if (after["score"], after["possible"]) != (before["per_lab"][str(lab)][0],
                                               before["per_lab"][str(lab)][1]):
        problems.append("tampering changed the score: %d/%d, the skeleton had %s"
                        % (after["score"], after["possible"], before["per_lab"][str(lab)]))
    if p.returncode == 0:
        problems.append("grade.py exited 0 below full marks")
    print("tampering: %s, score %d/%d" % ("restored" if not problems else "NOT HANDLED",
                                         after["score"], after["possible"]))
    return problems


def class_check(lab=3, half_done_file="block/blk-plug.c"):
    """The class grader on three submissions; the problems found."""
    subs = OUT / "class-submissions"
    if subs.exists():
        shutil.rmtree(subs)
    subs.mkdir(parents=True)
    ref = subs / "reference"
    ref.mkdir()
    for f in mklab.source_files():
        (ref / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, ref / f)
    # what a student hands in besides code: the reference answers the
    # questions (seven words) and says 6 hours; the skeleton has neither
    (ref / ("answers-lab%d.txt" % lab)).write_text("1. Because the reserve is one bio.\n")
    (ref / "time.txt").write_text("6\n")
    skel = subs / "skeleton"
    subprocess.run([sys.executable, str(ROOT / "tools" / "mklab.py"), str(lab), str(skel)],
                   check=True, stdout=subprocess.DEVNULL)
    # half done: the skeleton with one file's regions written as the reference has them
    half = OUT / "class-half-done"
    if half.exists():
        shutil.rmtree(half)
    shutil.copytree(skel, half)
    marked = mklab.all_regions()
    text = (ROOT / half_done_file).read_text()
    (half / half_done_file).write_text(mklab.transform(text, 0, marked[half_done_file], ""))
    diff = subprocess.run(["git", "diff"], cwd=half, stdout=subprocess.PIPE, check=True).stdout
    (subs / "half-done.patch").write_bytes(diff)
    shutil.rmtree(skel / ".git")
    out_csv = OUT / "class.csv"
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "grade-class.py"), str(lab),
                        str(subs), str(out_csv)], cwd=ROOT)
    if p.returncode != 0 or not out_csv.exists():
        return ["class grader failed (exit %d)" % p.returncode]
    rows = {r["submission"]: r for r in csv.DictReader(open(out_csv))}
    print("class grader: " + ", ".join("%s %s/%s" % (n, r["total"], r["possible"])
                                       for n, r in sorted(rows.items())))
    try:
        full = int(rows["reference"]["possible"])
        got = {n: int(rows[n]["total"]) for n in ("reference", "skeleton", "half-done.patch")}
    except (KeyError, ValueError) as e:
        return ["class grader's CSV lacks a row or a number: %s (%s)" % (e, out_csv)]
    if not (got["reference"] == full and got["skeleton"] < got["half-done.patch"] < full):
        return ["class grader's ranking is wrong: %s of %d (%s)" % (got, full, out_csv)]
    handed = {n: (rows[n]["answers"], rows[n]["hours"]) for n in ("reference", "skeleton")}
    if handed != {"reference": ("7 words", "6"), "skeleton": ("missing", "missing")}:
        return ["class grader's answers and hours columns are wrong: %s (%s)" % (handed, out_csv)]
    return []


def main(argv=None):
    ap = argparse.ArgumentParser(description="Check every lab's skeleton against the grader.")
    ap.add_argument("labs", nargs="*", type=int)
    ap.add_argument("-j", dest="jobs", type=int, default=2)
    ap.add_argument("--no-class", action="store_true", help="skip the class grader's check")
    ap.add_argument("--no-mutants", action="store_true", help="skip the mutants")
    ap.add_argument("--pairs", action="store_true",
                    help="also boot every lab in every skeleton (O(labs^2) boots)")
    ap.add_argument("--mutants-only", action="store_true",
                    help="build this tree and check only the mutants (while writing them)")
    args = ap.parse_args(argv)
    wanted = args.labs or labs()
    OUT.mkdir(parents=True, exist_ok=True)
    problems = []
    problems += handouts_check(wanted)
    if args.mutants_only:
        subprocess.run(["make", "-C", str(ROOT), "-j2", "iso", "unit-progs"], check=True,
                       stdout=subprocess.DEVNULL)
        problems += mutants_check(wanted, args.jobs)
        for p in problems:
            print("test-labs: " + p)
        return 0 if not problems else 1

    ref, ref_log = grade(ROOT, "reference")
    if ref is None:
        print("test-labs: the reference grade did not run: see %s" % ref_log)
        return 1
    for n, (got, possible) in sorted(ref["per_lab"].items(), key=lambda x: int(x[0])):
        print("reference   lab %-2s %3d/%-3d %s" % (n, got, possible,
                                                   "ok" if got == possible else "NOT FULL MARKS"))
        if got != possible:
            problems.append("reference: lab %s scores %d/%d (see %s)" % (n, got, possible, ref_log))

    # lab n's skeleton and lab n's own tree, two trees at a time
    def one(job):
        return skeleton(job[1], args.pairs) if job[0] == "skel" else \
            alone(job[1], ref["uses"])
    jobs = [(kind, n) for n in wanted for kind in ("skel", "alone")]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(one, jobs))
    for (kind, n), verdicts, log in results:
        if verdicts is None:
            problems.append("lab %d %s: not graded (%s)" % (n, kind, log.strip()))
            print("%-8s %-2d not graded: %s" % (kind, n, log.strip()))
            continue
        if not verdicts["built"]:
            problems.append("lab %d %s tree does not build (see %s)" % (n, kind, log))
        if kind == "alone":
            got, possible = verdicts["per_lab"][str(n)]
            ok = got == possible
            print("alone    %-2d lab %-2d %3d/%-3d %-4s (labs %s stubbed: must be full marks)"
                  % (n, n, got, possible, "ok" if ok else "FAIL",
                     ",".join(map(str, alone_stubbed(n, ref["uses"])))))
            if not ok:
                problems.append("lab %d scores %d/%d with every lab it does not use stubbed "
                                "(labs %s): its tests need code of a lab its grade file does "
                                "not say it uses (see %s)"
                                % (n, got, possible,
                                   ",".join(map(str, alone_stubbed(n, ref["uses"]))), log))
            continue
        handed = sorted((OUT / ("skel-%d" % n) / "labs").glob("*/mutants"))
        if handed:
            problems.append("lab %d skeleton hands out the mutants (%s): their context lines "
                            "are the solution" % (n, handed[0]))
        for m, (got, possible) in sorted(verdicts["per_lab"].items(), key=lambda x: int(x[0])):
            m = int(m)
            uses = n in verdicts["uses"].get(str(m), [])
            ran = [t for t in verdicts["tests"] if t["lab"] == m and t["verdict"] != "SKIP"]
            if m == n:
                ok = got < possible
                what = "own lab, must be below full marks"
                shown = "%3d/%-3d" % (got, possible)
            else:
                # without --pairs, the unit tests only: lab m's boots are
                # checked in its own tree (3b)
                ran_ok = sum(t["points"] for t in ran if t["verdict"] == "OK")
                shown = "%3d/%-3d" % (ran_ok, sum(t["points"] for t in ran))
                if uses:
                    ok, what = True, "uses lab %d's code: any score" % n
                else:
                    ok = all(t["verdict"] == "OK" for t in ran)
                    what = ("must be full marks" if args.pairs else
                            "unit tests, must pass" if ran else "no unit tests")
            print("skeleton %-2d lab %-2d %s %-4s (%s)" % (n, m, shown,
                                                       "ok" if ok else "FAIL", what))
            if not ok:
                problems.append("lab %d skeleton: lab %d scores %s, %s (see %s)"
                                % (n, m, shown.replace(" ", ""), what, log))
    if not args.no_mutants:
        problems += mutants_check(wanted, args.jobs)
    if 3 in wanted:
        problems += tamper_check()
    if not args.no_class:
        problems += class_check()
    for p in problems:
        print("test-labs: " + p)
    print("test-labs: %s" % ("all labs hold" if not problems else "%d problem(s)" % len(problems)))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
