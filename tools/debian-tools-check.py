#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""debian-tools-check.py IMG LOG - Debian's lsblk and blkid, run on
Spindle (tests/qemu/scenarios/debian-tools.scn), against the host's view
of the same disk image: sfdisk --json for the partition (start, size),
the image's size for the disk, and the host's own blkid (-p, probing the
file system at the partition's offset) for its UUID, LABEL and TYPE.
Exit 0 if every figure agrees, else 1 with the differences."""
import json
import re
import subprocess
import sys


def main():
    img, log = sys.argv[1], sys.argv[2]
    text = open(log, errors="replace").read()
    bad = []
    m = re.search(r"^LSBLK-JSON\n(\{.*?\n\})$", text, re.M | re.S)
    if not m:
        sys.exit("debian-tools-check: no lsblk -J output in %s" % log)
    devs = json.loads(m.group(1))["blockdevices"]
    disk = next(d for d in devs if d["name"] == "sda")
    table = json.loads(subprocess.run(["sfdisk", "--json", img], capture_output=True,
                                      text=True, check=True).stdout)["partitiontable"]
    size = int(subprocess.run(["stat", "-c", "%s", img], capture_output=True, text=True,
                              check=True).stdout)
    if int(disk["size"]) != size:
        bad.append("sda: lsblk size %s, image %d bytes" % (disk["size"], size))
    parts = disk.get("children", [])
    if len(parts) != len(table["partitions"]):
        bad.append("lsblk lists %d partitions, sfdisk %d" % (len(parts), len(table["partitions"])))
    for lp, hp in zip(parts, table["partitions"]):
        want = (int(hp["start"]), int(hp["size"]) * table.get("sectorsize", 512))
        got = (int(lp["start"]), int(lp["size"]))
        if got != want:
            bad.append("%s: lsblk start/size %s, sfdisk %s" % (lp["name"], got, want))
    m = re.search(r"^/dev/sda1: (.*)$", text, re.M)
    if not m:
        sys.exit("debian-tools-check: no blkid line for /dev/sda1 in %s" % log)
    got = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
    offset = int(table["partitions"][0]["start"]) * 512
    host = subprocess.run(["blkid", "-p", "-O", str(offset), img], capture_output=True,
                          text=True, check=True).stdout
    want = dict(re.findall(r'(\w+)="([^"]*)"', host))
    for key in ("UUID", "LABEL", "TYPE"):
        if got.get(key) != want.get(key):
            bad.append("blkid %s: Spindle %r, host %r" % (key, got.get(key), want.get(key)))
    for line in bad:
        print("debian-tools-check:", line)
    print("debian-tools-check: %s (lsblk: %d partition(s); blkid: %s)" %
          ("OK" if not bad else "%d difference(s)" % len(bad), len(parts), want.get("TYPE")))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
