// SPDX-License-Identifier: MIT
/*
 * devtmpfs.c - /dev: the device nodes, made at lookup time.
 *
 * User init mounts it ("mount -t devtmpfs none /dev").  Its directory is
 * not stored anywhere: looking up "sda1" asks the block layer whether a
 * block device of that name exists now (lookup_bdev) and makes a node for
 * its number; listing /dev walks disk_list.  So a disk that registers
 * after the mount -- a dm device made later -- appears without anyone
 * telling devtmpfs.  The fixed character devices:
 *
 *   console 5:1    null 1:3    zero 1:5
 *
 * Opening a node is the VFS's business (init_special_inode): the same
 * code opens a node the initramfs made with mknod.
 */
#include <spindle/fs.h>
#include <spindle/blkdev.h>
#include <spindle/string.h>
#include "internal.h"

struct devnode {
	const char *name;
	umode_t mode;
	unsigned int major, minor;
};

static const struct devnode char_nodes[] = {
	{ "console", S_IFCHR | 0600, TTYAUX_MAJOR, 1 },
	{ "null",    S_IFCHR | 0666, MEM_MAJOR, 3 },
	{ "zero",    S_IFCHR | 0666, MEM_MAJOR, 5 },
};

static struct inode *devtmpfs_node(struct super_block *sb, umode_t mode, dev_t dev)
{
	struct inode *inode = new_inode(sb);

	if (inode)
		init_special_inode(inode, mode, dev);
	return inode;
}

static struct dentry *devtmpfs_lookup(struct inode *dir, struct dentry *dentry)
{
	struct block_device *bdev;
	struct inode *inode = NULL;

	for (unsigned int i = 0; i < ARRAY_SIZE(char_nodes); i++)
		if (strcmp(dentry->d_name, char_nodes[i].name) == 0)
			inode = devtmpfs_node(dir->i_sb, char_nodes[i].mode,
					      MKDEV(char_nodes[i].major, char_nodes[i].minor));
	/* lookup_bdev also takes "8:1": only real names here */
	if (!inode && !strchr(dentry->d_name, ':') && (bdev = lookup_bdev(dentry->d_name)))
		inode = devtmpfs_node(dir->i_sb, S_IFBLK | 0660, bdev->bd_dev);
	if (inode)
		d_add(dentry, inode);
	return NULL;
}

/* The block device with the smallest number >= from; disk_list_lock held. */
static struct block_device *next_bdev(dev_t from)
{
	struct block_device *best = NULL;
	struct gendisk *disk;

	list_for_each_entry(disk, &disk_list, list)
		for (int p = 0; p < DISK_MAX_PARTS; p++) {
			struct block_device *b = disk->part[p];

			if (b && b->bd_dev >= from && (!best || b->bd_dev < best->bd_dev))
				best = b;
		}
	return best;
}

/*
 * ".", "..", the character nodes, then every block device by device
 * number.  A block device's position is DEVTMPFS_BDEV_POS + its dev_t,
 * not its index: partitions dropped by BLKRRPART between two getdents
 * calls shift nothing, so a listing in pieces skips no device.
 */
#define DEVTMPFS_BDEV_POS       (2 + (loff_t)ARRAY_SIZE(char_nodes))

static int devtmpfs_iterate(struct file *f, struct dir_context *ctx)
{
	struct block_device *b;
	loff_t n;
	bool more = true;

	if (!dir_emit_dots(f, ctx))
		return 0;
	for (n = ctx->pos - 2; n < (loff_t)ARRAY_SIZE(char_nodes); n = ctx->pos - 2)
		if (!dir_emit(ctx, char_nodes[n].name, strlen(char_nodes[n].name),
			      100 + n, DT_CHR))
			return 0;
	mutex_lock(&disk_list_lock);            /* disks and partitions stay put */
	while (more && ctx->pos - DEVTMPFS_BDEV_POS < (loff_t)1 << 32 &&
	       (b = next_bdev((dev_t)(ctx->pos - DEVTMPFS_BDEV_POS)))) {
		ctx->pos = DEVTMPFS_BDEV_POS + b->bd_dev;
		more = dir_emit(ctx, b->bd_name, strlen(b->bd_name),
				1000 + MINOR(b->bd_dev) + 4096ull * MAJOR(b->bd_dev), DT_BLK);
	}
	mutex_unlock(&disk_list_lock);
	return 0;
}

static const struct inode_operations devtmpfs_dir_iops = { .lookup = devtmpfs_lookup };
static const struct file_operations devtmpfs_dir_fops = { .iterate = devtmpfs_iterate };

static int devtmpfs_fill_super(struct super_block *sb)
{
	struct inode *root = pseudo_new_dir(sb, &devtmpfs_dir_iops, &devtmpfs_dir_fops, NULL);

	sb->s_magic = TMPFS_MAGIC;      /* Linux's devtmpfs is a tmpfs */
	if (root)
		root->i_mode = S_IFDIR | 0755;
	sb->s_root = d_make_root(root);
	return sb->s_root ? 0 : -ENOMEM;
}

static struct dentry *devtmpfs_mount(struct file_system_type *type, int flags,
				     const char *dev_name, void *data)
{
	(void)flags; (void)dev_name; (void)data;
	return mount_single(type, devtmpfs_fill_super);
}

static struct file_system_type devtmpfs_type = {
	.name = "devtmpfs", .mount = devtmpfs_mount,
};

int init_devtmpfs(void)
{
	return register_filesystem(&devtmpfs_type);
}
