// SPDX-License-Identifier: MIT
/*
 * block_dev.c - block-device files: /dev/sda, /dev/sda1 ... opened, read
 * and written like files.  This is where a user's read() or write() meets
 * the block layer: below this file there are only bios.
 *
 * Each block device has an inode of its own (bdev->bd_inode, made on its
 * first open), whatever device node opened it, and so one page cache
 * (fs/filemap.c): page index = offset / 4096, one 4 KiB block per page,
 * the identity get_block.  Two ways down:
 *
 *   buffered (the default): through that page cache.  A read copies from
 *     cached pages, reading the missing ones with readahead (fs/filemap.c:
 *     a sequential reader's window grows from 128 KiB to read_ahead_kb);
 *     a write copies into cached pages (read first if only part of a page
 *     is written) and marks them dirty.  Dirty pages go to the disk
 *     ("write-back", fs/mpage.c: sorted, under one plug) when the disk's
 *     flusher thread finds them older than dirty_expire_centisecs, when
 *     dirty memory passes the limits (fs/fs-writeback.c), and on fsync/
 *     fdatasync, sync, syncfs, BLKFLSBUF and the close of the last opener.
 *
 *   O_DIRECT: no cache, and no copy (the work is fs/direct-io.c's
 *     generic_direct_IO, shared with ext2's files; this file gives it the
 *     identity map).  Buffer address, length and file
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
 * at or past it fail with ENOSPC -- with O_DIRECT too, before any
 * alignment check, as Linux.  fsync waits for the write-back of
 * every dirty page, then sends an empty REQ_OP_WRITE|REQ_PREFLUSH bio so
 * that the device's volatile write cache is flushed too, and returns the
 * first write-back error since this file last asked (errseq.h: each open
 * file sees an error once).
 *
 * When memory runs out (docs/block.md, "When memory runs out"): bios
 * come from fs_bio_set's reserves and wait, never fail; write-back that
 * cannot allocate its sorted batch goes in small batches from the stack,
 * so fsync still writes; the page allocator takes clean cached pages
 * back (try_to_free_pages, least recently used first), and only with
 * none is a buffered read or write -ENOMEM; O_DIRECT needs no memory but
 * its bios.  Every cache page starts zeroed, so a buffered read of a
 * device that fills nothing (null_blk) shows zeros, never old memory.
 *
 * O_EXCL claims the device (bd_holder): a second exclusive open, of it,
 * of its whole disk or of one of its partitions, fails with EBUSY while
 * the first is open -- and so does one of a disk device-mapper uses as a
 * leg (drivers/md/dm.c claims its legs the same way).
 *
 * ioctl() is the block layer's (blkdev_ioctl, block/ioctl.c); this file
 * lends it the device's page cache and openers for BLKFLSBUF and
 * BLKRRPART (sync_blockdev, invalidate_bdev, bdev_rescan_lock ...).
 *
 * Locking: the page cache has its own (pagemap.h).  bdev_lock (a mutex)
 * guards the list of bdev inodes, their openers and the holders; BLKRRPART
 * frees partitions' inodes under it.
 */
#include <spindle/fs.h>
#include <spindle/pagemap.h>
#include <spindle/writeback.h>
#include <spindle/blkdev.h>
#include <spindle/bio.h>
#include <spindle/blk_plug.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/completion.h>
#include <spindle/uaccess.h>
#include <spindle/ratelimit.h>
#include <spindle/err.h>
#include <spindle/aio.h>
#include <uapi/linux/fs.h>
#include "internal.h"

/* A block device's inode and who has it open. */
struct bdev_inode {
	struct block_device *bdev;
	struct inode *inode;   /* bdev->bd_inode */
	struct list_head list; /* on all_bdevs */
	int openers;
};

/* The block device an open device file reads and writes. */
#define I_BDEV(f) (((struct bdev_inode *)(f)->private_data)->bdev)

static LIST_HEAD(all_bdevs);
static DEFINE_MUTEX(bdev_lock);
static struct super_block blockdev_superblock = { .s_magic = 0x62646576 }; /* "bdev" */

/* --- the device's geometry ------------------------------------------------- */

