/* SPDX-License-Identifier: MIT */
/*
 * elevator.h - I/O schedulers ("elevators"): the interface between the
 * request layer and a scheduling policy.
 *
 * The request layer keeps requests the driver cannot take yet in the
 * queue's elevator.  It calls the elevator's ops, always with q->lock
 * held and interrupts off (so ops never sleep):
 *
 *   init_sched(q)         allocate the policy's data (q->elevator->elevator_data)
 *   exit_sched(q)         free it; the elevator is empty by then
 *   insert_requests(q, list, at_head)
 *                         take every request on list (through rq->queuelist)
 *   dispatch_request(q)   the request to send next, removed from the
 *                         elevator, or NULL
 *   has_work(q)           is anything inside?
 *   request_merge(q, &rq, bio)
 *                         find a request bio can be merged into: returns
 *                         ELEVATOR_BACK_MERGE (bio starts where *rq ends),
 *                         ELEVATOR_FRONT_MERGE (bio ends where *rq starts)
 *                         or ELEVATOR_NO_MERGE; the request layer checks
 *                         ops, flags and size limits before merging
 *   request_merged(q, rq, type)
 *                         rq grew by a merge of that type (a front merge
 *                         moved its start: re-sort it)
 *   next_request(q, rq) / former_request(q, rq)
 *                         the request just after / before rq on disk in the
 *                         same direction, for request-to-request merging
 *   requests_merged(q, rq, next)
 *                         next was merged into rq: forget next
 *   completed_request(rq) the device finished rq (optional)
 *
 * Policies (selected per queue with elevator=<name> at boot, or at run time
 * through elevator_switch()):
 *   none          no reordering: FIFO dispatch; merging still happens
 *   mq-deadline   sector-sorted per direction, with read and write FIFOs
 *                 whose expiry bounds the wait (Linux's tunables)
 *   cscan         the textbook circular scan: ascending sector order, then
 *                 back to the lowest
 * Time comes from ktime_get_ns(), so host tests drive it with a fake clock.
 */
#ifndef SPINDLE_ELEVATOR_H
#define SPINDLE_ELEVATOR_H

#include <spindle/blk_mq.h>
#include <spindle/list.h>

struct request_queue;
struct elevator_type;

enum elv_merge {
	ELEVATOR_NO_MERGE = 0,
	ELEVATOR_FRONT_MERGE = 1,
	ELEVATOR_BACK_MERGE = 2,
};

struct elevator_mq_ops {
	int (*init_sched)(struct request_queue *q);
	void (*exit_sched)(struct request_queue *q);
	void (*insert_requests)(struct request_queue *q, struct list_head *list, bool at_head);
	struct request *(*dispatch_request)(struct request_queue *q);
	bool (*has_work)(struct request_queue *q);
	enum elv_merge (*request_merge)(struct request_queue *q, struct request **rq,
					struct bio *bio);
	void (*request_merged)(struct request_queue *q, struct request *rq, enum elv_merge type);
	struct request *(*next_request)(struct request_queue *q, struct request *rq);
	struct request *(*former_request)(struct request_queue *q, struct request *rq);
	void (*requests_merged)(struct request_queue *q, struct request *rq, struct request *next);
	void (*completed_request)(struct request *rq);
};

/* A tunable, shown and set as /sys/block/<dev>/queue/iosched/<name>. */
struct elv_fs_entry {
	const char *name;
	int (*show)(struct request_queue *q, char *buf, size_t size);   /* bytes */
	int (*store)(struct request_queue *q, const char *buf);         /* 0/-EINVAL */
};

struct elevator_type {
	const char *elevator_name;
	struct elevator_mq_ops ops;
	const struct elv_fs_entry *elevator_attrs;  /* NULL-terminated */
	struct list_head list;
};

/* The elevator instance of one queue. */
struct elevator_queue {
	struct elevator_type *type;
	void *elevator_data;
};

int elv_register(struct elevator_type *e);
/* "[mq-deadline] none cscan": the registered names, the active one in []. */
int elv_iosched_show(struct request_queue *q, char *buf, size_t size);
/*
 * Switch q to the elevator called name while I/O goes on (what writing
 * /sys/block/<dev>/queue/scheduler does): the queue is frozen -- new bios
 * wait at its door, every request already made runs to completion -- then
 * the new elevator is made, the old one goes, and the queue thaws.
 * Nothing is lost.  May sleep.  -EINVAL for an unknown name or a
 * bio-based queue; -ENOMEM when the new one cannot be made, and then the
 * old one stays as it was.
 */
int elevator_switch(struct request_queue *q, const char *name);

#endif /* SPINDLE_ELEVATOR_H */
