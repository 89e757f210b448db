// SPDX-License-Identifier: MIT
/*
 * sysfs.c - sysfs ("sysfs"): the directories of /sys/block, one per disk,
 * with Linux's layout:
 *
 *   /sys/block/<disk>/                 the disk's attributes, "queue", and
 *                                      one directory per partition
 *   /sys/block/<disk>/<part>/          the partition's attributes
 *   /sys/block/<disk>/queue/           the queue's attributes, "iosched"
 *   /sys/block/<disk>/queue/iosched/   the current elevator's tunables
 *   /sys/block/<disk>/mq/<n>/          hardware queue n's files
 *   /sys/block/<disk>/device/          the device's model, if its driver
 *                                      named one
 *   /sys/class/<class>/<device>/       a driver's device attributes
 *                                      (include/spindle/sysfs.h)
 *   /sys/class/block/<name>            links to each disk's and partition's
 *   /sys/dev/block/<major>:<minor>     directory above (util-linux's way in)
 *   /sys/devices/system/cpu/online     the CPUs, as a list ("0-1"); also
 *   /sys/devices/system/cpu/possible   possible (glibc and blktrace count them)
 *   /sys/devices/system/node/          one NUMA node, as Linux on a machine
 *                                      without NUMA: online and possible
 *                                      "0", node0/cpulist every CPU (libnuma)
 *   /sys/kernel/debug/                 empty: where debugfs is mounted
 *
 * Only the directories are built here.  What each file says and what a
 * write to it does is the block layer's (block/blk-sysfs.c, through the
 * attribute groups of include/spindle/blkdev.h): a file here is a
 * pseudo_file (pseudo.c) whose show() and store() call the attribute's.
 *
 * Directories are looked up by name each time (a dm disk made later shows
 * up); every inode's i_private is the block_device of its disk or
 * partition directory.  /sys/block lists the disks, and a disk's directory
 * its partitions, in Linux's order (kernfs_name_hash below).
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/blkdev.h>
#include <spindle/string.h>
#include <spindle/mutex.h>
#include <spindle/sysfs.h>
#include <spindle/smp.h>
#include <spindle/errno.h>
#include "internal.h"

/* --- files: a block layer attribute each --------------------------------------- */

/*
 * Every file's inode holds the directory's block_device (i_private) and
 * its attribute (i_fop_arg): the blk_attr of a group, or for a tunable
 * of queue/iosched the tunable's name.
 */
static int attr_show(struct inode *inode, char *buf, size_t size)
{
	const struct blk_attr *a = inode->i_fop_arg;

	return a->show(inode->i_private, buf, size);
}

static int attr_store(struct inode *inode, const char *buf, size_t len)
{
	const struct blk_attr *a = inode->i_fop_arg;

	return a->store(inode->i_private, buf, len);
}

static size_t attr_size_hint(struct inode *inode)
{
	const struct blk_attr *a = inode->i_fop_arg;

	return a->size_hint;
}

/* a read-only attribute has no store(): a write fails at once with EACCES */
static const struct pseudo_file attr_ro = { .show = attr_show, .size_hint_of = attr_size_hint };
static const struct pseudo_file attr_rw = { .show = attr_show, .store = attr_store, .size_hint_of = attr_size_hint };

static int iosched_show(struct inode *inode, char *buf, size_t size)
{
	return blk_iosched_show(inode->i_private, inode->i_fop_arg, buf, size);
}

static int iosched_store(struct inode *inode, const char *buf, size_t len)
{
	return blk_iosched_store(inode->i_private, inode->i_fop_arg, buf, len);
}

static const struct pseudo_file attr_iosched = { .show = iosched_show, .store = iosched_store };

/* a file of mq/<n>: i_private is the hardware queue, i_fop_arg the name */
static int hctx_show(struct inode *inode, char *buf, size_t size)
{
	return blk_mq_hctx_show(inode->i_private, inode->i_fop_arg, buf, size);
}

static const struct pseudo_file attr_hctx = { .show = hctx_show };

/* --- directories ------------------------------------------------------------------ */

static const struct inode_operations disk_dir_iops, part_dir_iops, queue_dir_iops, iosched_dir_iops,
	mq_dir_iops, hctx_dir_iops, device_dir_iops;
static const struct file_operations disk_dir_fops, part_dir_fops, queue_dir_fops, iosched_dir_fops,
	mq_dir_fops, hctx_dir_fops, device_dir_fops;