static loff_t bdev_size(struct block_device *bdev)
{
	return (loff_t)bdev_nr_sectors(bdev) << SECTOR_SHIFT;
}

/* --- the page cache's view of a device: a_ops with the identity map ------- */

static int blkdev_get_block(struct inode *inode, sector_t iblock, sector_t *sector, bool create)
{
	(void)create;
	*sector = iblock << (inode->i_mapping->i_blkbits - SECTOR_SHIFT);
	return 0;
}

static int blkdev_readpage(struct file *f, struct page *page)
{
	(void)f;
	return mpage_readpage(page, blkdev_get_block);
}

static int blkdev_readpages(struct address_space *mapping, struct page **pages, unsigned int nr)
{
	return mpage_readpages(mapping, pages, nr, blkdev_get_block);
}

static int blkdev_writepages(struct address_space *mapping, struct writeback_control *wbc)
{
	return mpage_writepages(mapping, wbc, blkdev_get_block);
}

static ssize_t blkdev_direct_IO(struct file *f, struct iov_iter *it, loff_t *pos, bool write,
				struct kiocb *iocb);

static const struct address_space_operations def_blk_aops = {
	.readpage = blkdev_readpage,
	.readpages = blkdev_readpages,
	.writepages = blkdev_writepages,
	.direct_IO = blkdev_direct_IO,
};

/*
 * Write back every dirty page of the device and wait: the error of this
 * write-back (it is in the mapping's errseq too, for fsync), said in the
 * log, since a caller like close cannot return it.
 */
int sync_blockdev(struct block_device *bdev)
{
	struct address_space *mapping = bdev->bd_inode->i_mapping;
	errseq_t before = READ_ONCE(mapping->wb_err);
	int err;

	filemap_write_and_wait(mapping);
	err = errseq_check(&mapping->wb_err, before);
	if (err)
		pr_err("%s: write-back failed (%d): data lost\n", bdev->bd_name, err);
	return err;
}

/* An empty write with PREFLUSH: the device empties its volatile cache. */
int blkdev_issue_flush(struct block_device *bdev)
{
	struct bio *bio = bio_alloc(GFP_NOIO, 0);
	int err;

	bio_set_dev(bio, bdev);
	bio->bi_opf = REQ_OP_WRITE | REQ_PREFLUSH;
	err = submit_bio_wait(bio);
	bio_put(bio);
	return err;
}

/* --- O_DIRECT: the device reads and writes the caller's own pages --------------- */

/* A block device's bytes lie where they are: one run, the whole request. */
static int blkdev_dio_map(struct inode *inode, loff_t pos, size_t len, bool write,
			  sector_t *sector, size_t *mapped)
{
	(void)inode;
	(void)write;
	*sector = pos >> SECTOR_SHIFT;
	*mapped = len;
	return 0;
}

/*
 * Linux's blkdev_direct_IO (the a_ops' direct_IO): fs/direct-io.c does
 * the work.  The device's end is looked at before the alignment, as
 * Linux's blkdev_read_iter and blkdev_write_iter do: nothing to move
 * gives 0, a read at or past the end 0 and a write there ENOSPC, whatever
 * the offset, length and buffer; a transfer across the end is cut at it
 * (generic_direct_IO), so only the part that is moved must be aligned.
 */
static ssize_t blkdev_direct_IO(struct file *f, struct iov_iter *it, loff_t *pos, bool write,
				struct kiocb *iocb)
{
	struct block_device *bdev = I_BDEV(f);
	loff_t size = bdev_size(bdev);
	size_t count = iov_iter_count(it);

	if (*pos < 0)
		return -EINVAL;
	if (!count)
		return 0;
	if (*pos >= size)
		return write ? -ENOSPC : 0;
	if (count > (size_t)(size - *pos))
		count = (size_t)(size - *pos);
	/* a logical block is at most a page: the offset in it says enough */
	if (!blkdev_dio_aligned(bdev_logical_block_size(bdev), *pos, count, iov_iter_page_off(it)))
		return -EINVAL;
	return generic_direct_IO(bdev->bd_inode, bdev, it, pos, write, iocb, blkdev_dio_map,
				 size);
}

