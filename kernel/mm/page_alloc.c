// SPDX-License-Identifier: MIT
/*
 * page_alloc.c - the buddy allocator for physical pages.
 *
 * Free memory is kept in blocks of 2^order pages, order 0..MAX_ORDER-1,
 * one free list per order.  A block of order n starts at a page frame
 * number that is a multiple of 2^n; its "buddy" is the block of the same
 * size it was split from, at pfn ^ (1 << n).
 *
 *   alloc_pages(order): take a block from the smallest non-empty list of
 *     order >= the one asked for; while it is too big, split it in halves
 *     and put the upper half back on the list one order down.
 *   __free_pages(page, order): drop the caller's reference (get_page()
 *     may have added others: a page pinned for direct I/O); with the
 *     last one, while the buddy is free and of the same order, take it
 *     off its list and merge; put the result on its list.
 *
 * Because blocks are naturally aligned, an allocation of order n is aligned
 * to 2^n pages: dma_alloc_coherent() relies on that.
 *
 * Memory is split into zones by physical address: ZONE_DMA32 (below 4 GiB,
 * where 32-bit DMA engines such as IDE bus mastering can reach) and
 * ZONE_NORMAL.  Ordinary allocations prefer ZONE_NORMAL, keeping low memory
 * for the devices that need it.
 *
 * page_poison=1 (Linux's page poisoning, mm/page_poison.c): every page
 * freed is filled with PAGE_POISON and checked when it is handed out
 * again; a page written after its free is reported ("pagealloc: memory
 * corruption", with the bytes and the stack of the allocation that found
 * it), the kernel is tainted and the block is never handed out again.
 * Linux's other page guard, debug_pagealloc, unmaps free pages from the
 * direct map so that even a read faults at once; Spindle's direct map is
 * built of 2 MiB pages shared by every user, which would have to be split
 * into 4 KiB ones (and the unmapped pages' DMA users audited) first, so it
 * poisons instead: write-after-free is found, at the next allocation of
 * that page; a read of freed memory shows the 0xaa bytes but is not
 * reported.
 *
 * Portable: the host unit tests run this file over a fake mem_map.
 * Locking: one spinlock per zone, taken with interrupts off, so that
 * allocation from interrupt context (GFP_ATOMIC) is safe.  Never sleeps.
 */
#include <spindle/mm.h>
#include <spindle/spinlock.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/ksyms.h>

#define DMA32_LIMIT_PFN   (0x100000000ull >> PAGE_SHIFT)
#define PAGE_POISON 0xaa    /* Linux's include/linux/poison.h */
#define POISON_DUMP_LINES 4 /* 16-byte lines a report shows */

enum zone_type { ZONE_DMA32, ZONE_NORMAL, MAX_NR_ZONES };

struct free_area {
	struct list_head free_list;
	unsigned long nr_free;              /* blocks on the list */
};

struct zone {
	const char *name;
	unsigned long start_pfn, end_pfn;   /* [start, end) */
	unsigned long free_pages;
	unsigned long managed_pages;        /* pages ever given to the zone */
	struct free_area free_area[MAX_ORDER];
	spinlock_t lock;
};

struct page *mem_map;
unsigned long max_pfn;
static struct zone zones[MAX_NR_ZONES];
static bool page_poisoning;
static unsigned long page_poison_reports;

static struct zone *page_zone(struct page *page)
{
	return page_to_pfn(page) < DMA32_LIMIT_PFN ? &zones[ZONE_DMA32] : &zones[ZONE_NORMAL];
}

void page_alloc_init(unsigned long nr_pfns)
{
	static const char *const names[MAX_NR_ZONES] = { "DMA32", "Normal" };

	max_pfn = nr_pfns;
	for (int z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &zones[z];

		memset(zone, 0, sizeof(*zone));
		zone->name = names[z];
		spin_lock_init(&zone->lock);
		for (int o = 0; o < MAX_ORDER; o++)
			INIT_LIST_HEAD(&zone->free_area[o].free_list);
	}
	zones[ZONE_DMA32].start_pfn = 0;
	zones[ZONE_DMA32].end_pfn = min((unsigned long)DMA32_LIMIT_PFN, nr_pfns);
	zones[ZONE_NORMAL].start_pfn = zones[ZONE_DMA32].end_pfn;
	zones[ZONE_NORMAL].end_pfn = nr_pfns;

	/* Every page is reserved until the arch code says it is free RAM. */
	for (unsigned long pfn = 0; pfn < nr_pfns; pfn++) {
		struct page *p = pfn_to_page(pfn);

		memset(p, 0, sizeof(*p));
		p->flags = PG_reserved;
		INIT_LIST_HEAD(&p->lru);
	}
}

