/* SPDX-License-Identifier: MIT */
/*
 * Spinlocks: a CPU that finds the lock taken waits, spinning, until the
 * holder lets go.
 *
 * The lock itself is a ticket lock (arch_spinlock_t, below), as at a
 * bakery counter: a CPU takes the next ticket number (tail), then waits
 * until the number being served (head) is its own; unlocking serves the
 * next number.  CPUs get the lock in the order they asked for it, so none
 * can be passed over forever -- the reason Linux moved to tickets in 2008
 * (commit 314cdbefd1fd, "x86: FIFO ticket spinlocks").
 *
 * spin_lock() adds to that:
 *   - preempt_disable(): the holder is not switched away from while
 *     others spin for it (and sleeping while holding it is a bug: the
 *     might_sleep() checks);
 *   - with the _irqsave/_irq forms, interrupts off on this CPU: an
 *     interrupt handler that takes the same lock on this CPU would spin
 *     forever on a lock its own CPU holds.  Use them for any lock an
 *     interrupt handler also takes;
 *   - with lock debugging on (lockdep=1 or lock_stat=1; always in the
 *     host's unit tests), Linux's CONFIG_DEBUG_SPINLOCK checks: the
 *     holding CPU and where it took the lock are recorded, so taking a
 *     lock this CPU already holds (from an interrupt handler that
 *     interrupted its holder, or by the holder itself) panics with a
 *     "spinlock recursion" report instead of hanging, unlocking a lock
 *     this CPU does not hold panics, and assert_spin_locked() checks a
 *     function's "caller holds the lock" rule (Linux's
 *     lockdep_assert_held);
 *   - and every acquisition goes through the lock-order validator
 *     (include/spindle/lockdep.h): spin_lock_init() gives each call site
 *     its own lock class, as Linux's does; with lock_stat=1 it is also
 *     counted, and whether it found the lock taken (/proc/lock_stat).
 * Off, as in Linux's production kernels, a lock is the ticket and the
 * preemption count, and one test of debug_locks: the bookkeeping cost
 * some 160 instructions of a 3,500-instruction polled read, a dozen
 * locks.  A recursion then spins, and the lockup detectors
 * (kernel/watchdog.c) report the CPU stuck, with its backtrace.
 * Does not sleep; nothing that sleeps may be called with a spinlock held.
 */
#ifndef SPINDLE_SPINLOCK_H
#define SPINDLE_SPINLOCK_H

#include <spindle/types.h>
#include <spindle/irqflags.h>
#include <spindle/lockdep.h>
#include <spindle/smp.h>

#if defined(SPINDLE_HOST) && !defined(cpu_relax)
#define cpu_relax() do { } while (0)
#endif

/*
 * The lock word (Linux's arch_spinlock_t, x86's ticket version before
 * queued spinlocks).  Free when head == tail.  Also used bare, without
 * the debug checks, by the code that implements those checks (lockdep,
 * printk), which must not call itself.
 */
typedef union {
	u32 val;
	struct {
		u16 head;       /* the ticket being served: its holder runs */
		u16 tail;       /* the next ticket to hand out */
	};
} arch_spinlock_t;

#define __ARCH_SPIN_LOCK_UNLOCKED { .val = 0 }

static __always_inline void arch_spin_lock(arch_spinlock_t *l)
{
	/*
	 * Take a ticket: one atomic read-modify-write ("lock xadd" on x86),
	 * so two CPUs never get the same number.  It need not order anything
	 * else ("relaxed"): the wait below does.
	 */
	u16 me = __atomic_fetch_add(&l->tail, 1, __ATOMIC_RELAXED);

	/*
	 * Wait to be served.  "Acquire": no load or store of the critical
	 * section may be done before this load has seen our number -- not by
	 * the compiler, not by the CPU.  It pairs with the release in
	 * arch_spin_unlock(): whatever the previous holder wrote inside its
	 * critical section is visible to us once we see head == me.  (On x86
	 * every load is an acquire already; the annotation keeps the compiler
	 * from moving our accesses up, and documents the rule.)  pause tells
	 * the CPU we are spinning, which on real hardware saves power and a
	 * pipeline flush on exit.
	 */
	while (__atomic_load_n(&l->head, __ATOMIC_ACQUIRE) != me)
		cpu_relax();
}

