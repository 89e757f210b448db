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
1:	rep movsb
2:	ASM_CLAC
	movq %rcx, %rax
	ret
	_ASM_EXTABLE 1b, 2b

/*
 * unsigned long __clear_user(void *to, unsigned long n)
 * Returns the bytes not zeroed.
 */
	.globl __clear_user
__clear_user:
	movq %rsi, %rcx
	xorl %eax, %eax
	ASM_STAC
3:	rep stosb
4:	ASM_CLAC
	movq %rcx, %rax
	ret
	_ASM_EXTABLE 3b, 4b

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
