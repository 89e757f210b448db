// SPDX-License-Identifier: MIT
/*
 * dm.c - the device-mapper core: mapped devices dm-0, dm-1, ... (major
 * 253), their tables, and the make_request_fn that cuts bios into pieces
 * for the targets (dm.h has the target interface, docs/dm.md the tour).
 *
 * Where it sits: above it, anything that submits bios to dm-N; below it,
 * the targets, which point each piece at a device further down (brd,
 * a partition, another dm device) and resubmit it.  So a bio crosses the
 * bio layer once per level, and generic_make_request()'s recursion
 * avoidance (Linux commit 79bd99596b73) is what keeps the kernel stack flat.
 *
 * Creating devices (Linux's dm-init syntax; dm-init.c cuts the text into
 * fields and lines and checks them, this file builds what they describe):
 *
 *   dm-mod.create="<name>,<uuid>,<minor>,<flags>,<table>[,<table>...][;<next device>...]"
 *   <table> = <start_sector> <num_sectors> <target_type> <target_args...>
 *
 * uuid and minor may be empty (minor: the lowest free; the disk is
 * dm-<minor>); flags are "ro" or "rw".  The quotes keep the spaces in one
 * command-line word (kernel/cmdline.c strips them).  Table lines must
 * follow each other without gap or overlap from sector 0; any error --
 * unknown target, bad arguments, missing device, gap -- prints why and
 * creates nothing (and no later device, which may have stacked on it).
 * Devices are created by a device_initcall linked after brd and null_blk
 * (the Makefile's DRIVER_OBJS order), so their disks exist, and before
 * blk-boot.c's late_initcall runs pattern= on them.  On success, as Linux:
 *
 *   device-mapper: init: dm-0 (lin) is ready
 *
 * Boot option dm_mod.reserved_bio_based_ios=<n> (Linux's module
 * parameter, default 16): the bios each device keeps in reserve.
 *
 * The I/O path, dm_make_request():
 *
 *   1. find the target holding the bio's first sector (binary search);
 *   2. the piece that fits: up to the target's end and its next
 *      max_io_len boundary (striped: the chunk);
 *   3. take ONE bio from the device's bioset: the split-off front if the
 *      bio goes further (bio_split), else a clone of it all
 *      (bio_clone_fast); chain it to the bio (bio_chain);
 *   4. if the bio goes further, submit the rest with
 *      generic_make_request() -- it is only queued, and runs after
 *      everything this piece leads to has (bio_order=depth) -- the rule
 *      of Linux commit 79bd99596b73 for drivers that split: queue one
 *      half, handle the other;
 *   5. map the piece (target->map) and submit it where the target says;
 *   6. after the last piece, end the original once: it then completes
 *      when every piece has (bio_chain counts them), first error winning.
 *
 * Every piece is a new bio, never the submitted one, so the submitter's
 * bio keeps its device and sector for /proc/diskstats and completes at
 * this level (Linux clones too).  One allocation per call to
 * make_request_fn is the other half of Linux commit 79bd99596b73: a second allocation
 * could wait for the first, which is only queued on this task's
 * bio_list, behind the waiter.
 *
 * Why the bioset is BIOSET_RESERVE_ONLY: Linux's takes bios from the
 * general allocator first and touches the reserve only when memory is
 * short, so the deadlock of the old FIFO bio order there needs memory pressure -- rare, and
 * never twice the same.  Here the reserve is the only source: with
 * dm_mod.reserved_bio_based_ios=1, a striped device's second split of a
 * bio waits for its first piece every time, and under bio_order=fifo that
 * piece is still queued behind the waiter: the lab's deadlock
 * (tests/qemu/scenarios/deadlock-fifo.scn) happens on every boot.  The
 * cost is a cap on pieces in flight per device: a throttle, not a failure.
 *
 * REQ_NOWAIT: the bio must not sleep, so its piece is taken with
 * GFP_ATOMIC; an empty reserve ends it with BLK_STS_AGAIN
 * (bio_wouldblock_error) instead of waiting.
 *
 * Not here (Linux has them): table reload, suspend/resume, ioctls,
 * dmsetup, per-bio data, partitions on dm devices.
 *
 * Context: dm_make_request() may sleep (GFP_NOIO) unless REQ_NOWAIT;
 * creating and removing devices take dm_mutex (then genhd's list lock).
 */
