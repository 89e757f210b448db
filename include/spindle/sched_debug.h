/* SPDX-License-Identifier: MIT */
/*
 * Looking at tasks that are not running: their backtrace, their "wait
 * channel", and the hung-task detector built on both.
 *
 * A task asleep in TASK_UNINTERRUPTIBLE (the "D" state) waits for an event
 * it cannot be pulled away from -- for the I/O path, usually a disk
 * request.  If that event never comes the task just stops, silently.
 * These tools make it visible:
 *
 *   sched_show_task(p)   print p's kernel backtrace ("Call Trace:" and one
 *                        symbolised line per frame).  Does not sleep.
 *   get_wchan(p)         the address p sleeps at: the first return address
 *                        on its stack outside the scheduler and the sleep
 *                        primitives (wait_for_completion, mutex_lock, ...),
 *                        as Linux's /proc/<pid>/wchan; 0 if p is running.
 *   khungtaskd           (kernel/hung_task.c) reports a task that has slept
 *                        in D state longer than hung_task_timeout=<seconds>
 *                        (default 120, 0 turns it off), once per sleep:
 *
 *     INFO: task <comm>:<pid> blocked for more than <N> seconds.
 *           wchan: <symbol+0xoff/0xsize>
 *     Call Trace:
 *      [<ffffffff80104321>] __schedule+0x...
 *
 * Both functions read the stack of a task that is switched out; on one CPU
 * they take a snapshot with interrupts off, so it cannot run (and change or
 * free its stack) meanwhile.  The caller must hold a reference to p
 * (get_task_struct) or otherwise know it has not exited.
 */
#ifndef SPINDLE_SCHED_DEBUG_H
#define SPINDLE_SCHED_DEBUG_H

#include <spindle/types.h>

struct task_struct;

/* kernel/sched/debug.c */
void sched_show_task(struct task_struct *p);
unsigned long get_wchan(struct task_struct *p);
/* Copy up to size return addresses of switched-out task p, innermost
 * first, into store; returns how many (0 for current or an exited task).
 * (Linux's version also takes a number of frames to skip.) */
unsigned int stack_trace_save_tsk(struct task_struct *p, unsigned long *store,
				  unsigned int size);

/* One CPU's run-queue counters (Linux's schedstats; kernel/sched/core.c):
 * wake-ups of tasks on it, those from another CPU, those of a task still
 * on its way to sleep (it never slept), and the rescheduling IPIs it took. */
struct sched_cpu_stats {
	u64 nr_running, nr_switches;
	u64 ttwu_count, ttwu_remote, ttwu_runnable;
	u64 resched_ipis;
};
void sched_cpu_stats(unsigned int cpu, struct sched_cpu_stats *st);

/* kernel/hung_task.c */
extern unsigned long hung_task_timeout_secs;    /* hung_task_timeout=; 0: off */
extern unsigned long hung_task_reports;         /* printed since boot (tests) */
/* Called after each report's backtrace, so that the block layer can show
 * what the task has in flight (its bio_list, its plug).  NULL until a layer
 * sets it.  Runs in khungtaskd (task context, p holds still); it must not
 * wait for I/O: that may be exactly what hangs. */
extern void (*hung_task_show_io)(struct task_struct *p);

/*
 * The lockup detectors (kernel/watchdog.c), as Linux's: a CPU that takes
 * its tick but never switches tasks for 2 * watchdog_thresh seconds is in
 * a soft lockup; one whose tick stops for watchdog_thresh seconds (stuck
 * with interrupts off) is in a hard lockup, seen by the next CPU (the
 * "buddy"), which has it print its backtrace through an NMI.
 * watchdog_thresh=<seconds> (default 10; 0 or nowatchdog turns both off).
 */
struct pt_regs;
/* reports so far (for tests): soft lockups by CPU, hard lockups seen by
 * a buddy, and backtraces printed by a stuck CPU's NMI */
extern unsigned long softlockup_reports[], hardlockup_reports, nmi_backtraces;
/* this CPU is making progress: it switched tasks, or idles */
void touch_softlockup_watchdog(void);
/* this CPU runs long with interrupts off on purpose (a test's hammer in
 * an IPI): neither detector reports it for the time before this call */
void touch_nmi_watchdog(void);
/* every tick interrupt, on every CPU, interrupts off */
void watchdog_tick(struct pt_regs *regs);
/* an NMI; true if it was the detector's backtrace request */
bool watchdog_nmi(struct pt_regs *regs);
void trigger_single_cpu_backtrace(unsigned int cpu);

#endif /* SPINDLE_SCHED_DEBUG_H */
