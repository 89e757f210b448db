// SPDX-License-Identifier: MIT
/*
 * smpboot.c - waking the other CPUs (Linux's arch/x86/kernel/smpboot.c).
 *
 * The firmware starts one CPU, the bootstrap processor (BSP), and leaves
 * the others -- the application processors (APs) -- waiting for an INIT
 * and a STARTUP IPI.  The MADT lists every CPU's local APIC id
 * (acpi.c); smp_init() wakes them one at a time:
 *
 *   1. copy the trampoline (trampoline.S) to TRAMPOLINE_PHYS, once;
 *   2. for each AP: a stack for it, INIT-SIPI-SIPI to its APIC id
 *      (apic.c), then wait until it says it is alive (cpu_callin), at most
 *      AP_CALLIN_MS; an AP that does not answer is logged and the others
 *      are still woken;
 *   3. report how many answered, in Linux's words.
 *
 * The AP runs the trampoline from real mode to long mode, then
 * start_secondary(): the control registers and EFER the BSP has, its
 * per-CPU data in its GS base, its own GDT and TSS (gdt.c), the shared
 * IDT, the SYSCALL MSRs, its own local APIC; it reports in and idles
 * with interrupts on, as its idle task "swapper/N", running the functions
 * other CPUs send it (kernel/smp.c).  Tasks still run on the BSP only:
 * per-CPU run queues come next (docs/smp.md).
 *
 * Options, as Linux: `nosmp` wakes no AP; `maxcpus=N` stops at N CPUs
 * in all (the BSP is one; maxcpus=0 is nosmp).  `fail_smp_boot=` (below)
 * plays a CPU that never answers.
 */
#include <spindle/init.h>
#include <spindle/printk.h>
#include <spindle/smp.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include <spindle/compiler.h>
#include <spindle/errno.h>
#include <spindle/fault_inject.h>
#include <spindle/mm.h>
#include <spindle/sched.h>
#include <spindle/percpu.h>
#include <spindle/sched_debug.h>
#include <asm/acpi.h>
#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/processor.h>
#include <asm/desc.h>
#include <asm/layout.h>
#include <asm/pgtable.h>
#include <asm/smp.h>

#define AP_CALLIN_MS 5000 /* how long an AP may take to report in */

u64 smp_ap_cr3;

/* What the BSP has and every AP copies before it runs kernel code. */
static u64 bsp_cr0, bsp_cr4, bsp_efer;

/*
 * Indexed by APIC id: the stack each AP is to run on (secondary_startup_64
 * finds its own through CPUID), and the flag it sets, last thing before it
 * parks.  Per CPU rather than one of each, so that an AP that starts after
 * the BSP gave up on it still has a stack of its own and cannot be taken
 * for the next one.
 */
u64 smp_ap_stack[MAX_APIC_ID + 1];
static u8 cpu_callin[MAX_APIC_ID + 1];
static u8 apicid_to_cpu[MAX_APIC_ID + 1];   /* the CPU number it is to be */

/* each CPU's local APIC id, where its IPIs go (Linux's x86_cpu_to_apicid) */
DEFINE_PER_CPU(u32, x86_cpu_to_apicid);
struct cpumask __cpu_online_mask = { .bits = 1 }; /* the BSP, CPU 0 */

/*
 * A CPU that never answers, on purpose (docs/testing.md, "Fault
 * injection"): fail_smp_boot=<interval>,<probability>,<space>,<times>
 * makes smp_init() skip the STARTUP IPIs of the chosen CPUs, so the path
 * that logs a dead CPU and goes on with the others is tested.
 */
static DECLARE_FAULT_ATTR(fail_smp_boot);

static int __init fail_smp_boot_setup(const char *val)
{
	return setup_fault_attr(&fail_smp_boot, val);
}
__setup("fail_smp_boot=", fail_smp_boot_setup);

static int setup_max_cpus = NR_CPUS;

static int __init nosmp_setup(const char *val)
{
	(void)val;
	setup_max_cpus = 1;
	return 0;
}
__setup("nosmp", nosmp_setup);

static int __init maxcpus_setup(const char *val)
{
	unsigned int n;

	if (kstrtouint(val, 0, &n))
		return -EINVAL;
	setup_max_cpus = n ? (int)min(n, (unsigned int)NR_CPUS) : 1;
	return 0;
}
__setup("maxcpus=", maxcpus_setup);