/* Look name up in a group of attributes; its one directory gets subdir's ops. */
static struct dentry *group_lookup(struct inode *dir, struct dentry *dentry,
				   const struct blk_attr_group *g,
				   const struct inode_operations *subdir_iops,
				   const struct file_operations *subdir_fops)
{
	for (unsigned int i = 0; i < g->count; i++) {
		const struct blk_attr *a = &g->attrs[i];
		struct inode *inode;

		if (strcmp(dentry->d_name, a->name) != 0)
			continue;
		if (a->show)
			inode = pseudo_new_file(dir->i_sb, a->mode, a->store ? &attr_rw : &attr_ro,
						dir->i_private);
		else
			inode = pseudo_new_dir(dir->i_sb, subdir_iops, subdir_fops, dir->i_private);
		if (!inode)
			return ERR_PTR(-ENOMEM);
		if (a->show)
			inode->i_fop_arg = a;
		d_add(dentry, inode);
		return NULL;
	}
	return NULL;
}

/*
 * The order Linux's sysfs lists a directory in: kernfs keeps a
 * directory's entries sorted by this hash of their names (its
 * kernfs_name_hash(): the dcache's name hash folded to 31 bits), and a
 * readdir position is the hash.  So `ls -f /sys/block` says sdb, sdc,
 * sda -- and blkid(8), which probes in the order it reads /sys/block and
 * each disk's directory, prints its lines in that order.  Spindle lists
 * disks and partitions by the same hash, for the same output.
 */
static u32 kernfs_name_hash(const char *name)
{
	u64 hash = 0;

	for (; *name; name++)   /* partial_name_hash() */
		hash = (hash + ((u64)(unsigned char)*name << 4) + ((unsigned char)*name >> 4)) * 11;
	hash = (hash * 0x61c8864680b583ebull) >> 32;    /* end_name_hash(): hash_64(h, 32) */
	hash &= 0x7fffffff;
	if (hash < 2)           /* 0, 1 and INT_MAX are kernfs's "." "..", end */
		hash += 2;
	if (hash >= 0x7fffffff)
		hash = 0x7fffffff - 1;
	return (u32)hash;
}

static bool group_iterate(struct dir_context *ctx, const struct blk_attr_group *g, loff_t base)
{
	while (ctx->pos - base >= 0 && ctx->pos - base < (loff_t)g->count) {
		const struct blk_attr *a = &g->attrs[ctx->pos - base];

		if (!dir_emit(ctx, a->name, strlen(a->name), 100 + ctx->pos,
			      a->show ? DT_REG : DT_DIR))
			return false;
	}
	return true;
}

/* /sys/block/<disk>: the table, then one directory per partition. */
static struct dentry *disk_lookup(struct inode *dir, struct dentry *dentry)
{
	struct block_device *whole = dir->i_private;
	struct gendisk *disk = whole->bd_disk;

	for (int p = 1; p < DISK_MAX_PARTS; p++)
		if (disk->part[p] && strcmp(disk->part[p]->bd_name, dentry->d_name) == 0) {
			struct inode *inode = pseudo_new_dir(dir->i_sb, &part_dir_iops,
							     &part_dir_fops, disk->part[p]);
			if (!inode)
				return ERR_PTR(-ENOMEM);
			d_add(dentry, inode);
			return NULL;
		}
	if (strcmp(dentry->d_name, "device") == 0) {
		struct inode *inode;

		if (!disk->model[0])
			return NULL;
		inode = pseudo_new_dir(dir->i_sb, &device_dir_iops, &device_dir_fops, whole);
		if (!inode)
			return ERR_PTR(-ENOMEM);
		d_add(dentry, inode);
		return NULL;
	}
	/* the group's two directories: "mq", and "queue" */
	if (strcmp(dentry->d_name, "mq") == 0)
		return group_lookup(dir, dentry, &blk_disk_attr_group, &mq_dir_iops, &mq_dir_fops);
	return group_lookup(dir, dentry, &blk_disk_attr_group, &queue_dir_iops, &queue_dir_fops);
}

static int disk_iterate(struct file *f, struct dir_context *ctx)
{
	struct block_device *whole = f->f_inode->i_private;
	loff_t n = 2 + blk_disk_attr_group.count;

	if (!dir_emit_dots(f, ctx) || !group_iterate(ctx, &blk_disk_attr_group, 2))
		return 0;
	/* "device" at position n, if the disk has one */
	if (ctx->pos == n) {
		if (!whole->bd_disk->model[0])
			ctx->pos++;
		else if (!dir_emit(ctx, "device", 6, 499, DT_DIR))
			return 0;
	}
	n++;
	/* the partitions in kernfs's order: partition p sits at position
	 * n + its name's hash, whether or not the others exist (BLKRRPART
	 * between two calls shifts nothing) */
	for (;;) {
		struct block_device *b, *next = NULL;
		u32 next_hash = 0;

		for (int p = 1; p < DISK_MAX_PARTS; p++) {
			u32 h;

			b = whole->bd_disk->part[p];
			if (!b)
				continue;
			h = kernfs_name_hash(b->bd_name);
			if (n + h >= ctx->pos && (!next || h < next_hash)) {
				next = b;
				next_hash = h;
			}
		}
		if (!next)
			return 0;
		ctx->pos = n + next_hash;
		if (!dir_emit(ctx, next->bd_name, strlen(next->bd_name), 500 + next->bd_partno,
			      DT_DIR))
			return 0;
	}
}

static struct dentry *device_lookup(struct inode *dir, struct dentry *dentry)
{
	return group_lookup(dir, dentry, &blk_device_attr_group, NULL, NULL);
}

static int device_iterate(struct file *f, struct dir_context *ctx)
{
	if (dir_emit_dots(f, ctx))
		group_iterate(ctx, &blk_device_attr_group, 2);
	return 0;
}

static struct dentry *part_lookup(struct inode *dir, struct dentry *dentry)
{
	return group_lookup(dir, dentry, &blk_part_attr_group, NULL, NULL);
}

static int part_iterate(struct file *f, struct dir_context *ctx)
{
	if (dir_emit_dots(f, ctx))
		group_iterate(ctx, &blk_part_attr_group, 2);
	return 0;
}

static struct dentry *queue_lookup(struct inode *dir, struct dentry *dentry)
{
	return group_lookup(dir, dentry, &blk_queue_attr_group, &iosched_dir_iops,
			    &iosched_dir_fops);
}

static int queue_iterate(struct file *f, struct dir_context *ctx)
{
	if (dir_emit_dots(f, ctx))
		group_iterate(ctx, &blk_queue_attr_group, 2);
	return 0;
}

/* The current elevator's tunables, as block/ lists them. */
static struct dentry *iosched_lookup(struct inode *dir, struct dentry *dentry)
{
	const char *name;
	umode_t mode;

	for (unsigned int i = 0; (name = blk_iosched_attr(dir->i_private, i, &mode)); i++)
		if (strcmp(name, dentry->d_name) == 0) {
			struct inode *inode = pseudo_new_file(dir->i_sb, mode, &attr_iosched,
							      dir->i_private);
			if (!inode)
				return ERR_PTR(-ENOMEM);
			/* the tunable's name: a static string of the elevator */
			inode->i_fop_arg = name;
			d_add(dentry, inode);
			break;
		}
	return NULL;
}

static int iosched_iterate(struct file *f, struct dir_context *ctx)
{
	const char *name;
	umode_t mode;
	loff_t n = 2;

	if (!dir_emit_dots(f, ctx))
		return 0;
	for (unsigned int i = 0; (name = blk_iosched_attr(f->f_inode->i_private, i, &mode)); i++)
		if (n++ >= ctx->pos && !dir_emit(ctx, name, strlen(name), 300 + n, DT_REG))
			return 0;
	return 0;
}

/* mq/: one directory per hardware queue, named by its number */
static struct dentry *mq_lookup(struct inode *dir, struct dentry *dentry)
{
	struct blk_mq_hw_ctx *hctx;
	struct inode *inode;
	unsigned int n;

	if (kstrtouint(dentry->d_name, 10, &n))
		return NULL;
	hctx = blk_mq_sysfs_hctx(dir->i_private, n);
	if (!hctx)
		return NULL;
	inode = pseudo_new_dir(dir->i_sb, &hctx_dir_iops, &hctx_dir_fops, hctx);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	d_add(dentry, inode);
	return NULL;
}

static int mq_iterate(struct file *f, struct dir_context *ctx)
{
	char name[12];

	if (!dir_emit_dots(f, ctx))
		return 0;
	for (unsigned int n = ctx->pos - 2; blk_mq_sysfs_hctx(f->f_inode->i_private, n); n++) {
		int len = scnprintf(name, sizeof(name), "%u", n);

		if (!dir_emit(ctx, name, len, 700 + n, DT_DIR))
			return 0;
	}
	return 0;
}

static struct dentry *hctx_lookup(struct inode *dir, struct dentry *dentry)
{
	const char *name;

	for (unsigned int i = 0; (name = blk_mq_hctx_attr(i)); i++)
		if (strcmp(name, dentry->d_name) == 0) {
			struct inode *inode = pseudo_new_file(dir->i_sb, 0444, &attr_hctx,
							      dir->i_private);
			if (!inode)
				return ERR_PTR(-ENOMEM);
			inode->i_fop_arg = name;        /* a static string of block/ */
			d_add(dentry, inode);
			break;
		}
	return NULL;
}

static int hctx_iterate(struct file *f, struct dir_context *ctx)
{
	const char *name;

	if (!dir_emit_dots(f, ctx))
		return 0;
	for (unsigned int i = ctx->pos - 2; (name = blk_mq_hctx_attr(i)); i++)
		if (!dir_emit(ctx, name, strlen(name), 800 + i, DT_REG))
			return 0;
	return 0;
}

static const struct inode_operations disk_dir_iops = { .lookup = disk_lookup };
static const struct file_operations disk_dir_fops = { .iterate = disk_iterate };
static const struct inode_operations device_dir_iops = { .lookup = device_lookup };
static const struct file_operations device_dir_fops = { .iterate = device_iterate };
static const struct inode_operations part_dir_iops = { .lookup = part_lookup };
static const struct file_operations part_dir_fops = { .iterate = part_iterate };
static const struct inode_operations queue_dir_iops = { .lookup = queue_lookup };
static const struct file_operations queue_dir_fops = { .iterate = queue_iterate };
static const struct inode_operations iosched_dir_iops = { .lookup = iosched_lookup };
static const struct file_operations iosched_dir_fops = { .iterate = iosched_iterate };
static const struct inode_operations mq_dir_iops = { .lookup = mq_lookup };
static const struct file_operations mq_dir_fops = { .iterate = mq_iterate };
static const struct inode_operations hctx_dir_iops = { .lookup = hctx_lookup };
static const struct file_operations hctx_dir_fops = { .iterate = hctx_iterate };

/* /sys/block: every registered disk (whole disks only). */
static struct dentry *block_lookup(struct inode *dir, struct dentry *dentry)
{
	struct block_device *b = strchr(dentry->d_name, ':') ? NULL : lookup_bdev(dentry->d_name);

	if (b && b->bd_partno == 0) {
		struct inode *inode = pseudo_new_dir(dir->i_sb, &disk_dir_iops, &disk_dir_fops, b);

		if (!inode)
			return ERR_PTR(-ENOMEM);
		d_add(dentry, inode);
	}
	return NULL;
}

/* The registered disk whose name has the smallest hash >= from. */
static struct gendisk *next_disk(loff_t from)
{
	struct gendisk *disk, *best = NULL;
	u32 best_hash = 0;

	list_for_each_entry(disk, &disk_list, list) {
		u32 h = kernfs_name_hash(disk->disk_name);

		if (disk->part[0] && h >= from && (!best || h < best_hash)) {
			best = disk;
			best_hash = h;
		}
	}
	return best;
}

/* One directory per disk, in kernfs's order: a disk's position is 2 +
 * its name's hash, so a disk that goes away between two calls shifts
 * nothing. */
static int block_iterate(struct file *f, struct dir_context *ctx)
{
	struct gendisk *disk;
	bool more = true;

	if (!dir_emit_dots(f, ctx))
		return 0;
	mutex_lock(&disk_list_lock);
	while (more && (disk = next_disk(ctx->pos - 2))) {
		ctx->pos = 2 + kernfs_name_hash(disk->disk_name);
		more = dir_emit(ctx, disk->disk_name, strlen(disk->disk_name),
				200 + disk->part[0]->bd_dev, DT_DIR);
	}
	mutex_unlock(&disk_list_lock);
	return 0;
}

static const struct inode_operations block_dir_iops = { .lookup = block_lookup };
static const struct file_operations block_dir_fops = { .iterate = block_iterate };

/* --- /sys/class/block and /sys/dev/block: links to the directories above ------- */

/*
 * Linux lists every disk and partition twice more, as symbolic links:
 * /sys/class/block/<name> and /sys/dev/block/<major>:<minor>, both to
 * the device's directory.  util-linux (lsblk, blkid) starts from them.
 * Linux's target is under /sys/devices; Spindle's is the directory of
 * /sys/block, and the link is relative as Linux's ("../../block/sda/sda1").
 * A link's inode holds the device number; its text is made when read,
 * so a disk that went away makes it dangle (ENOENT).
 */

/* The disk or partition numbered dev, or with the smallest number above
 * it when !exact; disk_list_lock held. */
static struct block_device *bdev_at(dev_t dev, bool exact)
{
	struct block_device *best = NULL;
	struct gendisk *disk;

	list_for_each_entry(disk, &disk_list, list)
		for (int p = 0; p < DISK_MAX_PARTS; p++) {
			struct block_device *b = disk->part[p];

			if (!b || (exact ? b->bd_dev != dev : b->bd_dev < dev))
				continue;
			if (!best || b->bd_dev < best->bd_dev)
				best = b;
		}
	return best;
}

static int blockdev_link_get(struct inode *inode, char *buf, int size)
{
	struct block_device *b;
	int len = -ENOENT;

	mutex_lock(&disk_list_lock);
	b = bdev_at((dev_t)(unsigned long)inode->i_private, true);
	if (b && b->bd_partno)
		len = scnprintf(buf, size, "../../block/%s/%s", b->bd_disk->disk_name, b->bd_name);
	else if (b)
		len = scnprintf(buf, size, "../../block/%s", b->bd_name);
	mutex_unlock(&disk_list_lock);
	return len;
}

static const struct inode_operations blockdev_link_iops = { .get_link = blockdev_link_get };

/* The name of b in dir: "sda1" in /sys/class/block, "8:1" in /sys/dev/block */
static int blockdev_link_name(struct block_device *b, bool by_dev, char *name, size_t size)
{
	if (by_dev)
		return scnprintf(name, size, "%u:%u", MAJOR(b->bd_dev), MINOR(b->bd_dev));
	return scnprintf(name, size, "%s", b->bd_name);
}

/* i_private of the directory: non-NULL for /sys/dev/block */
static struct dentry *blockdev_links_lookup(struct inode *dir, struct dentry *dentry)
{
	bool by_dev = dir->i_private != NULL;
	struct block_device *found = NULL;
	struct gendisk *disk;
	struct inode *inode;
	dev_t dev = 0;

	mutex_lock(&disk_list_lock);
	list_for_each_entry(disk, &disk_list, list)
		for (int p = 0; p < DISK_MAX_PARTS; p++) {
			struct block_device *b = disk->part[p];
			char name[32];

			if (!b)
				continue;
			blockdev_link_name(b, by_dev, name, sizeof(name));
			if (strcmp(name, dentry->d_name) == 0)
				found = b;
		}
	if (found)
		dev = found->bd_dev;
	mutex_unlock(&disk_list_lock);
	if (!found)
		return NULL;
	inode = new_inode(dir->i_sb);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	inode->i_mode = S_IFLNK | 0777;
	inode->i_op = &blockdev_link_iops;
	inode->i_private = (void *)(unsigned long)dev;
	d_add(dentry, inode);
	/* the number may name another device later: look it up each time */
	d_delete(dentry);
	return NULL;
}

/* Every disk and partition by device number, at position 2 + dev_t. */
static int blockdev_links_iterate(struct file *f, struct dir_context *ctx)
{
	bool by_dev = f->f_inode->i_private != NULL;
	struct block_device *b;
	bool more = true;

	if (!dir_emit_dots(f, ctx))
		return 0;
	mutex_lock(&disk_list_lock);
	while (more && ctx->pos - 2 < (loff_t)1 << 32 &&
	       (b = bdev_at((dev_t)(ctx->pos - 2), false))) {
		char name[32];
		int len = blockdev_link_name(b, by_dev, name, sizeof(name));

		ctx->pos = 2 + b->bd_dev;
		more = dir_emit(ctx, name, len, 600 + b->bd_dev, DT_LNK);
	}
	mutex_unlock(&disk_list_lock);
	return 0;
}

static const struct inode_operations blockdev_links_iops = { .lookup = blockdev_links_lookup };
static const struct file_operations blockdev_links_fops = { .iterate = blockdev_links_iterate };

/* /sys/dev: its one directory, "block" (Linux has "char" too) */
static struct dentry *sysfs_dev_lookup(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode;

	if (strcmp(dentry->d_name, "block") != 0)
		return NULL;
	inode = pseudo_new_dir(dir->i_sb, &blockdev_links_iops, &blockdev_links_fops,
			       (void *)1);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	d_add(dentry, inode);
	return NULL;
}

static int sysfs_dev_iterate(struct file *f, struct dir_context *ctx)
{
	if (dir_emit_dots(f, ctx) && ctx->pos == 2)
		dir_emit(ctx, "block", 5, 5, DT_DIR);
	return 0;
}

static const struct inode_operations sysfs_dev_iops = { .lookup = sysfs_dev_lookup };
static const struct file_operations sysfs_dev_fops = { .iterate = sysfs_dev_iterate };

/* --- /sys/class: the class devices drivers registered ------------------------ */

/* Registered class devices, never removed; class_lock (a leaf) guards the list. */
static LIST_HEAD(class_devices);
static DEFINE_MUTEX(class_lock);

int class_device_register(struct class_device *dev)
{
	struct class_device *d;

	mutex_lock(&class_lock);
	list_for_each_entry(d, &class_devices, list)
		if (strcmp(d->class_name, dev->class_name) == 0 && strcmp(d->name, dev->name) == 0) {
			mutex_unlock(&class_lock);
			return -EEXIST;
		}
	list_add_tail(&dev->list, &class_devices);
	mutex_unlock(&class_lock);
	return 0;
}

/* The i-th registered device whose class is cls (NULL: of any class
 * first seen at i: one entry per class name).  class_lock held. */
static struct class_device *class_nth(const char *cls, loff_t i)
{
	struct class_device *d, *e;

	list_for_each_entry(d, &class_devices, list) {
		if (cls && strcmp(d->class_name, cls) != 0)
			continue;
		if (!cls) {
			bool seen = false;

			list_for_each_entry(e, &class_devices, list) {
				if (e == d)
					break;
				seen |= strcmp(e->class_name, d->class_name) == 0;
			}
			if (seen)
				continue;
		}
		if (i-- == 0)
			return d;
	}
	return NULL;
}

/* A file of /sys/class/<class>/<device>: i_private the device, i_fop_arg the attr. */
static int class_attr_show(struct inode *inode, char *buf, size_t size)
{
	const struct class_attr *a = inode->i_fop_arg;
	const struct class_device *dev = inode->i_private;

	return a->show(dev->drvdata, buf, size);
}

static const struct pseudo_file class_attr_ro = { .show = class_attr_show };

static struct dentry *class_dev_lookup(struct inode *dir, struct dentry *dentry)
{
	struct class_device *dev = dir->i_private;

	for (unsigned int i = 0; i < dev->nr_attrs; i++) {
		struct inode *inode;

		if (strcmp(dentry->d_name, dev->attrs[i].name) != 0)
			continue;
		inode = pseudo_new_file(dir->i_sb, 0444, &class_attr_ro, dev);
		if (!inode)
			return ERR_PTR(-ENOMEM);
		inode->i_fop_arg = &dev->attrs[i];
		d_add(dentry, inode);
		return NULL;
	}
	return NULL;
}

static int class_dev_iterate(struct file *f, struct dir_context *ctx)
{
	struct class_device *dev = f->f_inode->i_private;

	if (!dir_emit_dots(f, ctx))
		return 0;
	while (ctx->pos - 2 < (loff_t)dev->nr_attrs) {
		const char *name = dev->attrs[ctx->pos - 2].name;

		if (!dir_emit(ctx, name, strlen(name), 100 + ctx->pos, DT_REG))
			break;
	}
	return 0;
}

static const struct inode_operations class_dev_iops = { .lookup = class_dev_lookup };
static const struct file_operations class_dev_fops = { .iterate = class_dev_iterate };

/* /sys/class/<class>: i_private is the class name (a registered device's). */
static struct dentry *class_lookup(struct inode *dir, struct dentry *dentry)
{
	const char *cls = dir->i_private;
	struct class_device *d, *found = NULL;
	struct inode *inode;

	mutex_lock(&class_lock);
	list_for_each_entry(d, &class_devices, list)
		if (strcmp(d->class_name, cls) == 0 && strcmp(d->name, dentry->d_name) == 0)
			found = d;
	mutex_unlock(&class_lock);
	if (!found)
		return NULL;
	inode = pseudo_new_dir(dir->i_sb, &class_dev_iops, &class_dev_fops, found);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	d_add(dentry, inode);
	return NULL;
}

/* Devices in the order they registered: entry 2 + i is the i-th. */
static int class_iterate(struct file *f, struct dir_context *ctx)
{
	const char *cls = f->f_inode->i_private;
	struct class_device *d;

	if (!dir_emit_dots(f, ctx))
		return 0;
	mutex_lock(&class_lock);
	while ((d = class_nth(cls, ctx->pos - 2)) != NULL)
		if (!dir_emit(ctx, d->name, strlen(d->name), 300 + ctx->pos, DT_DIR))
			break;
	mutex_unlock(&class_lock);
	return 0;
}

static const struct inode_operations class_dir_iops = { .lookup = class_lookup };
static const struct file_operations class_dir_fops = { .iterate = class_iterate };

/* /sys/class: one directory per class name a device registered with. */
static struct dentry *classes_lookup(struct inode *dir, struct dentry *dentry)
{
	struct class_device *d;
	const char *cls = NULL;
	struct inode *inode;

	if (strcmp(dentry->d_name, "block") == 0) {
		inode = pseudo_new_dir(dir->i_sb, &blockdev_links_iops, &blockdev_links_fops, NULL);
		if (!inode)
			return ERR_PTR(-ENOMEM);
		d_add(dentry, inode);
		return NULL;
	}
	mutex_lock(&class_lock);
	list_for_each_entry(d, &class_devices, list)
		if (strcmp(d->class_name, dentry->d_name) == 0)
			cls = d->class_name;
	mutex_unlock(&class_lock);
	if (!cls)
		return NULL;
	inode = pseudo_new_dir(dir->i_sb, &class_dir_iops, &class_dir_fops, (void *)cls);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	d_add(dentry, inode);
	return NULL;
}

/* "block", then the registered classes from position 3 */
static int classes_iterate(struct file *f, struct dir_context *ctx)
{
	struct class_device *d;

	if (!dir_emit_dots(f, ctx))
		return 0;
	if (ctx->pos == 2 && !dir_emit(ctx, "block", 5, 399, DT_DIR))
		return 0;
	mutex_lock(&class_lock);
	while ((d = class_nth(NULL, ctx->pos - 3)) != NULL)
		if (!dir_emit(ctx, d->class_name, strlen(d->class_name), 400 + ctx->pos, DT_DIR))
			break;
	mutex_unlock(&class_lock);
	return 0;
}

static const struct inode_operations classes_dir_iops = { .lookup = classes_lookup };
static const struct file_operations classes_dir_fops = { .iterate = classes_iterate };

/* --- devices/system/cpu and kernel/debug ---------------------------------------- */

/* "0\n" or "0-<n-1>\n": every CPU is online (none is ever taken down) */
static int cpu_list_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	if (nr_cpu_ids == 1)
		return scnprintf(buf, size, "0\n");
	return scnprintf(buf, size, "0-%u\n", nr_cpu_ids - 1);
}

static const struct pseudo_file cpu_list_ro = { .show = cpu_list_show };

/* the one node's number, for node/online and node/possible */
static int node_list_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	return scnprintf(buf, size, "0\n");
}

static const struct pseudo_file node_list_ro = { .show = node_list_show };

static const char *const cpu_files[] = { "online", "possible", NULL };
/* node/: the directory node0, then two files */
static const char *const node_names[] = { "node0", "online", "possible", NULL };
static const char *const node0_files[] = { "cpulist", NULL };
static const char *const system_dirs[] = { "cpu", "node", NULL };
static const char *const devices_dirs[] = { "system", NULL };
static const char *const kernel_dirs[] = { "debug", NULL };

/* A fixed directory: i_private is its NULL-ended list of names, and
 * fixed_child() says what each is. */
static const struct inode_operations fixed_dir_iops;
static const struct file_operations fixed_dir_fops;

static struct dentry *fixed_lookup(struct inode *dir, struct dentry *dentry)
{
	const char *const *names = dir->i_private;
	struct inode *inode;

	for (; *names; names++)
		if (strcmp(*names, dentry->d_name) == 0)
			break;
	if (!*names)
		return NULL;
	if (names == cpu_files || names == cpu_files + 1 || names == node0_files)
		inode = pseudo_new_file(dir->i_sb, 0444, &cpu_list_ro, NULL);
	else if (names == node_names + 1 || names == node_names + 2)
		inode = pseudo_new_file(dir->i_sb, 0444, &node_list_ro, NULL);
	else if (names == node_names)
		inode = pseudo_new_dir(dir->i_sb, &fixed_dir_iops, &fixed_dir_fops, (void *)node0_files);
	else if (names == system_dirs)
		inode = pseudo_new_dir(dir->i_sb, &fixed_dir_iops, &fixed_dir_fops, (void *)cpu_files);
	else if (names == system_dirs + 1)
		inode = pseudo_new_dir(dir->i_sb, &fixed_dir_iops, &fixed_dir_fops, (void *)node_names);
	else if (names == devices_dirs)
		inode = pseudo_new_dir(dir->i_sb, &fixed_dir_iops, &fixed_dir_fops, (void *)system_dirs);
	else            /* kernel/debug: empty */
		inode = pseudo_new_dir(dir->i_sb, &fixed_dir_iops, &fixed_dir_fops, (void *)(kernel_dirs + 1));
	if (!inode)
		return ERR_PTR(-ENOMEM);
	d_add(dentry, inode);
	return NULL;
}

static int fixed_iterate(struct file *f, struct dir_context *ctx)
{
	const char *const *names = f->f_inode->i_private;

	if (!dir_emit_dots(f, ctx))
		return 0;
	for (loff_t i = 0; names[i]; i++) {
		if (ctx->pos != i + 2)
			continue;
		if (!dir_emit(ctx, names[i], strlen(names[i]), 600 + ctx->pos,
			      names == cpu_files || names == node0_files ||
			      (names == node_names && i > 0) ? DT_REG : DT_DIR))
			return 0;
	}
	return 0;
}

static const struct inode_operations fixed_dir_iops = { .lookup = fixed_lookup };
static const struct file_operations fixed_dir_fops = { .iterate = fixed_iterate };

/* --- the root ------------------------------------------------------------------ */

static struct dentry *sysfs_root_lookup(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode;

	if (strcmp(dentry->d_name, "block") == 0)
		inode = pseudo_new_dir(dir->i_sb, &block_dir_iops, &block_dir_fops, NULL);
	else if (strcmp(dentry->d_name, "class") == 0)
		inode = pseudo_new_dir(dir->i_sb, &classes_dir_iops, &classes_dir_fops, NULL);
	else if (strcmp(dentry->d_name, "dev") == 0)
		inode = pseudo_new_dir(dir->i_sb, &sysfs_dev_iops, &sysfs_dev_fops, NULL);
	else if (strcmp(dentry->d_name, "devices") == 0)
		inode = pseudo_new_dir(dir->i_sb, &fixed_dir_iops, &fixed_dir_fops, (void *)devices_dirs);
	else if (strcmp(dentry->d_name, "kernel") == 0)
		inode = pseudo_new_dir(dir->i_sb, &fixed_dir_iops, &fixed_dir_fops, (void *)kernel_dirs);
	else
		return NULL;
	if (!inode)
		return ERR_PTR(-ENOMEM);
	d_add(dentry, inode);
	return NULL;
}

static int sysfs_root_iterate(struct file *f, struct dir_context *ctx)
{
	if (!dir_emit_dots(f, ctx))
		return 0;
	if (ctx->pos == 2 && !dir_emit(ctx, "block", 5, 3, DT_DIR))
		return 0;
	if (ctx->pos == 3 && !dir_emit(ctx, "class", 5, 4, DT_DIR))
		return 0;
	if (ctx->pos == 4 && !dir_emit(ctx, "dev", 3, 5, DT_DIR))
		return 0;
	if (ctx->pos == 5 && !dir_emit(ctx, "devices", 7, 6, DT_DIR))
		return 0;
	if (ctx->pos == 6)
		dir_emit(ctx, "kernel", 6, 7, DT_DIR);
	return 0;
}

static const struct inode_operations sysfs_root_iops = { .lookup = sysfs_root_lookup };
static const struct file_operations sysfs_root_fops = { .iterate = sysfs_root_iterate };

static int sysfs_fill_super(struct super_block *sb)
{
	sb->s_magic = SYSFS_MAGIC;
	sb->s_flags |= SB_I_NOEXEC;    /* generated text is never a program */
	sb->s_root = d_make_root(pseudo_new_dir(sb, &sysfs_root_iops, &sysfs_root_fops, NULL));
	return sb->s_root ? 0 : -ENOMEM;
}

static struct dentry *sysfs_mount(struct file_system_type *type, int flags,
				  const char *dev_name, void *data)
{
	(void)flags; (void)dev_name; (void)data;
	return mount_single(type, sysfs_fill_super);
}

static struct file_system_type sysfs_fs_type = {
	.name = "sysfs", .mount = sysfs_mount,
};

int init_sysfs(void)
{
	return register_filesystem(&sysfs_fs_type);
}
