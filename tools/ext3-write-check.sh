#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ext3-write-check.sh IMG - after tests/qemu/scenarios/ext3-write.scn: the
# host's e2fsprogs judge what Spindle's journaled writes left.  e2fsck
# -fn clean (no repair, nothing to replay), no needs_recovery, journal
# start 0, and debugfs reads each file as the guest wrote it.
set -euo pipefail
img=$1
export PATH="$PATH:/sbin:/usr/sbin"
here=$(cd "$(dirname "$0")" && pwd)
fail() {
	echo "ext3-write-check: $img: $*" >&2
	exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
header=$(dumpe2fs -h "$img" 2> /dev/null)
grep -q needs_recovery <<< "$header" && fail "needs_recovery still set"
start=$(sed -n 's/^Journal start: *//p' <<< "$header")
[ "$start" = 0 ] || fail "journal start $start, want 0"
out=$(e2fsck -fn "$img" 2>&1) || fail "e2fsck -fn: $out"
cat_() { debugfs -R "cat $1" "$img" 2> /dev/null; }
[ "$(cat_ /a.txt)" = "$(printf 'hello\nappended')" ] || fail "a.txt reads '$(cat_ /a.txt)'"
[ "$(cat_ /dir/new)" = moved ] || fail "dir/new reads '$(cat_ /dir/new)'"
for gone in /dir/old /u.txt /gone; do
	debugfs -R "stat $gone" "$img" 2>&1 | grep -q "File not found" || fail "$gone still there"
done
debugfs -R "dump /big $work/big" "$img" 2> /dev/null
debugfs -R "dump /cut $work/cut" "$img" 2> /dev/null
"$here/pattern-check.py" "$work/big" 0 6M 7 > /dev/null || fail "big: not the pattern"
[ "$(stat -c %s "$work/cut")" = 102400 ] || fail "cut: size $(stat -c %s "$work/cut")"
"$here/pattern-check.py" "$work/cut" 0 100K 9 > /dev/null || fail "cut: not the pattern"
for i in 1 60 120; do
	[ "$(cat_ /s$i)" = $i ] || fail "s$i reads '$(cat_ /s$i)'"
done
echo "ext3-write-check: $img: OK"
