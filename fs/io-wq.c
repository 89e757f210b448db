// SPDX-License-Identifier: MIT
/*
 * io-wq.c - io_uring's worker threads (Linux 6.1's io_uring/io-wq.c, in
 * a small form): where a request that would block io_uring_enter runs
 * instead.  docs/aio.md ("io-wq") walks a punted pipe read through it.
 *
 * Where it sits: below fs/io_uring.c, which decides what to punt (its
 * issue path) and gives each ring one io_wq, made at the ring's first
 * punt and destroyed by its release.  A work is run by a worker thread,
 * "iou-wrk-<tid>" (the submitter's id, as Linux names them), in the
 * submitter's address space:
 *
 *   io_wq_enqueue(work)            io_wq_worker (a kernel thread)
 *     work_list += work              sleeps on wq->wait until work comes
 *     a worker idle? wake it         takes the first work: cur = work
 *     else one more, up to             get_task_mm(work->task)
 *       IO_WQ_MAX_WORKERS              kthread_use_mm: its buffers are there
 *                                      do_work(work): issue, block, post CQE
 *                                    cur = NULL, and the next
 *
 * Per ring, not per task as in Linux 6.1: the ring's release then ends
 * exactly the workers that may touch the ring, and a task needs no io_uring
 * state of its own.  The price is the exit hook below: a task's work
 * is found on every ring's list.
 *
 * Cancelling: a queued work is taken off the list and handed to the
 * ring's cancel_work (its CQE says -ECANCELED); a running one cannot be
 * taken back, so its worker is interrupted the way Linux does it, by a
 * signal: SIGKILL made pending on the worker (a kernel thread, which
 * never acts on it) ends an interruptible sleep -- a pipe or tty read
 * returns -EINTR -- and is cleared once the work is done.
 *
 * The exit hook: a task leaving (io_uring_files_cancel, before exit_mm)
 * or exec'ing (io_uring_task_cancel) cancels its queued works on every
 * ring, interrupts its running ones and waits until none runs.  A worker
 * holds the task's mm while it runs; without the wait its mmput could be
 * the last, and the mm's teardown -- which releases rings mapped there --
 * would run in the worker, ending its own pool.  task->io_uring_cancel
 * stops any work of the task queued later (an SQ thread submitting for
 * it) from running.
 *
 * Not here (Linux 6.1 has them): bounded and unbounded classes of
 * worker, idle workers exiting after a while, hashed works (writes to
 * one file in order), per-NUMA-node pools, io_uring_register's
 * IORING_REGISTER_IOWQ_MAX_WORKERS.  There are no credentials to borrow:
 * Spindle has no uids yet.
 *
 * Locking: wq->lock (a spinlock, never taken from an interrupt handler)
 * covers the work list, the workers' cur and counts, and exiting;
 * io_wq_all_lock covers the list of pools and nests outside it.  The
 * callbacks are called with neither held.
 */
#include <spindle/sched.h>
#include <uapi/asm/signal.h>
#include <spindle/spinlock.h>
#include <spindle/wait.h>
#include <spindle/mm.h>
#include <spindle/mm_types.h>
#include <spindle/refcount.h>
#include <spindle/errno.h>
#include <spindle/aio.h>
#include "io-wq.h"

/* Workers of one ring at most: a fixed small bound, where Linux allows
 * 4 per CPU for regular files and as many as the process may have for
 * the rest.  A work waits for a worker once all are busy. */
#define IO_WQ_MAX_WORKERS       4

struct io_worker {
	struct list_head list;          /* on wq->workers */
	struct task_struct *task;       /* the kernel thread, referenced */
	struct io_wq *wq;
	struct io_wq_work *cur;         /* wq->lock: the work it runs, or NULL */
};

struct io_wq {
	spinlock_t lock;
	struct list_head work_list;     /* queued, oldest first */
	unsigned int nr_queued;
	struct list_head workers;       /* every worker started */
	unsigned int nr_workers;        /* started or being started */
	unsigned int nr_idle;           /* asleep waiting for work */
	bool exiting;                   /* io_wq_destroy: nothing more is queued */
	wait_queue_head_t wait;         /* idle workers sleep here */
	wait_queue_head_t done;         /* the exit hook waits here for a work to end */
	refcount_t refs;                /* the ring's, and an exit hook's that waits */
	struct list_head all;           /* on io_wq_all while the ring has it */
	io_wq_work_fn *do_work;
	io_wq_cancel_fn *cancel_work;
};

static LIST_HEAD(io_wq_all);
static DEFINE_SPINLOCK(io_wq_all_lock);

static void io_wq_put(struct io_wq *wq)
{
	if (refcount_dec_and_test(&wq->refs))
		kfree(wq);
}

/* Interrupt a worker's work: its interruptible sleep ends.  wq->lock
 * held, so the worker cannot clear it before it is set. */
static void io_wq_worker_signal(struct io_worker *worker)
{
	assert_spin_locked(&worker->wq->lock);
	__atomic_fetch_or(&worker->task->sig_pending, 1ull << (SIGKILL - 1), __ATOMIC_SEQ_CST);
	wake_up_state(worker->task, TASK_INTERRUPTIBLE);
}

/* Hand each work on list to cancel_work with res.  No lock held. */
static void io_wq_cancel_list(struct io_wq *wq, struct list_head *list, int res)
{
	struct io_wq_work *work, *tmp;

	list_for_each_entry_safe(work, tmp, list, list) {
		list_del_init(&work->list);
		wq->cancel_work(work, res);
	}
}

/*
 * Run one work in its submitter's address space.  Not if the submitter
 * is leaving or exec'ing (io_uring_cancel), has left (no mm), or has
 * exec'd since (another mm): then it is cancelled.
 */
static void io_wq_run(struct io_wq *wq, struct io_wq_work *work)
{
	struct mm_struct *mm = NULL;

	if (!READ_ONCE(work->task->io_uring_cancel))
		mm = get_task_mm(work->task);
	if (!mm || mm != work->mm) {
		if (mm)
			mmput(mm);
		wq->cancel_work(work, -ECANCELED);
		return;
	}
	kthread_use_mm(mm);
	wq->do_work(work);
	kthread_unuse_mm(mm);
	mmput(mm);
}

/* The next work, or NULL when stopped; asleep while there is none. */
static struct io_wq_work *io_wq_next(struct io_worker *worker)
{
	struct io_wq *wq = worker->wq;
	struct io_wq_work *work = NULL;

	spin_lock(&wq->lock);
	while (list_empty(&wq->work_list) && !kthread_should_stop()) {
		wq->nr_idle++;
		spin_unlock(&wq->lock);
		wait_event_interruptible(wq->wait, READ_ONCE(wq->nr_queued) || kthread_should_stop());
		spin_lock(&wq->lock);
		wq->nr_idle--;
	}
	if (!list_empty(&wq->work_list)) {
		work = list_first_entry(&wq->work_list, struct io_wq_work, list);
		list_del_init(&work->list);
		wq->nr_queued--;
		worker->cur = work;
	}
	spin_unlock(&wq->lock);
	return work;
}

/*
 * A worker (Linux's io_wq_worker): works, one after the other, until the
 * ring's release stops it.  Its signal, if a cancel sent one, is cleared
 * with cur, under the lock the canceller sets it under.
 */
static int io_wq_worker(void *data)
{
	struct io_worker *worker = data;
	struct io_wq *wq = worker->wq;
	struct io_wq_work *work;

	while ((work = io_wq_next(worker))) {
		io_wq_run(wq, work);
		spin_lock(&wq->lock);
		worker->cur = NULL;
		WRITE_ONCE(current->sig_pending, 0);
		spin_unlock(&wq->lock);
		wake_up(&wq->done);
	}
	return 0;
}

struct io_wq *io_wq_create(io_wq_work_fn *do_work, io_wq_cancel_fn *cancel_work)
{
	struct io_wq *wq = kzalloc(sizeof(*wq), GFP_KERNEL);

	if (!wq)
		return NULL;
	spin_lock_init(&wq->lock);
	INIT_LIST_HEAD(&wq->work_list);
	INIT_LIST_HEAD(&wq->workers);
	init_waitqueue_head(&wq->wait);
	init_waitqueue_head(&wq->done);
	refcount_set(&wq->refs, 1);
	wq->do_work = do_work;
	wq->cancel_work = cancel_work;
	spin_lock(&io_wq_all_lock);
	list_add_tail(&wq->all, &io_wq_all);
	spin_unlock(&io_wq_all_lock);
	return wq;
}

/* One more worker, counted in nr_workers by the caller.  False: no
 * memory (the count is given back). */
static bool io_wq_create_worker(struct io_wq *wq)
{
	struct io_worker *worker = kzalloc(sizeof(*worker), GFP_KERNEL);
	struct task_struct *t = NULL;

	if (worker) {
		worker->wq = wq;
		t = kthread_create(io_wq_worker, worker, "iou-wrk-%d", current->pid);
	}
	spin_lock(&wq->lock);
	if (!t) {
		wq->nr_workers--;
		spin_unlock(&wq->lock);
		kfree(worker);
		return false;
	}
	get_task_struct(t);             /* io_wq_destroy's, for kthread_stop */
	worker->task = t;
	list_add_tail(&worker->list, &wq->workers);
	spin_unlock(&wq->lock);
	wake_up_process(t);
	return true;
}

void io_wq_enqueue(struct io_wq *wq, struct io_wq_work *work)
{
	LIST_HEAD(fail);
	bool more;

	spin_lock(&wq->lock);
	if (wq->exiting || READ_ONCE(work->task->io_uring_cancel)) {
		spin_unlock(&wq->lock);
		wq->cancel_work(work, -ECANCELED);
		return;
	}
	list_add_tail(&work->list, &wq->work_list);
	wq->nr_queued++;
	/* more queued than idle workers to take them: one more worker */
	more = wq->nr_queued > wq->nr_idle && wq->nr_workers < IO_WQ_MAX_WORKERS;
	if (more)
		wq->nr_workers++;
	spin_unlock(&wq->lock);
	wake_up(&wq->wait);
	if (!more || io_wq_create_worker(wq))
		return;
	/* no memory for a worker: with none at all, nothing would run */
	spin_lock(&wq->lock);
	if (!wq->nr_workers) {
		list_splice_init(&wq->work_list, &fail);
		wq->nr_queued = 0;
	}
	spin_unlock(&wq->lock);
	io_wq_cancel_list(wq, &fail, -ENOMEM);
}

/*
 * Take the queued works match() picks off the list (onto out), interrupt
 * the running ones it picks.  True if one it picks is running.
 * wq->lock held.
 */
static bool __io_wq_cancel(struct io_wq *wq, io_wq_match_fn *match, void *data, bool all,
			   struct list_head *out)
{
	struct io_wq_work *work, *tmp;
	struct io_worker *worker;
	bool running = false;

	assert_spin_locked(&wq->lock);
	list_for_each_entry_safe(work, tmp, &wq->work_list, list) {
		if (!match(work, data))
			continue;
		list_move_tail(&work->list, out);
		wq->nr_queued--;
		if (!all)
			return false;
	}
	list_for_each_entry(worker, &wq->workers, list) {
		if (worker->cur && match(worker->cur, data)) {
			io_wq_worker_signal(worker);
			running = true;
			if (!all)
				break;
		}
	}
	return running;
}

enum io_wq_cancel io_wq_cancel_cb(struct io_wq *wq, io_wq_match_fn *match, void *data,
				  bool cancel_all)
{
	LIST_HEAD(found);
	bool running, queued;

	spin_lock(&wq->lock);
	running = __io_wq_cancel(wq, match, data, cancel_all, &found);
	spin_unlock(&wq->lock);
	queued = !list_empty(&found);
	io_wq_cancel_list(wq, &found, -ECANCELED);
	if (running)
		return IO_WQ_CANCEL_RUNNING;
	return queued ? IO_WQ_CANCEL_OK : IO_WQ_CANCEL_NOTFOUND;
}

static bool io_wq_match_user_data(struct io_wq_work *work, void *data)
{
	return work->user_data == *(u64 *)data;
}

enum io_wq_cancel io_wq_cancel(struct io_wq *wq, u64 user_data)
{
	return io_wq_cancel_cb(wq, io_wq_match_user_data, &user_data, false);
}

static bool io_wq_match_any(struct io_wq_work *work, void *data)
{
	(void)work;
	(void)data;
	return true;
}

void io_wq_destroy(struct io_wq *wq)
{
	struct io_worker *worker, *tmp;
	LIST_HEAD(found);

	spin_lock(&io_wq_all_lock);
	list_del(&wq->all);
	spin_unlock(&io_wq_all_lock);
	spin_lock(&wq->lock);
	wq->exiting = true;
	__io_wq_cancel(wq, io_wq_match_any, NULL, true, &found);
	spin_unlock(&wq->lock);
	io_wq_cancel_list(wq, &found, -ECANCELED);
	/* exiting is set: the list stays empty, and each worker ends once
	 * its interrupted work is done.  Nobody adds a worker now (no
	 * submitter is left); an exit hook holding wq may still read the
	 * list, under the lock. */
	list_for_each_entry_safe(worker, tmp, &wq->workers, list) {
		kthread_stop(worker->task);
		put_task_struct(worker->task);
		spin_lock(&wq->lock);
		list_del(&worker->list);
		spin_unlock(&wq->lock);
		kfree(worker);
	}
	io_wq_put(wq);
}

/* --- the exit hook ----------------------------------------------------------- */

static bool io_wq_match_task(struct io_wq_work *work, void *data)
{
	return work->task == data;
}

/* Does a worker of wq run a work of t? */
static bool io_wq_task_running(struct io_wq *wq, struct task_struct *t)
{
	struct io_worker *worker;
	bool running = false;

	spin_lock(&wq->lock);
	list_for_each_entry(worker, &wq->workers, list)
		if (worker->cur && worker->cur->task == t)
			running = true;
	spin_unlock(&wq->lock);
	return running;
}

/*
 * Cancel the current task's works on every ring and wait until none of
 * them runs (Linux's io_uring_cancel_generic).  One pool at a time: its
 * queued works are cancelled with no lock held, and a pool with one
 * running is held by a reference while the task sleeps, the list lock
 * let go; then the walk starts over.  May sleep (uninterruptibly: the
 * interrupted works end soon).
 */
static void io_uring_cancel(void)
{
	struct task_struct *t = current;
	struct io_wq *wq;

	WRITE_ONCE(t->io_uring_cancel, true);
	for (;;) {
		LIST_HEAD(found);
		bool running = false;

		spin_lock(&io_wq_all_lock);
		list_for_each_entry(wq, &io_wq_all, all) {
			spin_lock(&wq->lock);
			running = __io_wq_cancel(wq, io_wq_match_task, t, true, &found);
			spin_unlock(&wq->lock);
			if (running || !list_empty(&found)) {
				refcount_inc(&wq->refs);
				break;
			}
		}
		spin_unlock(&io_wq_all_lock);
		if (!running && list_empty(&found))
			return;
		io_wq_cancel_list(wq, &found, -ECANCELED);
		if (running)
			wait_event(wq->done, !io_wq_task_running(wq, t));
		io_wq_put(wq);
	}
}

void io_uring_files_cancel(void)
{
	io_uring_cancel();
}

void io_uring_task_cancel(void)
{
	io_uring_cancel();
	/* the new program may use io_uring again */
	WRITE_ONCE(current->io_uring_cancel, false);
}
