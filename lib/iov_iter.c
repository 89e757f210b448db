/*
 * iov_iter.c - copying to and from the buffer an iov_iter describes
 * (include/spindle/uio.h).  The only place the file layer's data crosses
 * into user space: everything else calls these.
 */
#include <spindle/uio.h>
#include <spindle/uaccess.h>
#include <spindle/string.h>
#include <spindle/errno.h>

void iov_iter_advance(struct iov_iter *i, size_t bytes)
{
	if (bytes > i->count)
		bytes = i->count;
	if (i->iter_type == ITER_UBUF)
		i->ubuf = (char __user *)i->ubuf + bytes;
	else
		i->kbuf = (char *)i->kbuf + bytes;
	i->count -= bytes;
}

size_t copy_to_iter(const void *from, size_t bytes, struct iov_iter *i)
{
	size_t n = bytes < i->count ? bytes : i->count;

	if (i->iter_type == ITER_UBUF)
		n -= copy_to_user(i->ubuf, from, n);    /* returns what it missed */
	else
		memcpy(i->kbuf, from, n);
	iov_iter_advance(i, n);
	return n;
}

size_t copy_from_iter(void *to, size_t bytes, struct iov_iter *i)
{
	size_t n = bytes < i->count ? bytes : i->count;

	if (i->iter_type == ITER_UBUF)
		n -= copy_from_user(to, i->ubuf, n);
	else
		memcpy(to, i->kbuf, n);
	iov_iter_advance(i, n);
	return n;
}

size_t iov_iter_zero(size_t bytes, struct iov_iter *i)
{
	size_t n = bytes < i->count ? bytes : i->count;

	if (i->iter_type == ITER_UBUF)
		n -= clear_user(i->ubuf, n);
	else
		memset(i->kbuf, 0, n);
	iov_iter_advance(i, n);
	return n;
}

/*
 * Until the process layer's uaccess implementation is merged (contract 3:
 * with exception fixup), these weak stand-ins copy nothing: every user
 * copy "faults" (-EFAULT).  No user space exists before that merge, so no
 * caller can tell; the strong definitions replace them at link time.
 */
__weak unsigned long copy_to_user(void __user *to, const void *from, unsigned long n)
{
	(void)to; (void)from;
	return n;
}

__weak unsigned long copy_from_user(void *to, const void __user *from, unsigned long n)
{
	(void)to; (void)from;
	return n;
}

__weak unsigned long clear_user(void __user *to, unsigned long n)
{
	(void)to;
	return n;
}

__weak long strncpy_from_user(char *dst, const char __user *src, long count)
{
	(void)dst; (void)src; (void)count;
	return -EFAULT;
}
