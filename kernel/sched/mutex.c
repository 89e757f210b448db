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

struct mutex_waiter {
	struct list_head list;
	struct task_struct *task;
};

void mutex_init(struct mutex *m)
{
	m->owner = NULL;
	spin_lock_init(&m->wait_lock);
	INIT_LIST_HEAD(&m->wait_list);
	m->name = "mutex";
}

bool mutex_trylock(struct mutex *m)
{
	unsigned long flags;
	bool got = false;

	spin_lock_irqsave(&m->wait_lock, flags);
	if (!m->owner) {
		m->owner = current;
		got = true;
	}
	spin_unlock_irqrestore(&m->wait_lock, flags);
	return got;
}

void mutex_lock(struct mutex *m)
{
	struct mutex_waiter w = { .task = current };
	unsigned long flags;

	might_sleep();
	spin_lock_irqsave(&m->wait_lock, flags);
	if (m->owner == current)
		panic("mutex_lock: %s already holds mutex %s (deadlock)", current->comm, m->name);
	if (!m->owner) {
		m->owner = current;
		spin_unlock_irqrestore(&m->wait_lock, flags);
		return;
	}
	list_add_tail(&w.list, &m->wait_list);
	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (m->owner == current)        /* handed over by mutex_unlock */
			break;
		spin_unlock_irqrestore(&m->wait_lock, flags);
		schedule();
		spin_lock_irqsave(&m->wait_lock, flags);
	}
	__set_current_state(TASK_RUNNING);
	spin_unlock_irqrestore(&m->wait_lock, flags);
}

void mutex_unlock(struct mutex *m)
{
	unsigned long flags;

	spin_lock_irqsave(&m->wait_lock, flags);
	if (m->owner != current)
		panic("mutex_unlock: %s does not hold mutex %s", current->comm, m->name);
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
