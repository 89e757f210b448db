// SPDX-License-Identifier: MIT
/*
 * io_uring_cq.c - io_uring's completion queue, the kernel's side (Linux
 * 6.1's io_uring/io_uring.c: io_fill_cqe_aux, io_cqring_event_overflow,
 * __io_cqring_overflow_flush).  fs/io_uring.c calls these under its CQ
 * lock, from any context (a disk interrupt posts a read's CQE); the file
 * is apart so that the host Check suite tests/unit/check_io_uring_cq.c
 * can compile it against a model process that sees the shared ring only
 * as the barriers publish it -- the ordering a QEMU run on x86 never
 * shows.
 *
 * The CQ ring has two indexes, each with one writer:
 *
 *   kernel (io_cqring_post)                 process (liburing)
 *   cqes[tail & mask] = {user_data, res, flags}
 *   smp_store_release(&tail, tail + 1)      t = smp_load_acquire(&tail)
 *   wake the waiters                        read cqes[head & mask] while head != t
 *                                           smp_store_release(&head, ...)
 *
 * The release store of the tail orders the entry's stores before it: a
 * process that sees the new tail (its acquire load) sees the whole
 * entry.  The kernel reads the head with READ_ONCE: a stale head only
 * makes the ring look fuller than it is.
 *
 * When the ring is full the CQE is not dropped (IORING_FEAT_NODROP): it
 * goes on overflow_list, and IORING_SQ_CQ_OVERFLOW in the SQ ring's
 * flags tells the process to enter with IORING_ENTER_GETEVENTS, which
 * flushes the list into the room it has made (io_cqring_overflow_flush).
 * While the list is not empty every new CQE joins its end, even when the
 * ring has room: CQEs reach the process in the order they were posted.
 * Only a CQE that cannot be kept (no memory for its list entry) is lost,
 * and counted in the ring's overflow field.
 */
#include <spindle/types.h>
#include <spindle/list.h>
#include <spindle/compiler.h>
#include <spindle/barrier.h>
#include <spindle/mm.h>
#include <spindle/fault_inject.h>
#include "io_uring_cq.h"

void io_cq_init(struct io_cq *cq, u32 entries, u32 *tail, const u32 *head, u32 *sq_flags,
		u32 *overflow)
{
	cq->tail = tail;
	cq->head = head;
	cq->sq_flags = sq_flags;
	cq->overflow = overflow;
	cq->entries = entries;
	cq->cached_tail = 0;
	INIT_LIST_HEAD(&cq->overflow_list);
	cq->fail_alloc = NULL;
}

/* An entry for the overflow list (GFP_ATOMIC: any context).  When the
 * ring has set cq->fail_alloc, that fault point can make it fail as if
 * memory had run out (fs/io_uring.c: fail_io_uring_cqe=). */
static struct io_overflow_cqe *io_ocqe_alloc(struct io_cq *cq)
{
	if (cq->fail_alloc && should_fail(cq->fail_alloc, 1))
		return NULL;
	return kmalloc(sizeof(struct io_overflow_cqe), GFP_ATOMIC);
}

/* Count one CQE lost (Linux's io_account_cq_overflow). */
static void io_cq_account_overflow(struct io_cq *cq)
{
	WRITE_ONCE(*cq->overflow, READ_ONCE(*cq->overflow) + 1);
}

/*
 * io_cqring_post - post the CQE {user_data, res, cflags} and wake the
 * waiters.  Caller holds the CQ lock; does not sleep (GFP_ATOMIC: it runs
 * in interrupt handlers).  True if the CQE is in the ring or kept on the
 * overflow list, false if it was lost (counted in the overflow field).
 *
 * Into the ring when it has room and no older CQE waits on the list: the
 * entry first, then the tail that shows it, by a release store -- the
 * process may be reading the ring on another CPU this very moment, and
 * must never see a tail covering an entry not yet written.  Otherwise at
 * the end of the overflow list, with IORING_SQ_CQ_OVERFLOW set (an atomic
 * OR: the SQ thread changes the same word).  Either way the waiters are
 * woken: a waiter whose CQE went on the list must run to flush it.
 */
bool io_cqring_post(struct io_cq *cq, u64 user_data, s32 res, u32 cflags)
{
	bool kept = true;

	/* LAB 11 BEGIN */
	u32 tail = cq->cached_tail;

	if (list_empty(&cq->overflow_list) && tail - READ_ONCE(*cq->head) < cq->entries) {
		struct io_uring_cqe *cqe = io_cq_slot(cq, tail);

		cqe->user_data = user_data;
		cqe->res = res;
		cqe->flags = cflags;
		cq->cached_tail = tail + 1;
		smp_store_release(cq->tail, tail + 1);  /* the entry before the tail */
	} else {
		struct io_overflow_cqe *ocqe = io_ocqe_alloc(cq);

		if (!ocqe) {
			io_cq_account_overflow(cq);
			kept = false;
		} else {
			if (list_empty(&cq->overflow_list))
				__atomic_fetch_or(cq->sq_flags, IORING_SQ_CQ_OVERFLOW,
						  __ATOMIC_RELAXED);
			ocqe->cqe.user_data = user_data;
			ocqe->cqe.res = res;
			ocqe->cqe.flags = cflags;
			list_add_tail(&ocqe->list, &cq->overflow_list);
		}
	}
	io_cq_wake(cq);
	/* LAB 11 END:
	 * (void)cq;
	 * (void)io_cq_account_overflow;
	 * (void)io_ocqe_alloc;
	 * (void)user_data;
	 * (void)res;
	 * (void)cflags;
	 * kept = false;
	 */
	return kept;
}

/*
 * io_cqring_overflow_flush - move the CQEs waiting on the overflow list
 * into the ring, oldest first, while it has room; publish them and wake
 * the waiters.  When the list is empty, IORING_SQ_CQ_OVERFLOW is cleared.
 * Caller holds the CQ lock; does not sleep.  True if the list is empty
 * afterwards.
 */
bool io_cqring_overflow_flush(struct io_cq *cq)
{
	u32 tail = cq->cached_tail;
	struct io_overflow_cqe *ocqe;

	if (list_empty(&cq->overflow_list))
		return true;
	while (!list_empty(&cq->overflow_list) && tail - READ_ONCE(*cq->head) < cq->entries) {
		ocqe = list_first_entry(&cq->overflow_list, struct io_overflow_cqe, list);
		*io_cq_slot(cq, tail++) = ocqe->cqe;
		list_del(&ocqe->list);
		kfree(ocqe);
	}
	if (tail != cq->cached_tail) {
		cq->cached_tail = tail;
		smp_store_release(cq->tail, tail);      /* the entries before the tail */
		io_cq_wake(cq);
	}
	if (!list_empty(&cq->overflow_list))
		return false;
	__atomic_fetch_and(cq->sq_flags, ~IORING_SQ_CQ_OVERFLOW, __ATOMIC_RELAXED);
	return true;
}

/* The ring is going away: free what waits on the list, unposted. */
void io_cqring_overflow_kill(struct io_cq *cq)
{
	struct io_overflow_cqe *ocqe, *tmp;

	list_for_each_entry_safe(ocqe, tmp, &cq->overflow_list, list) {
		list_del(&ocqe->list);
		kfree(ocqe);
	}
	__atomic_fetch_and(cq->sq_flags, ~IORING_SQ_CQ_OVERFLOW, __ATOMIC_RELAXED);
}
