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
 * a read or write outside the partition.
 *
 * Read-write ext3 (ext2_journal_start_writes, at mount): the journal
 * stays, and the ext2 code's changes go through it --
 * ext2_mark_buffer_dirty() hands a block to the running transaction
 * (ext2_journal_dirty_metadata) instead of the device's write-back, the
 * operations open handles (ext2_journal_start), a freed block is revoked
 * and a written file joins the transaction for ordered mode.  The log
 * is written with bios of its own (j_submit_log), so the commit block
 * carries REQ_PREFLUSH | REQ_FUA; a kernel thread, "jbd2/<dev>", commits
 * every commit=N seconds (5 by default), fsync and sync at once.  May
 * sleep.
 */
#include <spindle/blkdev.h>
#include <spindle/jbd2.h>
#include <spindle/mm.h>
#include <spindle/pagemap.h>
#include <spindle/string.h>
#include <spindle/bio.h>
#include <spindle/sched.h>
#include <spindle/err.h>
#include "../internal.h"
#include "ext2.h"

struct ext2_journal {
	journal_t journal;
	struct super_block *sb;
	u32 ino;
	struct ext2_inode raw; /* the journal inode, for its block map */
	struct ext2_map_cache mc;
	/* the log's writes in flight (j_submit_log), and the first error */
	spinlock_t io_lock;
	int io_pending;
	int io_err;
	struct wait_queue_head io_wait;
	struct task_struct *commit_thread;
	struct wait_queue_head commit_wait; /* the thread's sleep */
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

/* --- writing ------------------------------------------------------------ */

static void ext2_journal_end_io(struct bio *bio)
{
	struct ext2_journal *ej = bio->bi_private;
	struct page *page = bio->bi_io_vec[0].bv_page;
	unsigned long flags;

	spin_lock_irqsave(&ej->io_lock, flags);
	if (bio->bi_status && !ej->io_err)
		ej->io_err = -EIO;
	ej->io_pending--;
	spin_unlock_irqrestore(&ej->io_lock, flags);
	wake_up(&ej->io_wait);
	__free_page(page);
	bio_put(bio);
}

/* A copy of buf (the caller reuses it) to block blocknr of the journal,
 * with op_flags; not waited for. */
static int ext2_journal_submit_log(journal_t *j, u32 blocknr, const void *buf,
				   unsigned int op_flags)
{
	struct ext2_journal *ej = EXT2_J(j);
	struct ext2_sb_info *sbi = EXT2_SB(ej->sb);
	struct page *page;
	struct bio *bio;
	u32 pblock;
	int err;

	if (blocknr >= j->j_total_len)
		return -EUCLEAN;
	ej->mc.sb = ej->sb;
	err = ext2_get_branch(sbi, ej->raw.i_block, ej->ino, blocknr, ext2_read_entry, &ej->mc,
			      &pblock, NULL);
	if (!err && (!pblock || pblock >= sbi->s_blocks_count))
		err = -EUCLEAN;
	if (err)
		return err;
	page = alloc_page(GFP_NOIO);
	if (!page)
		return -ENOMEM;
	memcpy(page_address(page), buf, j->j_blocksize);
	bio = bio_alloc(GFP_NOIO, 1);
	bio_set_dev(bio, sbi->s_bdev);
	bio->bi_iter.bi_sector = (sector_t)pblock << (sbi->s_blocksize_bits - SECTOR_SHIFT);
	bio->bi_opf = REQ_OP_WRITE | op_flags;
	bio_add_page(bio, page, j->j_blocksize, 0);
	bio->bi_end_io = ext2_journal_end_io;
	bio->bi_private = ej;
	spin_lock_irq(&ej->io_lock);
	ej->io_pending++;
	spin_unlock_irq(&ej->io_lock);
	submit_bio(bio);
	return 0;
}

static int ext2_journal_wait_log(journal_t *j)
{
	struct ext2_journal *ej = EXT2_J(j);
	int err;

	io_wait_event(ej->io_wait, READ_ONCE(ej->io_pending) == 0);
	spin_lock_irq(&ej->io_lock);
	err = ej->io_err;
	ej->io_err = 0;
	spin_unlock_irq(&ej->io_lock);
	return err;
}

static int ext2_journal_write_inode_data(journal_t *j, void *inode)
{
	struct inode *ino = inode;

	(void)j;
	return filemap_write_and_wait(ino->i_mapping);
}

static void ext2_journal_release_inode(journal_t *j, void *inode)
{
	(void)j;
	iput(inode);
}

/* After the commit: the block may go home with the device's write-back. */
static void ext2_journal_checkpoint_buffer(journal_t *j, struct journal_head *jh, bool committed)
{
	struct page *page = jh->jh_private;
	struct ext2_buf bh = {
		.b_data = jh->jh_data,
		.b_blocknr = (u32)jh->jh_blocknr,
		.b_size = j->j_blocksize,
		.b_page = page,
	};

	if (committed)
		__ext2_mark_buffer_dirty(&bh);
	put_page(page);
}

void ext2_journal_dirty_metadata(struct ext2_buf *bh)
{
	struct ext2_journal *ej = bh->b_sbi->s_journal;

	/* the transaction keeps the page in the cache until the commit */
	get_page(bh->b_page);
	if (jbd2_journal_dirty_metadata(&ej->journal, bh->b_blocknr, bh->b_data, bh->b_page) != 1)
		put_page(bh->b_page);
}

void ext2_journal_revoke(struct super_block *sb, u32 block, unsigned long count)
{
	struct ext2_journal *ej = EXT2_SB(sb)->s_journal;

	for (unsigned long i = 0; ej && i < count; i++)
		jbd2_journal_revoke(&ej->journal, block + i);
}

/* Ordered mode: the file's data reaches the disk before this transaction
 * commits (the commit writes it: j_write_inode_data). */
void ext2_journal_file_inode(struct inode *inode)
{
	struct ext2_journal *ej = EXT2_SB(inode->i_sb)->s_journal;
	struct inode *ref;

	if (!ej || !(ref = igrab(inode)))
		return;
	if (jbd2_journal_file_inode(&ej->journal, ref) != 1)
		iput(ref);
}

handle_t *ext2_journal_start(struct super_block *sb, int credits)
{
	struct ext2_journal *ej = EXT2_SB(sb)->s_journal;

	return ej ? jbd2_journal_start(&ej->journal, credits) : NULL;
}

int ext2_journal_stop(handle_t *handle)
{
	return jbd2_journal_stop(handle);
}

/*
 * Nothing to commit may still leave data in the disk's volatile cache
 * (written by fsync's own write-back since the last commit): then a
 * flush alone, as Linux's ext4_sync_file does.
 */
int ext2_journal_force_commit(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_journal *ej = sbi->s_journal;
	unsigned long before;
	int err;

	if (!ej)
		return -ENOENT;
	before = READ_ONCE(ej->journal.j_stats_commits);
	err = jbd2_journal_commit_transaction(&ej->journal);
	if (!err && READ_ONCE(ej->journal.j_stats_commits) == before && ej->journal.j_barrier)
		err = blkdev_issue_flush(sbi->s_bdev);
	return err;
}

/* kjournald2: a commit every j_commit_interval, until umount. */
static int ext2_journal_thread(void *data)
{
	struct ext2_journal *ej = data;
	journal_t *j = &ej->journal;

	while (!kthread_should_stop()) {
		wait_event_timeout(ej->commit_wait, kthread_should_stop(), (long)j->j_commit_interval);
		if (!kthread_should_stop())
			jbd2_journal_commit_transaction(j);
	}
	return 0;
}

static struct ext2_journal *ext2_journal_alloc(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_journal *ej = kzalloc(sizeof(*ej), GFP_KERNEL);

	if (!ej)
		return NULL;
	ej->sb = sb;
	ej->ino = sbi->s_es.s_journal_inum;
	snprintf(ej->journal.j_devname, sizeof(ej->journal.j_devname), "%s-%u", sbi->s_id, ej->ino);
	ej->journal.j_blocksize = (unsigned int)sbi->s_blocksize;
	ej->journal.j_fs_blocks = sbi->s_blocks_count;
	ej->journal.j_read_block = ext2_journal_read_block;
	ej->journal.j_write_block = ext2_journal_write_block;
	ej->journal.j_write_home = ext2_journal_write_home;
	ej->journal.j_sync = ext2_journal_sync;
	ej->journal.j_submit_log = ext2_journal_submit_log;
	ej->journal.j_wait_log = ext2_journal_wait_log;
	ej->journal.j_write_inode_data = ext2_journal_write_inode_data;
	ej->journal.j_release_inode = ext2_journal_release_inode;
	ej->journal.j_checkpoint_buffer = ext2_journal_checkpoint_buffer;
	spin_lock_init(&ej->io_lock);
	init_waitqueue_head(&ej->io_wait);
	init_waitqueue_head(&ej->commit_wait);
	return ej;
}

static void ext2_journal_free(struct ext2_journal *ej)
{
	ext2_map_cache_release(&ej->mc);
	jbd2_journal_destroy(&ej->journal);
	kfree(ej);
}

/*
 * Read-write ext3: the journal loaded again (its log is empty after the
 * mount's recovery) and kept.  Features this code does not write
 * refuse the mount read-write, as Linux refuses unknown ones.
 */
int ext2_journal_start_writes(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_journal *ej = ext2_journal_alloc(sb);
	journal_t *j;
	int err;

	if (!ej)
		return -ENOMEM;
	j = &ej->journal;
	err = ext2_journal_inode(ej);
	if (!err)
		err = jbd2_journal_load(j);
	if (!err && j->j_tail) {
		ext2_msg(sbi, KERN_ERR, "error: journal not empty after recovery");
		err = -EUCLEAN;
	}
	if (!err && j->j_format_version >= 2 &&
	    ((be32_to_cpu(j->j_superblock->s_feature_compat) & JBD2_FEATURE_COMPAT_CHECKSUM) ||
	     (be32_to_cpu(j->j_superblock->s_feature_incompat) & JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT))) {
		ext2_msg(sbi, KERN_ERR, "error: journal features %x/%x not written by this driver: mount read-only",
			 be32_to_cpu(j->j_superblock->s_feature_compat),
			 be32_to_cpu(j->j_superblock->s_feature_incompat));
		err = -EROFS;
	}
	if (!err) {
		j->j_transaction_sequence = j->j_tail_sequence;
		j->j_barrier = !sbi->s_nobarrier;
		j->j_commit_interval = msecs_to_jiffies((u64)sbi->s_commit_interval * 1000);
		err = jbd2_journal_init_write(j);
	}
	if (err) {
		ext2_journal_free(ej);
		return err;
	}
	ej->commit_thread = kthread_run(ext2_journal_thread, ej, "jbd2/%s", sbi->s_id);
	sbi->s_journal = ej;
	return 0;
}

/* umount, remount read-only: the last transaction committed, the log
 * checkpointed (all home, s_start = 0), the journal let go. */
int ext2_journal_stop_writes(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_journal *ej = sbi->s_journal;
	int err, e;

	if (!ej)
		return 0;
	if (ej->commit_thread)
		kthread_stop(ej->commit_thread);
	err = jbd2_journal_commit_transaction(&ej->journal);
	e = jbd2_journal_checkpoint(&ej->journal);
	err = err ?: e;
	/* aborted: what no commit took never goes home */
	jbd2_journal_drop_running(&ej->journal);
	sbi->s_journal = NULL;
	ext2_journal_free(ej);
	return err;
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
	ej = ext2_journal_alloc(sb);        /* replay uses its read and write hooks */
	if (!ej)
		return -ENOMEM;
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
