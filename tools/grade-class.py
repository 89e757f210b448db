#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""grade-class.py LAB SUBMISSIONS OUT.csv [-j N] [--sshloginfile FILE] - grade a class.

    tools/grade-class.py 3 ~/class/lab3 lab3.csv
    tools/grade-class.py 3 ~/class/lab3 lab3.csv -j 4 --sshloginfile machines

SUBMISSIONS is a folder with one entry per student:
    <name>/                a Spindle tree (the student's lab folder, or a clone of it)
    <name>.patch|.diff     a patch against LAB's skeleton (`git diff` in the
                           student's tree): applied to a fresh one
                           (tools/mklab.py); one that does not apply is a
                           row with its reason, not a grade
Each is copied into build/class/<name>/, and this tree's own grading files
and tests (the manifest mklab.py protects: labs/, every test under tests/,
the judging tools) are written over the copy, so that nothing
a student changed there counts.  Then tools/grade.py grades LAB in it.

The submissions are graded in parallel by GNU parallel (-j jobs at once,
default 2; its --sshloginfile spreads a large class over several machines:
each must have this repository at the same path, and SUBMISSIONS and
build/class on a shared file system).  OUT.csv gets one row per
submission: name, lab, the points of each graded test (a column per line
of labs/NN-name/grade), total, possible, and the reasons of every test not
OK (TIMEOUT or FAIL, with its first reason).  Logs stay in
build/class/<name>/build/grade/.
"""
import argparse
import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "class"
sys.path.insert(0, str(ROOT / "tools"))
import mklab                            # noqa: E402


def submissions(folder):
    out = []
    for p in sorted(folder.iterdir()):
        if p.is_dir() or p.suffix in (".patch", ".diff"):
            out.append(p)
    return out


def prepare(lab, sub, ws):
    """Make ws the tree to grade; returns None or the reason it cannot be."""
    if ws.exists():
        shutil.rmtree(ws)
    if sub.is_dir():
        shutil.copytree(sub, ws, symlinks=True,
                        ignore=shutil.ignore_patterns("build", ".git"))
    else:
        subprocess.run([sys.executable, str(ROOT / "tools" / "mklab.py"), str(lab), str(ws)],
                       check=True, stdout=subprocess.DEVNULL)
        apply = ["git", "apply", "--whitespace=nowarn", str(sub.resolve())]
        p = subprocess.run(apply, cwd=ws, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode != 0:
            # (never onto the reference: that already holds the solution)
            return "the patch does not apply to lab %d's skeleton: %s" \
                % (lab, " ".join(p.stdout.decode(errors="replace").strip().splitlines()[:1]))
    # This tree's grader and tests, whatever the submission holds.
    for f in mklab.source_files():
        if mklab.protected(f):
            (ws / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, ws / f)
    shutil.rmtree(ws / ".lab", ignore_errors=True)     # the grader checks against this tree
    return None


def grade_one(lab, sub, ws):
    """Grade one submission (run by GNU parallel); writes <ws>.json.  Any
    failure is that submission's row, never the class run's end."""
    verdicts, log = Path(ws + ".json"), Path(ws + ".log")
    try:
        why = prepare(lab, Path(sub), Path(ws))
    except (OSError, subprocess.CalledProcessError, shutil.Error) as e:
        why = "cannot prepare the submission: %s" % e
    if why:
        verdicts.write_text(json.dumps({"error": why}) + "\n")
        return 0
    with open(log, "w") as f:
        subprocess.run([sys.executable, str(Path(ws) / "tools" / "grade.py"), "--lab", str(lab),
                        "--json", str(verdicts)], cwd=ws, stdout=f, stderr=subprocess.STDOUT)
    if not verdicts.exists():
        verdicts.write_text(json.dumps({"error": "the grader did not finish: see %s" % log}) + "\n")
    return 0


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--one"]:
        return grade_one(int(argv[1]), argv[2], argv[3])
    ap = argparse.ArgumentParser(description="Grade a folder of lab submissions into a CSV.")
    ap.add_argument("lab", type=int)
    ap.add_argument("submissions", type=Path)
    ap.add_argument("csv", type=Path)
    ap.add_argument("-j", dest="jobs", type=int, default=2, help="submissions at once (default 2)")
    ap.add_argument("--sshloginfile", help="GNU parallel's --sshloginfile (several machines)")
    args = ap.parse_args(argv)

    labs = mklab.lab_dirs()
    if args.lab not in labs:
        ap.error("no lab %d" % args.lab)
    if not shutil.which("parallel"):
        print("grade-class: GNU parallel is missing (make deps installs it)", file=sys.stderr)
        return 2
    subs = submissions(args.submissions)
    if not subs:
        print("grade-class: no submissions in %s" % args.submissions, file=sys.stderr)
        return 2
    stems = [s.stem for s in subs]
    twice = sorted({n for n in stems if stems.count(n) > 1})
    if twice:
        print("grade-class: two submissions share a name: %s (e.g. a folder and a patch)"
              % ", ".join(twice), file=sys.stderr)
        return 2
    WORK.mkdir(parents=True, exist_ok=True)
    jobs = ["%s\t%s" % (s.resolve(), WORK / s.stem) for s in subs]
    cmd = ["parallel", "--colsep", "\t", "-j", str(args.jobs), "--joblog", str(WORK / "joblog")]
    if args.sshloginfile:
        cmd += ["--sshloginfile", args.sshloginfile]
    cmd += [sys.executable, str(Path(__file__).resolve()), "--one", str(args.lab), "{1}", "{2}"]
    subprocess.run(cmd, input="\n".join(jobs) + "\n", text=True)

    names = None
    rows = []
    for s in subs:
        try:
            v = json.loads((WORK / (s.stem + ".json")).read_text())
        except (OSError, ValueError):
            v = {"error": "no verdicts (see %s)" % (WORK / (s.stem + ".log"))}
        if "error" in v:
            rows.append((s.name, v, None))
            continue
        names = names or [t["name"] for t in v["tests"]]
        rows.append((s.name, v, {t["name"]: t for t in v["tests"]}))
    if names is None:           # nothing graded: the header from the definition
        names = []
    with open(args.csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["submission", "lab"] + names + ["total", "possible", "problems"])
        for name, v, tests in rows:
            if tests is None:
                w.writerow([name, args.lab] + [0] * len(names) + [0, "", "ERROR: " + v["error"]])
                continue
            problems = ["%s %s: %s" % (t["verdict"], n, t["why"]) for n, t in tests.items()
                        if t["verdict"] != "OK"]
            w.writerow([name, args.lab] + [tests[n]["earned"] if n in tests else 0 for n in names]
                       + [v["score"], v["possible"], " | ".join(problems)])
    print("grade-class: %d submission(s) of lab %d graded into %s"
          % (len(rows), args.lab, args.csv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