static __always_inline bool arch_spin_trylock(arch_spinlock_t *l)
{
	arch_spinlock_t old, new;

	old.val = __atomic_load_n(&l->val, __ATOMIC_RELAXED);
	if (old.head != old.tail)
		return false;
	new = old;
	new.tail++;
	/* the ticket and the turn at once, only if nobody came between */
	return __atomic_compare_exchange_n(&l->val, &old.val, new.val, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static __always_inline void arch_spin_unlock(arch_spinlock_t *l)
{
	/*
	 * Serve the next ticket.  Only the holder writes head, so a plain
	 * read of it is safe; the store is a "release": every load and store
	 * of the critical section is done before another CPU can see head
	 * move (x86 keeps stores in order; the annotation keeps the compiler
	 * from sinking them below this one).
	 */
	__atomic_store_n(&l->head, (u16)(l->head + 1), __ATOMIC_RELEASE);
}

static __always_inline bool arch_spin_is_locked(const arch_spinlock_t *l)
{
	arch_spinlock_t v = { .val = __atomic_load_n(&l->val, __ATOMIC_RELAXED) };

	return v.head != v.tail;
}

typedef struct spinlock {
	arch_spinlock_t raw;
	int owner_cpu;                 /* the holding CPU + 1; 0 when free */
	const char *name;
	const char *owner_file;        /* where it was taken, for reports */
	int owner_line;
	int last_cpu;                  /* lock_stat=1: the CPU that took it last,
					* + 1 (in what was padding: no bigger) */
	struct lockdep_map dep_map; /* its lock class (lockdep=1) */
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(n) { .raw = __ARCH_SPIN_LOCK_UNLOCKED, .name = #n }
#define DEFINE_SPINLOCK(n) spinlock_t n = __SPIN_LOCK_UNLOCKED(n)

static inline void __spin_lock_init(spinlock_t *l, const char *name,
				    const struct lock_class_key *key)
{
	l->raw.val = 0;
	l->owner_cpu = 0;
	l->name = name;
	l->owner_file = NULL;
	l->owner_line = 0;
	l->last_cpu = 0;
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

/* Lock debugging: lockdep=1 or lock_stat=1 in the kernel, always in the
 * host's unit tests (which have no lockdep). */
static __always_inline bool spin_debug(void)
{
#ifdef SPINDLE_HOST
	return true;
#else
	return unlikely(debug_locks);
#endif
}

/* Preemption is off: this CPU's number cannot change under us. */
static __always_inline void __spin_acquire(spinlock_t *l, const char *file, int line,
					   unsigned int subclass)
{
	int me;

	if (!spin_debug()) {
		arch_spin_lock(&l->raw);
		return;
	}
	/* Only this CPU can have stored its own number there, so a racy
	 * read cannot mistake another CPU's hold for ours. */
	me = (int)smp_processor_id() + 1;
	if (READ_ONCE(l->owner_cpu) == me)
		__spin_lock_bug(l, file, line, "recursion");
#ifndef SPINDLE_HOST
	/* before spinning, as in Linux: a deadlock is reported, not hung in
	 * (and with lock_stat=1 the acquisition counted) */
	lock_acquire(&l->dep_map, l->name, l, LD_SPINLOCK, subclass, 0);
#else
	(void)subclass;
#endif
	arch_spin_lock(&l->raw);
	WRITE_ONCE(l->owner_cpu, me);
	l->owner_file = file;
	l->owner_line = line;
}

static __always_inline void __spin_release(spinlock_t *l, const char *file, int line)
{
	/* Debugging never comes on after boot; when lockdep switches itself
	 * off (after its first report) with the lock held, the owner left
	 * recorded is never read again. */
	if (!spin_debug()) {
		arch_spin_unlock(&l->raw);
		return;
	}
	if (l->owner_cpu != (int)smp_processor_id() + 1)
		__spin_lock_bug(l, file, line,
				arch_spin_is_locked(&l->raw) ? "unlock by a CPU that does not hold it"
							     : "unlock of unlocked lock");
#ifndef SPINDLE_HOST
	lock_release(l);
#endif
	WRITE_ONCE(l->owner_cpu, 0);
	arch_spin_unlock(&l->raw);
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

static inline bool spin_is_locked(const spinlock_t *l) { return arch_spin_is_locked(&l->raw); }

/* the caller must hold l: on this CPU, not merely someone somewhere
 * (checked with lock debugging on, as Linux's lockdep_assert_held) */
#define assert_spin_locked(l) do { \
	if (spin_debug() && READ_ONCE((l)->owner_cpu) != (int)smp_processor_id() + 1) \
		__spin_lock_bug((spinlock_t *)(l), __FILE__, __LINE__, "not held"); \
} while (0)

#endif /* SPINDLE_SPINLOCK_H */