#define pr_fmt(fmt) "device-mapper: " fmt
#include <spindle/blkdev.h>
#include <spindle/init.h>
#include <spindle/mutex.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include "dm.h"

#define RESERVED_BIO_BASED_IOS     16      /* Linux's default */
#define RESERVED_BIO_BASED_IOS_MAX 1024
#define DM_MINORS                  1       /* no partitions on dm devices */

static unsigned int reserved_bio_based_ios = RESERVED_BIO_BASED_IOS;
static LIST_HEAD(target_types);
static LIST_HEAD(mapped_devices);
static DEFINE_MUTEX(dm_mutex);          /* both lists, creation, removal */

/* dm-mod.create= values, in command-line order, until the initcall. */
struct dm_create_arg {
	struct list_head list;
	char spec[];
};
static LIST_HEAD(create_args);

/* --- boot options ----------------------------------------------------- */

static int __init dm_reserved_ios_setup(const char *val)
{
	unsigned int n;

	if (kstrtouint(val, 0, &n) || n == 0 || n > RESERVED_BIO_BASED_IOS_MAX)
		return -EINVAL;
	reserved_bio_based_ios = n;
	return 0;
}
__setup("dm_mod.reserved_bio_based_ios=", dm_reserved_ios_setup);

static int __init dm_create_setup(const char *val)
{
	struct dm_create_arg *a = kmalloc(sizeof(*a) + strlen(val) + 1, GFP_KERNEL);

	if (!a)
		return -ENOMEM;
	memcpy(a->spec, val, strlen(val) + 1);
	list_add_tail(&a->list, &create_args);
	return 0;
}
__setup("dm-mod.create=", dm_create_setup);

unsigned int dm_get_reserved_bio_based_ios(void)
{
	return reserved_bio_based_ios;
}

/* --- target types ------------------------------------------------------- */

int dm_register_target(struct target_type *tt)
{
	mutex_lock(&dm_mutex);
	list_add_tail(&tt->list, &target_types);
	mutex_unlock(&dm_mutex);
	return 0;
}

static struct target_type *dm_find_target_type(const char *name)
{
	struct target_type *tt;

	list_for_each_entry(tt, &target_types, list)
		if (strcmp(tt->name, name) == 0)
			return tt;
	return NULL;
}

/* --- devices below ------------------------------------------------------ */

/* ti->error for messages with a device name in them (tables are only
 * built with dm_mutex held, so one buffer serves). */
static char dm_error_buf[96];

int dm_get_device(struct dm_target *ti, const char *path, sector_t start,
		  sector_t len, struct dm_dev **result)
{
	struct dm_table *t = ti->table;
	struct block_device *bdev;
	struct dm_dev *d;

	if (strncmp(path, "/dev/", 5) == 0)
		path += 5;
	bdev = lookup_bdev(path);
	if (!bdev) {
		snprintf(dm_error_buf, sizeof(dm_error_buf), "device %s not found", path);
		ti->error = dm_error_buf;
		return -ENXIO;
	}
	if (start > bdev_nr_sectors(bdev) || len > bdev_nr_sectors(bdev) - start) {
		snprintf(dm_error_buf, sizeof(dm_error_buf),
			 "%s too small: %llu sectors, target needs %llu from %llu",
			 bdev->bd_name, (unsigned long long)bdev_nr_sectors(bdev),
			 (unsigned long long)len, (unsigned long long)start);
		ti->error = dm_error_buf;
		return -EINVAL;
	}
	list_for_each_entry(d, &t->devices, list) {
		if (d->bdev == bdev) {
			d->count++;
			*result = d;
			return 0;
		}
	}
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d) {
		ti->error = "out of memory";
		return -ENOMEM;
	}
	/* As Linux's exclusive open: one mapped device per device below,
	 * and not one whose disk or partition someone else holds. */
	if (bd_claim(bdev, t->md)) {
		kfree(d);
		snprintf(dm_error_buf, sizeof(dm_error_buf), "%s is in use", bdev->bd_name);
		ti->error = dm_error_buf;
		return -EBUSY;
	}
	d->bdev = bdev;
	d->count = 1;
	list_add_tail(&d->list, &t->devices);
	*result = d;
	return 0;
}

