// SPDX-License-Identifier: MIT
/*
 * smp.c - running a function on other CPUs (Linux's kernel/smp.c).
 *
 * Each CPU has a queue of calls waiting for it, call_single_queue: a
 * singly linked list that CPUs push onto without a lock (Linux's llist).
 * To run func(info) on CPU n, a sender:
 *   1. takes its own call_single_data for n -- one per (sender, target)
 *      pair, in the sender's per-CPU data, so nothing is allocated --
 *      after waiting until its previous use is finished (CSD_FLAG_LOCK);
 *   2. fills it in and pushes it onto n's queue with one compare-and-swap;
 *   3. sends n the CALL_FUNCTION_VECTOR interrupt if the queue was empty
 *      (a queue that was not has an interrupt on its way already);
 *   4. when asked to wait, spins until n has run it.
 * The interrupt handler on n takes the whole queue at once with one atomic
 * exchange, runs the calls in the order they were sent, and clears each
 * flag once its function has returned: that is what the sender waits for.
 *
 * The caller keeps interrupts on while it waits.  With them off, two CPUs
 * sending to each other would each wait for a function the other cannot
 * run: Linux warns about it, and so does Spindle.
 *
 * A wait that lasts smp.csd_lock_timeout= milliseconds (5000, Linux's
 * default; 0 turns it off) is reported as Linux's
 * CONFIG_CSD_LOCK_WAIT_DEBUG reports it: "csd: Detected non-responsive
 * CSD lock", the interrupt sent again once, and the target's NMI
 * backtrace with its local APIC state (kernel/watchdog.c) -- a lost
 * interrupt and a target stuck with interrupts off look alike from here.
 * If the call then runs, "got unstuck" says so.
 */
#define pr_fmt(fmt) "smp: " fmt
#include <spindle/smp.h>
#include <spindle/percpu.h>
#include <spindle/irqflags.h>
#include <spindle/printk.h>
#include <spindle/errno.h>
#include <spindle/ksyms.h>
#include <spindle/time.h>
#include <spindle/sched_debug.h>
#include <spindle/string.h>
#include <spindle/init.h>
#include <asm/cpu.h>
#include <asm/smp.h>

#define CSD_FLAG_LOCK 1u

struct call_single_data {
	struct call_single_data *next;  /* in the target's queue */
	smp_call_func_t func;
	void *info;
	unsigned int flags;             /* CSD_FLAG_LOCK: queued or running */
	unsigned int cpu;               /* the target */
};

static DEFINE_PER_CPU(struct call_single_data *, call_single_queue);
/* the calls this CPU sends, one per target CPU */
static DEFINE_PER_CPU(struct call_single_data[NR_CPUS], csd_data);

static u64 csd_lock_timeout_ns = 5000ull * NSEC_PER_MSEC;
unsigned long csd_lock_reports;         /* for tests */

static int __init csd_lock_timeout_setup(const char *val)
{
	unsigned int ms;

	if (kstrtouint(val, 10, &ms))
		return -EINVAL;
	csd_lock_timeout_ns = (u64)ms * NSEC_PER_MSEC;
	return 0;
}
__setup("smp.csd_lock_timeout=", csd_lock_timeout_setup);

static bool csd_locked(struct call_single_data *csd)
{
	/* acquire: what the function did is visible once we see the flag clear */
	return __atomic_load_n(&csd->flags, __ATOMIC_ACQUIRE) & CSD_FLAG_LOCK;
}

/* The call has waited waited_ns: report it, and the first time send the
 * interrupt again and have the target show where it is. */
static void csd_lock_wait_toolong(struct call_single_data *csd, u64 waited_ns, unsigned int n)
{
	unsigned int me = smp_processor_id();
	char func[64];

	WRITE_ONCE(csd_lock_reports, csd_lock_reports + 1);
	ksym_snprint(func, sizeof(func), (unsigned long)csd->func);
	printk(KERN_EMERG "csd: Detected non-responsive CSD lock (#%u) on CPU#%u, waiting %llu ns for CPU#%02u %s\n",
		 n, me, (unsigned long long)waited_ns, csd->cpu, func);
	if (n != 1)
		return;
	printk(KERN_EMERG "csd: Re-sending CSD lock (#%u) IPI from CPU#%02u to CPU#%02u\n", n, me, csd->cpu);
	arch_send_call_function_ipi(csd->cpu);
	trigger_single_cpu_backtrace(csd->cpu);
}

