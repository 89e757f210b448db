// SPDX-License-Identifier: MIT
/*
 * dm-linear.c - the "linear" target: a range of another device.
 *
 *   <start> <length> linear <dev> <offset>
 *
 * Sector s of the target is sector offset + (s - start) of dev.  The
 * simplest target: map() moves the piece and hands it back to the core
 * to submit, the same remap a partition gets in generic_make_request().
 * Tables of several linear lines concatenate devices (LVM's linear
 * volumes).  Where it sits: dm.c above, dev below.
 */
#define pr_fmt(fmt) "device-mapper: linear: " fmt
#include <spindle/init.h>
#include <spindle/string.h>
#include "dm.h"

struct linear_c {
	struct dm_dev *dev;
	sector_t start;                 /* offset on dev, in sectors */
};

static int linear_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct linear_c *lc;
	unsigned long long start;
	int err;

	if (argc != 2) {
		ti->error = "expected <dev> <offset>";
		return -EINVAL;
	}
	if (kstrtoull(argv[1], 10, &start)) {
		ti->error = "bad offset";
		return -EINVAL;
	}
	lc = kzalloc(sizeof(*lc), GFP_KERNEL);
	if (!lc) {
		ti->error = "out of memory";
		return -ENOMEM;
	}
	lc->start = start;
	err = dm_get_device(ti, argv[0], lc->start, ti->len, &lc->dev);
	if (err) {
		kfree(lc);
		return err;
	}
	ti->private = lc;
	return 0;
}

static void linear_dtr(struct dm_target *ti)
{
	struct linear_c *lc = ti->private;

	dm_put_device(ti, lc->dev);
	kfree(lc);
}

/* Does not sleep. */
static int linear_map(struct dm_target *ti, struct bio *bio)
{
	/* LAB 1 BEGIN */
	struct linear_c *lc = ti->private;

	bio_set_dev(bio, lc->dev->bdev);
	bio->bi_iter.bi_sector = lc->start + dm_target_offset(ti, bio->bi_iter.bi_sector);
	return DM_MAPIO_REMAPPED;
	/* LAB 1 END: (void)ti; (void)bio; return DM_MAPIO_KILL; */
}

static struct target_type linear_target = {
	.name = "linear",
	.ctr  = linear_ctr,
	.dtr  = linear_dtr,
	.map  = linear_map,
};

static int __init dm_linear_init(void)
{
	return dm_register_target(&linear_target);
}
subsys_initcall(dm_linear_init);
