// SPDX-License-Identifier: MIT
/*
 * Host stand-ins for the CPU-level services portable kernel code uses:
 * interrupt flags and the preemption count (nothing interrupts a host test,
 * so they only keep count), the spinlock error report (-> panic -> abort),
 * and a fake physical memory for the page allocator.
 *
 * host_mm_init(bytes) allocates an arena aligned to the largest buddy block
 * and treats it as RAM starting at physical address 0 (so __va(pa) is
 * host_phys_base + pa, see include/spindle/mm.h), builds mem_map[] for it
 * and hands every page but pfn 0 to the buddy allocator -- the same steps
 * kernel/arch/x86/paging.c takes at boot.
 */
#include <spindle/mm.h>
#include <spindle/spinlock.h>
#include <spindle/printk.h>
#include <spindle/sched.h>
#include "host_kernel.h"
#include <spindle/time.h>
#include <spindle/ksyms.h>

char *host_phys_base;
unsigned int __preempt_count;
static bool host_irqs_off;

unsigned long local_irq_save(void)
{
	unsigned long was_on = !host_irqs_off;

	host_irqs_off = true;
	return was_on;
}

void local_irq_restore(unsigned long flags)
{
	host_irqs_off = !flags;
}

bool irqs_disabled(void) { return host_irqs_off; }
void cli(void) { host_irqs_off = true; }
void sti(void) { host_irqs_off = false; }

void preempt_enable(void)
{
	preempt_enable_no_resched();
}

void __might_sleep(const char *file, int line)
{
	if (in_atomic() || irqs_disabled())
		panic("sleeping function called from invalid context at %s:%d", file, line);
}

void __spin_lock_bug(spinlock_t *l, const char *file, int line, const char *what)
{
	panic("spinlock %s: %s at %s:%d", l->name, what, file, line);
}

/*
 * Backtraces: the host has no kernel symbol table, and unit tests are not
 * built with frame pointers; reports print raw addresses (ksym_snprint in
 * host_fs.c) and no stack.
 */
unsigned int stack_trace_save_fp(unsigned long rbp, unsigned long *store, unsigned int size)
{
	(void)rbp;
	(void)store;
	(void)size;
	return 0;
}

void dump_stack(void)
{
	printk("Call Trace:\n (host: none)\n");
}

/*
 * One task, the test itself.  It cannot really sleep: schedule() calls
 * host_schedule_hook, which plays "the rest of the system" (e.g. frees the
 * object the test is waiting for); with no hook, sleeping would never end,
 * so it panics instead.
 */
static struct task_struct host_task = { .state = TASK_RUNNING, .comm = "host" };
struct task_struct *current_task = &host_task;
void (*host_schedule_hook)(void);
/* kernel/hung_task.c owns this in the kernel; blk-core.c sets it */
void (*hung_task_show_io)(struct task_struct *p);

const char *current_comm(void) { return current->comm; }

/* A fake clock: it moves only when a test moves it. */
unsigned long long host_clock_ns;
u64 ktime_get_ns(void) { return (u64)host_clock_ns; }

void schedule(void)
{
	if (current->state != TASK_RUNNING) {
		if (!host_schedule_hook)
			panic("host: %s would sleep forever", current->comm);
		host_schedule_hook();
	}
	current->state = TASK_RUNNING;
}

void io_schedule(void)
{
	schedule();
}

/* never set: the one task's slice never ends (cond_resched does nothing) */
DEFINE_PER_CPU(bool, __need_resched);

long schedule_timeout(long timeout)
{
	schedule();
	return timeout;
}

void yield(void)
{
	if (host_schedule_hook)
		host_schedule_hook();
}

/*
 * Kernel threads do not run on the host: kthread_create() returns a task
 * that exists (so code that needs one can be set up) but never runs;
 * tests play its part themselves.
 */
struct task_struct *kthread_create(int (*fn)(void *), void *data, const char *fmt, ...)
{
	struct task_struct *p = calloc(1, sizeof(*p));

	if (p) {
		p->threadfn = fn;
		p->data = data;
		p->state = TASK_UNINTERRUPTIBLE;
		strlcpy(p->comm, fmt, sizeof(p->comm));
	}
	return p;
}

int kthread_stop(struct task_struct *k)
{
	free(k);
	return 0;
}

bool kthread_should_stop(void) { return false; }

/* A thread borrowing a process's mm: on the host, only current->mm. */
void kthread_use_mm(struct mm_struct *mm)
{
	current->mm = mm;
}

void kthread_unuse_mm(struct mm_struct *mm)
{
	(void)mm;
	current->mm = NULL;
}

/* Host CPUs share no cache: a test that pretends to be on another CPU
 * than a request's submitter sees rq_affinity 1 send it back there. */
bool cpus_share_cache(unsigned int this_cpu, unsigned int that_cpu)
{
	return this_cpu == that_cpu;
}

int set_cpus_allowed_ptr(struct task_struct *p, const struct cpumask *mask)
{
	p->cpus_mask = *mask;
	return 0;
}

bool wake_up_process(struct task_struct *p)
{
	bool was_asleep = p->state != TASK_RUNNING;

	p->state = TASK_RUNNING;
	return was_asleep;
}

/* The same, only from the states in the mask (io-wq interrupts a worker
 * asleep interruptibly). */
bool wake_up_state(struct task_struct *p, unsigned int state)
{
	if (!(p->state & (long)state))
		return false;
	return wake_up_process(p);
}

void host_mm_init(size_t bytes)
{
	size_t arena_align = PAGE_SIZE << (MAX_ORDER - 1);
	unsigned long npages = bytes / PAGE_SIZE;

	host_phys_base = aligned_alloc(arena_align, ALIGN(bytes, arena_align));
	mem_map = calloc(npages, sizeof(struct page));
	if (!host_phys_base || !mem_map)
		abort();
	page_alloc_init(npages);
	free_pages_range(1, npages);    /* pfn 0 stays reserved, as in the kernel */
}

void kmem_host_reset(void);    /* kernel/mm/slab.c */

/*
 * The fake RAM goes, and with it every slab the kmalloc caches knew: a
 * test run in one process (CK_FORK=no, under gdb) starts the next test
 * with empty caches, as a fresh fork would.
 */
void host_mm_exit(void)
{
	kmem_host_reset();
	free(host_phys_base);
	free(mem_map);
	host_phys_base = NULL;
	mem_map = NULL;
}

/*
 * Timers never fire on the host: a test calls what the timer would have
 * (e.g. blk_mq_check_timeouts with a moved fake clock) itself.
 */
volatile u64 jiffies;

void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *))
{
	t->function = fn;
	t->pending = false;
}

void mod_timer(struct timer_list *t, u64 expires)
{
	t->expires = expires;
	t->pending = true;
}

bool del_timer(struct timer_list *t)
{
	bool was = t->pending;

	t->pending = false;
	return was;
}
