// SPDX-License-Identifier: MIT
/*
 * file.c - writing a regular file of ext2: write(), fsync(), the zeroing
 * truncation needs, and O_DIRECT reads and writes (ext2_direct_IO).
 *
 * write(fd, buf, n) at pos, page by page (docs/ext2.md draws it):
 *
 *   ext2_file_write_iter           (O_DIRECT: ext2_direct_IO, below)
 *   ext2_buffered_write_iter       i_mutex: one writer of the file at a time
 *     ext2_prepare_write           the page's blocks under [pos, pos + n):
 *       ext2_get_block_create      each hole gets a block now, after the
 *                                  file's previous one (balloc.c) -- so
 *                                  ENOSPC is write()'s, and a sequential
 *                                  writer's blocks are one run
 *     generic_perform_write        copy into the cached page, dirty it
 *     ext2_sync_bdev_copy          see below
 *   i_size, mtime -> mark_inode_dirty -> the inode table's cached block
 *
 * Nothing goes to the disk here: the disk's flusher writes the file's
 * dirty pages (a_ops->writepages: mpage, sorted, under one plug) and the
 * device's dirty metadata pages, or fsync does.
 *
 * One copy of each block, twice over: a block smaller than a page shares
 * its page of the device's cache (where metadata lives) with its
 * neighbours, data blocks among them, and write-back of that page writes
 * them all.  So whenever write() changes a data block whose page the
 * device's cache holds, ext2_sync_bdev_copy() puts the new bytes there
 * too (Linux's buffer heads avoid this by tracking each block's state;
 * Spindle's pages have one dirty bit).
 */
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/pagemap.h>
#include <spindle/mm_types.h>
#include <spindle/blkdev.h>
#include <spindle/printk.h>
#include <spindle/aio.h>
#include <spindle/jbd2.h>
#include <spindle/err.h>
#include "../internal.h"
#include "ext2.h"

/* blocks in a page, at most (1 KiB blocks) */
#define EXT2_MAX_PAGE_BLOCKS (PAGE_SIZE >> 10)

/* The device cache's copy (if any) of the file's blocks in page: made
 * the same as the file's.  pblocks[i] is the disk block of the page's
 * i-th block from `first`, 0 for a hole. */
static void ext2_sync_bdev_copy(struct inode *inode, struct page *page, unsigned int first,
				const u32 *pblocks, unsigned int nr)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	struct address_space *bdev_mapping = sbi->s_bdev->bd_inode->i_mapping;
	unsigned int shift = PAGE_SHIFT - sbi->s_blocksize_bits;

	for (unsigned int i = 0; i < nr; i++) {
		u32 b = pblocks[i];
		struct page *copy = b ? find_get_page(bdev_mapping, b >> shift) : NULL;

		if (!copy)
			continue;
		lock_page(copy);
		/* a write-back of the old bytes must not end after the new ones' */
		wait_on_page_writeback(copy);
		memcpy((char *)page_address(copy) + ((b & ((1u << shift) - 1)) << sbi->s_blocksize_bits),
		       (char *)page_address(page) + ((first + i) << sbi->s_blocksize_bits),
		       sbi->s_blocksize);
		unlock_page(copy);
		put_page(copy);
	}
}

/*
 * Before n bytes at pos (inside one page) are copied in: each of the
 * page's blocks they touch mapped, allocating holes.  A page gaining a
 * block is read first (its other blocks' bytes, zeros for holes) and
 * dirtied, so the new block's old bytes on the disk are never seen.
 * pblocks gets the disk blocks from the page's block *first on.
 */
