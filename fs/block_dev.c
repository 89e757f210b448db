// SPDX-License-Identifier: MIT
/*
 * block_dev.c - block-device files: /dev/sda, /dev/sda1 ... opened, read
 * and written like files.  This is where a user's read() or write() meets
 * the block layer: below this file there are only bios.
 *
 * Two ways down:
 *
 *   buffered (the default): through a cache of pages per block device,
 *     keyed by page index (offset / 4096).  A read copies from cached
 *     pages, reading the missing ones first -- up to BCACHE_RA_PAGES in
 *     one bio, a small readahead; a write copies into cached pages (read
 *     first if only part of a page is written) and marks them dirty.
 *     Dirty pages go to the disk ("write-back") on fsync/fdatasync, sync,
 *     BLKFLSBUF, the close of the last opener, and when the device's cache
 *     is full.  Write-back sends the dirty runs as bios under a plug, so
 *     the request layer can merge them, and waits for all of them.
 *
 *   O_DIRECT: no cache, and no copy.  Buffer address, length and file
 *     offset must be multiples of the logical block size (EINVAL
 *     otherwise, as Linux).  The caller's own pages are pinned and put in
 *     bios of up to BIO_MAX_VECS pages, sent together (under a plug) and
 *     waited for together: the device's DMA reads or fills the user's
 *     buffer itself.  A buffer that is not all there (unmapped part way)
 *     gives a short transfer up to the hole; if its first page is
 *     missing, EFAULT.
 *     Cached pages in the range are written back first, and a direct
 *     write drops them after, so the two paths agree -- except a page a
 *     buffered write dirtied meanwhile, which is kept (and reported), so
 *     that write is not lost.  On the same device only: a partition and
 *     its whole disk have separate caches, as in Linux, so writing sda1
 *     and reading sda can show old data until write-back.
 *
 * Reads at or past the end return 0 (a read across it is short); writes
 * at or past it fail with ENOSPC.  fsync writes back and then sends an
 * empty REQ_OP_WRITE|REQ_PREFLUSH bio: the device's volatile write cache
 * is flushed too.  Each partition has its own cache (as Linux): writing
 * sda1 and reading the same bytes through sda can see stale data until
 * sda1's cache is written back.
 *
 * When memory runs out (docs/block.md, "When memory runs out"): bios
 * come from fs_bio_set's reserves and wait, never fail; write-back that
 * cannot allocate its sorted list goes in batches from the stack, so
 * fsync still writes; a cache page that cannot be allocated is taken from
 * the cache's own clean pages, and only with none is a buffered read or
 * write -ENOMEM; O_DIRECT needs no memory but its bios.  Every cache
 * page starts zeroed, so a buffered read of a device that fills nothing
 * (null_blk) shows zeros, never old kernel memory.
 *
 * O_EXCL claims the device (bd_holder): a second exclusive open, of it,
 * of its whole disk or of one of its partitions, fails with EBUSY while
 * the first is open -- and so does one of a disk device-mapper uses as a
 * leg (drivers/md/dm.c claims its legs the same way).
 *
 * Locking: a device's cache is under its mutex, held across the I/O of
 * buffered reads, writes and write-back (simple: one device's buffered
 * readers and writers take turns).  Direct I/O takes it only around its
 * cache work (write-back before, invalidation after), never across its
 * own I/O, so direct readers and writers run in parallel.  The list of
 * caches is under bcache_list_lock, taken first.
 */
#include <spindle/fs.h>
#include <spindle/blkdev.h>
#include <spindle/bio.h>
#include <spindle/blk_plug.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/completion.h>
#include <spindle/uaccess.h>
#include <spindle/sort.h>
#include <spindle/ratelimit.h>
#include <spindle/err.h>
#include <spindle/aio.h>
#include <uapi/linux/fs.h>
#include "internal.h"
#include "../block/blk.h"

#define BCACHE_HASH         256     /* buckets per device */
#define BCACHE_RA_PAGES     32      /* pages read in one bio on a miss: 128 KiB */
#define BCACHE_MIN_PAGES    256     /* a device's cache holds at least 1 MiB ... */
#define BCACHE_RAM_SHARE    16      /* ... and at most 1/16 of RAM */
#define BCACHE_WB_BATCH     64      /* dirty pages per write-back pass without memory */

struct bcache_page {
	struct list_head hash;          /* on the device's bucket */
	struct list_head lru;           /* on the device's LRU, oldest first */
	pgoff_t index;
	struct page *page;
	bool dirty;
};

struct bdev_cache {
	struct block_device *bdev;
	struct list_head list;          /* on bcache_list */
	struct mutex lock;
	struct list_head hash[BCACHE_HASH];
	struct list_head lru;
	unsigned long nr_pages, nr_dirty;
	int openers;
};

static LIST_HEAD(bcache_list);
static DEFINE_MUTEX(bcache_list_lock);

/* --- the device's geometry ------------------------------------------------- */

static loff_t bdev_size(struct block_device *bdev)
{
	return (loff_t)bdev_nr_sectors(bdev) << SECTOR_SHIFT;
}

