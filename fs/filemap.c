// SPDX-License-Identifier: MIT
/*
 * filemap.c - the page cache: find, add, dirty, write back, drop and
 * reclaim cached pages; the buffered read and write every file uses;
 * readahead.  include/spindle/pagemap.h has the interface and a page's
 * states.
 *
 * Where it sits: read_iter/write_iter of block devices (fs/block_dev.c)
 * and of file systems call filemap_read() and generic_perform_write();
 * below, each mapping's a_ops (usually fs/mpage.c with the file
 * system's get_block) makes bios.  The flusher (fs/fs-writeback.c)
 * writes the dirty pages back.
 *
 * The index.  Pages are found by (mapping, index) in ONE hash table for
 * the whole cache, chained through page->next_hash -- Linux's design
 * until 2.6 (page_hash() in 2.4's mm/filemap.c), chosen here because it
 * costs a mapping nothing until it caches a page: an ext2 inode with no
 * cached data carries no tree.  Linux 2.6 moved to a radix tree per
 * mapping (today the xarray) to find a mapping's *dirty* pages in index
 * order without walking them all; here each mapping lists its pages
 * (i_pages) and write-back sorts the dirty ones it finds (fs/mpage.c).
 * With PAGE_HASH_BITS = 12 and a multiplicative hash, chains stay short
 * for the few thousand pages a teaching machine caches.
 *
 * One global LRU list (page->lru, oldest first) orders every cached page
 * for reclaim: a hit moves a page to the tail.
 *
 * Locking: page_cache_lock (irq-safe: write-back completion may run in
 * an interrupt) guards the hash, the LRU, every mapping's i_pages, its
 * counters and bdi->b_dirty.  PG_locked is a sleeping per-page lock;
 * sleepers on it and on PG_writeback wait on one queue, page_wait, and
 * recheck their own page on each wake-up (Linux hashes the queue; one is
 * enough here).
 */
#include <spindle/pagemap.h>
#include <spindle/writeback.h>
#include <spindle/blk_plug.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/time.h>
#include <spindle/wait.h>
#include <spindle/mm_types.h>
#include <spindle/sched.h>
#include <spindle/uaccess.h>
#include <uapi/linux/fadvise.h>
#include "internal.h"

#define PAGE_HASH_BITS  12
#define PAGE_HASH_SIZE  (1u << PAGE_HASH_BITS)
#define RA_CHUNK        32      /* readahead pages handed to readpages at once */

DEFINE_SPINLOCK(page_cache_lock);
static struct page *page_hash_table[PAGE_HASH_SIZE];
static LIST_HEAD(page_lru);
static unsigned long nr_cache_pages, nr_dirty_pages, nr_writeback_pages;
/* of nr_cache_pages, those of block devices' own inodes (meminfo's Buffers) */
static unsigned long nr_bdev_pages;
static DECLARE_WAIT_QUEUE_HEAD(page_wait);

/* --- the index: hash chains --------------------------------------------- */

static unsigned int page_hash(struct address_space *mapping, pgoff_t index)
{
	u64 key = ((u64)(unsigned long)mapping >> 4) + index;

	return (unsigned int)((key * 0x9E3779B97F4A7C15ull) >> (64 - PAGE_HASH_BITS));
}

static struct page *__find_page(struct address_space *mapping, pgoff_t index)
{
	struct page *p = page_hash_table[page_hash(mapping, index)];

	for (; p; p = p->next_hash)
		if (p->mapping == mapping && p->index == index)
			return p;
	return NULL;
}

static void __add_to_page_cache(struct page *page, struct address_space *mapping, pgoff_t index)
{
	struct page **head = &page_hash_table[page_hash(mapping, index)];

	page->mapping = mapping;
	page->index = index;
	page->dirty_sectors = 0;
	page->next_hash = *head;
	*head = page;
	list_add_tail(&page->i_list, &mapping->i_pages);
	list_add_tail(&page->lru, &page_lru);
	page->flags |= PG_lru;
	mapping->nrpages++;
	nr_cache_pages++;
	if (mapping->host && S_ISBLK(mapping->host->i_mode))
		nr_bdev_pages++;
}

/* Take page out of the cache; the caller drops the cache's reference. */
static void __delete_from_page_cache(struct page *page)
{
	struct address_space *mapping = page->mapping;
	struct page **pp = &page_hash_table[page_hash(mapping, page->index)];

	while (*pp != page)
		pp = &(*pp)->next_hash;
	*pp = page->next_hash;
	list_del(&page->i_list);
	list_del(&page->lru);
	if (page->flags & PG_dirty) {
		mapping->nrdirty--;
		nr_dirty_pages--;
		if (!mapping->nrdirty)
			list_del_init(&mapping->i_wb_list);
	}
	page_flag_clear(page, PG_lru | PG_dirty | PG_uptodate | PG_readahead);
	page->mapping = NULL;
	mapping->nrpages--;
	nr_cache_pages--;
	if (mapping->host && S_ISBLK(mapping->host->i_mode))
		nr_bdev_pages--;
}