static void add_to_free_area(struct zone *zone, struct page *page, unsigned int order)
{
	page->flags |= PG_buddy;
	page->order = order;
	list_add(&page->lru, &zone->free_area[order].free_list);
	zone->free_area[order].nr_free++;
}

static void del_from_free_area(struct zone *zone, struct page *page, unsigned int order)
{
	page->flags &= ~PG_buddy;
	list_del_init(&page->lru);
	zone->free_area[order].nr_free--;
}

/* Is the page at pfn a free block of exactly `order` in this zone? */
static bool page_is_buddy(struct zone *zone, unsigned long pfn, unsigned int order)
{
	struct page *p;

	if (pfn < zone->start_pfn || pfn >= zone->end_pfn)
		return false;
	p = pfn_to_page(pfn);
	return (p->flags & PG_buddy) && p->order == order;
}

/* Give a block back, merging with its buddy as far as possible.
 * Caller holds zone->lock. */
static void __free_one_block(struct zone *zone, unsigned long pfn, unsigned int order)
{
	zone->free_pages += 1ul << order;
	while (order < MAX_ORDER - 1) {
		unsigned long buddy_pfn = pfn ^ (1ul << order);

		if (!page_is_buddy(zone, buddy_pfn, order))
			break;
		del_from_free_area(zone, pfn_to_page(buddy_pfn), order);
		pfn &= ~(1ul << order);         /* the merged block starts at the lower */
		order++;
	}
	add_to_free_area(zone, pfn_to_page(pfn), order);
}

void free_pages_range(unsigned long start, unsigned long end)
{
	end = min(end, max_pfn);
	while (start < end) {
		/* the largest aligned block that fits and stays in one zone */
		unsigned int order = 0;
		struct zone *zone = page_zone(pfn_to_page(start));
		unsigned long flags;

		while (order < MAX_ORDER - 1 &&
		       !(start & ((1ul << (order + 1)) - 1)) &&
		       start + (1ul << (order + 1)) <= min(end, zone->end_pfn))
			order++;
		for (unsigned long i = 0; i < (1ul << order); i++)
			pfn_to_page(start + i)->flags &= ~PG_reserved;
		spin_lock_irqsave(&zone->lock, flags);
		zone->managed_pages += 1ul << order;
		__free_one_block(zone, start, order);
		spin_unlock_irqrestore(&zone->lock, flags);
		start += 1ul << order;
	}
}

/* Take a block of `order` from the zone, splitting a larger one if needed. */
static struct page *__rmqueue(struct zone *zone, unsigned int order)
{
	for (unsigned int o = order; o < MAX_ORDER; o++) {
		struct free_area *area = &zone->free_area[o];
		struct page *page;

		if (list_empty(&area->free_list))
			continue;
		page = list_first_entry(&area->free_list, struct page, lru);
		del_from_free_area(zone, page, o);
		/* Split: the upper halves go back, one order down each time. */
		while (o > order) {
			o--;
			add_to_free_area(zone, page + (1ul << o), o);
		}
		zone->free_pages -= 1ul << order;
		return page;
	}
	return NULL;
}

int page_poison_enable(void)
{
	page_poisoning = true; /* pages freed from now on are poisoned */
	return 0;
}

unsigned long page_poison_errors(void)
{
	return READ_ONCE(page_poison_reports);
}

/* Fill a block being freed with PAGE_POISON. */
static void kernel_poison_pages(struct page *page, unsigned int order)
{
	for (unsigned long i = 0; i < (1ul << order); i++) {
		memset(page_address(page + i), PAGE_POISON, PAGE_SIZE);
		page[i].flags |= PG_poisoned;
	}
}

/* Report a poisoned page that was written while free (Linux's
 * check_poison_mem()): the bytes from the first changed one. */
static void report_poisoned_page(struct page *page, const u8 *first, const u8 *last)
{
	const u8 *start = (const u8 *)((unsigned long)first & ~15ul);

	add_taint(TAINT_BAD_PAGE);
	page_poison_reports++;
	printk(KERN_ERR "pagealloc: memory corruption\n");
	for (int l = 0; l < POISON_DUMP_LINES && start <= last; l++, start += 16) {
		char line[3 * 16 + 1];
		int n = 0;

		for (int i = 0; i < 16; i++)
			n += scnprintf(line + n, sizeof(line) - n, " %02x", start[i]);
		printk(KERN_ERR "%p:%s\n", (const void *)start, line);
	}
	printk(KERN_ERR "page:%p pfn:%#lx: written after it was freed (%s)\n", (void *)page,
	       page_to_pfn(page), print_tainted());
	dump_stack();
}

/* Check a block leaving the free lists; false: some page of it was
 * written while free (reported). */