static unsigned int bdev_logical_block_size(struct block_device *bdev)
{
	struct request_queue *q = bdev->bd_disk->queue;

	return q && q->limits.logical_block_size ? q->limits.logical_block_size : 512;
}

/* Bytes of page `index` that lie on the device (the last may be partial). */
static unsigned int bcache_page_bytes(struct block_device *bdev, pgoff_t index)
{
	loff_t start = (loff_t)index << PAGE_SHIFT, size = bdev_size(bdev);

	if (start >= size)
		return 0;
	return size - start >= (loff_t)PAGE_SIZE ? PAGE_SIZE : (unsigned int)(size - start);
}

static unsigned long bcache_max_pages(void)
{
	unsigned long n = totalram_pages() / BCACHE_RAM_SHARE;

	return n < BCACHE_MIN_PAGES ? BCACHE_MIN_PAGES : n;
}

/* --- the cache: find, add, drop ------------------------------------------- */

static struct bcache_page *bcache_find(struct bdev_cache *c, pgoff_t index)
{
	struct bcache_page *bp;

	list_for_each_entry(bp, &c->hash[index % BCACHE_HASH], hash)
		if (bp->index == index) {
			list_move_tail(&bp->lru, &c->lru);      /* recently used */
			return bp;
		}
	return NULL;
}

static void bcache_insert(struct bdev_cache *c, struct bcache_page *bp)
{
	list_add(&bp->hash, &c->hash[bp->index % BCACHE_HASH]);
	list_add_tail(&bp->lru, &c->lru);
	c->nr_pages++;
}

static void bcache_drop(struct bdev_cache *c, struct bcache_page *bp)
{
	list_del(&bp->hash);
	list_del(&bp->lru);
	if (bp->dirty)
		c->nr_dirty--;
	c->nr_pages--;
	__free_page(bp->page);
	kfree(bp);
}

/*
 * No memory for a new page: take this cache's least recently used clean
 * page out of the cache and hand it back zeroed, for index -- what
 * reclaim would have done to it.  NULL if every page is dirty.  c->lock held.
 */
static struct bcache_page *bcache_reclaim_one(struct bdev_cache *c, pgoff_t index)
{
	struct bcache_page *bp;

	list_for_each_entry(bp, &c->lru, lru) {
		if (bp->dirty)
			continue;
		list_del(&bp->hash);
		list_del(&bp->lru);
		c->nr_pages--;
		memset(page_address(bp->page), 0, PAGE_SIZE);
		bp->index = index;
		return bp;
	}
	return NULL;
}

/*
 * A zeroed page for index, not yet in the cache: a read that fails or a
 * device that fills nothing leaves zeros, never old memory.  When memory
 * is gone, one of the cache's own clean pages; else NULL (-ENOMEM).
 */
static struct bcache_page *bcache_alloc(struct bdev_cache *c, pgoff_t index)
{
	struct bcache_page *bp = kzalloc(sizeof(*bp), GFP_KERNEL);

	if (!bp)
		return bcache_reclaim_one(c, index);
	bp->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!bp->page) {
		kfree(bp);
		return bcache_reclaim_one(c, index);
	}
	bp->index = index;
	return bp;
}

/* --- write-back ------------------------------------------------------------- */

/* Counts the bios of one write-back; the last completion wakes the writer. */
struct bcache_wb {
	spinlock_t lock;
	int pending;
	int error;
	struct completion done;
};

static void bcache_wb_end_io(struct bio *bio)
{
	struct bcache_wb *wb = bio->bi_private;
	unsigned long flags;

	spin_lock_irqsave(&wb->lock, flags);
	if (bio->bi_status && !wb->error)
		wb->error = blk_status_to_errno(bio->bi_status);
	if (--wb->pending == 0)
		complete(&wb->done);
	spin_unlock_irqrestore(&wb->lock, flags);
	bio_put(bio);
}

static int bp_index_cmp(const void *a, const void *b)
{
	pgoff_t x = (*(struct bcache_page *const *)a)->index;
	pgoff_t y = (*(struct bcache_page *const *)b)->index;

	return x < y ? -1 : x > y;
}

/*
 * Send [first, first + n) of the sorted dirty pages, which are
 * consecutive on the device, as one bio.
 */
static void bcache_submit_run(struct bdev_cache *c, struct bcache_page **run,
			      unsigned int n, struct bcache_wb *wb)
{
	struct bio *bio = bio_alloc(GFP_NOIO, n);

	bio_set_dev(bio, c->bdev);
	bio->bi_iter.bi_sector = (sector_t)run[0]->index << (PAGE_SHIFT - SECTOR_SHIFT);
	bio->bi_opf = REQ_OP_WRITE;
	bio->bi_end_io = bcache_wb_end_io;
	bio->bi_private = wb;
	for (unsigned int i = 0; i < n; i++)
		bio_add_page(bio, run[i]->page, bcache_page_bytes(c->bdev, run[i]->index), 0);
	spin_lock_irq(&wb->lock);
	wb->pending++;
	spin_unlock_irq(&wb->lock);
	submit_bio(bio);
}

