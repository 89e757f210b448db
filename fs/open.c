// SPDX-License-Identifier: MIT
/*
 * open.c - open(2): from a name to a descriptor.
 *
 *   1. walk to the parent directory and look the last name up (namei.c);
 *   2. absent: create it if O_CREAT (the directory's create()), else ENOENT;
 *      present: EEXIST if O_CREAT|O_EXCL; ENOTDIR if O_DIRECTORY and it is
 *      not one; EISDIR when a directory is opened for writing; a symbolic
 *      link is followed, and with O_CREAT what it names is created if
 *      missing;
 *   3. dentry_open(): a struct file with the inode's file_operations, whose
 *      open() may swap them (a device node picks its driver here);
 *   4. O_TRUNC on a regular file opened for writing empties it;
 *   5. the lowest free descriptor gets the file.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/sched.h>
#include <spindle/uaccess.h>
#include "internal.h"

struct file *dentry_open(const struct path *path, int flags)
{
	struct inode *inode = path->dentry->d_inode;
	struct file *f = alloc_file(path, flags, inode->i_fop);
	int err;

	if (IS_ERR(f))
		return f;
	if (S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode) || S_ISBLK(inode->i_mode))
		f->f_mode |= FMODE_LSEEK;
	if (f->f_op && f->f_op->open) {
		err = f->f_op->open(inode, f);
		if (err) {
			f->f_op = NULL;         /* no release for a failed open */
			fput(f);
			return ERR_PTR(err);
		}
	}
	return f;
}

static int open_create(struct path *parent, const char *last, int len, int flags, umode_t mode,
		       struct path *res, int depth);

/* Step 1 and 2 under vfs_lock: the path of the file to open. */
static int open_lookup(int dfd, const char *name, int flags, umode_t mode, struct path *res)
{
	struct path parent;
	const char *last;
	int len, err;

	if (!(flags & O_CREAT))
		return __path_lookupat(dfd, name, (flags & O_DIRECTORY) ? LOOKUP_DIRECTORY : 0,
				       res, NULL, NULL);

	err = __path_lookupat(dfd, name, LOOKUP_PARENT, &parent, &last, &len);
	if (err)
		return err;
	return open_create(&parent, last, len, flags, mode, res, 0);
}

/*
 * An existing symbolic link met by O_CREAT (without O_EXCL): as Linux,
 * the walk goes on along its target, read from the link's directory, and
 * the target's last name is created if it is missing -- `echo > link`
 * makes the file a dangling link names.  depth counts the links followed.
 */
static int open_create_link(struct path *parent, struct inode *link, int flags, umode_t mode,
			    struct path *res, int depth)
{
	char *target = kmalloc(PATH_MAX, GFP_KERNEL);
	struct path next;
	const char *last = NULL;
	int len = 0, err;

	if (!target)
		err = -ENOMEM;
	else if (depth >= MAXSYMLINKS)
		err = -ELOOP;
	else if (!link->i_op || !link->i_op->get_link)
		err = -EINVAL;
	else
		err = link->i_op->get_link(link, target, PATH_MAX);
	if (err == 0)
		err = -ENOENT;                  /* an empty target names nothing */
	if (err > 0)
		err = __path_lookup_from(parent, target, LOOKUP_PARENT, &next, &last, &len);
	path_put(parent);
	if (!err)
		err = open_create(&next, last, len, flags, mode, res, depth + 1);
	kfree(target);
	return err;
}

/*
 * O_CREAT's last step: the name last (len bytes) in the directory parent
 * (referenced; given up here), found or created; *res on success.
 */
static int open_create(struct path *parent, const char *last, int len, int flags, umode_t mode,
		       struct path *res, int depth)
{
	struct dentry *d;
	int err;