void page_cache_stats(struct page_cache_stats *st)
{
	unsigned long flags;

	spin_lock_irqsave(&page_cache_lock, flags);
	st->nr_pages = nr_cache_pages;
	st->nr_bdev = nr_bdev_pages;
	st->nr_dirty = nr_dirty_pages;
	st->nr_writeback = nr_writeback_pages;
	spin_unlock_irqrestore(&page_cache_lock, flags);
}

/* --- the page lock and write-back waits ---------------------------------- */

bool trylock_page(struct page *page)
{
	return !(__atomic_fetch_or(&page->flags, PG_locked, __ATOMIC_ACQUIRE) & PG_locked);
}

void lock_page(struct page *page)
{
	io_wait_event(page_wait, trylock_page(page));
}

void unlock_page(struct page *page)
{
	if (!PageLocked(page))
		panic("unlock_page: page pfn %#lx not locked", page_to_pfn(page));
	page_flag_clear(page, PG_locked);
	wake_up(&page_wait);
}

void wait_on_page_locked(struct page *page)
{
	io_wait_event(page_wait, !PageLocked(page));
}

void wait_on_page_writeback(struct page *page)
{
	io_wait_event(page_wait, !PageWriteback(page));
}

/* --- finding and adding pages --------------------------------------------- */

struct page *find_get_page(struct address_space *mapping, pgoff_t index)
{
	unsigned long flags;
	struct page *page;

	spin_lock_irqsave(&page_cache_lock, flags);
	page = __find_page(mapping, index);
	if (page) {
		get_page(page);
		list_move_tail(&page->lru, &page_lru);  /* recently used */
	}
	spin_unlock_irqrestore(&page_cache_lock, flags);
	return page;
}

int add_to_page_cache_lru(struct page *page, struct address_space *mapping, pgoff_t index)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&page_cache_lock, flags);
	if (__find_page(mapping, index)) {
		err = -EEXIST;
	} else {
		get_page(page);                         /* the cache's reference */
		__add_to_page_cache(page, mapping, index);
	}
	spin_unlock_irqrestore(&page_cache_lock, flags);
	return err;
}

struct page *find_or_create_page(struct address_space *mapping, pgoff_t index, gfp_t gfp)
{
	struct page *page;

	for (;;) {
		page = find_get_page(mapping, index);
		if (page) {
			lock_page(page);
			if (page->mapping == mapping)
				return page;
			/* truncated while we slept: look again */
			unlock_page(page);
			put_page(page);
			continue;
		}
		/* zeroed: a read that fails or fills nothing shows zeros,
		 * never what the page held before */
		page = alloc_page(gfp | __GFP_ZERO);
		if (!page)
			return NULL;
		page->flags |= PG_locked;       /* nobody else can see it yet */
		if (add_to_page_cache_lru(page, mapping, index) == 0)
			return page;
		page->flags &= ~PG_locked;
		put_page(page);                 /* someone added it first */
	}
}

/* page is locked and not uptodate: read it and wait; 0 or -EIO. */
static int filemap_read_page(struct file *f, struct address_space *mapping, struct page *page)
{
	int err = mapping->a_ops->readpage(f, page);

	if (err)
		return err;
	wait_on_page_locked(page);
	return PageUptodate(page) ? 0 : -EIO;
}

struct page *read_mapping_page(struct address_space *mapping, pgoff_t index, struct file *f)
{
	struct page *page = find_or_create_page(mapping, index, GFP_KERNEL);
	int err;

	if (!page)
		return ERR_PTR(-ENOMEM);
	if (PageUptodate(page)) {
		unlock_page(page);
		return page;
	}
	err = filemap_read_page(f, mapping, page);
	if (err) {
		put_page(page);
		return ERR_PTR(err);
	}
	return page;
}

/* --- dirty and write-back state ------------------------------------------- */

bool __set_page_dirty_nobuffers(struct page *page)
{
	struct address_space *mapping = page->mapping;
	unsigned long flags;
	bool was_clean = false;

	spin_lock_irqsave(&page_cache_lock, flags);
	/* whoever dirties a page without saying which sectors changed
	 * changed any of them: all are written */
	page->dirty_sectors = 0;
	if (mapping && !(page->flags & PG_dirty)) {
		page_flag_set(page, PG_dirty);
		was_clean = true;
		nr_dirty_pages++;
		if (mapping->nrdirty++ == 0) {
			mapping->dirtied_when = ktime_get_ns();
			__mark_mapping_dirty(mapping);
		}
	}
	spin_unlock_irqrestore(&page_cache_lock, flags);
	return was_clean;
}

bool set_page_dirty(struct page *page)
{
	struct address_space *mapping = page->mapping;

	if (mapping && mapping->a_ops && mapping->a_ops->set_page_dirty)
		return mapping->a_ops->set_page_dirty(page);
	return __set_page_dirty_nobuffers(page);
}

