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

int do_chdir(const char *name)
{
	struct fs_struct *fs = current->fs;
	struct path p;
	int err;

	if (!fs)
		return -EINVAL;         /* a kernel thread has no cwd of its own */
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

static void putname(char *name)
{
	mempool_free(name, &names_pool);        /* NULL is fine */
}

/* Copy a path from user space into a PATH_MAX buffer (Linux getname). */
static char *getname(const char __user *uname)
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

/*
 * WITH_NAME(uname, call): copy the user's path in, evaluate call with the
 * kernel copy available as __name, free the copy; -EFAULT/-ENAMETOOLONG/
 * -ENOENT from the copy itself.  Just the getname/putname pair of every
 * path system call, written once.
 */
#define WITH_NAME(uname, call) ({ \
	char *__n = getname(uname); \
	long __r = IS_ERR(__n) ? PTR_ERR(__n) : (call); \
	if (!IS_ERR(__n)) \
		putname(__n); \
	__r; \
})
#define __name __n

long sys_mkdir(const char __user *pathname, umode_t mode)
{
	return WITH_NAME(pathname, do_mkdirat(AT_FDCWD, __name, mode));
}

long sys_rmdir(const char __user *pathname)
{
	return WITH_NAME(pathname, do_rmdir(AT_FDCWD, __name));
}

long sys_unlink(const char __user *pathname)
{
	return WITH_NAME(pathname, do_unlinkat(AT_FDCWD, __name));
}

long sys_mkdirat(int dfd, const char __user *pathname, umode_t mode)
{
	return WITH_NAME(pathname, do_mkdirat(dfd, __name, mode));
}

#define AT_REMOVEDIR 0x200

long sys_unlinkat(int dfd, const char __user *pathname, int flag)
{
	if (flag & ~AT_REMOVEDIR)
		return -EINVAL;
	if (flag & AT_REMOVEDIR)
		return WITH_NAME(pathname, do_rmdir(dfd, __name));
	return WITH_NAME(pathname, do_unlinkat(dfd, __name));
}

/*
 * The two-name calls.  A second name from the reserve would break the
 * one-name-per-task rule that keeps it safe (see getname), so the second
 * copy is plain kmalloc, as mount's strings.  Its errors (EFAULT,
 * ENAMETOOLONG, ENOENT for "") travel as an ERR_PTR name to where the
 * walk would use it, so the first name's errors come first, as Linux.
 */
static char *copy_mount_string(const char __user *s);

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

#define WITH_TWO_NAMES(uname1, uname2, call) ({ \
	char *__n2 = getname_kmalloc(uname2); \
	long __r2 = WITH_NAME(uname1, call); \
	if (!IS_ERR(__n2)) \
		kfree(__n2); \
	__r2; \
})
#define __name2 __n2

#define AT_SYMLINK_FOLLOW 0x400

long sys_linkat(int olddfd, const char __user *oldname, int newdfd, const char __user *newname,
		int flags)
{
	/* AT_EMPTY_PATH (link an open descriptor) is not supported */
	if (flags & ~AT_SYMLINK_FOLLOW)
		return -EINVAL;
	return WITH_TWO_NAMES(oldname, newname,
			      do_linkat(olddfd, __name, newdfd, __name2, flags & AT_SYMLINK_FOLLOW));
}

long sys_link(const char __user *oldname, const char __user *newname)
{
	return sys_linkat(AT_FDCWD, oldname, AT_FDCWD, newname, 0);
}

long sys_symlinkat(const char __user *oldname, int newdfd, const char __user *newname)
{
	return WITH_TWO_NAMES(oldname, newname, do_symlinkat(__name, newdfd, __name2));
}

long sys_symlink(const char __user *oldname, const char __user *newname)
{
	return sys_symlinkat(oldname, AT_FDCWD, newname);
}

long sys_renameat2(int olddfd, const char __user *oldname, int newdfd,
		   const char __user *newname, unsigned int flags)
{
	return WITH_TWO_NAMES(oldname, newname,
			      do_renameat2(olddfd, __name, newdfd, __name2, flags));
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
	return WITH_NAME(filename, mknod_checked(AT_FDCWD, __name, mode, dev));
}

