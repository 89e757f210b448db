#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test-grade-ssh.py [--keep] - grade a class on two machines over ssh, for real.

    make test-grade-ssh       (as root: it makes network namespaces)

tools/grade-class.py hands submissions to GNU parallel, whose
--sshloginfile spreads them over several machines.  This test makes two
grading "machines" on this one: network namespaces spindle-grade-1 and
-2, each with its own sshd (Debian's openssh-server) listening only on
its own address, 10.213.1.2 and 10.213.2.2.  The class grader runs in a
third namespace, spindle-grade-c, joined to each by a veth pair; nothing
is added to this machine's own network.  The namespaces share the file
system, as machines grading a class share one (labs/README.md).

It grades six lab 4 submissions -- the reference (with answers and
hours), the skeleton, three wrong solutions (labs/04-elevator/mutants/)
and a patch that does not apply -- once locally, the oracle, and once
over ssh, and checks:
  1. the CSV over ssh is the local one, row for row;
  2. both machines graded submissions (parallel's joblog names each host);
  3. a machine that dies mid-run loses no submission: once machine 2 has
     graded one submission and is grading another, every process in its
     namespace is killed (sshd, the grader, make, QEMU); the submission
     it held must be graded again on machine 1 (parallel's joblog keeps
     a job's last try: it must name machine 1 and exit 0) and its row
     must be the local one.
The namespaces and sshds are removed at the end (--keep leaves them).
"""
import argparse
import csv
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import mklab                            # noqa: E402

OUT = ROOT / "build" / "grade-ssh"
LAB = 4
MUTANTS = ("scan-wrap", "fifo-never-expires", "head-at-start")
NS_CLIENT = "spindle-grade-c"
HOSTS = {"spindle-grade-1": ("10.213.1.1", "10.213.1.2"),
         "spindle-grade-2": ("10.213.2.1", "10.213.2.2")}
DEADLINE = 1800                         # s: the whole run, at most


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def in_ns(ns, cmd):
    return ["ip", "netns", "exec", ns] + cmd


def teardown():
    for ns in [NS_CLIENT] + list(HOSTS):
        pids = subprocess.run(["ip", "netns", "pids", ns], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
        subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)


def make_network():
    """Three namespaces: the client joined to each grading host by a veth pair."""
    teardown()
    for ns in [NS_CLIENT] + list(HOSTS):
        run(["ip", "netns", "add", ns])
        run(in_ns(ns, ["ip", "link", "set", "lo", "up"]))
    for k, (ns, (client_addr, host_addr)) in enumerate(HOSTS.items(), 1):
        near, far = "sg-c%d" % k, "sg-h%d" % k
        run(["ip", "link", "add", near, "netns", NS_CLIENT, "type", "veth",
             "peer", "name", far, "netns", ns])
        run(in_ns(NS_CLIENT, ["ip", "addr", "add", client_addr + "/24", "dev", near]))
        run(in_ns(NS_CLIENT, ["ip", "link", "set", near, "up"]))
        run(in_ns(ns, ["ip", "addr", "add", host_addr + "/24", "dev", far]))
        run(in_ns(ns, ["ip", "link", "set", far, "up"]))


def start_sshds():
    """An sshd in each host namespace, on its own address only, letting in
    root with this run's key; returns the sshloginfile's path."""
    keys = OUT / "keys"
    keys.mkdir(parents=True)
    keys.chmod(0o700)
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / "host")])
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / "client")])
    shutil.copy(keys / "client.pub", keys / "authorized_keys")
    host_pub = (keys / "host.pub").read_text().split()
    (keys / "known_hosts").write_text("".join("%s %s %s\n" % (addr, host_pub[0], host_pub[1])
                                              for _, addr in HOSTS.values()))
    (keys / "ssh_config").write_text(
        "Host *\n  User root\n  IdentityFile %s\n  IdentitiesOnly yes\n"
        "  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n  BatchMode yes\n"
        "  ConnectTimeout 10\n  ServerAliveInterval 5\n  ServerAliveCountMax 3\n"
        % (keys / "client", keys / "known_hosts"))
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)   # sshd's privilege separation
    logins = []
    for ns, (_, addr) in HOSTS.items():
        conf = OUT / (ns + ".sshd_config")
        conf.write_text(
            "ListenAddress %s\nHostKey %s\nAuthorizedKeysFile %s\nPidFile %s\n"
            "PermitRootLogin prohibit-password\nPasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
            % (addr, keys / "host", keys / "authorized_keys", OUT / (ns + ".pid")))
        subprocess.Popen(in_ns(ns, ["/usr/sbin/sshd", "-D", "-e", "-f", str(conf)]),
                         stdout=open(OUT / (ns + ".sshd.log"), "w"), stderr=subprocess.STDOUT)
        logins.append("1/ssh -F %s %s" % (keys / "ssh_config", addr))
    # ready when each answers a command (a condition, not a guess: tried
    # until it holds or the time is up)
    for _, addr in HOSTS.values():
        until = time.time() + 30
        while subprocess.run(in_ns(NS_CLIENT, ["ssh", "-F", str(keys / "ssh_config"), addr, "true"]),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
            if time.time() > until:
                raise SystemExit("test-grade-ssh: sshd on %s never answered (see %s)"
                                 % (addr, OUT))
            time.sleep(0.2)
    f = OUT / "sshloginfile"
    f.write_text("\n".join(logins) + "\n")
    return f


def make_submissions():
    """Six lab 4 submissions: reference, skeleton, three mutants, a bad patch."""
    subs = OUT / "submissions"
    subs.mkdir(parents=True)
    ref = subs / "reference"
    for f in mklab.source_files():
        if not mklab.withheld(f):
            (ref / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, ref / f)
    (ref / ("answers-lab%d.txt" % LAB)).write_text("1. C-SCAN wraps to the lowest request.\n")
    (ref / "time.txt").write_text("5\n")
    mutants = mklab.lab_dirs()[LAB] / "mutants"
    for m in MUTANTS:
        tree = subs / m
        shutil.copytree(ref, tree, symlinks=True)
        (tree / ("answers-lab%d.txt" % LAB)).unlink()
        run(["patch", "-s", "-p1", "-i", str(mutants / (m + ".patch"))], cwd=tree)
    run([sys.executable, str(ROOT / "tools" / "mklab.py"), str(LAB), str(subs / "skeleton")],
        stdout=subprocess.DEVNULL)
    shutil.rmtree(subs / "skeleton" / ".git")
    (subs / "garbled.patch").write_text(
        "diff --git a/block/cscan-iosched.c b/block/cscan-iosched.c\n"
        "--- a/block/cscan-iosched.c\n+++ b/block/cscan-iosched.c\n"
        "@@ -1,1 +1,1 @@\n-no such line in the skeleton\n+a student's edit\n")
    return subs


def grade_locally(subs, csv_path):
    cmd = [sys.executable, str(ROOT / "tools" / "grade-class.py"), str(LAB), str(subs),
           str(csv_path), "-j", "2"]
    return subprocess.run(cmd).returncode


def rows(path):
    with open(path) as f:
        return {r["submission"]: r for r in csv.DictReader(f)}


def joblog():
    """[(seq, host, exitval, submission)] of parallel's joblog."""
    out = []
    lines = (ROOT / "build" / "class" / "joblog").read_text().splitlines()
    for line in lines[1:]:
        cols = line.split("\t")
        host = cols[1].split()[-1]
        sub = Path(cols[8].split()[-3]).name
        out.append((int(cols[0]), host, int(cols[6]), sub))
    return out


def ns_processes(ns):
    """{pid: argv} of the processes in network namespace ns."""
    out = {}
    for pid in subprocess.run(["ip", "netns", "pids", ns], stdout=subprocess.PIPE,
                              text=True).stdout.split():
        try:
            out[int(pid)] = Path("/proc/%s/cmdline" % pid).read_bytes().decode().split("\0")
        except OSError:
            pass                        # gone meanwhile
    return out


def kill_host_mid_run(ns, addr, ssh_run):
    """Once ns's machine has graded one submission and is grading another
    (its tools/grade.py runs), kill everything in ns.  Returns the
    submission it was grading, or None if that moment never came."""
    log = ROOT / "build" / "class" / "joblog"
    until = time.time() + DEADLINE
    while time.time() < until and ssh_run.poll() is None:
        done_there = log.exists() and any(h == addr and e == 0 for _, h, e, _ in joblog())
        procs = ns_processes(ns) if done_there else {}
        if any(a[0].endswith("tools/grade.py") or a[1:2] and a[1].endswith("tools/grade.py")
               for a in procs.values()):
            held = [a[a.index("--one") + 2] for a in procs.values() if "--one" in a]
            for pid in procs:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            return Path(held[0]).name if held else None
        time.sleep(0.5)
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", action="store_true", help="leave the namespaces and sshds up")
    args = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("test-grade-ssh: needs root (it makes network namespaces): sudo make test-grade-ssh")
        return 2
    for tool in ("ip", "parallel", "ssh", "ssh-keygen", "/usr/sbin/sshd", "patch"):
        if not shutil.which(tool):
            print("test-grade-ssh: %s is missing (make test-grade-ssh installs it as root)" % tool)
            return 2
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    problems = []
    try:
        subs = make_submissions()
        if grade_locally(subs, OUT / "local.csv") != 0:
            print("test-grade-ssh: the local class run failed")
            return 1
        make_network()
        loginfile = start_sshds()
        dying_ns, (_, dying_addr) = list(HOSTS.items())[1]
        cmd = [sys.executable, str(ROOT / "tools" / "grade-class.py"), str(LAB), str(subs),
               str(OUT / "ssh.csv"), "-j", "1", "--sshloginfile", str(loginfile)]
        with open(OUT / "ssh-run.log", "w") as log:
            ssh_run = subprocess.Popen(in_ns(NS_CLIENT, cmd), stdout=log, stderr=subprocess.STDOUT)
            killed = kill_host_mid_run(dying_ns, dying_addr, ssh_run)
            ssh_run.wait(timeout=DEADLINE)
        print((OUT / "ssh-run.log").read_text(), end="")
        if ssh_run.returncode != 0:
            problems.append("the class run over ssh failed (exit %d)" % ssh_run.returncode)
        local, remote = rows(OUT / "local.csv"), rows(OUT / "ssh.csv")
        if local != remote:
            for name in sorted(set(local) | set(remote)):
                if local.get(name) != remote.get(name):
                    problems.append("row %s differs: local %s, over ssh %s"
                                    % (name, local.get(name), remote.get(name)))
        jobs = joblog()
        hosts = {addr for _, addr in HOSTS.values()}
        good = {j[1] for j in jobs if j[2] == 0}
        if good != hosts:
            problems.append("not both machines graded: the joblog's good tries ran on %s"
                            % sorted(good))
        if killed is None:
            problems.append("machine 2 was never seen grading a second submission: nothing killed")
        else:
            # (the joblog keeps a job's last try only: it was seen grading
            # on machine 2, so a good last try on machine 1 is the retry)
            last = [(h, e) for _, h, e, s in jobs if s == killed]
            print("test-grade-ssh: killed %s while it graded %s; its last try: %s"
                  % (dying_ns, killed, last))
            if not (len(last) == 1 and last[0][0] != dying_addr and last[0][1] == 0):
                problems.append("%s was not graded again elsewhere after its machine died: %s"
                                % (killed, last))
    finally:
        if not args.keep:
            teardown()
    for p in problems:
        print("test-grade-ssh: " + p)
    print("test-grade-ssh: %s" % ("ok: the CSV over two ssh machines, one killed mid-run, "
                                  "is the local one" if not problems
                                  else "%d problem(s); see %s" % (len(problems), OUT)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
