// SPDX-License-Identifier: MIT
/*
 * genhd.c - registering disks and their partitions; finding them by name.
 *
 * Where it sits: drivers call alloc_disk()/add_disk() (the "below" half of
 * include/spindle/blkdev.h); users find a block_device with lookup_bdev().
 * add_disk() creates the whole-disk block_device (partition 0), reads the
 * partition table (block/partitions/) and creates one block_device per
 * partition with its start and size; generic_make_request() uses them to
 * check and remap every bio.
 *
 * Also here, for users: the texts of /proc/partitions and /proc/diskstats
 * (blk_show_partitions, blk_show_diskstats; Linux's show_partition and
 * diskstats_show), which fs/proc.c serves.
 *
 * The list of disks is only changed from task context, at boot or when a
 * driver removes a disk; a mutex protects it.
 */
#include <spindle/blkdev.h>
#include <spindle/mutex.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/time.h>
#include <spindle/blktrace.h>
#include <spindle/fault_inject.h>
#include <spindle/init.h>
#include "blk.h"

LIST_HEAD(disk_list);
DEFINE_MUTEX(disk_list_lock);
/* gendisks alloc_disk() made that put_disk() has not freed, registered or
 * not: a driver's failed registration must bring it back (tests check) */
static unsigned long nr_gendisks;       /* under disk_list_lock */

/*
 * Fault points for the drivers' error paths (include/spindle/fault_inject.h):
 * fail_alloc_disk= makes alloc_disk() return NULL, fail_add_disk= makes
 * add_disk() return -ENOMEM before the disk is registered -- what a
 * driver sees when memory runs out.  Armed from the command line, or by a
 * test (blk.h).
 */
DECLARE_FAULT_ATTR(fail_alloc_disk);
DECLARE_FAULT_ATTR(fail_add_disk);

static int fail_alloc_disk_setup(const char *val)
{
	return setup_fault_attr(&fail_alloc_disk, val);
}
__setup("fail_alloc_disk=", fail_alloc_disk_setup);

static int fail_add_disk_setup(const char *val)
{
	return setup_fault_attr(&fail_add_disk, val);
}
__setup("fail_add_disk=", fail_add_disk_setup);

struct request_queue *blk_alloc_queue(make_request_fn *fn, void *queuedata)
{
	struct request_queue *q = kzalloc(sizeof(*q), GFP_KERNEL);

	if (!q)
		return NULL;
	q->make_request_fn = fn;
	q->queuedata = queuedata;
	q->limits.logical_block_size = SECTOR_SIZE;
	q->limits.max_sectors = BIO_MAX_VECS * (PAGE_SIZE >> SECTOR_SHIFT);
	q->limits.max_segments = BIO_MAX_VECS;
	q->limits.max_segment_size = PAGE_SIZE;
	q->limits.seg_boundary_mask = ~0ul;
	q->limits.dma_alignment = SECTOR_SIZE - 1;
	q->rq_timeout = 30 * HZ;
	spin_lock_init(&q->lock);
	init_waitqueue_head(&q->mq_freeze_wq);
	INIT_LIST_HEAD(&q->flush_pending);
	INIT_LIST_HEAD(&q->flush_running);
	INIT_LIST_HEAD(&q->all_queues);
	return q;
}

void blk_queue_logical_block_size(struct request_queue *q, unsigned int size)
{
	q->limits.logical_block_size = size;
}

void blk_queue_max_hw_sectors(struct request_queue *q, unsigned int sectors)
{
	q->limits.max_sectors = sectors;
}

void blk_queue_max_segments(struct request_queue *q, unsigned int max_segments)
{
	q->limits.max_segments = max_segments;
}

/*
 * The request layer counts one segment per bio_vec, and a bio_vec never
 * crosses a page; that is only right while segments may be a page long
 * and boundaries are at least a page apart.  Every controller here
 * allows that (IDE: 64 KiB, AHCI: 4 MiB); a smaller limit is refused.
 */
void blk_queue_max_segment_size(struct request_queue *q, unsigned int bytes)
{
	if (bytes < PAGE_SIZE) {
		pr_warn("blk: max_segment_size %u below a page: using %lu\n", bytes, PAGE_SIZE);
		bytes = PAGE_SIZE;
	}
	q->limits.max_segment_size = bytes;
}

void blk_queue_segment_boundary(struct request_queue *q, unsigned long mask)
{
	if (mask < PAGE_SIZE - 1) {
		pr_warn("blk: segment boundary %#lx below a page: using %#lx\n", mask, PAGE_SIZE - 1);
		mask = PAGE_SIZE - 1;
	}
	q->limits.seg_boundary_mask = mask;
}