long sys_mknodat(int dfd, const char __user *filename, umode_t mode, unsigned int dev)
{
	return WITH_NAME(filename, mknod_checked(dfd, __name, mode, dev));
}

long sys_chdir(const char __user *filename)
{
	return WITH_NAME(filename, do_chdir(__name));
}

long sys_open(const char __user *filename, int flags, umode_t mode)
{
	return WITH_NAME(filename, ksys_open(AT_FDCWD, __name, flags, mode));
}

long sys_openat(int dfd, const char __user *filename, int flags, umode_t mode)
{
	return WITH_NAME(filename, ksys_open(dfd, __name, flags, mode));
}

long sys_stat(const char __user *filename, struct stat __user *statbuf)
{
	struct stat st;
	long err = WITH_NAME(filename, ksys_stat(__name, &st));

	if (!err && copy_to_user(statbuf, &st, sizeof(st)))
		err = -EFAULT;
	return err;
}

long sys_statfs(const char __user *pathname, struct statfs __user *ubuf)
{
	struct statfs buf;
	long err = WITH_NAME(pathname, ksys_statfs(__name, &buf));

	if (!err && copy_to_user(ubuf, &buf, sizeof(buf)))
		err = -EFAULT;
	return err;
}

/* lstat: a symbolic link itself, not what it points at. */
long sys_lstat(const char __user *filename, struct stat __user *statbuf)
{
	struct stat st;
	long err = WITH_NAME(filename, ksys_lstat(__name, &st));

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
	n = WITH_NAME(pathname, ksys_readlinkat(dfd, __name, k, min(bufsiz, PATH_MAX)));
	if (n > 0 && copy_to_user(buf, k, n))
		n = -EFAULT;
	kfree(k);
	return n;
}

/* --- the *at() calls of the C library: a path relative to a directory fd -- */

#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_EACCESS 0x200
#define AT_EMPTY_PATH 0x1000
#define AT_STATX_SYNC_TYPE 0x6000 /* statx: how fresh; always fresh here */

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
static int empty_path(const char __user *filename)
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
	return WITH_NAME(filename, path_getattr(dfd, __name,
						(flags & AT_SYMLINK_NOFOLLOW) ? LOOKUP_NOFOLLOW : 0, st));
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
	return WITH_NAME(filename, may_access(dfd, __name, mode,
					      flags & AT_SYMLINK_NOFOLLOW ? LOOKUP_NOFOLLOW : 0));
}

long sys_faccessat(int dfd, const char __user *filename, int mode)
{
	return sys_faccessat2(dfd, filename, mode, 0);
}

long sys_access(const char __user *filename, int mode)
{
	return sys_faccessat2(AT_FDCWD, filename, mode, 0);
}

/*
 * utimensat: set a file's modification time (touch).  Spindle keeps one
 * time per inode, the mtime, which stat reports for all three: the second
 * of the two times (mtime) is the one set; UTIME_NOW is now, UTIME_OMIT
 * leaves it.  A NULL path is the descriptor itself (futimens), and
 * AT_SYMLINK_NOFOLLOW sets a symbolic link's own time (touch -h).
 */
#define UTIME_NOW ((1l << 30) - 1l)
#define UTIME_OMIT ((1l << 30) - 2l)

static int set_mtime(struct dentry *dentry, u64 mtime_ns)
{
	struct iattr attr = { .ia_valid = ATTR_MTIME, .ia_mtime_ns = mtime_ns };

	return notify_change(dentry, &attr);    /* EROFS on a read-only mount */
}

int do_set_mtime(int dfd, const char *name, unsigned int lookup_flags, const u64 *mtime_ns)
{
	struct path p;
	int err = kern_path_at(dfd, name, lookup_flags, &p);

	if (err)
		return err;
	if (mtime_ns)
		err = set_mtime(p.dentry, *mtime_ns);
	path_put(&p);
	return err;
}

/* utimensat's times[1] as nanoseconds in *ns: 1, 0 (UTIME_OMIT: none)
 * or -EINVAL */
static int utime_to_ns(const struct timespec *t, u64 *ns)
{
	if (t->tv_nsec == UTIME_OMIT)
		return 0;
	if (t->tv_nsec == UTIME_NOW)
		*ns = fs_now_ns();
	else if (t->tv_sec < 0 || t->tv_nsec < 0 || t->tv_nsec >= 1000000000)
		return -EINVAL;
	else
		*ns = (u64)t->tv_sec * 1000000000ull + t->tv_nsec;
	return 1;
}