bool clear_page_dirty_for_io(struct page *page)
{
	struct address_space *mapping = page->mapping;
	unsigned long flags;
	bool was_dirty = false;

	spin_lock_irqsave(&page_cache_lock, flags);
	if (mapping && (page->flags & PG_dirty)) {
		page_flag_clear(page, PG_dirty);
		was_dirty = true;
		nr_dirty_pages--;
		if (--mapping->nrdirty == 0)
			list_del_init(&mapping->i_wb_list);
	}
	spin_unlock_irqrestore(&page_cache_lock, flags);
	return was_dirty;
}

void set_page_writeback(struct page *page)
{
	unsigned long flags;

	spin_lock_irqsave(&page_cache_lock, flags);
	page_flag_set(page, PG_writeback);
	page->mapping->nrwriteback++;
	nr_writeback_pages++;
	spin_unlock_irqrestore(&page_cache_lock, flags);
}

/*
 * The write ended.  A failed page is NOT redirtied: the error goes to
 * the mapping's errseq, where every fsync() caller with the file open
 * will see it once, and the data is lost -- as Linux does, since
 * retrying a write the disk refused could go on forever.
 */
void end_page_writeback(struct page *page, int err)
{
	struct address_space *mapping = page->mapping;
	unsigned long flags;

	if (err)
		mapping_set_error(mapping, err);
	spin_lock_irqsave(&page_cache_lock, flags);
	page_flag_clear(page, PG_writeback);
	mapping->nrwriteback--;
	nr_writeback_pages--;
	spin_unlock_irqrestore(&page_cache_lock, flags);
	wake_up(&page_wait);
}

/* --- write-back and wait -------------------------------------------------- */

int filemap_fdatawrite_wbc(struct address_space *mapping, struct writeback_control *wbc)
{
	if (!mapping->nrdirty || !mapping->a_ops || !mapping->a_ops->writepages)
		return 0;
	return mapping->a_ops->writepages(mapping, wbc);
}

/* Wait until no page of mapping is on its way to the disk. */
void filemap_fdatawait(struct address_space *mapping)
{
	io_wait_event(page_wait, !__atomic_load_n(&mapping->nrwriteback, __ATOMIC_ACQUIRE));
}

/* The writing and the wait, out of line: the check before them is all a
 * direct read or write of a clean mapping runs. */
static __noinline int __filemap_write_and_wait_range(struct address_space *mapping, loff_t start,
						   loff_t end)
{
	struct writeback_control wbc = {
		.sync_mode = WB_SYNC_ALL,
		.nr_to_write = (long)(~0ul >> 1),   /* everything */
		.range_start = start,
		.range_end = end,
	};
	int err = filemap_fdatawrite_wbc(mapping, &wbc);

	/* pages the flusher had already taken count too: fsync promises
	 * everything written before it, whoever sends it */
	filemap_fdatawait(mapping);
	return err ? err : wbc.err;
}

int filemap_write_and_wait_range(struct address_space *mapping, loff_t start, loff_t end)
{
	/* nothing dirty, nothing on its way: the common case of every
	 * direct read and write (Linux's mapping_needs_writeback test) */
	if (!READ_ONCE(mapping->nrdirty) && !READ_ONCE(mapping->nrwriteback))
		return 0;
	return __filemap_write_and_wait_range(mapping, start, end);
}

int file_check_and_advance_wb_err(struct file *f)
{
	if (!f->f_mapping)
		return 0;
	return errseq_check_and_advance(&f->f_mapping->wb_err, &f->f_wb_err);
}

int file_write_and_wait_range(struct file *f, loff_t start, loff_t end)
{
	/* this write-back's own errors went to wb_err too: the errseq
	 * reports them, once, with whatever the flusher met before */
	filemap_write_and_wait_range(f->f_mapping, start, end);
	return file_check_and_advance_wb_err(f);
}

/* --- dropping pages ------------------------------------------------------- */

#define DROP_BATCH      64      /* pages taken per walk of i_pages */

#define PIR_CLEAN       1       /* not dirty, not under write-back */
#define PIR_IDLE        2       /* no reference but the cache's: not mapped
				 * by a process, not pinned, not being read */

/*
 * Up to DROP_BATCH pages of mapping with index in [from, to], referenced,
 * into batch; only those that are what `which` (PIR_*) asks, if anything.
 * One walk of the mapping's list per batch: these walks are rare
 * (truncation, BLKFLSBUF, direct I/O's invalidation, fadvise).
 */
static unsigned int pages_in_range(struct address_space *mapping, pgoff_t from, pgoff_t to,
				   unsigned int which, struct page **batch)
{
	unsigned long flags;
	struct page *page;
	unsigned int n = 0;

	spin_lock_irqsave(&page_cache_lock, flags);
	list_for_each_entry(page, &mapping->i_pages, i_list) {
		if (page->index < from || page->index > to)
			continue;
		if ((which & PIR_CLEAN) && (page->flags & (PG_dirty | PG_writeback)))
			continue;
		if ((which & PIR_IDLE) && page_count(page) > 1)
			continue;
		get_page(page);
		batch[n++] = page;
		if (n == DROP_BATCH)
			break;
	}
	spin_unlock_irqrestore(&page_cache_lock, flags);
	return n;
}