void blk_queue_dma_alignment(struct request_queue *q, unsigned int mask)
{
	q->limits.dma_alignment = mask;
}

void blk_queue_max_discard_sectors(struct request_queue *q, unsigned int sectors)
{
	q->limits.max_discard_sectors = sectors;
}

void blk_queue_max_write_zeroes_sectors(struct request_queue *q, unsigned int sectors)
{
	q->limits.max_write_zeroes_sectors = sectors;
}

void blk_queue_write_cache(struct request_queue *q, bool wc, bool fua)
{
	q->write_cache = wc;
	q->fua = wc && fua;
}

void blk_queue_rq_timeout(struct request_queue *q, unsigned int timeout_jiffies)
{
	q->rq_timeout = timeout_jiffies;
}

void blk_cleanup_queue(struct request_queue *q)
{
	unsigned long flags;

	might_sleep();
	spin_lock_irqsave(&q->lock, flags);
	q->dying = true;
	spin_unlock_irqrestore(&q->lock, flags);
	blk_queue_usage_sync();  /* dying seen, or the counts final */
	if (q->tag_set)
		blk_mq_exit_queue(q);
	/* Bios already inside make_request_fn finish on their own. */
	while (blk_queue_usage(q))
		yield();
}

struct gendisk *alloc_disk(int minors)
{
	struct gendisk *disk;

	if (should_fail(&fail_alloc_disk, 1))
		return NULL;
	disk = kzalloc(sizeof(*disk), GFP_KERNEL);
	if (!disk)
		return NULL;
	disk->minors = minors;
	INIT_LIST_HEAD(&disk->list);
	mutex_lock(&disk_list_lock);
	nr_gendisks++;
	mutex_unlock(&disk_list_lock);
	return disk;
}

struct block_device *add_part(struct gendisk *disk, int partno,
				     sector_t start, sector_t len)
{
	struct block_device *b = kzalloc(sizeof(*b), GFP_KERNEL);
	size_t n;

	if (!b)
		return NULL;
	b->bd_disk = disk;
	b->bd_partno = partno;
	b->bd_start_sect = start;
	b->bd_nr_sectors = len;
	b->bd_dev = MKDEV(disk->major, disk->first_minor + partno);
	n = strlcpy(b->bd_name, disk->disk_name, sizeof(b->bd_name));
	if (partno) {
		/* "sda" + "1"; a name ending in a digit gets a 'p': "nullb0p1" */
		bool digit = n && disk->disk_name[n - 1] >= '0' && disk->disk_name[n - 1] <= '9';

		snprintf(b->bd_name + n, sizeof(b->bd_name) - n, "%s%d", digit ? "p" : "", partno);
	}
	disk->part[partno] = b;
	return b;
}

int add_disk(struct gendisk *disk)
{
	if (!disk->queue || !disk->disk_name[0])
		return -EINVAL;
	if (should_fail(&fail_add_disk, 1) || !add_part(disk, 0, 0, disk->capacity))
		return -ENOMEM;
	mutex_lock(&disk_list_lock);
	list_add_tail(&disk->list, &disk_list);
	disk->registered = true;
	mutex_unlock(&disk_list_lock);
	pr_info("%s: %llu sectors (%llu MiB)\n", disk->disk_name,
		(unsigned long long)disk->capacity,
		(unsigned long long)(disk->capacity >> (20 - SECTOR_SHIFT)));
	if (disk->minors > 1)
		blk_scan_partitions(disk);
	blk_trace_setup_disk(disk);             /* blktrace=<name>: from now on */
	return 0;
}

/*
 * Forget disk's partitions (BLKRRPART, before reading the table again).
 * The caller has made sure none is open or claimed.
 *
 * The block_device structures are unlinked but not freed: a sysfs file
 * (/sys/block/sda/sda1/size) may still point at one, and block_device has
 * no reference count yet (Linux counts references on the bdev inode).  A
 * few hundred bytes per partition per BLKRRPART stay allocated -- the
 * price of never reading freed memory.  Their statistics stop counting.
 */
void blk_drop_partitions(struct gendisk *disk)
{
	mutex_lock(&disk_list_lock);
	for (int p = 1; p < DISK_MAX_PARTS; p++)
		disk->part[p] = NULL;
	mutex_unlock(&disk_list_lock);
}

void del_gendisk(struct gendisk *disk)
{
	mutex_lock(&disk_list_lock);
	list_del_init(&disk->list);
	disk->registered = false;
	mutex_unlock(&disk_list_lock);
	if (disk->queue)
		blk_cleanup_queue(disk->queue);
}

