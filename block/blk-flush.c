// SPDX-License-Identifier: MIT
/*
 * blk-flush.c - cache flushes and FUA writes for devices with a volatile
 * write cache.
 *
 * A disk with a write cache says "done" when the data is in its cache, not
 * on the media.  A filesystem that needs an ordering ("the journal is on
 * disk before the commit block") asks for it with two flags on a write:
 *
 *   REQ_PREFLUSH   first make everything written *before* this durable
 *                  (flush the cache), then do this write;
 *   REQ_FUA        this write is durable when it completes (forced unit
 *                  access): written through the cache.
 *
 * and an empty REQ_OP_FLUSH (or an empty write with REQ_PREFLUSH) asks for
 * the flush alone -- what fsync() on a block device sends.
 *
 * A device that has no cache needs none of it: generic_make_request
 * strips the flags and completes an empty flush at once.  A device with a
 * cache gets a *sequence* of steps for each such request, run here:
 *
 *   PREFLUSH   a cache-flush command  (if REQ_PREFLUSH)
 *   DATA       the write itself       (if it carries data; with FUA when
 *                                      the device does FUA, else without)
 *   POSTFLUSH  a cache-flush command  (if REQ_FUA and the device cannot)
 *   DONE       the bios complete
 *
 * Each step starts only when the one before it has completed, which is
 * what keeps the order.  The flush commands are the queue's one
 * preallocated flush request (q->flush_rq): requests that need a flush
 * wait on q->flush_pending; when no flush is running, one is issued for
 * all of them (they move to q->flush_running), and its completion moves
 * every one of them to its next step.  One flush serves many waiters --
 * the way Linux batches flushes, in miniature.
 *
 * Context: everything here runs in task context (the submitter, or
 * kblockd ending requests); q->lock protects the two lists.  A step for
 * the driver goes on the dispatch list of a hardware queue: the data
 * step's own (rq->mq_hctx), the flush command's that of the first
 * request it serves.
 */
#include <spindle/blkdev.h>
#include <spindle/blk_mq.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include <spindle/mm.h>
#include <spindle/errno.h>
#include <spindle/blktrace.h>
#include "blk.h"

/* The steps, as bits of rq->flush_seq (done ones set). */
#define REQ_FSEQ_PREFLUSH       (1u << 0)
#define REQ_FSEQ_DATA           (1u << 1)
#define REQ_FSEQ_POSTFLUSH      (1u << 2)
#define REQ_FSEQ_DONE           (1u << 3)
#define REQ_FSEQ_ACTIONS        (REQ_FSEQ_PREFLUSH | REQ_FSEQ_DATA | REQ_FSEQ_POSTFLUSH)

/* Which steps rq needs on queue q. */
static unsigned int blk_flush_policy(const struct request_queue *q, const struct request *rq)
{
	unsigned int policy = 0;

	if (blk_rq_sectors(rq))
		policy |= REQ_FSEQ_DATA;
	if (q->write_cache) {
		/* an empty REQ_OP_FLUSH is a pre-flush with nothing after it */
		if ((rq->cmd_flags & REQ_PREFLUSH) || req_op(rq) == REQ_OP_FLUSH)
			policy |= REQ_FSEQ_PREFLUSH;
		if ((rq->cmd_flags & REQ_FUA) && !q->fua)
			policy |= REQ_FSEQ_POSTFLUSH;
	}
	return policy;
}

/* The first step not yet done. */
static unsigned int blk_flush_cur_seq(const struct request *rq)
{
	unsigned int done = rq->flush_seq;

	return ~done & (done + 1);              /* its lowest clear bit */
}

static void blk_kick_flush(struct request_queue *q);

/*
 * blk_flush_complete_seq - steps `seq` of rq are done (with `error`):
 * start its next step.  An error ends the sequence: the bios fail.
 */
static void blk_flush_complete_seq(struct request *rq, unsigned int seq, blk_status_t error)
{
	struct request_queue *q = rq->q;
	unsigned long flags;

	rq->flush_seq |= seq;
	seq = error ? REQ_FSEQ_DONE : blk_flush_cur_seq(rq);

	switch (seq) {
	case REQ_FSEQ_PREFLUSH:
	case REQ_FSEQ_POSTFLUSH:
		spin_lock_irqsave(&q->lock, flags);
		list_add_tail(&rq->flush_list, &q->flush_pending);
		spin_unlock_irqrestore(&q->lock, flags);
		blk_kick_flush(q);
		break;
	case REQ_FSEQ_DATA:
		/* straight to the driver, ahead of the elevator's choice */
		blk_add_trace_rq(rq, 'I', 0);
		spin_lock_irqsave(&rq->mq_hctx->lock, flags);
		list_add_tail(&rq->queuelist, &rq->mq_hctx->dispatch);
		spin_unlock_irqrestore(&rq->mq_hctx->lock, flags);
		blk_mq_run_hw_queue(rq->mq_hctx);
		break;
	default:
		rq->rq_flags &= ~RQF_FLUSH_SEQ;
		/* the step that failed (a flush command, or the data step)
		 * has logged its error: the caller's request does not again */
		if (error)
			rq->rq_flags |= RQF_QUIET;
		blk_mq_end_request(rq, error);
		break;
	}
}

