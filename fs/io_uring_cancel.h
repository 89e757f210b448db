/* SPDX-License-Identifier: MIT */
/*
 * io_uring_cancel.h - IORING_OP_ASYNC_CANCEL (Linux 6.1's
 * io_uring/cancel.c).  Private to fs/: fs/io_uring.c calls it from its
 * issue path.
 */
#ifndef FS_IO_URING_CANCEL_H
#define FS_IO_URING_CANCEL_H

#include <spindle/types.h>
#include <uapi/linux/io_uring.h>
#include "io-wq.h"

struct io_ring_ctx;
struct io_timeouts;
struct file;

/* What an ASYNC_CANCEL looks for (Linux's struct io_cancel_data). */
struct io_cancel_data {
	struct io_ring_ctx *ctx;
	u64 data;                       /* user_data to match */
	struct file *file;              /* IORING_ASYNC_CANCEL_FD: the file to match */
	unsigned int flags;             /* IORING_ASYNC_CANCEL_* */
	struct io_wq *wq;               /* the ring's workers, or NULL (none yet) */
	io_wq_match_fn *match;          /* fs/io_uring.c's: does a work match? */
	unsigned int nr_matched;        /* counted by match: CANCEL_ALL's answer */
};

int io_async_cancel_prep(const struct io_uring_sqe *sqe);
int io_async_cancel(struct io_cancel_data *cd, struct io_timeouts *tq);

#endif /* FS_IO_URING_CANCEL_H */
