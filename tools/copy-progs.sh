#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# copy-progs.sh TREE FILE... - copy host programs (Debian's own binaries)
# into the tree of a root file system, at the same paths, with every
# shared library ldd finds for each: what Spindle then runs unmodified.
# A FILE that is not a program (a terminfo entry, a library a program
# dlopen()s, which ldd cannot see) is copied as it is.
set -euo pipefail
tree=$1
shift
for prog in "$@"; do
	[ -e "$prog" ] || { echo "copy-progs: $prog: not on this host (make deps installs it)" >&2; exit 1; }
	for f in "$prog" $(ldd "$prog" 2>/dev/null | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		real=$(readlink -f "$f")
		mkdir -p "$tree$(dirname "$f")"
		cp --remove-destination "$real" "$tree$f"
	done
done
