#!/usr/bin/env python3
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
Skeletons are written to build/labs/skel-N and graded N at a time (default
2: two guests at once, which the verdicts must survive).  Prints a table
and exits 0 only if every check holds.
"""
import argparse
import concurrent.futures
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "labs"


def labs():
    return sorted(int(d.name[:2]) for d in (ROOT / "labs").glob("[0-9][0-9]-*")
                  if (d / "grade").exists())


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


def main(argv=None):
    ap = argparse.ArgumentParser(description="Check every lab's skeleton against the grader.")
    ap.add_argument("labs", nargs="*", type=int)
    ap.add_argument("-j", dest="jobs", type=int, default=2)
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
    for p in problems:
        print("test-labs: " + p)
    print("test-labs: %s" % ("all labs hold" if not problems else "%d problem(s)" % len(problems)))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
