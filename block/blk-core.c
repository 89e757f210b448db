// SPDX-License-Identifier: MIT
/*
 * blk-core.c - submit_bio() and generic_make_request(): how a bio gets
 * from whoever built it to the make_request_fn of its device.
 *
 * Where it sits: above it, everything that submits I/O; below it, each
 * device's make_request_fn -- a driver, or a stacked device (partition
 * remapping happens here; dm targets resubmit to their legs).
 *
 * The rule a make_request_fn must not break: it may submit more bios,
 * but must never wait for one it submitted -- those are only queued
 * (current->bio_list) and run after it returns.
 */
#include <spindle/blkdev.h>
#include <spindle/sched.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/init.h>
#include <spindle/time.h>
#include <spindle/sched_debug.h>
#include <spindle/blktrace.h>
#include <spindle/blk_mq.h>
#include "blk.h"

enum bio_order bio_order = BIO_ORDER_DEPTH;

static int __init bio_order_setup(const char *val)
{
	if (strcmp(val, "fifo") == 0)
		bio_order = BIO_ORDER_FIFO;
	else if (strcmp(val, "depth") == 0)
		bio_order = BIO_ORDER_DEPTH;
	else
		return -EINVAL;
	return 0;
}
__setup("bio_order=", bio_order_setup);

/* --- accounting (/proc/diskstats) --------------------------------------- */

/*
 * Every CPU submits and completes I/O, so each keeps its own copy of a
 * block_device's counters (bd_stats[cpu]) and adds to it with interrupts
 * off (a completion may run in an interrupt on the same CPU): no lock, no
 * cache line that two CPUs write in turn.  Readers sum the copies
 * (part_stat_read_all), as Linux's part_stat_add() and part_stat_read_all()
 * do.  In flight: each CPU counts the I/Os it started and, less, those it
 * ended -- Linux's choice for bio-based disks (for blk-mq ones it counts
 * the busy tags instead); one way for both here.  A partition's I/O is
 * counted on the partition and on its whole disk, one after the other.
 */

/* The partition and, if that is not the whole disk, the disk. */
#define for_each_acct_part(b, first) \
	for (struct block_device *b = (first); b; \
	     b = (b)->bd_partno ? (b)->bd_disk->part[0] : NULL)

/* This CPU's copy of b's counters; interrupts off while it is used. */
static struct disk_stats *part_stat_this_cpu(struct block_device *b)
{
	return &b->bd_stats[smp_processor_id()];
}

/*
 * io_ticks (Linux's update_io_ticks): the first CPU to see the clock past
 * bd_stamp's millisecond moves the stamp (a cmpxchg: one winner) and
 * charges the time between -- all of it at an I/O's end, since something
 * was in flight throughout; one millisecond at a start, for the one the
 * I/O begins in.  The stamp is written at most once a millisecond, not
 * at every I/O.  Interrupts off.
 */
static void part_update_io_ticks(struct block_device *b, u64 now, bool end)
{
	long tick = (long)(now / NSEC_PER_MSEC);
	long stamp = atomic_long_read(&b->bd_stamp);

	if (tick > stamp && atomic_long_cmpxchg(&b->bd_stamp, stamp, tick) == stamp)
		part_stat_this_cpu(b)->io_ticks_ms += end ? (u64)(tick - stamp) : 1;
}

/* Which in_flight counter a stat group counts in: writes and discards
 * write, reads and flushes do not (Linux's op_is_write). */
static int stat_group_dir(enum stat_group g)
{
	return g == STAT_WRITE || g == STAT_DISCARD;
}

/* An I/O to part begins: it is in flight from now. */
void part_account_start(struct block_device *part, enum stat_group g, u64 now)
{
	unsigned long flags = local_irq_save();

	for_each_acct_part(b, part) {
		part_update_io_ticks(b, now, false);
		part_stat_this_cpu(b)->in_flight[stat_group_dir(g)]++;
	}
	local_irq_restore(flags);
}

