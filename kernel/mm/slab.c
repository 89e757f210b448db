// SPDX-License-Identifier: MIT
/*
 * slab.c - kmalloc()/kfree(): small objects carved out of pages.
 *
 * Requests up to KMALLOC_MAX_CACHE_SIZE bytes are rounded up to a power of
 * two (16 .. 2048) and served by that size's cache.  A cache owns "slabs":
 * single pages cut into equal objects.  A free object holds a pointer to
 * the next free one (the freelist lives inside the free memory itself), and
 * struct page records the slab's cache, freelist and use count, so kfree()
 * finds everything from the pointer alone (virt_to_page).
 *
 *   partial list: slabs with at least one free object (allocation takes
 *                 from the first); a slab whose last object is freed goes
 *                 back to the page allocator, a full slab leaves the list.
 *
 * Larger requests get whole pages from the buddy allocator (PG_head and
 * order in the head page tell kfree how many).
 *
 * kfree() checks what it is given: a pointer that is not the start of an
 * object, or an object that is already free, panics with the culprit's
 * address -- silent corruption of a freelist is much harder to debug.
 * Portable (host unit tests); never sleeps; interrupt-safe.
 */
#include <spindle/mm.h>
#include <spindle/spinlock.h>
#include <spindle/printk.h>
#include <spindle/string.h>

#define KMALLOC_MIN_SHIFT  4                    /* 16 bytes */
#define KMALLOC_MAX_SHIFT  11                   /* 2048 bytes */
#define NR_KMALLOC_CACHES  (KMALLOC_MAX_SHIFT - KMALLOC_MIN_SHIFT + 1)

struct kmem_cache {
	const char *name;
	size_t size;                    /* object size */
	unsigned int objs_per_slab;
	struct list_head partial;       /* slabs with free objects */
	unsigned long nr_slabs;
	spinlock_t lock;
};

BUILD_BUG_ON(KMALLOC_MAX_CACHE_SIZE != (1 << KMALLOC_MAX_SHIFT));

static struct kmem_cache kmalloc_caches[NR_KMALLOC_CACHES];
static const char *const cache_names[NR_KMALLOC_CACHES] = {
	"kmalloc-16", "kmalloc-32", "kmalloc-64", "kmalloc-128",
	"kmalloc-256", "kmalloc-512", "kmalloc-1024", "kmalloc-2048",
};

static struct kmem_cache *kmalloc_cache(size_t size)
{
	unsigned int shift = KMALLOC_MIN_SHIFT;
	struct kmem_cache *c;

	while ((1ul << shift) < size)
		shift++;
	c = &kmalloc_caches[shift - KMALLOC_MIN_SHIFT];
	if (!c->size) {                 /* first use: set the cache up */
		c->name = cache_names[shift - KMALLOC_MIN_SHIFT];
		c->size = 1ul << shift;
		c->objs_per_slab = PAGE_SIZE / c->size;
		INIT_LIST_HEAD(&c->partial);
		spin_lock_init(&c->lock);
	}
	return c;
}

#ifdef SPINDLE_HOST
/* Host tests only: forget every slab, as the fake RAM under them is freed
 * (tests/unit/shim/host_kernel.c, host_mm_exit). */
void kmem_host_reset(void)
{
	memset(kmalloc_caches, 0, sizeof(kmalloc_caches));
}
#endif

/* A new slab: one page, every object on its freelist. Caller holds lock. */
static struct page *new_slab(struct kmem_cache *c, gfp_t gfp)
{
	struct page *page = alloc_page(gfp & ~__GFP_ZERO);
	char *base;

	if (!page)
		return NULL;
	base = page_address(page);
	for (unsigned int i = 0; i < c->objs_per_slab; i++)
		*(void **)(base + i * c->size) =
			i + 1 < c->objs_per_slab ? base + (i + 1) * c->size : NULL;
	page->flags |= PG_slab;
	page->slab_cache = c;
	page->freelist = base;
	page->inuse = 0;
	list_add(&page->lru, &c->partial);
	c->nr_slabs++;
	return page;
}

void *kmalloc(size_t size, gfp_t gfp)
{
	struct kmem_cache *c;
	struct page *page;
	unsigned long flags;
	void *obj;

	if (size == 0)
		return NULL;
	if (size > KMALLOC_MAX_CACHE_SIZE) {
		page = alloc_pages(gfp, get_order(size));
		return page ? page_address(page) : NULL;
	}
	c = kmalloc_cache(size);
	spin_lock_irqsave(&c->lock, flags);
	if (list_empty(&c->partial) && !new_slab(c, gfp)) {
		spin_unlock_irqrestore(&c->lock, flags);
		return NULL;
	}
	page = list_first_entry(&c->partial, struct page, lru);
	obj = page->freelist;
	page->freelist = *(void **)obj;
	if (++page->inuse == c->objs_per_slab)
		list_del_init(&page->lru);      /* full: off the partial list */
	spin_unlock_irqrestore(&c->lock, flags);
	if (gfp & __GFP_ZERO)
		memset(obj, 0, c->size);
	return obj;
}

void *kzalloc(size_t size, gfp_t gfp)
{
	return kmalloc(size, gfp | __GFP_ZERO);
}

void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	if (size && n > (size_t)-1 / size)
		return NULL;                    /* n * size would overflow */
	return kzalloc(n * size, gfp);
}

static void slab_free(struct kmem_cache *c, struct page *page, void *obj)
{
	char *base = page_address(page);
	unsigned long flags;

	if (((char *)obj - base) % c->size)
		panic("kfree: %p is not the start of a %s object", obj, c->name);
	spin_lock_irqsave(&c->lock, flags);
	for (void *f = page->freelist; f; f = *(void **)f)
		if (f == obj)
			panic("kfree: double free of %p (%s)", obj, c->name);
	if (page->inuse == c->objs_per_slab)
		list_add(&page->lru, &c->partial);      /* full -> partial */
	*(void **)obj = page->freelist;
	page->freelist = obj;
	if (--page->inuse == 0) {
		list_del_init(&page->lru);
		page->flags &= ~PG_slab;
		page->slab_cache = NULL;
		c->nr_slabs--;
		spin_unlock_irqrestore(&c->lock, flags);
		__free_page(page);
		return;
	}
	spin_unlock_irqrestore(&c->lock, flags);
}

void kfree(const void *p)
{
	struct page *page;

	if (!p)
		return;
	page = virt_to_page(p);
	if (page->flags & PG_slab) {
		slab_free(page->slab_cache, page, (void *)p);
		return;
	}
	if (!(page->flags & PG_head) || ((unsigned long)p & ~PAGE_MASK))
		panic("kfree: %p was not returned by kmalloc", p);
	__free_pages(page, page->order);
}

size_t ksize(const void *p)
{
	struct page *page;

	if (!p)
		return 0;
	page = virt_to_page(p);
	if (page->flags & PG_slab)
		return page->slab_cache->size;
	return PAGE_SIZE << page->order;
}
