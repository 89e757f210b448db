// SPDX-License-Identifier: MIT
/*
 * sync.c - sync(2), fsync(2), fdatasync(2).
 *
 * Only block-device files have a cache to write back (fs/block_dev.c);
 * ramfs *is* memory, so its fsync has nothing to do.  sync() writes back
 * every block device's dirty pages and sends each a cache flush.
 */
#include <spindle/fs.h>
#include "internal.h"

void ksys_sync(void)
{
	sync_blockdevs();
}

long sys_sync(void)
{
	ksys_sync();
	return 0;
}

int vfs_fsync(struct file *f, int datasync)
{
	/* ramfs files and directories live in memory: nothing to write, as
	 * Linux's noop_fsync (so "fsync the directory" works in scripts) */
	if (f->f_inode && (S_ISDIR(f->f_inode->i_mode) || S_ISREG(f->f_inode->i_mode)) &&
	    (!f->f_op || !f->f_op->fsync))
		return 0;
	if (!f->f_op || !f->f_op->fsync)
		return -EINVAL;                 /* a pipe or a tty, as Linux */
	return f->f_op->fsync(f, datasync);
}

long ksys_fsync(unsigned int fd, int datasync)
{
	struct file *f = fget(fd);
	long ret;

	if (!f)
		return -EBADF;
	ret = vfs_fsync(f, datasync);
	fput(f);
	return ret;
}

long sys_fsync(unsigned int fd) { return ksys_fsync(fd, 0); }
long sys_fdatasync(unsigned int fd) { return ksys_fsync(fd, 1); }
