/* SPDX-License-Identifier: MIT */
/*
 * elevator-internal.h - the elevator interface inside block/: what the
 * request layer calls, and the helpers the three policies share.
 *
 * Where it sits: the request layer (above) parks requests here that the
 * driver cannot take yet and asks for the next one to send; the policies
 * (none, mq-deadline, cscan: include/spindle/elevator.h) sit below these
 * wrappers.  Drivers never see any of this.
 *
 * Two kinds of entry point, two locking rules:
 *  - For the request layer, the elv_* wrappers: the caller holds q->lock
 *    (interrupts off); they never sleep, and check the lock with
 *    assert_spin_locked().  So do the policies' ops and tunables below them.
 *  - For setting a queue up and for users (queue creation, sysfs, a
 *    switch): elevator_init_queue(), elevator_exit_queue(),
 *    elv_iosched_show(), elv_attr_show/store() take q->lock themselves;
 *    the first may sleep.  Call init/exit only on a queue nobody is using:
 *    new, or frozen with its elevator drained.  A run-time switch is then
 *        elevator_exit_queue(q);
 *        if (elevator_init_queue(q, new_name))     (unknown name, no memory)
 *                elevator_init_queue(q, old_name);
 * The registry (elv_register, elevator_find, elevator_register_builtin)
 * needs no lock: it is written at boot and only read afterwards.
 */
#ifndef BLOCK_ELEVATOR_INTERNAL_H
#define BLOCK_ELEVATOR_INTERNAL_H

#include <spindle/elevator.h>
#include <spindle/blkdev.h>

#define ELV_NAME_MAX    16              /* bytes, with the NUL (as Linux) */

/* --- the registry -------------------------------------------------------- */

/* Register none, mq-deadline and cscan (a core_initcall in the kernel;
 * host tests call it).  Calling it again does nothing. */
int elevator_register_builtin(void);
/* The registered elevator called name, or NULL. */
struct elevator_type *elevator_find(const char *name);
/* The boot option elevator=<name>; not static so host tests can set it. */
int elevator_setup(const char *name);

extern struct elevator_type elevator_noop;     /* "none" */
extern struct elevator_type mq_deadline;       /* "mq-deadline" */
extern struct elevator_type elevator_cscan;    /* "cscan" */

/* --- attaching an elevator; sysfs (these take q->lock) ----------------------- */

/*
 * Give q the elevator called name -- or, if name is NULL, the one chosen
 * with elevator=<name> at boot, else the default: "mq-deadline" for a
 * queue with one hardware queue, "none" for one with several (set
 * q->nr_hw_queues first).  Returns 0, -EINVAL
 * (no such elevator), -EBUSY (q has one already) or -ENOMEM.  May sleep.
 */
int elevator_init_queue(struct request_queue *q, const char *name);
/* Detach and free q's elevator, which must be empty; none: nothing to do. */
void elevator_exit_queue(struct request_queue *q);
/* queue/iosched/<name>: show returns bytes, store 0 or -EINVAL; both
 * -ENOENT if q's elevator has no such tunable. */
int elv_attr_show(struct request_queue *q, const char *name, char *buf, size_t size);
int elv_attr_store(struct request_queue *q, const char *name, const char *buf);

/* --- what the request layer calls (q->lock held) -------------------------- */

void elv_insert_requests(struct request_queue *q, struct list_head *list, bool at_head);
struct request *elv_dispatch_request(struct request_queue *q);
bool elv_has_work(struct request_queue *q);
enum elv_merge elv_merge(struct request_queue *q, struct request **rq, struct bio *bio);
void elv_merged_request(struct request_queue *q, struct request *rq, enum elv_merge type);
struct request *elv_latter_request(struct request_queue *q, struct request *rq);
struct request *elv_former_request(struct request_queue *q, struct request *rq);
void elv_merge_requests(struct request_queue *q, struct request *rq, struct request *next);
void elv_completed_request(struct request *rq);

/* --- helpers for the policies (elevator.c) -------------------------------- */

/* Could bio join rq: BACK (bio starts where rq ends), FRONT (bio ends
 * where rq starts) or NO (another op, REQ_NOMERGE, not adjacent)? */
enum elv_merge elv_bio_merge_type(struct request *rq, struct bio *bio);

/*
 * Sector-sorted lists of requests, linked through rq->elv_sort (Linux uses
 * a red-black tree; a list is O(n) but easy to read and fine at the
 * queue depths here).  Equal sectors keep their arrival order.
 */
void elv_sort_add(struct list_head *sorted, struct request *rq);
/* The merge candidate for bio on a sorted list; front merges only if asked. */
enum elv_merge elv_sort_merge(struct list_head *sorted, struct bio *bio,
			      bool front_merges, struct request **rq);
/* The nearest request after / before rq on the list in the same
 * direction (read or write), or NULL. */
struct request *elv_sort_latter(struct list_head *sorted, struct request *rq);
struct request *elv_sort_former(struct list_head *sorted, struct request *rq);

#endif /* BLOCK_ELEVATOR_INTERNAL_H */
