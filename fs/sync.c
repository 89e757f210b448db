// SPDX-License-Identifier: MIT
/*
 * sync.c - sync(2), syncfs(2), fsync(2), fdatasync(2).
 *
 * Each waits for the write-back of the dirty pages it covers and then
 * has the disk's volatile cache flushed (an empty REQ_PREFLUSH write),
 * so that what it promises survives a power cut:
 *   sync      every dirty page of every device and file, then a flush
 *             of every block device (fs/block_dev.c), then every
 *             read-write file system's sync_fs (fs/namespace.c)
 *   syncfs    the dirty pages of the file system fd is on, then a flush
 *             of the disks they were written to, then the file
 *             system's own metadata (its sync_fs: ext2's superblock and
 *             the device pages it keeps); its error, as Linux reports
 *             it since 5.8
 *   fsync     the file's pages (the file's fsync: block devices flush
 *             after); the first write-back error since this fd last
 *             asked, each error once per fd (errseq.h)
 * ramfs *is* memory: its fsync has nothing to do.
 */
#include <spindle/fs.h>
#include <spindle/writeback.h>
#include "internal.h"

void ksys_sync(void)
{
	sync_blockdevs();
	/* then each file system's own (ext3: a journal commit, without which
	 * its last changes are in memory only) */
	sync_filesystems();
}

long sys_sync(void)
{
	ksys_sync();
	return 0;
}

long ksys_syncfs(unsigned int fd)
{
	struct file *f = fget(fd);
	long ret;

	if (!f)
		return -EBADF;
	ret = f->f_inode ? writeback_and_wait_all(f->f_inode->i_sb) : 0;
	if (f->f_inode && f->f_inode->i_sb && f->f_inode->i_sb->s_op &&
	    f->f_inode->i_sb->s_op->sync_fs) {
		long e = f->f_inode->i_sb->s_op->sync_fs(f->f_inode->i_sb, 1);

		ret = ret ?: e;
	}
	fput(f);
	return ret;
}

long sys_syncfs(int fd)
{
	return ksys_syncfs((unsigned int)fd);
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
