/* SPDX-License-Identifier: MIT */
/*
 * tlbflush.h - dropping translations a CPU still caches after a page-table
 * entry changed (Linux's asm/tlbflush.h).
 *
 * Each CPU has its own TLB, and nothing keeps it in step with the page
 * tables in memory: a CPU that once used a mapping may go on using the
 * old translation after another CPU cleared or changed the entry.  invlpg
 * drops one page's translation on *this* CPU only; a write to CR3 drops
 * the user half's, but not the kernel's, whose entries are global
 * (_PAGE_GLOBAL, kept across CR3 switches).  So a kernel mapping that is
 * removed must be flushed on every CPU before its virtual address is
 * mapped again: flush_tlb_kernel_range() asks each CPU, with a function
 * call IPI, to invlpg the range (or, past Linux's ceiling of 33 pages, to
 * drop every translation), and waits until all have.
 *
 * User mappings of a process with one thread need no such shootdown:
 * only the CPU running the owning task holds them, and every switch to
 * another mm loads CR3 (kernel/arch/x86/process.c).  A threaded mm may be
 * loaded on several CPUs at once: kernel/mm/mmap.c flushes every CPU
 * (on_each_cpu, a CR3 reload) before it frees a page it unmapped there.
 */
#ifndef ASM_TLBFLUSH_H
#define ASM_TLBFLUSH_H

#include <spindle/types.h>
#include <asm/cpu.h>

/* This CPU only: one kernel page (invlpg drops a global entry too). */
static inline void __flush_tlb_one_kernel(unsigned long va)
{
	invlpg(va);
}

/* This CPU only: every translation, the global ones included. */
void __flush_tlb_all(void);

/*
 * Every online CPU drops its translations of [start, end) (kernel
 * addresses), and only then does this return.  It waits for the other
 * CPUs, so it must be called with interrupts on (as any
 * smp_call_function), unless this is the only CPU online; never from an
 * interrupt.  Callers that free with interrupts off (a dead task's stack,
 * freed by the next task in finish_task_switch()) flush lazily instead:
 * kstack_free() in kernel/arch/x86/paging.c.
 */
void flush_tlb_kernel_range(unsigned long start, unsigned long end);

/* How many flush_tlb_kernel_range() requests `cpu` has carried out since
 * boot (the tests check that the other CPUs were really asked). */
unsigned long tlb_kernel_flush_count(unsigned int cpu);

#endif /* ASM_TLBFLUSH_H */
