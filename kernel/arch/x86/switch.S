/* SPDX-License-Identifier: MIT */
/*
 * switch.S - the context switch: stop running one task, resume another.
 *
 * struct task_struct *__switch_to(unsigned long *prev_ksp,
 *                                 unsigned long next_ksp,
 *                                 struct task_struct *prev);
 *
 * Called only from __schedule(), with interrupts off.  Saves the
 * callee-saved registers (SysV ABI: rbx, rbp, r12-r15) on the current
 * stack, records the stack pointer in prev->ksp, loads next's stack
 * pointer and pops next's registers: the `ret` then returns into wherever
 * next called __switch_to from -- for a task that has run before, its own
 * __schedule().  Everything else (rip, caller-saved registers) is already
 * on each task's stack.  Returns `prev` in the new task, so that it knows
 * which task it switched from (to free it if it died).
 *
 * A new task's stack is prepared by kthread_create() to look as if it had
 * called __switch_to from ret_from_kthread.
 */
	.text
	.globl __switch_to
__switch_to:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, (%rdi)
	movq %rsi, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	movq %rdx, %rax
	ret

/* A new kernel thread starts here, with the task it replaced in %rax. */
	.globl ret_from_kthread
ret_from_kthread:
	movq %rax, %rdi
	call kthread_entry      /* does not return */
	ud2
