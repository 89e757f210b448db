// SPDX-License-Identifier: MIT
/*
 * iov_iter.c - copying to and from the buffer an iov_iter describes
 * (include/spindle/uio.h).  The only place the file layer's data crosses
 * into user space: everything else calls these.
 */
#include <spindle/uio.h>
#include <spindle/uaccess.h>
#include <spindle/string.h>
#include <spindle/blk_types.h>
#include <spindle/mm.h>

/* --- ITER_BVEC: one segment per page, each reached by the direct map --- */

/* The next byte's kernel address, and how many bytes of its segment
 * follow it.  i->count must not be 0 (bvec may be past the array). */
static char *bvec_cur(const struct iov_iter *i, size_t *room)
{
	const struct bio_vec *bv = i->bvec;

	*room = bv->bv_len - i->iov_offset;
	return (char *)page_address(bv->bv_page) + bv->bv_offset + i->iov_offset;
}

unsigned long iov_iter_bvec_addr(const struct iov_iter *i)
{
	size_t room;

	return i->count ? (unsigned long)bvec_cur(i, &room) : 0;
}

/* Move bytes (at most i->count) on, segment by segment. */
static void bvec_advance(struct iov_iter *i, size_t bytes)
{
	while (bytes) {
		size_t room = i->bvec->bv_len - i->iov_offset;
		size_t step = bytes < room ? bytes : room;

		i->iov_offset += step;
		bytes -= step;
		if (i->iov_offset == i->bvec->bv_len) {
			i->bvec++;
			i->iov_offset = 0;
		}
	}
}

/* Copy n bytes (at most i->count) between buf and the iterator's pages,
 * into them if to_pages (buf NULL: zeroes); the iterator is not moved. */
static void bvec_copy(const struct iov_iter *i, void *buf, size_t n, bool to_pages)
{
	struct iov_iter at = *i;
	char *p = buf;

	while (n) {
		size_t room, step;
		char *page = bvec_cur(&at, &room);

		step = n < room ? n : room;
		if (!to_pages)
			memcpy(p, page, step);
		else if (p)
			memcpy(page, p, step);
		else
			memset(page, 0, step);
		if (p)
			p += step;
		n -= step;
		at.count -= step;
		bvec_advance(&at, step);
	}
}

void iov_iter_advance(struct iov_iter *i, size_t bytes)
{
	if (bytes > i->count)
		bytes = i->count;
	if (i->iter_type == ITER_UBUF)
		i->ubuf = (char __user *)i->ubuf + bytes;
	else if (i->iter_type == ITER_BVEC)
		bvec_advance(i, bytes);
	else
		i->kbuf = (char *)i->kbuf + bytes;
	i->count -= bytes;
}

size_t copy_to_iter(const void *from, size_t bytes, struct iov_iter *i)
{
	size_t n = bytes < i->count ? bytes : i->count;

	if (i->iter_type == ITER_UBUF)
		n -= copy_to_user(i->ubuf, from, n);    /* returns what it missed */
	else if (i->iter_type == ITER_BVEC)
		bvec_copy(i, (void *)from, n, true);
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
	else if (i->iter_type == ITER_BVEC)
		bvec_copy(i, to, n, false);
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
	else if (i->iter_type == ITER_BVEC)
		bvec_copy(i, NULL, n, true);
	else
		memset(i->kbuf, 0, n);
	iov_iter_advance(i, n);
	return n;
}

