// SPDX-License-Identifier: MIT
/*
 * ktest_sched.c - waiting for another thread's state in the in-kernel
 * suites (tests/kernel/ktest_sched.h says what for).
 */
#include <spindle/sched.h>
#include "ktest_sched.h"

/* Read without t's locks: it may change the moment after, which is
 * why a case acts only on a state the thread cannot leave by itself. */
static bool task_asleep(struct task_struct *t, long state)
{
	return READ_ONCE(t->state) == state && !READ_ONCE(t->on_rq) && !READ_ONCE(t->on_cpu);
}

bool ktest_wait_asleep(struct task_struct *t, long state)
{
	return ktest_wait_until(task_asleep(t, state));
}

/*
 * finish_task_switch() clears a dead task's ->stack (under task_lock,
 * for stack readers), then frees the stack's pages, then drops the
 * task's own reference: only that last step says the pages are back.  So
 * a task counts as reaped once the caller's reference is the only one
 * left (a kernel thread has no parent to hold another).
 */
static int tasks_not_reaped(struct task_struct **t, int n)
{
	int left = 0;

	for (int i = 0; i < n; i++)
		left += refcount_read(&t[i]->usage) > 1;
	return left;
}

int ktest_wait_reaped(struct task_struct **t, int n)
{
	int left;

	ktest_wait_until((left = tasks_not_reaped(t, n)) == 0);
	for (int i = 0; i < n; i++)
		put_task_struct(t[i]);
	return left;
}