	if ((len == 1 && last[0] == '.') || (len == 2 && last[0] == '.' && last[1] == '.') ||
	    last[len] == '/') {
		path_put(parent);
		return -EISDIR;                 /* O_CREAT on a directory name */
	}
	d = lookup_one(parent->dentry, last, len);
	if (IS_ERR(d)) {
		path_put(parent);
		return PTR_ERR(d);
	}
	if (!d->d_inode) {
		struct inode *dir = parent->dentry->d_inode;

		/* a removed directory (a cwd kept after rmdir) takes no new
		 * names: ENOENT, as Linux */
		if (!dir->i_nlink)
			err = -ENOENT;
		else if (sb_rdonly(dir->i_sb))
			err = -EROFS;
		else if (dir->i_op && dir->i_op->create)
			err = dir->i_op->create(dir, d, (mode & 07777 & ~current_umask()) | S_IFREG);
		else
			err = -EACCES;
		if (err) {
			dput(d);
			path_put(parent);
			return err;
		}
	} else if (flags & O_EXCL) {
		dput(d);
		path_put(parent);
		return -EEXIST;
	} else if (S_ISLNK(d->d_inode->i_mode)) {
		struct inode *link = igrab(d->d_inode);

		dput(d);
		err = link ? open_create_link(parent, link, flags, mode, res, depth) : -ENOENT;
		iput(link);
		return err;
	}
	res->mnt = parent->mnt;
	res->dentry = d;
	mntget(res->mnt);
	path_put(parent);
	/* a mount point opened with O_CREAT: open what is mounted there */
	{
		struct vfsmount *m;

		while ((m = lookup_mnt(res))) {
			struct path next = { m, m->mnt_root };

			path_get(&next);
			path_put(res);
			*res = next;
		}
	}
	return 0;
}

struct file *file_open_at(int dfd, const char *name, int flags, umode_t mode)
{
	struct path path;
	struct inode *inode;
	struct file *f;
	int err;

	mutex_lock(&vfs_lock);
	err = open_lookup(dfd, name, flags, mode, &path);
	mutex_unlock(&vfs_lock);
	if (err)
		return ERR_PTR(err);
	inode = path.dentry->d_inode;
	err = 0;
	if ((flags & O_DIRECTORY) && !S_ISDIR(inode->i_mode))
		err = -ENOTDIR;
	else if (S_ISDIR(inode->i_mode) && (flags & O_ACCMODE) != O_RDONLY)
		err = -EISDIR;
	/* Linux's may_open: execve opens only a regular file; a directory,
	 * device, FIFO or socket is EACCES before its open can block */
	else if ((flags & __FMODE_EXEC) && !S_ISREG(inode->i_mode))
		err = -EACCES;
	/* a read-only file system's files cannot be written; its device
	 * nodes and FIFOs can (Linux's may_open) */
	else if (sb_rdonly(inode->i_sb) && (S_ISREG(inode->i_mode) || S_ISLNK(inode->i_mode)) &&
		 ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC)))
		err = -EROFS;
	if (err) {
		path_put(&path);
		return ERR_PTR(err);
	}
	f = dentry_open(&path, flags & ~__FMODE_EXEC);
	path_put(&path);
	if (IS_ERR(f))
		return f;
	/* O_DIRECT only where the file has a way round the cache (Linux's
	 * do_dentry_open); known only now, after the file's own open */
	if ((flags & O_DIRECT) && !(f->f_mapping && f->f_mapping->a_ops &&
				    f->f_mapping->a_ops->direct_IO)) {
		fput(f);
		return ERR_PTR(-EINVAL);
	}
	if ((flags & O_TRUNC) && S_ISREG(inode->i_mode) && (f->f_mode & FMODE_WRITE) &&
	    inode->i_op && inode->i_op->setsize) {
		mutex_lock(&inode->i_mutex);
		err = inode->i_op->setsize(inode, 0);
		mutex_unlock(&inode->i_mutex);
		if (err) {
			fput(f);
			return ERR_PTR(err);
		}
	}
	return f;
}

/*
 * ftruncate(fd, length): a regular file, open for writing, gets exactly
 * length bytes -- cut, or grown with zeros (dd seek=N without
 * conv=notrunc does this).  Errors as Linux: EBADF, EINVAL for a
 * negative length, anything but a regular file, or a file not open for
 * writing.
 */
