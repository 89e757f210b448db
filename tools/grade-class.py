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
a student changed there counts.  The copy starts from what this tree has
built (build/, with the times of the files that differ from this tree's
set to now: tools/mklab.py's align_times), so only what the student
changed is compiled; --clean-build builds each from nothing.  Then
tools/grade.py grades LAB in it.

The submissions are graded in parallel by GNU parallel (-j jobs at once,
default 2; its --sshloginfile spreads a large class over several machines:
each must have this repository at the same path, and SUBMISSIONS and
build/class on a shared file system; a submission whose machine dies or
drops the connection is tried again on another, --retries times).  OUT.csv gets one row per
submission: name, lab, the points of each graded test (a column per line
of labs/NN-name/grade), total, possible, answers (the words of the
student's answers-labN.txt, or "missing"), hours (the number in their
time.txt, or "missing"), and the reasons of every test not OK (TIMEOUT or
FAIL, with its first reason) -- every cell on one line.  The terminal
gets a line per submission: score, answers, hours and the first problem.
Logs stay in build/class/<name>/build/grade/.

    tools/grade-class.py --selftest    the CSV and summary from made-up verdicts
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


def prepare(lab, sub, ws, reuse_build=True):
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
    if reuse_build:
        # start from what this tree has built: only what the submission
        # changed is compiled (seconds, not minutes, per student)
        mklab.copy_build(ws)
        mklab.align_times(ws)
    return None


def grade_one(lab, sub, ws, reuse_build=True):
    """Grade one submission (run by GNU parallel); writes <ws>.json.  Any
    failure is that submission's row, never the class run's end."""
    verdicts, log = Path(ws + ".json"), Path(ws + ".log")
    verdicts.unlink(missing_ok=True)    # an earlier run's, or a killed try's
    try:
        why = prepare(lab, Path(sub), Path(ws), reuse_build)
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


def one_line(text):
    """A CSV cell on one line: a reason's lines joined with " / "."""
    return " / ".join(x.strip() for x in str(text).splitlines() if x.strip())


def collect(subs, work):
    """[(name, verdicts or {"error": why}, {test name: test} or None)]."""
    rows = []
    for s in subs:
        try:
            v = json.loads((work / (s.stem + ".json")).read_text())
        except (OSError, ValueError):
            v = {"error": "no verdicts (see %s)" % (work / (s.stem + ".log"))}
        rows.append((s.name, v, None if "error" in v else {t["name"]: t for t in v["tests"]}))
    return rows


def answers_cell(v):
    a = (v.get("handed_in") or {}).get("answers")
    if not a:
        return "-"
    return "missing" if a["words"] is None else "%d words" % a["words"]


def hours_cell(v):
    t = (v.get("handed_in") or {}).get("time")
    if not t:
        return "-"
    if t["hours"] is not None:
        return "%g" % t["hours"]
    return "missing" if t["text"] is None else "not a number: " + t["text"]


def problems(v, tests):
    """The reasons of a row, each on one line: the error, the build's first
    error, or every test not OK with its first reason."""
    if tests is None:
        return ["ERROR: " + one_line(v["error"])]
    if not v.get("built", True) and v.get("build_error"):
        return ["FAIL " + one_line(v["build_error"])]
    return ["%s %s: %s" % (t["verdict"], n, one_line(t["why"])) for n, t in tests.items()
            if t["verdict"] != "OK"]


CSV_TAIL = ["total", "possible", "answers", "hours", "problems"]


def write_csv(path, lab, rows):
    """One row per submission: name, lab, the points of each graded test,
    total, possible, answers-labN.txt (its words, or missing), time.txt
    (the hours, or missing), and the problems -- every cell one line."""
    names = next((list(tests) for _, _, tests in rows if tests), [])
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["submission", "lab"] + names + CSV_TAIL)
        for name, v, tests in rows:
            if tests is None:
                w.writerow([name, lab] + [0] * len(names) + [0, "", "-", "-"] +
                           [" | ".join(problems(v, tests))])
                continue
            w.writerow([name, lab] + [tests[n]["earned"] if n in tests else 0 for n in names]
                       + [v["score"], v["possible"], answers_cell(v), hours_cell(v),
                          " | ".join(problems(v, tests))])


def summary(rows, width=100):
    """The class on the terminal: a line per submission (score, answers,
    hours, the first problem and how many there are)."""
    out = ["%-20s %-9s %-10s %-7s %s" % ("submission", "score", "answers", "hours",
                                         "problems (the first)")]
    for name, v, tests in rows:
        score = "-" if tests is None else "%d/%d" % (v["score"], v["possible"])
        probs = problems(v, tests)
        first = probs[0] if probs else "-"
        if len(probs) > 1:
            first = "(1 of %d) %s" % (len(probs), first)
        hours = hours_cell(v) if tests else "-"
        if hours.startswith("not a number"):
            hours = "?"                 # the CSV says what time.txt holds
        line = "%-20s %-9s %-10s %-7s %s" % (name, score, answers_cell(v) if tests else "-",
                                             hours, first)
        out.append(line if len(line) <= width else line[:width - 3] + "...")
    return "\n".join(out)


