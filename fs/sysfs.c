// SPDX-License-Identifier: MIT
/*
 * sysfs.c - sysfs ("sysfs"): one directory per disk under /sys/block,
 * with Linux's attribute files -- one value each, read as text, some of
 * them writable:
 *
 *   /sys/block/<disk>/size                 capacity in 512-byte sectors
 *   /sys/block/<disk>/dev                  "major:minor"
 *   /sys/block/<disk>/stat                 Linux's 17 I/O counters
 *   /sys/block/<disk>/trace                the disk's blktrace events in
 *                                          blkparse's layout; write 1 to start
 *                                          tracing, 0 to stop (blktrace=<disk>
 *                                          starts it at boot)
 *   /sys/block/<disk>/trace0               the same events in Linux's binary
 *                                          blktrace format (blkparse -i)
 *   /sys/block/<disk>/<part>/{size,start,stat,dev}
 *   /sys/block/<disk>/queue/scheduler      "[mq-deadline] none cscan"; write
 *                                          a name to switch (elevator_switch)
 *   /sys/block/<disk>/queue/nr_requests, max_sectors_kb, max_segments,
 *                                          logical_block_size
 *   /sys/block/<disk>/queue/read_ahead_kb  readahead's limit (the disk's bdi);
 *                                          read and written
 *   /sys/block/<disk>/queue/iosched/<tunable>   the elevator's own, read and
 *                                          written through elv_attr_show/store
 *
 * Directories are looked up by name each time (a dm disk made later shows
 * up); the inode's i_private is the block_device, or the queue.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/blkdev.h>
#include <spindle/elevator.h>
#include <spindle/blktrace.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/writeback.h>
#include "internal.h"
#include "../block/elevator-internal.h"

#define NSEC_PER_MSEC   1000000ull

/* --- attribute texts ------------------------------------------------------------ */

static struct block_device *attr_bdev(struct inode *inode) { return inode->i_private; }
static struct request_queue *attr_queue(struct inode *inode)
{
	return attr_bdev(inode)->bd_disk->queue;
}

static int size_show(struct inode *inode, char *buf, size_t size)
{
	return scnprintf(buf, size, "%llu\n", (unsigned long long)bdev_nr_sectors(attr_bdev(inode)));
}

static int start_show(struct inode *inode, char *buf, size_t size)
{
	return scnprintf(buf, size, "%llu\n", (unsigned long long)attr_bdev(inode)->bd_start_sect);
}

static int dev_show(struct inode *inode, char *buf, size_t size)
{
	dev_t d = attr_bdev(inode)->bd_dev;

	return scnprintf(buf, size, "%u:%u\n", MAJOR(d), MINOR(d));
}

/*
 * Linux's /sys/block/<dev>/stat: 17 fields, each %8 wide -- reads
 * (ios merges sectors ms), writes (the same), in_flight, io_ticks ms,
 * time_in_queue ms, discards (the four), flushes (ios ms).
 */
int sysfs_format_stat(const struct disk_stats *s, char *buf, size_t size)
{
#define MS(ns) ((unsigned long long)((ns) / NSEC_PER_MSEC))
	return scnprintf(buf, size,
		"%8llu %8llu %8llu %8llu %8llu %8llu %8llu %8llu %8u %8llu %8llu "
		"%8llu %8llu %8llu %8llu %8llu %8llu\n",
		(unsigned long long)s->ios[STAT_READ], (unsigned long long)s->merges[STAT_READ],
		(unsigned long long)s->sectors[STAT_READ], MS(s->nsecs[STAT_READ]),
		(unsigned long long)s->ios[STAT_WRITE], (unsigned long long)s->merges[STAT_WRITE],
		(unsigned long long)s->sectors[STAT_WRITE], MS(s->nsecs[STAT_WRITE]),
		s->in_flight, MS(s->io_ticks_ns), MS(s->time_in_queue_ns),
		(unsigned long long)s->ios[STAT_DISCARD], (unsigned long long)s->merges[STAT_DISCARD],
		(unsigned long long)s->sectors[STAT_DISCARD], MS(s->nsecs[STAT_DISCARD]),
		(unsigned long long)s->ios[STAT_FLUSH], MS(s->nsecs[STAT_FLUSH]));
#undef MS
}

static int stat_show(struct inode *inode, char *buf, size_t size)
{
	return sysfs_format_stat(&attr_bdev(inode)->stats, buf, size);
}

