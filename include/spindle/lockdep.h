/* SPDX-License-Identifier: MIT */
/*
 * lockdep.h - the lock-order validator (kernel/sched/lockdep.c), a small
 * version of Linux's lockdep.  Off unless the kernel is booted with
 * lockdep=1; then every spinlock and mutex acquisition is checked.
 *
 * Lock classes.  Locks are grouped by where they were initialised: each
 * spin_lock_init()/mutex_init() call site has its own static
 * struct lock_class_key, and every lock initialised there is of that
 * class (all request queues' q->lock are one class, "&q->lock").  A lock
 * defined statically (DEFINE_SPINLOCK, DEFINE_MUTEX) is a class of its own,
 * keyed by its address.  Rules are learnt per class, so an order seen once
 * on two queues applies to every pair.
 *
 * What is checked:
 *   - the "held while acquiring" graph: taking B while holding A records
 *     A -> B; if B already leads to A, the two orders can deadlock and the
 *     first such cycle is reported ("possible circular locking dependency
 *     detected") with both chains of acquisition;
 *   - recursion: taking a lock of a class the task already holds (two
 *     queues' q->lock, say) is reported once per class ("possible
 *     recursive locking detected") with both acquisition sites: two tasks
 *     taking the same two locks in opposite orders would deadlock, and
 *     lockdep, which knows classes only, cannot tell the order apart.
 *     Code that nests two locks of one class in a fixed order (a parent
 *     before its child) says so with spin_lock_nested()/mutex_lock_nested(
 *     lock, SINGLE_DEPTH_NESTING): the inner lock is then of a subclass,
 *     a class of its own ("&q->lock/1"), whose order is checked as any;
 *   - might_sleep() with a lock held lists the locks held;
 *   - returning to user space with a lock held.
 * Interrupt context: a handler's locks depend only on each other, not on
 * the locks of the task it interrupted (Linux's irq_context).
 *
 * lock_stat=1 adds, per class, the counts of /proc/lock_stat: spinlock
 * acquisitions, contentions (a lock that was not free when asked for),
 * and the "bounces" of each, those where the lock was last taken on
 * another CPU; lock_acquire() counts them (docs/locking.md, "lock_stat").
 *
 * The cost when off: one test of a static flag per lock operation.
 */
#ifndef SPINDLE_LOCKDEP_H
#define SPINDLE_LOCKDEP_H

#include <spindle/types.h>
#include <spindle/compiler.h>

/* One per initialisation site; only its address matters. */
struct lock_class_key {
	char dummy;
};

struct lock_class;

/* Subclasses of one class, for nesting two of its locks (Linux's
 * annotation): 0 is the class itself, SINGLE_DEPTH_NESTING the inner one. */
#define SINGLE_DEPTH_NESTING 1
#define MAX_LOCKDEP_SUBCLASSES 8

/* What each lock carries for lockdep. */
struct lockdep_map {
	const struct lock_class_key *key; /* NULL: a static lock */
	struct lock_class *class;	  /* looked up on first use */
};

enum lockdep_type { LD_SPINLOCK,
		    LD_MUTEX };

/* A lock a task holds (task_struct.held_locks[]), innermost last. */
struct held_lock {
	struct lock_class *class;
	void *instance;		  /* the spinlock_t or struct mutex */
	unsigned long acquire_ip; /* where it was taken */
	u8 type;		  /* enum lockdep_type */
	bool irq;		  /* taken in an interrupt handler */
};
#define MAX_LOCK_DEPTH 16

/* lockdep=1 (kernel/main.c sets it before the first lock is taken). */
extern bool debug_locks;
/* lock_stat=1: count each spinlock class's acquisitions and contentions
 * for /proc/lock_stat (Linux's CONFIG_LOCK_STAT).  Implies lockdep=1, as
 * Linux's needs lockdep: the classes are lockdep's. */
extern bool lock_stat;

/* Called by the lock primitives, only when debug_locks is set.  subclass:
 * 0, or the nesting level the caller annotated.  ip: the caller's address,
 * or 0 for "the caller of lock_acquire". */
void lock_acquire(struct lockdep_map *map, const char *name, void *instance,
		  enum lockdep_type type, unsigned int subclass, unsigned long ip);
void lock_release(void *instance);

/* Print "N locks held by comm/pid:" and each; for reports. */
struct task_struct;
void lockdep_print_held_locks(struct task_struct *p);
/* might_sleep() found the task in atomic context (lockdep on): report. */
void lockdep_might_sleep_bug(const char *file, int line);
/* The task is about to return to user space: it must hold no lock. */
void __lockdep_sys_exit(void);
unsigned long lockdep_errors(void); /* reports so far (for tests) */
/* /proc/lock_stat: the table (Linux's layout, fewer columns), and a
 * write to it, which clears the counts (Linux's "echo 0 >"). */
int lock_stat_show(char *buf, size_t size);
void lock_stat_clear(void);

#ifdef SPINDLE_HOST
#define lockdep_sys_exit() \
	do {               \
	} while (0)
#else
#define lockdep_sys_exit()                    \
	do {                                  \
		if (unlikely(debug_locks))    \
			__lockdep_sys_exit(); \
	} while (0)
#endif

#endif /* SPINDLE_LOCKDEP_H */
