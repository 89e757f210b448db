#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cscan-model.py LOG [--dev MAJ,MIN] - judge a trace's dispatches against C-SCAN.

LOG holds a block trace in blkparse's layout (a serial log of a boot with
blktrace=<disk> show=blktrace, as tools/trace-report.py reads).  The trace
says what the elevator was given and when: I (a request inserted), F (a
bio merged at a queued request's front: its start moves down) and D (a
request sent to the driver).  This script replays those events into a
reference C-SCAN written apart from block/cscan-iosched.c and requires
every D to be the request the reference would choose at that moment:

    the queued request with the lowest start sector at or above the head,
    or, when there is none, the lowest of all (the wrap); the head is
    then the end sector of the request dispatched.

Because the reference sees the insertions in the order this run made
them, a run whose requests arrived in another order than a previous run
is judged on its own arrivals: a correct elevator never fails it, and a
wrong one fails whatever the timing.  Requests that a dispatched request
swallowed (merged into it while queued: same operation, a start inside
it) leave the model with it; two requests that start at the same sector
(a read and a write of one block) stay two.  Requeued and at-head
requests (flushes), which skip the sweep, are not modelled: judge a
trace without them.

Exit status 0 when every dispatch matches (prints a one-line summary), 1
with the first mismatch (what was queued, what the reference chose, what
the trace shows), 2 on bad input (no dispatches found).
"""
import argparse
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("trace_report", HERE / "trace-report.py")
trace_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(trace_report)


def op_of(rwbs):
    return "W" if "W" in rwbs else "D" if "D" in rwbs else "R"


def reference_choice(queued, head):
    """C-SCAN: the lowest start at or above head, else the lowest of all."""
    starts = [s for s, _ in queued]
    above = [s for s in starts if s >= head]
    return min(above) if above else min(starts)


def judge(events):
    """(ok, message) for the trace's I/F/D events."""
    queued = []                 # (start sector, op) of requests in the elevator
    head, dispatched = 0, 0
    for n, ev in enumerate(events):
        act, sector = ev["action"], ev["sector"]
        if sector is None:
            continue
        op = op_of(ev["rwbs"])
        if act == "I":
            queued.append((sector, op))
        elif act == "F":
            end = sector + ev["sectors"]
            if (end, op) in queued:         # the request starting at end grew down
                queued[queued.index((end, op))] = (sector, op)
        elif act == "D":
            if not queued:
                return False, ("event %d: D %d + %d with nothing queued in the model "
                               "(is every I in the trace?)" % (n, sector, ev["sectors"]))
            want = reference_choice(queued, head)
            if sector != want:
                return False, ("dispatch %d: the trace sends %d + %d, C-SCAN would send %d "
                               "(head %d; queued: %s)"
                               % (dispatched + 1, sector, ev["sectors"], want, head,
                                  " ".join(str(s) for s, _ in sorted(queued))))
            end = sector + ev["sectors"]
            mine = (sector, op) if (sector, op) in queued else \
                next(q for q in queued if q[0] == sector)
            queued.remove(mine)
            # requests merged into it while queued: its op, a start inside it
            queued = [q for q in queued if not (q[1] == mine[1] and sector < q[0] < end)]
            head = end
            dispatched += 1
    if dispatched == 0:
        return None, "no dispatch (D) events in the trace"
    return True, "C-SCAN reference: all %d dispatches match" % dispatched


def main(argv=None):
    ap = argparse.ArgumentParser(description="Judge a trace's dispatch order against C-SCAN.")
    ap.add_argument("log", type=Path)
    ap.add_argument("--dev", help="MAJ,MIN when the log traces several devices")
    args = ap.parse_args(argv)
    events = trace_report.parse(args.log.read_text(errors="replace").splitlines(), args.dev)
    ok, msg = judge(events)
    print(msg)
    return 0 if ok else (2 if ok is None else 1)


if __name__ == "__main__":
    sys.exit(main())