/* An I/O started at `start` ended now; merged_away: it did not complete
 * on its own but was merged into another (only in_flight changes). */
void part_account_done(struct block_device *part, enum stat_group g,
		       unsigned int sectors, u64 start, bool merged_away)
{
	u64 now = ktime_get_ns();
	unsigned long flags = local_irq_save();

	for_each_acct_part(b, part) {
		struct disk_stats *st = part_stat_this_cpu(b);

		if (!merged_away) {
			part_update_io_ticks(b, now, true);
			st->ios[g]++;
			st->sectors[g] += sectors;
			/* start may be another CPU's clock, a little ahead */
			st->nsecs[g] += now > start ? now - start : 0;
		}
		st->in_flight[stat_group_dir(g)]--;
	}
	local_irq_restore(flags);
}

/* One more merge into a request of part's (and its disk's). */
void part_stat_inc_merges(struct block_device *part, int rw)
{
	unsigned long flags = local_irq_save();

	for_each_acct_part(b, part)
		part_stat_this_cpu(b)->merges[rw]++;
	local_irq_restore(flags);
}

/*
 * Every CPU's counters of part, summed into *st.  Not a snapshot: each
 * CPU's are read while they may change (Linux's are the same), so
 * in_flight can be off by an I/O that is moving between CPUs, never
 * lastingly.  While I/O is in flight, io_ticks is brought up to now
 * first, as Linux's part_stat_show() does.
 */
void part_stat_read_all(struct block_device *part, struct disk_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct disk_stats *c = &part->bd_stats[cpu];

		for (int g = 0; g < NR_STAT_GROUPS; g++) {
			st->ios[g] += READ_ONCE(c->ios[g]);
			st->merges[g] += READ_ONCE(c->merges[g]);
			st->sectors[g] += READ_ONCE(c->sectors[g]);
			st->nsecs[g] += READ_ONCE(c->nsecs[g]);
		}
		st->io_ticks_ms += READ_ONCE(c->io_ticks_ms);
		st->in_flight[0] += READ_ONCE(c->in_flight[0]);
		st->in_flight[1] += READ_ONCE(c->in_flight[1]);
	}
	if (st->in_flight[0] + st->in_flight[1] > 0) {
		long stamp = atomic_long_read(&part->bd_stamp);
		long tick = (long)(ktime_get_ns() / NSEC_PER_MSEC);

		if (tick > stamp && atomic_long_cmpxchg(&part->bd_stamp, stamp, tick) == stamp) {
			unsigned long flags = local_irq_save();

			part_stat_this_cpu(part)->io_ticks_ms += (u64)(tick - stamp);
			local_irq_restore(flags);
			st->io_ticks_ms += (u64)(tick - stamp);
		}
	}
	/* a sum caught between one CPU's start and another's end */
	for (int rw = 0; rw < 2; rw++)
		if (st->in_flight[rw] < 0)
			st->in_flight[rw] = 0;
}

/* Bio-based devices account each bio (request-based ones each request,
 * block/blk-mq.c). */
static void blk_account_io_start(struct bio *bio, struct block_device *part)
{
	bio->bi_acct_part = part;
	bio->bi_acct_start_ns = ktime_get_ns();
	bio->bi_acct_sectors = bio_sectors(bio);
	part_account_start(part, bio_stat_group(bio), bio->bi_acct_start_ns);
}

/* Called by bio_endio() for a bio that was accounted.  Any context. */
void blk_account_io_done(struct bio *bio)
{
	part_account_done(bio->bi_acct_part, bio_stat_group(bio), bio->bi_acct_sectors,
			  bio->bi_acct_start_ns, false);
	bio->bi_acct_part = NULL;
}

struct request_queue *bio_queue(const struct bio *bio)
{
	return bio->bi_disk->queue;
}

