// SPDX-License-Identifier: MIT
/*
 * inode.c - inodes: one per file, whatever its type.
 *
 * A file system makes an inode with new_inode(), sets its mode, size and
 * operations, and hangs it on a dentry.  The inode lives as long as
 * something references it (i_count: dentries and, through them, open
 * files); the last iput() calls the file system's evict_inode() to free
 * the data (ramfs: its pages) and frees the inode.  So an unlinked file
 * that is still open keeps its data until the last close, as in Unix.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/time.h>
#include <spindle/printk.h>
#include <spindle/pagemap.h>
#include "internal.h"

static DEFINE_SPINLOCK(inode_lock);     /* i_count of every inode */

/*
 * File times are wall-clock times, as Linux's current_time(): ext2's
 * i_dtime in particular, where e2fsck reads a value below the inode count
 * as a link of the orphan list once the superblock's times look real
 * (after any Linux mount), and reports every inode deleted here.
 */
u64 fs_now_ns(void)
{
	return ktime_get_real_ns();
}

/* The fields every in-memory inode starts with, one link and one
 * reference (Linux's inode_init_always()); inode comes zeroed. */
void inode_init_always(struct inode *inode)
{
	inode->i_nlink = 1;
	inode->i_count = 1;
	inode->i_mtime_ns = fs_now_ns();
	mutex_init(&inode->i_mutex);
	inode->i_mapping = &inode->i_data;
	inode->i_data.host = inode;
	inode->i_data.i_blkbits = PAGE_SHIFT;
	INIT_LIST_HEAD(&inode->i_data.i_pages);
	INIT_LIST_HEAD(&inode->i_data.i_wb_list);
	INIT_LIST_HEAD(&inode->i_data.i_mmap);
}

struct inode *new_inode(struct super_block *sb)
{
	struct inode *inode = kzalloc(sizeof(*inode), GFP_KERNEL);

	if (!inode)
		return NULL;
	inode_init_always(inode);
	inode->i_sb = sb;
	inode->i_ino = ++sb->s_next_ino;
	return inode;
}

/* Another reference to inode, or NULL if its last one is being dropped
 * (the flusher must not revive an inode iput() is freeing). */
struct inode *igrab(struct inode *inode)
{
	spin_lock(&inode_lock);
	if (inode->i_count > 0)
		inode->i_count++;
	else
		inode = NULL;
	spin_unlock(&inode_lock);
	return inode;
}

void mark_inode_dirty(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;

	if (sb && sb->s_op && sb->s_op->dirty_inode)
		sb->s_op->dirty_inode(inode);
}

void iput(struct inode *inode)
{
	int left;

	if (!inode)
		return;
	spin_lock(&inode_lock);
	left = --inode->i_count;
	spin_unlock(&inode_lock);
	if (left < 0)
		panic("iput: inode %lu count %d", inode->i_ino, left);
	if (left)
		return;
	if (inode->i_sb && inode->i_sb->s_op && inode->i_sb->s_op->evict_inode)
		inode->i_sb->s_op->evict_inode(inode);
	/* its cached pages go with it (a file system that wants them on the
	 * disk wrote them back in evict_inode) */
	if (inode->i_data.nrpages)
		truncate_inode_pages(&inode->i_data, 0);
	/* the last close frees a FIFO's buffer; whatever file system the
	 * FIFO lived in, none may outlive its inode */
	if (inode->i_pipe)
		free_pipe_info(inode->i_pipe);
	kfree(inode);
}

/*
 * Opening a device node or a FIFO does not depend on the file system it
 * is found in (ramfs from the initramfs, devtmpfs): the inode only says
 * "character device 1:3" and the VFS picks the driver by number.
 */
static int chrdev_open(struct inode *inode, struct file *f)
{
	const struct file_operations *fops = chrdev_fops(inode->i_rdev);

	if (!fops)
		return -ENXIO;
	f->f_op = fops;
	if (fops->llseek)
		f->f_mode |= FMODE_LSEEK;
	return fops->open ? fops->open(inode, f) : 0;
}

static const struct file_operations def_chr_fops = {
	.open = chrdev_open,
};

static const struct file_operations def_fifo_fops = {
	.open = fifo_open,
};

static const struct file_operations def_blk_open_fops = {
	.open = blkdev_open_inode,
};

void init_special_inode(struct inode *inode, umode_t mode, dev_t rdev)
{
	inode->i_mode = mode;
	if (S_ISCHR(mode)) {
		inode->i_fop = &def_chr_fops;
		inode->i_rdev = rdev;
	} else if (S_ISBLK(mode)) {
		inode->i_fop = &def_blk_open_fops;
		inode->i_rdev = rdev;
	} else if (S_ISFIFO(mode)) {
		inode->i_fop = &def_fifo_fops;
	} else {
		pr_warn("init_special_inode: bogus mode %o for inode %lu\n",
			mode, inode->i_ino);
	}
}
