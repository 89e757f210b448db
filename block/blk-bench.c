// SPDX-License-Identifier: MIT
/*
 * blk-bench.c - a small load generator (fio's idea in miniature).
 *
 * It keeps `qd` bios of `bs` bytes in flight against a device: submit until
 * qd are out, sleep until one ends, submit the next, until `size` bytes
 * have moved.  Sequential loads walk the device from sector 0 (wrapping at
 * its end); random ones pick bs-aligned offsets with splitmix64.  Each
 * bio's latency is submit -> end_io.  The result reports IOPS, MB/s, the
 * mean and 99th-percentile latency, the merges the request layer made, and
 * how deep the queue got at the driver -- the number that shows NCQ at work.
 *
 * Each refill of the queue -- as many bios as there is room for -- is
 * submitted under one plug, as Linux's io_submit() does with a batch: at
 * qd 1 nothing can merge, at higher depths sequential bios merge on the
 * plug, and later in the elevator while requests wait for a tag.
 * randrw mixes reads and writes half and half (same seed, same mix).
 *
 * Performance is shown by running this, never asserted in a test: the
 * machines that run the tests are noisy.
 */
#include <spindle/blkdev.h>
#include <spindle/blk_mq.h>
#include <spindle/blk_bench.h>
#include <spindle/bio.h>
#include <spindle/blk_plug.h>
#include <spindle/wait.h>
#include <spindle/sched.h>
#include <spindle/time.h>
#include <spindle/mm.h>
#include <spindle/sort.h>
#include <spindle/pattern.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include "blk.h"

#define BENCH_MAX_QD        256
#define BENCH_MAX_BS        (1u << 20)
#define BENCH_MAX_SAMPLES   (1u << 16)      /* latencies kept for the p99 */

const char *const bench_rw_names[] = {
	[BENCH_READ] = "read", [BENCH_WRITE] = "write",
	[BENCH_RANDREAD] = "randread", [BENCH_RANDWRITE] = "randwrite",
	[BENCH_RANDRW] = "randrw",
};

int bench_parse_rw(const char *s)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(bench_rw_names); i++)
		if (strcmp(s, bench_rw_names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

u64 bench_percentile(u64 *lat, size_t n, unsigned int pct)
{
	size_t rank;

	if (!n)
		return 0;
	sort(lat, n, sizeof(*lat), cmp_u64);
	rank = DIV_ROUND_UP(n * pct, 100);      /* 1-based nearest rank */
	return lat[rank ? rank - 1 : 0];
}

/*
 * One I/O in flight.  There are qd of them, made before the run and kept
 * on a free list: nothing is allocated per I/O, so the loop cannot meet a
 * failed allocation halfway (a run that cannot have its memory fails at
 * the start with -ENOMEM).
 */
struct bench_io {
	struct bench_ctx *ctx;
	u64 start;
	struct bench_io *next_free;
};

/* One run: what it loads, the memory it holds, what it has measured. */
struct bench_ctx {
	struct block_device *bdev;
	const struct bench_opts *o;
	u64 nr_blocks;                          /* of o->bs bytes on bdev */
	u64 total, submitted;                   /* bios: to send, sent */
	u64 rnd;                                /* splitmix64 state */
	struct page *data;                      /* 2^order pages, every bio's */
	unsigned int order;
	struct bench_io *ios;                   /* the qd of them */

	struct wait_queue_head wait;
	unsigned int inflight, inflight_max;
	u64 done, lat_sum;
	u64 *lat;                               /* first BENCH_MAX_SAMPLES */
	int error;
	struct bench_io *free_ios;              /* under wait.lock */
};

static bool bench_rw_writes(enum bench_rw rw)
{
	return rw == BENCH_WRITE || rw == BENCH_RANDWRITE || rw == BENCH_RANDRW;
}

static void bench_end_io(struct bio *bio)
{
	struct bench_io *io = bio->bi_private;
	struct bench_ctx *c = io->ctx;
	u64 lat = ktime_get_ns() - io->start;
	unsigned long flags;

	spin_lock_irqsave(&c->wait.lock, flags);
	if (bio->bi_status && !c->error)
		c->error = blk_status_to_errno(bio->bi_status);
	if (c->done < BENCH_MAX_SAMPLES)
		c->lat[c->done] = lat;
	c->done++;
	c->lat_sum += lat;
	c->inflight--;
	io->next_free = c->free_ios;
	c->free_ios = io;
	/* under the lock: c is on the waiter's stack (see wait.h) */
	__wake_up_locked(&c->wait);
	spin_unlock_irqrestore(&c->wait.lock, flags);
	bio_put(bio);
}

static u64 disk_merges(struct block_device *bdev)
{
	struct disk_stats st;

	part_stat_read_all(bdev->bd_disk->part[0], &st);
	return st.merges[STAT_READ] + st.merges[STAT_WRITE];
}

static bool bench_opts_valid(struct block_device *bdev, const struct bench_opts *o)
{
	unsigned int lbs = bdev->bd_disk->queue->limits.logical_block_size;

	return o->bs && o->bs % lbs == 0 && o->bs <= BENCH_MAX_BS && o->qd &&
	       o->qd <= BENCH_MAX_QD && o->size >= o->bs &&
	       (bdev_nr_sectors(bdev) << SECTOR_SHIFT) >= o->bs;
}

static void bench_free(struct bench_ctx *c)
{
	if (c->data)
		__free_pages(c->data, c->order);
	kfree(c->lat);
	kfree(c->ios);
}

/*
 * Everything the run needs, allocated before it starts: the data buffer
 * (one, shared by every bio: its contents do not matter), the latency
 * samples and the qd bench_ios on their free list.
 */
static int bench_setup(struct bench_ctx *c, struct block_device *bdev,
		       const struct bench_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->bdev = bdev;
	c->o = o;
	c->nr_blocks = (bdev_nr_sectors(bdev) << SECTOR_SHIFT) / o->bs;
	c->total = o->size / o->bs;
	c->rnd = o->seed;
	c->order = get_order(o->bs);
	c->data = alloc_pages(GFP_KERNEL, c->order);
	c->lat = kmalloc(min_t(u64, c->total, BENCH_MAX_SAMPLES) * sizeof(u64), GFP_KERNEL);
	c->ios = kcalloc(o->qd, sizeof(*c->ios), GFP_KERNEL);
	if (!c->data || !c->lat || !c->ios) {
		bench_free(c);
		return -ENOMEM;
	}
	for (u32 i = 0; i < o->qd; i++) {
		c->ios[i].ctx = c;
		c->ios[i].next_free = c->free_ios;
		c->free_ios = &c->ios[i];
	}
	if (bench_rw_writes(o->rw))
		memset(page_address(c->data), 0xa5, o->bs);
	init_waitqueue_head(&c->wait);
	return 0;
}

/* Build the next bio of the load, take a bench_io for it, submit it. */
static void bench_submit_one(struct bench_ctx *c)
{
	const struct bench_opts *o = c->o;
	struct bio *bio = bio_alloc(GFP_NOIO, (o->bs + PAGE_SIZE - 1) / PAGE_SIZE);
	bool random = o->rw >= BENCH_RANDREAD;
	u64 block = random ? splitmix64(c->rnd++) % c->nr_blocks : c->submitted % c->nr_blocks;
	bool w = o->rw == BENCH_RANDRW ? splitmix64(c->rnd++) & 1 : bench_rw_writes(o->rw);
	struct bench_io *io;

	bio_set_dev(bio, c->bdev);
	bio->bi_iter.bi_sector = block * (o->bs >> SECTOR_SHIFT);
	bio->bi_opf = w ? REQ_OP_WRITE : REQ_OP_READ;
	bio->bi_end_io = bench_end_io;
	for (u32 off = 0; off < o->bs; off += PAGE_SIZE)
		bio_add_page(bio, c->data + off / PAGE_SIZE, min_t(u32, PAGE_SIZE, o->bs - off), 0);
	spin_lock_irq(&c->wait.lock);
	io = c->free_ios;               /* fewer than qd in flight: never NULL */
	c->free_ios = io->next_free;
	c->inflight++;
	c->inflight_max = max(c->inflight_max, c->inflight);
	spin_unlock_irq(&c->wait.lock);
	io->start = ktime_get_ns();
	bio->bi_private = io;
	submit_bio(bio);
	c->submitted++;
}

/* Keep qd bios in flight until total have been submitted, then drain. */
static void bench_run(struct bench_ctx *c)
{
	while (c->submitted < c->total) {
		struct blk_plug plug;
		unsigned int room;

		/* refill the queue: everything that fits goes under one plug,
		 * as Linux's io_submit() does with a batch */
		wait_event(c->wait, READ_ONCE(c->inflight) < c->o->qd);
		room = c->o->qd - READ_ONCE(c->inflight);
		blk_start_plug(&plug);
		while (room-- && c->submitted < c->total)
			bench_submit_one(c);
		blk_finish_plug(&plug);
	}
	wait_event(c->wait, READ_ONCE(c->inflight) == 0);
}

int blk_bench(struct block_device *bdev, const struct bench_opts *o, struct bench_result *r)
{
	struct request_queue *q = bdev->bd_disk->queue;
	struct bench_ctx c;
	u64 start, merges0;
	int err;

	memset(r, 0, sizeof(*r));
	if (!bench_opts_valid(bdev, o))
		return -EINVAL;
	err = bench_setup(&c, bdev, o);
	if (err)
		return err;
	if (q->tag_set)
		blk_mq_reset_tags_peak(q);
	merges0 = disk_merges(bdev);
	start = ktime_get_ns();

	bench_run(&c);

	r->ns = ktime_get_ns() - start;
	r->ios = c.done;
	r->lat_avg_ns = c.done ? c.lat_sum / c.done : 0;
	r->lat_p99_ns = bench_percentile(c.lat, min_t(u64, c.done, BENCH_MAX_SAMPLES), 99);
	r->merges = disk_merges(bdev) - merges0;
	r->max_inflight = q->tag_set ? blk_mq_tags_peak(q) : c.inflight_max;
	r->error = c.error;
	bench_free(&c);
	return 0;
}
