// SPDX-License-Identifier: MIT
/*
 * null_blk.c - a disk that stores nothing: nullb0, nullb1, ... (Linux's
 * null_blk, bio-based mode).
 *
 * Every bio succeeds; reads return whatever is in the buffer.  What is
 * left is the cost of the block layer itself -- the software ceiling a
 * benchmark compares real drivers against -- and a knob for latency.
 *
 * Boot options (Linux's module parameters):
 *   null_blk.nr_devices=<n>      how many (default 0: none unless asked)
 *   null_blk.gb=<n>              size in GiB (default 250)
 *   null_blk.bs=<bytes>          logical block size (512 or 4096; default 512)
 *   null_blk.irqmode=<0|2>       0: complete in the submitter's context;
 *                                2: complete from a timer (default)
 *   null_blk.completion_nsec=<n> latency in irqmode 2 (default 10000);
 *                                rounded up to whole jiffies (1 ms): no
 *                                high-resolution timers in Spindle.  Bios
 *                                that arrive while a batch waits end with
 *                                it, so latency is at most this.
 *   null_blk.queue_mode=<0|2>    0: bio-based (make_request_fn); 2: through
 *                                the request layer, as Linux's default
 *                                (merging, elevator, tags)
 *   null_blk.hw_queue_depth=<n>  queue_mode 2: commands in flight on each
 *                                hardware queue (default 64)
 *   null_blk.submit_queues=<n>   queue_mode 2: hardware queues (default 1);
 *                                the CPUs are spread over them
 *                                (blk_mq_map_queues), at most one a CPU
 *   null_blk.poll_queues=<n>     queue_mode 2: hardware queues for polled
 *                                I/O (REQ_POLLED: RWF_HIPRI) after the
 *                                submit_queues, at most one a CPU; their
 *                                requests complete only when polled
 *                                (null_poll), whatever irqmode says.
 *                                Default 0 (Linux's is 1: Spindle keeps
 *                                nullbN's hardware contexts as the labs
 *                                count them unless asked)
 *   null_blk.max_sectors=<n>     largest request in 512-byte sectors
 *                                (default 2048, as much as a bio carries):
 *                                smaller values make the request layer split
 * irqmode 1 (softirq) does not exist here and is refused.
 */
#define pr_fmt(fmt) "null_blk: " fmt
#include <spindle/blkdev.h>
#include <spindle/init.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include <spindle/blk_mq.h>

#define NULLB_MAJOR     252             /* dynamic in Linux; fixed here */
#define NULLB_MAX       16
#define NULL_IRQ_NONE   0
#define NULL_IRQ_TIMER  2
#define NULL_Q_BIO      0
#define NULL_Q_MQ       2

static unsigned int nr_devices;
static unsigned int gb = 250;
static unsigned int bs = 512;
static unsigned int irqmode = NULL_IRQ_TIMER;
static unsigned long long completion_nsec = 10000;
static unsigned int queue_mode = NULL_Q_MQ;
static unsigned int hw_queue_depth = 64;
static unsigned int submit_queues = 1;
static unsigned int poll_queues;
static unsigned int max_sectors;              /* 0: the queue's default */

struct nullb {
	struct gendisk *disk;
	struct blk_mq_tag_set tag_set;  /* queue_mode 2 */
	struct list_head pending_rqs;   /* queue_mode 2, irqmode 2 */
	struct bio_list pending;        /* irqmode 2: waiting for the timer */
	struct timer_list timer;
	spinlock_t lock;                /* the lists above; also from the timer */
	/* poll queue i's started requests, until a poll ends them (Linux's
	 * nq->poll_list and nq->poll_lock).  Only tasks take the lock -- a
	 * submitter in queue_rq, a poller, kblockd's timeout check -- never
	 * an interrupt, so it is taken with interrupts on; and each poll
	 * queue has its own, as its CPUs share no other. */
	struct null_poll_queue {
		spinlock_t lock;
		struct list_head list;
	} poll_q[NR_CPUS];
};

static int __init uint_param(const char *val, unsigned int *p, unsigned int max)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v > max)
		return -EINVAL;
	*p = v;
	return 0;
}

