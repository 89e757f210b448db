// SPDX-License-Identifier: MIT
/*
 * dm-raid1.c - the "mirror" target: RAID 1 -- every write to every leg,
 * each read from one; a failing leg is dropped and the mirror goes on.
 *
 *   <start> <length> mirror core <#log_args> <region_size> [sync|nosync]
 *                    <num_mirrors> <dev0> <offset0> <dev1> <offset1> ...
 *                    [<num_features> <feature>...]
 *
 * Linux's syntax: the "core" (in-memory) dirty-region log with 1 or 2
 * arguments, then the legs.  Spindle keeps no region log and never
 * resynchronises: the legs are taken to be identical from the start (as
 * with "nosync"; fresh RAM disks are), so region_size is checked and
 * otherwise unused.  Feature: handle_errors (what this target always
 * does).
 *
 * Writes (and flushes, discards): a clone of the piece per healthy leg;
 * the piece completes when every clone has -- successfully if at least
 * one leg took it.  A leg whose I/O fails is marked failed, reported
 * once:
 *
 *   device-mapper: raid1: ram1 failed, continuing with 1 legs
 *
 * and neither written nor read again.
 *
 * Reads: from one healthy leg, round-robin; if it fails, the leg is
 * failed and the read is retried on the next healthy one (an error only
 * when none is left).
 *
 * Why a thread (kmirrord, as Linux's): a write needs one bio per leg,
 * and a make_request_fn may take only one bio from a pool per call (two
 * from a one-bio reserve would wait for each other) -- the core already
 * took it for the piece.  So map() only queues
 * the piece and wakes kmirrord, where generic_make_request() is the
 * outermost call: each clone goes all the way down before the next is
 * allocated, and waiting for a bio from this target's own bioset waits
 * only for I/O that is really under way.  Reads take the same path, and a
 * failed read comes back to it for its retry (a completion may run in
 * interrupt context, where nothing may be submitted).
 *
 * Under a plug, map() parks the pieces on the plug instead
 * (mirror_unplug(), below) and the plug's flush hands them over at once.
 *
 *   map() ─queue─> kmirrord ─┬─ clone ─> leg 0 ─┐  mirror_write_endio:
 *                            └─ clone ─> leg 1 ─┤  last one ends the piece
 *
 * Where it sits: dm.c above, the legs below.
 */
#define pr_fmt(fmt) "device-mapper: raid1: " fmt
#include <spindle/blk_plug.h>
#include <spindle/init.h>
#include <spindle/mempool.h>
#include <spindle/printk.h>
#include <spindle/sched.h>
#include <spindle/string.h>
#include "dm.h"

#define MAX_NR_MIRRORS  8

struct mirror {
	struct dm_dev *dev;
	sector_t offset;
	bool failed;                    /* an I/O failed: never used again */
};

struct mirror_set {
	struct dm_target *ti;
	unsigned int nr_mirrors;
	spinlock_t lock;                /* what follows, the legs' failed flags
					 * and mirror_io counts; taken in completions */
	unsigned int nr_healthy;
	unsigned int next_read;         /* round-robin cursor */
	struct bio_list queued;         /* pieces for kmirrord */
	struct task_struct *thread;     /* kmirrord */
	mempool_t io_pool;              /* struct mirror_io */
	struct bio_set bs;              /* the per-leg clones */
	struct mirror mirror[];
};

/* One piece on its way to the legs. */
struct mirror_io {
	struct mirror_set *ms;
	struct bio *bio;                /* the core's piece: ends when the clones have */
	unsigned int pending;           /* clones not yet ended, +1 while issuing */
	bool ok;                        /* a leg succeeded (writes) */
	struct mirror_leg_io {          /* a clone's bi_private: which leg */
		struct mirror_io *mio;
		unsigned int leg;
	} legs[MAX_NR_MIRRORS];
};

/* A leg's I/O failed: drop it, report once.  Any context. */
static void mirror_fail_leg(struct mirror_set *ms, unsigned int leg)
{
	/* LAB 6 BEGIN */
	unsigned int left = 0;
	bool first = false;
	unsigned long flags;

	spin_lock_irqsave(&ms->lock, flags);
	if (!ms->mirror[leg].failed) {
		ms->mirror[leg].failed = true;
		left = --ms->nr_healthy;
		first = true;
	}
	spin_unlock_irqrestore(&ms->lock, flags);
	if (first)
		pr_err("%s failed, continuing with %u legs\n",
		       ms->mirror[leg].dev->bdev->bd_name, left);
	/* LAB 6 END: (void)ms; (void)leg; */
}

