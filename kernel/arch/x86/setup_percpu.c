// SPDX-License-Identifier: MIT
/*
 * setup_percpu.c - a copy of the per-CPU section for every CPU (Linux's
 * arch/x86/kernel/setup_percpu.c).  How per-CPU variables are reached:
 * include/spindle/percpu.h.
 *
 * One copy for each CPU the MADT lists (Linux's "possible" CPUs), up to
 * NR_CPUS, whether or not it will be woken: a copy is a few pages, and
 * per_cpu(var, cpu) is then valid for any cpu below nr_cpu_ids.
 *
 * Each copy's pages are zeroed whole before the section is copied in,
 * the tail past the section too.  Linux's copies come zeroed from
 * memblock; here it also matters under QEMU's TCG.  The buddy allocator
 * hands out the top of memory first, where the firmware (SeaBIOS) ran
 * code at boot.  TCG keeps a page's translated code until the bytes it
 * came from are overwritten, and sends every store to such a page down
 * its slow self-modifying-code path.  The copy alone left code in the
 * tail of the last page, on the same page as __preempt_count, the run
 * queue and current_task: every preempt_disable() took that path, some
 * 600 times per 128 KiB buffered read, and QEMU spent about 30% more of
 * its own time on the same guest instructions (docs/performance.md,
 * "Per-CPU data on old code"; scenario notdirty-q35).
 */
#define pr_fmt(fmt) "percpu: " fmt
#include <spindle/init.h>
#include <spindle/mm.h>
#include <spindle/percpu.h>
#include <spindle/printk.h>
#include <spindle/smp.h>
#include <spindle/string.h>
#include <asm/processor.h>
#include <asm/acpi.h>
#include <asm/desc.h>

/* Until setup_per_cpu_areas(), CPU 0's offset is 0: the section itself. */
unsigned long __per_cpu_offset[NR_CPUS];
DEFINE_PER_CPU(unsigned long, this_cpu_off);
DEFINE_PER_CPU(unsigned int, cpu_number);
unsigned int nr_cpu_ids = 1;

void __init setup_per_cpu_areas(void)
{
	/* the linker's two symbols: distinct objects to C, so compare addresses */
	size_t size = (size_t)((unsigned long)__per_cpu_end - (unsigned long)__per_cpu_start);
	unsigned int order = 0, ncpus = 1;

	if (acpi_irq_model.from_madt && acpi_irq_model.nr_cpus > 1)
		ncpus = min((unsigned int)acpi_irq_model.nr_cpus, (unsigned int)NR_CPUS);
	while ((PAGE_SIZE << order) < size)
		order++;
	for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
		/* zeroed whole, as Linux's first chunk is: see below */
		struct page *page = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);
		char *area;

		if (!page)
			panic("percpu: no memory for CPU %u's copy (%zu bytes)", cpu, size);
		area = page_address(page);
		memcpy(area, __per_cpu_start, size);
		__per_cpu_offset[cpu] = (unsigned long)area - (unsigned long)__per_cpu_start;
		per_cpu(this_cpu_off, cpu) = __per_cpu_offset[cpu];
		per_cpu(cpu_number, cpu) = cpu;
	}
	nr_cpu_ids = ncpus;
	/* the boot CPU moves to its own copy: the section stays the image */
	load_percpu_segment(0);
	cpu_init();
	identify_cpu();
	pr_info("Embedded %lu pages/cpu, %u cpu%s\n", 1ul << order, ncpus,
		ncpus == 1 ? "" : "s");
}
