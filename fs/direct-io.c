// SPDX-License-Identifier: MIT
/*
 * direct-io.c - O_DIRECT: the device reads and writes the caller's own
 * pages, for block devices (fs/block_dev.c) and for files of a file
 * system (ext2) alike.  Linux's fs/direct-io.c had the same role before
 * iomap took it over.
 *
 *   generic_direct_IO(inode, bdev, it, pos, write, iocb, map, limit)
 *     1. the cache's dirty pages in the range reach the disk first
 *        (filemap_write_and_wait_range), and an error there stops it
 *     2. map(inode, pos, len) says where the bytes from pos on live on
 *        the disk: one run of contiguous sectors, or a hole
 *     3. each run goes down as bios over the caller's pinned pages
 *        (bio_iov_iter_get_pages: no copy), under one plug when there are
 *        several; a hole read gives zeros, no I/O
 *     4. after a write, the cached pages of the range are stale: dropped,
 *        unless a buffered write dirtied one again meanwhile (kept, and
 *        reported: dropping it would lose that write)
 *
 * For a block device map is the identity (one run, the whole request);
 * for a file it is the file system's block map (ext2_get_block), which
 * also allocates for a write.
 *
 * One direct read or write is a struct dio (Linux's blkdev_dio): ref
 * counts the bios in flight plus one for the submitter, so the last of
 * them, whoever it is, wakes the caller -- or, for an asynchronous
 * request (io_submit, io_uring), completes its kiocb: the last bio's
 * completion, in interrupt context, calls ki_complete() with the bytes or
 * the first error, and frees the dio.  The synchronous call is the same
 * machinery plus a wait, as in Linux, where a sync read is an async one
 * that waits.  A dio of one bio -- the common 4 KiB I/O -- keeps no
 * count at all (dio->single): that bio takes over the submitter's
 * reference, as Linux's blkdev_dio does without multi_bio.
 *
 * A dio ends in a bio of its own, the first it sends, so that the common
 * small read allocates once, or not at all:
 *   - synchronous: it waits, so its dio, that bio and a few segments live
 *     in its own stack frame;
 *   - asynchronous: the dio is the front pad of a bio from dio_bio_set
 *     (Linux's blkdev_dio_pool), one allocation for both; the dio's last
 *     reference frees that bio, and the dio with it.  An io_uring read
 *     or write (IOCB_ALLOC_CACHE) takes it from this CPU's cache of
 *     freed ones.
 *
 * Polled I/O (preadv2/pwritev2 with RWF_HIPRI: a synchronous kiocb with
 * IOCB_HIPRI): when the whole transfer is one bio, it is sent with
 * REQ_POLLED, and instead of sleeping until an interrupt completes it,
 * the caller spins in bio_poll() -- reaping the device's poll queue
 * itself -- until the bio has ended, giving the CPU up when its slice is
 * over (cond_resched).  A device that cannot poll clears REQ_POLLED on
 * the way down (so does a split), and then the caller sleeps as usual.
 * An asynchronous kiocb with IOCB_HIPRI (io_uring's IORING_SETUP_IOPOLL)
 * gets the same one polled bio, handed over in iocb->private: its owner
 * does the polling, and ki_complete runs inside its bio_poll().
 *
 * A read leaves in the buffer what the device put there: a device that
 * fills nothing (null_blk) leaves the caller's own bytes, as on Linux.
 * (Spindle's anonymous pages have no dirty bit to set after a read; with
 * a page cache behind mmap, this is where Linux marks them dirty.)
 */
#include <spindle/fs.h>
#include <spindle/pagemap.h>
#include <spindle/blkdev.h>
#include <spindle/bio.h>
#include <spindle/blk_plug.h>
#include <spindle/mm.h>
#include <spindle/printk.h>
#include <spindle/completion.h>
#include <spindle/ratelimit.h>
#include <spindle/errseq.h>
#include <spindle/aio.h>
#include <spindle/sched.h>
#include <spindle/init.h>
#include "internal.h"

/* Linux's rule: offset, length and buffer address on logical blocks. */
bool blkdev_dio_aligned(unsigned int lbs, loff_t pos, size_t count, unsigned long addr)
{
	unsigned long mask = lbs - 1;

	return !(((unsigned long)pos | count | addr) & mask);
}

