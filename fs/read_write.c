// SPDX-License-Identifier: MIT
/*
 * read_write.c - read, write, lseek, pread, pwrite: the descriptor to the
 * file's read_iter()/write_iter().
 *
 * A read(fd, buf, n) becomes: fdget(fd) -> an ITER_UBUF iov_iter over buf
 * -> vfs_read(), which checks the access mode and calls the file's
 * read_iter() with the position -> e.g. ramfs copies from its pages,
 * a block device from its cache or through a bio (block_dev.c) -> the
 * new position is stored back in f_pos.  The kernel's own reads
 * (kernel_read: exec, the init script) take the same path with an
 * ITER_KVEC.  f_pos_lock keeps two descriptors sharing a file (dup, fork)
 * from reading the same bytes twice.
 *
 * preadv2/pwritev2 add RWF_* flags per call; RWF_HIPRI on an O_DIRECT
 * block device polls for the completion (fs/direct-io.c, bio_poll).
 */
#include <spindle/fs.h>
#include <spindle/uaccess.h>
#include <spindle/mm.h>
#include <spindle/aio.h>
#include <uapi/linux/fs.h>
#include "internal.h"

#define MAX_RW_COUNT    0x7ffff000ul    /* Linux's cap on one read or write */

/* What vfs_read and vfs_write check before the file sees the call; may
 * shorten it to MAX_RW_COUNT.  0: go on. */
static ssize_t rw_checks(struct file *f, struct iov_iter *it, loff_t pos, bool write)
{
	int err;

	if (!(f->f_mode & (write ? FMODE_WRITE : FMODE_READ)))
		return -EBADF;
	if (!write && f->f_inode && S_ISDIR(f->f_inode->i_mode))
		return -EISDIR;
	if (!f->f_op || !(write ? f->f_op->write_iter : f->f_op->read_iter))
		return -EINVAL;
	err = rw_verify_area(pos, it->count);
	if (err)
		return err;
	if (it->count > MAX_RW_COUNT)
		it->count = MAX_RW_COUNT;
	return 0;
}

ssize_t vfs_read(struct file *f, struct iov_iter *to, loff_t *pos)
{
	ssize_t err = rw_checks(f, to, *pos, false);

	if (err)
		return err;
	if (!to->count)
		return 0;
	return f->f_op->read_iter(f, to, pos);
}

ssize_t vfs_write(struct file *f, struct iov_iter *from, loff_t *pos)
{
	ssize_t err = rw_checks(f, from, *pos, true);

	if (err)
		return err;
	if (!from->count)
		return 0;
	return f->f_op->write_iter(f, from, pos);
}

/* The read or write at f_pos, moving it; seekable files lock it. */
ssize_t rw_at_fpos(struct file *f, struct iov_iter *it, bool write)
{
	bool lock = f->f_mode & FMODE_LSEEK;
	loff_t pos;
	ssize_t ret;

	if (lock)
		mutex_lock(&f->f_pos_lock);
	pos = f->f_pos;
	ret = write ? vfs_write(f, it, &pos) : vfs_read(f, it, &pos);
	if (ret > 0)
		f->f_pos = pos;
	if (lock)
		mutex_unlock(&f->f_pos_lock);
	return ret;
}

ssize_t kernel_read(struct file *f, void *buf, size_t count, loff_t *pos)
{
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_DEST, buf, count);
	if (!pos)
		return rw_at_fpos(f, &it, false);
	return vfs_read(f, &it, pos);
}

ssize_t kernel_write(struct file *f, const void *buf, size_t count, loff_t *pos)
{
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_SOURCE, (void *)buf, count);
	if (!pos)
		return rw_at_fpos(f, &it, true);
	return vfs_write(f, &it, pos);
}

long ksys_read(unsigned int fd, struct iov_iter *to)
{
	struct fd f = fdget(fd);
	long ret;

	if (!f.file)
		return -EBADF;
	ret = rw_at_fpos(f.file, to, false);
	fdput(f);
	return ret;
}

long ksys_write(unsigned int fd, struct iov_iter *from)
{
	struct fd f = fdget(fd);
	long ret;

	if (!f.file)
		return -EBADF;
	ret = rw_at_fpos(f.file, from, true);
	fdput(f);
	return ret;
}

