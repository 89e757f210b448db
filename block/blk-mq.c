// SPDX-License-Identifier: MIT
/*
 * blk-mq.c - the request layer: bios in, requests out to the driver.
 *
 * Where it sits: a request-based driver (IDE, AHCI, null_blk in
 * queue_mode=2) gets blk_mq_make_request() as its make_request_fn, so
 * generic_make_request() hands it bios, already remapped to the whole
 * disk.  Below, the driver's queue_rq() gets one request at a time and
 * completes it, usually from its interrupt handler.
 *
 * One bio's path (the "make_request" path):
 *
 *   blk_queue_split        too big for the device: the front part goes on,
 *                          the rest is resubmitted (the split pattern of Linux commit 79bd99596b73)
 *   attempt_plug_merge     glue it to a request on this task's plug: no
 *                          lock taken, the plug is ours alone (Linux commit 73c101011926)
 *   elevator merge         glue it to a request in the elevator (q->lock),
 *                          and maybe that request to its neighbour
 *   get a request          from this CPU's hctx's pool; may sleep for one
 *                          (REQ_NOWAIT: BLK_STS_AGAIN)
 *   plug it, or insert it into the elevator and run the queue
 *
 * Hardware and software queues (Linux's blk-mq; Bjorling, Axboe et al.,
 * SYSTOR 2013): a device has one or more hardware queues (struct
 * blk_mq_hw_ctx, "hctx"), each with its own lock, tags and dispatch list;
 * each CPU has a software queue (struct blk_mq_ctx, "ctx") per disk, and
 * set->map sends each CPU's requests to one hctx (blk_mq_map_queues).
 * With the elevator "none", a request waits in its CPU's ctx and the
 * ctx's hctx takes it from there: CPUs on different hctxs share no lock
 * on the way to the driver.  With a real elevator there is one instance
 * per queue, under q->lock, as on Linux; whichever hctx runs takes the
 * elevator's next choice and gives it one of its own tags.
 *
 * Running a hardware queue: while it has a free tag, take its dispatch
 * list first, then its ctxs (round robin) or the elevator, and call
 * queue_rq().  A request the driver cannot take now (BLK_STS_RESOURCE)
 * waits on hctx->dispatch until a completion frees one of its tags.
 *
 * Completion: blk_mq_complete_request() may be called from an interrupt
 * handler; it only queues the request for a CPU's kblockd, a kernel
 * thread per CPU that ends the bios in task context (bi_end_io may do real
 * work), frees tag and request, and runs the queue again.  Which CPU is
 * the queue's rq_affinity (Linux's): 0 this one, the interrupt's; 1 (the
 * default) this one if it shares a cache with the CPU that submitted the
 * request, else the submitter's; 2 always the submitter's -- its
 * kblockd is woken there, with a reschedule IPI (Linux raises the block
 * softirq there with an IPI; a per-CPU thread is the same idea).  A
 * polled request (REQ_POLLED, on a POLL hctx) is not kblockd's: it waits
 * on its hctx's poll_done list for its submitter, spinning in
 * blk_mq_poll(), to end it (docs/block.md, "Polled I/O").  A driver
 * whose interrupt handler can end requests itself (NVMe) calls
 * blk_mq_complete_request_remote() instead: a request to end on the
 * interrupt's own CPU is then ended in the interrupt, after the handler
 * dropped its locks (blk_mq_end_request_batch), as Linux does -- waking
 * kblockd there would cost two context switches for nothing.
 *
 * Requests come from the pool of the hctx the submitting CPU maps to
 * (Linux's per-hctx tags), so with the elevator "none" and a hctx per
 * CPU, a request's whole path takes only its own CPU's ctx and hctx locks.
 *
 * Locking (interrupts off, in this order when nested): q->lock protects
 * the elevator, the flush lists and freezing; hctx->lock the hctx's
 * pool of requests, tags, dispatch list, busy and restart state;
 * ctx->lock the ctx's list.  queue_rq() is called with none of them.
 */
#include <spindle/blkdev.h>
#include <spindle/blk_mq.h>
#include <spindle/cache.h>
#include <spindle/blk_plug.h>
#include <spindle/elevator.h>
#include <spindle/sched.h>
#include <spindle/wait.h>
#include <spindle/mutex.h>
#include <spindle/time.h>
#include <spindle/init.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/blktrace.h>
#include <spindle/ratelimit.h>
#include "blk.h"
#include "elevator-internal.h"

#define BLK_MAX_REQUEST_COUNT   16      /* a plug flushes itself beyond this */
#define BIO_SPLIT_POOL          4       /* bios in reserve for splitting */
#define DEFAULT_MAX_SEGMENTS    128

static void blk_mq_make_request(struct request_queue *q, struct bio *bio);
static void __blk_mq_run_hw_queue(struct blk_mq_hw_ctx *hctx);
static void blk_cpu_done_init(void);

/* Every request-based queue, for the timeout scan. */
static LIST_HEAD(mq_queues);
static DEFINE_MUTEX(mq_queues_lock);

/* --- hardware and software queues ------------------------------------------ */

/*
 * blk_mq_map_queues - which hardware queue each CPU sends to, in one map.
 * Linux's default gives CPU n the map's queue n while queues last, then
 * starts again (keeping hyperthread siblings together, which QEMU's CPUs
 * are not): cpu % nr_queues, counted from the map's queue_offset.  Every
 * CPU gets a queue, and with no more queues than CPUs every queue gets a
 * CPU.  Possible CPUs past nr_cpu_ids are mapped too, so the map is never
 * read out of range.
 */
void blk_mq_map_queues(struct blk_mq_queue_map *qmap)
{
	/* LAB 8 BEGIN */
	unsigned int nr = qmap->nr_queues ? qmap->nr_queues : 1;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		qmap->mq_map[cpu] = qmap->queue_offset + cpu % nr;
	/* LAB 8 END: for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) qmap->mq_map[cpu] = qmap->queue_offset; */
}

struct blk_mq_hw_ctx *blk_mq_map_queue_type(struct request_queue *q, enum hctx_type type,
					    unsigned int cpu)
{
	const struct blk_mq_queue_map *qmap = &q->tag_set->map[HCTX_TYPE_DEFAULT];

	if (type < HCTX_MAX_TYPES && q->tag_set->map[type].nr_queues)
		qmap = &q->tag_set->map[type];  /* an empty map: DEFAULT's */
	return q->queue_hw_ctx[qmap->mq_map[cpu < NR_CPUS ? cpu : 0]];
}

struct blk_mq_hw_ctx *blk_mq_map_queue(struct request_queue *q, unsigned int cpu)
{
	return blk_mq_map_queue_type(q, HCTX_TYPE_DEFAULT, cpu);
}

/*
 * The maps of a tag set: a driver with one map gets every queue in
 * DEFAULT (capped at a queue a CPU, as Linux caps it); one with several
 * has set each map's nr_queues and queue_offset, which must cover its
 * nr_hw_queues without overlap.  Then each map is spread over the CPUs.
 */
static int blk_mq_update_queue_map(struct blk_mq_tag_set *set)
{
	unsigned int total = 0;

	if (!set->nr_hw_queues)
		set->nr_hw_queues = 1;
	if (set->nr_maps <= 1) {
		set->nr_maps = 1;
		if (set->nr_hw_queues > nr_cpu_ids)
			set->nr_hw_queues = nr_cpu_ids;
		memset(set->map, 0, sizeof(set->map));
		set->map[HCTX_TYPE_DEFAULT].nr_queues = set->nr_hw_queues;
	}
	if (set->nr_maps > HCTX_MAX_TYPES || !set->map[HCTX_TYPE_DEFAULT].nr_queues)
		return -EINVAL;
	for (unsigned int t = 0; t < HCTX_MAX_TYPES; t++) {
		struct blk_mq_queue_map *qmap = &set->map[t];

		if (t >= set->nr_maps)
			qmap->nr_queues = 0;
		if (!qmap->nr_queues)
			continue;
		if (qmap->queue_offset != total)
			return -EINVAL;         /* maps lie end to end, in type order */
		total += qmap->nr_queues;
		blk_mq_map_queues(qmap);
	}
	return total == set->nr_hw_queues ? 0 : -EINVAL;
}

/*
 * The software queue of the CPU we run on.  A task may move to another
 * CPU right after: then its request waits in the old CPU's queue, which
 * is only a little less local -- every ctx has its own lock.
 */
static struct blk_mq_ctx *blk_mq_get_ctx(struct request_queue *q)
{
	/* LAB 8 BEGIN */
	unsigned int cpu = smp_processor_id();

	return &q->queue_ctx[cpu < nr_cpu_ids ? cpu : 0];
	/* LAB 8 END: return &q->queue_ctx[0]; */
}

static void blk_mq_free_hw_queues(struct request_queue *q)
{
	for (unsigned int i = 0; q->queue_hw_ctx && i < q->nr_hw_queues; i++) {
		if (q->queue_hw_ctx[i]) {
			kfree(q->queue_hw_ctx[i]->ctxs);
			kfree(q->queue_hw_ctx[i]->static_rqs);
		}
		kfree(q->queue_hw_ctx[i]);
	}
	kfree(q->queue_hw_ctx);
	kfree(q->queue_ctx);
}

/*
 * One hctx per hardware queue, one ctx per CPU, linked by each map.  A
 * CPU's ctx knows its hctx of every type; a hctx knows the CPUs that map
 * to it (cpumask: its cpu_list), but only a DEFAULT hctx takes requests
 * from their ctxs -- a POLL hctx is sent polled requests directly
 * (blk_mq_make_request), and must never be handed one that waits for an
 * interrupt.
 */
