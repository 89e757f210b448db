#!/bin/bash
# SPDX-License-Identifier: MIT
# Outside oracle for check_elf: programs built by the host's gcc and ld,
# as static non-PIE x86-64 executables (what Spindle's exec loads) and as
# the host's usual PIE (ET_DYN, with a PT_INTERP), each with readelf's
# view of it as plain text:
#     entry <hex>
#     load <vaddr hex> <memsz hex> <flags: R W E letters>
#     interp <path>                     (the PIE only)
# Usage: make_elves.sh DIR
set -euo pipefail
out=$1
rm -rf "$out"
mkdir -p "$out"
cat > "$out/prog.c" <<'C'
char bss[8192];
const char message[] = "hello";
void _start(void)
{
	bss[0] = message[0];
	for (;;)
		;
}
C
gcc -O1 -static -nostdlib -no-pie -fno-pic -o "$out/static" "$out/prog.c"
gcc -O1 -nostdlib -pie -fpie -o "$out/pie" "$out/prog.c"
for f in static pie; do
	{
		readelf -hW "$out/$f" | awk '/Entry point address/ { print "entry", $4 }'
		readelf -lW "$out/$f" | awk '$1 == "LOAD" {
			flags = ""
			for (i = 7; i < NF; i++) flags = flags $i
			print "load", $3, $6, flags }'
		readelf -lW "$out/$f" | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]$/interp \1/p'
	} > "$out/$f.txt"
done
