/* SPDX-License-Identifier: MIT */
/*
 * ratelimit.h - at most `burst` events per `interval`, as Linux's
 * include/linux/ratelimit.h.
 *
 * For log lines a user can cause at will (every segfault of a crashing
 * loop prints one): printk_ratelimited() prints the first
 * DEFAULT_RATELIMIT_BURST messages of each DEFAULT_RATELIMIT_INTERVAL and
 * drops the rest, then says how many it dropped ("<func>: N callbacks
 * suppressed", Linux's words) when the next interval begins.  Each call
 * site has its own state.  Does not sleep; callable from interrupts.
 */
#ifndef SPINDLE_RATELIMIT_H
#define SPINDLE_RATELIMIT_H

#include <spindle/types.h>
#include <spindle/printk.h>
#include <spindle/time.h>
#include <spindle/spinlock.h>

#define DEFAULT_RATELIMIT_INTERVAL      (5 * HZ)        /* jiffies */
#define DEFAULT_RATELIMIT_BURST         10              /* messages per interval */

struct ratelimit_state {
	/* Taken with trylock, interrupts off: a caller that finds another
	 * CPU inside drops its message (Linux's raw_spin_trylock_irqsave).
	 * A bare ticket lock, not spinlock_t: printk_ratelimited() may be
	 * called under any lock, lockdep's own reports included. */
	arch_spinlock_t lock;
	u64 interval;                   /* jiffies */
	int burst;
	int printed, missed;
	u64 begin;                      /* jiffies when this interval began; 0: none yet */
};

#define RATELIMIT_STATE_INIT(interval_init, burst_init) \
	{ .lock = __ARCH_SPIN_LOCK_UNLOCKED, .interval = (interval_init), .burst = (burst_init) }
#define DEFINE_RATELIMIT_STATE(name, interval, burst) \
	struct ratelimit_state name = RATELIMIT_STATE_INIT(interval, burst)

/* 1: go ahead; 0: over the limit, drop it.  func names the caller in the
 * "callbacks suppressed" line. */
int ___ratelimit(struct ratelimit_state *rs, const char *func);
#define __ratelimit(rs) ___ratelimit(rs, __func__)

#define printk_ratelimited(fmt, ...) ({                                         \
	static DEFINE_RATELIMIT_STATE(_rs, DEFAULT_RATELIMIT_INTERVAL,          \
				      DEFAULT_RATELIMIT_BURST);                 \
	__ratelimit(&_rs) ? printk(fmt, ##__VA_ARGS__) : 0;                     \
})

#endif /* SPINDLE_RATELIMIT_H */
