// SPDX-License-Identifier: MIT
/*
 * stat.c - stat(2), fstat(2): an inode described in Linux's struct stat;
 * statfs(2), fstatfs(2): the file system it lives in, in struct statfs;
 * lstat, newfstatat (glibc's fstatat and fstat), statx and readlink(at).
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

/* --- the system calls: copy the name in (namei.c's getname), then the work above */

long sys_stat(const char __user *filename, struct stat __user *statbuf)
{
	struct stat st;
	long err = WITH_NAME(filename, kname, ksys_stat(kname, &st));

	if (!err && copy_to_user(statbuf, &st, sizeof(st)))
		err = -EFAULT;
	return err;
}

long sys_statfs(const char __user *pathname, struct statfs __user *ubuf)
{
	struct statfs buf;
	long err = WITH_NAME(pathname, kname, ksys_statfs(kname, &buf));

	if (!err && copy_to_user(ubuf, &buf, sizeof(buf)))
		err = -EFAULT;
	return err;
}

/* lstat: a symbolic link itself, not what it points at. */
long sys_lstat(const char __user *filename, struct stat __user *statbuf)
{
	struct stat st;
	long err = WITH_NAME(filename, kname, ksys_lstat(kname, &st));

	if (!err && copy_to_user(statbuf, &st, sizeof(st)))
		err = -EFAULT;
	return err;
}

/*
 * readlink(2), readlinkat(2): the target, not NUL-terminated, cut to
 * bufsiz (Linux's answers: EINVAL for bufsiz <= 0 or a name that is not
 * a link).
 */
long sys_readlinkat(int dfd, const char __user *pathname, char __user *buf, int bufsiz)
{
	char *k;
	long n;

	if (bufsiz <= 0)
		return -EINVAL;
	k = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!k)
		return -ENOMEM;
	n = WITH_NAME(pathname, kname, ksys_readlinkat(dfd, kname, k, min(bufsiz, PATH_MAX)));
	if (n > 0 && copy_to_user(buf, k, n))
		n = -EFAULT;
	kfree(k);
	return n;
}

/* --- the *at() calls of the C library: a path relative to a directory fd -- */

static int path_getattr(int dfd, const char *name, unsigned int lookup_flags, struct stat *st)
{
	struct path p;
	int err = kern_path_at(dfd, name, lookup_flags, &p);

	if (err)
		return err;
	err = vfs_getattr(p.dentry->d_inode, st);
	path_put(&p);
	return err;
}

/* Is the user's path the empty string?  (AT_EMPTY_PATH: then dfd itself
 * is the file -- how glibc's fstat() is made: newfstatat(fd, "", ...).) */
int empty_path(const char __user *filename)
{
	char c;

	if (copy_from_user(&c, filename, 1))
		return -EFAULT;
	return c == '\0';
}

/* the attributes of dfd/filename, or of dfd itself for an empty path */
static long getattr_at(int dfd, const char __user *filename, int flags, struct stat *st)
{
	int empty;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_STATX_SYNC_TYPE))
		return -EINVAL;
	empty = (flags & AT_EMPTY_PATH) ? empty_path(filename) : 0;
	if (empty < 0)
		return empty;
	if (empty && dfd == AT_FDCWD)
		return path_getattr(AT_FDCWD, ".", 0, st);
	if (empty)
		return ksys_fstat(dfd, st);
	return WITH_NAME(filename, kname, path_getattr(dfd, kname, (flags & AT_SYMLINK_NOFOLLOW) ? LOOKUP_NOFOLLOW : 0, st));
}

long sys_newfstatat(int dfd, const char __user *filename, struct stat __user *statbuf, int flag)
{
	struct stat st;
	long err = getattr_at(dfd, filename, flag, &st);

	if (!err && copy_to_user(statbuf, &st, sizeof(st)))
		err = -EFAULT;
	return err;
}

/* statx(2)'s answer (Linux's include/uapi/linux/stat.h): 256 bytes */
struct statx_timestamp {
	s64 tv_sec;
	u32 tv_nsec;
	s32 __reserved;
};

struct statx {
	u32 stx_mask, stx_blksize;
	u64 stx_attributes;
	u32 stx_nlink, stx_uid, stx_gid;
	u16 stx_mode, __spare0;
	u64 stx_ino, stx_size, stx_blocks, stx_attributes_mask;
	struct statx_timestamp stx_atime, stx_btime, stx_ctime, stx_mtime;
	u32 stx_rdev_major, stx_rdev_minor, stx_dev_major, stx_dev_minor;
	u64 __spare2[14];
};
BUILD_BUG_ON(sizeof(struct statx) != 256);

#define STATX_BASIC_STATS 0x7ffu /* type, mode, nlink, uid, gid, times, ino, size, blocks */

long sys_statx(int dfd, const char __user *filename, unsigned int flags, unsigned int mask,
	       struct statx __user *buffer)
{
	struct statx sx;
	struct stat st;
	long err = getattr_at(dfd, filename, flags, &st);

	(void)mask; /* everything basic is always there */
	if (err)
		return err;
	memset(&sx, 0, sizeof(sx));
	sx.stx_mask = STATX_BASIC_STATS;
	sx.stx_blksize = st.st_blksize;
	sx.stx_nlink = st.st_nlink;
	sx.stx_mode = st.st_mode;
	sx.stx_ino = st.st_ino;
	sx.stx_size = st.st_size;
	sx.stx_blocks = st.st_blocks;
	sx.stx_atime.tv_sec = st.st_atime;
	sx.stx_atime.tv_nsec = st.st_atime_nsec;
	sx.stx_mtime.tv_sec = st.st_mtime;
	sx.stx_mtime.tv_nsec = st.st_mtime_nsec;
	sx.stx_ctime.tv_sec = st.st_ctime;
	sx.stx_ctime.tv_nsec = st.st_ctime_nsec;
	/* undo stat's new_encode_dev(): statx has the two numbers apart */
	sx.stx_rdev_major = (st.st_rdev >> 8) & 0xfff;
	sx.stx_rdev_minor = (st.st_rdev & 0xff) | ((st.st_rdev >> 12) & ~0xffu);
	sx.stx_dev_major = (st.st_dev >> 8) & 0xfff;
	sx.stx_dev_minor = (st.st_dev & 0xff) | ((st.st_dev >> 12) & ~0xffu);
	return copy_to_user(buffer, &sx, sizeof(sx)) ? -EFAULT : 0;
}

long sys_readlink(const char __user *path, char __user *buf, int bufsiz)
{
	return sys_readlinkat(AT_FDCWD, path, buf, bufsiz);
}
