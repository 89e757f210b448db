// SPDX-License-Identifier: MIT
/*
 * Bio-layer tests in the kernel: real threads and a real RAM disk, where
 * the host tests (tests/unit/check_bio.c) use models.  Scenario "brd"
 * boots with brd.rd_nr=2 so ram0 and ram1 exist.
 *
 * no_orphans: every gendisk allocated is registered, and every queue on
 * the timeout scan is a registered disk's -- what a driver whose
 * registration failed must leave behind (ahci-register-fails boots with
 * fault points armed, see docs/testing.md, "Fault injection").
 */
#include <spindle/ktest.h>
#include <spindle/blkdev.h>
#include <spindle/mempool.h>
#include <spindle/completion.h>
#include <spindle/pattern.h>
#include <spindle/sched.h>
#include <spindle/time.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/blk_mq.h>
#include <spindle/blk_bench.h>
#include <spindle/elevator.h>
#include <spindle/mutex.h>
#include "../../block/blk.h"
#include "ktest_sched.h"

static int rw(struct block_device *b, bool write, sector_t sector,
	      struct page *pages, unsigned int offset, unsigned int len)
{
	struct bio *bio = bio_alloc(GFP_NOIO, 8);
	int err;

	bio_set_dev(bio, b);
	bio->bi_iter.bi_sector = sector;
	bio->bi_opf = write ? REQ_OP_WRITE : REQ_OP_READ;
	/* segments deliberately not page-aligned: offset into the first page */
	while (len) {
		unsigned int n = min(len, (unsigned int)PAGE_SIZE - offset);

		bio_add_page(bio, pages++, n, offset);
		len -= n;
		offset = 0;
	}
	err = submit_bio_wait(bio);
	bio_put(bio);
	return err;
}

KTEST(block, brd_roundtrip)
{
	struct block_device *b = lookup_bdev("ram0");
	struct page *w = alloc_pages(GFP_KERNEL, 2), *r = alloc_pages(GFP_KERNEL, 2);
	const unsigned int off = 1536, len = 3 * PAGE_SIZE;     /* 6 segments' worth */

	if (!b)
		KT_SKIP("no ram0 (boot with brd.rd_nr=1)");
	KT_ASSERT(w && r);
	pattern_fill((char *)page_address(w) + off, 8 * 512, len, 99);
	KT_ASSERT(rw(b, true, 8, w, off, len) == 0);
	memset(page_address(r), 0, 4 * PAGE_SIZE);
	/* read back through a different alignment */
	KT_ASSERT(rw(b, false, 8, r, 512, len) == 0);
	KT_ASSERT_MSG(pattern_check((char *)page_address(r) + 512, 8 * 512, len, 99) < 0,
		      "data read back differs");
	__free_pages(w, 2);
	__free_pages(r, 2);
}

KTEST(block, beyond_end_is_eio)
{
	struct block_device *b = lookup_bdev("ram0");
	struct page *p = alloc_page(GFP_KERNEL);

	if (!b)
		KT_SKIP("no ram0");
	KT_ASSERT(rw(b, false, bdev_nr_sectors(b) - 8, p, 0, PAGE_SIZE) == 0);
	KT_ASSERT(rw(b, false, bdev_nr_sectors(b) - 7, p, 0, PAGE_SIZE) == -EIO);
	KT_ASSERT(rw(b, true, bdev_nr_sectors(b), p, 0, 512) == -EIO);
	__free_page(p);
}

struct pool_waiter {
	mempool_t *pool;
	struct completion got;
	void *element;
};

static int pool_waiter_fn(void *arg)
{
	struct pool_waiter *w = arg;

	w->element = mempool_alloc(w->pool, GFP_NOIO);  /* sleeps: pool is dry */
	complete(&w->got);
	return 0;
}

/*
 * A dry reserve-only pool puts the allocator to sleep until a free.  The
 * waiter is watched until it is asleep in the pool (its wait counted, its
 * state set), not given a fixed time: on a loaded host its CPU may not
 * run it for a while.  Whatever is found, the element is freed and the
 * waiter's end awaited before any verdict -- w lives in this frame, and a
 * waiter left behind would later use a dead frame's pool.
 */
KTEST(block, mempool_wait_and_wakeup)
{
	static mempool_t pool;
	struct pool_waiter w = { .pool = &pool, .element = NULL };
	struct task_struct *t;
	bool asleep, early;
	void *mine;

	KT_ASSERT(mempool_init(&pool, 1, 128, MEMPOOL_RESERVE_ONLY) == 0);
	init_completion(&w.got);
	mine = mempool_alloc(&pool, GFP_NOIO);
	KT_ASSERT(mine != NULL);
	t = kthread_run(pool_waiter_fn, &w, "poolwait");
	KT_ASSERT(t != NULL);
	get_task_struct(t);
	asleep = ktest_wait_until(READ_ONCE(pool.nr_waits) == 1 &&
				  READ_ONCE(t->state) == TASK_UNINTERRUPTIBLE);
	early = completion_done(&w.got);
	put_task_struct(t);
	mempool_free(mine, &pool);
	wait_for_completion(&w.got);
	KT_ASSERT_MSG(asleep, "the allocation from a dry pool never slept in it (%lu waits)",
		      (unsigned long)pool.nr_waits);
	KT_ASSERT_MSG(!early, "allocation from a dry pool did not wait");
	KT_ASSERT(w.element == mine);
	mempool_free(w.element, &pool);
	mempool_exit(&pool);
}

/*
 * An elevator switch while I/O runs loses nothing: a loader thread keeps
 * 8 random reads in flight on nullb0 (boot with null_blk.nr_devices=1
 * null_blk.irqmode=2 so commands take a while), and this thread switches
 * the elevator round and round until the loader is done.  Every read must
 * complete without error, at least one switch must find I/O in flight
 * (so the freeze really drained something), and the queue must end thawed
 * with the last elevator chosen.
 */
struct switch_load {
	struct block_device *bdev;
	struct bench_result r;
	int err;
	struct completion done;
};

static int switch_loader(void *data)
{
	struct switch_load *l = data;
	struct bench_opts o = { .rw = BENCH_RANDREAD, .bs = 4096, .qd = 8,
				.size = 1 << 20, .seed = 3 };

	l->err = blk_bench(l->bdev, &o, &l->r);
	complete(&l->done);
	return 0;
}

KTEST(block, elevator_switch_live)
{
	static const char *const names[] = { "cscan", "none", "mq-deadline" };
	struct block_device *b = lookup_bdev("nullb0");
	struct switch_load l = { 0 };
	unsigned int switches = 0, overlapped = 0;
	char buf[64];

	if (!b || !b->bd_disk->queue->tag_set)
		KT_SKIP("no request-based nullb0 (boot with null_blk.nr_devices=1)");
	l.bdev = b;
	init_completion(&l.done);
	KT_ASSERT(kthread_run(switch_loader, &l, "switch_loader") != NULL);
	while (!completion_done(&l.done)) {
		struct disk_stats st;

		part_stat_read_all(b, &st);
		if (disk_stats_in_flight(&st))
			overlapped++;
		KT_ASSERT(elevator_switch(b->bd_disk->queue, names[switches % 3]) == 0);
		switches++;
		msleep(1);
	}
	wait_for_completion(&l.done);
	KT_ASSERT_MSG(l.err == 0 && l.r.error == 0, "bench %d, I/O error %d", l.err, l.r.error);
	KT_ASSERT_MSG(l.r.ios == 256, "%llu of 256 reads completed", (unsigned long long)l.r.ios);
	KT_ASSERT_MSG(overlapped > 0, "no switch found I/O in flight (%u switches)", switches);
	KT_ASSERT(b->bd_disk->queue->mq_freeze_depth == 0);
	elv_iosched_show(b->bd_disk->queue, buf, sizeof(buf));
	KT_ASSERT_MSG(strstr(buf, names[(switches - 1) % 3]) == strchr(buf, '[') + 1,
		      "scheduler file says %s", buf);
	KT_ASSERT(elevator_switch(b->bd_disk->queue, "no-such") == -EINVAL);
}

