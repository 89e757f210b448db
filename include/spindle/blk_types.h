/* SPDX-License-Identifier: MIT */
/*
 * blk_types.h - the types that cross the block layer's boundaries: the bio
 * and its pieces, operations and flags, completion status.
 *
 * A bio describes one I/O: which device (a gendisk and partition number),
 * where (bi_iter.bi_sector, in 512-byte sectors), how much
 * (bi_iter.bi_size, in bytes), what (bi_opf: operation and flags), and the
 * memory (bi_io_vec: an array of (page, offset, length) segments).  The
 * iterator bi_iter is what moves as a bio is worked through or split;
 * the vector itself never changes.  When the I/O is done, bio_endio()
 * sets nothing but calls bi_end_io(bio), which reads bi_status.
 *
 * Helpers and the bio_list live in bio.h; this header is types only, so
 * that every layer can include it cheaply (Linux's blk_types.h).
 */
#ifndef SPINDLE_BLK_TYPES_H
#define SPINDLE_BLK_TYPES_H

#include <spindle/types.h>
#include <spindle/atomic.h>

struct page;
struct bio;
struct gendisk;
struct bio_set;
struct block_device;

#define SECTOR_SHIFT    9
#define SECTOR_SIZE     (1 << SECTOR_SHIFT)

/* Completion status, carried in bio->bi_status (Linux's blk_status_t). */
typedef u8 blk_status_t;
#define BLK_STS_OK         0
#define BLK_STS_NOTSUPP    1   /* operation not supported: -EOPNOTSUPP */
#define BLK_STS_TIMEOUT    2   /* -ETIMEDOUT */
#define BLK_STS_NOSPC      3   /* -ENOSPC */
#define BLK_STS_RESOURCE   9   /* out of memory or similar: -ENOMEM */
#define BLK_STS_IOERR      10  /* -EIO */
#define BLK_STS_AGAIN      12  /* REQ_NOWAIT and would block: -EAGAIN */

/* Operations: the low 8 bits of bi_opf.  Odd operations write data. */
enum req_opf {
	REQ_OP_READ     = 0,
	REQ_OP_WRITE    = 1,
	REQ_OP_FLUSH    = 2,    /* empty: write back the device's cache */
	REQ_OP_DISCARD  = 3,    /* the sectors' contents are no longer needed */
	REQ_OP_WRITE_ZEROES = 9, /* no data: the device writes zeroes over the range */
};
#define REQ_OP_BITS     8
#define REQ_OP_MASK     ((1u << REQ_OP_BITS) - 1)

/* Flags: the bits above the operation. */
#define REQ_SYNC        (1u << 8)   /* someone waits for it: do not delay */
#define REQ_FUA         (1u << 9)   /* forced unit access: on media when done */
#define REQ_PREFLUSH    (1u << 10)  /* flush the cache before this write */
#define REQ_NOWAIT      (1u << 11)  /* fail with BLK_STS_AGAIN rather than sleep */
#define REQ_NOMERGE     (1u << 12)  /* never merge with other I/O */
#define REQ_POLLED      (1u << 13)  /* the submitter polls for its completion
				     * (bio_poll): it goes to a poll queue, which
				     * raises no interrupt.  Cleared on the way down
				     * by a queue that cannot poll, and by a split */

/* bi_cookie before a polled bio has a hardware context (Linux's value) */
#define BLK_QC_T_NONE   (~0u)

/* One segment of a bio's memory. */
struct bio_vec {
	struct page *bv_page;
	unsigned int bv_len;
	unsigned int bv_offset;
};

/* Where a bio stands: what is left to do. */
struct bvec_iter {
	sector_t bi_sector;             /* device address, 512-byte sectors */
	unsigned int bi_size;           /* bytes left */
	unsigned int bi_idx;            /* current index into bi_io_vec */
	unsigned int bi_bvec_done;      /* bytes done in the current bvec */
};

typedef void (bio_end_io_t)(struct bio *bio);

struct bio {
	struct bio *bi_next;            /* link on a bio_list or request */
	struct gendisk *bi_disk;        /* target disk ... */
	u8 bi_partno;                   /* ... and partition (0: whole disk) */
	blk_status_t bi_status;
	unsigned int bi_opf;            /* REQ_OP_* | REQ_* */
	unsigned short bi_flags;        /* BIO_* below */
	unsigned short bi_vcnt;         /* segments in use */
	unsigned short bi_max_vecs;     /* segments allocated */
	struct bvec_iter bi_iter;

	/* Both are changed from several CPUs at once (children end on any
	 * CPU; bio_put() from submitters, kblockd and handlers): atomics. */
	atomic_t __bi_remaining;        /* bio_chain(): children not yet ended, +1 */
	atomic_t __bi_cnt;              /* references, once BIO_REFFED: bio_put()
					 * drops one */

	bio_end_io_t *bi_end_io;
	void *bi_private;
	/* REQ_POLLED: the hardware context its request went to, for
	 * bio_poll(); BLK_QC_T_NONE until then (Linux's blk_qc_t cookie) */
	unsigned int bi_cookie;

	struct block_device *bi_part;   /* where it was submitted (set at remap) */
	/* I/O accounting of bio-based devices (/proc/diskstats), set when the
	 * bio is first checked and remapped; split-off parts and clones carry
	 * none */
	struct block_device *bi_acct_part;
	u64 bi_acct_start_ns;
	unsigned int bi_acct_sectors;

	struct bio_vec *bi_io_vec;      /* the segments (maybe another bio's) */
	struct bio_set *bi_pool;        /* where it came from, for bio_put() */
	struct bio_vec bi_inline_vecs[]; /* the segments, when allocated here */
};

/* bi_flags */
#define BIO_CHAIN       (1u << 0)   /* __bi_remaining is in use */
#define BIO_CLONED      (1u << 1)   /* bi_io_vec belongs to another bio */
#define BIO_REMAPPED    (1u << 2)   /* partition offset already applied */
#define BIO_PAGE_PINNED (1u << 3)   /* pages pinned from user space: unpin at the end */
#define BIO_PERCPU_CACHE (1u << 4)  /* bio_put gives it to its CPU's cache of the
				     * set's bios (bio_alloc_kiocb, bio.c) */
#define BIO_REFFED      (1u << 5)   /* bio_get() was called: __bi_cnt decides */

#endif /* SPINDLE_BLK_TYPES_H */