/* An AP's first C, on the stack smp_init() gave it; interrupts off. */
void start_secondary(void)
{
	u32 apicid = read_apic_id() & MAX_APIC_ID;
	unsigned int cpu = apicid_to_cpu[apicid];

	write_cr0(bsp_cr0);
	write_cr4(bsp_cr4);
	wrmsr(MSR_EFER, bsp_efer);
	load_percpu_segment(cpu);       /* current is now its idle task */
	cpu_init();
	identify_cpu();                 /* /proc/cpuinfo's block for it */
	idt_load();
	syscall_init();
	lapic_setup();
	lapic_timer_start();            /* its tick: the lockup checks */
	touch_softlockup_watchdog();
	/* everything above is done before the BSP reads the flag: the
	 * compiler may not sink a store below it (x86 keeps stores in order) */
	barrier();
	WRITE_ONCE(cpu_callin[apicid], 1);
	local_irq_enable();
	cpu_startup_entry();            /* this CPU's idle task from now on */
}

/* Have that CPU print its backtrace, even with interrupts off there. */
void arch_trigger_cpu_backtrace(unsigned int cpu)
{
	apic_send_NMI(per_cpu(x86_cpu_to_apicid, cpu));
}

void arch_send_call_function_ipi(unsigned int cpu)
{
	apic_send_IPI(per_cpu(x86_cpu_to_apicid, cpu), CALL_FUNCTION_VECTOR);
}

void smp_send_reschedule(unsigned int cpu)
{
	apic_send_IPI(per_cpu(x86_cpu_to_apicid, cpu), RESCHEDULE_VECTOR);
}

/* Wake the AP with this APIC id; true once it has reported in. */
static bool do_boot_cpu(unsigned int cpu, u32 apicid)
{
	void *stack = kstack_alloc();

	if (!stack || !init_idle(cpu, stack)) {
		pr_err("smpboot: no memory for CPU#%u\n", cpu);
		return false;
	}
	per_cpu(x86_cpu_to_apicid, cpu) = apicid;
	apicid_to_cpu[apicid] = (u8)cpu;
	smp_ap_stack[apicid] = (u64)stack + THREAD_SIZE;
	barrier();
	pr_info(".... node  #0, CPUs:      #%u\n", cpu);
	if (!should_fail(&fail_smp_boot, 1))
		wakeup_secondary_cpu_via_init(apicid, TRAMPOLINE_PHYS >> 12);
	for (int ms = 0; ms < AP_CALLIN_MS; ms++) {
		if (READ_ONCE(cpu_callin[apicid])) {
			/* set here, not by the AP: one that reports in after
			 * we gave up on it never becomes online */
			cpumask_set_cpu(cpu, &__cpu_online_mask);
			return true;
		}
		mdelay(1);
	}
	/* The stack stays allocated: the CPU may yet start and use it. */
	pr_err("smpboot: CPU#%u (APIC id %u) did not start; going on without it\n", cpu, apicid);
	return false;
}

void smp_init(void)
{
	const struct acpi_irq_model *m = &acpi_irq_model;
	u32 me = read_apic_id();
	unsigned int cpu = 1;

	per_cpu(x86_cpu_to_apicid, 0) = me;

	pr_info("smp: Bringing up secondary CPUs ...\n");
	if (m->from_madt && m->nr_cpus > 1 && setup_max_cpus > 1) {
		memcpy(__va(TRAMPOLINE_PHYS), trampoline_start,
		       trampoline_end - trampoline_start);
		smp_ap_cr3 = read_cr3();
		bsp_cr0 = read_cr0();
		bsp_cr4 = read_cr4();
		bsp_efer = rdmsr(MSR_EFER);
		pr_info("x86: Booting SMP configuration:\n");
	}
	for (int i = 0; m->from_madt && i < m->nr_cpus; i++) {
		if (m->cpu_apic_id[i] == me)
			continue;
		if ((int)num_online_cpus() >= setup_max_cpus || cpu >= nr_cpu_ids)
			break;
		do_boot_cpu(cpu, m->cpu_apic_id[i]);
		cpu++;
	}
	pr_info("smp: Brought up 1 node, %u CPU%s\n", num_online_cpus(),
		num_online_cpus() == 1 ? "" : "s");
}
