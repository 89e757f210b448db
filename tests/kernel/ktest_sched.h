/* SPDX-License-Identifier: MIT */
/*
 * ktest_sched.h - waiting for another thread to get somewhere, for the
 * in-kernel cases that must act only once a thread they started is
 * asleep (to wake it, to read its stack, to queue the next waiter
 * behind it) or gone (before counting free memory).
 *
 * They wait for that state itself, never for a time "long enough": a
 * loaded host -- two guests on two cores, the debug options on -- may
 * leave the other thread unrun for longer than any such time.  Each
 * looks every millisecond for up to KTEST_WAIT_MS by the clock; only a
 * bug takes that long, and the case then fails saying what never
 * happened.
 */
#ifndef TESTS_KERNEL_KTEST_SCHED_H
#define TESTS_KERNEL_KTEST_SCHED_H

#include <spindle/sched.h>
#include <spindle/time.h>

#define KTEST_WAIT_MS 5000 /* ms before a wait gives up: a bug, not a slow host */

/*
 * Evaluate cond every millisecond until it holds or KTEST_WAIT_MS have
 * passed on the clock (not counted in sleeps: a msleep(1) may take two
 * ticks, or far more on a loaded host); its last value.
 */
#define ktest_wait_until(cond) ({                                        \
	u64 __end = ktime_get_ns() + (u64)KTEST_WAIT_MS * NSEC_PER_MSEC; \
	bool __ok;                                                       \
                                                                         \
	while (!(__ok = (cond)) && ktime_get_ns() < __end)               \
		msleep(1);                                               \
	__ok;                                                            \
})

/*
 * Wait until t is asleep in state (TASK_UNINTERRUPTIBLE or
 * TASK_INTERRUPTIBLE): the state set, off its run queue and switched away
 * from -- what Linux's wait_task_inactive() waits for, here with a
 * deadline.  t must have been woken since kthread_create() (a new task
 * waits TASK_UNINTERRUPTIBLE too), and the caller keeps it alive.  False
 * if it was not found asleep in time.
 */
bool ktest_wait_asleep(struct task_struct *t, long state);

/*
 * Wait until each of the n kernel threads t[] has exited and the switch
 * away from it is over, its kernel stack's pages freed
 * (finish_task_switch(), which drops the task's own reference last: the
 * caller's is then the only one left); then drop
 * the caller's reference to each (get_task_struct()), whatever the
 * outcome.  Returns how many were still there at the deadline: 0, all
 * gone.
 */
int ktest_wait_reaped(struct task_struct **t, int n);

#endif /* TESTS_KERNEL_KTEST_SCHED_H */
