/* SPDX-License-Identifier: MIT */
/*
 * Memory management interface: physical pages, kmalloc, DMA memory.
 *
 * Physical memory is managed in 4 KiB pages by a buddy allocator
 * (kernel/mm/page_alloc.c): a block of 2^order pages is always aligned to
 * its own size, which is what lets dma_alloc_coherent() give a controller
 * the alignment it asks for.  Every page has a struct page in mem_map[].
 * All RAM is mapped at PAGE_OFFSET ("the direct map"), so
 *     page_address(page) == __va(page_to_phys(page))
 * and a driver turns a kernel pointer into a bus address with __pa().
 *
 * kmalloc (kernel/mm/slab.c) serves small objects from per-size caches of
 * one-page slabs and larger ones straight from the page allocator.
 *
 * Failure is always visible: alloc_pages/kmalloc return NULL, never a
 * pointer into memory that someone else owns.
 */
#ifndef SPINDLE_MM_H
#define SPINDLE_MM_H

#include <spindle/types.h>
#include <spindle/compiler.h>
#include <spindle/list.h>

#define PAGE_SHIFT      12
#define PAGE_SIZE       (1UL << PAGE_SHIFT)
#define PAGE_MASK       (~(PAGE_SIZE - 1))
#define MAX_ORDER       11              /* largest block: 2^10 pages = 4 MiB */

typedef unsigned int gfp_t;
#define __GFP_ZERO      0x01u           /* fill with zeroes */
#define __GFP_DMA32     0x02u           /* physical address below 4 GiB */
#define __GFP_NOIO      0x04u           /* must not start I/O to get memory */
#define __GFP_ATOMIC    0x08u           /* caller cannot sleep */
#define GFP_KERNEL      0u
#define GFP_ATOMIC      __GFP_ATOMIC
#define GFP_NOIO        __GFP_NOIO
#define GFP_DMA32       __GFP_DMA32

struct address_space;

/* struct page: one per physical page frame. */
struct page {
	unsigned long flags;
	struct list_head lru;           /* free list (buddy) or slab list */
	unsigned int order;             /* buddy: block order (head page) */
	unsigned int _refcount;         /* head of an allocation: its users */
	union {
		struct {                        /* a slab page */
			unsigned int inuse;             /* objects handed out */
			struct kmem_cache *slab_cache;  /* owning cache */
			void *freelist;                 /* first free object */
		};
		struct {                        /* a page-cache page (pagemap.h) */
			struct address_space *mapping;  /* whose data it holds */
			pgoff_t index;                  /* where: offset / PAGE_SIZE */
			struct page *next_hash;         /* chain in the page hash */
			struct list_head i_list;        /* on mapping->i_pages */
			unsigned int io_pending;        /* bio segments in flight (mpage) */
			/* the sectors write-back must write (bit n: the
			 * page's 512-byte sector n); 0: all of them.  A file
			 * system dirtying only its own blocks of a device's
			 * page sets it (fs/mpage.c) */
			unsigned int dirty_sectors;
		};
	};
};

#define PG_reserved     0x1ul   /* not RAM, or used by the kernel image */
#define PG_buddy        0x2ul   /* head of a free buddy block */
#define PG_slab         0x4ul   /* belongs to a kmalloc slab */
#define PG_head         0x8ul   /* head of an allocated multi-page block */
#define PG_poisoned     0x10ul  /* free, filled with PAGE_POISON (page_poison=1) */
#define PG_pcp          0x20ul  /* free, on a CPU's per-CPU page list */
/* 0x100 and up: the page cache's bits (include/spindle/pagemap.h) */

/* Physical address <-> kernel virtual address, through the direct map. */
#ifdef SPINDLE_HOST
extern char *host_phys_base;    /* tests/unit/shim: fake "RAM" arena */
#define __va(pa)  ((void *)(host_phys_base + (phys_addr_t)(pa)))
#define __pa(va)  ((phys_addr_t)((char *)(va) - host_phys_base))
#else
#include <asm/layout.h>
#define __va(pa)  ((void *)((phys_addr_t)(pa) + PAGE_OFFSET))
static inline phys_addr_t __pa(const volatile void *va)
{
	unsigned long v = (unsigned long)va;

	/* Kernel image addresses (globals, the boot stack) are mapped too. */
	if (v >= KERNEL_VMA)
		return v - KERNEL_VMA;
	return v - PAGE_OFFSET;
}
#endif

