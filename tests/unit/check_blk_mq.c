// SPDX-License-Identifier: MIT
/*
 * The request layer (block/blk-mq.c) on the host, with a fake
 * request-based driver: merging on the plug and in the elevator, the
 * limits that stop a merge, splitting to max_sectors, the queue depth,
 * a busy driver, REQ_NOWAIT without a free request, completion of every
 * bio exactly once, and the elevator's sorting reaching the driver; the
 * map of CPUs to hardware queues, and requests from each (pretended)
 * CPU reaching its own hardware queue with that queue's tags; the queue
 * maps of several types, and polled bios going to a POLL hardware
 * queue and ending only when polled (blk_mq_poll, bio_poll); lab 8's
 * cases: the map's spread, and a request waiting on the software queue
 * of the CPU that made it, in order, under that queue's lock.
 */
#include <check.h>
#include <spindle/blkdev.h>
#include <spindle/blk_mq.h>
#include <spindle/blk_plug.h>
#include <spindle/elevator.h>
#include <spindle/sched.h>
#include <spindle/time.h>
#include <spindle/errno.h>
#include <spindle/blktrace.h>
#include <spindle/blk_bench.h>
#include <spindle/printk.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <unistd.h>
#include "shim/host_kernel.h"
#include "../../block/blk.h"
#include "../../block/elevator-internal.h"

/* Every CPU's counters of b, summed (the host has one CPU). */
static struct disk_stats stats_of(struct block_device *b)
{
	struct disk_stats st;

	part_stat_read_all(b, &st);
	return st;
}

static unsigned long in_flight_of(struct block_device *b)
{
	struct disk_stats st = stats_of(b);

	return disk_stats_in_flight(&st);
}

#define MAX_SEEN 64

static struct request *inflight[MAX_SEEN];
static int nr_inflight, nr_queue_rq;
static sector_t seen_pos[MAX_SEEN];
static unsigned int seen_sectors[MAX_SEEN];
static unsigned int seen_flags[MAX_SEEN];       /* cmd_flags: op and REQ_* */
static struct request_queue *seen_q[MAX_SEEN];
static unsigned int seen_hctx[MAX_SEEN];        /* rq->mq_hctx->queue_num */
static bool seen_last[MAX_SEEN];                /* bd->last */
static int nr_commit;                           /* commit_rqs() calls ... */
static unsigned int commit_hctx;                /* ... the last one's hctx */
static int busy_calls;                  /* answer BLK_STS_RESOURCE this many times */

static bool restart_while_busy;         /* the race: freed before we park */

static blk_status_t fake_queue_rq(struct request_queue *q, const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;
	if (busy_calls) {
		busy_calls--;
		if (restart_while_busy)
			blk_mq_restart_hw_queue(q);
		return BLK_STS_RESOURCE;
	}
	blk_mq_start_request(rq);
	ck_assert_int_lt(nr_queue_rq, MAX_SEEN);
	seen_pos[nr_queue_rq] = blk_rq_pos(rq);
	seen_flags[nr_queue_rq] = rq->cmd_flags;
	seen_q[nr_queue_rq] = q;
	seen_hctx[nr_queue_rq] = rq->mq_hctx->queue_num;
	seen_last[nr_queue_rq] = bd->last;
	seen_sectors[nr_queue_rq++] = blk_rq_sectors(rq);
	inflight[nr_inflight++] = rq;
	return BLK_STS_OK;
}

static void fake_commit_rqs(struct blk_mq_hw_ctx *hctx)
{
	nr_commit++;
	commit_hctx = hctx->queue_num;
}

static const struct blk_mq_ops fake_ops = { .queue_rq = fake_queue_rq,
					    .commit_rqs = fake_commit_rqs };
static struct blk_mq_tag_set set;
static struct gendisk *disk;
static struct request_queue *q;

static int ended, ended_ok;
static blk_status_t last_status;

static void count_end(struct bio *bio)
{
	ended++;
	if (!bio->bi_status)
		ended_ok++;
	last_status = bio->bi_status;
	bio_put(bio);
}

static struct page *data_pages;

static void submit(unsigned int op, sector_t sector, unsigned int bytes)
{
	struct bio *bio = bio_alloc(GFP_NOIO, 1);

	bio->bi_disk = disk;
	bio->bi_iter.bi_sector = sector;
	bio->bi_opf = op;
	bio->bi_end_io = count_end;
	if (bytes)
		bio_add_page(bio, data_pages, bytes, 0);
	submit_bio(bio);
}

/* The device finishes the oldest command in flight. */
static void complete_oldest(blk_status_t status)
{
	struct request *rq;

	ck_assert_int_gt(nr_inflight, 0);
	rq = inflight[0];
	memmove(inflight, inflight + 1, --nr_inflight * sizeof(inflight[0]));
	blk_mq_complete_request(rq, status);
	blk_mq_run_completions();
}

static void make_queue(unsigned int depth, unsigned int nr_requests,
		       unsigned int max_sectors, const char *elevator)
{
	set.ops = &fake_ops;
	set.queue_depth = depth;
	set.nr_requests = nr_requests;
	q = blk_mq_init_queue(&set);
	ck_assert_ptr_nonnull(q);
	blk_queue_max_hw_sectors(q, max_sectors);
	if (elevator) {
		elevator_exit_queue(q);
		ck_assert_int_eq(elevator_init_queue(q, elevator), 0);
	}
	disk = alloc_disk(1);
	strcpy(disk->disk_name, "fake");
	disk->queue = q;
	set_capacity(disk, 1 << 20);
	ck_assert_int_eq(add_disk(disk), 0);
}

static void setup(void)
{
	host_printk_quiet = true;
	host_mm_init(4096 * PAGE_SIZE);
	ck_assert_int_eq(bioset_init(&fs_bio_set, "fs_bio_set", 8, 0, 0), 0);
	elevator_register_builtin();
	data_pages = alloc_pages(GFP_KERNEL, 4);
	nr_inflight = nr_queue_rq = ended = ended_ok = busy_calls = nr_commit = 0;
	plug_enabled = true;
	current->plug = NULL;
	memset(&set, 0, sizeof(set));
	nr_cpu_ids = 1;
	host_cpu = 0;
}

static void teardown(void)
{
	struct gendisk *d, *t;

	list_for_each_entry_safe(d, t, &disk_list, list)
		list_del_init(&d->list);
	current->plug = NULL;
	host_mm_exit();
}

START_TEST(plugged_sequential_bios_become_one_request)
{
	struct blk_plug plug;

	make_queue(4, 0, 1024, "none");
	blk_start_plug(&plug);
	for (int i = 0; i < 16; i++)
		submit(REQ_OP_WRITE, 1000 + 8 * i, 4096);
	ck_assert_int_eq(nr_queue_rq, 0);               /* all still on the plug */
	blk_finish_plug(&plug);
	ck_assert_int_eq(nr_queue_rq, 1);
	ck_assert_uint_eq(seen_pos[0], 1000);
	ck_assert_uint_eq(seen_sectors[0], 128);
	ck_assert_uint_eq(stats_of(disk->part[0]).in_flight[1], 1);     /* one write */
	ck_assert_uint_eq(stats_of(disk->part[0]).in_flight[0], 0);
	complete_oldest(BLK_STS_OK);
	ck_assert_uint_eq(stats_of(disk->part[0]).in_flight[1], 0);
	ck_assert_int_eq(ended_ok, 16);
	ck_assert_uint_eq(stats_of(disk->part[0]).ios[STAT_WRITE], 1);
	ck_assert_uint_eq(stats_of(disk->part[0]).merges[STAT_WRITE], 15);
	ck_assert_uint_eq(stats_of(disk->part[0]).sectors[STAT_WRITE], 128);
	ck_assert_uint_eq(in_flight_of(disk->part[0]), 0);
}
END_TEST

/* Complete whatever the driver has, until it has nothing. */
static void complete_all(void)
{
	while (nr_inflight)
		complete_oldest(BLK_STS_OK);
}

/* A bio that ends where a plugged request starts joins it at the front. */
START_TEST(plug_front_merge)
{
	struct blk_plug plug;

	make_queue(4, 0, 1024, "none");
	blk_start_plug(&plug);
	submit(REQ_OP_WRITE, 8, 4096);
	submit(REQ_OP_WRITE, 0, 4096);
	blk_finish_plug(&plug);
	ck_assert_int_eq(nr_queue_rq, 1);
	ck_assert_uint_eq(seen_pos[0], 0);
	ck_assert_uint_eq(seen_sectors[0], 16);
	ck_assert_uint_eq(stats_of(disk->part[0]).merges[STAT_WRITE], 1);
}
END_TEST

/*
 * A plugged merge obeys the queue's limits and never mixes operations
 * (blk_rq_merge_ok()): on a queue of 16 sectors per request, four
 * sequential 8-sector writes become two requests, and a read that starts
 * where the writes end is a request of its own.
 */
START_TEST(plug_merge_respects_limits)
{
	struct blk_plug plug;
	int reads = 0;

	make_queue(4, 0, 16, "none");
	blk_start_plug(&plug);
	for (int i = 0; i < 4; i++)
		submit(REQ_OP_WRITE, 8 * i, 4096);
	submit(REQ_OP_READ, 32, 4096);
	blk_finish_plug(&plug);
	ck_assert_int_eq(nr_queue_rq, 3);
	for (int i = 0; i < nr_queue_rq; i++) {
		ck_assert_msg(seen_sectors[i] <= 16, "request %d has %u sectors, over max_sectors 16",
			      i, seen_sectors[i]);
		if ((seen_flags[i] & REQ_OP_MASK) == REQ_OP_READ) {
			reads++;
			ck_assert_uint_eq(seen_pos[i], 32);
			ck_assert_uint_eq(seen_sectors[i], 8);
		}
	}
	ck_assert_int_eq(reads, 1);
	complete_all();
}
END_TEST

/*
 * One plug, two disks: bios of different queues never merge, even when
 * their sectors touch; the flush hands each queue its own batch (all of
 * A's, then all of B's, in the order each was plugged) -- one queue lock
 * per queue, as Linux commit 73c101011926 sorts by queue.
 */
START_TEST(two_queues_on_one_plug)
{
	struct request_queue *qa, *qb;
	struct gendisk *da, *db;
	static struct blk_mq_tag_set set_b;
	struct blk_plug plug;

	make_queue(4, 0, 1024, "none");
	qa = q;
	da = disk;
	set_b = set;
	qb = blk_mq_init_queue(&set_b);
	ck_assert_ptr_nonnull(qb);
	db = alloc_disk(1);
	strcpy(db->disk_name, "fakeb");
	db->queue = qb;
	set_capacity(db, 1 << 20);
	ck_assert_int_eq(add_disk(db), 0);

	blk_start_plug(&plug);
	disk = da; submit(REQ_OP_WRITE, 0, 4096);
	disk = db; submit(REQ_OP_WRITE, 8, 4096);       /* touches A's, other disk */
	disk = da; submit(REQ_OP_WRITE, 8, 4096);       /* merges with A's first */
	disk = db; submit(REQ_OP_WRITE, 100, 4096);
	disk = da; submit(REQ_OP_WRITE, 100, 4096);
	ck_assert_int_eq(nr_queue_rq, 0);
	blk_finish_plug(&plug);
	disk = da;

	ck_assert_int_eq(nr_queue_rq, 4);
	ck_assert_ptr_eq(seen_q[0], qa);
	ck_assert_uint_eq(seen_pos[0], 0);
	ck_assert_uint_eq(seen_sectors[0], 16);
	ck_assert_ptr_eq(seen_q[1], qa);
	ck_assert_uint_eq(seen_pos[1], 100);
	ck_assert_ptr_eq(seen_q[2], qb);
	ck_assert_uint_eq(seen_pos[2], 8);
	ck_assert_uint_eq(seen_sectors[2], 8);
	ck_assert_ptr_eq(seen_q[3], qb);
	ck_assert_uint_eq(seen_pos[3], 100);
	complete_all();
	ck_assert_int_eq(ended_ok, 5);
}
END_TEST

