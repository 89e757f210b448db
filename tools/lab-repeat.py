#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lab-repeat.py LAB [RUNS] [-j N] [--tree DIR] - do a lab's verdicts repeat?

    tools/lab-repeat.py 3 50 -j 3                  the reference, 50 grades, 3 at once
    tools/lab-repeat.py 3 50 -j 3 --tree build/labs/skel-3   a wrong solution

Builds the tree once, then grades LAB in it RUNS times (default 50), N
graders at once (default 3: several guests share the machine's cores, as
in a lab room's grading server), each with its own log folder
(build/repeat/<tree>-<lab>/<run>/).  Prints how many runs gave each
score and each list of verdicts; a lab's verdicts repeat when one line
says RUNS of RUNS.  Exit 0 only then.
"""
import argparse
import collections
import concurrent.futures
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None):
    ap = argparse.ArgumentParser(description="Grade a lab many times; count the verdicts.")
    ap.add_argument("lab", type=int)
    ap.add_argument("runs", type=int, nargs="?", default=50)
    ap.add_argument("-j", dest="jobs", type=int, default=3)
    ap.add_argument("--tree", type=Path, default=ROOT, help="the tree to grade (default: this one)")
    args = ap.parse_args(argv)
    tree = args.tree.resolve()
    out = ROOT / "build" / "repeat" / ("%s-%d" % (tree.name, args.lab))
    out.mkdir(parents=True, exist_ok=True)
    b = subprocess.run(["make", "-C", str(tree), "-j2", "iso", "unit-progs"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    if b.returncode != 0:
        print("lab-repeat: %s does not build" % tree)
        return 2

    def one(i):
        d = out / str(i)
        d.mkdir(exist_ok=True)
        with open(d / "grade.txt", "w") as f:
            subprocess.run([sys.executable, str(tree / "tools" / "grade.py"), "--no-build",
                            "--lab", str(args.lab), "--out", str(d), "--json",
                            str(d / "verdicts.json")], cwd=tree, stdout=f,
                           stderr=subprocess.STDOUT)
        v = json.loads((d / "verdicts.json").read_text())
        return ("%d/%d" % (v["score"], v["possible"]),
                tuple("%s %s" % (t["verdict"], t["name"]) for t in v["tests"]))

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(one, range(args.runs)))
    scores = collections.Counter(r[0] for r in results)
    verdicts = collections.Counter(r[1] for r in results)
    print("lab %d, %s, %d runs, %d at once:" % (args.lab, tree.name, args.runs, args.jobs))
    for score, n in scores.most_common():
        print("  Score %s: %d of %d runs" % (score, n, args.runs))
    for i, (v, n) in enumerate(verdicts.most_common()):
        bad = [x for x in v if not x.startswith("OK ")]
        print("  verdicts #%d (%d of %d runs): %d OK, %s" % (i + 1, n, args.runs, len(v) - len(bad),
                                                           "; ".join(bad) or "nothing else"))
    return 0 if len(verdicts) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
