/* SPDX-License-Identifier: MIT */
/*
 * embed.S - the user suite's programs, inside the kernel image.
 * exec (kernel/exec.c) serves them as /ktest/<name> when no file of that
 * name exists.  /ktest/notelf is a shell script, for exec's ENOEXEC.
 */
	.section .rodata
	.balign 16
	.globl usertest_elf_start, usertest_elf_end
usertest_elf_start:
	.incbin "usertest.elf"      /* in the build folder: user.mk */
usertest_elf_end:

	.globl notelf_start, notelf_end
notelf_start:
	.ascii "#!/bin/sh\necho this is not an ELF file\n"
notelf_end:
