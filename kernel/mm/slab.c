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
 *   per-CPU array: in front of the slabs, each CPU keeps a stack of free
 *                 objects of each size, so that kmalloc and kfree take no
 *                 lock another CPU takes ("per-CPU array caches" below).
 *
 * Larger requests get whole pages from the buddy allocator (PG_head and
 * order in the head page tell kfree how many).
 *
 * kfree() checks what it is given: a pointer that is not the start of an
 * object, or an object that is already free, panics with the culprit's
 * address -- silent corruption of a freelist is much harder to debug.
 *
 * slab_debug (boot option slab_debug=1, or Linux's slub_debug; see
 * slab_debug_enable() below) adds Linux's SLUB debugging: red zones,
 * poison, and who allocated and freed each object.  Memory bugs are then
 * reported as Linux reports them and the kernel goes on.
 *
 * Portable (host unit tests); never sleeps; interrupt-safe.
 */
#include <spindle/mm.h>
#include <spindle/spinlock.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/ksyms.h>
#include <spindle/sched.h>
#include <spindle/time.h>
#include <spindle/errno.h>

#define KMALLOC_MIN_SHIFT  4                    /* 16 bytes */
#define KMALLOC_MAX_SHIFT  11                   /* 2048 bytes */
#define NR_KMALLOC_CACHES  (KMALLOC_MAX_SHIFT - KMALLOC_MIN_SHIFT + 1)

struct kmem_cache {
	const char *name;
	size_t size;                    /* object size */
	size_t stride;			/* object + its debug fields (or size) */
	size_t fp_offset;		/* where a free object keeps the next */
	unsigned int objs_per_slab;
	struct list_head partial;       /* slabs with free objects */
	unsigned long nr_slabs;
	spinlock_t lock;		/* the slabs: partial, nr_slabs, each
					 * page's freelist and inuse; taken
					 * after a CPU's ac->lock, irqs off */
};

BUILD_BUG_ON(KMALLOC_MAX_CACHE_SIZE != (1 << KMALLOC_MAX_SHIFT));

static struct kmem_cache kmalloc_caches[NR_KMALLOC_CACHES];
static const char *const cache_names[NR_KMALLOC_CACHES] = {
	"kmalloc-16", "kmalloc-32", "kmalloc-64", "kmalloc-128",
	"kmalloc-256", "kmalloc-512", "kmalloc-1024", "kmalloc-2048",
};

/*
 * --- slab_debug: Linux's SLUB debugging (red zones, poison, user tracking) ---
 *
 * With slab_debug on, each object slot is laid out as
 *
 *   | object: size bytes | red zone | struct slab_debug_info | padding |
 *     ^ what kmalloc returns           fp, orig_size, alloc/free tracks
 *
 * and the slot is rounded up to a multiple of the object size, so that
 * kmalloc(2^n) stays 2^n-aligned, as Linux guarantees.  The bytes hold:
 *
 *   object, free          POISON_FREE (0x6b) ... POISON_END (0xa5): a write
 *                         after free changes them; checked when the object
 *                         is handed out again ("Poison overwritten").
 *                         Allocation keeps the poison (unless __GFP_ZERO):
 *                         reading memory you never wrote shows 0x6b6b...
 *   red zone, free        SLUB_RED_INACTIVE (0xbb)
 *   red zone, allocated   SLUB_RED_ACTIVE (0xcc), from the size the caller
 *                         asked for (kmalloc(60) in kmalloc-64: from byte
 *                         60) to the end of the red zone; checked at kfree
 *                         ("Redzone overwritten": an overflow).
 *
 * The freelist pointer moves out of the object into slab_debug_info, so
 * the poison covers every byte.  Each object records the call site and a
 * few frames of stack of its last allocation and free, printed in every
 * report as "INFO: Allocated in ..." / "INFO: Freed in ...".
 *
 * What happens after a report (Linux does the same): the kernel is
 * tainted (B) and goes on.  A double free is ignored; an object whose red
 * zone was overwritten is not freed (it leaks: its neighbour may be the
 * victim, and a later report would confuse); an object whose poison was
 * overwritten is never handed out again (whoever wrote it may still hold
 * the pointer).  The cost: two to eight times the memory per object, and
 * a check of every byte on each kmalloc and kfree.
 */
