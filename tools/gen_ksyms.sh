#!/bin/sh
# SPDX-License-Identifier: MIT
# gen_ksyms.sh - turn `nm -n` output of the kernel into the .ksyms table
# (assembly) that kernel/ksyms.c searches.  Only text symbols (t/T/w/W)
# are kept: backtraces name functions.  With no argument, an empty table
# for the first link.
#
# usage: tools/gen_ksyms.sh [NM_OUTPUT] > ksyms.S
set -e
in=${1:-/dev/null}
awk '
BEGIN { n = 0 }
$2 ~ /^[tTwW]$/ && $3 !~ /^(\.|__ksym)/ {
	addr[n] = $1; name[n] = $3; n++
}
END {
	print "\t.section .ksyms, \"a\""
	print "\t.balign 8"
	print "\t.globl ksyms_count, ksyms_addrs, ksyms_offsets, ksyms_names"
	print "ksyms_count:\n\t.quad " n
	print "ksyms_addrs:"
	for (i = 0; i < n; i++) print "\t.quad 0x" addr[i]
	print "ksyms_offsets:"
	off = 0
	for (i = 0; i < n; i++) { print "\t.long " off; off += length(name[i]) + 1 }
	print "ksyms_names:"
	for (i = 0; i < n; i++) print "\t.asciz \"" name[i] "\""
}' "$in"
