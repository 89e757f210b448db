// SPDX-License-Identifier: MIT
/*
 * elevator.c - the elevator registry, and the one door between the request
 * layer and whichever scheduling policy a queue uses.
 *
 * Where it sits: the request layer (above) calls the elv_* wrappers below
 * with q->lock held; each forwards to q->elevator->type->ops, the policy
 * (noop-iosched.c "none", mq-deadline.c, cscan-iosched.c).  The request
 * layer never calls a policy directly, so a queue's policy can change at
 * run time: exit the old one (empty) and init the new one, under the lock.
 *
 * Interface: elv_register() a type (at boot); elevator_init_queue() /
 * elevator_exit_queue() attach and detach one on a queue; elv_iosched_show()
 * prints /sys/block/<dev>/queue/scheduler and elv_attr_show/store() serve
 * queue/iosched/<tunable> -- these take q->lock themselves.  The elv_*
 * wrappers for the request layer want it held by the caller and never
 * sleep (block/elevator-internal.h).
 *
 * Also here: the helpers the policies share -- sector-sorted request lists
 * and the bio/request adjacency test used for merging.
 *
 * Portable: the host unit tests (tests/unit/check_elevator.c) run it.
 */
#include <spindle/errno.h>
#include <spindle/mm.h>
#include <spindle/init.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include "elevator-internal.h"

/* Linux's defaults: a disk with one hardware queue, and one with several */
#define DEFAULT_ELEVATOR        "mq-deadline"
#define DEFAULT_ELEVATOR_MQ     "none"

/*
 * Registered types, in registration order (which is the order
 * queue/scheduler lists them).  No lock: elv_register() runs only from
 * initcalls, before any disk exists, and the list is read-only after.
 * (Linux takes elv_list_lock because modules may register at any time.)
 */
static LIST_HEAD(elv_list);

/* elevator=<name>: the default for every queue; empty if not given. */
static char chosen_elevator[ELV_NAME_MAX];

struct elevator_type *elevator_find(const char *name)
{
	struct elevator_type *e;

	list_for_each_entry(e, &elv_list, list)
		if (strcmp(e->elevator_name, name) == 0)
			return e;
	return NULL;
}

int elv_register(struct elevator_type *e)
{
	const struct elevator_mq_ops *ops = &e->ops;

	/* The request layer relies on these; the others are optional. */
	if (!e->elevator_name || strlen(e->elevator_name) >= ELV_NAME_MAX ||
	    !ops->insert_requests || !ops->dispatch_request || !ops->has_work)
		return -EINVAL;
	if (elevator_find(e->elevator_name))
		return -EBUSY;
	list_add_tail(&e->list, &elv_list);
	pr_info("io scheduler %s registered\n", e->elevator_name);
	return 0;
}

/* One function, not an initcall per file, so that the listing order --
 * "[mq-deadline] none cscan" -- does not depend on link order. */
int elevator_register_builtin(void)
{
	struct elevator_type *const builtin[] = { &mq_deadline, &elevator_noop, &elevator_cscan };

	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++) {
		int err = elv_register(builtin[i]);

		if (err && err != -EBUSY)       /* -EBUSY: registered already */
			return err;
	}
	return 0;
}
core_initcall(elevator_register_builtin);

/* Boot options run before initcalls, so the name cannot be checked here:
 * elevator_init_queue() warns about an unknown one when it first meets it. */
int __init elevator_setup(const char *name)
{
	if (name[0] == '\0' || strlen(name) >= sizeof(chosen_elevator))
		return -EINVAL;
	strlcpy(chosen_elevator, name, sizeof(chosen_elevator));
	return 0;
}
__setup("elevator=", elevator_setup);

/* --- attaching and detaching ----------------------------------------------- */