static int ext2_prepare_write(struct file *f, struct inode *inode, loff_t pos, size_t n,
			      u32 *pblocks, unsigned int *first, unsigned int *nr)
{
	unsigned int bits = inode->i_data.i_blkbits;
	u64 page_block = (u64)(pos >> PAGE_SHIFT) << (PAGE_SHIFT - bits);
	u64 from = (u64)pos >> bits, to = ((u64)pos + n - 1) >> bits;
	struct page *page = NULL;
	int err = 0;

	*first = (unsigned int)(from - page_block);
	*nr = (unsigned int)(to - from + 1);
	for (u64 b = from; b <= to; b++) {
		u32 *pb = &pblocks[b - from];
		bool is_new;

		*pb = 0;
		err = ext2_get_block(inode, b, pb);
		if (err)
			break;
		if (*pb)
			continue;
		if (!page) {
			page = read_mapping_page(&inode->i_data, (pgoff_t)(pos >> PAGE_SHIFT), f);
			if (IS_ERR(page)) {
				err = PTR_ERR(page);
				page = NULL;
				break;
			}
		}
		err = ext2_get_block_create(inode, b, pb, &is_new);
		if (err)
			break;
	}
	if (page) {
		lock_page(page);
		set_page_dirty(page);
		unlock_page(page);
		put_page(page);
	}
	return err;
}

static ssize_t ext2_buffered_write_iter(struct file *f, struct iov_iter *from, loff_t *pos)
{
	struct inode *inode = f->f_mapping->host;
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	ssize_t done = 0;
	int err = 0;

	mutex_lock(&inode->i_mutex);
	/* remounted read-only by errors=remount-ro since this file opened */
	if (sb_rdonly(inode->i_sb)) {
		mutex_unlock(&inode->i_mutex);
		return -EROFS;
	}
	if (f->f_flags & O_APPEND)
		*pos = inode->i_size;
	while (iov_iter_count(from)) {
		size_t off = *pos & (PAGE_SIZE - 1);
		size_t n = min_t(size_t, PAGE_SIZE - off, iov_iter_count(from));
		u32 pblocks[EXT2_MAX_PAGE_BLOCKS] = { 0 };
		unsigned int first, nr;
		struct iov_iter chunk;
		struct page *page;
		handle_t *h;
		ssize_t w;

		if ((u64)*pos >= sbi->s_max_size) {
			err = -EFBIG;
			break;
		}
		n = (size_t)min_t(u64, n, sbi->s_max_size - (u64)*pos);
		/* ext3: a page's worth of write is one handle (its blocks,
		 * bitmaps, the inode's size), and ordered mode writes the
		 * file's data before that transaction commits */
		h = ext2_journal_start(inode->i_sb, EXT2_DATA_TRANS_BLOCKS);
		if (IS_ERR(h)) {
			err = PTR_ERR(h);
			break;
		}
		ext2_journal_file_inode(inode);
		err = ext2_prepare_write(f, inode, *pos, n, pblocks, &first, &nr);
		if (err) {
			ext2_journal_stop(h);
			break;
		}
		chunk = *from;
		chunk.count = n;
		w = generic_perform_write(f, &chunk, pos, (loff_t)sbi->s_max_size);
		if (w > 0 && h) {
			/* the new size in the same transaction as the blocks */
			inode->i_mtime_ns = EXT2_I(inode)->i_ctime_ns = fs_now_ns();
			mark_inode_dirty(inode);
		}
		ext2_journal_stop(h);
		if (w <= 0) {
			err = w ? (int)w : -EFAULT;
			break;
		}
		iov_iter_advance(from, (size_t)w);
		done += w;
		page = find_get_page(&inode->i_data, (pgoff_t)((*pos - 1) >> PAGE_SHIFT));
		if (page) {
			ext2_sync_bdev_copy(inode, page, first, pblocks, nr);
			put_page(page);
		}
		if ((size_t)w < n) {
			err = -EFAULT;
			break;
		}
	}
	/* blocks a failed write allocated past the end go back (e2fsck
	 * allows no block beyond i_size) */
	{
		handle_t *h = ext2_journal_start(inode->i_sb, EXT2_TRUNCATE_TRANS_BLOCKS);

		if (err)
			ext2_truncate_blocks(inode, inode->i_size);
		if (done)
			inode->i_mtime_ns = EXT2_I(inode)->i_ctime_ns = fs_now_ns();
		if (done || err)
			mark_inode_dirty(inode);
		if (!IS_ERR(h))
			ext2_journal_stop(h);
	}
	mutex_unlock(&inode->i_mutex);
	return done ? done : err;
}

/*
 * Truncation's partial last page: the bytes from size to the page's end
 * become zeros in the cache (and in the device cache's copy), dirty, so
 * the disk's last block gets them too.  i_mutex held.
 */
