// SPDX-License-Identifier: MIT
/*
 * buffer.c - ext2's metadata blocks: ext2_bread(sb, n) returns a buffer
 * holding block n of the file system, ext2_brelse() gives it back;
 * ext2_getblk() for a block about to be overwritten whole,
 * ext2_mark_buffer_dirty() after a change (on ext3, the journal takes
 * the block: fs/ext2/journal.c; __ext2_mark_buffer_dirty() sends it home), ext2_sync_buffer() to have it
 * on the disk now; ext2_breadahead() to start reading blocks the caller
 * will want soon (an inode table, a directory), without waiting.
 *
 * Where the bytes live: in the block device's own page cache (the bdev
 * inode's mapping, which /dev/sda1's readers and writers share), as
 * Linux's sb_bread() finds them.  Page index = byte offset / 4096; a
 * block smaller than a page is a slice of its page, and b_data points
 * into it.  So there is one copy of each block: a read of the device
 * sees what ext2 changed, a block read twice is read from the disk once,
 * and a dirtied block goes back with the device's other dirty pages --
 * by the disk's flusher (sorted, under one plug: fs/mpage.c), or by
 * fsync, sync and umount.
 *
 * Rules: the buffer holds a reference on its page until ext2_brelse(), so
 * reclaim cannot take it meanwhile.  Writers of one block serialise among
 * themselves (the bitmaps under s_alloc_lock, an inode's slot under its
 * owner); a page may be under write-back while it changes, which only
 * redirties it.  May sleep.
 */
#include <spindle/bio.h>
#include <spindle/blkdev.h>
#include <spindle/mm.h>
#include <spindle/pagemap.h>
#include <spindle/printk.h>
#include <spindle/ratelimit.h>
#include <spindle/string.h>
#include "ext2.h"

int ext2_read_sectors(struct block_device *bdev, sector_t sector, struct page *page,
		      unsigned int len)
{
	struct bio *bio = bio_alloc(GFP_NOIO, 1);
	int err;

	bio_set_dev(bio, bdev);
	bio->bi_iter.bi_sector = sector;
	bio->bi_opf = REQ_OP_READ;
	bio_add_page(bio, page, len, 0);
	err = submit_bio_wait(bio);
	bio_put(bio);
	if (err)
		printk_ratelimited(KERN_ERR "Buffer I/O error on dev %s, sector %llu, read of %u bytes\n",
				   bdev->bd_name, (unsigned long long)sector, len);
	return err;
}

static struct address_space *ext2_bdev_mapping(struct super_block *sb)
{
	return EXT2_SB(sb)->s_bdev->bd_inode->i_mapping;
}

/* Where block lives in the device's cache: its page and offset in it. */
static pgoff_t ext2_block_page(struct ext2_sb_info *sbi, u32 block, unsigned int *off)
{
	unsigned int shift = PAGE_SHIFT - sbi->s_blocksize_bits;

	*off = (block & ((1u << shift) - 1)) << sbi->s_blocksize_bits;
	return (pgoff_t)block >> shift;
}

/* Every caller checked the number; this is the last line of defence
 * against reaching past the file system into whatever follows. */
static int ext2_check_blocknr(struct ext2_sb_info *sbi, u32 block, const char *function)
{
	if (block < sbi->s_blocks_count)
		return 0;
	ext2_error(sbi, function, "block %u past the end (%u blocks)", block, sbi->s_blocks_count);
	return -EUCLEAN;
}

static struct ext2_buf *ext2_buf_of(struct ext2_sb_info *sbi, struct page *page, u32 block,
				    unsigned int off)
{
	struct ext2_buf *bh = kmalloc(sizeof(*bh), GFP_KERNEL);

	if (!bh) {
		put_page(page);
		return ERR_PTR(-ENOMEM);
	}
	bh->b_sbi = sbi;
	bh->b_page = page;
	bh->b_data = (char *)page_address(page) + off;
	bh->b_blocknr = block;
	bh->b_size = (unsigned int)sbi->s_blocksize;
	return bh;
}

struct ext2_buf *ext2_bread(struct super_block *sb, u32 block)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct page *page;
	unsigned int off;
	pgoff_t index = ext2_block_page(sbi, block, &off);
	int err = ext2_check_blocknr(sbi, block, "ext2_bread");

	if (err)
		return ERR_PTR(err);
	page = read_mapping_page(ext2_bdev_mapping(sb), index, NULL);
	if (IS_ERR(page)) {
		printk_ratelimited(KERN_ERR "EXT2-fs (%s): unable to read block %u (%ld)\n",
				   sbi->s_id, block, PTR_ERR(page));
		return ERR_CAST(page);
	}
	return ext2_buf_of(sbi, page, block, off);
}