/*
 * The policy a new queue gets (Linux 6.1's elevator_get_default).  A disk
 * with one hardware queue -- an AHCI port, an IDE channel -- gets
 * mq-deadline: every CPU's requests meet in that one queue anyway, and
 * sorting them and bounding their wait is worth a lock.  A disk with
 * several -- NVMe with a queue pair per CPU -- gets none: a queue-wide
 * elevator would put back the one lock the hardware queues exist to
 * remove, and such a device is fast enough that ordering buys little.
 * Poll queues count (as in Linux), so NVMe with nvme.poll_queues=1 on one
 * CPU has two and gets none.  Linux also gives none to a queue whose
 * driver sets BLK_MQ_F_NO_SCHED_BY_DEFAULT (loop), and mq-deadline to
 * several hardware queues that share one set of tags (a SCSI host's);
 * no Spindle driver does either.  nr_hw_queues is 0 on a queue that is not blk-mq (the
 * host tests'), which is one queue here.
 *
 * elevator=<name> overrides both, for every queue: Spindle keeps the boot
 * option, which Linux 6.1 accepts but ignores (use the sysfs file there).
 */
static struct elevator_type *elevator_default(const struct request_queue *q)
{
	const char *def = q->nr_hw_queues > 1 ? DEFAULT_ELEVATOR_MQ : DEFAULT_ELEVATOR;
	struct elevator_type *e;

	if (chosen_elevator[0]) {
		e = elevator_find(chosen_elevator);
		if (e)
			return e;
		pr_warn("elevator: unknown elevator=%s, using the default (%s)\n",
			chosen_elevator, def);
		chosen_elevator[0] = '\0';      /* warn once, not once per disk */
	}
	return elevator_find(def);
}

/*
 * "none" is no policy at all: blk-mq then keeps requests in the per-CPU
 * software queues, which need no queue-wide lock, instead of in the
 * elevator.  Noted under q->lock at each change (the queue is frozen or
 * new), read without it by the request layer.
 */
static void elv_note_none(struct request_queue *q)
{
	assert_spin_locked(&q->lock);
	WRITE_ONCE(q->sched_none, q->elevator && strcmp(q->elevator->type->elevator_name, "none") == 0);
}

int elevator_init_queue(struct request_queue *q, const char *name)
{
	struct elevator_type *e = name ? elevator_find(name) : elevator_default(q);
	struct elevator_queue *eq;
	unsigned long flags;
	int err = 0;

	if (!e)
		return -EINVAL;
	eq = kzalloc(sizeof(*eq), GFP_KERNEL);  /* before the lock: may sleep */
	if (!eq)
		return -ENOMEM;
	eq->type = e;

	spin_lock_irqsave(&q->lock, flags);
	if (q->elevator) {
		err = -EBUSY;
	} else {
		q->elevator = eq;
		if (e->ops.init_sched)
			err = e->ops.init_sched(q);
		if (err)
			q->elevator = NULL;
		elv_note_none(q);
	}
	spin_unlock_irqrestore(&q->lock, flags);
	if (err)
		kfree(eq);
	return err;
}

void elevator_exit_queue(struct request_queue *q)
{
	struct elevator_queue *eq;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	eq = q->elevator;
	if (eq) {
		/* Requests left inside would never be dispatched: their
		 * submitters would wait forever.  Drain before a switch. */
		BUG_ON(eq->type->ops.has_work(q));
		if (eq->type->ops.exit_sched)
			eq->type->ops.exit_sched(q);
		q->elevator = NULL;
		elv_note_none(q);
	}
	spin_unlock_irqrestore(&q->lock, flags);
	kfree(eq);
}

/* Put eq in as q's elevator; returns the one it replaces. */
static struct elevator_queue *elevator_swap(struct request_queue *q, struct elevator_queue *eq)
{
	struct elevator_queue *was;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	was = q->elevator;
	q->elevator = eq;
	elv_note_none(q);
	spin_unlock_irqrestore(&q->lock, flags);
	return was;
}

/*
 * The new elevator is made while the old one is set aside, not freed:
 * if the new one cannot be had (no memory), the old one goes back as it
 * was -- tunables and all -- needing no memory to do so.  Only then is
 * the old one torn down.
 */
int elevator_switch(struct request_queue *q, const char *name)
{
	struct elevator_queue *old_eq, *new_eq;
	char old[ELV_NAME_MAX];
	int err;

	if (!q->tag_set || !elevator_find(name))
		return -EINVAL;
	blk_mq_freeze_queue(q);
	strlcpy(old, q->elevator ? q->elevator->type->elevator_name : "none", sizeof(old));
	old_eq = elevator_swap(q, NULL);
	err = elevator_init_queue(q, name);
	new_eq = elevator_swap(q, old_eq);
	if (!err) {
		elevator_exit_queue(q);         /* the old one, drained by the freeze */
		elevator_swap(q, new_eq);
	}
	blk_mq_unfreeze_queue(q);
	if (err)
		pr_warn("elevator: cannot switch to %s (%d), %s stays\n", name, err, old);
	else
		pr_info("elevator: switched from %s to %s\n", old, name);
	return err;
}

int elv_iosched_show(struct request_queue *q, char *buf, size_t size)
{
	struct elevator_type *e;
	unsigned long flags;
	int len = 0;

	spin_lock_irqsave(&q->lock, flags);
	if (!q->elevator) {             /* bio-based (brd, dm): as Linux */
		len = scnprintf(buf, size, "none\n");
		goto out;
	}
	list_for_each_entry(e, &elv_list, list)
		len += scnprintf(buf + len, size - len,
				 e == q->elevator->type ? "[%s] " : "%s ", e->elevator_name);
	if (len > 0)
		len--;                  /* the last space becomes the newline */
	len += scnprintf(buf + len, size - len, "\n");
out:
	spin_unlock_irqrestore(&q->lock, flags);
	return len;
}

/* The tunable called name of q's elevator, or NULL.  q->lock held. */
static const struct elv_fs_entry *elv_find_attr(struct request_queue *q, const char *name)
{
	const struct elv_fs_entry *a;

	if (!q->elevator)
		return NULL;
	for (a = q->elevator->type->elevator_attrs; a && a->name; a++)
		if (strcmp(a->name, name) == 0)
			return a;
	return NULL;
}

int elv_attr_show(struct request_queue *q, const char *name, char *buf, size_t size)
{
	const struct elv_fs_entry *a;
	unsigned long flags;
	int ret = -ENOENT;

	spin_lock_irqsave(&q->lock, flags);
	a = elv_find_attr(q, name);
	if (a && a->show)
		ret = a->show(q, buf, size);
	spin_unlock_irqrestore(&q->lock, flags);
	return ret;
}

int elv_attr_store(struct request_queue *q, const char *name, const char *buf)
{
	const struct elv_fs_entry *a;
	unsigned long flags;
	int ret = -ENOENT;

	spin_lock_irqsave(&q->lock, flags);
	a = elv_find_attr(q, name);
	if (a && a->store)
		ret = a->store(q, buf);
	spin_unlock_irqrestore(&q->lock, flags);
	return ret;
}

/* --- the wrappers the request layer calls ---------------------------------- */

static const struct elevator_mq_ops *elv_ops(struct request_queue *q)
{
	assert_spin_locked(&q->lock);
	return &q->elevator->type->ops;
}

void elv_insert_requests(struct request_queue *q, struct list_head *list, bool at_head)
{
	elv_ops(q)->insert_requests(q, list, at_head);
}

struct request *elv_dispatch_request(struct request_queue *q)
{
	return elv_ops(q)->dispatch_request(q);
}

bool elv_has_work(struct request_queue *q)
{
	return elv_ops(q)->has_work(q);
}

enum elv_merge elv_merge(struct request_queue *q, struct request **rq, struct bio *bio)
{
	const struct elevator_mq_ops *ops = elv_ops(q);