/* The flush command completed: every request it served takes its next step. */
static void flush_end_io(struct request *flush_rq, blk_status_t error)
{
	struct request_queue *q = flush_rq->q;
	struct request *rq, *tmp;
	unsigned long flags;
	LIST_HEAD(served);

	if (flush_rq->part)
		part_account_done(flush_rq->part, STAT_FLUSH, 0, flush_rq->start_time_ns, false);
	spin_lock_irqsave(&q->lock, flags);
	list_splice_init(&q->flush_running, &served);
	spin_unlock_irqrestore(&q->lock, flags);
	list_for_each_entry_safe(rq, tmp, &served, flush_list) {
		list_del_init(&rq->flush_list);
		blk_flush_complete_seq(rq, blk_flush_cur_seq(rq), error);
	}
	blk_kick_flush(q);                      /* those who came meanwhile */
}

/* Issue the queue's flush for everyone pending, unless one is running. */
static void blk_kick_flush(struct request_queue *q)
{
	struct request *flush_rq = q->flush_rq;
	struct request *first;
	unsigned long flags;
	u64 gen;

	spin_lock_irqsave(&q->lock, flags);
	if (!list_empty(&q->flush_running) || list_empty(&q->flush_pending)) {
		spin_unlock_irqrestore(&q->lock, flags);
		return;
	}
	list_splice_init(&q->flush_pending, &q->flush_running);
	first = list_first_entry(&q->flush_running, struct request, flush_list);

	gen = flush_rq->gen;            /* the timeout scan's count goes on */
	memset(flush_rq, 0, sizeof(*flush_rq));
	flush_rq->gen = gen;
	INIT_LIST_HEAD(&flush_rq->queuelist);
	INIT_LIST_HEAD(&flush_rq->elv_sort);
	INIT_LIST_HEAD(&flush_rq->flush_list);
	flush_rq->q = q;
	/* sent by the hardware queue of the first request it serves */
	flush_rq->mq_ctx = first->mq_ctx;
	flush_rq->mq_hctx = first->mq_hctx;
	flush_rq->tag = -1;
	flush_rq->cmd_flags = REQ_OP_FLUSH;
	flush_rq->rq_flags = RQF_FLUSH_RQ;
	flush_rq->end_io = flush_end_io;
	/* Linux counts flushes on the whole disk */
	flush_rq->part = first->part ? first->part->bd_disk->part[0] : NULL;
	flush_rq->start_time_ns = ktime_get_ns();
	/*
	 * Traced and counted before it is on the dispatch list: from there
	 * another CPU's run of the hctx (kblockd's, a completion's) may send
	 * it and even end it at once, and its D and C must not come before
	 * its I, nor its end before its start in the disk's statistics.
	 */
	blk_add_trace_rq(flush_rq, 'I', 0);
	if (flush_rq->part)
		part_account_start(flush_rq->part, STAT_FLUSH, flush_rq->start_time_ns);
	spin_lock(&flush_rq->mq_hctx->lock);         /* nests in q->lock */
	list_add_tail(&flush_rq->queuelist, &flush_rq->mq_hctx->dispatch);
	spin_unlock(&flush_rq->mq_hctx->lock);
	spin_unlock_irqrestore(&q->lock, flags);
	blk_mq_run_hw_queue(flush_rq->mq_hctx);
}

/*
 * blk_insert_flush - rq carries REQ_PREFLUSH or REQ_FUA (or is an empty
 * flush) on a queue with a write cache: run its sequence instead of
 * inserting it into the elevator.  Returns false if it needs no sequence
 * after all (a plain write), for the caller to insert as usual.
 */
bool blk_insert_flush(struct request *rq)
{
	struct request_queue *q = rq->q;
	unsigned int policy = blk_flush_policy(q, rq);

	/* The driver sees neither flag, except FUA when it does FUA itself. */
	rq->cmd_flags &= ~REQ_PREFLUSH;
	if (!q->fua)
		rq->cmd_flags &= ~REQ_FUA;
	if (policy == REQ_FSEQ_DATA)
		return false;
	rq->rq_flags |= RQF_FLUSH_SEQ;
	rq->flush_seq = ~policy & REQ_FSEQ_ACTIONS;    /* skipped steps count as done */
	INIT_LIST_HEAD(&rq->flush_list);
	blk_flush_complete_seq(rq, 0, BLK_STS_OK);
	return true;
}

/*
 * blk_flush_data_done - the DATA step of rq finished in the driver (called
 * by blk_mq_end_request for RQF_FLUSH_SEQ requests, tag already freed):
 * go on with the sequence instead of ending the bios.
 */
void blk_flush_data_done(struct request *rq, blk_status_t error)
{
	blk_flush_complete_seq(rq, REQ_FSEQ_DATA, error);
}

int blk_flush_init_queue(struct request_queue *q)
{
	q->flush_rq = kzalloc(sizeof(*q->flush_rq), GFP_KERNEL);
	return q->flush_rq ? 0 : -ENOMEM;
}