/* Hand a piece to kmirrord.  Does not sleep. */
static void mirror_queue(struct mirror_set *ms, struct bio *bio)
{
	unsigned long flags;

	spin_lock_irqsave(&ms->lock, flags);
	bio_list_add(&ms->queued, bio);
	spin_unlock_irqrestore(&ms->lock, flags);
	wake_up_process(ms->thread);
}

static bool mirror_leg_failed(struct mirror_set *ms, unsigned int leg)
{
	unsigned long flags;
	bool failed;

	spin_lock_irqsave(&ms->lock, flags);
	failed = ms->mirror[leg].failed;
	spin_unlock_irqrestore(&ms->lock, flags);
	return failed;
}

/* The next healthy leg after the last one read, or -1 if none. */
static int mirror_choose_read(struct mirror_set *ms)
{
	/* LAB 6 BEGIN */
	unsigned long flags;
	int leg = -1;

	spin_lock_irqsave(&ms->lock, flags);
	for (unsigned int n = 0; n < ms->nr_mirrors && leg < 0; n++) {
		unsigned int i = (ms->next_read + n) % ms->nr_mirrors;

		if (!ms->mirror[i].failed) {
			leg = i;
			ms->next_read = i + 1;
		}
	}
	spin_unlock_irqrestore(&ms->lock, flags);
	return leg;
	/* LAB 6 END: (void)ms; return -1; */
}

/* A clone of the piece aimed at leg.  May sleep (kmirrord only). */
static struct bio *mirror_clone(struct mirror_io *mio, unsigned int leg, bio_end_io_t *end_io)
{
	struct mirror_set *ms = mio->ms;
	struct bio *clone = bio_clone_fast(mio->bio, GFP_NOIO, &ms->bs);

	mio->legs[leg] = (struct mirror_leg_io){ .mio = mio, .leg = leg };
	bio_set_dev(clone, ms->mirror[leg].dev->bdev);
	clone->bi_iter.bi_sector = ms->mirror[leg].offset +
				   dm_target_offset(ms->ti, mio->bio->bi_iter.bi_sector);
	clone->bi_end_io = end_io;
	clone->bi_private = &mio->legs[leg];
	return clone;
}

static struct mirror_io *mirror_io_alloc(struct mirror_set *ms, struct bio *bio)
{
	struct mirror_io *mio = mempool_alloc(&ms->io_pool, GFP_NOIO);

	mio->ms = ms;
	mio->bio = bio;
	mio->pending = 1;
	mio->ok = false;
	return mio;
}

/* Drop a count; the last ends the piece.  Any context. */
static void mirror_io_put(struct mirror_io *mio)
{
	struct mirror_set *ms = mio->ms;
	unsigned long flags;
	bool last;

	spin_lock_irqsave(&ms->lock, flags);
	last = --mio->pending == 0;
	spin_unlock_irqrestore(&ms->lock, flags);
	if (!last)
		return;
	mio->bio->bi_status = mio->ok ? BLK_STS_OK : BLK_STS_IOERR;
	bio_endio(mio->bio);
	mempool_free(mio, &ms->io_pool);
}

static void mirror_write_endio(struct bio *clone)
{
	struct mirror_leg_io *l = clone->bi_private;
	struct mirror_io *mio = l->mio;
	unsigned long flags;

	if (clone->bi_status) {
		mirror_fail_leg(mio->ms, l->leg);
	} else {
		spin_lock_irqsave(&mio->ms->lock, flags);
		mio->ok = true;
		spin_unlock_irqrestore(&mio->ms->lock, flags);
	}
	bio_put(clone);
	mirror_io_put(mio);
}

/* Every healthy leg gets a clone.  kmirrord only. */
static void mirror_write(struct mirror_set *ms, struct bio *bio)
{
	/* LAB 6 BEGIN */
	struct mirror_io *mio = mirror_io_alloc(ms, bio);
	unsigned long flags;

	for (unsigned int i = 0; i < ms->nr_mirrors; i++) {
		struct bio *clone;

		if (mirror_leg_failed(ms, i))
			continue;
		clone = mirror_clone(mio, i, mirror_write_endio);
		spin_lock_irqsave(&ms->lock, flags);
		mio->pending++;
		spin_unlock_irqrestore(&ms->lock, flags);
		/* outermost here: it goes all the way down now */
		generic_make_request(clone);
	}
	mirror_io_put(mio);             /* the +1 held while issuing */
	/* LAB 6 END: (void)ms; (void)mirror_leg_failed; (void)mirror_write_endio; bio_io_error(bio); */
}

