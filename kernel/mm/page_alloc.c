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
 * Per-CPU page lists (Linux's struct per_cpu_pages, mm/page_alloc.c):
 * most allocations are of one page, and each would otherwise take the
 * zone's lock -- one lock, and one cache line, for every CPU.  So each
 * CPU keeps, per zone, a short list of free order-0 pages of its own:
 *
 *   alloc_page: take the first page of this CPU's list (the last freed,
 *     still warm in this CPU's cache); empty: rmqueue_bulk() moves
 *     `batch` pages over from the buddy lists under zone->lock, once;
 *   __free_page: put it first on this CPU's list; when the list reaches
 *     `high` pages, free_pcppages_bulk() gives the `batch` coldest (the
 *     tail) back to the buddy lists, again under zone->lock once.
 *
 * Orders above 0 go straight to the buddy lists.  A page on a list is
 * free but not in the buddy lists: it cannot merge with its buddy until
 * it goes back.  drain_all_pages() empties every CPU's lists;
 * alloc_pages() calls it, as Linux's direct reclaim does, before it
 * fails, so no allocation fails while pages sit on some CPU's list.
 *
 * Free counts.  zone->free_pages counts the buddy lists only (Linux's
 * NR_FREE_PAGES); nr_free_pages() -- MemFree, sysinfo, the user reserve
 * -- adds the pages on the per-CPU lists, which Linux's MemFree leaves
 * out: they are free, any allocation gets them (after a drain), and a
 * test that compares free memory before and after some work then sees
 * them.
 *
 * Portable: the host unit tests run this file over a fake mem_map.
 * Locking: one spinlock per zone, taken with interrupts off, so that
 * allocation from interrupt context (GFP_ATOMIC) is safe.  Each CPU's
 * list has its own pcp->lock (as Linux's since 6.0), also taken with
 * interrupts off: its own CPU takes it on every order-0 allocation and
 * free, and another CPU only to drain it, so it costs no cache-line
 * bounce.  Order: pcp->lock, then zone->lock.  Never sleeps.
 */
#include <spindle/mm.h>
#include <spindle/spinlock.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/ksyms.h>
#include <spindle/smp.h>

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

/*
 * A CPU's list of free order-0 pages for one zone.  count, high and batch
 * as Linux's; the list is hot first (a free adds at the head, an
 * allocation takes the head, a drain takes from the tail).
 */
struct per_cpu_pages {
	spinlock_t lock;        /* its CPU; any CPU draining it */
	unsigned int count;     /* pages on the list */
	unsigned int high;      /* a free that makes count reach it drains a batch */
	unsigned int batch;     /* pages moved per refill or drain */
	struct list_head list;
};

struct page *mem_map;
unsigned long max_pfn;
static struct zone zones[MAX_NR_ZONES];
static DEFINE_PER_CPU(struct per_cpu_pages[MAX_NR_ZONES], zone_pcp);
static bool pcp_up;     /* page_alloc_init_late() has made the lists */
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
	pcp_up = false; /* until page_alloc_init_late(): a host test may start over */
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

/* --- per-CPU page lists ------------------------------------------------ */

/*
 * Linux's zone_batchsize(): about a quarter of a thousandth of the zone,
 * at most 1 MiB's worth, rounded down to 2^n - 1 pages (Linux found that
 * batches of a power of two, taken in turn by two tasks, could leave each
 * with pages of only half of the cache's colours), and at least 1.  A
 * 128 MiB guest gets 7, a zone of 1 GiB or more 63.  high is 6 batches,
 * Linux's rule before 5.14 (since then it comes from the zone's low
 * watermark, which Spindle's allocator does not have).
 */
#define PCP_HIGH_BATCHES 6

static unsigned int zone_batchsize(const struct zone *zone)
{
	unsigned long batch = min(zone->managed_pages >> 10, (1ul << 20) / PAGE_SIZE) / 4;
	unsigned long p2 = 1;

	if (batch < 1)
		batch = 1;
	batch += batch / 2;
	while (p2 * 2 <= batch)
		p2 *= 2;
	return p2 > 1 ? (unsigned int)(p2 - 1) : 1;
}

void page_alloc_init_late(void)
{
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			struct per_cpu_pages *pcp = &per_cpu(zone_pcp, cpu)[z];

			spin_lock_init(&pcp->lock);
			INIT_LIST_HEAD(&pcp->list);
			pcp->count = 0;
			pcp->batch = zone_batchsize(&zones[z]);
			pcp->high = PCP_HIGH_BATCHES * pcp->batch;
		}
	WRITE_ONCE(pcp_up, true);
}

/* Move up to pcp->batch order-0 pages from the buddy lists to the end
 * of pcp's list, under zone->lock once.  Caller holds pcp->lock. */
static void rmqueue_bulk(struct zone *zone, struct per_cpu_pages *pcp)
{
	assert_spin_locked(&pcp->lock);
	spin_lock(&zone->lock);
	for (unsigned int i = 0; i < pcp->batch; i++) {
		struct page *page = __rmqueue(zone, 0);

		if (!page)
			break;
		page->flags |= PG_pcp;
		list_add_tail(&page->lru, &pcp->list);
		pcp->count++;
	}
	spin_unlock(&zone->lock);
}

/* Give the n coldest pages of pcp's list back to the buddy lists, under
 * zone->lock once.  Caller holds pcp->lock. */
static void free_pcppages_bulk(struct zone *zone, struct per_cpu_pages *pcp, unsigned int n)
{
	assert_spin_locked(&pcp->lock);
	spin_lock(&zone->lock);
	while (n-- && pcp->count) {
		struct page *page = list_last_entry(&pcp->list, struct page, lru);

		list_del_init(&page->lru);
		page->flags &= ~PG_pcp;
		pcp->count--;
		__free_one_block(zone, page_to_pfn(page), 0);
	}
	spin_unlock(&zone->lock);
}

/* Linux's rmqueue_pcplist(): an order-0 page from this CPU's list. */
static struct page *rmqueue_pcplist(struct zone *zone)
{
	unsigned long flags = local_irq_save(); /* stay on this CPU */
	struct per_cpu_pages *pcp = &this_cpu_ptr(&zone_pcp)[0][zone - zones];
	struct page *page = NULL;

	spin_lock(&pcp->lock);
	if (!pcp->count)
		rmqueue_bulk(zone, pcp);
	if (pcp->count) {
		page = list_first_entry(&pcp->list, struct page, lru);
		list_del_init(&page->lru);
		page->flags &= ~PG_pcp;
		pcp->count--;
	}
	spin_unlock(&pcp->lock);
	local_irq_restore(flags);
	return page;
}

/* Linux's free_unref_page(): an order-0 page onto this CPU's list. */
static void free_unref_page(struct zone *zone, struct page *page)
{
	unsigned long flags = local_irq_save();
	struct per_cpu_pages *pcp = &this_cpu_ptr(&zone_pcp)[0][zone - zones];

	spin_lock(&pcp->lock);
	page->flags |= PG_pcp;
	list_add(&page->lru, &pcp->list);
	if (++pcp->count >= pcp->high)
		free_pcppages_bulk(zone, pcp, pcp->batch);
	spin_unlock(&pcp->lock);
	local_irq_restore(flags);
}

unsigned long drain_all_pages(void)
{
	unsigned long drained = 0;

	if (!READ_ONCE(pcp_up))
		return 0;
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			struct per_cpu_pages *pcp = &per_cpu(zone_pcp, cpu)[z];
			unsigned long flags;

			spin_lock_irqsave(&pcp->lock, flags);
			drained += pcp->count;
			free_pcppages_bulk(&zones[z], pcp, pcp->count);
			spin_unlock_irqrestore(&pcp->lock, flags);
		}
	return drained;
}

