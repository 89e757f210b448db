// SPDX-License-Identifier: MIT
/*
 * mpage.c - cached pages to bios and back, for any file system that can
 * say where a block of a file is (its get_block): Linux's fs/mpage.c
 * (mpage_readpages, mpage_writepages), simplified, with no buffer heads.
 *
 * Where it sits: a mapping's a_ops call these (fs/block_dev.c with the
 * identity get_block; a disk file system with its own); above, the page
 * cache (fs/filemap.c); below, submit_bio.
 *
 * A page holds 1 << (PAGE_SHIFT - i_blkbits) blocks, each mapped on its
 * own: consecutive blocks on the disk go into one bio, a jump starts a
 * new one, a hole (SECTOR_HOLE) stays zero.  So a page can be in several
 * bios; page->io_pending counts its segments in flight, plus one for the
 * submitter while it adds them, and whoever drops it to zero finishes the
 * page (unlock it after a read, end_page_writeback after a write).
 *
 * Only bytes below i_size are read or written (rounded up to a 512-byte
 * sector): the last page of a device whose size is not a multiple of the
 * page has a partial block.
 */
#include <spindle/pagemap.h>
#include <spindle/writeback.h>
#include <spindle/bio.h>
#include <spindle/blkdev.h>
#include <spindle/blk_plug.h>
#include <spindle/sort.h>
#include <spindle/string.h>
#include "internal.h"