#define POISON_FREE 0x6b /* Linux's include/linux/poison.h */
#define POISON_END 0xa5
#define SLUB_RED_INACTIVE 0xbb
#define SLUB_RED_ACTIVE 0xcc
#define SLAB_RED_ZONE_SIZE 8 /* bytes after the object */
#define TRACK_ADDRS 4	     /* frames of stack kept per track */
#define OBJECT_DUMP_MAX 64   /* bytes of an object a report shows */

struct track {
	unsigned long addr;		  /* the caller of kmalloc/kfree */
	unsigned long addrs[TRACK_ADDRS]; /* its callers */
	u64 when;			  /* ktime_get_ns() */
	int pid;
};

struct slab_debug_info {
	void *fp;	  /* next free object, while free */
	size_t orig_size; /* what kmalloc was asked for */
	struct track alloc, free;
};

static bool slab_debug;
static unsigned long slab_debug_reports;
static bool cpu_caches_up; /* kmem_cache_init_late() ran; slab_debug is off */

int slab_debug_enable(void)
{
	for (int i = 0; i < NR_KMALLOC_CACHES; i++)
		if (kmalloc_caches[i].size)
			return -EBUSY; /* objects exist without debug fields */
	slab_debug = true;
	return 0;
}

unsigned long slab_debug_errors(void)
{
	return READ_ONCE(slab_debug_reports);
}

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
		c->stride = c->size;
		c->fp_offset = 0;
		if (slab_debug) {
			c->fp_offset = c->size + SLAB_RED_ZONE_SIZE;
			c->stride = ALIGN(c->fp_offset + sizeof(struct slab_debug_info), c->size);
		}
		c->objs_per_slab = PAGE_SIZE / c->stride;
		INIT_LIST_HEAD(&c->partial);
		spin_lock_init(&c->lock);
	}
	return c;
}

static inline void *get_freepointer(struct kmem_cache *c, void *obj)
{
	return *(void **)((char *)obj + c->fp_offset);
}

static inline void set_freepointer(struct kmem_cache *c, void *obj, void *fp)
{
	*(void **)((char *)obj + c->fp_offset) = fp;
}

static struct slab_debug_info *debug_info(struct kmem_cache *c, void *obj)
{
	return (struct slab_debug_info *)((char *)obj + c->fp_offset);
}

/* Fill in a track: the caller's address and the stack above its frame. */
static void set_track(struct track *t, unsigned long caller, unsigned long caller_rbp)
{
	memset(t, 0, sizeof(*t));
	t->addr = caller;
	stack_trace_save_fp(caller_rbp, t->addrs, TRACK_ADDRS);
	t->when = ktime_get_ns();
	t->pid = current->pid;
}

static void print_track(const char *what, const struct track *t)
{
	char sym[128];

	if (!t->addr)
		return;
	ksym_snprint(sym, sizeof(sym), t->addr);
	printk(KERN_ERR "INFO: %s in %s age=%llu cpu=0 pid=%d\n", what, sym,
	       (unsigned long long)((ktime_get_ns() - t->when) / (NSEC_PER_SEC / HZ)), t->pid);
	for (int i = 0; i < TRACK_ADDRS && t->addrs[i]; i++) {
		ksym_snprint(sym, sizeof(sym), t->addrs[i]);
		printk(KERN_ERR " %s\n", sym);
	}
}

/* Linux's print_section(): 16 bytes a line, the address first. */
static void print_section(const char *text, const u8 *p, size_t len)
{
	char line[3 * 16 + 1];

	for (size_t off = 0; off < len; off += 16) {
		int n = 0;

		for (size_t i = off; i < len && i < off + 16; i++)
			n += scnprintf(line + n, sizeof(line) - n, " %02x", p[i]);
		printk(KERN_ERR "%-8s%p:%s\n", off ? "" : text, (const void *)(p + off), line);
	}
}