static void mirror_read_endio(struct bio *clone)
{
	struct mirror_leg_io *l = clone->bi_private;
	struct mirror_io *mio = l->mio;
	struct mirror_set *ms = mio->ms;
	struct bio *bio = mio->bio;
	blk_status_t status = clone->bi_status;
	unsigned int leg = l->leg;

	bio_put(clone);
	mempool_free(mio, &ms->io_pool);
	if (status) {
		mirror_fail_leg(ms, leg);
		mirror_queue(ms, bio);          /* kmirrord retries on another leg */
		return;
	}
	bio_endio(bio);
}

/* One healthy leg gets it.  kmirrord only. */
static void mirror_read(struct mirror_set *ms, struct bio *bio)
{
	int leg = mirror_choose_read(ms);

	if (leg < 0) {
		bio_io_error(bio);              /* no leg left */
		return;
	}
	generic_make_request(mirror_clone(mirror_io_alloc(ms, bio), leg, mirror_read_endio));
}

static int kmirrord(void *data)
{
	struct mirror_set *ms = data;

	for (;;) {
		struct bio_list work;
		unsigned long flags;
		struct bio *bio;

		/* state first, then look (include/spindle/sched.h) */
		set_current_state(TASK_INTERRUPTIBLE);
		spin_lock_irqsave(&ms->lock, flags);
		work = ms->queued;
		bio_list_init(&ms->queued);
		spin_unlock_irqrestore(&ms->lock, flags);
		if (bio_list_empty(&work)) {
			if (kthread_should_stop())
				break;
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		while ((bio = bio_list_pop(&work)) != NULL) {
			if (bio_op(bio) == REQ_OP_READ)
				mirror_read(ms, bio);
			else
				mirror_write(ms, bio);  /* and flush, discard */
		}
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* "core <#log_args> <region_size> [sync|nosync]": returns the words used. */
static int mirror_parse_log(struct dm_target *ti, unsigned int argc, char **argv)
{
	unsigned int nr_args, region_size;

	if (argc < 3 || strcmp(argv[0], "core")) {
		ti->error = "expected core <#log_args> <region_size> [sync|nosync] (only the core log)";
		return -EINVAL;
	}
	if (kstrtouint(argv[1], 10, &nr_args) || nr_args < 1 || nr_args > 2 ||
	    argc < 2 + nr_args) {
		ti->error = "the core log takes 1 or 2 arguments";
		return -EINVAL;
	}
	if (kstrtouint(argv[2], 10, &region_size) || !is_power_of_2(region_size)) {
		ti->error = "region_size must be a power of two (sectors)";
		return -EINVAL;
	}
	if (nr_args == 2 && strcmp(argv[3], "sync") && strcmp(argv[3], "nosync")) {
		ti->error = "expected sync or nosync";
		return -EINVAL;
	}
	return 2 + nr_args;
}

/* "[<num_features> <feature>...]" after the legs. */
static int mirror_parse_features(struct dm_target *ti, unsigned int argc, char **argv)
{
	unsigned int n;

	if (argc == 0)
		return 0;
	if (kstrtouint(argv[0], 10, &n) || n != argc - 1) {
		ti->error = "expected <num_features> and that many features";
		return -EINVAL;
	}
	for (unsigned int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "handle_errors")) {
			ti->error = "unknown feature (handle_errors)";
			return -EINVAL;
		}
	}
	return 0;
}

static void mirror_put_devices(struct mirror_set *ms, unsigned int n)
{
	while (n--)
		dm_put_device(ms->ti, ms->mirror[n].dev);
}

static int mirror_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct mirror_set *ms;
	unsigned int nr, i;
	int used, err;

	used = mirror_parse_log(ti, argc, argv);
	if (used < 0)
		return used;
	argc -= used;
	argv += used;
	if (argc < 1 || kstrtouint(argv[0], 10, &nr) || nr < 2 || nr > MAX_NR_MIRRORS ||
	    argc < 1 + 2 * nr) {
		ti->error = "expected <num_mirrors> (2..8) and a <dev> <offset> pair per mirror";
		return -EINVAL;
	}
	err = mirror_parse_features(ti, argc - 1 - 2 * nr, argv + 1 + 2 * nr);
	if (err)
		return err;

	ms = kzalloc(sizeof(*ms) + nr * sizeof(ms->mirror[0]), GFP_KERNEL);
	if (!ms) {
		ti->error = "out of memory";
		return -ENOMEM;
	}
	ms->ti = ti;
	ms->nr_mirrors = ms->nr_healthy = nr;
	spin_lock_init(&ms->lock);
	bio_list_init(&ms->queued);
	for (i = 0; i < nr; i++) {
		unsigned long long offset;

		err = -EINVAL;
		if (kstrtoull(argv[2 + 2 * i], 10, &offset)) {
			ti->error = "bad offset";
			goto out_put;
		}
		ms->mirror[i].offset = offset;
		err = dm_get_device(ti, argv[1 + 2 * i], offset, ti->len, &ms->mirror[i].dev);
		if (err)
			goto out_put;
	}
	err = -ENOMEM;
	ti->error = "out of memory";
	if (mempool_init(&ms->io_pool, dm_get_reserved_bio_based_ios(), sizeof(struct mirror_io), 0))
		goto out_put;
	if (bioset_init(&ms->bs, "mirror", dm_get_reserved_bio_based_ios(), 0, 0))
		goto out_exit_pool;
	ms->thread = kthread_run(kmirrord, ms, "kmirrord");
	if (!ms->thread)
		goto out_exit_bs;
	get_task_struct(ms->thread);
	ti->error = NULL;
	ti->private = ms;
	return 0;

out_exit_bs:
	bioset_exit(&ms->bs);
out_exit_pool:
	mempool_exit(&ms->io_pool);
out_put:
	mirror_put_devices(ms, i);
	kfree(ms);
	return err;
}

