// SPDX-License-Identifier: MIT
/*
 * The buddy allocator (kernel/mm/page_alloc.c) on fake RAM: alignment,
 * splitting and merging, exhaustion, and the checks that catch misuse.
 */
#include <check.h>
#include <signal.h>
#include <spindle/mm.h>
#include "shim/host_kernel.h"

#define ARENA_PAGES 4096                /* 16 MiB of fake RAM */

static void setup(void)
{
	host_printk_quiet = true;
	host_mm_init(ARENA_PAGES * PAGE_SIZE);
}

static void teardown(void)
{
	host_mm_exit();
}

START_TEST(all_but_pfn0_free)
{
	ck_assert_uint_eq(nr_free_pages(), ARENA_PAGES - 1);
	ck_assert_uint_eq(totalram_pages(), ARENA_PAGES - 1);
	ck_assert(mem_map[0].flags & PG_reserved);
}
END_TEST

/* Table: every order is aligned to its own size. */
START_TEST(order_alignment)
{
	unsigned int order = _i;
	struct page *p = alloc_pages(GFP_KERNEL, order);

	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(page_to_pfn(p) % (1u << order), 0);
	ck_assert_uint_eq(nr_free_pages(), ARENA_PAGES - 1 - (1u << order));
	__free_pages(p, order);
	ck_assert_uint_eq(nr_free_pages(), ARENA_PAGES - 1);
}
END_TEST

START_TEST(split_then_merge)
{
	/* pfn 1 is a lone order-0 block (pfn 0 is reserved): it goes first. */
	struct page *lone = alloc_pages(GFP_KERNEL, 0);
	struct page *a = alloc_pages(GFP_KERNEL, 0);
	struct page *b = alloc_pages(GFP_KERNEL, 0);
	struct page *big;

	ck_assert_uint_eq(page_to_pfn(lone), 1);
	/* The next two come from one split block: they are buddies. */
	ck_assert_uint_eq(page_to_pfn(a) ^ 1, page_to_pfn(b));
	__free_pages(a, 0);
	__free_pages(b, 0);
	__free_pages(lone, 0);
	/* After merging, the largest block can be had again, repeatedly. */
	for (int i = 0; i < 3; i++) {
		big = alloc_pages(GFP_KERNEL, MAX_ORDER - 1);
		ck_assert_ptr_nonnull(big);
		__free_pages(big, MAX_ORDER - 1);
	}
	ck_assert_uint_eq(nr_free_pages(), ARENA_PAGES - 1);
}
END_TEST

START_TEST(zeroed)
{
	struct page *p = alloc_pages(GFP_KERNEL, 2);
	unsigned char *v = page_address(p);

	memset(v, 0xaa, 4 * PAGE_SIZE);
	__free_pages(p, 2);
	p = alloc_pages(__GFP_ZERO, 2);
	v = page_address(p);
	for (size_t i = 0; i < 4 * PAGE_SIZE; i++)
		ck_assert_uint_eq(v[i], 0);
	__free_pages(p, 2);
}
END_TEST

START_TEST(exhaustion)
{
	static struct page *got[ARENA_PAGES];
	unsigned long n = 0;

	while ((got[n] = alloc_page(GFP_KERNEL)) != NULL)
		n++;
	ck_assert_uint_eq(n, ARENA_PAGES - 1);
	ck_assert_ptr_null(alloc_pages(GFP_KERNEL, 3));
	ck_assert_uint_eq(get_order(1), 0);
	while (n)
		__free_page(got[--n]);
	ck_assert_uint_eq(nr_free_pages(), ARENA_PAGES - 1);
	ck_assert_ptr_nonnull(alloc_pages(GFP_KERNEL, MAX_ORDER - 1));
}
END_TEST

START_TEST(too_big_order)
{
	ck_assert_ptr_null(alloc_pages(GFP_KERNEL, MAX_ORDER));
}
END_TEST

START_TEST(get_order_table)
{
	ck_assert_uint_eq(get_order(1), 0);
	ck_assert_uint_eq(get_order(PAGE_SIZE), 0);
	ck_assert_uint_eq(get_order(PAGE_SIZE + 1), 1);
	ck_assert_uint_eq(get_order(8 * PAGE_SIZE), 3);
	ck_assert_uint_eq(get_order(8 * PAGE_SIZE + 1), 4);
}
END_TEST

START_TEST(double_free_panics)
{
	struct page *p = alloc_page(GFP_KERNEL);

	__free_page(p);
	__free_page(p);                 /* must abort, not corrupt the lists */
}
END_TEST

START_TEST(wrong_order_panics)
{
	struct page *p = alloc_pages(GFP_KERNEL, 2);

	__free_pages(p, 1);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("PageAlloc");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, all_but_pfn0_free);
	tcase_add_loop_test(core, order_alignment, 0, MAX_ORDER);
	tcase_add_test(core, split_then_merge);
	tcase_add_test(core, zeroed);
	tcase_add_test(core, get_order_table);
	suite_add_tcase(s, core);

	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(limits, exhaustion);
	tcase_add_test(limits, too_big_order);
	tcase_add_test_raise_signal(limits, double_free_panics, SIGABRT);
	tcase_add_test_raise_signal(limits, wrong_order_panics, SIGABRT);
	suite_add_tcase(s, limits);
	return s;
}