static int __init nr_devices_setup(const char *v) { return uint_param(v, &nr_devices, NULLB_MAX); }
__setup("null_blk.nr_devices=", nr_devices_setup);
static int __init gb_setup(const char *v) { return uint_param(v, &gb, 1u << 16); }
__setup("null_blk.gb=", gb_setup);
static int __init bs_setup(const char *v)
{
	unsigned int b;

	if (uint_param(v, &b, 4096) || (b != 512 && b != 4096))
		return -EINVAL;
	bs = b;
	return 0;
}
__setup("null_blk.bs=", bs_setup);
static int __init irqmode_setup(const char *v)
{
	unsigned int m;

	if (uint_param(v, &m, 2) || m == 1)
		return -EINVAL;
	irqmode = m;
	return 0;
}
__setup("null_blk.irqmode=", irqmode_setup);
static int __init completion_nsec_setup(const char *v)
{
	return kstrtoull(v, 0, &completion_nsec) ? -EINVAL : 0;
}
__setup("null_blk.completion_nsec=", completion_nsec_setup);
static int __init queue_mode_setup(const char *v)
{
	unsigned int m;

	if (uint_param(v, &m, 2) || m == 1)
		return -EINVAL;
	queue_mode = m;
	return 0;
}
__setup("null_blk.queue_mode=", queue_mode_setup);
static int __init hw_queue_depth_setup(const char *v)
{
	unsigned int d;

	if (uint_param(v, &d, BLK_MQ_MAX_DEPTH) || !d)
		return -EINVAL;
	hw_queue_depth = d;
	return 0;
}
__setup("null_blk.hw_queue_depth=", hw_queue_depth_setup);
static int __init submit_queues_setup(const char *v)
{
	unsigned int n;

	if (uint_param(v, &n, NR_CPUS) || !n)
		return -EINVAL;
	submit_queues = n;
	return 0;
}
__setup("null_blk.submit_queues=", submit_queues_setup);
static int __init poll_queues_setup(const char *v) { return uint_param(v, &poll_queues, NR_CPUS); }
__setup("null_blk.poll_queues=", poll_queues_setup);
static int __init max_sectors_setup(const char *v) { return uint_param(v, &max_sectors, 1u << 16); }
__setup("null_blk.max_sectors=", max_sectors_setup);

static u64 null_latency_jiffies(void)
{
	return max(1ull, msecs_to_jiffies(DIV_ROUND_UP(completion_nsec, NSEC_PER_MSEC)));
}

/* Timer: end every bio whose latency has passed.  Interrupt context. */
static void null_timer_fn(struct timer_list *t)
{
	struct nullb *nb = container_of(t, struct nullb, timer);
	struct bio_list done;
	unsigned long flags;
	struct bio *bio;

	LIST_HEAD(rqs);
	struct request *rq, *tmp;

	spin_lock_irqsave(&nb->lock, flags);
	done = nb->pending;
	bio_list_init(&nb->pending);
	list_splice_init(&nb->pending_rqs, &rqs);
	spin_unlock_irqrestore(&nb->lock, flags);
	while ((bio = bio_list_pop(&done)) != NULL)
		bio_endio(bio);
	list_for_each_entry_safe(rq, tmp, &rqs, queuelist) {
		list_del_init(&rq->queuelist);
		blk_mq_complete_request(rq, BLK_STS_OK);
	}
}

/* queue_mode 2: every request succeeds, now or after the latency. */
static blk_status_t null_queue_rq(struct request_queue *q, const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;
	struct nullb *nb = q->queuedata;
	unsigned long flags;

	blk_mq_start_request(rq);
	if (rq->mq_hctx->type == HCTX_TYPE_POLL) {
		/* done at once, but only a poll finds out (null_poll) */
		struct null_poll_queue *pq = &nb->poll_q[rq->mq_hctx->queue_num - submit_queues];

		spin_lock(&pq->lock);
		list_add_tail(&rq->queuelist, &pq->list);
		spin_unlock(&pq->lock);
		return BLK_STS_OK;
	}
	if (irqmode == NULL_IRQ_NONE) {
		/* done before queue_rq returns, as Linux's null_blk does */
		blk_mq_end_request(rq, BLK_STS_OK);
		return BLK_STS_OK;
	}
	spin_lock_irqsave(&nb->lock, flags);
	list_add_tail(&rq->queuelist, &nb->pending_rqs);
	if (!nb->timer.pending)
		mod_timer(&nb->timer, jiffies + null_latency_jiffies());
	spin_unlock_irqrestore(&nb->lock, flags);
	return BLK_STS_OK;
}

/* The poll op (Linux's null_poll): every request waiting on this poll
 * queue completes now, into blk_mq_poll()'s batch.  Task context
 * (bio_poll's caller). */
static int null_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	struct nullb *nb = hctx->queue->queuedata;
	struct null_poll_queue *pq = &nb->poll_q[hctx->queue_num - submit_queues];
	struct request *rq, *tmp;
	int found = 0;

	LIST_HEAD(done);

	spin_lock(&pq->lock);
	list_splice_init(&pq->list, &done);
	spin_unlock(&pq->lock);
	list_for_each_entry_safe(rq, tmp, &done, queuelist) {
		list_del_init(&rq->queuelist);
		if (!blk_mq_add_to_batch(rq, iob, BLK_STS_OK))
			blk_mq_complete_request(rq, BLK_STS_OK);
		found++;
	}
	return found;
}

/*
 * A request still ours past the queue's timeout (Linux's null_timeout_rq):
 * a latency longer than rq_timeout, or a polled request nobody polls.  It
 * waits on one of our lists -- the timer's or its poll queue's -- and
 * ending it there would leave it linked on that list.  So it is looked
 * for under its list's lock and taken off first, then ended with
 * BLK_STS_TIMEOUT.  Not found: the timer or a poller has just taken it and
 * is ending it -- theirs (BLK_EH_DONE either way).
 */
