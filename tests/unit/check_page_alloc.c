// SPDX-License-Identifier: MIT
/*
 * The buddy allocator (kernel/mm/page_alloc.c) on fake RAM: alignment,
 * splitting and merging, exhaustion, and the checks that catch misuse.
 * "PerCPU": the per-CPU page lists (one CPU here) -- filled a batch at a
 * time, drained a batch at high, emptied by drain_all_pages(), counted
 * as free, and drained before an allocation fails.
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

/* --- per-CPU page lists ---------------------------------------------- */

#define PCP_ARENA_PAGES 32768           /* 128 MiB, the scenarios' guest */

static void pcp_setup(void)
{
	host_printk_quiet = true;
	host_mm_init((size_t)PCP_ARENA_PAGES * PAGE_SIZE);
	page_alloc_init_late();
}

static unsigned long pcp_count(void)
{
	struct pcp_info info;

	page_alloc_pcp_info(&info);
	return info.count;
}

/* Table: Linux's zone_batchsize() for zones of 16, 64, 128 and 256 MiB;
 * high is six batches. */
static const struct {
	unsigned long pages;
	unsigned int batch;
} batch_sizes[] = {
	{ 4096, 1 }, { 16384, 3 }, { 32768, 7 }, { 65536, 15 },
};

START_TEST(pcp_batch_table)
{
	struct pcp_info info;

	host_printk_quiet = true;
	host_mm_init(batch_sizes[_i].pages * PAGE_SIZE);
	page_alloc_pcp_info(&info);
	ck_assert_uint_eq(info.batch, 0);       /* no lists before init_late */
	page_alloc_init_late();
	page_alloc_pcp_info(&info);
	ck_assert_uint_eq(info.batch, batch_sizes[_i].batch);
	ck_assert_uint_eq(info.high, 6 * batch_sizes[_i].batch);
	host_mm_exit();
}
END_TEST

/* The first alloc_page() moves a batch over; the next batch - 1 come
 * from the list; every page is still counted free until handed out. */
START_TEST(pcp_fill_a_batch)
{
	struct pcp_info info;
	struct page *p[8];

	page_alloc_pcp_info(&info);
	ck_assert_uint_eq(info.batch, 7);
	ck_assert_uint_eq(pcp_count(), 0);
	p[0] = alloc_page(GFP_KERNEL);
	ck_assert_ptr_nonnull(p[0]);
	ck_assert_uint_eq(pcp_count(), info.batch - 1);
	ck_assert_uint_eq(nr_free_pages(), PCP_ARENA_PAGES - 2);
	for (unsigned int i = 1; i < info.batch; i++)
		p[i] = alloc_page(GFP_KERNEL);
	ck_assert_uint_eq(pcp_count(), 0);
	p[info.batch] = alloc_page(GFP_KERNEL); /* the next batch */
	ck_assert_uint_eq(pcp_count(), info.batch - 1);
	for (unsigned int i = 0; i <= info.batch; i++)
		__free_page(p[i]);
	ck_assert_uint_eq(nr_free_pages(), PCP_ARENA_PAGES - 1);
}
END_TEST

/* Last freed, first handed out: the page still warm in this CPU's cache. */
START_TEST(pcp_hot_first)
{
	struct page *a = alloc_page(GFP_KERNEL);
	struct page *b = alloc_page(GFP_KERNEL);

	__free_page(a);
	__free_page(b);
	ck_assert_ptr_eq(alloc_page(GFP_KERNEL), b);
	ck_assert_ptr_eq(alloc_page(GFP_KERNEL), a);
}
END_TEST

/* Frees never leave high pages on the list: the one that reaches high
 * gives a batch back, which then merges in the buddy lists. */
