// SPDX-License-Identifier: MIT
/*
 * super.c - mounting ext2: the file system type "ext2", the superblock
 * and the group descriptors, statfs, umount.
 *
 *   mount -t ext2 [-o ro,errors=remount-ro] /dev/sda1 /mnt
 *     ext2_mount: find the block device the node names, claim it (a
 *       second mount or an O_EXCL open gets EBUSY), open its page cache
 *       (where the metadata will live: buffer.c), write back what that
 *       cache holds (a write to /dev/sda1 just before must be seen), read
 *       the superblock (byte 1024) and check it, read and check every
 *       group descriptor, read the root inode; read-write: mark the
 *       superblock "not clean", count the mount, write it.
 *
 *   mount -t ext3 -o ro /dev/sda1 /mnt
 *     the same driver, as Linux's ext4 serves ext3: has_journal is
 *     required, and after the descriptors the journal is loaded
 *     (journal.c): a log left by a crash (needs_recovery) is replayed
 *     into the device's cache and written, then the superblock and the
 *     descriptors are read again -- the log may have held them -- and
 *     needs_recovery cleared.  Read-write (journal.c, fs/jbd2/): the
 *     journal kept for writing and needs_recovery set again, on the
 *     disk before the first commit; umount commits, empties the log and
 *     clears it.  data=ordered only; commit=N, barrier=0|1.  A remount
 *     from read-only to read-write is refused (EROFS).
 *
 * umount (ext2_put_super): the kept inodes let go (dirty pages written,
 * unlinked inodes freed), the superblock's free counts summed from the
 * descriptors and "clean" again unless damage was met, the device's
 * pages written back, a cache flush, the clean pages let go.
 *
 * errors=: ext2_error() marks the superblock EXT2_ERROR_FS and, with
 * remount-ro (or the superblock's default saying so), sets SB_RDONLY.
 */
#include <spindle/blkdev.h>
#include <spindle/pagemap.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/crc32.h>
#include "../internal.h"
#include "ext2.h"

static void ext2_statfs(struct super_block *sb, struct statfs *buf)
{
	ext2_fill_statfs(EXT2_SB(sb), buf);
}

static int ext2_show_options(struct super_block *sb, char *buf, size_t size)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	int n = sbi->s_errors_ro ? snprintf(buf, size, ",errors=remount-ro") : 0;

	if (sbi->s_journal && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, ",data=ordered,commit=%u,barrier=%d",
			      sbi->s_commit_interval, !sbi->s_nobarrier);
	return n;
}

static u32 ext2_now_sec(void)
{
	return (u32)max_t(u64, 1, fs_now_ns() / NSEC_PER_SEC);
}

/*
 * The superblock into its cached block, the free counts as the sums of
 * the descriptors' (which every allocation keeps exact).  s_alloc_lock
 * held: the allocators call it with each change, so that whatever
 * writes the device's pages back -- the flusher, sync(2), a crash after
 * them -- leaves counts e2fsck agrees with (Linux's ext2 gets there by
 * its sync_fs alone: here the flusher writes the device's pages without
 * asking ext2_sync_fs).
 */
int ext2_update_super(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_super_block *es = &sbi->s_es;
	unsigned int off = EXT2_SUPER_OFFSET & (sbi->s_blocksize - 1);
	struct ext2_buf *bh = ext2_bread(sb, EXT2_SUPER_OFFSET >> sbi->s_blocksize_bits);
	u32 free_blocks = 0, free_inodes = 0;

	if (IS_ERR(bh))
		return PTR_ERR(bh);
	for (u32 g = 0; g < sbi->s_groups_count; g++) {
		free_blocks += sbi->s_group_desc[g].bg_free_blocks_count;
		free_inodes += sbi->s_group_desc[g].bg_free_inodes_count;
	}
	es->s_free_blocks_count = free_blocks;
	es->s_free_inodes_count = free_inodes;
	/* as Linux's ext4_superblock_csum: e2fsck refuses a superblock
	 * whose checksum is wrong (only ext3's recovery gets here with it) */
	if (es->s_feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		es->s_checksum = __crc32c_le(~0u, es, offsetof(struct ext2_super_block, s_checksum));
	memcpy((char *)bh->b_data + off, es, sizeof(*es));
	ext2_mark_buffer_dirty(bh);
	ext2_brelse(bh);
	return 0;
}

/* ... with the last write time, and written and waited for when wait
 * (mount and umount).  Linux's ext2_sync_super. */
static int ext2_sync_super(struct super_block *sb, bool wait)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_buf *bh;
	int err;

	mutex_lock(&sbi->s_alloc_lock);
	sbi->s_es.s_wtime = ext2_now_sec();
	err = ext2_update_super(sb);
	mutex_unlock(&sbi->s_alloc_lock);
	if (err || !wait)
		return err;
	bh = ext2_bread(sb, EXT2_SUPER_OFFSET >> sbi->s_blocksize_bits);
	if (IS_ERR(bh))
		return PTR_ERR(bh);
	err = ext2_sync_buffer(bh);
	ext2_brelse(bh);
	return err;
}