def selftest():
    """The CSV and the summary from made-up verdicts (no grading)."""
    import tempfile
    work = Path(tempfile.mkdtemp(prefix="grade-class-selftest-"))
    ok = {"score": 80, "possible": 80, "built": True,
          "handed_in": {"answers": {"file": "answers-lab3.txt", "words": 412},
                        "time": {"file": "time.txt", "hours": 6.5, "text": "6.5"}},
          "tests": [{"name": "check_plug: a", "verdict": "OK", "earned": 70, "why": ""},
                    {"name": "scenario lab3-plug", "verdict": "OK", "earned": 10, "why": ""}]}
    bad = {"score": 0, "possible": 80, "built": True,
           "handed_in": {"answers": {"file": "answers-lab3.txt", "words": None},
                         "time": {"file": "time.txt", "hours": None, "text": "about six"}},
           "tests": [{"name": "check_plug: a", "verdict": "FAIL", "earned": 0,
                      "why": "a: Assertion 'x == 1' failed: x == 0, 1 == 1"},
                     {"name": "scenario lab3-plug", "verdict": "TIMEOUT", "earned": 0,
                      "why": "timed out after 60s: QEMU killed; expected exit: pass\n"
                             "expect (line 9) not found: ^PATTERN"}]}
    nobuild = dict(bad, built=False, build_error="the tree does not build; the first error:\n"
                   "  block/blk-plug.c:42:9: error: 'x' undeclared\n     42 |  x = 1;",
                   handed_in={"answers": {"file": "answers-lab3.txt", "words": 0},
                              "time": {"file": "time.txt", "hours": None, "text": None}})
    subs = []
    for name, v in (("alice", ok), ("bob", bad), ("carol", nobuild)):
        (work / (name + ".json")).write_text(json.dumps(v))
        subs.append(work / name)
    (work / "dave.json").write_text(json.dumps({"error": "the patch does not apply:\nat line 3"}))
    subs.append(work / "dave.patch")
    rows = collect(subs, work)
    write_csv(work / "class.csv", 3, rows)
    text = (work / "class.csv").read_text()
    got = list(csv.DictReader(open(work / "class.csv")))
    failures = []

    def want(cond, what):
        if not cond:
            failures.append(what)
    want(len(text.splitlines()) == 5, "a header and four rows, each on one line:\n" + text)
    want(list(got[0])[-5:] == CSV_TAIL, "the last columns: %s" % list(got[0]))
    a, b, c, d = got
    want((a["total"], a["answers"], a["hours"], a["problems"]) == ("80", "412 words", "6.5", ""),
         "alice: %s" % a)
    want((b["answers"], b["hours"]) == ("missing", "not a number: about six"), "bob: %s" % b)
    want("TIMEOUT scenario lab3-plug: timed out after 60s: QEMU killed; expected exit: pass"
         " / expect (line 9) not found: ^PATTERN" in b["problems"], "bob: %s" % b["problems"])
    want(c["answers"] == "0 words" and c["hours"] == "missing", "carol: %s" % c)
    want(c["problems"].startswith("FAIL the tree does not build; the first error: / "
                                  "block/blk-plug.c:42:9: error:"), "carol: %s" % c["problems"])
    want(d["problems"] == "ERROR: the patch does not apply: / at line 3", "dave: %s" % d)
    table = summary(rows).splitlines()
    want(len(table) == 5, "the summary: a header and a line per submission")
    want(table[1].split()[:4] == ["alice", "80/80", "412", "words"], table[1])
    want("(1 of 2) FAIL check_plug: a:" in table[2], table[2])
    want(table[2].split()[3] == "?", "bob's hours: " + table[2])
    want(table[4].split()[:2] == ["dave.patch", "-"] and "ERROR" in table[4], table[4])
    want(all(len(x) <= 100 for x in table), "summary lines over 100 characters")
    shutil.rmtree(work)
    for f in failures:
        print("grade-class selftest: " + f)
    print("grade-class selftest: %s" % ("ok" if not failures else "%d failure(s)" % len(failures)))
    return 1 if failures else 0


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--one"]:
        return grade_one(int(argv[1]), argv[2], argv[3], reuse_build=argv[4:5] != ["clean"])
    if argv[:1] == ["--selftest"]:
        return selftest()
    ap = argparse.ArgumentParser(description="Grade a folder of lab submissions into a CSV.")
    ap.add_argument("lab", type=int)
    ap.add_argument("submissions", type=Path)
    ap.add_argument("csv", type=Path)
    ap.add_argument("-j", dest="jobs", type=int, default=2, help="submissions at once (default 2)")
    ap.add_argument("--sshloginfile", help="GNU parallel's --sshloginfile (several machines)")
    ap.add_argument("--retries", type=int, default=3,
                    help="with --sshloginfile: tries of a submission whose machine failed, "
                    "each on another machine if there is one (default 3)")
    ap.add_argument("--clean-build", action="store_true",
                    help="build each submission from nothing, not from this tree's build/")
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
    for s in subs:                      # a row comes from this run or says why not
        (WORK / (s.stem + ".json")).unlink(missing_ok=True)
    jobs = ["%s\t%s" % (s.resolve(), WORK / s.stem) for s in subs]
    cmd = ["parallel", "--colsep", "\t", "-j", str(args.jobs), "--joblog", str(WORK / "joblog")]
    if args.sshloginfile:
        # grade_one() always exits 0: a failed try is its machine's (ssh
        # says 255 when the machine or the connection dies), so it is
        # tried again, on another machine where there is one
        cmd += ["--sshloginfile", args.sshloginfile, "--retries", str(args.retries)]
    cmd += [sys.executable, str(Path(__file__).resolve()), "--one", str(args.lab), "{1}", "{2}",
            "clean" if args.clean_build else "reuse"]
    subprocess.run(cmd, input="\n".join(jobs) + "\n", text=True)

    rows = collect(subs, WORK)
    write_csv(args.csv, args.lab, rows)
    print(summary(rows))
    print("grade-class: %d submission(s) of lab %d graded into %s"
          % (len(rows), args.lab, args.csv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
