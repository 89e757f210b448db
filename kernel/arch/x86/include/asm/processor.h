/* SPDX-License-Identifier: MIT */
/*
 * What each CPU said about itself through CPUID (Linux's struct
 * cpuinfo_x86, arch/x86/include/asm/processor.h), read on that CPU as it
 * comes up, and /proc/cpuinfo made from it (kernel/arch/x86/cpu.c).
 *
 *   identify_cpu()            fill this CPU's cpu_info (on that CPU)
 *   show_cpuinfo(buf, size)   /proc/cpuinfo, one block per online CPU
 *                             (declared in spindle/smp.h, for fs/proc.c)
 */
#ifndef ASM_PROCESSOR_H
#define ASM_PROCESSOR_H

#include <spindle/types.h>
#include <spindle/percpu.h>

/* the CPUID words whose bits /proc/cpuinfo names, in Linux's order */
enum cpuid_word {
	CPUID_1_EDX,            /* leaf 1: fpu ... pbe */
	CPUID_8000_0001_EDX,    /* AMD's leaf: syscall, nx, lm ... */
	CPUID_1_ECX,            /* leaf 1: pni ... hypervisor */
	CPUID_8000_0001_ECX,    /* lahf_lm ... */
	CPUID_7_0_EBX,          /* leaf 7: fsgsbase ... */
	CPUID_7_0_ECX,
	NCAPINTS
};

struct cpuinfo_x86 {
	char x86_vendor_id[16];         /* "GenuineIntel", "AuthenticAMD" */
	char x86_model_id[64];          /* the brand string, or "" */
	unsigned int x86;               /* family, extended family added */
	unsigned int x86_model;         /* extended model added */
	unsigned int x86_stepping;
	int cpuid_level;                /* highest basic leaf */
	u32 x86_capability[NCAPINTS];
	u32 apicid, initial_apicid;     /* the APIC's ID register; CPUID 1's */
	unsigned int x86_clflush_size;  /* bytes */
	unsigned int x86_cache_size;    /* KB of the last level, 0 unknown */
	unsigned int x86_phys_bits, x86_virt_bits;
	unsigned int phys_proc_id;      /* package */
	unsigned int cpu_core_id;       /* core within it */
	unsigned int x86_max_cores;     /* cores a package may have */
	unsigned int smt_shift, pkg_shift;
};

DECLARE_PER_CPU(struct cpuinfo_x86, cpu_info);
extern u64 tsc_khz;                     /* kernel/arch/x86/time.c */

void identify_cpu(void);

#endif /* ASM_PROCESSOR_H */
