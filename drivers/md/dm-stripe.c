// SPDX-License-Identifier: MIT
/*
 * dm-stripe.c - the "striped" target: RAID 0 over several devices.
 *
 *   <start> <length> striped <num_stripes> <chunk_size> <dev0> <offset0> [<dev1> <offset1> ...]
 *
 * The target is cut into chunks of chunk_size sectors (a power of two),
 * dealt out to the stripes in turn:
 *
 *   target:  | c0 | c1 | c2 | c3 | c4 | c5 | ...      chunk c goes to
 *   dev0:    | c0 | c2 | c4 | ...                     stripe c % N, at
 *   dev1:    | c1 | c3 | c5 | ...                     chunk c / N there
 *
 * so <length> must be a multiple of num_stripes * chunk_size, and each
 * stripe uses length / num_stripes sectors of its device from its offset.
 *
 * A bio that crosses a chunk boundary is split there, from the mapped
 * device's bioset, as bio_split() always is: the rest is submitted with
 * generic_make_request() and only the front is mapped now.  The split
 * itself is done by the core (dm.c, dm_make_request), told the boundary
 * by ti->max_io_len = chunk_size, because the core may already have
 * split the same bio at the target's end: doing both in one call would
 * take two bios from a one-bio reserve, and the second would wait for the
 * first -- which sits, unsubmitted, on this task's own bio_list.  So
 * map() below always gets a piece inside one chunk, and only remaps it.
 *
 * An empty flush reaches every stripe: num_flush_bios = num_stripes.
 * Where it sits: dm.c above, the stripe devices below.
 */
#define pr_fmt(fmt) "device-mapper: striped: " fmt
#include <spindle/init.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include "dm.h"

#define STRIPES_MAX     16

struct stripe {
	struct dm_dev *dev;
	sector_t physical_start;        /* its offset on dev */
};

struct stripe_c {
	unsigned int stripes;
	unsigned int chunk_shift;       /* chunk_size == 1 << chunk_shift */
	sector_t chunk_mask;
	struct stripe stripe[];
};

static void stripe_put_devices(struct dm_target *ti, struct stripe_c *sc, unsigned int n)
{
	while (n--)
		dm_put_device(ti, sc->stripe[n].dev);
}

static int stripe_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	unsigned int stripes, chunk, i;
	struct stripe_c *sc;
	sector_t width;

	if (argc < 2 || kstrtouint(argv[0], 10, &stripes) || kstrtouint(argv[1], 10, &chunk)) {
		ti->error = "expected <num_stripes> <chunk_size> <dev> <offset>...";
		return -EINVAL;
	}
	if (stripes == 0 || stripes > STRIPES_MAX) {
		ti->error = "num_stripes must be 1..16";
		return -EINVAL;
	}
	if (!is_power_of_2(chunk)) {
		ti->error = "chunk_size must be a power of two (sectors)";
		return -EINVAL;
	}
	if (argc != 2 + 2 * stripes) {
		ti->error = "expected a <dev> <offset> pair per stripe";
		return -EINVAL;
	}
	if (ti->len % ((sector_t)stripes * chunk)) {
		ti->error = "length is not a multiple of num_stripes * chunk_size";
		return -EINVAL;
	}
	width = ti->len / stripes;

	sc = kzalloc(sizeof(*sc) + stripes * sizeof(sc->stripe[0]), GFP_KERNEL);
	if (!sc) {
		ti->error = "out of memory";
		return -ENOMEM;
	}
	sc->stripes = stripes;
	sc->chunk_shift = __builtin_ctz(chunk);
	sc->chunk_mask = chunk - 1;
	for (i = 0; i < stripes; i++) {
		unsigned long long start;
		int err;

		if (kstrtoull(argv[3 + 2 * i], 10, &start)) {
			ti->error = "bad offset";
			stripe_put_devices(ti, sc, i);
			kfree(sc);
			return -EINVAL;
		}
		sc->stripe[i].physical_start = start;
		err = dm_get_device(ti, argv[2 + 2 * i], start, width, &sc->stripe[i].dev);
		if (err) {
			stripe_put_devices(ti, sc, i);
			kfree(sc);
			return err;
		}
	}
	ti->max_io_len = chunk;         /* the core splits at chunk boundaries */
	ti->num_flush_bios = stripes;
	ti->private = sc;
	return 0;
}

static void stripe_dtr(struct dm_target *ti)
{
	struct stripe_c *sc = ti->private;

	stripe_put_devices(ti, sc, sc->stripes);
	kfree(sc);
}

/* Does not sleep. */
static int stripe_map(struct dm_target *ti, struct bio *bio)
{
	/* LAB 6 BEGIN */
	struct stripe_c *sc = ti->private;
	sector_t offset = dm_target_offset(ti, bio->bi_iter.bi_sector);
	sector_t chunk = offset >> sc->chunk_shift;
	unsigned int s;

	if (!bio_sectors(bio)) {
		/* an empty flush: copy k goes to stripe k */
		s = dm_bio_get_target_bio_nr(ti, bio);
		bio_set_dev(bio, sc->stripe[s].dev->bdev);
		bio->bi_iter.bi_sector = sc->stripe[s].physical_start;
		return DM_MAPIO_REMAPPED;
	}
	/* The core's promise (max_io_len): the piece is inside one chunk. */
	BUG_ON((offset & sc->chunk_mask) + bio_sectors(bio) > sc->chunk_mask + 1);
	s = chunk % sc->stripes;
	chunk /= sc->stripes;                   /* the chunk's place on its stripe */
	bio_set_dev(bio, sc->stripe[s].dev->bdev);
	bio->bi_iter.bi_sector = sc->stripe[s].physical_start +
				 (chunk << sc->chunk_shift) + (offset & sc->chunk_mask);
	return DM_MAPIO_REMAPPED;
	/* LAB 6 END: (void)ti; (void)bio; return DM_MAPIO_KILL; */
}

static struct target_type stripe_target = {
	.name = "striped",
	.ctr  = stripe_ctr,
	.dtr  = stripe_dtr,
	.map  = stripe_map,
};

static int __init dm_stripe_init(void)
{
	return dm_register_target(&stripe_target);
}
subsys_initcall(dm_stripe_init);
