// SPDX-License-Identifier: MIT
/*
 * namei.c - path lookup: from "/usr/../dev/sda1" to a (mount, dentry).
 *
 * The walk starts at the root ("/...") or the cwd (or a directory
 * descriptor, openat) and takes one component at a time:
 *
 *   ""  or "."   stay                  (so "a//b" and "a/./b" are "a/b")
 *   ".."         go to the parent; at the root of a mount, first step down
 *                to the directory it is mounted on; at the root, stay
 *   a name       the current place must be a directory (else ENOTDIR);
 *                find the child in the dcache or ask the directory's
 *                lookup() (else ENOENT); if something is mounted on it,
 *                continue at that mount's root
 *
 * Callers that create or remove a name (mkdir, unlink, open with O_CREAT)
 * stop one component early (LOOKUP_PARENT) and get the last component.
 * Errors follow Linux: ENOENT, ENOTDIR, ENAMETOOLONG (a component longer
 * than NAME_MAX, a path longer than PATH_MAX), EEXIST, EISDIR.
 *
 * Here too, as in Linux's namei.c, are the calls that make and remove
 * names -- mkdir, rmdir, unlink, link, symlink, rename, mknod -- and
 * getname(), which copies a path in from user space for every path system
 * call.  The others live with their subjects: open, chdir, access, chmod,
 * chown and truncate in open.c, the stat family and readlink in stat.c,
 * utimensat in utimes.c, mount and umount in namespace.c.
 *
 * Everything here runs under vfs_lock, one walk or change at a time: a
 * simple rule a student can check, paid for with no parallel lookups.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/sched.h>
#include <spindle/uaccess.h>
#include <spindle/printk.h>
#include <spindle/mempool.h>
#include <spindle/blkdev.h>
#include "internal.h"

DEFINE_MUTEX(vfs_lock);

void current_root_pwd(struct path *root, struct path *pwd)
{
	struct fs_struct *fs = current->fs;

	if (fs) {
		*root = fs->root;
		*pwd = fs->pwd;
	} else {                /* a kernel thread: the root mount */
		root->mnt = pwd->mnt = root_mnt;
		root->dentry = pwd->dentry = root_mnt->mnt_root;
	}
}

struct dentry *lookup_one(struct dentry *parent, const char *name, int len)
{
	struct inode *dir = parent->d_inode;
	struct dentry *d, *res;

	if (len > NAME_MAX)
		return ERR_PTR(-ENAMETOOLONG);
	d = d_lookup(parent, name, len);
	if (d)
		return d;
	d = d_alloc(parent, name, len);
	if (IS_ERR(d))
		return d;
	if (dir->i_op && dir->i_op->lookup) {
		res = dir->i_op->lookup(dir, d);
		if (IS_ERR(res)) {
			dput(d);
			return res;
		}
	}
	return d;       /* positive, or negative: the name does not exist */
}

/* Step onto whatever is mounted on *p (repeatedly: mounts may stack). */
static void follow_mounts(struct path *p)
{
	struct vfsmount *m;

	while ((m = lookup_mnt(p))) {
		struct path next = { m, m->mnt_root };

		path_get(&next);
		path_put(p);
		*p = next;
	}
}

static void follow_dotdot(struct path *p, const struct path *root)
{
	for (;;) {
		struct path next;

		if (p->dentry == root->dentry && p->mnt == root->mnt)
			return;                         /* ".." of the root is the root */
		if (p->dentry != p->mnt->mnt_root) {
			next.mnt = p->mnt;
			next.dentry = p->dentry->d_parent;
			path_get(&next);
			path_put(p);
			*p = next;
			return;
		}
		if (p->mnt->mnt_parent == p->mnt)
			return;                         /* the root mount's root */
		/* at a mount's root: continue from its mount point */
		next.mnt = p->mnt->mnt_parent;
		next.dentry = p->mnt->mnt_mountpoint;
		path_get(&next);
		path_put(p);
		*p = next;
	}
}

