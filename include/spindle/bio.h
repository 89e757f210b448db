/* SPDX-License-Identifier: MIT */
/*
 * bio.h - building, walking, splitting and completing bios; bio lists.
 *
 * The life of a bio (see docs/block.md):
 *
 *   bio = bio_alloc_bioset(GFP_NOIO, nr_segments, bs);
 *   bio_set_dev(bio, bdev);  bio->bi_iter.bi_sector = ...;
 *   bio->bi_opf = REQ_OP_WRITE;  bio_add_page(bio, page, len, offset);
 *   bio->bi_end_io = my_end_io;  bio->bi_private = my_data;
 *   submit_bio(bio);                      -- do not touch it after this
 *   ... later, in any context: my_end_io(bio) reads bio->bi_status,
 *   then bio_put(bio).
 *
 * A driver works through a bio with bio_for_each_segment() and ends it
 * with bio_endio() (after setting bi_status on error, or bio_io_error()).
 * A driver that cannot take the whole bio splits it: bio_split() returns
 * the front part, leaving the rest in place; bio_chain() makes the parent
 * complete only after the child.
 *
 * Portable: compiled into the host unit tests too.
 */
#ifndef SPINDLE_BIO_H
#define SPINDLE_BIO_H

#include <spindle/blk_types.h>
#include <spindle/compiler.h>
#include <spindle/mm.h>
#include <spindle/mempool.h>

struct block_device;

#define BIO_MAX_VECS    256     /* segments in one bio: 1 MiB of pages */
#define BIO_INLINE_VECS 4       /* small bios carry their vector inline */

/* --- bio lists ----------------------------------------------------------- */

/* A singly linked FIFO of bios through bi_next, with O(1) append. */
struct bio_list {
	struct bio *head;
	struct bio *tail;
};

static inline void bio_list_init(struct bio_list *bl) { bl->head = bl->tail = NULL; }
#define BIO_EMPTY_LIST { NULL, NULL }
static inline bool bio_list_empty(const struct bio_list *bl) { return bl->head == NULL; }

static inline unsigned int bio_list_size(const struct bio_list *bl)
{
	unsigned int n = 0;

	for (struct bio *b = bl->head; b; b = b->bi_next)
		n++;
	return n;
}

static inline void bio_list_add(struct bio_list *bl, struct bio *bio)
{
	bio->bi_next = NULL;
	if (bl->tail)
		bl->tail->bi_next = bio;
	else
		bl->head = bio;
	bl->tail = bio;
}

/* Append all of bl2 to bl (bl2 itself is left as it was: re-init it). */
static inline void bio_list_merge(struct bio_list *bl, struct bio_list *bl2)
{
	if (!bl2->head)
		return;
	if (bl->tail)
		bl->tail->bi_next = bl2->head;
	else
		bl->head = bl2->head;
	bl->tail = bl2->tail;
}

static inline struct bio *bio_list_pop(struct bio_list *bl)
{
	struct bio *bio = bl->head;

	if (bio) {
		bl->head = bio->bi_next;
		if (!bl->head)
			bl->tail = NULL;
		bio->bi_next = NULL;
	}
	return bio;
}

#define bio_list_for_each(bio, bl) \
	for (bio = (bl)->head; bio; bio = bio->bi_next)

static inline enum req_opf bio_op(const struct bio *bio)
{
	return (enum req_opf)(bio->bi_opf & REQ_OP_MASK);
}

static inline bool op_is_write(unsigned int op) { return op & 1; }
static inline bool bio_is_write(const struct bio *bio) { return op_is_write(bio_op(bio)); }
#define READ  0
#define WRITE 1
static inline int bio_data_dir(const struct bio *bio) { return bio_is_write(bio) ? WRITE : READ; }
/* Does the operation carry data pages (as opposed to flush/discard)? */
static inline bool bio_has_data(const struct bio *bio)
{
	return bio->bi_iter.bi_size &&
	       (bio_op(bio) == REQ_OP_READ || bio_op(bio) == REQ_OP_WRITE);
}

static inline unsigned int bio_sectors(const struct bio *bio)
{
	return bio->bi_iter.bi_size >> SECTOR_SHIFT;
}

static inline sector_t bio_end_sector(const struct bio *bio)
{
	return bio->bi_iter.bi_sector + bio_sectors(bio);
}

/* --- walking the segments ---------------------------------------------- */

/* The part of the current bvec the iterator points at. */
static inline struct bio_vec bvec_iter_bvec(const struct bio_vec *vecs, struct bvec_iter it)
{
	const struct bio_vec *v = &vecs[it.bi_idx];
	unsigned int len = min(v->bv_len - it.bi_bvec_done, it.bi_size);
	struct bio_vec bv = {
		.bv_page = v->bv_page,
		.bv_offset = v->bv_offset + it.bi_bvec_done,
		.bv_len = len,
	};
	return bv;
}

