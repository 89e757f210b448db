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
#include <spindle/mm.h>
#include <spindle/pagemap.h>
#include "internal.h"

static DEFINE_SPINLOCK(files_lock);     /* f_count of every file */

struct file *alloc_file(const struct path *path, unsigned int flags,
			const struct file_operations *fop)
{
	struct file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return ERR_PTR(-ENOMEM);
	f->f_count = 1;
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
		/* a writer of the fs's own files (not of a device node or a
		 * FIFO, which write elsewhere): remount ro is refused while
		 * there is one, as Linux counts a mount's writers */
		if ((f->f_mode & FMODE_WRITE) && f->f_inode && f->f_inode->i_sb &&
		    !S_ISCHR(f->f_inode->i_mode) && !S_ISBLK(f->f_inode->i_mode) &&
		    !S_ISFIFO(f->f_inode->i_mode)) {
			f->f_mode |= FMODE_WRITER;
			spin_lock(&files_lock);
			f->f_inode->i_sb->s_writers++;
			spin_unlock(&files_lock);
		}
	}
	return f;
}

/* Files open for writing on sb (the remount ro check). */
int sb_writers(struct super_block *sb)
{
	int n;

	spin_lock(&files_lock);
	n = sb->s_writers;
	spin_unlock(&files_lock);
	return n;
}

struct file *get_file(struct file *f)
{
	spin_lock(&files_lock);
	f->f_count++;
	spin_unlock(&files_lock);
	return f;
}

void fput(struct file *f)
{
	int left;

	if (!f)
		return;
	spin_lock(&files_lock);
	left = --f->f_count;
	spin_unlock(&files_lock);
	if (left)
		return;
	if (f->f_op && f->f_op->release)
		f->f_op->release(f->f_inode, f);
	if (f->f_mode & FMODE_WRITER) {
		spin_lock(&files_lock);
		f->f_inode->i_sb->s_writers--;
		spin_unlock(&files_lock);
	}
	if (f->f_path.dentry)
		path_put(&f->f_path);
	kfree(f);
}
