/* SPDX-License-Identifier: MIT */
/*
 * dm.h - device-mapper: what the core (dm.c) and its targets (dm-linear.c,
 * dm-stripe.c, dm-flakey.c, dm-delay.c, dm-raid1.c) share.  Private to
 * drivers/md/ (and the dm tests); docs/dm.md is the walk-through.
 *
 * Where it sits in the I/O path: a mapped device dm-N (major 253) is a
 * bio-based disk like brd.  Its make_request_fn (dm.c) cuts each bio into
 * pieces that each lie inside one target and one of the target's
 * max_io_len boundaries, gives each piece to its target's map(), and the
 * target points the piece at a device below -- a RAM disk, a partition,
 * another dm device -- through generic_make_request() again.
 *
 *     bio for dm-2 ──> dm core: find target, split, clone ──> target->map()
 *                                                              │ remap
 *                                       generic_make_request() <┘
 *                                          └──> dm-0 / ram0 / sda1 ...
 *
 * A target type is an ops table, registered by its file at boot:
 *
 *     static struct target_type linear_target = {
 *             .name = "linear", .ctr = linear_ctr,
 *             .dtr = linear_dtr, .map = linear_map,
 *     };
 *     subsys_initcall: dm_register_target(&linear_target);
 *
 *   ctr(ti, argc, argv)  parse the table line's arguments (after
 *       "<start> <length> <type>"), claim devices with dm_get_device(),
 *       set ti->private (and ti->max_io_len, ti->num_flush_bios).  On
 *       error: undo, set ti->error to a message, return -errno.  May sleep.
 *   dtr(ti)              undo ctr; called only with no I/O in flight.  May
 *                        sleep.
 *   map(ti, bio)         bio is the core's own piece (a clone or split-off
 *       front of what was submitted): inside [ti->begin, ti->begin +
 *       ti->len) and inside one max_io_len unit.  The target returns
 *         DM_MAPIO_REMAPPED   it set bio's device and sector (bio_set_dev,
 *                             bi_iter.bi_sector): the core submits it;
 *         DM_MAPIO_SUBMITTED  it took the bio: queued it, submitted it or
 *                             ended it itself;
 *         DM_MAPIO_KILL       the core ends it with BLK_STS_IOERR.
 *       map() runs inside generic_make_request(): it must never wait for
 *       I/O (its own submissions have not even started -- Linux commit 79bd99596b73), and
 *       the core has already taken this call's one bio from the device's
 *       bioset; a target that needs more bios per piece (raid1: one per
 *       leg) hands the piece to a thread of its own.
 *
 * An empty flush (REQ_OP_FLUSH, no data) goes to every target,
 * ti->num_flush_bios times (default 1; striped: once per stripe);
 * dm_bio_get_target_bio_nr() tells map() which copy it has.
 */
#ifndef DRIVERS_MD_DM_H
#define DRIVERS_MD_DM_H

#include <spindle/blkdev.h>
#include <spindle/list.h>
#include "dm-init.h"            /* DM_NAME_LEN ..., the boot option's parser */

#define DM_MAJOR        253             /* Linux's usual dynamic pick, fixed here */

/* map() results (Linux's names) */
#define DM_MAPIO_SUBMITTED  0
#define DM_MAPIO_REMAPPED   1
#define DM_MAPIO_KILL       4

struct mapped_device;
struct dm_table;
struct dm_target;

struct target_type {
	const char *name;
	int (*ctr)(struct dm_target *ti, unsigned int argc, char **argv);
	void (*dtr)(struct dm_target *ti);
	int (*map)(struct dm_target *ti, struct bio *bio);
	struct list_head list;          /* on the registered types (dm.c) */
};

/* A device below, claimed by a table: every target using it shares one. */
struct dm_dev {
	struct list_head list;          /* on the table's devices */
	struct block_device *bdev;
	unsigned int count;             /* targets of the table using it */
};

/* One line of a table: sectors [begin, begin + len) of the mapped device. */
struct dm_target {
	struct dm_table *table;
	struct target_type *type;
	sector_t begin;
	sector_t len;
	/* The core never gives map() a bio that crosses a multiple of this
	 * (counted from begin); 0: no limit.  Striped: its chunk size. */
	sector_t max_io_len;
	unsigned int num_flush_bios;    /* copies of an empty flush it gets */
	void *private;                  /* the target's own state */
	const char *error;              /* set by a failing ctr */
};

struct dm_table {
	struct mapped_device *md;
	unsigned int num_targets;
	struct dm_target *targets;      /* sorted by begin, contiguous from 0 */
	struct list_head devices;       /* struct dm_dev: what it holds */
};

struct mapped_device {
	char name[DM_NAME_LEN];         /* "lin": the name dmsetup shows */
	char uuid[DM_UUID_LEN];         /* may be empty */
	int minor;                      /* the N of dm-N */
	bool read_only;                 /* flags "ro": writes fail */
	struct gendisk *disk;
	struct request_queue *queue;
	struct dm_table *map;           /* one table for the device's life */
	/* Every piece the core cuts comes from here: reserve-only, of
	 * dm_mod.reserved_bio_based_ios bios (dm.c says why). */
	struct bio_set bs;
	struct list_head list;          /* on all mapped devices (dm.c) */
};

/* --- for targets -------------------------------------------------------- */

int dm_register_target(struct target_type *tt);

/*
 * Claim the device named path ("ram0", "sda1", "dm-0", "/dev/ram0",
 * "1:0") for ti, checking that [start, start + len) lies inside it.  On
 * error sets ti->error and returns -ENXIO (no such device), -EBUSY (held
 * by another mapped device) or -EINVAL (too small).  May sleep.
 */
int dm_get_device(struct dm_target *ti, const char *path, sector_t start,
		  sector_t len, struct dm_dev **result);
void dm_put_device(struct dm_target *ti, struct dm_dev *d);

/* The sector relative to the start of the target. */
static inline sector_t dm_target_offset(const struct dm_target *ti, sector_t sector)
{
	return sector - ti->begin;
}

/* Which of the ti->num_flush_bios copies of an empty flush this is. */
static inline unsigned int dm_bio_get_target_bio_nr(const struct dm_target *ti,
						    const struct bio *bio)
{
	return (unsigned int)dm_target_offset(ti, bio->bi_iter.bi_sector);
}

/* dm_mod.reserved_bio_based_ios: the reserve of each device's bioset;
 * targets size their own pools with it too. */
unsigned int dm_get_reserved_bio_based_ios(void);

/* --- creating and removing devices (boot, tests) ------------------------- */

/*
 * Create the devices of a dm-mod.create= value ("<name>,<uuid>,<minor>,
 * <flags>,<table>[,<table>...][;<next device>...]"), in order; stops at
 * the first that fails, after printing why.  *last (if not NULL) gets the
 * last device created.  Returns 0 or -errno.  May sleep.
 */
int dm_create(const char *spec, struct mapped_device **last);
/* Remove an idle device (no I/O in flight, not a leg of another): 0 or
 * -EBUSY.  May sleep. */
int dm_destroy(struct mapped_device *md);
/* A mapped device by its disk name ("dm-0") or its own name ("lin"). */
struct mapped_device *dm_get_md(const char *name);

#endif /* DRIVERS_MD_DM_H */
