// SPDX-License-Identifier: MIT
/*
 * dm-flakey.c - the "flakey" target: a device that works, then fails, in
 * turns -- for testing what sits above a failing disk (raid1, a
 * filesystem's error path).
 *
 *   <start> <length> flakey <dev> <offset> <up_interval> <down_interval>
 *                           [<num_features> <feature>...]
 *
 * Intervals are in seconds, counted from when the table was created:
 *
 *   0        up         up+down         2*up+down
 *   |---- up ----|-- down --|---- up ----|-- down --| ...
 *
 * Up, it is linear.  Down, with no feature, every bio fails with
 * BLK_STS_IOERR.  Features (Linux's names):
 *   drop_writes   writes complete successfully but are not written;
 *                 reads pass
 *   error_writes  writes fail; reads pass
 * (up_interval 0: down from the start; down_interval 0: never down.)
 * Not here: corrupt_bio_byte, random_read_corrupt and the other Linux
 * features.  Where it sits: dm.c above, dev below.
 */
#define pr_fmt(fmt) "device-mapper: flakey: " fmt
#include <spindle/init.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include "dm.h"

#define FLAKEY_INTERVAL_MAX_S   (24 * 3600)     /* a day: plenty for a test */

struct flakey_c {
	struct dm_dev *dev;
	sector_t start;
	u64 start_ns;                   /* table creation (ktime_get_ns) */
	unsigned int up_interval;       /* seconds */
	unsigned int down_interval;     /* seconds */
	bool drop_writes;
	bool error_writes;
};

static int flakey_parse_features(struct dm_target *ti, struct flakey_c *fc,
				 unsigned int argc, char **argv)
{
	unsigned int n;

	if (argc == 0)
		return 0;
	if (kstrtouint(argv[0], 10, &n) || n != argc - 1) {
		ti->error = "expected <num_features> and that many features";
		return -EINVAL;
	}
	for (unsigned int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "drop_writes") == 0) {
			fc->drop_writes = true;
		} else if (strcmp(argv[i], "error_writes") == 0) {
			fc->error_writes = true;
		} else {
			ti->error = "unknown feature (drop_writes, error_writes)";
			return -EINVAL;
		}
	}
	if (fc->drop_writes && fc->error_writes) {
		ti->error = "drop_writes and error_writes exclude each other";
		return -EINVAL;
	}
	return 0;
}

static int flakey_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct flakey_c *fc;
	unsigned long long start;
	int err;

	if (argc < 4) {
		ti->error = "expected <dev> <offset> <up_interval> <down_interval> [<num_features> <features>...]";
		return -EINVAL;
	}
	fc = kzalloc(sizeof(*fc), GFP_KERNEL);
	if (!fc) {
		ti->error = "out of memory";
		return -ENOMEM;
	}
	err = -EINVAL;
	if (kstrtoull(argv[1], 10, &start)) {
		ti->error = "bad offset";
		goto out_free;
	}
	if (kstrtouint(argv[2], 10, &fc->up_interval) ||
	    kstrtouint(argv[3], 10, &fc->down_interval) ||
	    fc->up_interval > FLAKEY_INTERVAL_MAX_S ||
	    fc->down_interval > FLAKEY_INTERVAL_MAX_S ||
	    fc->up_interval + fc->down_interval == 0) {
		ti->error = "bad intervals (seconds, not both 0)";
		goto out_free;
	}
	err = flakey_parse_features(ti, fc, argc - 4, argv + 4);
	if (err)
		goto out_free;
	fc->start = start;
	err = dm_get_device(ti, argv[0], fc->start, ti->len, &fc->dev);
	if (err)
		goto out_free;
	fc->start_ns = ktime_get_ns();
	ti->private = fc;
	return 0;

out_free:
	kfree(fc);
	return err;
}

static void flakey_dtr(struct dm_target *ti)
{
	struct flakey_c *fc = ti->private;

	dm_put_device(ti, fc->dev);
	kfree(fc);
}

/* In the down part of its cycle now?  (as Linux: whole seconds) */
static bool flakey_is_down(const struct flakey_c *fc)
{
	u64 elapsed_s = (ktime_get_ns() - fc->start_ns) / NSEC_PER_SEC;

	return elapsed_s % (fc->up_interval + fc->down_interval) >= fc->up_interval;
}

/* Does not sleep. */
static int flakey_map(struct dm_target *ti, struct bio *bio)
{
	struct flakey_c *fc = ti->private;

	if (flakey_is_down(fc)) {
		if (!fc->drop_writes && !fc->error_writes)
			return DM_MAPIO_KILL;
		if (bio_is_write(bio)) {
			if (fc->error_writes)
				return DM_MAPIO_KILL;
			bio_endio(bio);         /* drop_writes: "done", never written */
			return DM_MAPIO_SUBMITTED;
		}
		/* a read while only writes misbehave: as when up */
	}
	bio_set_dev(bio, fc->dev->bdev);
	bio->bi_iter.bi_sector = fc->start + dm_target_offset(ti, bio->bi_iter.bi_sector);
	return DM_MAPIO_REMAPPED;
}

static struct target_type flakey_target = {
	.name = "flakey",
	.ctr  = flakey_ctr,
	.dtr  = flakey_dtr,
	.map  = flakey_map,
};

static int __init dm_flakey_init(void)
{
	return dm_register_target(&flakey_target);
}
subsys_initcall(dm_flakey_init);