void dm_put_device(struct dm_target *ti, struct dm_dev *d)
{
	(void)ti;
	if (--d->count)
		return;
	bd_release(d->bdev, ti->table->md);
	list_del(&d->list);
	kfree(d);
}

/* --- tables --------------------------------------------------------------- */

static struct dm_table *dm_table_create(struct mapped_device *md, unsigned int max_targets)
{
	struct dm_table *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return NULL;
	t->targets = kcalloc(max_targets, sizeof(*t->targets), GFP_KERNEL);
	if (!t->targets) {
		kfree(t);
		return NULL;
	}
	t->md = md;
	INIT_LIST_HEAD(&t->devices);
	return t;
}

static void dm_table_destroy(struct dm_table *t)
{
	for (unsigned int i = t->num_targets; i-- > 0; )
		if (t->targets[i].type->dtr)
			t->targets[i].type->dtr(&t->targets[i]);
	BUG_ON(!list_empty(&t->devices));       /* a dtr forgot dm_put_device */
	kfree(t->targets);
	kfree(t);
}

static sector_t dm_table_size(const struct dm_table *t)
{
	const struct dm_target *last = &t->targets[t->num_targets - 1];

	return last->begin + last->len;
}

/*
 * Add one table line, parsed and checked by dm_parse_table_entry()
 * (dm-init.c): it starts where the last one ended, so the targets stay
 * sorted and contiguous.  Here: its type must exist, and its constructor
 * accept its arguments.  Prints why on error.
 */
static int dm_table_add_target(struct dm_table *t, struct dm_table_entry *te)
{
	const char *dev = t->md->disk->disk_name, *name = t->md->name;
	struct dm_target *ti;
	struct target_type *tt;
	int err;

	tt = dm_find_target_type(te->type);
	if (!tt) {
		pr_warn("table: %s (%s): unknown target type '%s'\n", dev, name, te->type);
		return -EINVAL;
	}
	ti = &t->targets[t->num_targets];
	*ti = (struct dm_target){
		.table = t, .type = tt, .begin = te->begin, .len = te->len,
		.num_flush_bios = 1,
	};
	err = tt->ctr(ti, te->argc, te->argv);
	if (err) {
		pr_warn("table: %s (%s): %s: %s (%d)\n", dev, name, tt->name,
			ti->error ? ti->error : "constructor failed", err);
		return err;
	}
	t->num_targets++;
	return 0;
}

/* The target holding sector (NULL past the end): binary search, as the
 * targets are sorted and contiguous. */
static struct dm_target *dm_table_find_target(struct dm_table *t, sector_t sector)
{
	unsigned int lo = 0, hi = t->num_targets;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		struct dm_target *ti = &t->targets[mid];

		if (sector < ti->begin)
			hi = mid;
		else if (sector - ti->begin >= ti->len)
			lo = mid + 1;
		else
			return ti;
	}
	return NULL;
}

/* --- the I/O path ---------------------------------------------------------- */

/* How many sectors from sector on the target may take in one piece. */
static sector_t dm_max_io_len(const struct dm_target *ti, sector_t sector)
{
	sector_t offset = dm_target_offset(ti, sector);
	sector_t len = ti->len - offset;

	if (ti->max_io_len)
		len = min(len, ti->max_io_len - offset % ti->max_io_len);
	return len;
}

/* Give a piece to its target and do what the target says. */
static void dm_map_piece(struct dm_target *ti, struct bio *piece)
{
	int r = ti->type->map(ti, piece);

	switch (r) {
	case DM_MAPIO_REMAPPED:
		generic_make_request(piece);
		break;
	case DM_MAPIO_SUBMITTED:
		break;
	case DM_MAPIO_KILL:
		bio_io_error(piece);
		break;
	default:
		panic("dm: target %s: map returned %d", ti->type->name, r);
	}
}

/*
 * An empty flush has no sectors to split by, so it walks the table
 * instead: its bi_sector is the cursor (an empty flush arrives with 0,
 * as blkdev_issue_flush sends it).  Cursor begin + k is the k-th of the
 * target's num_flush_bios copies; the next one is begin + k + 1, or the
 * next target's begin.  Returns the cursor after this one.
 */