START_TEST(merge_stops_at_max_sectors)
{
	struct blk_plug plug;

	make_queue(8, 0, 16, "none");                    /* 8 KiB per request */
	blk_start_plug(&plug);
	for (int i = 0; i < 8; i++)
		submit(REQ_OP_READ, 8 * i, 4096);
	blk_finish_plug(&plug);
	ck_assert_int_eq(nr_queue_rq, 4);
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(seen_sectors[i], 16);
}
END_TEST

/* Table: pairs of adjacent bios that must not merge. */
static const struct { unsigned int op1, op2; } no_merge[] = {
	{ REQ_OP_READ, REQ_OP_WRITE },
	{ REQ_OP_WRITE, REQ_OP_WRITE | REQ_FUA },
	{ REQ_OP_WRITE | REQ_NOMERGE, REQ_OP_WRITE },
	{ REQ_OP_WRITE, REQ_OP_WRITE | REQ_PREFLUSH },
};

static int data_requests_seen(void)
{
	int n = 0;

	for (int i = 0; i < nr_queue_rq; i++)
		n += seen_sectors[i] != 0;
	return n;
}

START_TEST(no_merge_across_ops_and_flags)
{
	struct blk_plug plug;

	make_queue(8, 0, 1024, "none");
	blk_queue_write_cache(q, true, true);   /* so FUA and PREFLUSH stay */
	blk_start_plug(&plug);
	submit(no_merge[_i].op1, 0, 4096);
	submit(no_merge[_i].op2, 8, 4096);
	blk_finish_plug(&plug);
	complete_all();
	ck_assert_int_eq(data_requests_seen(), 2);
	ck_assert_int_eq(ended_ok, 2);
}
END_TEST

/* --- flushes and FUA (block/blk-flush.c) ----------------------------------- */

/* A device with a write cache but no FUA: PREFLUSH, the data, POSTFLUSH --
 * each step only after the previous one completed; the bio ends last. */
START_TEST(fua_write_becomes_flush_write_flush)
{
	make_queue(4, 0, 1024, "none");
	blk_queue_write_cache(q, true, false);
	submit(REQ_OP_WRITE | REQ_PREFLUSH | REQ_FUA, 64, 4096);
	ck_assert_int_eq(nr_queue_rq, 1);
	ck_assert_uint_eq(seen_flags[0] & REQ_OP_MASK, REQ_OP_FLUSH);
	complete_oldest(BLK_STS_OK);
	ck_assert_int_eq(nr_queue_rq, 2);
	ck_assert_uint_eq(seen_flags[1], REQ_OP_WRITE);  /* neither flag reaches it */
	ck_assert_uint_eq(seen_pos[1], 64);
	complete_oldest(BLK_STS_OK);
	ck_assert_int_eq(ended, 0);                      /* not durable yet */
	ck_assert_int_eq(nr_queue_rq, 3);
	ck_assert_uint_eq(seen_flags[2] & REQ_OP_MASK, REQ_OP_FLUSH);
	complete_oldest(BLK_STS_OK);
	ck_assert_int_eq(ended_ok, 1);
	ck_assert_uint_eq(stats_of(disk->part[0]).ios[STAT_FLUSH], 2);
	ck_assert_uint_eq(stats_of(disk->part[0]).ios[STAT_WRITE], 1);
	ck_assert_uint_eq(in_flight_of(disk->part[0]), 0);
}
END_TEST

/* A device that does FUA itself gets the flag, and no post-flush. */
START_TEST(fua_device_gets_fua)
{
	make_queue(4, 0, 1024, "none");
	blk_queue_write_cache(q, true, true);
	submit(REQ_OP_WRITE | REQ_FUA, 64, 4096);
	ck_assert_int_eq(nr_queue_rq, 1);
	ck_assert_uint_eq(seen_flags[0], REQ_OP_WRITE | REQ_FUA);
	complete_oldest(BLK_STS_OK);
	ck_assert_int_eq(nr_queue_rq, 1);
	ck_assert_int_eq(ended_ok, 1);
}
END_TEST

/* A failed pre-flush fails the write, which never reaches the device. */
START_TEST(failed_preflush_fails_the_write)
{
	make_queue(4, 0, 1024, "none");
	blk_queue_write_cache(q, true, false);
	submit(REQ_OP_WRITE | REQ_PREFLUSH, 64, 4096);
	complete_oldest(BLK_STS_IOERR);
	ck_assert_int_eq(nr_queue_rq, 1);
	ck_assert_int_eq(ended, 1);
	ck_assert_uint_eq(last_status, BLK_STS_IOERR);
	ck_assert_uint_eq(in_flight_of(disk->part[0]), 0);
}
END_TEST

/* Error lines ("... error, dev ...") in the log since the last reset. */
static int error_lines(void)
{
	int n = 0;

	for (const char *l = host_printk_buf; (l = strstr(l, " error, dev ")); l++)
		n++;
	return n;
}

/*
 * A failed cache flush is one line, the flush command's, as Linux's
 * blk_print_req_error: the empty write that asked for it (and the data
 * write behind a failed pre-flush) ends with the error but logs nothing
 * more.  A failed data step of a FUA write is one line too, its own.
 */
START_TEST(failed_flush_logs_one_line)
{
	make_queue(4, 0, 1024, "none");
	blk_queue_write_cache(q, true, false);
	host_printk_reset();
	submit(REQ_OP_WRITE | REQ_PREFLUSH | REQ_SYNC, 0, 0);
	complete_oldest(BLK_STS_IOERR);
	ck_assert_int_eq(ended, 1);
	ck_assert_uint_eq(last_status, BLK_STS_IOERR);
	ck_assert_int_eq(error_lines(), 1);
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "I/O error, dev fake, sector 0 op 0x2:(FLUSH) "
						      "flags 0x0 phys_seg 0 prio class 0\n"));

	host_printk_reset();
	submit(REQ_OP_WRITE | REQ_PREFLUSH, 64, 4096);
	complete_oldest(BLK_STS_IOERR);
	ck_assert_int_eq(ended, 2);
	ck_assert_int_eq(error_lines(), 1);
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "op 0x2:(FLUSH)"));

	host_printk_reset();
	submit(REQ_OP_WRITE | REQ_FUA, 64, 4096);       /* data, then a post-flush */
	complete_oldest(BLK_STS_IOERR);
	ck_assert_int_eq(ended, 3);
	ck_assert_uint_eq(last_status, BLK_STS_IOERR);
	ck_assert_int_eq(error_lines(), 1);
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "I/O error, dev fake, sector 64 op 0x1:(WRITE) "));
	ck_assert_uint_eq(in_flight_of(disk->part[0]), 0);
}
END_TEST

/* Empty flushes that arrive while one runs share the next flush command. */
START_TEST(waiting_flushes_share_one_command)
{
	make_queue(4, 0, 1024, "none");
	blk_queue_write_cache(q, true, false);
	submit(REQ_OP_FLUSH, 0, 0);
	submit(REQ_OP_FLUSH, 0, 0);
	submit(REQ_OP_WRITE | REQ_PREFLUSH, 0, 0);
	ck_assert_int_eq(nr_queue_rq, 1);                /* one flush at a time */
	complete_oldest(BLK_STS_OK);
	ck_assert_int_eq(ended_ok, 1);
	ck_assert_int_eq(nr_queue_rq, 2);                /* one for both others */
	complete_oldest(BLK_STS_OK);
	ck_assert_int_eq(ended_ok, 3);
	ck_assert_int_eq(nr_queue_rq, 2);
	ck_assert_uint_eq(stats_of(disk->part[0]).ios[STAT_FLUSH], 2);
}
END_TEST

/* No write cache: flags dropped, an empty flush is done at once. */
START_TEST(no_write_cache_no_flushes)
{
	make_queue(4, 0, 1024, "none");
	submit(REQ_OP_FLUSH, 0, 0);
	ck_assert_int_eq(ended_ok, 1);
	submit(REQ_OP_WRITE | REQ_PREFLUSH | REQ_FUA, 8, 4096);
	ck_assert_int_eq(nr_queue_rq, 1);
	ck_assert_uint_eq(seen_flags[0], REQ_OP_WRITE);
	complete_all();
	ck_assert_int_eq(ended_ok, 2);
}
END_TEST

/* --- discard ---------------------------------------------------------------- */

START_TEST(discard_unsupported_fails_cleanly)
{
	make_queue(4, 0, 1024, "none");
	submit(REQ_OP_DISCARD, 0, 0);
	ck_assert_int_eq(nr_queue_rq, 0);
	ck_assert_int_eq(ended, 1);
	ck_assert_uint_eq(last_status, BLK_STS_NOTSUPP);
}
END_TEST

START_TEST(discard_split_to_the_device_limit)
{
	struct bio *bio = bio_alloc(GFP_NOIO, 0);

	make_queue(4, 0, 1024, "none");
	blk_queue_max_discard_sectors(q, 8);
	bio->bi_disk = disk;
	bio->bi_iter.bi_sector = 100;
	bio->bi_iter.bi_size = 20 * SECTOR_SIZE;
	bio->bi_opf = REQ_OP_DISCARD;
	bio->bi_end_io = count_end;
	submit_bio(bio);
	ck_assert_int_eq(nr_queue_rq, 3);
	ck_assert_uint_eq(seen_pos[0], 100);
	ck_assert_uint_eq(seen_sectors[0], 8);
	ck_assert_uint_eq(seen_pos[2], 116);
	ck_assert_uint_eq(seen_sectors[2], 4);
	complete_all();
	ck_assert_int_eq(ended_ok, 1);
	ck_assert_uint_eq(stats_of(disk->part[0]).ios[STAT_DISCARD], 3);
}
END_TEST

/* --- timeouts and requeue --------------------------------------------------- */

static int timeouts_called;
static enum blk_eh_timer_return timeout_answer;

static enum blk_eh_timer_return fake_timeout(struct request *rq)
{
	timeouts_called++;
	if (timeout_answer == BLK_EH_DONE)
		blk_mq_complete_request(rq, BLK_STS_TIMEOUT);
	return timeout_answer;
}

static const struct blk_mq_ops fake_ops_timeout = {
	.queue_rq = fake_queue_rq, .timeout = fake_timeout,
};

START_TEST(late_request_without_handler_times_out)
{
	make_queue(4, 0, 1024, "none");
	jiffies = 1000;
	submit(REQ_OP_READ, 0, 4096);
	blk_mq_check_timeouts(jiffies + 29 * HZ);
	blk_mq_run_completions();
	ck_assert_int_eq(ended, 0);                      /* 30 s is the default */
	blk_mq_check_timeouts(jiffies + 31 * HZ);
	blk_mq_run_completions();
	ck_assert_int_eq(ended, 1);
	ck_assert_uint_eq(last_status, BLK_STS_TIMEOUT);
	/* the device's late answer does not complete it a second time */
	ck_assert(!blk_mq_complete_request(inflight[0], BLK_STS_OK));
}
END_TEST