static void delete_from_page_cache(struct page *page)
{
	unsigned long flags;

	spin_lock_irqsave(&page_cache_lock, flags);
	__delete_from_page_cache(page);
	spin_unlock_irqrestore(&page_cache_lock, flags);
	put_page(page);                         /* the cache's reference */
}

void truncate_inode_pages(struct address_space *mapping, loff_t lstart)
{
	pgoff_t from = (pgoff_t)((lstart + PAGE_SIZE - 1) >> PAGE_SHIFT);
	struct page *batch[DROP_BATCH];
	unsigned int n;

	/*
	 * Mapped pages go from every process's page tables first, so that
	 * the next access past the new end faults and gets SIGBUS (Linux's
	 * truncate_pagecache); and again after, for a fault that mapped a
	 * page between the two -- it held the page's lock, which the loop
	 * below waits for, and i_size, already cut, stops any later one.
	 */
	unmap_mapping_range(mapping, from);
	while ((n = pages_in_range(mapping, from, ~(pgoff_t)0, 0, batch)) != 0) {
		for (unsigned int i = 0; i < n; i++) {
			struct page *page = batch[i];

			lock_page(page);
			wait_on_page_writeback(page);
			if (page->mapping == mapping)
				delete_from_page_cache(page);
			unlock_page(page);
			put_page(page);
		}
	}
	unmap_mapping_range(mapping, from);
}

static unsigned long __invalidate_mapping_pages(struct address_space *mapping, pgoff_t start,
						pgoff_t end, unsigned int which)
{
	struct page *batch[DROP_BATCH], *page;
	unsigned long flags, kept = 0;
	unsigned int n;

	while ((n = pages_in_range(mapping, start, end, which, batch)) != 0) {
		for (unsigned int i = 0; i < n; i++) {
			page = batch[i];
			lock_page(page);
			/* dirtied again since the walk, or taken by someone
			 * (PIR_IDLE): it stays (counted below) */
			if (page->mapping == mapping && !PageDirty(page) && !PageWriteback(page) &&
			    !((which & PIR_IDLE) && page_count(page) > 2))
				delete_from_page_cache(page);
			unlock_page(page);
			put_page(page);
		}
		if (n < DROP_BATCH)
			break;
	}
	spin_lock_irqsave(&page_cache_lock, flags);
	list_for_each_entry(page, &mapping->i_pages, i_list)
		if (page->index >= start && page->index <= end)
			kept++;
	spin_unlock_irqrestore(&page_cache_lock, flags);
	return kept;
}

unsigned long invalidate_mapping_pages(struct address_space *mapping, pgoff_t start, pgoff_t end)
{
	return __invalidate_mapping_pages(mapping, start, end, PIR_CLEAN);
}

unsigned long try_to_free_pages(unsigned long nr)
{
	struct page *page, *next;
	unsigned long flags, freed = 0;
	LIST_HEAD(victims);

	spin_lock_irqsave(&page_cache_lock, flags);
	list_for_each_entry_safe(page, next, &page_lru, lru) {
		if (freed == nr)
			break;
		/* never dirty or on its way out; never one someone holds
		 * (a reader copying from it, a page being read in) */
		if (page->flags & (PG_locked | PG_dirty | PG_writeback) || page_count(page) != 1)
			continue;
		__delete_from_page_cache(page);
		list_add(&page->lru, &victims);
		freed++;
	}
	spin_unlock_irqrestore(&page_cache_lock, flags);
	list_for_each_entry_safe(page, next, &victims, lru) {
		list_del(&page->lru);
		put_page(page);
	}
	return freed;
}

/* --- readahead -------------------------------------------------------------- */

static unsigned long ra_init_size(unsigned long req, unsigned long max)
{
	unsigned long size = VM_READAHEAD_PAGES > req ? VM_READAHEAD_PAGES : req;

	return size < max ? size : max;
}

/*
 * Linux's ondemand_readahead(), reduced to its two ideas:
 *   - a reader that continues where it was (the page after its last, or
 *     the marker page of the last window) is sequential: its window
 *     starts at 128 KiB and doubles with each window, up to max;
 *   - any other access is random: only what was asked, no window, and no
 *     growth -- reading ahead for a random reader wastes the disk's time.
 * The next window is started when the reader reaches the marker page,
 * async_size pages before the end of the current one, so the disk works
 * while the reader copies (asynchronous readahead).
 */