/*
 * The first regular file past 2 GiB - 1 bytes on a file system without
 * the large_file feature sets it, before the inode with the large size is
 * written (Linux's ext2_update_inode): a kernel that reads only the low
 * 32 bits of i_size must refuse such a file system, and e2fsck would
 * call the size wrong.  Feature flags exist only from revision 1, so a
 * revision 0 file system is moved up first, with Linux's warning
 * (ext2_update_dynamic_rev).  The superblock is written and waited for.
 */
int ext2_set_large_file(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_super_block *es = &sbi->s_es;

	mutex_lock(&sbi->s_alloc_lock);
	if ((es->s_feature_ro_compat & EXT2_FEATURE_RO_COMPAT_LARGE_FILE) &&
	    es->s_rev_level != EXT2_GOOD_OLD_REV) {
		mutex_unlock(&sbi->s_alloc_lock);
		return 0; /* another writer got here first */
	}
	if (es->s_rev_level == EXT2_GOOD_OLD_REV) {
		ext2_msg(sbi, KERN_WARNING,
			 "warning: updating to rev %d because of new feature flag, "
			 "running e2fsck is recommended",
			 EXT2_DYNAMIC_REV);
		es->s_rev_level = EXT2_DYNAMIC_REV;
		es->s_first_ino = EXT2_GOOD_OLD_FIRST_INO;
		es->s_inode_size = EXT2_GOOD_OLD_INODE_SIZE;
	}
	es->s_feature_ro_compat |= EXT2_FEATURE_RO_COMPAT_LARGE_FILE;
	mutex_unlock(&sbi->s_alloc_lock);
	return ext2_sync_super(sb, true);
}

/*
 * ext2_error()'s second half (check.c calls it): the file system is
 * marked as having errors (e2fsck will check it), and with
 * errors=remount-ro it takes no more changes.  No I/O here: the callers
 * hold locks; the superblock goes to the disk at umount.
 */
static void ext2_on_error(struct ext2_sb_info *sbi)
{
	struct super_block *sb = sbi->s_sb;

	sbi->s_es.s_state |= EXT2_ERROR_FS;
	if (sbi->s_errors_ro && sb && !sb_rdonly(sb)) {
		ext2_msg(sbi, KERN_CRIT, "error: remounting filesystem read-only");
		sb->s_flags |= SB_RDONLY;
	}
}

/* The block device a path names ("/dev/sda1"); vfs_lock held (do_mount). */
static struct block_device *ext2_lookup_dev(const char *dev_name)
{
	struct path p;
	char num[24];
	dev_t dev;
	int err;

	if (!dev_name)
		return ERR_PTR(-EINVAL);
	err = __path_lookupat(AT_FDCWD, dev_name, 0, &p, NULL, NULL);
	if (err)
		return ERR_PTR(err);
	dev = p.dentry->d_inode->i_rdev;
	err = S_ISBLK(p.dentry->d_inode->i_mode) ? 0 : -ENOTBLK;
	path_put(&p);
	if (err)
		return ERR_PTR(err);
	snprintf(num, sizeof(num), "%u:%u", MAJOR(dev), MINOR(dev));
	return lookup_bdev(num) ?: ERR_PTR(-ENXIO);
}

/* Options: errors=continue|remount-ro (the superblock's s_errors is
 * the default), ro and rw (mount(2)'s flags say which). */