/*
 * Take up to max dirty pages of c in [from, to) pages into list, marking
 * them clean (see bcache_writeback_range); returns how many.
 */
static unsigned int bcache_collect_dirty(struct bdev_cache *c, pgoff_t from, pgoff_t to,
					 struct bcache_page **list, unsigned int max)
{
	struct bcache_page *bp;
	unsigned int n = 0;

	list_for_each_entry(bp, &c->lru, lru) {
		if (n == max)
			break;
		if (bp->dirty && bp->index >= from && bp->index < to) {
			list[n++] = bp;
			bp->dirty = false;
			c->nr_dirty--;
		}
	}
	return n;
}

/* Send the n pages of list, sorted, as runs of consecutive pages, and wait. */
static int bcache_write_pages(struct bdev_cache *c, struct bcache_page **dirty, unsigned int n)
{
	struct bcache_wb wb;
	struct blk_plug plug;
	unsigned int start;

	sort(dirty, n, sizeof(*dirty), bp_index_cmp);
	spin_lock_init(&wb.lock);
	wb.pending = 1;                 /* ours, dropped after the last submit */
	wb.error = 0;
	init_completion(&wb.done);
	blk_start_plug(&plug);
	for (start = 0; start < n; ) {
		unsigned int len = 1;

		while (start + len < n && len < BIO_MAX_VECS &&
		       dirty[start + len]->index == dirty[start]->index + len)
			len++;
		bcache_submit_run(c, dirty + start, len, &wb);
		start += len;
	}
	blk_finish_plug(&plug);
	spin_lock_irq(&wb.lock);
	if (--wb.pending == 0)
		complete(&wb.done);
	spin_unlock_irq(&wb.lock);
	wait_for_completion(&wb.done);
	return wb.error;
}

/*
 * Write every dirty page of c (or only those in [from, to) pages) to the
 * disk and wait.  Pages are marked clean before the bios go: a write that
 * then fails is reported (-EIO) and the data is lost, as Linux does after
 * reporting a write-back error.  c->lock held.  May sleep.
 *
 * Write-back is how memory comes back, so it must work when there is
 * none: the list of dirty pages is kmalloc'ed for one sorted pass, and if
 * that fails the pages go in passes of BCACHE_WB_BATCH from a list on the
 * stack (fewer merges, same data).  The bios wait on fs_bio_set's
 * reserves rather than fail.
 */
static int bcache_writeback_range(struct bdev_cache *c, pgoff_t from, pgoff_t to)
{
	struct bcache_page *batch[BCACHE_WB_BATCH], **dirty;
	unsigned int max, n;
	int err = 0;

	if (!c->nr_dirty)
		return 0;
	max = c->nr_dirty;
	dirty = kmalloc(max * sizeof(*dirty), GFP_NOIO);
	if (!dirty) {
		dirty = batch;
		max = BCACHE_WB_BATCH;
	}
	while ((n = bcache_collect_dirty(c, from, to, dirty, max)) != 0) {
		int e = bcache_write_pages(c, dirty, n);

		if (e && !err)
			err = e;
		if (dirty != batch)
			break;          /* the whole range was in one pass */
	}
	if (dirty != batch)
		kfree(dirty);
	if (err)
		pr_err("%s: write-back failed (%d): data lost\n", c->bdev->bd_name, err);
	return err;
}

static int bcache_writeback(struct bdev_cache *c)
{
	return bcache_writeback_range(c, 0, ~(pgoff_t)0);
}

/* An empty write with PREFLUSH: the device empties its volatile cache. */
static int blkdev_issue_flush(struct block_device *bdev)
{
	struct bio *bio = bio_alloc(GFP_NOIO, 0);
	int err;

	bio_set_dev(bio, bdev);
	bio->bi_opf = REQ_OP_WRITE | REQ_PREFLUSH;
	err = submit_bio_wait(bio);
	bio_put(bio);
	return err;
}

/* Drop clean pages, oldest first, until the cache is under its limit;
 * if everything is dirty, write back first.  c->lock held. */
static void bcache_shrink(struct bdev_cache *c)
{
	unsigned long max = bcache_max_pages();
	struct bcache_page *bp, *next;

	if (c->nr_pages < max)
		return;
	if (c->nr_dirty > max / 2)
		bcache_writeback(c);
	list_for_each_entry_safe(bp, next, &c->lru, lru) {
		if (c->nr_pages < max - max / 8)
			break;                  /* some room, not a cliff each page */
		if (!bp->dirty)
			bcache_drop(c, bp);
	}
}

/* --- reading into the cache ------------------------------------------------ */

/*
 * Read page `index` and the following missing ones (up to
 * BCACHE_RA_PAGES, not past the device's end or a page already cached)
 * in one bio.  c->lock held.  May sleep.
 */
