// SPDX-License-Identifier: MIT
/*
 * Memory tests: the buddy allocator under churn and exhaustion, kmalloc,
 * DMA memory and its alignment rules, ioremap.
 */
#include <spindle/ktest.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <asm/io.h>
#include <asm/layout.h>
#include <asm/pgtable.h>

/* A small deterministic pseudo-random generator for the churn tests. */
static u32 lcg(u32 *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

KTEST(mm, page_alloc_alignment)
{
	for (unsigned int order = 0; order < MAX_ORDER; order++) {
		struct page *p = alloc_pages(GFP_KERNEL, order);

		KT_ASSERT_MSG(p != NULL, "order %u", order);
		KT_ASSERT_MSG(IS_ALIGNED(page_to_phys(p), PAGE_SIZE << order),
			      "order %u at %#llx", order, (unsigned long long)page_to_phys(p));
		__free_pages(p, order);
	}
}

#define CHURN_SLOTS 64

KTEST(mm, page_alloc_churn)
{
	static struct page *slot[CHURN_SLOTS];
	static unsigned int slot_order[CHURN_SLOTS];
	unsigned long before;
	u32 seed = 12345;

	kmem_cache_shrink_all(); /* no slab kept only by kmalloc's arrays */
	before = nr_free_pages();

	for (int round = 0; round < 4000; round++) {
		int i = lcg(&seed) % CHURN_SLOTS;

		if (slot[i]) {
			/* the block still holds the pattern we wrote */
			u32 *w = page_address(slot[i]);

			KT_ASSERT_MSG(w[0] == (u32)i && w[(PAGE_SIZE << slot_order[i]) / 4 - 1] == (u32)i,
				      "block %d overwritten", i);
			__free_pages(slot[i], slot_order[i]);
			slot[i] = NULL;
		} else {
			unsigned int order = lcg(&seed) % 6;
			u32 *w;

			slot[i] = alloc_pages(GFP_KERNEL, order);
			KT_ASSERT(slot[i] != NULL);
			slot_order[i] = order;
			w = page_address(slot[i]);
			w[0] = i;
			w[(PAGE_SIZE << order) / 4 - 1] = i;
		}
	}
	for (int i = 0; i < CHURN_SLOTS; i++)
		if (slot[i]) {
			__free_pages(slot[i], slot_order[i]);
			slot[i] = NULL;
		}
	kmem_cache_shrink_all();
	KT_ASSERT_MSG(nr_free_pages() == before, "free pages %lu, before %lu",
		      nr_free_pages(), before);
}

/* Take every page there is, check the failure is clean, give it back. */
KTEST(mm, page_alloc_exhaustion)
{
	unsigned long before, got = 0;
	void *head = NULL, *p;

	kmem_cache_shrink_all(); /* else reclaim finds pages "before" missed */
	before = nr_free_pages();

	for (;;) {
		struct page *pg = alloc_page(GFP_KERNEL);

		if (!pg)
			break;
		p = page_address(pg);
		*(void **)p = head;             /* chain the pages through themselves */
		head = p;
		got++;
	}
	KT_ASSERT_MSG(got == before, "got %lu pages of %lu free", got, before);
	KT_ASSERT(nr_free_pages() == 0);
	/* Out of memory is an error the caller sees. */
	p = kmalloc(3000, GFP_KERNEL);
	KT_ASSERT(p == NULL);
	KT_ASSERT(dma_alloc_coherent(512, 0, &(phys_addr_t){0}) == NULL);
	while (head) {
		p = head;
		head = *(void **)p;
		free_pages((unsigned long)p, 0);
	}
	KT_ASSERT(nr_free_pages() == before);
	/* and everything works again */
	p = kmalloc(3000, GFP_KERNEL);
	KT_ASSERT(p != NULL);
	kfree(p);
}

KTEST(mm, kmalloc_churn)
{
	static void *obj[256];
	static size_t len[256];
	unsigned long before;
	u32 seed = 777;

	kmem_cache_shrink_all();
	before = nr_free_pages();

	for (int round = 0; round < 20000; round++) {
		int i = lcg(&seed) % 256;

		if (obj[i]) {
			u8 *b = obj[i];

			for (size_t k = 0; k < len[i]; k++)
				KT_ASSERT_MSG(b[k] == (u8)(i + k), "object %d byte %zu", i, k);
			kfree(obj[i]);
			obj[i] = NULL;
		} else {
			len[i] = 1 + lcg(&seed) % 5000;
			obj[i] = kmalloc(len[i], GFP_KERNEL);
			KT_ASSERT(obj[i] != NULL);
			KT_ASSERT(ksize(obj[i]) >= len[i]);
			for (size_t k = 0; k < len[i]; k++)
				((u8 *)obj[i])[k] = (u8)(i + k);
		}
	}
	for (int i = 0; i < 256; i++) {
		kfree(obj[i]);
		obj[i] = NULL;
	}
	/* Empty slabs go back to the page allocator, once kmalloc's per-CPU
	 * arrays give back the objects parked in them. */
	kmem_cache_shrink_all();
	KT_ASSERT_MSG(nr_free_pages() == before, "leaked %ld pages",
		      (long)(before - nr_free_pages()));
}

KTEST(mm, kmalloc_sizes)
{
	u8 *p;

	KT_ASSERT(kmalloc(0, GFP_KERNEL) == NULL);
	KT_ASSERT(kcalloc((size_t)1 << 62, 8, GFP_KERNEL) == NULL);   /* overflow */
	for (size_t sz = 1; sz <= 3 * PAGE_SIZE; sz = sz * 3 / 2 + 1) {
		p = kzalloc(sz, GFP_KERNEL);
		KT_ASSERT(p != NULL);
		for (size_t k = 0; k < sz; k++)
			KT_ASSERT_MSG(p[k] == 0, "kzalloc(%zu) byte %zu", sz, k);
		KT_ASSERT(IS_ALIGNED((unsigned long)p, min(sz, (size_t)16) >= 16 ? 16 : 1));
		kfree(p);
	}
	kfree(NULL);
}

KTEST(mm, dma_alignment)
{
	static const size_t aligns[] = { 0, 128, 1024, 4096, 65536 };

	for (size_t i = 0; i < ARRAY_SIZE(aligns); i++) {
		phys_addr_t pa;
		u8 *v = dma_alloc_coherent(512, aligns[i], &pa);

		KT_ASSERT(v != NULL);
		KT_ASSERT(__pa(v) == pa);
		KT_ASSERT_MSG(IS_ALIGNED(pa, aligns[i] ? aligns[i] : PAGE_SIZE),
			      "align %zu got %#llx", aligns[i], (unsigned long long)pa);
		KT_ASSERT(pa + 512 <= 0x100000000ull);
		for (int k = 0; k < 512; k++)
			KT_ASSERT(v[k] == 0);
		dma_free_coherent(v, 512);
	}
	KT_ASSERT(dma_alloc_coherent(512, 100, &(phys_addr_t){0}) == NULL);
}

KTEST(mm, dma_pool_boundary)
{
	/* like an IDE PRD table: 8-byte entries, 4-byte aligned, may not
	 * cross a 64 KiB boundary -- here a 1 KiB one, to exercise it */
	struct dma_pool *pool = dma_pool_create("test", 200, 128, 1024);
	void *blk[64];
	phys_addr_t pa[64];

	KT_ASSERT(pool != NULL);
	for (int i = 0; i < 64; i++) {
		blk[i] = dma_pool_alloc(pool, GFP_KERNEL, &pa[i]);
		KT_ASSERT(blk[i] != NULL);
		KT_ASSERT(IS_ALIGNED(pa[i], 128));
		KT_ASSERT_MSG(pa[i] / 1024 == (pa[i] + 255) / 1024, "block at %#llx crosses 1 KiB",
			      (unsigned long long)pa[i]);
		for (int j = 0; j < i; j++)
			KT_ASSERT(pa[j] + 256 <= pa[i] || pa[i] + 256 <= pa[j]);
	}
	for (int i = 0; i < 64; i++)
		dma_pool_free(pool, blk[i], pa[i]);
	dma_pool_destroy(pool);
	KT_ASSERT(dma_pool_create("bad", 8192, 8, 0) == NULL);
}

KTEST(mm, ioremap_alias)
{
	u32 *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	volatile u32 *alias;

	KT_ASSERT(buf != NULL);
	buf[5] = 0xfeedbeef;
	alias = ioremap(__pa(buf) + 16, 8);
	KT_ASSERT(alias != NULL);
	KT_ASSERT(((unsigned long)alias & (PAGE_SIZE - 1)) == ((__pa(buf) + 16) & (PAGE_SIZE - 1)));
	KT_ASSERT(alias[1] == 0xfeedbeef);
	alias[1] = 0x12345678;
	KT_ASSERT(buf[5] == 0x12345678);
	iounmap((void *)alias);
	kfree(buf);
}

/*
 * Two tasks populating the same kernel page-table range: task A allocates
 * a table for an empty entry and is preempted before installing it; task B
 * installs its own table there and maps a page (a new kernel stack, say);
 * then A resumes.  If A installs its table blindly, B's mapping is gone
 * and B's stack faults when first used -- a double fault in __switch_to
 * under a fork bomb.  pt_populate_hook plays task B at exactly that point.
 * The range is an unused part of the kernel-stack area (no slot reaches
 * it), so its tables are fresh the first time this runs.
 */
#define PT_RACE_VA      (KSTACK_BASE + (256ul << 30))

static struct page *pt_race_page_b;
static bool pt_race_hook_ran;

static void pt_race_other_task(unsigned long va)
{
	(void)va;
	pt_populate_hook = NULL;                /* task B does not race itself */
	pt_race_hook_ran = true;
	if (map_page(kernel_pml4, PT_RACE_VA + PAGE_SIZE, page_to_phys(pt_race_page_b), PAGE_KERNEL))
		pt_race_page_b = NULL;
}

KTEST(mm, page_table_populate_race)
{
	struct page *a = alloc_page(GFP_KERNEL);
	phys_addr_t pa_a, pa_b;
	bool map_ok;

	pt_race_page_b = alloc_page(GFP_KERNEL);
	KT_ASSERT(a != NULL && pt_race_page_b != NULL);
	pa_a = page_to_phys(a);
	pa_b = page_to_phys(pt_race_page_b);
	if (virt_to_phys_walk(kernel_pml4, PT_RACE_VA) != (phys_addr_t)-1 ||
	    virt_to_phys_walk(kernel_pml4, PT_RACE_VA + PAGE_SIZE) != (phys_addr_t)-1)
		KT_SKIP("test range already mapped");
	pt_race_hook_ran = false;
	pt_populate_hook = pt_race_other_task;
	map_ok = map_page(kernel_pml4, PT_RACE_VA, pa_a, PAGE_KERNEL) == 0;
	pt_populate_hook = NULL;
	KT_ASSERT(map_ok && pt_race_page_b != NULL);
	KT_ASSERT_MSG(pt_race_hook_ran, "the range already had its tables");

	bool a_ok = virt_to_phys_walk(kernel_pml4, PT_RACE_VA) == pa_a;
	bool b_ok = virt_to_phys_walk(kernel_pml4, PT_RACE_VA + PAGE_SIZE) == pa_b;

	unmap_page(kernel_pml4, PT_RACE_VA);
	unmap_page(kernel_pml4, PT_RACE_VA + PAGE_SIZE);
	__free_page(a);
	__free_page(pt_race_page_b);
	KT_ASSERT(a_ok);
	KT_ASSERT_MSG(b_ok, "the page mapped by the other task was lost");
}
