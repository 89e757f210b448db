// SPDX-License-Identifier: MIT
/*
 * pseudo.c - generated files, for proc and sysfs.
 *
 * A generated file has no data of its own: opening it asks its
 * pseudo_file's show() for the whole text (/proc/partitions, a sysfs
 * "size"), and reads come from that snapshot -- so a reader that takes the
 * file in small pieces still sees one consistent text.  A write hands the
 * written bytes to store() (queue/scheduler: "cscan" -> elevator_switch).
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include "internal.h"

struct pseudo_buf {
	char *text;
	size_t len;
};

static const struct pseudo_file *pseudo_of(struct inode *inode)
{
	return inode->i_fop_data;
}

static int pseudo_open(struct inode *inode, struct file *f)
{
	const struct pseudo_file *pf = pseudo_of(inode);
	struct pseudo_buf *pb = kzalloc(sizeof(*pb), GFP_KERNEL);
	size_t hint = pf->size_hint_of ? pf->size_hint_of(inode) : pf->size_hint;
	size_t size = hint ? hint : PAGE_SIZE;
	int n;

	if (!pb)
		return -ENOMEM;
	f->private_data = pb;
	if (!(f->f_mode & FMODE_READ) || !pf->show)
		return (f->f_mode & FMODE_READ) ? -EACCES : 0;
	pb->text = kmalloc(size, GFP_KERNEL);
	if (!pb->text) {
		kfree(pb);
		return -ENOMEM;
	}
	n = pf->show(inode, pb->text, size);
	if (n < 0) {
		kfree(pb->text);
		kfree(pb);
		return n;
	}
	pb->len = n;
	return 0;
}

static int pseudo_release(struct inode *inode, struct file *f)
{
	struct pseudo_buf *pb = f->private_data;

	(void)inode;
	if (pb) {
		kfree(pb->text);
		kfree(pb);
	}
	return 0;
}

static ssize_t pseudo_read(struct file *f, struct iov_iter *to, loff_t *pos)
{
	struct pseudo_buf *pb = f->private_data;
	size_t n, copied;

	if (*pos >= (loff_t)pb->len)
		return 0;
	n = min(pb->len - (size_t)*pos, iov_iter_count(to));
	copied = copy_to_iter(pb->text + *pos, n, to);
	*pos += copied;
	return copied ? (ssize_t)copied : -EFAULT;
}

static ssize_t pseudo_write(struct file *f, struct iov_iter *from, loff_t *pos)
{
	const struct pseudo_file *pf = pseudo_of(f->f_inode);
	size_t n = iov_iter_count(from);
	char *buf;
	int err;

	if (!pf->store)
		return -EACCES;
	if (n >= PAGE_SIZE)
		return -EINVAL;
	buf = kmalloc(n + 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (copy_from_iter(buf, n, from) < n) {
		kfree(buf);
		return -EFAULT;
	}
	buf[n] = '\0';
	err = pf->store(f->f_inode, buf, n);
	kfree(buf);
	if (err)
		return err;
	*pos += n;
	return n;
}

static loff_t pseudo_llseek(struct file *f, loff_t offset, int whence)
{
	struct pseudo_buf *pb = f->private_data;
	loff_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? f->f_pos :
		      whence == SEEK_END ? (loff_t)pb->len : -1;

	if (base < 0)
		return -EINVAL;
	return vfs_setpos(f, base, offset, MAX_LFS_FILESIZE);
}

const struct file_operations pseudo_file_fops = {
	.llseek = pseudo_llseek,
	.read_iter = pseudo_read,
	.write_iter = pseudo_write,
	.open = pseudo_open,
	.release = pseudo_release,
};

struct inode *pseudo_new_file(struct super_block *sb, umode_t mode,
			      const struct pseudo_file *pf, void *priv)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_mode = S_IFREG | (mode & 07777);
	inode->i_fop = &pseudo_file_fops;
	inode->i_fop_data = pf;
	inode->i_private = priv;
	return inode;
}

struct inode *pseudo_new_dir(struct super_block *sb, const struct inode_operations *iop,
			     const struct file_operations *fop, void *priv)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_mode = S_IFDIR | 0555;
	inode->i_nlink = 2;
	inode->i_op = iop;
	inode->i_fop = fop;
	inode->i_private = priv;
	return inode;
}