/* Move the iterator on by bytes (within the bvec array). */
void bvec_iter_advance(const struct bio_vec *vecs, struct bvec_iter *it, unsigned int bytes);

/*
 * for each (part of a) segment still to do:
 *     struct bio_vec bv; struct bvec_iter iter;
 *     bio_for_each_segment(bv, bio, iter) { copy bv.bv_len bytes at
 *             page_address(bv.bv_page) + bv.bv_offset }
 * iter is a copy: the bio itself does not move.
 */
#define bio_for_each_segment(bvl, bio, iter) \
	for ((iter) = (bio)->bi_iter; \
	     (iter).bi_size && ((bvl) = bvec_iter_bvec((bio)->bi_io_vec, (iter)), 1); \
	     bvec_iter_advance((bio)->bi_io_vec, &(iter), (bvl).bv_len))

/* Consume bytes from the front of the bio: sector moves on, size shrinks. */
void bio_advance(struct bio *bio, unsigned int bytes);

/* --- allocation ---------------------------------------------------------- */

/*
 * A bio_set: a source of bios with a reserve (a mempool of min_nr bios),
 * so that allocation with GFP_NOIO never fails -- it may wait for one of
 * the set's bios to be freed, which only completing I/O does.  That wait
 * is exactly what deadlocks if the I/O it waits for is stuck behind the
 * waiter on current->bio_list (Linux commit 79bd99596b73, docs/block.md).
 */
struct bio_set {
	const char *name;
	/* bytes before each bio, the user's (Linux's front_pad): a structure
	 * that ends in a struct bio lives in one allocation with it, and
	 * container_of() finds it -- as direct I/O's struct dio does */
	unsigned int front_pad;
	mempool_t pool;
	mempool_t bvec_pool;            /* BIOSET_NEED_BVECS: BIO_MAX_VECS arrays */
	unsigned int flags;
	/* BIOSET_NEED_RESCUER: Linux's per-bioset rescuer thread ("bioset") */
	struct task_struct *rescue_task;
	struct bio_list rescue_list;    /* bios it is to submit */
	spinlock_t rescue_lock;
	/* BIOSET_PERCPU_CACHE: each CPU's freed bios, for bio_alloc_kiocb */
	struct bio_alloc_cache *cache;
};
#define BIOSET_RESERVE_ONLY  (1u << 0)  /* never beyond pool_size: for labs */
/*
 * BIOSET_NEED_RESCUER: before an allocation from this set sleeps, the bios
 * of this set still queued on the allocating task's current->bio_list are
 * handed to a rescuer thread, which submits them -- so the bio the
 * allocation waits for cannot be stuck behind the waiter.  The older,
 * heavier cure for the deadlock of the old FIFO bio order; depth-first order is the newer.
 */
#define BIOSET_NEED_RESCUER  (1u << 1)
/*
 * BIOSET_NEED_BVECS: a second reserve, of BIO_MAX_VECS segment arrays, for
 * bios bigger than BIO_INLINE_VECS (as Linux's flag of the same name).  A
 * set that only clones and splits, sharing another bio's segments, needs
 * none.
 */
#define BIOSET_NEED_BVECS    (1u << 2)
/*
 * BIOSET_PERCPU_CACHE: each CPU keeps a short list of the set's freed
 * bios (Linux's bio_alloc_cache, commit be4d234d7aeb, 5.15): a bio that
 * bio_alloc_kiocb() hands out goes back to the freeing CPU's list, and
 * the next comes from there -- no kmalloc, no kfree, no mempool.
 */
#define BIOSET_PERCPU_CACHE  (1u << 3)

/* front_pad: bytes of the caller's before each bio (0: none). */
int bioset_init(struct bio_set *bs, const char *name, unsigned int pool_size,
		unsigned int front_pad, unsigned int flags);
void bioset_exit(struct bio_set *bs);
struct kiocb;
/*
 * A bio of fs_bio_set-like set bs for an asynchronous kiocb: from this
 * CPU's cache when the kiocb has IOCB_ALLOC_CACHE, the set keeps one and
 * nr_vecs fits inline; bio_put() gives such a bio back to the cache of
 * the CPU that frees it.  Otherwise bio_alloc_bioset(GFP_NOIO, ...).
 * May sleep; never NULL.
 */
struct bio *bio_alloc_kiocb(struct kiocb *kiocb, unsigned int nr_vecs, struct bio_set *bs);
/* The bioset for ordinary allocations (bio_alloc). */
extern struct bio_set fs_bio_set;

