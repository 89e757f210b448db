// SPDX-License-Identifier: MIT
/*
 * lib/fault-inject.c: which calls should_fail() fails for each setting of
 * interval, probability, space and times, and which command-line strings
 * arm a fault point (Linux's "<interval>,<probability>,<space>,<times>").
 */
#include <check.h>
#include <spindle/fault_inject.h>
#include <spindle/errno.h>

#define CALLS 20

/* Which of CALLS calls of size 1 fail: bit i for call i. */
static u32 failing_calls(struct fault_attr *attr)
{
	u32 mask = 0;

	for (unsigned int i = 0; i < CALLS; i++)
		if (should_fail(attr, 1))
			mask |= 1u << i;
	return mask;
}

struct decide_case {
	const char *what;
	unsigned long interval, probability, space;
	long times;
	u32 fails; /* bit i: call i fails */
};

static const struct decide_case decide_cases[] = {
	{ "disarmed: times 0", 1, 100, 0, 0, 0 },
	{ "every call", 1, 100, 0, -1, (1u << CALLS) - 1 },
	{ "the first call only", 1, 100, 0, 1, 0x1 },
	{ "the first three", 1, 100, 0, 3, 0x7 },
	{ "space 2: the third call", 1, 100, 2, 1, 0x4 },
	{ "every fifth, twice", 5, 100, 0, 2, (1u << 4) | (1u << 9) },
	{ "space 1, then every second", 2, 100, 1, -1, 0x55554 },
	{ "probability 0", 1, 0, 0, -1, 0 },
};

START_TEST(decides)
{
	const struct decide_case *c = &decide_cases[_i];
	struct fault_attr attr = FAULT_ATTR_INITIALIZER("test");
	u32 got;

	attr.interval = c->interval;
	attr.probability = c->probability;
	attr.space = c->space;
	attr.times = c->times;
	got = failing_calls(&attr);
	ck_assert_msg(got == c->fails, "%s: got 0x%x, want 0x%x", c->what, got, c->fails);
}
END_TEST

/* Probability 50: about half fail, and the same ones on every run. */
START_TEST(probability_half_repeatable)
{
	struct fault_attr a = FAULT_ATTR_INITIALIZER("a"), b = FAULT_ATTR_INITIALIZER("b");
	unsigned int failed = 0;

	a.probability = b.probability = 50;
	a.times = b.times = -1;
	for (unsigned int i = 0; i < 1000; i++) {
		bool fa = should_fail(&a, 1);

		ck_assert_int_eq(fa, should_fail(&b, 1));
		failed += fa;
	}
	ck_assert_uint_gt(failed, 400);
	ck_assert_uint_lt(failed, 600);
	ck_assert_uint_eq(a.injected, failed);
}
END_TEST

START_TEST(setup_accepts)
{
	struct fault_attr attr = FAULT_ATTR_INITIALIZER("test");

	ck_assert_int_eq(setup_fault_attr(&attr, "3,40,7,2"), 0);
	ck_assert_uint_eq(attr.interval, 3);
	ck_assert_uint_eq(attr.probability, 40);
	ck_assert_uint_eq(attr.space, 7);
	ck_assert_int_eq(attr.times, 2);
	ck_assert_int_eq(setup_fault_attr(&attr, "1,100,0,-1"), 0);
	ck_assert_int_eq(attr.times, -1);
	ck_assert(should_fail(&attr, 1));
}
END_TEST

static const char *const bad_strings[] = {
	"",
	"1",
	"1,100,0",
	"1,100,0,1,5",
	"0,100,0,1",
	"1,101,0,1",
	"a,100,0,1",
	"1,100,0,-2",
	"1,100,,1",
	"1,100,0,1x",
	"-1,100,0,1",
};

START_TEST(setup_refuses)
{
	struct fault_attr attr = FAULT_ATTR_INITIALIZER("test");

	ck_assert_int_eq(setup_fault_attr(&attr, bad_strings[_i]), -EINVAL);
	/* a bad string leaves the point as it was: disarmed */
	ck_assert_int_eq(attr.times, 0);
	ck_assert(!should_fail(&attr, 1));
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("FaultInject");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_loop_test(core, decides, 0, sizeof(decide_cases) / sizeof(decide_cases[0]));
	tcase_add_test(core, probability_half_repeatable);
	tcase_add_test(core, setup_accepts);
	tcase_add_loop_test(limits, setup_refuses, 0, sizeof(bad_strings) / sizeof(bad_strings[0]));
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return s;
}