static int bcache_read_pages(struct bdev_cache *c, pgoff_t index)
{
	struct bcache_page *run[BCACHE_RA_PAGES];
	unsigned int n = 0;
	struct bio *bio;
	int err;

	while (n < BCACHE_RA_PAGES && bcache_page_bytes(c->bdev, index + n) &&
	       (n == 0 || !bcache_find(c, index + n))) {
		run[n] = bcache_alloc(c, index + n);
		if (!run[n])
			break;
		n++;
	}
	if (!n)
		return -ENOMEM;
	bio = bio_alloc(GFP_NOIO, n);
	bio_set_dev(bio, c->bdev);
	bio->bi_iter.bi_sector = (sector_t)index << (PAGE_SHIFT - SECTOR_SHIFT);
	bio->bi_opf = REQ_OP_READ;
	for (unsigned int i = 0; i < n; i++)
		bio_add_page(bio, run[i]->page, bcache_page_bytes(c->bdev, index + i), 0);
	err = submit_bio_wait(bio);
	bio_put(bio);
	for (unsigned int i = 0; i < n; i++) {
		if (err) {
			__free_page(run[i]->page);
			kfree(run[i]);
		} else {
			bcache_insert(c, run[i]);
		}
	}
	return err;
}

/* The cached page for index; read it from the disk first if `fill`. */
static struct bcache_page *bcache_get(struct bdev_cache *c, pgoff_t index, bool fill, int *err)
{
	struct bcache_page *bp = bcache_find(c, index);

	*err = 0;
	if (bp)
		return bp;
	bcache_shrink(c);
	if (fill) {
		*err = bcache_read_pages(c, index);
		return *err ? NULL : bcache_find(c, index);
	}
	bp = bcache_alloc(c, index);
	if (!bp) {
		*err = -ENOMEM;
		return NULL;
	}
	bcache_insert(c, bp);
	return bp;
}

/* --- buffered read and write -------------------------------------------------- */

static ssize_t bcache_read(struct bdev_cache *c, struct iov_iter *to, loff_t *pos)
{
	loff_t size = bdev_size(c->bdev);
	ssize_t done = 0;
	int err = 0;

	mutex_lock(&c->lock);
	while (iov_iter_count(to) && *pos < size) {
		pgoff_t index = *pos >> PAGE_SHIFT;
		size_t off = *pos & (PAGE_SIZE - 1);
		size_t n = min_t(size_t, PAGE_SIZE - off, iov_iter_count(to));
		struct bcache_page *bp;
		size_t copied;

		n = min_t(size_t, n, size - *pos);
		bp = bcache_get(c, index, true, &err);
		if (!bp)
			break;
		copied = copy_to_iter((char *)page_address(bp->page) + off, n, to);
		*pos += copied;
		done += copied;
		if (copied < n) {
			err = -EFAULT;
			break;
		}
	}
	mutex_unlock(&c->lock);
	return done ? done : err;
}

static ssize_t bcache_write(struct bdev_cache *c, struct iov_iter *from, loff_t *pos)
{
	loff_t size = bdev_size(c->bdev);
	ssize_t done = 0;
	int err = 0;

	if (*pos >= size)
		return -ENOSPC;
	mutex_lock(&c->lock);
	while (iov_iter_count(from) && *pos < size) {
		pgoff_t index = *pos >> PAGE_SHIFT;
		size_t off = *pos & (PAGE_SIZE - 1);
		size_t n = min_t(size_t, PAGE_SIZE - off, iov_iter_count(from));
		unsigned int valid = bcache_page_bytes(c->bdev, index);
		struct bcache_page *bp;
		size_t copied;

		bool whole, fresh;

		n = min_t(size_t, n, size - *pos);
		/* a write of the whole page need not read it first */
		whole = off == 0 && n == valid;
		fresh = whole && !bcache_find(c, index);
		bp = bcache_get(c, index, !whole, &err);
		if (!bp)
			break;
		copied = copy_from_iter((char *)page_address(bp->page) + off, n, from);
		if (fresh && copied < n) {
			/*
			 * The page was never read from the disk, trusting this
			 * write to cover it, and the user's buffer ran out (a
			 * fault): what it holds is neither the disk's data nor
			 * the write.  Drop it, and count none of it as written.
			 */
			bcache_drop(c, bp);
			err = -EFAULT;
			break;
		}
		if (copied && !bp->dirty) {
			bp->dirty = true;
			c->nr_dirty++;
		}
		*pos += copied;
		done += copied;
		if (copied < n) {
			err = -EFAULT;
			break;
		}
	}
	mutex_unlock(&c->lock);
	return done ? done : err;
}

/* --- O_DIRECT: the device reads and writes the caller's own pages --------------- */

/* Linux's rule: offset, length and buffer address on logical blocks. */
bool blkdev_dio_aligned(unsigned int lbs, loff_t pos, size_t count, unsigned long addr)
{
	unsigned long mask = lbs - 1;

	return !(((unsigned long)pos | count | addr) & mask);
}