START_TEST(timeout_handler_resets_or_completes)
{
	set.ops = &fake_ops_timeout;
	make_queue(4, 0, 1024, "none");
	set.ops = &fake_ops_timeout;
	blk_queue_rq_timeout(q, 5 * HZ);
	timeouts_called = 0;
	timeout_answer = BLK_EH_RESET_TIMER;
	jiffies = 0;
	submit(REQ_OP_READ, 0, 4096);
	jiffies = 6 * HZ;
	blk_mq_check_timeouts(jiffies);
	ck_assert_int_eq(timeouts_called, 1);
	blk_mq_check_timeouts(jiffies + 4 * HZ);
	ck_assert_int_eq(timeouts_called, 1);            /* the timer was reset */
	timeout_answer = BLK_EH_DONE;
	blk_mq_check_timeouts(jiffies + 6 * HZ);
	ck_assert_int_eq(timeouts_called, 2);
	blk_mq_run_completions();
	ck_assert_int_eq(ended, 1);
	ck_assert_uint_eq(last_status, BLK_STS_TIMEOUT);
	set.ops = &fake_ops;
}
END_TEST

/* A requeued request goes to the driver again, first; its bio ends once. */
START_TEST(requeued_request_is_dispatched_again)
{
	struct request *rq;

	make_queue(1, 0, 1024, "none");
	submit(REQ_OP_READ, 0, 4096);
	submit(REQ_OP_READ, 800, 4096);                  /* waits: depth 1 */
	ck_assert_int_eq(nr_queue_rq, 1);
	rq = inflight[0];
	nr_inflight = 0;
	blk_mq_requeue_request(rq);
	ck_assert(!blk_mq_complete_request(rq, BLK_STS_OK));
	blk_mq_run_completions();
	ck_assert_int_eq(nr_queue_rq, 2);
	ck_assert_uint_eq(seen_pos[1], 0);               /* before the one waiting */
	complete_all();
	ck_assert_int_eq(ended_ok, 2);
	ck_assert_int_eq(nr_queue_rq, 3);
}
END_TEST

START_TEST(split_to_max_sectors_completes_parent_once)
{
	struct bio *bio = bio_alloc(GFP_NOIO, 4);

	make_queue(16, 0, 16, "none");
	for (int i = 0; i < 4; i++)
		bio_add_page(bio, data_pages + i, PAGE_SIZE, 0);
	bio->bi_disk = disk;
	bio->bi_iter.bi_sector = 64;
	bio->bi_opf = REQ_OP_WRITE;
	bio->bi_end_io = count_end;
	submit_bio(bio);
	ck_assert_int_eq(nr_queue_rq, 2);               /* 32 sectors, 16 each */
	ck_assert_uint_eq(seen_pos[0], 64);
	ck_assert_uint_eq(seen_pos[1], 80);
	complete_oldest(BLK_STS_OK);
	ck_assert_int_eq(ended, 0);                     /* the parent waits */
	complete_oldest(BLK_STS_IOERR);
	ck_assert_int_eq(ended, 1);
	ck_assert_uint_eq(last_status, BLK_STS_IOERR);
}
END_TEST

START_TEST(queue_depth_is_respected)
{
	make_queue(2, 8, 1024, "none");
	for (int i = 0; i < 5; i++)
		submit(REQ_OP_READ, 1000 * i, 4096);    /* not adjacent */
	ck_assert_int_eq(nr_queue_rq, 2);
	complete_oldest(BLK_STS_OK);
	ck_assert_int_eq(nr_queue_rq, 3);
	complete_oldest(BLK_STS_OK);
	complete_oldest(BLK_STS_OK);
	complete_oldest(BLK_STS_OK);
	complete_oldest(BLK_STS_OK);
	ck_assert_int_eq(nr_queue_rq, 5);
	ck_assert_int_eq(ended_ok, 5);
}
END_TEST

START_TEST(busy_driver_gets_the_request_again)
{
	make_queue(4, 8, 1024, "none");
	submit(REQ_OP_READ, 0, 4096);                   /* dispatched */
	busy_calls = 1;
	submit(REQ_OP_READ, 5000, 4096);                /* device full: waits */
	ck_assert_int_eq(nr_queue_rq, 1);
	complete_oldest(BLK_STS_OK);                    /* a slot frees: retried */
	ck_assert_int_eq(nr_queue_rq, 2);
	ck_assert_uint_eq(seen_pos[1], 5000);
}
END_TEST

START_TEST(nowait_without_free_request_is_again)
{
	make_queue(2, 2, 1024, "none");
	submit(REQ_OP_READ, 0, 4096);
	submit(REQ_OP_READ, 5000, 4096);                /* both requests in use */
	submit(REQ_OP_READ | REQ_NOWAIT, 9000, 4096);
	ck_assert_int_eq(ended, 1);
	ck_assert_uint_eq(last_status, BLK_STS_AGAIN);
}
END_TEST

START_TEST(deadline_sorts_a_plugged_batch)
{
	struct blk_plug plug;
	static const sector_t arrive[] = { 900, 100, 500, 300, 700 };

	make_queue(1, 8, 1024, "mq-deadline");
	blk_start_plug(&plug);
	for (unsigned int i = 0; i < 5; i++)
		submit(REQ_OP_READ, arrive[i], 4096);
	blk_finish_plug(&plug);
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(nr_queue_rq, i + 1);
		complete_oldest(BLK_STS_OK);
	}
	ck_assert_uint_eq(seen_pos[0], 100);
	ck_assert_uint_eq(seen_pos[1], 300);
	ck_assert_uint_eq(seen_pos[2], 500);
	ck_assert_uint_eq(seen_pos[3], 700);
	ck_assert_uint_eq(seen_pos[4], 900);
}
END_TEST

START_TEST(elevator_back_merge_then_request_merge)
{
	make_queue(1, 8, 1024, "mq-deadline");
	submit(REQ_OP_READ, 0, 4096);                   /* dispatched: busy */
	submit(REQ_OP_READ, 100, 4096);                 /* waits in the elevator */
	submit(REQ_OP_READ, 116, 4096);                 /* waits too (gap) */
	submit(REQ_OP_READ, 108, 4096);                 /* fills the gap: back merge
							 * into 100, then 116 joins */
	complete_oldest(BLK_STS_OK);
	ck_assert_int_eq(nr_queue_rq, 2);
	ck_assert_uint_eq(seen_pos[1], 100);
	ck_assert_uint_eq(seen_sectors[1], 24);
	complete_oldest(BLK_STS_OK);
	ck_assert_int_eq(ended_ok, 4);
	ck_assert_uint_eq(stats_of(disk->part[0]).ios[STAT_READ], 2);
	ck_assert_uint_eq(in_flight_of(disk->part[0]), 0);
}
END_TEST

/* A restart from the driver (its other disk finished) runs a queue that
 * none of whose own requests is in flight -- even one that races with
 * the BLK_STS_RESOURCE being handled. */
START_TEST(restart_runs_a_busy_queue)
{
	make_queue(4, 0, 1024, "none");
	busy_calls = 1;
	submit(REQ_OP_READ, 0, 4096);
	ck_assert_int_eq(nr_queue_rq, 0);                /* parked: busy */
	blk_mq_restart_hw_queue(q);
	blk_mq_run_restarts();
	ck_assert_int_eq(nr_queue_rq, 1);
	complete_all();

	busy_calls = 1;
	restart_while_busy = true;
	submit(REQ_OP_READ, 8, 4096);
	restart_while_busy = false;
	ck_assert_int_eq(nr_queue_rq, 2);                /* retried at once */
	complete_all();
	ck_assert_int_eq(ended_ok, 2);
}
END_TEST

/* --- run-time elevator switch ---------------------------------------------- */

START_TEST(elevator_switch_when_idle)
{
	char buf[64];

	make_queue(4, 0, 1024, "mq-deadline");
	ck_assert_int_eq(elevator_switch(q, "cscan"), 0);
	elv_iosched_show(q, buf, sizeof(buf));
	ck_assert_str_eq(buf, "mq-deadline none [cscan]\n");
	ck_assert_int_eq(elevator_switch(q, "noop"), -EINVAL);   /* not ours */
	elv_iosched_show(q, buf, sizeof(buf));
	ck_assert_str_eq(buf, "mq-deadline none [cscan]\n");
	submit(REQ_OP_READ, 0, 4096);                   /* and it still works */
	complete_all();
	ck_assert_int_eq(ended_ok, 1);
	ck_assert_int_eq(q->mq_freeze_depth, 0);
}
END_TEST

/*
 * A switch with no memory for the new elevator: -ENOMEM, and the old one
 * stays, tunables and all, without needing memory to come back.  (The
 * switch used to free it first, then make a fresh one with default
 * tunables -- and panic if that failed too.)
 */
START_TEST(elevator_switch_with_no_memory_keeps_the_old_one)
{
	char buf[64];

	make_queue(4, 0, 1024, "mq-deadline");
	ck_assert_int_eq(elv_attr_store(q, "read_expire", "123"), 0);
	while (alloc_page(GFP_KERNEL))
		;
	for (size_t size = 16; size <= KMALLOC_MAX_CACHE_SIZE; size *= 2)
		while (kmalloc(size, GFP_KERNEL))
			;
	ck_assert_int_eq(elevator_switch(q, "cscan"), -ENOMEM);
	elv_iosched_show(q, buf, sizeof(buf));
	ck_assert_str_eq(buf, "[mq-deadline] none cscan\n");
	elv_attr_show(q, "read_expire", buf, sizeof(buf));
	ck_assert_str_eq(buf, "123\n");                /* the same one, not a new one */
	ck_assert_int_eq(q->mq_freeze_depth, 0);
	submit(REQ_OP_READ, 0, 4096);                   /* and it still works */
	complete_all();
	ck_assert_int_eq(ended_ok, 1);
}
END_TEST

/*
 * bench= with just enough memory to start: its per-I/O records are made
 * before the run, so nothing in the loop can fail to allocate (it used
 * to kmalloc one per I/O and use it unchecked).  Two pages are left: the
 * data page and one kmalloc-128 slab, which holds both the 16 latency
 * samples and the 4 records; the bios come from fs_bio_set's reserve.
 */
static void device_completes_all(void)
{
	while (nr_inflight)
		complete_oldest(BLK_STS_OK);
}

START_TEST(bench_needs_no_memory_per_io)
{
	struct bench_opts o = { .rw = BENCH_READ, .bs = 4096, .qd = 4, .size = 16 * 4096 };
	struct bench_result r;
	struct page *spare[2];

	make_queue(4, 0, 1024, "none");
	spare[0] = alloc_page(GFP_KERNEL);
	spare[1] = alloc_page(GFP_KERNEL);
	while (alloc_page(GFP_KERNEL))
		;
	for (size_t size = 16; size <= KMALLOC_MAX_CACHE_SIZE; size *= 2)
		while (kmalloc(size, GFP_KERNEL))
			;
	__free_page(spare[0]);
	__free_page(spare[1]);
	host_schedule_hook = device_completes_all;
	ck_assert_int_eq(blk_bench(disk->part[0], &o, &r), 0);
	host_schedule_hook = NULL;
	ck_assert_int_eq(r.error, 0);
	ck_assert_uint_eq(r.ios, 16);
	ck_assert_uint_le(r.max_inflight, 4);
}
END_TEST

