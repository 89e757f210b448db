/*
 * readdir.c - getdents64(2): a directory's entries as linux_dirent64
 * records.
 *
 * The file system's iterate() calls dir_emit() per entry; the actor here
 * packs each into the caller's buffer (a kernel bounce buffer, copied out
 * at the end) and says "full" when the next would not fit.  f_pos is the
 * file system's position cookie, so the next call continues there; a
 * buffer too small for even one record is EINVAL, as Linux.
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

int vfs_iterate(struct file *f, struct dir_context *ctx)
{
	struct inode *inode = f->f_inode;
	int err;

	if (!S_ISDIR(inode->i_mode))
		return -ENOTDIR;
	if (!f->f_op || !f->f_op->iterate)
		return -ENOTDIR;
	mutex_lock(&f->f_pos_lock);
	ctx->pos = f->f_pos;
	err = f->f_op->iterate(f, ctx);
	f->f_pos = ctx->pos;
	mutex_unlock(&f->f_pos_lock);
	return err;
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
	if (err)
		return err;
	return g.error && !g.used ? g.error : (long)g.used;
}

long sys_getdents64(unsigned int fd, struct linux_dirent64 __user *dirent, unsigned int count)
{
	unsigned int size = count > GETDENTS_MAX ? GETDENTS_MAX : count;
	char *k = kmalloc(size ? size : 1, GFP_KERNEL);
	long n;

	if (!k)
		return -ENOMEM;
	n = ksys_getdents64(fd, k, size);
	if (n > 0 && copy_to_user(dirent, k, n))
		n = -EFAULT;
	kfree(k);
	return n;
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