/* --- the file operations ------------------------------------------------------- */

static ssize_t blkdev_read_iter(struct file *f, struct iov_iter *to, loff_t *pos)
{
	if (*pos < 0)
		return -EINVAL;
	if (f->f_flags & O_DIRECT)
		return blkdev_direct_IO(f, to, pos, false, NULL);
	return filemap_read(f, to, pos);
}

static ssize_t blkdev_write_iter(struct file *f, struct iov_iter *from, loff_t *pos)
{
	struct block_device *bdev = I_BDEV(f);

	if (*pos < 0)
		return -EINVAL;
	if (f->f_flags & O_DIRECT)
		return blkdev_direct_IO(f, from, pos, true, NULL);
	return generic_perform_write(f, from, pos, bdev_size(bdev));
}

static loff_t blkdev_llseek(struct file *f, loff_t offset, int whence)
{
	struct block_device *bdev = I_BDEV(f);
	loff_t base;

	switch (whence) {
	case SEEK_SET: base = 0; break;
	case SEEK_CUR: base = f->f_pos; break;
	case SEEK_END: base = bdev_size(bdev); break;
	default: return -EINVAL;
	}
	return vfs_setpos(f, base, offset, bdev_size(bdev)); /* not past the end */
}

/*
 * Linux's blkdev_fsync: wait for the write-back of every dirty page
 * (whoever started it), report the first error since this file last
 * asked, and only then flush the device's write cache -- a FLUSH after a
 * lost write would promise what is not there.
 */
static int blkdev_fsync(struct file *f, int datasync)
{
	int err;

	(void)datasync; /* a device has no metadata of its own */
	err = file_write_and_wait_range(f, 0, MAX_LFS_FILESIZE);
	if (err)
		return err;
	return blkdev_issue_flush(I_BDEV(f));
}

/* Forget every clean cached page of the device (BLKFLSBUF, after
 * sync_blockdev: block/ioctl.c). */
void invalidate_bdev(struct block_device *bdev)
{
	invalidate_mapping_pages(bdev->bd_inode->i_mapping, 0, ~(pgoff_t)0);
}

static struct bdev_inode *bdev_inode_lookup(struct block_device *bdev)
{
	struct bdev_inode *bi;

	list_for_each_entry(bi, &all_bdevs, list)
		if (bi->bdev == bdev)
			return bi;
	return NULL;
}

/* The partition goes: its cache (written back by the caller) and inode. */
static void bdev_inode_destroy(struct bdev_inode *bi)
{
	truncate_inode_pages(bi->inode->i_mapping, 0);
	bi->bdev->bd_inode = NULL;
	iput(bi->inode);
	list_del(&bi->list);
	kfree(bi);
}

/*
 * BLKRRPART's part here (block/ioctl.c runs the rescan, as Linux's
 * disk_scan_partitions()): bdev_rescan_lock() takes bdev_lock, so that
 * no device of the disk is opened, closed or claimed meanwhile, and fails
 * with -EBUSY while another open file holds the disk with O_EXCL (the
 * holder itself may rescan) or a partition is open or claimed.
 */
int bdev_rescan_lock(struct block_device *whole, void *holder)
{
	struct gendisk *disk = whole->bd_disk;

	mutex_lock(&bdev_lock);
	if (whole->bd_holder && whole->bd_holder != holder)
		goto busy;
	for (int p = 1; p < DISK_MAX_PARTS; p++) {
		struct block_device *b = disk->part[p];
		struct bdev_inode *bi = b ? bdev_inode_lookup(b) : NULL;

		if (b && (b->bd_holder || (bi && bi->openers)))
			goto busy;
	}
	return 0;
busy:
	mutex_unlock(&bdev_lock);
	return -EBUSY;
}

/* Under bdev_rescan_lock: the partitions' cached pages are written back
 * and freed with their inodes (an open of a partition about to go waits
 * for the lock, and then finds the new table's). */