#define WB_BATCH_PAGES  1024    /* pages per write-back batch, one plug: 4 MiB
				 * (Linux's MAX_WRITEBACK_PAGES) */
#define WB_STACK_PAGES  64      /* the batch when kmalloc has nothing left */

struct mpage_ctx {
	struct address_space *mapping;
	get_block_t get_block;
	struct bio *bio;
	sector_t next_sector;           /* where the open bio continues */
	unsigned int opf;
	unsigned int nr_hint;           /* segments the next bio may need */
};

/* Finish one segment of page (or the submitter's share). */
static void mpage_page_done(struct page *page, bool write)
{
	if (__atomic_sub_fetch(&page->io_pending, 1, __ATOMIC_ACQ_REL))
		return;
	if (write) {
		end_page_writeback(page, 0);
		return;
	}
	if (!page_flag(page, PG_error))
		SetPageUptodate(page);
	page_flag_clear(page, PG_error);
	unlock_page(page);
}

static void mpage_end_io(struct bio *bio)
{
	bool write = bio_is_write(bio);
	int err = blk_status_to_errno(bio->bi_status);

	for (unsigned int i = 0; i < bio->bi_vcnt; i++) {
		struct page *page = bio->bi_io_vec[i].bv_page;

		if (err && write)
			mapping_set_error(page->mapping, err);
		else if (err)
			page_flag_set(page, PG_error);
		mpage_page_done(page, write);
	}
	bio_put(bio);
}

static void mpage_submit(struct mpage_ctx *c)
{
	if (c->bio)
		submit_bio(c->bio);
	c->bio = NULL;
}

/* Add len bytes of page at off, on the disk at sector, to the open bio. */
static void mpage_add(struct mpage_ctx *c, struct page *page, unsigned int off,
		      unsigned int len, sector_t sector)
{
	unsigned int before;

	if (c->bio && (sector != c->next_sector || c->bio->bi_vcnt == c->bio->bi_max_vecs))
		mpage_submit(c);
	if (!c->bio) {
		/* waits on fs_bio_set's reserve rather than fail */
		c->bio = bio_alloc(GFP_NOIO, min_t(unsigned int, c->nr_hint, BIO_MAX_VECS));
		bio_set_dev(c->bio, c->mapping->bdev);
		c->bio->bi_iter.bi_sector = sector;
		c->bio->bi_opf = c->opf;
		c->bio->bi_end_io = mpage_end_io;
	}
	before = c->bio->bi_vcnt;
	bio_add_page(c->bio, page, len, off);
	if (c->bio->bi_vcnt > before)
		__atomic_add_fetch(&page->io_pending, 1, __ATOMIC_ACQ_REL);
	c->next_sector = sector + (len >> SECTOR_SHIFT);
}

/*
 * A write of a page whose dirtier said which sectors changed
 * (page->dirty_sectors: ext2's metadata blocks in a device's page, where
 * the neighbouring blocks are file data this cache may hold old copies
 * of): only those sectors of [off, off + len), in runs.
 */
static void mpage_add_dirty(struct mpage_ctx *c, struct page *page, unsigned int off,
			    unsigned int len, sector_t sector, unsigned int mask)
{
	unsigned int first = off >> SECTOR_SHIFT, end = (off + len) >> SECTOR_SHIFT;

	for (unsigned int s = first; s < end;) {
		unsigned int e = s;

		if (!(mask & (1u << s))) {
			s++;
			continue;
		}
		while (e < end && (mask & (1u << e)))
			e++;
		mpage_add(c, page, s << SECTOR_SHIFT, (e - s) << SECTOR_SHIFT, sector + (s - first));
		s = e;
	}
}

/*
 * Map and add every block of page below i_size.  Returns 0, or the
 * get_block error (the page's other blocks still go).
 */
static int mpage_map_page(struct mpage_ctx *c, struct page *page, bool create)
{
	struct inode *inode = c->mapping->host;
	unsigned int blkbits = c->mapping->i_blkbits, bsize = 1u << blkbits;
	loff_t base = (loff_t)page->index << PAGE_SHIFT;
	/* a write takes the page's dirty sectors (it is locked) */
	unsigned int mask = create ? page->dirty_sectors : 0;
	int err = 0;

	if (create)
		page->dirty_sectors = 0;

	for (unsigned int off = 0; off < PAGE_SIZE && base + off < inode->i_size; off += bsize) {
		loff_t left = inode->i_size - (base + off);
		unsigned int len = left < bsize ? ALIGN((unsigned int)left, SECTOR_SIZE) : bsize;
		sector_t sector;
		int e = c->get_block(inode, (sector_t)((base + off) >> blkbits), &sector, create);

		if (e) {
			err = err ? err : e;
			continue;
		}
		if (sector != SECTOR_HOLE && mask)
			mpage_add_dirty(c, page, off, len, sector, mask);
		else if (sector != SECTOR_HOLE)
			mpage_add(c, page, off, len, sector);
	}
	return err;
}

int mpage_readpages(struct address_space *mapping, struct page **pages, unsigned int nr,
		    get_block_t get_block)
{
	struct mpage_ctx c = { .mapping = mapping, .get_block = get_block, .opf = REQ_OP_READ };
	int err = 0;

	for (unsigned int i = 0; i < nr; i++) {
		struct page *page = pages[i];
		int e;

		c.nr_hint = (nr - i) << (PAGE_SHIFT - mapping->i_blkbits);
		page->io_pending = 1;           /* ours, while we add its blocks */
		e = mpage_map_page(&c, page, false);
		if (e) {
			page_flag_set(page, PG_error);
			err = err ? err : e;
		}
		mpage_page_done(page, false);   /* all holes: uptodate now */
	}
	mpage_submit(&c);
	return err;
}

int mpage_readpage(struct page *page, get_block_t get_block)
{
	return mpage_readpages(page->mapping, &page, 1, get_block);
}

/* --- write-back -------------------------------------------------------------- */

struct wb_item {
	sector_t sector;                /* of the page's first block: the sort key */
	struct page *page;
};

static int wb_item_cmp(const void *a, const void *b)
{
	sector_t x = ((const struct wb_item *)a)->sector, y = ((const struct wb_item *)b)->sector;

	return x < y ? -1 : x > y;
}

/* Up to max dirty pages of the range, referenced, into items. */
static unsigned int mpage_collect(struct address_space *mapping, struct writeback_control *wbc,
				  struct wb_item *items, unsigned int max)
{
	pgoff_t first = wbc->range_start >> PAGE_SHIFT, last = wbc->range_end >> PAGE_SHIFT;
	unsigned long flags;
	struct page *page;
	unsigned int n = 0;

	spin_lock_irqsave(&page_cache_lock, flags);
	list_for_each_entry(page, &mapping->i_pages, i_list) {
		if (n == max || (long)n >= wbc->nr_to_write)
			break;
		if ((page->flags & PG_dirty) && page->index >= first && page->index <= last) {
			get_page(page);
			items[n++].page = page;
		}
	}
	spin_unlock_irqrestore(&page_cache_lock, flags);
	return n;
}

/*
 * Take each collected page for write-back (locked, still dirty: now
 * clean and under write-back) and find its first block, the sort key;
 * drop the pages another writer took first.  Returns how many are left.
 */
static unsigned int mpage_prepare(struct mpage_ctx *c, struct wb_item *items, unsigned int n)
{
	struct address_space *mapping = c->mapping;
	unsigned int kept = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct page *page = items[i].page;
		sector_t iblock = (sector_t)page->index << (PAGE_SHIFT - mapping->i_blkbits);

		/* a page redirtied since an earlier batch may be in the open
		 * bio: send it, or we would wait for our own write */
		if (c->bio && PageWriteback(page))
			mpage_submit(c);
		lock_page(page);
		wait_on_page_writeback(page);
		if (page->mapping != mapping || !clear_page_dirty_for_io(page)) {
			unlock_page(page);
			put_page(page);
			continue;
		}
		set_page_writeback(page);
		if (c->get_block(mapping->host, iblock, &items[i].sector, true))
			items[i].sector = SECTOR_HOLE;  /* mpage_map_page reports it */
		items[kept++] = items[i];
	}
	return kept;
}