/* --- blktrace's RWBS letters and line layout ------------------------------- */

START_TEST(rwbs_letters_as_linux)
{
	static const struct { u32 opf, bytes; const char *rwbs; } t[] = {
		{ REQ_OP_READ, 4096, "R" },
		{ REQ_OP_WRITE | REQ_SYNC, 4096, "WS" },
		{ REQ_OP_WRITE | REQ_PREFLUSH | REQ_FUA | REQ_SYNC, 4096, "FWFS" },
		{ REQ_OP_WRITE | REQ_PREFLUSH, 0, "FN" },
		{ REQ_OP_FLUSH, 0, "FN" },
		{ REQ_OP_DISCARD, 4096, "D" },
	};
	char rwbs[8];

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		blk_fill_rwbs(rwbs, t[i].opf, t[i].bytes);
		ck_assert_str_eq(rwbs, t[i].rwbs);
	}
}
END_TEST

START_TEST(trace_line_layout_as_blkparse)
{
	struct blk_trace bt = { 0 };
	struct blk_trace_event e = {
		.time_ns = 1234567891, .sector = 223490, .bytes = 4096, .opf = REQ_OP_WRITE,
		.pid = 697, .dev = MKDEV(8, 0), .action = 'G', .comm = "kjournald",
	};
	char line[160];

	blk_trace_format(&bt, &e, 1, line, sizeof(line));
	ck_assert_str_eq(line, "  8,0    0        1     1.234567891   697  G   W 223490 + 8 [kjournald]");
	e.action = 'C';
	e.error = -5;
	blk_trace_format(&bt, &e, 12, line, sizeof(line));
	ck_assert_str_eq(line, "  8,0    0       12     1.234567891   697  C   W 223490 + 8 [-5]");
	e.action = 'A';
	e.from_dev = MKDEV(8, 1);
	e.extra = 221442;
	blk_trace_format(&bt, &e, 3, line, sizeof(line));
	ck_assert_str_eq(line, "  8,0    0        3     1.234567891   697  A   W 223490 + 8 <- (8,1) 221442");
}
END_TEST

/*
 * The binary trace read by the real tool: a ring of events of every kind,
 * written in Linux's blktrace format to <dir>/sda.blktrace.0, then parsed
 * by the host's blkparse (Debian's blktrace package).  Its text must be,
 * line for line, what Spindle's own formatter prints for the same events
 * -- an outside oracle for both the binary records and the text layout
 * (but for a failed completion's error: Spindle prints -5, blkparse the
 * 16-bit field as it is, 65531).
 */
START_TEST(binary_trace_reads_back_with_blkparse)
{
	static const struct blk_trace_event ev[] = {
		{ .time_ns = 0, .sector = 2048, .bytes = 4096, .opf = REQ_OP_WRITE | REQ_SYNC,
		  .pid = 7, .action = 'Q', .comm = "dd" },
		{ .time_ns = 1000, .sector = 2048, .bytes = 4096, .opf = REQ_OP_WRITE | REQ_SYNC,
		  .pid = 7, .action = 'G', .comm = "dd" },
		{ .time_ns = 1500, .pid = 7, .action = 'P', .comm = "dd" },
		{ .time_ns = 2000, .sector = 2056, .bytes = 4096, .opf = REQ_OP_WRITE | REQ_SYNC,
		  .pid = 7, .action = 'M', .comm = "dd" },
		{ .time_ns = 2500, .pid = 7, .action = 'U', .extra = 1, .comm = "dd" },
		{ .time_ns = 3000, .sector = 2048, .bytes = 8192, .opf = REQ_OP_WRITE | REQ_SYNC,
		  .pid = 7, .action = 'I', .comm = "dd" },
		{ .time_ns = 4000, .sector = 2048, .bytes = 8192, .opf = REQ_OP_WRITE | REQ_SYNC,
		  .pid = 7, .action = 'D', .comm = "dd" },
		{ .time_ns = 5000, .sector = 2048, .bytes = 8192, .opf = REQ_OP_WRITE | REQ_SYNC,
		  .pid = 0, .action = 'C', .comm = "swapper" },
		{ .time_ns = 6000, .sector = 10240, .bytes = 1 << 20, .opf = REQ_OP_READ,
		  .pid = 9, .action = 'A', .from_dev = MKDEV(8, 1), .extra = 8192, .comm = "cat" },
		{ .time_ns = 7000, .sector = 10240, .bytes = 1 << 20, .opf = REQ_OP_READ,
		  .pid = 9, .action = 'X', .extra = 10496, .comm = "cat" },
		{ .time_ns = 8000, .pid = 9, .action = 'U', .implicit = true, .extra = 2, .comm = "cat" },
		{ .time_ns = 1234567891, .sector = 10240, .bytes = 131072, .opf = REQ_OP_READ,
		  .pid = 0, .action = 'C', .error = -5, .comm = "swapper" },
	};
	struct blk_trace_event ring[ARRAY_SIZE(ev)];
	struct blk_trace bt = { .ev = ring, .size = ARRAY_SIZE(ev), .head = ARRAY_SIZE(ev) };
	static char bin[16384];
	char dir[] = "/tmp/spindle-blktrace-XXXXXX", path[128], cmd[256], want[160], got[256];
	size_t n;
	FILE *f;
	unsigned int i = 0;

	for (unsigned int k = 0; k < ARRAY_SIZE(ev); k++) {
		ring[k] = ev[k];
		ring[k].dev = MKDEV(8, 0);
	}
	n = blk_trace_binary(&bt, bin, sizeof(bin));
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_lt(blk_trace_binary(&bt, bin, 100), 100);       /* whole records only */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sda.blktrace.0", dir);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(bin, 1, n, f), n);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "blkparse -q -i sda -D %s 2>/dev/null", dir);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(got, sizeof(got), f)) {
		got[strcspn(got, "\n")] = '\0';
		if (!got[0] || strncmp(got, "Input file ", 11) == 0)
			continue;               /* blkparse's own note */
		ck_assert_msg(i < ARRAY_SIZE(ev), "blkparse printed more: %s", got);
		blk_trace_format(&bt, &ring[i], i + 1, want, sizeof(want));
		if (ring[i].error) {
			/* the record holds Linux's u16 -errno: blkparse prints -5 as 65531 */
			char *b = strrchr(want, '[');

			snprintf(b, want + sizeof(want) - b, "[%u]", (u16)ring[i].error);
		}
		ck_assert_msg(strcmp(got, want) == 0, "event %u:\nblkparse: %s\nSpindle:  %s", i + 1, got, want);
		i++;
	}
	ck_assert_int_eq(pclose(f), 0);
	ck_assert_uint_eq(i, ARRAY_SIZE(ev));
	unlink(path);
	rmdir(dir);
}
END_TEST

/* The events in a buffer of binary records (process notes skipped):
 * their sequence numbers into seq[], how many returned. */
static unsigned int trace_records_seq(const unsigned char *buf, size_t n, u32 *seq)
{
	unsigned int count = 0;
	size_t off = 0;

	while (off < n) {
		u32 sequence, action;
		u16 pdu_len;

		ck_assert_uint_ge(n - off, 48);         /* whole records only */
		memcpy(&sequence, buf + off + 4, 4);
		memcpy(&action, buf + off + 28, 4);
		memcpy(&pdu_len, buf + off + 46, 2);
		if (!(action & (1u << (10 + 16))))      /* not a BLK_TC_NOTIFY note */
			seq[count++] = sequence;
		off += 48 + pdu_len;
	}
	ck_assert_uint_eq(off, n);
	return count;
}

/*
 * debugfs's trace0 consumes, as Linux's relay channel: a read returns the
 * events no read has returned yet (whole records, as many as fit), the
 * next read only newer ones, an empty ring 0 bytes; events the ring
 * overwrote before a read are counted in dropped.
 */
START_TEST(trace_consume_returns_each_event_once)
{
	struct blk_trace_event ring[4] = { 0 };
	struct blk_trace bt = { .ev = ring, .size = ARRAY_SIZE(ring) };
	static unsigned char buf[4096];
	u32 seq[16];
	size_t n;

	spin_lock_init(&bt.lock);
	mutex_init(&bt.read_lock);
	for (unsigned int k = 0; k < ARRAY_SIZE(ring); k++) {
		ring[k] = (struct blk_trace_event){ .sector = 8 * k, .bytes = 4096, .opf = REQ_OP_WRITE,
						    .pid = 7, .action = 'Q', .comm = "dd",
						    .dev = MKDEV(8, 16) };
	}
	ck_assert_uint_eq(blk_trace_consume(&bt, buf, sizeof(buf)), 0);
	ck_assert(!blk_trace_unread(&bt));

	bt.head = 3;
	ck_assert(blk_trace_unread(&bt));
	/* room for the note and one event only: one event, the rest stays */
	n = blk_trace_consume(&bt, buf, 48 + 16 + 48 + 10);
	ck_assert_uint_eq(trace_records_seq(buf, n, seq), 1);
	ck_assert_uint_eq(seq[0], 1);
	n = blk_trace_consume(&bt, buf, sizeof(buf));
	ck_assert_uint_eq(trace_records_seq(buf, n, seq), 2);
	ck_assert_uint_eq(seq[0], 2);
	ck_assert_uint_eq(seq[1], 3);
	ck_assert_uint_eq(blk_trace_consume(&bt, buf, sizeof(buf)), 0);
	ck_assert(!blk_trace_unread(&bt));
	ck_assert_uint_eq(bt.dropped, 0);

	/* six more events in a ring of four: the first two are lost */
	bt.head = 9;
	n = blk_trace_consume(&bt, buf, sizeof(buf));
	ck_assert_uint_eq(trace_records_seq(buf, n, seq), 4);
	ck_assert_uint_eq(seq[0], 6);
	ck_assert_uint_eq(seq[3], 9);
	ck_assert_uint_eq(bt.dropped, 2);
	ck_assert_uint_eq(blk_trace_consume(&bt, buf, sizeof(buf)), 0);
}
END_TEST

/* --- hardware queues --------------------------------------------------------- */

/*
 * blk_mq_map_queues for 1..8 CPUs and 1..8 queues: every CPU gets a
 * queue that exists, and with no more queues than CPUs every queue gets
 * a CPU (none is left idle).
 */
START_TEST(map_queues_covers_cpus_and_queues)
{
	for (unsigned int cpus = 1; cpus <= NR_CPUS; cpus++)
		for (unsigned int queues = 1; queues <= 8; queues++)
			for (unsigned int offset = 0; offset <= 3; offset += 3) {
				struct blk_mq_queue_map m = { .nr_queues = queues, .queue_offset = offset };
				unsigned int used = 0;

				blk_mq_map_queues(&m);
				for (unsigned int cpu = 0; cpu < cpus; cpu++) {
					ck_assert_msg(m.mq_map[cpu] >= offset &&
						      m.mq_map[cpu] < offset + queues,
						      "%u CPUs, %u queues from %u: cpu %u -> %u",
						      cpus, queues, offset, cpu, m.mq_map[cpu]);
					used |= 1u << (m.mq_map[cpu] - offset);
				}
				if (queues <= cpus)
					ck_assert_msg(used == (1u << queues) - 1,
						      "%u CPUs, %u queues: used %#x", cpus, queues, used);
			}
}
END_TEST

