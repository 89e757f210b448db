/* SPDX-License-Identifier: MIT */
/*
 * entry.S - the way into the kernel from an interrupt or exception.
 *
 * Every IDT vector has a tiny stub: it pushes a dummy error code for the
 * vectors where the CPU pushes none (so the frame has one shape), pushes
 * its vector number and jumps to common_interrupt, which saves the general
 * registers to form a struct pt_regs (asm/ptrace.h) and calls
 * x86_handle_interrupt(regs).  On return the registers are restored and
 * iretq resumes the interrupted code -- or, if the C code called
 * schedule() on the way out, some other task first.
 *
 * The exceptions with an error code: 8, 10-14, 17, 21, 29, 30 (Intel SDM
 * vol. 3, table 6-1).
 *
 * SWAPGS.  The kernel reaches its per-CPU data through the GS base
 * (asm/percpu.h); a user program may have any GS base of its own.  The
 * CPU keeps both: MSR_GS_BASE is the one in use, MSR_KERNEL_GS_BASE the
 * other, and SWAPGS exchanges them.  So every way in from user mode
 * starts with SWAPGS and every way out to user mode ends with it; ways in
 * from the kernel, which already has its GS base, must not.  The
 * interrupted CS says which (its low two bits: the privilege level).
 * One more case, as in Linux: IRETQ itself can fault on the way out (a
 * bad frame a signal return built), after SWAPGS gave back the user's GS
 * base but while still in ring 0; the fault is then taken as from the
 * kernel with the user's GS base, so that address is checked too.
 */
#include <asm/desc.h>
#include <asm/ptrace.h>

	.text
	.code64
	.altmacro

/*
 * The general registers, in struct pt_regs's order (asm/ptrace.h) read from
 * the top down: the CPU's frame and the vector sit above them.  Linux's
 * PUSH_REGS and POP_REGS; written once for the interrupt and the
 * system-call paths.
 */
	.macro PUSH_REGS
	pushq %rdi
	pushq %rsi
	pushq %rdx
	pushq %rcx
	pushq %rax
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %rbx
	pushq %rbp
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	.endm

	.macro POP_REGS
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbp
	popq %rbx
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rax
	popq %rcx
	popq %rdx
	popq %rsi
	popq %rdi
	.endm

	.macro VECTOR n
	.balign 16
vector_\n:
	.if !(\n == 8 || (\n >= 10 && \n <= 14) || \n == 17 || \n == 21 || \n == 29 || \n == 30)
	pushq $0
	.endif
	pushq $\n
	.if \n == 2
	jmp nmi_entry
	.else
	jmp common_interrupt
	.endif
	.endm

/*
 * An NMI can arrive anywhere: between SYSCALL and its SWAPGS, or between
 * the SWAPGS and the SYSRET on the way out (where rsp is already the
 * user's: hence its own IST stack, asm/desc.h).  So the saved CS cannot
 * say which GS base is loaded; the GS base itself can.  The kernel's is a
 * per-CPU offset with the top bit set (the copies lie below the kernel
 * image); a user program's is a user address, below 2^47.  "Paranoid"
 * entry, as Linux calls it: read MSR_GS_BASE, swap only if it is not the
 * kernel's, and swap back only if we swapped.
 */
nmi_entry:
	cld
	PUSH_REGS
	movl $0xc0000101, %ecx          /* MSR_GS_BASE */
	rdmsr
	xorl %ebx, %ebx                 /* rbx survives the call: did we swap? */
	testl %edx, %edx
	js 1f
	swapgs
	movl $1, %ebx
1:	movq %rsp, %rdi
	call do_nmi
	testl %ebx, %ebx
	jz 2f
	swapgs
2:	POP_REGS
	addq $16, %rsp                  /* vector and error code */
	iretq

common_interrupt:
	cld
	testb $3, 24(%rsp)      /* CS, above the vector, error code and rip */
	jnz 3f
	cmpq $irq_return_iret, 16(%rsp)
	jne 4f
3:	swapgs
4:
	/* Interrupts do not clear RFLAGS.AC: with SMAP, a user program could
	 * otherwise enter the kernel with user accesses allowed. */
	testb $1, x86_smap_enabled(%rip)
	jz 1f
	clac
