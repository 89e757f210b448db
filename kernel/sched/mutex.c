// SPDX-License-Identifier: MIT
/*
 * mutex.c - sleeping locks (include/spindle/mutex.h).
 *
 * mutex_lock():  if nobody owns it, take it.  Otherwise queue a waiter on
 *                the mutex's FIFO wait list and sleep until mutex_unlock()
 *                makes us the owner.
 * mutex_unlock(): if someone waits, hand ownership straight to the first
 *                waiter and wake it; else just clear the owner.
 * Direct hand-off means a task arriving later can never overtake the
 * waiters (no starvation), at the cost of a switch per hand-off.
 */
#include <spindle/mutex.h>
#include <spindle/printk.h>
#include <spindle/errno.h>

struct mutex_waiter {
	struct list_head list;
	struct task_struct *task;
};

void __mutex_init(struct mutex *m, const char *name, const struct lock_class_key *key)
{
	m->owner = NULL;
	spin_lock_init(&m->wait_lock);
	INIT_LIST_HEAD(&m->wait_list);
	m->name = name;
	m->dep_map.key = key;
	m->dep_map.class = NULL;
}

/*
 * The one wait of both lock calls (Linux's __mutex_lock_common): take the
 * mutex if it is free, else queue and sleep in @state until mutex_unlock
 * hands it over.  TASK_INTERRUPTIBLE: a signal ends the wait with -EINTR,
 * not holding it -- but a hand-off that races with the signal wins.
 * lockdep (lockdep=1) sees the acquisition before the wait, as Linux's
 * does: the order is wrong whether or not this time it had to wait.
 */
static int __mutex_lock_common(struct mutex *m, long state, unsigned int subclass,
			       unsigned long ip)
{
	struct mutex_waiter w = { .task = current };
	unsigned long flags;
	int ret = 0;

	might_sleep();
	/* before wait_lock: the wait lock is inside every mutex, not before */
#ifndef SPINDLE_HOST
	if (unlikely(debug_locks))
		lock_acquire(&m->dep_map, m->name, m, LD_MUTEX, subclass, ip);
#else
	(void)ip;
	(void)subclass;
#endif
	spin_lock_irqsave(&m->wait_lock, flags);
	if (m->owner == current)
		panic("mutex_lock: %s already holds mutex %s (deadlock)", current->comm, m->name);
	if (!m->owner) {
		m->owner = current;
		spin_unlock_irqrestore(&m->wait_lock, flags);
		return 0;
	}
	list_add_tail(&w.list, &m->wait_list);
	for (;;) {
		set_current_state(state);
		if (m->owner == current)        /* handed over by mutex_unlock */
			break;
		if (state == TASK_INTERRUPTIBLE && signal_pending(current)) {
			list_del_init(&w.list);
			ret = -EINTR;
			break;
		}
		spin_unlock_irqrestore(&m->wait_lock, flags);
		schedule();
		spin_lock_irqsave(&m->wait_lock, flags);
	}
	__set_current_state(TASK_RUNNING);
	spin_unlock_irqrestore(&m->wait_lock, flags);
#ifndef SPINDLE_HOST
	if (ret && unlikely(debug_locks))
		lock_release(m);
#endif
	return ret;
}

void mutex_lock(struct mutex *m)
{
	__mutex_lock_common(m, TASK_UNINTERRUPTIBLE, 0, (unsigned long)__builtin_return_address(0));
}

void mutex_lock_nested(struct mutex *m, unsigned int subclass)
{
	__mutex_lock_common(m, TASK_UNINTERRUPTIBLE, subclass,
			    (unsigned long)__builtin_return_address(0));
}

/*
 * As mutex_lock(), but a signal ends the wait: -EINTR, not holding it.
 * For locks a process may wait on for a long time on behalf of a system
 * call -- the console's write lock, held through a megabyte write -- so
 * that a kill ends the waiter (Linux's mutex_lock_interruptible()).
 */
int mutex_lock_interruptible(struct mutex *m)
{
	return __mutex_lock_common(m, TASK_INTERRUPTIBLE, 0,
				   (unsigned long)__builtin_return_address(0));
}

void mutex_unlock(struct mutex *m)
{
	unsigned long flags;

	spin_lock_irqsave(&m->wait_lock, flags);
	if (m->owner != current)
		panic("mutex_unlock: %s does not hold mutex %s", current->comm, m->name);
#ifndef SPINDLE_HOST
	if (unlikely(debug_locks))
		lock_release(m);
#endif
	if (list_empty(&m->wait_list)) {
		m->owner = NULL;
	} else {
		struct mutex_waiter *w = list_first_entry(&m->wait_list, struct mutex_waiter, list);

		list_del_init(&w->list);
		m->owner = w->task;
		wake_up_process(w->task);
	}
	spin_unlock_irqrestore(&m->wait_lock, flags);
}