/* Each CPU's request goes to its own hardware queue; sysfs says which. */
START_TEST(requests_go_to_their_cpus_hw_queue)
{
	char buf[128];

	nr_cpu_ids = 4;
	set.nr_hw_queues = 2;
	make_queue(4, 0, 1024, "none");
	ck_assert_uint_eq(q->nr_hw_queues, 2);
	for (unsigned int cpu = 0; cpu < 4; cpu++) {
		host_cpu = cpu;
		submit(REQ_OP_WRITE, 1000 * (cpu + 1), 4096);
	}
	ck_assert_int_eq(nr_queue_rq, 4);
	for (unsigned int i = 0; i < 4; i++)
		ck_assert_uint_eq(seen_hctx[i], i % 2);
	for (unsigned int h = 0; h < 2; h++)
		for (unsigned int cpu = 0; cpu < 4; cpu++)
			ck_assert_uint_eq(q->queue_hw_ctx[h]->dispatched[cpu], cpu % 2 == h);
	ck_assert_int_gt(blk_mq_hctx_show(q->queue_hw_ctx[0], "cpu_list", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0, 2\n");
	blk_mq_hctx_show(q->queue_hw_ctx[1], "cpu_list", buf, sizeof(buf));
	ck_assert_str_eq(buf, "1, 3\n");
	blk_mq_hctx_show(q->queue_hw_ctx[1], "nr_tags", buf, sizeof(buf));
	ck_assert_str_eq(buf, "4\n");
	blk_mq_hctx_show(q->queue_hw_ctx[1], "dispatched", buf, sizeof(buf));
	ck_assert_str_eq(buf, "cpu0 0\ncpu1 1\ncpu2 0\ncpu3 1\n");
	ck_assert_ptr_null(blk_mq_sysfs_hctx(disk->part[0], 2));
	complete_all();
	ck_assert_int_eq(ended_ok, 4);
}
END_TEST

/* Each hardware queue has its own tags: a full one does not hold back
 * another, and its waiting request goes when one of its own completes. */
START_TEST(each_hw_queue_has_its_own_tags)
{
	nr_cpu_ids = 2;
	set.nr_hw_queues = 2;
	make_queue(2, 0, 1024, "none");
	host_cpu = 0;
	for (int i = 0; i < 3; i++)
		submit(REQ_OP_READ, 100 * (i + 1), 4096);
	ck_assert_int_eq(nr_queue_rq, 2);               /* hctx 0 is full */
	host_cpu = 1;
	submit(REQ_OP_READ, 5000, 4096);
	ck_assert_int_eq(nr_queue_rq, 3);               /* hctx 1 is not */
	ck_assert_uint_eq(seen_hctx[2], 1);
	complete_oldest(BLK_STS_OK);                    /* one of hctx 0's */
	ck_assert_int_eq(nr_queue_rq, 4);
	ck_assert_uint_eq(seen_hctx[3], 0);
	ck_assert_uint_eq(seen_pos[3], 300);
	ck_assert_uint_eq(blk_mq_tags_peak(q), 2);
	ck_assert_uint_eq(q->queue_hw_ctx[0]->tags_busy, 2);
	ck_assert_uint_eq(q->queue_hw_ctx[1]->tags_busy, 1);
	complete_all();
	ck_assert_int_eq(ended_ok, 4);
	ck_assert_uint_eq(q->queue_hw_ctx[0]->tags_busy + q->queue_hw_ctx[1]->tags_busy, 0);
	ck_assert_uint_eq(blk_mq_tags_peak(q), 2);
}
END_TEST

/* Each hardware queue has its own requests (Linux's per-hctx tags): a
 * CPU that has used up its hctx's does not take another CPU's, and that
 * CPU still gets one. */
START_TEST(each_hw_queue_has_its_own_requests)
{
	nr_cpu_ids = 2;
	set.nr_hw_queues = 2;
	make_queue(2, 2, 1024, "none");
	host_cpu = 0;
	submit(REQ_OP_READ, 100, 4096);
	submit(REQ_OP_READ, 200, 4096);                 /* CPU 0's two requests */
	submit(REQ_OP_READ | REQ_NOWAIT, 300, 4096);
	ck_assert_int_eq(ended, 1);                     /* none left for CPU 0 */
	ck_assert_uint_eq(last_status, BLK_STS_AGAIN);
	host_cpu = 1;
	submit(REQ_OP_READ | REQ_NOWAIT, 5000, 4096);   /* CPU 1's are all free */
	ck_assert_int_eq(ended, 1);
	ck_assert_int_eq(nr_queue_rq, 3);
	ck_assert_uint_eq(seen_pos[2], 5000);
	ck_assert_uint_eq(seen_hctx[2], 1);
	complete_all();
	ck_assert_int_eq(ended_ok, 3);
}
END_TEST

/* With an elevator any hctx may dispatch any request, but a request goes
 * back to the pool it came from: after CPU 1's hctx sent CPU 0's
 * request, each pool is whole again once everything ended -- which a
 * freeze (an elevator switch) waits for. */
START_TEST(request_goes_back_to_its_own_pool)
{
	struct request *rq;

	nr_cpu_ids = 2;
	set.nr_hw_queues = 2;
	make_queue(1, 2, 1024, "mq-deadline");
	host_cpu = 0;
	submit(REQ_OP_READ, 100, 4096);                 /* hctx 0 sends it: full */
	submit(REQ_OP_READ, 200, 4096);                 /* waits in the elevator */
	ck_assert_uint_eq(q->queue_hw_ctx[0]->nr_free, 0);
	host_cpu = 1;
	submit(REQ_OP_READ, 9000, 4096);                /* hctx 1 runs: takes 200 */
	ck_assert_int_eq(nr_queue_rq, 2);
	ck_assert_uint_eq(seen_pos[1], 200);
	ck_assert_uint_eq(seen_hctx[1], 1);
	ck_assert_uint_eq(q->queue_hw_ctx[1]->nr_free, 1);
	rq = inflight[1];                               /* 200 ends first */
	ck_assert_uint_eq(blk_rq_pos(rq), 200);
	inflight[1] = inflight[--nr_inflight];
	blk_mq_complete_request(rq, BLK_STS_OK);
	blk_mq_run_completions();
	ck_assert_uint_eq(q->queue_hw_ctx[0]->nr_free, 1);  /* back home */
	ck_assert_uint_eq(q->queue_hw_ctx[1]->nr_free, 1);
	complete_all();
	ck_assert_int_eq(ended_ok, 3);
	for (unsigned int h = 0; h < 2; h++)
		ck_assert_uint_eq(q->queue_hw_ctx[h]->nr_free, 2);
	ck_assert_int_eq(elevator_switch(q, "none"), 0);  /* the freeze ends */
}
END_TEST

/* The default elevator follows the hardware queues the queue ended up
 * with (Linux's elevator_get_default): several get none, and eight asked
 * for on one CPU are capped to one, which gets mq-deadline. */
START_TEST(default_elevator_follows_hw_queues)
{
	char buf[64];

	nr_cpu_ids = 2;
	set.nr_hw_queues = 2;
	make_queue(4, 0, 1024, NULL);
	ck_assert_int_gt(elv_iosched_show(q, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "mq-deadline [none] cscan\n");
	ck_assert(q->sched_none);
}
END_TEST

START_TEST(default_elevator_one_hw_queue)
{
	char buf[64];

	nr_cpu_ids = 1;
	set.nr_hw_queues = 8;
	make_queue(4, 0, 1024, NULL);
	ck_assert_uint_eq(q->nr_hw_queues, 1);
	ck_assert_int_gt(elv_iosched_show(q, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "[mq-deadline] none cscan\n");
	ck_assert(!q->sched_none);
}
END_TEST

/* No more hardware queues than CPUs (as Linux); with an elevator, the
 * hctx that runs sends the request with its own tag. */
START_TEST(hw_queues_capped_and_elevator_shared)
{
	nr_cpu_ids = 2;
	set.nr_hw_queues = 8;
	make_queue(4, 0, 1024, "mq-deadline");
	ck_assert_uint_eq(q->nr_hw_queues, 2);
	host_cpu = 1;
	submit(REQ_OP_WRITE, 64, 4096);
	ck_assert_int_eq(nr_queue_rq, 1);
	ck_assert_uint_eq(seen_hctx[0], 1);
	complete_all();
	ck_assert_int_eq(ended_ok, 1);
}
END_TEST

/* --- poll queues ------------------------------------------------------------- */

/* The fake device's poll queue: every command in flight on hctx is done. */
static int polls;

static int fake_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	int found = 0;

	polls++;
	for (int i = 0; i < nr_inflight;) {
		struct request *rq = inflight[i];

		if (rq->mq_hctx != hctx) {
			i++;
			continue;
		}
		memmove(inflight + i, inflight + i + 1, (--nr_inflight - i) * sizeof(inflight[0]));
		if (!blk_mq_add_to_batch(rq, iob, BLK_STS_OK))
			blk_mq_complete_request(rq, BLK_STS_OK);
		found++;
	}
	return found;
}

static const struct blk_mq_ops fake_poll_ops = { .queue_rq = fake_queue_rq, .poll = fake_poll };

/* Two CPUs, two DEFAULT hardware queues (0, 1) and then @npoll POLL ones. */
static void make_poll_queue(unsigned int npoll)
{
	nr_cpu_ids = 2;
	set.nr_hw_queues = 2 + npoll;
	set.nr_maps = HCTX_MAX_TYPES;
	set.map[HCTX_TYPE_DEFAULT].nr_queues = 2;
	set.map[HCTX_TYPE_READ].queue_offset = 2;
	set.map[HCTX_TYPE_POLL].nr_queues = npoll;
	set.map[HCTX_TYPE_POLL].queue_offset = 2;
	make_queue(4, 0, 1024, "none");
	q->tag_set->ops = &fake_poll_ops;
}

static struct bio *submit_polled(unsigned int op, sector_t sector, unsigned int bytes)
{
	struct bio *bio = bio_alloc(GFP_NOIO, 1);

	bio->bi_disk = disk;
	bio->bi_iter.bi_sector = sector;
	bio->bi_opf = op | REQ_POLLED;
	bio->bi_end_io = count_end;
	bio_add_page(bio, data_pages, bytes, 0);
	bio_get(bio);                           /* the poller looks at it after its end */
	submit_bio(bio);
	return bio;
}

/*
 * Linux's layout: DEFAULT queues first, then POLL ones; a CPU has one of
 * each.  A polled bio goes to this CPU's POLL queue, the rest to its
 * DEFAULT one; sysfs's cpu_list and type say so.
 */
START_TEST(polled_bio_goes_to_the_poll_queue)
{
	struct bio *bio;
	char buf[64];

	make_poll_queue(2);
	ck_assert(blk_mq_can_poll(q));
	ck_assert_uint_eq(q->nr_hw_queues, 4);
	host_cpu = 1;
	bio = submit_polled(REQ_OP_READ, 8, 4096);
	submit(REQ_OP_READ, 800, 4096);
	ck_assert_int_eq(nr_queue_rq, 2);
	ck_assert_uint_eq(seen_hctx[0], 3);             /* CPU 1's poll queue */
	ck_assert(seen_flags[0] & REQ_POLLED);
	ck_assert_uint_eq(seen_hctx[1], 1);             /* CPU 1's default queue */
	ck_assert_uint_eq(bio->bi_cookie, 3);
	ck_assert_uint_eq(q->queue_hw_ctx[3]->dispatched[1], 1);
	blk_mq_hctx_show(q->queue_hw_ctx[3], "type", buf, sizeof(buf));
	ck_assert_str_eq(buf, "poll\n");
	blk_mq_hctx_show(q->queue_hw_ctx[1], "type", buf, sizeof(buf));
	ck_assert_str_eq(buf, "default\n");
	blk_mq_hctx_show(q->queue_hw_ctx[2], "cpu_list", buf, sizeof(buf));
	ck_assert_str_eq(buf, "0\n");
	blk_mq_hctx_show(q->queue_hw_ctx[3], "cpu_list", buf, sizeof(buf));
	ck_assert_str_eq(buf, "1\n");
	ck_assert_int_eq(bio_poll(bio, 0), 1);
	ck_assert_int_eq(ended_ok, 1);
	bio_put(bio);
	complete_all();
	ck_assert_int_eq(ended_ok, 2);
}
END_TEST

/*
 * A polled request that the device completed is not ended by kblockd
 * (nobody would then be woken: the submitter spins), but by the next
 * poll of its queue -- and by any poller of that queue.
 */
START_TEST(polled_request_ends_only_when_polled)
{
	struct bio *bio;

	make_poll_queue(1);
	host_cpu = 0;
	bio = submit_polled(REQ_OP_WRITE, 16, 4096);
	ck_assert_uint_eq(seen_hctx[0], 2);
	complete_oldest(BLK_STS_OK);    /* the device is done, kblockd runs ... */
	ck_assert_int_eq(ended, 0);     /* ... and leaves it to the poller */
	ck_assert_int_eq(blk_mq_poll(q, 0), 0);         /* a default queue is not polled */
	ck_assert_int_eq(ended, 0);
	ck_assert_int_eq(bio_poll(bio, 0), 1);
	ck_assert_int_eq(ended_ok, 1);
	ck_assert_int_eq(blk_mq_poll(q, 2), 0);         /* nothing more */
	bio_put(bio);
}
END_TEST

/* Both CPUs share the one poll queue; one poller ends the other's too. */
START_TEST(one_poll_queue_serves_two_cpus)
{
	struct bio *a, *b;

	make_poll_queue(1);
	host_cpu = 0;
	a = submit_polled(REQ_OP_READ, 0, 4096);
	host_cpu = 1;
	b = submit_polled(REQ_OP_READ, 64, 4096);
	ck_assert_uint_eq(seen_hctx[0], 2);
	ck_assert_uint_eq(seen_hctx[1], 2);
	ck_assert_int_eq(bio_poll(b, 0), 2);
	ck_assert_int_eq(ended_ok, 2);
	ck_assert_int_eq(bio_poll(a, 0), 0);
	bio_put(a);
	bio_put(b);
}
END_TEST

/*
 * A queue without poll queues, or a bio that must be split, or a flush:
 * REQ_POLLED is cleared on the way down (as Linux), the request goes to
 * a DEFAULT queue and completes as any other; bio_poll finds nothing.
 */
START_TEST(polled_flag_cleared_where_it_cannot_be_polled)
{
	struct bio *bio;

	nr_cpu_ids = 2;
	set.nr_hw_queues = 2;
	make_queue(4, 0, 1024, "none");
	ck_assert(!blk_mq_can_poll(q));
	bio = submit_polled(REQ_OP_READ, 8, 4096);
	ck_assert_int_eq(nr_queue_rq, 1);
	ck_assert(!(seen_flags[0] & REQ_POLLED));
	ck_assert(!(bio->bi_opf & REQ_POLLED));
	ck_assert_int_eq(bio_poll(bio, 0), 0);
	complete_oldest(BLK_STS_OK);
	ck_assert_int_eq(ended_ok, 1);
	bio_put(bio);
}
END_TEST

START_TEST(polled_bio_split_or_fua_is_not_polled)
{
	struct bio *bio = bio_alloc(GFP_NOIO, 4);

	make_poll_queue(1);
	blk_queue_max_hw_sectors(q, 16);                /* 8 KiB: a 16 KiB bio splits */
	for (int i = 0; i < 4; i++)
		bio_add_page(bio, data_pages + i, PAGE_SIZE, 0);
	bio->bi_disk = disk;
	bio->bi_iter.bi_sector = 64;
	bio->bi_opf = REQ_OP_READ | REQ_POLLED;
	bio->bi_end_io = count_end;
	bio_get(bio);
	submit_bio(bio);
	ck_assert_int_eq(nr_queue_rq, 2);
	ck_assert(!(seen_flags[0] & REQ_POLLED) && !(seen_flags[1] & REQ_POLLED));
	ck_assert_uint_eq(seen_hctx[0], 0);             /* CPU 0's default queue */
	ck_assert_uint_eq(seen_hctx[1], 0);
	ck_assert(!(bio->bi_opf & REQ_POLLED));        /* its submitter sleeps */
	complete_all();
	ck_assert_int_eq(ended_ok, 1);                  /* the parent, once */
	bio_put(bio);
	blk_queue_max_hw_sectors(q, 1024);
	blk_queue_write_cache(q, true, true);           /* else FUA is dropped */
	bio = submit_polled(REQ_OP_WRITE | REQ_FUA, 8, 4096);
	ck_assert(!(bio->bi_opf & REQ_POLLED));
	ck_assert_int_eq(bio_poll(bio, 0), 0);
	complete_all();
	ck_assert_int_eq(ended_ok, 2);
	bio_put(bio);
}
END_TEST

/* Maps must lie end to end and cover nr_hw_queues: else no queue. */
START_TEST(bad_queue_maps_are_refused)
{
	nr_cpu_ids = 2;
	set.ops = &fake_poll_ops;
	set.queue_depth = 4;
	set.nr_hw_queues = 4;
	set.nr_maps = HCTX_MAX_TYPES;
	set.map[HCTX_TYPE_DEFAULT].nr_queues = 2;
	set.map[HCTX_TYPE_POLL].nr_queues = 2;
	set.map[HCTX_TYPE_POLL].queue_offset = 3;       /* a gap */
	ck_assert_ptr_null(blk_mq_init_queue(&set));
	set.map[HCTX_TYPE_POLL].queue_offset = 2;
	set.map[HCTX_TYPE_POLL].nr_queues = 1;          /* one short */
	ck_assert_ptr_null(blk_mq_init_queue(&set));
	set.map[HCTX_TYPE_POLL].nr_queues = 2;
	ck_assert_ptr_nonnull(blk_mq_init_queue(&set));
}
END_TEST

/*
 * rq_affinity: a request submitted on CPU 1 whose interrupt comes to CPU 0
 * ends on CPU 0 (0), or back on CPU 1 (2, and 1 as host CPUs share no
 * cache) -- on the list of the kblockd there, which blk_mq_run_completions()
 * on that CPU empties.
 */
static int ended_on_cpu(unsigned int affinity)
{
	int before = ended;

	q->rq_affinity = affinity;
	host_cpu = 1;
	submit(REQ_OP_READ, 8 * affinity, 4096);
	ck_assert_int_eq(nr_inflight, 1);
	host_cpu = 0;                   /* the interrupt */
	blk_mq_complete_request(inflight[--nr_inflight], BLK_STS_OK);
	for (unsigned int cpu = 0; cpu < 2; cpu++) {
		host_cpu = cpu;
		blk_mq_run_completions();
		if (ended != before)
			return (int)cpu;
	}
	return -1;
}

START_TEST(rq_affinity_picks_the_completing_cpu)
{
	nr_cpu_ids = 2;
	__cpu_online_mask.bits = 3;
	make_queue(4, 0, 1024, "none");
	ck_assert_uint_eq(q->rq_affinity, 1);           /* Linux's default */
	blk_mq_start_kblockd();                         /* one "thread" per CPU */
	ck_assert_int_eq(ended_on_cpu(0), 0);
	ck_assert_int_eq(ended_on_cpu(1), 1);
	ck_assert_int_eq(ended_on_cpu(2), 1);
	ck_assert_int_eq(ended_ok, 3);
	__cpu_online_mask.bits = 1;
}
END_TEST

/* --- lab 8: the map and the software queues ------------------------------------ */

/*
 * blk_mq_map_queues for every number of CPUs (nr_cpu_ids) and queues up
 * to NR_CPUS, into a map full of garbage: every entry of the map (all
 * NR_CPUS of them, so that it is never read out of range) names a queue
 * that exists; CPU n gets queue n while queues last (Linux's order, which
 * /sys/block/<disk>/mq/<n>/cpu_list shows); and over the CPUs there are,
 * each queue gets cpus/queues of them, rounded down or up.
 */
START_TEST(map_queues_spread_evenly)
{
	for (unsigned int queues = 1; queues <= NR_CPUS; queues++)
		for (unsigned int cpus = queues; cpus <= NR_CPUS; cpus++) {
			struct blk_mq_queue_map ts = { .nr_queues = queues };
			unsigned int per_queue[NR_CPUS] = { 0 };

			nr_cpu_ids = cpus;
			memset(ts.mq_map, 0xff, sizeof(ts.mq_map));
			blk_mq_map_queues(&ts);
			for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
				ck_assert_msg(ts.mq_map[cpu] < queues,
					      "%u CPUs, %u queues: CPU %u -> %d: no such queue "
					      "(left unmapped?)",
					      cpus, queues, cpu, (int)ts.mq_map[cpu]);
			for (unsigned int cpu = 0; cpu < queues; cpu++)
				ck_assert_msg(ts.mq_map[cpu] == cpu,
					      "%u CPUs, %u queues: CPU %u -> queue %u, want %u "
					      "(CPU n -> queue n while queues last)",
					      cpus, queues, cpu, ts.mq_map[cpu], cpu);
			for (unsigned int cpu = 0; cpu < cpus; cpu++)
				per_queue[ts.mq_map[cpu]]++;
			for (unsigned int h = 0; h < queues; h++)
				ck_assert_msg(per_queue[h] == cpus / queues ||
						      per_queue[h] == (cpus + queues - 1) / queues,
					      "%u CPUs, %u queues: queue %u has %u CPUs, want %u or %u",
					      cpus, queues, h, per_queue[h], cpus / queues,
					      (cpus + queues - 1) / queues);
		}
}
END_TEST

/* One hardware queue (or a map whose nr_queues is 0): every
 * CPU sends to queue 0. */
START_TEST(map_queues_one_queue)
{
	for (unsigned int nr = 0; nr <= 1; nr++) {
		struct blk_mq_queue_map ts = { .nr_queues = nr };

		nr_cpu_ids = 4;
		memset(ts.mq_map, 0xff, sizeof(ts.mq_map));
		blk_mq_map_queues(&ts);
		for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
			ck_assert_msg(ts.mq_map[cpu] == 0, "nr_queues %u: CPU %u -> %d, want 0",
				      nr, cpu, (int)ts.mq_map[cpu]);
	}
}
END_TEST

/* More queues than CPUs (blk_mq_init_queue caps them, the map itself
 * must still be sound): each CPU its own queue, CPU n queue n. */
START_TEST(map_queues_more_queues_than_cpus)
{
	for (unsigned int queues = 3; queues <= NR_CPUS; queues++) {
		struct blk_mq_queue_map ts = { .nr_queues = queues };

		nr_cpu_ids = 2;
		memset(ts.mq_map, 0xff, sizeof(ts.mq_map));
		blk_mq_map_queues(&ts);
		for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
			ck_assert_msg(ts.mq_map[cpu] < queues, "%u queues: CPU %u -> %d: no such queue",
				      queues, cpu, (int)ts.mq_map[cpu]);
		ck_assert_msg(ts.mq_map[0] == 0 && ts.mq_map[1] == 1,
			      "2 CPUs, %u queues: CPU 0 -> %u, CPU 1 -> %u; want 0 and 1",
			      queues, ts.mq_map[0], ts.mq_map[1]);
	}
}
END_TEST

/* A map that starts at queue_offset (the POLL map after the DEFAULT
 * queues): the same spread, counted from there. */
START_TEST(map_queues_from_queue_offset)
{
	struct blk_mq_queue_map ts = { .nr_queues = 2, .queue_offset = 3 };

	nr_cpu_ids = 4;
	memset(ts.mq_map, 0xff, sizeof(ts.mq_map));
	blk_mq_map_queues(&ts);
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		ck_assert_msg(ts.mq_map[cpu] == 3 + cpu % 2,
			      "queues 3 and 4: CPU %u -> %d, want %u", cpu, (int)ts.mq_map[cpu],
			      3 + cpu % 2);
}
END_TEST

/* Two CPUs, two hardware queues of `depth` tags each, the elevator none. */
static void make_two_queues(unsigned int depth)
{
	nr_cpu_ids = 2;
	set.nr_hw_queues = 2;
	make_queue(depth, 0, 1024, "none");
	ck_assert_uint_eq(q->nr_hw_queues, 2);
}

/* A plug attached by hand (blk_start_plug belongs to lab 3): requests
 * made while it is current->plug wait on it until
 * blk_mq_flush_plug_list(). */
static void hand_plug(struct blk_plug *plug)
{
	plug->magic = PLUG_MAGIC;
	INIT_LIST_HEAD(&plug->mq_list);
	INIT_LIST_HEAD(&plug->cb_list);
	plug->rq_count = 0;
	current->plug = plug;
}

/*
 * A request that cannot go to the driver yet (its hctx's one tag is
 * taken) waits on the software queue of the CPU that submitted it -- not
 * another CPU's, not the hctx's dispatch list -- and goes through that
 * CPU's hctx when the tag is free.
 */
START_TEST(insert_on_submitting_cpus_ctx)
{
	make_two_queues(1);
	for (unsigned int cpu = 0; cpu < 2; cpu++) {
		host_cpu = cpu;
		submit(REQ_OP_WRITE, 8000 * (2 * cpu + 1), 4096); /* takes the tag */
		submit(REQ_OP_WRITE, 8000 * (2 * cpu + 2), 4096); /* must wait */
	}
	ck_assert_msg(nr_queue_rq == 2, "%d writes reached the driver, want 2: the first of "
					"each CPU, through its own hctx (one tag each)",
		      nr_queue_rq);
	for (unsigned int cpu = 0; cpu < 2; cpu++) {
		struct list_head *l = &q->queue_ctx[cpu].rq_list;

		ck_assert_msg(list_empty(&q->queue_hw_ctx[cpu]->dispatch),
			      "CPU %u's waiting request is on hctx %u's dispatch list, "
			      "not on its CPU's software queue",
			      cpu, cpu);
		ck_assert_msg(list_is_singular(l) &&
				      blk_rq_pos(list_first_entry(l, struct request, queuelist)) ==
					      8000 * (2 * cpu + 2),
			      "ctx %u does not hold exactly CPU %u's waiting write", cpu, cpu);
	}
	complete_all();
	ck_assert_int_eq(ended_ok, 4);
	for (unsigned int h = 0; h < 2; h++)
		for (unsigned int cpu = 0; cpu < 2; cpu++)
			ck_assert_msg(q->queue_hw_ctx[h]->dispatched[cpu] == (h == cpu ? 2u : 0u),
				      "hctx %u dispatched %lu requests of CPU %u, want %u", h,
				      q->queue_hw_ctx[h]->dispatched[cpu], cpu, h == cpu ? 2 : 0);
}
END_TEST

/*
 * A task makes a request on CPU 1 and parks it on its plug, then moves
 * to CPU 0, where schedule() flushes the plug (from_schedule: no direct
 * issue, the request is inserted): the request still goes to the ctx it
 * was made on, CPU 1's, and through hctx 1 -- the hctx whose tag it must
 * give back.
 */
START_TEST(insert_on_the_ctx_the_request_was_made_on)
{
	struct blk_plug plug;

	make_two_queues(4);
	hand_plug(&plug);
	host_cpu = 1;
	submit(REQ_OP_WRITE, 8000, 4096);
	ck_assert_int_eq(nr_queue_rq, 0); /* on the plug */
	host_cpu = 0;
	blk_mq_flush_plug_list(&plug, true);
	current->plug = NULL;
	ck_assert_int_eq(nr_queue_rq, 1);
	ck_assert_msg(q->queue_hw_ctx[1]->dispatched[1] == 1 && q->queue_hw_ctx[0]->dispatched[1] == 0,
		      "made on CPU 1, flushed on CPU 0: hctx 0 sent %lu, hctx 1 %lu; want 0 and 1",
		      q->queue_hw_ctx[0]->dispatched[1], q->queue_hw_ctx[1]->dispatched[1]);
	complete_all();
	ck_assert_int_eq(ended_ok, 1);
	ck_assert_msg(!q->queue_hw_ctx[0]->tags_used && !q->queue_hw_ctx[1]->tags_used,
		      "tags left in use: hctx 0 %#llx, hctx 1 %#llx",
		      (unsigned long long)q->queue_hw_ctx[0]->tags_used,
		      (unsigned long long)q->queue_hw_ctx[1]->tags_used);
}
END_TEST

/* An idle queue: a request inserted on a ctx must have its hctx run, so
 * that it reaches the driver at once (else it waits until some other
 * request's completion runs that hctx -- forever, here). */
START_TEST(insert_runs_the_hctx)
{
	make_two_queues(4);
	for (unsigned int cpu = 0; cpu < 2; cpu++) {
		host_cpu = cpu;
		submit(REQ_OP_READ, 8000 * (cpu + 1), 4096);
		ck_assert_msg(nr_queue_rq == (int)cpu + 1,
			      "CPU %u's read waits on ctx %u: hctx %u was never run", cpu, cpu, cpu);
		ck_assert_uint_eq(seen_hctx[cpu], cpu);
	}
	complete_all();
	ck_assert_int_eq(ended_ok, 2);
}
END_TEST

/* A software queue is a FIFO: requests waiting on it go in the order
 * they were submitted (blk_mq_dequeue_from_ctx takes the oldest). */
START_TEST(insert_at_the_tail)
{
	static const sector_t pos[] = { 8000, 16000, 24000, 32000, 40000 };

	make_two_queues(1);
	host_cpu = 1;
	for (unsigned int i = 0; i < ARRAY_SIZE(pos); i++)
		submit(REQ_OP_WRITE, pos[i], 4096);
	ck_assert_int_eq(nr_queue_rq, 1);
	complete_all();
	ck_assert_int_eq(nr_queue_rq, (int)ARRAY_SIZE(pos));
	for (unsigned int i = 0; i < ARRAY_SIZE(pos); i++)
		ck_assert_msg(seen_pos[i] == pos[i],
			      "dispatch %u was sector %llu, want %llu (submitted in that order)",
			      i, (unsigned long long)seen_pos[i], (unsigned long long)pos[i]);
}
END_TEST

/*
 * The insertion takes the ctx's own lock.  The test holds ctx 1's lock
 * on CPU 1 -- as a submitter on CPU 1 would while it looks for a merge
 * there -- and flushes a plugged request made on CPU 1, on CPU 1: an
 * insertion that takes that lock finds it already held by its own CPU,
 * which Spindle's spinlock debugging reports as a recursion (a panic,
 * abort(): SIGABRT, in a child process of the test's).  An insertion
 * without the lock, or under another one (the hctx's, the queue's),
 * links the request into a list another holder may be changing, and
 * returns.  hctx 1's only tag is taken, so that running it does not
 * touch the ctx.
 */
START_TEST(insert_takes_the_ctx_lock)
{
	struct blk_plug plug;
	int status;
	pid_t pid;

	make_two_queues(1);
	host_cpu = 1;
	submit(REQ_OP_WRITE, 8000, 4096); /* in flight */
	hand_plug(&plug);
	submit(REQ_OP_WRITE, 16000, 4096);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		spin_lock(&q->queue_ctx[1].lock);
		blk_mq_flush_plug_list(&plug, false);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
		      "the test held ctx 1's lock, yet the request went onto ctx 1's list "
		      "(the insertion %s): it does not take the ctx's lock",
		      WIFEXITED(status) ? "returned" : "died another way");
}
END_TEST

/* --- direct issue of a flushed plug ---------------------------------------- */

static unsigned int list_length(const struct list_head *head)
{
	unsigned int n = 0;

	for (const struct list_head *p = head->next; p != head; p = p->next)
		n++;
	return n;
}

/* Flush a plug while CPU 1's ctx lock is held, in a child: 0 if the flush
 * returned, else the signal that ended it (SIGABRT: the ctx lock was
 * taken again -- the requests went through the software queue). */
static int flush_holding_ctx_lock(struct blk_plug *plug, bool from_schedule,
				  const sector_t *want, unsigned int n_want)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		spin_lock(&q->queue_ctx[1].lock);
		blk_mq_flush_plug_list(plug, from_schedule);
		if (nr_queue_rq != (int)n_want)
			_exit(2);
		for (unsigned int i = 0; i < n_want; i++)
			if (seen_pos[i] != want[i])
				_exit(3);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		return WTERMSIG(status);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the flush returned, but the driver got %s",
		      WEXITSTATUS(status) == 2 ? "another number of requests"
					       : "them in another order than the plug's");
	return 0;
}

