// SPDX-License-Identifier: MIT
/*
 * futex - futex(2)'s two-word operations: FUTEX_REQUEUE,
 * FUTEX_CMP_REQUEUE and FUTEX_WAKE_OP, with their errors.
 *
 * Built against the host's glibc (gcc -static -pthread, user/user.mk),
 * as tests/user/threads.c; the same binary passes on the host's Linux
 * (tests/user/run.sh), the oracle for every count and errno checked
 * here.  Waiters are pthreads asleep in FUTEX_WAIT; a case starts
 * acting only once /proc/self/task/<tid>/stat says each one sleeps, so
 * the counts a call returns are exact, never a matter of timing.
 *
 *   futex    run the cases below
 *
 * Prints "TEST futex.<case> PASS" or "... FAIL: <why>", then
 * "<N> passed, <M> failed"; exits 0 only if nothing failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TEST_SUITE "futex"
#include "testline.h"

#define NWAIT   4               /* waiters of the requeue cases */
#define NSTRESS 4               /* waiters of the two-CPU case */
#define ROUNDS  20000           /* requeues each of its two CPUs makes */


/* a call's result: n, or -1 with errno e */
#define EXPECT(name, call, n, e)                                                \
	do {                                                                    \
		long r_ = (call);                                               \
		int e_ = r_ < 0 ? errno : 0;                                    \
		if (r_ != (n) || e_ != (e))                                     \
			FAIL(name, "line %d: %s gave %ld errno %d, not %ld errno %d", \
			     __LINE__, #call, r_, e_, (long)(n), (int)(e));     \
	} while (0)

/* futex(2); val2 goes where the timeout does, as the requeues want it */
static long futex(uint32_t *uaddr, int op, uint32_t val, long val2, uint32_t *uaddr2,
		  uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, (void *)val2, uaddr2, val3);
}

static long wake(uint32_t *uaddr, int n)
{
	return futex(uaddr, FUTEX_WAKE_PRIVATE, (uint32_t)n, 0, NULL, 0);
}

/* The state letter of thread tid of this process, from /proc ('?' if
 * it is gone). */
