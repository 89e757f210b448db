/* SPDX-License-Identifier: MIT */
/*
 * Small wrappers around x86 instructions: interrupts on/off, control
 * registers, MSRs, CPUID, the time-stamp counter.
 */
#ifndef ASM_CPU_H
#define ASM_CPU_H

#include <spindle/types.h>

static inline void cli(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void sti(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void hlt(void) { __asm__ volatile("hlt" ::: "memory"); }
/* Enable interrupts and halt atomically: no wakeup is lost in between. */
static inline void safe_halt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }
/*
 * In every spin-wait loop: PAUSE tells the CPU the loop waits on another
 * one (a hyperthread sibling gets the core; a hypervisor may run another
 * vCPU).  QEMU's single-threaded TCG leaves its translated code at a
 * PAUSE and runs the next vCPU (target/i386's helper_pause).  That
 * matters under -icount in QEMU 7.2: each round gives the first vCPU
 * every instruction up to the next timer deadline and the next ones what
 * is left -- nothing, if the first never leaves its code on the way.  A
 * CPU that waits for another without a PAUSE then keeps it from running
 * at all (QEMU 8.0 shares the budget out: "ensure fairness with icount").
 */
static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }

static inline unsigned long read_rflags(void)
{
	unsigned long f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f) :: "memory");
	return f;
}

#define X86_EFLAGS_IF (1UL << 9)

static inline bool irqs_disabled(void) { return !(read_rflags() & X86_EFLAGS_IF); }

static inline unsigned long local_irq_save(void)
{
	unsigned long f = read_rflags();
	cli();
	return f;
}

static inline void local_irq_restore(unsigned long flags)
{
	if (flags & X86_EFLAGS_IF)
		sti();
}

#define DEFINE_CR(n) \
static inline unsigned long read_cr##n(void) \
{ unsigned long v; __asm__ volatile("mov %%cr" #n ", %0" : "=r"(v)); return v; } \
static inline void write_cr##n(unsigned long v) \
{ __asm__ volatile("mov %0, %%cr" #n :: "r"(v) : "memory"); }
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ volatile("wrmsr" :: "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)));
}

static inline u64 rdtsc(void)
{
	u32 lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

static inline void cpuid(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d)
			 : "a"(leaf), "c"(sub));
}

static inline void invlpg(unsigned long va)
{
	__asm__ volatile("invlpg (%0)" :: "r"(va) : "memory");
}

#define MSR_EFER     0xc0000080
#define MSR_APIC_BASE 0x1b
#define MSR_STAR     0xc0000081     /* SYSCALL/SYSRET segment selectors */
#define MSR_LSTAR    0xc0000082     /* SYSCALL entry point (64-bit) */
#define MSR_SYSCALL_MASK 0xc0000084 /* RFLAGS bits SYSCALL clears (SFMASK) */
#define MSR_FS_BASE 0xc0000100	    /* %fs's base in 64-bit mode (user TLS) */
#define MSR_GS_BASE 0xc0000101      /* %gs's base: the kernel's per-CPU offset (asm/percpu.h) */
#define MSR_KERNEL_GS_BASE 0xc0000102 /* the other GS base, which SWAPGS swaps in */
#define EFER_SCE     (1ul << 0)     /* SYSCALL/SYSRET enable */

#define X86_CR0_MP   (1ul << 1)     /* monitor coprocessor (FPU/SSE present) */
#define X86_CR0_EM   (1ul << 2)     /* emulate FPU: must be 0 for SSE */
#define X86_CR0_NE   (1ul << 5)     /* x87 errors as #MF (vector 16), not the FERR# pin */
#define X86_CR4_OSFXSR (1ul << 9)   /* the OS saves SSE state with fxsave */
#define X86_CR4_OSXMMEXCPT (1ul << 10) /* SSE exceptions as #XM */

#define X86_EFLAGS_TF (1UL << 8)
#define X86_EFLAGS_DF (1UL << 10)
#define X86_EFLAGS_NT (1UL << 14)
#define X86_EFLAGS_RF (1UL << 16)
#define X86_EFLAGS_AC (1UL << 18)

#endif /* ASM_CPU_H */