long sys_ftruncate(unsigned int fd, off_t length)
{
	struct file *f = fget(fd);
	struct inode *inode;
	long err;

	if (!f)
		return -EBADF;
	inode = f->f_inode;
	if (length < 0 || !S_ISREG(inode->i_mode) || !(f->f_mode & FMODE_WRITE) ||
	    !inode->i_op || !inode->i_op->setsize) {
		fput(f);
		return -EINVAL;
	}
	mutex_lock(&inode->i_mutex);
	err = inode->i_op->setsize(inode, length);
	mutex_unlock(&inode->i_mutex);
	fput(f);
	return err;
}

struct file *filp_open(const char *kpath, int flags, umode_t mode)
{
	return file_open_at(AT_FDCWD, kpath, flags, mode);
}

long ksys_open(int dfd, const char *name, int flags, umode_t mode)
{
	struct file *f;
	int fd;

	flags &= ~__FMODE_EXEC;         /* the kernel's own, not an O_ flag */
	fd = get_unused_fd_flags(flags);
	if (fd < 0)
		return fd;
	f = file_open_at(dfd, name, flags, mode);
	if (IS_ERR(f)) {
		fs_put_unused_fd(fd);
		return PTR_ERR(f);
	}
	fd_install(fd, f);
	return fd;
}

int ksys_getcwd(char *buf, unsigned long size)
{
	struct path root, pwd;
	int len;

	mutex_lock(&vfs_lock);
	current_root_pwd(&root, &pwd);
	len = d_path(&pwd, buf, size > PATH_MAX ? PATH_MAX : (int)size);
	mutex_unlock(&vfs_lock);
	/* Linux: ENAMETOOLONG past PATH_MAX (a tree made with chdir and
	 * mkdir can be that deep), else ERANGE if it does not fit */
	if (len < 0)
		return size >= PATH_MAX ? -ENAMETOOLONG : -ERANGE;
	return len;
}

/* Linux's getcwd returns the length including the NUL. */
long sys_getcwd(char __user *buf, unsigned long size)
{
	char *k = kmalloc(PATH_MAX, GFP_KERNEL);
	int len;

	if (!k)
		return -ENOMEM;
	len = ksys_getcwd(k, PATH_MAX);
	if (len >= 0 && (unsigned long)len + 1 > size)
		len = -ERANGE;
	if (len >= 0 && copy_to_user(buf, k, len + 1))
		len = -EFAULT;
	kfree(k);
	return len < 0 ? len : len + 1;
}

/* --- attributes: chmod, chown, truncate, utimensat ------------------------- */

#ifndef S_IXGRP
#define S_IXGRP 00010 /* group may execute */
#endif

void setattr_copy(struct inode *inode, const struct iattr *attr)
{
	if (attr->ia_valid & ATTR_MODE)
		inode->i_mode = (inode->i_mode & S_IFMT) | (attr->ia_mode & 07777);
	if (attr->ia_valid & ATTR_UID)
		inode->i_uid = attr->ia_uid;
	if (attr->ia_valid & ATTR_GID)
		inode->i_gid = attr->ia_gid;
	if (attr->ia_valid & ATTR_MTIME)
		inode->i_mtime_ns = attr->ia_mtime_ns;
}

/*
 * Linux's notify_change: the one way an attribute changes.  A file system
 * with a setattr stores attr itself (on disk too: mark_inode_dirty);
 * otherwise the VFS inode is the file (the size through setsize) and
 * mark_inode_dirty tells the file system.  Called with a reference on dentry, without vfs_lock; takes i_mutex,
 * which a size change needs.
 */