/* The head of every report, as Linux's slab_bug(). */
static void slab_bug(struct kmem_cache *c, const char *reason)
{
	slab_debug_reports++;
	printk(KERN_ERR "=============================================================================\n");
	printk(KERN_ERR "BUG %s (%s): %s\n", c->name, print_tainted(), reason);
	printk(KERN_ERR "-----------------------------------------------------------------------------\n");
	printk(KERN_ERR "\n");
	add_taint(TAINT_BAD_PAGE); /* reports from now on say so */
}

/* Everything known about obj, then where the report comes from. */
static void object_err(struct kmem_cache *c, struct page *page, u8 *obj, const char *reason,
		       const u8 *first, const u8 *last, u8 expected)
{
	struct slab_debug_info *info = debug_info(c, obj);
	u8 *base = page_address(page);

	slab_bug(c, reason);
	if (first)
		printk(KERN_ERR "INFO: %p-%p @offset=%zu. First byte 0x%x instead of 0x%x\n",
		       (const void *)first, (const void *)last, (size_t)(first - base), *first,
		       expected);
	print_track("Allocated", &info->alloc);
	print_track("Freed", &info->free);
	printk(KERN_ERR "INFO: Slab %p objects=%u used=%u fp=%p flags=%#lx\n", (void *)page,
	       c->objs_per_slab, page->inuse, page->freelist, page->flags);
	printk(KERN_ERR "INFO: Object %p @offset=%zu fp=%p\n", (void *)obj,
	       (size_t)(obj - base), info->fp);
	printk(KERN_ERR "\n");
	print_section("Object ", obj, min(c->size, (size_t)OBJECT_DUMP_MAX));
	print_section("Redzone ", obj + c->size, SLAB_RED_ZONE_SIZE);
	printk(KERN_ERR "CPU: %u PID: %d Comm: %s %s\n", smp_processor_id(), current->pid,
	       current->comm, print_tainted());
	dump_stack();
}

/* The first and last byte in [p, p + len) that is not `value`, or NULL. */
static u8 *check_bytes(u8 *p, u8 value, size_t len, u8 **last)
{
	u8 *first = NULL;

	for (size_t i = 0; i < len; i++)
		if (p[i] != value) {
			if (!first)
				first = &p[i];
			*last = &p[i];
		}
	return first;
}

/* Is obj's poison intact (the object is free, or just allocated)? */
static bool check_poison(struct kmem_cache *c, struct page *page, u8 *obj)
{
	u8 *last = NULL, *first = check_bytes(obj, POISON_FREE, c->size - 1, &last);

	if (!first && obj[c->size - 1] != POISON_END)
		first = last = &obj[c->size - 1];
	if (!first)
		return true;
	object_err(c, page, obj, "Poison overwritten", first, last,
		   first == &obj[c->size - 1] ? POISON_END : POISON_FREE);
	return false;
}

/* Is the red zone from the caller's size up intact (`value`: in use or not)? */
static bool check_redzone(struct kmem_cache *c, struct page *page, u8 *obj, u8 value)
{
	size_t from = value == SLUB_RED_ACTIVE ? debug_info(c, obj)->orig_size : c->size;
	u8 *last = NULL, *first = check_bytes(obj + from, value, c->fp_offset - from, &last);

	if (!first)
		return true;
	object_err(c, page, obj, "Redzone overwritten", first, last, value);
	return false;
}

/* Poison a free object and mark its red zone inactive. */
static void init_object(struct kmem_cache *c, u8 *obj, u8 red)
{
	memset(obj, POISON_FREE, c->size - 1);
	obj[c->size - 1] = POISON_END;
	memset(obj + c->size, red, SLAB_RED_ZONE_SIZE);
}

/*
 * An object leaves the freelist (caller holds c->lock): poison and red
 * zone must be as kfree left them.  false: it was written after its free;
 * it stays off the freelist and counted in use, never handed out again.
 */