static int trace_show(struct inode *inode, char *buf, size_t size)
{
	struct blk_trace *bt = blk_trace_ring(attr_queue(inode));
	unsigned int first, n = 0;

	if (!bt)
		return 0;               /* not traced: echo 1 > trace, or blktrace=<disk> */
	/* the ring keeps the last bt->size events of bt->head recorded */
	first = bt->head > bt->size ? bt->head - bt->size : 0;
	for (unsigned int i = first; i < bt->head && size - n > 160; i++) {
		n += blk_trace_format(bt, &bt->ev[i % bt->size], i + 1, buf + n, size - n);
		n += scnprintf(buf + n, size - n, "\n");
	}
	return n;
}

/* trace0: the same events in Linux's binary blktrace format (what Linux's
 * debugfs block/<dev>/trace0 gives blktrace), for blkparse, btt, iowatcher. */
static int trace0_show(struct inode *inode, char *buf, size_t size)
{
	return (int)blk_trace_binary(blk_trace_ring(attr_queue(inode)), buf, size);
}

static int scheduler_show(struct inode *inode, char *buf, size_t size)
{
	return elv_iosched_show(attr_queue(inode), buf, size);
}

/* "cscan\n" -> "cscan" */
static void strip_newline(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

static int scheduler_store(struct inode *inode, const char *buf, size_t len)
{
	char name[32];

	if (len >= sizeof(name))
		return -EINVAL;
	strlcpy(name, buf, sizeof(name));
	strip_newline(name);
	return elevator_switch(attr_queue(inode), name);
}

static int nr_requests_show(struct inode *inode, char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", attr_queue(inode)->nr_requests);
}

static int max_sectors_kb_show(struct inode *inode, char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", attr_queue(inode)->limits.max_sectors / 2);
}

/* with pages that are not neighbours in memory, a request's real limit */
static int max_segments_show(struct inode *inode, char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", attr_queue(inode)->limits.max_segments);
}

static int lbs_show(struct inode *inode, char *buf, size_t size)
{
	unsigned int lbs = attr_queue(inode)->limits.logical_block_size;

	return scnprintf(buf, size, "%u\n", lbs ? lbs : 512);
}

/* An elevator tunable: the file's name is the tunable's name. */
static int iosched_show(struct inode *inode, char *buf, size_t size)
{
	return elv_attr_show(attr_queue(inode), inode->i_fop_arg, buf, size);
}

static int iosched_store(struct inode *inode, const char *buf, size_t len)
{
	(void)len;
	return elv_attr_store(attr_queue(inode), inode->i_fop_arg, buf);
}

#define ATTR_RO(n, fn)  static const struct pseudo_file attr_##n = { .show = fn }
ATTR_RO(size, size_show);
ATTR_RO(start, start_show);
ATTR_RO(dev, dev_show);
ATTR_RO(stat, stat_show);
/* inflight: reads and writes started and not completed, as Linux's
 * "%8u %8u" -- what bench samples for its max_inflight. */
static int inflight_show(struct inode *inode, char *buf, size_t size)
{
	const struct disk_stats *st = &attr_bdev(inode)->stats;

	return scnprintf(buf, size, "%8u %8u\n", READ_ONCE(st->in_flight_rw[0]),
			 READ_ONCE(st->in_flight_rw[1]));
}
ATTR_RO(inflight, inflight_show);

/*
 * queue/tags_peak -- Spindle's own file, not Linux's: the most tags the
 * driver held at once since it was last reset by writing 0.  It is how
 * bench (user/bin/bench.c, and the kernel's bench=) shows a queue depth
 * at work: NCQ's 32 commands, IDE's one.
 */
static int tags_peak_show(struct inode *inode, char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", READ_ONCE(attr_queue(inode)->tags_peak));
}

static int tags_peak_store(struct inode *inode, const char *buf, size_t len)
{
	if (len < 1 || buf[0] != '0')
		return -EINVAL;
	WRITE_ONCE(attr_queue(inode)->tags_peak, 0);
	return 0;
}
static const struct pseudo_file attr_tags_peak = { .show = tags_peak_show,
						   .store = tags_peak_store };
/*
 * queue/read_ahead_kb: the largest readahead window of the disk's
 * sequential readers (fs/filemap.c), Linux's bdi->ra_pages in KiB.
 */
static int read_ahead_kb_show(struct inode *inode, char *buf, size_t size)
{
	struct backing_dev_info *bdi = bdi_get(attr_bdev(inode)->bd_disk);

	if (!bdi)
		return -ENOMEM;
	return scnprintf(buf, size, "%lu\n", READ_ONCE(bdi->ra_pages) * (PAGE_SIZE / 1024));
}

static int read_ahead_kb_store(struct inode *inode, const char *buf, size_t len)
{
	struct backing_dev_info *bdi = bdi_get(attr_bdev(inode)->bd_disk);
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
static const struct pseudo_file attr_read_ahead_kb = { .show = read_ahead_kb_show,
						       .store = read_ahead_kb_store };
ATTR_RO(nr_requests, nr_requests_show);
ATTR_RO(max_sectors_kb, max_sectors_kb_show);
ATTR_RO(max_segments, max_segments_show);
ATTR_RO(logical_block_size, lbs_show);
/* "1" starts tracing the disk, "0" stops it (blktrace=<disk> starts it at boot). */
static int trace_store(struct inode *inode, const char *buf, size_t len)
{
	struct gendisk *disk = attr_bdev(inode)->bd_disk;

	if (len >= 1 && buf[0] == '1')
		return blk_trace_start(disk);
	if (len >= 1 && buf[0] == '0') {
		blk_trace_stop(disk);
		return 0;
	}
	return -EINVAL;
}

static const struct pseudo_file attr_trace = { .show = trace_show, .store = trace_store,
					       .size_hint = 256 * 1024 };
/* 4096 events of 48 bytes and a payload of at most 16, and the notes */
static const struct pseudo_file attr_trace0 = { .show = trace0_show, .size_hint = 320 * 1024 };
static const struct pseudo_file attr_scheduler = { .show = scheduler_show, .store = scheduler_store };
static const struct pseudo_file attr_iosched = { .show = iosched_show, .store = iosched_store };

struct sysfs_entry {
	const char *name;
	umode_t mode;
	const struct pseudo_file *file;         /* NULL: a directory */
};

static const struct sysfs_entry disk_entries[] = {
	{ "size", 0444, &attr_size }, { "dev", 0444, &attr_dev }, { "stat", 0444, &attr_stat },
	{ "trace", 0644, &attr_trace }, { "trace0", 0444, &attr_trace0 },
	{ "inflight", 0444, &attr_inflight },
	{ "queue", 0555, NULL },
};
static const struct sysfs_entry part_entries[] = {
	{ "size", 0444, &attr_size }, { "start", 0444, &attr_start },
	{ "dev", 0444, &attr_dev }, { "stat", 0444, &attr_stat },
	{ "inflight", 0444, &attr_inflight },
};
static const struct sysfs_entry queue_entries[] = {
	{ "scheduler", 0644, &attr_scheduler },
	{ "nr_requests", 0444, &attr_nr_requests },
	{ "max_sectors_kb", 0444, &attr_max_sectors_kb },
	{ "max_segments", 0444, &attr_max_segments },
	{ "logical_block_size", 0444, &attr_logical_block_size },
	{ "iosched", 0555, NULL },
	{ "tags_peak", 0644, &attr_tags_peak },
	{ "read_ahead_kb", 0644, &attr_read_ahead_kb },
};

/* --- directories ------------------------------------------------------------------ */

static const struct inode_operations disk_dir_iops, part_dir_iops, queue_dir_iops, iosched_dir_iops;
static const struct file_operations disk_dir_fops, part_dir_fops, queue_dir_fops, iosched_dir_fops;

/* Look name up in a table of entries; subdir(name) makes directories. */
static struct dentry *table_lookup(struct inode *dir, struct dentry *dentry,
				   const struct sysfs_entry *t, unsigned int n,
				   const struct inode_operations *subdir_iops,
				   const struct file_operations *subdir_fops)
{
	for (unsigned int i = 0; i < n; i++) {
		struct inode *inode;

		if (strcmp(dentry->d_name, t[i].name) != 0)
			continue;
		inode = t[i].file ? pseudo_new_file(dir->i_sb, t[i].mode, t[i].file, dir->i_private)
				  : pseudo_new_dir(dir->i_sb, subdir_iops, subdir_fops, dir->i_private);
		if (!inode)
			return ERR_PTR(-ENOMEM);
		d_add(dentry, inode);
		return NULL;
	}
	return NULL;
}

static bool table_iterate(struct dir_context *ctx, const struct sysfs_entry *t,
			  unsigned int n, loff_t base)
{
	while (ctx->pos - base >= 0 && ctx->pos - base < (loff_t)n) {
		const struct sysfs_entry *e = &t[ctx->pos - base];

		if (!dir_emit(ctx, e->name, strlen(e->name), 100 + ctx->pos,
			      e->file ? DT_REG : DT_DIR))
			return false;
	}
	return true;
}

/* /sys/block/<disk>: the table, then one directory per partition. */
static struct dentry *disk_lookup(struct inode *dir, struct dentry *dentry)
{
	struct block_device *whole = dir->i_private;
	struct gendisk *disk = whole->bd_disk;

	for (int p = 1; p < DISK_MAX_PARTS; p++)
		if (disk->part[p] && strcmp(disk->part[p]->bd_name, dentry->d_name) == 0) {
			struct inode *inode = pseudo_new_dir(dir->i_sb, &part_dir_iops,
							     &part_dir_fops, disk->part[p]);
			if (!inode)
				return ERR_PTR(-ENOMEM);
			d_add(dentry, inode);
			return NULL;
		}
	return table_lookup(dir, dentry, disk_entries, ARRAY_SIZE(disk_entries),
			    &queue_dir_iops, &queue_dir_fops);
}

static int disk_iterate(struct file *f, struct dir_context *ctx)
{
	struct block_device *whole = f->f_inode->i_private;
	loff_t n = 2 + ARRAY_SIZE(disk_entries);

	if (!dir_emit_dots(f, ctx) || !table_iterate(ctx, disk_entries, ARRAY_SIZE(disk_entries), 2))
		return 0;
	/* partition p sits at position n + p - 1 whether or not the ones
	 * before it exist: BLKRRPART between two calls shifts nothing */
	for (int p = 1; p < DISK_MAX_PARTS; p++) {
		struct block_device *b = whole->bd_disk->part[p];

		if (!b || n + p - 1 < ctx->pos)
			continue;
		ctx->pos = n + p - 1;
		if (!dir_emit(ctx, b->bd_name, strlen(b->bd_name), 500 + p, DT_DIR))
			return 0;
	}
	return 0;
}

static struct dentry *part_lookup(struct inode *dir, struct dentry *dentry)
{
	return table_lookup(dir, dentry, part_entries, ARRAY_SIZE(part_entries), NULL, NULL);
}

static int part_iterate(struct file *f, struct dir_context *ctx)
{
	if (dir_emit_dots(f, ctx))
		table_iterate(ctx, part_entries, ARRAY_SIZE(part_entries), 2);
	return 0;
}

static struct dentry *queue_lookup(struct inode *dir, struct dentry *dentry)
{
	return table_lookup(dir, dentry, queue_entries, ARRAY_SIZE(queue_entries),
			    &iosched_dir_iops, &iosched_dir_fops);
}

static int queue_iterate(struct file *f, struct dir_context *ctx)
{
	if (dir_emit_dots(f, ctx))
		table_iterate(ctx, queue_entries, ARRAY_SIZE(queue_entries), 2);
	return 0;
}

/* The current elevator's tunables (none for a bio-based queue). */
static const struct elv_fs_entry *iosched_attrs(struct block_device *bdev)
{
	struct request_queue *q = bdev->bd_disk->queue;

	return q && q->elevator ? q->elevator->type->elevator_attrs : NULL;
}

static struct dentry *iosched_lookup(struct inode *dir, struct dentry *dentry)
{
	const struct elv_fs_entry *a = iosched_attrs(dir->i_private);

	for (; a && a->name; a++)
		if (strcmp(a->name, dentry->d_name) == 0) {
			struct inode *inode = pseudo_new_file(dir->i_sb, a->store ? 0644 : 0444,
							      &attr_iosched, dir->i_private);
			if (!inode)
				return ERR_PTR(-ENOMEM);
			/* the tunable's name: a static string of the elevator */
			inode->i_fop_arg = a->name;
			d_add(dentry, inode);
			break;
		}
	return NULL;
}

static int iosched_iterate(struct file *f, struct dir_context *ctx)
{
	const struct elv_fs_entry *a = iosched_attrs(f->f_inode->i_private);
	loff_t n = 2;

	if (!dir_emit_dots(f, ctx))
		return 0;
	for (; a && a->name; a++)
		if (n++ >= ctx->pos && !dir_emit(ctx, a->name, strlen(a->name), 300 + n, DT_REG))
			return 0;
	return 0;
}

static const struct inode_operations disk_dir_iops = { .lookup = disk_lookup };
static const struct file_operations disk_dir_fops = { .iterate = disk_iterate };
static const struct inode_operations part_dir_iops = { .lookup = part_lookup };
static const struct file_operations part_dir_fops = { .iterate = part_iterate };
static const struct inode_operations queue_dir_iops = { .lookup = queue_lookup };
static const struct file_operations queue_dir_fops = { .iterate = queue_iterate };
static const struct inode_operations iosched_dir_iops = { .lookup = iosched_lookup };
static const struct file_operations iosched_dir_fops = { .iterate = iosched_iterate };

/* /sys/block: every registered disk (whole disks only). */
static struct dentry *block_lookup(struct inode *dir, struct dentry *dentry)
{
	struct block_device *b = strchr(dentry->d_name, ':') ? NULL : lookup_bdev(dentry->d_name);

	if (b && b->bd_partno == 0) {
		struct inode *inode = pseudo_new_dir(dir->i_sb, &disk_dir_iops, &disk_dir_fops, b);

		if (!inode)
			return ERR_PTR(-ENOMEM);
		d_add(dentry, inode);
	}
	return NULL;
}

/* The registered disk with the smallest whole-disk number >= from. */
static struct gendisk *next_disk(dev_t from)
{
	struct gendisk *disk, *best = NULL;

	list_for_each_entry(disk, &disk_list, list)
		if (disk->part[0] && disk->part[0]->bd_dev >= from &&
		    (!best || disk->part[0]->bd_dev < best->part[0]->bd_dev))
			best = disk;
	return best;
}

/* One directory per disk, by device number: a disk's position is 2 + its
 * dev_t, so a disk that goes away between two calls shifts nothing. */
static int block_iterate(struct file *f, struct dir_context *ctx)
{
	struct gendisk *disk;
	bool more = true;

	if (!dir_emit_dots(f, ctx))
		return 0;
	mutex_lock(&disk_list_lock);
	while (more && ctx->pos - 2 < (loff_t)1 << 32 &&
	       (disk = next_disk((dev_t)(ctx->pos - 2)))) {
		ctx->pos = 2 + disk->part[0]->bd_dev;
		more = dir_emit(ctx, disk->disk_name, strlen(disk->disk_name),
				200 + disk->part[0]->bd_dev, DT_DIR);
	}
	mutex_unlock(&disk_list_lock);
	return 0;
}

static const struct inode_operations block_dir_iops = { .lookup = block_lookup };
static const struct file_operations block_dir_fops = { .iterate = block_iterate };

static struct dentry *sysfs_root_lookup(struct inode *dir, struct dentry *dentry)
{
	if (strcmp(dentry->d_name, "block") == 0) {
		struct inode *inode = pseudo_new_dir(dir->i_sb, &block_dir_iops, &block_dir_fops, NULL);

		if (!inode)
			return ERR_PTR(-ENOMEM);
		d_add(dentry, inode);
	}
	return NULL;
}

static int sysfs_root_iterate(struct file *f, struct dir_context *ctx)
{
	if (dir_emit_dots(f, ctx) && ctx->pos == 2)
		dir_emit(ctx, "block", 5, 3, DT_DIR);
	return 0;
}

static const struct inode_operations sysfs_root_iops = { .lookup = sysfs_root_lookup };
static const struct file_operations sysfs_root_fops = { .iterate = sysfs_root_iterate };

static int sysfs_fill_super(struct super_block *sb)
{
	sb->s_magic = SYSFS_MAGIC;
	sb->s_flags |= SB_I_NOEXEC;    /* generated text is never a program */
	sb->s_root = d_make_root(pseudo_new_dir(sb, &sysfs_root_iops, &sysfs_root_fops, NULL));
	return sb->s_root ? 0 : -ENOMEM;
}

static struct dentry *sysfs_mount(struct file_system_type *type, int flags,
				  const char *dev_name, void *data)
{
	(void)flags; (void)dev_name; (void)data;
	return mount_single(type, sysfs_fill_super);
}

static struct file_system_type sysfs_fs_type = {
	.name = "sysfs", .mount = sysfs_mount,
};

int init_sysfs(void)
{
	return register_filesystem(&sysfs_fs_type);
}
