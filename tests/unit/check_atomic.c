// SPDX-License-Identifier: MIT
/*
 * Unit tests for the SMP primitives, with real threads on the host's
 * CPUs: the ticket lock (include/spindle/spinlock.h's arch_spinlock_t),
 * atomic_t (atomic.h) and refcount_t (refcount.h).
 *
 * "Threads": THREADS threads each do ROUNDS increments of a shared
 * counter, three ways, and the total must be exact:
 *   - a plain ++ under the ticket lock, with a deliberately slow
 *     read-spin-write inside (a broken lock loses increments);
 *   - atomic_inc, with no lock;
 *   - and, as the control that shows the test can fail, a plain ++ with
 *     no lock: on a multi-core host it loses increments (the case only
 *     checks that it did not gain any, and records whether it lost).
 * "Semantics": the operations' return values, cmpxchg, and refcount_t's
 * refusals (increment on 0, decrement past 0) that warn and saturate.
 */
#include <check.h>
#include <pthread.h>
#include <spindle/compiler.h>
#include <spindle/atomic.h>
#include <spindle/refcount.h>
#include <spindle/spinlock.h>

#define THREADS 4
#define ROUNDS  20000
#define CS_SPIN 20

static arch_spinlock_t lock = __ARCH_SPIN_LOCK_UNLOCKED;
static unsigned long locked_counter, racy_counter;
static atomic_long_t atomic_counter;
static int inside, violations;

static void *locked_worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		unsigned long v;

		arch_spin_lock(&lock);
		if (__atomic_fetch_add(&inside, 1, __ATOMIC_RELAXED))
			__atomic_fetch_add(&violations, 1, __ATOMIC_RELAXED);
		v = READ_ONCE(locked_counter);
		for (int j = 0; j < CS_SPIN; j++)
			barrier();
		WRITE_ONCE(locked_counter, v + 1);
		__atomic_fetch_sub(&inside, 1, __ATOMIC_RELAXED);
		arch_spin_unlock(&lock);
	}
	return NULL;
}

static void *atomic_worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++)
		atomic_long_inc(&atomic_counter);
	return NULL;
}

static void *racy_worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		unsigned long v = READ_ONCE(racy_counter);

		for (int j = 0; j < CS_SPIN; j++)
			barrier();
		WRITE_ONCE(racy_counter, v + 1);
	}
	return NULL;
}

static void run_threads(void *(*fn)(void *))
{
	pthread_t t[THREADS];

	for (int i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, fn, NULL), 0);
	for (int i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
}

START_TEST(ticket_lock_excludes)
{
	locked_counter = 0;
	violations = 0;
	run_threads(locked_worker);
	ck_assert_int_eq(violations, 0);
	ck_assert_uint_eq(locked_counter, (unsigned long)THREADS * ROUNDS);
	ck_assert(!arch_spin_is_locked(&lock));
	ck_assert_uint_eq(lock.head, (u16)(THREADS * ROUNDS)); /* every ticket served */
}
END_TEST

START_TEST(atomic_inc_exact)
{
	atomic_long_set(&atomic_counter, 0);
	run_threads(atomic_worker);
	ck_assert_int_eq(atomic_long_read(&atomic_counter), (long)THREADS * ROUNDS);
}
END_TEST

START_TEST(plain_increment_control)
{
	racy_counter = 0;
	run_threads(racy_worker);
	ck_assert_uint_le(racy_counter, (unsigned long)THREADS * ROUNDS);
	if (racy_counter < (unsigned long)THREADS * ROUNDS)
		printf("check_atomic: without a lock, %lu of %lu increments were lost\n",
		       (unsigned long)THREADS * ROUNDS - racy_counter,
		       (unsigned long)THREADS * ROUNDS);
}
END_TEST

START_TEST(trylock)
{
	arch_spinlock_t l = __ARCH_SPIN_LOCK_UNLOCKED;

	ck_assert(arch_spin_trylock(&l));
	ck_assert(arch_spin_is_locked(&l));
	ck_assert(!arch_spin_trylock(&l));
	arch_spin_unlock(&l);
	ck_assert(!arch_spin_is_locked(&l));
	ck_assert(arch_spin_trylock(&l));
	arch_spin_unlock(&l);
}
END_TEST

START_TEST(atomic_ops)
{
	atomic_t a = ATOMIC_INIT(5);

	ck_assert_int_eq(atomic_inc_return(&a), 6);
	ck_assert_int_eq(atomic_fetch_add(4, &a), 6);
	ck_assert_int_eq(atomic_read(&a), 10);
	ck_assert_int_eq(atomic_cmpxchg(&a, 3, 7), 10); /* not 3: unchanged */
	ck_assert_int_eq(atomic_read(&a), 10);
	ck_assert_int_eq(atomic_cmpxchg(&a, 10, 7), 10);
	ck_assert_int_eq(atomic_read(&a), 7);
	ck_assert_int_eq(atomic_xchg(&a, 1), 7);
	ck_assert(atomic_dec_and_test(&a));
	ck_assert(!atomic_dec_and_test(&a));
	ck_assert_int_eq(atomic_read(&a), -1);
}
END_TEST

START_TEST(refcount_refuses)
{
	refcount_t r = REFCOUNT_INIT(1);
	unsigned long warned = refcount_warnings;

	refcount_inc(&r);
	ck_assert_uint_eq(refcount_read(&r), 2);
	ck_assert(!refcount_dec_and_test(&r));
	ck_assert(refcount_dec_and_test(&r));   /* the last: the caller frees */
	ck_assert_uint_eq(refcount_warnings, warned);
	refcount_inc(&r);                       /* on 0: a use after free */
	ck_assert_uint_eq(refcount_warnings, warned + 1);
	/* saturated: never freed again, and every further use is reported
	 * (as Linux's) */
	ck_assert(!refcount_dec_and_test(&r));
	ck_assert(!refcount_dec_and_test(&r));
	ck_assert_uint_eq(refcount_warnings, warned + 3);
	ck_assert_int_eq(atomic_read(&r.refs), REFCOUNT_SATURATED);

	refcount_set(&r, 1);
	ck_assert(refcount_dec_and_test(&r));
	ck_assert_uint_eq(refcount_warnings, warned + 3);
	ck_assert(!refcount_dec_and_test(&r));  /* past 0 */
	ck_assert_uint_eq(refcount_warnings, warned + 4);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("atomic");
	TCase *threads = tcase_create("Threads"), *sem = tcase_create("Semantics");

	tcase_set_timeout(threads, 60);
	tcase_add_test(threads, ticket_lock_excludes);
	tcase_add_test(threads, atomic_inc_exact);
	tcase_add_test(threads, plain_increment_control);
	tcase_add_test(sem, trylock);
	tcase_add_test(sem, atomic_ops);
	tcase_add_test(sem, refcount_refuses);
	suite_add_tcase(s, threads);
	suite_add_tcase(s, sem);
	return s;
}