/*
 * One direct read or write (Linux's struct blkdev_dio): its bios go down
 * together -- under a plug when there are several, as Linux's
 * __blkdev_direct_IO() sends them -- each over up to BIO_MAX_VECS pages of the
 * caller's buffer -- no copy: bio_iov_iter_get_pages() pins the user's
 * pages, the device's DMA goes straight to and from them, and each bio's
 * completion unpins its own.  ref counts the bios in flight plus one for
 * the submitter, so the last of them, whoever it is, wakes the caller
 * -- or, for an asynchronous request (io_submit, fs/aio.c), completes its
 * kiocb: the last bio's completion, in interrupt context, calls
 * ki_complete() with the bytes or the first error, and frees the dio.
 * The synchronous call is the same machinery plus a wait, as in Linux,
 * where a sync read is an async one that waits.
 * A read leaves in the buffer what the device put there: a device that
 * fills nothing (null_blk) leaves the caller's own bytes, as on Linux.
 * (Spindle's anonymous pages have no dirty bit to set after a read; with
 * a page cache behind mmap, this is where Linux marks them dirty.)
 */
struct blkdev_dio {
	unsigned int ref;               /* bios in flight, +1 for the submitter */
	int error;                      /* the first error of any bio */
	size_t size;                    /* bytes in the bios sent */
	struct kiocb *iocb;             /* async: completed by the last bio; NULL: sync */
	struct completion done;         /* sync: the caller waits here */
};