START_TEST(pcp_high_drains_a_batch)
{
	static struct page *got[64];
	struct pcp_info info;
	unsigned int n;

	page_alloc_pcp_info(&info);
	n = info.high + info.batch;
	ck_assert_uint_le(n, 64);
	for (unsigned int i = 0; i < n; i++)
		got[i] = alloc_page(GFP_KERNEL);
	for (unsigned int i = 0; i < n; i++) {
		unsigned long before = pcp_count();

		__free_page(got[i]);
		ck_assert_uint_lt(pcp_count(), info.high);
		if (before + 1 == info.high)
			ck_assert_uint_eq(pcp_count(), info.high - info.batch);
		else
			ck_assert_uint_eq(pcp_count(), before + 1);
	}
	ck_assert_uint_eq(nr_free_pages(), PCP_ARENA_PAGES - 1);
}
END_TEST

/* drain_all_pages() gives every page back to the buddy lists, where they
 * merge: the largest blocks can be had again. */
START_TEST(pcp_drain_all)
{
	struct page *p[4];
	unsigned long held;

	for (int i = 0; i < 4; i++)
		p[i] = alloc_page(GFP_KERNEL);
	for (int i = 0; i < 4; i++)
		__free_page(p[i]);
	held = pcp_count();
	ck_assert_uint_gt(held, 0);
	ck_assert_uint_eq(drain_all_pages(), held);
	ck_assert_uint_eq(pcp_count(), 0);
	ck_assert_uint_eq(nr_free_pages(), PCP_ARENA_PAGES - 1);
	ck_assert_uint_eq(drain_all_pages(), 0);
}
END_TEST

/* Every page can be had one at a time, those parked on the list too.
 * Then the last 4 MiB block is given back page by page: some of its
 * pages stay on the list, so the buddy lists cannot merge it -- and yet
 * an allocation of that size succeeds, because alloc_pages() drains the
 * lists before it fails. */
START_TEST(pcp_exhaustion_then_big_block)
{
	static struct page *got[PCP_ARENA_PAGES];
	const unsigned long last_block = PCP_ARENA_PAGES - (1ul << (MAX_ORDER - 1));
	unsigned long n = 0;
	struct page *big;

	while ((got[n] = alloc_page(GFP_KERNEL)) != NULL)
		n++;
	ck_assert_uint_eq(n, PCP_ARENA_PAGES - 1);
	ck_assert_uint_eq(nr_free_pages(), 0);
	for (unsigned long i = 0; i < n; i++)
		if (page_to_pfn(got[i]) >= last_block)
			__free_page(got[i]);
	ck_assert_uint_gt(pcp_count(), 0);
	ck_assert_uint_eq(nr_free_pages(), 1ul << (MAX_ORDER - 1));
	big = alloc_pages(GFP_KERNEL, MAX_ORDER - 1);
	ck_assert_ptr_nonnull(big);
	ck_assert_uint_eq(page_to_pfn(big), last_block);
	ck_assert_uint_eq(pcp_count(), 0);
	ck_assert_uint_eq(nr_free_pages(), 0);
}
END_TEST

START_TEST(pcp_double_free_panics)
{
	struct page *p = alloc_page(GFP_KERNEL);

	__free_page(p);                 /* onto the list */
	__free_page(p);                 /* must abort, not list it twice */
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

	TCase *pcp = tcase_create("PerCPU");
	tcase_add_loop_test(pcp, pcp_batch_table, 0, sizeof(batch_sizes) / sizeof(batch_sizes[0]));
	suite_add_tcase(s, pcp);
	pcp = tcase_create("PerCPU");
	tcase_add_checked_fixture(pcp, pcp_setup, teardown);
	tcase_add_test(pcp, pcp_fill_a_batch);
	tcase_add_test(pcp, pcp_hot_first);
	tcase_add_test(pcp, pcp_high_drains_a_batch);
	tcase_add_test(pcp, pcp_drain_all);
	tcase_add_test(pcp, pcp_exhaustion_then_big_block);
	tcase_add_test_raise_signal(pcp, pcp_double_free_panics, SIGABRT);
	suite_add_tcase(s, pcp);
	return s;
}