/*
 * Enter the queue: refused once blk_cleanup_queue() marked it dying.
 * q_usage counts the bios inside make_request_fn, so cleanup and a freeze
 * can wait for them to leave.  While the queue is frozen (an elevator
 * switch), wait for the thaw -- or, for a REQ_NOWAIT bio, fail with
 * -EAGAIN rather than sleep.
 *
 * Each CPU counts in its own q_usage[cpu] (Linux's percpu_ref
 * q_usage_counter), so entering takes no lock, writes no line another
 * CPU writes, and runs no atomic or barrier: it is one section with
 * interrupts off that looks at the freeze and counts.  A freezer raises
 * mq_freeze_depth, then waits until every CPU has taken an interrupt
 * (blk_queue_usage_sync(): as Linux's percpu_ref waits for an RCU grace
 * period before it trusts a sum), and only then sums the counts.  A
 * section cannot straddle that interrupt: it ended before it, and its
 * count is in the sum, or began after it, and sees the freeze.
 */
int blk_queue_enter(struct request_queue *q, bool nowait)
{
	for (;;) {
		unsigned long flags = local_irq_save();
		int ret;

		if (likely(!READ_ONCE(q->dying) && !READ_ONCE(q->mq_freeze_depth))) {
			q->q_usage[smp_processor_id()].n++;
			local_irq_restore(flags);
			return 0;
		}
		ret = READ_ONCE(q->dying) ? -ENODEV : -EAGAIN;
		local_irq_restore(flags);
		if (ret != -EAGAIN || nowait)
			return ret;
		wait_event(q->mq_freeze_wq, !READ_ONCE(q->mq_freeze_depth) || READ_ONCE(q->dying));
	}
}

/* Leave: uncount, and if a freeze (or cleanup) may be summing, wake it --
 * looked at in the same section, for the same reason as above. */
void blk_queue_exit(struct request_queue *q)
{
	unsigned long flags = local_irq_save();
	bool waited;

	q->q_usage[smp_processor_id()].n--;
	waited = READ_ONCE(q->mq_freeze_depth) || READ_ONCE(q->dying);
	local_irq_restore(flags);
	if (waited)
		wake_up_all(&q->mq_freeze_wq);  /* a freezer waits for q_usage */
}

static void blk_queue_usage_sync_fn(void *info)
{
	(void)info;     /* taking the interrupt is the point */
}

/*
 * Called after raising mq_freeze_depth or dying: returns once every
 * online CPU has run an interrupt since, so every section of
 * blk_queue_enter()/blk_queue_exit() (and of blk_mq_free_request()'s
 * look at the freeze) that had not seen the change is over, its counts
 * visible here.  Sleeps; interrupts on, no spinlock held.
 */
void blk_queue_usage_sync(void)
{
	on_each_cpu(blk_queue_usage_sync_fn, NULL, true);
}

/* A sum of counts that move while it is taken: exact only once the
 * freezer's barrier has made new entries step back (see above). */
long blk_queue_usage(struct request_queue *q)
{
	long n = 0;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		n += READ_ONCE(q->q_usage[cpu].n);
	return n;
}

/*
 * Operations the queue cannot do.  A discard or a write-zeroes to a
 * device without support for it fails with "not supported" (-EOPNOTSUPP
 * for the caller).  For a
 * request-based device without a volatile write cache, flushes mean
 * nothing: the flags go, and an empty flush is done at once.  (Bio-based
 * drivers -- brd, dm -- see their flags and decide themselves.)
 * Returns false after ending the bio.
 */
static bool blk_check_op(struct gendisk *disk, struct bio *bio)
{
	struct request_queue *q = disk->queue;

	if (bio_op(bio) == REQ_OP_DISCARD && !q->limits.max_discard_sectors) {
		if (!q->discard_warned) {
			pr_warn("blk: %s: discard not supported\n", disk->disk_name);
			q->discard_warned = true;
		}
		bio->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bio);
		return false;
	}
	if (bio_op(bio) == REQ_OP_WRITE_ZEROES && !q->limits.max_write_zeroes_sectors) {
		bio->bi_status = BLK_STS_NOTSUPP;       /* the caller decides (BLKZEROOUT) */
		bio_endio(bio);
		return false;
	}
	if (q->tag_set && !q->write_cache &&
	    ((bio->bi_opf & (REQ_PREFLUSH | REQ_FUA)) || bio_op(bio) == REQ_OP_FLUSH)) {
		bio->bi_opf &= ~(REQ_PREFLUSH | REQ_FUA);
		if (!bio->bi_iter.bi_size) {
			bio_endio(bio);
			return false;
		}
	}
	return true;
}

