// SPDX-License-Identifier: MIT
/*
 * blk-boot.c - the block layer's boot-time actions, for tests and labs:
 *
 *   show=partitions,diskstats,vmstat  print the file(s), each after a header
 *                                "==> /proc/<file> <==" as tail(1) does;
 *                                show=blktrace prints the events of every
 *                                disk named by blktrace= (block/blk-trace.c)
 *   pattern=write:<dev>:<off>:<len>:<seed>
 *   pattern=verify:<dev>:<off>:<len>:<seed>
 *                                write or check the verification pattern over a
 *                                byte range (multiples of 512; K/M/G
 *                                suffixes), printing
 *                                "PATTERN <op> <dev> <off> <len> OK" or
 *                                "... FAIL: <first bad byte offset or error>"
 *
 *   bench=<dev>:<rw>:<bs>:<qd>:<size>
 *                                run the load generator (block/blk-bench.c):
 *                                rw is read|write|randread|randwrite; prints
 *                                "BENCH dev=.. rw=.. bs=.. qd=.. iops=..
 *                                MBps=.. lat_avg_us=.. lat_p99_us=..
 *                                merges=.. max_inflight=.."
 *
 * The options are recorded in command-line order while it is parsed and
 * run in that order by a late_initcall, once every driver has registered
 * its disks.  The I/O goes through submit_bio() like any other.
 */
#include <spindle/blkdev.h>
#include <spindle/pattern.h>
#include <spindle/init.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/blk_plug.h>
#include <spindle/wait.h>
#include <spindle/blk_bench.h>
#include <spindle/blktrace.h>
#include <spindle/time.h>
#include "blk.h"

#define ACTION_ARG_LEN   128

enum action_kind { ACTION_SHOW, ACTION_PATTERN, ACTION_BENCH };

struct boot_action {
	struct list_head list;
	enum action_kind kind;
	char arg[ACTION_ARG_LEN];
};

static LIST_HEAD(boot_actions);

static int record(enum action_kind kind, const char *val)
{
	struct boot_action *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return -ENOMEM;
	a->kind = kind;
	strlcpy(a->arg, val, sizeof(a->arg));
	list_add_tail(&a->list, &boot_actions);
	return 0;
}

static int __init show_setup(const char *val) { return record(ACTION_SHOW, val); }
__setup("show=", show_setup);
static int __init pattern_setup(const char *val) { return record(ACTION_PATTERN, val); }
__setup("pattern=", pattern_setup);
static int __init bench_setup(const char *val) { return record(ACTION_BENCH, val); }
__setup("bench=", bench_setup);

static void show_file(const char *name)
{
	static char buf[8192];

	if (strcmp(name, "partitions") == 0) {
		blk_show_partitions(buf, sizeof(buf));
	} else if (strcmp(name, "diskstats") == 0) {
		blk_show_diskstats(buf, sizeof(buf));
	} else if (strcmp(name, "vmstat") == 0) {
		struct vm_events ev;

		all_vm_events(&ev);
		scnprintf(buf, sizeof(buf), "pgpgin %llu\npgpgout %llu\n",
			  (unsigned long long)ev.pgpgin, (unsigned long long)ev.pgpgout);
	} else if (strcmp(name, "blktrace") == 0) {
		blk_trace_print_all();          /* each traced disk, own header */
		return;
	} else {
		pr_warn("show=: no such file /proc/%s\n", name);
		return;
	}
	printk("==> /proc/%s <==\n%s", name, buf);
}

/*
 * The verifier submits PATTERN_BATCH bios of up to 64 KiB at a time under
 * one plug, then waits for all of them: like a real writer, it gives a
 * request-based device the chance to merge them.
 */
#define PATTERN_BATCH      8
#define PATTERN_BIO_ORDER  4            /* 2^4 pages = 64 KiB per bio */

struct pattern_batch {
	struct wait_queue_head wait;
	unsigned int pending;           /* bios not yet ended */
	int error;                      /* the first one's */
};