bool ra_next_window(struct file_ra_state *ra, pgoff_t index, unsigned long req,
		    unsigned long max, bool marker)
{
	if (!max)
		max = 1;
	if (marker && ra->size && index == ra->start + ra->size - ra->async_size) {
		/* the reader reached the marker: the next window, doubled */
		ra->start += ra->size;
		ra->size = ra->size * 2 < max ? ra->size * 2 : max;
		ra->async_size = ra->size;
		return true;
	}
	if (index == 0 || index == ra->prev_index + 1 || index == ra->prev_index ||
	    (ra->size && index == ra->start + ra->size)) {
		/* a new sequential stream (or one whose window was used up) */
		ra->start = index;
		ra->size = ra_init_size(req, max);
		ra->async_size = ra->size > req ? ra->size - req : ra->size;
		/*
		 * A read that wants the whole window (dd bs=1M against 128 KiB
		 * windows) would put the marker on the page it waits for
		 * first, and that page is never looked at again: every window
		 * would be read synchronously, the disk idle while the reader
		 * copies and the reader idle while the disk reads.  As Linux's
		 * ondemand_readahead ("readit"), the window grows by the next
		 * one, up to max, with the marker no later than its middle.
		 */
		if (ra->async_size == ra->size) {
			unsigned long add = ra->size * 2 < max ? ra->size * 2 : max;

			if (ra->size + add <= max) {
				ra->size += add;
				ra->async_size = add;
			} else {
				ra->size = max;
				ra->async_size = max / 2;
			}
		}
		return true;
	}
	ra->start = index;
	ra->size = req < max ? req : max;
	ra->async_size = 0;
	return false;
}

/* Hand a run of n new locked pages to the mapping's reads and drop our
 * references (the reads unlock them); returns 0, the new run length. */
static unsigned int ra_submit(struct file *f, struct address_space *mapping, struct page **run,
			      unsigned int n)
{
	if (!n)
		return 0;
	if (mapping->a_ops->readpages)
		mapping->a_ops->readpages(mapping, run, n);
	else
		for (unsigned int k = 0; k < n; k++)
			mapping->a_ops->readpage(f, run[k]);
	for (unsigned int k = 0; k < n; k++)
		put_page(run[k]);
	return 0;
}

/*
 * Read [index, index + nr) into the cache: the pages not cached yet, in
 * runs handed to readpages (or readpage), all under one plug so that the
 * runs merge.  The page at `mark` gets PG_readahead.  Does not wait for
 * the reads.  Stops early (without error) when memory runs short.
 */
static void page_cache_ra(struct file *f, struct address_space *mapping, pgoff_t index,
			  unsigned long nr, pgoff_t mark)
{
	struct inode *inode = mapping->host;
	pgoff_t end_index = (pgoff_t)((inode->i_size + PAGE_SIZE - 1) >> PAGE_SHIFT);
	struct page *run[RA_CHUNK] = { NULL };
	unsigned int n = 0;
	struct blk_plug plug;

	blk_start_plug(&plug);
	for (pgoff_t i = index; i < index + nr && i < end_index; i++) {
		struct page *page = find_get_page(mapping, i);

		if (page) {                     /* cached: it ends the run */
			put_page(page);
			n = ra_submit(f, mapping, run, n);
			continue;
		}
		/* no I/O to find memory: readahead is a hint.  Zeroed, unlike
		 * Linux's: a device that completes a read without filling the
		 * page (null_blk, QEMU's null-co) must not show the reader what
		 * the memory held before (hostile-dio-leak.scn) */
		page = alloc_page(GFP_NOIO | __GFP_ZERO);
		if (!page)
			break;
		page->flags |= PG_locked;
		if (add_to_page_cache_lru(page, mapping, i)) {
			page->flags &= ~PG_locked;
			put_page(page);         /* someone else's now */
			n = ra_submit(f, mapping, run, n);
			continue;
		}
		if (i == mark)
			SetPageReadahead(page);
		run[n++] = page;
		if (n == RA_CHUNK)
			n = ra_submit(f, mapping, run, n);
	}
	ra_submit(f, mapping, run, n);
	blk_finish_plug(&plug);
}

void force_page_cache_readahead(struct address_space *mapping, pgoff_t index, unsigned long nr)
{
	page_cache_ra(NULL, mapping, index, nr, ~(pgoff_t)0);
}

static unsigned long mapping_ra_pages(struct address_space *mapping)
{
	return mapping->bdi ? mapping->bdi->ra_pages : VM_READ_AHEAD_KB / (PAGE_SIZE / 1024);
}

/*
 * posix_fadvise (Linux's generic_fadvise): what a program will do with
 * [offset, offset + len) of a file, len 0 meaning to its end.  WILLNEED
 * starts reading it (readahead, at most read_ahead_kb of it, as Linux's
 * force_page_cache_readahead); DONTNEED starts writing its dirty pages
 * and drops the clean ones nobody uses (not a page a process has mapped,
 * or one under I/O: Linux's mapping_evict_folio keeps them too).
 * RANDOM turns readahead off for the file, SEQUENTIAL doubles its window,
 * NORMAL undoes both; NOREUSE changes nothing.  Errors as Linux's.
 */