static sector_t dm_flush_next(const struct dm_target *ti, sector_t sector)
{
	if (dm_target_offset(ti, sector) + 1 < ti->num_flush_bios)
		return sector + 1;
	return ti->begin + ti->len;
}

static void dm_make_request(struct request_queue *q, struct bio *bio)
{
	struct mapped_device *md = q->queuedata;
	/* REQ_NOWAIT: do not sleep for a bio, fail with BLK_STS_AGAIN */
	gfp_t gfp = bio->bi_opf & REQ_NOWAIT ? GFP_ATOMIC : GFP_NOIO;
	sector_t sector = bio->bi_iter.bi_sector;
	struct dm_target *ti = dm_table_find_target(md->map, sector);
	sector_t len = 0, next = 0;
	struct bio *piece;
	bool last;

	if (!ti || (md->read_only && bio_is_write(bio))) {
		bio_io_error(bio);
		return;
	}
	if (bio_sectors(bio)) {
		len = dm_max_io_len(ti, sector);
		last = bio_sectors(bio) <= len;
	} else {
		next = dm_flush_next(ti, sector);
		last = next >= dm_table_size(md->map);
	}

	/* The one allocation of this call (see the top of the file). */
	if (last || !bio_sectors(bio))
		piece = bio_clone_fast(bio, gfp, &md->bs);
	else
		piece = bio_split(bio, len, gfp, &md->bs);
	if (!piece) {
		bio_wouldblock_error(bio);      /* only REQ_NOWAIT gets here */
		return;
	}
	bio_chain(piece, bio);

	if (!last) {
		/* Queue the rest; it comes back here after the piece has gone
		 * all the way down (Linux commit 79bd99596b73).  Do not touch bio after this. */
		if (!bio_sectors(bio))
			bio->bi_iter.bi_sector = next;
		generic_make_request(bio);
	}
	dm_map_piece(ti, piece);
	if (last)
		bio_endio(bio);         /* its own count: done when the pieces are */
}

/* --- mapped devices ------------------------------------------------------- */

static struct mapped_device *dm_find_md(const char *name)
{
	struct mapped_device *md;

	list_for_each_entry(md, &mapped_devices, list)
		if (strcmp(md->name, name) == 0 || strcmp(md->disk->disk_name, name) == 0)
			return md;
	return NULL;
}

static bool dm_minor_in_use(int minor)
{
	struct mapped_device *md;

	list_for_each_entry(md, &mapped_devices, list)
		if (md->minor == minor)
			return true;
	return false;
}

static void dm_free_md(struct mapped_device *md)
{
	bioset_exit(&md->bs);
	put_disk(md->disk);
	kfree(md->queue);
	kfree(md);
}

/* A mapped device with its disk and bioset, not yet registered. */
static struct mapped_device *dm_alloc_md(const char *name, const char *uuid,
					 int minor, bool ro)
{
	struct mapped_device *md = kzalloc(sizeof(*md), GFP_KERNEL);

	if (!md)
		return NULL;
	strlcpy(md->name, name, sizeof(md->name));
	strlcpy(md->uuid, uuid, sizeof(md->uuid));
	md->minor = minor;
	md->read_only = ro;
	INIT_LIST_HEAD(&md->list);
	md->queue = blk_alloc_queue(dm_make_request, md);
	if (!md->queue)
		goto out_free_md;
	md->disk = alloc_disk(DM_MINORS);
	if (!md->disk)
		goto out_free_queue;
	snprintf(md->disk->disk_name, DISK_NAME_LEN, "dm-%d", minor);
	md->disk->major = DM_MAJOR;
	md->disk->first_minor = minor;
	md->disk->queue = md->queue;
	md->disk->private_data = md;
	if (bioset_init(&md->bs, md->disk->disk_name, reserved_bio_based_ios, 0,
			BIOSET_RESERVE_ONLY))
		goto out_put_disk;
	return md;

out_put_disk:
	put_disk(md->disk);
out_free_queue:
	kfree(md->queue);
out_free_md:
	kfree(md);
	return NULL;
}

/*
 * What the parser (dm-init.c) cannot know: are the name and the minor
 * free?  *minor becomes the one to use.  Prints why on error.  Called with
 * dm_mutex held.
 */
