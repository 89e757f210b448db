// SPDX-License-Identifier: MIT
/*
 * check_io_uring_timeout - io_uring's TIMEOUT (fs/io_uring_timeout.c)
 * against a tick the test plays by hand.
 *
 * io_uring_timeout.c is compiled here with tests/unit/uring_timeout/model.h
 * forced in: mod_timer and del_timer are the test's, and so is
 * io_timeout_post, which records the CQEs.  The test moves the clock
 * (host_clock_ns) and fires a timer the way kernel/timer.c's run_timers()
 * does -- first off the pending list, then, later, its function -- so it
 * can put a cancel, or the CQE that reaches a timeout's count, in the gap
 * between the two: the race a QEMU run meets once in a blue moon, where
 * the rule is that the timer's function owns the timeout and posts
 * -ETIME, and nobody else posts anything for it.
 */
#include <check.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/spinlock.h>
#include <spindle/wait.h>
#include <spindle/errno.h>
#include <spindle/aio.h>            /* struct __kernel_timespec */
#include <spindle/mm.h>
#include "shim/host_kernel.h"
#include "uring_timeout/model.h"
#include "../../fs/io_uring_timeout.h"

#define MS              1000000ull
#define MAX_TIMERS      8
#define MAX_CQES        16

static wait_queue_head_t wq;
static struct io_timeouts tq;
static struct timer_list *armed[MAX_TIMERS];    /* every timer ever armed */
static unsigned int nr_armed;
static struct { u64 user_data; s32 res; } cqes[MAX_CQES];
static unsigned int nr_cqes;

void model_mod_timer(struct timer_list *t, u64 expires)
{
	unsigned int i;

	for (i = 0; i < nr_armed && armed[i] != t; i++)
		;
	if (i == nr_armed) {
		ck_assert_uint_lt(nr_armed, MAX_TIMERS);
		armed[nr_armed++] = t;
	}
	t->expires = expires;
	t->pending = true;
}

bool model_del_timer(struct timer_list *t)
{
	bool was = t->pending;

	t->pending = false;
	return was;
}

void model_io_timeout_post(struct io_timeouts *q, u64 user_data, s32 res)
{
	ck_assert_ptr_eq(q, &tq);
	assert_spin_locked(&wq.lock);
	ck_assert_uint_lt(nr_cqes, MAX_CQES);
	cqes[nr_cqes].user_data = user_data;
	cqes[nr_cqes].res = res;
	nr_cqes++;
}

static void setup(void)
{
	host_mm_init(256 * PAGE_SIZE);
	init_waitqueue_head(&wq);
	model_io_timeouts_init(&tq, &wq);
	nr_armed = nr_cqes = 0;
	host_clock_ns = 1000 * MS;
}

static void teardown(void)
{
	host_mm_exit();
}

/* Arm a TIMEOUT of ns (relative, or with flags) and count off CQEs; its
 * timer.  The SQE's time is "user memory": the test's own. */
static struct timer_list *arm(u64 user_data, u64 ns, u32 off, unsigned int flags)
{
	static struct __kernel_timespec ts;
	struct io_uring_sqe sqe;

	memset(&sqe, 0, sizeof(sqe));
	ts.tv_sec = (long long)(ns / 1000000000ull);
	ts.tv_nsec = (long long)(ns % 1000000000ull);
	sqe.opcode = IORING_OP_TIMEOUT;
	sqe.addr = (unsigned long)&ts;
	sqe.len = 1;
	sqe.off = off;
	sqe.timeout_flags = flags;
	sqe.user_data = user_data;
	ck_assert_int_eq(model_io_timeout_prep(&sqe), 0);
	ck_assert_int_eq(model_io_timeout(&tq, &sqe, NULL), -EIOCBQUEUED);
	return armed[nr_armed - 1];
}

/* The tick's two steps (run_timers): off the pending list ... */
static void detach(struct timer_list *t)
{
	ck_assert(t->pending);
	t->pending = false;
}

/* ... and, the lock dropped, its function. */
static void run(struct timer_list *t)
{
	t->function(t);
}

/* A CQE of some other request: counted, and the timeouts told. */
static void other_cqe(void)
{
	spin_lock_irq(&wq.lock);
	tq.cq_events++;
	model_io_flush_timeouts(&tq);
	spin_unlock_irq(&wq.lock);
}

static void want_cqe(unsigned int i, u64 user_data, s32 res)
{
	ck_assert_uint_gt(nr_cqes, i);
	ck_assert_uint_eq(cqes[i].user_data, user_data);
	ck_assert_int_eq(cqes[i].res, res);
}

/* --- Core --------------------------------------------------------------- */

START_TEST(fires_with_etime)
{
	struct timer_list *t = arm(7, 5 * MS, 0, 0);

	ck_assert(t->pending);
	host_clock_ns += 5 * MS;
	detach(t);
	run(t);
	ck_assert_uint_eq(nr_cqes, 1);
	want_cqe(0, 7, -ETIME);
	ck_assert(list_empty(&tq.list));
}
END_TEST