static int blk_mq_init_hw_queues(struct request_queue *q, struct blk_mq_tag_set *set)
{
	q->nr_hw_queues = set->nr_hw_queues;
	q->queue_hw_ctx = kcalloc(q->nr_hw_queues, sizeof(*q->queue_hw_ctx), GFP_KERNEL);
	q->queue_ctx = kcalloc(nr_cpu_ids, sizeof(*q->queue_ctx), GFP_KERNEL);
	if (!q->queue_hw_ctx || !q->queue_ctx)
		return -ENOMEM;
	for (unsigned int i = 0; i < q->nr_hw_queues; i++) {
		struct blk_mq_hw_ctx *hctx = kzalloc(sizeof(*hctx), GFP_KERNEL);

		q->queue_hw_ctx[i] = hctx;
		if (!hctx)
			return -ENOMEM;
		hctx->ctxs = kcalloc(nr_cpu_ids, sizeof(*hctx->ctxs), GFP_KERNEL);
		hctx->static_rqs = kcalloc(q->nr_requests, sizeof(struct request), GFP_KERNEL);
		if (!hctx->ctxs || !hctx->static_rqs)
			return -ENOMEM;
		spin_lock_init(&hctx->lock);
		INIT_LIST_HEAD(&hctx->free_rqs);
		for (unsigned int r = 0; r < q->nr_requests; r++)
			list_add_tail(&hctx->static_rqs[r].queuelist, &hctx->free_rqs);
		hctx->nr_free = q->nr_requests;
		init_waitqueue_head(&hctx->rq_wait);
		hctx->queue = q;
		hctx->queue_num = i;
		hctx->type = HCTX_TYPE_DEFAULT;
		INIT_LIST_HEAD(&hctx->dispatch);
		spin_lock_init(&hctx->poll_lock);
		INIT_LIST_HEAD(&hctx->poll_done);
	}
	for (unsigned int t = 0; t < HCTX_MAX_TYPES; t++)
		for (unsigned int i = 0; i < set->map[t].nr_queues; i++)
			q->queue_hw_ctx[set->map[t].queue_offset + i]->type = t;
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct blk_mq_ctx *ctx = &q->queue_ctx[cpu];

		spin_lock_init(&ctx->lock);
		INIT_LIST_HEAD(&ctx->rq_list);
		ctx->cpu = cpu;
		for (unsigned int t = 0; t < HCTX_MAX_TYPES; t++) {
			struct blk_mq_hw_ctx *hctx = blk_mq_map_queue_type(q, t, cpu);

			ctx->hctxs[t] = hctx;
			if (t != HCTX_TYPE_DEFAULT && !set->map[t].nr_queues)
				continue;       /* DEFAULT's, counted once */
			cpumask_set_cpu(cpu, &hctx->cpumask);
			if (t == HCTX_TYPE_DEFAULT)
				hctx->ctxs[hctx->nr_ctx++] = ctx;
		}
	}
	return 0;
}

/* --- requests and tags ---------------------------------------------------- */

struct request_queue *blk_mq_init_queue(struct blk_mq_tag_set *set)
{
	struct request_queue *q;

	if (!set->queue_depth || set->queue_depth > BLK_MQ_MAX_DEPTH)
		return NULL;
	/* with one map, no more hardware queues than CPUs (as Linux) */
	if (blk_mq_update_queue_map(set))
		return NULL;
	q = blk_alloc_queue(blk_mq_make_request, set->driver_data);
	if (!q)
		return NULL;
	q->tag_set = set;
	q->limits.max_segments = DEFAULT_MAX_SEGMENTS;
	q->nr_requests = set->nr_requests ? set->nr_requests :
			 max(2 * set->queue_depth, (unsigned int)BLKDEV_DEFAULT_RQ);
	if (blk_mq_init_hw_queues(q, set) || blk_flush_init_queue(q) ||
	    bioset_init(&q->bio_split, "bio_split", BIO_SPLIT_POOL, 0, 0))
		goto fail;
	if (elevator_init_queue(q, NULL))
		goto fail_bs;
	q->rq_affinity = 1;                     /* Linux's default */
	mutex_lock(&mq_queues_lock);
	blk_cpu_done_init();                    /* before any request can complete */
	list_add_tail(&q->all_queues, &mq_queues);
	mutex_unlock(&mq_queues_lock);
	return q;

fail_bs:
	bioset_exit(&q->bio_split);
fail:
	blk_mq_free_hw_queues(q);
	kfree(q->flush_rq);
	kfree(q);
	return NULL;
}

/*
 * Undo blk_mq_init_queue() for a queue that never carried I/O -- a
 * driver's error path when its disk could not be registered.
 */
void blk_mq_destroy_queue(struct request_queue *q)
{
	if (!q)
		return;
	blk_mq_exit_queue(q);                   /* off the timeout scan first */
	elevator_exit_queue(q);
	bioset_exit(&q->bio_split);
	blk_mq_free_hw_queues(q);
	kfree(q->flush_rq);
	kfree(q);
}

/* A free request from hctx's pool, or NULL.  Caller holds hctx->lock. */
static struct request *__blk_mq_get_request(struct blk_mq_hw_ctx *hctx)
{
	struct request *rq;

	assert_spin_locked(&hctx->lock);
	if (list_empty(&hctx->free_rqs))
		return NULL;
	rq = list_first_entry(&hctx->free_rqs, struct request, queuelist);
	list_del_init(&rq->queuelist);
	hctx->nr_free--;
	return rq;
}

/*
 * rq goes back to its pool (off any list).  A task that found the pool
 * empty counted itself in nr_rq_waiters under the same lock, so a free
 * after that sees it and wakes it; with nobody waiting, no wait queue
 * lock is taken.  Any context; does not sleep.
 */
static void blk_mq_put_request(struct request *rq)
{
	struct blk_mq_hw_ctx *pool = rq->pool_hctx;
	unsigned long flags;
	bool waiters;

	spin_lock_irqsave(&pool->lock, flags);
	list_add(&rq->queuelist, &pool->free_rqs);
	pool->nr_free++;
	waiters = pool->nr_rq_waiters;
	spin_unlock_irqrestore(&pool->lock, flags);
	if (waiters)
		wake_up(&pool->rq_wait);
}

/* rq gives its tag back to hctx (if it has one); hctx->lock held. */
static void __blk_mq_put_tag(struct blk_mq_hw_ctx *hctx, struct request *rq)
{
	assert_spin_locked(&hctx->lock);
	if (rq->tag < 0)
		return;
	hctx->tags_used &= ~(1ull << rq->tag);
	hctx->tags_busy--;
	hctx->tag_rq[rq->tag] = NULL;
	rq->tag = -1;
}

/*
 * Returns whether the hctx must run again for requests left waiting (a
 * run marked it: sched_restart), now that a tag is free.
 */
static bool blk_mq_free_request(struct request *rq)
{
	struct request_queue *q = rq->q;
	struct blk_mq_hw_ctx *hctx = rq->mq_hctx;
	unsigned long flags;
	bool restart = false, frozen;

	if (rq->tag >= 0) {
		spin_lock_irqsave(&hctx->lock, flags);
		__blk_mq_put_tag(hctx, rq);
		hctx->busy = false;             /* a slot is free: try again */
		hctx->restart_seq++;            /* ... also for a run parking now */
		restart = hctx->sched_restart;
		hctx->sched_restart = false;
		spin_unlock_irqrestore(&hctx->lock, flags);
	}
	/* the flush request is the queue's own; requests in a flush
	 * sequence live on after their data step.  The free and the look at
	 * the freeze in one section with interrupts off: a freezer raises
	 * it, waits for an interrupt on every CPU (blk_queue_usage_sync),
	 * then counts the pools -- we are in its count, or we see it. */
	flags = local_irq_save();
	if (!(rq->rq_flags & (RQF_FLUSH_RQ | RQF_FLUSH_SEQ)))
		blk_mq_put_request(rq);
	frozen = READ_ONCE(q->mq_freeze_depth);
	local_irq_restore(flags);
	if (frozen)
		wake_up_all(&q->mq_freeze_wq);  /* a freezer counts the free ones */
	return restart;
}

/* Segments a bio really has from its iterator on (a split clone shares
 * its parent's whole bio_vec array, so bi_vcnt can overstate it). */
static unsigned int blk_bio_segments(struct bio *bio)
{
	struct bvec_iter iter;
	struct bio_vec bv;
	unsigned int n = 0;

	if (!bio_has_data(bio))
		return 0;
	bio_for_each_segment(bv, bio, iter)
		n++;
	return n;
}

/*
 * nr_segs: bio's segments, as blk_queue_split() counted them on the way
 * (Linux passes its count the same way), or BLK_SEGS_UNKNOWN to count.
 */
#define BLK_SEGS_UNKNOWN        (~0u)

static void blk_rq_init_from_bio(struct request *rq, struct request_queue *q,
				 struct blk_mq_ctx *ctx, struct blk_mq_hw_ctx *hctx,
				 struct bio *bio, unsigned int nr_segs)
{
	/* Every field but gen (which counts on over the request's reuses)
	 * is set here, one by one, as Linux's blk_mq_rq_ctx_init() does: a
	 * memset of the whole request cost some 38 instructions more on
	 * every I/O.  A field added to struct request is set here too. */
	INIT_LIST_HEAD(&rq->queuelist);
	INIT_LIST_HEAD(&rq->elv_sort);
	rq->fifo_time = 0;
	rq->elv_priv = NULL;
	rq->end_io = NULL;
	rq->end_io_data = NULL;
	rq->status = BLK_STS_OK;
	rq->state = MQ_RQ_IDLE;
	rq->deadline = 0;
	rq->rq_flags = 0;
	rq->flush_seq = 0;
	rq->flush_list.next = rq->flush_list.prev = NULL;
	rq->q = q;
	rq->mq_ctx = ctx;
	rq->mq_hctx = rq->pool_hctx = hctx;
	rq->tag = -1;
	rq->cmd_flags = bio->bi_opf;
	rq->__sector = bio->bi_iter.bi_sector;
	rq->__data_len = bio->bi_iter.bi_size;
	rq->bio = rq->biotail = bio;
	rq->nr_phys_segments = nr_segs != BLK_SEGS_UNKNOWN ? nr_segs : blk_bio_segments(bio);
	rq->part = bio->bi_part;
	rq->start_time_ns = ktime_get_ns();
	bio->bi_next = NULL;
	if (rq->part)
		part_account_start(rq->part, bio_stat_group(bio), rq->start_time_ns);
}

