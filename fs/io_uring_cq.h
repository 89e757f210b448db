/* SPDX-License-Identifier: MIT */
/*
 * io_uring_cq.h - io_uring's completion queue, the kernel's side: posting
 * a CQE, and the list of CQEs that found the ring full (Linux 6.1's
 * io_uring/io_uring.c: io_fill_cqe_aux, io_cqring_event_overflow,
 * __io_cqring_overflow_flush).  Private to fs/: fs/io_uring.c embeds a
 * struct io_cq in each ring; tests/unit/check_io_uring_cq.c compiles
 * fs/io_uring_cq.c against a model process that sees the ring only
 * through the barriers.
 *
 * The caller supplies two functions: io_cq_slot() (where CQE idx & mask
 * lives: the ring's pages are not contiguous in the kernel) and
 * io_cq_wake() (wake whoever waits for CQEs).  Every function here runs
 * under the caller's CQ lock (fs/io_uring.c: cq_wait.lock, interrupts
 * off) and does not sleep.
 */
#ifndef FS_IO_URING_CQ_H
#define FS_IO_URING_CQ_H

#include <spindle/types.h>
#include <spindle/list.h>
#include <uapi/linux/io_uring.h>

struct fault_attr;

/* A CQE that found no room (Linux's struct io_overflow_cqe). */
struct io_overflow_cqe {
	struct list_head list;          /* on io_cq.overflow_list, oldest first */
	struct io_uring_cqe cqe;
};

struct io_cq {
	/* in the memory shared with the process */
	u32 *tail;                      /* the kernel's: CQEs published */
	const u32 *head;                /* the process's: CQEs it has read */
	u32 *sq_flags;                  /* IORING_SQ_CQ_OVERFLOW: the list is not empty */
	u32 *overflow;                  /* CQEs lost: no memory to keep them */
	/* the kernel's own */
	u32 entries;                    /* a power of two */
	u32 cached_tail;                /* CQEs posted: *tail once published */
	struct list_head overflow_list; /* CQEs waiting for room, oldest first */
	struct fault_attr *fail_alloc;  /* a fault point for the list's entries, or NULL */
};

/* supplied by the ring's owner (fs/io_uring.c; the unit test's model) */
struct io_uring_cqe *io_cq_slot(struct io_cq *cq, u32 idx);
void io_cq_wake(struct io_cq *cq);

void io_cq_init(struct io_cq *cq, u32 entries, u32 *tail, const u32 *head, u32 *sq_flags,
		u32 *overflow);
bool io_cqring_post(struct io_cq *cq, u64 user_data, s32 res, u32 cflags);
bool io_cqring_overflow_flush(struct io_cq *cq);
void io_cqring_overflow_kill(struct io_cq *cq);

#endif /* FS_IO_URING_CQ_H */
