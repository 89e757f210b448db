#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test-labs.py [-j N] [LAB...] - prove the labs ask for what they say.

    make test-labs          every lab (CI runs it)
    tools/test-labs.py 3 5  some

For the reference tree and for every lab's skeleton this grades every lab
and checks three things:
  1. the reference tree (this one) gets full marks on every lab;
  2. lab N's skeleton (tools/mklab.py N) builds, and its own lab scores
     below full marks -- the lab really asks for something;
  3. in lab N's skeleton every other lab still gets full marks, except a
     lab whose grading definition says `uses N` (its tests run lab N's code
     too, e.g. a stack of dm devices splits bios with lab 1's bio_split).
Then a student's tampering: in lab 3's skeleton a test made to pass
whatever the code does, and the lab's points raised, must be restored by
the grader, which says so, and the score must stay the skeleton's.
Then the class grader (tools/grade-class.py) grades a folder of three lab 3
submissions -- the reference tree, the skeleton, and a half-done patch
(the plug attached and flushed, but no plug merge and no flush from
schedule()) -- and the CSV must rank them: full marks, least, between.
Skeletons are written to build/labs/skel-N and graded N at a time (default
2: two guests at once, which the verdicts must survive).  Prints a table
and exits 0 only if every check holds.
"""
import argparse
import concurrent.futures
import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "labs"


sys.path.insert(0, str(ROOT / "tools"))
import mklab                            # noqa: E402  (the one list of labs)


def labs():
    return sorted(n for n, d in mklab.lab_dirs().items() if (d / "grade").exists())


def grade(tree, tag, build=True):
    """Grade every lab in tree; the JSON verdicts, or None if it did not run."""
    out = OUT / ("grade-" + tag)
    log = OUT / ("grade-%s.txt" % tag)
    cmd = [sys.executable, str(tree / "tools" / "grade.py"), "--lab",
           ",".join(map(str, labs())), "--out", str(out), "--json", str(out / "verdicts.json")]
    if not build:
        cmd.append("--no-build")
    out.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as f:
        subprocess.run(cmd, cwd=tree, stdout=f, stderr=subprocess.STDOUT)
    try:
        return json.loads((out / "verdicts.json").read_text()), log
    except (OSError, ValueError):
        return None, log


def skeleton(n):
    tree = OUT / ("skel-%d" % n)
    if tree.exists():
        shutil.rmtree(tree)
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "mklab.py"), str(n), str(tree)],
                       cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        return n, None, p.stdout.decode()
    verdicts, log = grade(tree, "skel-%d" % n)
    return n, verdicts, str(log)


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
    return []


def main(argv=None):
    ap = argparse.ArgumentParser(description="Check every lab's skeleton against the grader.")
    ap.add_argument("labs", nargs="*", type=int)
    ap.add_argument("-j", dest="jobs", type=int, default=2)
    ap.add_argument("--no-class", action="store_true", help="skip the class grader's check")
    args = ap.parse_args(argv)
    wanted = args.labs or labs()
    OUT.mkdir(parents=True, exist_ok=True)
    problems = []

    ref, ref_log = grade(ROOT, "reference")
    if ref is None:
        print("test-labs: the reference grade did not run: see %s" % ref_log)
        return 1
    for n, (got, possible) in sorted(ref["per_lab"].items(), key=lambda x: int(x[0])):
        print("reference   lab %-2s %3d/%-3d %s" % (n, got, possible,
                                                   "ok" if got == possible else "NOT FULL MARKS"))
        if got != possible:
            problems.append("reference: lab %s scores %d/%d (see %s)" % (n, got, possible, ref_log))

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(skeleton, wanted))
    for n, verdicts, log in sorted(results, key=lambda r: r[0]):
        if verdicts is None:
            problems.append("lab %d skeleton: not graded (%s)" % (n, log.strip()))
            print("skeleton %-2d not graded: %s" % (n, log.strip()))
            continue
        if not verdicts["built"]:
            problems.append("lab %d skeleton does not build (see %s)" % (n, log))
        for m, (got, possible) in sorted(verdicts["per_lab"].items(), key=lambda x: int(x[0])):
            m = int(m)
            uses = n in verdicts["uses"].get(str(m), [])
            if m == n:
                ok = got < possible
                what = "own lab, must be below full marks"
            elif uses:
                ok, what = True, "uses lab %d's code: any score" % n
            else:
                ok = got == possible
                what = "must be full marks"
            print("skeleton %-2d lab %-2d %3d/%-3d %-4s (%s)" % (n, m, got, possible,
                                                               "ok" if ok else "FAIL", what))
            if not ok:
                problems.append("lab %d skeleton: lab %d scores %d/%d, %s (see %s)"
                                % (n, m, got, possible, what, log))
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