1:
	PUSH_REGS
	/* From user mode, rbp is the program's, any value at all: zeroed,
	 * so that a backtrace (lockdep's, slab_debug's) ends here instead of
	 * following it.  From the kernel it is the interrupted frame's. */
	testb $3, PT_REGS_CS(%rsp)
	jz 2f
	xorl %ebp, %ebp
2:
	movq %rsp, %rdi
	call x86_handle_interrupt
	.globl ret_from_interrupt
ret_from_interrupt:
	POP_REGS
	addq $16, %rsp          /* vector and error code */
	testb $3, 8(%rsp)       /* back to user mode: its GS base */
	jz irq_return_iret
	swapgs
irq_return_iret:
	iretq

/*
 * The SYSCALL instruction (a user program's system call) lands here, at
 * the address in MSR_LSTAR (syscall.c), with:
 *     rax = the call's number, rdi rsi rdx r10 r8 r9 = its arguments,
 *     rcx = the user's rip to return to, r11 = the user's rflags,
 *     rsp = still the USER stack, interrupts off (SFMASK cleared IF).
 * It builds the same struct pt_regs an interrupt from user mode would
 * have built at the top of the kernel stack, then calls
 * do_syscall_64(regs), which runs sys_<name>() and puts the result in
 * regs->rax.
 *
 * The way back: SYSRET when it is safe -- it is fast, but it takes rip
 * from rcx and rflags from r11, and raises #GP *in ring 0* if rcx is not
 * canonical (a famous class of bugs).  do_syscall_64() says whether regs
 * still look like SYSCALL left them with a sane rip; when not (after
 * execve or a signal changed rip, or a rip no SYSRET can take), the
 * general path ret_from_interrupt / IRETQ restores everything exactly.
 */
	.globl entry_SYSCALL_64
entry_SYSCALL_64:
	swapgs                                  /* the kernel's GS base */
	movq %rsp, %gs:syscall_user_rsp         /* per CPU: gdt.c */
	movq %gs:syscall_kernel_rsp, %rsp       /* top of this task's stack */
	pushq $GDT_USER_DS                      /* ss */
	pushq %gs:syscall_user_rsp              /* rsp */
	pushq %r11                              /* rflags */
	pushq $GDT_USER_CS                      /* cs */
	pushq %rcx                              /* rip */
	pushq $0                                /* error_code */
	pushq $SYSCALL_VECTOR                   /* vector: "a system call" */
	PUSH_REGS
	xorl %ebp, %ebp                         /* backtraces stop here */
	movq %rsp, %rdi
	call do_syscall_64                      /* returns with interrupts off */
	testb %al, %al
	jz ret_from_interrupt                   /* the IRETQ way */
	POP_REGS
	addq $16, %rsp                          /* vector and error code */
	movq 0(%rsp), %rcx                      /* rip for SYSRET */
	movq 16(%rsp), %r11                     /* rflags for SYSRET */
	movq 24(%rsp), %rsp                     /* the user's stack */
	swapgs                                  /* the user's GS base */
	sysretq

/*
 * A forked child's first instructions (its stack was built by fork():
 * the __switch_to frame returns here, right below its pt_regs, a copy of
 * the parent's with rax = 0).  Finish the switch, then go to user mode.
 */
	.globl ret_from_fork
ret_from_fork:
	movq %rax, %rdi                         /* the task we replaced */
	call schedule_tail
	movq %rsp, %rdi                         /* = task_pt_regs(current) */
	call exit_to_user_mode                  /* signals; interrupts off */
	jmp ret_from_interrupt

/*
 * void ret_to_user(struct pt_regs *regs): a kernel thread that has just
 * exec'd a program leaves for user mode for the first time.  regs is the
 * task's own pt_regs at the top of its stack; everything below it (the
 * thread's kernel call chain) is abandoned.
 */
	.globl ret_to_user
ret_to_user:
	movq %rdi, %rsp
	call exit_to_user_mode
	jmp ret_from_interrupt

	.set i, 0
	.rept 256
	VECTOR %i
	.set i, i + 1
	.endr

/* The stubs' addresses, for idt_init(). */
	.section .rodata
	.balign 8
	.globl interrupt_stubs
interrupt_stubs:
	.macro STUB_ADDR n
	.quad vector_\n
	.endm
	.set i, 0
	.rept 256
	STUB_ADDR %i
	.set i, i + 1
	.endr