/*
 * A request to put bio in, from the pool of the hardware queue this CPU
 * sends to (of the bio's type: a polled bio's is a POLL queue's), as
 * Linux's blk_mq_get_tag() takes one from the hctx's tags: CPUs with a
 * hardware queue each share no lock here.  May sleep until one of that
 * pool is freed -- after sending our own plugged requests, which may be
 * what holds them all (io_schedule flushes the plug).  With REQ_NOWAIT:
 * NULL instead of sleeping.  A task that wakes on another CPU takes from
 * that CPU's pool then: its request waits in that CPU's queues.
 */
static struct request *blk_mq_get_request(struct request_queue *q, struct bio *bio,
					  unsigned int nr_segs)
{
	enum hctx_type type = bio->bi_opf & REQ_POLLED ? HCTX_TYPE_POLL : HCTX_TYPE_DEFAULT;
	struct blk_mq_hw_ctx *hctx, *counted = NULL;
	struct blk_mq_ctx *ctx;
	struct request *rq;
	unsigned long flags;

	for (;;) {
		DEFINE_WAIT(wait);

		flags = local_irq_save();       /* no move between the ctx and its lock */
		ctx = blk_mq_get_ctx(q);
		hctx = ctx->hctxs[type];
		if (counted) {                  /* the pool we slept on, maybe not this one */
			spin_lock(&counted->lock);
			counted->nr_rq_waiters--;
			spin_unlock(&counted->lock);
			counted = NULL;
		}
		spin_lock(&hctx->lock);
		rq = __blk_mq_get_request(hctx);
		if (!rq && !(bio->bi_opf & REQ_NOWAIT)) {
			hctx->nr_rq_waiters++;  /* the next free wakes us */
			counted = hctx;
		}
		spin_unlock(&hctx->lock);
		local_irq_restore(flags);
		if (!counted)
			break;
		blk_add_trace_bio(q, bio, 'S', 0);     /* sleeping for a request */
		prepare_to_wait(&hctx->rq_wait, &wait, TASK_UNINTERRUPTIBLE);
		if (!READ_ONCE(hctx->nr_free))
			io_schedule();
		finish_wait(&hctx->rq_wait, &wait);
	}
	if (rq) {
		blk_rq_init_from_bio(rq, q, ctx, hctx, bio, nr_segs);
		blk_add_trace_bio(q, bio, 'G', 0);
	}
	return rq;
}

/* --- merging -------------------------------------------------------------- */

static bool rq_mergeable(const struct request *rq)
{
	return (req_op(rq) == REQ_OP_READ || req_op(rq) == REQ_OP_WRITE) &&
	       !(rq->cmd_flags & (REQ_NOMERGE | REQ_FUA | REQ_PREFLUSH));
}

static bool bio_mergeable(const struct bio *bio)
{
	return (bio_op(bio) == REQ_OP_READ || bio_op(bio) == REQ_OP_WRITE) &&
	       !(bio->bi_opf & (REQ_NOMERGE | REQ_FUA | REQ_PREFLUSH));
}

/*
 * Could bio be added to rq without breaking a rule or a limit?  The
 * test that fails first for random I/O comes first: does bio touch rq at
 * all?  A plug holds up to BLK_MAX_REQUEST_COUNT requests to look at,
 * and a batch of 32 random reads (io_uring, aio) looked at 16 of them
 * per bio, some 330 instructions a read when every rule was tested
 * before the position.  bio's segments are counted (a walk of its
 * vector) last, only for a request it touches.
 */
static bool __blk_rq_merge_ok(struct request *rq, struct bio *bio)
{
	const struct queue_limits *lim = &rq->q->limits;

	return rq_mergeable(rq) && bio_mergeable(bio) &&
	       req_op(rq) == bio_op(bio) &&
	       rq->bio->bi_disk == bio->bi_disk &&
	       blk_rq_sectors(rq) + bio_sectors(bio) <= lim->max_sectors &&
	       rq->nr_phys_segments + blk_bio_segments(bio) <= lim->max_segments;
}

/* The position test inline in every caller (the plug's walk makes one
 * call per plugged request otherwise), the rest out of line. */
static __always_inline bool blk_rq_merge_ok(struct request *rq, struct bio *bio)
{
	return (blk_rq_end_pos(rq) == bio->bi_iter.bi_sector ||
		blk_rq_pos(rq) == bio_end_sector(bio)) &&
	       __blk_rq_merge_ok(rq, bio);
}

/* The merge itself: bio becomes rq's last (back) or first (front) bio. */
static void blk_rq_merge_bio(struct request *rq, struct bio *bio, enum elv_merge type)
{
	blk_add_trace_bio(rq->q, bio, type == ELEVATOR_BACK_MERGE ? 'M' : 'F', 0);
	if (type == ELEVATOR_BACK_MERGE) {
		rq->biotail->bi_next = bio;
		rq->biotail = bio;
		bio->bi_next = NULL;
	} else {
		bio->bi_next = rq->bio;
		rq->bio = bio;
		rq->__sector = bio->bi_iter.bi_sector;
	}
	rq->__data_len += bio->bi_iter.bi_size;
	rq->nr_phys_segments += blk_bio_segments(bio);
	if (rq->part)
		part_stat_inc_merges(rq->part, rq_data_dir(rq));
}

static enum elv_merge blk_try_merge(struct request *rq, struct bio *bio)
{
	if (blk_rq_end_pos(rq) == bio->bi_iter.bi_sector)
		return ELEVATOR_BACK_MERGE;
	if (blk_rq_pos(rq) == bio_end_sector(bio))
		return ELEVATOR_FRONT_MERGE;
	return ELEVATOR_NO_MERGE;
}

/*
 * attempt_plug_merge - glue bio to a request on this task's plug.
 * The plug is the task's own: no lock.  Newest requests first, since
 * sequential I/O continues the most recent one.
 */
static bool attempt_plug_merge(struct request_queue *q, struct bio *bio)
{
	/* LAB 3 BEGIN */
	struct blk_plug *plug = current->plug;
	struct request *rq;

	if (!plug)
		return false;
	list_for_each_entry_reverse(rq, &plug->mq_list, queuelist) {
		enum elv_merge type;

		if (rq->q != q || !blk_rq_merge_ok(rq, bio))
			continue;
		type = blk_try_merge(rq, bio);
		if (type != ELEVATOR_NO_MERGE) {
			blk_rq_merge_bio(rq, bio, type);
			return true;
		}
	}
	return false;
	/* LAB 3 END: (void)q; (void)bio; return false; */
}

/* After rq grew, see whether it now touches its neighbour and swallow it. */
static void attempt_rq_merge(struct request_queue *q, struct request *rq, struct request *next)
{
	assert_spin_locked(&q->lock);
	if (!next || req_op(rq) != req_op(next) || !rq_mergeable(rq) || !rq_mergeable(next) ||
	    blk_rq_end_pos(rq) != blk_rq_pos(next) ||
	    blk_rq_sectors(rq) + blk_rq_sectors(next) > q->limits.max_sectors ||
	    rq->nr_phys_segments + next->nr_phys_segments > q->limits.max_segments)
		return;
	elv_merge_requests(q, rq, next);
	rq->biotail->bi_next = next->bio;
	rq->biotail = next->biotail;
	rq->__data_len += next->__data_len;
	rq->nr_phys_segments += next->nr_phys_segments;
	if (rq->part)
		part_stat_inc_merges(rq->part, rq_data_dir(rq));
	/* next's data completes with rq now: it is no longer in flight */
	if (next->part)
		part_account_done(next->part, bio_stat_group(next->bio), 0, 0, true);
	list_del_init(&next->queuelist);
	blk_mq_put_request(next);               /* its pool's lock nests in q->lock */
}

/* elevator merge (back, front, then request-to-request); q->lock held */
static bool attempt_elv_merge(struct request_queue *q, struct bio *bio)
{
	struct request *rq = NULL;
	enum elv_merge type;

	assert_spin_locked(&q->lock);
	type = elv_merge(q, &rq, bio);
	if (type == ELEVATOR_NO_MERGE || !rq || !blk_rq_merge_ok(rq, bio) ||
	    blk_try_merge(rq, bio) != type)
		return false;
	blk_rq_merge_bio(rq, bio, type);
	elv_merged_request(q, rq, type);
	if (type == ELEVATOR_BACK_MERGE)
		attempt_rq_merge(q, rq, elv_latter_request(q, rq));
	else {
		struct request *prev = elv_former_request(q, rq);

		if (prev)
			attempt_rq_merge(q, prev, rq);
	}
	return true;
}

/*
 * With the elevator "none": glue bio to one of the newest requests
 * waiting in this CPU's software queue (Linux's blk_bio_list_merge): a
 * stream's next bio almost always belongs to one of them.
 */
#define CTX_MERGE_LOOKBACK 8