static bool alloc_debug_processing(struct kmem_cache *c, struct page *page, u8 *obj,
				   size_t size, unsigned long caller, unsigned long caller_rbp)
{
	struct slab_debug_info *info = debug_info(c, obj);

	if (!check_poison(c, page, obj) || !check_redzone(c, page, obj, SLUB_RED_INACTIVE)) {
		printk(KERN_ERR "FIX %s: Object at %p kept out of use\n", c->name, (void *)obj);
		return false;
	}
	info->orig_size = size;
	memset(obj + size, SLUB_RED_ACTIVE, c->fp_offset - size);
	set_track(&info->alloc, caller, caller_rbp);
	return true;
}

static bool on_freelist(struct kmem_cache *c, struct page *page, void *obj)
{
	for (void *f = page->freelist; f; f = get_freepointer(c, f))
		if (f == obj)
			return true;
	return false;
}

/*
 * kfree's checks (caller holds c->lock): a pointer into the middle of an
 * object, a double free, an overflow into the red zone.  false: do not
 * free it (the report said why).
 */
static bool free_debug_processing(struct kmem_cache *c, struct page *page, u8 *obj,
				  unsigned long caller, unsigned long caller_rbp)
{
	u8 *base = page_address(page);

	if ((size_t)(obj - base) % c->stride ||
	    (size_t)(obj - base) / c->stride >= c->objs_per_slab) {
		slab_bug(c, "Invalid object pointer");
		printk(KERN_ERR "INFO: kfree(%p): not the start of an object in slab %p\n",
		       (void *)obj, (void *)page);
		dump_stack();
		return false;
	}
	if (on_freelist(c, page, obj)) {
		object_err(c, page, obj, "Object already free", NULL, NULL, 0);
		return false;
	}
	if (!check_redzone(c, page, obj, SLUB_RED_ACTIVE)) {
		printk(KERN_ERR "FIX %s: Object at %p not freed\n", c->name, (void *)obj);
		return false;
	}
	set_track(&debug_info(c, obj)->free, caller, caller_rbp);
	init_object(c, obj, SLUB_RED_INACTIVE);
	return true;
}

/* --- the allocator --------------------------------------------------------- */

/*
 * A new slab: one page, every object on its freelist, put on the partial
 * list.  The page is allocated with no lock held: alloc_page() may
 * reclaim, and reclaim drains these very caches (kmem_cache_shrink_all).
 * The page is zeroed whole, the slack after the last object too, once
 * per slab: under QEMU's TCG a page that still holds code the firmware
 * ran makes every later store to it slow, and objects written only in
 * part never overwrite it all (docs/performance.md, "Per-CPU data on old
 * code"; scenario notdirty-q35).  Linux zeroes nothing here unless
 * booted with init_on_alloc=1.  Returns false when no page is left.
 */
static bool cache_grow(struct kmem_cache *c, gfp_t gfp)
{
	struct page *page = alloc_page(gfp | __GFP_ZERO);
	unsigned long flags;
	char *base;

	if (!page)
		return false;
	base = page_address(page);
	for (unsigned int i = 0; i < c->objs_per_slab; i++) {
		void *obj = base + i * c->stride;

		if (slab_debug) {
			memset(debug_info(c, obj), 0, sizeof(struct slab_debug_info));
			init_object(c, obj, SLUB_RED_INACTIVE);
		}
		set_freepointer(c, obj, i + 1 < c->objs_per_slab ? base + (i + 1) * c->stride : NULL);
	}
	page->flags |= PG_slab;
	page->slab_cache = c;
	page->freelist = base;
	page->inuse = 0;
	spin_lock_irqsave(&c->lock, flags);
	list_add(&page->lru, &c->partial);
	c->nr_slabs++;
	spin_unlock_irqrestore(&c->lock, flags);
	return true;
}

/* One object off the first partial slab (caller holds c->lock; the list
 * is not empty). */
static void *take_object(struct kmem_cache *c, struct page **pagep)
{
	struct page *page = list_first_entry(&c->partial, struct page, lru);
	void *obj = page->freelist;

	assert_spin_locked(&c->lock);
	page->freelist = get_freepointer(c, obj);
	if (++page->inuse == c->objs_per_slab)
		list_del_init(&page->lru); /* full: off the partial list */
	*pagep = page;
	return obj;
}

