// SPDX-License-Identifier: MIT
/*
 * kmalloc/kfree (kernel/mm/slab.c) and DMA memory (kernel/mm/dma.c) on
 * fake RAM: sizes, reuse, leak-free churn, the misuse checks, and the
 * alignment and boundary rules controllers depend on.  "Debug": the same
 * misuse under slab_debug=1 and page_poison=1, reported in Linux's words
 * (the printk capture is the oracle) while the allocator goes on working.
 * "PerCPU": the per-CPU array caches in front of the slabs, as the kernel
 * runs once kmem_cache_init_late() has turned them on.
 */
#include <check.h>
#include <signal.h>
#include <spindle/mm.h>
#include <spindle/errno.h>
#include "shim/host_kernel.h"

#define ARENA_PAGES 2048

static void setup(void)
{
	host_printk_quiet = true;
	host_mm_init(ARENA_PAGES * PAGE_SIZE);
}

static void teardown(void)
{
	host_mm_exit();
}

/* Table: request size -> the size kmalloc really gives. */
static const struct { size_t req, got; } size_table[] = {
	{ 1, 16 }, { 16, 16 }, { 17, 32 }, { 100, 128 }, { 512, 512 },
	{ 513, 1024 }, { 2048, 2048 }, { 2049, 4096 }, { 4096, 4096 },
	{ 4097, 8192 }, { 20000, 32768 },
};

START_TEST(ksize_table)
{
	void *p = kmalloc(size_table[_i].req, GFP_KERNEL);

	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(ksize(p), size_table[_i].got);
	kfree(p);
	ck_assert_uint_eq(nr_free_pages(), ARENA_PAGES - 1);
}
END_TEST

START_TEST(objects_do_not_overlap)
{
	enum { N = 1000 };
	static unsigned char *p[N];

	for (int i = 0; i < N; i++) {
		p[i] = kmalloc(48, GFP_KERNEL);
		ck_assert_ptr_nonnull(p[i]);
		memset(p[i], i & 0xff, 48);
	}
	for (int i = 0; i < N; i++)
		for (int k = 0; k < 48; k++)
			ck_assert_uint_eq(p[i][k], (unsigned)(i & 0xff));
	for (int i = 0; i < N; i++)
		kfree(p[i]);
	ck_assert_uint_eq(nr_free_pages(), ARENA_PAGES - 1);
}
END_TEST

START_TEST(freed_object_is_reused)
{
	void *a = kmalloc(100, GFP_KERNEL);

	kfree(a);
	ck_assert_ptr_eq(kmalloc(100, GFP_KERNEL), a);
}
END_TEST

START_TEST(kzalloc_zeroes_reused_memory)
{
	unsigned char *a = kmalloc(200, GFP_KERNEL);

	memset(a, 0x5a, 200);
	kfree(a);
	a = kzalloc(200, GFP_KERNEL);
	for (int i = 0; i < 200; i++)
		ck_assert_uint_eq(a[i], 0);
}
END_TEST

START_TEST(zero_and_overflow)
{
	ck_assert_ptr_null(kmalloc(0, GFP_KERNEL));
	ck_assert_ptr_null(kcalloc(SIZE_MAX / 2, 4, GFP_KERNEL));
	kfree(NULL);
}
END_TEST

START_TEST(out_of_memory_is_null)
{
	static void *p[ARENA_PAGES];
	int n = 0;

	while ((p[n] = kmalloc(4096, GFP_KERNEL)) != NULL)
		n++;
	ck_assert_int_eq(n, ARENA_PAGES - 1);
	ck_assert_ptr_null(kmalloc(16, GFP_KERNEL));   /* no page for a new slab */
	while (n)
		kfree(p[--n]);
	ck_assert_ptr_nonnull(kmalloc(16, GFP_KERNEL));
}
END_TEST

START_TEST(double_kfree_panics)
{
	void *a = kmalloc(64, GFP_KERNEL);
	void *b = kmalloc(64, GFP_KERNEL);     /* keeps the slab alive */

	(void)b;
	kfree(a);
	kfree(a);
}
END_TEST

