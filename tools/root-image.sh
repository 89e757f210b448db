#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# root-image.sh IMG [LINE...] - a disk for root=: one MBR partition (1 MiB
# on, to the end) holding an ext2 file system, made by the host's mke2fs
# from the initramfs's tree (build/rootfs: init, bin, tests, the empty
# mount points).  With LINEs, they become the disk's own /etc/init.sh,
# which init runs -- the script of a test whose root is read-only, where
# the kernel cannot copy the scenario's script in.  The image must exist
# (a sparse file of its size: the QEMU runner's `disk:` makes it).
# ROOT_PROGS="/bin/lsblk /usr/bin/iostat ..." copies those host programs
# in, at the same paths, with every shared library ldd finds for them
# (tools/copy-progs.sh): Debian's own binaries, run unmodified on Spindle.
set -euo pipefail
img=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)/build/rootfs
[ -x "$root/init" ] || { echo "$root/init missing: make iso first" >&2; exit 1; }
part_offset=$((1024 * 1024))
size=$(stat -c %s "$img")
tree=$img.tree
rm -rf "$tree"
cp -a "$root" "$tree"
if [ $# -gt 0 ]; then
	printf '%s\n' "$@" > "$tree/etc/init.sh"
fi
# shellcheck disable=SC2086 # one word per program
"$(dirname "$0")/copy-progs.sh" "$tree" ${ROOT_PROGS:-}
printf 'label: dos\n1MiB,,83\n' | PATH="$PATH:/sbin" sfdisk -q "$img"
PATH="$PATH:/sbin" mke2fs -q -F -t ext2 -L root -E offset=$part_offset -d "$tree" "$img" \
	"$(( (size - part_offset) / 1024 ))k"
