// SPDX-License-Identifier: MIT
/*
 * journal.c - ext3's journal as ext2's code sees it: the journal inode
 * (s_journal_inum, inode 8) turned into a jbd2 journal_t whose blocks
 * are read and written through the inode's block map and ext2_bread(),
 * and loaded -- a log left by a crash replayed -- at mount (super.c
 * calls ext2_load_journal() after the superblock and the descriptors,
 * before anything else reads metadata).
 *
 * Below it: buffer.c (the device's page cache), so the blocks recovery
 * writes home are the ones every later read of the mount sees, and
 * j_sync writes them all back and flushes the disk's cache.  Above it:
 * fs/jbd2/, which knows the log and nothing of ext2.
 *
 * The journal inode is trusted no more than any inode: a deleted or
 * non-regular journal inode, an extent-mapped one, a hole in it, a block
 * outside the file system: a "JBD2"/"EXT2-fs" line and an error, never
 * a read or write outside the partition.  Recovery only: nothing here
 * writes transactions yet.  One caller (the mount); may sleep.
 */
#include <spindle/blkdev.h>
#include <spindle/jbd2.h>
#include <spindle/mm.h>
#include <spindle/pagemap.h>
#include <spindle/string.h>
#include "../internal.h"
#include "ext2.h"

struct ext2_journal {
	journal_t journal;
	struct super_block *sb;
	u32 ino;
	struct ext2_inode raw; /* the journal inode, for its block map */
	struct ext2_map_cache mc;
};

static struct ext2_journal *EXT2_J(journal_t *j)
{
	return container_of(j, struct ext2_journal, journal);
}

/* Block blocknr of the journal inode: its buffer, or an error. */
static struct ext2_buf *ext2_journal_bread(journal_t *j, u32 blocknr)
{
	struct ext2_journal *ej = EXT2_J(j);
	struct ext2_sb_info *sbi = EXT2_SB(ej->sb);
	u32 pblock;
	int err;

	if (blocknr >= j->j_total_len)
		return ERR_PTR(-EUCLEAN);
	ej->mc.sb = ej->sb;
	err = ext2_get_branch(sbi, ej->raw.i_block, ej->ino, blocknr, ext2_read_entry, &ej->mc,
			      &pblock, NULL);
	if (err)
		return ERR_PTR(err);
	if (!pblock) {
		printk(KERN_ERR "JBD2: journal block not found at offset %u on %s\n", blocknr,
		       j->j_devname);
		return ERR_PTR(-EUCLEAN);
	}
	return ext2_bread(ej->sb, pblock);
}

static int ext2_journal_read_block(journal_t *j, u32 blocknr, void *buf)
{
	struct ext2_buf *bh = ext2_journal_bread(j, blocknr);

	if (IS_ERR(bh))
		return PTR_ERR(bh);
	memcpy(buf, bh->b_data, j->j_blocksize);
	ext2_brelse(bh);
	return 0;
}

/* Copy a whole block into bh (or pass on its read error), mark it dirty
 * for write-back, and let it go. */
static int fill_block(journal_t *j, struct ext2_buf *bh, const void *buf)
{
	if (IS_ERR(bh))
		return PTR_ERR(bh);
	memcpy(bh->b_data, buf, j->j_blocksize);
	ext2_mark_buffer_dirty(bh);
	ext2_brelse(bh);
	return 0;
}

static int ext2_journal_write_block(journal_t *j, u32 blocknr, const void *buf)
{
	return fill_block(j, ext2_journal_bread(j, blocknr), buf);
}

/* Replay: a home block, in the device's cache (ext2_bread refuses a
 * block past the file system's end). */
static int ext2_journal_write_home(journal_t *j, u64 blocknr, const void *buf)
{
	struct super_block *sb = EXT2_J(j)->sb;

	if (blocknr >= EXT2_SB(sb)->s_blocks_count)
		return -EUCLEAN;
	return fill_block(j, ext2_bread(sb, (u32)blocknr), buf);
}