/*
 * Checks before a bio may go to its device: it fits in its partition
 * (never touching a neighbour), and partition sectors become disk sectors.
 * Returns false after ending the bio with an error.
 */
static bool generic_make_request_checks(struct bio *bio)
{
	struct gendisk *disk = bio->bi_disk;
	struct block_device *part;
	sector_t nr = bio_sectors(bio);

	if (!disk || !disk->queue) {
		pr_err("blk: bio to no device\n");
		bio_io_error(bio);
		return false;
	}
	part = bio->bi_partno < DISK_MAX_PARTS ? disk->part[bio->bi_partno] : NULL;
	if (!part) {
		pr_err("blk: %s: no partition %u\n", disk->disk_name, bio->bi_partno);
		bio_io_error(bio);
		return false;
	}
	if (bio->bi_flags & BIO_REMAPPED) {
		blk_add_trace_bio(disk->queue, bio, 'Q', 0);   /* a split's rest, again */
		return true;
	}
	if (bio->bi_iter.bi_sector > part->bd_nr_sectors ||
	    nr > part->bd_nr_sectors - bio->bi_iter.bi_sector) {
		pr_err("blk: %s: attempt to access beyond end of device: sector %llu + %llu > %llu\n",
		       part->bd_name, (unsigned long long)bio->bi_iter.bi_sector,
		       (unsigned long long)nr, (unsigned long long)part->bd_nr_sectors);
		bio_io_error(bio);
		return false;
	}
	if (!blk_check_op(disk, bio))
		return false;
	/*
	 * Polled I/O only where a poll queue can carry it (Linux's
	 * submit_bio_noacct clears it the same way), and only for a plain
	 * read or write: a flush sequence is several requests.  The
	 * submitter sees the flag gone and sleeps for the interrupt.
	 */
	if ((bio->bi_opf & REQ_POLLED) &&
	    (!blk_mq_can_poll(disk->queue) ||
	     (bio_op(bio) != REQ_OP_READ && bio_op(bio) != REQ_OP_WRITE) ||
	     (bio->bi_opf & (REQ_PREFLUSH | REQ_FUA))))
		bio->bi_opf &= ~REQ_POLLED;
	bio->bi_part = part;
	if (!disk->queue->tag_set)
		blk_account_io_start(bio, part);
	/* Partition remap: from here on the bio addresses the whole disk. */
	bio->bi_iter.bi_sector += part->bd_start_sect;
	bio->bi_partno = 0;
	bio->bi_flags |= BIO_REMAPPED;
	if (part->bd_partno)
		blk_add_trace_remap(disk->queue, bio, part->bd_dev,
				    bio->bi_iter.bi_sector - part->bd_start_sect);
	blk_add_trace_bio(disk->queue, bio, 'Q', 0);
	return true;
}

/*
 * The depth-first sort of Linux commit 79bd99596b73 (Linux 4.11), run after
 * each make_request_fn returns: the bios it queued (on_stack) are split
 * into those for *lower* devices and those for the *same* device, and the
 * list becomes lower, then same, then what was already waiting before the
 * call (hold) -- each group in submission order.  So a bio's children are
 * all handled before its siblings (depth-first), and when make_request_fn
 * runs for a device, every bio submitted earlier to that device has been
 * fully handled: none is still waiting behind it on this list.
 *
 * bio_order=fifo keeps the pre-4.11 behaviour instead: new bios simply go
 * after what was waiting.
 */
