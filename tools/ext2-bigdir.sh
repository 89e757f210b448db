#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ext2-bigdir.sh IMG files|subdirs [bad-hash] - a disk image with one MBR partition
# (1 MiB on, as tools/ext2-image.sh's) holding a 1 KiB-block ext2 whose
# /big is one hashed (dir_index) directory of many entries, the shape of
# e2fsprogs' test images f_h_normal and f_many_subdirs:
#
#   files    47,616 empty regular files f00000 ... f47615, half_md4 hash:
#            an index two levels deep (a root and 8-ish interior blocks)
#   subdirs  20,000 empty subdirectories d00000 ... d19999, tea hash:
#            /big has 20,002 links
#
# mke2fs makes the file system with an empty /big; tools/ext2-bigdir.py
# writes the entries and their inodes in one pass (mke2fs -d would take
# minutes: libext2fs reads the whole directory before adding each name);
# e2fsck -fyD then sets the bitmaps and counts and builds the index, as
# it does for any directory of a file system that has dir_index.  The
# result is kept in build/ext2-bigdir/, named after what makes it; IMG
# gets a copy.  Fixed UUID and hash seed: the same bytes each time.
#
# bad-hash: the copy's index root then names hash version 7, which does
# not exist -- a damaged index, which a reader must warn about and read
# past linearly.
set -euo pipefail
img=$1 kind=$2 damage=${3:-}
root=$(cd "$(dirname "$0")/.." && pwd)
cache=$root/build/ext2-bigdir
mkdir -p "$cache"
part_offset=$((1024 * 1024))
fs_kib=$((64 * 1024))

make_fs() { # $1: the cached image to make
	local out=$1 tmp count hash inodes
	tmp=$(mktemp -d -p /dev/shm)
	trap 'rm -rf "$tmp"' RETURN
	mkdir -p "$tmp/tree/big"
	case $kind in
	files) count=47616 hash=half_md4 inodes=49152 ;;
	subdirs) count=20000 hash=tea inodes=24576 ;;
	*)
		echo "ext2-bigdir: unknown kind $kind (files or subdirs)" >&2
		return 2
		;;
	esac
	mke2fs -q -F -t ext2 -b 1024 -N $inodes -O dir_index \
		-U 6b1e6d2a-0e5f-4c1d-9a3b-2c4d5e6f7a8b \
		-E hash_seed=0b1e6d2a-0e5f-4c1d-9a3b-2c4d5e6f7a8b \
		-d "$tmp/tree" "$tmp/fs" "${fs_kib}k" > /dev/null
	# the hash of the indexes e2fsck is about to build (the superblock's
	# s_def_hash_version; mke2fs takes it only from mke2fs.conf)
	tune2fs -E hash_alg=$hash "$tmp/fs" > /dev/null
	big=$(debugfs -R 'stat /big' "$tmp/fs" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\) .*/\1/p')
	python3 "$root/tools/ext2-bigdir.py" "$tmp/fs" "$big" $kind $count
	# -y: bitmaps, counts, the parent's links; -D: the index.  Exit 1
	# means "changed", which is what was asked
	e2fsck -fyD "$tmp/fs" > "$tmp/fsck.log" 2>&1 || [ $? -eq 1 ] ||
		{ cat "$tmp/fsck.log" >&2; return 1; }
	e2fsck -fn "$tmp/fs" > "$tmp/fsck.log" 2>&1 || { cat "$tmp/fsck.log" >&2; return 1; }
	debugfs -R 'htree /big' "$tmp/fs" 2>/dev/null | grep -q 'Number of entries' ||
		{ echo "ext2-bigdir: /big has no index" >&2; return 1; }
	mv "$tmp/fs" "$out"
}

# the cache is named after the maker's text: a change to it makes anew
key=$( (declare -f make_fs; cat "$root/tools/ext2-bigdir.py") | sha1sum | cut -c1-12)
fs=$cache/$kind-$key.fs
(
	# one maker at a time: parallel scenarios wait for the first
	flock 9
	if [ ! -s "$fs" ]; then
		rm -f "$cache/$kind"-*.fs
		make_fs "$fs"
	fi
) 9> "$cache/$kind.lock"
truncate -s $((part_offset + fs_kib * 1024)) "$img"
printf 'label: dos\nlabel-id: 0x45585432\n1MiB,,83\n' | sfdisk -q "$img"
dd if="$fs" of="$img" bs=1M seek=1 conv=notrunc,sparse status=none
if [ "$damage" = bad-hash ]; then
	# the root's dx_root_info.hash_version: byte 28 of /big's block 0
	blk=$(debugfs -R 'bmap /big 0' "$fs" 2>/dev/null)
	printf '\x07' | dd of="$img" bs=1 seek=$((part_offset + blk * 1024 + 28)) conv=notrunc status=none
fi
