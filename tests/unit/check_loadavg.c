// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/loadavg.c.  The oracle is the definition of an
 * exponentially decaying average, computed in floating point by the host:
 * a constant count n held for one period takes an average from 0 to
 * n * (1 - 1/e), and from n down to n/e.  The fixed point may be off by
 * its own rounding: each sample's round-up while rising adds less than
 * 1/FIXED_1, so after k samples the error is below k/FIXED_1 (TOL), and
 * no more is allowed.  Then the
 * text of /proc/loadavg for known values, in Linux's layout.
 */
#include <check.h>
#include <math.h>
#include <spindle/loadavg.h>

#define SAMPLES_PER_MIN 12 /* one every 5 s */

/* what k samples' rounding may add up to, and a hair for the float */
#define TOL(k) ((double)(k) / FIXED_1 + 0.001)

static double as_double(unsigned long fixed)
{
	return (double)fixed / FIXED_1;
}

/* n held for `samples` samples, starting from the averages now */
static void hold(unsigned long n, int samples)
{
	while (samples--)
		calc_global_load(n);
}

static void reset(void)
{
	avenrun[0] = avenrun[1] = avenrun[2] = 0;
}

START_TEST(rises_63_percent_in_one_period)
{
	reset();
	hold(1, SAMPLES_PER_MIN);
	ck_assert_double_eq_tol(as_double(avenrun[0]), 1 - exp(-1.0), TOL(12));
	ck_assert_double_eq_tol(as_double(avenrun[1]), 1 - exp(-1.0 / 5), TOL(12));
	ck_assert_double_eq_tol(as_double(avenrun[2]), 1 - exp(-1.0 / 15), TOL(12));
	hold(1, 4 * SAMPLES_PER_MIN); /* 5 minutes in all */
	ck_assert_double_eq_tol(as_double(avenrun[1]), 1 - exp(-1.0), TOL(60));
	reset();
	hold(3, 15 * SAMPLES_PER_MIN); /* three tasks for 15 minutes */
	ck_assert_double_eq_tol(as_double(avenrun[2]), 3 * (1 - exp(-1.0)), TOL(180));
}
END_TEST

/* A constant count is reached exactly (the round-up while rising), and
 * an idle machine decays to 1/e per period, then to 0. */
START_TEST(settles_and_decays)
{
	reset();
	hold(2, 60 * SAMPLES_PER_MIN); /* an hour: even the 15-min average is there */
	ck_assert_uint_eq(avenrun[0], 2 * FIXED_1);
	ck_assert_uint_eq(avenrun[1], 2 * FIXED_1);
	ck_assert_uint_eq(avenrun[2], 2 * FIXED_1);
	hold(0, SAMPLES_PER_MIN);
	ck_assert_double_eq_tol(as_double(avenrun[0]), 2 * exp(-1.0), TOL(12));
	hold(0, 60 * SAMPLES_PER_MIN);
	ck_assert_uint_eq(avenrun[0], 0);
}
END_TEST

START_TEST(proc_loadavg_text)
{
	unsigned long loads[3] = { FIXED_1 * 3 / 2, FIXED_1 / 4, 0 };
	char buf[64];

	ck_assert_int_eq(loadavg_format(buf, sizeof(buf), loads, 2, 37, 412), 24);
	ck_assert_str_eq(buf, "1.50 0.25 0.00 2/37 412\n");
	/* two decimals rounded: 0.996 prints 1.00, not 0.99 */
	loads[0] = FIXED_1 * 996 / 1000;
	loadavg_format(buf, sizeof(buf), loads, 1, 1, 1);
	ck_assert_str_eq(buf, "1.00 0.25 0.00 1/1 1\n");
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("Loadavg");
	TCase *core = tcase_create("Core");

	tcase_add_test(core, rises_63_percent_in_one_period);
	tcase_add_test(core, settles_and_decays);
	tcase_add_test(core, proc_loadavg_text);
	suite_add_tcase(s, core);
	return s;
}