void put_disk(struct gendisk *disk)
{
	if (!disk)
		return;
	for (int i = 0; i < DISK_MAX_PARTS; i++)
		kfree(disk->part[i]);
	kfree(disk);
	mutex_lock(&disk_list_lock);
	nr_gendisks--;
	mutex_unlock(&disk_list_lock);
}

unsigned long blk_nr_gendisks(void)
{
	unsigned long n;

	mutex_lock(&disk_list_lock);
	n = nr_gendisks;
	mutex_unlock(&disk_list_lock);
	return n;
}

/* "8:1" -> *dev; false if name is not <major>:<minor> (then it is a name). */
static bool parse_dev_t(const char *name, dev_t *dev)
{
	const char *colon = strchr(name, ':');
	unsigned int major, minor;
	char buf[16];

	if (!colon || (size_t)(colon - name) >= sizeof(buf))
		return false;
	strlcpy(buf, name, colon - name + 1);
	if (kstrtouint(buf, 10, &major) || kstrtouint(colon + 1, 10, &minor) ||
	    minor >= (1u << MINORBITS))
		return false;
	*dev = MKDEV(major, minor);
	return true;
}

struct block_device *lookup_bdev(const char *name)
{
	struct block_device *found = NULL;
	struct gendisk *disk;
	dev_t dev;
	bool by_dev = parse_dev_t(name, &dev);

	mutex_lock(&disk_list_lock);
	list_for_each_entry(disk, &disk_list, list)
		for (int i = 0; i < DISK_MAX_PARTS && !found; i++)
			if (disk->part[i] && (by_dev ? disk->part[i]->bd_dev == dev :
					      strcmp(disk->part[i]->bd_name, name) == 0))
				found = disk->part[i];
	mutex_unlock(&disk_list_lock);
	return found;
}

/* /proc/partitions, in Linux's format: sizes in 1 KiB blocks. */
int blk_show_partitions(char *buf, size_t size)
{
	struct gendisk *disk;
	int n = scnprintf(buf, size, "major minor  #blocks  name\n\n");

	mutex_lock(&disk_list_lock);
	list_for_each_entry(disk, &disk_list, list)
		for (int i = 0; i < DISK_MAX_PARTS; i++) {
			struct block_device *b = disk->part[i];

			if (b)
				n += scnprintf(buf + n, size - n, "%4u  %7u %10llu %s\n",
					       MAJOR(b->bd_dev), MINOR(b->bd_dev),
					       (unsigned long long)b->bd_nr_sectors / 2, b->bd_name);
		}
	mutex_unlock(&disk_list_lock);
	return n;
}

/*
 * /proc/diskstats, Linux's 20 fields per line: reads (completed, merged,
 * sectors, ms), writes (the same four), I/Os in flight, ms doing I/O,
 * weighted ms, discards (four), flushes (completed, ms).
 */
int blk_show_diskstats(char *buf, size_t size)
{
	struct gendisk *disk;
	int n = 0;

	mutex_lock(&disk_list_lock);
	list_for_each_entry(disk, &disk_list, list)
		for (int i = 0; i < DISK_MAX_PARTS; i++) {
			struct block_device *b = disk->part[i];
			struct disk_stats st;

			if (!b)
				continue;
			part_stat_read_all(b, &st);
#define MS(ns) ((unsigned long long)((ns) / NSEC_PER_MSEC))
#define U(x) ((unsigned long long)(x))
			n += scnprintf(buf + n, size - n,
				       "%4u %7u %s %llu %llu %llu %llu %llu %llu %llu %llu %lu %llu %llu "
				       "%llu %llu %llu %llu %llu %llu\n",
				       MAJOR(b->bd_dev), MINOR(b->bd_dev), b->bd_name,
				       U(st.ios[STAT_READ]), U(st.merges[STAT_READ]),
				       U(st.sectors[STAT_READ]), MS(st.nsecs[STAT_READ]),
				       U(st.ios[STAT_WRITE]), U(st.merges[STAT_WRITE]),
				       U(st.sectors[STAT_WRITE]), MS(st.nsecs[STAT_WRITE]),
				       disk_stats_in_flight(&st), U(st.io_ticks_ms),
				       MS(disk_stats_time_in_queue_ns(&st)),
				       U(st.ios[STAT_DISCARD]), U(st.merges[STAT_DISCARD]),
				       U(st.sectors[STAT_DISCARD]), MS(st.nsecs[STAT_DISCARD]),
				       U(st.ios[STAT_FLUSH]), MS(st.nsecs[STAT_FLUSH]));
#undef MS
#undef U
		}
	mutex_unlock(&disk_list_lock);
	return n;
}