long sys_fadvise64(int fd, loff_t offset, loff_t len, int advice)
{
	struct file *f = fget(fd);
	struct address_space *mapping;
	unsigned long ra;
	loff_t endbyte;
	long err = 0;

	if (!f)
		return -EBADF;
	if (S_ISFIFO(f->f_inode->i_mode)) {
		err = -ESPIPE;
		goto out;
	}
	mapping = f->f_mapping;
	if (!mapping || len < 0 || advice < POSIX_FADV_NORMAL || advice > POSIX_FADV_NOREUSE) {
		err = -EINVAL;
		goto out;
	}
	if (!mapping->a_ops || !mapping->a_ops->readpage)
		goto out;       /* no disk behind it (ramfs): advice taken, nothing to do */
	ra = mapping_ra_pages(mapping);
	/* inclusive; len 0 (or a sum past the end of loff_t) is "to the end" */
	endbyte = (u64)offset + (u64)len;
	if (!len || (u64)endbyte < (u64)len || endbyte < 0)
		endbyte = (loff_t)(~0ULL >> 1);
	else
		endbyte--;
	switch (advice) {
	case POSIX_FADV_NORMAL:
		WRITE_ONCE(f->f_ra.ra_pages, 0);        /* the device's */
		break;
	case POSIX_FADV_RANDOM:
		WRITE_ONCE(f->f_ra.ra_pages, RA_PAGES_NONE);
		break;
	case POSIX_FADV_SEQUENTIAL:
		WRITE_ONCE(f->f_ra.ra_pages, ra * 2);
		break;
	case POSIX_FADV_WILLNEED:
		if (offset >= 0)
			force_page_cache_readahead(mapping, offset >> PAGE_SHIFT,
						   min_t(u64, ((u64)endbyte >> PAGE_SHIFT) -
								  (offset >> PAGE_SHIFT) + 1, ra));
		break;
	case POSIX_FADV_NOREUSE:
		break;
	case POSIX_FADV_DONTNEED: {
		/* whole pages only: a partial one may still be wanted */
		pgoff_t first = offset > 0 ? (pgoff_t)((offset + PAGE_SIZE - 1) >> PAGE_SHIFT) : 0;
		pgoff_t last = (pgoff_t)(endbyte >> PAGE_SHIFT);
		struct writeback_control wbc = {
			.sync_mode = WB_SYNC_NONE,
			.nr_to_write = (long)(~0ul >> 1),
			.range_start = offset > 0 ? offset : 0,
			.range_end = endbyte,
		};

		filemap_fdatawrite_wbc(mapping, &wbc);
		if ((endbyte & (PAGE_SIZE - 1)) != PAGE_SIZE - 1) {
			if (!last)
				break;
			last--;
		}
		if (last >= first)
			__invalidate_mapping_pages(mapping, first, last, PIR_CLEAN | PIR_IDLE);
		break;
	}
	default:
		err = -EINVAL;
	}
out:
	fput(f);
	return err;
}

/* A read of req pages from index, page index missing or the marker hit. */
static void page_cache_readahead(struct file *f, struct address_space *mapping, pgoff_t index,
				 unsigned long req, bool marker)
{
	struct file_ra_state *ra = &f->f_ra;
	unsigned long max = READ_ONCE(ra->ra_pages) ?: mapping_ra_pages(mapping);

	if (max == RA_PAGES_NONE) {
		/* POSIX_FADV_RANDOM: what was asked, nothing more */
		if (!marker)
			page_cache_ra(f, mapping, index, min(req, mapping_ra_pages(mapping)),
				      ~(pgoff_t)0);
		return;
	}
	if (ra_next_window(ra, index, req, max, marker))
		page_cache_ra(f, mapping, ra->start, ra->size, ra->start + ra->size - ra->async_size);
	else
		page_cache_ra(f, mapping, index, ra->size, ~(pgoff_t)0);
}

/* --- buffered read ------------------------------------------------------------ */

static struct page *filemap_wait_uptodate(struct file *f, struct address_space *mapping,
					  pgoff_t index, struct page *page);

/* The uptodate page at index for a reader, referenced; ERR_PTR on failure. */
static struct page *filemap_get_read_page(struct file *f, struct address_space *mapping,
					  pgoff_t index, unsigned long req)
{
	struct page *page = find_get_page(mapping, index);

	if (!page) {
		page_cache_readahead(f, mapping, index, req, false);
		page = find_get_page(mapping, index);
	} else if (PageReadahead(page)) {
		ClearPageReadahead(page);
		page_cache_readahead(f, mapping, index, req, true);
	}
	return filemap_wait_uptodate(f, mapping, index, page);
}

/* page (referenced, or NULL: readahead found no memory, read it alone)
 * once it is uptodate; ERR_PTR(-EIO) if its read failed twice. */