/*
 * Symbolic links.  Meeting one in the middle of a walk (or at its end,
 * unless LOOKUP_NOFOLLOW), the walk goes on with the link's target
 * followed by the rest of the name: "/mnt/link/x" with link -> "d/e"
 * continues as "d/e/x" from /mnt, or from the root if the target is
 * absolute.  The new text is kept in one of two buffers that take turns
 * (the rest of the name may lie in the other); they live under vfs_lock,
 * so a last component handed back in one (LOOKUP_PARENT) stays valid as
 * long as the caller holds the lock, as every such caller does.
 * MAXSYMLINKS links per walk, then ELOOP, as Linux.
 */
static char link_walk_buf[2][PATH_MAX];
static int link_walk_turn;

static int follow_link(struct dentry *link, const char **name, struct path *p,
		       const struct path *root, int *nlinks)
{
	struct inode *inode = link->d_inode;
	char *buf = link_walk_buf[link_walk_turn];
	size_t rest = strlen(*name);
	int len;

	if (++*nlinks > MAXSYMLINKS)
		return -ELOOP;
	if (!inode->i_op || !inode->i_op->get_link)
		return -EINVAL;
	len = inode->i_op->get_link(inode, buf, PATH_MAX);
	if (len < 0)
		return len;
	if (len == 0)
		return -ENOENT;
	if ((size_t)len + rest >= PATH_MAX)
		return -ENAMETOOLONG;
	memmove(buf + len, *name, rest + 1); /* "/x" or "": keeps its slash */
	link_walk_turn ^= 1;
	*name = buf;
	if (buf[0] == '/') {
		path_put(p);
		*p = *root;
		path_get(p);
	}
	return 0;
}

static bool is_dir(const struct path *p)
{
	return p->dentry->d_inode && S_ISDIR(p->dentry->d_inode->i_mode);
}

/* Where a relative walk starts: the cwd, or directory descriptor dfd. */
static int path_start(int dfd, const char *name, struct path *start)
{
	struct path root, pwd;

	current_root_pwd(&root, &pwd);
	if (name[0] == '/') {
		*start = root;
	} else if (dfd == AT_FDCWD) {
		*start = pwd;
	} else {
		struct file *f = fget(dfd);

		if (!f)
			return -EBADF;
		*start = f->f_path;
		path_get(start);
		fput(f);
		if (!is_dir(start)) {
			path_put(start);
			return -ENOTDIR;
		}
		return 0;
	}
	path_get(start);
	return 0;
}

/*
 * The walk itself; vfs_lock held.  With LOOKUP_PARENT, *path is the
 * directory holding the last component, returned in *last / *last_len
 * ("." or ".." included: callers decide what they mean for them).
 */
static int path_walk(struct path p, const char *name, unsigned int flags, struct path *path,
		     const char **last, int *last_len);

int __path_lookupat(int dfd, const char *name, unsigned int flags,
		    struct path *path, const char **last, int *last_len)
{
	struct path p;
	int err;

	if (!name[0])
		return -ENOENT;
	if (strnlen(name, PATH_MAX) >= PATH_MAX)
		return -ENAMETOOLONG;
	err = path_start(dfd, name, &p);
	if (err)
		return err;
	return path_walk(p, name, flags, path, last, last_len);
}

int __path_lookup_from(const struct path *dir, const char *name, unsigned int flags,
		       struct path *path, const char **last, int *last_len)
{
	struct path p, root, pwd;

	if (!name[0])
		return -ENOENT;
	if (strnlen(name, PATH_MAX) >= PATH_MAX)
		return -ENAMETOOLONG;
	current_root_pwd(&root, &pwd);
	p = name[0] == '/' ? root : *dir;
	path_get(&p);
	return path_walk(p, name, flags, path, last, last_len);
}

