// SPDX-License-Identifier: MIT
/*
 * buffer.c - where ext2 reads its metadata: ext2_bread(sb, n) returns a
 * buffer holding block n of the file system, ext2_brelse() gives it back.
 *
 * Below: the block layer.  Each read is one bio for one block, submitted
 * and waited for (submit_bio_wait): no cache, so every lookup and readdir
 * goes to the disk (through the disk's own write cache, which QEMU keeps
 * on the host).  A regular file's data does not come here: it goes
 * through the page cache (inode.c's a_ops, fs/mpage.c).  Linux's
 * sb_bread() finds metadata in the block device's page cache first; when
 * Spindle's ext2 does the same, this function becomes a lookup in it and
 * nothing above changes.
 *
 * Rule: a buffer is the caller's alone until ext2_brelse(); nothing
 * written to it reaches the disk.  May sleep.
 */
#include <spindle/bio.h>
#include <spindle/blkdev.h>
#include <spindle/mm.h>
#include <spindle/printk.h>
#include <spindle/ratelimit.h>
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

struct ext2_buf *ext2_bread(struct super_block *sb, u32 block)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_buf *bh;
	int err;

	/* every caller checked the number; this is the last line of defence
	 * against reading past the file system into whatever follows */
	if (block >= sbi->s_blocks_count) {
		ext2_error(sbi, "ext2_bread", "block %u past the end (%u blocks)", block,
			   sbi->s_blocks_count);
		return ERR_PTR(-EUCLEAN);
	}
	bh = kmalloc(sizeof(*bh), GFP_KERNEL);
	if (!bh)
		return ERR_PTR(-ENOMEM);
	bh->b_page = alloc_page(GFP_KERNEL);
	if (!bh->b_page) {
		kfree(bh);
		return ERR_PTR(-ENOMEM);
	}
	bh->b_data = page_address(bh->b_page);
	bh->b_blocknr = block;
	err = ext2_read_sectors(sbi->s_bdev, (sector_t)block << (sbi->s_blocksize_bits - SECTOR_SHIFT),
				bh->b_page, sbi->s_blocksize);
	if (err) {
		ext2_brelse(bh);
		return ERR_PTR(-EIO);
	}
	return bh;
}

void ext2_brelse(struct ext2_buf *bh)
{
	if (IS_ERR_OR_NULL(bh))
		return;
	__free_page(bh->b_page);
	kfree(bh);
}