static long pread_pwrite(unsigned int fd, struct iov_iter *it, loff_t pos, bool write)
{
	struct fd f;
	long ret;

	if (pos < 0)
		return -EINVAL;
	f = fdget(fd);
	if (!f.file)
		return -EBADF;
	if (!(f.file->f_mode & FMODE_LSEEK))
		ret = -ESPIPE;                  /* a pipe or a tty has no offsets */
	else
		ret = write ? vfs_write(f.file, it, &pos) : vfs_read(f.file, it, &pos);
	fdput(f);
	return ret;
}

long ksys_pread(unsigned int fd, struct iov_iter *to, loff_t pos)
{
	return pread_pwrite(fd, to, pos, false);
}

long ksys_pwrite(unsigned int fd, struct iov_iter *from, loff_t pos)
{
	return pread_pwrite(fd, from, pos, true);
}

long sys_read(unsigned int fd, char __user *buf, size_t count)
{
	struct iov_iter it;

	if (!access_ok(buf, count))
		return -EFAULT;
	iov_iter_ubuf(&it, ITER_DEST, buf, count);
	return ksys_read(fd, &it);
}

long sys_write(unsigned int fd, const char __user *buf, size_t count)
{
	struct iov_iter it;

	if (!access_ok(buf, count))
		return -EFAULT;
	iov_iter_ubuf(&it, ITER_SOURCE, (void __user *)buf, count);
	return ksys_write(fd, &it);
}

long sys_pread64(unsigned int fd, char __user *buf, size_t count, loff_t pos)
{
	struct iov_iter it;

	if (!access_ok(buf, count))
		return -EFAULT;
	iov_iter_ubuf(&it, ITER_DEST, buf, count);
	return ksys_pread(fd, &it, pos);
}

long sys_pwrite64(unsigned int fd, const char __user *buf, size_t count, loff_t pos)
{
	struct iov_iter it;

	if (!access_ok(buf, count))
		return -EFAULT;
	iov_iter_ubuf(&it, ITER_SOURCE, (void __user *)buf, count);
	return ksys_pwrite(fd, &it, pos);
}

/* --- lseek ----------------------------------------------------------------- */

/* SEEK_SET/CUR/END against i_size; a negative result is EINVAL. */
/*
 * The end of every llseek: the new position is base + offset, which must
 * not overflow, be negative, or pass maxsize (EINVAL, as Linux).
 */
loff_t vfs_setpos(struct file *f, loff_t base, loff_t offset, loff_t maxsize)
{
	loff_t pos;

	if (__builtin_add_overflow(base, offset, &pos) || pos < 0 || pos > maxsize)
		return -EINVAL;
	f->f_pos = pos;
	return pos;
}

loff_t generic_file_llseek(struct file *f, loff_t offset, int whence)
{
	loff_t base;

	switch (whence) {
	case SEEK_SET: base = 0; break;
	case SEEK_CUR: base = f->f_pos; break;
	case SEEK_END: base = f->f_inode->i_size; break;
	default: return -EINVAL;
	}
	return vfs_setpos(f, base, offset, MAX_LFS_FILESIZE);  /* past the end: a hole */
}

loff_t no_llseek(struct file *f, loff_t offset, int whence)
{
	(void)f; (void)offset; (void)whence;
	return -ESPIPE;
}

loff_t vfs_llseek(struct file *f, loff_t offset, int whence)
{
	loff_t ret;

	if (!(f->f_mode & FMODE_LSEEK))
		return -ESPIPE;
	mutex_lock(&f->f_pos_lock);
	ret = f->f_op && f->f_op->llseek ? f->f_op->llseek(f, offset, whence)
					 : generic_file_llseek(f, offset, whence);
	mutex_unlock(&f->f_pos_lock);
	return ret;
}

long ksys_lseek(unsigned int fd, off_t offset, unsigned int whence)
{
	struct file *f = fget(fd);
	long ret;

	if (!f)
		return -EBADF;
	ret = vfs_llseek(f, offset, (int)whence);
	fput(f);
	return ret;
}

long sys_lseek(unsigned int fd, off_t offset, unsigned int whence)
{
	return ksys_lseek(fd, offset, whence);
}

/*
 * readv/writev: one buffer after the other, stopping at the first short
 * transfer (Linux does the vector in one pass; the bytes are the same).
 */
#define UIO_MAXIOV 1024

static long do_rw_vec(unsigned long fd, const struct iovec __user *vec, unsigned long vlen,
		      bool write)
{
	long done = 0;

	if (vlen > UIO_MAXIOV)
		return -EINVAL;
	for (unsigned long i = 0; i < vlen; i++) {
		struct iovec v;
		long n;

		if (copy_from_user(&v, &vec[i], sizeof(v)))
			return done ? done : -EFAULT;
		if (!v.iov_len)
			continue;
		n = write ? sys_write(fd, v.iov_base, v.iov_len) : sys_read(fd, v.iov_base, v.iov_len);
		if (n < 0)
			return done ? done : n;
		done += n;
		if ((size_t)n < v.iov_len)
			break;
	}
	return done;
}

