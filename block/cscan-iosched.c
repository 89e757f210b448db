// SPDX-License-Identifier: MIT
/*
 * cscan-iosched.c - the textbook circular SCAN elevator ("cscan").
 *
 * Where it sits: below the request layer's elv_* wrappers (elevator.c);
 * what cscan_dispatch_request() returns goes to the driver's queue_rq().
 *
 * The disk head sweeps in one direction only: it serves requests in
 * ascending sector order from where it is, and when none is left above
 * it, it flies back to the lowest request and sweeps up again.  Sweeping
 * one way (rather than back and forth, as SCAN does) gives the sectors at
 * both ends of the disk the same wait: at most one full sweep.  Reads and
 * writes share the sweep; nothing expires, so a steady stream just ahead
 * of the head can hold everything behind it back for as long as it lasts
 * -- compare mq-deadline, whose FIFOs bound that wait.
 *
 * Requests inserted at_head (requeues, flushes) go before the sweep, each
 * insert in front of those already waiting (the last inserted goes first).
 *
 * Called with q->lock held; never sleeps.  Data: one sector-sorted list
 * through rq->elv_sort, and the head position.
 */
#include <spindle/errno.h>
#include <spindle/mm.h>
#include <spindle/spinlock.h>
#include "elevator-internal.h"

struct cscan_data {
	struct list_head sorted;        /* every queued request, by sector */
	struct list_head dispatch;      /* at_head requests: served first */
	sector_t head_pos;              /* end sector of the last dispatched */
};

static struct cscan_data *cscan_data(struct request_queue *q)
{
	return q->elevator->elevator_data;
}

static int cscan_init_sched(struct request_queue *q)
{
	struct cscan_data *cd = kzalloc(sizeof(*cd), GFP_ATOMIC);

	if (!cd)
		return -ENOMEM;
	INIT_LIST_HEAD(&cd->sorted);
	INIT_LIST_HEAD(&cd->dispatch);
	cd->head_pos = 0;
	q->elevator->elevator_data = cd;
	return 0;
}

static void cscan_exit_sched(struct request_queue *q)
{
	kfree(cscan_data(q));
}

static void cscan_insert_requests(struct request_queue *q, struct list_head *list, bool at_head)
{
	struct cscan_data *cd = cscan_data(q);

	assert_spin_locked(&q->lock);
	/* LAB 4 BEGIN */
	if (at_head) {
		list_splice_init(list, &cd->dispatch);
		return;
	}
	while (!list_empty(list)) {
		struct request *rq = list_first_entry(list, struct request, queuelist);

		list_del_init(&rq->queuelist);
		elv_sort_add(&cd->sorted, rq);
	}
	/* LAB 4 END:
	 * (void)at_head;			// for now: one FIFO, as "none"
	 * list_splice_tail_init(list, &cd->dispatch);
	 */
}

/*
 * cscan_dispatch_request - choose the next request for the driver.
 *
 * Contract: called with q->lock held; returns a request removed from the
 * elevator, or NULL if it is empty.  An at_head request goes first (the last
 * inserted first); otherwise the request with the lowest start sector at or
 * above head_pos, or, if there is none, the lowest of all (the wrap: the
 * lowest queued, not the nearest below the head -- that would be SCAN's way
 * back down).  Equal sectors go in arrival order.  head_pos becomes the end
 * sector of the request returned: where the disk head will be when it is done.
 */
static struct request *cscan_dispatch_request(struct request_queue *q)
{
	struct cscan_data *cd = cscan_data(q);
	/* LAB 4 BEGIN */
	struct request *rq, *pos;

	assert_spin_locked(&q->lock);
	rq = list_first_entry_or_null(&cd->dispatch, struct request, queuelist);
	if (rq) {
		list_del_init(&rq->queuelist);
		cd->head_pos = blk_rq_end_pos(rq);
		return rq;
	}

	rq = NULL;
	list_for_each_entry(pos, &cd->sorted, elv_sort) {
		if (blk_rq_pos(pos) >= cd->head_pos) {
			rq = pos;
			break;
		}
	}
	if (!rq)        /* nothing left above the head: back to the lowest */
		rq = list_first_entry_or_null(&cd->sorted, struct request, elv_sort);
	if (!rq)
		return NULL;
	list_del_init(&rq->elv_sort);
	cd->head_pos = blk_rq_end_pos(rq);
	return rq;
	/* LAB 4 END:
	 * struct request *rq;		// for now: the oldest first, as "none"
	 *
	 * assert_spin_locked(&q->lock);
	 * rq = list_first_entry_or_null(&cd->dispatch, struct request, queuelist);
	 * if (rq)
	 * 	list_del_init(&rq->queuelist);
	 * return rq;
	 */
}

static bool cscan_has_work(struct request_queue *q)
{
	struct cscan_data *cd = cscan_data(q);

	assert_spin_locked(&q->lock);
	return !list_empty(&cd->dispatch) || !list_empty(&cd->sorted);
}

static enum elv_merge cscan_request_merge(struct request_queue *q, struct request **rq,
					  struct bio *bio)
{
	assert_spin_locked(&q->lock);
	return elv_sort_merge(&cscan_data(q)->sorted, bio, true, rq);
}

static void cscan_request_merged(struct request_queue *q, struct request *rq,
				 enum elv_merge type)
{
	assert_spin_locked(&q->lock);
	if (type == ELEVATOR_FRONT_MERGE) {     /* its start sector moved */
		list_del_init(&rq->elv_sort);
		elv_sort_add(&cscan_data(q)->sorted, rq);
	}
}

static struct request *cscan_next_request(struct request_queue *q, struct request *rq)
{
	assert_spin_locked(&q->lock);
	return elv_sort_latter(&cscan_data(q)->sorted, rq);
}

static struct request *cscan_former_request(struct request_queue *q, struct request *rq)
{
	assert_spin_locked(&q->lock);
	return elv_sort_former(&cscan_data(q)->sorted, rq);
}

static void cscan_requests_merged(struct request_queue *q, struct request *rq,
				  struct request *next)
{
	(void)rq;
	assert_spin_locked(&q->lock);
	list_del_init(&next->elv_sort);
}

struct elevator_type elevator_cscan = {
	.elevator_name = "cscan",
	.ops = {
		.init_sched = cscan_init_sched,
		.exit_sched = cscan_exit_sched,
		.insert_requests = cscan_insert_requests,
		.dispatch_request = cscan_dispatch_request,
		.has_work = cscan_has_work,
		.request_merge = cscan_request_merge,
		.request_merged = cscan_request_merged,
		.next_request = cscan_next_request,
		.former_request = cscan_former_request,
		.requests_merged = cscan_requests_merged,
	},
};
