/* SPDX-License-Identifier: MIT */
/*
 * Spinlocks, for a single CPU.
 *
 * With one CPU nothing ever spins: taking a lock disables preemption (and,
 * with the _irqsave form, interrupts) so nothing else can run and touch the
 * data.  The lock word still records that the lock is held, so that
 *   - assert_spin_locked() can check a function's "caller holds the lock"
 *     rule (Linux's lockdep_assert_held), and
 *   - taking a lock that is already held -- from an interrupt handler that
 *     interrupted its holder, or by the holder itself -- panics with a
 *     "spinlock recursion" report instead of deadlocking silently, which is
 *     what it would do on a multiprocessor.
 * Use spin_lock_irqsave for any lock an interrupt handler also takes.
 * Does not sleep; nothing that sleeps may be called with a spinlock held.
 *
 * With lockdep=1 every acquisition also goes through the lock-order
 * validator (include/spindle/lockdep.h): spin_lock_init() gives each call
 * site its own lock class, as Linux's does.
 */
#ifndef SPINDLE_SPINLOCK_H
#define SPINDLE_SPINLOCK_H

#include <spindle/types.h>
#include <spindle/irqflags.h>
#include <spindle/lockdep.h>

typedef struct spinlock {
	volatile int locked;
	const char *name;
	const char *owner_file;        /* where it was taken, for reports */
	int owner_line;
	struct lockdep_map dep_map; /* its lock class (lockdep=1) */
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(n) { .locked = 0, .name = #n }
#define DEFINE_SPINLOCK(n) spinlock_t n = __SPIN_LOCK_UNLOCKED(n)

static inline void __spin_lock_init(spinlock_t *l, const char *name,
				    const struct lock_class_key *key)
{
	l->locked = 0;
	l->name = name;
	l->owner_file = NULL;
	l->owner_line = 0;
	l->dep_map.key = key;
	l->dep_map.class = NULL;
}

/* A macro, so that each call site has its own class key (and the lock
 * its name as written there, e.g. "&q->lock"). */
#define spin_lock_init(l)                                 \
	do {                                              \
		static const struct lock_class_key __key; \
		__spin_lock_init((l), #l, &__key);        \
	} while (0)

void __spin_lock_bug(spinlock_t *l, const char *file, int line, const char *what);

static __always_inline void __spin_acquire(spinlock_t *l, const char *file, int line,
					   unsigned int subclass)
{
	if (l->locked)
		__spin_lock_bug(l, file, line, "recursion");
#ifndef SPINDLE_HOST
	if (unlikely(debug_locks))
		lock_acquire(&l->dep_map, l->name, l, LD_SPINLOCK, subclass, 0);
#else
	(void)subclass;
#endif
	l->locked = 1;
	l->owner_file = file;
	l->owner_line = line;
}

static __always_inline void __spin_release(spinlock_t *l, const char *file, int line)
{
	if (!l->locked)
		__spin_lock_bug(l, file, line, "unlock of unlocked lock");
#ifndef SPINDLE_HOST
	if (unlikely(debug_locks))
		lock_release(l);
#endif
	l->locked = 0;
}

#define spin_lock(l)                                      \
	do {                                              \
		preempt_disable();                        \
		__spin_acquire(l, __FILE__, __LINE__, 0); \
	} while (0)
/* A second lock of a class already held, taken in an order the caller
 * guarantees (lockdep.h: nesting); subclass SINGLE_DEPTH_NESTING. */
#define spin_lock_nested(l, subclass)                            \
	do {                                                     \
		preempt_disable();                               \
		__spin_acquire(l, __FILE__, __LINE__, subclass); \
	} while (0)
#define spin_unlock(l) do { __spin_release(l, __FILE__, __LINE__); preempt_enable(); } while (0)
#define spin_lock_irq(l)   do { local_irq_disable(); spin_lock(l); } while (0)
#define spin_unlock_irq(l) do { spin_unlock(l); local_irq_enable(); } while (0)
#define spin_lock_irqsave(l, flags) \
	do { (flags) = local_irq_save(); spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, flags) \
	do { spin_unlock(l); local_irq_restore(flags); } while (0)

static inline bool spin_is_locked(const spinlock_t *l) { return l->locked; }

#define assert_spin_locked(l) do { \
	if (!(l)->locked) \
		__spin_lock_bug((spinlock_t *)(l), __FILE__, __LINE__, "not held"); \
} while (0)

#endif /* SPINDLE_SPINLOCK_H */
