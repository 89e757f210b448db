// SPDX-License-Identifier: MIT
/*
 * noop-iosched.c - the "none" elevator: no reordering at all.
 *
 * Where it sits: below the request layer's elv_* wrappers (elevator.c),
 * above nothing -- what it dispatches goes to the driver's queue_rq().
 * Requests leave in the order they arrived (first in, first out); a
 * request inserted at_head (a requeue, a flush) goes before all of them.
 * Use it for devices that reorder for themselves (NCQ disks, RAM disks),
 * or as the baseline the other policies are measured against.
 *
 * Merging still pays even without sorting: a sequential stream arrives
 * as many small bios.  Like Linux's blk-mq without a scheduler, only the
 * most recent few requests are searched -- a stream's next bio almost
 * always belongs to one of them, and a bounded look keeps the cost
 * constant however deep the queue.
 *
 * Called with q->lock held; never sleeps.  Data: one list through
 * rq->queuelist.
 */
#include <spindle/errno.h>
#include <spindle/mm.h>
#include <spindle/spinlock.h>
#include "elevator-internal.h"

#define NOOP_MERGE_LOOKBACK 8   /* requests searched for a merge, newest first */

struct noop_data {
	struct list_head queue;         /* oldest first */
};

static struct noop_data *noop_data(struct request_queue *q)
{
	return q->elevator->elevator_data;
}

static int noop_init_sched(struct request_queue *q)
{
	struct noop_data *nd = kzalloc(sizeof(*nd), GFP_ATOMIC);

	if (!nd)
		return -ENOMEM;
	INIT_LIST_HEAD(&nd->queue);
	q->elevator->elevator_data = nd;
	return 0;
}

static void noop_exit_sched(struct request_queue *q)
{
	kfree(noop_data(q));
}

static void noop_insert_requests(struct request_queue *q, struct list_head *list, bool at_head)
{
	struct noop_data *nd = noop_data(q);

	assert_spin_locked(&q->lock);
	if (at_head)
		list_splice_init(list, &nd->queue);
	else
		list_splice_tail_init(list, &nd->queue);
}

/* Dispatch: the oldest request (or the last one inserted at_head). */
static struct request *noop_dispatch_request(struct request_queue *q)
{
	struct noop_data *nd = noop_data(q);
	struct request *rq;

	assert_spin_locked(&q->lock);
	rq = list_first_entry_or_null(&nd->queue, struct request, queuelist);
	if (rq)
		list_del_init(&rq->queuelist);
	return rq;
}

static bool noop_has_work(struct request_queue *q)
{
	assert_spin_locked(&q->lock);
	return !list_empty(&noop_data(q)->queue);
}

static enum elv_merge noop_request_merge(struct request_queue *q, struct request **rqp,
					 struct bio *bio)
{
	struct request *rq;
	int checked = 0;

	assert_spin_locked(&q->lock);
	list_for_each_entry_reverse(rq, &noop_data(q)->queue, queuelist) {
		enum elv_merge type;

		if (++checked > NOOP_MERGE_LOOKBACK)
			break;
		type = elv_bio_merge_type(rq, bio);
		if (type != ELEVATOR_NO_MERGE) {
			*rqp = rq;
			return type;
		}
	}
	return ELEVATOR_NO_MERGE;
}

static void noop_requests_merged(struct request_queue *q, struct request *rq,
				 struct request *next)
{
	(void)rq;
	assert_spin_locked(&q->lock);
	list_del_init(&next->queuelist);
}

struct elevator_type elevator_noop = {
	.elevator_name = "none",
	.ops = {
		.init_sched = noop_init_sched,
		.exit_sched = noop_exit_sched,
		.insert_requests = noop_insert_requests,
		.dispatch_request = noop_dispatch_request,
		.has_work = noop_has_work,
		.request_merge = noop_request_merge,
		.requests_merged = noop_requests_merged,
	},
};
