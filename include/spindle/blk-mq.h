/*
 * blk-mq.h - requests: what the request layer hands a request-based
 * driver (IDE, AHCI) instead of bios.
 *
 * A request is one command for the device: a contiguous range of sectors,
 * one operation, and the bios whose data it carries (merged end to end:
 * bio -> bi_next -> ... -> biotail).  Requests are born from a bio, grow
 * by merging (back: a bio that starts where the request ends; front: one
 * that ends where it starts), wait on the task's plug or in the elevator,
 * are dispatched to the driver's queue_rq() with a tag, and complete with
 * blk_mq_end_request(), which ends each bio.
 *
 * Field names follow Linux's struct request.
 */
#ifndef SPINDLE_BLK_MQ_H
#define SPINDLE_BLK_MQ_H

#include <spindle/blk_types.h>
#include <spindle/list.h>

struct request_queue;
struct request;
struct block_device;

typedef void (rq_end_io_fn)(struct request *rq, blk_status_t status);

struct request {
	struct request_queue *q;
	struct list_head queuelist;     /* on a plug, a dispatch list, or the
					 * elevator's FIFO -- one at a time */
	unsigned int cmd_flags;         /* REQ_OP_* | REQ_* (as bi_opf) */
	sector_t __sector;              /* first sector (whole-disk address) */
	unsigned int __data_len;        /* bytes */
	struct bio *bio;                /* the bios, first ... */
	struct bio *biotail;            /* ... and last */
	unsigned short nr_phys_segments;
	int tag;                        /* the driver's slot; -1 before dispatch */
	struct block_device *part;      /* for accounting */

	u64 start_time_ns;              /* when it was made (queue time) */
	u64 io_start_time_ns;           /* when it was dispatched */
	u64 fifo_time;                  /* elevator: expiry (ns) */

	/* elevator private: mq-deadline keeps it in a sector-sorted list */
	struct list_head elv_sort;
	void *elv_priv;

	rq_end_io_fn *end_io;           /* for requests without bios (flush) */
	void *end_io_data;
};

static inline sector_t blk_rq_pos(const struct request *rq) { return rq->__sector; }
static inline unsigned int blk_rq_bytes(const struct request *rq) { return rq->__data_len; }
static inline unsigned int blk_rq_sectors(const struct request *rq) { return rq->__data_len >> SECTOR_SHIFT; }
static inline sector_t blk_rq_end_pos(const struct request *rq) { return rq->__sector + blk_rq_sectors(rq); }
static inline enum req_opf req_op(const struct request *rq) { return (enum req_opf)(rq->cmd_flags & REQ_OP_MASK); }
static inline int rq_data_dir(const struct request *rq) { return req_op(rq) & 1; }

#endif /* SPINDLE_BLK_MQ_H */
