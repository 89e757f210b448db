// SPDX-License-Identifier: MIT
/*
 * file_table.c - struct file: one open() of an inode.
 *
 * A file carries what belongs to this opening rather than to the file
 * itself: the position, the open flags, the access mode.  Descriptors
 * (dup, fork) share one struct file, so they share the position, as in
 * Unix.  The last fput() calls the file's release() -- for a block device
 * that writes back its cache, for a pipe it wakes the other end -- and
 * lets go of the path.
 */
#include <spindle/fs.h>
#include <spindle/string.h>
#include <spindle/mm.h>
#include <spindle/pagemap.h>
#include "internal.h"

/*
 * A file opened for writing that writes the file system's own blocks (not
 * a device node or a FIFO, which write elsewhere: Linux's special_file())
 * is one of its mount's writers from here to its last fput(), as in
 * Linux's do_dentry_open.  mnt_want_write() refuses it (EROFS) if the file
 * system is read-only or is being remounted so, under the lock that
 * remount's "no writers" check takes: an open either counts before the
 * check (the remount gets EBUSY) or sees the remount (the open gets EROFS).
 */
static bool counts_as_writer(const struct path *path, unsigned int flags)
{
	struct inode *inode = path ? path->dentry->d_inode : NULL;

	return inode && path->mnt && (flags & O_ACCMODE) != O_RDONLY &&
	       !S_ISCHR(inode->i_mode) && !S_ISBLK(inode->i_mode) && !S_ISFIFO(inode->i_mode);
}

struct file *alloc_file(const struct path *path, unsigned int flags,
			const struct file_operations *fop)
{
	bool writer = counts_as_writer(path, flags);
	struct file *f;

	if (writer) {
		int err = mnt_want_write(path->mnt);

		if (err)
			return ERR_PTR(err);
	}
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f) {
		if (writer)
			mnt_drop_write(path->mnt);
		return ERR_PTR(-ENOMEM);
	}
	refcount_set(&f->f_count, 1);
	f->f_flags = flags;
	switch (flags & O_ACCMODE) {
	case O_RDONLY: f->f_mode = FMODE_READ; break;
	case O_WRONLY: f->f_mode = FMODE_WRITE; break;
	default:       f->f_mode = FMODE_READ | FMODE_WRITE; break;
	}
	f->f_op = fop;
	mutex_init(&f->f_pos_lock);
	if (path) {
		f->f_path = *path;
		path_get(path);
		f->f_inode = path->dentry->d_inode;
		if (f->f_inode && f->f_inode->i_mapping) {
			f->f_mapping = f->f_inode->i_mapping;
			f->f_wb_err = errseq_sample(&f->f_mapping->wb_err);
			file_ra_state_init(&f->f_ra);
		}
		if (writer)
			f->f_mode |= FMODE_WRITER;
	}
	return f;
}

/*
 * A file on an inode that no directory holds (Linux's alloc_file_pseudo):
 * a dentry named name, with no parent and no mount, instantiated with the
 * inode, and the file opened on it.  The caller's reference to the inode
 * is the dentry's, then the file's: on failure it has been dropped.  Used
 * by anonymous inodes (timerfd, io_uring), shared memory and the console.
 */
struct file *alloc_file_pseudo(struct inode *inode, const char *name, unsigned int flags,
			       const struct file_operations *fop)
{
	struct dentry *d = d_alloc(NULL, name, min((int)strlen(name), NAME_MAX));
	struct path path;
	struct file *f;

	if (IS_ERR(d)) {
		iput(inode);
		return ERR_CAST(d);
	}
	d_instantiate(d, inode);
	path.mnt = NULL;
	path.dentry = d;
	f = alloc_file(&path, flags, fop);
	dput(d);                        /* the file holds it now, or nothing does */
	return f;
}

/* get_file() is inline in fs.h; fput() drops what it took. */

void fput(struct file *f)
{
	if (!f || !refcount_dec_and_test(&f->f_count))
		return;
	if (f->f_op && f->f_op->release)
		f->f_op->release(f->f_inode, f);
	if (f->f_mode & FMODE_WRITER)
		mnt_drop_write(f->f_path.mnt);
	if (f->f_path.dentry)
		path_put(&f->f_path);
	kfree(f);
}
