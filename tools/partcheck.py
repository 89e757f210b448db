#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""partcheck.py IMG DEV LOG - the guest's partitions against sfdisk's.

Asks the host's `sfdisk --json IMG` what partitions the image holds, and
checks that the guest's /proc/partitions (printed by the boot option
show=partitions into the serial LOG, after a `==> /proc/partitions <==`
header; the last such block counts) lists the disk DEV and exactly those
partitions: DEV<n> for partition n, with its size in 1 KiB blocks, as
Linux prints it.  An extended partition is listed with 1 block, as Linux
registers it (2 sectors: room for its first logical partition's link).

Exit 0 when they agree; 1 with the differences; 2 on bad arguments or
when sfdisk fails.
"""
import json
import os
import re
import subprocess
import sys

EXTENDED = {"5", "f", "85"}          # MBR types of an extended partition


def part_name(dev, num):
    """Linux's name for partition num of dev: sda1, but nvme0n1p1 (a 'p'
    after a disk name that ends in a digit, as block/genhd.c does)."""
    return "%s%s%d" % (dev, "p" if dev[-1:].isdigit() else "", num)


def expected(img, dev):
    env = dict(os.environ, PATH=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
    p = subprocess.run(["sfdisk", "--json", img], capture_output=True, text=True, env=env)
    want = {dev: os.path.getsize(img) // 1024}
    if p.returncode != 0:
        # no partition table: only the disk itself
        if "does not contain a recognized partition table" in p.stderr:
            return want
        raise RuntimeError("sfdisk --json %s failed: %s" % (img, p.stderr.strip()))
    table = json.loads(p.stdout)["partitiontable"]
    for part in table.get("partitions", []):
        num = int(re.search(r"(\d+)$", part["node"]).group(1))
        blocks = part["size"] // 2
        if table["label"] == "dos" and part["type"].lower() in EXTENDED:
            blocks = 1
        want[part_name(dev, num)] = blocks
    return want


def guest_view(log, dev):
    text = open(log, errors="replace").read()
    blocks = text.split("==> /proc/partitions <==")
    if len(blocks) < 2:
        raise RuntimeError("%s has no '==> /proc/partitions <==' block (show=partitions)" % log)
    got = {}
    for line in blocks[-1].splitlines()[1:]:
        line = re.sub(r"^\[\s*\d+\.\d+\]\s*", "", line)    # printk timestamp
        m = re.match(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)$", line)
        if m is None:
            if line.strip() and not line.startswith("major"):
                break               # the end of the block
            continue
        name = m.group(4)
        if name == dev or re.fullmatch(re.escape(part_name(dev, 0)[:-1]) + r"\d+", name):
            got[name] = int(m.group(3))
    return got


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    img, dev, log = argv
    try:
        want, got = expected(img, dev), guest_view(log, dev)
    except (RuntimeError, OSError, ValueError, KeyError) as e:
        print("partcheck: %s" % e)
        return 2
    problems = []
    for name in sorted(set(want) | set(got)):
        if name not in got:
            problems.append("%s: sfdisk has it (%d blocks), the guest does not" % (name, want[name]))
        elif name not in want:
            problems.append("%s: the guest has it (%d blocks), sfdisk does not" % (name, got[name]))
        elif want[name] != got[name]:
            problems.append("%s: %d blocks in the guest, %d by sfdisk" % (name, got[name], want[name]))
    if problems:
        print("partcheck: %s vs %s:" % (dev, img))
        for p in problems:
            print("  " + p)
        return 1
    print("partcheck: %s: %d entries agree with sfdisk" % (dev, len(want)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
