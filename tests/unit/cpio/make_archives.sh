#!/bin/bash
# SPDX-License-Identifier: MIT
# Outside oracle for check_initramfs: archives written by the host's GNU
# cpio (-o -H newc), from a small tree made here.  Usage: make_archives.sh DIR
set -euo pipefail
out=$1
rm -rf "$out"
mkdir -p "$out/tree"
cd "$out/tree"
mkdir -p bin etc/rc.d empty
printf 'hello from the initramfs\n' > etc/motd
printf '#!/bin/sh\necho init\n' > init
chmod 755 init
: > etc/rc.d/emptyfile
# a file of several pages, bytes i*13 mod 256 (the test recomputes them)
python3 -c 'import sys; sys.stdout.buffer.write(bytes((i*13) % 256 for i in range(20000)))' > bin/big
find . | LC_ALL=C sort | cpio -o -H newc --quiet > ../good.cpio
# a second archive to concatenate with the first: a new file, and one
# that replaces the first archive's etc/motd
mkdir -p ../extra/etc
cd ../extra
printf 'early\n' > etc/early
printf 'replaced\n' > etc/motd
find . | LC_ALL=C sort | cpio -o -H newc --quiet > ../extra.cpio
# links: a symbolic link (relative, into another directory) and a file
# with three names, which GNU cpio writes as three entries with the data
# in the last
mkdir -p ../links/bin ../links/lib
cd ../links
printf 'one file, three names\n' > bin/tool
ln bin/tool bin/alias1
ln bin/tool lib/alias2
ln -s ../bin/tool lib/tool-link
# and times the unpacker must give back: the file's (all its names), the
# link's own, two directories' (set last: making their entries would
# change them)
touch -d @1600000000 bin/tool
touch -h -d @1600000100 lib/tool-link
touch -d @1600000200 lib
touch -d @1600000300 bin
find . | LC_ALL=C sort | cpio -o -H newc --quiet > ../links.cpio
