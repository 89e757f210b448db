/* SPDX-License-Identifier: MIT */
/*
 * asm/percpu.h - reaching this CPU's copy of a per-CPU variable through
 * the GS segment (Linux's arch/x86/include/asm/percpu.h).
 *
 * In 64-bit mode a segment register adds nothing to an address -- except
 * FS and GS, which add a base held in an MSR.  The kernel keeps its
 * per-CPU offset in MSR_GS_BASE (user programs use FS for their threads'
 * data), so
 *
 *     movq %gs:current_task, %rax
 *
 * loads this CPU's current_task.  "%gs:%1" below, with the variable as a
 * memory operand, is that instruction for any size the compiler picks.
 * SWAPGS swaps the user's GS base and the kernel's on every entry from
 * and exit to user mode (kernel/arch/x86/entry.S).
 *
 * Each accessor is one instruction, so it needs no preempt_disable(): a
 * task that is moved to another CPU moves between two instructions, not
 * inside one.  this_cpu_read_stable() lets the compiler reuse a value
 * already read: for current_task, which is the same for a task on any
 * CPU.
 */
#ifndef ASM_PERCPU_H
#define ASM_PERCPU_H

#define this_cpu_read(var)                                                \
	({                                                                \
		__typeof__(var) __v;                                      \
		__asm__ volatile("mov %%gs:%1, %0" : "=r"(__v) : "m"(var)); \
		__v;                                                      \
	})
#define this_cpu_read_stable(var)                                         \
	({                                                                \
		__typeof__(var) __v;                                      \
		__asm__("mov %%gs:%1, %0" : "=r"(__v) : "m"(var));        \
		__v;                                                      \
	})
#define this_cpu_write(var, val)                                          \
	do {                                                              \
		__typeof__(var) __v = (val);                              \
		__asm__ volatile("mov %1, %%gs:%0" : "+m"(var) : "r"(__v)); \
	} while (0)
#define this_cpu_add(var, val)                                            \
	do {                                                              \
		__typeof__(var) __v = (val);                              \
		__asm__ volatile("add %1, %%gs:%0" : "+m"(var) : "r"(__v)); \
	} while (0)
#define this_cpu_inc(var) this_cpu_add(var, 1)
#define this_cpu_dec(var) this_cpu_add(var, -1)

#endif /* ASM_PERCPU_H */
