/* SPDX-License-Identifier: MIT */
/*
 * crt0.S - _start, where every user program begins.
 *
 * The kernel's exec leaves the stack as the System V x86-64 ABI (§3.4.1)
 * describes:
 *
 *     rsp ->  argc
 *             argv[0] ... argv[argc-1], NULL
 *             envp[0] ... NULL
 *             auxv pairs ..., AT_NULL
 *             (the strings themselves, higher up)
 *
 * We pass argc, argv and envp to __libc_start_main (stdlib.c) in the
 * argument registers.  rbp = 0 marks the outermost frame for a debugger's
 * backtrace; the stack is aligned to 16 bytes before the call, as the ABI
 * requires of every call site.
 */
	.text
	.globl _start
	.type _start, @function
_start:
	xor	%ebp, %ebp
	mov	(%rsp), %rdi            /* argc */
	lea	8(%rsp), %rsi           /* argv */
	lea	8(%rsi,%rdi,8), %rdx    /* envp = argv + argc + 1 */
	and	$-16, %rsp
	call	__libc_start_main
	hlt                             /* not reached: it calls exit() */
	.size _start, . - _start

/*
 * __restore_rt - where a signal handler returns to.  sigaction() passes its
 * address to the kernel as sa_restorer; the kernel puts it on the stack as
 * the handler's return address, so returning from the handler lands here
 * and rt_sigreturn(15) restores the interrupted registers.
 */
	.globl __restore_rt
	.type __restore_rt, @function
__restore_rt:
	mov	$15, %eax
	syscall
	hlt
	.size __restore_rt, . - __restore_rt

/*
 * pid_t vfork(void) - vfork(58).  The child runs on this very stack while
 * the parent sleeps, so the child's return from here and its next calls
 * overwrite the parent's return address on it.  Keep it in a register
 * instead (each task has its own): pop it before the call, push it back
 * after, in both.  This is why vfork cannot be a C function.
 */
	.globl vfork
	.type vfork, @function
vfork:
	pop	%rdi                    /* the return address */
	mov	$58, %eax
	syscall
	push	%rdi
	cmp	$-4095, %rax
	jae	1f
	ret
1:	neg	%eax                    /* -errno: errno set, -1 returned */
	mov	%eax, errno(%rip)
	mov	$-1, %rax
	ret
	.size vfork, . - vfork

	.section .note.GNU-stack, "", @progbits