static bool attempt_ctx_merge(struct request_queue *q, struct bio *bio)
{
	struct blk_mq_ctx *ctx = blk_mq_get_ctx(q);
	unsigned int looked = 0;
	struct request *rq;
	unsigned long flags;
	bool merged = false;

	spin_lock_irqsave(&ctx->lock, flags);
	list_for_each_entry_reverse(rq, &ctx->rq_list, queuelist) {
		enum elv_merge type;

		if (++looked > CTX_MERGE_LOOKBACK)
			break;
		if (!blk_rq_merge_ok(rq, bio))
			continue;
		type = blk_try_merge(rq, bio);
		if (type != ELEVATOR_NO_MERGE) {
			blk_rq_merge_bio(rq, bio, type);
			merged = true;
			break;
		}
	}
	spin_unlock_irqrestore(&ctx->lock, flags);
	return merged;
}

/* --- splitting ------------------------------------------------------------ */

/*
 * blk_queue_split - make bio fit the device's limits.  If it is too big,
 * the front part that fits is split off and returned; the rest is chained
 * to it and resubmitted through generic_make_request(), to come back here
 * after -- one split per call, as Linux commit 79bd99596b73 asks.
 * *nr_segs: the returned bio's segments when the walk counted them all
 * (a bio that fits, as most do), else BLK_SEGS_UNKNOWN.
 */
static struct bio *blk_queue_split(struct request_queue *q, struct bio *bio,
				   unsigned int *nr_segs)
{
	const struct queue_limits *lim = &q->limits;
	unsigned int max = lim->max_sectors, segs = 0, sectors = 0;
	struct bvec_iter iter;
	struct bio_vec bv;
	struct bio *split;

	*nr_segs = BLK_SEGS_UNKNOWN;
	if (bio_op(bio) == REQ_OP_DISCARD) {
		/* no data, only a range: cut it to what one command may trim */
		sectors = lim->max_discard_sectors;
		if (bio_sectors(bio) <= sectors)
			return bio;
		goto split;
	}
	if (bio_op(bio) == REQ_OP_WRITE_ZEROES) {
		sectors = lim->max_write_zeroes_sectors;
		if (bio_sectors(bio) <= sectors)
			return bio;
		goto split;
	}
	if (!bio_has_data(bio))
		return bio;
	/*
	 * Count segments and sectors.  Each bio_vec lies within one page, and
	 * drivers' segment size and boundary limits are at least a page
	 * (blk_queue_max_segment_size / blk_queue_segment_boundary insist),
	 * so a bio_vec is always one segment for the device.
	 */
	bio_for_each_segment(bv, bio, iter) {
		if (++segs > lim->max_segments)
			break;
		sectors += bv.bv_len >> SECTOR_SHIFT;
		if (sectors >= max)
			break;
	}
	sectors = min(sectors, max);
	if (sectors >= bio_sectors(bio)) {
		*nr_segs = segs;        /* the walk reached its end: all of them */
		return bio;
	}
	/* keep the split on a logical-block boundary */
	sectors = ALIGN_DOWN(sectors, lim->logical_block_size >> SECTOR_SHIFT);
split:
	/*
	 * A split bio is not polled (as Linux): its parts would be two
	 * requests, maybe on two CPUs' poll queues, and its submitter polls
	 * one hardware context only.  Both parts complete by interrupt; the
	 * submitter sees REQ_POLLED gone and sleeps.
	 */
	bio->bi_opf &= ~REQ_POLLED;
	blk_add_trace_split(q, bio, bio->bi_iter.bi_sector + sectors);
	split = bio_split(bio, sectors, GFP_NOIO, &q->bio_split);
	bio_chain(split, bio);
	generic_make_request(bio);
	return split;
}

/* --- dispatch ------------------------------------------------------------- */

/* With "none": the oldest request of hctx's next busy ctx, round robin
 * (Linux's blk_mq_dequeue_from_ctx); hctx->lock held. */
static struct request *blk_mq_dequeue_from_ctx(struct blk_mq_hw_ctx *hctx)
{
	assert_spin_locked(&hctx->lock);
	for (unsigned int i = 0; i < hctx->nr_ctx; i++) {
		unsigned int idx = (hctx->next_ctx + i) % hctx->nr_ctx;
		struct blk_mq_ctx *ctx = hctx->ctxs[idx];
		struct request *rq;

		spin_lock(&ctx->lock);
		rq = list_first_entry_or_null(&ctx->rq_list, struct request, queuelist);
		if (rq)
			list_del_init(&rq->queuelist);
		spin_unlock(&ctx->lock);
		if (rq) {
			hctx->next_ctx = (idx + 1) % hctx->nr_ctx;
			return rq;
		}
	}
	return NULL;
}

/*
 * The lowest of hctx's tags not in use, or the queue depth if every one
 * is: the lowest clear bit of tags_used, whose bits from the depth up
 * are never set (Linux takes a driver tag from an sbitmap).  The caller
 * holds hctx->lock.
 */
static inline unsigned int blk_mq_free_tag(const struct blk_mq_hw_ctx *hctx, unsigned int depth)
{
	u64 free = ~hctx->tags_used;

	return free ? min((unsigned int)__builtin_ctzll(free), depth) : depth;
}

/* rq gets hctx's free tag `tag`, and is counted; hctx->lock held. */
static void blk_mq_assign_tag(struct blk_mq_hw_ctx *hctx, struct request *rq, unsigned int tag)
{
	assert_spin_locked(&hctx->lock);
	rq->tag = tag;
	hctx->tags_used |= 1ull << tag;
	hctx->tags_busy++;
	hctx->tag_rq[tag] = rq;
	hctx->dispatched[rq->mq_ctx->cpu]++;
	hctx->tags_peak = max(hctx->tags_peak, hctx->tags_busy);
}

/*
 * Next request for the driver, with one of hctx's tags; hctx->lock held,
 * and q->lock too if sched (the elevator is asked).
 */
static struct request *blk_mq_next_to_dispatch(struct blk_mq_hw_ctx *hctx, bool sched)
{
	struct request_queue *q = hctx->queue;
	struct request *rq;
	unsigned int tag;

	assert_spin_locked(&hctx->lock);
	/* busy or full: whatever waits goes when a tag is freed */
	if (hctx->busy) {
		hctx->sched_restart = true;
		return NULL;
	}
	tag = blk_mq_free_tag(hctx, q->tag_set->queue_depth);
	if (tag == q->tag_set->queue_depth) {
		hctx->sched_restart = true;
		return NULL;                    /* every slot in use */
	}
	if (!list_empty(&hctx->dispatch)) {
		rq = list_first_entry(&hctx->dispatch, struct request, queuelist);
		list_del_init(&rq->queuelist);
	} else if (hctx->type == HCTX_TYPE_POLL) {
		return NULL;                    /* nothing but polled requests, ever */
	} else if (sched) {
		assert_spin_locked(&q->lock);
		rq = q->elevator ? elv_dispatch_request(q) : NULL;
		if (!rq)
			return NULL;
		rq->mq_hctx = hctx;             /* one elevator: any hctx may send it */
	} else {
		rq = blk_mq_dequeue_from_ctx(hctx);
		if (!rq)
			return NULL;
	}
	blk_mq_assign_tag(hctx, rq, tag);
	return rq;
}

void blk_mq_run_hw_queue(struct blk_mq_hw_ctx *hctx)
{
	struct blk_mq_hw_ctx *outer = current->blk_dispatch_hctx;

	/*
	 * A driver that completes inside queue_rq() (null_blk irqmode=0)
	 * ends the request here, and blk_mq_end_request() runs the queue
	 * again: that inner run is not needed -- this loop goes on while
	 * tags are free -- and would nest one stack frame per request.  The
	 * mark is the task's own: another task may run the queue meanwhile.
	 */
	if (outer == hctx)
		return;
	current->blk_dispatch_hctx = hctx;
	__blk_mq_run_hw_queue(hctx);
	current->blk_dispatch_hctx = outer;
}

void blk_mq_run_hw_queues(struct request_queue *q)
{
	for (unsigned int i = 0; i < q->nr_hw_queues; i++)
		blk_mq_run_hw_queue(q->queue_hw_ctx[i]);
}

static void __blk_mq_run_hw_queue(struct blk_mq_hw_ctx *hctx)
{
	struct request_queue *q = hctx->queue;

	for (;;) {
		/* a stale answer is harmless: the elevator is switched only
		 * with the queue frozen, and the other side is then empty */
		bool sched = !READ_ONCE(q->sched_none);
		struct request *rq;
		unsigned long flags;
		blk_status_t ret;
		unsigned int seq;

		flags = local_irq_save();
		if (sched)
			spin_lock(&q->lock);
		spin_lock(&hctx->lock);
		rq = blk_mq_next_to_dispatch(hctx, sched);
		seq = hctx->restart_seq;
		spin_unlock(&hctx->lock);
		if (sched)
			spin_unlock(&q->lock);
		local_irq_restore(flags);
		if (!rq)
			return;
		blk_add_trace_rq(rq, 'D', 0);
		/* one at a time, each the last: the driver acts on each */
		ret = q->tag_set->ops->queue_rq(q, &(struct blk_mq_queue_data){ .rq = rq, .last = true });
		if (ret == BLK_STS_OK)
			continue;
		if (ret == BLK_STS_RESOURCE) {
			/* the device is full: retry this one first, after a completion */
			spin_lock_irqsave(&hctx->lock, flags);
			__blk_mq_put_tag(hctx, rq);
			list_add(&rq->queuelist, &hctx->dispatch);
			if (hctx->restart_seq != seq) {
				/* the driver freed up meanwhile: try again now */
				spin_unlock_irqrestore(&hctx->lock, flags);
				continue;
			}
			hctx->busy = true;
			hctx->sched_restart = true;
			spin_unlock_irqrestore(&hctx->lock, flags);
			return;
		}
		blk_mq_end_request(rq, ret);
	}
}