/* Everything written so far on the disk's media: written back, waited
 * for, and the volatile cache flushed. */
static int ext2_journal_sync(journal_t *j)
{
	struct ext2_sb_info *sbi = EXT2_SB(EXT2_J(j)->sb);
	int err = filemap_write_and_wait(sbi->s_bdev->bd_inode->i_mapping);

	if (!err)
		err = ext2_meta_wb_err(sbi);
	return err ? err : blkdev_issue_flush(sbi->s_bdev);
}

/* The journal inode, read and checked: its size gives the journal's. */
static int ext2_journal_inode(struct ext2_journal *ej)
{
	struct ext2_sb_info *sbi = EXT2_SB(ej->sb);
	struct ext2_buf *bh;
	unsigned int off;
	u32 block;
	u64 blocks;
	int err = __ext2_inode_location(sbi, ej->ino, &block, &off);

	if (err)
		return err;
	bh = ext2_bread(ej->sb, block);
	if (IS_ERR(bh))
		return PTR_ERR(bh);
	memcpy(&ej->raw, (char *)bh->b_data + off, sizeof(ej->raw));
	ext2_brelse(bh);
	if (!ej->raw.i_links_count || !S_ISREG(ej->raw.i_mode)) {
		ext2_msg(sbi, KERN_ERR, "error: journal inode %u is deleted or not a regular file",
			 ej->ino);
		return -EUCLEAN;
	}
	if (ej->raw.i_flags & EXT4_EXTENTS_FL) {
		ext2_msg(sbi, KERN_ERR, "error: journal inode %u uses extents, which this driver does not read",
			 ej->ino);
		return -EINVAL;
	}
	blocks = ext2_inode_size(&ej->raw) >> sbi->s_blocksize_bits;
	ej->journal.j_total_len = (u32)min_t(u64, blocks, sbi->s_blocks_count);
	return 0;
}

/*
 * Load the journal: replay its log if needs_recovery says there is one
 * (*replayed then true, *failed_commit the transaction whose commit
 * block was bad, or 0), else check its superblock and leave any log
 * alone, as Linux's jbd2_journal_wipe does on a read-only mount.
 */
int ext2_load_journal(struct super_block *sb, bool *replayed, u32 *failed_commit)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_super_block *es = &sbi->s_es;
	bool recover = es->s_feature_incompat & EXT3_FEATURE_INCOMPAT_RECOVER;
	struct ext2_journal *ej;
	int err;

	*replayed = false;
	*failed_commit = 0;
	if (es->s_journal_dev || !es->s_journal_inum) {
		ext2_msg(sbi, KERN_ERR, "error: external journals are not supported");
		return -EINVAL;
	}
	ej = kzalloc(sizeof(*ej), GFP_KERNEL);
	if (!ej)
		return -ENOMEM;
	ej->sb = sb;
	ej->ino = es->s_journal_inum;
	snprintf(ej->journal.j_devname, sizeof(ej->journal.j_devname), "%s-%u", sbi->s_id, ej->ino);
	ej->journal.j_blocksize = (unsigned int)sbi->s_blocksize;
	ej->journal.j_fs_blocks = sbi->s_blocks_count;
	ej->journal.j_read_block = ext2_journal_read_block;
	ej->journal.j_write_block = ext2_journal_write_block;
	ej->journal.j_write_home = ext2_journal_write_home;
	ej->journal.j_sync = ext2_journal_sync;
	ej->journal.j_no_recovery = !recover;
	err = ext2_journal_inode(ej);
	if (!err)
		err = jbd2_journal_load(&ej->journal);
	if (!err && recover) {
		*replayed = true;
		*failed_commit = ej->journal.j_failed_commit;
	}
	ext2_map_cache_release(&ej->mc);
	jbd2_journal_destroy(&ej->journal);
	kfree(ej);
	return err;
}
