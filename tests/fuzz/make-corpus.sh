#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make-corpus.sh [TARGET...] - write the seed corpus of the fuzz targets,
# tests/fuzz/corpus/<target>/, with the host's own tools.
#
# The seeds are committed (make fuzz does not run this): a valid input of
# each kind the parser knows, made by the tool a user would use (sfdisk,
# GNU cpio, gcc and ld), and a few near-valid ones -- a valid input with
# one field poked -- that take the fuzzer straight to the error paths.
# Run it again after changing it, and commit what changed.  IDs and times
# are fixed so that the same tools write the same bytes.
set -euo pipefail
umask 022
cd "$(dirname "$0")"
out=corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
targets=${*:-partitions dm cmdline elf initramfs ext2 jbd2}

# poke FILE OFFSET HEXBYTES: overwrite bytes in place ("55aa" = 0x55 0xaa).
poke() {
	printf "$(printf '%s' "$3" | sed 's/../\\x&/g')" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# --- partitions: small disk images (the input is the disk) ----------------
# sfdisk's table-length keeps a GPT's entry array to one sector, so a whole
# GPT disk fits in 16 KiB.
part_image() {     # NAME KIB (script on stdin)
	local img=$out/partitions/$1
	rm -f "$img"
	truncate -s "$2K" "$img"
	sfdisk -q --no-reread --no-tell-kernel "$img" > /dev/null
}

corpus_partitions() {
	mkdir -p $out/partitions
	part_image mbr-primary 8 <<-EOF
		label: dos
		label-id: 0x5350494e
		1, 4, 83, *
		5, 6, 83
		11, , c
	EOF
	part_image mbr-extended 16 <<-EOF
		label: dos
		label-id: 0x5350494f
		1, 4, 83
		5, , 5
		6, 4, 83
		11, 4, 82
		16, , 83
	EOF
	part_image gpt 16 <<-EOF
		label: gpt
		label-id: 5350494E-444C-4500-8000-000000000001
		table-length: 4
		first-lba: 3
		start=3, size=10, type=L, uuid=5350494E-444C-4500-8000-000000000011
		start=13, size=8, type=S, uuid=5350494E-444C-4500-8000-000000000012
		start=21, type=L, uuid=5350494E-444C-4500-8000-000000000013
	EOF
	# A hybrid MBR: the protective entry and one that mirrors p1.
	cp $out/partitions/gpt $out/partitions/gpt-hybrid
	poke $out/partitions/gpt-hybrid $((446 + 16)) 0000000083000000030000000a000000
	# Near-valid: the primary header's CRC broken (the backup is used),
	# then both headers' (no usable GPT).
	cp $out/partitions/gpt $out/partitions/gpt-bad-primary
	poke $out/partitions/gpt-bad-primary $((512 + 16)) 00000000
	cp $out/partitions/gpt-bad-primary $out/partitions/gpt-bad-both
	poke $out/partitions/gpt-bad-both $((16 * 1024 - 512 + 16)) 00000000
	# An MBR whose p2 overlaps p1, and an EBR chain that loops to itself.
	cp $out/partitions/mbr-primary $out/partitions/mbr-overlap
	poke $out/partitions/mbr-overlap $((446 + 16 + 8)) 02000000
	cp $out/partitions/mbr-extended $out/partitions/mbr-ebr-loop
	poke $out/partitions/mbr-ebr-loop $((5 * 512 + 446 + 16 + 8)) 00000000
}

# --- dm: dm-mod.create= values, as docs/dm.md and the scenarios write them
seed() {          # TARGET NAME TEXT: one seed, the text without a newline
	printf '%s' "$3" > "$out/$1/$2"
}

corpus_dm() {
	mkdir -p $out/dm
	seed dm linear 'lin,,,rw,0 16384 linear ram0 0'
	seed dm two-lines 'lin,5d41-uuid,3,ro,0 8192 linear /dev/ram0 0,8192 8192 linear ram1 100'
	seed dm striped 'str,,,rw,0 32768 striped 2 64 ram0 0 ram1 0'
	seed dm stack 'a,,,rw,0 4096 linear ram0 0;b,,,rw,0 4096 flakey dm-0 0 5 5'
	seed dm mirror 'm,,,rw,0 4096 raid1 core 2 128 nosync 2 ram0 0 ram1 0'
	seed dm delay 'd,,,rw,0 4096 delay ram0 0 10 ram1 0 20'
	# Near-valid: a gap, an overlap, a length that wraps, a missing field.
	seed dm gap 'g,,,rw,0 8 linear ram0 0,16 8 linear ram0 8'
	seed dm overlap 'o,,,rw,0 8 linear ram0 0,4 8 linear ram0 8'
	seed dm wrap 'w,,,rw,1 18446744073709551615 linear ram0 0'
	seed dm no-table 'n,,,rw'
}

# --- cmdline: GRUB's line, a NUL, then the fw_cfg file -------------------
# The files are the command lines the QEMU scenarios boot with, every
# eighth of them (they repeat each other's options), plus a file with
# newlines and an unclosed quote.
corpus_cmdline() {
	local d=$out/cmdline i=0
	mkdir -p "$d"
	rm -f "$d"/scn-*
	grep -h '^cmdline:' ../qemu/scenarios/*.scn | sed 's/^cmdline: *//' |
		LC_ALL=C sort -u | awk 'NR % 8 == 1' |
		while IFS= read -r line; do
			printf '/boot/spindle.elf\0%s' "$line" > "$d/scn-$i"
			i=$((i + 1))
		done
	printf '/boot/spindle.elf' > "$d/grub-only"
	printf '/boot/spindle.elf\0test=dm\ndm-mod.create="a,,,rw,0 8 linear ram0 0"\r\n\tquiet\n' > "$d/file-lines"
	printf 'BOOT_IMAGE=/boot/spindle.elf "unclosed\0 x=1' > "$d/unclosed"
}

# --- elf: programs built by the host's gcc and ld, stripped ----------------
corpus_elf() {
	local d=$out/elf
	mkdir -p "$d"
	cat > "$tmp/prog.c" <<-'C'
		char bss[8192];
		const char message[] = "hello";
		void _start(void)
		{
			bss[0] = message[0];
			for (;;)
				;
		}
	C
	gcc -O1 -s -static -nostdlib -no-pie -fno-pic -o "$d/static" "$tmp/prog.c"
	gcc -O1 -s -nostdlib -pie -fpie -o "$d/pie" "$tmp/prog.c"
	# The pokes below know ld's layout: program headers at 64, the text
	# segment second (index 1), the bss segment fourth (index 3), a
	# PT_NOTE fifth.
	readelf -hW "$d/static" | grep -q 'Start of program headers: *64 ' ||
		{ echo "make-corpus: unexpected ELF layout" >&2; exit 1; }
	local ph=64 size=56
	# Near-valid: a PT_INTERP (the note's type changed), the entry in the data, more file bytes than memory bytes,
	# two segments in one page, a file cut inside its program headers.
	rm -f "$d/interp"
	cp "$d/static" "$d/interp"
	poke "$d/interp" $((ph + 4 * size)) 03000000
	cp "$d/static" "$d/entry-in-data"
	poke "$d/entry-in-data" 24 0030400000000000
	cp "$d/static" "$d/filesz-big"
	poke "$d/filesz-big" $((ph + size + 32)) 0020000000000000
	cp "$d/static" "$d/shared-page"
	poke "$d/shared-page" $((ph + 3 * size + 16)) 0018400000000000
	head -c 200 "$d/static" > "$d/cut"
}

# --- initramfs: newc archives by GNU cpio ---------------------------------
# newc_of DIR: the archive of the tree under DIR, names sorted, with the
# fields that vary between machines (inode, owner, time) fixed.
newc_of() {
	(cd "$1" && find . | LC_ALL=C sort |
		cpio -o -H newc --quiet --reproducible --owner=0:0)
}

corpus_initramfs() {
	local d=$out/initramfs t=$tmp/rootfs
	mkdir -p "$d" "$t/etc/rc.d" "$t/bin" "$t/empty"
	printf 'hello\n' > "$t/etc/motd"
	printf '#!/bin/sh\necho init\n' > "$t/init"
	chmod 755 "$t/init"
	: > "$t/etc/rc.d/empty"
	mkfifo "$t/fifo"
	ln -s ../init "$t/bin/link"
	ln "$t/etc/motd" "$t/etc/motd.hard"     # a hard link: two entries, one ino
	find "$t" -exec touch -h -d @0 {} +
	newc_of "$t" > "$d/rootfs"
	# Two archives in a row, as a boot loader adds early files.
	mkdir -p "$tmp/early/etc"
	printf 'early\n' > "$tmp/early/etc/early"
	find "$tmp/early" -exec touch -d @0 {} +
	{ newc_of "$tmp/early"; newc_of "$t"; } > "$d/two-archives"
	# Near-valid: cut before the trailer, a bad hex digit in the first
	# header's file size, an absurd name size, and no archive at all.
	head -c 300 "$d/rootfs" > "$d/truncated"
	cp "$d/rootfs" "$d/bad-hex"
	poke "$d/bad-hex" 54 7a
	cp "$d/rootfs" "$d/bad-namesize"
	poke "$d/bad-namesize" 94 4646464646464646
	printf 'TRAILER!!!' > "$d/not-cpio"
}

# --- ext2: small file systems (the input is the start of the device) --------
# mke2fs's smallest layout (16 inodes of 128 bytes, no reserved blocks or
# resize inode), lost+found removed so that debugfs puts the files in the
# first blocks: a directory, a file, a fast and a slow link, a sparse
# file with a single indirect block; cut to 16 KiB (the harness reads
# the rest of the device as zeros).
corpus_ext2() {
	local d=$out/ext2 img
	mkdir -p "$d"
	printf 'hi\n' > "$tmp/f"
	python3 -c 'import sys; f = open(sys.argv[1], "wb"); f.seek(12288); f.write(b"z" * 100)' \
		"$tmp/sparse"
	for bs in 1024 2048; do
		img=$tmp/ext2-$bs.img
		rm -f "$img"
		truncate -s 256K "$img"
		E2FSPROGS_FAKE_TIME=1600000000 mke2fs -q -F -t ext2 -b $bs -N 16 -m 0 -I 128 \
			-O ^resize_inode,^dir_index,^ext_attr -U 6b1e6d2a-0e5f-4c1d-9a3b-2c4d5e6f7a8b \
			-E hash_seed=0b1e6d2a-0e5f-4c1d-9a3b-2c4d5e6f7a8b "$img" > /dev/null 2>&1
		printf '%s\n' 'rmdir lost+found' 'mkdir d' "write $tmp/f d/f" 'symlink fast d/f' \
			'symlink slow d/../d/../d/../d/../d/../d/../d/../d/../d/../d/../d/f' \
			"write $tmp/sparse sparse" > "$tmp/cmds"
		E2FSPROGS_FAKE_TIME=1600000000 debugfs -w -f "$tmp/cmds" "$img" > /dev/null 2>&1
		head -c 16384 "$img" > "$d/mke2fs-$bs"
	done
	# A hashed directory (dir_index): d holds 60 hard links of one file,
	# names long enough for four blocks, and e2fsck -fD indexes it (a
	# root and three leaves, inside the first 16 KiB)
	img=$tmp/ext2-htree.img
	rm -f "$img"
	truncate -s 256K "$img"
	E2FSPROGS_FAKE_TIME=1600000000 mke2fs -q -F -t ext2 -b 1024 -N 16 -m 0 -I 128 \
		-O ^resize_inode,dir_index,^ext_attr -U 6b1e6d2a-0e5f-4c1d-9a3b-2c4d5e6f7a8b \
		-E hash_seed=0b1e6d2a-0e5f-4c1d-9a3b-2c4d5e6f7a8b "$img" > /dev/null 2>&1
	{
		printf '%s\n' 'rmdir lost+found' 'mkdir d' 'expand_dir d' 'expand_dir d' 'expand_dir d' \
			"write $tmp/f d/f"
		for i in $(seq 60); do printf 'ln d/f d/link-number-%02d-to-the-file\n' "$i"; done
	} > "$tmp/cmds"
	E2FSPROGS_FAKE_TIME=1600000000 debugfs -w -f "$tmp/cmds" "$img" > /dev/null 2>&1
	E2FSPROGS_FAKE_TIME=1600000000 e2fsck -fyD "$img" > /dev/null 2>&1 || true
	debugfs -R 'htree /d' "$img" 2>/dev/null | grep -q 'Number of entries' || {
		echo "make-corpus: the htree seed has no index" >&2
		exit 1
	}
	head -c 16384 "$img" > "$d/mke2fs-htree"
	# Near-valid (1 KiB blocks): no magic, an unknown incompatible
	# feature, the root directory's first rec_len unaligned (block 7),
	# the sparse file's indirect block (10) pointing past the end.
	cp "$d/mke2fs-1024" "$d/bad-magic"
	poke "$d/bad-magic" 1080 0000
	cp "$d/mke2fs-1024" "$d/bad-incompat"
	poke "$d/bad-incompat" 1120 12000100
	cp "$d/mke2fs-1024" "$d/bad-rec-len"
	poke "$d/bad-rec-len" $((7 * 1024 + 4)) 0d00
	cp "$d/mke2fs-1024" "$d/bad-indirect"
	poke "$d/bad-indirect" $((10 * 1024)) f0ffffff
}

# --- jbd2: the target writes a good journal itself and takes the input
# as the format (byte 0: none, 64-bit, v2, v3, v3 + 64-bit) and edits of
# it (4 bytes each): a seed per format, no edit.  And real logs, in the
# target's raw mode (byte 0 with bit 7 set, then the journal): the
# journals of e2fsprogs' test images, when `make jimages` has fetched
# them.  Those are e2fsprogs' GPL test data, never committed: they go to
# the fuzzer's own corpus under build/, which make fuzz reads too.
corpus_jbd2() {
	local d=$out/jbd2
	mkdir -p "$d"
	for f in 0 1 2 3 4; do
		printf "\\x0$f" > "$d/format-$f"
	done
	if compgen -G "../../build/jimages/src/e2fsprogs-*/tests/j_short_trans" > /dev/null; then
		python3 ../../tools/jimages.py --seeds ../../build/fuzz/corpus/jbd2
	else
		echo "make-corpus: no e2fsprogs journal images (make jimages fetches them): jbd2's raw seeds not written"
	fi
}

for t in $targets; do
	"corpus_$t"
done
ls -l $out/*/ | awk '$5 > 16384 { print "make-corpus: " $NF " is over 16 KiB"; bad = 1 } END { exit bad }'