int ext2_zero_tail(struct inode *inode, loff_t size)
{
	unsigned int bits = inode->i_data.i_blkbits, per = 1u << (PAGE_SHIFT - bits);
	u64 page_block = (u64)(size >> PAGE_SHIFT) << (PAGE_SHIFT - bits);
	size_t off = size & (PAGE_SIZE - 1);
	u32 pblocks[EXT2_MAX_PAGE_BLOCKS];
	struct page *page = read_mapping_page(&inode->i_data, (pgoff_t)(size >> PAGE_SHIFT), NULL);

	if (IS_ERR(page))
		return PTR_ERR(page);
	for (unsigned int i = 0; i < per; i++)
		if (ext2_get_block(inode, page_block + i, &pblocks[i]))
			pblocks[i] = 0;
	lock_page(page);
	wait_on_page_writeback(page);
	memset((char *)page_address(page) + off, 0, PAGE_SIZE - off);
	set_page_dirty(page);
	unlock_page(page);
	ext2_sync_bdev_copy(inode, page, 0, pblocks, per);
	put_page(page);
	return 0;
}

/*
 * fsync and fdatasync, of a file or a directory: the file's dirty pages written and waited for,
 * then the device's dirty metadata pages (its inode, the indirect blocks
 * and bitmaps its writes changed -- and any other file's: Spindle keeps
 * no list of which are whose), then an empty PREFLUSH write so that the
 * disk's volatile cache holds none of it.  The first error since this
 * file last asked, as the block device's fsync.
 */
int ext2_fsync(struct file *f, int datasync)
{
	struct inode *inode = f->f_mapping->host;
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	int err = 0, e;

	(void)datasync; /* the inode goes with the metadata either way */
	/* a directory (ext2_dir_operations) has no pages of its own */
	if (S_ISREG(inode->i_mode))
		err = file_write_and_wait_range(f, 0, MAX_LFS_FILESIZE);
	/* ext3: a commit (its commit block with PREFLUSH | FUA) makes the
	 * inode and everything before it durable */
	e = ext2_journal_force_commit(inode->i_sb);
	if (e != -ENOENT)
		return err ?: e;
	e = filemap_write_and_wait(sbi->s_bdev->bd_inode->i_mapping);
	/* a metadata write that failed after its submission (the write-back
	 * above reports only what could not be sent) */
	if (!e)
		e = ext2_meta_wb_err(sbi);
	if (!err)
		err = e;
	if (err)
		return err;
	return blkdev_issue_flush(sbi->s_bdev);
}

/* --- mmap ---------------------------------------------------------------------- */

/*
 * A MAP_SHARED page of the file is about to be written (Linux's
 * ext2 page_mkwrite, block_page_mkwrite): as write() does, each block of
 * it below i_size gets its disk block now, under i_mutex -- write-back
 * only looks blocks up (ext2_get_block_wb), and a full disk must answer
 * here (SIGBUS, as Linux) rather than lose the data later.  The page is
 * uptodate (its holes read as zeros) and then dirtied whole.
 */
static int ext2_page_mkwrite(struct vm_fault *vmf)
{
	struct page *page = vmf->page;
	struct inode *inode = vmf->vma->vm_file->f_mapping->host;
	unsigned int bits = inode->i_data.i_blkbits;
	u64 b = (u64)page->index << (PAGE_SHIFT - bits);
	bool allocated = false;
	handle_t *h;
	int err = 0;

	if (!vmf->may_sleep)
		return VM_FAULT_RETRY;
	mutex_lock(&inode->i_mutex);
	/* ext3: the page's blocks, bitmaps and inode are one handle, and
	 * ordered mode writes the page before that transaction commits --
	 * as for a page of write() (i_mutex first: docs/locking.md) */
	h = ext2_journal_start(inode->i_sb, EXT2_DATA_TRANS_BLOCKS);
	if (IS_ERR(h)) {
		mutex_unlock(&inode->i_mutex);
		return VM_FAULT_SIGBUS;
	}
	ext2_journal_file_inode(inode);
	for (unsigned int i = 0; i < (1u << (PAGE_SHIFT - bits)) && !err; i++, b++) {
		u32 pblock = 0;
		bool is_new;

		if ((loff_t)(b << bits) >= inode->i_size)
			break;
		err = ext2_get_block(inode, b, &pblock);
		if (!err && !pblock) {
			err = ext2_get_block_create(inode, b, &pblock, &is_new);
			allocated = true;
		}
	}
	/* the block map (and i_blocks) changed: the inode goes to the
	 * disk with the data, as after a write() */
	if (allocated) {
		inode->i_mtime_ns = EXT2_I(inode)->i_ctime_ns = fs_now_ns();
		mark_inode_dirty(inode);
	}
	if (ext2_journal_stop(h) && !err)
		err = -EROFS;                   /* the journal aborted */
	mutex_unlock(&inode->i_mutex);
	if (err)
		return VM_FAULT_SIGBUS;
	return filemap_page_mkwrite(vmf);
}