START_TEST(kfree_of_interior_pointer_panics)
{
	char *a = kmalloc(64, GFP_KERNEL);

	kfree(a + 8);
}
END_TEST

START_TEST(dma_coherent_alignment)
{
	static const size_t aligns[] = { 0, 512, 4096, 16384, 65536 };

	for (size_t i = 0; i < sizeof(aligns) / sizeof(aligns[0]); i++) {
		phys_addr_t pa;
		void *v = dma_alloc_coherent(300, aligns[i], &pa);

		ck_assert_ptr_nonnull(v);
		ck_assert_uint_eq(__pa(v), pa);
		ck_assert_uint_eq(pa % (aligns[i] ? aligns[i] : PAGE_SIZE), 0);
		dma_free_coherent(v, 300);
	}
	ck_assert_ptr_null(dma_alloc_coherent(300, 3000, &(phys_addr_t){0}));
	ck_assert_uint_eq(nr_free_pages(), ARENA_PAGES - 1);
}
END_TEST

/* Table: pool geometry -> every block aligned, none crossing the boundary. */
static const struct { size_t size, align, boundary; } pool_table[] = {
	{ 8, 4, 65536 }, { 200, 128, 1024 }, { 1024, 1024, 0 }, { 96, 32, 256 },
	{ 256, 256, 4096 },
};

START_TEST(dma_pool_rules)
{
	size_t sz = pool_table[_i].size, al = pool_table[_i].align, bd = pool_table[_i].boundary;
	struct dma_pool *pool = dma_pool_create("t", sz, al, bd);
	enum { N = 200 };
	void *v[N];
	phys_addr_t pa[N];

	ck_assert_ptr_nonnull(pool);
	for (int i = 0; i < N; i++) {
		v[i] = dma_pool_alloc(pool, GFP_KERNEL, &pa[i]);
		ck_assert_ptr_nonnull(v[i]);
		ck_assert_uint_eq(pa[i] % al, 0);
		if (bd)
			ck_assert_uint_eq(pa[i] / bd, (pa[i] + sz - 1) / bd);
		for (int j = 0; j < i; j++)
			ck_assert(pa[j] + sz <= pa[i] || pa[i] + sz <= pa[j]);
	}
	for (int i = 0; i < N; i++)
		dma_pool_free(pool, v[i], pa[i]);
	dma_pool_destroy(pool);
	ck_assert_uint_eq(nr_free_pages(), ARENA_PAGES - 1);
}
END_TEST

START_TEST(dma_pool_bad_geometry)
{
	ck_assert_ptr_null(dma_pool_create("t", 8192, 8, 0));     /* > a page */
	ck_assert_ptr_null(dma_pool_create("t", 64, 48, 0));      /* align not 2^n */
	ck_assert_ptr_null(dma_pool_create("t", 512, 8, 256));    /* > boundary */
}
END_TEST

/* --- slab_debug and page_poison ------------------------------------------ */

static void debug_setup(void)
{
	setup();
	ck_assert_int_eq(slab_debug_enable(), 0);
	ck_assert_int_eq(page_poison_enable(), 0);
	kmem_cache_init_late(); /* as at boot: slab_debug keeps the arrays off */
	host_printk_reset();
}

static bool logged(const char *text)
{
	return strstr(host_printk_buf, text) != NULL;
}

START_TEST(debug_enable_needs_empty_caches)
{
	void *p = kmalloc(32, GFP_KERNEL);

	ck_assert_int_eq(slab_debug_enable(), -EBUSY);
	kfree(p);
}
END_TEST