/* The pages on every CPU's lists: a moment's sum, read without the locks. */
static unsigned long nr_pcp_pages(void)
{
	unsigned long n = 0;

	if (!READ_ONCE(pcp_up))
		return 0;
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
		for (int z = 0; z < MAX_NR_ZONES; z++)
			n += READ_ONCE(per_cpu(zone_pcp, cpu)[z].count);
	return n;
}

void page_alloc_pcp_info(struct pcp_info *info)
{
	const struct per_cpu_pages *pcp0 = &per_cpu(zone_pcp, 0)[ZONE_DMA32];

	info->count = nr_pcp_pages();
	info->high = READ_ONCE(pcp_up) ? pcp0->high : 0;
	info->batch = READ_ONCE(pcp_up) ? pcp0->batch : 0;
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
	bool drained = false;

	if (order >= MAX_ORDER)
		return NULL;
retry:
	for (size_t i = 0; i < nz && !page; i++) {
		struct zone *zone = &zones[zl[i]];
		unsigned long flags;

		if (zone->start_pfn == zone->end_pfn)
			continue;
		if (order == 0 && READ_ONCE(pcp_up)) {
			page = rmqueue_pcplist(zone);
			continue;
		}
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
	/*
	 * Still nothing: the free pages left may be on the CPUs' lists, or
	 * be the buddies that a block of this order needs back.  Drain them
	 * all, once, as Linux's direct reclaim does before it gives up.  It
	 * only spins on the lists' locks, so atomic allocations get it too.
	 */
	if (!page && !drained) {
		drained = true;
		if (drain_all_pages())
			goto retry;
	}
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
	if (page->flags & (PG_buddy | PG_pcp | PG_reserved | PG_slab))
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
	if (order == 0 && READ_ONCE(pcp_up)) {
		free_unref_page(zone, page);
		return;
	}
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
	return n + nr_pcp_pages();
}

unsigned long totalram_pages(void)
{
	return zones[ZONE_DMA32].managed_pages + zones[ZONE_NORMAL].managed_pages;
}