static const struct vm_operations_struct ext2_file_vm_ops = {
	.fault = filemap_fault,
	.page_mkwrite = ext2_page_mkwrite,
};

int ext2_file_mmap(struct file *f, struct vm_area_struct *vma)
{
	(void)f;
	vma->vm_ops = &ext2_file_vm_ops;
	return 0;
}

/* --- O_DIRECT -------------------------------------------------------------------- */

/*
 * generic_direct_IO's map (fs/direct-io.c): where the file's bytes from
 * pos on lie -- the disk blocks of a run of the file's blocks that are
 * also consecutive on the disk, or a run of holes.  A write allocates
 * (only past i_size: ext2_direct_IO sends a write over a hole inside the
 * file through the cache instead), each block next to the one before,
 * so a sequential direct writer's run keeps growing.
 */
static int ext2_dio_map(struct inode *inode, loff_t pos, size_t len, bool write,
			sector_t *sector, size_t *mapped)
{
	unsigned int bits = inode->i_data.i_blkbits;
	size_t bs = (size_t)1 << bits, run = bs - (pos & (bs - 1));
	u64 b = (u64)pos >> bits;
	u32 first, next;
	bool is_new;
	int err = write ? ext2_get_block_create(inode, b, &first, &is_new)
			: ext2_get_block(inode, b, &first);

	if (err)
		return err;
	/* the run goes on while the next block is the next one on the disk
	 * (or, for a hole, another hole); an error ends it, and is met again
	 * as the first block of the next call */
	for (u64 k = 1; run < len; k++, run += bs) {
		next = 0;
		if (write ? ext2_get_block_create(inode, b + k, &next, &is_new)
			  : ext2_get_block(inode, b + k, &next))
			break;
		if (first ? next != first + k : next != 0)
			break;
	}
	*mapped = min(run, len);
	*sector = first ? ((sector_t)first << (bits - SECTOR_SHIFT)) +
				  ((pos & (bs - 1)) >> SECTOR_SHIFT)
			: SECTOR_HOLE;
	return 0;
}

/* Does [pos, end) hold a hole of the file (below i_size)? */
static bool ext2_range_has_hole(struct inode *inode, loff_t pos, loff_t end)
{
	unsigned int bits = inode->i_data.i_blkbits;

	end = min(end, inode->i_size);
	for (u64 b = (u64)pos >> bits; (loff_t)(b << bits) < end; b++) {
		u32 pb = 0;

		if (ext2_get_block(inode, b, &pb) || !pb)
			return true;
	}
	return false;
}

/*
 * A direct write over a hole inside the file goes through the cache
 * (Linux's ext2 did the same, DIO_SKIP_HOLES): a block allocated for it
 * would show its old bytes to a reader if the write then failed part
 * way.  The data is on the disk and out of the cache when it returns,
 * as O_DIRECT promises.  i_mutex not held.
 */
static ssize_t ext2_dio_write_buffered(struct file *f, struct iov_iter *it, loff_t *pos)
{
	loff_t start = *pos;
	ssize_t done = ext2_buffered_write_iter(f, it, pos);
	int err;

	if (done <= 0)
		return done;
	err = filemap_write_and_wait_range(f->f_mapping, start, start + done - 1);
	if (err)
		return err;
	invalidate_mapping_pages(f->f_mapping, start >> PAGE_SHIFT, (start + done - 1) >> PAGE_SHIFT);
	return done;
}