static struct page *filemap_wait_uptodate(struct file *f, struct address_space *mapping,
					  pgoff_t index, struct page *page)
{
	int err;

	if (!page)
		return read_mapping_page(mapping, index, f);
	if (PageUptodate(page))
		return page;
	wait_on_page_locked(page);
	if (PageUptodate(page))
		return page;
	/* the read failed (or raced with truncation): try once, synchronously */
	lock_page(page);
	if (PageUptodate(page) || page->mapping != mapping) {
		unlock_page(page);
		if (PageUptodate(page))
			return page;
		put_page(page);
		return ERR_PTR(-EIO);
	}
	err = filemap_read_page(f, mapping, page);
	if (err) {
		put_page(page);
		return ERR_PTR(err);
	}
	return page;
}

ssize_t filemap_read(struct file *f, struct iov_iter *to, loff_t *pos)
{
	struct address_space *mapping = f->f_mapping;
	struct inode *inode = mapping->host;
	ssize_t done = 0;
	int err = 0;

	while (iov_iter_count(to) && *pos < inode->i_size) {
		pgoff_t index = *pos >> PAGE_SHIFT;
		size_t off = *pos & (PAGE_SIZE - 1);
		size_t n = min_t(size_t, PAGE_SIZE - off, iov_iter_count(to));
		unsigned long req = DIV_ROUND_UP(off + iov_iter_count(to), PAGE_SIZE);
		struct page *page;
		size_t copied;

		/* a task killed meanwhile stops at the next page, as in
		 * Linux's filemap_read: one read() of a whole slow disk
		 * would otherwise go on to its end before the task dies */
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		n = min_t(size_t, n, inode->i_size - *pos);
		page = filemap_get_read_page(f, mapping, index, req);
		if (IS_ERR(page)) {
			err = PTR_ERR(page);
			break;
		}
		copied = copy_to_iter((char *)page_address(page) + off, n, to);
		put_page(page);
		f->f_ra.prev_index = index;
		*pos += copied;
		done += copied;
		if (copied < n) {
			err = -EFAULT;
			break;
		}
	}
	return done ? done : err;
}

/* --- buffered write ------------------------------------------------------------ */

/*
 * The page at index, locked, ready for `len` bytes at `off`: read first
 * unless the write covers all of the page's valid bytes (`valid`), and
 * not under write-back (its bytes must not change while the disk's DMA
 * reads them: Linux's "stable pages", simpler to reason about).
 */
static struct page *write_begin(struct file *f, struct address_space *mapping, pgoff_t index,
				size_t off, size_t len, size_t valid, int *errp)
{
	struct page *page = find_or_create_page(mapping, index, GFP_KERNEL);

	if (!page) {
		*errp = -ENOMEM;
		return NULL;
	}
	wait_on_page_writeback(page);
	if (!PageUptodate(page) && !(off == 0 && len >= valid)) {
		*errp = filemap_read_page(f, mapping, page);
		if (*errp) {
			put_page(page);
			return NULL;
		}
		lock_page(page);
		if (page->mapping != mapping) {         /* truncated meanwhile */
			unlock_page(page);
			put_page(page);
			*errp = -EAGAIN;
			return NULL;
		}
	}
	return page;
}

/*
 * Touch the user pages of the next n bytes before a lock is taken (Linux's
 * fault_in_iov_iter_readable): the source may be a mapping of the very
 * page being written, whose fault would wait for the lock the copy holds,
 * or of a tmpfs file, whose fault takes that file's i_mutex.  A mapped
 * page is never reclaimed, so only another thread's munmap can undo this
 * before the copy.  Returns the bytes it could not touch (0: all).
 */
size_t fault_in_iov_iter_readable(const struct iov_iter *i, size_t n)
{
	unsigned long start, addr;
	char c;

	if (i->iter_type != ITER_UBUF || !n)
		return 0;
	start = (unsigned long)i->ubuf;
	for (addr = start & PAGE_MASK; addr < start + n; addr += PAGE_SIZE) {
		unsigned long at = addr < start ? start : addr;

		if (copy_from_user(&c, (const void __user *)at, 1))
			return start + n - at;
	}
	return 0;
}

ssize_t generic_perform_write(struct file *f, struct iov_iter *from, loff_t *pos, loff_t limit)
{
	struct address_space *mapping = f->f_mapping;
	ssize_t done = 0;
	int err = 0;

	if (*pos >= limit)
		return -ENOSPC;
	while (iov_iter_count(from) && *pos < limit) {
		pgoff_t index = *pos >> PAGE_SHIFT;
		size_t off = *pos & (PAGE_SIZE - 1);
		size_t n = min_t(size_t, PAGE_SIZE - off, iov_iter_count(from));
		loff_t page_end = ((loff_t)index + 1) << PAGE_SHIFT;
		size_t valid = page_end > limit ? (size_t)(limit - ((loff_t)index << PAGE_SHIFT)) : PAGE_SIZE;
		struct page *page;
		size_t copied;

		/* killed: stop here, as Linux's generic_perform_write */
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		n = min_t(size_t, n, limit - *pos);
		fault_in_iov_iter_readable(from, n);
		page = write_begin(f, mapping, index, off, n, valid, &err);
		if (!page) {
			if (err == -EAGAIN)
				continue;
			break;
		}
		copied = copy_from_iter((char *)page_address(page) + off, n, from);
		if (!PageUptodate(page) && copied < n) {
			/*
			 * The page was never read, trusting this write to cover
			 * it, and the user's buffer ran out (a fault): what it
			 * holds is neither the disk's data nor the write.  Drop
			 * it, and count none of it as written.
			 */
			delete_from_page_cache(page);
			unlock_page(page);
			put_page(page);
			err = -EFAULT;
			break;
		}
		SetPageUptodate(page);
		if (copied)
			set_page_dirty(page);
		unlock_page(page);
		put_page(page);
		*pos += copied;
		done += copied;
		/* a file grows (a device's limit is its size: it does not) */
		if (*pos > mapping->host->i_size)
			mapping->host->i_size = *pos;
		if (copied < n) {
			err = -EFAULT;
			break;
		}
		balance_dirty_pages_ratelimited(mapping);
	}
	return done ? done : err;
}