bool ext2_block_cached(struct super_block *sb, u32 block)
{
	unsigned int off;
	struct page *page = find_get_page(ext2_bdev_mapping(sb),
					  ext2_block_page(EXT2_SB(sb), block, &off));
	bool uptodate = page && PageUptodate(page);

	if (page)
		put_page(page);
	return uptodate;
}

void ext2_breadahead(struct super_block *sb, u32 block, u32 count)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	unsigned int off;
	pgoff_t first, last;

	if (!count || block >= sbi->s_blocks_count)
		return;
	if (count > sbi->s_blocks_count - block)
		count = sbi->s_blocks_count - block;
	first = ext2_block_page(sbi, block, &off);
	last = ext2_block_page(sbi, block + count - 1, &off);
	force_page_cache_readahead(ext2_bdev_mapping(sb), first, last - first + 1);
}

/*
 * The caller overwrites the whole block: no read of it, zeros instead.
 * The rest of its page (other blocks, when they are smaller) must still
 * be the disk's, so a page not yet cached is read when it holds more.
 */
struct ext2_buf *ext2_getblk(struct super_block *sb, u32 block)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct address_space *mapping = ext2_bdev_mapping(sb);
	struct ext2_buf *bh;
	struct page *page;
	unsigned int off;
	pgoff_t index = ext2_block_page(sbi, block, &off);
	int err = ext2_check_blocknr(sbi, block, "ext2_getblk");

	if (err)
		return ERR_PTR(err);
	if (sbi->s_blocksize == PAGE_SIZE) {
		page = find_or_create_page(mapping, index, GFP_KERNEL);
		if (!page)
			return ERR_PTR(-ENOMEM);
		/* a write-back of the block's old bytes finishes first */
		wait_on_page_writeback(page);
		memset(page_address(page), 0, PAGE_SIZE);
		SetPageUptodate(page);
		unlock_page(page);
	} else {
		page = read_mapping_page(mapping, index, NULL);
		if (IS_ERR(page))
			return ERR_CAST(page);
		lock_page(page);
		memset((char *)page_address(page) + off, 0, sbi->s_blocksize);
		unlock_page(page);
	}
	bh = ext2_buf_of(sbi, page, block, off);
	if (!IS_ERR(bh))
		ext2_mark_buffer_dirty(bh);
	return bh;
}

/*
 * The page is dirtied for this block's sectors only (page->dirty_sectors):
 * its other blocks, when smaller than a page, may be file data whose
 * newer bytes are in the file's own cache, and write-back of this page
 * must not put the old ones back.  Under the page lock, as write-back
 * reads and clears the mask.
 */
void ext2_mark_buffer_dirty(struct ext2_buf *bh)
{
	/* ext3: the change goes to the running transaction, not home */
	if (bh->b_sbi && bh->b_sbi->s_journal) {
		ext2_journal_dirty_metadata(bh);
		return;
	}
	__ext2_mark_buffer_dirty(bh);
}

void __ext2_mark_buffer_dirty(struct ext2_buf *bh)
{
	struct page *page = bh->b_page;
	unsigned int off = (unsigned int)((char *)bh->b_data - (char *)page_address(page));
	unsigned int nr = bh->b_size >> SECTOR_SHIFT;
	unsigned int bits = (nr >= 32 ? ~0u : (1u << nr) - 1) << (off >> SECTOR_SHIFT);
	unsigned int before;
	bool was_dirty;

	lock_page(page);
	was_dirty = PageDirty(page);
	before = page->dirty_sectors;
	set_page_dirty(page); /* which says "all sectors" */
	if (!was_dirty)
		page->dirty_sectors = bits;
	else if (before)
		page->dirty_sectors = before | bits;
	unlock_page(page);
}

/* Written and waited for: 0, or -EIO if the disk refused it. */
int ext2_sync_buffer(struct ext2_buf *bh)
{
	struct address_space *mapping = bh->b_page->mapping;
	loff_t start = (loff_t)bh->b_page->index << PAGE_SHIFT;

	if (!mapping)
		return -EIO;
	return filemap_write_and_wait_range(mapping, start, start + PAGE_SIZE - 1) ? -EIO : 0;
}

void ext2_brelse(struct ext2_buf *bh)
{
	if (IS_ERR_OR_NULL(bh))
		return;
	put_page(bh->b_page);
	kfree(bh);
}