/* The walk from p (referenced: the walk owns it) along name. */
static int path_walk(struct path p, const char *name, unsigned int flags, struct path *path,
		     const char **last, int *last_len)
{
	struct path root, pwd;
	bool want_dir = flags & LOOKUP_DIRECTORY;
	int err, nlinks = 0;

	current_root_pwd(&root, &pwd);

	for (;;) {
		const char *comp;
		int len;
		bool final;
		struct dentry *d;

		while (*name == '/')
			name++;
		comp = name;
		while (*name && *name != '/')
			name++;
		len = name - comp;
		/* final: nothing but slashes follows; a trailing slash means
		 * the last component must be a directory, as in Linux */
		{
			const char *rest = name;

			while (*rest == '/')
				rest++;
			final = *rest == '\0';
			if (final && *name == '/')
				want_dir = true;
		}
		if (len == 0)                           /* "/" or "a//" */
			break;
		if (final && (flags & LOOKUP_PARENT)) {
			if (!is_dir(&p)) {
				err = -ENOTDIR;
				goto fail;
			}
			if (last) {
				*last = comp;
				*last_len = len;
			}
			*path = p;
			return 0;
		}
		if (!is_dir(&p)) {
			err = -ENOTDIR;
			goto fail;
		}
		if (len > NAME_MAX) {
			err = -ENAMETOOLONG;
			goto fail;
		}
		if (len == 1 && comp[0] == '.')
			continue;
		if (len == 2 && comp[0] == '.' && comp[1] == '.') {
			follow_dotdot(&p, &root);
			continue;
		}
		d = lookup_one(p.dentry, comp, len);
		if (IS_ERR(d)) {
			err = PTR_ERR(d);
			goto fail;
		}
		if (!d->d_inode) {
			dput(d);
			err = -ENOENT;
			goto fail;
		}
		if (S_ISLNK(d->d_inode->i_mode) && (!final || !(flags & LOOKUP_NOFOLLOW))) {
			/* p stays the link's directory: a relative target starts there */
			err = follow_link(d, &name, &p, &root, &nlinks);
			dput(d);
			if (err)
				goto fail;
			continue;
		}
		dput(p.dentry);
		p.dentry = d;                           /* same mount, its reference kept */
		follow_mounts(&p);
		if (final)
			break;
	}
	if (flags & LOOKUP_PARENT) {
		/* "/" or "a/..": no last component to hand back */
		if (last) {
			*last = ".";
			*last_len = 1;
		}
		*path = p;
		return 0;
	}
	if (want_dir && !is_dir(&p)) {
		err = -ENOTDIR;
		goto fail;
	}
	*path = p;
	return 0;
fail:
	path_put(&p);
	return err;
}

int kern_path_at(int dfd, const char *name, unsigned int flags, struct path *path)
{
	int err;

	mutex_lock(&vfs_lock);
	err = __path_lookupat(dfd, name, flags, path, NULL, NULL);
	mutex_unlock(&vfs_lock);
	return err;
}

int kern_path(const char *name, unsigned int flags, struct path *path)
{
	return kern_path_at(AT_FDCWD, name, flags, path);
}

