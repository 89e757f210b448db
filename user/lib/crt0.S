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

	.section .note.GNU-stack, "", @progbits
