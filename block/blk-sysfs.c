// SPDX-License-Identifier: MIT
/*
 * blk-sysfs.c - the block layer's sysfs attributes: what each file under
 * /sys/block says, and what a write to it does.  Linux keeps the queue's
 * in Linux's block/blk-sysfs.c, the disk's and a partition's in Linux's
 * block/genhd.c and Linux's block/partitions/core.c; here they are
 * together, one value each, read as text, some of them writable:
 *
 *   /sys/block/<disk>/size                 capacity in 512-byte sectors
 *   /sys/block/<disk>/dev                  "major:minor"
 *   /sys/block/<disk>/stat                 Linux's 17 I/O counters
 *   /sys/block/<disk>/inflight             reads and writes in flight
 *   /sys/block/<disk>/trace                the disk's blktrace events in
 *                                          blkparse's layout; write 1 to start
 *                                          tracing, 0 to stop (blktrace=<disk>
 *                                          starts it at boot)
 *   /sys/block/<disk>/trace0               the same events in Linux's binary
 *                                          blktrace format (blkparse -i)
 *   /sys/block/<disk>/<part>/{size,start,stat,dev,inflight}
 *   /sys/block/<disk>/queue/scheduler      "[mq-deadline] none cscan"; write
 *                                          a name to switch (elevator_switch)
 *   /sys/block/<disk>/queue/nr_requests, max_sectors_kb, max_segments,
 *                                          logical_block_size, discard_granularity,
 *                                          discard_max_bytes, write_zeroes_max_bytes
 *   /sys/block/<disk>/queue/write_cache, fua   "write back" or "write through";
 *                                          1 if FUA goes to the device, 0 if
 *                                          blk-flush sends a flush after
 *   /sys/block/<disk>/queue/tags_peak      Spindle's own: the most tags held
 *   /sys/block/<disk>/queue/read_ahead_kb  readahead's limit (the disk's bdi);
 *                                          read and written
 *   /sys/block/<disk>/queue/iosched/<tunable>   the elevator's own, read and
 *                                          written through elv_attr_show/store
 *   /sys/block/<disk>/mq/<n>/cpu_list      hardware queue n's CPUs, "0, 2"
 *   /sys/block/<disk>/mq/<n>/nr_tags       its tags (the driver's queue depth)
 *   /sys/block/<disk>/mq/<n>/dispatched    Spindle's own: requests it sent to
 *                                          queue_rq, by the CPU each was made
 *                                          on ("cpu0 12", one line a CPU)
 *
 * Interface (include/spindle/blkdev.h, "The block layer's files"): three
 * attribute groups -- the disk's, a partition's, the queue's -- and the
 * current elevator's tunables by number.  fs/sysfs.c builds the
 * directories from them and calls show() at open, store() at write; it
 * knows no attribute by name.  Every show() and store() gets the
 * block_device of the directory (a partition's, or the whole disk's) and
 * may sleep.
 */
#include <spindle/blkdev.h>
#include <spindle/blk_mq.h>
#include <spindle/elevator.h>
#include <spindle/blktrace.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/ratelimit.h>
#include <spindle/time.h>
#include <spindle/writeback.h>
#include "elevator-internal.h"
#include "blk.h"

static struct request_queue *bdev_queue(struct block_device *bdev)
{
	return bdev->bd_disk->queue;
}

/* --- the disk's and a partition's ------------------------------------------- */

static int size_show(struct block_device *bdev, char *buf, size_t size)
{
	return scnprintf(buf, size, "%llu\n", (unsigned long long)bdev_nr_sectors(bdev));
}

static int start_show(struct block_device *bdev, char *buf, size_t size)
{
	return scnprintf(buf, size, "%llu\n", (unsigned long long)bdev->bd_start_sect);
}

/* a partition's number (lsblk and blkid tell partitions from disks by
 * this file) */
static int partition_show(struct block_device *bdev, char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", bdev->bd_partno);
}

/* Spindle has no read-only disks (no BLKROSET, no write-protect bit
 * read) and no removable media: both are 0 for every disk, which is what
 * Linux shows for the same QEMU disks. */
static int ro_show(struct block_device *bdev, char *buf, size_t size)
{
	(void)bdev;
	return scnprintf(buf, size, "0\n");
}

static int removable_show(struct block_device *bdev, char *buf, size_t size)
{
	(void)bdev;
	return scnprintf(buf, size, "0\n");
}

/* hidden (Linux's GENHD_FL_HIDDEN, which lsblk reads): Spindle hides no
 * disk from user space */