extern struct page *mem_map;
extern unsigned long max_pfn;

#define page_to_pfn(p)     ((unsigned long)((p) - mem_map))
#define pfn_to_page(pfn)   (&mem_map[pfn])
#define page_to_phys(p)    ((phys_addr_t)page_to_pfn(p) << PAGE_SHIFT)
#define page_address(p)    __va(page_to_phys(p))
#define virt_to_page(va)   pfn_to_page(__pa(va) >> PAGE_SHIFT)

/* The page allocator. */
struct page *alloc_pages(gfp_t gfp, unsigned int order);
void __free_pages(struct page *page, unsigned int order);
static inline struct page *alloc_page(gfp_t gfp) { return alloc_pages(gfp, 0); }
static inline void __free_page(struct page *p) { __free_pages(p, 0); }
/*
 * A page's users (Linux's page refcount).  alloc_pages() hands out the
 * head page of a block with one reference, the caller's; get_page() adds
 * one (direct I/O pins a user's page so that munmap or exit cannot free
 * it under a device's DMA), and __free_pages() -- or put_page() -- drops
 * one: the block goes back to the buddy lists only with the last.  Only
 * the head page of an allocation counts; safe from interrupt handlers
 * (a bio's completion drops its pins).
 */
static inline void get_page(struct page *page)
{
	__atomic_add_fetch(&page->_refcount, 1, __ATOMIC_RELAXED);
}
static inline unsigned int page_count(const struct page *page)
{
	return __atomic_load_n(&page->_refcount, __ATOMIC_RELAXED);
}
static inline void put_page(struct page *page) { __free_pages(page, page->order); }
/*
 * Pin nr_pages pages of the current process from user address start
 * (rounded down to its page) for a device's I/O, faulting in the absent
 * ones; FOLL_WRITE: the device will write them.  Returns how many were
 * pinned from the first (fewer at the first page the process may not
 * access that way), or -EFAULT if not even the first.  Each pinned page
 * is released with unpin_user_page(), after the I/O.  May sleep.
 * (kernel/mm/mmap.c)
 */
#define FOLL_WRITE      0x01u
long pin_user_pages_fast(unsigned long start, unsigned int nr_pages,
			 unsigned int gup_flags, struct page **pages);
void unpin_user_page(struct page *page);
/* Kernel-virtual versions. */
unsigned long __get_free_pages(gfp_t gfp, unsigned int order);
void free_pages(unsigned long addr, unsigned int order);
/* Smallest order whose block holds size bytes. */
unsigned int get_order(size_t size);
/* Free pages: the buddy lists' and those on the CPUs' lists (below). */
unsigned long nr_free_pages(void);
/* Reclaim (fs/filemap.c): free up to nr clean cached pages that nobody
 * uses, least recently used first; returns how many.  alloc_pages()
 * calls it when it runs dry.  Does not sleep. */
unsigned long try_to_free_pages(unsigned long nr);
unsigned long totalram_pages(void);

/* kmalloc: small objects; zeroed with __GFP_ZERO or kzalloc. */
void *kmalloc(size_t size, gfp_t gfp);
void *kzalloc(size_t size, gfp_t gfp);
void *kcalloc(size_t n, size_t size, gfp_t gfp);
void kfree(const void *p);
size_t ksize(const void *p);       /* usable size of an allocation */
size_t kmem_cache_size(const struct kmem_cache *c); /* a slab's object size */
#define KMALLOC_MAX_CACHE_SIZE 2048 /* above this, whole pages */
/* Boot, once the per-CPU areas exist: kmalloc starts using each CPU's own
 * array of free objects (kernel/mm/slab.c).  Not with slab_debug. */
