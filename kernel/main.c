// SPDX-License-Identifier: MIT
/*
 * main.c - start_kernel(): bring the machine up, in dependency order.
 *
 * boot.S calls start_kernel() on the boot stack, in 64-bit mode, with
 * interrupts off and the boot page tables.  Each step below needs the
 * ones before it:
 *
 *   console          so that everything after can report (COM1 first)
 *   multiboot        what GRUB handed over: memory map, command line
 *   command line     GRUB's line + fw_cfg opt/spindle/cmdline; the debug
 *                    options that must act before the first allocation
 *                    or lock (slab_debug=, page_poison=, lockdep=)
 *   GDT/IDT          so that a fault prints a report instead of rebooting
 *   memory           page allocator, the real page tables, kmalloc
 *   interrupts       ACPI tables, local APIC, IOAPIC
 *   scheduler        this thread of execution becomes a task
 *   time             TSC calibration and the periodic tick; interrupts on
 *
 * The rest happens in task context, in the "init" kernel thread (pid 1,
 * kernel_init(), as in Linux), because driver set-up sleeps -- reading a
 * partition table waits for I/O -- and the boot task cannot: it becomes
 * the idle task, which must always be runnable.
 *
 *   boot options     the __setup handlers, in command-line order
 *   initcalls        subsystems and drivers (PCI, disks, ...), then the
 *                    boot actions (show=, pattern=)
 *   tests            test= runs in-kernel suites; QEMU exits with the verdict
 *   user space       otherwise pid 1 execs /init (kernel/sys.c,
 *                    start_user_init()); without one the kernel idles
 */
#include <spindle/printk.h>
#include <spindle/console.h>
#include <spindle/init.h>
#include <spindle/smp.h>
#include <spindle/sched_debug.h>
#include <spindle/mm.h>
#include <spindle/irq.h>
#include <spindle/sched.h>
#include <spindle/time.h>
#include <spindle/ktest.h>
#include <spindle/ksyms.h>
#include <spindle/process.h>
#include <spindle/lockdep.h>
#include <spindle/version.h>
#include <asm/bootinfo.h>
#include <asm/desc.h>
#include <asm/traps.h>
#include <asm/cpu.h>
#include <asm/extable.h>
#include <asm/smp.h>

extern const initcall_t __initcall_start[], __initcall_end[];

/*
 * The debug allocators and lockdep (docs/memory.md, docs/locking.md)
 * must be on before the first kmalloc or lock, long before parse_args()
 * runs the __setup handlers: read here, from the raw command line.
 * "<opt>=0" or "=off" leaves one off; any other value turns it on
 * (Linux's slub_debug=<flags> turns on every slab check).
 */
static void __init debug_options_init(void)
{
	if (cmdline_flag("lockdep") || cmdline_flag("lock_stat")) {
		debug_locks = true;
		pr_info("lockdep: the lock-order validator is on\n");
	}
	if (cmdline_flag("lock_stat")) {   /* its classes are lockdep's */
		lock_stat = true;
		pr_info("lock_stat: spinlock acquisitions and contentions in /proc/lock_stat\n");
	}
	if (cmdline_flag("slab_debug") || cmdline_flag("slub_debug")) {
		if (slab_debug_enable() == 0)
			pr_info("slab_debug: red zones, poison and user tracking for kmalloc\n");
		else
			pr_warn("slab_debug: kmalloc already in use, left off\n");
	}
	if (cmdline_flag("page_poison")) {
		page_poison_enable();
		pr_info("page_poison: freed pages are poisoned and checked\n");
	}
}

/* Known to parse_args(), which would call them unknown; acted on above. */
static int __init debug_option_seen(const char *val)
{
	(void)val;
	return 0;
}
__setup_id("lockdep=", debug_option_seen, lockdep);
__setup_id("slab_debug=", debug_option_seen, slab_debug);
__setup_id("slub_debug=", debug_option_seen, slub_debug);
__setup_id("page_poison=", debug_option_seen, page_poison);

static void do_initcalls(void)
{
	for (const initcall_t *fn = __initcall_start; fn < __initcall_end; fn++) {
		int err = (*fn)();

		if (err) {
			char sym[96];

			ksym_snprint(sym, sizeof(sym), (unsigned long)*fn);
			pr_warn("initcall %s returned %d\n", sym, err);
		}
	}
}

static int kernel_init(void *unused)
{
	(void)unused;
	parse_args();
	smp_init();
	do_initcalls();

	pr_info("Spindle is ready: %lu KiB RAM free, %u tasks runnable\n",
		nr_free_pages() * (PAGE_SIZE / 1024), nr_running());

	if (ktest_requested()) {
		ktest_run_requested();          /* its thread ends with qemu_exit() */
		/*
		 * Stay, asleep, rather than exit: an exiting init would free
		 * its stack at some moment during the first tests, and a test
		 * that counts free pages (user.no_leaks) would see it.
		 */
		for (;;) {
			set_current_state(TASK_INTERRUPTIBLE);
			schedule();
		}
	}
	/* pid 1 becomes the first user process, if there is an /init */
	start_user_init();
	return 0;
}

void start_kernel(u32 magic, u32 mbi_phys)
{
	/* first: printk's lock asks which CPU this is (%gs, asm/percpu.h) */
	load_percpu_segment(0); /* the per-CPU section itself, for now */
	serial_init();
	if (multiboot_parse(magic, mbi_phys))
		panic("no multiboot2 information: boot Spindle with GRUB (make qemu)");
	cmdline_init(boot_info.cmdline);
	/* loglevel= first, so that it applies to the boot's own lines */
	console_loglevel_init();
	printk(KERN_NOTICE "Spindle %s (x86-64), a teaching kernel for the disk I/O path\n",
	       SPINDLE_RELEASE);
	printk(KERN_NOTICE "Command line: %s\n", saved_command_line);
	if (boot_info.loader[0])
		pr_info("Boot loader: %s\n", boot_info.loader);
	multiboot_print_mmap();
	debug_options_init();

	cpu_init();             /* the GDT and TSS */
	idt_init();
	mm_init();
	uaccess_init();
	syscall_init();
	vga_init();
	irq_init();             /* after it, the MADT's CPUs are known */
	setup_per_cpu_areas();
	page_alloc_init_late(); /* so do the per-CPU page lists */
	kmem_cache_init_late(); /* kmalloc's per-CPU arrays need the areas */
	sched_init();
	time_init();
	timekeeping_init();
	local_irq_enable();

	if (!kthread_run(kernel_init, NULL, "init"))
		panic("cannot start the init thread");

	/* The boot task becomes the idle task: it runs when nothing else can. */
	cpu_startup_entry();
}