/* The tick ran ahead of the clock: the function waits out the rest. */
START_TEST(never_early)
{
	struct timer_list *t = arm(7, 5 * MS, 0, 0);

	host_clock_ns += 5 * MS - 1;
	detach(t);
	run(t);
	ck_assert_uint_eq(nr_cqes, 0);
	ck_assert(t->pending);
	host_clock_ns += 1;
	detach(t);
	run(t);
	want_cqe(0, 7, -ETIME);
}
END_TEST

START_TEST(count_reached)
{
	struct timer_list *t = arm(8, 10000 * MS, 2, 0);

	other_cqe();
	ck_assert_uint_eq(nr_cqes, 0);
	other_cqe();
	ck_assert_uint_eq(nr_cqes, 1);
	want_cqe(0, 8, 0);
	ck_assert(!t->pending);
	ck_assert(list_empty(&tq.list));
}
END_TEST

/* off counts the CQEs posted after the timeout, not before */
START_TEST(count_from_arming)
{
	other_cqe();
	other_cqe();
	arm(8, 10000 * MS, 1, 0);
	ck_assert_uint_eq(nr_cqes, 0);
	other_cqe();
	want_cqe(0, 8, 0);
}
END_TEST

START_TEST(cancel_and_remove)
{
	struct io_uring_sqe rm;
	struct timer_list *t = arm(9, 10000 * MS, 0, 0);

	ck_assert_int_eq(model_io_timeout_cancel(&tq, 9, false, false), 0);
	want_cqe(0, 9, -ECANCELED);
	ck_assert(!t->pending);
	ck_assert_int_eq(model_io_timeout_cancel(&tq, 9, false, false), -ENOENT);
	memset(&rm, 0, sizeof(rm));
	rm.opcode = IORING_OP_TIMEOUT_REMOVE;
	rm.addr = 9;
	ck_assert_int_eq(model_io_timeout_remove_prep(&rm), 0);
	ck_assert_int_eq(model_io_timeout_remove(&tq, &rm), -ENOENT);
	ck_assert_uint_eq(nr_cqes, 1);
}
END_TEST

/* IORING_TIMEOUT_UPDATE: a new time, and no count any more */
START_TEST(update_stops_counting)
{
	static struct __kernel_timespec ts = { .tv_nsec = 2 * MS };
	struct io_uring_sqe up;
	struct timer_list *t = arm(10, 10000 * MS, 1, 0);

	memset(&up, 0, sizeof(up));
	up.opcode = IORING_OP_TIMEOUT_REMOVE;
	up.addr = 10;
	up.addr2 = (unsigned long)&ts;
	up.timeout_flags = IORING_TIMEOUT_UPDATE;
	ck_assert_int_eq(model_io_timeout_remove_prep(&up), 0);
	ck_assert_int_eq(model_io_timeout_remove(&tq, &up), 0);
	other_cqe();
	ck_assert_uint_eq(nr_cqes, 0);
	ck_assert(t->pending);
	host_clock_ns += 2 * MS;
	detach(t);
	run(t);
	want_cqe(0, 10, -ETIME);
}
END_TEST

/* --- Races: the timer's function owns what it has begun ----------------- */

START_TEST(cancel_loses_to_the_timer)
{
	struct timer_list *t = arm(11, 5 * MS, 0, 0);

	host_clock_ns += 5 * MS;
	detach(t);                      /* the tick has it; its function not yet run */
	ck_assert_int_eq(model_io_timeout_cancel(&tq, 11, false, false), -EALREADY);
	ck_assert_uint_eq(nr_cqes, 0);
	run(t);
	ck_assert_uint_eq(nr_cqes, 1);
	want_cqe(0, 11, -ETIME);
}
END_TEST

START_TEST(count_loses_to_the_timer)
{
	struct timer_list *t = arm(12, 5 * MS, 1, 0);

	host_clock_ns += 5 * MS;
	detach(t);
	other_cqe();                    /* reaches the count: too late */
	ck_assert_uint_eq(nr_cqes, 0);
	run(t);
	ck_assert_uint_eq(nr_cqes, 1);
	want_cqe(0, 12, -ETIME);
	other_cqe();
	ck_assert_uint_eq(nr_cqes, 1);
}
END_TEST

/* ALL counts the one its timer has begun, as Linux, and leaves it be */
START_TEST(cancel_all_counts_the_firing)
{
	struct timer_list *t0 = arm(13, 5 * MS, 0, 0);

	arm(13, 10000 * MS, 0, 0);
	arm(14, 10000 * MS, 0, 0);
	arm(13, 10000 * MS, 0, 0);
	host_clock_ns += 5 * MS;
	detach(t0);
	ck_assert_int_eq(model_io_timeout_cancel(&tq, 13, false, true), 3);
	ck_assert_uint_eq(nr_cqes, 2);
	want_cqe(0, 13, -ECANCELED);
	want_cqe(1, 13, -ECANCELED);
	run(t0);
	want_cqe(2, 13, -ETIME);
	/* the release kills what is left: the one of 14 */
	model_io_kill_timeouts(&tq);
	want_cqe(3, 14, -ECANCELED);
	ck_assert(list_empty(&tq.list));
}
END_TEST