int notify_change(struct dentry *dentry, struct iattr *attr)
{
	struct inode *inode = dentry->d_inode;
	int err = 0;

	if (sb_rdonly(inode->i_sb))
		return -EROFS;
	mutex_lock(&inode->i_mutex);
	attr->ia_valid |= ATTR_CTIME;
	attr->ia_ctime_ns = fs_now_ns();
	if (attr->ia_valid & ATTR_SIZE) {
		attr->ia_valid |= ATTR_MTIME;   /* truncate changes the data */
		attr->ia_mtime_ns = attr->ia_ctime_ns;
	}
	if (inode->i_op && inode->i_op->setattr) {
		err = inode->i_op->setattr(dentry, attr);
	} else {
		if (attr->ia_valid & ATTR_SIZE)
			err = inode->i_op && inode->i_op->setsize
				      ? inode->i_op->setsize(inode, attr->ia_size)
				      : -EINVAL;
		if (!err) {
			setattr_copy(inode, attr);
			mark_inode_dirty(inode);
		}
	}
	mutex_unlock(&inode->i_mutex);
	return err;
}

/*
 * An attribute change as a write to path's mount, as Linux's chmod, chown,
 * truncate and utimes take mnt_want_write() first: EROFS on a read-only
 * mount, and a remount read-only (which waits for no writer: EBUSY)
 * cannot pass one half-way through changing an inode.
 */
int notify_change_path(const struct path *path, struct iattr *attr)
{
	int err;

	/* a pipe's inode is on no mount (Linux's pipefs is never read-only) */
	if (!path->mnt)
		return notify_change(path->dentry, attr);
	err = mnt_want_write(path->mnt);
	if (err)
		return err;
	err = notify_change(path->dentry, attr);
	mnt_drop_write(path->mnt);
	return err;
}

/* chmod's new permission bits, the file type kept */
static int chmod_common(const struct path *path, umode_t mode)
{
	struct iattr attr = { .ia_valid = ATTR_MODE, .ia_mode = mode & 07777 };

	return notify_change_path(path, &attr);
}

/*
 * chown's owner and group; (u32)-1 leaves one as it is.  Any chown of a
 * non-directory, even by root and even to the same owner, takes off the
 * set-user-ID bit, and set-group-ID where group execute is set, as
 * Linux's chown_common (a program must not keep its old owner's powers).
 */
static int chown_common(const struct path *path, u32 user, u32 group)
{
	struct inode *inode = path->dentry->d_inode;
	umode_t kill = S_ISUID | ((inode->i_mode & S_IXGRP) ? S_ISGID : 0);
	struct iattr attr = { .ia_valid = 0 };

	if (user != (u32)-1) {
		attr.ia_valid |= ATTR_UID;
		attr.ia_uid = user;
	}
	if (group != (u32)-1) {
		attr.ia_valid |= ATTR_GID;
		attr.ia_gid = group;
	}
	if (!S_ISDIR(inode->i_mode) && (inode->i_mode & kill)) {
		attr.ia_valid |= ATTR_MODE;
		attr.ia_mode = inode->i_mode & 07777 & ~kill;
	}
	return notify_change_path(path, &attr);
}

/* A path's dentry for the attribute calls: looked up, then work() on it. */
static int path_setattr(int dfd, const char *name, unsigned int lookup_flags,
			int (*work)(const struct path *p, unsigned long a, unsigned long b),
			unsigned long a, unsigned long b)
{
	struct path p;
	int err = kern_path_at(dfd, name, lookup_flags, &p);

	if (err)
		return err;
	err = work(&p, a, b);
	path_put(&p);
	return err;
}

/* The same for an open descriptor (fchmod, fchown): EBADF first. */
static int fd_setattr(unsigned int fd,
		      int (*work)(const struct path *p, unsigned long a, unsigned long b),
		      unsigned long a, unsigned long b)
{
	struct file *f = fget(fd);
	int err;

	if (!f)
		return -EBADF;
	err = work(&f->f_path, a, b);
	fput(f);
	return err;
}

static int do_chmod(const struct path *p, unsigned long mode, unsigned long unused)
{
	(void)unused;
	return chmod_common(p, (umode_t)mode);
}

static int do_chown(const struct path *p, unsigned long user, unsigned long group)
{
	return chown_common(p, (u32)user, (u32)group);
}

/* truncate(path): Linux's vfs_truncate -- EISDIR, EINVAL for anything
 * else that is not a regular file, then EROFS */
