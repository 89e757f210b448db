// SPDX-License-Identifier: MIT
/*
 * dm-delay.c - the "delay" target: a linear mapping whose bios wait a
 * while before going down -- a slow disk to test timeouts, plugging,
 * hung-task reports.
 *
 *   <start> <length> delay <dev> <offset> <delay_ms>
 *                          [<write_dev> <write_offset> <write_delay_ms>]
 *
 * Reads (and, without the second triple, writes) go to dev after
 * delay_ms; with it, writes go to write_dev after write_delay_ms.  A delay
 * of 0 maps straight through.
 *
 * How a bio waits:
 *
 *   map():    remap, note when it is due, put it on the list (kept in due
 *             order), arm the timer for the earliest   -> DM_MAPIO_SUBMITTED
 *   timer:    (interrupt context) wake kdelayd
 *   kdelayd:  take every due bio off the list, re-arm the timer for the
 *             next, generic_make_request() each
 *
 * The timer only wakes a thread because generic_make_request() may sleep
 * (a bio from a mempool) and so must not run in interrupt context.  In
 * kdelayd it is the outermost call: each bio goes all the way down before
 * the next.  The "when due" of each bio lives in a small struct from a
 * pool of the target's own (Linux keeps it in per-bio data).
 *
 * Removing the target hands every held bio down at once.  Not here:
 * Linux's flush triple and its "suspend" handling.
 * Where it sits: dm.c above, dev (and write_dev) below.
 */
#define pr_fmt(fmt) "device-mapper: delay: " fmt
#include <spindle/init.h>
#include <spindle/mempool.h>
#include <spindle/sched.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include "dm.h"

#define DELAY_MAX_MS    (60 * MSEC_PER_SEC)     /* a minute: slow, not dead */

struct delay_class {
	struct dm_dev *dev;
	sector_t start;
	unsigned int delay_ms;
};

struct delay_c {
	struct delay_class read;
	struct delay_class write;       /* == read unless a write triple was given */
	bool separate_write;
	spinlock_t lock;                /* the list and the timer; taken in the timer too */
	struct list_head delayed;       /* struct dm_delay_info, earliest first */
	struct timer_list timer;
	struct task_struct *thread;     /* kdelayd */
	mempool_t info_pool;
};

struct dm_delay_info {
	struct list_head list;
	struct bio *bio;
	u64 expires;                    /* jiffies */
};

static int delay_class_ctr(struct dm_target *ti, struct delay_class *c, char **argv)
{
	unsigned long long start;

	if (kstrtoull(argv[1], 10, &start)) {
		ti->error = "bad offset";
		return -EINVAL;
	}
	if (kstrtouint(argv[2], 10, &c->delay_ms) || c->delay_ms > DELAY_MAX_MS) {
		ti->error = "bad delay (milliseconds, at most 60000)";
		return -EINVAL;
	}
	c->start = start;
	return dm_get_device(ti, argv[0], c->start, ti->len, &c->dev);
}

/* Timer: interrupt context, so only wake the thread. */
static void delay_timer_fn(struct timer_list *t)
{
	struct delay_c *dc = container_of(t, struct delay_c, timer);

	wake_up_process(dc->thread);
}

/*
 * Move the due bios (all of them if flushing) to *due and re-arm the
 * timer for the next one.  Does not sleep.
 */
static void delay_take_due(struct delay_c *dc, struct list_head *due, bool flush)
{
	struct dm_delay_info *di, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&dc->lock, flags);
	list_for_each_entry_safe(di, tmp, &dc->delayed, list) {
		if (!flush && time_after(di->expires, jiffies))
			break;                  /* the rest are later still */
		list_move_tail(&di->list, due);
	}
	if (!list_empty(&dc->delayed))
		mod_timer(&dc->timer, list_first_entry(&dc->delayed,
						       struct dm_delay_info, list)->expires);
	spin_unlock_irqrestore(&dc->lock, flags);
}