/*
 * obj goes back on its slab's freelist (caller holds c->lock).  A slab
 * left with no object in use comes off the lists and onto *empty, for
 * the caller to give back to the page allocator once c->lock is dropped.
 */
static void return_object(struct kmem_cache *c, struct page *page, void *obj,
			  struct list_head *empty)
{
	assert_spin_locked(&c->lock);
	if (page->inuse == c->objs_per_slab)
		list_add(&page->lru, &c->partial); /* full -> partial */
	set_freepointer(c, obj, page->freelist);
	page->freelist = obj;
	if (--page->inuse == 0) {
		list_del_init(&page->lru);
		page->flags &= ~PG_slab;
		page->slab_cache = NULL;
		c->nr_slabs--;
		list_add(&page->lru, empty);
	}
}

static unsigned long free_empty_slabs(struct list_head *empty)
{
	struct page *page, *next;
	unsigned long n = 0;

	list_for_each_entry_safe(page, next, empty, lru) {
		list_del_init(&page->lru);
		__free_page(page);
		n++;
	}
	return n;
}

/*
 * --- per-CPU array caches: kmalloc without a lock any other CPU takes ---
 *
 * c->lock is one lock for the whole cache: with every CPU allocating and
 * freeing through it, its cache line travels between CPUs on every
 * kmalloc and kfree (docs/locking.md, "lock_stat").  So each CPU keeps,
 * for each cache, a small stack of free objects of its own -- Linux's
 * struct array_cache from its SLAB allocator (mm/slab.c):
 *
 *   kmalloc: pop entry[--avail]; empty: refill, moving up to batchcount
 *            objects from the slabs in one go under c->lock (growing a
 *            new slab if there are none);
 *   kfree:   push entry[avail++]; full (limit): flush, giving the
 *            batchcount oldest back to their slabs in one go.
 *
 * A CPU that allocates and frees about as much as it allocates -- an I/O
 * submitted and completed on one CPU -- then never takes c->lock at all,
 * and the objects it reuses are the ones still in its own cache (last in,
 * first out).  Why the array and not SLUB's per-CPU slab (Linux's default,
 * struct kmem_cache_cpu): SLUB's fast path is lockless, a cmpxchg of the
 * freelist head and a transaction id, and correct only with reasoning
 * about preemption and interrupts between its instructions; the array is
 * a stack with a lock around it, readable in one sitting.
 *
 * Locking.  Each array has its own ac->lock, taken with interrupts off
 * (kfree comes from interrupt handlers).  Linux's SLAB protects the array
 * with interrupts off alone and empties other CPUs' arrays by sending
 * them an IPI.  Here reclaim must empty them from alloc_pages(), which
 * may run with locks held that an IPI's target could be spinning on: the
 * lock lets any CPU drain any array directly.  Only its own CPU takes it
 * otherwise, so its cache line stays there: it costs an uncontended
 * atomic, never a bounce.  Order: ac->lock, then c->lock.
 *
 * What the arrays change elsewhere:
 *   - objects in them are free but still counted in their slab's inuse:
 *     a slab holding one of them is not given back to the page allocator.
 *     kmem_cache_shrink_all() empties every array (reclaim calls it when
 *     memory runs out; tests that count free pages call it first), and
 *     /proc/slabinfo does not count them as active (kmalloc_slabinfo).
 *   - slab_debug=1 bypasses them, as SLUB's debug caches bypass its
 *     per-CPU slab: every kmalloc and kfree then goes to the slab under
 *     c->lock and gets all of its checks (a double free is found on the
 *     slab's freelist).  Without slab_debug a double free is caught when
 *     the object is the last one freed on this CPU, or the head of its
 *     slab's freelist -- as cheap as SLUB's check, and as partial.
 *   - before the per-CPU areas exist (kmem_cache_init_late()) every CPU
 *     would share one array: kmalloc goes to the slabs until then.
 */
#define AC_LIMIT_MAX 120 /* the most objects one array holds (small objects) */