void blk_sort_pending_bios(struct bio_list *on_stack, struct bio_list *hold,
			   struct request_queue *q)
{
	/* LAB 5 BEGIN */
	struct bio_list lower = BIO_EMPTY_LIST, same = BIO_EMPTY_LIST;
	struct bio *bio;

	if (bio_order == BIO_ORDER_FIFO) {
		bio_list_merge(hold, on_stack);
		*on_stack = *hold;
		return;
	}
	while ((bio = bio_list_pop(on_stack)) != NULL) {
		if (bio_queue(bio) == q)
			bio_list_add(&same, bio);
		else
			bio_list_add(&lower, bio);
	}
	bio_list_merge(on_stack, &lower);
	bio_list_merge(on_stack, &same);
	bio_list_merge(on_stack, hold);
	/* LAB 5 END:
	 * (void)q;
	 * bio_list_merge(hold, on_stack);
	 * *on_stack = *hold;
	 */
}

/*
 * generic_make_request - hand a bio to its device's make_request_fn.
 *
 * The following loop may be a bit non-obvious, and so deserves some
 * explanation.  A stacked device's make_request_fn (a partition, a dm
 * target) usually submits new bios to the devices below it.  If each of
 * those submissions called the next make_request_fn directly, a deep stack
 * of devices would use a deep stack of kernel frames -- and the kernel
 * stack is small (16 KiB, with a guard page below it).
 *
 * So only the outermost call does the work.  It points current->bio_list
 * at a list on its own stack; a nested call sees that and just appends its
 * bio there.  The outermost call then takes bios off the list one at a
 * time and calls their make_request_fn, with a fresh list for each call;
 * when the call returns, blk_sort_pending_bios() decides in which order
 * what it queued runs.  The stack depth is now constant however deep the
 * device stack is.
 *
 * Does not wait for the I/O; may sleep for resources (a bio from a
 * mempool) unless REQ_NOWAIT.
 */
void generic_make_request(struct bio *bio)
{
	/*
	 * bio_list_on_stack[0]: bios queued by the make_request_fn running now.
	 * bio_list_on_stack[1]: bios that were waiting before it was called.
	 * current->bio_list points at both, so the hung-task report and the
	 * bioset rescuer (bio.c) can see every bio this task still owes.
	 */
	/* LAB 5 BEGIN */
	struct bio_list bio_list_on_stack[2];

	if (current->bio_list) {
		/* Inside a make_request_fn: queue it, the outer loop runs it. */
		bio_list_add(&current->bio_list[0], bio);
		return;
	}

	bio_list_init(&bio_list_on_stack[0]);
	bio_list_init(&bio_list_on_stack[1]);
	current->bio_list = bio_list_on_stack;
	do {
		struct request_queue *q;
		int err;

		if (!generic_make_request_checks(bio))
			goto next;
		q = bio_queue(bio);
		err = blk_queue_enter(q, bio->bi_opf & REQ_NOWAIT);
		if (err == 0) {
			/* what was waiting before this call */
			bio_list_on_stack[1] = bio_list_on_stack[0];
			bio_list_init(&bio_list_on_stack[0]);
			q->make_request_fn(q, bio);
			blk_queue_exit(q);
			blk_sort_pending_bios(&bio_list_on_stack[0], &bio_list_on_stack[1], q);
			bio_list_init(&bio_list_on_stack[1]);
		} else if (err == -EAGAIN) {
			bio_wouldblock_error(bio);      /* frozen, and REQ_NOWAIT */
		} else {
			/* the queue is going away (a removed device) */
			bio_io_error(bio);
		}
next:
		bio = bio_list_pop(&bio_list_on_stack[0]);
	} while (bio);
	current->bio_list = NULL;
	/* LAB 5 END:
	 * struct request_queue *q;
	 * int err;
	 *
	 * if (!generic_make_request_checks(bio))
	 * 	return;
	 * q = bio_queue(bio);
	 * err = blk_queue_enter(q, bio->bi_opf & REQ_NOWAIT);
	 * if (err == 0) {
	 * 	q->make_request_fn(q, bio);	// direct recursion: a stack frame per level
	 * 	blk_queue_exit(q);
	 * } else if (err == -EAGAIN) {
	 * 	bio_wouldblock_error(bio);
	 * } else {
	 * 	bio_io_error(bio);
	 * }
	 */
}