/* Ordinary use: no report, natural alignment kept, nothing leaks. */
START_TEST(debug_clean_use_is_silent)
{
	enum { N = 300 };
	static unsigned char *p[N];

	for (int i = 0; i < N; i++) {
		size_t size = 1ul << (4 + i % 8);

		p[i] = kmalloc(size - i % 3, GFP_KERNEL);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_uint_eq((unsigned long)p[i] % size, 0);
		memset(p[i], i, size - i % 3);
	}
	for (int i = 0; i < N; i++)
		kfree(p[i]);
	ck_assert_uint_eq(slab_debug_errors(), 0);
	ck_assert_uint_eq(page_poison_errors(), 0);
	ck_assert_uint_eq(nr_free_pages(), ARENA_PAGES - 1);
	ck_assert_msg(host_printk_len == 0, "unexpected output: %s", host_printk_buf);
}
END_TEST

/* Fresh memory shows the poison; kzalloc zeroes exactly what was asked. */
START_TEST(debug_poison_and_zero)
{
	unsigned char *a = kmalloc(64, GFP_KERNEL), *z = kzalloc(40, GFP_KERNEL);

	ck_assert_uint_eq(a[0], 0x6b);
	ck_assert_uint_eq(a[63], 0xa5); /* POISON_END */
	for (int i = 0; i < 40; i++)
		ck_assert_uint_eq(z[i], 0);
	ck_assert_uint_eq(z[40], 0xcc); /* red zone from byte 40 */
	kfree(a);
	kfree(z);
	ck_assert_uint_eq(slab_debug_errors(), 0);
}
END_TEST

START_TEST(debug_write_after_free)
{
	unsigned char *a = kmalloc(64, GFP_KERNEL);
	void *keep = kmalloc(64, GFP_KERNEL), *b;

	kfree(a);
	a[5] = 0x42;		     /* the bug */
	b = kmalloc(64, GFP_KERNEL); /* a was next on the freelist */
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_ne(b, a); /* a is out of circulation */
	ck_assert_uint_eq(slab_debug_errors(), 1);
	ck_assert(logged("BUG kmalloc-64 (Not tainted): Poison overwritten\n"));
	ck_assert(logged("First byte 0x42 instead of 0x6b\n"));
	ck_assert(logged("INFO: Allocated in "));
	ck_assert(logged("INFO: Freed in "));
	ck_assert(logged("FIX kmalloc-64: Object at "));
	kfree(b);
	kfree(keep);
	ck_assert_uint_eq(slab_debug_errors(), 1);
}
END_TEST

/* Table: bytes written past kmalloc(size) -> a red-zone report at kfree. */
static const struct {
	size_t size, off;
} overflow_table[] = {
	{ 60, 60 },   /* inside kmalloc-64's rounding: still past the request */
	{ 64, 64 },   /* the red zone proper */
	{ 100, 135 }, /* the last red-zone byte of kmalloc-128 */
	{ 2048, 2048 },
};

START_TEST(debug_redzone_overflow)
{
	unsigned char *p = kmalloc(overflow_table[_i].size, GFP_KERNEL);
	unsigned long free_before;

	p[overflow_table[_i].off] = 0; /* the bug */
	free_before = nr_free_pages();
	kfree(p);
	ck_assert_uint_eq(slab_debug_errors(), 1);
	ck_assert(logged("): Redzone overwritten\n"));
	ck_assert(logged("First byte 0x0 instead of 0xcc\n"));
	ck_assert(logged("Not freed") || logged("not freed"));
	ck_assert_uint_eq(nr_free_pages(), free_before); /* kept, not freed */
	ck_assert_ptr_ne(kmalloc(overflow_table[_i].size, GFP_KERNEL), p);
}
END_TEST

START_TEST(debug_double_free)
{
	void *a = kmalloc(64, GFP_KERNEL), *b = kmalloc(64, GFP_KERNEL), *c, *d;

	kfree(a);
	kfree(a); /* the bug: reported, ignored */
	ck_assert_uint_eq(slab_debug_errors(), 1);
	ck_assert(logged("BUG kmalloc-64 (Not tainted): Object already free\n"));
	ck_assert(logged("INFO: Freed in "));
	/* the freelist is intact: a comes back once, not twice */
	c = kmalloc(64, GFP_KERNEL);
	d = kmalloc(64, GFP_KERNEL);
	ck_assert_ptr_eq(c, a);
	ck_assert_ptr_ne(d, a);
	kfree(b);
	kfree(c);
	kfree(d);
	ck_assert_uint_eq(slab_debug_errors(), 1);
	ck_assert_uint_eq(nr_free_pages(), ARENA_PAGES - 1);
}
END_TEST

