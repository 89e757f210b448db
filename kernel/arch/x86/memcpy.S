/* SPDX-License-Identifier: MIT */
/*
 * memcpy.S - memcpy() and memset() for x86-64, with the string
 * instructions, as Linux's arch/x86/lib/memcpy_64.S and memset_64.S.
 *
 * Copying and clearing is most of what a buffered read, a page-cache fill
 * or a bounce costs, so it is done in the fastest form the CPU offers:
 *
 *   ERMS ("enhanced rep movsb/stosb", CPUID leaf 7, EBX bit 9): the CPU
 *     moves a whole `rep movsb` in large internal chunks, so one
 *     instruction is the best copy of any length;
 *   otherwise `rep movsq` moves 8 bytes per step, and a `rep movsb` the
 *     last 0..7 -- a byte-at-a-time `rep movsb` would take eight times
 *     the steps (and under QEMU's TCG each step costs about the same).
 *
 * x86_erms is set by uaccess_init() (uaccess.c) from CPUID; until then,
 * and on CPUs without ERMS (QEMU's default TCG CPU), the movsq form runs.
 * The System V ABI guarantees the direction flag is clear on entry.
 *
 * Portable in one sense: the host unit tests assemble this very file
 * (under other names: the host's libc has its own memcpy) and check it at
 * every alignment and length class (tests/unit/check_memcpy.c).
 */
#ifndef MEMCPY
#define MEMCPY memcpy
#define MEMSET memset
#endif

	.data
	.globl x86_erms
x86_erms:
	.byte 0

	.text

/* void *memcpy(void *dst %rdi, const void *src %rsi, size_t n %rdx) */
	.globl MEMCPY
	.type MEMCPY, @function
MEMCPY:
	movq %rdi, %rax                 /* returns dst */
	movq %rdx, %rcx
	testb $1, x86_erms(%rip)
	jnz 1f
	shrq $3, %rcx                   /* whole quadwords ... */
	rep movsq
	movl %edx, %ecx                 /* ... then the 0..7 bytes left */
	andl $7, %ecx
1:	rep movsb
	ret
	.size MEMCPY, . - MEMCPY

/* void *memset(void *s %rdi, int c %esi, size_t n %rdx) */
	.globl MEMSET
	.type MEMSET, @function
MEMSET:
	movq %rdi, %r9                  /* returns s */
	movzbl %sil, %eax
	movabsq $0x0101010101010101, %r8
	imulq %r8, %rax                 /* c in every byte of %rax */
	movq %rdx, %rcx
	testb $1, x86_erms(%rip)
	jnz 1f
	shrq $3, %rcx
	rep stosq
	movl %edx, %ecx
	andl $7, %ecx
1:	rep stosb
	movq %r9, %rax
	ret
	.size MEMSET, . - MEMSET

	.section .note.GNU-stack, "", @progbits