static int hidden_show(struct block_device *bdev, char *buf, size_t size)
{
	(void)bdev;
	return scnprintf(buf, size, "0\n");
}

/* device/model: what the driver recorded (gendisk's comment) */
static int model_show(struct block_device *bdev, char *buf, size_t size)
{
	return scnprintf(buf, size, "%s\n", bdev->bd_disk->model);
}

/* queue/rotational: 1 unless the driver said the device does not seek
 * (lsblk's ROTA; the elevators here do not look at it) */
static int rotational_show(struct block_device *bdev, char *buf, size_t size)
{
	return scnprintf(buf, size, "%d\n", !bdev_queue(bdev)->nonrot);
}

/* queue/write_cache and queue/fua: what the driver said of the device's
 * volatile cache (blk_queue_write_cache), so what blk-flush does with
 * PREFLUSH and FUA; read-only here (Linux lets root write write_cache) */
static int write_cache_show(struct block_device *bdev, char *buf, size_t size)
{
	return scnprintf(buf, size, "%s\n",
			 bdev_queue(bdev)->write_cache ? "write back" : "write through");
}

static int fua_show(struct block_device *bdev, char *buf, size_t size)
{
	return scnprintf(buf, size, "%d\n", bdev_queue(bdev)->fua);
}

static int dev_show(struct block_device *bdev, char *buf, size_t size)
{
	dev_t d = bdev->bd_dev;

	return scnprintf(buf, size, "%u:%u\n", MAJOR(d), MINOR(d));
}

/*
 * Linux's /sys/block/<dev>/stat: 17 fields, each %8 wide -- reads
 * (ios merges sectors ms), writes (the same), in_flight, io_ticks ms,
 * time_in_queue ms, discards (the four), flushes (ios ms).
 */
static int stat_show(struct block_device *bdev, char *buf, size_t size)
{
	struct disk_stats st;
	const struct disk_stats *s = &st;

	part_stat_read_all(bdev, &st);
#define MS(ns) ((unsigned long long)((ns) / NSEC_PER_MSEC))
	return scnprintf(buf, size,
			 "%8llu %8llu %8llu %8llu %8llu %8llu %8llu %8llu %8lu %8llu %8llu "
			 "%8llu %8llu %8llu %8llu %8llu %8llu\n",
			 (unsigned long long)s->ios[STAT_READ], (unsigned long long)s->merges[STAT_READ],
			 (unsigned long long)s->sectors[STAT_READ], MS(s->nsecs[STAT_READ]),
			 (unsigned long long)s->ios[STAT_WRITE], (unsigned long long)s->merges[STAT_WRITE],
			 (unsigned long long)s->sectors[STAT_WRITE], MS(s->nsecs[STAT_WRITE]),
			 disk_stats_in_flight(s), (unsigned long long)s->io_ticks_ms,
			 MS(disk_stats_time_in_queue_ns(s)),
			 (unsigned long long)s->ios[STAT_DISCARD], (unsigned long long)s->merges[STAT_DISCARD],
			 (unsigned long long)s->sectors[STAT_DISCARD], MS(s->nsecs[STAT_DISCARD]),
			 (unsigned long long)s->ios[STAT_FLUSH], MS(s->nsecs[STAT_FLUSH]));
#undef MS
}

/* inflight: reads and writes started and not completed, as Linux's
 * "%8u %8u" -- what bench samples for its max_inflight. */
static int inflight_show(struct block_device *bdev, char *buf, size_t size)
{
	struct disk_stats st;

	part_stat_read_all(bdev, &st);
	return scnprintf(buf, size, "%8lu %8lu\n", (unsigned long)st.in_flight[0],
			 (unsigned long)st.in_flight[1]);
}

static int trace_show(struct block_device *bdev, char *buf, size_t size)
{
	struct blk_trace *bt = blk_trace_ring(bdev_queue(bdev));
	unsigned int first, head, n = 0;

	if (!bt)
		return 0; /* not traced: echo 1 > trace, or blktrace=<disk> */
	/* the ring keeps the last bt->size events of the head recorded */
	head = blk_trace_head(bt);
	first = head > bt->size ? head - bt->size : 0;
	for (unsigned int i = first; i < head && size - n > 160; i++) {
		n += blk_trace_format(bt, &bt->ev[i % bt->size], i + 1, buf + n, size - n);
		n += scnprintf(buf + n, size - n, "\n");
	}
	return n;
}

/* "1" starts tracing the disk, "0" stops it (blktrace=<disk> starts it at boot). */
static int trace_store(struct block_device *bdev, const char *buf, size_t len)
{
	struct gendisk *disk = bdev->bd_disk;

	if (len >= 1 && buf[0] == '1')
		return blk_trace_start(disk);
	if (len >= 1 && buf[0] == '0') {
		blk_trace_stop(disk);
		return 0;
	}
	return -EINVAL;
}

