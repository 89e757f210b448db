/* SPDX-License-Identifier: MIT */
/*
 * asm/smp.h - waking the application processors (smpboot.c,
 * trampoline.S).  Included from assembly too.
 */
#ifndef ASM_SMP_H
#define ASM_SMP_H

/* Where the trampoline is copied: page-aligned, below 1 MiB (the STARTUP
 * IPI's vector is its page number, 0x08), in the first MiB that the page
 * allocator never hands out (paging.c). */
#define TRAMPOLINE_PHYS 0x8000
#define MAX_APIC_ID 255 /* xAPIC ids are 8 bits */

#ifndef __ASSEMBLER__
#include <spindle/types.h>

extern const char trampoline_start[], trampoline_end[];
/* what secondary_startup_64 loads: the kernel's CR3, and the top of the
 * stack smpboot.c gave the CPU with that initial APIC id */
extern u64 smp_ap_cr3, smp_ap_stack[MAX_APIC_ID + 1];

/* each CPU's local APIC id, once smp_init() has run (CPU 0's too) */
#include <spindle/percpu.h>
DECLARE_PER_CPU(u32, x86_cpu_to_apicid);

void smp_init(void);
void start_secondary(void);
/* an NMI that makes that CPU print its backtrace (kernel/watchdog.c) */
void arch_trigger_cpu_backtrace(unsigned int cpu);
/* CALL_FUNCTION_VECTOR to that CPU (kernel/smp.c) */
void arch_send_call_function_ipi(unsigned int cpu);
/* a copy of the per-CPU section for each CPU (setup_percpu.c) */
void setup_per_cpu_areas(void);
#endif

#endif /* ASM_SMP_H */