void bdev_drop_partition_caches(struct gendisk *disk)
{
	for (int p = 1; p < DISK_MAX_PARTS; p++) {
		struct block_device *b = disk->part[p];
		struct bdev_inode *bi = b ? bdev_inode_lookup(b) : NULL;

		if (bi) {
			sync_blockdev(b);
			bdev_inode_destroy(bi);
		}
	}
}

void bdev_rescan_unlock(void)
{
	mutex_unlock(&bdev_lock);
}

/* ioctl() on a device file: the block layer's (block/ioctl.c); the file
 * is the opener an O_EXCL claim names. */
static long block_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	/* as Linux: only a file open for writing may discard or zero */
	if ((cmd == BLKDISCARD || cmd == BLKZEROOUT) && !(f->f_mode & FMODE_WRITE))
		return -EBADF;
	return blkdev_ioctl(I_BDEV(f), f, cmd, arg);
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

/* Caller holds bdev_lock. */
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

	mutex_lock(&bdev_lock);
	err = __bd_claim(bdev, holder);
	mutex_unlock(&bdev_lock);
	return err;
}

void bd_release(struct block_device *bdev, void *holder)
{
	mutex_lock(&bdev_lock);
	if (bdev->bd_holder == holder)
		bdev->bd_holder = NULL;
	mutex_unlock(&bdev_lock);
}

/*
 * The inode of bdev, made on first open (its page cache with it); an
 * opener counted.  The size is read again at each open: a disk's may
 * change (a dm table reload).
 */
static struct bdev_inode *__bdev_inode_open(struct block_device *bdev)
{
	struct bdev_inode *bi;
	struct inode *inode;

	assert_mutex_held(&bdev_lock);
	bi = bdev_inode_lookup(bdev);
	if (!bi) {
		bi = kzalloc(sizeof(*bi), GFP_KERNEL);
		inode = bi ? new_inode(&blockdev_superblock) : NULL;
		if (!inode) {
			kfree(bi);
			return NULL;
		}
		inode->i_mode = S_IFBLK | 0600;
		inode->i_rdev = bdev->bd_dev;
		inode->i_private = bi;
		inode->i_data.a_ops = &def_blk_aops;
		inode->i_data.bdev = bdev;
		inode->i_data.i_blkbits = PAGE_SHIFT;
		/* no flusher (no memory for it): the last close and sync write */
		inode->i_data.bdi = bdi_get(bdev->bd_disk);
		bi->bdev = bdev;
		bi->inode = inode;
		bdev->bd_inode = inode;
		list_add_tail(&bi->list, &all_bdevs);
	}
	bi->inode->i_size = bdev_size(bdev);
	bi->openers++;
	return bi;
}

int blkdev_get(struct block_device *bdev)
{
	struct bdev_inode *bi;

	mutex_lock(&bdev_lock);
	bi = __bdev_inode_open(bdev);
	mutex_unlock(&bdev_lock);
	return bi ? 0 : -ENOMEM;
}

/* The last opener writes back (and, a file's close or not, the same lock
 * keeps BLKRRPART from freeing the inode meanwhile). */
static void __blkdev_put(struct bdev_inode *bi)
{
	mutex_lock(&bdev_lock);
	if (--bi->openers == 0)
		sync_blockdev(bi->bdev);
	mutex_unlock(&bdev_lock);
}

void blkdev_put(struct block_device *bdev)
{
	struct bdev_inode *bi;

	mutex_lock(&bdev_lock);
	bi = bdev_inode_lookup(bdev);
	mutex_unlock(&bdev_lock);
	if (bi)
		__blkdev_put(bi);
}

static int blkdev_release(struct inode *inode, struct file *f)
{
	struct bdev_inode *bi = f->private_data;

	(void)inode;
	if (f->f_mode & FMODE_EXCL)
		bd_release(bi->bdev, f);
	/* under the lock throughout: BLKRRPART may not free the inode until
	 * its last opener has written it back */
	__blkdev_put(bi);
	return 0;
}