struct array_cache {
	spinlock_t lock;   /* the array; its CPU, or a drain from any CPU */
	unsigned int avail;	 /* objects in entry[], the last freed on top */
	unsigned int limit;	 /* flush when a kfree finds avail == limit */
	unsigned int batchcount; /* objects moved per refill or flush */
	void *entry[AC_LIMIT_MAX];
};

static DEFINE_PER_CPU(struct array_cache[NR_KMALLOC_CACHES], kmalloc_cpu_caches);

/*
 * Linux's enable_cpucache() sizes: bigger objects, fewer of them, so that
 * an array holds at most about a page and a half of memory.  Half is
 * moved at a time, so that a CPU alternating kmalloc and kfree at the
 * edge of a batch does not refill and flush on every call.
 */
static unsigned int ac_limit(size_t size)
{
	if (size > 1024)
		return 24;
	if (size > 256)
		return 54;
	return AC_LIMIT_MAX;
}

void kmem_cache_init_late(void)
{
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
		for (int i = 0; i < NR_KMALLOC_CACHES; i++) {
			struct array_cache *ac = &per_cpu(kmalloc_cpu_caches, cpu)[i];

			spin_lock_init(&ac->lock);
			ac->avail = 0;
			ac->limit = ac_limit(1ul << (i + KMALLOC_MIN_SHIFT));
			ac->batchcount = (ac->limit + 1) / 2;
		}
	WRITE_ONCE(cpu_caches_up, !slab_debug);
}

/* This CPU's array for c.  Interrupts must be off (the task stays here). */
static struct array_cache *cpu_cache_get(struct kmem_cache *c)
{
	return &this_cpu_ptr(&kmalloc_cpu_caches)[0][c - kmalloc_caches];
}

/* Empty ac: move up to batchcount objects in from the slabs (caller
 * holds ac->lock).  Leaves it empty if the slabs have none free. */
static void cache_alloc_refill(struct kmem_cache *c, struct array_cache *ac)
{
	struct page *page;

	assert_spin_locked(&ac->lock);
	spin_lock(&c->lock);
	while (ac->avail < ac->batchcount && !list_empty(&c->partial))
		ac->entry[ac->avail++] = take_object(c, &page);
	spin_unlock(&c->lock);
}

/* Give ac's n oldest objects back to their slabs (caller holds ac->lock);
 * slabs left empty go on *empty. */
static void cache_flusharray(struct kmem_cache *c, struct array_cache *ac, unsigned int n,
			     struct list_head *empty)
{
	assert_spin_locked(&ac->lock);
	spin_lock(&c->lock);
	for (unsigned int i = 0; i < n; i++)
		return_object(c, virt_to_page(ac->entry[i]), ac->entry[i], empty);
	spin_unlock(&c->lock);
	ac->avail -= n;
	memmove(ac->entry, ac->entry + n, ac->avail * sizeof(ac->entry[0]));
}

/*
 * Every CPU's array of every cache emptied into the slabs, and the slabs
 * left with nothing in use given back to the page allocator (Linux's
 * kmem_cache_shrink(), for all the kmalloc caches).  Returns the pages
 * freed.  Callable from any context: the locks are taken with interrupts
 * off, so no holder of them can have been interrupted by the caller.
 * Does not sleep.
 */
unsigned long kmem_cache_shrink_all(void)
{
	unsigned long freed = 0;

	if (!READ_ONCE(cpu_caches_up))
		return 0;
	for (int i = 0; i < NR_KMALLOC_CACHES; i++) {
		struct kmem_cache *c = &kmalloc_caches[i];

		if (!READ_ONCE(c->size))
			continue;
		for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) {
			struct array_cache *ac = &per_cpu(kmalloc_cpu_caches, cpu)[i];
			LIST_HEAD(empty);
			unsigned long flags;

			spin_lock_irqsave(&ac->lock, flags);
			cache_flusharray(c, ac, ac->avail, &empty);
			spin_unlock_irqrestore(&ac->lock, flags);
			freed += free_empty_slabs(&empty);
		}
	}
	return freed;
}