/*
 * A bio with room for nr_vecs (<= BIO_MAX_VECS) segments, inline up to
 * BIO_INLINE_VECS.  GFP_NOIO/GFP_KERNEL: never NULL -- when memory is
 * short it waits for one of the set's bios (and, with BIOSET_NEED_BVECS,
 * a segment array) to be freed, so it may sleep.  NULL with GFP_ATOMIC
 * when memory and reserve are empty, for nr_vecs > BIO_INLINE_VECS from a
 * set without BIOSET_NEED_BVECS when kmalloc fails, and for nr_vecs >
 * BIO_MAX_VECS.  bio_alloc() uses fs_bio_set, which has both reserves.
 */
struct bio *bio_alloc_bioset(gfp_t gfp, unsigned int nr_vecs, struct bio_set *bs);
static inline struct bio *bio_alloc(gfp_t gfp, unsigned int nr_vecs)
{
	return bio_alloc_bioset(gfp, nr_vecs, &fs_bio_set);
}
/*
 * A bio its caller owns, not from a set (Linux's bio_init): an on-stack
 * bio with an on-stack vecs[max_vecs], as a synchronous direct I/O uses
 * for a few pages (fs/direct-io.c).  Never bio_put() to zero: its memory
 * is the caller's, who must wait for its end before leaving the frame.
 */
void bio_init(struct bio *bio, struct bio_vec *vecs, unsigned short max_vecs);
void bio_put(struct bio *bio);
/*
 * One more reference: the bio is freed only by the last bio_put().  Most
 * bios never get one -- their submitter's reference is the only one --
 * so the count is kept only once a bio has been through here
 * (BIO_REFFED, as Linux's bio_get()): bio_put() of any other bio frees
 * it without an atomic.  Call it while the bio is still only yours (the
 * flag is a plain write), before it is submitted.
 */
static inline void bio_get(struct bio *bio)
{
	bio->bi_flags |= BIO_REFFED;
	atomic_inc(&bio->__bi_cnt);
}

/* Append a segment; returns len, or 0 if the bio is full. */
unsigned int bio_add_page(struct bio *bio, struct page *page,
			  unsigned int len, unsigned int offset);

/*
 * Direct I/O without a copy (Linux's bio_iov_iter_get_pages): add the
 * pages of the iterator's buffer itself to bio, as many as it has room
 * for, and advance the iterator past them.  A user buffer's pages are
 * pinned (pin_user_pages_fast) and the bio marked BIO_PAGE_PINNED; a
 * kernel buffer's, and an ITER_BVEC's pages (io_uring's registered
 * buffers), are used as they are -- their owner keeps them until the
 * I/O ends.  0 if at least one byte was added; -EFAULT if the buffer's
 * first page is not there to be used, the iterator unmoved.  A buffer
 * that stops being accessible part way gives a shorter bio (its caller
 * sees a short transfer, as in Linux).  May sleep (faults pages in).
 */
struct iov_iter;
int bio_iov_iter_get_pages(struct bio *bio, struct iov_iter *iter);
/* After the I/O: unpin what bio_iov_iter_get_pages pinned (from bi_end_io
 * too: does not sleep). */
void bio_release_pages(struct bio *bio);

/* Point bio at a device: the partition's gendisk and number. */
void bio_set_dev(struct bio *bio, struct block_device *bdev);

/* --- completion --------------------------------------------------------- */

/* The I/O is over: call bi_end_io (after every chained child).
 * Does not sleep; callable from interrupt handlers. */
void bio_endio(struct bio *bio);
static inline void bio_io_error(struct bio *bio)
{
	bio->bi_status = BLK_STS_IOERR;
	bio_endio(bio);
}
static inline void bio_wouldblock_error(struct bio *bio)
{
	bio->bi_status = BLK_STS_AGAIN;
	bio_endio(bio);
}
int blk_status_to_errno(blk_status_t status);

/* --- split and chain ----------------------------------------------------- */

/*
 * bio_split(): a new bio (from bs) for the first `sectors` of bio, sharing
 * its segments; bio itself is advanced past them.  The caller chains and
 * submits as Linux commit 79bd99596b73 asks: submit the remainder with
 * generic_make_request() and handle the front part itself.
 */
struct bio *bio_split(struct bio *bio, unsigned int sectors, gfp_t gfp,
		      struct bio_set *bs);
/* parent completes only after child has too; the first error wins. */
void bio_chain(struct bio *child, struct bio *parent);
/* A bio sharing bio's segments and position (for stacked drivers). */
struct bio *bio_clone_fast(struct bio *bio, gfp_t gfp, struct bio_set *bs);

/* Submit and sleep until it is done; returns -errno or 0.  May sleep. */
int submit_bio_wait(struct bio *bio);

#endif /* SPINDLE_BIO_H */
