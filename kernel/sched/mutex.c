/*
 * mutex.c - sleeping locks (include/spindle/mutex.h).
 *
 * The owner word is the owner's task pointer, 0 when free, with
 * MUTEX_FLAG_WAITERS set while tasks wait (Linux's kernel/locking/mutex.c,
 * without its optimistic spinning and its flags but that one):
 *
 * mutex_lock():   fast path: one compare-and-exchange of 0 for current
 *                 (acquire: what the last owner wrote is visible).  Slow
 *                 path, under wait_lock: take it if it is free, else set
 *                 the flag, queue on the FIFO wait list and sleep until
 *                 mutex_unlock() makes us the owner.
 * mutex_unlock(): fast path: one compare-and-exchange of current for 0
 *                 (release), which fails while the flag is set.  Slow
 *                 path, under wait_lock: hand ownership straight to the
 *                 first waiter (the flag stays if more wait) and wake it.
 * Direct hand-off means a task arriving later can never overtake the
 * waiters (no starvation), at the cost of a switch per hand-off; the
 * fast path cannot overtake them either, since the word is never 0
 * while someone waits.  Taking a mutex you hold, or unlocking one you do
 * not, fails the fast path and panics in the slow one.
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
	m->owner = 0;
	spin_lock_init(&m->wait_lock);
	INIT_LIST_HEAD(&m->wait_list);
	m->name = name;
	m->dep_map.key = key;
	m->dep_map.class = NULL;
}

/* 0 -> current: the whole uncontended lock */
static inline bool __mutex_trylock_fast(struct mutex *m)
{
	unsigned long zero = 0;

	return __atomic_compare_exchange_n(&m->owner, &zero, (unsigned long)current, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* current -> 0: the whole unlock when nobody waits */
static inline bool __mutex_unlock_fast(struct mutex *m)
{
	unsigned long me = (unsigned long)current;

	return __atomic_compare_exchange_n(&m->owner, &me, 0, false, __ATOMIC_RELEASE,
					   __ATOMIC_RELAXED);
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
	unsigned long flags, me = (unsigned long)current;
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
	if (likely(__mutex_trylock_fast(m)))
		return 0;
	spin_lock_irqsave(&m->wait_lock, flags);
	if (__mutex_owner(m) == current)
		panic("mutex_lock: %s already holds mutex %s (deadlock)", current->comm, m->name);
	/* Queue first, then raise the flag: from here on the owner's unlock
	 * takes the slow path (wait_lock, which we hold), so the word cannot
	 * go to 0 under us, and a free word can only be taken here. */
	list_add_tail(&w.list, &m->wait_list);
	__atomic_fetch_or(&m->owner, MUTEX_FLAG_WAITERS, __ATOMIC_RELAXED);
	for (;;) {
		unsigned long owner;

		set_current_state(state);
		owner = READ_ONCE(m->owner);
		if ((owner & ~MUTEX_FLAGS) == me)
			break;                  /* handed over by mutex_unlock */
		if (!(owner & ~MUTEX_FLAGS)) {
			/* freed before our flag was seen: take it, the flag
			 * kept for those queued behind us */
			list_del_init(&w.list);
			__atomic_store_n(&m->owner, me | (list_empty(&m->wait_list) ? 0 :
							  MUTEX_FLAG_WAITERS), __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			break;
		}
		if (state == TASK_INTERRUPTIBLE && signal_pending(current)) {
			list_del_init(&w.list);
			if (list_empty(&m->wait_list))
				__atomic_fetch_and(&m->owner, ~MUTEX_FLAG_WAITERS, __ATOMIC_RELAXED);
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

#ifndef SPINDLE_HOST
	if (unlikely(debug_locks)) {
		if (__mutex_owner(m) != current)
			panic("mutex_unlock: %s does not hold mutex %s", current->comm, m->name);
		lock_release(m);
	}
#endif
	if (likely(__mutex_unlock_fast(m)))
		return;
	spin_lock_irqsave(&m->wait_lock, flags);
	if (__mutex_owner(m) != current)
		panic("mutex_unlock: %s does not hold mutex %s", current->comm, m->name);
	if (list_empty(&m->wait_list)) {
		__atomic_store_n(&m->owner, 0, __ATOMIC_RELEASE);
	} else {
		struct mutex_waiter *w = list_first_entry(&m->wait_list, struct mutex_waiter, list);

		list_del_init(&w->list);
		/* the hand-off: the waiter's now, the flag kept if others wait */
		__atomic_store_n(&m->owner, (unsigned long)w->task |
				 (list_empty(&m->wait_list) ? 0 : MUTEX_FLAG_WAITERS),
				 __ATOMIC_RELEASE);
		wake_up_process(w->task);
	}
	spin_unlock_irqrestore(&m->wait_lock, flags);
}