static bool is_dot_or_dotdot(const char *s, int len)
{
	return (len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.');
}

/*
 * Find the parent of name and the (negative) dentry where it would go:
 * mkdir, mknod, link, symlink.  Returns the dentry with *parent
 * referenced, or ERR_PTR: EEXIST when the name exists, then ENOENT for a
 * trailing slash on anything but a directory ("asking for a directory
 * that does not exist", as Linux), then EROFS.  vfs_lock held.
 */
static struct dentry *filename_create(int dfd, const char *name, struct path *parent,
				      bool want_dir)
{
	const char *last;
	int len, err;
	struct dentry *d;

	if (IS_ERR(name))
		return ERR_CAST(name);          /* the copy failed: see getname_kmalloc */
	err = __path_lookupat(dfd, name, LOOKUP_PARENT, parent, &last, &len);
	if (err)
		return ERR_PTR(err);
	if (is_dot_or_dotdot(last, len)) {
		d = ERR_PTR(-EEXIST);
		goto fail;
	}
	if (!parent->dentry->d_inode->i_nlink) {
		d = ERR_PTR(-ENOENT);           /* a removed directory: no new names */
		goto fail;
	}
	d = lookup_one(parent->dentry, last, len);
	if (IS_ERR(d))
		goto fail;
	if (d->d_inode) {
		dput(d);
		d = ERR_PTR(-EEXIST);
		goto fail;
	}
	if (last[len] && !want_dir) {
		dput(d);
		d = ERR_PTR(-ENOENT);
		goto fail;
	}
	if (sb_rdonly(parent->dentry->d_sb)) {
		dput(d);
		d = ERR_PTR(-EROFS); /* EEXIST first, as Linux */
		goto fail;
	}
	return d;
fail:
	path_put(parent);
	return d;
}

int do_mkdirat(int dfd, const char *name, umode_t mode)
{
	struct path parent;
	struct dentry *d;
	struct inode *dir;
	int err;

	mutex_lock(&vfs_lock);
	d = filename_create(dfd, name, &parent, true);
	if (IS_ERR(d)) {
		err = PTR_ERR(d);
		goto out;
	}
	dir = parent.dentry->d_inode;
	err = dir->i_op && dir->i_op->mkdir ? dir->i_op->mkdir(dir, d, (mode & 07777 & ~current_umask()) | S_IFDIR)
					    : -EPERM;
	dput(d);
	path_put(&parent);
out:
	mutex_unlock(&vfs_lock);
	return err;
}

int do_mknodat(int dfd, const char *name, umode_t mode, dev_t dev)
{
	struct path parent;
	struct dentry *d;
	struct inode *dir;
	int err;

	mutex_lock(&vfs_lock);
	d = filename_create(dfd, name, &parent, false);
	if (IS_ERR(d)) {
		err = PTR_ERR(d);
		goto out;
	}
	dir = parent.dentry->d_inode;
	/* the umask applies to mknod as to open and mkdir (Linux's
	 * vfs_prepare_mode): a FIFO made with 0666 is 0644 under umask 022 */
	err = dir->i_op && dir->i_op->mknod ? dir->i_op->mknod(dir, d, mode & ~current_umask(), dev)
					    : -EPERM;
	dput(d);
	path_put(&parent);
out:
	mutex_unlock(&vfs_lock);
	return err;
}

/*
 * The existing child called by name's last component, for removal:
 * *parent referenced.  vfs_lock held.
 */
static struct dentry *lookup_for_removal(int dfd, const char *name, struct path *parent,
					 bool rmdir)
{
	const char *last;
	int len, err;
	struct dentry *d;

	err = __path_lookupat(dfd, name, LOOKUP_PARENT, parent, &last, &len);
	if (err)
		return ERR_PTR(err);
	if (is_dot_or_dotdot(last, len)) {
		/* Linux: rmdir(".") EINVAL, rmdir("..") ENOTEMPTY, unlink: EISDIR;
		 * before EROFS */
		err = !rmdir ? -EISDIR : len == 1 ? -EINVAL : -ENOTEMPTY;
		d = ERR_PTR(err);
		goto fail;
	}
	if (sb_rdonly(parent->dentry->d_sb)) {
		d = ERR_PTR(-EROFS);
		goto fail;
	}
	d = lookup_one(parent->dentry, last, len);
	if (IS_ERR(d))
		goto fail;
	if (!d->d_inode) {
		dput(d);
		d = ERR_PTR(-ENOENT);
		goto fail;
	}
	return d;
fail:
	path_put(parent);
	return d;
}

int do_rmdir(int dfd, const char *name)
{
	struct path parent;
	struct dentry *d;
	struct inode *dir;
	int err;

	mutex_lock(&vfs_lock);
	d = lookup_for_removal(dfd, name, &parent, true);
	if (IS_ERR(d)) {
		err = PTR_ERR(d);
		goto out;
	}
	dir = parent.dentry->d_inode;
	if (!S_ISDIR(d->d_inode->i_mode))
		err = -ENOTDIR;
	else if (d->d_mounted)
		err = -EBUSY;
	else if (!dir->i_op || !dir->i_op->rmdir)
		err = -EPERM;
	else
		err = dir->i_op->rmdir(dir, d);
	if (!err)
		d_delete(d);
	dput(d);
	path_put(&parent);
out:
	mutex_unlock(&vfs_lock);
	return err;
}

int do_unlinkat(int dfd, const char *name)
{
	struct path parent;
	struct dentry *d;
	struct inode *dir;
	int err;

	mutex_lock(&vfs_lock);
	d = lookup_for_removal(dfd, name, &parent, false);
	if (IS_ERR(d)) {
		err = PTR_ERR(d);
		goto out;
	}
	dir = parent.dentry->d_inode;
	if (S_ISDIR(d->d_inode->i_mode))
		err = -EISDIR;
	else if (!dir->i_op || !dir->i_op->unlink)
		err = -EPERM;
	else
		err = dir->i_op->unlink(dir, d);
	if (!err)
		d_delete(d);
	dput(d);
	path_put(&parent);
out:
	mutex_unlock(&vfs_lock);
	return err;
}

/*
 * link(2): a second name for an existing file.  Linux's order: the old
 * name's lookup errors, then the new name's (EEXIST, ENOENT for a
 * trailing slash, EROFS), then EXDEV across mounts, EPERM for a
 * directory or a file system without links, ENOENT for a file whose last
 * name went meanwhile; EMLINK is the file system's to say.
 */
int do_linkat(int olddfd, const char *oldname, int newdfd, const char *newname, bool follow)
{
	struct path old, parent;
	struct inode *dir, *inode;
	struct dentry *d;
	int err;

	mutex_lock(&vfs_lock);
	err = __path_lookupat(olddfd, oldname, follow ? 0 : LOOKUP_NOFOLLOW, &old, NULL, NULL);
	if (err)
		goto out;
	d = filename_create(newdfd, newname, &parent, false);
	if (IS_ERR(d)) {
		err = PTR_ERR(d);
		goto put_old;
	}
	dir = parent.dentry->d_inode;
	inode = old.dentry->d_inode;
	if (old.mnt != parent.mnt || dir->i_sb != inode->i_sb)
		err = -EXDEV;
	else if (!dir->i_op || !dir->i_op->link || S_ISDIR(inode->i_mode))
		err = -EPERM;
	else if (!inode->i_nlink)
		err = -ENOENT;
	else
		err = dir->i_op->link(old.dentry, dir, d);
	dput(d);
	path_put(&parent);
put_old:
	path_put(&old);
out:
	mutex_unlock(&vfs_lock);
	return err;
}

/* symlink(2): a new name holding target, which need not exist. */
int do_symlinkat(const char *target, int newdfd, const char *newname)
{
	struct path parent;
	struct inode *dir;
	struct dentry *d;
	int err;

	mutex_lock(&vfs_lock);
	d = filename_create(newdfd, newname, &parent, false);
	if (IS_ERR(d)) {
		err = PTR_ERR(d);
		goto out;
	}
	dir = parent.dentry->d_inode;
	err = dir->i_op && dir->i_op->symlink ? dir->i_op->symlink(dir, d, target) : -EPERM;
	dput(d);
	path_put(&parent);
out:
	mutex_unlock(&vfs_lock);
	return err;
}

/* An actor for dir_is_empty(): any name but "." and ".." ends the walk. */
struct empty_ctx {
	struct dir_context ctx;
	bool empty;
};

static bool empty_actor(struct dir_context *ctx, const char *name, int len, loff_t pos,
			u64 ino, unsigned int d_type)
{
	struct empty_ctx *e = container_of(ctx, struct empty_ctx, ctx);

	(void)pos;
	(void)ino;
	(void)d_type;
	if (is_dot_or_dotdot(name, len)) {
		ctx->pos++;
		return true;
	}
	e->empty = false;
	return false;
}

/*
 * Does the directory at *p hold nothing but "." and ".."?  Asked through
 * its own iterate(), so one answer serves every file system (ramfs's
 * names are its dentries, ext2's are in its blocks).  0, -ENOTEMPTY, or
 * the error reading it.
 */
static int dir_is_empty(const struct path *p)
{
	struct empty_ctx e = { .ctx.actor = empty_actor, .empty = true };
	struct file *f = dentry_open(p, O_RDONLY | O_DIRECTORY);
	int err;

	if (IS_ERR(f))
		return PTR_ERR(f);
	err = vfs_iterate(f, &e.ctx);
	fput(f);
	if (err)
		return err;
	return e.empty ? 0 : -ENOTEMPTY;
}

/* The last component of a LOOKUP_PARENT walk, copied: a second walk may
 * reuse the symbolic-link buffer it points into. */
struct last_name {
	char name[NAME_MAX + 1];
	int len;
	bool slash;             /* a '/' followed it: "a/" */
};

static int save_last(struct last_name *ln, const char *last, int len)
{
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(ln->name, last, len);
	ln->name[len] = '\0';
	ln->len = len;
	ln->slash = last[len] != '\0';
	return 0;
}

/*
 * The checks of Linux's do_renameat2 and vfs_rename, in their order, once
 * both names' directories are known: the answer, or 0 to go ahead.
 */
static int may_rename(const struct path *old_dir, struct dentry *old,
		      const struct last_name *oldn, const struct path *new_dir,
		      struct dentry *new, const struct last_name *newn, unsigned int flags)
{
	bool is_dir = S_ISDIR(old->d_inode->i_mode);
	int err;

	if ((flags & RENAME_NOREPLACE) && new->d_inode)
		return -EEXIST;
	if (!is_dir && (oldn->slash || newn->slash))
		return -ENOTDIR;
	/* a directory into itself or below: EINVAL; over one of its own
	 * ancestors (which is then not empty): ENOTEMPTY */
	if (is_subdir(new_dir->dentry, old))
		return -EINVAL;
	if (new->d_inode && is_subdir(old_dir->dentry, new))
		return -ENOTEMPTY;
	if (old->d_inode == new->d_inode)
		return 1;                       /* the same file: nothing to do */
	if (!new->d_inode) {
		if (!new_dir->dentry->d_inode->i_nlink)
			return -ENOENT;         /* into a removed directory */
	} else if (is_dir && !S_ISDIR(new->d_inode->i_mode)) {
		return -ENOTDIR;
	} else if (!is_dir && S_ISDIR(new->d_inode->i_mode)) {
		return -EISDIR;
	}
	if (!old_dir->dentry->d_inode->i_op || !old_dir->dentry->d_inode->i_op->rename)
		return -EPERM;
	if (old->d_mounted || new->d_mounted)
		return -EBUSY;
	if (new->d_inode && S_ISDIR(new->d_inode->i_mode)) {
		struct path target = { new_dir->mnt, new };

		err = dir_is_empty(&target);
		if (err)
			return err;
	}
	return 0;
}

/*
 * rename(2) and its *at forms: old's name becomes new's, replacing what
 * new named (atomically, as far as any other task can see: vfs_lock).
 * The dcache follows: the moved dentry takes the new name and parent,
 * the replaced one is dropped.  RENAME_NOREPLACE fails with EEXIST
 * instead of replacing; RENAME_EXCHANGE and RENAME_WHITEOUT are not
 * supported (EINVAL).
 */
int do_renameat2(int olddfd, const char *oldname, int newdfd, const char *newname,
		 unsigned int flags)
{
	struct path old_dir, new_dir;
	struct last_name oldn, newn;
	struct dentry *old = NULL, *new = NULL;
	struct inode *dir;
	const char *last;
	int len, err;

	if (flags & ~RENAME_NOREPLACE)
		return -EINVAL;
	mutex_lock(&vfs_lock);
	err = __path_lookupat(olddfd, oldname, LOOKUP_PARENT, &old_dir, &last, &len);
	if (err)
		goto out;
	err = save_last(&oldn, last, len);
	if (err)
		goto put_old_dir;
	err = IS_ERR(newname) ? PTR_ERR(newname) : __path_lookupat(newdfd, newname, LOOKUP_PARENT, &new_dir, &last, &len);
	if (err)
		goto put_old_dir;
	err = save_last(&newn, last, len);
	if (err)
		goto put_dirs;
	err = -EXDEV;
	if (old_dir.mnt != new_dir.mnt)
		goto put_dirs;
	err = -EBUSY;                           /* ".", "..", "/" */
	if (is_dot_or_dotdot(oldn.name, oldn.len))
		goto put_dirs;
	if (is_dot_or_dotdot(newn.name, newn.len)) {
		err = (flags & RENAME_NOREPLACE) ? -EEXIST : -EBUSY;
		goto put_dirs;
	}
	err = -EROFS;
	if (sb_rdonly(old_dir.dentry->d_sb))
		goto put_dirs;
	old = lookup_one(old_dir.dentry, oldn.name, oldn.len);
	if (IS_ERR(old)) {
		err = PTR_ERR(old);
		old = NULL;
		goto put_dirs;
	}
	err = -ENOENT;
	if (!old->d_inode)
		goto put_dentries;
	new = lookup_one(new_dir.dentry, newn.name, newn.len);
	if (IS_ERR(new)) {
		err = PTR_ERR(new);
		new = NULL;
		goto put_dentries;
	}
	err = may_rename(&old_dir, old, &oldn, &new_dir, new, &newn, flags);
	if (err) {
		if (err > 0)
			err = 0;
		goto put_dentries;
	}
	dir = old_dir.dentry->d_inode;
	err = dir->i_op->rename(dir, old, new_dir.dentry->d_inode, new);
	if (!err) {
		if (new->d_inode)
			d_delete(new);          /* the replaced name */
		d_move(old, new);
	}
put_dentries:
	dput(new);
	dput(old);
put_dirs:
	path_put(&new_dir);
put_old_dir:
	path_put(&old_dir);
out:
	mutex_unlock(&vfs_lock);
	return err;
}

/* --- the system calls: copy the name in, then the work above ------------- */

/*
 * The buffers path names are copied into (Linux's names_cache).  They
 * come from a mempool: unlink() and rmdir() are how a program frees the
 * memory a full file system holds, so they must work when kmalloc has
 * nothing left -- the reserve always holds a few names, and a caller that
 * finds it empty waits for one of the (short-lived) others to come back.
 * The rule that makes the wait safe: a task holds at most one name from
 * the pool at a time (mount's other strings come from kmalloc).
 */
#define NAMES_RESERVE   4
static mempool_t names_pool;

int names_cache_init(void)
{
	return mempool_init(&names_pool, NAMES_RESERVE, PATH_MAX, 0);
}

void putname(char *name)
{
	mempool_free(name, &names_pool);        /* NULL is fine */
}

/* Copy a path from user space into a PATH_MAX buffer (Linux getname). */
char *getname(const char __user *uname)
{
	char *name = mempool_alloc(&names_pool, GFP_KERNEL);
	long len;

	if (!name)
		return ERR_PTR(-ENOMEM);
	len = strncpy_from_user(name, uname, PATH_MAX);
	if (len < 0 || len >= PATH_MAX) {
		putname(name);
		return ERR_PTR(len < 0 ? -EFAULT : -ENAMETOOLONG);
	}
	if (len == 0) {
		putname(name);
		return ERR_PTR(-ENOENT);
	}
	return name;
}

long sys_mkdir(const char __user *pathname, umode_t mode)
{
	return WITH_NAME(pathname, kname, do_mkdirat(AT_FDCWD, kname, mode));
}

long sys_rmdir(const char __user *pathname)
{
	return WITH_NAME(pathname, kname, do_rmdir(AT_FDCWD, kname));
}

long sys_unlink(const char __user *pathname)
{
	return WITH_NAME(pathname, kname, do_unlinkat(AT_FDCWD, kname));
}

long sys_mkdirat(int dfd, const char __user *pathname, umode_t mode)
{
	return WITH_NAME(pathname, kname, do_mkdirat(dfd, kname, mode));
}

long sys_unlinkat(int dfd, const char __user *pathname, int flag)
{
	if (flag & ~AT_REMOVEDIR)
		return -EINVAL;
	if (flag & AT_REMOVEDIR)
		return WITH_NAME(pathname, kname, do_rmdir(dfd, kname));
	return WITH_NAME(pathname, kname, do_unlinkat(dfd, kname));
}

/*
 * The two-name calls.  A second name from the reserve would break the
 * one-name-per-task rule that keeps it safe (see getname), so the second
 * copy is plain kmalloc, as mount's strings.  Its errors (EFAULT,
 * ENAMETOOLONG, ENOENT for "") travel as an ERR_PTR name to where the
 * walk would use it, so the first name's errors come first, as Linux.
 */
static char *getname_kmalloc(const char __user *uname)
{
	char *k = copy_mount_string(uname);

	if (!k)
		return ERR_PTR(-EFAULT);        /* NULL */
	if (!IS_ERR(k) && !k[0]) {
		kfree(k);
		return ERR_PTR(-ENOENT);
	}
	return k;
}

/*
 * WITH_TWO_NAMES(uname1, kname1, uname2, kname2, call): WITH_NAME for
 * both names, the second copied with getname_kmalloc.
 */
#define WITH_TWO_NAMES(uname1, kname1, uname2, kname2, call) ({ \
	char *kname2 = getname_kmalloc(uname2);                 \
	long __r2 = WITH_NAME(uname1, kname1, call);            \
	if (!IS_ERR(kname2))                                    \
		kfree(kname2);                                  \
	__r2;                                                   \
})

long sys_linkat(int olddfd, const char __user *oldname, int newdfd, const char __user *newname,
		int flags)
{
	/* AT_EMPTY_PATH (link an open descriptor) is not supported */
	if (flags & ~AT_SYMLINK_FOLLOW)
		return -EINVAL;
	return WITH_TWO_NAMES(oldname, kold, newname, knew,
			      do_linkat(olddfd, kold, newdfd, knew, flags & AT_SYMLINK_FOLLOW));
}

long sys_link(const char __user *oldname, const char __user *newname)
{
	return sys_linkat(AT_FDCWD, oldname, AT_FDCWD, newname, 0);
}

long sys_symlinkat(const char __user *oldname, int newdfd, const char __user *newname)
{
	return WITH_TWO_NAMES(oldname, kold, newname, knew, do_symlinkat(kold, newdfd, knew));
}

long sys_symlink(const char __user *oldname, const char __user *newname)
{
	return sys_symlinkat(oldname, AT_FDCWD, newname);
}

long sys_renameat2(int olddfd, const char __user *oldname, int newdfd,
		   const char __user *newname, unsigned int flags)
{
	return WITH_TWO_NAMES(oldname, kold, newname, knew,
			      do_renameat2(olddfd, kold, newdfd, knew, flags));
}

long sys_renameat(int olddfd, const char __user *oldname, int newdfd,
		  const char __user *newname)
{
	return sys_renameat2(olddfd, oldname, newdfd, newname, 0);
}