static void pattern_end_io(struct bio *bio)
{
	struct pattern_batch *b = bio->bi_private;
	unsigned long flags;

	spin_lock_irqsave(&b->wait.lock, flags);
	if (bio->bi_status && !b->error)
		b->error = blk_status_to_errno(bio->bi_status);
	b->pending--;
	/* under the lock: b is on the waiter's stack (see wait.h) */
	__wake_up_locked(&b->wait);
	spin_unlock_irqrestore(&b->wait.lock, flags);
	bio_put(bio);
}

/* Write or verify [off, off+len) of bdev; returns NULL or the reason. */
static const char *pattern_run(struct block_device *bdev, bool write, u64 off,
			       u64 len, u64 seed, char *why, size_t why_len)
{
	const u64 chunk_max = PAGE_SIZE << PATTERN_BIO_ORDER;
	struct page *pages[PATTERN_BATCH];
	struct pattern_batch b;
	const char *ret = NULL;
	int n;

	init_waitqueue_head(&b.wait);
	for (n = 0; n < PATTERN_BATCH; n++) {
		pages[n] = alloc_pages(GFP_KERNEL, PATTERN_BIO_ORDER);
		if (!pages[n]) {
			ret = "out of memory";
			goto out;
		}
	}
	for (u64 done = 0; done < len && !ret; ) {
		u64 start = done, chunk[PATTERN_BATCH];
		struct blk_plug plug;
		int nr = 0;

		b.pending = 0;
		b.error = 0;
		blk_start_plug(&plug);
		while (nr < PATTERN_BATCH && done < len) {
			struct bio *bio = bio_alloc(GFP_NOIO, 1u << PATTERN_BIO_ORDER);
			u8 *buf = page_address(pages[nr]);

			chunk[nr] = min(chunk_max, len - done);
			bio_set_dev(bio, bdev);
			bio->bi_iter.bi_sector = (off + done) >> SECTOR_SHIFT;
			bio->bi_opf = write ? REQ_OP_WRITE : REQ_OP_READ;
			bio->bi_end_io = pattern_end_io;
			bio->bi_private = &b;
			for (u64 p = 0; p < chunk[nr]; p += PAGE_SIZE)
				bio_add_page(bio, pages[nr] + p / PAGE_SIZE,
					     min(PAGE_SIZE, chunk[nr] - p), 0);
			if (write)
				pattern_fill(buf, off + done, chunk[nr], seed);
			spin_lock_irq(&b.wait.lock);
			b.pending++;
			spin_unlock_irq(&b.wait.lock);
			submit_bio(bio);
			done += chunk[nr++];
		}
		blk_finish_plug(&plug);
		wait_event(b.wait, READ_ONCE(b.pending) == 0);
		if (b.error) {
			scnprintf(why, why_len, "I/O error %d in bytes %llu-%llu", b.error,
				  (unsigned long long)(off + start),
				  (unsigned long long)(off + done - 1));
			ret = why;
		}
		for (int i = 0; i < nr && !ret && !write; i++) {
			s64 bad = pattern_check(page_address(pages[i]), off + start, chunk[i], seed);

			if (bad >= 0) {
				scnprintf(why, why_len, "%lld", (long long)bad);
				ret = why;
			}
			start += chunk[i];
		}
	}
out:
	while (n-- > 0)
		__free_pages(pages[n], PATTERN_BIO_ORDER);
	return ret;
}