START_TEST(debug_interior_pointer)
{
	char *a = kmalloc(64, GFP_KERNEL);

	kfree(a + 8);
	ck_assert_uint_eq(slab_debug_errors(), 1);
	ck_assert(logged("): Invalid object pointer\n"));
	kfree(a);
	ck_assert_uint_eq(slab_debug_errors(), 1);
	ck_assert_uint_eq(nr_free_pages(), ARENA_PAGES - 1);
}
END_TEST

/* ksize() hands the whole object to the caller: no red zone below it. */
START_TEST(debug_ksize_moves_redzone)
{
	unsigned char *p = kmalloc(33, GFP_KERNEL);

	ck_assert_uint_eq(ksize(p), 64);
	memset(p, 1, 64);
	kfree(p);
	ck_assert_uint_eq(slab_debug_errors(), 0);
}
END_TEST

START_TEST(debug_page_written_after_free)
{
	struct page *p = alloc_page(GFP_KERNEL), *q;

	__free_page(p);
	((unsigned char *)page_address(p))[100] = 7; /* the bug */
	q = alloc_page(GFP_KERNEL);		     /* p was first on its list */
	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_ne(q, p);
	ck_assert_uint_eq(page_poison_errors(), 1);
	ck_assert(logged("pagealloc: memory corruption\n"));
	ck_assert(logged(" aa aa aa 07 aa"));
	__free_page(q);
	q = alloc_pages(GFP_KERNEL | __GFP_ZERO, 2); /* clean pages: no report */
	ck_assert_uint_eq(((unsigned char *)page_address(q))[0], 0);
	__free_pages(q, 2);
	ck_assert_uint_eq(page_poison_errors(), 1);
}
END_TEST

/* --- per-CPU array caches (kmem_cache_init_late) --------------------------- */

static void cpu_setup(void)
{
	setup();
	kmem_cache_init_late();
}

static unsigned long cpu_free(size_t objsize)
{
	struct slabinfo info;

	kmalloc_slabinfo(objsize, &info);
	return info.cpu_free;
}

/*
 * Freed objects stay in this CPU's array, at most `limit` of them (a full
 * array gives back its oldest half), and keep their slabs from the page
 * allocator until kmem_cache_shrink_all() empties the arrays.
 */
START_TEST(cpu_array_parks_up_to_limit)
{
	enum { N = 300 }; /* five slabs of kmalloc-64 */
	static void *p[N];
	struct slabinfo info;

	for (int i = 0; i < N; i++)
		ck_assert_ptr_nonnull(p[i] = kmalloc(64, GFP_KERNEL));
	kmem_cache_shrink_all(); /* the rest of the last refill's batch */
	ck_assert_uint_eq(cpu_free(64), 0);
	for (int i = 0; i < N; i++)
		kfree(p[i]);
	kmalloc_slabinfo(64, &info);
	ck_assert_uint_eq(info.limit, 120);
	ck_assert_uint_eq(info.batchcount, 60);
	ck_assert_uint_eq(info.cpu_free, 120);
	ck_assert_uint_lt(nr_free_pages(), ARENA_PAGES - 1);
	ck_assert_uint_gt(kmem_cache_shrink_all(), 0);
	ck_assert_uint_eq(cpu_free(64), 0);
	ck_assert_uint_eq(nr_free_pages(), ARENA_PAGES - 1);
}
END_TEST

