/* SPDX-License-Identifier: MIT */
/*
 * vdso-image.S - the vDSO's shared object, byte for byte, in the kernel's
 * read-only data (Linux generates a C array, vdso-image-64.c, with
 * vdso2c; an .incbin is the same bytes).  vma.c copies it into pages
 * of its own at boot.  VDSO_SO is the file's path, from the Makefile.
 */
	.section .rodata
	.balign 4096
	.globl vdso_image_start
vdso_image_start:
	.incbin VDSO_SO
	.globl vdso_image_end
vdso_image_end:
