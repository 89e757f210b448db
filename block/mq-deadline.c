// SPDX-License-Identifier: MIT
/*
 * mq-deadline.c - the deadline elevator ("mq-deadline"), with Linux's
 * policy, tunables and defaults.
 *
 * Where it sits: below the request layer's elv_* wrappers (elevator.c);
 * what dd_dispatch_request() returns goes to the driver's queue_rq().
 *
 * The problem: serving requests in sector order (a sweep) minimises seeks,
 * but a request far from where the disk is busy can wait forever.  So
 * each direction (reads, writes) keeps two views of the same requests:
 *
 *   sort_list[dir]   ordered by sector, for sweeping       (rq->elv_sort)
 *   fifo_list[dir]   ordered by arrival; each request's    (rq->queuelist)
 *                    rq->fifo_time = arrival + read_expire or write_expire
 *
 * Requests go out in batches: up to fifo_batch requests of one direction
 * in ascending sector order, each direction sweeping up from where its
 * last request ended (latest_pos).  Between batches the policy looks at
 * the clock: reads are preferred (a reader usually waits for its data; a
 * writer usually does not), unless writes have been passed over
 * writes_starved times; and if the chosen direction's oldest request has
 * expired, the next batch starts from it instead of where the sweep was.
 * When a sweep has passed every request of its direction, it starts
 * again from the oldest one (Linux's choice; a textbook C-LOOK would go
 * back to the lowest sector).
 *
 * The expiry is thus a soft deadline: a request is served at the latest
 * about one batch (and, for writes, writes_starved read batches) after it.
 *
 * Tunables (/sys/block/<dev>/queue/iosched/<name>, Linux's names, units
 * and defaults): read_expire, write_expire (ms), writes_starved,
 * fifo_batch (requests), front_merges (0/1).
 *
 * Requests inserted at_head (requeues, flushes) skip all this: they wait
 * on a plain list and go first, the latest insert at its front.
 *
 * Called with q->lock held; never sleeps.
 */
#include <spindle/errno.h>
#include <spindle/mm.h>
#include <spindle/spinlock.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include <spindle/printk.h>
#include "elevator-internal.h"

/* Defaults, as Linux's. */
static const unsigned int read_expire = 500;    /* ms: max time before a read is served */
static const unsigned int write_expire = 5000;  /* ms: max time before a write is served */
static const unsigned int writes_starved = 2;   /* read batches chosen while writes wait */
static const unsigned int fifo_batch = 16;      /* requests per batch, in sector order */
static const unsigned int front_merges = 1;     /* look for front merges at all? */

struct deadline_data {
	struct list_head sort_list[2];  /* [READ], [WRITE]: by sector */
	struct list_head fifo_list[2];  /* by arrival, hence by expiry */
	struct list_head dispatch;      /* at_head requests: served first */

	/* Where each direction's sweep stands: the end sector of the last
	 * request dispatched in it.  Its next request is the first at or
	 * above that, so a new arrival ahead of the sweep joins it. */
	sector_t latest_pos[2];
	int last_dir;                   /* direction of the current batch */
	unsigned int batching;          /* requests in it; 0: none under way */
	unsigned int starved;           /* read batches chosen while writes waited */

	/* tunables */
	unsigned int fifo_expire[2];    /* ms: read_expire, write_expire */
	unsigned int writes_starved;
	unsigned int fifo_batch;
	unsigned int front_merges;
};

static struct deadline_data *dd_data(struct request_queue *q)
{
	return q->elevator->elevator_data;
}

static int dd_init_sched(struct request_queue *q)
{
	struct deadline_data *dd = kzalloc(sizeof(*dd), GFP_ATOMIC);

	if (!dd)
		return -ENOMEM;
	for (int dir = READ; dir <= WRITE; dir++) {
		INIT_LIST_HEAD(&dd->sort_list[dir]);
		INIT_LIST_HEAD(&dd->fifo_list[dir]);
	}
	INIT_LIST_HEAD(&dd->dispatch);
	dd->fifo_expire[READ] = read_expire;
	dd->fifo_expire[WRITE] = write_expire;
	dd->writes_starved = writes_starved;
	dd->fifo_batch = fifo_batch;
	dd->front_merges = front_merges;
	q->elevator->elevator_data = dd;
	return 0;
}

static void dd_exit_sched(struct request_queue *q)
{
	kfree(dd_data(q));
}