static int ext2_parse_options(struct ext2_sb_info *sbi, const char *data)
{
	char opt[64];

	while (data && *data) {
		size_t n = 0;

		while (data[n] && data[n] != ',')
			n++;

		strlcpy(opt, data, min(n + 1, sizeof(opt)));
		if (!strcmp(opt, "errors=continue"))
			sbi->s_errors_opt = EXT2_ERRORS_CONTINUE;
		else if (!strcmp(opt, "errors=remount-ro"))
			sbi->s_errors_opt = EXT2_ERRORS_RO;
		else if (sbi->s_ext3 && !strcmp(opt, "data=ordered"))
			;
		else if (sbi->s_ext3 && (!strcmp(opt, "data=journal") || !strcmp(opt, "data=writeback"))) {
			ext2_msg(sbi, KERN_ERR, "%s not supported: ext3 here journals in data=ordered mode only",
				 opt);
			return -EINVAL;
		} else if (sbi->s_ext3 && (!strcmp(opt, "barrier=0") || !strcmp(opt, "nobarrier")))
			sbi->s_nobarrier = true;
		else if (sbi->s_ext3 && (!strcmp(opt, "barrier=1") || !strcmp(opt, "barrier")))
			sbi->s_nobarrier = false;
		else if (sbi->s_ext3 && !strncmp(opt, "commit=", 7)) {
			unsigned long secs = 0;
			const char *d = opt + 7;

			while (*d >= '0' && *d <= '9' && secs < 100000)
				secs = secs * 10 + (unsigned long)(*d++ - '0');
			if (*d || d == opt + 7) {
				ext2_msg(sbi, KERN_ERR, "bad value in \"%s\"", opt);
				return -EINVAL;
			}
			/* commit=0 is Linux's "the default" */
			sbi->s_commit_interval = secs ? (unsigned int)secs : EXT3_DEFAULT_COMMIT_SECS;
		}
		else if (n && strcmp(opt, "ro") && strcmp(opt, "rw")) {
			ext2_msg(sbi, KERN_ERR, "Unrecognized mount option \"%s\" or missing value",
				 opt);
			return -EINVAL;
		}
		data += n + (data[n] == ',');
	}
	return 0;
}

/* The superblock, checked into sbi's geometry. */
static int ext2_read_super(struct ext2_sb_info *sbi)
{
	struct page *page = alloc_page(GFP_KERNEL);
	int err;

	if (!page)
		return -ENOMEM;
	err = ext2_read_sectors(sbi->s_bdev, EXT2_SUPER_OFFSET >> SECTOR_SHIFT, page,
				EXT2_SUPER_SIZE);
	if (!err)
		err = ext2_fill_geometry(sbi, page_address(page),
					 (u64)bdev_nr_sectors(sbi->s_bdev) << SECTOR_SHIFT);
	__free_page(page);
	return err;
}

/* The descriptor table, after the superblock's block; each one checked. */
static int ext2_read_descriptors(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	size_t bytes = (size_t)sbi->s_groups_count * sizeof(struct ext2_group_desc);

	sbi->s_group_desc = kmalloc(bytes, GFP_KERNEL);
	if (!sbi->s_group_desc)
		return -ENOMEM;
	for (u32 i = 0; i < sbi->s_gdb_count; i++) {
		struct ext2_buf *bh = ext2_bread(sb, sbi->s_first_data_block + 1 + i);
		size_t at = (size_t)i * sbi->s_blocksize;

		if (IS_ERR(bh))
			return PTR_ERR(bh);
		memcpy((char *)sbi->s_group_desc + at, bh->b_data, min(bytes - at, sbi->s_blocksize));
		ext2_brelse(bh);
	}
	for (u32 g = 0; g < sbi->s_groups_count; g++)
		if (ext2_check_descriptor(sbi, &sbi->s_group_desc[g], g)) {
			ext2_msg(sbi, KERN_ERR, "group descriptors corrupted!");
			return -EUCLEAN;
		}
	return 0;
}

/*
 * ext3: the journal loaded, a log replayed.  The replay wrote through
 * the device's cache and then to the disk, and may have rewritten the
 * superblock and descriptors themselves: both are read again before
 * anything trusts them, then needs_recovery is cleared (the log is
 * empty now: journal.c) and the superblock written.  A commit block with
 * a bad checksum ended the log early: the file system is marked as
 * having errors, as Linux does, for e2fsck to look at.
 */
static int ext2_recover(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	bool replayed;
	u32 failed_commit;
	int err = ext2_load_journal(sb, &replayed, &failed_commit);

	if (err) {
		ext2_msg(sbi, KERN_ERR, "error loading journal");
		return err;
	}
	if (!replayed)
		return 0;
	kfree(sbi->s_group_desc);
	sbi->s_group_desc = NULL;
	err = ext2_read_super(sbi);
	if (!err)
		err = ext2_read_descriptors(sb);
	if (err)
		return err;
	sbi->s_es.s_feature_incompat &= ~EXT3_FEATURE_INCOMPAT_RECOVER;
	if (failed_commit) {
		ext2_msg(sbi, KERN_ERR, "journal transaction %u is corrupt", failed_commit);
		sbi->s_es.s_state |= EXT2_ERROR_FS;
	}
	err = ext2_sync_super(sb, true);
	if (!err)
		err = blkdev_issue_flush(sbi->s_bdev);
	if (!err)
		ext2_msg(sbi, KERN_INFO, "recovery complete");
	return err;
}