static void mirror_dtr(struct dm_target *ti)
{
	struct mirror_set *ms = ti->private;

	kthread_stop(ms->thread);
	put_task_struct(ms->thread);
	bioset_exit(&ms->bs);
	mempool_exit(&ms->io_pool);
	mirror_put_devices(ms, ms->nr_mirrors);
	kfree(ms);
}

/*
 * Under a plug, pieces wait on the submitter's plug and reach kmirrord in
 * one batch when the plug is flushed -- one wakeup of the thread per
 * batch, not per bio, and the batch's clones go down together.  This is
 * how Linux's md raid1 parks its writes (raid1_unplug()).  The callback
 * runs from blk_finish_plug() or from schedule(); it only takes a
 * spinlock and wakes the thread, which is safe from both.
 */
struct mirror_plug_cb {
	struct blk_plug_cb cb;          /* cb.data is the mirror_set */
	struct bio_list pending;
};

static void mirror_unplug(struct blk_plug_cb *cb, bool from_schedule)
{
	struct mirror_plug_cb *mcb = container_of(cb, struct mirror_plug_cb, cb);
	struct mirror_set *ms = cb->data;
	unsigned long flags;

	(void)from_schedule;
	spin_lock_irqsave(&ms->lock, flags);
	bio_list_merge(&ms->queued, &mcb->pending);
	spin_unlock_irqrestore(&ms->lock, flags);
	wake_up_process(ms->thread);
	kfree(mcb);
}

/* Does not sleep: kmirrord does the work. */
static int mirror_map(struct dm_target *ti, struct bio *bio)
{
	struct mirror_set *ms = ti->private;
	struct blk_plug_cb *cb;

	cb = blk_check_plugged(mirror_unplug, ms, sizeof(struct mirror_plug_cb));
	if (cb)
		bio_list_add(&container_of(cb, struct mirror_plug_cb, cb)->pending, bio);
	else
		mirror_queue(ms, bio);  /* no plug (or no memory): at once */
	return DM_MAPIO_SUBMITTED;
}

static struct target_type mirror_target = {
	.name = "mirror",
	.ctr  = mirror_ctr,
	.dtr  = mirror_dtr,
	.map  = mirror_map,
};

static int __init dm_mirror_init(void)
{
	return dm_register_target(&mirror_target);
}
subsys_initcall(dm_mirror_init);
