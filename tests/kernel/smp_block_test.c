// SPDX-License-Identifier: MIT
/*
 * The block layer's shared counters changed from two CPUs at once.  This
 * task runs on CPU 0; CPU 1 runs the same loop in a function sent to it
 * (smp_call_function_single(), in interrupt context).  Booted with -smp 2
 * or more (tests/qemu/scenarios/smp-block.scn); on one CPU the cases
 * are skipped.
 *
 *   diskstats_from_two_cpus  both CPUs account I/O to one partition
 *                         (part_account_start(), then part_account_done(),
 *                         block/blk-core.c) 100,000 times each: the
 *                         partition's and the whole disk's counts add up
 *                         exactly and nothing is left in flight.  With
 *                         interrupts off as the only exclusion, increments
 *                         of one CPU are lost under the other's.
 *   bio_chain_from_two_cpus  50,000 parents (25 batches of 2,000) with
 *                         two chained children each; CPU 0 ends every
 *                         first child and CPU 1 every second one, in step:
 *                         each parent ends exactly once, after both
 *                         (bio_remaining_done(), lab 1), with the error
 *                         of the child that failed, whichever ended last
 *                         (bio_endio()).  The children are held with
 *                         bio_get() until the batch is over, so that no
 *                         free -- and its mempool lock -- separates the
 *                         two CPUs' steps.  A plain "--" with interrupts
 *                         off loses hundreds of parents a run; the test
 *                         is timing-dependent, not a proof.
 *
 *   completion_cpu_follows_rq_affinity  4 KiB reads of sda submitted on
 *                         CPU 1 and on CPU 2: with queue/rq_affinity 2
 *                         each ends (bi_end_io runs) on the CPU that
 *                         submitted it; with 0 both end on one CPU, the
 *                         one the disk's interrupt comes to.  With one
 *                         kblockd for all CPUs neither could hold.
 *   freeze_waits_for_queue_users  a queue user counted on CPU 1 holds a
 *                         freeze off until it leaves (from CPU 0), and
 *                         entries during the freeze are refused on both
 *                         CPUs (blk_queue_enter(), blk_mq_freeze_queue()).
 *
 * Each case also counts that the two CPUs really were at it at the same
 * time -- how often one CPU saw the other's progress move between two of
 * its own steps, or both I/Os in flight at once -- and fails when that
 * never happened: such a run proves nothing.
 */
#include <spindle/ktest.h>
#include <spindle/smp.h>
#include <spindle/blkdev.h>
#include <spindle/bio.h>
#include <spindle/sched.h>
#include <spindle/sched_debug.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include <spindle/completion.h>
#include <spindle/mm.h>
#include <spindle/errno.h>
#include "../../block/blk.h"

/* Wait (spinning: CPU 1 runs in interrupt context) for a flag the other
 * CPU sets; false after `secs` seconds. */
static bool wait_for_flag(const int *flag, unsigned int secs)
{
	u64 deadline = ktime_get_ns() + (u64)secs * NSEC_PER_SEC;

	while (!smp_load_acquire(flag))
		if (ktime_get_ns() > deadline)
			return false;
		else
			cpu_relax();
	return true;
}

/* --- /proc/diskstats counters (block/blk-core.c) ----------------------- */

#define DISKSTATS_ROUNDS 100000u
#define DISKSTATS_SECTORS 8u

static struct {
	struct gendisk disk;
	struct block_device whole, part;
	unsigned long progress[2];      /* rounds done by CPU 0, CPU 1 */
	unsigned long overlapped[2];    /* rounds during which the other moved */
	unsigned long both_in_flight[2]; /* rounds that saw the other's I/O in flight */
	int done;                       /* CPU 1 has finished */
} ds;