static int ext2_fill_super(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct inode *root;
	int err = ext2_read_super(sbi);

	if (!err)
		err = ext2_read_descriptors(sb);
	if (!err && sbi->s_ext3)
		err = ext2_recover(sb);
	if (err)
		return err;
	root = ext2_iget(sb, EXT2_ROOT_INO);
	if (IS_ERR(root) || !S_ISDIR(root->i_mode)) {
		if (!IS_ERR(root))
			iput(root);
		ext2_msg(sbi, KERN_ERR, "error: corrupt root inode, run e2fsck");
		return IS_ERR(root) && PTR_ERR(root) != -ESTALE ? PTR_ERR(root) : -EUCLEAN;
	}
	sb->s_root = d_make_root(root);
	return sb->s_root ? 0 : -ENOMEM;
}

/*
 * A read-write mount: refused to the features this driver cannot keep
 * right (mounted read-only instead, as the log says); otherwise the
 * superblock says "mounted, not clean" (e2fsck's reason to check after a
 * crash), counts the mount, and goes to the disk now.
 */
static int ext2_setup_rw(struct super_block *sb, bool remount)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_super_block *es = &sbi->s_es;
	u32 unknown = es->s_rev_level == EXT2_GOOD_OLD_REV
			      ? 0
			      : es->s_feature_ro_compat & ~EXT2_FEATURE_RO_COMPAT_SUPP;
	int err;

	if (sbi->s_ext3 && remount) {
		ext2_msg(sbi, KERN_ERR, "ext3: remount read-write not supported, umount and mount again");
		return -EROFS;
	}
	if (unknown && remount) {
		ext2_msg(sbi, KERN_WARNING,
			 "couldn't remount RDWR because of unsupported optional features (%x)",
			 unknown);
		return -EROFS;
	}
	if (unknown) {
		ext2_msg(sbi, KERN_WARNING,
			 "couldn't mount RDWR because of unsupported optional features (%x): mounted read-only",
			 unknown);
		return 0;
	}
	/* ext3: the journal first, which may refuse read-write before
	 * anything is written */
	if (sbi->s_ext3) {
		err = ext2_journal_start_writes(sb);
		if (err)
			return err;
	}
	if (!(es->s_state & EXT2_VALID_FS))
		ext2_msg(sbi, KERN_WARNING, "warning: mounting unchecked fs, running e2fsck is recommended");
	else if (es->s_state & EXT2_ERROR_FS)
		ext2_msg(sbi, KERN_WARNING, "warning: mounting fs with errors, running e2fsck is recommended");
	es->s_state &= ~EXT2_VALID_FS;
	es->s_mnt_count++;
	es->s_mtime = ext2_now_sec();
	/* ext3: needs_recovery on the disk before the first commit, so a
	 * crash from here on has the log replayed at the next mount */
	if (sbi->s_ext3) {
		struct ext2_journal *ej = sbi->s_journal;

		es->s_feature_incompat |= EXT3_FEATURE_INCOMPAT_RECOVER;
		/* this write goes home directly, not through the journal */
		sbi->s_journal = NULL;
		err = ext2_sync_super(sb, true);
		if (!err)
			err = blkdev_issue_flush(sbi->s_bdev);
		sbi->s_journal = ej;
		if (err) {
			ext2_journal_stop_writes(sb);
			es->s_feature_incompat &= ~EXT3_FEATURE_INCOMPAT_RECOVER;
			return err;
		}
	} else {
		err = ext2_sync_super(sb, true);
		if (err)
			return err;
	}
	sb->s_flags &= ~SB_RDONLY;
	sbi->s_mounted_rw = true;
	return 0;
}

/*
 * ext3 leaving read-write (umount, remount read-only): the journal
 * committed and emptied, then needs_recovery cleared in the superblock,
 * which goes to the disk outside the journal (there is none any more).
 */
static int ext2_journal_teardown(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	int err;

	if (!sbi->s_journal)
		return 0;
	err = ext2_journal_stop_writes(sb);
	if (err) {
		ext2_msg(sbi, KERN_ERR, "error: journal not emptied (%d): needs_recovery stays", err);
		return err;
	}
	sbi->s_es.s_feature_incompat &= ~EXT3_FEATURE_INCOMPAT_RECOVER;
	return 0;
}