static void pattern_action(char *arg)
{
	char *op = strsep(&arg, ":"), *dev = strsep(&arg, ":");
	char *s_off = strsep(&arg, ":"), *s_len = strsep(&arg, ":"), *s_seed = arg;
	unsigned long long off = 0, len = 0, seed = 0;
	struct block_device *bdev;
	const char *why = NULL;
	char buf[96];
	char *end;
	bool write;

	if (!op || !dev || !s_off || !s_len || !s_seed ||
	    (strcmp(op, "write") && strcmp(op, "verify"))) {
		pr_warn("pattern=: expected write|verify:<dev>:<offset>:<length>:<seed>\n");
		return;
	}
	write = strcmp(op, "write") == 0;
	off = memparse(s_off, &end);
	if (*end)
		why = "bad offset";
	len = memparse(s_len, &end);
	if (*end)
		why = "bad length";
	if (!why && kstrtoull(s_seed, 0, &seed))
		why = "bad seed";
	if (!why && (off % SECTOR_SIZE || len % SECTOR_SIZE || !len))
		why = "offset and length must be non-zero multiples of 512";
	bdev = lookup_bdev(dev);
	if (!why && !bdev)
		why = "no such device";
	if (!why && (off + len) / SECTOR_SIZE > bdev_nr_sectors(bdev))
		why = "beyond the end of the device";
	if (!why)
		why = pattern_run(bdev, write, off, len, seed, buf, sizeof(buf));
	if (why)
		printk("PATTERN %s %s %llu %llu FAIL: %s\n", op, dev, off, len, why);
	else
		printk("PATTERN %s %s %llu %llu OK\n", op, dev, off, len);
}

static void bench_action(char *arg)
{
	char *dev = strsep(&arg, ":"), *s_rw = strsep(&arg, ":");
	char *s_bs = strsep(&arg, ":"), *s_qd = strsep(&arg, ":"), *s_size = arg;
	struct bench_opts o = { .seed = 1 };
	struct bench_result r;
	struct block_device *bdev;
	unsigned long long qd;
	u64 us, iops, mbps10;
	char *end;
	int rw, err;

	if (!dev || !s_rw || !s_bs || !s_qd || !s_size) {
		pr_warn("bench=: expected <dev>:<rw>:<bs>:<qd>:<size>\n");
		return;
	}
	rw = bench_parse_rw(s_rw);
	o.bs = (u32)memparse(s_bs, &end);
	if (rw < 0 || *end || kstrtoull(s_qd, 0, &qd)) {
		printk("BENCH dev=%s FAIL: bad rw, bs or qd\n", dev);
		return;
	}
	o.rw = rw;
	o.qd = (u32)qd;
	o.size = memparse(s_size, &end);
	bdev = lookup_bdev(dev);
	if (*end || !bdev) {
		printk("BENCH dev=%s FAIL: %s\n", dev, bdev ? "bad size" : "no such device");
		return;
	}
	err = blk_bench(bdev, &o, &r);
	if (err || r.error) {
		printk("BENCH dev=%s FAIL: %s %d\n", dev, err ? "cannot run" : "I/O error",
		       err ? err : r.error);
		return;
	}
	us = max_t(u64, r.ns / NSEC_PER_USEC, 1);
	iops = r.ios * 1000000 / us;
	mbps10 = r.ios * o.bs * 10 / us;        /* bytes per us = MB/s */
	printk("BENCH dev=%s rw=%s bs=%u qd=%u iops=%llu MBps=%llu.%llu lat_avg_us=%llu "
	       "lat_p99_us=%llu merges=%llu max_inflight=%u\n",
	       dev, bench_rw_names[o.rw], o.bs, o.qd, (unsigned long long)iops,
	       (unsigned long long)(mbps10 / 10), (unsigned long long)(mbps10 % 10),
	       (unsigned long long)(r.lat_avg_ns / NSEC_PER_USEC),
	       (unsigned long long)(r.lat_p99_ns / NSEC_PER_USEC),
	       (unsigned long long)r.merges, r.max_inflight);
}

static int __init blk_boot_actions(void)
{
	struct boot_action *a, *tmp;

	list_for_each_entry_safe(a, tmp, &boot_actions, list) {
		if (a->kind == ACTION_SHOW) {
			char *p = a->arg, *name;

			while ((name = strsep(&p, ",")) != NULL)
				if (*name)
					show_file(name);
		} else if (a->kind == ACTION_BENCH) {
			bench_action(a->arg);
		} else {
			pattern_action(a->arg);
		}
		list_del(&a->list);
		kfree(a);
	}
	return 0;
}
late_initcall(blk_boot_actions);
