/* SPDX-License-Identifier: MIT */
/*
 * percpu.h - a variable of which every CPU has its own copy (Linux's
 * include/linux/percpu-defs.h, much reduced).
 *
 *     DEFINE_PER_CPU(struct task_struct *, current_task);
 *
 * puts the variable in the section .data..percpu (linker.ld).  At boot,
 * setup_per_cpu_areas() (kernel/arch/x86/setup_percpu.c) gives each CPU
 * a copy of that whole section, and records how far that copy lies from
 * the section's own address: __per_cpu_offset[cpu].  So CPU n's copy of
 * a variable is at
 *
 *     (char *)&var + __per_cpu_offset[n]                  per_cpu(var, n)
 *
 * The running CPU's offset also sits in its GS base register, so the
 * x86 can reach "my copy" in a single instruction: "movq %gs:var, %rax"
 * adds the GS base to var's address (asm/percpu.h).  That single
 * instruction is what makes this_cpu_read() and friends safe without
 * turning preemption off: the task cannot move to another CPU halfway
 * through one instruction.  this_cpu_ptr() is not a single instruction
 * (it reads the offset, then uses it): call it with preemption off, or
 * the pointer may be another CPU's by the time it is used.
 *
 * Before setup_per_cpu_areas() the boot CPU uses the section itself
 * (offset 0); nothing but the boot CPU runs then.  Every copy starts as
 * the section was at that moment, which is its static initial value for
 * everything but what the boot CPU had already changed -- its own current
 * task and GDT, which each CPU sets for itself in cpu_init().
 *
 * A host build (the unit tests) has one CPU and plain variables.
 */
#ifndef SPINDLE_PERCPU_H
#define SPINDLE_PERCPU_H

#include <spindle/types.h>
#include <spindle/compiler.h>
#include <spindle/threads.h>

#ifndef SPINDLE_HOST

#define PER_CPU_SECTION ".data..percpu"
#define DECLARE_PER_CPU(type, name) extern __typeof__(type) name
#define DEFINE_PER_CPU(type, name) \
	__attribute__((section(PER_CPU_SECTION))) __typeof__(type) name
#define DEFINE_PER_CPU_ALIGNED(type, name, align) \
	__attribute__((section(PER_CPU_SECTION), aligned(align))) __typeof__(type) name

extern unsigned long __per_cpu_offset[NR_CPUS];
extern char __per_cpu_start[], __per_cpu_end[];

#include <asm/percpu.h>

/* CPU n's copy of var (any CPU may read another's: mind the locking) */
#define per_cpu_ptr(ptr, cpu) \
	((__typeof__(ptr))((unsigned long)(ptr) + __per_cpu_offset[(cpu)]))
#define per_cpu(var, cpu) (*per_cpu_ptr(&(var), (cpu)))

/* this CPU's copy; preemption must be off while the pointer is used */
DECLARE_PER_CPU(unsigned long, this_cpu_off);
#define this_cpu_ptr(ptr) \
	((__typeof__(ptr))((unsigned long)(ptr) + this_cpu_read(this_cpu_off)))

#else /* SPINDLE_HOST: one CPU, plain variables */

#define DECLARE_PER_CPU(type, name) extern __typeof__(type) name
#define DEFINE_PER_CPU(type, name) __typeof__(type) name
#define DEFINE_PER_CPU_ALIGNED(type, name, align) __attribute__((aligned(align))) __typeof__(type) name
#define per_cpu_ptr(ptr, cpu) ((void)(cpu), (ptr))
#define per_cpu(var, cpu) (*per_cpu_ptr(&(var), (cpu)))
#define this_cpu_ptr(ptr) (ptr)
#define this_cpu_read(var) (var)
#define this_cpu_read_stable(var) (var)
#define this_cpu_write(var, val) ((var) = (val))
#define this_cpu_add(var, val) ((var) += (val))
#define this_cpu_inc(var) ((var)++)
#define this_cpu_dec(var) ((var)--)

#endif /* SPINDLE_HOST */

#endif /* SPINDLE_PERCPU_H */
