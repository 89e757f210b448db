/* SPDX-License-Identifier: MIT */
/*
 * io-wq.h - io_uring's worker threads (fs/io-wq.c; Linux 6.1's
 * io_uring/io-wq.h), for fs/io_uring.c only.
 *
 * A ring hands a request that would block to its io_wq (io_wq_enqueue);
 * a worker thread, "iou-wrk-<tid>", runs it in the submitter's address
 * space with the ring's do_work callback, which posts its CQE.  A work
 * that never runs -- cancelled while queued, its submitter gone -- goes
 * to the ring's cancel_work callback instead.  Exactly one of the two is
 * called for each work enqueued, in process context, with no io-wq lock
 * held (both may sleep).
 */
#ifndef FS_IO_WQ_H
#define FS_IO_WQ_H

#include <spindle/types.h>
#include <spindle/list.h>

struct task_struct;
struct mm_struct;

/* One punted request, embedded in the ring's own (struct io_kiocb). */
struct io_wq_work {
	struct list_head list;          /* on io_wq.work_list while queued */
	struct task_struct *task;       /* its submitter: referenced until done */
	struct mm_struct *mm;           /* the address space it was submitted in: compared, not held */
	u64 user_data;                  /* what io_wq_cancel matches */
};

typedef void (io_wq_work_fn)(struct io_wq_work *work);
typedef void (io_wq_cancel_fn)(struct io_wq_work *work, int res);

struct io_wq;

/* A ring's pool, with no worker yet; NULL: no memory.  May sleep. */
struct io_wq *io_wq_create(io_wq_work_fn *do_work, io_wq_cancel_fn *cancel_work);
/* Queue work (its task, mm and user_data filled in) for a worker,
 * starting one if every worker is busy and the bound allows.  Called
 * from process context.  May sleep. */
void io_wq_enqueue(struct io_wq *wq, struct io_wq_work *work);
/* Cancel what is queued (-ECANCELED), interrupt what runs, wait for the
 * workers to end, and let wq go.  May sleep. */
void io_wq_destroy(struct io_wq *wq);

/* What io_wq_cancel found (Linux's enum io_wq_cancel). */
enum io_wq_cancel {
	IO_WQ_CANCEL_OK,                /* queued: cancelled, its CQE says -ECANCELED */
	IO_WQ_CANCEL_RUNNING,           /* running: its worker is interrupted */
	IO_WQ_CANCEL_NOTFOUND,          /* neither */
};
/* Does this work match what a cancel looks for? */
typedef bool (io_wq_match_fn)(struct io_wq_work *work, void *data);
/* The works match() picks (Linux's io_wq_cancel_cb): the first, or with
 * cancel_all every one -- cancelled if still queued (cancel_work with
 * -ECANCELED), their workers interrupted if running.  OK if one queued
 * was cancelled (and, with cancel_all, none runs), RUNNING if one runs.
 * May sleep: the cancel_work calls run before it returns. */
enum io_wq_cancel io_wq_cancel_cb(struct io_wq *wq, io_wq_match_fn *match, void *data,
				  bool cancel_all);
/* io_wq_cancel_cb for the first work with this user_data (what
 * IORING_OP_ASYNC_CANCEL looks for by default). */
enum io_wq_cancel io_wq_cancel(struct io_wq *wq, u64 user_data);

#endif /* FS_IO_WQ_H */