/*
 * The metadata to the disk: the superblock (its counts summed again),
 * then every dirty page of the device's cache -- bitmaps, descriptors,
 * inode tables, directories, indirect blocks -- and a cache flush.
 * syncfs(2) after the files' pages (Linux's ext2_sync_fs and the
 * sync_blockdev after it), remount ro, umount.
 */
int ext2_meta_wb_err(struct ext2_sb_info *sbi)
{
	return errseq_check_and_advance(&sbi->s_bdev->bd_inode->i_mapping->wb_err,
					&sbi->s_meta_wb_err);
}

static int ext2_sync_fs(struct super_block *sb, int wait)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	int err = 0, e;

	if (!sbi->s_mounted_rw)
		return 0; /* nothing of it ever changed */
	if (sbi->s_journal) {
		/* ext3: a commit makes everything so far durable */
		err = ext2_sync_super(sb, false);
		e = ext2_journal_force_commit(sb);
		return err ?: e;
	}
	err = ext2_sync_super(sb, false);
	e = wait ? filemap_write_and_wait(sbi->s_bdev->bd_inode->i_mapping) : 0;
	if (!e && wait)
		e = ext2_meta_wb_err(sbi); /* what failed after its submission */
	if (e && !err)
		err = e;
	e = wait ? blkdev_issue_flush(sbi->s_bdev) : 0;
	return err ?: e;
}

/*
 * mount -o remount.  To read-only (the VFS wrote the files' pages and
 * found no file open for writing): refused while an unlinked inode waits
 * for its last close (freeing it needs writes, Linux's EBUSY), otherwise
 * the superblock is "clean" again unless damage was met, and everything
 * goes to the disk -- after it, the image is what umount would leave.
 * To read-write: as a read-write mount, except that a feature this
 * driver cannot keep refuses it (EROFS) rather than staying read-only.
 */
static int ext2_remount(struct super_block *sb, unsigned long *flags, char *data)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	u16 old_opt = sbi->s_errors_opt;
	unsigned int unlinked;
	int err = ext2_parse_options(sbi, data);

	if (err)
		return err;
	if ((*flags & MS_RDONLY) && !sb_rdonly(sb)) {
		spin_lock(&sbi->s_unlinked_lock);
		unlinked = sbi->s_unlinked;
		spin_unlock(&sbi->s_unlinked_lock);
		err = unlinked ? -EBUSY : 0;
		if (!err && sbi->s_mounted_rw) {
			err = ext2_journal_teardown(sb);
		}
		if (!err && sbi->s_mounted_rw) {
			if (!(sbi->s_es.s_state & EXT2_ERROR_FS))
				sbi->s_es.s_state |= EXT2_VALID_FS;
			err = ext2_sync_fs(sb, 1);
			if (!err)
				sbi->s_mounted_rw = false;
		}
	} else if (!(*flags & MS_RDONLY) && sb_rdonly(sb)) {
		err = ext2_setup_rw(sb, true);
	}
	if (err) {
		sbi->s_errors_opt = old_opt;
		return err;
	}
	sbi->s_errors_ro = (sbi->s_errors_opt ?: sbi->s_es.s_errors) >= EXT2_ERRORS_RO;
	return 0;
}

static const struct super_operations ext2_sops = {
	.evict_inode = ext2_evict_inode,
	.statfs = ext2_statfs,
	.dirty_inode = ext2_dirty_inode,
	.show_options = ext2_show_options,
	.remount_fs = ext2_remount,
	.sync_fs = ext2_sync_fs,
};