long sys_rename(const char __user *oldname, const char __user *newname)
{
	return sys_renameat2(AT_FDCWD, oldname, AT_FDCWD, newname, 0);
}

/*
 * mknod(2): a FIFO, a device node, or (type 0 or S_IFREG) an empty
 * regular file, as Linux's may_mknod decides: a directory is EPERM (that
 * is mkdir's job), a socket EPERM too (no file system here can hold one;
 * Linux's man page: "the file system does not support the type"), any
 * other type EINVAL.  dev is user space's encoding (new_decode_dev).
 */
static int mknod_checked(int dfd, const char *name, umode_t mode, unsigned int dev)
{
	unsigned int major = (dev & 0xfff00) >> 8;
	unsigned int minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);

	mode &= S_IFMT | 07777;
	switch (mode & S_IFMT) {
	case 0:
		mode |= S_IFREG;
		/* fall through */
	case S_IFREG:
	case S_IFIFO:
	case S_IFCHR:
	case S_IFBLK:
		break;
	case S_IFDIR:
	case S_IFSOCK:
		return -EPERM;
	default:
		return -EINVAL;
	}
	return do_mknodat(dfd, name, mode,
			  S_ISCHR(mode) || S_ISBLK(mode) ? MKDEV(major, minor) : 0);
}

long sys_mknod(const char __user *filename, umode_t mode, unsigned int dev)
{
	return WITH_NAME(filename, kname, mknod_checked(AT_FDCWD, kname, mode, dev));
}

long sys_mknodat(int dfd, const char __user *filename, umode_t mode, unsigned int dev)
{
	return WITH_NAME(filename, kname, mknod_checked(dfd, kname, mode, dev));
}