/*
 * REQ_NOWAIT on a full queue: with every request of nullb0 taken by
 * commands the (slow) device has not finished, a bio that may not sleep
 * for a request completes at once with BLK_STS_AGAIN (-EAGAIN) -- what
 * io_uring and RWF_NOWAIT callers rely on -- while the others complete
 * normally.
 */
struct nowait_batch {
	struct wait_queue_head wait;
	unsigned int pending, errors;
};

static void nowait_end_io(struct bio *bio)
{
	struct nowait_batch *b = bio->bi_private;
	unsigned long flags;

	spin_lock_irqsave(&b->wait.lock, flags);
	if (bio->bi_status)
		b->errors++;
	b->pending--;
	__wake_up_locked(&b->wait);             /* b is on the waiter's stack */
	spin_unlock_irqrestore(&b->wait.lock, flags);
	bio_put(bio);
}

KTEST(block, nowait_on_full_queue)
{
	struct block_device *b = lookup_bdev("nullb0");
	struct nowait_batch batch = { 0 };
	struct request_queue *q;
	struct page *page;
	struct bio *bio;
	unsigned int n;
	int err;

	if (!b || !b->bd_disk->queue->tag_set)
		KT_SKIP("no request-based nullb0 (boot with null_blk.nr_devices=1)");
	q = b->bd_disk->queue;
	page = alloc_page(GFP_KERNEL);
	KT_ASSERT(page != NULL);
	init_waitqueue_head(&batch.wait);
	n = q->nr_requests;
	batch.pending = n;
	for (unsigned int i = 0; i < n; i++) {          /* far apart: no merging */
		bio = bio_alloc(GFP_NOIO, 1);
		bio_set_dev(bio, b);
		bio->bi_iter.bi_sector = (sector_t)i * 4096;
		bio->bi_opf = REQ_OP_READ;
		bio->bi_end_io = nowait_end_io;
		bio->bi_private = &batch;
		bio_add_page(bio, page, PAGE_SIZE, 0);
		submit_bio(bio);
	}
	bio = bio_alloc(GFP_NOIO, 1);
	bio_set_dev(bio, b);
	bio->bi_iter.bi_sector = 1;
	bio->bi_opf = REQ_OP_READ | REQ_NOWAIT;
	bio_add_page(bio, page, PAGE_SIZE, 0);
	err = submit_bio_wait(bio);
	bio_put(bio);
	wait_event(batch.wait, READ_ONCE(batch.pending) == 0);
	__free_page(page);
	KT_ASSERT_MSG(err == -EAGAIN, "REQ_NOWAIT with %u requests taken: %d", n, err);
	KT_ASSERT_MSG(batch.errors == 0, "%u of the %u reads failed", batch.errors, n);
}

KTEST(block, no_orphans)
{
	unsigned long registered = 0, request_based = 0;
	struct gendisk *disk;

	mutex_lock(&disk_list_lock);
	list_for_each_entry(disk, &disk_list, list) {
		registered++;
		if (disk->queue && disk->queue->tag_set)
			request_based++;        /* one queue each: on the timeout scan */
	}
	mutex_unlock(&disk_list_lock);
	KT_ASSERT_MSG(blk_nr_gendisks() == registered, "%lu gendisks allocated, %lu registered",
		      blk_nr_gendisks(), registered);
	KT_ASSERT_MSG(blk_mq_nr_queues() == request_based,
		      "%u queues on the timeout scan, %lu request-based disks registered",
		      blk_mq_nr_queues(), request_based);
}
