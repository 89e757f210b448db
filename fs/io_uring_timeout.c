// SPDX-License-Identifier: MIT
/*
 * io_uring_timeout.c - IORING_OP_TIMEOUT and IORING_OP_TIMEOUT_REMOVE,
 * Linux 6.1's io_uring/timeout.c: a request that completes by itself,
 * either when its time comes (res -ETIME) or, when its SQE's off is not
 * 0, once off other CQEs have been posted after it (res 0), whichever is
 * first.  liburing's io_uring_wait_cqe_timeout() is built on it when the
 * kernel has no IORING_FEAT_EXT_ARG, as Spindle has not.
 *
 * Where it sits: fs/io_uring.c hands it the SQE (io_timeout) and calls
 * io_flush_timeouts() after each CQE it counts; the timer (a timer_list:
 * kernel/timer.c, the tick's interrupt on CPU 0) posts -ETIME.  The
 * kernel's clock is CLOCK_MONOTONIC nanoseconds; the tick is 1 ms, so a
 * timeout fires up to a tick late, never early (the function checks the
 * clock and waits out the rest if the tick ran ahead), as timerfd's.
 *
 * Who owns an armed timeout: it sits on tq->list with its timer pending.
 * Whoever takes it off the list posts its CQE and frees it -- but only
 * after taking it off its timer too (del_timer() true).  When del_timer()
 * fails the timer's function is about to run, or running, and waits for
 * the lock we hold: it is the owner, and will post -ETIME.  So a cancel
 * that loses that race answers -EALREADY, and a count reached then is
 * not reported, as Linux does with hrtimer_try_to_cancel().  The ring's
 * release kills what is left the same way and then waits, as for any
 * request, until every CQE is posted (ctx->nr_posted): no timer function
 * runs after the ring is freed.
 *
 * Locking: tq->wq->lock (the ring's cq_wait.lock, interrupts off), then
 * the timer base's lock inside it (mod_timer, del_timer); the timer's
 * function runs without the base lock, so the order never reverses.
 * docs/locking.md.
 */
#include <spindle/aio.h>                /* struct __kernel_timespec */
#include <spindle/errno.h>
#include <spindle/mm.h>
#include <spindle/sched.h>
#include <spindle/spinlock.h>
#include <spindle/time.h>
#include <spindle/uaccess.h>
#include "io_uring_timeout.h"

#define IO_KTIME_MAX    ((u64)0x7fffffffffffffffULL)   /* "never": Linux's KTIME_MAX */

/* One armed TIMEOUT (Linux's struct io_timeout and io_timeout_data). */
struct io_timeout {
	struct io_timeouts *tq;
	struct timer_list timer;
	struct list_head list;          /* on tq->list while armed */
	u64 user_data;
	u64 expires;                    /* CLOCK_MONOTONIC ns */
	u32 off;                        /* CQEs to wait for; 0: time only */
	u32 target;                     /* tq->cq_events at which off is reached */
	unsigned int flags;             /* IORING_TIMEOUT_* */
	bool linked;                    /* IOSQE_IO_LINK: its submitter waits and frees */
	bool done;                      /* linked: posted, with res */
	s32 res;
};

void io_timeouts_init(struct io_timeouts *tq, wait_queue_head_t *wq)
{
	tq->wq = wq;
	INIT_LIST_HEAD(&tq->list);
	tq->cq_events = 0;
}

/* Linux's io_timeout_prep: the SQE's fields, before anything starts. */
int io_timeout_prep(const struct io_uring_sqe *sqe)
{
	unsigned int flags = sqe->timeout_flags;

	if (sqe->buf_index || sqe->len != 1 || sqe->splice_fd_in)
		return -EINVAL;
	if (flags & ~(IORING_TIMEOUT_ABS | IORING_TIMEOUT_CLOCK_MASK | IORING_TIMEOUT_ETIME_SUCCESS))
		return -EINVAL;
	/* more than one clock */
	if ((flags & IORING_TIMEOUT_CLOCK_MASK) == IORING_TIMEOUT_CLOCK_MASK)
		return -EINVAL;
	return 0;
}

/* Linux's io_timeout_remove_prep (LINK_TIMEOUT_UPDATE: no linked
 * timeouts in Spindle, so nothing is ever found to update). */
int io_timeout_remove_prep(const struct io_uring_sqe *sqe)
{
	unsigned int flags = sqe->timeout_flags;

	if (sqe->flags & IOSQE_FIXED_FILE)
		return -EINVAL;
	if (sqe->buf_index || sqe->len || sqe->splice_fd_in)
		return -EINVAL;
	if (flags & IORING_TIMEOUT_UPDATE_MASK) {
		if ((flags & IORING_TIMEOUT_CLOCK_MASK) == IORING_TIMEOUT_CLOCK_MASK)
			return -EINVAL;
		if (flags & ~(IORING_TIMEOUT_UPDATE_MASK | IORING_TIMEOUT_ABS |
			      IORING_TIMEOUT_CLOCK_MASK))
			return -EINVAL;
	} else if (flags) {
		return -EINVAL;         /* removal takes no flags */
	}
	return 0;
}

/*
 * The user's time as a CLOCK_MONOTONIC expiry in ns.  Relative: from
 * now.  IORING_TIMEOUT_ABS: a time on the SQE's clock -- MONOTONIC, or
 * BOOTTIME (the same clock here: Spindle does not suspend), or REALTIME,
 * turned into a monotonic one now (nothing steps Spindle's wall clock,
 * so the two do not drift apart afterwards: fs/timerfd.c does the same).
 * Linux's errors: EFAULT, EINVAL for a negative field.
 */
static int io_timeout_get_expiry(u64 uaddr, unsigned int flags, u64 *expires)
{
	struct __kernel_timespec ts;
	u64 ns, now = ktime_get_ns();

	if (copy_from_user(&ts, (const void __user *)(unsigned long)uaddr, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0)
		return -EINVAL;
	if ((u64)ts.tv_sec > IO_KTIME_MAX / NSEC_PER_SEC)
		ns = IO_KTIME_MAX;
	else
		ns = (u64)ts.tv_sec * NSEC_PER_SEC + (u64)ts.tv_nsec;
	if (ns > IO_KTIME_MAX)
		ns = IO_KTIME_MAX;
	if (!(flags & IORING_TIMEOUT_ABS)) {
		*expires = ns > IO_KTIME_MAX - now ? IO_KTIME_MAX : now + ns;
	} else if (flags & IORING_TIMEOUT_REALTIME) {
		u64 offset = ktime_get_real_ns() - now;  /* the wall clock's start */

		*expires = ns > offset ? ns - offset : 0;
	} else {
		*expires = ns;
	}
	return 0;
}

/* Arm the timer for t->expires: one tick more than the distance, so as
 * not to fire early (jiffies counts from inside a tick). */
static void io_timeout_arm(struct io_timeout *t, u64 now)
{
	u64 delta = t->expires > now ? t->expires - now : 0;

	mod_timer(&t->timer, jiffies + DIV_ROUND_UP(delta, NSEC_PER_SEC / HZ) + 1);
}

/* Post t's CQE and let go of it.  It is off the list and off its timer
 * (or this is its timer's function).  Under the lock. */
static void io_timeout_complete(struct io_timeouts *tq, struct io_timeout *t, s32 res)
{
	assert_spin_locked(&tq->wq->lock);
	if (t->linked) {
		/* done before the post wakes its submitter, which then frees
		 * it once it has taken this lock */
		t->res = res;
		WRITE_ONCE(t->done, true);
		io_timeout_post(tq, t->user_data, res);
	} else {
		io_timeout_post(tq, t->user_data, res);
		kfree(t);
	}
}

/* The timer, in the tick's interrupt: the time has come (Linux's
 * io_timeout_fn).  Does not sleep. */
static void io_timeout_fn(struct timer_list *timer)
{
	struct io_timeout *t = container_of(timer, struct io_timeout, timer);
	struct io_timeouts *tq = t->tq;
	unsigned long flags;
	u64 now;

	spin_lock_irqsave(&tq->wq->lock, flags);
	now = ktime_get_ns();
	if (now < t->expires) {
		io_timeout_arm(t, now);         /* the tick ran ahead of the clock */
	} else {
		list_del(&t->list);
		io_timeout_complete(tq, t, -ETIME);
	}
	spin_unlock_irqrestore(&tq->wq->lock, flags);
}

/*
 * A linked TIMEOUT: its chain goes on only once it has completed
 * (Spindle runs a chain inside io_uring_enter, one link after the other:
 * fs/io_uring.c).  A signal ends the wait: the timeout stays armed and
 * completes by itself later, and the rest of its chain is cancelled.
 */
static bool io_timeout_wait_linked(struct io_timeouts *tq, struct io_timeout *t)
{
	bool failed;

	wait_event_interruptible(*tq->wq, READ_ONCE(t->done) || signal_pending(current));
	spin_lock_irq(&tq->wq->lock);
	if (!t->done) {
		t->linked = false;      /* its completion frees it now */
		spin_unlock_irq(&tq->wq->lock);
		return true;
	}
	spin_unlock_irq(&tq->wq->lock);
	/* -ETIME fails the link, unless the SQE said it is a success */
	failed = t->res < 0 && !(t->res == -ETIME && (t->flags & IORING_TIMEOUT_ETIME_SUCCESS));
	kfree(t);
	return failed;
}

/*
 * IORING_OP_TIMEOUT (Linux's io_timeout): arm it.  -EIOCBQUEUED: armed,
 * its CQE comes later (for a linked one, link_failed not NULL: it has
 * come, and *link_failed says whether the chain stops); another error:
 * not armed, the caller posts it.  May sleep.
 */
long io_timeout(struct io_timeouts *tq, const struct io_uring_sqe *sqe, bool *link_failed)
{
	struct io_timeout *t;
	u64 expires;
	int err;

	err = io_timeout_get_expiry(sqe->addr, sqe->timeout_flags, &expires);
	if (err)
		return err;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->tq = tq;
	t->user_data = sqe->user_data;
	t->expires = expires;
	t->off = (u32)sqe->off;
	t->flags = sqe->timeout_flags;
	t->linked = link_failed != NULL;
	timer_setup(&t->timer, io_timeout_fn);
	spin_lock_irq(&tq->wq->lock);
	/* off counts the CQEs posted from now on */
	t->target = tq->cq_events + t->off;
	list_add_tail(&t->list, &tq->list);
	io_timeout_arm(t, ktime_get_ns());
	spin_unlock_irq(&tq->wq->lock);
	if (link_failed)
		*link_failed = io_timeout_wait_linked(tq, t);
	return -EIOCBQUEUED;
}

/*
 * Enough CQEs have come for the counting timeouts (Linux's
 * io_flush_timeouts): those whose off is reached complete with 0.  The
 * ring calls it after each CQE it counts.  Under the lock; does not
 * sleep (any context: a disk interrupt posts CQEs).
 */
void io_flush_timeouts(struct io_timeouts *tq)
{
	struct io_timeout *t, *tmp;

	assert_spin_locked(&tq->wq->lock);
	list_for_each_entry_safe(t, tmp, &tq->list, list) {
		if (!t->off || (s32)(tq->cq_events - t->target) < 0)
			continue;
		/* firing: its function owns it, and posts -ETIME */
		if (!del_timer(&t->timer))
			continue;
		list_del(&t->list);
		io_timeout_complete(tq, t, 0);
	}
}

/* Take the first armed timeout that matches off its list and its timer
 * (Linux's io_timeout_extract): NULL with *err -ENOENT (none), or
 * -EALREADY (its timer is firing). */
static struct io_timeout *io_timeout_extract(struct io_timeouts *tq, u64 user_data, bool any,
					     int *err)
{
	struct io_timeout *t;

	assert_spin_locked(&tq->wq->lock);
	list_for_each_entry(t, &tq->list, list) {
		if (!any && t->user_data != user_data)
			continue;
		if (!del_timer(&t->timer)) {
			*err = -EALREADY;
			return NULL;
		}
		list_del(&t->list);
		return t;
	}
	*err = -ENOENT;
	return NULL;
}

/*
 * Cancel the armed timeouts that match (user_data, or any with any): each
 * one's CQE is -ECANCELED.  One, or with all every one, each looked at
 * once.  0 (or with all, how many matched, those whose timer was firing
 * included, as Linux counts them), -ENOENT, -EALREADY.  Takes the lock.
 */
int io_timeout_cancel(struct io_timeouts *tq, u64 user_data, bool any, bool all)
{
	struct io_timeout *t, *tmp;
	int ret = -ENOENT, nr = 0;

	spin_lock_irq(&tq->wq->lock);
	if (!all) {
		t = io_timeout_extract(tq, user_data, any, &ret);
		if (t) {
			io_timeout_complete(tq, t, -ECANCELED);
			ret = 0;
		}
		spin_unlock_irq(&tq->wq->lock);
		return ret;
	}
	list_for_each_entry_safe(t, tmp, &tq->list, list) {
		if (!any && t->user_data != user_data)
			continue;
		nr++;
		if (!del_timer(&t->timer))
			continue;       /* firing: counted, it posts -ETIME */
		list_del(&t->list);
		io_timeout_complete(tq, t, -ECANCELED);
	}
	spin_unlock_irq(&tq->wq->lock);
	return nr;
}

/*
 * IORING_OP_TIMEOUT_REMOVE (Linux's io_timeout_remove): cancel the
 * timeout whose user_data is the SQE's addr, or with IORING_TIMEOUT_UPDATE
 * re-arm it for the time at addr2 -- then it no longer counts CQEs, as in
 * Linux.  The result for the remove's own CQE: 0, -ENOENT, -EALREADY.
 */
int io_timeout_remove(struct io_timeouts *tq, const struct io_uring_sqe *sqe)
{
	unsigned int flags = sqe->timeout_flags;
	struct io_timeout *t;
	u64 expires;
	int err;

	if (!(flags & IORING_TIMEOUT_UPDATE_MASK))
		return io_timeout_cancel(tq, sqe->addr, false, false);
	err = io_timeout_get_expiry(sqe->addr2, flags, &expires);
	if (err)
		return err;
	if (flags & IORING_LINK_TIMEOUT_UPDATE)
		return -ENOENT;         /* no IORING_OP_LINK_TIMEOUT in Spindle */
	spin_lock_irq(&tq->wq->lock);
	t = io_timeout_extract(tq, sqe->addr, false, &err);
	if (t) {
		t->off = 0;
		t->expires = expires;
		list_add_tail(&t->list, &tq->list);
		io_timeout_arm(t, ktime_get_ns());
		err = 0;
	}
	spin_unlock_irq(&tq->wq->lock);
	return err;
}

/* The ring is going away: cancel every armed timeout (Linux's
 * io_kill_timeouts); those firing post -ETIME themselves.  The caller
 * then waits for every CQE.  Takes the lock. */
void io_kill_timeouts(struct io_timeouts *tq)
{
	io_timeout_cancel(tq, 0, true, true);
}
