/* SPDX-License-Identifier: MIT */
/*
 * Exception and interrupt dispatch (kernel/arch/x86/traps.c).
 */
#ifndef ASM_TRAPS_H
#define ASM_TRAPS_H

#include <asm/ptrace.h>

#define X86_TRAP_DE   0     /* divide error */
#define X86_TRAP_DB   1
#define X86_TRAP_NMI  2
#define X86_TRAP_BP   3
#define X86_TRAP_UD   6     /* invalid opcode */
#define X86_TRAP_DF   8     /* double fault */
#define X86_TRAP_GP  13     /* general protection */
#define X86_TRAP_PF  14     /* page fault */
#define X86_TRAP_MF  16     /* x87 floating-point error (CR0.NE set) */
#define X86_TRAP_XF  19     /* SIMD floating-point error (CR4.OSXMMEXCPT set) */

#define FIRST_EXTERNAL_VECTOR 0x20

/* Page-fault error code bits (SDM vol. 3, 4.7). */
#define PF_PROT   0x1       /* 0: page not present, 1: protection violation */
#define PF_WRITE  0x2
#define PF_USER   0x4
#define PF_RSVD   0x8
#define PF_INSTR  0x10

void x86_handle_interrupt(struct pt_regs *regs);
void do_nmi(struct pt_regs *regs);
/* Print the registers of regs, as in a Linux oops. */
void show_regs(const struct pt_regs *regs);
/* The end of the road: report an unhandled exception and panic. */
void die(const char *what, struct pt_regs *regs) __attribute__((noreturn));

/* kernel/arch/x86/irq.c: external interrupts (vectors 0x20..0xff). */
void do_irq(struct pt_regs *regs);

/* Leave QEMU through isa-debug-exit (status (code << 1) | 1), or halt. */
#define QEMU_EXIT_SUCCESS 0
#define QEMU_EXIT_FAILURE 1
#define QEMU_EXIT_PANIC   2
void qemu_exit(int code) __attribute__((noreturn));

#endif /* ASM_TRAPS_H */