void kmem_cache_init_late(void);
/* Empty every CPU's arrays into the slabs and give back the slabs left
 * unused; returns the pages freed.  Reclaim calls it; so does a test that
 * counts free pages (freed objects may be parked in the arrays).  Does
 * not sleep; not from an interrupt handler. */
unsigned long kmem_cache_shrink_all(void);
/* /proc/slabinfo: a kmalloc cache's per-CPU arrays (Linux's "tunables"
 * limit and batchcount), and the free objects they hold just now. */
struct slabinfo {
	unsigned long cpu_free;
	unsigned int limit, batchcount;
};
void kmalloc_slabinfo(size_t objsize, struct slabinfo *info);

/*
 * Debug allocators (docs/memory.md), switched on at boot before the first
 * allocation (kernel/main.c reads the command line):
 *   slab_debug=1 (or slub_debug): red zones, poison and the allocating and
 *     freeing call sites of every kmalloc object, with Linux's SLUB reports
 *     ("BUG kmalloc-64 (...): Poison overwritten") -- kernel/mm/slab.c;
 *   page_poison=1: freed pages are filled with PAGE_POISON and checked when
 *     handed out again ("pagealloc: memory corruption") -- page_alloc.c.
 * Each returns 0, or -EBUSY once its allocator has handed memory out.
 * The _errors() counts are the reports so far (tests read them).
 */
int slab_debug_enable(void);
unsigned long slab_debug_errors(void);
int page_poison_enable(void);
unsigned long page_poison_errors(void);

/*
 * DMA memory (kernel/mm/dma.c): physically contiguous, below 4 GiB (IDE's
 * bus-master engine and 32-bit AHCI controllers cannot address more),
 * zeroed, and aligned to at least `align` bytes (a power of two; 0 means
 * page-aligned).  *dma_handle receives the physical address to program
 * into the device.  Returns NULL when memory is short.
 */
void *dma_alloc_coherent(size_t size, size_t align, phys_addr_t *dma_handle);
void dma_free_coherent(void *cpu_addr, size_t size);

/*
 * A dma_pool hands out many small blocks of one size, each aligned to
 * `align` and never crossing a `boundary` (0 = no rule) -- e.g. AHCI
 * command tables (128-byte aligned), IDE PRD tables (must not cross 64 KiB).
 */
struct dma_pool;
struct dma_pool *dma_pool_create(const char *name, size_t size,
				 size_t align, size_t boundary);
void *dma_pool_alloc(struct dma_pool *pool, gfp_t gfp, phys_addr_t *handle);
void dma_pool_free(struct dma_pool *pool, void *vaddr, phys_addr_t handle);
void dma_pool_destroy(struct dma_pool *pool);

/* Boot: the arch code (kernel/arch/x86/paging.c) sets mem_map and calls
 * page_alloc_init(), then hands every free RAM range to free_pages_range(). */
void mm_init(void);
void page_alloc_init(unsigned long max_pfn);
void free_pages_range(unsigned long start_pfn, unsigned long end_pfn);
/*
 * Per-CPU page lists (page_alloc.c, Linux's per_cpu_pages): each CPU
 * keeps a few free order-0 pages per zone, so that most alloc_page()s and
 * frees take no lock another CPU takes.  page_alloc_init_late() makes
 * them, at boot once the per-CPU areas exist; until then every page goes
 * through the zone's lock.  drain_all_pages() gives every CPU's pages
 * back to the buddy lists and returns how many (alloc_pages() calls it
 * before it fails; a test that needs the buddy lists whole, too).  Does
 * not sleep; any context.  page_alloc_pcp_info(): the pages on the lists
 * now, and one list's high and batch (DMA32's; 0 before init_late).
 */
void page_alloc_init_late(void);
unsigned long drain_all_pages(void);
struct pcp_info {
	unsigned long count;
	unsigned int high, batch;
};
void page_alloc_pcp_info(struct pcp_info *info);

#endif /* SPINDLE_MM_H */
