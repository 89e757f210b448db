#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ext3-image.sh IMG BLOCKSIZE MODE - an ext3 file system (the whole of
# IMG, which must exist at its size) whose journal holds a log left as a
# crash leaves it: committed transactions and needs_recovery set, written
# by e2fsprogs' own journal code (debugfs -w: journal_open, journal_write,
# journal_close), for Spindle's mount to replay (fs/jbd2/recovery.c).
#
# The file system holds f.txt ("old content"), g.txt ("second file")
# and h.bin (one block of "h").  The log, transactions 1 to 3:
#   1  f.txt's data block, now "replayed journal data", and the inode-table
#      block holding f.txt's inode, now with i_size 22 (both are needed to
#      read the new line whole: a data block and an inode block); and
#      h.bin's block, now beginning with the journal's magic number, which
#      debugfs logs escaped (its first 4 bytes zeroed, JBD2_FLAG_ESCAPE)
#   2  g.txt's data block, overwritten with "REVOKED, must not appear"
#   3  a revoke record for g.txt's data block: transaction 2's copy must
#      not be replayed, g.txt stays "second file"
#
# MODE:
#   replay        mke2fs -t ext3 as Debian 12 makes it: no journal checksums
#   replay-csum   with metadata_csum, and the journal with checksum v3
#                 (CRC32C: descriptor tails, tags, commit and revoke blocks)
#   corrupt-csum  as replay-csum, then one byte of transaction 1's
#                 descriptor block flipped: its checksum is wrong
#   corrupt-range as replay, then transaction 1's first tag names a block
#                 far past the file system's end
# The block numbers used are written to IMG.layout (tools/ext3-check.sh).
set -euo pipefail
img=$1 bs=$2 mode=$3
export PATH="$PATH:/sbin:/usr/sbin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

features=
jopen="jo"
case $mode in
replay | corrupt-range) ;;
replay-csum | corrupt-csum)
	features="-O metadata_csum"
	jopen="jo -c -v 3"
	;;
*)
	echo "ext3-image.sh: unknown mode $mode" >&2
	exit 2
	;;
esac
# fixed UUID: the same image bytes each run
# shellcheck disable=SC2086
mke2fs -q -F -t ext3 -b "$bs" $features -U 3e7a4c1b-5d2f-4e6a-8b9c-0d1e2f3a4b5c \
	-E hash_seed=3e7a4c1b-5d2f-4e6a-8b9c-0d1e2f3a4b5c "$img"
printf 'old content\n' > "$work/f.txt"
printf 'second file\n' > "$work/g.txt"
head -c "$bs" /dev/zero | tr '\0' h > "$work/h.bin"
for f in f.txt g.txt h.bin; do
	debugfs -w -R "write $work/$f $f" "$img" > /dev/null 2>&1
done

fblk=$(debugfs -R "bmap f.txt 0" "$img" 2> /dev/null)
gblk=$(debugfs -R "bmap g.txt 0" "$img" 2> /dev/null)
hblk=$(debugfs -R "bmap h.bin 0" "$img" 2> /dev/null)
# "located at block 70, offset 0x0300"
iblk=$(debugfs -R "imap f.txt" "$img" 2> /dev/null | sed -n 's/.*located at block \([0-9]*\),.*/\1/p')
[ -n "$fblk" ] && [ -n "$gblk" ] && [ -n "$hblk" ] && [ -n "$iblk" ]

# The inode block as it will be: made on a copy by debugfs itself (with
# metadata_csum it also rewrites the inode's checksum), then taken out.
cp "$img" "$work/copy.img"
debugfs -w -R "sif f.txt size 22" "$work/copy.img" > /dev/null 2>&1
python3 - "$work" "$bs" "$iblk" << 'EOF'
import sys
work, bs, iblk = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(f"{work}/copy.img", "rb") as f:
    f.seek(iblk * bs)
    inode_block = f.read(bs)
data = b"replayed journal data\n".ljust(bs, b"\0")
escaped = (bytes([0xc0, 0x3b, 0x39, 0x98]) + b"escaped block").ljust(bs, b".")
with open(f"{work}/t1.bin", "wb") as f:
    f.write(data + inode_block + escaped)
with open(f"{work}/t2.bin", "wb") as f:
    f.write(b"REVOKED, must not appear\n".ljust(bs, b"\0"))
EOF
debugfs -w -f - "$img" > "$work/debugfs.log" 2>&1 << EOF
$jopen
jw -b $fblk,$iblk,$hblk $work/t1.bin
jw -b $gblk $work/t2.bin
jw -r $gblk /dev/null
jc
EOF
dumpe2fs -h "$img" 2> /dev/null | grep -q needs_recovery
printf 'fblk %s\ngblk %s\nhblk %s\niblk %s\n' "$fblk" "$gblk" "$hblk" "$iblk" > "$img.layout"

# Transaction 1's descriptor: the log starts at journal block 1.
desc=$(debugfs -R "bmap <8> 1" "$img" 2> /dev/null)
case $mode in
corrupt-csum)
	# a byte of the first tag's flags word, covered by the tail checksum
	python3 - "$img" "$bs" "$desc" << 'EOF'
import sys
img, bs, desc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(img, "r+b") as f:
    f.seek(desc * bs + 12 + 4)
    b = f.read(1)
    f.seek(desc * bs + 12 + 4)
    f.write(bytes([b[0] ^ 0x40]))
EOF
	;;
corrupt-range)
	# the first tag's block number (big-endian, after the 12-byte header)
	printf '\xff\xff\xff\x00' | dd of="$img" bs=1 seek=$((desc * bs + 12)) conv=notrunc status=none
	;;
esac