static void dd_insert_requests(struct request_queue *q, struct list_head *list, bool at_head)
{
	struct deadline_data *dd = dd_data(q);
	u64 now = ktime_get_ns();

	assert_spin_locked(&q->lock);
	if (at_head) {
		list_splice_init(list, &dd->dispatch);
		return;
	}
	while (!list_empty(list)) {
		struct request *rq = list_first_entry(list, struct request, queuelist);
		int dir = rq_data_dir(rq);

		list_del_init(&rq->queuelist);
		rq->fifo_time = now + (u64)dd->fifo_expire[dir] * NSEC_PER_MSEC;
		list_add_tail(&rq->queuelist, &dd->fifo_list[dir]);
		elv_sort_add(&dd->sort_list[dir], rq);
	}
}

static void dd_remove_request(struct request *rq)
{
	list_del_init(&rq->queuelist);
	list_del_init(&rq->elv_sort);
}

/* The next request of a direction's sweep: the first at or above where
 * it stands, or NULL if the sweep has passed them all. */
static struct request *dd_next_in_sweep(struct deadline_data *dd, int dir)
{
	struct request *rq;

	list_for_each_entry(rq, &dd->sort_list[dir], elv_sort)
		if (blk_rq_pos(rq) >= dd->latest_pos[dir])
			return rq;
	return NULL;
}

/* The oldest request of a direction, or NULL. */
static struct request *dd_fifo_request(struct deadline_data *dd, int dir)
{
	return list_first_entry_or_null(&dd->fifo_list[dir], struct request, queuelist);
}

/* Has the oldest request of this direction passed its deadline? */
static bool dd_fifo_expired(struct deadline_data *dd, int dir)
{
	/* LAB 4 BEGIN */
	struct request *rq = dd_fifo_request(dd, dir);

	return rq && time_after_eq(ktime_get_ns(), rq->fifo_time);
	/* LAB 4 END: (void)dd; (void)dir; return false; */
}

/*
 * dd_dispatch_request - choose the next request for the driver.
 *
 * Contract: called with q->lock held; returns a request removed from the
 * elevator (off every list, rq->queuelist empty), or NULL if there is
 * none.  It decides, in this order:
 *   1. a request inserted at_head, if any: the one inserted last first
 *      (each at_head insert goes in front of those already waiting, as
 *      Linux's does; one insert's list keeps its own order);
 *   2. the current batch goes on -- with its direction's next request
 *      in the sweep (the first at or above latest_pos) -- while it has
 *      had fewer than fifo_batch requests and such a request exists;
 *   3. otherwise a new batch begins.  Its direction: reads, unless there
 *      are none, or writes are waiting and reads have been chosen over
 *      them writes_starved times already (starved counts those choices;
 *      choosing writes resets it).  Its first request: the direction's
 *      oldest if that one has expired (now >= rq->fifo_time) or if the
 *      sweep has passed every request; else the next one in the sweep.
 * Afterwards latest_pos of the dispatched request's direction is its end
 * sector.  Reads the clock (ktime_get_ns()); never sleeps.
 */
static struct request *dd_dispatch_request(struct request_queue *q)
{
	struct deadline_data *dd = dd_data(q);
	struct request *rq;
	bool reads, writes;
	int dir;

	assert_spin_locked(&q->lock);
	rq = list_first_entry_or_null(&dd->dispatch, struct request, queuelist);
	if (rq) {
		list_del_init(&rq->queuelist);
		return rq;
	}

	if (dd->batching > 0 && dd->batching < dd->fifo_batch) {
		rq = dd_next_in_sweep(dd, dd->last_dir);
		if (rq)
			goto dispatch;          /* the batch goes on */
	}

	reads = !list_empty(&dd->fifo_list[READ]);
	writes = !list_empty(&dd->fifo_list[WRITE]);
	if (reads && (!writes || dd->starved < dd->writes_starved)) {
		dir = READ;
		if (writes)
			dd->starved++;          /* a write was passed over */
	} else if (writes) {
		dir = WRITE;
		dd->starved = 0;
	} else {
		return NULL;
	}

	rq = dd_next_in_sweep(dd, dir);
	if (!rq || dd_fifo_expired(dd, dir))
		rq = dd_fifo_request(dd, dir);
	dd->batching = 0;

dispatch:
	dir = rq_data_dir(rq);
	dd->last_dir = dir;
	dd->batching++;
	dd->latest_pos[dir] = blk_rq_end_pos(rq);
	dd_remove_request(rq);
	return rq;
}

static bool dd_has_work(struct request_queue *q)
{
	struct deadline_data *dd = dd_data(q);

	assert_spin_locked(&q->lock);
	return !list_empty(&dd->dispatch) || !list_empty(&dd->fifo_list[READ]) ||
	       !list_empty(&dd->fifo_list[WRITE]);
}

static enum elv_merge dd_request_merge(struct request_queue *q, struct request **rq,
				       struct bio *bio)
{
	struct deadline_data *dd = dd_data(q);

	assert_spin_locked(&q->lock);
	return elv_sort_merge(&dd->sort_list[bio_data_dir(bio)], bio, dd->front_merges, rq);
}

static void dd_request_merged(struct request_queue *q, struct request *rq, enum elv_merge type)
{
	struct deadline_data *dd = dd_data(q);

	assert_spin_locked(&q->lock);
	if (type == ELEVATOR_FRONT_MERGE) {     /* its start sector moved */
		list_del_init(&rq->elv_sort);
		elv_sort_add(&dd->sort_list[rq_data_dir(rq)], rq);
	}
}

static struct request *dd_next_request(struct request_queue *q, struct request *rq)
{
	assert_spin_locked(&q->lock);
	return elv_sort_latter(&dd_data(q)->sort_list[rq_data_dir(rq)], rq);
}

static struct request *dd_former_request(struct request_queue *q, struct request *rq)
{
	assert_spin_locked(&q->lock);
	return elv_sort_former(&dd_data(q)->sort_list[rq_data_dir(rq)], rq);
}

/*
 * next was merged into rq.  rq now carries next's data too, so it must
 * not be served later than next would have been: it takes the earlier of
 * the two deadlines, and that one's place in the FIFO.
 */
static void dd_requests_merged(struct request_queue *q, struct request *rq,
			       struct request *next)
{
	assert_spin_locked(&q->lock);
	if (time_after(rq->fifo_time, next->fifo_time)) {
		list_move(&rq->queuelist, &next->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	dd_remove_request(next);
}

/* --- tunables ----------------------------------------------------------------- */

#define DD_TUNABLE_MAX 0x7fffffffu      /* as Linux's INT_MAX bound */

static int dd_store_uint(const char *buf, unsigned int max, unsigned int *val)
{
	unsigned int v;

	if (kstrtouint(buf, 10, &v) || v > max)
		return -EINVAL;
	*val = v;
	return 0;
}

/* show and store for one tunable: the field, and the largest value accepted. */
#define DD_ATTR(name, field, max)                                               \
static int dd_##name##_show(struct request_queue *q, char *buf, size_t size)    \
{                                                                               \
	assert_spin_locked(&q->lock);                                           \
	return scnprintf(buf, size, "%u\n", dd_data(q)->field);                 \
}                                                                               \
static int dd_##name##_store(struct request_queue *q, const char *buf)          \
{                                                                               \
	assert_spin_locked(&q->lock);                                           \
	return dd_store_uint(buf, max, &dd_data(q)->field);                     \
}

DD_ATTR(read_expire, fifo_expire[READ], DD_TUNABLE_MAX)
DD_ATTR(write_expire, fifo_expire[WRITE], DD_TUNABLE_MAX)
DD_ATTR(writes_starved, writes_starved, DD_TUNABLE_MAX)
DD_ATTR(fifo_batch, fifo_batch, DD_TUNABLE_MAX)
DD_ATTR(front_merges, front_merges, 1)

#define DD_ATTR_ENTRY(name) { #name, dd_##name##_show, dd_##name##_store }

static const struct elv_fs_entry deadline_attrs[] = {
	DD_ATTR_ENTRY(read_expire),
	DD_ATTR_ENTRY(write_expire),
	DD_ATTR_ENTRY(writes_starved),
	DD_ATTR_ENTRY(fifo_batch),
	DD_ATTR_ENTRY(front_merges),
	{ NULL, NULL, NULL }
};

struct elevator_type mq_deadline = {
	.elevator_name = "mq-deadline",
	.ops = {
		.init_sched = dd_init_sched,
		.exit_sched = dd_exit_sched,
		.insert_requests = dd_insert_requests,
		.dispatch_request = dd_dispatch_request,
		.has_work = dd_has_work,
		.request_merge = dd_request_merge,
		.request_merged = dd_request_merged,
		.next_request = dd_next_request,
		.former_request = dd_former_request,
		.requests_merged = dd_requests_merged,
	},
	.elevator_attrs = deadline_attrs,
};
