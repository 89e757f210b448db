/* SPDX-License-Identifier: MIT */
/*
 * io_uring_timeout.h - io_uring's IORING_OP_TIMEOUT and
 * IORING_OP_TIMEOUT_REMOVE (Linux 6.1's io_uring/timeout.c), and the
 * lookup that IORING_OP_ASYNC_CANCEL makes among the timeouts armed.
 * Private to fs/: fs/io_uring.c embeds a struct io_timeouts in each ring
 * and counts every CQE it posts in it; fs/io_uring_cancel.c looks
 * timeouts up by user_data.
 *
 * The ring supplies io_timeout_post() (post a timeout's CQE: it is not
 * counted in cq_events, as Linux's cq_timeouts keeps it out of the
 * count).  Everything under tq->wq->lock (the ring's cq_wait.lock,
 * interrupts off) except where a function says it takes it.
 */
#ifndef FS_IO_URING_TIMEOUT_H
#define FS_IO_URING_TIMEOUT_H

#include <spindle/types.h>
#include <spindle/list.h>
#include <spindle/wait.h>
#include <uapi/linux/io_uring.h>

struct io_timeouts {
	wait_queue_head_t *wq;          /* the ring's cq_wait: its lock guards the rest */
	struct list_head list;          /* TIMEOUTs armed, in submission order */
	u32 cq_events;                  /* CQEs posted so far, the timeouts' own not counted */
};

/* supplied by the ring (fs/io_uring.c): post a timeout's CQE, counting
 * the request out of flight.  Under tq->wq->lock. */
void io_timeout_post(struct io_timeouts *tq, u64 user_data, s32 res);

void io_timeouts_init(struct io_timeouts *tq, wait_queue_head_t *wq);
int io_timeout_prep(const struct io_uring_sqe *sqe);
int io_timeout_remove_prep(const struct io_uring_sqe *sqe);
long io_timeout(struct io_timeouts *tq, const struct io_uring_sqe *sqe, bool *link_failed);
int io_timeout_remove(struct io_timeouts *tq, const struct io_uring_sqe *sqe);
void io_flush_timeouts(struct io_timeouts *tq);
int io_timeout_cancel(struct io_timeouts *tq, u64 user_data, bool any, bool all);
void io_kill_timeouts(struct io_timeouts *tq);

#endif /* FS_IO_URING_TIMEOUT_H */