static bool kernel_unpoison_pages(struct page *page, unsigned int order)
{
	bool clean = true;

	for (unsigned long i = 0; i < (1ul << order); i++) {
		const u8 *p = page_address(page + i), *first = NULL, *last = NULL;

		if (!(page[i].flags & PG_poisoned))
			continue;
		page[i].flags &= ~PG_poisoned;
		for (size_t b = 0; b < PAGE_SIZE; b++)
			if (p[b] != PAGE_POISON) {
				first = first ? first : &p[b];
				last = &p[b];
			}
		if (first) {
			report_poisoned_page(page + i, first, last);
			clean = false;
		}
	}
	return clean;
}

#define RECLAIM_BATCH   4       /* pages freed per order of a failed block */

struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	static const enum zone_type normal_pref[] = { ZONE_NORMAL, ZONE_DMA32 };
	static const enum zone_type dma32_only[] = { ZONE_DMA32 };
	const enum zone_type *zl = (gfp & __GFP_DMA32) ? dma32_only : normal_pref;
	size_t nz = (gfp & __GFP_DMA32) ? 1 : 2;
	struct page *page = NULL;

	if (order >= MAX_ORDER)
		return NULL;
retry:
	for (size_t i = 0; i < nz && !page; i++) {
		struct zone *zone = &zones[zl[i]];
		unsigned long flags;

		if (zone->start_pfn == zone->end_pfn)
			continue;
		spin_lock_irqsave(&zone->lock, flags);
		page = __rmqueue(zone, order);
		spin_unlock_irqrestore(&zone->lock, flags);
	}
	/*
	 * Out of pages: direct reclaim, as Linux's slow path does -- the page
	 * cache gives back clean pages nobody uses (fs/filemap.c), then
	 * kmalloc's per-CPU arrays give back the slabs only they kept
	 * (kernel/mm/slab.c), and we try again.  Not for atomic allocations:
	 * they may come from an interrupt that arrived while the cache's
	 * lock was held.
	 */
	if (!page && !(gfp & __GFP_ATOMIC) &&
	    (try_to_free_pages(order ? RECLAIM_BATCH << order : 1) || kmem_cache_shrink_all()))
		goto retry;
	if (!page)
		return NULL;
	if (unlikely(page_poisoning) && !kernel_unpoison_pages(page, order)) {
		/* whoever wrote it may still hold it: it leaves circulation */
		printk(KERN_ERR "pagealloc: pfn %#lx order %u kept out of use\n",
		       page_to_pfn(page), order);
		page = NULL;
		goto retry;
	}
	page->flags |= PG_head;
	page->order = order;
	page->_refcount = 1;
	if (gfp & __GFP_ZERO)
		memset(page_address(page), 0, PAGE_SIZE << order);
	return page;
}

void __free_pages(struct page *page, unsigned int order)
{
	struct zone *zone;
	unsigned long flags;

	if (!page)
		return;
	/* Freeing what is already free, or was never RAM, would corrupt the
	 * free lists for everyone: stop here and say who did it. */
	if (page->flags & (PG_buddy | PG_reserved | PG_slab))
		panic("__free_pages: bad page pfn %#lx flags %#lx (double free?)",
		      page_to_pfn(page), page->flags);
	if ((page->flags & PG_head) && page->order != order)
		panic("__free_pages: pfn %#lx allocated with order %u, freed with %u",
		      page_to_pfn(page), page->order, order);
	/* Someone else still uses it (get_page(): direct I/O into it): the
	 * last of them frees it. */
	if ((page->flags & PG_head) &&
	    __atomic_sub_fetch(&page->_refcount, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	page->flags &= ~PG_head;
	if (unlikely(page_poisoning))
		kernel_poison_pages(page, order);
	zone = page_zone(page);
	spin_lock_irqsave(&zone->lock, flags);
	__free_one_block(zone, page_to_pfn(page), order);
	spin_unlock_irqrestore(&zone->lock, flags);
}

unsigned long __get_free_pages(gfp_t gfp, unsigned int order)
{
	struct page *p = alloc_pages(gfp, order);

	return p ? (unsigned long)page_address(p) : 0;
}

void free_pages(unsigned long addr, unsigned int order)
{
	if (addr)
		__free_pages(virt_to_page((void *)addr), order);
}

unsigned int get_order(size_t size)
{
	unsigned int order = 0;

	while ((PAGE_SIZE << order) < size)
		order++;
	return order;
}

unsigned long nr_free_pages(void)
{
	unsigned long n = 0;

	for (int z = 0; z < MAX_NR_ZONES; z++)
		n += READ_ONCE(zones[z].free_pages);
	return n;
}

unsigned long totalram_pages(void)
{
	return zones[ZONE_DMA32].managed_pages + zones[ZONE_NORMAL].managed_pages;
}