void kmalloc_slabinfo(size_t objsize, struct slabinfo *info)
{
	int i = 0;

	memset(info, 0, sizeof(*info));
	while (i < NR_KMALLOC_CACHES - 1 && (1ul << (i + KMALLOC_MIN_SHIFT)) < objsize)
		i++;
	if (!READ_ONCE(cpu_caches_up))
		return;
	info->limit = ac_limit(objsize);
	info->batchcount = (info->limit + 1) / 2;
	/* a moment's sum: the arrays change under it, as the slabs do */
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
		info->cpu_free += READ_ONCE(per_cpu(kmalloc_cpu_caches, cpu)[i].avail);
}

/* kmalloc from this CPU's array (slab_debug off, arrays up). */
static void *cache_alloc_cpu(struct kmem_cache *c, gfp_t gfp)
{
	for (;;) {
		struct array_cache *ac;
		unsigned long flags = local_irq_save();
		void *obj = NULL;

		ac = cpu_cache_get(c);
		spin_lock(&ac->lock);
		if (!ac->avail)
			cache_alloc_refill(c, ac);
		if (ac->avail)
			obj = ac->entry[--ac->avail];
		spin_unlock(&ac->lock);
		local_irq_restore(flags);
		if (obj)
			return obj;
		if (!cache_grow(c, gfp)) /* with no lock held: it may reclaim */
			return NULL;
	}
}

/* kmalloc straight from the slabs, under c->lock: slab_debug, or early boot. */
static void *cache_alloc_slab(struct kmem_cache *c, size_t size, gfp_t gfp,
			      unsigned long caller, unsigned long caller_rbp)
{
	for (;;) {
		struct page *page;
		unsigned long flags;

		spin_lock_irqsave(&c->lock, flags);
		while (!list_empty(&c->partial)) {
			void *obj = take_object(c, &page);

			if (!slab_debug || alloc_debug_processing(c, page, obj, size, caller,
								  caller_rbp)) {
				spin_unlock_irqrestore(&c->lock, flags);
				return obj;
			}
		}
		spin_unlock_irqrestore(&c->lock, flags);
		if (!cache_grow(c, gfp))
			return NULL;
	}
}

/*
 * The one allocation path.  caller and caller_rbp: the return address and
 * frame of the public entry (kmalloc, kzalloc, ...), so that slab_debug
 * names the code that asked, not a wrapper.
 */
static void *slab_alloc(size_t size, gfp_t gfp, unsigned long caller, unsigned long caller_rbp)
{
	struct kmem_cache *c;
	struct page *page;
	void *obj;

	if (size == 0)
		return NULL;
	if (size > KMALLOC_MAX_CACHE_SIZE) {
		page = alloc_pages(gfp, get_order(size));
		return page ? page_address(page) : NULL;
	}
	c = kmalloc_cache(size);
	if (likely(READ_ONCE(cpu_caches_up)))
		obj = cache_alloc_cpu(c, gfp);
	else
		obj = cache_alloc_slab(c, size, gfp, caller, caller_rbp);
	if (obj && (gfp & __GFP_ZERO))
		memset(obj, 0, slab_debug ? size : c->size);
	return obj;
}

/* The caller's frame pointer: ours holds it (frame pointers are on). */
#define CALLER_RBP() (*(unsigned long *)__builtin_frame_address(0))

void *kmalloc(size_t size, gfp_t gfp)
{
	return slab_alloc(size, gfp, (unsigned long)__builtin_return_address(0), CALLER_RBP());
}

void *kzalloc(size_t size, gfp_t gfp)
{
	return slab_alloc(size, gfp | __GFP_ZERO, (unsigned long)__builtin_return_address(0),
			  CALLER_RBP());
}

void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	if (size && n > (size_t)-1 / size)
		return NULL;                    /* n * size would overflow */
	return slab_alloc(n * size, gfp | __GFP_ZERO, (unsigned long)__builtin_return_address(0),
			  CALLER_RBP());
}