static void diskstats_hammer(void *arg)
{
	unsigned int me = (unsigned int)(unsigned long)arg;
	unsigned long seen = READ_ONCE(ds.progress[!me]);

	for (unsigned int i = 0; i < DISKSTATS_ROUNDS; i++) {
		enum stat_group g = (i & 1) ? STAT_WRITE : STAT_READ;
		u64 start = ktime_get_ns();
		unsigned long other;
		struct disk_stats st;

		part_account_start(&ds.part, g, start);
		part_stat_read_all(&ds.part, &st);
		if (disk_stats_in_flight(&st) > 1)
			ds.both_in_flight[me]++;
		part_account_done(&ds.part, g, DISKSTATS_SECTORS, start, false);
		other = READ_ONCE(ds.progress[!me]);
		if (other != seen)
			ds.overlapped[me]++;
		seen = other;
		WRITE_ONCE(ds.progress[me], i + 1);
		/* CPU 1 runs this with interrupts off (an IPI): under the
		 * debug options on a busy host it outlasts watchdog_thresh */
		if (i % 4096 == 0)
			touch_nmi_watchdog();
	}
	if (me)
		smp_store_release(&ds.done, 1);
}

static void diskstats_setup(void)
{
	memset(&ds, 0, sizeof(ds));
	strlcpy(ds.disk.disk_name, "smpblk", sizeof(ds.disk.disk_name));
	ds.disk.part[0] = &ds.whole;
	ds.disk.part[1] = &ds.part;
	ds.whole.bd_disk = ds.part.bd_disk = &ds.disk;
	ds.part.bd_partno = 1;
}

KTEST(smp_block, diskstats_from_two_cpus)
{
	const unsigned long n = 2ul * DISKSTATS_ROUNDS;
	struct block_device *parts[] = { &ds.part, &ds.whole };
	unsigned long overlapped, both;

	KT_NEEDS_CPUS(2u);
	KT_ASSERT(ktest_pin_cpu(0));        /* the other side runs on CPU 1 */
	diskstats_setup();
	KT_ASSERT(smp_call_function_single(1, diskstats_hammer, (void *)1ul, false) == 0);
	diskstats_hammer((void *)0ul);
	KT_ASSERT_MSG(wait_for_flag(&ds.done, 120), "CPU 1 did not finish its %u rounds",
		      DISKSTATS_ROUNDS);
	overlapped = ds.overlapped[0] + ds.overlapped[1];
	both = ds.both_in_flight[0] + ds.both_in_flight[1];
	for (unsigned int i = 0; i < ARRAY_SIZE(parts); i++) {
		struct disk_stats st;

		part_stat_read_all(parts[i], &st);
		pr_info("diskstats_hammer: %s: %llu reads, %llu writes, %llu sectors, "
			"%lu in flight (%ld, %ld); overlapped %lu rounds, both in flight %lu\n",
			i ? "disk" : "partition", (unsigned long long)st.ios[STAT_READ],
			(unsigned long long)st.ios[STAT_WRITE],
			(unsigned long long)(st.sectors[STAT_READ] + st.sectors[STAT_WRITE]),
			disk_stats_in_flight(&st), st.in_flight[0], st.in_flight[1], overlapped, both);
		KT_ASSERT_MSG(st.ios[STAT_READ] == n / 2 && st.ios[STAT_WRITE] == n / 2,
			      "%llu reads and %llu writes counted, %lu of each done",
			      (unsigned long long)st.ios[STAT_READ],
			      (unsigned long long)st.ios[STAT_WRITE], n / 2);
		KT_ASSERT_MSG(st.sectors[STAT_READ] + st.sectors[STAT_WRITE] == n * DISKSTATS_SECTORS,
			      "%llu sectors counted, %lu done",
			      (unsigned long long)(st.sectors[STAT_READ] + st.sectors[STAT_WRITE]),
			      n * DISKSTATS_SECTORS);
		KT_ASSERT_MSG(st.in_flight[0] == 0 && st.in_flight[1] == 0,
			      "%ld reads and %ld writes in flight after every I/O ended",
			      st.in_flight[0], st.in_flight[1]);
	}
	KT_ASSERT_MSG(overlapped > 0, "the two CPUs never accounted at the same time");
}

/* --- chained bios ending on two CPUs (block/bio.c, lab 1) ------------- */

#define CHAIN_PARENTS 2000u    /* at once (bios held) */
#define CHAIN_BATCHES 25u