/* --- faults in mapped files (mmap) -------------------------------------------- */

static pgoff_t size_in_pages(struct inode *inode)
{
	return (pgoff_t)((inode->i_size + PAGE_SIZE - 1) >> PAGE_SHIFT);
}

/*
 * A page of a mapped file is missing from a process's page tables (Linux's
 * filemap_fault).  A hit in the cache costs no I/O.  A miss reads around
 * the fault: read_ahead_kb's window centred on the page, as Linux's
 * do_sync_mmap_readahead does for a mapping with no access pattern --
 * programs touch a mapping in any order, so the read(2) path's sequential
 * detection (page_cache_readahead) has nothing to go on; the window's last
 * quarter carries the PG_readahead marker, and a fault that finds it reads
 * the next window before it is needed (do_async_mmap_readahead).
 * The page is returned locked and checked against the file's size under
 * the lock: truncation locks each page it drops, so a page handed out
 * here is still the file's when the caller maps it (it unlocks after).
 */
int filemap_fault(struct vm_fault *vmf)
{
	struct file *f = vmf->vma->vm_file;
	struct address_space *mapping = f->f_mapping;
	struct inode *inode = mapping->host;
	unsigned long ra = mapping_ra_pages(mapping);
	pgoff_t pgoff = vmf->pgoff;
	struct page *page;

	if (pgoff >= size_in_pages(inode))
		return VM_FAULT_SIGBUS;                 /* past EOF, as Linux */
	page = find_get_page(mapping, pgoff);
	if (!vmf->may_sleep) {
		/* an atomic user copy: only a page that needs nothing */
		if (page && PageUptodate(page) && trylock_page(page))
			goto locked;
		if (page)
			put_page(page);
		return VM_FAULT_RETRY;
	}
	if (!page) {
		pgoff_t start = pgoff > ra / 2 ? pgoff - ra / 2 : 0;

		if (mm_fault_trace)
			printk(KERN_INFO "fault_trace: %s[%d] page %lu not cached: read around %lu+%lu\n",
			       current->comm, current->pid, pgoff, start, ra);
		page_cache_ra(f, mapping, start, ra, start + ra - ra / 4);
		page = find_get_page(mapping, pgoff);
	} else if (PageReadahead(page)) {
		ClearPageReadahead(page);
		page_cache_ra(f, mapping, pgoff + 1, ra, pgoff + 1 + ra - ra / 4);
	}
	page = filemap_wait_uptodate(f, mapping, pgoff, page);
	if (IS_ERR(page))
		return PTR_ERR(page) == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
	lock_page(page);
locked:
	if (page->mapping != mapping || pgoff >= size_in_pages(inode)) {
		/* truncated meanwhile */
		unlock_page(page);
		put_page(page);
		return VM_FAULT_SIGBUS;
	}
	vmf->page = page;
	vmf->locked = true;
	return VM_FAULT_OK;
}

/*
 * A page of a MAP_SHARED mapping is about to be written through the
 * mapping (Linux's filemap_page_mkwrite): it becomes dirty in the cache
 * now, so the flusher and fsync see it like a write(2)'s.  It waits for
 * a write-back in flight first (stable pages: the bytes must not change
 * under the disk's DMA, as write() ensures too).
 */
int filemap_page_mkwrite(struct vm_fault *vmf)
{
	struct page *page = vmf->page;

	if (!page->mapping)
		return VM_FAULT_SIGBUS;                 /* truncated */
	if (vmf->may_sleep)
		wait_on_page_writeback(page);
	set_page_dirty(page);
	return VM_FAULT_OK;
}

static const struct vm_operations_struct generic_file_vm_ops = {
	.fault = filemap_fault,
	.page_mkwrite = filemap_page_mkwrite,
};

int generic_file_mmap(struct file *f, struct vm_area_struct *vma)
{
	struct address_space *mapping = f->f_mapping;

	if (!mapping || !mapping->a_ops || !mapping->a_ops->readpage)
		return -ENODEV;
	vma->vm_ops = &generic_file_vm_ops;
	return 0;
}