struct dio {
	unsigned int ref;       /* bios in flight, +1 for the submitter */
	bool single;            /* one bio, holding the only reference: no count */
	int error;              /* the first error of any bio */
	size_t size;            /* bytes in the bios sent (and holes read) */
	struct kiocb *iocb;     /* async: completed by the last bio; NULL: sync */
	struct completion done; /* sync: the caller waits here */
	bool polled;            /* sync, IOCB_HIPRI, one bio: send it REQ_POLLED */
	struct bio *poll_bio;   /* ... that bio, a reference held, to poll */
	bool bio_used;		/* the dio's own bio below has been sent */
	/* the first bio, when its pages fit; last: its segments follow it */
	struct bio bio;
};

/* async dios, each in front of its own bio (dio_init) */
static struct bio_set dio_bio_set;

/*
 * A synchronous direct I/O of a few pages -- the common 4 KiB read --
 * needs no bio from the pool: the caller waits for its end anyway, so its
 * bio and segments can live in the caller's frame (Linux's
 * __blkdev_direct_IO_simple, with the same 4 inline segments).  That
 * saves a mempool allocation and free per I/O.
 */
#define DIO_INLINE_BIO_VECS 4

/*
 * The set's reserve: as Linux's, a few; a GFP_NOIO allocation beyond it
 * waits for a dio to end.  It needs BIO_MAX_VECS arrays for a first bio of
 * more than the inline segments, and keeps a cache per CPU.
 */
#define DIO_POOL_SIZE 4

int __init dio_init(void)
{
	return bioset_init(&dio_bio_set, "dio", DIO_POOL_SIZE, offsetof(struct dio, bio),
			   BIOSET_NEED_BVECS | BIOSET_PERCPU_CACHE);
}
core_initcall(dio_init);

