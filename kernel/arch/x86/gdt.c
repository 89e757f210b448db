// SPDX-License-Identifier: MIT
/*
 * The GDT and TSS: one of each per CPU (Linux's arch/x86/kernel/cpu/common.c
 * cpu_init(), much reduced).
 *
 * Layout (asm/desc.h): null, kernel code, kernel data, user data, user
 * code (the order SYSRET expects), then the 16-byte TSS descriptor, then
 * the CPU-number segment the vDSO's getcpu reads (asm/vdso.h).
 *
 * Why per CPU: the TSS holds the stack the CPU switches to on an
 * interrupt from user mode (rsp0, the running task's) and the double-fault
 * stack -- both different on each CPU.  And a TSS descriptor is marked
 * busy when a CPU loads it with ltr, so a second CPU cannot load the same
 * one: each CPU's GDT points at its own TSS.
 */
#include <spindle/compiler.h>
#include <spindle/percpu.h>
#include <spindle/string.h>
#include <asm/cpu.h>
#include <asm/desc.h>
#include <asm/vdso.h>
#include <spindle/smp.h>

struct tss {
	u32 reserved0;
	u64 rsp[3];             /* stack for entry from ring 0..2 */
	u64 reserved1;
	u64 ist[7];             /* interrupt stack table: ist[0] is IST1 */
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;
} __packed;
BUILD_BUG_ON(sizeof(struct tss) != 104);

#define DF_STACK_SIZE 8192
#define NMI_STACK_SIZE 8192
#define GDT_ENTRIES   8
BUILD_BUG_ON(GDT_ENTRY_CPUNODE != GDT_ENTRIES - 1);

static DEFINE_PER_CPU_ALIGNED(struct tss, cpu_tss, 16);
static DEFINE_PER_CPU_ALIGNED(u8[DF_STACK_SIZE], double_fault_stack, 16);
static DEFINE_PER_CPU_ALIGNED(u8[NMI_STACK_SIZE], nmi_stack, 16);
static DEFINE_PER_CPU_ALIGNED(u64[GDT_ENTRIES], gdt_page, 16) = {
	0,
	0x00af9a000000ffff,     /* kernel code: present, DPL0, exec/read, L */
	0x00cf92000000ffff,     /* kernel data: present, DPL0, read/write */
	0x00cff2000000ffff,     /* user data: DPL3 */
	0x00affa000000ffff,     /* user code: DPL3, L */
	0, 0,                   /* TSS (16 bytes), filled in by cpu_init() */
	0,                      /* CPU number for getcpu, filled in by cpu_init() */
};

struct desc_ptr {
	u16 limit;
	u64 base;
} __packed;

/*
 * The SYSCALL instruction does not switch stacks (interrupts do, through
 * the TSS's rsp0): entry_SYSCALL_64 (entry.S) does it by hand.  After
 * SWAPGS it parks the user's rsp in this CPU's syscall_user_rsp and loads
 * syscall_kernel_rsp, the running task's stack top.  Nothing can run in
 * between on this CPU: SYSCALL turned interrupts off (SFMASK).
 */
DEFINE_PER_CPU(u64, syscall_kernel_rsp);
DEFINE_PER_CPU(u64, syscall_user_rsp);

/* The task switch (sched/core.c): the next task's stack top, on this CPU. */
void tss_set_rsp0(u64 rsp0)
{
	this_cpu_write(cpu_tss.rsp[0], rsp0);
	this_cpu_write(syscall_kernel_rsp, rsp0);
}

/* Load this CPU's GDT and reload every segment register from it (CS
 * through a far return).  Not %gs: loading a selector into it would
 * reset the GS base, which holds this CPU's per-CPU offset. */
static void gdt_load(u64 *gdt)
{
	struct desc_ptr p = { GDT_ENTRIES * 8 - 1, (u64)gdt };

	__asm__ volatile(
		"lgdt %0\n\t"
		"movw %1, %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%ss\n\t"
		"pushq %2\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n" /* reload CS */
		"1:" ::"m"(p),
		"i"(GDT_KERNEL_DS), "i"(GDT_KERNEL_CS)
		: "rax", "memory");
}

/*
 * This CPU's per-CPU offset in its GS base (asm/percpu.h); the other GS
 * base, the one SWAPGS gives a user program, starts at 0.
 */
void load_percpu_segment(unsigned int cpu)
{
	wrmsr(MSR_GS_BASE, __per_cpu_offset[cpu]);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
}

/*
 * The descriptor the vDSO's getcpu reads with LSL (vgetcpu.c; Linux's
 * setup_getcpu()): a data segment, present, DPL 3 so that ring 3 may
 * read its limit, read-only and already "accessed" (so the CPU never
 * writes it), byte-granular, whose 20-bit limit is the CPU number with
 * the node above it.  No segment register ever holds it.
 */
static u64 cpunode_desc(unsigned int cpu, unsigned int node)
{
	u64 limit = (cpu & VDSO_CPUNODE_MASK) | ((u64)node << VDSO_CPUNODE_BITS);

	return (limit & 0xffff) |                       /* limit 15:0 */
	       (0xf1ull << 40) |                        /* P, DPL 3, S, type 1: data RO, accessed */
	       (((limit >> 16) & 0xf) << 48);           /* limit 19:16; G = 0 */
}

/*
 * Every CPU, on itself, once its GS base points at its per-CPU copy: the
 * TSS with its double-fault and NMI stacks, the GDT with a TSS descriptor for that
 * TSS, then ltr.  The boot CPU runs it twice: early on the per-CPU
 * section itself (offset 0), and again on its own copy once
 * setup_per_cpu_areas() has made one.
 */
void cpu_init(void)
{
	struct tss *tss = this_cpu_ptr(&cpu_tss);
	u64 *gdt = *this_cpu_ptr(&gdt_page);
	u64 base = (u64)tss, limit = sizeof(*tss) - 1;

	tss->ist[IST_DOUBLE_FAULT - 1] =
		(u64)*this_cpu_ptr(&double_fault_stack) + DF_STACK_SIZE;
	tss->ist[IST_NMI - 1] = (u64)*this_cpu_ptr(&nmi_stack) + NMI_STACK_SIZE;
	tss->iomap_base = sizeof(*tss); /* no I/O permission bitmap */

	/* 64-bit available TSS (type 9), present (SDM vol. 3, fig. 7-4);
	 * rewritten each time, as a copy of a loaded one says "busy" */
	gdt[5] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
		 (0x89ull << 40) | (((limit >> 16) & 0xf) << 48) |
		 (((base >> 24) & 0xff) << 56);
	gdt[6] = base >> 32;
	gdt[GDT_ENTRY_CPUNODE] = cpunode_desc(smp_processor_id(), 0);

	gdt_load(gdt);
	__asm__ volatile("ltr %w0" ::"r"((u16)GDT_TSS)
			 : "memory");
}
