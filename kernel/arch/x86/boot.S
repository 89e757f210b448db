/* SPDX-License-Identifier: MIT */
/*
 * boot.S - from GRUB to start_kernel().
 *
 * GRUB loads the kernel ELF at physical 1 MiB (the program headers' physical
 * addresses) and jumps to _start in 32-bit protected mode with paging off,
 * EAX = the multiboot2 magic and EBX = the physical address of the
 * multiboot2 information structure (Multiboot2 spec, section 3.3).
 *
 * This file does the minimum to reach C in 64-bit mode:
 *   1. check the CPU can do long mode (CPUID 0x80000001 EDX bit 29);
 *   2. build throwaway page tables that map the first 1 GiB three times
 *      with 2 MiB pages: at 0 (identity, so the next instruction still has
 *      an address after paging turns on), at PAGE_OFFSET (the direct map)
 *      and at KERNEL_VMA (where the kernel is linked);
 *   3. enable PAE, set EFER.LME and EFER.NXE, turn on paging: the CPU is
 *      now in long mode (Intel SDM vol. 3, 9.8.5), still in a 32-bit
 *      compatibility segment;
 *   4. load a 64-bit GDT, far-jump to a 64-bit code segment, jump to the
 *      higher half, switch to the boot stack and call
 *      start_kernel(magic, mbi_phys).
 * kernel/arch/x86/paging.c then builds the real page tables (all RAM in the
 * direct map, no identity map) and drops these.
 *
 * Everything here up to long mode runs at its physical address, so it
 * lives in the low ".boot" sections, linked at their load address.
 */
#include <asm/layout.h>

#define MB2_MAGIC        0xe85250d6
#define MB2_ARCH_I386    0
#define CR0_PG           (1 << 31)
#define CR4_PAE          (1 << 5)
#define MSR_EFER         0xc0000080
#define EFER_LME         (1 << 8)
#define EFER_NXE         (1 << 11)
#define PTE_P            0x001
#define PTE_W            0x002
#define PTE_PS           0x080

/* The multiboot2 header: must be 8-byte aligned in the first 32 KiB. */
	.section .multiboot2, "a"
	.balign 8
mb2_header:
	.long MB2_MAGIC
	.long MB2_ARCH_I386
	.long mb2_header_end - mb2_header
	.long -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	/* end tag */
	.word 0
	.word 0
	.long 8
mb2_header_end:

	.section .boot.text, "ax"
	.code32
	.globl _start
_start:
	cli
	cld
	movl $boot_stack32_top, %esp
	movl %eax, %edi                 /* multiboot2 magic: 1st argument */
	movl %ebx, %esi                 /* mbi physical address: 2nd argument */

	/* Long mode available? Otherwise say so on COM1 and halt. */
	movl $0x80000000, %eax
	cpuid
	cmpl $0x80000001, %eax
	jb no_long_mode
	movl $0x80000001, %eax
	cpuid
	testl $(1 << 29), %edx
	jz no_long_mode

	/* PD: 512 entries of 2 MiB pages = the first 1 GiB. */
	movl $boot_pd, %ebx
	xorl %ecx, %ecx
1:	movl %ecx, %eax
	shll $21, %eax
	orl $(PTE_P | PTE_W | PTE_PS), %eax
	movl %eax, (%ebx, %ecx, 8)
	movl $0, 4(%ebx, %ecx, 8)
	incl %ecx
	cmpl $512, %ecx
	jne 1b

	/* PDPT for 0 and PAGE_OFFSET: entry 0 -> PD. */
	movl $(boot_pd + PTE_P + PTE_W), boot_pdpt_low
	/* PDPT for KERNEL_VMA: entry 510 (0xffffffff80000000) -> PD. */
	movl $(boot_pd + PTE_P + PTE_W), boot_pdpt_high + 510 * 8
	/* PML4: 0 (identity), 273 (PAGE_OFFSET), 511 (kernel). */
	movl $(boot_pdpt_low + PTE_P + PTE_W), boot_pml4
	movl $(boot_pdpt_low + PTE_P + PTE_W), boot_pml4 + ((PAGE_OFFSET >> 39) & 511) * 8
	movl $(boot_pdpt_high + PTE_P + PTE_W), boot_pml4 + 511 * 8

	movl $boot_pml4, %eax
	movl %eax, %cr3
	movl %cr4, %eax
	orl $CR4_PAE, %eax
	movl %eax, %cr4
	movl $MSR_EFER, %ecx
	rdmsr
	orl $(EFER_LME | EFER_NXE), %eax
	wrmsr
	movl %cr0, %eax
	orl $CR0_PG, %eax
	movl %eax, %cr0

	lgdt boot_gdt_ptr
	ljmp $0x08, $long_mode_entry

no_long_mode:
	movl $no_lm_msg, %esi
	movw $0x3f8, %dx
2:	lodsb
	testb %al, %al
	jz 3f
	outb %al, %dx
	jmp 2b
3:	hlt
	jmp 3b

	.code64
long_mode_entry:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movabsq $higher_half, %rax
	jmp *%rax

	.section .boot.data, "aw"
no_lm_msg:
	.asciz "Spindle: this CPU cannot run 64-bit code, halting.\r\n"
	.balign 8
boot_gdt:
	.quad 0                         /* null */
	.quad 0x00af9a000000ffff        /* 0x08: kernel code, 64-bit (L=1) */
	.quad 0x00cf92000000ffff        /* 0x10: kernel data */
boot_gdt_end:
boot_gdt_ptr:
	.word boot_gdt_end - boot_gdt - 1
	.long boot_gdt

	.section .boot.bss, "aw", @nobits
	.balign 4096
	.globl boot_pml4               /* the trampoline (trampoline.S) uses it too */
boot_pml4:      .skip 4096
boot_pdpt_low:  .skip 4096
boot_pdpt_high: .skip 4096
boot_pd:        .skip 4096
boot_stack32:   .skip 1024
boot_stack32_top:

/* From here on: 64-bit code linked at KERNEL_VMA. */
	.text
	.code64
higher_half:
	movabsq $boot_stack_top, %rsp
	xorl %ebp, %ebp                 /* terminates backtraces */
	/* %edi, %esi still hold magic and mbi: start_kernel's arguments. */
	movl %edi, %edi
	movl %esi, %esi
	call start_kernel
4:	cli
	hlt
	jmp 4b

	.bss
	.balign 16
	.globl boot_stack, boot_stack_top
boot_stack:
	.skip BOOT_STACK_SIZE
boot_stack_top:
