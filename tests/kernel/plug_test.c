// SPDX-License-Identifier: MIT
/*
 * Plugging meets the scheduler (Linux commit 73c101011926): a task that sleeps has its plug
 * flushed by schedule() -- before it sleeps, since what it waits for may
 * be on that plug -- whether it sleeps uninterruptibly or interruptibly;
 * io_schedule() flushes even a running task's plug; a task that yields,
 * or calls schedule() while still runnable, keeps its batch; and a task
 * that exits with a plug attached is warned about and flushed.
 */
#include <spindle/ktest.h>
#include <spindle/blk_plug.h>
#include <spindle/sched.h>
#include <spindle/completion.h>
#include <spindle/time.h>
#include <spindle/mm.h>
#include <spindle/blkdev.h>
#include <spindle/bio.h>
#include <spindle/mutex.h>
#include <spindle/wait.h>
#include <spindle/printk.h>
#include <spindle/blktrace.h>
#include "ktest_sched.h"

static int flushes;
static bool flushed_from_schedule;
static long state_at_flush;

static void note_flush(struct blk_plug_cb *cb, bool from_schedule)
{
	flushes++;
	flushed_from_schedule = from_schedule;
	state_at_flush = current->state;
	kfree(cb);
}

static void park(void)
{
	blk_check_plugged(note_flush, &flushes, sizeof(struct blk_plug_cb));
}

/*
 * The sleeps below end when this thread wakes them, once it has seen the
 * flush -- which schedule() does before the sleeper sleeps.  A timer
 * could instead wake the sleeper between schedule()'s "about to sleep?"
 * check and the flush, on a host slow enough, and no flush would be seen.
 * A kernel that never flushes has its sleeper woken after KTEST_WAIT_MS
 * all the same, and the case fails.  Started before the plug, so that
 * making it cannot sleep with the plug attached.
 */
static int wake_after_flush(void *sleeper)
{
	ktest_wait_until(READ_ONCE(flushes) != 0);
	wake_up_process(sleeper);
	return 0;
}

KTEST(plug, schedule_flushes_before_sleep)
{
	struct blk_plug plug;
	int parked, seen;
	bool attached;

	if (!plug_enabled)
		KT_SKIP("booted with plug=off");
	flushes = 0;
	KT_ASSERT(kthread_run(wake_after_flush, current, "plugwake"));
	blk_start_plug(&plug);
	park();
	parked = flushes;
	/* sleeps: schedule() flushes first */
	set_current_state(TASK_UNINTERRUPTIBLE);
	schedule();
	seen = flushes;
	attached = current->plug == &plug;
	blk_finish_plug(&plug); /* before any verdict: plug is in this frame */
	KT_ASSERT(parked == 0);
	KT_ASSERT_MSG(seen == 1, "flushes %d", seen);
	KT_ASSERT(flushed_from_schedule);
	/* flushed while the task was already marked as going to sleep */
	KT_ASSERT(state_at_flush == TASK_UNINTERRUPTIBLE);
	KT_ASSERT(attached);
	KT_ASSERT(flushes == 1);
}

KTEST(plug, yield_does_not_flush)
{
	struct blk_plug plug;

	if (!plug_enabled)
		KT_SKIP("booted with plug=off");
	flushes = 0;
	blk_start_plug(&plug);
	park();
	yield();                        /* still runnable: the batch stays */
	KT_ASSERT(flushes == 0);
	io_schedule();                  /* always flushes */
	KT_ASSERT(flushes == 1);
	blk_finish_plug(&plug);
}

/*
 * "About to sleep" is any state but TASK_RUNNING, not one of them: a task
 * waiting interruptibly (for a pipe, a signal, a timer) may be waiting
 * for its own plugged I/O just the same.  wake_after_flush() wakes it.
 */
KTEST(plug, interruptible_sleep_flushes)
{
	struct blk_plug plug;
	bool attached;
	int seen;

	if (!plug_enabled)
		KT_SKIP("booted with plug=off");
	flushes = 0;
	state_at_flush = -1;
	flushed_from_schedule = false;
	KT_ASSERT(kthread_run(wake_after_flush, current, "plugwake"));
	blk_start_plug(&plug);
	attached = current->plug == &plug;
	park();
	set_current_state(TASK_INTERRUPTIBLE);
	schedule();
	seen = flushes;
	blk_finish_plug(&plug);
	KT_ASSERT(attached);
	KT_ASSERT_MSG(seen == 1, "%d flushes: a task asleep in TASK_INTERRUPTIBLE kept its plug", seen);
	KT_ASSERT(flushed_from_schedule);
	KT_ASSERT_MSG(state_at_flush == TASK_INTERRUPTIBLE, "state at the flush %ld", state_at_flush);
}

/*
 * yield() never reaches sched_submit_work() (it goes straight to
 * __schedule()); a runnable task calling schedule() itself does, and must
 * keep its batch: it is put back on the run queue and will finish it.
 */
KTEST(plug, runnable_schedule_does_not_flush)
{
	struct blk_plug plug;
	bool attached;
	int seen;

	if (!plug_enabled)
		KT_SKIP("booted with plug=off");
	flushes = 0;
	blk_start_plug(&plug);
	attached = current->plug == &plug;
	park();
	schedule();                     /* runnable: back on the run queue */
	seen = flushes;
	blk_finish_plug(&plug);
	KT_ASSERT(attached);
	KT_ASSERT_MSG(seen == 0, "schedule() flushed the plug of a task still TASK_RUNNING");
	KT_ASSERT_MSG(flushes == 1, "%d flushes after blk_finish_plug()", flushes);
}

static int leaky(void *arg)
{
	static struct blk_plug plug;    /* static: outlives the frame on purpose */

	(void)arg;
	blk_start_plug(&plug);
	park();
	return 0;                       /* the bug: no blk_finish_plug() */
}

KTEST(plug, exit_with_plug_is_flushed)
{
	struct task_struct *t;

	if (!plug_enabled)
		KT_SKIP("booted with plug=off");
	flushes = 0;
	t = kthread_run(leaky, NULL, "leaky");
	KT_ASSERT(t != NULL);
	ktest_wait_until(READ_ONCE(flushes) != 0);
	KT_ASSERT_MSG(flushes == 1, "the exiting task's plug was not flushed");
}

KTEST(plug, off_means_no_plug)
{
	struct blk_plug plug;

	blk_start_plug(&plug);
	if (plug_enabled) {
		KT_ASSERT(current->plug == &plug);
		blk_finish_plug(&plug);
		KT_SKIP("plugging is on (boot with plug=off to test this)");
	}
	KT_ASSERT(current->plug == NULL);
	KT_ASSERT(blk_check_plugged(note_flush, &flushes, sizeof(struct blk_plug_cb)) == NULL);
	blk_finish_plug(&plug);
}

/* --- plugging on a real request queue (nullb0 in request mode) ----------- */

struct seq_batch {
	struct wait_queue_head wait;
	unsigned int pending;
	int error;
};

static void seq_end_io(struct bio *bio)
{
	struct seq_batch *b = bio->bi_private;
	unsigned long flags;

	spin_lock_irqsave(&b->wait.lock, flags);
	if (bio->bi_status)
		b->error = blk_status_to_errno(bio->bi_status);
	b->pending--;
	__wake_up_locked(&b->wait);             /* b is on the waiter's stack */
	spin_unlock_irqrestore(&b->wait.lock, flags);
	bio_put(bio);
}

/* nr 4 KiB writes from sector `first` on, under one plug (or none). */
static int write_sequential(struct block_device *b, unsigned int nr, sector_t first,
			    struct page *page)
{
	struct seq_batch batch = { .pending = nr };
	struct blk_plug plug;

	init_waitqueue_head(&batch.wait);
	blk_start_plug(&plug);
	for (unsigned int i = 0; i < nr; i++) {
		struct bio *bio = bio_alloc(GFP_NOIO, 1);

		bio_set_dev(bio, b);
		bio->bi_iter.bi_sector = first + 8 * i;
		bio->bi_opf = REQ_OP_WRITE;
		bio->bi_end_io = seq_end_io;
		bio->bi_private = &batch;
		bio_add_page(bio, page, PAGE_SIZE, 0);
		submit_bio(bio);
	}
	blk_finish_plug(&plug);
	wait_event(batch.wait, READ_ONCE(batch.pending) == 0);
	return batch.error;
}

/*
 * 256 sequential 4 KiB writes under one plug reach the driver as a handful
 * of large requests (merged on the plug; the plug flushes itself every
 * BLK_MAX_REQUEST_COUNT requests, and a request holds at most
 * max_segments pages).  With plug=off and a null_blk that completes
 * inline (irqmode=0), nothing waits anywhere to be merged: 256 requests.
 * Asserted from the disk's statistics, as iostat would show them.
 */
KTEST(plug, sequential_writes_merge)
{
	struct block_device *b = lookup_bdev("nullb0");
	struct disk_stats st;
	u64 ios0, merges0, ios, merges;
	struct page *page;
	int err;

	if (!b || !b->bd_disk->queue->tag_set)
		KT_SKIP("no request-based nullb0 (boot with null_blk.nr_devices=1)");
	page = alloc_page(GFP_KERNEL);
	KT_ASSERT(page != NULL);
	part_stat_read_all(b->bd_disk->part[0], &st);
	ios0 = st.ios[STAT_WRITE];
	merges0 = st.merges[STAT_WRITE];
	err = write_sequential(b, 256, 0, page);
	__free_page(page);
	part_stat_read_all(b->bd_disk->part[0], &st);
	ios = st.ios[STAT_WRITE] - ios0;
	merges = st.merges[STAT_WRITE] - merges0;
	KT_ASSERT_MSG(err == 0, "write error %d", err);
	printk("plug: 256 x 4 KiB sequential writes: %llu requests, %llu merges (plug=%s)\n",
	       (unsigned long long)ios, (unsigned long long)merges, plug_enabled ? "on" : "off");
	KT_ASSERT(ios + merges == 256);
	if (plug_enabled)
		KT_ASSERT_MSG(ios <= 8, "%llu requests: the plug did not merge", (unsigned long long)ios);
	else
		KT_ASSERT_MSG(ios == 256, "%llu requests with plug=off", (unsigned long long)ios);
}

/*
 * The point of Linux commit 73c101011926: a task that plugs I/O and then blocks on a mutex held
 * by a task that waits for that very I/O would deadlock -- unless
 * schedule() flushes the plug of the task going to sleep.  Here the
 * holder waits for the plugger's write to complete before it lets go.
 */
static DEFINE_MUTEX(plug_lock);

struct mutex_case {
	struct block_device *b;
	struct page *page;
	struct seq_batch batch;
	struct completion holder_ready;
};

static int plug_holder(void *data)
{
	struct mutex_case *m = data;

	mutex_lock(&plug_lock);
	complete(&m->holder_ready);
	/* the plugger's write must reach the disk while it sleeps on us */
	wait_event(m->batch.wait, READ_ONCE(m->batch.pending) == 0);
	mutex_unlock(&plug_lock);
	return 0;
}

KTEST(plug, sleeping_plugger_does_not_deadlock)
{
	struct block_device *b = lookup_bdev("nullb0");
	struct mutex_case m = { .b = b, .batch = { .pending = 1 } };
	struct blk_plug plug;
	struct bio *bio;

	if (!b || !b->bd_disk->queue->tag_set)
		KT_SKIP("no request-based nullb0 (boot with null_blk.nr_devices=1)");
	if (!plug_enabled)
		KT_SKIP("booted with plug=off");
	m.page = alloc_page(GFP_KERNEL);
	KT_ASSERT(m.page != NULL);
	init_waitqueue_head(&m.batch.wait);
	init_completion(&m.holder_ready);
	KT_ASSERT(kthread_run(plug_holder, &m, "plug_holder") != NULL);
	wait_for_completion(&m.holder_ready);

	blk_start_plug(&plug);
	bio = bio_alloc(GFP_NOIO, 1);
	bio_set_dev(bio, b);
	bio->bi_iter.bi_sector = 4096;
	bio->bi_opf = REQ_OP_WRITE;
	bio->bi_end_io = seq_end_io;
	bio->bi_private = &m.batch;
	bio_add_page(bio, m.page, PAGE_SIZE, 0);
	submit_bio(bio);                        /* held on our plug */
	KT_ASSERT(READ_ONCE(m.batch.pending) == 1);
	mutex_lock(&plug_lock);                 /* sleeps: schedule() unplugs */
	mutex_unlock(&plug_lock);
	blk_finish_plug(&plug);
	KT_ASSERT(READ_ONCE(m.batch.pending) == 0);
	KT_ASSERT(m.batch.error == 0);
	__free_page(m.page);
	blk_trace_print_all();                  /* with blktrace=nullb0: the UT */
}
