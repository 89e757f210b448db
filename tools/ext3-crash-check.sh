#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ext3-crash-check.sh IMG LOG - an ext3 image a power cut left while
# Spindle wrote to it (tests/qemu/scenarios/ext3-crash.scn), judged by the
# host's e2fsprogs, on copies (the image itself stays as the cut left it):
#   - the cut left a log: needs_recovery set, the journal's start not 0,
#     and debugfs's logdump walks committed transactions;
#   - e2fsck -fy replays it and repairs nothing else (no "Fix? yes");
#   - e2fsck -fn is clean afterwards;
#   - every file the guest reported durable ("POWERCUT durable-file <i>")
#     reads back whole (tools/powercut.py --check-fs).
set -euo pipefail
img=$1 log=$2
export PATH="$PATH:/sbin:/usr/sbin"
here=$(cd "$(dirname "$0")" && pwd)
fail() {
	echo "ext3-crash-check: $*" >&2
	exit 1
}
header=$(dumpe2fs -h "$img" 2> /dev/null)
grep -q needs_recovery <<< "$header" || fail "no needs_recovery: the cut left no log"
start=$(sed -n 's/^Journal start: *//p' <<< "$header")
[ "$start" != 0 ] || fail "journal start 0: the log is empty"
commits=$(debugfs -R logdump "$img" 2> /dev/null | grep -c "Found expected sequence .*, type 2 (commit block)") || true
[ "$commits" -ge 1 ] || fail "logdump finds no commit block"
echo "ext3-crash-check: logdump: $commits commit blocks"
copy=$(mktemp)
trap 'rm -f "$copy"' EXIT
cp "$img" "$copy"
rc=0
out=$(e2fsck -fy "$copy" 2>&1) || rc=$?
[ $((rc & ~1)) = 0 ] || fail "e2fsck -fy exit $rc: $out"
grep -q "recovering journal" <<< "$out" || fail "e2fsck replayed no journal: $out"
! grep -q "? yes" <<< "$out" || fail "e2fsck repaired more than the journal: $out"
out=$(e2fsck -fn "$copy" 2>&1) || fail "e2fsck -fn after the replay: $out"
python3 "$here/powercut.py" --check-fs "$copy" "$log"
echo "ext3-crash-check: OK"