/*
 * Write one batch, sorted by block, into the open bio (the caller's plug
 * lets the request layer merge neighbours into requests as large as the
 * device takes).  The last bio stays open for the next batch: a run of
 * blocks across the batches' border goes on in the same bio, not in a
 * short request of its own.
 */
static void mpage_write_batch(struct mpage_ctx *c, struct writeback_control *wbc,
			      struct wb_item *items, unsigned int n)
{
	sort(items, n, sizeof(*items), wb_item_cmp);
	for (unsigned int i = 0; i < n; i++) {
		struct page *page = items[i].page;
		int err;

		c->nr_hint = (n - i) << (PAGE_SHIFT - c->mapping->i_blkbits);
		page->io_pending = 1;
		err = mpage_map_page(c, page, true);
		if (err) {
			mapping_set_error(c->mapping, err);
			if (!wbc->err)
				wbc->err = err;
		}
		unlock_page(page);
		mpage_page_done(page, true);
		put_page(page);
		wbc->nr_to_write--;
	}
}

/*
 * Linux's mpage_writepages: the mapping's dirty pages in the range, in
 * batches of WB_BATCH_PAGES, all under one plug (as Linux's wb_writeback
 * plugs its whole pass; the plug still flushes itself every
 * BLK_MAX_REQUEST_COUNT requests).  Does not wait for the writes (the caller
 * does: filemap_fdatawait).  Write-back is how memory comes back, so it
 * must work when there is none: without memory for the batch's array it
 * goes in batches of WB_STACK_PAGES from the stack (fewer merges, same
 * data), and the bios wait on fs_bio_set's reserve rather than fail.
 */
int mpage_writepages(struct address_space *mapping, struct writeback_control *wbc,
		     get_block_t get_block)
{
	struct mpage_ctx c = { .mapping = mapping, .get_block = get_block, .opf = REQ_OP_WRITE };
	struct wb_item stack_items[WB_STACK_PAGES], *items;
	struct blk_plug plug;
	unsigned int max = WB_BATCH_PAGES, n;
	/* no more than were dirty at the start: a writer redirtying pages
	 * as fast as they go must not keep fsync here forever */
	long stop = wbc->nr_to_write - (long)READ_ONCE(mapping->nrdirty);

	items = kmalloc(max * sizeof(*items), GFP_NOIO);
	if (!items) {
		items = stack_items;
		max = WB_STACK_PAGES;
	}
	blk_start_plug(&plug);
	while (wbc->nr_to_write > 0 && wbc->nr_to_write > stop &&
	       (n = mpage_collect(mapping, wbc, items, max)) != 0) {
		n = mpage_prepare(&c, items, n);
		mpage_write_batch(&c, wbc, items, n);
	}
	mpage_submit(&c);
	blk_finish_plug(&plug);
	if (items != stack_items)
		kfree(items);
	return 0;
}