void blk_mq_start_request(struct request *rq)
{
	/* this dispatch, for the timeout scan: the request is reused after
	 * its end, so the scan knows a late one by its tag and this number.
	 * The request's own count, not a queue-wide one: a counter that the
	 * dispatchers of every CPU increment would be one cache line they
	 * all write at every I/O (tools/c2c.py).  Only the dispatcher
	 * writes it, before the state says IN_FLIGHT. */
	WRITE_ONCE(rq->gen, rq->gen + 1);
	/* the deadline in jiffies, as Linux's blk_add_timer(): a timeout
	 * needs no finer clock, and jiffies is there already, kept by the
	 * tick -- a TSC read here would be one more clock read per request
	 * (and under QEMU's TCG a lock every virtual CPU shares) */
	rq->deadline = jiffies + rq->q->rq_timeout;
	WRITE_ONCE(rq->state, MQ_RQ_IN_FLIGHT);
}

/*
 * blk_mq_insert_ctx - with the elevator "none", rq (on a caller's list
 * through queuelist) moves to the tail of its software queue: the ctx of
 * the CPU that submitted it (rq->mq_ctx, chosen when the request was
 * made -- the task may be on another CPU by now, flushing its plug from
 * schedule()), under that ctx's lock, which the ctx's CPU's submitters
 * and its hctx's dispatcher also take.  Its hctx is marked in *to_run,
 * for the caller to run once the whole batch is in (Linux's
 * blk_mq_insert_requests() and blk_mq_hctx_mark_pending()).  Any
 * context, interrupts on or off; does not sleep.
 */
static void blk_mq_insert_ctx(struct request *rq, unsigned long *to_run)
{
	/* LAB 8 BEGIN */
	struct blk_mq_ctx *ctx = rq->mq_ctx;
	unsigned long flags;

	spin_lock_irqsave(&ctx->lock, flags);
	list_move_tail(&rq->queuelist, &ctx->rq_list);
	spin_unlock_irqrestore(&ctx->lock, flags);
	*to_run |= 1ul << ctx->hctxs[HCTX_TYPE_DEFAULT]->queue_num;
	/* LAB 8 END:
	 * struct blk_mq_hw_ctx *hctx = rq->mq_hctx;
	 * unsigned long flags;
	 *
	 * spin_lock_irqsave(&hctx->lock, flags);
	 * list_move_tail(&rq->queuelist, &hctx->dispatch);
	 * spin_unlock_irqrestore(&hctx->lock, flags);
	 * *to_run |= 1ul << hctx->queue_num;
	 */
}

/*
 * Insert a batch (through queuelist) of requests of one queue, and run
 * the hardware queues that got one.  With "none" each request waits in
 * the ctx it was made on (where its submitter was then); otherwise in the
 * elevator, and this CPU's hctx runs it.
 */
static void blk_mq_insert_and_run(struct request_queue *q, struct list_head *list)
{
	unsigned long flags, to_run = 0;
	struct request *rq, *tmp;

	list_for_each_entry(rq, list, queuelist)
		blk_add_trace_rq(rq, 'I', 0);
	if (READ_ONCE(q->sched_none)) {
		list_for_each_entry_safe(rq, tmp, list, queuelist)
			blk_mq_insert_ctx(rq, &to_run);
	} else {
		list_for_each_entry(rq, list, queuelist)
			rq->rq_flags |= RQF_ELV;
		spin_lock_irqsave(&q->lock, flags);
		elv_insert_requests(q, list, false);
		spin_unlock_irqrestore(&q->lock, flags);
		to_run = 1ul << blk_mq_get_ctx(q)->hctxs[HCTX_TYPE_DEFAULT]->queue_num;
	}
	for (unsigned int i = 0; i < q->nr_hw_queues; i++)
		if (to_run & (1ul << i))
			blk_mq_run_hw_queue(q->queue_hw_ctx[i]);
}

/* --- the make_request path -------------------------------------------------- */

/*
 * blk_mq_try_issue_directly - with the elevator "none", a submitter
 * without a plug, or one flushing its plug, hands its request to the
 * driver itself: no software queue, and no second pass over the ctxs to
 * find that nothing else waits (Linux's blk_mq_try_issue_directly).
 * Only while nothing waits for the hctx: the hctx not busy, its dispatch
 * list and the request's ctx empty (that last read unlocked: a stale
 * answer only reorders two submitters that raced, as on Linux), and a
 * tag free.  Returns ISSUE_NOT_TRIED, having done nothing, otherwise:
 * the caller inserts the request as usual.  ISSUE_SENT: the driver has
 * it (told of it only if @last, else by a later request or commit_rqs()).
 * ISSUE_HANDLED: the driver did not take it -- it failed the request,
 * which has ended, or was full (BLK_STS_RESOURCE), and the request is
 * back on the dispatch list, as in __blk_mq_run_hw_queue().
 */
enum blk_issue { ISSUE_NOT_TRIED, ISSUE_SENT, ISSUE_HANDLED };

static __always_inline enum blk_issue blk_mq_try_issue_directly(struct request_queue *q,
								struct request *rq, bool last)
{
	struct blk_mq_hw_ctx *hctx = rq->mq_hctx;
	unsigned long flags;
	blk_status_t ret;
	unsigned int tag, seq;

	if (!list_empty(&rq->mq_ctx->rq_list))
		return ISSUE_NOT_TRIED;
	spin_lock_irqsave(&hctx->lock, flags);
	tag = blk_mq_free_tag(hctx, q->tag_set->queue_depth);
	if (hctx->busy || tag == q->tag_set->queue_depth || !list_empty(&hctx->dispatch)) {
		spin_unlock_irqrestore(&hctx->lock, flags);
		return ISSUE_NOT_TRIED;
	}
	blk_mq_assign_tag(hctx, rq, tag);
	seq = hctx->restart_seq;
	spin_unlock_irqrestore(&hctx->lock, flags);

	blk_add_trace_rq(rq, 'D', 0);
	ret = q->tag_set->ops->queue_rq(q, &(struct blk_mq_queue_data){ .rq = rq, .last = last });
	if (ret == BLK_STS_OK)
		return ISSUE_SENT;
	if (ret != BLK_STS_RESOURCE) {
		blk_mq_end_request(rq, ret);
		return ISSUE_HANDLED;
	}
	spin_lock_irqsave(&hctx->lock, flags);
	__blk_mq_put_tag(hctx, rq);
	list_add(&rq->queuelist, &hctx->dispatch);
	if (hctx->restart_seq == seq) {
		hctx->busy = true;              /* a completion restarts it */
		hctx->sched_restart = true;
		spin_unlock_irqrestore(&hctx->lock, flags);
		return ISSUE_HANDLED;
	}
	spin_unlock_irqrestore(&hctx->lock, flags);
	blk_mq_run_hw_queue(hctx);              /* the driver freed up meanwhile */
	return ISSUE_HANDLED;
}

/*
 * A REQ_POLLED bio: its own request (no merge -- one polled bio is one
 * command its submitter waits for), on this CPU's POLL hardware context,
 * sent at once -- no plug, no elevator, no software queue: issued
 * directly, as Linux's blk_mq_try_issue_directly() does, unless the
 * context is busy or has requests waiting (then on its dispatch list,
 * after them).  bi_cookie names the context for bio_poll() before the
 * request can complete.
 */
static void blk_mq_submit_polled(struct request_queue *q, struct bio *bio, unsigned int nr_segs)
{
	struct request *rq = blk_mq_get_request(q, bio, nr_segs);
	struct blk_mq_hw_ctx *hctx;
	unsigned long flags;

	if (!rq) {
		bio_wouldblock_error(bio);      /* REQ_NOWAIT and no request free */
		return;
	}
	hctx = rq->mq_hctx;
	WRITE_ONCE(bio->bi_cookie, hctx->queue_num);
	if (blk_mq_try_issue_directly(q, rq, true) != ISSUE_NOT_TRIED)
		return;
	blk_add_trace_rq(rq, 'I', 0);
	spin_lock_irqsave(&hctx->lock, flags);
	list_add_tail(&rq->queuelist, &hctx->dispatch);
	spin_unlock_irqrestore(&hctx->lock, flags);
	blk_mq_run_hw_queue(hctx);
}

/* the driver told of what queue_rq() took with bd->last false */
static void blk_mq_commit_rqs(struct request_queue *q, struct blk_mq_hw_ctx *hctx)
{
	if (q->tag_set->ops->commit_rqs)
		q->tag_set->ops->commit_rqs(hctx);
}

/*
 * blk_mq_plug_issue_direct - a flushed plug's requests, all of one queue
 * whose elevator is "none", handed to the driver by the flushing task
 * itself, in the plug's order, while each can go at once
 * (blk_mq_try_issue_directly: its hctx not busy, nothing waiting before
 * it, a tag free).  The first that cannot, and every one after it, stay
 * on the list for the software queues -- so none overtakes another
 * (Linux's blk_mq_plug_issue_direct).  A driver that is full takes the
 * request back onto the hctx's dispatch list, which is served before the
 * software queues.  A driver that completes inside queue_rq() (null_blk
 * irqmode=0) would run the hctx at each end, for what may wait behind
 * the freed tag; marked as the task's dispatch (blk_mq_run_hw_queue),
 * those runs become one after the batch, if a tag was freed meanwhile
 * (restart_seq moved).  The mark is this task's, so only ends on this
 * CPU -- in queue_rq() or in an interrupt -- are held back, and this
 * CPU sees its own increments even read unlocked; an end on another CPU
 * runs the hctx there.
 *
 * Each request but the batch's last goes with bd->last false: a driver
 * with a doorbell rings it once, at the last (Linux's bd->last).  If the
 * batch stops after one sent with last false -- the next finds no tag,
 * or the driver is full or fails it -- commit_rqs() rings for what was
 * sent, as Linux's blk_mq_commit_rqs().
 */
