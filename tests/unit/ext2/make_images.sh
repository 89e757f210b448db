#!/bin/bash
# SPDX-License-Identifier: MIT
# make_images.sh OUTDIR - the outside oracle for tests/unit/check_ext2.c.
#
# A small tree (OUTDIR/tree) and, for block sizes 1024 and 4096, an ext2
# image of it made by the host's mke2fs -d (OUTDIR/ext2-<bs>.img, 2 MiB),
# with OUTDIR/ext2-<bs>.layout: where debugfs says things are, one
# "name number" a line, for the test's corruption table to aim at:
#     ino_<file>      inode numbers        blk_<file>_<n>  block n of a file
#     ind_big         big.bin's single indirect block
#     itable0         group 0's inode table
# The test reads the tree's files on the host as its expected contents.
# Run by tests/unit/unit.mk before the tests.
set -euo pipefail

out=${1:?usage: make_images.sh OUTDIR}
export PATH="$PATH:/usr/sbin:/sbin"        # mke2fs, debugfs live in sbin
for tool in mke2fs debugfs python3; do
	command -v "$tool" >/dev/null || {
		echo "make_images.sh: $tool not found (Debian: apt-get install e2fsprogs python3)" >&2
		exit 1
	}
done
rm -rf "$out"
mkdir -p "$out/tree/sub"
tree=$out/tree
printf 'hello, ext2\n' > "$tree/hello.txt"
# 60 KiB: direct and single indirect blocks at 1 KiB and at 4 KiB
python3 -c 'import sys; sys.stdout.buffer.write(bytes((i * 7 + i // 251) & 255 for i in range(61440)))' > "$tree/big.bin"
# a hole between two pieces of data
python3 -c '
import sys
f = open(sys.argv[1], "wb"); f.write(b"head"); f.seek(30000); f.write(b"tail"); f.close()' "$tree/holes.bin"
# data at both ends of 64 MiB of holes: triple indirection at 1 KiB
python3 -c '
import sys
f = open(sys.argv[1], "wb"); f.write(b"near"); f.seek(67500000); f.write(b"far"); f.close()' "$tree/far.bin"
printf 'in sub\n' > "$tree/sub/file"
ln -s hello.txt "$tree/fast"
ln -s "sub/../sub/../sub/../sub/../sub/../sub/../sub/../sub/../sub/../sub/file" "$tree/slow"
ln -s fast "$tree/chain"
ln -s loop2 "$tree/loop1"
ln -s loop1 "$tree/loop2"
chmod 0640 "$tree/hello.txt"
touch -d @1600000000 "$tree/hello.txt"

for bs in 1024 4096; do
	img=$out/ext2-$bs.img
	truncate -s 2M "$img"
	mke2fs -q -F -t ext2 -b "$bs" -N 64 -U 6b1e6d2a-0e5f-4c1d-9a3b-2c4d5e6f7a8b \
		-E hash_seed=0b1e6d2a-0e5f-4c1d-9a3b-2c4d5e6f7a8b -d "$tree" "$img"
	ino() { debugfs -R "stat $1" "$img" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\) .*/\1/p'; }
	{
		for f in hello.txt big.bin holes.bin sub sub/file fast slow; do
			echo "ino_$(echo "$f" | tr './' '__') $(ino "/$f")"
		done
		echo "blk_root_0 $(debugfs -R 'bmap / 0' "$img" 2>/dev/null)"
		echo "blk_sub_0 $(debugfs -R 'bmap /sub 0' "$img" 2>/dev/null)"
		echo "ind_big $(debugfs -R 'stat /big.bin' "$img" 2>/dev/null |
			sed -n 's/.*(IND):\([0-9]*\).*/\1/p')"
		echo "itable0 $(dumpe2fs "$img" 2>/dev/null | sed -n 's/^  Inode table at \([0-9]*\)-.*/\1/p' | head -1)"
	} > "$out/ext2-$bs.layout"
	if grep -q ' $' "$out/ext2-$bs.layout"; then
		echo "make_images.sh: debugfs did not say where something is:" >&2
		cat "$out/ext2-$bs.layout" >&2
		exit 1
	fi
done