static struct {
	struct bio *child[CHAIN_PARENTS][2];
	int ending[CHAIN_PARENTS][2];   /* bio_endio() of that child has begun */
	int ended[CHAIN_PARENTS];       /* times the parent's end_io ran */
	int early[CHAIN_PARENTS];       /* ... before both children were ending */
	blk_status_t status[CHAIN_PARENTS];
	unsigned long progress[2];      /* children ended by CPU 0, CPU 1 */
	unsigned long met[2];           /* ended while the other was on the same parent */
	int stuck[2];                   /* gave up waiting for the other CPU */
	int done;                       /* CPU 1 has finished */
} ch;

static void chain_parent_end(struct bio *bio)
{
	unsigned int i = (unsigned int)(unsigned long)bio->bi_private;

	if (!READ_ONCE(ch.ending[i][0]) || !READ_ONCE(ch.ending[i][1]))
		__atomic_fetch_add(&ch.early[i], 1, __ATOMIC_RELAXED);
	ch.status[i] = bio->bi_status;
	__atomic_fetch_add(&ch.ended[i], 1, __ATOMIC_RELEASE);
	bio_put(bio);
}

/* End this CPU's child of each parent in turn, in step with the other CPU:
 * child i only once the other has ended its child i-1, so both are at the
 * same parent at about the same moment. */
static void chain_hammer(void *arg)
{
	unsigned int me = (unsigned int)(unsigned long)arg;
	u64 deadline = ktime_get_ns() + 60ull * NSEC_PER_SEC;

	for (unsigned int i = 0; i < CHAIN_PARENTS; i++) {
		while (READ_ONCE(ch.progress[!me]) < i) {
			if (ktime_get_ns() > deadline) {
				ch.stuck[me] = 1;
				goto out;
			}
			cpu_relax();
		}
		WRITE_ONCE(ch.ending[i][me], 1);
		bio_endio(ch.child[i][me]);
		/* the other began ending its child of parent i and has not
		 * finished: the two bio_endio() calls overlapped */
		if (READ_ONCE(ch.ending[i][!me]) && READ_ONCE(ch.progress[!me]) == i)
			ch.met[me]++;
		WRITE_ONCE(ch.progress[me], i + 1);
	}
out:
	if (me)
		smp_store_release(&ch.done, 1);
}

/* One batch: CHAIN_PARENTS parents set up, their children ended from the
 * two CPUs, the results added to the totals. */