/* kfree onto this CPU's array (slab_debug off, arrays up). */
static void cache_free_cpu(struct kmem_cache *c, struct page *page, void *obj)
{
	struct array_cache *ac;
	LIST_HEAD(empty);
	unsigned long flags = local_irq_save();

	ac = cpu_cache_get(c);
	spin_lock(&ac->lock);
	/* the cheap double-free checks (the full one is slab_debug's) */
	if ((ac->avail && ac->entry[ac->avail - 1] == obj) || READ_ONCE(page->freelist) == obj)
		panic("kfree: double free of %p (%s)", obj, c->name);
	if (ac->avail == ac->limit)
		cache_flusharray(c, ac, ac->batchcount, &empty);
	ac->entry[ac->avail++] = obj;
	spin_unlock(&ac->lock);
	local_irq_restore(flags);
	free_empty_slabs(&empty);
}

/* kfree straight to the slab, under c->lock: slab_debug, or early boot. */
static void cache_free_slab(struct kmem_cache *c, struct page *page, void *obj,
			    unsigned long caller, unsigned long caller_rbp)
{
	unsigned long flags;
	LIST_HEAD(empty);

	spin_lock_irqsave(&c->lock, flags);
	if (slab_debug) {
		if (!free_debug_processing(c, page, obj, caller, caller_rbp)) {
			spin_unlock_irqrestore(&c->lock, flags);
			return;
		}
	} else if (page->freelist == obj) {
		/*
		 * Only the list's head, as Linux's SLUB without debugging:
		 * the whole walk costs a step per free object on every
		 * kfree (a quarter of an ext2 file write's instructions);
		 * slab_debug=1 walks it all and reports instead.
		 */
		panic("kfree: double free of %p (%s)", obj, c->name);
	}
	return_object(c, page, obj, &empty);
	spin_unlock_irqrestore(&c->lock, flags);
	free_empty_slabs(&empty);
}

static void slab_free(struct kmem_cache *c, struct page *page, void *obj, unsigned long caller,
		      unsigned long caller_rbp)
{
	if (!slab_debug && ((char *)obj - (char *)page_address(page)) % c->size)
		panic("kfree: %p is not the start of a %s object", obj, c->name);
	if (likely(READ_ONCE(cpu_caches_up)))
		cache_free_cpu(c, page, obj);
	else
		cache_free_slab(c, page, obj, caller, caller_rbp);
}

void kfree(const void *p)
{
	struct page *page;

	if (!p)
		return;
	page = virt_to_page(p);
	if (page->flags & PG_slab) {
		slab_free(page->slab_cache, page, (void *)p,
			  (unsigned long)__builtin_return_address(0), CALLER_RBP());
		return;
	}
	if (!(page->flags & PG_head) || ((unsigned long)p & ~PAGE_MASK))
		panic("kfree: %p was not returned by kmalloc", p);
	__free_pages(page, page->order);
}

/* The object size of the cache a slab page belongs to (Linux's
 * kmem_cache_size()), for /proc/slabinfo: unlike ksize() it touches no
 * object, so it is safe on a page whose objects are free. */
size_t kmem_cache_size(const struct kmem_cache *c)
{
	return c->size;
}

size_t ksize(const void *p)
{
	struct page *page;

	if (!p)
		return 0;
	page = virt_to_page(p);
	if (page->flags & PG_slab) {
		struct kmem_cache *c = page->slab_cache;

		/* the caller may now use all of it: the red zone starts after */
		if (slab_debug)
			debug_info(c, (void *)p)->orig_size = c->size;
		return c->size;
	}
	return PAGE_SIZE << page->order;
}

#ifdef SPINDLE_HOST
/* Host tests only: forget every slab, as the fake RAM under them is freed
 * (tests/unit/shim/host_kernel.c, host_mm_exit), and slab_debug with it. */
void kmem_host_reset(void)
{
	memset(kmalloc_caches, 0, sizeof(kmalloc_caches));
	memset(kmalloc_cpu_caches, 0, sizeof(kmalloc_cpu_caches));
	cpu_caches_up = false;
	slab_debug = false;
	slab_debug_reports = 0;
}
#endif
