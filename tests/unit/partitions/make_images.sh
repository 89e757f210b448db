#!/bin/bash
# SPDX-License-Identifier: MIT
# make_images.sh OUTDIR - the outside oracle for tests/unit/check_partitions.c.
#
# Makes small disk images with the host's sfdisk (util-linux; Debian
# package "fdisk") and writes, for each IMAGE.img, IMAGE.expect: what
# `sfdisk --json` says is on it, as plain text, so that the C test needs no
# JSON parser:
#     label dos|gpt
#     part <number> <start> <size> <type> <uuid>
# start and size in 512-byte sectors; type as sfdisk prints it (hex MBR
# type such as "83", or the GPT type GUID); uuid is the GPT partition GUID,
# or "-" for MBR.  Some images are damaged afterwards on purpose (the GPT
# ones with "bad" in their name); sfdisk is then asked about the damaged
# image, and must say that it fell back to the backup GPT, or the script
# fails (a damage that sfdisk does not notice would test nothing).
#
# The list of images is also in check_partitions.c (oracle_cases[]):
# add an image in both places.  Run by tests/unit/unit.mk before the tests.
set -euo pipefail

out=${1:?usage: make_images.sh OUTDIR}
export PATH="$PATH:/usr/sbin:/sbin"        # sfdisk lives in sbin
for tool in sfdisk python3 truncate dd; do
	command -v "$tool" >/dev/null || {
		echo "make_images.sh: $tool not found (Debian: apt-get install fdisk python3)" >&2
		exit 1
	}
done
mkdir -p "$out"
cd "$out"

# new_image NAME SIZE: an empty sparse image; then the sfdisk script on stdin.
new_image() {
	rm -f "$1.img" "$1.expect"
	truncate -s "$2" "$1.img"
	sfdisk --quiet --no-reread --no-tell-kernel "$1.img" >/dev/null
}

# expect NAME: sfdisk's view of NAME.img, as NAME.expect.  sfdisk's
# warnings go to NAME.sfdisk.log, for check_damaged.
expect() {
	sfdisk --json "$1.img" 2>"$1.sfdisk.log" | python3 -c '
import json, sys
img = sys.argv[1]
table = json.load(sys.stdin)["partitiontable"]
print("label", table["label"])
for p in table.get("partitions", []):
    number = p["node"][len(img):]
    assert number.isdigit(), p["node"]
    print("part", number, p["start"], p["size"], p["type"], p.get("uuid", "-"))
' "$1.img" > "$1.expect.tmp"
	mv "$1.expect.tmp" "$1.expect"
}

# check_damaged NAME: sfdisk must have noticed the damage and used the backup.
check_damaged() {
	grep -qi "backup" "$1.sfdisk.log" || {
		echo "make_images.sh: sfdisk did not fall back to the backup GPT on $1.img:" >&2
		cat "$1.sfdisk.log" >&2
		exit 1
	}
}

# poke NAME OFFSET BYTES...: overwrite bytes (given in hex) at OFFSET.
poke() {
	local name=$1 offset=$2
	shift 2
	printf "$(printf '\\x%s' "$@")" |
		dd of="$name.img" bs=1 seek="$offset" conv=notrunc status=none
}

# MBR: primaries around an extended partition (p2), logical partitions
# whose chain order (numbering) differs from their order on the disk.
new_image mbr 32M <<'SCRIPT'
label: dos
mbr.img1: size=4MiB, type=83
mbr.img2: size=20MiB, type=5
mbr.img3: size=2MiB, type=c
mbr.img5: start=30720, size=2MiB, type=83
mbr.img6: start=12288, size=3MiB, type=82
mbr.img7: size=1MiB, type=83
mbr.img8: size=2MiB, type=7
SCRIPT
expect mbr

# MBR: three primaries, then a Linux-type (0x85) extended partition as p4.
new_image mbr_ext85 32M <<'SCRIPT'
label: dos
size=4MiB, type=83, bootable
size=4MiB, type=8e
size=4MiB, type=fd
type=85
size=2MiB
size=2MiB
size=2MiB
SCRIPT
expect mbr_ext85

# GPT: several partitions, the second deleted (a gap in the numbering).
new_image gpt 16M <<'SCRIPT'
label: gpt
size=2MiB, type=linux, name="root"
size=1MiB, type=swap
size=3MiB, type=linux
size=1MiB, type=uefi
size=2MiB, type=home
SCRIPT
sfdisk --quiet --delete gpt.img 2
expect gpt

# GPT with an 8-entry table (2 sectors of entries instead of 32).
new_image gpt_small_table 8M <<'SCRIPT'
label: gpt
table-length: 8
size=1MiB
size=1MiB
size=1MiB
SCRIPT
expect gpt_small_table

# The same GPT with its primary header damaged: four bytes of the disk GUID
# (LBA 1, byte 56) changed, so that only the header CRC32 tells.
cp gpt.img gpt_bad_header.img
poke gpt_bad_header $((512 + 56)) de ad be ef
expect gpt_bad_header
check_damaged gpt_bad_header

# ... and with its primary entry array damaged (LBA 2, inside entry 0's
# starting LBA): the header is fine, the array CRC32 is not.
cp gpt.img gpt_bad_array.img
poke gpt_bad_array $((2 * 512 + 33)) 55
expect gpt_bad_array
check_damaged gpt_bad_array
