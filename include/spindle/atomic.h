/* SPDX-License-Identifier: MIT */
/*
 * atomic.h - integers that several CPUs update at once (Linux's atomic_t
 * and atomic_long_t, include/linux/atomic.h).
 *
 * "x++" is a load, an add and a store: two CPUs doing it at once can both
 * load 5 and both store 6, and one increment is lost.  These operations
 * are single atomic read-modify-write instructions (lock-prefixed on x86,
 * through GCC's __atomic builtins).  As in Linux:
 *   - atomic_read/atomic_set are plain (READ_ONCE/WRITE_ONCE) and order
 *     nothing;
 *   - the operations that return a value (atomic_inc_return,
 *     atomic_dec_and_test, atomic_cmpxchg, atomic_xchg...) are fully
 *     ordered: no access moves across them;
 *   - those that return nothing (atomic_inc, atomic_add...) order nothing.
 * A counter that decides who frees an object (the last reference) wants
 * refcount.h instead, which also catches a count that goes wrong.
 */
#ifndef SPINDLE_ATOMIC_H
#define SPINDLE_ATOMIC_H

#include <spindle/compiler.h>

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	long counter;
} atomic_long_t;

#define ATOMIC_INIT(i) { (i) }

#define __ATOMIC_OPS(T, pfx, t)                                                        \
	static inline t pfx##_read(const T *v) { return READ_ONCE(v->counter); }         \
	static inline void pfx##_set(T *v, t i) { WRITE_ONCE(v->counter, i); }           \
	static inline void pfx##_add(t i, T *v)                                          \
	{ __atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED); }                        \
	static inline void pfx##_sub(t i, T *v)                                          \
	{ __atomic_fetch_sub(&v->counter, i, __ATOMIC_RELAXED); }                        \
	static inline void pfx##_inc(T *v) { pfx##_add(1, v); }                          \
	static inline void pfx##_dec(T *v) { pfx##_sub(1, v); }                          \
	static inline t pfx##_add_return(t i, T *v)                                      \
	{ return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }                 \
	static inline t pfx##_sub_return(t i, T *v)                                      \
	{ return __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }                 \
	static inline t pfx##_inc_return(T *v) { return pfx##_add_return(1, v); }        \
	static inline t pfx##_dec_return(T *v) { return pfx##_sub_return(1, v); }        \
	static inline t pfx##_fetch_add(t i, T *v)                                       \
	{ return __atomic_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST); }                 \
	static inline bool pfx##_dec_and_test(T *v) { return pfx##_dec_return(v) == 0; } \
	static inline t pfx##_xchg(T *v, t i)                                            \
	{ return __atomic_exchange_n(&v->counter, i, __ATOMIC_SEQ_CST); }                \
	/* set to new if it is old; returns what it was (old on success) */             \
	static inline t pfx##_cmpxchg(T *v, t old, t new)                                \
	{                                                                                \
		__atomic_compare_exchange_n(&v->counter, &old, new, false,               \
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);         \
		return old;                                                              \
	}

__ATOMIC_OPS(atomic_t, atomic, int)
__ATOMIC_OPS(atomic_long_t, atomic_long, long)
#undef __ATOMIC_OPS

#endif /* SPINDLE_ATOMIC_H */