/* Last freed, first reused: the object still warm in this CPU's cache. */
START_TEST(cpu_array_is_lifo)
{
	void *a = kmalloc(100, GFP_KERNEL), *b = kmalloc(100, GFP_KERNEL);

	ck_assert_uint_eq(cpu_free(128), 32 - 2); /* the refill took a new slab's 32 */
	kmem_cache_shrink_all();
	kfree(a);
	kfree(b);
	ck_assert_uint_eq(cpu_free(128), 2);
	ck_assert_ptr_eq(kmalloc(100, GFP_KERNEL), b);
	ck_assert_ptr_eq(kmalloc(100, GFP_KERNEL), a);
	ck_assert_uint_eq(cpu_free(128), 0);
}
END_TEST

/*
 * Memory runs out while the arrays keep slabs of free objects: the page
 * allocator's reclaim empties them, and every page can be had.
 */
START_TEST(cpu_array_drained_by_reclaim)
{
	enum { N = 200 };
	static void *p[N];
	unsigned long got = 0;
	void *head = NULL;

	for (int i = 0; i < N; i++)
		ck_assert_ptr_nonnull(p[i] = kmalloc(512, GFP_KERNEL));
	for (int i = 0; i < N; i++)
		kfree(p[i]);
	ck_assert_uint_gt(cpu_free(512), 0);
	for (struct page *pg; (pg = alloc_page(GFP_KERNEL)); got++) {
		*(void **)page_address(pg) = head;
		head = page_address(pg);
	}
	ck_assert_uint_eq(got, ARENA_PAGES - 1);
	ck_assert_uint_eq(cpu_free(512), 0);
	while (head) {
		void *next = *(void **)head;

		free_pages((unsigned long)head, 0);
		head = next;
	}
}
END_TEST

/* kfree of the object this CPU freed last is still a double free. */
START_TEST(cpu_array_double_kfree_panics)
{
	void *a = kmalloc(64, GFP_KERNEL);

	kfree(a);
	kfree(a);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("Slab");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_loop_test(core, ksize_table, 0, sizeof(size_table) / sizeof(size_table[0]));
	tcase_add_test(core, objects_do_not_overlap);
	tcase_add_test(core, freed_object_is_reused);
	tcase_add_test(core, kzalloc_zeroes_reused_memory);
	tcase_add_test(core, dma_coherent_alignment);
	tcase_add_loop_test(core, dma_pool_rules, 0, sizeof(pool_table) / sizeof(pool_table[0]));
	suite_add_tcase(s, core);

	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(limits, zero_and_overflow);
	tcase_add_test(limits, out_of_memory_is_null);
	tcase_add_test(limits, dma_pool_bad_geometry);
	tcase_add_test_raise_signal(limits, double_kfree_panics, SIGABRT);
	tcase_add_test_raise_signal(limits, kfree_of_interior_pointer_panics, SIGABRT);
	suite_add_tcase(s, limits);

	TCase *debug = tcase_create("Debug");

	tcase_add_checked_fixture(debug, debug_setup, teardown);
	tcase_add_test(debug, debug_clean_use_is_silent);
	tcase_add_test(debug, debug_poison_and_zero);
	tcase_add_test(debug, debug_write_after_free);
	tcase_add_loop_test(debug, debug_redzone_overflow, 0,
			    sizeof(overflow_table) / sizeof(overflow_table[0]));
	tcase_add_test(debug, debug_double_free);
	tcase_add_test(debug, debug_interior_pointer);
	tcase_add_test(debug, debug_ksize_moves_redzone);
	tcase_add_test(debug, debug_page_written_after_free);
	suite_add_tcase(s, debug);
	tcase_add_test(limits, debug_enable_needs_empty_caches);

	TCase *percpu = tcase_create("PerCPU");

	tcase_add_checked_fixture(percpu, cpu_setup, teardown);
	tcase_add_test(percpu, cpu_array_parks_up_to_limit);
	tcase_add_test(percpu, cpu_array_is_lifo);
	tcase_add_test(percpu, cpu_array_drained_by_reclaim);
	tcase_add_test_raise_signal(percpu, cpu_array_double_kfree_panics, SIGABRT);
	tcase_add_test(percpu, freed_object_is_reused);
	tcase_add_test(percpu, kzalloc_zeroes_reused_memory);
	suite_add_tcase(s, percpu);
	return s;
}
