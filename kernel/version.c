// SPDX-License-Identifier: MIT
/*
 * version.c - the kernel's name for itself (Linux's init/version.c): the
 * line of /proc/version and what uname(2) answers.  The build writes who,
 * where, with which compiler and from which commit's time into
 * compile.h (the Makefile's COMPILE_H), so that /proc/version reads as on
 * Linux:
 *
 *   Spindle version 0.1 (root@ci) (gcc (Debian 12.2.0-14) 12.2.0, GNU ld
 *   (GNU Binutils for Debian) 2.40) #1 SMP Sun Dec  6 01:03:00 UTC 2026
 */
#include <spindle/syscalls.h>
#include <spindle/version.h>
#include <generated/compile.h>

const struct new_utsname init_uts = {
	.sysname = SPINDLE_SYSNAME,
	.nodename = SPINDLE_NODENAME,
	.release = SPINDLE_RELEASE,
	.version = UTS_VERSION,
	.machine = "x86_64",
	.domainname = "(none)",
};

const char spindle_banner[] =
	SPINDLE_SYSNAME " version " SPINDLE_RELEASE " (" SPINDLE_COMPILE_BY "@"
	SPINDLE_COMPILE_HOST ") (" SPINDLE_COMPILER ") " UTS_VERSION "\n";
