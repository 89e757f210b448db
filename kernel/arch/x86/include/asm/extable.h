/* SPDX-License-Identifier: MIT */
/*
 * The exception-fixup table: how a kernel instruction may fault on purpose.
 *
 * The user-copy routines (kernel/arch/x86/usercopy.S) touch addresses a
 * process handed the kernel; any of them may be unmapped.  Each
 * instruction that may fault that way is listed in the __ex_table section
 * as a pair (insn, fixup): the address of the instruction and of the code
 * to resume at instead.  The page-fault and general-protection handlers
 * (traps.c) look the faulting RIP up here; a hit is not a kernel bug, the
 * handler just moves RIP to the fixup and returns, and the copy routine
 * reports how many bytes it could not copy.  A miss is a real bug: die().
 *
 * Linux keeps the same table (arch/x86/mm/extable.c), sorted at build time
 * and searched by bisection; Spindle's has a handful of entries, so it is
 * searched in order.
 */
#ifndef ASM_EXTABLE_H
#define ASM_EXTABLE_H

#ifdef __ASSEMBLER__
/* List the instruction at `insn` as allowed to fault, resuming at `fixup`. */
.macro _ASM_EXTABLE insn, fixup
	.pushsection __ex_table, "a"
	.balign 8
	.quad \insn, \fixup
	.popsection
.endm
#else
#include <spindle/types.h>

struct exception_table_entry {
	unsigned long insn;     /* an instruction allowed to fault */
	unsigned long fixup;    /* where to continue when it does */
};

/* The entry for the instruction at ip, or NULL. */
const struct exception_table_entry *search_exception_tables(unsigned long ip);

struct pt_regs;
/* If regs->rip has a fixup, move regs->rip there and return true. */
bool fixup_exception(struct pt_regs *regs);

/* SMEP, SMAP and SSE on, as the CPU allows (boot, after mm_init()). */
void uaccess_init(void);
extern bool x86_smap_enabled, x86_smep_enabled;
#endif

#endif /* ASM_EXTABLE_H */
