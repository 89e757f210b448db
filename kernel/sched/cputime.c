// SPDX-License-Identifier: MIT
/*
 * cputime.c - where each CPU's time goes, tick by tick (Linux's
 * kernel/sched/cputime.c, its tick-based accounting).
 *
 * Every CPU's tick (the PIT on CPU 0, the local APIC timer on the others)
 * calls update_process_times(), which charges the tick's length to what
 * it interrupted, in Linux's categories (enum cpu_usage_stat):
 *
 *   user     the tick interrupted user mode: the task's utime too
 *   system   kernel code of a task: the task's stime too
 *   iowait   the idle task, while a task that last ran here sleeps in
 *            io_wait_event() -- "idle, but waiting for a disk"
 *   idle     the idle task otherwise
 *
 * A sample, not a measurement: a task that runs between two ticks is
 * never charged, one that happens to be running at each tick is charged
 * for all of them; and ticks the host delivered late, which CPU 0's tick
 * handler accounts in one go (timer_tick()), are charged as one.
 * /proc/stat prints the sums in USER_HZ (100 a second).
 */
#include <spindle/sched.h>
#include <spindle/kernel_stat.h>
#include <spindle/smp.h>
#include <spindle/time.h>
#include "sched.h"

DEFINE_PER_CPU(struct kernel_cpustat, kernel_cpustat);

#define TICK_NSEC (NSEC_PER_SEC / HZ)

/* Only this CPU writes its counters; readers on others see each one
 * whole (one aligned store). */
static void cpustat_add(enum cpu_usage_stat which, u64 ns)
{
	struct kernel_cpustat *k = this_cpu_ptr(&kernel_cpustat);

	WRITE_ONCE(k->cpustat[which], k->cpustat[which] + ns);
}

static void account_process_tick(struct task_struct *p, bool user_tick)
{
	struct rq *rq = this_rq();

	if (user_tick) {
		WRITE_ONCE(p->utime, p->utime + TICK_NSEC);
		cpustat_add(CPUTIME_USER, TICK_NSEC);
	} else if (p != rq->idle) {
		WRITE_ONCE(p->stime, p->stime + TICK_NSEC);
		cpustat_add(CPUTIME_SYSTEM, TICK_NSEC);
	} else if (atomic_read(&rq->nr_iowait)) {
		cpustat_add(CPUTIME_IOWAIT, TICK_NSEC);
	} else {
		cpustat_add(CPUTIME_IDLE, TICK_NSEC);
	}
}

void update_process_times(bool user_tick)
{
	account_process_tick(current, user_tick);
	scheduler_tick();
}

void kcpustat_cpu_fetch(struct kernel_cpustat *dst, unsigned int cpu)
{
	const struct kernel_cpustat *k = per_cpu_ptr(&kernel_cpustat, cpu);

	for (int i = 0; i < NR_STATS; i++)
		dst->cpustat[i] = READ_ONCE(k->cpustat[i]);
}
