/* SPDX-License-Identifier: MIT */
/*
 * refcount.h - a reference count that cannot silently go wrong (Linux's
 * refcount_t, include/linux/refcount.h).
 *
 * An atomic_t used as a reference count turns a bug into a use-after-free:
 * one put too many takes it to 0 and the object is freed under a holder; a
 * count that overflows wraps to 0 the same way.  refcount_t is an atomic_t
 * that refuses both: incrementing from 0 (the object is being freed) or
 * decrementing past 0 warns and leaves the count saturated, so the object
 * leaks instead of being freed twice -- Linux's trade, a leak over a
 * corruption.  refcount_dec_and_test() is ordered as Linux's: the
 * decrements of every other holder, and what they did before, are visible
 * to the one that frees.
 */
#ifndef SPINDLE_REFCOUNT_H
#define SPINDLE_REFCOUNT_H

#include <spindle/atomic.h>
#include <spindle/printk.h>

typedef struct {
	atomic_t refs;
} refcount_t;

#define REFCOUNT_INIT(n) { .refs = ATOMIC_INIT(n) }
#define REFCOUNT_SATURATED (-(1 << 30)) /* far from 0 both ways */

void refcount_warn_saturate(refcount_t *r, const char *what);
extern unsigned long refcount_warnings; /* reports so far, for tests */

static inline void refcount_set(refcount_t *r, int n) { atomic_set(&r->refs, n); }
static inline unsigned int refcount_read(const refcount_t *r)
{
	return (unsigned int)atomic_read(&r->refs);
}

static inline void refcount_inc(refcount_t *r)
{
	int old = atomic_fetch_add(1, &r->refs);

	if (unlikely(old <= 0))
		refcount_warn_saturate(r, old ? "saturated" : "increment on 0; use-after-free");
}

/* i references at once (a batch taken ahead, as io_uring takes them) */
static inline void refcount_add(int i, refcount_t *r)
{
	int old = atomic_fetch_add(i, &r->refs);

	if (unlikely(old <= 0))
		refcount_warn_saturate(r, old ? "saturated" : "addition on 0; use-after-free");
}

/* Drop i references; true for the caller that dropped the last: it frees */
static inline bool refcount_sub_and_test(int i, refcount_t *r)
{
	int new = atomic_sub_return(i, &r->refs);

	if (unlikely(new < 0)) {
		refcount_warn_saturate(r, "underflow; use-after-free");
		return false;
	}
	return new == 0;
}

/* true for the caller that dropped the last reference: it frees */
static inline bool refcount_dec_and_test(refcount_t *r)
{
	int new = atomic_dec_return(&r->refs);

	if (unlikely(new < 0)) {
		refcount_warn_saturate(r, "underflow; use-after-free");
		return false;
	}
	return new == 0;
}

static inline void refcount_dec(refcount_t *r)
{
	if (unlikely(refcount_dec_and_test(r)))
		refcount_warn_saturate(r, "decrement hit 0; leaking memory");
}

#endif /* SPINDLE_REFCOUNT_H */
