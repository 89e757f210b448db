/* SPDX-License-Identifier: MIT */
/*
 * Sleeping mutexes.
 *
 * A task that finds the mutex taken sleeps (TASK_UNINTERRUPTIBLE) on its
 * wait list instead of spinning.  mutex_unlock() hands the mutex directly
 * to the first waiter, so waiters get it in arrival order and nobody
 * starves.  A mutex nobody waits for is taken and given back with one
 * compare-and-exchange of its owner word each way (Linux's fast path):
 * the owner's task pointer, with MUTEX_FLAG_WAITERS in its low bit while
 * the wait list is not empty, which sends the unlock down the slow path.  Only the owner may unlock; unlocking a mutex you do not hold,
 * or taking one twice, panics.  mutex_lock() may sleep: never call it from
 * an interrupt handler or with a spinlock held.
 */
#ifndef SPINDLE_MUTEX_H
#define SPINDLE_MUTEX_H

#include <spindle/sched.h>
#include <spindle/spinlock.h>
#include <spindle/list.h>

struct mutex {
	unsigned long owner;            /* the owner's task_struct, | MUTEX_FLAG_WAITERS;
					 * 0 when unlocked (Linux's atomic_long_t owner) */
	spinlock_t wait_lock;
	struct list_head wait_list;     /* struct mutex_waiter, FIFO */
	const char *name;
	struct lockdep_map dep_map; /* its lock class (lockdep=1) */
};

#define MUTEX_FLAG_WAITERS 0x01ul     /* the wait list is not empty */
#define MUTEX_FLAGS        0x07ul     /* task_structs are 8-byte aligned */

#define __MUTEX_INITIALIZER(n) { .owner = 0, \
	.wait_lock = __SPIN_LOCK_UNLOCKED(n.wait_lock), \
	.wait_list = LIST_HEAD_INIT(n.wait_list), .name = #n }
#define DEFINE_MUTEX(n) struct mutex n = __MUTEX_INITIALIZER(n)

void __mutex_init(struct mutex *m, const char *name, const struct lock_class_key *key);
/* A macro, so that each call site is a lock class of its own (lockdep). */
#define mutex_init(m)                                     \
	do {                                              \
		static const struct lock_class_key __key; \
		__mutex_init((m), #m, &__key);            \
	} while (0)
void mutex_lock(struct mutex *m);
/* mutex_lock() of a second mutex of a class already held, in an order the
 * caller guarantees (a parent's before its child's): subclass
 * SINGLE_DEPTH_NESTING for lockdep (lockdep.h: nesting).  May sleep. */
void mutex_lock_nested(struct mutex *m, unsigned int subclass);
/* The same, but a signal ends the wait: 0 with the lock, or -EINTR
 * without it.  May sleep. */
int mutex_lock_interruptible(struct mutex *m);
void mutex_unlock(struct mutex *m);
/* the task holding m, or NULL (racy unless it is you) */
static inline struct task_struct *__mutex_owner(const struct mutex *m)
{
	return (struct task_struct *)(READ_ONCE(m->owner) & ~MUTEX_FLAGS);
}
static inline bool mutex_is_locked(struct mutex *m) { return __mutex_owner(m) != NULL; }

#define assert_mutex_held(m) BUG_ON(__mutex_owner(m) != current)

#endif /* SPINDLE_MUTEX_H */
