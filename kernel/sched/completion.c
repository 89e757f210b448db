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

long wait_for_completion_timeout(struct completion *x, long timeout)
{
	return wait_event_timeout(x->wait, try_wait_for_completion(x), timeout);
}

void wait_for_completion(struct completion *x)
{
	wait_event(x->wait, try_wait_for_completion(x));
}

void wait_for_completion_io(struct completion *x)
{
	io_wait_event(x->wait, try_wait_for_completion(x));
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