/*
 * A plug holding requests of one queue whose elevator is "none", flushed
 * by its task (not from schedule()), goes to the driver directly, in the
 * plug's order (Linux's blk_mq_plug_issue_direct): no software queue, so
 * the ctx's lock -- held here by the test -- is never taken.
 */
START_TEST(plug_of_one_queue_is_issued_directly)
{
	static const sector_t pos[] = { 40000, 8000, 24000 };
	struct blk_plug plug;
	int sig;

	make_two_queues(4);
	host_cpu = 1;
	hand_plug(&plug);
	for (unsigned int i = 0; i < ARRAY_SIZE(pos); i++)
		submit(REQ_OP_WRITE, pos[i], 4096);
	ck_assert_int_eq(nr_queue_rq, 0);
	sig = flush_holding_ctx_lock(&plug, false, pos, ARRAY_SIZE(pos));
	ck_assert_msg(sig == 0, "the plug's requests went through ctx 1 (signal %d with its "
				"lock held): not issued directly", sig);
}
END_TEST

/* From schedule() the plug is inserted, not issued: the task is going to
 * sleep, and the queue sends the batch (Linux does the same). */
START_TEST(plug_flushed_from_schedule_is_inserted)
{
	static const sector_t pos[] = { 8000 };
	struct blk_plug plug;

	make_two_queues(4);
	host_cpu = 1;
	hand_plug(&plug);
	submit(REQ_OP_WRITE, pos[0], 4096);
	ck_assert_msg(flush_holding_ctx_lock(&plug, true, pos, 1) == SIGABRT,
		      "a plug flushed from schedule() did not go through the software queue");
}
END_TEST

/* Two hardware queues of @depth tags; on CPU 1, writes at @pos under a
 * hand-attached plug, not yet flushed. */
static void plugged_writes(struct blk_plug *plug, unsigned int depth, const sector_t *pos,
			   unsigned int n)
{
	make_two_queues(depth);
	host_cpu = 1;
	hand_plug(plug);
	for (unsigned int i = 0; i < n; i++)
		submit(REQ_OP_WRITE, pos[i], 4096);
}

/* The plug flushed by its task (not from schedule()), and detached. */
static void flush_by_task(struct blk_plug *plug)
{
	blk_mq_flush_plug_list(plug, false);
	current->plug = NULL;
}

/*
 * More requests than free tags: the first go directly, the rest wait on
 * the ctx they were made on, and all reach the driver in the plug's order.
 */
START_TEST(plug_direct_issue_falls_back_in_order)
{
	static const sector_t pos[] = { 40000, 8000, 32000, 16000, 24000 };
	struct blk_plug plug;

	plugged_writes(&plug, 2, pos, ARRAY_SIZE(pos));
	flush_by_task(&plug);
	ck_assert_int_eq(nr_queue_rq, 2);
	ck_assert_msg(list_length(&q->queue_ctx[1].rq_list) == 3,
		      "the 3 requests without a tag are not waiting on ctx 1");
	complete_all();
	ck_assert_int_eq(nr_queue_rq, (int)ARRAY_SIZE(pos));
	for (unsigned int i = 0; i < ARRAY_SIZE(pos); i++)
		ck_assert_msg(seen_pos[i] == pos[i], "dispatch %u was sector %llu, want %llu "
				"(the plug's order)", i, (unsigned long long)seen_pos[i],
			      (unsigned long long)pos[i]);
	ck_assert_int_eq(ended_ok, (int)ARRAY_SIZE(pos));
}
END_TEST