static void ext2_put_super(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);

	/* kept inodes go: their dirty pages written, unlinked ones freed */
	ext2_icache_drop(sbi);
	if (sbi->s_mounted_rw && ext2_journal_teardown(sb))
		sbi->s_es.s_state |= EXT2_ERROR_FS; /* and needs_recovery stays */
	if (sbi->s_mounted_rw) {
		/* clean again, unless damage was met while mounted */
		if (!(sbi->s_es.s_state & EXT2_ERROR_FS))
			sbi->s_es.s_state |= EXT2_VALID_FS;
		if (ext2_sync_super(sb, false))
			ext2_msg(sbi, KERN_ERR, "error: superblock not written at umount");
	}
	if (sbi->s_bdev_open) {
		struct address_space *mapping = sbi->s_bdev->bd_inode->i_mapping;

		/* the metadata written back, and its pages let go, as Linux's
		 * kill_bdev at the last close: what a file system kept for
		 * itself does not outlive it */
		if (filemap_write_and_wait(mapping))
			ext2_msg(sbi, KERN_ERR, "error: metadata write-back failed at umount");
		if (sbi->s_mounted_rw && blkdev_issue_flush(sbi->s_bdev))
			ext2_msg(sbi, KERN_ERR, "error: cache flush failed at umount");
		invalidate_mapping_pages(mapping, 0, ~(pgoff_t)0);
		blkdev_put(sbi->s_bdev);
	}
	bd_release(sbi->s_bdev, sbi);
	kfree(sbi->s_group_desc);
	kfree(sbi);
	kfree(sb);
}

static struct file_system_type ext3_fs_type;

static struct dentry *ext2_mount(struct file_system_type *type, int flags,
				 const char *dev_name, void *data)
{
	struct block_device *bdev = ext2_lookup_dev(dev_name);
	struct ext2_sb_info *sbi;
	struct super_block *sb;
	int err;

	if (IS_ERR(bdev))
		return ERR_CAST(bdev);
	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	sb = sbi ? alloc_super(type) : NULL;      /* its st_dev: the disk's */
	if (!sb) {
		kfree(sbi);
		return ERR_PTR(-ENOMEM);
	}
	strlcpy(sbi->s_id, bdev->bd_name, sizeof(sbi->s_id));
	sbi->s_ext3 = type == &ext3_fs_type;
	sbi->s_bdev = bdev;
	sbi->s_sb = sb;
	mutex_init(&sbi->s_icache_lock);
	mutex_init(&sbi->s_alloc_lock);
	spin_lock_init(&sbi->s_unlinked_lock);
	INIT_LIST_HEAD(&sbi->s_icache);
	sbi->s_on_error = ext2_on_error;
	sb->s_fs_info = sbi;
	sb->s_dev = bdev->bd_dev;
	sb->s_magic = EXT2_SUPER_MAGIC;
	sb->s_op = &ext2_sops;
	sb->s_flags |= SB_RDONLY;
	sbi->s_commit_interval = EXT3_DEFAULT_COMMIT_SECS;
	err = ext2_parse_options(sbi, data);
	if (err)
		goto free;
	err = bd_claim(bdev, sbi);
	if (err)
		goto free;
	/* the metadata's home: the device's page cache (buffer.c) */
	err = blkdev_get(bdev);
	if (err) {
		bd_release(bdev, sbi);
		goto free;
	}
	sbi->s_bdev_open = true;
	/* buffered writes to the device node before this mount must be what
	 * the superblock and everything after it are read from */
	sync_blockdevs();
	/* write-back errors from before the mount are not this file system's */
	sbi->s_meta_wb_err = errseq_sample(&bdev->bd_inode->i_mapping->wb_err);
	err = ext2_fill_super(sb);
	if (!err && !(flags & MS_RDONLY))
		err = ext2_setup_rw(sb, false);
	if (err)
		goto release;
	if (!sbi->s_errors_opt)
		sbi->s_errors_opt = sbi->s_es.s_errors;
	sbi->s_errors_ro = sbi->s_errors_opt >= EXT2_ERRORS_RO;
	ext2_msg(sbi, KERN_INFO, "mounted filesystem %s, block size %lu, %u groups",
		 sb_rdonly(sb) ? "read-only" : "read-write", sbi->s_blocksize, sbi->s_groups_count);
	return dget(sb->s_root);
release:
	ext2_put_super(sb);
	return ERR_PTR(err);
free:
	kfree(sbi);
	kfree(sb);
	return ERR_PTR(err);
}

static void ext2_kill_sb(struct super_block *sb)
{
	dput(sb->s_root);
	ext2_put_super(sb);
}

static struct file_system_type ext2_fs_type = {
	.name = "ext2",
	.fs_flags = FS_REQUIRES_DEV,
	.mount = ext2_mount,
	.kill_sb = ext2_kill_sb,
};

/* ext3: the same code, with the journal (see the top of this file) */
static struct file_system_type ext3_fs_type = {
	.name = "ext3",
	.fs_flags = FS_REQUIRES_DEV,
	.mount = ext2_mount,
	.kill_sb = ext2_kill_sb,
};

int init_ext2_fs(void)
{
	int err = register_filesystem(&ext2_fs_type);

	return err ? err : register_filesystem(&ext3_fs_type);
}
