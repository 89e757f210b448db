/* SPDX-License-Identifier: MIT */
/*
 * Segment descriptors, the TSS and the IDT (Intel SDM vol. 3, ch. 3 and 6).
 *
 * In long mode segments are mostly vestigial, but the GDT still selects
 * ring 0 or ring 3 code, and the TSS still holds the stack the CPU switches
 * to on an interrupt from user mode (rsp0) and the separate "IST" stack we
 * use for double faults, so a kernel stack overflow still gets reported.
 */
#ifndef ASM_DESC_H
#define ASM_DESC_H


#define GDT_KERNEL_CS   0x08
#define GDT_KERNEL_DS   0x10
#define GDT_USER_DS     0x1b    /* 0x18 | RPL 3 */
#define GDT_USER_CS     0x23    /* 0x20 | RPL 3 */
#define GDT_TSS         0x28

#define IST_DOUBLE_FAULT 1
#define IST_NMI          2      /* an NMI may come on any stack, even a user's */

#ifndef __ASSEMBLER__
#include <spindle/types.h>


/* This CPU's GS base: per-CPU copy number cpu (gdt.c). */
void load_percpu_segment(unsigned int cpu);
/* This CPU's GDT and TSS, loaded (gdt.c); after load_percpu_segment(). */
void cpu_init(void);
void idt_init(void);
void idt_load(void); /* an application processor: the shared IDT */
/* The kernel stack this CPU loads on entry from ring 3. */
void tss_set_rsp0(u64 rsp0);
/* SYSCALL/SYSRET: the MSRs and EFER.SCE (kernel/arch/x86/syscall.c). */
void syscall_init(void);

#endif /* !__ASSEMBLER__ */

#endif /* ASM_DESC_H */