/* --- Limits ------------------------------------------------------------- */

START_TEST(prep_answers)
{
	static const struct {
		u8 opcode;
		u32 len, flags;
		u64 off;
		u16 buf_index;
		int want;
	} tab[] = {
		{ IORING_OP_TIMEOUT, 1, 0, 0, 0, 0 },
		{ IORING_OP_TIMEOUT, 0, 0, 0, 0, -EINVAL },
		{ IORING_OP_TIMEOUT, 2, 0, 0, 0, -EINVAL },
		{ IORING_OP_TIMEOUT, 1, 0, 0, 1, -EINVAL },
		{ IORING_OP_TIMEOUT, 1, IORING_TIMEOUT_ABS | IORING_TIMEOUT_REALTIME, 0, 0, 0 },
		{ IORING_OP_TIMEOUT, 1, IORING_TIMEOUT_CLOCK_MASK, 0, 0, -EINVAL },
		{ IORING_OP_TIMEOUT, 1, IORING_TIMEOUT_UPDATE, 0, 0, -EINVAL },
		{ IORING_OP_TIMEOUT, 1, 1u << 6, 0, 0, -EINVAL },
		{ IORING_OP_TIMEOUT_REMOVE, 0, 0, 0, 0, 0 },
		{ IORING_OP_TIMEOUT_REMOVE, 1, 0, 0, 0, -EINVAL },
		{ IORING_OP_TIMEOUT_REMOVE, 0, IORING_TIMEOUT_ABS, 0, 0, -EINVAL },
		{ IORING_OP_TIMEOUT_REMOVE, 0, IORING_TIMEOUT_UPDATE | IORING_TIMEOUT_ABS, 0, 0, 0 },
		{ IORING_OP_TIMEOUT_REMOVE, 0, IORING_TIMEOUT_UPDATE | (1u << 6), 0, 0, -EINVAL },
	};

	for (unsigned int i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		struct io_uring_sqe sqe;
		int got;

		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = tab[i].opcode;
		sqe.len = tab[i].len;
		sqe.timeout_flags = tab[i].flags;
		sqe.off = tab[i].off;
		sqe.buf_index = tab[i].buf_index;
		got = sqe.opcode == IORING_OP_TIMEOUT ? model_io_timeout_prep(&sqe) :
						       model_io_timeout_remove_prep(&sqe);
		ck_assert_msg(got == tab[i].want, "row %u: %d, want %d", i, got, tab[i].want);
	}
}
END_TEST

START_TEST(bad_times)
{
	static struct __kernel_timespec neg = { .tv_sec = -1 };
	struct io_uring_sqe sqe;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_TIMEOUT;
	sqe.len = 1;
	sqe.addr = (unsigned long)&neg;
	ck_assert_int_eq(model_io_timeout(&tq, &sqe, NULL), -EINVAL);
	sqe.addr = 0;
	ck_assert_int_eq(model_io_timeout(&tq, &sqe, NULL), -EFAULT);
	ck_assert_uint_eq(nr_armed, 0);
	ck_assert(list_empty(&tq.list));
}
END_TEST

/* A time of a century and more does not wrap around into "now". */
START_TEST(huge_time_is_far)
{
	struct timer_list *t = arm(15, ~0ull >> 2, 0, 0);

	/* 2^62 ns: 146 years */
	ck_assert_msg(t->expires > jiffies + 100ull * HZ * 86400 * 365, "expires %llu",
		      (unsigned long long)t->expires);
	host_clock_ns += 1000 * MS;
	ck_assert(t->pending);
	model_io_kill_timeouts(&tq);
	want_cqe(0, 15, -ECANCELED);
}
END_TEST

/* An absolute time already past fires at the next tick. */
START_TEST(abs_in_the_past)
{
	struct timer_list *t = arm(16, 1 * MS, 0, IORING_TIMEOUT_ABS);

	ck_assert(t->expires <= jiffies + 1);
	detach(t);
	run(t);
	want_cqe(0, 16, -ETIME);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("io_uring_timeout");
	TCase *core = tcase_create("Core");
	TCase *races = tcase_create("Races");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, fires_with_etime);
	tcase_add_test(core, never_early);
	tcase_add_test(core, count_reached);
	tcase_add_test(core, count_from_arming);
	tcase_add_test(core, cancel_and_remove);
	tcase_add_test(core, update_stops_counting);
	suite_add_tcase(s, core);
	tcase_add_checked_fixture(races, setup, teardown);
	tcase_add_test(races, cancel_loses_to_the_timer);
	tcase_add_test(races, count_loses_to_the_timer);
	tcase_add_test(races, cancel_all_counts_the_firing);
	suite_add_tcase(s, races);
	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(limits, prep_answers);
	tcase_add_test(limits, bad_times);
	tcase_add_test(limits, huge_time_is_far);
	tcase_add_test(limits, abs_in_the_past);
	suite_add_tcase(s, limits);
	return s;
}
