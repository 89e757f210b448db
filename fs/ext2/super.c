// SPDX-License-Identifier: MIT
/*
 * super.c - mounting ext2: the file system type "ext2", the superblock
 * and the group descriptors, statfs, umount.
 *
 *   mount -t ext2 -o ro /dev/sda1 /mnt
 *     ext2_mount: find the block device the node names, claim it (a
 *       second mount or an O_EXCL open gets EBUSY), write back what the
 *       device's own cache holds (a write to /dev/sda1 just before must be
 *       seen), read the superblock (byte 1024) and check it, read and
 *       check every group descriptor, read the root inode.
 *
 * Only read-only mounts: this driver cannot write yet.  A mount without
 * MS_RDONLY is refused with EROFS -- what Linux's kernel answers for a
 * device that cannot be written -- and Spindle's mount(8), like
 * util-linux's, then tries again read-only and says so.
 */
#include <spindle/blkdev.h>
#include <spindle/pagemap.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include "../internal.h"
#include "ext2.h"

static void ext2_evict_inode(struct inode *inode)
{
	/* its cached pages first: nothing may read through the map after */
	truncate_inode_pages(&inode->i_data, 0);
	ext2_map_cache_release(&EXT2_I(inode)->i_map);
	kfree(inode->i_private);
	inode->i_private = NULL;
}

static void ext2_statfs(struct super_block *sb, struct statfs *buf)
{
	ext2_fill_statfs(EXT2_SB(sb), buf);
}

static const struct super_operations ext2_sops = {
	.evict_inode = ext2_evict_inode,
	.statfs = ext2_statfs,
};

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

/* Options: only errors=, which a read-only mount has no use for. */
static int ext2_parse_options(struct ext2_sb_info *sbi, const char *data)
{
	char opt[64];

	while (data && *data) {
		size_t n = 0;

		while (data[n] && data[n] != ',')
			n++;

		strlcpy(opt, data, min(n + 1, sizeof(opt)));
		if (n && strcmp(opt, "errors=continue") && strcmp(opt, "errors=remount-ro") &&
		    strcmp(opt, "ro")) {
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

static int ext2_fill_super(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct inode *root;
	int err = ext2_read_super(sbi);

	if (!err)
		err = ext2_read_descriptors(sb);
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

static void ext2_put_super(struct super_block *sb)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);

	ext2_icache_drop(sbi);
	if (sbi->s_bdev_open) {
		struct address_space *mapping = sbi->s_bdev->bd_inode->i_mapping;

		/* the metadata written back, and its pages let go, as Linux's
		 * kill_bdev at the last close: what a file system kept for
		 * itself does not outlive it */
		filemap_write_and_wait(mapping);
		invalidate_mapping_pages(mapping, 0, ~(pgoff_t)0);
		blkdev_put(sbi->s_bdev);
	}
	bd_release(sbi->s_bdev, sbi);
	kfree(sbi->s_group_desc);
	kfree(sbi);
	kfree(sb);
}

static struct dentry *ext2_mount(struct file_system_type *type, int flags,
				 const char *dev_name, void *data)
{
	struct block_device *bdev = ext2_lookup_dev(dev_name);
	struct ext2_sb_info *sbi;
	struct super_block *sb;
	int err;

	if (IS_ERR(bdev))
		return ERR_CAST(bdev);
	if (!(flags & MS_RDONLY)) {
		printk(KERN_ERR "EXT2-fs (%s): error: no write support yet: mount read-only (-o ro)\n",
		       bdev->bd_name);
		return ERR_PTR(-EROFS);
	}
	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	sb = sbi ? sget_anon(type) : NULL;
	if (!sb) {
		kfree(sbi);
		return ERR_PTR(-ENOMEM);
	}
	strlcpy(sbi->s_id, bdev->bd_name, sizeof(sbi->s_id));
	sbi->s_bdev = bdev;
	sbi->s_sb = sb;
	mutex_init(&sbi->s_icache_lock);
	INIT_LIST_HEAD(&sbi->s_icache);
	sb->s_fs_info = sbi;
	sb->s_dev = bdev->bd_dev;
	sb->s_magic = EXT2_SUPER_MAGIC;
	sb->s_op = &ext2_sops;
	sb->s_flags |= SB_RDONLY;
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
	err = ext2_fill_super(sb);
	if (err)
		goto release;
	ext2_msg(sbi, KERN_INFO, "mounted filesystem read-only, block size %lu, %u groups",
		 sbi->s_blocksize, sbi->s_groups_count);
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
	.mount = ext2_mount,
	.kill_sb = ext2_kill_sb,
};

int init_ext2_fs(void)
{
	return register_filesystem(&ext2_fs_type);
}