long sys_readv(unsigned long fd, const struct iovec __user *vec, unsigned long vlen)
{
	return do_rw_vec(fd, vec, vlen, false);
}

long sys_writev(unsigned long fd, const struct iovec __user *vec, unsigned long vlen)
{
	return do_rw_vec(fd, vec, vlen, true);
}

/*
 * RWF_* to IOCB_* (Linux's kiocb_set_rw_flags), or -EOPNOTSUPP: for an
 * unknown flag; for RWF_NOWAIT, which Linux accepts only on files marked
 * FMODE_NOWAIT, and Spindle marks none (its REQ_NOWAIT serves io_submit's
 * block-layer tests, not a file's read path); and for RWF_APPEND, not
 * built (a departure: Linux appends).
 */
static int rw_flags_to_iocb(int flags)
{
	int ki = 0;

	if (flags & ~RWF_SUPPORTED)
		return -EOPNOTSUPP;
	if (flags & (RWF_NOWAIT | RWF_APPEND))
		return -EOPNOTSUPP;
	if (flags & RWF_HIPRI)
		ki |= IOCB_HIPRI;
	if (flags & RWF_DSYNC)
		ki |= IOCB_DSYNC;
	if (flags & RWF_SYNC)
		ki |= IOCB_DSYNC | IOCB_SYNC;
	return ki;
}

/*
 * One buffer of a preadv2/pwritev2 at *pos.  The file's read_iter or
 * write_iter sees no flags (Spindle's take no kiocb), so IOCB_HIPRI
 * reaches the one reader that polls -- an O_DIRECT block device -- as
 * io_submit reaches it: its direct_IO, here with a synchronous kiocb.
 * Elsewhere HIPRI is ignored, as Linux ignores it for a buffered read.
 * IOCB_DSYNC: a write is on the disk before the call returns (Linux's
 * generic_write_sync): an fsync, whose error is the call's.
 */
static ssize_t rw_iter_flags(struct file *f, struct iov_iter *it, loff_t *pos, bool write,
			     int ki_flags)
{
	const struct address_space_operations *aops = f->f_mapping ? f->f_mapping->a_ops : NULL;
	struct kiocb kiocb = { .ki_filp = f, .ki_pos = *pos, .ki_flags = ki_flags };
	ssize_t ret;

	if ((ki_flags & IOCB_HIPRI) && (f->f_flags & O_DIRECT) && f->f_inode &&
	    S_ISBLK(f->f_inode->i_mode) && aops && aops->direct_IO) {
		ret = rw_checks(f, it, *pos, write);
		if (!ret && it->count)
			ret = aops->direct_IO(f, it, pos, write, &kiocb);
	} else {
		ret = write ? vfs_write(f, it, pos) : vfs_read(f, it, pos);
	}
	if (ret > 0 && write && (ki_flags & IOCB_DSYNC)) {
		int err = vfs_fsync(f, !(ki_flags & IOCB_SYNC));

		if (err)
			ret = err;
	}
	return ret;
}

/*
 * preadv2/pwritev2 (Linux's do_preadv/do_readv with flags): at pos, or
 * at the file position when pos is -1.  The checks come in Linux's
 * order: a negative pos, the descriptor, its access mode and the vector,
 * nothing to move (0, whatever the flags), then the flags; one buffer
 * after the other, as readv.  The vector is copied in once, into an
 * array on the stack when it is short (Linux's import_iovec() and its
 * UIO_FASTIOV): the common call, one buffer, allocates nothing.
 */
#define UIO_FASTIOV 8