static DEFINE_PER_CPU(struct vm_events, vm_event_states);

/* Every CPU's pgpgin and pgpgout summed (Linux's all_vm_events); a
 * reader reads each CPU's u64 whole, so the sum is never torn. */
void all_vm_events(struct vm_events *sum)
{
	sum->pgpgin = sum->pgpgout = 0;
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		sum->pgpgin += READ_ONCE(per_cpu(vm_event_states, cpu).pgpgin);
		sum->pgpgout += READ_ONCE(per_cpu(vm_event_states, cpu).pgpgout);
	}
}

/*
 * submit_bio - the entry point for filesystems and other users.  Counts
 * the data for /proc/vmstat (pgpgin/pgpgout, in KiB as Linux) and submits.
 */
void submit_bio(struct bio *bio)
{
	if (bio_has_data(bio)) {
		/* this CPU's count: one instruction, no other CPU's line */
		if (bio_is_write(bio))
			this_cpu_add(vm_event_states.pgpgout, bio_sectors(bio) / 2);
		else
			this_cpu_add(vm_event_states.pgpgin, bio_sectors(bio) / 2);
	}
	generic_make_request(bio);
}

int bio_poll(struct bio *bio, unsigned int flags)
{
	unsigned int cookie = READ_ONCE(bio->bi_cookie);

	(void)flags;                    /* Linux's BLK_POLL_ONESHOT: one round is all we do */
	if (!(READ_ONCE(bio->bi_opf) & REQ_POLLED) || cookie == BLK_QC_T_NONE || !bio->bi_disk)
		return 0;
	return blk_mq_poll(bio->bi_disk->queue, cookie);
}

/* An operation's name in the log, as Linux's blk_op_str(): "READ" ... */
const char *blk_op_str(unsigned int op)
{
	static const char *const names[] = {
		[REQ_OP_READ] = "READ",
		[REQ_OP_WRITE] = "WRITE",
		[REQ_OP_FLUSH] = "FLUSH",
		[REQ_OP_DISCARD] = "DISCARD",
		[REQ_OP_WRITE_ZEROES] = "WRITE_ZEROES",
	};

	return op < ARRAY_SIZE(names) && names[op] ? names[op] : "UNKNOWN";
}

/*
 * For the hung-task report: the bios a stuck task still has queued on
 * current->bio_list -- in the deadlock of the old FIFO bio order, the very bio the task is
 * waiting for.  Called with the task asleep, so its list does not change.
 */
static void show_bio_list(const char *what, struct bio_list *bl)
{
	struct bio *bio;
	int n = 0;

	printk(KERN_ERR "      %s: %u bio(s)\n", what, bio_list_size(bl));
	bio_list_for_each(bio, bl) {
		if (++n > 16) {
			printk(KERN_ERR "        ...\n");
			break;
		}
		/* the operation as one letter, as blktrace's RWBS field */
		printk(KERN_ERR "        %s %c %llu+%u\n", bio->bi_disk ? bio->bi_disk->disk_name : "?",
		       blk_op_str(bio_op(bio))[0],
		       (unsigned long long)bio->bi_iter.bi_sector, bio_sectors(bio));
	}
}

static void blk_show_task_io(struct task_struct *p)
{
	if (!p->bio_list) {
		printk(KERN_ERR "      bio_list: none (not inside generic_make_request)\n");
		return;
	}
	printk(KERN_ERR "      bio_list: queued by this task, not yet submitted:\n");
	show_bio_list("bio_list[0] (from the running make_request_fn)", &p->bio_list[0]);
	show_bio_list("bio_list[1] (waiting from before)", &p->bio_list[1]);
}

static int __init blk_core_init(void)
{
	hung_task_show_io = blk_show_task_io;
	return 0;
}
core_initcall(blk_core_init);
