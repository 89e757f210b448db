// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/sort.c and the benchmark's percentile
 * (block/blk-bench.c): random arrays of every small length and a large one
 * against the host C library's qsort as the oracle, records larger than a
 * word, and the nearest-rank 99th percentile on known data.
 */
#include <check.h>
#include <stdlib.h>
#include <spindle/sort.h>
#include <spindle/printk.h>
#include <spindle/blkdev.h>
#include <spindle/blk_bench.h>

static u64 rng = 88172645463325252ull;

static u64 next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

START_TEST(matches_qsort)
{
	static u32 a[5000], b[5000];
	size_t n = _i < 64 ? (size_t)_i : 5000;

	for (size_t i = 0; i < n; i++)
		a[i] = b[i] = (u32)(next() % (_i % 2 ? 10 : 1000000));   /* odd: many equal */
	sort(a, n, sizeof(a[0]), cmp_u32);
	qsort(b, n, sizeof(b[0]), cmp_u32);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(a[i], b[i]);
}
END_TEST

struct rec { u64 key; char name[12]; };

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

START_TEST(records_move_whole)
{
	struct rec r[100];

	for (int i = 0; i < 100; i++) {
		r[i].key = (u64)((i * 37) % 100);
		snprintf(r[i].name, sizeof(r[i].name), "k%llu", (unsigned long long)r[i].key);
	}
	sort(r, 100, sizeof(r[0]), cmp_rec);
	for (int i = 0; i < 100; i++) {
		char want[12];

		snprintf(want, sizeof(want), "k%d", i);
		ck_assert_uint_eq(r[i].key, (u64)i);
		ck_assert_str_eq(r[i].name, want);
	}
}
END_TEST

/* Nearest rank: the smallest value with at least 99% of samples <= it. */
START_TEST(p99_nearest_rank)
{
	u64 lat[200];

	for (int i = 0; i < 200; i++)
		lat[i] = (u64)(200 - i);                 /* 200 .. 1, unsorted */
	ck_assert_uint_eq(bench_percentile(lat, 200, 99), 198);
	ck_assert_uint_eq(bench_percentile(lat, 1, 99), lat[0]);
	lat[0] = 5;
	ck_assert_uint_eq(bench_percentile(lat, 1, 99), 5);
	ck_assert_uint_eq(bench_percentile(lat, 0, 99), 0);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("Sort");
	TCase *core = tcase_create("Core");

	tcase_add_loop_test(core, matches_qsort, 0, 65);
	tcase_add_test(core, records_move_whole);
	tcase_add_test(core, p99_nearest_rank);
	suite_add_tcase(s, core);
	return s;
}