static void csd_lock_wait(struct call_single_data *csd)
{
	u64 start, next;
	unsigned int reports = 0;

	for (unsigned int spins = 0; csd_locked(csd); spins++) {
		cpu_relax();
		if (spins != 1024 || !csd_lock_timeout_ns)
			continue;
		/* slow: read the clock from here on only now and then */
		start = ktime_get_ns();
		next = start + csd_lock_timeout_ns;
		while (csd_locked(csd)) {
			u64 now;

			for (int i = 0; i < 1024 && csd_locked(csd); i++)
				cpu_relax();
			now = ktime_get_ns();
			if (now >= next) {
				csd_lock_wait_toolong(csd, now - start, ++reports);
				next = now + csd_lock_timeout_ns;
			}
		}
		if (reports)
			printk(KERN_EMERG "csd: CSD lock (#%u) got unstuck on CPU#%02u, CPU#%02u released the lock.\n",
				 reports, smp_processor_id(), csd->cpu);
		return;
	}
}

/* Push csd onto the queue at head; true if the queue was empty. */
static bool call_queue_add(struct call_single_data *csd, struct call_single_data **head)
{
	struct call_single_data *first = __atomic_load_n(head, __ATOMIC_RELAXED);

	do {
		csd->next = first;
		/* release: func, info and next are written before the
		 * target can see csd at the head */
	} while (!__atomic_compare_exchange_n(head, &first, csd, true, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	return first == NULL;
}

/* Queue func(info) for cpu (not this one); preemption is off. */
static struct call_single_data *send_call(unsigned int cpu, smp_call_func_t func, void *info)
{
	struct call_single_data *csd = &(*this_cpu_ptr(&csd_data))[cpu];

	csd_lock_wait(csd);     /* its last use, sent without waiting */
	csd->func = func;
	csd->info = info;
	csd->cpu = cpu;
	csd->flags = CSD_FLAG_LOCK;
	if (call_queue_add(csd, per_cpu_ptr(&call_single_queue, cpu)))
		arch_send_call_function_ipi(cpu);
	return csd;
}

static void check_may_wait(void)
{
	static bool warned;

	if (irqs_disabled() && !warned) {
		warned = true;
		pr_warn("WARNING: smp_call_function with interrupts off can deadlock\n");
		dump_stack();
	}
}

static void run_here(smp_call_func_t func, void *info)
{
	unsigned long flags = local_irq_save();

	func(info);
	local_irq_restore(flags);
}

int smp_call_function_single(unsigned int cpu, smp_call_func_t func, void *info, bool wait)
{
	struct call_single_data *csd;

	if (cpu >= NR_CPUS || !cpu_online(cpu))
		return -ENXIO;
	check_may_wait();
	preempt_disable();
	if (cpu == smp_processor_id()) {
		run_here(func, info);
	} else {
		csd = send_call(cpu, func, info);
		if (wait)
			csd_lock_wait(csd);
	}
	preempt_enable();
	return 0;
}

/* Every online CPU in mask but this one: all sent first, then waited for,
 * so that they run at the same time. */
static void call_many(const struct cpumask *mask, smp_call_func_t func, void *info,
		      bool wait, bool self)
{
	unsigned int me, cpu;

	check_may_wait();
	preempt_disable();
	me = smp_processor_id();
	for_each_online_cpu(cpu) {
		if (cpu != me && cpumask_test_cpu(cpu, mask))
			send_call(cpu, func, info);
	}
	if (self)
		run_here(func, info);
	for_each_online_cpu(cpu) {
		if (wait && cpu != me && cpumask_test_cpu(cpu, mask))
			csd_lock_wait(&(*this_cpu_ptr(&csd_data))[cpu]);
	}
	preempt_enable();
}

void smp_call_function_many(const struct cpumask *mask, smp_call_func_t func, void *info,
			    bool wait)
{
	call_many(mask, func, info, wait, false);
}

void on_each_cpu(smp_call_func_t func, void *info, bool wait)
{
	call_many(cpu_online_mask, func, info, wait, true);
}

/* CALL_FUNCTION_VECTOR's handler (irq.c), interrupts off. */
void generic_smp_call_function_interrupt(void)
{
	struct call_single_data *list, *next, *order = NULL;

	/* acquire: pairs with the senders' release in call_queue_add() */
	list = __atomic_exchange_n(this_cpu_ptr(&call_single_queue), NULL, __ATOMIC_ACQUIRE);
	for (; list; list = next) {     /* pushed newest first: reverse it */
		next = list->next;
		list->next = order;
		order = list;
	}
	for (; order; order = next) {
		smp_call_func_t func = order->func;
		void *info = order->info;

		/* read before the flag is cleared: the sender may reuse
		 * the csd at once */
		next = order->next;
		func(info);
		__atomic_store_n(&order->flags, 0, __ATOMIC_RELEASE);
	}
}