static int do_truncate(const struct path *p, unsigned long length, unsigned long unused)
{
	struct iattr attr = { .ia_valid = ATTR_SIZE, .ia_size = (loff_t)length };
	umode_t mode = p->dentry->d_inode->i_mode;

	(void)unused;
	if (S_ISDIR(mode))
		return -EISDIR;
	if (!S_ISREG(mode))
		return -EINVAL;
	return notify_change_path(p, &attr);
}

int ksys_fchmodat(int dfd, const char *name, umode_t mode)
{
	return path_setattr(dfd, name, 0, do_chmod, mode, 0);
}

long sys_fchmod(unsigned int fd, umode_t mode)
{
	return fd_setattr(fd, do_chmod, mode, 0);
}

int ksys_fchownat(int dfd, const char *name, u32 user, u32 group, int flag)
{
	return path_setattr(dfd, name, (flag & AT_SYMLINK_NOFOLLOW) ? LOOKUP_NOFOLLOW : 0,
			    do_chown, user, group);
}

int ksys_fchown(unsigned int fd, u32 user, u32 group)
{
	return fd_setattr(fd, do_chown, user, group);
}

long sys_fchown(unsigned int fd, u32 user, u32 group)
{
	return ksys_fchown(fd, user, group);
}

int ksys_truncate(const char *name, loff_t length)
{
	if (length < 0)
		return -EINVAL;
	return path_setattr(AT_FDCWD, name, 0, do_truncate, (unsigned long)length, 0);
}

/* --- chdir, fchdir and open by name ------------------------------------- */

int do_chdir(const char *name)
{
	struct fs_struct *fs = current->fs;
	struct path p;
	int err;

	if (!fs)
		return -EINVAL; /* a kernel thread has no cwd of its own */
	err = kern_path(name, LOOKUP_DIRECTORY, &p);
	if (err)
		return err;
	mutex_lock(&vfs_lock);
	path_put(&fs->pwd);
	fs->pwd = p;
	mutex_unlock(&vfs_lock);
	return 0;
}

/* fchdir: the cwd becomes the directory an open descriptor names */
long sys_fchdir(unsigned int fd)
{
	struct fs_struct *fs = current->fs;
	struct file *f = fget(fd);
	long err = 0;

	if (!f)
		return -EBADF;
	if (!fs)
		err = -EINVAL;
	else if (!S_ISDIR(f->f_inode->i_mode))
		err = -ENOTDIR;
	if (!err) {
		mutex_lock(&vfs_lock);
		path_put(&fs->pwd);
		fs->pwd = f->f_path;
		path_get(&fs->pwd);
		mutex_unlock(&vfs_lock);
	}
	fput(f);
	return err;
}

long sys_chdir(const char __user *filename)
{
	return WITH_NAME(filename, kname, do_chdir(kname));
}

long sys_open(const char __user *filename, int flags, umode_t mode)
{
	return WITH_NAME(filename, kname, ksys_open(AT_FDCWD, kname, flags, mode));
}

long sys_openat(int dfd, const char __user *filename, int flags, umode_t mode)
{
	return WITH_NAME(filename, kname, ksys_open(dfd, kname, flags, mode));
}

/*
 * access(2): may the caller read/write/execute the file?  The caller is
 * always root, who may read and write anything -- except write to a
 * regular file, a directory or a symbolic link on a read-only mount
 * (EROFS; a device node or a FIFO writes elsewhere, so it may), as
 * Linux's inode_permission; execute needs an x bit somewhere in the
 * mode (or a directory), as Linux's generic_permission for root.
 */
#define X_OK 1
#define W_OK 2
#define R_OK 4

static int may_access(int dfd, const char *name, int mode, unsigned int lookup_flags)
{
	struct path p;
	struct stat st;
	int err = kern_path_at(dfd, name, lookup_flags, &p);

	if (err)
		return err;
	err = vfs_getattr(p.dentry->d_inode, &st);
	if (!err && (mode & W_OK) && sb_rdonly(p.dentry->d_sb) &&
	    (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode)))
		err = -EROFS;
	path_put(&p);
	if (!err && (mode & X_OK) && !S_ISDIR(st.st_mode) && !(st.st_mode & 0111))
		err = -EACCES;
	return err;
}

