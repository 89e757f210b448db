// SPDX-License-Identifier: MIT
/*
 * dma.c - memory a device reads and writes by itself (bus mastering).
 *
 * A controller is given physical addresses, so its buffers and
 * descriptor tables must be physically contiguous, reachable by it (below
 * 4 GiB: IDE's PRD entries and 32-bit AHCI hold 32-bit addresses), and
 * aligned as its specification demands.  On x86 DMA is cache-coherent, so
 * "coherent" memory is ordinary memory; the CPU sees the device's writes.
 *
 *   dma_alloc_coherent()  whole pages: the buddy allocator's natural
 *                         alignment gives any power-of-two alignment up to
 *                         the block size.
 *   dma_pool              many small blocks of one size carved from pool
 *                         pages, each block aligned and, if asked, never
 *                         crossing a `boundary` (as an IDE PRD table must
 *                         not cross 64 KiB).  No driver needs it today:
 *                         AHCI's and IDE's tables take whole pages.
 * Portable (host unit tests).  Allocation does not sleep.
 */
#include <spindle/mm.h>
#include <spindle/spinlock.h>
#include <spindle/printk.h>
#include <spindle/string.h>

void *dma_alloc_coherent(size_t size, size_t align, phys_addr_t *dma_handle)
{
	struct page *page;

	if (!size || (align && !is_power_of_2(align)))
		return NULL;
	page = alloc_pages(__GFP_DMA32 | __GFP_ZERO, get_order(max(size, align)));
	if (!page)
		return NULL;
	*dma_handle = page_to_phys(page);
	return page_address(page);
}

void dma_free_coherent(void *cpu_addr, size_t size)
{
	struct page *page;

	(void)size;
	if (!cpu_addr)
		return;
	page = virt_to_page(cpu_addr);
	__free_pages(page, page->order);
}

struct dma_block {
	struct dma_block *next;
};

struct dma_pool {
	char name[32];
	size_t size;                    /* block size, a multiple of align */
	size_t boundary;
	struct dma_block *free;         /* free blocks, in any pool page */
	struct list_head pages;         /* pool pages, through page->lru */
	spinlock_t lock;
};

struct dma_pool *dma_pool_create(const char *name, size_t size,
				 size_t align, size_t boundary)
{
	struct dma_pool *pool;

	if (!align)
		align = sizeof(void *);
	if (!size || !is_power_of_2(align) || (boundary && !is_power_of_2(boundary)))
		return NULL;
	size = ALIGN(max(size, sizeof(struct dma_block)), align);
	if (size > PAGE_SIZE || (boundary && size > boundary))
		return NULL;
	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return NULL;
	strlcpy(pool->name, name, sizeof(pool->name));
	pool->size = size;
	pool->boundary = boundary;
	INIT_LIST_HEAD(&pool->pages);
	spin_lock_init(&pool->lock);
	return pool;
}

/* Cut a fresh page into blocks.  Caller holds pool->lock. */
static bool pool_grow(struct dma_pool *pool, gfp_t gfp)
{
	struct page *page = alloc_page(__GFP_DMA32 | (gfp & __GFP_ATOMIC));
	phys_addr_t pa;

	if (!page)
		return false;
	list_add(&page->lru, &pool->pages);
	pa = page_to_phys(page);
	for (size_t off = 0; off + pool->size <= PAGE_SIZE; off += pool->size) {
		struct dma_block *b;

		/* Skip a block that would straddle a boundary. */
		if (pool->boundary &&
		    ALIGN_DOWN(pa + off, pool->boundary) !=
		    ALIGN_DOWN(pa + off + pool->size - 1, pool->boundary))
			continue;
		b = __va(pa + off);
		b->next = pool->free;
		pool->free = b;
	}
	return true;
}

void *dma_pool_alloc(struct dma_pool *pool, gfp_t gfp, phys_addr_t *handle)
{
	struct dma_block *b;
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	if (!pool->free && !pool_grow(pool, gfp)) {
		spin_unlock_irqrestore(&pool->lock, flags);
		return NULL;
	}
	b = pool->free;
	pool->free = b->next;
	spin_unlock_irqrestore(&pool->lock, flags);
	memset(b, 0, pool->size);
	*handle = __pa(b);
	return b;
}

void dma_pool_free(struct dma_pool *pool, void *vaddr, phys_addr_t handle)
{
	struct dma_block *b = vaddr;
	unsigned long flags;

	if (__pa(vaddr) != handle)
		panic("dma_pool_free(%s): %p does not match handle %#llx",
		      pool->name, vaddr, (unsigned long long)handle);
	spin_lock_irqsave(&pool->lock, flags);
	b->next = pool->free;
	pool->free = b;
	spin_unlock_irqrestore(&pool->lock, flags);
}

/* Frees the pool and all its pages; every block must have been freed. */
void dma_pool_destroy(struct dma_pool *pool)
{
	struct page *page, *tmp;

	if (!pool)
		return;
	list_for_each_entry_safe(page, tmp, &pool->pages, lru) {
		list_del_init(&page->lru);
		__free_page(page);
	}
	kfree(pool);
}
