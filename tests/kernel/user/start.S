/* SPDX-License-Identifier: MIT */
/*
 * start.S - where the test program begins: the kernel's exec jumps to
 * _start with rsp at argc (x86-64 psABI 3.4.1).  Pass that pointer to C,
 * keeping the ABI's 16-byte alignment for the call.
 */
	.text
	.globl _start
_start:
	xorl %ebp, %ebp
	movq %rsp, %rdi                 /* &argc */
	movq %rsp, %rsi
	andq $15, %rsi                  /* rsp % 16: must be 0 */
	call ustart                     /* does not return */
	ud2

/* The signal restorer: a handler returns here; rt_sigreturn(15). */
	.globl restore_rt
restore_rt:
	movq $15, %rax
	syscall
	ud2