long sys_faccessat2(int dfd, const char __user *filename, int mode, int flags)
{
	if (mode & ~(R_OK | W_OK | X_OK))
		return -EINVAL;
	if (flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	return WITH_NAME(filename, kname, may_access(dfd, kname, mode, flags & AT_SYMLINK_NOFOLLOW ? LOOKUP_NOFOLLOW : 0));
}

long sys_faccessat(int dfd, const char __user *filename, int mode)
{
	return sys_faccessat2(dfd, filename, mode, 0);
}

long sys_access(const char __user *filename, int mode)
{
	return sys_faccessat2(AT_FDCWD, filename, mode, 0);
}

/* --- chmod, chown, truncate by name (the work: open.c) ---------------------- */

long sys_fchmodat(int dfd, const char __user *filename, umode_t mode)
{
	return WITH_NAME(filename, kname, ksys_fchmodat(dfd, kname, mode));
}

long sys_chmod(const char __user *filename, umode_t mode)
{
	return sys_fchmodat(AT_FDCWD, filename, mode);
}

/* fchownat: AT_EMPTY_PATH (an empty name: dfd itself) as fchown */
long sys_fchownat(int dfd, const char __user *filename, u32 user, u32 group, int flag)
{
	int empty;

	if (flag & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	empty = (flag & AT_EMPTY_PATH) ? empty_path(filename) : 0;
	if (empty < 0)
		return empty;
	if (empty && dfd != AT_FDCWD)
		return ksys_fchown(dfd, user, group);
	if (empty)
		return ksys_fchownat(AT_FDCWD, ".", user, group, flag);
	return WITH_NAME(filename, kname, ksys_fchownat(dfd, kname, user, group, flag));
}

long sys_chown(const char __user *filename, u32 user, u32 group)
{
	return sys_fchownat(AT_FDCWD, filename, user, group, 0);
}

long sys_lchown(const char __user *filename, u32 user, u32 group)
{
	return sys_fchownat(AT_FDCWD, filename, user, group, AT_SYMLINK_NOFOLLOW);
}

/* truncate(2): EINVAL for a negative length before the name is looked at */
long sys_truncate(const char __user *path, long length)
{
	if (length < 0)
		return -EINVAL;
	return WITH_NAME(path, kname, ksys_truncate(kname, length));
}

/*
 * fallocate(2) (Linux's vfs_fallocate): the checks every file system
 * shares, in Linux's order, then the file's own.  Only block devices
 * have one here (fs/block_dev.c); a regular file answers EOPNOTSUPP, as
 * Linux's ext2 does (tmpfs would allocate on Linux, and does not here).
 */
long sys_fallocate(int fd, int mode, loff_t offset, loff_t len)
{
	struct file *f;
	struct inode *inode;
	long ret;

	if (offset < 0 || len <= 0)
		return -EINVAL;
	f = fget((unsigned int)fd);
	if (!f)
		return -EBADF;
	inode = f->f_inode;
	ret = -EBADF;
	if (!(f->f_mode & FMODE_WRITE))
		goto out;
	ret = -ESPIPE;
	if (S_ISFIFO(inode->i_mode))
		goto out;
	ret = -EISDIR;
	if (S_ISDIR(inode->i_mode))
		goto out;
	ret = -ENODEV;
	if (!S_ISREG(inode->i_mode) && !S_ISBLK(inode->i_mode))
		goto out;
	ret = -EFBIG;
	if (len > (loff_t)(~0ull >> 1) - offset)       /* offset + len would wrap */
		goto out;
	ret = f->f_op && f->f_op->fallocate ? f->f_op->fallocate(f, mode, offset, len)
					   : -EOPNOTSUPP;
out:
	fput(f);
	return ret;
}