static int dm_check_free(const struct dm_device_entry *de, int *minor)
{
	int m;

	if (dm_find_md(de->name)) {
		pr_warn("init: %s: name already in use\n", de->name);
		return -EBUSY;
	}
	if (de->minor >= 0) {
		if (dm_minor_in_use(de->minor)) {
			pr_warn("init: %s: minor %d already in use\n", de->name, de->minor);
			return -EBUSY;
		}
		*minor = de->minor;
		return 0;
	}
	for (m = 0; dm_minor_in_use(m); m++)
		;
	*minor = m;
	return 0;
}

/* One device: "<name>,<uuid>,<minor>,<flags>,<table>[,<table>...]"
 * (modified in place). */
static int dm_create_one(char *spec, struct mapped_device **result)
{
	char why[DM_PARSE_WHY_LEN];
	struct dm_device_entry de;
	struct dm_table_entry te;
	struct mapped_device *md;
	struct dm_table *t;
	sector_t start = 0;
	int minor, err;

	err = dm_parse_device_entry(spec, &de, why, sizeof(why));
	if (err) {
		pr_warn("init: %s\n", why);
		return err;
	}
	err = dm_check_free(&de, &minor);
	if (err)
		return err;

	md = dm_alloc_md(de.name, de.uuid, minor, de.ro);
	if (!md)
		return -ENOMEM;
	t = dm_table_create(md, de.nr_lines);
	if (!t) {
		err = -ENOMEM;
		goto out_free_md;
	}
	while ((err = dm_parse_table_entry(&de.table, start, &te, why, sizeof(why))) > 0) {
		err = dm_table_add_target(t, &te);
		if (err)
			goto out_destroy_table;
		start = te.begin + te.len;
	}
	if (err) {
		pr_warn("table: %s (%s): %s\n", md->disk->disk_name, md->name, why);
		goto out_destroy_table;
	}
	md->map = t;
	set_capacity(md->disk, dm_table_size(t));
	err = add_disk(md->disk);
	if (err)
		goto out_destroy_table;
	list_add_tail(&md->list, &mapped_devices);
	pr_info("init: %s (%s) is ready\n", md->disk->disk_name, md->name);
	*result = md;
	return 0;

out_destroy_table:
	dm_table_destroy(t);
out_free_md:
	dm_free_md(md);
	pr_warn("init: %s: device not created\n", de.name);
	return err;
}

int dm_create(const char *spec, struct mapped_device **last)
{
	size_t size = strlen(spec) + 1;
	char *copy = kmalloc(size, GFP_KERNEL), *p = copy, *dev;
	struct mapped_device *md = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, spec, size);
	mutex_lock(&dm_mutex);
	while (!err && (dev = dm_next_device(&p)) != NULL)
		err = dm_create_one(dev, &md);
	mutex_unlock(&dm_mutex);
	kfree(copy);
	if (last)
		*last = md;
	return err;
}

int dm_destroy(struct mapped_device *md)
{
	mutex_lock(&dm_mutex);
	if (md->disk->part[0]->bd_holder) {
		mutex_unlock(&dm_mutex);
		return -EBUSY;                  /* a leg of another device */
	}
	list_del(&md->list);
	mutex_unlock(&dm_mutex);
	del_gendisk(md->disk);                  /* refuses new bios, waits for entered ones */
	dm_table_destroy(md->map);              /* targets flush what they hold */
	/* Completions may still be on their way up: wait until every bio of
	 * the set is back in its reserve. */
	while (READ_ONCE(md->bs.pool.curr_nr) < md->bs.pool.min_nr)
		msleep(1);
	dm_free_md(md);
	return 0;
}

struct mapped_device *dm_get_md(const char *name)
{
	struct mapped_device *md;

	mutex_lock(&dm_mutex);
	md = dm_find_md(name);
	mutex_unlock(&dm_mutex);
	return md;
}

/*
 * Create the dm-mod.create= devices.  A device_initcall, linked after
 * brd and null_blk (Makefile), so the disks below exist, and before
 * blk-boot.c's late_initcall, so pattern= can use the new devices.
 */
static int __init dm_init_create(void)
{
	struct dm_create_arg *a, *tmp;
	int err = 0;

	list_for_each_entry_safe(a, tmp, &create_args, list) {
		if (!err)
			err = dm_create(a->spec, NULL);
		list_del(&a->list);
		kfree(a);
	}
	return err;
}
device_initcall(dm_init_create);
