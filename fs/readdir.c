// SPDX-License-Identifier: MIT
/*
 * readdir.c - getdents64(2): a directory's entries as linux_dirent64
 * records.
 *
 * The file system's iterate() calls dir_emit() per entry; the actor here
 * packs each into the caller's buffer (a kernel bounce buffer, copied out
 * at the end) and says "full" when the next would not fit.  f_pos is the
 * file system's position cookie, so the next call continues there; a
 * buffer too small for even one record is EINVAL, as Linux.
 *
 * The position moves only past what reached the user: the records are
 * copied out one by one under f_pos_lock, and if the user's buffer
 * faults part-way, f_pos is the d_off of the last record copied (the
 * call returns those bytes; EFAULT if there were none), so a retry with
 * a good buffer lists the rest -- as Linux's filldir64, which writes
 * each record straight to the user and stops at the first fault.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/uaccess.h>
#include "internal.h"

#define GETDENTS_MAX    (64 * 1024)     /* bytes of records per call */

struct getdents_ctx {
	struct dir_context ctx;
	char *buf;
	unsigned int size, used;
	int error;
};

static bool filldir64(struct dir_context *ctx, const char *name, int len,
		      loff_t pos, u64 ino, unsigned int d_type)
{
	struct getdents_ctx *g = container_of(ctx, struct getdents_ctx, ctx);
	unsigned int reclen = ALIGN(offsetof(struct linux_dirent64, d_name) + len + 1, 8);
	struct linux_dirent64 *d;

	(void)pos;
	if (g->used + reclen > g->size) {
		if (!g->used)
			g->error = -EINVAL;     /* not even one fits */
		return false;
	}
	d = (struct linux_dirent64 *)(g->buf + g->used);
	memset(d, 0, reclen);
	d->d_ino = ino;
	d->d_off = ctx->pos + 1;        /* where a later call resumes */
	d->d_reclen = reclen;
	d->d_type = d_type;
	memcpy(d->d_name, name, len);
	g->used += reclen;
	ctx->pos++;
	return true;
}

static bool can_iterate(struct file *f)
{
	return S_ISDIR(f->f_inode->i_mode) && f->f_op && f->f_op->iterate;
}

int vfs_iterate(struct file *f, struct dir_context *ctx)
{
	int err;

	if (!can_iterate(f))
		return -ENOTDIR;
	mutex_lock(&f->f_pos_lock);
	ctx->pos = f->f_pos;
	err = f->f_op->iterate(f, ctx);
	f->f_pos = ctx->pos;
	mutex_unlock(&f->f_pos_lock);
	return err;
}

/* The records filled, or the reason there are none (EINVAL: too small). */
static long getdents_result(const struct getdents_ctx *g)
{
	return g->error && !g->used ? g->error : (long)g->used;
}

long ksys_getdents64(unsigned int fd, void *buf, unsigned int count)
{
	struct getdents_ctx g = { .ctx.actor = filldir64, .buf = buf, .size = count };
	struct file *f = fget(fd);
	int err;

	if (!f)
		return -EBADF;
	err = vfs_iterate(f, &g.ctx);
	fput(f);
	return err ? err : getdents_result(&g);
}

/*
 * Copy g's records to the user, whole records only, up to the first that
 * faults.  Returns the bytes copied; *pos becomes the d_off of the last
 * record copied (unchanged if none was).
 */
static long getdents_copy_out(struct linux_dirent64 __user *dirent,
			      const struct getdents_ctx *g, loff_t *pos)
{
	unsigned int off = 0;

	while (off < g->used) {
		const struct linux_dirent64 *d = (const void *)(g->buf + off);

		if (copy_to_user((char __user *)dirent + off, d, d->d_reclen))
			break;
		*pos = d->d_off;
		off += d->d_reclen;
	}
	return off;
}

long sys_getdents64(unsigned int fd, struct linux_dirent64 __user *dirent, unsigned int count)
{
	unsigned int size = count > GETDENTS_MAX ? GETDENTS_MAX : count;
	struct getdents_ctx g = { .ctx.actor = filldir64, .size = size };
	struct file *f;
	long ret;

	f = fget(fd);
	if (!f)
		return -EBADF;
	ret = -ENOTDIR;
	if (!can_iterate(f))
		goto out;
	ret = -ENOMEM;
	g.buf = kmalloc(size ? size : 1, GFP_KERNEL);
	if (!g.buf)
		goto out;
	mutex_lock(&f->f_pos_lock);
	g.ctx.pos = f->f_pos;
	ret = f->f_op->iterate(f, &g.ctx);
	if (!ret && g.used) {
		loff_t pos = f->f_pos;
		long copied = getdents_copy_out(dirent, &g, &pos);

		/* all of it: the file system's own position (it may have
		 * moved past entries it skipped); else past what arrived */
		f->f_pos = copied == (long)g.used ? g.ctx.pos : pos;
		ret = copied ? copied : -EFAULT;
	} else if (!ret) {
		f->f_pos = g.ctx.pos;
		ret = getdents_result(&g);
	}
	mutex_unlock(&f->f_pos_lock);
	kfree(g.buf);
out:
	fput(f);
	return ret;
}

/* "." and ".." at positions 0 and 1, for every directory's iterate(). */
bool dir_emit_dots(struct file *f, struct dir_context *ctx)
{
	struct dentry *d = f->f_path.dentry;

	if (ctx->pos == 0) {
		if (!dir_emit(ctx, ".", 1, d->d_inode->i_ino, DT_DIR))
			return false;
	}
	if (ctx->pos == 1) {
		struct inode *p = d->d_parent->d_inode;

		if (!dir_emit(ctx, "..", 2, p ? p->i_ino : d->d_inode->i_ino, DT_DIR))
			return false;
	}
	return true;
}
