// SPDX-License-Identifier: MIT
/*
 * char_dev.c - character devices by number, and the memory devices.
 *
 * A character-device node (in devtmpfs, or one the initramfs made) names
 * a driver only by its major:minor; opening it asks chrdev_fops() for the
 * driver's file_operations.  Spindle's character devices are few and
 * fixed, so this is a table rather than Linux's register_chrdev():
 *
 *   1:3  /dev/null      reads end at once, writes vanish
 *   1:5  /dev/zero      reads give zeroes, writes vanish
 *   5:1  /dev/console   the console tty (fs/tty.c)
 */
#include <spindle/fs.h>
#include <spindle/blkdev.h>
#include "internal.h"

static ssize_t null_read(struct file *f, struct iov_iter *to, loff_t *pos)
{
	(void)f; (void)to; (void)pos;
	return 0;
}

static ssize_t null_write(struct file *f, struct iov_iter *from, loff_t *pos)
{
	size_t n = iov_iter_count(from);

	(void)f;
	iov_iter_advance(from, n);
	*pos += n;
	return n;
}

static ssize_t zero_read(struct file *f, struct iov_iter *to, loff_t *pos)
{
	size_t want = iov_iter_count(to), n = iov_iter_zero(want, to);

	(void)f;
	*pos += n;
	return n ? (ssize_t)n : -EFAULT;
}

/* /dev/null and /dev/zero have no position: every seek succeeds and
 * leaves it at 0, as Linux's null_lseek. */
static loff_t mem_lseek(struct file *f, loff_t offset, int whence)
{
	(void)offset; (void)whence;
	f->f_pos = 0;
	return 0;
}

static const struct file_operations null_fops = {
	.llseek = mem_lseek, .read_iter = null_read, .write_iter = null_write,
};
static const struct file_operations zero_fops = {
	.llseek = mem_lseek, .read_iter = zero_read, .write_iter = null_write,
};

const struct file_operations *chrdev_fops(dev_t dev)
{
	if (dev == MKDEV(MEM_MAJOR, 3))
		return &null_fops;
	if (dev == MKDEV(MEM_MAJOR, 5))
		return &zero_fops;
	if (dev == MKDEV(TTYAUX_MAJOR, 1))
		return &tty_fops;
	return NULL;
}
