#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ext3-check.sh IMG MODE - after Spindle mounted an image of
# tools/ext3-image.sh, judge it from the outside with e2fsprogs.
#   replayed  the log was replayed and the journal emptied: e2fsck -fn
#             finds nothing to repair, dumpe2fs shows no needs_recovery
#             and journal start 0, f.txt reads "replayed journal data"
#             (transaction 1: its data and its inode block), h.bin begins
#             with the magic number again (logged escaped), g.txt still
#             "second file" (transaction 2's copy, revoked by 3, skipped)
#   refused   the mount refused the log: not one byte replayed, the log
#             still there for e2fsck to look at (needs_recovery, journal
#             start 1, f.txt "old content", h.bin all "h")
set -euo pipefail
img=$1 mode=$2
export PATH="$PATH:/sbin:/usr/sbin"
fail() {
	echo "ext3-check: $*" >&2
	exit 1
}
header=$(dumpe2fs -h "$img" 2> /dev/null)
start=$(sed -n 's/^Journal start: *//p' <<< "$header")
f=$(debugfs -R "cat f.txt" "$img" 2> /dev/null)
g=$(debugfs -R "cat g.txt" "$img" 2> /dev/null)
h=$(debugfs -R "cat h.bin" "$img" 2> /dev/null | head -c 17 | od -A n -t x1 | tr -d ' \n')
case $mode in
replayed)
	grep -q needs_recovery <<< "$header" && fail "needs_recovery still set"
	[ "$start" = 0 ] || fail "journal start $start, want 0"
	[ "$f" = "replayed journal data" ] || fail "f.txt reads '$f'"
	[ "$g" = "second file" ] || fail "g.txt reads '$g': the revoked block was replayed"
	# c0 3b 39 98, then "escaped block"
	[ "$h" = c03b39986573636170656420626c6f636b ] || fail "h.bin begins $h"
	out=$(e2fsck -fn "$img" 2>&1) || fail "e2fsck -fn: $out"
	;;
refused)
	grep -q needs_recovery <<< "$header" || fail "needs_recovery cleared"
	[ "$start" = 1 ] || fail "journal start $start, want 1"
	[ "$f" = "old content" ] || fail "f.txt reads '$f': something was replayed"
	[ "$g" = "second file" ] || fail "g.txt reads '$g'"
	[ "$h" = 6868686868686868686868686868686868 ] || fail "h.bin begins $h"
	;;
*) fail "unknown mode $mode" ;;
esac
echo "ext3-check: $mode: OK"