long sys_utimensat(int dfd, const char __user *filename, const struct timespec __user *utimes,
		   int flags)
{
	struct timespec t[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	unsigned int lookup = (flags & AT_SYMLINK_NOFOLLOW) ? LOOKUP_NOFOLLOW : 0;
	u64 ns = 0;
	int set;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (utimes && copy_from_user(t, utimes, sizeof(t)))
		return -EFAULT;
	if (t[0].tv_nsec == UTIME_OMIT && t[1].tv_nsec == UTIME_OMIT)
		return 0;                       /* as Linux: not even the name is looked up */
	set = utime_to_ns(&t[1], &ns);
	if (set < 0)
		return set;
	if (!filename) {
		struct file *f = fget(dfd);
		int err;

		if (!f)
			return -EBADF;
		err = set ? set_mtime(f->f_path.dentry, ns) : 0;
		fput(f);
		return err;
	}
	return WITH_NAME(filename, do_set_mtime(dfd, __name, lookup, set ? &ns : NULL));
}

/* --- chmod, chown, truncate by name (the work: open.c) ---------------------- */

long sys_fchmodat(int dfd, const char __user *filename, umode_t mode)
{
	return WITH_NAME(filename, ksys_fchmodat(dfd, __name, mode));
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
	return WITH_NAME(filename, ksys_fchownat(dfd, __name, user, group, flag));
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
	return WITH_NAME(path, ksys_truncate(__name, length));
}

/*
 * The copy of a small string argument (a mount type, a device name), as
 * Linux's strndup_user: plain kmalloc, not the names reserve -- mount
 * needs three strings at once, and two mounts each holding part of the
 * reserve while waiting for the rest would wait forever.  Every caller
 * of getname() holds one name at a time.
 */
static char *copy_mount_string(const char __user *s)
{
	char *k;
	long n;

	if (!s)
		return NULL;
	k = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!k)
		return ERR_PTR(-ENOMEM);
	n = strncpy_from_user(k, s, PATH_MAX);
	if (n < 0 || n == PATH_MAX) {
		kfree(k);
		return ERR_PTR(n < 0 ? -EFAULT : -ENAMETOOLONG);
	}
	return k;
}

/*
 * mount(2)'s data: for every Spindle file system a text of options
 * ("size=64m,mode=1777"), at most a page as in Linux's
 * copy_mount_options; NULL when there is none.
 */
static char *copy_mount_options(const void __user *data)
{
	char *k;
	long n;

	if (!data)
		return NULL;
	k = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!k)
		return ERR_PTR(-ENOMEM);
	n = strncpy_from_user(k, data, PAGE_SIZE);
	if (n < 0 || n == PAGE_SIZE) {
		kfree(k);
		return ERR_PTR(n < 0 ? -EFAULT : -EINVAL);
	}
	return k;
}

long sys_mount(char __user *dev_name, char __user *dir_name, char __user *type,
	       unsigned long flags, void __user *data)
{
	char *dev = NULL, *dir = NULL, *t = NULL, *opts = NULL;
	long err;

	dev = copy_mount_string(dev_name);      /* NULL: "none", fine for virtual ones */
	if (IS_ERR(dev))
		return PTR_ERR(dev);            /* a bad pointer is EFAULT, as Linux */
	t = copy_mount_string(type);
	if (IS_ERR(t) || (!t && !(flags & MS_REMOUNT))) { /* remount: no type needed */
		err = t ? PTR_ERR(t) : -EINVAL;
		t = NULL;
		goto out;
	}
	dir = getname(dir_name);
	if (IS_ERR(dir)) {
		err = PTR_ERR(dir);
		dir = NULL;
		goto out;
	}
	opts = copy_mount_options(data);
	if (IS_ERR(opts)) {
		err = PTR_ERR(opts);
		opts = NULL;
		goto out;
	}
	err = do_mount(dev, dir, t, flags, opts);
out:
	kfree(dev);
	putname(dir);
	kfree(t);
	kfree(opts);
	return err;
}

long sys_umount2(char __user *name, int flags)
{
	return WITH_NAME(name, do_umount(__name, flags));
}