static char thread_state(pid_t tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* --- waiters ----------------------------------------------------------- */

struct waiter {
	pthread_t thread;
	uint32_t *word;                 /* waits while *word == val */
	uint32_t val;
	atomic_int tid;
	long ret;                       /* FUTEX_WAIT's: 0 woken, or -errno */
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	long r;

	atomic_store(&w->tid, (int)gettid());
	/* nothing else from here: a sleep seen in /proc is this one */
	r = futex(w->word, FUTEX_WAIT_PRIVATE, w->val, 0, NULL, 0);
	w->ret = r ? -errno : 0;
	return NULL;
}

/* n waiters on word (holding val), each asleep in FUTEX_WAIT on return */
static void start_waiters(struct waiter *w, int n, uint32_t *word, uint32_t val)
{
	for (int i = 0; i < n; i++) {
		w[i].word = word;
		w[i].val = val;
		atomic_store(&w[i].tid, 0);
		pthread_create(&w[i].thread, NULL, waiter_main, &w[i]);
	}
	for (int i = 0; i < n; i++) {
		while (!atomic_load(&w[i].tid))
			sched_yield();
		while (thread_state(atomic_load(&w[i].tid)) != 'S')
			sched_yield();
	}
}

/* Join them all; how many FUTEX_WAITs returned something but 0. */
static int join_waiters(struct waiter *w, int n)
{
	int bad = 0;

	for (int i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		bad += w[i].ret != 0;
	}
	return bad;
}

static uint32_t word_a, word_b;

/*
 * FUTEX_REQUEUE: of four waiters on a, wake one and move two to b; the
 * fourth stays.  Then a FUTEX_WAKE of each word finds exactly those.
 */
static void test_requeue(void)
{
	struct waiter w[NWAIT];
	long ra, rb;

	word_a = word_b = 0;
	start_waiters(w, NWAIT, &word_a, 0);
	/* counts of 0: nobody woken or moved */
	EXPECT("requeue", futex(&word_a, FUTEX_REQUEUE_PRIVATE, 0, 0, &word_b, 0), 0, 0);
	EXPECT("requeue", futex(&word_a, FUTEX_REQUEUE_PRIVATE, 1, 2, &word_b, 0), 3, 0);
	ra = wake(&word_a, INT_MAX);
	rb = wake(&word_b, INT_MAX);
	if (join_waiters(w, NWAIT))
		FAIL("requeue", "a waiter's FUTEX_WAIT did not return 0");
	if (ra != 1 || rb != 2)
		FAIL("requeue", "left on a %ld (want 1), moved to b %ld (want 2)", ra, rb);
	pass("requeue");
}

/*
 * FUTEX_CMP_REQUEUE: a value that differs is EAGAIN and moves nobody;
 * the right one wakes one and moves the other three.  Moving to the
 * word itself (a to a) moves nobody anywhere but counts them.
 */
static void test_cmp_requeue(void)
{
	struct waiter w[NWAIT];
	long ra, rb;

	word_a = 7;
	word_b = 0;
	start_waiters(w, NWAIT, &word_a, 7);
	EXPECT("cmp_requeue", futex(&word_a, FUTEX_CMP_REQUEUE_PRIVATE, 1, INT_MAX, &word_b, 8),
	       -1, EAGAIN);
	EXPECT("cmp_requeue", futex(&word_a, FUTEX_CMP_REQUEUE_PRIVATE, 0, INT_MAX, &word_a, 7),
	       NWAIT, 0);
	EXPECT("cmp_requeue", futex(&word_a, FUTEX_CMP_REQUEUE_PRIVATE, 1, INT_MAX, &word_b, 7),
	       NWAIT, 0);
	ra = wake(&word_a, INT_MAX);
	rb = wake(&word_b, INT_MAX);
	if (join_waiters(w, NWAIT))
		FAIL("cmp_requeue", "a waiter's FUTEX_WAIT did not return 0");
	if (ra != 0 || rb != NWAIT - 1)
		FAIL("cmp_requeue", "left on a %ld (want 0), moved to b %ld (want %d)", ra, rb,
		     NWAIT - 1);
	pass("cmp_requeue");
}

/*
 * FUTEX_WAKE_OP: *b changes by the encoded op whatever happens; a's
 * waiters are woken (up to val), and b's (up to val2) only if b's old
 * value passed the encoded comparison.
 */
static void test_wake_op(void)
{
	struct waiter wa[2], wb[2];
	long ra, rb;

	word_a = 0;
	word_b = 5;
	start_waiters(wa, 2, &word_a, 0);
	start_waiters(wb, 2, &word_b, 5);
	/* b += 3 (8); old 5 == 5: one of each woken */
	EXPECT("wake_op", futex(&word_a, FUTEX_WAKE_OP_PRIVATE, 1, 1, &word_b,
				FUTEX_OP(FUTEX_OP_ADD, 3, FUTEX_OP_CMP_EQ, 5)), 2, 0);
	if (word_b != 8)
		FAIL("wake_op", "b is %u after ADD 3 to 5", word_b);
	/* b = 7; old 8 < -1 is false (signed): only a's woken */
	EXPECT("wake_op", futex(&word_a, FUTEX_WAKE_OP_PRIVATE, 1, 1, &word_b,
				FUTEX_OP(FUTEX_OP_SET, 7, FUTEX_OP_CMP_LT, -1)), 1, 0);
	if (word_b != 7)
		FAIL("wake_op", "b is %u after SET 7", word_b);
	ra = wake(&word_a, INT_MAX);
	rb = wake(&word_b, INT_MAX);
	if (join_waiters(wa, 2) || join_waiters(wb, 2))
		FAIL("wake_op", "a waiter's FUTEX_WAIT did not return 0");
	if (ra != 0 || rb != 1)
		FAIL("wake_op", "left on a %ld (want 0), on b %ld (want 1)", ra, rb);
	pass("wake_op");
}

/* The op encoding: each op and its operand, shifted or not, signed */
static void test_wake_op_ops(void)
{
	static const struct { uint32_t before; int op, oparg; uint32_t after; } ops[] = {
		{ 5, FUTEX_OP_SET, 9, 9 },
		{ 5, FUTEX_OP_SET, -1, 0xffffffffu },   /* 12 bits, sign-extended */
		{ 5, FUTEX_OP_ADD, 2047, 2052 },
		{ 5, FUTEX_OP_ADD, -2048, (uint32_t)-2043 },
		{ 0x10, FUTEX_OP_OR, 0x101, 0x111 },
		{ 0xff, FUTEX_OP_ANDN, 0x0f, 0xf0 },
		{ 0xff, FUTEX_OP_XOR, 0x101, 0x1fe },
		{ 0, FUTEX_OP_SET | FUTEX_OP_OPARG_SHIFT, 31, 0x80000000u },
		{ 1, FUTEX_OP_ADD | FUTEX_OP_OPARG_SHIFT, 4, 17 },
		{ 0xffffffffu, FUTEX_OP_ANDN | FUTEX_OP_OPARG_SHIFT, 0, 0xfffffffeu },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		word_b = ops[i].before;
		/* nobody waits: 0 woken, whatever the comparison */
		EXPECT("wake_op_ops", futex(&word_a, FUTEX_WAKE_OP_PRIVATE, 1, 1, &word_b,
					    FUTEX_OP(ops[i].op, ops[i].oparg, FUTEX_OP_CMP_EQ, 0)), 0, 0);
		if (word_b != ops[i].after)
			FAIL("wake_op_ops", "op %#x oparg %d on %#x gave %#x, not %#x", ops[i].op,
			     ops[i].oparg, ops[i].before, word_b, ops[i].after);
	}
	pass("wake_op_ops");
}

/* The comparisons, signed, on b's old value: a waiter on b woken or not */
static void test_wake_op_cmp(void)
{
	static const struct { int cmp; int32_t old, cmparg; int holds; } cmps[] = {
		{ FUTEX_OP_CMP_EQ, 5, 5, 1 }, { FUTEX_OP_CMP_EQ, 5, 4, 0 },
		{ FUTEX_OP_CMP_NE, 5, 4, 1 }, { FUTEX_OP_CMP_NE, 5, 5, 0 },
		{ FUTEX_OP_CMP_LT, -3, -2, 1 }, { FUTEX_OP_CMP_LT, 5, 5, 0 },
		{ FUTEX_OP_CMP_LE, 5, 5, 1 }, { FUTEX_OP_CMP_LE, 6, 5, 0 },
		{ FUTEX_OP_CMP_GT, 6, 5, 1 }, { FUTEX_OP_CMP_GT, -1, 0, 0 },
		{ FUTEX_OP_CMP_GE, 5, 5, 1 }, { FUTEX_OP_CMP_GE, 4, 5, 0 },
	};

	for (size_t i = 0; i < sizeof(cmps) / sizeof(cmps[0]); i++) {
		struct waiter w;

		word_b = (uint32_t)cmps[i].old;
		start_waiters(&w, 1, &word_b, word_b);
		/* b += 0: the old value stays for the next case's check */
		EXPECT("wake_op_cmp", futex(&word_a, FUTEX_WAKE_OP_PRIVATE, 1, 1, &word_b,
					    FUTEX_OP(FUTEX_OP_ADD, 0, cmps[i].cmp, cmps[i].cmparg)),
		       cmps[i].holds, 0);
		if (!cmps[i].holds)
			EXPECT("wake_op_cmp", wake(&word_b, 1), 1, 0);
		if (join_waiters(&w, 1))
			FAIL("wake_op_cmp", "the waiter's FUTEX_WAIT did not return 0");
	}
	pass("wake_op_cmp");
}

/* Linux's errnos for bad counts, addresses and encodings */
static void test_errors(void)
{
	uint32_t *gone, *ro, *kernel = (uint32_t *)0xffff800000000000ul;
	uint32_t *odd = (uint32_t *)((char *)&word_a + 1);
	long page = sysconf(_SC_PAGESIZE);

	gone = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (gone == MAP_FAILED || ro == MAP_FAILED || munmap(gone, (size_t)page))
		FAIL("errors", "mmap/munmap: errno %d", errno);
	word_a = word_b = 0;
	/* negative counts */
	EXPECT("errors", futex(&word_a, FUTEX_REQUEUE_PRIVATE, (uint32_t)-1, 1, &word_b, 0), -1, EINVAL);
	EXPECT("errors", futex(&word_a, FUTEX_REQUEUE_PRIVATE, 1, -1, &word_b, 0), -1, EINVAL);
	EXPECT("errors", futex(&word_a, FUTEX_CMP_REQUEUE_PRIVATE, 1, INT_MIN, &word_b, 0), -1, EINVAL);
	/* unaligned words, either one */
	EXPECT("errors", futex(odd, FUTEX_REQUEUE_PRIVATE, 1, 1, &word_b, 0), -1, EINVAL);
	EXPECT("errors", futex(&word_a, FUTEX_CMP_REQUEUE_PRIVATE, 1, 1, odd, 0), -1, EINVAL);
	EXPECT("errors", futex(&word_b, FUTEX_WAKE_OP_PRIVATE, 1, 1, odd, 0), -1, EINVAL);
	EXPECT("errors", futex(odd, FUTEX_WAKE_OP_PRIVATE, 1, 1, &word_b, 0), -1, EINVAL);
	/* no memory: CMP_REQUEUE reads uaddr, WAKE_OP writes uaddr2, a
	 * shared key is looked up in the mapping, a kernel address is never
	 * a user one; a private REQUEUE touches neither word */
	EXPECT("errors", futex(gone, FUTEX_CMP_REQUEUE_PRIVATE, 1, 1, &word_b, 0), -1, EFAULT);
	EXPECT("errors", futex(&word_a, FUTEX_WAKE_OP_PRIVATE, 1, 1, gone, 0), -1, EFAULT);
	EXPECT("errors", futex(&word_a, FUTEX_WAKE_OP_PRIVATE, 1, 1, ro, 0), -1, EFAULT);
	EXPECT("errors", futex(&word_a, FUTEX_REQUEUE, 1, 1, gone, 0), -1, EFAULT);
	EXPECT("errors", futex(&word_a, FUTEX_REQUEUE_PRIVATE, 1, 1, kernel, 0), -1, EFAULT);
	EXPECT("errors", futex(&word_a, FUTEX_REQUEUE_PRIVATE, 1, 1, gone, 0), 0, 0);
	/* an op that does not exist: nothing changed */
	word_b = 3;
	EXPECT("errors", futex(&word_a, FUTEX_WAKE_OP_PRIVATE, 1, 1, &word_b,
			       FUTEX_OP(5, 1, FUTEX_OP_CMP_EQ, 0)), -1, ENOSYS);
	if (word_b != 3)
		FAIL("errors", "a bad op changed the word to %u", word_b);
	/* a comparison that does not exist: Linux does the op first */
	EXPECT("errors", futex(&word_a, FUTEX_WAKE_OP_PRIVATE, 1, 1, &word_b,
			       FUTEX_OP(FUTEX_OP_ADD, 1, 6, 0)), -1, ENOSYS);
	if (word_b != 4)
		FAIL("errors", "after a bad comparison the word is %u, not 4", word_b);
	/* only waits take FUTEX_CLOCK_REALTIME */
	EXPECT("errors", futex(&word_a, FUTEX_REQUEUE_PRIVATE | FUTEX_CLOCK_REALTIME, 1, 1, &word_b, 0),
	       -1, ENOSYS);
	munmap(ro, (size_t)page);
	pass("errors");
}

/* --- two CPUs requeueing between the same two words, both ways --------- */

static atomic_int stress_stop, stress_exited, stress_ready[2];
static atomic_long stress_err;

static void *stress_waiter(void *arg)
{
	(void)arg;
	while (!atomic_load(&stress_stop)) {
		/* word_a and word_b stay 0: only a wake or a move ends it */
		if (futex(&word_a, FUTEX_WAIT_PRIVATE, 0, 0, NULL, 0) && errno != EAGAIN)
			atomic_store(&stress_err, errno);
	}
	atomic_fetch_add(&stress_exited, 1);
	return NULL;
}

static void *stress_requeuer(void *arg)
{
	int i = (int)(intptr_t)arg;
	uint32_t *from = i ? &word_b : &word_a, *to = i ? &word_a : &word_b;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(i, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		atomic_store(&stress_err, 1000 + errno);
	/* both start once both run, each on its own CPU (neither yields) */
	atomic_store(&stress_ready[i], 1);
	while (!atomic_load(&stress_ready[!i]))
		;
	for (int r = 0; r < ROUNDS; r++) {
		long n = futex(from, r & 1 ? FUTEX_CMP_REQUEUE_PRIVATE : FUTEX_REQUEUE_PRIVATE,
			       1, INT_MAX, to, 0);

		if (n < 0)
			atomic_store(&stress_err, errno);
	}
	return NULL;
}

/*
 * Two threads pinned to CPUs 0 and 1 requeue a -> b and b -> a at the
 * same time while waiters come and go: each call takes both buckets'
 * locks, in one order whatever the direction, so neither waits for the
 * other forever; afterwards every waiter is still found by a wake.
 */
static void test_two_cpus(void)
{
	pthread_t waiters[NSTRESS], req[2];

	word_a = word_b = 0;
	atomic_store(&stress_stop, 0);
	atomic_store(&stress_exited, 0);
	for (int i = 0; i < NSTRESS; i++)
		pthread_create(&waiters[i], NULL, stress_waiter, NULL);
	for (int i = 0; i < 2; i++)
		pthread_create(&req[i], NULL, stress_requeuer, (void *)(intptr_t)i);
	for (int i = 0; i < 2; i++)
		pthread_join(req[i], NULL);
	atomic_store(&stress_stop, 1);
	/* a waiter may be on either word, or about to sleep on a again */
	while (atomic_load(&stress_exited) < NSTRESS) {
		wake(&word_a, INT_MAX);
		wake(&word_b, INT_MAX);
		sched_yield();
	}
	for (int i = 0; i < NSTRESS; i++)
		pthread_join(waiters[i], NULL);
	if (atomic_load(&stress_err))
		FAIL("two_cpus", "a call failed: errno %ld", atomic_load(&stress_err));
	pass("two_cpus");
}

int main(void)
{
	test_requeue();
	test_cmp_requeue();
	test_wake_op();
	test_wake_op_ops();
	test_wake_op_cmp();
	test_errors();
	test_two_cpus();
	return test_summary();
}