#define BATCH_CHECK(cond, fmt, ...)                                                 \
	do {                                                                        \
		if (!(cond)) {                                                      \
			ktest_fail(kt, __FILE__, __LINE__, fmt, ##__VA_ARGS__);     \
			return false;                                               \
		}                                                                   \
	} while (0)

struct chain_totals {
	unsigned long lost, twice, early, bad_status, met;
};

static bool chain_batch(struct ktest_state *kt, struct chain_totals *t)
{
	memset(&ch, 0, sizeof(ch));
	for (unsigned int i = 0; i < CHAIN_PARENTS; i++) {
		struct bio *parent = bio_alloc(GFP_KERNEL, 0);

		parent->bi_end_io = chain_parent_end;
		parent->bi_private = (void *)(unsigned long)i;
		for (unsigned int c = 0; c < 2; c++) {
			ch.child[i][c] = bio_alloc(GFP_KERNEL, 0);
			bio_chain(ch.child[i][c], parent);
			/* held past its end: no free (and no mempool lock)
			 * between the two CPUs' steps */
			bio_get(ch.child[i][c]);
		}
		/* every other parent: CPU 1's child fails, and the error must
		 * reach the parent whichever child ends last */
		if (i & 1)
			ch.child[i][1]->bi_status = BLK_STS_IOERR;
		bio_endio(parent);      /* its own part: the children remain */
		BATCH_CHECK(!ch.ended[i], "parent %u ended before its children", i);
	}
	BATCH_CHECK(smp_call_function_single(1, chain_hammer, (void *)1ul, false) == 0,
		    "could not send to CPU 1");
	chain_hammer((void *)0ul);
	BATCH_CHECK(wait_for_flag(&ch.done, 120), "CPU 1 did not finish");
	BATCH_CHECK(!ch.stuck[0] && !ch.stuck[1], "a CPU waited 60 s for the other");
	for (unsigned int i = 0; i < CHAIN_PARENTS; i++) {
		int n = __atomic_load_n(&ch.ended[i], __ATOMIC_ACQUIRE);

		t->lost += n == 0;
		t->twice += n > 1;
		t->early += ch.early[i] != 0;
		if (n == 1 && ch.status[i] != ((i & 1) ? BLK_STS_IOERR : BLK_STS_OK))
			t->bad_status++;
	}
	t->met += ch.met[0] + ch.met[1];
	for (unsigned int i = 0; i < CHAIN_PARENTS; i++)
		for (unsigned int c = 0; c < 2; c++)
			bio_put(ch.child[i][c]);        /* the last reference */
	return true;
}

KTEST(smp_block, bio_chain_from_two_cpus)
{
	struct chain_totals t = { 0 };

	KT_NEEDS_CPUS(2u);
	KT_ASSERT(ktest_pin_cpu(0));        /* the other side runs on CPU 1 */
	for (unsigned int b = 0; b < CHAIN_BATCHES; b++)
		if (!chain_batch(kt, &t))
			return;
	pr_info("bio_chain_hammer: %u parents, %lu never ended, %lu ended twice, "
		"%lu ended early, %lu with the wrong status; met on one parent %lu times\n",
		CHAIN_BATCHES * CHAIN_PARENTS, t.lost, t.twice, t.early, t.bad_status, t.met);
	KT_ASSERT_MSG(t.lost == 0, "%lu parents never ended: a count was lost", t.lost);
	KT_ASSERT_MSG(t.twice == 0 && t.early == 0, "%lu parents ended twice, %lu before both children",
		      t.twice, t.early);
	KT_ASSERT_MSG(t.bad_status == 0, "%lu parents lost their child's error", t.bad_status);
	KT_ASSERT_MSG(t.met > 0, "the two CPUs never ended children of one parent at once");
}

/* --- where completions run: queue/rq_affinity (block/blk-mq.c) ----------- */

struct aff_read {
	struct completion done;
	int cpu;                        /* where bi_end_io ran */
	int err;
};

static void aff_end_io(struct bio *bio)
{
	struct aff_read *r = bio->bi_private;

	r->cpu = (int)smp_processor_id();
	r->err = blk_status_to_errno(bio->bi_status);
	complete(&r->done);
}

/* One 4 KiB read of b submitted on `cpu`: the CPU that ended it, or -1. */
static int read_ends_on(struct block_device *b, struct page *pg, unsigned int cpu)
{
	struct aff_read r = { .cpu = -1 };
	struct bio *bio;

	if (!ktest_pin_cpu(cpu))
		return -1;
	init_completion(&r.done);
	bio = bio_alloc(GFP_NOIO, 1);
	bio_set_dev(bio, b);
	bio->bi_opf = REQ_OP_READ;
	bio->bi_iter.bi_sector = 8 * cpu;
	bio_add_page(bio, pg, PAGE_SIZE, 0);
	bio->bi_end_io = aff_end_io;
	bio->bi_private = &r;
	submit_bio(bio);
	wait_for_completion(&r.done);
	bio_put(bio);
	return r.err ? -1 : r.cpu;
}

KTEST(smp_block, completion_cpu_follows_rq_affinity)
{
	struct block_device *b = lookup_bdev("sda");
	int forced[2], here[2];
	unsigned int saved;
	struct request_queue *q;
	struct page *pg;

	KT_NEEDS_CPUS(3u);
	if (!b || !b->bd_disk->queue->tag_set)
		KT_SKIP("no request-based sda");
	q = b->bd_disk->queue;
	pg = alloc_page(GFP_KERNEL);
	KT_ASSERT(pg != NULL);
	saved = READ_ONCE(q->rq_affinity);
	WRITE_ONCE(q->rq_affinity, 2);
	forced[0] = read_ends_on(b, pg, 1);
	forced[1] = read_ends_on(b, pg, 2);
	WRITE_ONCE(q->rq_affinity, 0);
	here[0] = read_ends_on(b, pg, 1);
	here[1] = read_ends_on(b, pg, 2);
	WRITE_ONCE(q->rq_affinity, saved);
	ktest_pin_cpu(0);
	__free_page(pg);
	pr_info("rq_affinity: 2: submitted on CPU 1 and 2, ended on %d and %d; "
		"0: ended on %d and %d\n", forced[0], forced[1], here[0], here[1]);
	KT_ASSERT_MSG(forced[0] == 1 && forced[1] == 2,
		      "rq_affinity 2: ended on CPU %d and %d, not where submitted", forced[0], forced[1]);
	KT_ASSERT_MSG(here[0] >= 0 && here[0] == here[1],
		      "rq_affinity 0: ended on CPU %d and %d, not both on the interrupt's",
		      here[0], here[1]);
}

/* --- the queue's usage count and a freeze (block/blk-core.c) ----------- */

struct freeze_run {
	struct request_queue *q;
	struct completion frozen;
	int ret;                        /* blk_queue_enter() on CPU 1 */
};

static int freezer(void *data)
{
	struct freeze_run *f = data;

	blk_mq_freeze_queue(f->q);
	complete(&f->frozen);
	return 0;
}

static void enter_nowait_on_cpu1(void *data)
{
	struct freeze_run *f = data;

	f->ret = blk_queue_enter(f->q, true);
}

/*
 * A freeze waits for the queue's users, whichever CPU counted them: CPU 1
 * enters the queue (its own q_usage[1]), then a freezer thread freezes
 * it -- which must not finish while that user is inside, and from then on
 * a REQ_NOWAIT entry on either CPU is refused with -EAGAIN.  CPU 0 leaves
 * for it (q_usage[0] goes to -1: the sum is what counts), and the freeze
 * ends.  Entering and leaving run no barrier of their own: the freezer
 * waits for an interrupt on every CPU instead (blk_queue_usage_sync()).
 */
KTEST(smp_block, freeze_waits_for_queue_users)
{
	struct block_device *b = lookup_bdev("sda");
	struct freeze_run f = { 0 };
	bool early;

	KT_NEEDS_CPUS(2u);
	if (!b || !b->bd_disk->queue->tag_set)
		KT_SKIP("no request-based sda");
	f.q = b->bd_disk->queue;
	init_completion(&f.frozen);
	ktest_pin_cpu(0);
	f.ret = 1;
	smp_call_function_single(1, enter_nowait_on_cpu1, &f, true);
	KT_ASSERT_MSG(f.ret == 0, "CPU 1 could not enter an idle queue: %d", f.ret);
	KT_ASSERT(kthread_run(freezer, &f, "freezer") != NULL);
	for (int i = 0; i < 5000 && !READ_ONCE(f.q->mq_freeze_depth); i++)
		msleep(1);
	KT_ASSERT_MSG(READ_ONCE(f.q->mq_freeze_depth) == 1, "the freezer never started");
	msleep(50);                     /* time enough to finish, were it wrong */
	early = completion_done(&f.frozen);
	KT_ASSERT_MSG(blk_queue_enter(f.q, true) == -EAGAIN, "CPU 0 entered a frozen queue");
	f.ret = 1;
	smp_call_function_single(1, enter_nowait_on_cpu1, &f, true);
	blk_queue_exit(f.q);            /* CPU 1's user, left from CPU 0 */
	KT_ASSERT_MSG(!early, "the freeze ended with a user inside");
	KT_ASSERT_MSG(f.ret == -EAGAIN, "CPU 1 entered a frozen queue: %d", f.ret);
	KT_ASSERT_MSG(wait_for_completion_timeout(&f.frozen, msecs_to_jiffies(5000)) > 0,
		      "the freeze did not end once the user left");
	pr_info("freeze: waited for CPU 1's user, refused entries on CPU 0 and 1, ended\n");
	blk_mq_unfreeze_queue(f.q);
	KT_ASSERT(blk_queue_enter(f.q, true) == 0);
	blk_queue_exit(f.q);
}
