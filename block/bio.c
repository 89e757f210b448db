// SPDX-License-Identifier: MIT
/*
 * bio.c - allocating, filling, splitting, chaining and completing bios
 * (include/spindle/bio.h).
 *
 * Where it sits: the bottom of everything that builds I/O (the page cache,
 * the verifier, stacked drivers that clone and split), the top of the
 * submission path in blk-core.c.  Rule for callers: once a bio is
 * submitted, only its bi_end_io may touch it.
 *
 * Memory: a bio and its first BIO_INLINE_VECS segments are one object from
 * the bio_set's mempool; a bigger segment array is kmalloc'ed beside it,
 * and when kmalloc fails, a set made with BIOSET_NEED_BVECS (fs_bio_set)
 * hands out a BIO_MAX_VECS array from its second mempool instead -- so a
 * sleeping bio_alloc() of any size waits for memory rather than failing,
 * as Linux's bvec_alloc() falls back to its biovec pool.
 *
 * Portable: host unit tests run this file.
 */
#include <spindle/bio.h>
#include <spindle/blkdev.h>
#include <spindle/completion.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/init.h>
#include <spindle/sched.h>
#include <spindle/uio.h>
#include <spindle/aio.h>
#include <spindle/cache.h>
#include <spindle/smp.h>
#include "blk.h"

#define FS_BIO_SET_SIZE 64              /* bios (and big bvec arrays) in reserve
					   for ordinary I/O: 64 in flight */
#define BVEC_POOL_BYTES (BIO_MAX_VECS * sizeof(struct bio_vec))    /* 4 KiB */

static void bio_chain_endio_marker(struct bio *bio);

/*
 * BIOSET_PERCPU_CACHE: one CPU's freed bios (Linux's struct
 * bio_alloc_cache), a line each so that no two CPUs' lists share one.
 * Taken with interrupts off: a bio may be freed from an interrupt.  At
 * most ALLOC_CACHE_MAX bios a CPU (Linux keeps up to 512): 64 inline bios
 * are 16 KiB, held until the set goes.
 */
#define ALLOC_CACHE_MAX 64
struct bio_alloc_cache {
	struct bio *free_list;          /* linked by bi_next */
	unsigned int nr;
	char pad[L1_CACHE_BYTES - sizeof(struct bio *) - sizeof(unsigned int)];
};

struct bio_set fs_bio_set;

/* A pool element: the caller's front pad, then the bio and its segments. */
static size_t bio_object_size(const struct bio_set *bs)
{
	return bs->front_pad + sizeof(struct bio) + BIO_INLINE_VECS * sizeof(struct bio_vec);
}

/* The pool's element a bio of set bs starts bs->front_pad bytes into. */
static void bio_free_to_pool(struct bio_set *bs, struct bio *bio)
{
	mempool_free((char *)bio - bs->front_pad, &bs->pool);
}

