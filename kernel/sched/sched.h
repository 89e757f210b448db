/* SPDX-License-Identifier: MIT */
/*
 * kernel/sched/sched.h - the scheduler's private header: the run queue.
 *
 * Each CPU has one struct rq (Linux's name): the tasks waiting for that
 * CPU, the task running on it, and the lock that guards both.  Who holds
 * rq->lock may change anything in that CPU's rq and any of its tasks'
 * on_rq; it is taken with interrupts off, and never before a task's
 * pi_lock (the order is p->pi_lock, then rq->lock: try_to_wake_up()).
 *
 * rq->lock is held across the context switch itself: __schedule() takes
 * it in the task that leaves, and the task that arrives drops it in
 * finish_task_switch() -- so nobody sees the CPU between two tasks.
 */
#ifndef KERNEL_SCHED_SCHED_H
#define KERNEL_SCHED_SCHED_H

#include <spindle/sched.h>
#include <spindle/spinlock.h>
#include <spindle/percpu.h>
#include <spindle/list.h>
#include <spindle/atomic.h>

struct rq {
	spinlock_t lock;
	/* runnable tasks that are not running, FIFO (core.c says why two) */
	struct list_head wake_queue;    /* woken with budget left: run first */
	struct list_head run_queue;
	unsigned int nr_running;        /* on_rq tasks, the running one too; idle not */
	atomic_t nr_iowait;             /* asleep in io_wait_event(), last ran here */
	/* asleep TASK_UNINTERRUPTIBLE, last ran here: with nr_running, the
	 * load average's sample (Linux's nr_uninterruptible) */
	atomic_t nr_uninterruptible;
	struct task_struct *curr;       /* running on this CPU now */
	struct task_struct *idle;       /* this CPU's swapper */
	unsigned int cpu;
	/* statistics (Linux's schedstats): /proc/schedstat and the tests */
	u64 nr_switches;
	u64 ttwu_count;                 /* wake-ups of tasks on this rq */
	u64 ttwu_remote;                /* ... done from another CPU */
	u64 ttwu_runnable;              /* ... of a task not yet asleep */
	u64 resched_ipis;               /* RESCHEDULE_VECTOR IPIs this CPU took */
	u64 nr_migrations;              /* tasks that came here from another CPU */
};

DECLARE_PER_CPU(struct rq, runqueues);

#define cpu_rq(cpu)     per_cpu_ptr(&runqueues, (cpu))
#define this_rq()       this_cpu_ptr(&runqueues)
#define task_rq(p)      cpu_rq(task_cpu(p))

#endif /* KERNEL_SCHED_SCHED_H */
