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

# --- hashed directories (tests/unit/check_ext2_htree.c) ---------------------
#
# hashes.txt: debugfs's dx_hash, e2fsprogs' own code, as the oracle of
# fs/ext2/htree.c's hashes: "version seed name-in-hex hash minor" a line,
# for the three hashes and their unsigned twins, no seed (0) and a seed,
# names of 1 to 255 bytes (the half_md4 and tea loops take 32 and 16 at a
# time) and bytes past 127 (where signed and unsigned differ).
seed=0b1e6d2a-0e5f-4c1d-9a3b-2c4d5e6f7a8b
hash_names=(a f00000 f47615 abcdefghijklmno abcdefghijklmnop abcdefghijklmnopq
	$(printf 'x%.0s' $(seq 31)) $(printf 'y%.0s' $(seq 32)) $(printf 'z%.0s' $(seq 33))
	$(printf 'L%.0s' $(seq 255)) "$(printf 'caf\xc3\xa9')" "$(printf '\xff\x80\x7f')")
# (-h takes the version's number too: 3, 4, 5 are the unsigned ones,
# which have no name on its command line)
for v in 0 1 2 3 4 5; do
	for s in 0 "$seed"; do
		for name in "${hash_names[@]}"; do
			opt=()
			[ "$s" = 0 ] || opt=(-s "$s")
			line=$(debugfs -R "dx_hash -h $v ${opt[*]} $name" 2>/dev/null)
			hex=$(printf '%s' "$name" | od -An -v -tx1 | tr -d ' \n')
			echo "$v $s $hex $(echo "$line" | LC_ALL=C sed -n 's/.* is \(0x[0-9a-f]*\) (minor \(0x[0-9a-f]*\))/\1 \2/p')"
		done
	done
done > "$out/hashes.txt"
if [ "$(awk 'NF != 5' "$out/hashes.txt" | wc -l)" != 0 ]; then
	echo "make_images.sh: debugfs dx_hash said something unexpected:" >&2
	awk 'NF != 5' "$out/hashes.txt" >&2
	exit 1
fi

# htree-<bs>.img: /big, a directory of long names indexed by e2fsck -fD --
# at 1 KiB, 1000 names of 100 bytes and more fill some 150 leaves, past the
# 124 a root holds, so the index is two levels deep (half_md4); at 4 KiB,
# 300 names, one level (tea).  htree-<bs>.dir: /big's bytes as debugfs
# dumps them (the test reads the directory there), htree-<bs>.layout:
# /big's inode number and the index's depth as debugfs tells them.
for bs in 1024 4096; do
	img=$out/htree-$bs.img
	rm -rf "$out/htree-tree"
	mkdir -p "$out/htree-tree/big"
	count=$([ "$bs" = 1024 ] && echo 1000 || echo 300)
	python3 -c '
import sys
for i in range(int(sys.argv[2])):
    name = ("n%04d-" % i).ljust(100 + i % 20, "abcdefghij"[i % 10])
    open(sys.argv[1] + "/" + name, "w").close()' "$out/htree-tree/big" "$count"
	truncate -s 4M "$img"
	mke2fs -q -F -t ext2 -b "$bs" -N 1200 -O dir_index -U 6b1e6d2a-0e5f-4c1d-9a3b-2c4d5e6f7a8b \
		-E hash_seed=$seed -d "$out/htree-tree" "$img"
	tune2fs -E hash_alg=$([ "$bs" = 1024 ] && echo half_md4 || echo tea) "$img" >/dev/null
	e2fsck -fyD "$img" >/dev/null 2>&1 || [ $? -eq 1 ]
	e2fsck -fn "$img" >/dev/null
	debugfs -R "dump /big $out/htree-$bs.dir" "$img" 2>/dev/null
	{
		debugfs -R 'stat /big' "$img" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\) .*/ino \1/p'
		debugfs -R 'htree /big' "$img" 2>/dev/null | sed -n 's/.*Indirect levels: \([0-9]*\).*/levels \1/p'
		echo "count $count"
	} > "$out/htree-$bs.layout"
	[ "$(wc -l < "$out/htree-$bs.layout")" = 3 ] || {
		echo "make_images.sh: /big in $img has no index:" >&2
		cat "$out/htree-$bs.layout" >&2
		exit 1
	}
	rm -rf "$out/htree-tree"
done