static void blk_mq_plug_issue_direct(struct request_queue *q, struct list_head *list)
{
	struct blk_mq_hw_ctx *hctx = list_first_entry(list, struct request, queuelist)->mq_hctx;
	struct blk_mq_hw_ctx *outer = current->blk_dispatch_hctx;
	unsigned int seq = READ_ONCE(hctx->restart_seq);
	struct blk_mq_hw_ctx *uncommitted = NULL;  /* sent to with last false, not told */
	struct request *rq, *next;

	current->blk_dispatch_hctx = hctx;
	list_for_each_entry_safe(rq, next, list, queuelist) {
		/* the last for its hctx: a task that moved to another CPU
		 * while plugged has requests for two */
		bool last = list_is_last(&rq->queuelist, list) || next->mq_hctx != rq->mq_hctx;
		enum blk_issue r;

		list_del_init(&rq->queuelist);
		r = blk_mq_try_issue_directly(q, rq, last);
		if (r == ISSUE_NOT_TRIED) {
			list_add(&rq->queuelist, list);
			break;
		}
		if (r == ISSUE_SENT) {
			uncommitted = last ? NULL : rq->mq_hctx;
		} else if (last && uncommitted) {
			blk_mq_commit_rqs(q, uncommitted);
			uncommitted = NULL;
		}
	}
	if (uncommitted)
		blk_mq_commit_rqs(q, uncommitted);
	/* unmarked before the check: an interrupt's end after it runs the
	 * hctx itself */
	WRITE_ONCE(current->blk_dispatch_hctx, outer);
	if (READ_ONCE(hctx->restart_seq) != seq)
		blk_mq_run_hw_queue(hctx);
}

/*
 * blk_mq_flush_plug_list - the plugged requests go to their queues, one
 * batch per queue (grouped by queue when several are involved, each
 * keeping its order, so each queue's lock is taken once), and each queue
 * is run.  A plug of one queue with the elevator "none" goes to the
 * driver directly, unless flushed from schedule() (the task is about to
 * sleep: it leaves the sending to the queue), as Linux's does.
 */
void blk_mq_flush_plug_list(struct blk_plug *plug, bool from_schedule)
{
	bool first_batch = true;

	BUG_ON(plug->magic != PLUG_MAGIC);
	while (!list_empty(&plug->mq_list)) {
		struct request *first = list_first_entry(&plug->mq_list, struct request, queuelist);
		struct request_queue *q = first->q;
		struct request *rq, *tmp;
		LIST_HEAD(batch);

		unsigned int depth = 0;

		list_for_each_entry_safe(rq, tmp, &plug->mq_list, queuelist)
			if (rq->q == q) {
				list_move_tail(&rq->queuelist, &batch);
				depth++;
			}
		blk_add_trace_unplug(q, depth, from_schedule);
		if (first_batch && list_empty(&plug->mq_list) && !from_schedule &&
		    READ_ONCE(q->sched_none))
			blk_mq_plug_issue_direct(q, &batch);
		if (!list_empty(&batch))
			blk_mq_insert_and_run(q, &batch);
		first_batch = false;
	}
	plug->rq_count = 0;
}

static void blk_mq_make_request(struct request_queue *q, struct bio *bio)
{
	struct blk_plug *plug;
	struct request *rq;
	unsigned int nr_segs;
	unsigned long flags;
	bool merged;

	bio = blk_queue_split(q, bio, &nr_segs);
	if (bio->bi_opf & REQ_POLLED) {
		blk_mq_submit_polled(q, bio, nr_segs);
		return;
	}
	if (attempt_plug_merge(q, bio))
		return;
	if (READ_ONCE(q->sched_none)) {
		merged = attempt_ctx_merge(q, bio);
	} else {
		spin_lock_irqsave(&q->lock, flags);
		merged = q->elevator && attempt_elv_merge(q, bio);
		spin_unlock_irqrestore(&q->lock, flags);
	}
	if (merged)
		return;

	rq = blk_mq_get_request(q, bio, nr_segs);
	if (!rq) {
		bio_wouldblock_error(bio);      /* REQ_NOWAIT and no request free */
		return;
	}
	if ((rq->cmd_flags & (REQ_PREFLUSH | REQ_FUA)) || req_op(rq) == REQ_OP_FLUSH) {
		/* ordered writes and flushes: a sequence of their own */
		if (blk_insert_flush(rq))
			return;
	}
	plug = current->plug;
	if (plug && rq_mergeable(rq)) {
		/* stay on the plug (no lock) until it is flushed */
		BUG_ON(plug->magic != PLUG_MAGIC);
		if (plug->rq_count >= BLK_MAX_REQUEST_COUNT)
			blk_mq_flush_plug_list(plug, false);
		if (list_empty(&plug->mq_list))
			blk_add_trace_plug(q);
		list_add_tail(&rq->queuelist, &plug->mq_list);
		plug->rq_count++;
		return;
	}
	if (READ_ONCE(q->sched_none) && blk_mq_try_issue_directly(q, rq, true) != ISSUE_NOT_TRIED)
		return;
	{
		LIST_HEAD(one);

		list_add_tail(&rq->queuelist, &one);
		blk_mq_insert_and_run(q, &one);
	}
}

/* --- completion ------------------------------------------------------------- */

static const char *blk_status_to_str(blk_status_t status)
{
	switch (status) {
	case BLK_STS_NOTSUPP: return "operation not supported";
	case BLK_STS_TIMEOUT: return "timeout";
	case BLK_STS_NOSPC: return "critical space allocation";
	case BLK_STS_RESOURCE: return "kernel resource";
	default: return "I/O";
	}
}

/*
 * A request that failed says so in the log, in Linux's words (its
 * blk_print_req_error), so that the disk and the sector can be found the
 * same way on both: "I/O error, dev sda, sector 963 op 0x0:(READ) flags
 * 0x0 phys_seg 1 prio class 0".  Rate-limited: a dying disk fails every
 * request.  Not for REQ_NOWAIT's "would block", which is no error, nor
 * for a request marked RQF_QUIET: a flush sequence that failed in one of
 * its steps ends the caller's request with that step's error, and the
 * step has said so already -- one failed flush command is one line, "op
 * 0x2:(FLUSH) ... phys_seg 0", as on Linux, not a second one for the
 * empty write that asked for it.
 */
static void blk_print_req_error(struct request *rq, blk_status_t status)
{
	printk_ratelimited(KERN_ERR "%s error, dev %s, sector %llu op 0x%x:(%s) flags 0x%x "
				    "phys_seg %u prio class 0\n",
			   blk_status_to_str(status),
			   rq->part ? rq->part->bd_disk->disk_name : "?",
			   (unsigned long long)blk_rq_pos(rq), req_op(rq), blk_op_str(req_op(rq)),
			   rq->cmd_flags & ~REQ_OP_MASK, rq->nr_phys_segments);
}

void blk_mq_end_request(struct request *rq, blk_status_t status)
{
	struct request_queue *q = rq->q;
	struct blk_mq_hw_ctx *hctx = rq->mq_hctx;       /* rq may be reused once freed */
	struct bio *bio = rq->bio;
	unsigned long flags;

	if (status != BLK_STS_OK && status != BLK_STS_AGAIN && !(rq->rq_flags & RQF_QUIET))
		blk_print_req_error(rq, status);

	if (!(rq->rq_flags & RQF_TRACED_C))     /* a flush sequence's data step was */
		blk_add_trace_rq(rq, 'C', blk_status_to_errno(status));
	rq->rq_flags |= RQF_TRACED_C;
	if (rq->rq_flags & RQF_FLUSH_RQ) {
		/* the queue's flush command: free its tag, then go on */
		blk_mq_free_request(rq);
		rq->end_io(rq, status);
		blk_mq_run_hw_queue(hctx);
		return;
	}
	if (rq->rq_flags & RQF_FLUSH_SEQ) {
		/* the data step of a flush sequence: not the end yet */
		blk_mq_free_request(rq);
		blk_flush_data_done(rq, status);
		blk_mq_run_hw_queue(hctx);
		return;
	}
	if (rq->rq_flags & RQF_ELV) {
		spin_lock_irqsave(&rq->q->lock, flags);
		if (rq->q->elevator)
			elv_completed_request(rq);
		spin_unlock_irqrestore(&rq->q->lock, flags);
	}
	/* an empty flush was counted by the flush command it waited for */
	if (rq->part && bio)
		part_account_done(rq->part, bio_stat_group(bio), blk_rq_sectors(rq),
				  rq->start_time_ns, !blk_rq_sectors(rq));
	rq->bio = rq->biotail = NULL;
	while (bio) {
		struct bio *next = bio->bi_next;

		bio->bi_next = NULL;
		if (status)
			bio->bi_status = status;
		bio_endio(bio);
		bio = next;
	}
	if (rq->end_io)
		rq->end_io(rq, status);
	/*
	 * Run the queue again only if a run left requests waiting for a tag
	 * (Linux's blk_mq_sched_restart): with "none", whoever queues a
	 * request runs the queue, so an end that finds no mark has nothing
	 * to send.  An elevator may hold requests back: it is always asked.
	 */
	if (blk_mq_free_request(rq) || !READ_ONCE(q->sched_none))
		blk_mq_run_hw_queue(hctx);
}

/*
 * Each CPU's completed requests, waiting for its kblockd (Linux's per-CPU
 * blk_cpu_done list and block softirq).  A CPU's list takes requests from
 * every CPU whose interrupts complete them there, so it has a lock; it is
 * not shared by all CPUs as one list would be -- and each CPU's entry has
 * a cache line of its own, or two CPUs' entries would share one and pass
 * it back and forth at every completion (tools/c2c.py saw it).
 */
struct blk_cpu_done {
	spinlock_t lock;
	struct list_head list;
	struct task_struct *kblockd;
} ____cacheline_aligned_in_smp;
static struct blk_cpu_done blk_cpu_done[NR_CPUS];

/* The lists, made once (mq_queues_lock held): a request completes only
 * on a queue that exists, so never before this. */
