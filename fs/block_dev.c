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
 *   O_DIRECT: no cache.  Buffer address, length and file offset must be
 *     multiples of the logical block size (EINVAL otherwise, as Linux);
 *     the data is bounced through kernel pages (Spindle cannot pin user
 *     pages for a device yet) and goes down in bios of up to
 *     BDEV_DIO_PAGES pages, each waited for with submit_bio_wait().
 *     Cached pages in the range are written back first, and a direct
 *     write that succeeds drops them after, so the two paths agree --
 *     on the same device: a partition and its whole disk have separate
 *     caches, as in Linux, so writing sda1 and reading sda can show old
 *     data until write-back.
 *
 * Reads at or past the end return 0 (a read across it is short); writes
 * at or past it fail with ENOSPC.  fsync writes back and then sends an
 * empty REQ_OP_WRITE|REQ_PREFLUSH bio: the device's volatile write cache
 * is flushed too.  Each partition has its own cache (as Linux): writing
 * sda1 and reading the same bytes through sda can see stale data until
 * sda1's cache is written back.
 *
 * O_EXCL claims the device (bd_holder): a second exclusive open, of it,
 * of its whole disk or of one of its partitions, fails with EBUSY while
 * the first is open -- and so does one of a disk device-mapper uses as a
 * leg (drivers/md/dm.c claims its legs the same way).
 *
 * Locking: a device's cache is under its mutex, held across the I/O it
 * waits for (simple, and one device's readers and writers take turns).
 * The list of caches is under bcache_list_lock, taken first.
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
#include "internal.h"
#include "../block/blk.h"

#define BCACHE_HASH         256     /* buckets per device */
#define BCACHE_RA_PAGES     32      /* pages read in one bio on a miss: 128 KiB */
#define BCACHE_MIN_PAGES    256     /* a device's cache holds at least 1 MiB ... */
#define BCACHE_RAM_SHARE    16      /* ... and at most 1/16 of RAM */
#define BDEV_DIO_PAGES      64      /* O_DIRECT bounce: 256 KiB per bio */

/* BLK* ioctls: Linux's numbers (_IO(0x12, n), _IOR(0x12, 114, size_t)) */
#define BLKRRPART       0x125f
#define BLKGETSIZE      0x1260
#define BLKFLSBUF       0x1261
#define BLKSSZGET       0x1268
#define BLKGETSIZE64    0x80081272

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

static struct bcache_page *bcache_alloc(pgoff_t index)
{
	struct bcache_page *bp = kzalloc(sizeof(*bp), GFP_KERNEL);

	if (!bp)
		return NULL;
	bp->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!bp->page) {
		kfree(bp);
		return NULL;
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

	if (!bio) {
		/* no memory for a long segment array: send the run in bios
		 * of BIO_INLINE_VECS pages, which come from the bio_set's
		 * reserve and cannot fail -- write-back is how memory is
		 * freed, it must not need any */
		for (unsigned int i = 0; i < n; i += BIO_INLINE_VECS)
			bcache_submit_run(c, run + i, min_t(unsigned int, n - i, BIO_INLINE_VECS), wb);
		return;
	}
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
 * Write every dirty page of c (or only those in [from, to) pages) to the
 * disk and wait.  Pages are marked clean before the bios go: a write that
 * then fails is reported (-EIO) and the data is lost, as Linux does after
 * reporting a write-back error.  c->lock held.  May sleep.
 */
static int bcache_writeback_range(struct bdev_cache *c, pgoff_t from, pgoff_t to)
{
	struct bcache_page **dirty, *bp;
	struct bcache_wb wb;
	struct blk_plug plug;
	unsigned int n = 0, start;

	if (!c->nr_dirty)
		return 0;
	spin_lock_init(&wb.lock);
	wb.pending = 1;                 /* ours, dropped after the last submit */
	wb.error = 0;
	init_completion(&wb.done);
	blk_start_plug(&plug);
	dirty = kmalloc(c->nr_dirty * sizeof(*dirty), GFP_KERNEL);
	if (!dirty) {
		/* Memory is short -- maybe this very close is what frees it:
		 * unsorted, one page per bio (the plug still merges what it
		 * can), rather than fail and keep the pages dirty. */
		list_for_each_entry(bp, &c->lru, lru)
			if (bp->dirty && bp->index >= from && bp->index < to) {
				bp->dirty = false;
				c->nr_dirty--;
				bcache_submit_run(c, &bp, 1, &wb);
			}
		goto wait;
	}
	list_for_each_entry(bp, &c->lru, lru)
		if (bp->dirty && bp->index >= from && bp->index < to) {
			dirty[n++] = bp;
			bp->dirty = false;
			c->nr_dirty--;
		}
	sort(dirty, n, sizeof(*dirty), bp_index_cmp);
	for (start = 0; start < n; ) {
		unsigned int len = 1;

		while (start + len < n && len < BIO_MAX_VECS &&
		       dirty[start + len]->index == dirty[start]->index + len)
			len++;
		bcache_submit_run(c, dirty + start, len, &wb);
		start += len;
	}
wait:
	blk_finish_plug(&plug);
	spin_lock_irq(&wb.lock);
	if (--wb.pending == 0)
		complete(&wb.done);
	spin_unlock_irq(&wb.lock);
	wait_for_completion(&wb.done);
	kfree(dirty);
	if (wb.error)
		pr_err("%s: write-back failed (%d): data lost\n", c->bdev->bd_name, wb.error);
	return wb.error;
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
		run[n] = bcache_alloc(index + n);
		if (!run[n])
			break;
		n++;
	}
	if (!n)
		return -ENOMEM;
	bio = bio_alloc(GFP_NOIO, n);
	if (!bio) {
		/* no memory for the segment array: read only what a bio's
		 * inline vectors hold (that bio comes from the reserve) */
		while (n > BIO_INLINE_VECS) {
			n--;
			__free_page(run[n]->page);
			kfree(run[n]);
		}
		bio = bio_alloc(GFP_NOIO, n);
	}
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
	bp = bcache_alloc(index);
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

/* --- O_DIRECT ------------------------------------------------------------------ */

/* Linux's rule: offset, length and buffer address on logical blocks. */
bool blkdev_dio_aligned(unsigned int lbs, loff_t pos, size_t count, unsigned long addr)
{
	unsigned long mask = lbs - 1;

	return !(((unsigned long)pos | count | addr) & mask);
}

static ssize_t blkdev_direct_IO(struct bdev_cache *c, struct iov_iter *it, loff_t *pos,
				bool write)
{
	struct block_device *bdev = c->bdev;
	loff_t size = bdev_size(bdev);
	struct page *pages[BDEV_DIO_PAGES];
	ssize_t done = 0;
	int err = 0;

	if (!blkdev_dio_aligned(bdev_logical_block_size(bdev), *pos, iov_iter_count(it),
				iov_iter_addr(it)))
		return -EINVAL;
	if (*pos >= size)
		return write ? -ENOSPC : 0;

	/*
	 * The cache's dirty data in the range reaches the disk first.  The
	 * cache lock is held only around the cache work, not across the
	 * I/O: direct I/O from several tasks runs in parallel, as it does
	 * in Linux (bench's workers keep the queue busy).
	 */
	mutex_lock(&c->lock);
	err = bcache_writeback_range(c, *pos >> PAGE_SHIFT,
				     (*pos + iov_iter_count(it) + PAGE_SIZE - 1) >> PAGE_SHIFT);
	mutex_unlock(&c->lock);
	while (!err && iov_iter_count(it) && *pos < size) {
		size_t len = min_t(size_t, iov_iter_count(it), (size_t)BDEV_DIO_PAGES * PAGE_SIZE);
		unsigned int npages, i;
		struct bio *bio;

		len = min_t(size_t, len, size - *pos);
		npages = DIV_ROUND_UP(len, PAGE_SIZE);
		bio = bio_alloc(GFP_NOIO, npages);
		if (!bio) {
			/* no memory for the segment array: a shorter step
			 * (whole pages, so still block-aligned) in a bio from
			 * the reserve */
			npages = BIO_INLINE_VECS;
			len = min_t(size_t, len, (size_t)npages * PAGE_SIZE);
			npages = DIV_ROUND_UP(len, PAGE_SIZE);
			bio = bio_alloc(GFP_NOIO, npages);
		}
		for (i = 0; i < npages; i++) {
			pages[i] = alloc_page(GFP_KERNEL);
			if (!pages[i])
				break;
		}
		if (i < npages) {
			while (i--)
				__free_page(pages[i]);
			bio_put(bio);
			err = -ENOMEM;
			break;
		}
		bio_set_dev(bio, bdev);
		bio->bi_iter.bi_sector = *pos >> SECTOR_SHIFT;
		bio->bi_opf = write ? REQ_OP_WRITE | REQ_SYNC : REQ_OP_READ;
		for (i = 0; i < npages; i++) {
			unsigned int n = min_t(size_t, PAGE_SIZE, len - (size_t)i * PAGE_SIZE);

			if (write && copy_from_iter(page_address(pages[i]), n, it) < n)
				err = -EFAULT;
			bio_add_page(bio, pages[i], n, 0);
		}
		if (!err)
			err = submit_bio_wait(bio);
		bio_put(bio);
		for (i = 0; i < npages; i++) {
			unsigned int n = min_t(size_t, PAGE_SIZE, len - (size_t)i * PAGE_SIZE);

			if (!err && !write && copy_to_iter(page_address(pages[i]), n, it) < n)
				err = -EFAULT;
			__free_page(pages[i]);
		}
		if (err)
			break;
		if (write) {
			/* cached copies of what we just wrote are stale now */
			mutex_lock(&c->lock);
			for (pgoff_t p = *pos >> PAGE_SHIFT; p < (*pos + len + PAGE_SIZE - 1) >> PAGE_SHIFT; p++) {
				struct bcache_page *bp = bcache_find(c, p);

				if (bp)
					bcache_drop(c, bp);
			}
			mutex_unlock(&c->lock);
		}
		*pos += len;
		done += len;
	}
	return done ? done : err;
}

/* --- the file operations ------------------------------------------------------- */

static ssize_t blkdev_read_iter(struct file *f, struct iov_iter *to, loff_t *pos)
{
	struct bdev_cache *c = f->private_data;

	if (*pos < 0)
		return -EINVAL;
	if (f->f_flags & O_DIRECT)
		return blkdev_direct_IO(c, to, pos, false);
	return bcache_read(c, to, pos);
}

static ssize_t blkdev_write_iter(struct file *f, struct iov_iter *from, loff_t *pos)
{
	struct bdev_cache *c = f->private_data;

	if (*pos < 0)
		return -EINVAL;
	if (f->f_flags & O_DIRECT)
		return blkdev_direct_IO(c, from, pos, true);
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
 * BLKRRPART: forget the partitions and read the table again.  Refused
 * (EBUSY) while a partition is open or claimed.  The partitions' caches
 * are written back and freed with them.
 */
static int blkdev_reread_part(struct block_device *whole)
{
	struct gendisk *disk = whole->bd_disk;
	int err = 0;

	if (whole->bd_partno)
		return -EINVAL;
	if (disk->minors <= 1)
		return -EINVAL;
	mutex_lock(&bcache_list_lock);
	for (int p = 1; p < DISK_MAX_PARTS; p++) {
		struct block_device *b = disk->part[p];
		struct bdev_cache *c = b ? bcache_lookup(b) : NULL;

		if (b && (b->bd_holder || (c && c->openers)))
			err = -EBUSY;
	}
	if (!err) {
		for (int p = 1; p < DISK_MAX_PARTS; p++) {
			struct block_device *b = disk->part[p];
			struct bdev_cache *c = b ? bcache_lookup(b) : NULL;

			if (!b)
				continue;
			if (c) {
				mutex_lock(&c->lock);
				bcache_writeback(c);
				mutex_unlock(&c->lock);
				bcache_destroy(c);
			}
		}
		/* still under the lock: an open of a partition now being
		 * freed waits, and then finds the new table's */
		blk_drop_partitions(disk);
		blk_scan_partitions(disk);
	}
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
		return blkdev_reread_part(bdev);
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
