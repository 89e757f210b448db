/* SPDX-License-Identifier: MIT */
/*
 * struct pt_regs: the registers of an interrupted context, as pushed by
 * kernel/arch/x86/entry.S (same order as Linux's x86-64 pt_regs).
 */
#ifndef ASM_PTRACE_H
#define ASM_PTRACE_H

/* pt_regs.vector of a SYSCALL entry: not an IDT vector. */
#define SYSCALL_VECTOR  0x100
/* where entry.S finds the interrupted cs (15 registers, vector, error
 * code, rip before it) */
#define PT_REGS_CS 144

#ifndef __ASSEMBLER__
#include <spindle/types.h>

struct pt_regs {
	u64 r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	u64 rax, rcx, rdx, rsi, rdi;
	u64 vector;             /* which IDT entry was taken */
	u64 error_code;         /* pushed by the CPU, or 0 */
	u64 rip, cs, rflags, rsp, ss;   /* the CPU's interrupt frame */
};
_Static_assert(__builtin_offsetof(struct pt_regs, cs) == PT_REGS_CS, "PT_REGS_CS");

/*
 * Every task keeps a struct pt_regs at the very top of its kernel stack:
 * an interrupt or system call from user mode saves the user registers
 * there (the CPU switches to TSS.rsp0 = the top), so the kernel finds a
 * process's user context at task_pt_regs(current).
 */
#define task_pt_regs(t) ((struct pt_regs *)((char *)(t)->stack + THREAD_SIZE) - 1)

static inline bool user_mode(const struct pt_regs *r) { return (r->cs & 3) != 0; }

#endif /* !__ASSEMBLER__ */

#endif /* ASM_PTRACE_H */
