#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ext2-image.sh IMG BLOCKSIZE [damage|write [MKE2FS-OPTION...]] - a disk image with one MBR
# partition (1 MiB on, to the end) holding an ext2 file system made by
# the host's mke2fs from the tree of tools/ext2-tree.py (kept beside the
# image as IMG.tree, the oracle's copy).  The image must exist (a sparse
# file of its size: the QEMU runner's `disk:` makes it).
#
# With "write", the tree is instead a mostly empty one for the write
# scenarios to fill: empty files f0 ... f7 and keep.txt, a small file
# that must come through untouched.
#
# Options after "write" go to mke2fs: `-O none,sparse_super,filetype`
# (revision 1 without large_file, as before any file past 2 GiB; mke2fs
# sets large_file even when -O ^large_file asks otherwise) or `-r 0`
# (revision 0, which has no feature flags).
#
# With "damage", debugfs then breaks four things on purpose, and IMG.damage
# lists what was broken (tools/ext2-check.py reads it):
#   bad-type/file  an inode whose mode has no valid file type
#   stale          a directory entry naming an inode freed meanwhile
#   baddir/        a directory block whose first rec_len is unaligned
#   badind.bin     a single indirect block whose first entry points
#                  past the end of the file system
set -euo pipefail
img=$1 bs=$2 damage=${3:-}
shift $(($# < 3 ? $# : 3))
write=
if [ "$damage" = write ]; then
	write=1 damage=
fi
part_offset=$((1024 * 1024))
size=$(stat -c %s "$img")
fs_kib=$(( (size - part_offset) / 1024 ))
tree=$img.tree
rm -rf "$tree"
# the 64 MiB sparse file only where it reaches triple indirection
if [ -n "$write" ]; then
	mkdir "$tree"
	for i in 0 1 2 3 4 5 6 7; do : > "$tree/f$i"; done
	printf 'kept as it was\n' > "$tree/keep.txt"
else
	python3 "$(dirname "$0")/ext2-tree.py" "$tree" $([ "$bs" = 1024 ] || echo --no-triple)
fi
if [ -n "$damage" ]; then
	mkdir "$tree/bad-type" "$tree/baddir"
	printf 'x\n' > "$tree/bad-type/file"
	printf 'gone\n' > "$tree/stale"
	for i in 1 2 3; do printf '%s\n' $i > "$tree/baddir/f$i"; done
	head -c $((20 * 1024)) /dev/zero | tr '\0' 'i' > "$tree/badind.bin"
fi
printf 'label: dos\nlabel-id: 0x45585432\n1MiB,,83\n' | sfdisk -q "$img"
# fixed UUID and hash seed: the same image bytes each run
mke2fs -q -F -t ext2 -b "$bs" -N 1024 -U 6b1e6d2a-0e5f-4c1d-9a3b-2c4d5e6f7a8b \
	-E offset=$part_offset,hash_seed=0b1e6d2a-0e5f-4c1d-9a3b-2c4d5e6f7a8b \
	"$@" -d "$tree" "$img" "${fs_kib}k"
[ -n "$damage" ] || exit 0

fs=$img.fs
dd if="$img" of="$fs" bs=1M skip=1 status=none
ino() { debugfs -R "stat $1" "$fs" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\) .*/\1/p'; }
blk() { debugfs -R "bmap $1 $2" "$fs" 2>/dev/null; }
{
	echo "bad-type/file $(ino /bad-type/file)"
	echo "stale $(ino /stale)"
	echo "baddir $(ino /baddir)"
	echo "badind.bin $(ino /badind.bin)"
} > "$img.damage"
# mode 0170644: file type 017, which does not exist
debugfs -w -R "sif /bad-type/file mode 0170644" "$fs" 2>/dev/null
# free the inode but keep the name: links 0 and a deletion time
debugfs -w -R "sif /stale links_count 0" "$fs" 2>/dev/null
debugfs -w -R "sif /stale dtime 1600000000" "$fs" 2>/dev/null
# the first entry's rec_len (bytes 4-5 of the directory's block 0) = 13
dirblk=$(blk /baddir 0)
printf '\x0d\x00' | dd of="$fs" bs=1 seek=$((dirblk * bs + 4)) conv=notrunc status=none
# the single indirect block (i_block[12]) gets 0xfffffff0 as its entry 0
ind=$(debugfs -R "stat /badind.bin" "$fs" 2>/dev/null | sed -n 's/.*(IND):\([0-9]*\).*/\1/p')
printf '\xf0\xff\xff\xff' | dd of="$fs" bs=1 seek=$((ind * bs)) conv=notrunc status=none
dd if="$fs" of="$img" bs=1M seek=1 conv=notrunc status=none
rm -f "$fs"