static void dio_put(struct dio *dio)
{
	struct kiocb *iocb = dio->iocb;
	long res;

	if (!dio->single && __atomic_sub_fetch(&dio->ref, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (!iocb) {
		complete(&dio->done);
		return;
	}
	/* the last reference of an async dio: nobody waits, tell the kiocb;
	 * the dio goes with its bio (a poller's reference may keep both) */
	res = dio->error ? dio->error : (long)dio->size;
	bio_put(&dio->bio);
	iocb->ki_complete(iocb, res);
}

/* What every direct bio's end does: note its error, unpin its pages. */
static void dio_bio_done(struct dio *dio, struct bio *bio)
{
	int zero = 0;

	if (bio->bi_status)
		__atomic_compare_exchange_n(&dio->error, &zero, blk_status_to_errno(bio->bi_status),
					    false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	bio_release_pages(bio);
}

static void dio_bio_end_io(struct bio *bio)
{
	struct dio *dio = bio->bi_private;

	dio_bio_done(dio, bio);
	bio_put(bio);
	dio_put(dio);
}

/* The end of the dio's own bio: dio_put() frees it, if anyone (not the
 * on-stack one); not to be touched after, which may let the caller return. */
static void dio_bio_end_io_own(struct bio *bio)
{
	struct dio *dio = bio->bi_private;

	dio_bio_done(dio, bio);
	dio_put(dio);
}

/*
 * After a direct write, cached copies of the range are stale: drop them.
 * Not a page a buffered write dirtied again while the direct write was
 * on its way, though: dropping it would lose that write.  It stays (it
 * reaches the disk at the next write-back, after the direct data) and
 * the kernel says so, as Linux does when its invalidation fails.
 */
static void dio_invalidate_range(struct inode *inode, struct block_device *bdev, loff_t pos,
				 size_t len)
{
	unsigned long kept;
	char file[32] = "";

	kept = invalidate_mapping_pages(inode->i_mapping, pos >> PAGE_SHIFT,
					(pos + len - 1) >> PAGE_SHIFT);
	if (!kept)
		return;
	if (!S_ISBLK(inode->i_mode))
		snprintf(file, sizeof(file), " of inode %lu", inode->i_ino);
	printk_ratelimited(KERN_WARNING "%s: direct write at byte %lld%s: %lu cached page(s) dirtied "
					"by a buffered write meanwhile were kept, not invalidated "
					"(possible data corruption from mixing buffered and direct I/O)\n",
			   bdev->bd_name, (long long)pos, file, kept);
}

/*
 * One run of contiguous sectors from sector on: bios over the caller's
 * pages until the iterator is empty.  Returns the bytes sent; *stopped
 * says the buffer ended early (a page not there), *errp the error that
 * stopped it before a bio (its first page missing).
 */
static size_t dio_submit_run(struct block_device *bdev, struct dio *dio, struct iov_iter *it,
			     sector_t sector, bool write, bool last_run, bool *stopped, int *errp,
			     bool *single)
{
	size_t done = 0;

	*stopped = false;
	while (iov_iter_count(it)) {
		unsigned int nr = 0;    /* registered pages: the bio takes their array */
		struct bio *bio;
		int err;

		if (it->iter_type != ITER_BVEC)
			nr = min_t(size_t, BIO_MAX_VECS,
				   DIV_ROUND_UP(iov_iter_page_off(it) + iov_iter_count(it),
						PAGE_SIZE));

		if (!dio->bio_used && nr <= dio->bio.bi_max_vecs) {
			bio = &dio->bio;
			dio->bio_used = true; /* one dio, one bio of its own */
			bio->bi_end_io = dio_bio_end_io_own;
		} else {
			/* waits, never NULL; an io_uring request's from
			 * this CPU's cache of bios */
			bio = dio->iocb ? bio_alloc_kiocb(dio->iocb, nr, &fs_bio_set) :
					  bio_alloc(GFP_NOIO, nr);
			bio->bi_end_io = dio_bio_end_io;
		}
		bio_set_dev(bio, bdev);
		bio->bi_iter.bi_sector = sector + (done >> SECTOR_SHIFT);
		/* REQ_SYNC: someone waits for it (the synchronous caller, or
		 * io_getevents: either way soon, unlike write-back) */
		bio->bi_opf = (write ? REQ_OP_WRITE : REQ_OP_READ) | REQ_SYNC;
		bio->bi_private = dio;
		err = bio_iov_iter_get_pages(bio, it);
		if (err) {
			if (bio != &dio->bio)
				bio_put(bio); /* the dio's own is just left */
			*errp = err;
			*stopped = true;
			break;
		}
		if (dio->polled && !dio->poll_bio) {
			bio->bi_opf |= REQ_POLLED;
			/* the poller looks at it after its end: dio_poll_wait,
			 * or an async kiocb's owner (io_uring's IOPOLL) */
			bio_get(bio);
			dio->poll_bio = bio;
			if (dio->iocb)
				dio->iocb->private = bio;
		}
		/* room left and bytes left, yet it stopped: the buffer did */
		*stopped = iov_iter_count(it) && bio->bi_vcnt < min_t(unsigned int, nr, bio->bi_max_vecs);
		done += bio->bi_iter.bi_size;
		dio->size += bio->bi_iter.bi_size;
		/*
		 * The dio's only bio -- nothing left after it, and none in
		 * flight before it (only the submitter's reference counted)
		 * -- takes over the submitter's reference and ends the dio
		 * with no count kept, as Linux's single-bio dio does without
		 * its atomics (each costs its cache line).  From submit_bio()
		 * on the dio may be gone: the callers do not touch it again.
		 */
		if (last_run && !iov_iter_count(it) &&
		    __atomic_load_n(&dio->ref, __ATOMIC_RELAXED) == 1)
			dio->single = *single = true;
		else
			__atomic_add_fetch(&dio->ref, 1, __ATOMIC_RELAXED);
		submit_bio(bio);
		if (*stopped)
			break;
	}
	return done;
}

/*
 * Send the bios of one direct read or write from pos, run by run as map
 * gives them, counted in dio.  pages: the memory pages the buffer spans.
 * Returns the bytes done (sent, or zeros of a hole); *errp is the error
 * that stopped it early.
 */
static size_t dio_submit(struct inode *inode, struct block_device *bdev, struct dio *dio,
			 struct iov_iter *it, size_t pages, loff_t pos, bool write, dio_map_t map,
			 int *errp, bool *single)
{
	struct blk_plug plug;
	bool plugged, stopped = false;
	size_t done = 0;
	int err = 0;

	/* several bios: under a plug (inside io_submit's own, a no-op) */
	plugged = pages > BIO_MAX_VECS;
	if (plugged)
		blk_start_plug(&plug);
	while (!err && !stopped && iov_iter_count(it)) {
		size_t left = iov_iter_count(it), run, beyond, n;
		sector_t sector;

		err = map(inode, pos + done, left, write, &sector, &run);
		if (err)
			break;
		run = min(run, left);
		if (sector == SECTOR_HOLE) {
			/* a read of a hole: zeros, no I/O (a write's map allocates) */
			n = write ? 0 : iov_iter_zero(run, it);
			if (n < run)
				err = write ? -EIO : -EFAULT;
			done += n;
			dio->size += n;
			continue;
		}
		beyond = left - run; /* the bytes past this run wait their turn */
		it->count -= beyond;
		n = dio_submit_run(bdev, dio, it, sector, write, !beyond, &stopped, &err, single);
		it->count += beyond;
		done += n;
	}
	if (plugged)
		blk_finish_plug(&plug);
	*errp = err;
	return done;
}

/*
 * The polled wait (Linux's loop in __blkdev_direct_IO_simple): poll the
 * bio's queue until the bio has ended.  A bio no longer REQ_POLLED (the
 * queue cannot poll, or it was split) completes by interrupt: sleep.
 * Either way the completion is waited for at the end, which also waits
 * for complete() to be out of its lock before dio goes away.
 */
static void dio_poll_wait(struct dio *dio)
{
	struct bio *bio = dio->poll_bio;

	while (!completion_done(&dio->done) && (READ_ONCE(bio->bi_opf) & REQ_POLLED)) {
		if (!bio_poll(bio, 0)) {
			/* nothing yet: spin on, with a PAUSE as any spin-wait
			 * (Linux's blk_mq_poll_classic), but let others run */
			cpu_relax();
			cond_resched();
		}
	}
	wait_for_completion_io(&dio->done);
	bio_put(bio);
}

ssize_t generic_direct_IO(struct inode *inode, struct block_device *bdev, struct iov_iter *it,
			  loff_t *pos, bool write, struct kiocb *iocb, dio_map_t map, loff_t limit)
{
	struct address_space *mapping = inode->i_mapping;
	errseq_t before;
	size_t count = iov_iter_count(it), beyond, done, pages;
	struct dio sync_dio, *dio = &sync_dio;
	struct bio_vec stack_vecs[DIO_INLINE_BIO_VECS];
	bool polled = false, single = false;
	int err = 0;

	/* a synchronous kiocb only carries flags: the call waits */
	if (iocb)
		polled = iocb->ki_flags & IOCB_HIPRI;
	if (iocb && is_sync_kiocb(iocb))
		iocb = NULL;
	if (*pos >= limit)
		return write ? -ENOSPC : 0;
	/* across the limit: a short transfer (Linux's iov_iter_truncate) */
	beyond = count > (size_t)(limit - *pos) ? count - (size_t)(limit - *pos) : 0;
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
	before = READ_ONCE(mapping->wb_err);
	if (count) {
		filemap_write_and_wait_range(mapping, *pos, *pos + count - 1);
		err = errseq_check(&mapping->wb_err, before);
		if (err)
			return err;
	}
	if (!count)
		return 0;
	if (iocb && write)
		dio_invalidate_range(inode, bdev, *pos, count);

	pages = DIV_ROUND_UP(iov_iter_page_off(it) + count, PAGE_SIZE);
	if (iocb) {
		/* sized for the whole transfer, as far as one bio goes (a
		 * registered buffer's bio takes its array: none); GFP_NOIO:
		 * waits, never NULL */
		struct bio *bio = bio_alloc_kiocb(iocb,
						  it->iter_type == ITER_BVEC ? 0 :
						  min_t(size_t, pages, BIO_MAX_VECS),
						  &dio_bio_set);

		dio = container_of(bio, struct dio, bio);
	} else {
		bio_init(&dio->bio, stack_vecs, DIO_INLINE_BIO_VECS);
		init_completion(&dio->done);
	}
	dio->ref = 1;
	dio->single = false;
	dio->error = 0;
	dio->size = 0;
	dio->iocb = iocb;
	dio->poll_bio = NULL;
	dio->bio_used = false;
	/* one bio carries it all (as dio_submit counts pages): poll it */
	dio->polled = polled && pages <= BIO_MAX_VECS;

	it->count -= beyond;
	done = dio_submit(inode, bdev, dio, it, pages, *pos, write, map, &err, &single);
	it->count += beyond;

	if (iocb) {
		/* a polled bio's reference is now iocb->private's */
		if (!done) { /* nothing sent: the answer is now */
			bio_put(&dio->bio);
			return err;
		}
		if (!single)    /* else the one bio had our reference */
			dio_put(dio); /* the last bio, or this, completes iocb */
		return -EIOCBQUEUED;
	}
	if (!single)
		dio_put(dio);
	if (dio->poll_bio)
		dio_poll_wait(dio);
	else
		wait_for_completion_io(&dio->done);
	if (write && done)
		dio_invalidate_range(inode, bdev, *pos, done);
	if (dio->error)
		return dio->error;
	*pos += done;
	return done ? (ssize_t)done : err;
}