static void blkdev_dio_put(struct blkdev_dio *dio)
{
	struct kiocb *iocb = dio->iocb;
	long res;

	if (__atomic_sub_fetch(&dio->ref, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (!iocb) {
		complete(&dio->done);
		return;
	}
	/* the last reference of an async dio: nobody waits, tell the kiocb */
	res = dio->error ? dio->error : (long)dio->size;
	kfree(dio);
	iocb->ki_complete(iocb, res);
}

static void blkdev_dio_end_io(struct bio *bio)
{
	struct blkdev_dio *dio = bio->bi_private;
	int zero = 0;

	if (bio->bi_status)
		__atomic_compare_exchange_n(&dio->error, &zero, blk_status_to_errno(bio->bi_status),
					    false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	bio_release_pages(bio);
	bio_put(bio);
	blkdev_dio_put(dio);
}

/*
 * After a direct write, cached copies of the range are stale: drop them.
 * Not a page a buffered write dirtied again while the direct write was
 * on its way, though: dropping it would lose that write.  It stays (it
 * reaches the disk at the next write-back, after the direct data) and
 * the kernel says so, as Linux does when its invalidation fails.
 */
static void bcache_invalidate_range(struct bdev_cache *c, loff_t pos, size_t len)
{
	unsigned int kept = 0;

	mutex_lock(&c->lock);
	for (pgoff_t p = pos >> PAGE_SHIFT; p < (pos + len + PAGE_SIZE - 1) >> PAGE_SHIFT; p++) {
		struct bcache_page *bp = bcache_find(c, p);

		if (bp && bp->dirty)
			kept++;
		else if (bp)
			bcache_drop(c, bp);
	}
	mutex_unlock(&c->lock);
	if (kept)
		printk_ratelimited(KERN_WARNING "%s: direct write at byte %lld: %u cached page(s) dirtied "
				   "by a buffered write meanwhile were kept, not invalidated "
				   "(possible data corruption from mixing buffered and direct I/O)\n",
				   c->bdev->bd_name, (long long)pos, kept);
}

/*
 * Send the bios of one direct read or write of it, from pos, counted in
 * dio.  Returns the bytes sent in them; *errp is the error that stopped
 * it before any bio was sent (a buffer whose first page is missing).
 */
static size_t blkdev_dio_submit(struct block_device *bdev, struct blkdev_dio *dio,
				struct iov_iter *it, loff_t pos, bool write, int *errp)
{
	struct blk_plug plug;
	bool plugged;
	size_t done = 0;
	int err = 0;

	/* several bios: under a plug (inside io_submit's own, a no-op) */
	plugged = DIV_ROUND_UP((iov_iter_addr(it) & ~PAGE_MASK) + iov_iter_count(it),
			       PAGE_SIZE) > BIO_MAX_VECS;
	if (plugged)
		blk_start_plug(&plug);
	while (!err && iov_iter_count(it)) {
		unsigned long addr = iov_iter_addr(it);
		unsigned int nr = min_t(size_t, BIO_MAX_VECS,
					DIV_ROUND_UP((addr & ~PAGE_MASK) + iov_iter_count(it), PAGE_SIZE));
		struct bio *bio = bio_alloc(GFP_NOIO, nr);      /* waits, never NULL */
		bool stopped;

		bio_set_dev(bio, bdev);
		bio->bi_iter.bi_sector = (pos + done) >> SECTOR_SHIFT;
		/* REQ_SYNC: someone waits for it (the synchronous caller, or
		 * io_getevents: either way soon, unlike write-back) */
		bio->bi_opf = (write ? REQ_OP_WRITE : REQ_OP_READ) | REQ_SYNC;
		bio->bi_end_io = blkdev_dio_end_io;
		bio->bi_private = dio;
		err = bio_iov_iter_get_pages(bio, it);
		if (err) {
			bio_put(bio);
			break;
		}
		/* room left and bytes left, yet it stopped: the buffer did */
		stopped = iov_iter_count(it) && bio->bi_vcnt < min_t(unsigned int, nr, bio->bi_max_vecs);
		done += bio->bi_iter.bi_size;
		dio->size = done;
		__atomic_add_fetch(&dio->ref, 1, __ATOMIC_RELAXED);
		submit_bio(bio);
		if (stopped)
			break;
	}
	if (plugged)
		blk_finish_plug(&plug);
	*errp = err;
	return done;
}

/*
 * Linux's blkdev_direct_IO.  iocb NULL: synchronous, and *pos moves on.
 * Otherwise asynchronous, from *pos == iocb->ki_pos: -EIOCBQUEUED once a
 * bio is on its way (the result comes through iocb->ki_complete), or the
 * result itself when nothing was sent.
 */
static ssize_t blkdev_direct_IO(struct bdev_cache *c, struct iov_iter *it, loff_t *pos,
				bool write, struct kiocb *iocb)
{
	struct block_device *bdev = c->bdev;
	loff_t size = bdev_size(bdev);
	size_t count = iov_iter_count(it), beyond, done;
	struct blkdev_dio sync_dio, *dio = &sync_dio;
	int err = 0;

	if (!blkdev_dio_aligned(bdev_logical_block_size(bdev), *pos, count, iov_iter_addr(it)))
		return -EINVAL;
	if (*pos >= size)
		return write ? -ENOSPC : 0;
	/* across the end: a short transfer (Linux's iov_iter_truncate) */
	beyond = count > (size_t)(size - *pos) ? count - (size_t)(size - *pos) : 0;
	count -= beyond;

	/*
	 * The cache's dirty data in the range reaches the disk first.  The
	 * cache lock is held only around the cache work, not across the
	 * I/O: direct I/O from several tasks runs in parallel, as it does
	 * in Linux (bench's workers keep the queue busy).
	 *
	 * An async write cannot drop the stale cached copies after its I/O
	 * (that takes the mutex, and its end is an interrupt), so it drops
	 * them now, before its bios go, as Linux's kiocb_invalidate_pages()
	 * does for every direct write.  A buffered read of the same blocks
	 * while the write is in flight may cache the old data again: mixing
	 * the two on the same blocks at the same time is the user's race, in
	 * Linux too.
	 */
	mutex_lock(&c->lock);
	err = bcache_writeback_range(c, *pos >> PAGE_SHIFT,
				     (*pos + count + PAGE_SIZE - 1) >> PAGE_SHIFT);
	mutex_unlock(&c->lock);
	if (err)
		return err;
	if (!count)
		return 0;
	if (iocb && write)
		bcache_invalidate_range(c, *pos, count);

	if (iocb) {
		dio = kmalloc(sizeof(*dio), GFP_NOIO);
		if (!dio)
			return -ENOMEM;
	}
	*dio = (struct blkdev_dio){ .ref = 1, .iocb = iocb };
	if (!iocb)
		init_completion(&dio->done);

	it->count -= beyond;
	done = blkdev_dio_submit(bdev, dio, it, *pos, write, &err);
	it->count += beyond;

	if (iocb) {
		if (!done) {                    /* nothing sent: the answer is now */
			kfree(dio);
			return err;
		}
		blkdev_dio_put(dio);            /* the last bio, or this, completes iocb */
		return -EIOCBQUEUED;
	}
	blkdev_dio_put(dio);
	wait_for_completion(&dio->done);
	if (write && done)
		bcache_invalidate_range(c, *pos, done);
	if (dio->error)
		return dio->error;
	*pos += done;
	return done ? (ssize_t)done : err;
}

/* An O_DIRECT read or write for io_submit (fs/aio.c). */
ssize_t blkdev_direct_IO_async(struct kiocb *iocb, struct iov_iter *it, bool write)
{
	struct file *f = iocb->ki_filp;

	if (f->f_op != &def_blk_fops || !(f->f_flags & O_DIRECT))
		return -EINVAL;
	if (iocb->ki_pos < 0)
		return -EINVAL;
	return blkdev_direct_IO(f->private_data, it, &iocb->ki_pos, write, iocb);
}

/* --- the file operations ------------------------------------------------------- */

static ssize_t blkdev_read_iter(struct file *f, struct iov_iter *to, loff_t *pos)
{
	struct bdev_cache *c = f->private_data;

	if (*pos < 0)
		return -EINVAL;
	if (f->f_flags & O_DIRECT)
		return blkdev_direct_IO(c, to, pos, false, NULL);
	return bcache_read(c, to, pos);
}

static ssize_t blkdev_write_iter(struct file *f, struct iov_iter *from, loff_t *pos)
{
	struct bdev_cache *c = f->private_data;

	if (*pos < 0)
		return -EINVAL;
	if (f->f_flags & O_DIRECT)
		return blkdev_direct_IO(c, from, pos, true, NULL);
	return bcache_write(c, from, pos);
}

static loff_t blkdev_llseek(struct file *f, loff_t offset, int whence)
{
	struct bdev_cache *c = f->private_data;
	loff_t base;

	switch (whence) {
	case SEEK_SET: base = 0; break;
	case SEEK_CUR: base = f->f_pos; break;
	case SEEK_END: base = bdev_size(c->bdev); break;
	default: return -EINVAL;
	}
	return vfs_setpos(f, base, offset, bdev_size(c->bdev));    /* not past the end */
}

static int blkdev_fsync(struct file *f, int datasync)
{
	struct bdev_cache *c = f->private_data;
	int err;

	(void)datasync;
	mutex_lock(&c->lock);
	err = bcache_writeback(c);
	mutex_unlock(&c->lock);
	if (!err)
		err = blkdev_issue_flush(c->bdev);
	return err;
}

/* BLKFLSBUF: write back, then forget every cached page. */
static int bcache_flush_and_drop(struct bdev_cache *c)
{
	struct bcache_page *bp, *next;
	int err;

	mutex_lock(&c->lock);
	err = bcache_writeback(c);
	list_for_each_entry_safe(bp, next, &c->lru, lru)
		if (!bp->dirty)
			bcache_drop(c, bp);
	mutex_unlock(&c->lock);
	return err;
}

static struct bdev_cache *bcache_lookup(struct block_device *bdev)
{
	struct bdev_cache *c;

	list_for_each_entry(c, &bcache_list, list)
		if (c->bdev == bdev)
			return c;
	return NULL;
}

static void bcache_destroy(struct bdev_cache *c)
{
	struct bcache_page *bp, *next;

	list_for_each_entry_safe(bp, next, &c->lru, lru)
		bcache_drop(c, bp);
	list_del(&c->list);
	kfree(c);
}

/*
 * BLKRRPART: forget the partitions and read the table again, as Linux's
 * disk_scan_partitions():
 *   - EINVAL on a partition, or a disk that cannot have any;
 *   - EBUSY while another open file holds the disk with O_EXCL (the
 *     holder itself may rescan), or a partition is open or claimed;
 *   - the disk's own dirty cached pages are written back first: a table
 *     just written through the cache (fdisk's way) is the one read;
 *   - the table is read before anything is dropped, so a rescan that
 *     cannot read it (ENOMEM, EIO) leaves the old partitions in place.
 * The partitions' caches are written back and freed with them.
 */
static int blkdev_reread_part(struct file *f)
{
	struct bdev_cache *wc = f->private_data;
	struct block_device *whole = wc->bdev;
	struct gendisk *disk = whole->bd_disk;
	struct parsed_partitions *state;
	int err = 0;

	if (whole->bd_partno)
		return -EINVAL;
	if (disk->minors <= 1)
		return -EINVAL;
	mutex_lock(&bcache_list_lock);
	if (whole->bd_holder && whole->bd_holder != f)
		err = -EBUSY;
	for (int p = 1; !err && p < DISK_MAX_PARTS; p++) {
		struct block_device *b = disk->part[p];
		struct bdev_cache *c = b ? bcache_lookup(b) : NULL;

		if (b && (b->bd_holder || (c && c->openers)))
			err = -EBUSY;
	}
	if (!err) {
		mutex_lock(&wc->lock);
		err = bcache_writeback(wc);
		mutex_unlock(&wc->lock);
	}
	if (err)
		goto out;
	state = blk_read_partitions(disk);
	if (IS_ERR(state)) {
		err = PTR_ERR(state);
		goto out;
	}
	for (int p = 1; p < DISK_MAX_PARTS; p++) {
		struct block_device *b = disk->part[p];
		struct bdev_cache *c = b ? bcache_lookup(b) : NULL;

		if (c) {
			mutex_lock(&c->lock);
			bcache_writeback(c);
			mutex_unlock(&c->lock);
			bcache_destroy(c);
		}
	}
	/* still under the lock: an open of a partition now being freed
	 * waits, and then finds the new table's */
	blk_drop_partitions(disk);
	blk_add_partitions(disk, state);
	kfree(state);
out:
	mutex_unlock(&bcache_list_lock);
	return err;
}

static long blkdev_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct bdev_cache *c = f->private_data;
	struct block_device *bdev = c->bdev;
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case BLKGETSIZE64: {
		u64 bytes = bdev_size(bdev);

		return copy_to_user(argp, &bytes, sizeof(bytes)) ? -EFAULT : 0;
	}
	case BLKGETSIZE: {
		unsigned long sectors = bdev_nr_sectors(bdev);

		return copy_to_user(argp, &sectors, sizeof(sectors)) ? -EFAULT : 0;
	}
	case BLKSSZGET: {
		int lbs = bdev_logical_block_size(bdev);

		return copy_to_user(argp, &lbs, sizeof(lbs)) ? -EFAULT : 0;
	}
	case BLKFLSBUF:
		return bcache_flush_and_drop(c);
	case BLKRRPART:
		return blkdev_reread_part(f);
	default:
		return -ENOTTY;
	}
}

/* --- open, close, holders -------------------------------------------------------- */

/* May holder claim bdev exclusively?  (Linux's bd_may_claim, simplified.) */
static bool bd_may_claim(struct block_device *bdev, void *holder)
{
	struct gendisk *disk = bdev->bd_disk;

	if (bdev->bd_holder)
		return bdev->bd_holder == holder;
	if (bdev->bd_partno)            /* the whole disk claimed by another */
		return !disk->part[0]->bd_holder;
	for (int p = 1; p < DISK_MAX_PARTS; p++)
		if (disk->part[p] && disk->part[p]->bd_holder)
			return false;   /* a partition of it is claimed */
	return true;
}

/* Caller holds bcache_list_lock. */
static int __bd_claim(struct block_device *bdev, void *holder)
{
	if (!bd_may_claim(bdev, holder))
		return -EBUSY;
	bdev->bd_holder = holder;
	return 0;
}

int bd_claim(struct block_device *bdev, void *holder)
{
	int err;

	mutex_lock(&bcache_list_lock);
	err = __bd_claim(bdev, holder);
	mutex_unlock(&bcache_list_lock);
	return err;
}

void bd_release(struct block_device *bdev, void *holder)
{
	mutex_lock(&bcache_list_lock);
	if (bdev->bd_holder == holder)
		bdev->bd_holder = NULL;
	mutex_unlock(&bcache_list_lock);
}

/* The cache of bdev, made on first open; an opener counted.  */
static struct bdev_cache *__bcache_open(struct block_device *bdev)
{
	struct bdev_cache *c;

	assert_mutex_held(&bcache_list_lock);
	c = bcache_lookup(bdev);
	if (!c) {
		c = kzalloc(sizeof(*c), GFP_KERNEL);
		if (c) {
			c->bdev = bdev;
			mutex_init(&c->lock);
			for (int i = 0; i < BCACHE_HASH; i++)
				INIT_LIST_HEAD(&c->hash[i]);
			INIT_LIST_HEAD(&c->lru);
			list_add_tail(&c->list, &bcache_list);
		}
	}
	if (c)
		c->openers++;
	return c;
}

static int blkdev_release(struct inode *inode, struct file *f)
{
	struct bdev_cache *c = f->private_data;
	bool last;

	(void)inode;
	if (f->f_mode & FMODE_EXCL)
		bd_release(c->bdev, f);
	/* under the list lock throughout: BLKRRPART may not destroy c until
	 * its last opener has written it back */
	mutex_lock(&bcache_list_lock);
	last = --c->openers == 0;
	if (last) {                     /* the last close writes back */
		mutex_lock(&c->lock);
		bcache_writeback(c);
		mutex_unlock(&c->lock);
	}
	mutex_unlock(&bcache_list_lock);
	return 0;
}

const struct file_operations def_blk_fops = {
	.llseek = blkdev_llseek,
	.read_iter = blkdev_read_iter,
	.write_iter = blkdev_write_iter,
	.unlocked_ioctl = blkdev_ioctl,
	.fsync = blkdev_fsync,
	.release = blkdev_release,
};

/* Opening a block-device node: find the device by number. */
int blkdev_open_inode(struct inode *inode, struct file *f)
{
	char name[24];
	struct block_device *bdev;
	struct bdev_cache *c;

	snprintf(name, sizeof(name), "%u:%u", MAJOR(inode->i_rdev), MINOR(inode->i_rdev));
	/*
	 * Find, claim and count the opener under one lock: BLKRRPART frees
	 * partitions under it too, so the block_device found here cannot go
	 * away before this open is counted.
	 */
	mutex_lock(&bcache_list_lock);
	bdev = lookup_bdev(name);
	if (!bdev) {
		mutex_unlock(&bcache_list_lock);
		return -ENXIO;
	}
	if (f->f_flags & O_EXCL) {
		int err = __bd_claim(bdev, f);

		if (err) {
			mutex_unlock(&bcache_list_lock);
			return err;
		}
		f->f_mode |= FMODE_EXCL;
	}
	c = __bcache_open(bdev);
	if (!c && (f->f_mode & FMODE_EXCL))
		bdev->bd_holder = NULL;
	mutex_unlock(&bcache_list_lock);
	if (!c)
		return -ENOMEM;
	f->f_op = &def_blk_fops;
	f->private_data = c;
	return 0;
}

/* sync(2): every device's dirty pages, then a cache flush for each. */
int sync_blockdevs(void)
{
	struct bdev_cache *c;
	int err = 0;

	mutex_lock(&bcache_list_lock);
	list_for_each_entry(c, &bcache_list, list) {
		int e;

		mutex_lock(&c->lock);
		e = bcache_writeback(c);
		mutex_unlock(&c->lock);
		if (!e)
			e = blkdev_issue_flush(c->bdev);
		if (e && !err)
			err = e;
	}
	mutex_unlock(&bcache_list_lock);
	return err;
}

/* For tests and /proc/meminfo's "Buffers": cached and dirty pages. */
void bcache_stats(unsigned long *pages, unsigned long *dirty)
{
	struct bdev_cache *c;

	*pages = *dirty = 0;
	mutex_lock(&bcache_list_lock);
	list_for_each_entry(c, &bcache_list, list) {
		*pages += c->nr_pages;
		*dirty += c->nr_dirty;
	}
	mutex_unlock(&bcache_list_lock);
}