static long do_rw_vec2(unsigned long fd, const struct iovec __user *uvec, unsigned long vlen,
		       loff_t pos, int flags, bool write)
{
	struct iovec iovstack[UIO_FASTIOV], *vec = iovstack;
	bool at_fpos = pos == -1, lock;
	struct fd f;
	size_t total = 0;
	long done = 0;
	int ki_flags;

	if (pos < 0 && !at_fpos)
		return -EINVAL;
	f = fdget((unsigned int)fd);
	if (!f.file)
		return -EBADF;
	if (!at_fpos && !(f.file->f_mode & FMODE_LSEEK)) {
		done = -ESPIPE;
		goto out;
	}
	if (vlen > UIO_MAXIOV) {
		done = -EINVAL;
		goto out;
	}
	if (vlen > UIO_FASTIOV) {
		vec = kmalloc(vlen * sizeof(*vec), GFP_KERNEL);
		if (!vec) {
			done = -ENOMEM;
			goto out;
		}
	}
	if (copy_from_user(vec, uvec, vlen * sizeof(*vec))) {
		done = -EFAULT;
		goto out;
	}
	for (unsigned long i = 0; i < vlen; i++) {
		if ((ssize_t)vec[i].iov_len < 0) {
			done = -EINVAL;
			goto out;
		}
		if (!access_ok(vec[i].iov_base, vec[i].iov_len)) {
			done = -EFAULT;
			goto out;
		}
		total += vec[i].iov_len;
	}
	if (!(f.file->f_mode & (write ? FMODE_WRITE : FMODE_READ))) {
		done = -EBADF;
		goto out;
	}
	ki_flags = total ? rw_flags_to_iocb(flags) : 0;
	if (!total || ki_flags < 0) {
		done = total ? ki_flags : 0;
		goto out;
	}
	lock = at_fpos && (f.file->f_mode & FMODE_LSEEK);
	if (lock)
		mutex_lock(&f.file->f_pos_lock);
	if (at_fpos)
		pos = f.file->f_pos;
	for (unsigned long i = 0; i < vlen; i++) {
		struct iov_iter it;
		ssize_t n;

		if (!vec[i].iov_len)
			continue;
		iov_iter_ubuf(&it, write ? ITER_SOURCE : ITER_DEST, vec[i].iov_base, vec[i].iov_len);
		n = rw_iter_flags(f.file, &it, &pos, write, ki_flags);
		if (n < 0) {
			if (!done)
				done = n;
			break;
		}
		done += n;
		if ((size_t)n < vec[i].iov_len)
			break;
	}
	if (at_fpos && done > 0)
		f.file->f_pos = pos;
	if (lock)
		mutex_unlock(&f.file->f_pos_lock);
out:
	if (vec != iovstack)
		kfree(vec);
	fdput(f);
	return done;
}

/* x86-64 passes the offset whole in pos_l; pos_h is for 32-bit callers. */
long sys_preadv2(unsigned long fd, const struct iovec __user *vec, unsigned long vlen,
		 unsigned long pos_l, unsigned long pos_h, int flags)
{
	(void)pos_h;
	return do_rw_vec2(fd, vec, vlen, (loff_t)pos_l, flags, false);
}

long sys_pwritev2(unsigned long fd, const struct iovec __user *vec, unsigned long vlen,
		  unsigned long pos_l, unsigned long pos_h, int flags)
{
	(void)pos_h;
	return do_rw_vec2(fd, vec, vlen, (loff_t)pos_l, flags, true);
}

/*
 * sendfile: copy count bytes from in_fd to out_fd inside the kernel
 * (cat uses it), a page at a time through a kernel buffer, until a read
 * comes back short.  With offset, in_fd is read from *offset, which is
 * updated, and its position kept.
 */
#define SENDFILE_CHUNK 4096u

long sys_sendfile(int out_fd, int in_fd, loff_t __user *offset, size_t count)
{
	char *buf = kmalloc(SENDFILE_CHUNK, GFP_KERNEL);
	loff_t pos = 0;
	long done = 0, err = 0;

	if (!buf)
		return -ENOMEM;
	if (offset && copy_from_user(&pos, offset, sizeof(pos)))
		err = -EFAULT;
	while (!err && (size_t)done < count) {
		size_t want = min_t(size_t, count - done, SENDFILE_CHUNK);
		struct iov_iter it;
		long n, w;

		iov_iter_kvec(&it, ITER_DEST, buf, want);
		n = offset ? ksys_pread(in_fd, &it, pos) : ksys_read(in_fd, &it);
		if (n <= 0) {
			err = n;
			break;
		}
		iov_iter_kvec(&it, ITER_SOURCE, buf, n);
		w = ksys_write(out_fd, &it);
		if (w <= 0) {
			err = w;
			break;
		}
		done += w;
		pos += w;
		/* a short read is all there is for now: the end of a file, a
		 * terminal's line (^D after it must reach the caller as 0) */
		if (w < n || (size_t)n < want)
			break;
	}
	kfree(buf);
	if (offset && done && copy_to_user(offset, &pos, sizeof(pos)))
		return -EFAULT;
	return done ? done : err;
}