/*
 * fallocate() on a device file (Linux's blkdev_fallocate): make a range
 * read as zeroes -- FALLOC_FL_ZERO_RANGE by Write Zeroes, PUNCH_HOLE
 * (with KEEP_SIZE, as a device's size cannot change) by Write Zeroes
 * that may unmap, PUNCH_HOLE | NO_HIDE_STALE by a discard.  mke2fs zeroes
 * its inode tables this way.  A range past the end is cut to the end
 * with KEEP_SIZE, else EINVAL.  Linux writes pages of zeroes when the
 * device has no Write Zeroes; Spindle answers EOPNOTSUPP, as for
 * BLKZEROOUT (block/ioctl.c), and the caller writes them itself.
 */
#define FALLOC_FL_KEEP_SIZE       0x01
#define FALLOC_FL_PUNCH_HOLE      0x02
#define FALLOC_FL_NO_HIDE_STALE   0x04
#define FALLOC_FL_ZERO_RANGE      0x10

static long blkdev_fallocate(struct file *f, int mode, loff_t start, loff_t len)
{
	struct block_device *bdev = I_BDEV(f);
	loff_t size = (loff_t)bdev_nr_sectors(bdev) << SECTOR_SHIFT;

	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE |
		     FALLOC_FL_NO_HIDE_STALE))
		return -EOPNOTSUPP;
	if (start >= size)
		return -EINVAL;
	if (len > size - start) {
		if (!(mode & FALLOC_FL_KEEP_SIZE))
			return -EINVAL;
		len = size - start;
	}
	switch (mode) {
	case FALLOC_FL_ZERO_RANGE:
	case FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE:
	case FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE:
		return blkdev_issue_range(bdev, REQ_OP_WRITE_ZEROES, (u64)start, (u64)len);
	case FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE | FALLOC_FL_NO_HIDE_STALE:
		return blkdev_issue_range(bdev, REQ_OP_DISCARD, (u64)start, (u64)len);
	default:
		return -EOPNOTSUPP;
	}
}

const struct file_operations def_blk_fops = {
	.llseek = blkdev_llseek,
	.read_iter = blkdev_read_iter,
	.write_iter = blkdev_write_iter,
	.unlocked_ioctl = block_ioctl,
	.fsync = blkdev_fsync,
	.release = blkdev_release,
	.mmap = generic_file_mmap,
	.fallocate = blkdev_fallocate,
};

/* Opening a block-device node: find the device by number. */
int blkdev_open_inode(struct inode *inode, struct file *f)
{
	char name[24];
	struct block_device *bdev;
	struct bdev_inode *bi;

	snprintf(name, sizeof(name), "%u:%u", MAJOR(inode->i_rdev), MINOR(inode->i_rdev));
	/*
	 * Find, claim and count the opener under one lock: BLKRRPART frees
	 * partitions under it too, so the block_device found here cannot go
	 * away before this open is counted.
	 */
	mutex_lock(&bdev_lock);
	bdev = lookup_bdev(name);
	if (!bdev) {
		mutex_unlock(&bdev_lock);
		return -ENXIO;
	}
	if (f->f_flags & O_EXCL) {
		int err = __bd_claim(bdev, f);

		if (err) {
			mutex_unlock(&bdev_lock);
			return err;
		}
		f->f_mode |= FMODE_EXCL;
	}
	bi = __bdev_inode_open(bdev);
	if (!bi && (f->f_mode & FMODE_EXCL))
		bdev->bd_holder = NULL;
	mutex_unlock(&bdev_lock);
	if (!bi)
		return -ENOMEM;
	f->f_op = &def_blk_fops;
	f->private_data = bi;
	/* the device's pages, not the node's: every node of sda shares them */
	f->f_mapping = bi->inode->i_mapping;
	f->f_wb_err = errseq_sample(&f->f_mapping->wb_err);
	file_ra_state_init(&f->f_ra);
	return 0;
}

/* sync(2): every dirty page (fs-writeback.c), then a cache flush for
 * each device that has been opened. */
int sync_blockdevs(void)
{
	struct bdev_inode *bi;
	int err = writeback_and_wait_all(NULL);

	mutex_lock(&bdev_lock);
	list_for_each_entry(bi, &all_bdevs, list) {
		int e = blkdev_issue_flush(bi->bdev);

		if (e && !err)
			err = e;
	}
	mutex_unlock(&bdev_lock);
	return err;
}
