/* SPDX-License-Identifier: MIT */
/*
 * usercopy.S - the only kernel code that touches user memory.
 *
 * The C side (uaccess.c) checks that a range lies in user space
 * (access_ok); these routines do the copying, and may fault on the way: a
 * process may pass a pointer to a page it never mapped.  Each instruction
 * that touches user memory is listed in the exception-fixup table
 * (asm/extable.h), so a fault there makes the page-fault handler resume
 * at the fixup label instead of reporting a kernel bug.
 *
 * `rep movsb` / `rep stosb` count down %rcx as they go, and a fault stops
 * them before the faulting byte with %rcx = bytes not yet done.  So the
 * fixup for a copy is simply "return %rcx": exactly Linux's contract,
 * copy_*_user() returns the number of bytes NOT copied.
 *
 * For speed (see memcpy.S) the bulk goes by quadwords, `rep movsq`, unless
 * the CPU has ERMS.  A fault there leaves %rcx = quadwords not done; the
 * fixup turns that back into bytes and finishes with `rep movsb` from the
 * same place, which faults again at the exact byte -- so the count of
 * bytes not copied stays exact.
 *
 * SMAP (Supervisor Mode Access Prevention) makes the CPU refuse kernel
 * accesses to user pages unless RFLAGS.AC is set: `stac` sets it, `clac`
 * clears it, and only these routines do so -- a stray dereference of a
 * user pointer anywhere else faults.  The instructions do not exist on
 * CPUs without SMAP (QEMU's default TCG CPU), hence the flag test.
 */
#include <spindle/errno.h>
#include <asm/extable.h>

	.text

/* stac/clac only when uaccess_init() turned SMAP on. */
.macro ASM_STAC
	testb $1, x86_smap_enabled(%rip)
	jz .Lno_stac\@
	stac
.Lno_stac\@:
.endm

.macro ASM_CLAC
	testb $1, x86_smap_enabled(%rip)
	jz .Lno_clac\@
	clac
.Lno_clac\@:
.endm

/*
 * unsigned long __copy_user(void *to, const void *from, unsigned long n)
 * Either side may be the user one.  Returns the bytes not copied.
 */
	.globl __copy_user
__copy_user:
	movq %rdx, %rcx
	ASM_STAC
	testb $1, x86_erms(%rip)
	jnz 2f
	movl %edx, %r8d
	andl $7, %r8d                   /* the bytes after the last quadword */
	shrq $3, %rcx
1:	rep movsq
	movl %r8d, %ecx
2:	rep movsb
3:	ASM_CLAC
	movq %rcx, %rax
	ret
4:	leaq (%r8, %rcx, 8), %rcx       /* a fault in the quadwords: bytes left */
	jmp 2b
	_ASM_EXTABLE 1b, 4b
	_ASM_EXTABLE 2b, 3b

/*
 * unsigned long __clear_user(void *to, unsigned long n)
 * Returns the bytes not zeroed.
 */
	.globl __clear_user
__clear_user:
	movq %rsi, %rcx
	xorl %eax, %eax
	ASM_STAC
	testb $1, x86_erms(%rip)
	jnz 7f
	movl %esi, %r8d
	andl $7, %r8d
	shrq $3, %rcx
6:	rep stosq
	movl %r8d, %ecx
7:	rep stosb
8:	ASM_CLAC
	movq %rcx, %rax
	ret
9:	leaq (%r8, %rcx, 8), %rcx       /* the same for the quadwords of zeros */
	jmp 7b
	_ASM_EXTABLE 6b, 9b
	_ASM_EXTABLE 7b, 8b

/*
 * long __strncpy_from_user(char *dst, const char *src, long count)
 * Copies up to count bytes, stopping after a NUL.  Returns the string's
 * length (the NUL not counted), count if there was no NUL within count
 * bytes, or -EFAULT.
 */
	.globl __strncpy_from_user
__strncpy_from_user:
	xorl %eax, %eax                 /* bytes copied so far */
	ASM_STAC
.Lstr_loop:
	cmpq %rdx, %rax
	jae .Lstr_done                  /* count reached, no NUL */
5:	movb (%rsi,%rax), %cl
	movb %cl, (%rdi,%rax)
	testb %cl, %cl
	jz .Lstr_done                   /* rax = length without the NUL */
	incq %rax
	jmp .Lstr_loop
.Lstr_done:
	ASM_CLAC
	ret
.Lstr_fault:
	ASM_CLAC
	movq $-EFAULT, %rax
	ret
	_ASM_EXTABLE 5b, .Lstr_fault

	.section .note.GNU-stack, "", @progbits