static int kdelayd(void *data)
{
	struct delay_c *dc = data;

	for (;;) {
		struct dm_delay_info *di, *tmp;
		LIST_HEAD(due);
		bool stop;

		/* State first, then look: a timer or kthread_stop() that
		 * wakes us in between makes schedule() return at once
		 * (include/spindle/sched.h). */
		set_current_state(TASK_INTERRUPTIBLE);
		stop = kthread_should_stop();
		delay_take_due(dc, &due, stop);
		if (list_empty(&due)) {
			if (stop)
				break;
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		list_for_each_entry_safe(di, tmp, &due, list) {
			generic_make_request(di->bio);
			list_del(&di->list);
			mempool_free(di, &dc->info_pool);
		}
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static int delay_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct delay_c *dc;
	int err;

	if (argc != 3 && argc != 6) {
		ti->error = "expected <dev> <offset> <delay_ms> [<write_dev> <write_offset> <write_delay_ms>]";
		return -EINVAL;
	}
	dc = kzalloc(sizeof(*dc), GFP_KERNEL);
	if (!dc) {
		ti->error = "out of memory";
		return -ENOMEM;
	}
	spin_lock_init(&dc->lock);
	INIT_LIST_HEAD(&dc->delayed);
	timer_setup(&dc->timer, delay_timer_fn);
	err = delay_class_ctr(ti, &dc->read, argv);
	if (err)
		goto out_free;
	dc->write = dc->read;
	if (argc == 6) {
		err = delay_class_ctr(ti, &dc->write, argv + 3);
		if (err)
			goto out_put_read;
		dc->separate_write = true;
	}
	err = mempool_init(&dc->info_pool, dm_get_reserved_bio_based_ios(),
			   sizeof(struct dm_delay_info), 0);
	if (err) {
		ti->error = "out of memory";
		goto out_put_write;
	}
	dc->thread = kthread_run(kdelayd, dc, "kdelayd");
	if (!dc->thread) {
		ti->error = "cannot start kdelayd";
		err = -ENOMEM;
		goto out_exit_pool;
	}
	get_task_struct(dc->thread);    /* the timer may still wake it as it exits */
	ti->private = dc;
	return 0;

out_exit_pool:
	mempool_exit(&dc->info_pool);
out_put_write:
	if (dc->separate_write)
		dm_put_device(ti, dc->write.dev);
out_put_read:
	dm_put_device(ti, dc->read.dev);
out_free:
	kfree(dc);
	return err;
}

static void delay_dtr(struct dm_target *ti)
{
	struct delay_c *dc = ti->private;

	kthread_stop(dc->thread);       /* it submits what it still holds */
	del_timer_sync(&dc->timer);     /* dc is freed below */
	put_task_struct(dc->thread);
	mempool_exit(&dc->info_pool);
	if (dc->separate_write)
		dm_put_device(ti, dc->write.dev);
	dm_put_device(ti, dc->read.dev);
	kfree(dc);
}

/* May sleep for a dm_delay_info unless REQ_NOWAIT. */
static int delay_map(struct dm_target *ti, struct bio *bio)
{
	struct delay_c *dc = ti->private;
	struct delay_class *c = bio_is_write(bio) ? &dc->write : &dc->read;
	struct dm_delay_info *di, *pos;
	unsigned long flags;

	bio_set_dev(bio, c->dev->bdev);
	bio->bi_iter.bi_sector = c->start + dm_target_offset(ti, bio->bi_iter.bi_sector);
	if (!c->delay_ms)
		return DM_MAPIO_REMAPPED;

	di = mempool_alloc(&dc->info_pool, bio->bi_opf & REQ_NOWAIT ? GFP_ATOMIC : GFP_NOIO);
	if (!di) {
		bio_wouldblock_error(bio);
		return DM_MAPIO_SUBMITTED;
	}
	di->bio = bio;
	/* +1: the current tick is partly over, and the wait is "at least" */
	di->expires = jiffies + msecs_to_jiffies(c->delay_ms) + 1;

	spin_lock_irqsave(&dc->lock, flags);
	/* Keep the list in due order: from the back, as it is usually last
	 * (the two classes may have different delays). */
	list_for_each_entry_reverse(pos, &dc->delayed, list)
		if (!time_after(pos->expires, di->expires))
			break;
	list_add(&di->list, &pos->list);
	if (dc->delayed.next == &di->list)
		mod_timer(&dc->timer, di->expires);     /* the new earliest */
	spin_unlock_irqrestore(&dc->lock, flags);
	return DM_MAPIO_SUBMITTED;
}

static struct target_type delay_target = {
	.name = "delay",
	.ctr  = delay_ctr,
	.dtr  = delay_dtr,
	.map  = delay_map,
};

static int __init dm_delay_init(void)
{
	return dm_register_target(&delay_target);
}
subsys_initcall(dm_delay_init);
