/* SPDX-License-Identifier: MIT */
/*
 * trampoline.S - an application processor's first instructions, from
 * real mode to the kernel's 64-bit code (smpboot.c sends it here).
 *
 * A CPU woken by INIT and a STARTUP IPI begins as an 8086 would: real
 * mode, paging off, at CS:IP = (vector << 8):0000, so the code it runs
 * must sit in the first MiB, on a page boundary (Intel SDM vol. 3,
 * 8.4.4.1 "Typical BSP Initialization Sequence", and the MP
 * specification's B.4).  smpboot.c copies the bytes between
 * trampoline_start and trampoline_end to TRAMPOLINE_PHYS (0x8000, vector
 * 0x08) before it wakes anyone.  The blob is position-dependent only on
 * that address, a constant, so nothing in it is patched at run time.
 *
 * The steps are boot.S's, in a different start state:
 *   1. real mode: load a small GDT kept inside the blob, set CR0.PE,
 *      far-jump into 32-bit protected mode;
 *   2. protected mode: PAE on, CR3 = boot.S's page tables (boot_pml4,
 *      below 4 GiB as CR3 must be here; they map the first GiB at 0,
 *      where this code runs, and at the kernel's addresses), EFER.LME and
 *      NXE, paging on: long mode, still in a 32-bit segment;
 *   3. far-jump to the blob's 64-bit segment, then jump to
 *      secondary_startup_64 in the kernel's text, in the higher half.
 * There, the kernel's own page tables (smp_ap_cr3) replace boot.S's, the
 * stack smpboot.c gave this CPU (smp_ap_stack[], found by the APIC id
 * CPUID reports) is loaded, and
 * start_secondary() finishes in C.
 *
 * Interrupts stay off throughout: no IDT is loaded until C.
 */
#include <asm/layout.h>
#include <asm/smp.h>

#define CR0_PE           (1 << 0)
#define CR0_PG           (1 << 31)
#define CR4_PAE          (1 << 5)
#define MSR_EFER         0xc0000080
#define EFER_LME         (1 << 8)
#define EFER_NXE         (1 << 11)

/* an address inside the blob, where it runs: at TRAMPOLINE_PHYS */
#define TR(sym)          (TRAMPOLINE_PHYS + ((sym) - trampoline_start))

	.section .rodata
	.balign 16
	.globl trampoline_start, trampoline_end
	.code16
trampoline_start:
	cli
	cld
	movw %cs, %ax                   /* CS = TRAMPOLINE_PHYS >> 4 */
	movw %ax, %ds
	lgdtl tr_gdt_ptr - trampoline_start
	movl %cr0, %eax
	orl $CR0_PE, %eax
	movl %eax, %cr0
	ljmpl $0x08, $TR(tr_protected)

	.code32
tr_protected:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl %cr4, %eax
	orl $CR4_PAE, %eax
	movl %eax, %cr4
	movl $boot_pml4, %eax           /* boot.S's tables: a physical address */
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $(EFER_LME | EFER_NXE), %eax
	wrmsr
	movl %cr0, %eax
	orl $CR0_PG, %eax
	movl %eax, %cr0
	ljmp $0x18, $TR(tr_long)

	.code64
tr_long:
	movabsq $secondary_startup_64, %rax
	jmp *%rax

	.balign 8
tr_gdt:
	.quad 0                         /* null */
	.quad 0x00cf9a000000ffff        /* 0x08: 32-bit code */
	.quad 0x00cf92000000ffff        /* 0x10: data */
	.quad 0x00af9a000000ffff        /* 0x18: 64-bit code (L=1) */
tr_gdt_end:
tr_gdt_ptr:
	.word tr_gdt_end - tr_gdt - 1
	.long TR(tr_gdt)
trampoline_end:

/* From here on: the kernel's text, in the higher half. */
	.text
	.code64
	.globl secondary_startup_64
secondary_startup_64:
	movq smp_ap_cr3(%rip), %rax     /* the kernel's page tables */
	movq %rax, %cr3
	movl $1, %eax                   /* CPUID 1: EBX[31:24] = initial APIC id */
	cpuid
	shrl $24, %ebx
	leaq smp_ap_stack(%rip), %rax   /* this CPU's stack, by APIC id */
	movq (%rax, %rbx, 8), %rsp
	xorl %ebp, %ebp                 /* terminates backtraces */
	call start_secondary
1:	cli
	hlt
	jmp 1b
