// SPDX-License-Identifier: MIT
/*
 * io_uring_cancel.c - IORING_OP_ASYNC_CANCEL, Linux 6.1's
 * io_uring/cancel.c: find a request by its user_data (or, with
 * IORING_ASYNC_CANCEL_FD, by its file; with IORING_ASYNC_CANCEL_ANY, any
 * request) and end it early: its CQE says -ECANCELED, the cancel's own
 * CQE 0 -- or, with IORING_ASYNC_CANCEL_ALL or _ANY, how many were
 * found.  Nothing found: -ENOENT.  Found but already running where it
 * cannot be stopped: -EALREADY.
 *
 * Where a request can be found, in Linux's order (io_try_cancel):
 *   1. queued for a worker, not yet started (fs/io-wq.c): cancelled, its
 *      CQE -ECANCELED; or running in one: the worker is interrupted (a
 *      pipe or tty read ends with -EINTR) and the answer is -EALREADY --
 *      io_cancel_queued() below;
 *   2. a TIMEOUT armed (fs/io_uring_timeout.c), unless matching by file.
 * A read or write already sent to its device is in neither: as in Linux,
 * it is not found (-ENOENT) -- a bio in a driver's queue is not called
 * back.  A worker runs a whole link chain as one work, so a chain is
 * found by its first request; a later link of it is not.
 */
#include <spindle/errno.h>
#include <spindle/fs.h>
#include "io_uring_cancel.h"
#include "io_uring_timeout.h"

#define IO_CANCEL_FLAGS (IORING_ASYNC_CANCEL_ALL | IORING_ASYNC_CANCEL_FD | \
			 IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_FD_FIXED)

/* Linux's io_async_cancel_prep: the SQE's fields. */
int io_async_cancel_prep(const struct io_uring_sqe *sqe)
{
	unsigned int flags = sqe->cancel_flags;

	if (sqe->flags & IOSQE_BUFFER_SELECT)
		return -EINVAL;
	if (sqe->off || sqe->len || sqe->splice_fd_in)
		return -EINVAL;
	if (flags & ~IO_CANCEL_FLAGS)
		return -EINVAL;
	if ((flags & IORING_ASYNC_CANCEL_FD) && (flags & IORING_ASYNC_CANCEL_ANY))
		return -EINVAL;
	return 0;
}

/*
 * Requests queued for io-wq's workers, or running in one: cancel the one
 * that matches cd before it starts (0), or interrupt the worker that
 * runs it (-EALREADY), or -ENOENT; with all, every match, and return how
 * many (Linux counts the running ones too).  A ring with no workers yet
 * has nothing queued.
 */
static int io_cancel_queued(struct io_cancel_data *cd, bool all)
{
	enum io_wq_cancel r;

	if (!cd->wq)
		return all ? 0 : -ENOENT;
	cd->nr_matched = 0;
	r = io_wq_cancel_cb(cd->wq, cd->match, cd, all);
	if (all)
		return (int)cd->nr_matched;
	if (r == IO_WQ_CANCEL_OK)
		return 0;
	return r == IO_WQ_CANCEL_RUNNING ? -EALREADY : -ENOENT;
}

/*
 * One lookup (Linux's io_try_cancel): 0, -EALREADY, -ENOENT.  A timeout
 * has no file: one matched by file is never a timeout.
 */
static int io_try_cancel(struct io_cancel_data *cd, struct io_timeouts *tq)
{
	bool any = cd->flags & IORING_ASYNC_CANCEL_ANY;
	int ret = io_cancel_queued(cd, false);

	if (ret != -ENOENT || (cd->flags & IORING_ASYNC_CANCEL_FD))
		return ret;
	return io_timeout_cancel(tq, cd->data, any, false);
}

/*
 * IORING_OP_ASYNC_CANCEL (Linux's __io_async_cancel): the result for the
 * cancel's own CQE.  With ALL or ANY, every match, and the count of them
 * (0 when none: Linux's answer, not -ENOENT).  May sleep.
 */
int io_async_cancel(struct io_cancel_data *cd, struct io_timeouts *tq)
{
	bool all = cd->flags & (IORING_ASYNC_CANCEL_ALL | IORING_ASYNC_CANCEL_ANY);
	int nr;

	if (!all)
		return io_try_cancel(cd, tq);
	nr = io_cancel_queued(cd, true);
	if (!(cd->flags & IORING_ASYNC_CANCEL_FD))
		nr += io_timeout_cancel(tq, cd->data, cd->flags & IORING_ASYNC_CANCEL_ANY, true);
	return nr;
}
