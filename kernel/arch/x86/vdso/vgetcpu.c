// SPDX-License-Identifier: MIT
/*
 * vgetcpu.c - the vDSO's getcpu: which CPU (and NUMA node) the caller
 * runs on, without a system call (Linux's arch/x86/entry/vdso/vgetcpu.c).
 *
 * Each CPU's GDT holds one extra descriptor, the same index on every
 * CPU, whose segment limit is that CPU's number (kernel/arch/x86/gdt.c,
 * cpu_init).  LSL ("load segment limit") reads a descriptor's limit and
 * is allowed in ring 3 for a DPL-3 descriptor, so it answers from
 * whichever GDT the CPU running it has loaded.  Linux uses RDPID (the
 * TSC_AUX MSR, set per CPU) where the CPU has it and LSL where not;
 * Spindle uses LSL everywhere: QEMU's TCG runs it on every CPU model,
 * while RDPID and RDTSCP exist only on models that advertise them
 * (not the default qemu64).
 *
 * The answer may be stale by the time the caller looks at it: the
 * scheduler may move the task right after LSL.  Only pinning makes it
 * stay true (sched_setaffinity), as on Linux.
 */
#define BUILD_VDSO
#include <asm/vdso.h>

struct getcpu_cache;

long __vdso_getcpu(unsigned int *cpu, unsigned int *node, struct getcpu_cache *unused)
{
	unsigned int p;

	(void)unused;
	__asm__ __volatile__("lsl %[seg], %[p]" : [p] "=r"(p) : [seg] "r"(VDSO_CPUNODE_SEG));
	if (cpu)
		*cpu = p & VDSO_CPUNODE_MASK;
	if (node)
		*node = p >> VDSO_CPUNODE_BITS;
	return 0;
}

long getcpu(unsigned int *cpu, unsigned int *node, struct getcpu_cache *tcache)
	__attribute__((weak, alias("__vdso_getcpu")));
