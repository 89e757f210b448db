// SPDX-License-Identifier: MIT
/*
 * stat.c - stat(2), fstat(2): an inode described in Linux's struct stat;
 * statfs(2), fstatfs(2): the file system it lives in, in struct statfs.
 */
#include <spindle/fs.h>
#include <spindle/blkdev.h>
#include <spindle/string.h>
#include <spindle/uaccess.h>
#include <spindle/mm.h>
#include "internal.h"

#define STAT_BLKSIZE    4096    /* st_blksize: "the best I/O size": a page */

int vfs_getattr(struct inode *inode, struct stat *st)
{
	dev_t sdev = inode->i_sb ? inode->i_sb->s_dev : 0;

	memset(st, 0, sizeof(*st));
	st->st_dev = new_encode_dev(MAJOR(sdev), MINOR(sdev));
	st->st_ino = inode->i_ino;
	st->st_nlink = inode->i_nlink;
	st->st_mode = inode->i_mode;
	st->st_uid = inode->i_uid;
	st->st_gid = inode->i_gid;
	if (S_ISCHR(inode->i_mode) || S_ISBLK(inode->i_mode))
		st->st_rdev = new_encode_dev(MAJOR(inode->i_rdev), MINOR(inode->i_rdev));
	/* a device node's size is 0 in stat, as Linux (BLKGETSIZE64 tells) */
	st->st_size = inode->i_size;
	st->st_blksize = STAT_BLKSIZE;
	/* what the file holds, as Linux: a hole costs nothing, and a device
	 * node or a generated file holds no blocks at all */
	st->st_blocks = inode->i_blocks;
	st->st_atime = st->st_mtime = st->st_ctime = inode->i_mtime_ns / 1000000000ull;
	st->st_atime_nsec = st->st_mtime_nsec = st->st_ctime_nsec =
		inode->i_mtime_ns % 1000000000ull;
	if (inode->i_op && inode->i_op->getattr)
		return inode->i_op->getattr(inode, st);
	return 0;
}

static long stat_at(const char *name, unsigned int flags, struct stat *st)
{
	struct path p;
	int err = kern_path(name, flags, &p);

	if (err)
		return err;
	err = vfs_getattr(p.dentry->d_inode, st);
	path_put(&p);
	return err;
}

long ksys_stat(const char *name, struct stat *st)
{
	return stat_at(name, 0, st);
}

long ksys_lstat(const char *name, struct stat *st)
{
	return stat_at(name, LOOKUP_NOFOLLOW, st);
}

long ksys_readlinkat(int dfd, const char *name, char *buf, int size)
{
	struct inode *inode;
	struct path p;
	char *target;
	int len;
	int err = kern_path_at(dfd, name, LOOKUP_NOFOLLOW, &p);

	if (err)
		return err;
	inode = p.dentry->d_inode;
	target = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!target)
		len = -ENOMEM;
	else if (!S_ISLNK(inode->i_mode) || !inode->i_op || !inode->i_op->get_link)
		len = -EINVAL;
	else
		len = inode->i_op->get_link(inode, target, PATH_MAX);
	if (len > 0) {
		len = min(len, size);
		memcpy(buf, target, len);
	}
	kfree(target);
	path_put(&p);
	return len;
}

long ksys_fstat(unsigned int fd, struct stat *st)
{
	struct file *f = fget(fd);
	int err;

	if (!f)
		return -EBADF;
	err = vfs_getattr(f->f_inode, st);
	fput(f);
	return err;
}

long sys_fstat(unsigned int fd, struct stat __user *statbuf)
{
	struct stat st;
	long err = ksys_fstat(fd, &st);

	if (!err && copy_to_user(statbuf, &st, sizeof(st)))
		err = -EFAULT;
	return err;
}

/*
 * Linux's vfs_statfs: what every file system shares (its magic, the page
 * as block size, NAME_MAX, ST_VALID), then the file system's own figures
 * -- tmpfs's size= and what is used of it; none for the generated ones,
 * as Linux's simple_statfs.
 */
static void statfs_common(struct statfs *buf, unsigned long magic)
{
	memset(buf, 0, sizeof(*buf));
	buf->f_type = magic;
	buf->f_bsize = buf->f_frsize = PAGE_SIZE;
	buf->f_namelen = NAME_MAX;
	buf->f_flags = ST_VALID;
}

int vfs_statfs(struct super_block *sb, struct statfs *buf)
{
	statfs_common(buf, sb->s_magic);
	if (sb_rdonly(sb))
		buf->f_flags |= ST_RDONLY;
	if (sb->s_op && sb->s_op->statfs)
		sb->s_op->statfs(sb, buf);
	return 0;
}

long ksys_statfs(const char *name, struct statfs *buf)
{
	struct path p;
	int err = kern_path(name, 0, &p);

	if (err)
		return err;
	err = vfs_statfs(p.dentry->d_sb, buf);
	path_put(&p);
	return err;
}

long ksys_fstatfs(unsigned int fd, struct statfs *buf)
{
	struct file *f = fget(fd);
	int err;

	if (!f)
		return -EBADF;
	err = 0;
	if (f->f_inode->i_sb)
		err = vfs_statfs(f->f_inode->i_sb, buf);
	else    /* a pipe: Linux answers for its internal pipefs */
		statfs_common(buf, PIPEFS_MAGIC);
	fput(f);
	return err;
}

long sys_fstatfs(unsigned int fd, struct statfs __user *ubuf)
{
	struct statfs buf;
	long err = ksys_fstatfs(fd, &buf);

	if (!err && copy_to_user(ubuf, &buf, sizeof(buf)))
		err = -EFAULT;
	return err;
}
