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
 */
	.text
	.code64
	.altmacro

	.macro VECTOR n
	.balign 16
vector_\n:
	.if !(\n == 8 || (\n >= 10 && \n <= 14) || \n == 17 || \n == 21 || \n == 29 || \n == 30)
	pushq $0
	.endif
	pushq $\n
	jmp common_interrupt
	.endm

common_interrupt:
	cld
	/* Interrupts do not clear RFLAGS.AC: with SMAP, a user program could
	 * otherwise enter the kernel with user accesses allowed. */
	testb $1, x86_smap_enabled(%rip)
	jz 1f
	clac
1:
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
	movq %rsp, %rdi
	call x86_handle_interrupt
	.globl ret_from_interrupt
ret_from_interrupt:
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
	addq $16, %rsp          /* vector and error code */
	iretq

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