	*rq = NULL;
	if (!ops->request_merge)
		return ELEVATOR_NO_MERGE;
	return ops->request_merge(q, rq, bio);
}

void elv_merged_request(struct request_queue *q, struct request *rq, enum elv_merge type)
{
	const struct elevator_mq_ops *ops = elv_ops(q);

	if (ops->request_merged)
		ops->request_merged(q, rq, type);
}

struct request *elv_latter_request(struct request_queue *q, struct request *rq)
{
	const struct elevator_mq_ops *ops = elv_ops(q);

	return ops->next_request ? ops->next_request(q, rq) : NULL;
}

struct request *elv_former_request(struct request_queue *q, struct request *rq)
{
	const struct elevator_mq_ops *ops = elv_ops(q);

	return ops->former_request ? ops->former_request(q, rq) : NULL;
}

void elv_merge_requests(struct request_queue *q, struct request *rq, struct request *next)
{
	const struct elevator_mq_ops *ops = elv_ops(q);

	if (ops->requests_merged)
		ops->requests_merged(q, rq, next);
}

void elv_completed_request(struct request *rq)
{
	const struct elevator_mq_ops *ops = elv_ops(rq->q);

	if (ops->completed_request)
		ops->completed_request(rq);
}

/* --- helpers shared by the policies ----------------------------------------- */

enum elv_merge elv_bio_merge_type(struct request *rq, struct bio *bio)
{
	if (req_op(rq) != bio_op(bio) || ((rq->cmd_flags | bio->bi_opf) & REQ_NOMERGE))
		return ELEVATOR_NO_MERGE;
	if (blk_rq_end_pos(rq) == bio->bi_iter.bi_sector)
		return ELEVATOR_BACK_MERGE;
	if (bio_end_sector(bio) == blk_rq_pos(rq))
		return ELEVATOR_FRONT_MERGE;
	return ELEVATOR_NO_MERGE;
}

void elv_sort_add(struct list_head *sorted, struct request *rq)
{
	struct request *pos;

	/* From the tail: streams mostly ascend, so the place is usually near
	 * the end; stopping at the first lower-or-equal keeps arrival order
	 * among equal sectors. */
	list_for_each_entry_reverse(pos, sorted, elv_sort)
		if (blk_rq_pos(pos) <= blk_rq_pos(rq))
			break;
	list_add(&rq->elv_sort, &pos->elv_sort);   /* pos may be the head itself */
}

enum elv_merge elv_sort_merge(struct list_head *sorted, struct bio *bio,
			      bool front_merges, struct request **rqp)
{
	struct request *rq, *front = NULL;

	list_for_each_entry(rq, sorted, elv_sort) {
		enum elv_merge type;

		if (blk_rq_pos(rq) > bio_end_sector(bio))
			break;          /* sorted: nothing further can touch bio */
		type = elv_bio_merge_type(rq, bio);
		if (type == ELEVATOR_BACK_MERGE) {
			*rqp = rq;      /* back merges first, as Linux: the common
					 * case of a stream written in order */
			return type;
		}
		if (type == ELEVATOR_FRONT_MERGE && front_merges && !front)
			front = rq;
	}
	*rqp = front;
	return front ? ELEVATOR_FRONT_MERGE : ELEVATOR_NO_MERGE;
}

struct request *elv_sort_latter(struct list_head *sorted, struct request *rq)
{
	struct request *pos = rq;

	while (!list_is_last(&pos->elv_sort, sorted)) {
		pos = list_next_entry(pos, elv_sort);
		if (rq_data_dir(pos) == rq_data_dir(rq))
			return pos;
	}
	return NULL;
}

struct request *elv_sort_former(struct list_head *sorted, struct request *rq)
{
	struct request *pos = rq;

	while (!list_is_first(&pos->elv_sort, sorted)) {
		pos = list_prev_entry(pos, elv_sort);
		if (rq_data_dir(pos) == rq_data_dir(rq))
			return pos;
	}
	return NULL;
}