static void blk_cpu_done_init(void)
{
	static bool ready;

	if (ready)
		return;
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		spin_lock_init(&blk_cpu_done[cpu].lock);
		INIT_LIST_HEAD(&blk_cpu_done[cpu].list);
	}
	ready = true;
}

/* Wake this CPU's kblockd for work that any CPU may do (restarts,
 * timeouts); the first kblockd to see it does it. */
static void kblockd_kick(void)
{
	struct task_struct *t;
	unsigned long flags;

	flags = local_irq_save();
	t = blk_cpu_done[smp_processor_id()].kblockd;
	local_irq_restore(flags);
	if (t)
		wake_up_process(t);
}

/* Where rq's completion runs (see the top of the file); called with
 * interrupts off, on the CPU that completes it. */
static unsigned int blk_mq_complete_cpu(struct request *rq)
{
	unsigned int here = smp_processor_id(), cpu;

	if (!rq->mq_ctx)
		return here;
	cpu = rq->mq_ctx->cpu;
	switch (READ_ONCE(rq->q->rq_affinity)) {
	case 0:
		return here;
	case 1:
		if (cpus_share_cache(here, cpu))
			return here;
		break;
	}
	/* a CPU without its kblockd (not up when the threads were made) */
	return READ_ONCE(blk_cpu_done[cpu].kblockd) ? cpu : here;
}

/* Queue rq on its completion CPU's list and wake that CPU's kblockd. */
static void blk_mq_raise_done(struct request *rq)
{
	unsigned long flags;
	struct blk_cpu_done *done;

	flags = local_irq_save();
	done = &blk_cpu_done[blk_mq_complete_cpu(rq)];
	spin_lock(&done->lock);
	list_add_tail(&rq->queuelist, &done->list);
	spin_unlock(&done->lock);
	local_irq_restore(flags);
	if (done->kblockd)
		wake_up_process(done->kblockd);
}

/* Mark rq complete with status: false if it was already -- the first of
 * the interrupt and the timeout handler to get here completes it; the
 * other, on another CPU maybe, finds it done. */
