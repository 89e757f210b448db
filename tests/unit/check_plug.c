// SPDX-License-Identifier: MIT
/*
 * Per-task plugging (block/blk-plug.c, Linux commit 73c101011926) on the host: callbacks
 * collect on the task's plug and run once when it is flushed, nested
 * plugs defer to the outermost, plug=off turns it all off.  That
 * schedule() flushes a sleeping task's plug is tested in the kernel
 * (tests/kernel/plug_test.c), where schedule() is real.
 */
#include <check.h>
#include <signal.h>
#include <spindle/blk_plug.h>
#include <spindle/sched.h>
#include <spindle/mm.h>
#include "shim/host_kernel.h"

struct counting_cb {
	struct blk_plug_cb cb;
	int batched;                    /* work the driver parked on the plug */
};

static int runs, last_batch;
static bool last_from_schedule;

static void count_cb(struct blk_plug_cb *cb, bool from_schedule)
{
	struct counting_cb *c = container_of(cb, struct counting_cb, cb);

	runs++;
	last_batch = c->batched;
	last_from_schedule = from_schedule;
	kfree(c);
}

/* What a raid1-like driver does per write: park it on the plug. */
static bool park_work(void *driver)
{
	struct blk_plug_cb *cb = blk_check_plugged(count_cb, driver, sizeof(struct counting_cb));

	if (!cb)
		return false;           /* no plug: do the work now */
	container_of(cb, struct counting_cb, cb)->batched++;
	return true;
}

static void setup(void)
{
	host_printk_quiet = true;
	host_mm_init(512 * PAGE_SIZE);
	runs = last_batch = 0;
	plug_enabled = true;
	current->plug = NULL;
}

static void teardown(void)
{
	current->plug = NULL;
	host_mm_exit();
}

START_TEST(batch_runs_once_at_finish)
{
	struct blk_plug plug;
	int driver;

	blk_start_plug(&plug);
	ck_assert_ptr_eq(current->plug, &plug);
	for (int i = 0; i < 5; i++)
		ck_assert(park_work(&driver));
	ck_assert_int_eq(runs, 0);
	ck_assert(blk_needs_flush_plug(current));
	blk_finish_plug(&plug);
	ck_assert_int_eq(runs, 1);
	ck_assert_int_eq(last_batch, 5);
	ck_assert(!last_from_schedule);
	ck_assert_ptr_null(current->plug);
	ck_assert_uint_eq(nr_free_pages(), 511);        /* the callback was freed */
}
END_TEST

/*
 * The caller's plug is stack garbage until blk_start_plug(): every field
 * is written, the outer plug's and a nested one's alike, and the magic
 * that every user of a plug checks (blk_check_plugged(), the request
 * layer) is there.
 */
START_TEST(start_initialises_every_field)
{
	struct blk_plug outer, inner;
	int driver;

	memset(&outer, 0x5a, sizeof(outer));
	memset(&inner, 0xa5, sizeof(inner));
	blk_start_plug(&outer);
	blk_start_plug(&inner);
	ck_assert_ptr_eq(current->plug, &outer);
	for (struct blk_plug *p = &outer; p; p = p == &outer ? &inner : NULL) {
		ck_assert_uint_eq(p->magic, PLUG_MAGIC);
		ck_assert(list_empty(&p->mq_list));
		ck_assert(list_empty(&p->cb_list));
		ck_assert_uint_eq(p->rq_count, 0);
	}
	ck_assert(park_work(&driver));
	blk_finish_plug(&inner);
	blk_finish_plug(&outer);
	ck_assert_int_eq(runs, 1);
}
END_TEST

/* A plug whose magic is wrong (never started, or its frame reused) is a
 * broken invariant wherever it is used: the kernel stops there. */
START_TEST(unstarted_plug_is_caught)
{
	struct blk_plug plug;
	int driver;

	memset(&plug, 0, sizeof(plug));
	INIT_LIST_HEAD(&plug.mq_list);
	INIT_LIST_HEAD(&plug.cb_list);
	current->plug = &plug;                  /* attached, never started */
	park_work(&driver);                     /* BUG_ON: SIGABRT */
}
END_TEST

START_TEST(one_callback_per_driver)
{
	struct blk_plug plug;
	int a, b;

	blk_start_plug(&plug);
	park_work(&a);
	park_work(&b);
	park_work(&a);
	blk_finish_plug(&plug);
	ck_assert_int_eq(runs, 2);
}
END_TEST

START_TEST(nested_plug_defers_to_outer)
{
	struct blk_plug outer, inner;
	int driver;

	blk_start_plug(&outer);
	blk_start_plug(&inner);
	ck_assert_ptr_eq(current->plug, &outer);
	park_work(&driver);
	blk_finish_plug(&inner);                /* does nothing */
	ck_assert_int_eq(runs, 0);
	ck_assert_ptr_eq(current->plug, &outer);
	blk_finish_plug(&outer);
	ck_assert_int_eq(runs, 1);
}
END_TEST

START_TEST(flush_keeps_plug_attached)
{
	struct blk_plug plug;
	int driver;

	blk_start_plug(&plug);
	park_work(&driver);
	blk_flush_plug(current, true);          /* as schedule() does */
	ck_assert_int_eq(runs, 1);
	ck_assert(last_from_schedule);
	ck_assert_ptr_eq(current->plug, &plug);
	ck_assert(!blk_needs_flush_plug(current));
	park_work(&driver);                     /* a new batch starts */
	blk_finish_plug(&plug);
	ck_assert_int_eq(runs, 2);
	ck_assert_int_eq(last_batch, 1);
}
END_TEST

START_TEST(plug_off_sends_at_once)
{
	struct blk_plug plug;
	int driver;

	plug_enabled = false;
	blk_start_plug(&plug);
	ck_assert_ptr_null(current->plug);
	ck_assert(!park_work(&driver));          /* the driver must not wait */
	blk_finish_plug(&plug);
	ck_assert_int_eq(runs, 0);
}
END_TEST

START_TEST(no_plug_no_callback)
{
	int driver;

	ck_assert(!park_work(&driver));
	ck_assert(!blk_needs_flush_plug(current));
	blk_flush_plug(current, true);           /* harmless */
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("Plug");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, batch_runs_once_at_finish);
	tcase_add_test(core, start_initialises_every_field);
	tcase_add_test(core, one_callback_per_driver);
	tcase_add_test(core, nested_plug_defers_to_outer);
	tcase_add_test(core, flush_keeps_plug_attached);
	suite_add_tcase(s, core);

	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(limits, plug_off_sends_at_once);
	tcase_add_test(limits, no_plug_no_callback);
	tcase_add_test_raise_signal(limits, unstarted_plug_is_caught, SIGABRT);
	suite_add_tcase(s, limits);
	return s;
}
