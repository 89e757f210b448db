// SPDX-License-Identifier: MIT
/*
 * completion.c - counted "it has happened" events
 * (include/spindle/completion.h), built on a wait queue.
 */
#include <spindle/completion.h>

#define COMPLETE_ALL (~0u / 2)          /* "done" that never runs out */

void init_completion(struct completion *x)
{
	x->done = 0;
	init_waitqueue_head(&x->wait);
}

void reinit_completion(struct completion *x)
{
	x->done = 0;
}

bool try_wait_for_completion(struct completion *x)
{
	unsigned long flags;
	bool ret = false;

	spin_lock_irqsave(&x->wait.lock, flags);
	if (x->done) {
		if (x->done != COMPLETE_ALL)
			x->done--;
		ret = true;
	}
	spin_unlock_irqrestore(&x->wait.lock, flags);
	return ret;
}

/*
 * The wait (Linux's do_wait_for_common): test done under the lock and,
 * if it is not yet, queue ourselves and set our state before letting the
 * lock go -- a complete() in between then finds us queued and sleeping,
 * and sets us running, so schedule() comes straight back -- then test
 * again under the lock after each wake-up.  One lock round trip when done
 * already, two a sleep; built on wait_event() and try_wait_for_completion()
 * it was five a sleep.  io: while asleep the task waits for I/O (iowait,
 * as io_wait_event()).  Returns 0 if timeout ran out first, else the
 * jiffies left (at least 1).  May sleep.
 */
static long do_wait_for_common(struct completion *x, long timeout, bool io)
{
	DEFINE_WAIT(wait);
	bool old_iowait = current->in_iowait;

	might_sleep();
	spin_lock_irq(&x->wait.lock);
	if (!x->done) {
		list_add_tail(&wait.entry, &x->wait.head);
		current->in_iowait = io || old_iowait;
		do {
			__set_current_state(TASK_UNINTERRUPTIBLE);      /* complete() takes the lock first */
			spin_unlock_irq(&x->wait.lock);
			timeout = schedule_timeout(timeout);
			spin_lock_irq(&x->wait.lock);
		} while (!x->done && timeout);
		list_del_init(&wait.entry);
		current->in_iowait = old_iowait;
		if (!x->done) {
			spin_unlock_irq(&x->wait.lock);
			return 0;
		}
	}
	if (x->done != COMPLETE_ALL)
		x->done--;
	spin_unlock_irq(&x->wait.lock);
	return timeout ? timeout : 1;
}

long wait_for_completion_timeout(struct completion *x, long timeout)
{
	return do_wait_for_common(x, timeout, false);
}

void wait_for_completion(struct completion *x)
{
	do_wait_for_common(x, MAX_SCHEDULE_TIMEOUT, false);
}

void wait_for_completion_io(struct completion *x)
{
	do_wait_for_common(x, MAX_SCHEDULE_TIMEOUT, true);
}

bool completion_done(struct completion *x)
{
	return READ_ONCE(x->done) != 0;
}

void complete(struct completion *x)
{
	unsigned long flags;

	spin_lock_irqsave(&x->wait.lock, flags);
	if (x->done != COMPLETE_ALL)
		x->done++;
	/* wake under the lock: x may be on the waiter's stack (see wait.h) */
	__wake_up_locked(&x->wait);
	spin_unlock_irqrestore(&x->wait.lock, flags);
}

void complete_all(struct completion *x)
{
	unsigned long flags;

	spin_lock_irqsave(&x->wait.lock, flags);
	x->done = COMPLETE_ALL;
	__wake_up_locked(&x->wait);
	spin_unlock_irqrestore(&x->wait.lock, flags);
}