static bool blk_mq_mark_complete(struct request *rq, blk_status_t status)
{
	enum mq_rq_state old = READ_ONCE(rq->state);

	do {
		if (old == MQ_RQ_COMPLETE)
			return false;
	} while (!__atomic_compare_exchange_n(&rq->state, &old, MQ_RQ_COMPLETE, false,
					      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	rq->status = status;
	return true;
}

/* A polled request's end is its submitter's: blk_mq_poll() ends it, not
 * kblockd and not the interrupt. */
static void blk_mq_complete_polled(struct request *rq)
{
	struct blk_mq_hw_ctx *hctx = rq->mq_hctx;
	unsigned long flags;

	spin_lock_irqsave(&hctx->poll_lock, flags);
	list_add_tail(&rq->queuelist, &hctx->poll_done);
	spin_unlock_irqrestore(&hctx->poll_lock, flags);
}

bool blk_mq_complete_request(struct request *rq, blk_status_t status)
{
	if (!blk_mq_mark_complete(rq, status))
		return false;
	if (rq->cmd_flags & REQ_POLLED)
		blk_mq_complete_polled(rq);
	else
		blk_mq_raise_done(rq);
	return true;
}

/*
 * blk_mq_complete_request_remote - Linux's name and rule (block/blk-mq.c,
 * since 5.10): complete rq, and say whether its end was sent somewhere
 * else.  When the request is to end on this very CPU (rq_affinity above)
 * there is no point in waking this CPU's kblockd to do it: that is a
 * wake-up, a switch to kblockd and a switch away again around an end a
 * few hundred instructions long.  Then this returns false, and the
 * caller -- a driver's interrupt handler, outside its own locks --
 * ends the request itself with blk_mq_end_request_batch().  True: the
 * request is taken care of (its kblockd elsewhere, its poller, or the
 * timeout handler that completed it first).  Interrupt context.
 */
bool blk_mq_complete_request_remote(struct request *rq, blk_status_t status)
{
	unsigned long flags;
	bool here;

	if (!blk_mq_mark_complete(rq, status))
		return true;
	if (rq->cmd_flags & REQ_POLLED) {
		blk_mq_complete_polled(rq);
		return true;
	}
	flags = local_irq_save();
	here = blk_mq_complete_cpu(rq) == smp_processor_id();
	local_irq_restore(flags);
	if (here)
		return false;
	blk_mq_raise_done(rq);
	return true;
}

/*
 * blk_mq_end_request_batch - end the requests on list (linked by
 * queuelist), each with the status blk_mq_complete_request_remote()
 * recorded (Linux's, which takes an io_comp_batch).  Called by a
 * driver's interrupt handler with none of its locks held: ending a
 * request runs its bios' bi_end_io and then the hardware queue, whose
 * queue_rq() takes the driver's submission lock.
 */
void blk_mq_end_request_batch(struct list_head *list)
{
	struct request *rq, *next;

	list_for_each_entry_safe(rq, next, list, queuelist) {
		list_del_init(&rq->queuelist);
		blk_mq_end_request(rq, rq->status);
	}
}

bool blk_mq_add_to_batch(struct request *rq, struct io_comp_batch *iob, blk_status_t status)
{
	if (!iob)
		return false;
	if (blk_mq_mark_complete(rq, status))
		list_add_tail(&rq->queuelist, &iob->req_list);
	return true;
}

/*
 * blk_mq_poll - one round of polling on a POLL hardware context.  The
 * driver reaps its completion queue (ops->poll, under the queue's own
 * lock) into a batch on our stack (blk_mq_add_to_batch); its requests
 * are ended here, in task context, after the driver's lock is dropped --
 * ending one runs the queue, and queue_rq takes the submission side's
 * lock.  Then the requests someone else completed for a poller (the
 * timeout handler) on hctx->poll_done.  Any poller of the context ends
 * every request on it, its own or another task's: each submitter only
 * waits for its own bio to end.
 */
int blk_mq_poll(struct request_queue *q, unsigned int cookie)
{
	struct io_comp_batch iob = { .req_list = LIST_HEAD_INIT(iob.req_list) };
	struct blk_mq_hw_ctx *hctx;
	struct request *rq, *next;
	int ended = 0;

	if (!blk_mq_can_poll(q) || cookie >= q->nr_hw_queues)
		return 0;
	hctx = q->queue_hw_ctx[cookie];
	if (hctx->type != HCTX_TYPE_POLL)
		return 0;
	q->tag_set->ops->poll(hctx, &iob);
	list_for_each_entry_safe(rq, next, &iob.req_list, queuelist) {
		list_del_init(&rq->queuelist);
		blk_mq_end_request(rq, rq->status);
		ended++;
	}
	/* a look without the lock first: the list is almost always empty,
	 * and one added just after the look is the next poll's */
	while (READ_ONCE(hctx->poll_done.next) != &hctx->poll_done) {
		unsigned long flags;

		rq = NULL;
		spin_lock_irqsave(&hctx->poll_lock, flags);
		if (!list_empty(&hctx->poll_done)) {
			rq = list_first_entry(&hctx->poll_done, struct request, queuelist);
			list_del_init(&rq->queuelist);
		}
		spin_unlock_irqrestore(&hctx->poll_lock, flags);
		if (!rq)
			break;
		blk_mq_end_request(rq, rq->status);
		ended++;
	}
	return ended;
}

void blk_mq_requeue_request(struct request *rq)
{
	WRITE_ONCE(rq->state, MQ_RQ_COMPLETE);  /* no late completion counts */
	rq->rq_flags |= RQF_REQUEUE;
	blk_mq_raise_done(rq);
}

/* kblockd: put a requeued request first in line for the driver again. */
static void __blk_mq_requeue(struct request *rq)
{
	struct blk_mq_hw_ctx *hctx = rq->mq_hctx;
	unsigned long flags;

	spin_lock_irqsave(&hctx->lock, flags);
	rq->rq_flags &= ~RQF_REQUEUE;
	rq->state = MQ_RQ_IDLE;
	__blk_mq_put_tag(hctx, rq);
	list_add(&rq->queuelist, &hctx->dispatch);
	hctx->busy = false;
	hctx->restart_seq++;
	spin_unlock_irqrestore(&hctx->lock, flags);
	blk_mq_run_hw_queue(hctx);
}

/* End the requests completed on this CPU's list: its kblockd, or a test. */
void blk_mq_run_completions(void)
{
	for (;;) {
		struct request *rq = NULL;
		struct blk_cpu_done *done;
		unsigned long flags;

		flags = local_irq_save();
		done = &blk_cpu_done[smp_processor_id()];
		spin_lock(&done->lock);
		if (!list_empty(&done->list)) {
			rq = list_first_entry(&done->list, struct request, queuelist);
			list_del_init(&rq->queuelist);
		}
		spin_unlock(&done->lock);
		local_irq_restore(flags);
		if (!rq)
			return;
		if (rq->rq_flags & RQF_REQUEUE)
			__blk_mq_requeue(rq);
		else
			blk_mq_end_request(rq, rq->status);
	}
}

/* --- freezing (for an elevator switch) ------------------------------------- */

/*
 * Has every request come home to its pool, and no bio is inside
 * make_request_fn?  Each count is read unlocked: wait_event() looks
 * again after every wake-up, and a freeze's new bios cannot take a
 * request, so the counts only grow towards full.
 */
static bool blk_mq_queue_drained(struct request_queue *q)
{
	for (unsigned int i = 0; i < q->nr_hw_queues; i++)
		if (READ_ONCE(q->queue_hw_ctx[i]->nr_free) != q->nr_requests)
			return false;
	return !blk_queue_usage(q) &&
	       list_empty(&q->flush_running) && list_empty(&q->flush_pending);
}

void blk_mq_freeze_queue(struct request_queue *q)
{
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	q->mq_freeze_depth++;
	spin_unlock_irqrestore(&q->lock, flags);
	blk_queue_usage_sync();  /* the freeze seen, or the counts final */
	/* our own plugged requests would otherwise never come home */
	if (current->plug)
		blk_flush_plug(current, false);
	wait_event(q->mq_freeze_wq, blk_mq_queue_drained(q));
}

void blk_mq_unfreeze_queue(struct request_queue *q)
{
	unsigned long flags;
	bool thawed;

	spin_lock_irqsave(&q->lock, flags);
	thawed = --q->mq_freeze_depth == 0;
	spin_unlock_irqrestore(&q->lock, flags);
	if (thawed)
		wake_up_all(&q->mq_freeze_wq);
}

/* --- timeouts ---------------------------------------------------------------- */

/*
 * A request the driver started (blk_mq_start_request) and has not
 * completed after q->rq_timeout is late: a lost interrupt, a hung device.
 * The driver's timeout handler decides -- usually reset the controller
 * and fail or retry the request.  rq->state makes sure a completion that
 * races with the handler counts once.  kblockd runs this once a second.
 *
 * A request can end while kblockd looks at it (a submitter ends one that
 * queue_rq refused, null_blk irqmode=0 ends them inline) and be reused:
 * so the late one is recognised by the number of its dispatch (rq->gen)
 * as well as its tag, checked under its hctx's lock -- and without a
 * driver handler, completed under it.  A driver's handler may sleep, so it runs
 * unlocked and checks the request against its own state (IDE: the
 * channel's active request; AHCI: the slot's).
 */
static void blk_mq_rq_timed_out(struct blk_mq_hw_ctx *hctx, unsigned int tag,
				struct request *rq, u64 gen, u64 now)
{
	struct request_queue *q = hctx->queue;
	const char *name = rq->part ? rq->part->bd_disk->disk_name : "?";
	enum blk_eh_timer_return ret;
	unsigned long flags;
	bool still;

	/* since it was started, or its timer last reset */
	pr_warn("blk: %s: request timed out after %llu ms: tag %d, %s sector %llu + %u\n",
		name, (unsigned long long)jiffies_to_msecs(now - rq->deadline + q->rq_timeout),
		rq->tag, req_op(rq) == REQ_OP_WRITE ? "write" :
		req_op(rq) == REQ_OP_READ ? "read" : req_op(rq) == REQ_OP_FLUSH ? "flush" :
		req_op(rq) == REQ_OP_DISCARD ? "discard" : "write-zeroes",
		(unsigned long long)blk_rq_pos(rq), blk_rq_sectors(rq));
	spin_lock_irqsave(&hctx->lock, flags);
	still = hctx->tag_rq[tag] == rq && rq->gen == gen &&
		READ_ONCE(rq->state) == MQ_RQ_IN_FLIGHT;
	if (still && !q->tag_set->ops->timeout)
		blk_mq_complete_request(rq, BLK_STS_TIMEOUT);
	spin_unlock_irqrestore(&hctx->lock, flags);
	if (!still || !q->tag_set->ops->timeout)
		return;
	ret = q->tag_set->ops->timeout(rq);
	if (ret == BLK_EH_RESET_TIMER && READ_ONCE(rq->state) == MQ_RQ_IN_FLIGHT)
		rq->deadline = jiffies + q->rq_timeout;
}

void blk_mq_check_timeouts(u64 now)
{
	struct request_queue *q;

	mutex_lock(&mq_queues_lock);
	list_for_each_entry(q, &mq_queues, all_queues) {
		for (unsigned int i = 0; i < q->nr_hw_queues; i++) {
			struct blk_mq_hw_ctx *hctx = q->queue_hw_ctx[i];

			for (unsigned int tag = 0; tag < q->tag_set->queue_depth; tag++) {
				struct request *rq;
				unsigned long flags;
				bool late;

				u64 gen = 0;

				spin_lock_irqsave(&hctx->lock, flags);
				rq = hctx->tag_rq[tag];
				late = rq && READ_ONCE(rq->state) == MQ_RQ_IN_FLIGHT &&
				       time_after_eq(now, rq->deadline);
				if (late)
					gen = rq->gen;
				spin_unlock_irqrestore(&hctx->lock, flags);
				if (late)
					blk_mq_rq_timed_out(hctx, tag, rq, gen, now);
			}
		}
	}
	mutex_unlock(&mq_queues_lock);
}

unsigned int blk_mq_nr_queues(void)
{
	struct request_queue *q;
	unsigned int n = 0;

	mutex_lock(&mq_queues_lock);
	list_for_each_entry(q, &mq_queues, all_queues)
		n++;
	mutex_unlock(&mq_queues_lock);
	return n;
}

void blk_mq_exit_queue(struct request_queue *q)
{
	mutex_lock(&mq_queues_lock);
	list_del_init(&q->all_queues);
	mutex_unlock(&mq_queues_lock);
}

static struct timer_list blk_mq_timer;
static bool timeouts_due;
static bool restarts_due;

void blk_mq_restart_hw_queue(struct request_queue *q)
{
	for (unsigned int i = 0; i < q->nr_hw_queues; i++) {
		struct blk_mq_hw_ctx *hctx = q->queue_hw_ctx[i];
		unsigned long flags;

		spin_lock_irqsave(&hctx->lock, flags);
		hctx->busy = false;
		hctx->restart_seq++;
		hctx->restart_pending = true;
		spin_unlock_irqrestore(&hctx->lock, flags);
	}
	WRITE_ONCE(restarts_due, true);
	kblockd_kick();
}

unsigned int blk_mq_tags_peak(struct request_queue *q)
{
	unsigned int peak = 0;

	for (unsigned int i = 0; i < q->nr_hw_queues; i++)
		peak = max(peak, READ_ONCE(q->queue_hw_ctx[i]->tags_peak));
	return peak;
}

void blk_mq_reset_tags_peak(struct request_queue *q)
{
	for (unsigned int i = 0; i < q->nr_hw_queues; i++)
		WRITE_ONCE(q->queue_hw_ctx[i]->tags_peak, 0);
}

/* kblockd: run every hardware queue a driver asked to restart. */
void blk_mq_run_restarts(void)
{
	struct request_queue *q;

	WRITE_ONCE(restarts_due, false);
	mutex_lock(&mq_queues_lock);
	list_for_each_entry(q, &mq_queues, all_queues) {
		for (unsigned int i = 0; i < q->nr_hw_queues; i++) {
			struct blk_mq_hw_ctx *hctx = q->queue_hw_ctx[i];
			unsigned long flags;
			bool run;

			spin_lock_irqsave(&hctx->lock, flags);
			run = hctx->restart_pending;
			hctx->restart_pending = false;
			spin_unlock_irqrestore(&hctx->lock, flags);
			if (run)
				blk_mq_run_hw_queue(hctx);
		}
	}
	mutex_unlock(&mq_queues_lock);
}

static void blk_mq_timer_fn(struct timer_list *t)
{
	WRITE_ONCE(timeouts_due, true);
	kblockd_kick();
	mod_timer(t, jiffies + HZ);
}

/*
 * kblockd/<cpu>: one per CPU, bound to it.  It ends the requests
 * completed on its CPU's list, and does the work any CPU may do --
 * restarting queues, the timeout scan -- when it is the first to see it
 * (the exchange makes sure only one does).
 */
static int kblockd(void *arg)
{
	struct blk_cpu_done *done = &blk_cpu_done[(unsigned long)arg];

	for (;;) {
		unsigned long flags;

		blk_mq_run_completions();
		/* looked at before they are taken: an exchange writes the
		 * line even when it finds false, and every CPU's kblockd
		 * passes here at every wake-up (tools/c2c.py) */
		if (READ_ONCE(restarts_due) &&
		    __atomic_exchange_n(&restarts_due, false, __ATOMIC_ACQ_REL)) {
			blk_mq_run_restarts();
			continue;
		}
		if (READ_ONCE(timeouts_due) &&
		    __atomic_exchange_n(&timeouts_due, false, __ATOMIC_ACQ_REL)) {
			blk_mq_check_timeouts(jiffies);
			continue;               /* handlers may have completed some */
		}
		spin_lock_irqsave(&done->lock, flags);
		set_current_state(TASK_INTERRUPTIBLE);
		if (!list_empty(&done->list) || READ_ONCE(timeouts_due) || READ_ONCE(restarts_due))
			__set_current_state(TASK_RUNNING);
		spin_unlock_irqrestore(&done->lock, flags);
		schedule();
	}
	return 0;
}

/* A kblockd bound to each online CPU (the host's tests call it too). */
void blk_mq_start_kblockd(void)
{
	unsigned int cpu;

	mutex_lock(&mq_queues_lock);
	blk_cpu_done_init();
	mutex_unlock(&mq_queues_lock);
	for_each_online_cpu(cpu) {
		struct cpumask one = { 0 };
		struct task_struct *t;

		cpumask_set_cpu(cpu, &one);
		t = kthread_create(kblockd, (void *)(unsigned long)cpu, "kblockd/%u", cpu);
		if (!t || set_cpus_allowed_ptr(t, &one)) {
			/* its CPU's completions run where they come in */
			pr_err("blk-mq: no kblockd for CPU %u\n", cpu);
			if (t)
				wake_up_process(t);     /* runs anywhere, still useful */
			continue;
		}
		WRITE_ONCE(blk_cpu_done[cpu].kblockd, t);
		wake_up_process(t);
	}
}

static int __init blk_mq_init(void)
{
	blk_mq_start_kblockd();
	timer_setup(&blk_mq_timer, blk_mq_timer_fn);
	mod_timer(&blk_mq_timer, jiffies + HZ);
	return 0;
}
core_initcall(blk_mq_init);
