// SPDX-License-Identifier: MIT
/*
 * wait.c - wait queues (include/spindle/wait.h).
 *
 * The queue's spinlock is taken with interrupts off because interrupt
 * handlers call wake_up().  wake_up() only makes tasks runnable; they run
 * when the scheduler picks them.
 */
#include <spindle/wait.h>

void __init_waitqueue_head(struct wait_queue_head *wq, const char *name,
			   const struct lock_class_key *key)
{
	__spin_lock_init(&wq->lock, name, key);
	INIT_LIST_HEAD(&wq->head);
}

void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *wqe, long state)
{
	unsigned long flags;

	spin_lock_irqsave(&wq->lock, flags);
	if (list_empty(&wqe->entry))
		list_add_tail(&wqe->entry, &wq->head);
	set_current_state(state);
	spin_unlock_irqrestore(&wq->lock, flags);
}

void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *wqe)
{
	unsigned long flags;

	__set_current_state(TASK_RUNNING);
	spin_lock_irqsave(&wq->lock, flags);
	list_del_init(&wqe->entry);
	spin_unlock_irqrestore(&wq->lock, flags);
}

void __wake_up_locked(struct wait_queue_head *wq)
{
	struct wait_queue_entry *wqe;

	assert_spin_locked(&wq->lock);
	list_for_each_entry(wqe, &wq->head, entry)
		wake_up_process(wqe->task);
}

void wake_up(struct wait_queue_head *wq)
{
	unsigned long flags;

	spin_lock_irqsave(&wq->lock, flags);
	__wake_up_locked(wq);
	spin_unlock_irqrestore(&wq->lock, flags);
}