/*
 * a_ops->direct_IO of a regular file: generic_direct_IO over the file's
 * block map.  The offset, length and buffer address must be multiples of
 * the file system's block size (EINVAL otherwise; Linux asks only for the
 * disk's 512 bytes and zeroes the rest of a block itself).  A read stops
 * at the end of the file; a write past it allocates, grows i_size once
 * the data is on the disk, and gives back what a failed one allocated.
 * Asynchronous (io_submit) requests that cross the end of the file are
 * done synchronously: i_size may only move after the I/O.
 */
ssize_t ext2_direct_IO(struct file *f, struct iov_iter *it, loff_t *pos, bool write,
		       struct kiocb *iocb)
{
	struct inode *inode = f->f_mapping->host;
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	size_t count = iov_iter_count(it);
	loff_t start, size, end;
	ssize_t ret;

	if (*pos < 0)
		return -EINVAL;
	/* a read at or past the end is the end of the file, aligned or not
	 * (Linux's iomap_dio_rw looks at i_size before the alignment): the
	 * last read of a file whose size is not a multiple of the block size
	 * starts there, and dd or cat must see 0 to stop */
	size = READ_ONCE(inode->i_size);
	if (!write && *pos >= size)
		return 0;
	if (!blkdev_dio_aligned((unsigned int)sbi->s_blocksize, *pos, count, iov_iter_addr(it)))
		return -EINVAL;
	if (!write) {
		start = *pos;
		if (start + (loff_t)count > size)
			iocb = NULL; /* the last block: its bytes past i_size are cut */
		ret = generic_direct_IO(inode, sbi->s_bdev, it, &start, false, iocb, ext2_dio_map,
					ALIGN(size, (loff_t)sbi->s_blocksize));
		if (ret > 0 && !iocb) {
			ret = min_t(loff_t, ret, size - *pos);
			*pos += ret;
		}
		return ret;
	}

	mutex_lock(&inode->i_mutex);
	if (sb_rdonly(inode->i_sb)) {
		mutex_unlock(&inode->i_mutex);
		return -EROFS;
	}
	if (f->f_flags & O_APPEND)
		*pos = inode->i_size;
	end = *pos + (loff_t)count;
	if ((u64)end > sbi->s_max_size) {
		mutex_unlock(&inode->i_mutex);
		return -EFBIG;
	}
	if (ext2_range_has_hole(inode, *pos, end)) {
		mutex_unlock(&inode->i_mutex);
		return ext2_dio_write_buffered(f, it, pos);
	}
	size = inode->i_size;
	if (end > size)
		iocb = NULL; /* i_size grows after the data is there */
	ret = generic_direct_IO(inode, sbi->s_bdev, it, pos, true, iocb, ext2_dio_map,
				(loff_t)sbi->s_max_size);
	if (!iocb) {
		if (*pos > inode->i_size)
			inode->i_size = *pos;
		/* blocks allocated for bytes that never came go back */
		if (end > inode->i_size)
			ext2_truncate_blocks(inode, inode->i_size);
	}
	if (ret > 0 || ret == -EIOCBQUEUED)
		inode->i_mtime_ns = EXT2_I(inode)->i_ctime_ns = fs_now_ns();
	mark_inode_dirty(inode);
	mutex_unlock(&inode->i_mutex);
	return ret;
}

/* O_DIRECT reads come here from read(); buffered ones from the cache. */
ssize_t ext2_file_read_iter(struct file *f, struct iov_iter *to, loff_t *pos)
{
	if (f->f_flags & O_DIRECT)
		return ext2_direct_IO(f, to, pos, false, NULL);
	return filemap_read(f, to, pos);
}

/* ... and writes from write(). */
ssize_t ext2_file_write_iter(struct file *f, struct iov_iter *from, loff_t *pos)
{
	if (f->f_flags & O_DIRECT)
		return ext2_direct_IO(f, from, pos, true, NULL);
	return ext2_buffered_write_iter(f, from, pos);
}