/* trace0: the same events in Linux's binary blktrace format (what Linux's
 * debugfs block/<dev>/trace0 gives blktrace), for blkparse, btt, iowatcher. */
static int trace0_show(struct block_device *bdev, char *buf, size_t size)
{
	return (int)blk_trace_binary(blk_trace_ring(bdev_queue(bdev)), buf, size);
}

/* --- the queue's --------------------------------------------------------------- */

static int scheduler_show(struct block_device *bdev, char *buf, size_t size)
{
	return elv_iosched_show(bdev_queue(bdev), buf, size);
}

/* "cscan\n" -> "cscan" */
static void strip_newline(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

static int scheduler_store(struct block_device *bdev, const char *buf, size_t len)
{
	char name[32];

	if (len >= sizeof(name))
		return -EINVAL;
	strlcpy(name, buf, sizeof(name));
	strip_newline(name);
	return elevator_switch(bdev_queue(bdev), name);
}

static int nr_requests_show(struct block_device *bdev, char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", bdev_queue(bdev)->nr_requests);
}

/*
 * queue/io_poll: 1 when the queue has poll queues (Linux's QUEUE_FLAG_POLL:
 * a driver that set up a POLL map with a poll op), so RWF_HIPRI and
 * io_uring's IOPOLL are polled there.  Linux 6.1 no longer lets a write
 * turn polling on or off (the driver's poll_queues= decides): it
 * accepts the write and says so, and so does Spindle.
 */
static int io_poll_show(struct block_device *bdev, char *buf, size_t size)
{
	return scnprintf(buf, size, "%d\n", blk_mq_can_poll(bdev_queue(bdev)) ? 1 : 0);
}

static int io_poll_store(struct block_device *bdev, const char *buf, size_t len)
{
	(void)bdev; (void)buf; (void)len;
	printk_ratelimited(KERN_INFO "writes to the poll attribute are ignored.\n");
	printk_ratelimited(KERN_INFO "please use driver specific parameters instead.\n");
	return 0;
}

static int max_sectors_kb_show(struct block_device *bdev, char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", bdev_queue(bdev)->limits.max_sectors / 2);
}

/* with pages that are not neighbours in memory, a request's real limit */
static int max_segments_show(struct block_device *bdev, char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", bdev_queue(bdev)->limits.max_segments);
}

/*
 * Discard and write-zeroes limits, as Linux states them: the largest
 * range one request may cover in bytes (0: not supported), and the unit
 * the device deallocates in.
 */
static int discard_granularity_show(struct block_device *bdev, char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", bdev_queue(bdev)->limits.discard_granularity);
}

static int discard_max_bytes_show(struct block_device *bdev, char *buf, size_t size)
{
	return scnprintf(buf, size, "%llu\n",
			 (unsigned long long)bdev_queue(bdev)->limits.max_discard_sectors << SECTOR_SHIFT);
}

static int write_zeroes_max_bytes_show(struct block_device *bdev, char *buf, size_t size)
{
	return scnprintf(buf, size, "%llu\n",
			 (unsigned long long)bdev_queue(bdev)->limits.max_write_zeroes_sectors << SECTOR_SHIFT);
}

static int lbs_show(struct block_device *bdev, char *buf, size_t size)
{
	unsigned int lbs = bdev_queue(bdev)->limits.logical_block_size;

	return scnprintf(buf, size, "%u\n", lbs ? lbs : 512);
}

/*
 * queue/tags_peak -- Spindle's own file, not Linux's: the most tags the
 * driver held at once since it was last reset by writing 0 (with several
 * hardware queues, the most any one of them held).  It is how
 * bench (user/bin/bench.c, and the kernel's bench=) shows a queue depth
 * at work: NCQ's 32 commands, IDE's one.
 */
static int tags_peak_show(struct block_device *bdev, char *buf, size_t size)
{
	struct request_queue *q = bdev_queue(bdev);

	return scnprintf(buf, size, "%u\n", q->tag_set ? blk_mq_tags_peak(q) : 0);
}

static int tags_peak_store(struct block_device *bdev, const char *buf, size_t len)
{
	if (len < 1 || buf[0] != '0')
		return -EINVAL;
	if (bdev_queue(bdev)->tag_set)
		blk_mq_reset_tags_peak(bdev_queue(bdev));
	return 0;
}

/*
 * queue/read_ahead_kb: the largest readahead window of the disk's
 * sequential readers (fs/filemap.c), Linux's bdi->ra_pages in KiB.
 */
static int read_ahead_kb_show(struct block_device *bdev, char *buf, size_t size)
{
	struct backing_dev_info *bdi = bdi_get(bdev->bd_disk);

	if (!bdi)
		return -ENOMEM;
	return scnprintf(buf, size, "%lu\n", READ_ONCE(bdi->ra_pages) * (PAGE_SIZE / 1024));
}

static int read_ahead_kb_store(struct block_device *bdev, const char *buf, size_t len)
{
	struct backing_dev_info *bdi = bdi_get(bdev->bd_disk);
	unsigned int kb;
	char num[16];

	if (!bdi)
		return -ENOMEM;
	if (len == 0 || len >= sizeof(num))
		return -EINVAL;
	strlcpy(num, buf, len + 1);
	strip_newline(num);
	if (kstrtouint(num, 10, &kb))
		return -EINVAL;
	WRITE_ONCE(bdi->ra_pages, kb / (PAGE_SIZE / 1024));
	return 0;
}

/*
 * queue/rq_affinity (Linux's): which CPU ends a completed request -- 0
 * the one its interrupt came to, 1 that one if it shares a cache with
 * the submitter's, else the submitter's, 2 always the submitter's.
 */
static int rq_affinity_show(struct block_device *bdev, char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", READ_ONCE(bdev_queue(bdev)->rq_affinity));
}

static int rq_affinity_store(struct block_device *bdev, const char *buf, size_t len)
{
	struct request_queue *q = bdev_queue(bdev);
	unsigned int v;
	char num[16];

	if (!q->tag_set)
		return -EINVAL;                 /* bio-based: no requests complete */
	if (len == 0 || len >= sizeof(num))
		return -EINVAL;
	strlcpy(num, buf, len + 1);
	strip_newline(num);
	if (kstrtouint(num, 10, &v))
		return -EINVAL;
	/* as Linux: a number above 2 is taken and changes nothing */
	if (v <= 2)
		WRITE_ONCE(q->rq_affinity, v);
	return 0;
}

/* --- the groups, in the order a directory lists them ------------------------ */

/* .mode 0555 and no show(): a directory, whose entries sysfs knows */
static const struct blk_attr disk_attrs[] = {
	{ .name = "size", .mode = 0444, .show = size_show },
	{ .name = "dev", .mode = 0444, .show = dev_show },
	{ .name = "stat", .mode = 0444, .show = stat_show },
	{ .name = "trace", .mode = 0644, .show = trace_show, .store = trace_store, .size_hint = 256 * 1024 },
	/* 4096 events of 48 bytes and a payload of at most 16, and the notes */
	{ .name = "trace0", .mode = 0444, .show = trace0_show, .size_hint = 320 * 1024 },
	{ .name = "inflight", .mode = 0444, .show = inflight_show },
	{ .name = "ro", .mode = 0444, .show = ro_show },
	{ .name = "removable", .mode = 0444, .show = removable_show },
	{ .name = "hidden", .mode = 0444, .show = hidden_show },
	{ .name = "queue", .mode = 0555 },
	{ .name = "mq", .mode = 0555 },
};
static const struct blk_attr part_attrs[] = {
	{ .name = "size", .mode = 0444, .show = size_show },
	{ .name = "start", .mode = 0444, .show = start_show },
	{ .name = "dev", .mode = 0444, .show = dev_show },
	{ .name = "stat", .mode = 0444, .show = stat_show },
	{ .name = "inflight", .mode = 0444, .show = inflight_show },
	{ .name = "partition", .mode = 0444, .show = partition_show },
	{ .name = "ro", .mode = 0444, .show = ro_show },
};
static const struct blk_attr queue_attrs[] = {
	{ .name = "scheduler", .mode = 0644, .show = scheduler_show, .store = scheduler_store },
	{ .name = "nr_requests", .mode = 0444, .show = nr_requests_show },
	{ .name = "io_poll", .mode = 0644, .show = io_poll_show, .store = io_poll_store },
	{ .name = "max_sectors_kb", .mode = 0444, .show = max_sectors_kb_show },
	{ .name = "max_segments", .mode = 0444, .show = max_segments_show },
	{ .name = "logical_block_size", .mode = 0444, .show = lbs_show },
	{ .name = "rotational", .mode = 0444, .show = rotational_show },
	{ .name = "write_cache", .mode = 0444, .show = write_cache_show },
	{ .name = "fua", .mode = 0444, .show = fua_show },
	{ .name = "discard_granularity", .mode = 0444, .show = discard_granularity_show },
	{ .name = "discard_max_bytes", .mode = 0444, .show = discard_max_bytes_show },
	{ .name = "write_zeroes_max_bytes", .mode = 0444, .show = write_zeroes_max_bytes_show },
	{ .name = "iosched", .mode = 0555 },
	{ .name = "tags_peak", .mode = 0644, .show = tags_peak_show, .store = tags_peak_store },
	{ .name = "read_ahead_kb", .mode = 0644, .show = read_ahead_kb_show, .store = read_ahead_kb_store },
	{ .name = "rq_affinity", .mode = 0644, .show = rq_affinity_show, .store = rq_affinity_store },
};

const struct blk_attr_group blk_disk_attr_group = { disk_attrs, ARRAY_SIZE(disk_attrs) };
const struct blk_attr_group blk_part_attr_group = { part_attrs, ARRAY_SIZE(part_attrs) };
const struct blk_attr_group blk_queue_attr_group = { queue_attrs, ARRAY_SIZE(queue_attrs) };

/* /sys/block/<disk>/device/: the device under the disk (only model) */
static const struct blk_attr device_attrs[] = {
	{ .name = "model", .mode = 0444, .show = model_show },
};
const struct blk_attr_group blk_device_attr_group = { device_attrs, ARRAY_SIZE(device_attrs) };

/* --- queue/iosched: the current elevator's tunables ---------------------------- */

const char *blk_iosched_attr(struct block_device *bdev, unsigned int i, umode_t *mode)
{
	struct request_queue *q = bdev_queue(bdev);
	const struct elv_fs_entry *a;

	if (!q || !q->elevator)
		return NULL; /* a bio-based queue has none */
	for (a = q->elevator->type->elevator_attrs; a && a->name; a++, i--)
		if (i == 0) {
			*mode = a->store ? 0644 : 0444;
			/* a static string of the elevator: it outlives any switch */
			return a->name;
		}
	return NULL;
}

int blk_iosched_show(struct block_device *bdev, const char *name, char *buf, size_t size)
{
	return elv_attr_show(bdev_queue(bdev), name, buf, size);
}

int blk_iosched_store(struct block_device *bdev, const char *name, const char *buf, size_t len)
{
	(void)len;
	return elv_attr_store(bdev_queue(bdev), name, buf);
}

/* --- mq/<n>: the hardware queues ------------------------------------------------ */

struct blk_mq_hw_ctx *blk_mq_sysfs_hctx(struct block_device *bdev, unsigned int n)
{
	struct request_queue *q = bdev_queue(bdev);

	return q && q->tag_set && n < q->nr_hw_queues ? q->queue_hw_ctx[n] : NULL;
}

/* type is Linux's debugfs file hctxN/type: which map the context is in */
static const char *const hctx_attrs[] = { "cpu_list", "dispatched", "nr_tags", "type" };

const char *blk_mq_hctx_attr(unsigned int i)
{
	return i < ARRAY_SIZE(hctx_attrs) ? hctx_attrs[i] : NULL;
}

int blk_mq_hctx_show(struct blk_mq_hw_ctx *hctx, const char *name, char *buf, size_t size)
{
	struct request_queue *q = hctx->queue;
	unsigned long flags;
	unsigned int cpu;
	int n = 0;

	if (strcmp(name, "nr_tags") == 0)
		return scnprintf(buf, size, "%u\n", q->tag_set->queue_depth);
	if (strcmp(name, "type") == 0) {
		static const char *const types[HCTX_MAX_TYPES] = {
			[HCTX_TYPE_DEFAULT] = "default",
			[HCTX_TYPE_READ] = "read",
			[HCTX_TYPE_POLL] = "poll",
		};

		return scnprintf(buf, size, "%s\n", types[hctx->type]);
	}
	if (strcmp(name, "cpu_list") == 0) {
		/* Linux's blk_mq_hw_sysfs_cpus_show: "0, 2" */
		for_each_cpu(cpu, &hctx->cpumask)
			n += scnprintf(buf + n, size - n, n ? ", %u" : "%u", cpu);
		return n + scnprintf(buf + n, size - n, "\n");
	}
	if (strcmp(name, "dispatched") == 0) {
		unsigned long counts[NR_CPUS];

		spin_lock_irqsave(&hctx->lock, flags);
		memcpy(counts, hctx->dispatched, sizeof(counts));
		spin_unlock_irqrestore(&hctx->lock, flags);
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			n += scnprintf(buf + n, size - n, "cpu%u %lu\n", cpu, counts[cpu]);
		return n;
	}
	return -ENOENT;
}
