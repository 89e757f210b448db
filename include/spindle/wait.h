/* SPDX-License-Identifier: MIT */
/*
 * Wait queues: a list of tasks sleeping until something happens.
 *
 * The sleeper:   wait_event(wq, condition);
 * The waker:     make condition true;  wake_up(&wq);
 *
 * wait_event() puts the task on the queue and sets its state *before*
 * testing the condition, so a wake_up() between the test and the sleep
 * cannot be lost (see include/spindle/sched.h).  wake_up() wakes every
 * sleeper; each re-tests its own condition.  wake_up() does not sleep and
 * may be called from interrupt handlers -- that is how a disk interrupt
 * wakes the task waiting for its I/O.
 */
#ifndef SPINDLE_WAIT_H
#define SPINDLE_WAIT_H

#include <spindle/sched.h>
#include <spindle/spinlock.h>
#include <spindle/list.h>

struct wait_queue_entry {
	struct task_struct *task;
	struct list_head entry;
};

struct wait_queue_head {
	spinlock_t lock;
	struct list_head head;
};
typedef struct wait_queue_head wait_queue_head_t;

#define __WAIT_QUEUE_HEAD_INITIALIZER(n) \
	{ .lock = __SPIN_LOCK_UNLOCKED(n.lock), .head = LIST_HEAD_INIT(n.head) }
#define DECLARE_WAIT_QUEUE_HEAD(n) \
	struct wait_queue_head n = __WAIT_QUEUE_HEAD_INITIALIZER(n)
#define DEFINE_WAIT(n) \
	struct wait_queue_entry n = { .task = current, .entry = LIST_HEAD_INIT(n.entry) }

void __init_waitqueue_head(struct wait_queue_head *wq, const char *name,
			   const struct lock_class_key *key);
/* A macro, so that each call site is a lock class of its own (lockdep). */
#define init_waitqueue_head(wq)                                    \
	do {                                                       \
		static const struct lock_class_key __key;          \
		__init_waitqueue_head((wq), #wq "->lock", &__key); \
	} while (0)
/* Queue wqe on wq (once) and set the task state; then test, then sleep. */
void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *wqe, long state);
/* Back to TASK_RUNNING and off the queue. */
void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *wqe);
/* Wake every task on wq.  Does not sleep. */
void wake_up(struct wait_queue_head *wq);
/*
 * The same with wq->lock already held.  A waker that changes the condition
 * *and* wakes under the lock is safe even when the waiter's wait queue
 * lives on the waiter's stack: the waiter cannot see the condition, return
 * and reuse that memory until the lock is released (completions do this).
 */
void __wake_up_locked(struct wait_queue_head *wq);
#define wake_up_all(wq) wake_up(wq)

#define __wait_event(wq, cond, state, timeout) ({ \
	long __t = (timeout); \
	DEFINE_WAIT(__wait); \
	for (;;) { \
		prepare_to_wait(&(wq), &__wait, state); \
		if (cond) \
			break; \
		__t = schedule_timeout(__t); \
		if (!__t) \
			break; \
	} \
	finish_wait(&(wq), &__wait); \
	__t; \
})

/* Sleep (TASK_UNINTERRUPTIBLE) until cond is true.  May sleep. */
#define wait_event(wq, cond) do { \
	might_sleep(); \
	if (!(cond)) \
		(void)__wait_event(wq, cond, TASK_UNINTERRUPTIBLE, MAX_SCHEDULE_TIMEOUT); \
} while (0)

/*
 * wait_event() for a wait on I/O (Linux's io_wait_event()): while asleep
 * the task counts as waiting for I/O on its CPU, which /proc/stat shows
 * as iowait and procs_blocked.  (Linux's also flushes the task's plug;
 * Spindle's schedule() does that for every task going to sleep,
 * sched_submit_work().)
 */
#define io_wait_event(wq, cond) do { \
	bool __old_iowait = current->in_iowait; \
	current->in_iowait = true; \
	wait_event(wq, cond); \
	current->in_iowait = __old_iowait; \
} while (0)

/*
 * As wait_event, sleeping TASK_INTERRUPTIBLE: for a kernel thread that
 * waits idle for work (a recovery thread, a kick thread), as Linux's
 * kthreads do -- the hung-task detector only watches D-state sleeps, which
 * mean "waiting for something that should come".  It returns 0 and only
 * when cond is true: a process that must stop for a signal puts the test
 * in cond (`... || signal_pending(current)`, as the pipes and the tty do)
 * and returns -EINTR itself.
 */
#define wait_event_interruptible(wq, cond) ({ \
	might_sleep(); \
	if (!(cond)) \
		(void)__wait_event(wq, cond, TASK_INTERRUPTIBLE, MAX_SCHEDULE_TIMEOUT); \
	0; \
})

/* As wait_event, giving up after timeout jiffies: returns 0 if cond is
 * still false then, else the jiffies left (at least 1). */
#define wait_event_timeout(wq, cond, timeout) ({ \
	long __r = (timeout); \
	might_sleep(); \
	if (!(cond)) { \
		__r = __wait_event(wq, cond, TASK_UNINTERRUPTIBLE, __r); \
		if (!__r && (cond)) \
			__r = 1; \
	} \
	__r; \
})

/*
 * As wait_event_timeout, sleeping TASK_INTERRUPTIBLE (a process waiting
 * for something it asked for, that may never come: io_getevents).  The
 * same rule as wait_event_interruptible: a signal does not end the wait
 * by itself -- a caller that must stop for one puts
 * `|| signal_pending(current)` in cond and returns -EINTR itself.
 * Returns 0 if cond is still false when the time is up, else the
 * jiffies left (at least 1).
 */
#define wait_event_interruptible_timeout(wq, cond, timeout) ({ \
	long __r = (timeout); \
	might_sleep(); \
	if (!(cond)) { \
		__r = __wait_event(wq, cond, TASK_INTERRUPTIBLE, __r); \
		if (!__r && (cond)) \
			__r = 1; \
	} \
	__r; \
})

#endif /* SPINDLE_WAIT_H */
