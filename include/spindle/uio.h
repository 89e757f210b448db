/* SPDX-License-Identifier: MIT */
/*
 * uio.h - iov_iter: "where the bytes of this read or write live".
 *
 * A file's read_iter()/write_iter() does not care whether its caller's
 * buffer is in user space (a read(2)) or in the kernel (exec loading an
 * ELF, the initramfs unpacker): it copies with copy_to_iter() /
 * copy_from_iter() and the iterator knows which is which --
 *
 *   ITER_UBUF   one user-space buffer: copies go through copy_to_user()/
 *               copy_from_user() (include/spindle/uaccess.h), so a bad
 *               pointer becomes a short copy and then -EFAULT, never a crash;
 *   ITER_KVEC   one kernel buffer: plain memcpy;
 *   ITER_BVEC   pages the kernel already holds (struct bio_vec, one per
 *               page: io_uring's registered buffers, pinned once at
 *               registration), reached through the direct map; direct
 *               I/O puts them in its bios as they are, with no pin.
 *
 * Each copy moves the iterator on; iov_iter_count() is what is left.
 * Linux's iov_iter also has vectors of user buffers (readv); Spindle has
 * not.
 */
#ifndef SPINDLE_UIO_H
#define SPINDLE_UIO_H

#include <spindle/types.h>
#include <spindle/compiler.h>
#include <spindle/blk_types.h>      /* struct bio_vec */
#include <spindle/mm.h>             /* PAGE_MASK */

enum iter_type { ITER_UBUF, ITER_KVEC, ITER_BVEC };

struct bio_vec;                 /* include/spindle/blk_types.h */

struct kvec {
	void *iov_base;
	size_t iov_len;
};

/* One buffer of a user's vector (readv, writev, io_uring's READV and
 * registered buffers), Linux's include/uapi/linux/uio.h. */
struct iovec {
	void __user *iov_base;
	size_t iov_len;
};

struct iov_iter {
	u8 iter_type;
	bool data_source;               /* true: a write (we copy FROM it) */
	size_t count;                   /* bytes left */
	union {
		void __user *ubuf;      /* ITER_UBUF: the next byte */
		void *kbuf;             /* ITER_KVEC: the next byte */
		const struct bio_vec *bvec;     /* ITER_BVEC: the next byte's segment */
	};
	size_t iov_offset;              /* ITER_BVEC: bytes of *bvec already done */
};

#define ITER_DEST   false           /* a read fills the iterator */
#define ITER_SOURCE true            /* a write empties it */

static inline void iov_iter_ubuf(struct iov_iter *i, bool source,
				 void __user *buf, size_t count)
{
	i->iter_type = ITER_UBUF;
	i->data_source = source;
	i->ubuf = buf;
	i->count = count;
}

static inline void iov_iter_kvec(struct iov_iter *i, bool source,
				 void *buf, size_t count)
{
	i->iter_type = ITER_KVEC;
	i->data_source = source;
	i->kbuf = buf;
	i->count = count;
}

/* count bytes of the pages in bvec[], from offset into bvec[0]; each
 * segment within one page (Linux's iov_iter_bvec, plus the offset). */
static inline void iov_iter_bvec(struct iov_iter *i, bool source, const struct bio_vec *bvec,
				 size_t offset, size_t count)
{
	i->iter_type = ITER_BVEC;
	i->data_source = source;
	i->bvec = bvec;
	i->iov_offset = offset;
	i->count = count;
}

static inline size_t iov_iter_count(const struct iov_iter *i) { return i->count; }
static inline bool user_backed_iter(const struct iov_iter *i) { return i->iter_type == ITER_UBUF; }
unsigned long iov_iter_bvec_addr(const struct iov_iter *i);
/* Address of the next byte (for O_DIRECT's alignment check; an
 * ITER_BVEC's is the direct map's, at the same offset in its page). */
static inline unsigned long iov_iter_addr(const struct iov_iter *i)
{
	if (i->iter_type == ITER_BVEC)
		return iov_iter_bvec_addr(i);
	return i->iter_type == ITER_UBUF ? (unsigned long)i->ubuf : (unsigned long)i->kbuf;
}

/* The next byte's offset in its page: all that O_DIRECT's alignment and
 * page counts need of the address, with no call for an ITER_BVEC
 * (i->count > 0: the segment is the next byte's). */
static inline unsigned long iov_iter_page_off(const struct iov_iter *i)
{
	if (i->iter_type == ITER_BVEC)
		return (i->bvec->bv_offset + i->iov_offset) & ~PAGE_MASK;
	return iov_iter_addr(i) & ~PAGE_MASK;
}

/* lib/iov_iter.c: each returns the bytes copied (short on a fault) and
 * advances the iterator by as many. */
size_t copy_to_iter(const void *from, size_t bytes, struct iov_iter *i);
size_t copy_from_iter(void *to, size_t bytes, struct iov_iter *i);
size_t iov_iter_zero(size_t bytes, struct iov_iter *i);
void iov_iter_advance(struct iov_iter *i, size_t bytes);

#endif /* SPINDLE_UIO_H */