/* The rescuer: submit whatever allocators punted to it (may sleep). */
static int bio_rescue_thread(void *data)
{
	struct bio_set *bs = data;

	for (;;) {
		unsigned long flags;
		struct bio *bio;

		spin_lock_irqsave(&bs->rescue_lock, flags);
		bio = bio_list_pop(&bs->rescue_list);
		if (!bio) {
			/* set the state under the lock: a punt cannot slip by */
			set_current_state(TASK_INTERRUPTIBLE);
			spin_unlock_irqrestore(&bs->rescue_lock, flags);
			if (kthread_should_stop())
				break;
			schedule();
			continue;
		}
		spin_unlock_irqrestore(&bs->rescue_lock, flags);
		generic_make_request(bio);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

int bioset_init(struct bio_set *bs, const char *name, unsigned int pool_size,
		unsigned int front_pad, unsigned int flags)
{
	int err;

	bs->name = name;
	bs->front_pad = front_pad;
	bs->flags = flags;
	bs->rescue_task = NULL;
	bio_list_init(&bs->rescue_list);
	spin_lock_init(&bs->rescue_lock);
	err = mempool_init(&bs->pool, pool_size, bio_object_size(bs),
			   flags & BIOSET_RESERVE_ONLY ? MEMPOOL_RESERVE_ONLY : 0);
	if (err)
		return err;
	if (flags & BIOSET_NEED_BVECS) {
		err = mempool_init(&bs->bvec_pool, pool_size, BVEC_POOL_BYTES, 0);
		if (err)
			goto out_pool;
	}
	bs->cache = NULL;
	if (flags & BIOSET_PERCPU_CACHE) {
		bs->cache = kcalloc(nr_cpu_ids, sizeof(*bs->cache), GFP_KERNEL);
		if (!bs->cache) {
			err = -ENOMEM;
			goto out_bvec;
		}
	}
	if (flags & BIOSET_NEED_RESCUER) {
		bs->rescue_task = kthread_run(bio_rescue_thread, bs, "bioset");
		if (!bs->rescue_task) {
			err = -ENOMEM;
			goto out_cache;
		}
	}
	return 0;

out_cache:
	kfree(bs->cache);
out_bvec:
	if (flags & BIOSET_NEED_BVECS)
		mempool_exit(&bs->bvec_pool);
out_pool:
	mempool_exit(&bs->pool);
	return err;
}

void bioset_exit(struct bio_set *bs)
{
	if (bs->rescue_task)
		kthread_stop(bs->rescue_task);
	if (bs->cache) {
		for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) {
			struct bio *bio;

			while ((bio = bs->cache[cpu].free_list) != NULL) {
				bs->cache[cpu].free_list = bio->bi_next;
				bio_free_to_pool(bs, bio);
			}
		}
		kfree(bs->cache);
	}
	if (bs->flags & BIOSET_NEED_BVECS)
		mempool_exit(&bs->bvec_pool);
	mempool_exit(&bs->pool);
}

/*
 * Hand the bios of set bs that this task has queued but not yet submitted
 * (both halves of current->bio_list, see blk-core.c) to the rescuer; the
 * others stay, in order.
 */
static void punt_bios_to_rescuer(struct bio_set *bs)
{
	struct bio_list punt = BIO_EMPTY_LIST;
	unsigned long flags;

	for (int i = 0; i < 2; i++) {
		struct bio_list keep = BIO_EMPTY_LIST;
		struct bio *bio;

		while ((bio = bio_list_pop(&current->bio_list[i])) != NULL)
			bio_list_add(bio->bi_pool == bs ? &punt : &keep, bio);
		current->bio_list[i] = keep;
	}
	if (bio_list_empty(&punt))
		return;
	spin_lock_irqsave(&bs->rescue_lock, flags);
	bio_list_merge(&bs->rescue_list, &punt);
	spin_unlock_irqrestore(&bs->rescue_lock, flags);
	wake_up_process(bs->rescue_task);
}

/*
 * Take an object from one of the set's pools (its bios or its bvec
 * arrays), punting to the rescuer before sleeping: what this task has
 * queued may be what would give one back.
 */
static void *bioset_mempool_alloc(struct bio_set *bs, mempool_t *pool, gfp_t gfp)
{
	void *e;

	if (!bs->rescue_task || !current->bio_list || (gfp & __GFP_ATOMIC))
		return mempool_alloc(pool, gfp);
	e = mempool_alloc(pool, gfp | __GFP_ATOMIC);
	if (e)
		return e;
	punt_bios_to_rescuer(bs);
	return mempool_alloc(pool, gfp);
}

/*
 * A segment array for *nr_vecs (> BIO_INLINE_VECS) segments: kmalloc'ed
 * to size while memory lasts, else a BIO_MAX_VECS array from the set's
 * bvec pool (*nr_vecs is raised to say so; bvec_free() gives it back).
 * NULL only for an atomic caller, or from a set without a bvec pool.
 */
static struct bio_vec *bvec_alloc(struct bio_set *bs, gfp_t gfp, unsigned short *nr_vecs)
{
	struct bio_vec *vecs = kmalloc(*nr_vecs * sizeof(*vecs), gfp | __GFP_ATOMIC);

	if (vecs || !(bs->flags & BIOSET_NEED_BVECS))
		return vecs;
	vecs = bioset_mempool_alloc(bs, &bs->bvec_pool, gfp);
	if (vecs)
		*nr_vecs = BIO_MAX_VECS;
	return vecs;
}

/*
 * Every BIO_MAX_VECS array goes through the pool, kmalloc'ed or not: they
 * are the pool's size, and a free is what refills its reserve.
 */
static void bvec_free(struct bio_set *bs, struct bio_vec *vecs, unsigned short nr_vecs)
{
	if (nr_vecs == BIO_MAX_VECS && (bs->flags & BIOSET_NEED_BVECS))
		mempool_free(vecs, &bs->bvec_pool);
	else
		kfree(vecs);
}

void bio_init(struct bio *bio, struct bio_vec *vecs, unsigned short max_vecs)
{
	memset(bio, 0, sizeof(*bio));
	atomic_set(&bio->__bi_cnt, 1);
	atomic_set(&bio->__bi_remaining, 1);
	bio->bi_io_vec = vecs;
	bio->bi_max_vecs = max_vecs;
	bio->bi_cookie = BLK_QC_T_NONE;
}

struct bio *bio_alloc_bioset(gfp_t gfp, unsigned int nr_vecs, struct bio_set *bs)
{
	unsigned short max_vecs = (unsigned short)nr_vecs;
	struct bio_vec *vecs = NULL;
	struct bio *bio;
	void *p;

	if (nr_vecs > BIO_MAX_VECS) {
		pr_warn("bio: %u segments asked for, the most is %u\n", nr_vecs, BIO_MAX_VECS);
		return NULL;
	}
	if (nr_vecs > BIO_INLINE_VECS) {
		/* The segment array first: if it fails (atomic caller), no bio
		 * is held.  A sleeping caller may wait here for a free array. */
		vecs = bvec_alloc(bs, gfp, &max_vecs);
		if (!vecs)
			return NULL;
	}
	p = bioset_mempool_alloc(bs, &bs->pool, gfp);
	if (!p) {
		if (vecs)
			bvec_free(bs, vecs, max_vecs);
		return NULL;
	}
	bio = (struct bio *)((char *)p + bs->front_pad);
	if (vecs)
		bio_init(bio, vecs, max_vecs);
	else
		bio_init(bio, bio->bi_inline_vecs, BIO_INLINE_VECS);
	bio->bi_pool = bs;
	return bio;
}

struct bio *bio_alloc_kiocb(struct kiocb *kiocb, unsigned int nr_vecs, struct bio_set *bs)
{
	struct bio_alloc_cache *cache;
	unsigned long flags;
	struct bio *bio;

	if (!(kiocb->ki_flags & IOCB_ALLOC_CACHE) || !bs->cache || nr_vecs > BIO_INLINE_VECS)
		return bio_alloc_bioset(GFP_NOIO, nr_vecs, bs);
	flags = local_irq_save();
	cache = &bs->cache[smp_processor_id()];
	bio = cache->free_list;
	if (bio) {
		cache->free_list = bio->bi_next;
		cache->nr--;
	}
	local_irq_restore(flags);
	if (bio) {
		bio_init(bio, bio->bi_inline_vecs, BIO_INLINE_VECS);
		bio->bi_pool = bs;
	} else {
		bio = bio_alloc_bioset(GFP_NOIO, nr_vecs, bs);
	}
	if (bio)                        /* (GFP_NOIO: it always is) */
		bio->bi_flags |= BIO_PERCPU_CACHE;      /* its free fills the cache */
	return bio;
}

/* A BIO_PERCPU_CACHE bio's last put: onto this CPU's list, unless full. */
static bool bio_put_percpu_cache(struct bio *bio)
{
	struct bio_alloc_cache *cache;
	unsigned long flags = local_irq_save();
	bool kept = false;

	cache = &bio->bi_pool->cache[smp_processor_id()];
	if (cache->nr < ALLOC_CACHE_MAX) {
		bio->bi_next = cache->free_list;
		cache->free_list = bio;
		cache->nr++;
		kept = true;
	}
	local_irq_restore(flags);
	return kept;
}

void bio_put(struct bio *bio)
{
	/* a bio nobody took a reference to has one owner: no atomic (the
	 * cost of each is its cache line, and more on a multi-CPU emulator) */
	if ((bio->bi_flags & BIO_REFFED) && !atomic_dec_and_test(&bio->__bi_cnt))
		return;
	if ((bio->bi_flags & BIO_PERCPU_CACHE) && bio_put_percpu_cache(bio))
		return;
	if (bio->bi_io_vec != bio->bi_inline_vecs && !(bio->bi_flags & BIO_CLONED))
		bvec_free(bio->bi_pool, bio->bi_io_vec, bio->bi_max_vecs);
	bio_free_to_pool(bio->bi_pool, bio);
}

unsigned int bio_add_page(struct bio *bio, struct page *page,
			  unsigned int len, unsigned int offset)
{
	struct bio_vec *prev = bio->bi_vcnt ? &bio->bi_io_vec[bio->bi_vcnt - 1] : NULL;

	if (bio->bi_flags & BIO_CLONED)
		return 0;
	/* Contiguous with the last segment in the same page: just grow it. */
	if (prev && prev->bv_page == page && prev->bv_offset + prev->bv_len == offset) {
		prev->bv_len += len;
	} else {
		if (bio->bi_vcnt == bio->bi_max_vecs)
			return 0;
		bio->bi_io_vec[bio->bi_vcnt++] = (struct bio_vec){ page, len, offset };
	}
	bio->bi_iter.bi_size += len;
	return len;
}

/*
 * ITER_BVEC: pages their owner holds already (io_uring's registered
 * buffers, pinned at registration, kept until the I/O ends): into the bio
 * as they are, with no pin, so bio_release_pages() has nothing to undo.
 * An empty bio with no segment array of its own to free takes the
 * iterator's own array, from its place in it on, up to BIO_MAX_VECS
 * segments (Linux's bio_iov_bvec_set): no copy, and BIO_CLONED, for the
 * array is not the bio's to free.  Any other bio gets the segments
 * copied into its array.
 */
static int bio_iov_bvec_add(struct bio *bio, struct iov_iter *iter)
{
	struct iov_iter at;
	size_t added = 0;

	if (!bio->bi_vcnt && bio->bi_io_vec == bio->bi_inline_vecs) {
		const struct bio_vec *bv = iter->bvec;
		size_t left = iov_iter_count(iter);
		size_t size = bv[0].bv_len - iter->iov_offset;
		unsigned int n = 1;

		while (size < left && n < BIO_MAX_VECS)
			size += bv[n++].bv_len;
		size = min(size, left);         /* at most BIO_MAX_VECS pages */
		bio->bi_io_vec = (struct bio_vec *)bv;
		bio->bi_vcnt = (unsigned short)n;
		bio->bi_iter.bi_bvec_done = (unsigned int)iter->iov_offset;
		bio->bi_iter.bi_size = (unsigned int)size;
		bio->bi_flags |= BIO_CLONED;
		if (size == left)
			iter->count = 0;        /* all of it: nothing to walk past */
		else
			iov_iter_advance(iter, size);
		return 0;
	}

	at = *iter;
	while (iov_iter_count(&at)) {
		const struct bio_vec *bv = at.bvec;
		unsigned int len = (unsigned int)min_t(size_t, bv->bv_len - at.iov_offset,
						       iov_iter_count(&at));

		if (!bio_add_page(bio, bv->bv_page, len, bv->bv_offset + (unsigned int)at.iov_offset))
			break;          /* the bio is full */
		iov_iter_advance(&at, len);
		added += len;
	}
	if (!added)
		return -EFAULT;
	iov_iter_advance(iter, added);
	return 0;
}

int bio_iov_iter_get_pages(struct bio *bio, struct iov_iter *iter)
{
	unsigned long addr;
	size_t left = iov_iter_count(iter);
	unsigned int offset, want;
	struct page *pages[16];
	size_t added = 0;

	if (iter->iter_type == ITER_BVEC)
		return left ? bio_iov_bvec_add(bio, iter) : 0;
	addr = iov_iter_addr(iter);
	offset = addr & ~PAGE_MASK;
	want = min_t(size_t, bio->bi_max_vecs - bio->bi_vcnt, DIV_ROUND_UP(offset + left, PAGE_SIZE));
	if (!left || !want)
		return left ? -EFAULT : 0;
	while (want) {
		unsigned int n = min_t(unsigned int, want, ARRAY_SIZE(pages));
		long got;

		if (user_backed_iter(iter)) {
			got = pin_user_pages_fast(addr, n, iter->data_source ? 0 : FOLL_WRITE, pages);
			if (got < 0)
				break;
			bio->bi_flags |= BIO_PAGE_PINNED;
		} else {
			for (got = 0; got < n; got++)
				pages[got] = virt_to_page((void *)(addr + got * PAGE_SIZE - offset));
		}
		for (long i = 0; i < got; i++) {
			unsigned int len = min_t(size_t, PAGE_SIZE - offset, left);

			bio_add_page(bio, pages[i], len, offset);       /* room was counted */
			addr += len;
			left -= len;
			added += len;
			offset = 0;
		}
		want -= got;
		if (got < n)
			break;                  /* the rest is not ours to use */
	}
	if (!added)
		return -EFAULT;
	iov_iter_advance(iter, added);
	return 0;
}

void bio_release_pages(struct bio *bio)
{
	if (!(bio->bi_flags & BIO_PAGE_PINNED))
		return;
	for (unsigned int i = 0; i < bio->bi_vcnt; i++)
		unpin_user_page(bio->bi_io_vec[i].bv_page);
	bio->bi_flags &= ~BIO_PAGE_PINNED;
}

void bvec_iter_advance(const struct bio_vec *vecs, struct bvec_iter *it, unsigned int bytes)
{
	BUG_ON(bytes > it->bi_size);
	it->bi_size -= bytes;
	bytes += it->bi_bvec_done;
	while (bytes && bytes >= vecs[it->bi_idx].bv_len) {
		bytes -= vecs[it->bi_idx].bv_len;
		it->bi_idx++;
	}
	it->bi_bvec_done = bytes;
}

void bio_advance(struct bio *bio, unsigned int bytes)
{
	if (bio_has_data(bio))
		bvec_iter_advance(bio->bi_io_vec, &bio->bi_iter, bytes);
	else
		bio->bi_iter.bi_size -= bytes;
	bio->bi_iter.bi_sector += bytes >> SECTOR_SHIFT;
}

int blk_status_to_errno(blk_status_t status)
{
	switch (status) {
	case BLK_STS_OK:        return 0;
	case BLK_STS_NOTSUPP:   return -EOPNOTSUPP;
	case BLK_STS_TIMEOUT:   return -ETIMEDOUT;
	case BLK_STS_NOSPC:     return -ENOSPC;
	case BLK_STS_RESOURCE:  return -ENOMEM;
	case BLK_STS_AGAIN:     return -EAGAIN;
	default:                return -EIO;
	}
}

/*
 * A chained bio ends only when its own I/O and every child's have: each
 * child holds one count in __bi_remaining (plus one for the bio itself).
 * Returns true when this was the last count.
 */
static bool bio_remaining_done(struct bio *bio)
{
	/* LAB 1 BEGIN */
	if (!(bio->bi_flags & BIO_CHAIN))
		return true;
	if (!atomic_dec_and_test(&bio->__bi_remaining))
		return false;
	/* the last count: nobody else holds the bio now */
	bio->bi_flags &= ~BIO_CHAIN;
	return true;
	/* LAB 1 END: (void)bio; return true; */
}

void bio_endio(struct bio *bio)
{
	/* A loop, not recursion, up a chain of parents (a long chain of
	 * splits would otherwise use a stack frame per link). */
	while (bio_remaining_done(bio)) {
		struct bio *parent;

		if (bio->bi_end_io != bio_chain_endio_marker) {
			if (bio->bi_acct_part)
				blk_account_io_done(bio);
			if (bio->bi_end_io)
				bio->bi_end_io(bio);
			return;
		}
		parent = bio->bi_private;
		/* the first error wins; a success never writes (racing a sibling) */
		if (bio->bi_status && !parent->bi_status)
			parent->bi_status = bio->bi_status;
		bio_put(bio);
		bio = parent;
	}
}

static void bio_chain_endio_marker(struct bio *bio)
{
	/* Never called: bio_endio() recognises it and walks to the parent. */
	(void)bio;
	BUG_ON(1);
}

void bio_chain(struct bio *child, struct bio *parent)
{
	/* LAB 1 BEGIN */
	BUG_ON(child->bi_private || child->bi_end_io);
	child->bi_private = parent;
	child->bi_end_io = bio_chain_endio_marker;
	if (parent->bi_flags & BIO_CHAIN) {
		/* earlier children may be ending on other CPUs right now */
		atomic_inc(&parent->__bi_remaining);
	} else {
		/* no child yet: nobody else touches the count */
		parent->bi_flags |= BIO_CHAIN;
		atomic_set(&parent->__bi_remaining, 2);
	}
	/* LAB 1 END: (void)child; (void)parent; */
}

struct bio *bio_clone_fast(struct bio *bio, gfp_t gfp, struct bio_set *bs)
{
	struct bio *c = bio_alloc_bioset(gfp, 0, bs);

	if (!c)
		return NULL;
	c->bi_disk = bio->bi_disk;
	c->bi_partno = bio->bi_partno;
	c->bi_part = bio->bi_part;
	c->bi_opf = bio->bi_opf;
	c->bi_flags |= BIO_CLONED | (bio->bi_flags & BIO_REMAPPED);
	c->bi_iter = bio->bi_iter;
	c->bi_io_vec = bio->bi_io_vec;
	c->bi_vcnt = bio->bi_vcnt;
	c->bi_max_vecs = bio->bi_max_vecs;
	return c;
}

struct bio *bio_split(struct bio *bio, unsigned int sectors, gfp_t gfp,
		      struct bio_set *bs)
{
	/* LAB 1 BEGIN */
	struct bio *front;

	BUG_ON(sectors == 0 || sectors >= bio_sectors(bio));
	front = bio_clone_fast(bio, gfp, bs);
	if (!front)
		return NULL;
	front->bi_iter.bi_size = sectors << SECTOR_SHIFT;
	bio_advance(bio, sectors << SECTOR_SHIFT);
	return front;
	/* LAB 1 END:
	 * (void)bio; (void)sectors; (void)gfp; (void)bs;
	 * panic("bio_split: not written yet (lab 1)");
	 */
}

void bio_set_dev(struct bio *bio, struct block_device *bdev)
{
	bio->bi_disk = bdev->bd_disk;
	bio->bi_partno = bdev->bd_partno;
	bio->bi_flags &= ~BIO_REMAPPED;
}

static void submit_bio_wait_endio(struct bio *bio)
{
	complete(bio->bi_private);
}

int submit_bio_wait(struct bio *bio)
{
	DECLARE_COMPLETION(done);

	bio->bi_private = &done;
	bio->bi_end_io = submit_bio_wait_endio;
	bio->bi_opf |= REQ_SYNC;
	submit_bio(bio);
	wait_for_completion_io(&done);
	return blk_status_to_errno(bio->bi_status);
}

static int __init bio_init_fs_set(void)
{
	return bioset_init(&fs_bio_set, "fs_bio_set", FS_BIO_SET_SIZE, 0,
			   BIOSET_NEED_BVECS | BIOSET_PERCPU_CACHE);
}
core_initcall(bio_init_fs_set);
