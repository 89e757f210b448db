// SPDX-License-Identifier: MIT
/*
 * iov_iter.c - copying to and from the buffer an iov_iter describes
 * (include/spindle/uio.h).  The only place the file layer's data crosses
 * into user space: everything else calls these.
 */
#include <spindle/uio.h>
#include <spindle/uaccess.h>
#include <spindle/string.h>

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