static enum blk_eh_timer_return null_timeout_rq(struct request *rq)
{
	struct nullb *nb = rq->q->queuedata;
	struct blk_mq_hw_ctx *hctx = rq->mq_hctx;
	struct list_head *list = &nb->pending_rqs;
	spinlock_t *lock = &nb->lock;
	struct request *cur;
	unsigned long flags;
	bool found = false;

	if (hctx->type == HCTX_TYPE_POLL) {
		list = &nb->poll_q[hctx->queue_num - submit_queues].list;
		lock = &nb->poll_q[hctx->queue_num - submit_queues].lock;
	}
	spin_lock_irqsave(lock, flags);
	list_for_each_entry(cur, list, queuelist) {
		if (cur == rq) {
			list_del_init(&rq->queuelist);
			found = true;
			break;
		}
	}
	spin_unlock_irqrestore(lock, flags);
	if (found)
		blk_mq_complete_request(rq, BLK_STS_TIMEOUT);
	return BLK_EH_DONE;
}

static const struct blk_mq_ops null_mq_ops = {
	.queue_rq = null_queue_rq,
	.poll = null_poll,
	.timeout = null_timeout_rq,
};

static void null_make_request(struct request_queue *q, struct bio *bio)
{
	struct nullb *nb = q->queuedata;
	unsigned long flags;

	if (irqmode == NULL_IRQ_NONE) {
		bio_endio(bio);
		return;
	}
	spin_lock_irqsave(&nb->lock, flags);
	bio_list_add(&nb->pending, bio);
	if (!nb->timer.pending)
		mod_timer(&nb->timer, jiffies + null_latency_jiffies());
	spin_unlock_irqrestore(&nb->lock, flags);
}

static int __init null_add_dev(unsigned int i)
{
	struct nullb *nb = kzalloc(sizeof(*nb), GFP_KERNEL);
	struct request_queue *q;
	int err;

	if (!nb)
		return -ENOMEM;
	spin_lock_init(&nb->lock);
	INIT_LIST_HEAD(&nb->pending_rqs);
	for (unsigned int p = 0; p < NR_CPUS; p++) {
		spin_lock_init(&nb->poll_q[p].lock);
		INIT_LIST_HEAD(&nb->poll_q[p].list);
	}
	timer_setup(&nb->timer, null_timer_fn);
	if (queue_mode == NULL_Q_MQ) {
		nb->tag_set.ops = &null_mq_ops;
		nb->tag_set.queue_depth = hw_queue_depth;
		nb->tag_set.nr_hw_queues = submit_queues + poll_queues;
		nb->tag_set.driver_data = nb;
		if (poll_queues) {
			/* as Linux's null_init_tag_set: default queues, then poll */
			nb->tag_set.nr_maps = HCTX_MAX_TYPES;
			nb->tag_set.map[HCTX_TYPE_DEFAULT].nr_queues = submit_queues;
			nb->tag_set.map[HCTX_TYPE_READ].queue_offset = submit_queues;
			nb->tag_set.map[HCTX_TYPE_POLL].nr_queues = poll_queues;
			nb->tag_set.map[HCTX_TYPE_POLL].queue_offset = submit_queues;
		}
		q = blk_mq_init_queue(&nb->tag_set);
	} else {
		q = blk_alloc_queue(null_make_request, nb);
	}
	nb->disk = alloc_disk(1);
	if (!q || !nb->disk) {
		kfree(q);
		kfree(nb->disk);
		kfree(nb);
		return -ENOMEM;
	}
	blk_queue_logical_block_size(q, bs);
	if (max_sectors)
		blk_queue_max_hw_sectors(q, max(max_sectors, bs >> SECTOR_SHIFT));
	snprintf(nb->disk->disk_name, DISK_NAME_LEN, "nullb%u", i);
	nb->disk->major = NULLB_MAJOR;
	nb->disk->first_minor = i;
	nb->disk->queue = q;
	q->nonrot = true;                       /* as Linux's null_blk */
	set_capacity(nb->disk, (sector_t)gb << (30 - SECTOR_SHIFT));
	err = add_disk(nb->disk);
	if (err) {
		put_disk(nb->disk);
		kfree(q);
		kfree(nb);
	}
	return err;
}

static int __init null_init(void)
{
	if (queue_mode == NULL_Q_MQ && submit_queues > nr_cpu_ids) {
		/* Linux's words: one queue a CPU at most */
		pr_warn("submit_queues param is set to %u.\n", nr_cpu_ids);
		submit_queues = nr_cpu_ids;
	}
	if (queue_mode == NULL_Q_MQ && poll_queues > nr_cpu_ids) {
		pr_warn("poll_queues param is set to %u.\n", nr_cpu_ids);
		poll_queues = nr_cpu_ids;
	}
	for (unsigned int i = 0; i < nr_devices; i++) {
		int err = null_add_dev(i);

		if (err)
			return err;
	}
	if (nr_devices)
		pr_info("%u device(s), %u GiB, bs %u, irqmode %u, completion %llu ns, queue_mode %u\n",
			nr_devices, gb, bs, irqmode, completion_nsec, queue_mode);
	return 0;
}
device_initcall(null_init);