/*
 * The driver is full (BLK_STS_RESOURCE) at the plug's first request: it
 * waits on the hctx's dispatch list, the others behind it on the ctx, and
 * a restart sends all three in the plug's order.
 */
START_TEST(plug_direct_issue_busy_driver_keeps_order)
{
	static const sector_t pos[] = { 40000, 8000, 24000 };
	struct blk_plug plug;

	plugged_writes(&plug, 4, pos, ARRAY_SIZE(pos));
	busy_calls = 1;
	flush_by_task(&plug);
	ck_assert_int_eq(nr_queue_rq, 0);
	ck_assert_msg(list_is_singular(&q->queue_hw_ctx[1]->dispatch),
		      "the request the driver refused is not on hctx 1's dispatch list");
	blk_mq_restart_hw_queue(q);
	blk_mq_run_restarts();
	complete_all();
	ck_assert_int_eq(nr_queue_rq, (int)ARRAY_SIZE(pos));
	for (unsigned int i = 0; i < ARRAY_SIZE(pos); i++)
		ck_assert_msg(seen_pos[i] == pos[i], "dispatch %u was sector %llu, want %llu",
			      i, (unsigned long long)seen_pos[i], (unsigned long long)pos[i]);
}
END_TEST

/*
 * bd->last: a plug's batch tells the driver which request is its last, so
 * that a driver with a doorbell rings it once (Linux's bd->last); none
 * needs commit_rqs().
 */
START_TEST(plug_batch_marks_only_its_last)
{
	static const sector_t pos[] = { 40000, 8000, 24000 };
	struct blk_plug plug;

	plugged_writes(&plug, 4, pos, ARRAY_SIZE(pos));
	flush_by_task(&plug);
	ck_assert_int_eq(nr_queue_rq, 3);
	for (unsigned int i = 0; i < 3; i++)
		ck_assert_msg(seen_last[i] == (i == 2), "request %u of a batch of 3 went with "
			      "bd->last %d: only the last may say so (the doorbell would be "
			      "rung %s)", i, seen_last[i], seen_last[i] ? "early" : "never");
	ck_assert_msg(nr_commit == 0, "%d commit_rqs() calls after a batch whose last went",
		      nr_commit);
}
END_TEST

/*
 * A batch cut short -- two tags for three requests -- sent its two with
 * bd->last false: commit_rqs() on their hctx tells the driver, once.
 */
START_TEST(plug_batch_cut_short_is_committed)
{
	static const sector_t pos[] = { 40000, 8000, 24000 };
	struct blk_plug plug;

	plugged_writes(&plug, 2, pos, ARRAY_SIZE(pos));
	flush_by_task(&plug);
	ck_assert_int_eq(nr_queue_rq, 2);
	ck_assert_msg(!seen_last[0] && !seen_last[1], "the two that went said bd->last %d, %d",
		      seen_last[0], seen_last[1]);
	ck_assert_msg(nr_commit == 1 && commit_hctx == 1, "%d commit_rqs() calls (the last on "
		      "hctx %u); want one, on hctx 1: the two sent would never be rung for",
		      nr_commit, commit_hctx);
	complete_all();
	ck_assert_int_eq(ended_ok, (int)ARRAY_SIZE(pos));
}
END_TEST

/*
 * A task that moved to another CPU while plugged has requests for two
 * hctxs in one batch: each hctx's last says bd->last, so each doorbell
 * is rung.
 */
START_TEST(plug_batch_last_per_hctx)
{
	struct blk_plug plug;

	make_two_queues(4);
	hand_plug(&plug);
	host_cpu = 1;
	submit(REQ_OP_WRITE, 40000, 4096);
	submit(REQ_OP_WRITE, 8000, 4096);
	host_cpu = 0;
	submit(REQ_OP_WRITE, 24000, 4096);
	submit(REQ_OP_WRITE, 56000, 4096);
	flush_by_task(&plug);
	ck_assert_int_eq(nr_queue_rq, 4);
	for (unsigned int i = 0; i < 4; i++)
		ck_assert_msg(seen_hctx[i] == (i < 2 ? 1u : 0u) && seen_last[i] == (i % 2 == 1),
			      "request %u: hctx %u, bd->last %d; want hctx %u, last %d", i,
			      seen_hctx[i], seen_last[i], i < 2 ? 1 : 0, i % 2 == 1);
	ck_assert_int_eq(nr_commit, 0);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("BlkMq");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");
	TCase *flush = tcase_create("FlushDiscard");
	TCase *timeouts = tcase_create("Timeouts");
	TCase *hw = tcase_create("HwQueues");
	TCase *mq = tcase_create("MqLocking");
	TCase *poll = tcase_create("PollQueues");
	TCase *direct = tcase_create("PlugDirectIssue");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, plugged_sequential_bios_become_one_request);
	tcase_add_test(core, plug_front_merge);
	tcase_add_test(core, plug_merge_respects_limits);
	tcase_add_test(core, two_queues_on_one_plug);
	tcase_add_test(core, deadline_sorts_a_plugged_batch);
	tcase_add_test(core, elevator_back_merge_then_request_merge);
	tcase_add_test(core, split_to_max_sectors_completes_parent_once);
	suite_add_tcase(s, core);

	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(limits, merge_stops_at_max_sectors);
	tcase_add_loop_test(limits, no_merge_across_ops_and_flags, 0,
			    sizeof(no_merge) / sizeof(no_merge[0]));
	tcase_add_test(limits, queue_depth_is_respected);
	tcase_add_test(limits, busy_driver_gets_the_request_again);
	tcase_add_test(limits, nowait_without_free_request_is_again);
	suite_add_tcase(s, limits);

	tcase_add_checked_fixture(flush, setup, teardown);
	tcase_add_test(flush, fua_write_becomes_flush_write_flush);
	tcase_add_test(flush, fua_device_gets_fua);
	tcase_add_test(flush, failed_preflush_fails_the_write);
	tcase_add_test(flush, failed_flush_logs_one_line);
	tcase_add_test(flush, waiting_flushes_share_one_command);
	tcase_add_test(flush, no_write_cache_no_flushes);
	tcase_add_test(flush, discard_unsupported_fails_cleanly);
	tcase_add_test(flush, discard_split_to_the_device_limit);
	suite_add_tcase(s, flush);

	tcase_add_checked_fixture(timeouts, setup, teardown);
	tcase_add_test(timeouts, late_request_without_handler_times_out);
	tcase_add_test(timeouts, timeout_handler_resets_or_completes);
	tcase_add_test(timeouts, requeued_request_is_dispatched_again);
	tcase_add_test(timeouts, elevator_switch_when_idle);
	tcase_add_test(timeouts, elevator_switch_with_no_memory_keeps_the_old_one);
	tcase_add_test(timeouts, bench_needs_no_memory_per_io);
	tcase_add_test(timeouts, restart_runs_a_busy_queue);
	tcase_add_test(timeouts, rwbs_letters_as_linux);
	tcase_add_test(timeouts, trace_line_layout_as_blkparse);
	tcase_add_test(timeouts, binary_trace_reads_back_with_blkparse);
	tcase_add_test(timeouts, trace_consume_returns_each_event_once);
	suite_add_tcase(s, timeouts);

	tcase_add_checked_fixture(hw, setup, teardown);
	tcase_add_test(hw, map_queues_covers_cpus_and_queues);
	tcase_add_test(hw, requests_go_to_their_cpus_hw_queue);
	tcase_add_test(hw, each_hw_queue_has_its_own_tags);
	tcase_add_test(hw, each_hw_queue_has_its_own_requests);
	tcase_add_test(hw, request_goes_back_to_its_own_pool);
	tcase_add_test(hw, hw_queues_capped_and_elevator_shared);
	tcase_add_test(hw, default_elevator_follows_hw_queues);
	tcase_add_test(hw, default_elevator_one_hw_queue);
	tcase_add_test(hw, rq_affinity_picks_the_completing_cpu);
	suite_add_tcase(s, hw);

	tcase_add_checked_fixture(poll, setup, teardown);
	tcase_add_test(poll, polled_bio_goes_to_the_poll_queue);
	tcase_add_test(poll, polled_request_ends_only_when_polled);
	tcase_add_test(poll, one_poll_queue_serves_two_cpus);
	tcase_add_test(poll, polled_flag_cleared_where_it_cannot_be_polled);
	tcase_add_test(poll, polled_bio_split_or_fua_is_not_polled);
	tcase_add_test(poll, bad_queue_maps_are_refused);
	suite_add_tcase(s, poll);

	tcase_add_checked_fixture(mq, setup, teardown);
	tcase_add_test(mq, map_queues_spread_evenly);
	tcase_add_test(mq, map_queues_one_queue);
	tcase_add_test(mq, map_queues_more_queues_than_cpus);
	tcase_add_test(mq, map_queues_from_queue_offset);
	tcase_add_test(mq, insert_on_submitting_cpus_ctx);
	tcase_add_test(mq, insert_on_the_ctx_the_request_was_made_on);
	tcase_add_test(mq, insert_runs_the_hctx);
	tcase_add_test(mq, insert_at_the_tail);
	tcase_add_test(mq, insert_takes_the_ctx_lock);
	suite_add_tcase(s, mq);

	tcase_add_checked_fixture(direct, setup, teardown);
	tcase_add_test(direct, plug_of_one_queue_is_issued_directly);
	tcase_add_test(direct, plug_flushed_from_schedule_is_inserted);
	tcase_add_test(direct, plug_direct_issue_falls_back_in_order);
	tcase_add_test(direct, plug_direct_issue_busy_driver_keeps_order);
	tcase_add_test(direct, plug_batch_marks_only_its_last);
	tcase_add_test(direct, plug_batch_cut_short_is_committed);
	tcase_add_test(direct, plug_batch_last_per_hctx);
	suite_add_tcase(s, direct);
	return s;
}
