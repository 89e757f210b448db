// SPDX-License-Identifier: MIT
/*
 * ata_test.c - the IDE driver (drivers/ata/ata_piix.c) from inside.
 *
 * Suite "ata":
 *   prd_*          the PRD builder, table-driven, on hand-made requests
 *                  (no device needed): the lab's grader for
 *                  ata_build_prd_table()
 *   siblings       master and slave of one channel busy at once, from two
 *                  threads: both finish and their data is right (the
 *                  BLK_STS_RESOURCE / ide_kickd path)
 *   flush          a REQ_OP_FLUSH bio reaches the disk and succeeds
 *   errors         with ata_test.bad=<s1>,<s2>,... on ata_test.dev=<disk>
 *                  (a blkdebug disk failing reads of those sectors): the
 *                  bios covering them end with BLK_STS_IOERR, the others
 *                  -- some read meanwhile by a second thread -- succeed
 *   lost_irq       with ata_test.lost_irq=<disk>: a command whose interrupt
 *                  is held back (disable_irq) is caught by the timeout
 *                  handler; the channel is reset and I/O continues
 *
 * Suite "ata_inject" (its own, because the failures it forces are logged
 * as errors, which scenarios that run the "ata" suite reject):
 *   register_fails ide_register_disk() run again for the first IDE disk,
 *                  once with alloc_disk() and once with add_disk() made to
 *                  fail (fault points, include/spindle/fault_inject.h):
 *                  -ENOMEM, the free page count and the queues on the
 *                  timeout scan as before, no disk of the new name, and
 *                  the disk copied still writes and reads its pattern
 */
#include <spindle/ktest.h>
#include <spindle/blkdev.h>
#include <spindle/blk_mq.h>
#include <spindle/irq.h>
#include <spindle/init.h>
#include <spindle/mm.h>
#include <spindle/pattern.h>
#include <spindle/completion.h>
#include <spindle/sched.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/time.h>
#include <spindle/fault_inject.h>
#include "../../drivers/ata/ata.h"
#include "../../block/blk.h"
#include "ktest_block.h"

/* --- the PRD builder ----------------------------------------------------- */

struct prd_want { u32 addr; u32 flags_len; };

struct prd_case {
	const char *what;
	struct ktest_seg segs[KTEST_RQ_SEGS];
	unsigned int max;               /* table entries allowed */
	int ret;                        /* entries, or -errno */
	struct prd_want want[6];
};

/* Made-up physical addresses, even above 4 GiB (tests/kernel/ktest_block.h). */
static const struct prd_case prd_cases[] = {
	{ "one page", { { 0x100000, 4096 } }, 8, 1, { { 0x100000, 4096 | ATA_PRD_EOT } } },
	{ "two segments", { { 0x200000, 4096 }, { 0x300800, 2048 } }, 8, 2, { { 0x200000, 4096 }, { 0x300800, 2048 | ATA_PRD_EOT } } },
	{ "64 KiB exactly, aligned: count 0", { { 0x400000, 65536 } }, 8, 1, { { 0x400000, 0 | ATA_PRD_EOT } } },
	{ "crosses a 64 KiB boundary: split", { { 0x40f000, 8192 } }, 8, 2, { { 0x40f000, 4096 }, { 0x410000, 4096 | ATA_PRD_EOT } } },
	{ "64 KiB unaligned: two pieces", { { 0x418000, 65536 } }, 8, 2, { { 0x418000, 32768 }, { 0x420000, 32768 | ATA_PRD_EOT } } },
	{ "ends exactly at a boundary: no empty entry", { { 0x41fe00, 512 } }, 8, 1, { { 0x41fe00, 512 | ATA_PRD_EOT } } },
	{ "too many entries", { { 0x40f000, 8192 }, { 0x500000, 512 } }, 2, -E2BIG, { { 0, 0 } } },
	{ "above 4 GiB", { { 0x100000, 512 }, { 0x140000000ull, 512 } }, 8, -ERANGE, { { 0, 0 } } },
	{ "straddles 4 GiB", { { 0xfffff000ull, 8192 } }, 8, -ERANGE, { { 0, 0 } } },
	{ "ends exactly at 4 GiB: every byte below it", { { 0xfffff000ull, 4096 } }, 8, 1, { { 0xfffff000u, 4096 | ATA_PRD_EOT } } },
	{ "odd length", { { 0x100000, 511 } }, 8, -EINVAL, { { 0, 0 } } },
};

/* The PRD table of a request over the case's segments. */
static int prd_run_case(const struct prd_case *tc, struct ata_prd *prd)
{
	struct ktest_rq kr;

	return ata_build_prd_table(ktest_fake_request(&kr, tc->segs, REQ_OP_READ), prd, tc->max);
}

KTEST(ata, prd_table)
{
	struct ata_prd prd[8];

	for (unsigned int i = 0; i < ARRAY_SIZE(prd_cases); i++) {
		const struct prd_case *tc = &prd_cases[i];
		int ret;

		memset(prd, 0xee, sizeof(prd));
		ret = prd_run_case(tc, prd);
		KT_ASSERT_MSG(ret == tc->ret, "%s: returned %d, want %d", tc->what, ret, tc->ret);
		for (int e = 0; e < ret; e++)
			KT_ASSERT_MSG(prd[e].addr == tc->want[e].addr &&
				      prd[e].flags_len == tc->want[e].flags_len,
				      "%s: entry %d is (%#x, %#x), want (%#x, %#x)", tc->what, e,
				      prd[e].addr, prd[e].flags_len, tc->want[e].addr,
				      tc->want[e].flags_len);
	}
}

KTEST(ata, prd_table_rules)
{
	/* Any request: every entry even, inside one 64 KiB window, EOT last only. */
	static struct ata_prd prd[ATA_PRD_MAX];
	struct prd_case tc = { "", { { 0x3ff00, 70000 }, { 0x7fffe, 4 }, { 0x90000, 131072 } },
			       ATA_PRD_MAX, 0, { { 0, 0 } } };
	int n = prd_run_case(&tc, prd);
	u64 total = 0;

	/* 256 + 65536 + 4208 | 2 + 2 | 65536 + 65536 */
	KT_ASSERT_MSG(n == 7, "got %d entries", n);
	for (int e = 0; e < n; e++) {
		u32 len = prd[e].flags_len & 0xffff ? prd[e].flags_len & 0xffff : 0x10000;

		KT_ASSERT(!(len & 1));
		KT_ASSERT_MSG((prd[e].addr & 0xffff) + len <= 0x10000, "entry %d crosses 64 KiB", e);
		KT_ASSERT(!!(prd[e].flags_len & ATA_PRD_EOT) == (e == n - 1));
		total += len;
	}
	KT_ASSERT(total == 70000 + 4 + 131072);
}

/* --- helpers for I/O on real disks ------------------------------------------ */

struct async_io {
	struct completion done;
	blk_status_t status;
};

static void async_end_io(struct bio *bio)
{
	struct async_io *a = bio->bi_private;

	a->status = bio->bi_status;
	complete(&a->done);
}

/* Start a read or write of len bytes (<= 64 KiB) at sector from buf's pages. */
static struct bio *start_io(struct block_device *b, bool write, sector_t sector,
			    void *buf, unsigned int len, struct async_io *a)
{
	struct bio *bio = bio_alloc(GFP_NOIO, 16);
	char *p = buf;

	bio_set_dev(bio, b);
	bio->bi_iter.bi_sector = sector;
	bio->bi_opf = write ? REQ_OP_WRITE : REQ_OP_READ;
	while (len) {
		unsigned int n = min(len, (unsigned int)PAGE_SIZE);

		bio_add_page(bio, virt_to_page(p), n, 0);
		p += n;
		len -= n;
	}
	init_completion(&a->done);
	bio->bi_private = a;
	bio->bi_end_io = async_end_io;
	submit_bio(bio);
	return bio;
}

static blk_status_t wait_io(struct bio *bio, struct async_io *a)
{
	wait_for_completion(&a->done);
	bio_put(bio);
	return a->status;
}

static blk_status_t sync_io(struct block_device *b, bool write, sector_t sector,
			    void *buf, unsigned int len)
{
	struct async_io a;
	struct bio *bio = start_io(b, write, sector, buf, len, &a);

	return wait_io(bio, &a);
}

/* --- master and slave at once ------------------------------------------------- */

#define SIB_CHUNK       (32 * 1024)
#define SIB_ROUNDS      24

struct sib_arg {
	struct block_device *b;
	u64 seed;
	int bad;                        /* rounds that failed */
	struct completion done;
};

/* Write then read back SIB_ROUNDS chunks, each with its own pattern. */
static int sibling_worker(void *data)
{
	struct sib_arg *s = data;
	void *buf = (void *)__get_free_pages(GFP_KERNEL, get_order(SIB_CHUNK));

	for (unsigned int r = 0; buf && r < SIB_ROUNDS; r++) {
		u64 off = (u64)r * SIB_CHUNK * 3;       /* gaps: no merging between rounds */

		pattern_fill(buf, off, SIB_CHUNK, s->seed);
		if (sync_io(s->b, true, off >> 9, buf, SIB_CHUNK)) {
			s->bad++;
			continue;
		}
		memset(buf, 0, SIB_CHUNK);
		if (sync_io(s->b, false, off >> 9, buf, SIB_CHUNK) ||
		    pattern_check(buf, off, SIB_CHUNK, s->seed) >= 0)
			s->bad++;
	}
	if (!buf)
		s->bad = -1;
	else
		free_pages((unsigned long)buf, get_order(SIB_CHUNK));
	complete(&s->done);
	return 0;
}

KTEST(ata, siblings)
{
	static const char *const pairs[2][2] = { { "hda", "hdb" }, { "hdc", "hdd" } };
	struct sib_arg a[2];
	int ch;

	for (ch = 0; ch < 2; ch++)
		if (lookup_bdev(pairs[ch][0]) && lookup_bdev(pairs[ch][1]))
			break;
	if (ch == 2)
		KT_SKIP("no channel with both master and slave");
	for (int i = 0; i < 2; i++) {
		a[i].b = lookup_bdev(pairs[ch][i]);
		a[i].seed = 1000 + (u64)i;
		a[i].bad = 0;
		init_completion(&a[i].done);
		KT_ASSERT(kthread_run(sibling_worker, &a[i], "ata_sib%d", i));
	}
	for (int i = 0; i < 2; i++) {
		long left = wait_for_completion_timeout(&a[i].done, (long)msecs_to_jiffies(20000));

		KT_ASSERT_MSG(left > 0, "%s: worker stuck", pairs[ch][i]);
	}
	for (int i = 0; i < 2; i++)
		KT_ASSERT_MSG(a[i].bad == 0, "%s: %d rounds failed", pairs[ch][i], a[i].bad);
}

KTEST(ata, flush)
{
	static const char *const names[] = { "hda", "hdb", "hdc", "hdd" };
	struct block_device *b = NULL;
	struct bio *bio;
	int err;

	for (unsigned int i = 0; !b && i < ARRAY_SIZE(names); i++)
		b = lookup_bdev(names[i]);
	if (!b)
		KT_SKIP("no IDE disk");
	bio = bio_alloc(GFP_NOIO, 1);
	bio_set_dev(bio, b);
	bio->bi_opf = REQ_OP_FLUSH;
	err = submit_bio_wait(bio);
	bio_put(bio);
	KT_ASSERT_MSG(err == 0, "flush returned %d", err);
}

/* --- errors ----------------------------------------------------------------- */

#define ERR_MAX_BAD     8
#define ERR_BIO_BYTES   4096            /* 8 sectors per bio */

struct clean_arg {
	struct block_device *b;
	sector_t first;                 /* clean sectors it reads */
	int failures;
	struct completion done;
};

/* The second task: clean reads while the first one's failing bios run. */
static int clean_reader(void *data)
{
	struct clean_arg *c = data;
	void *buf = (void *)__get_free_pages(GFP_KERNEL, 0);

	for (unsigned int i = 0; buf && i < 16; i++)
		if (sync_io(c->b, false, c->first + i * 64, buf, ERR_BIO_BYTES))
			c->failures++;
	if (buf)
		free_pages((unsigned long)buf, 0);
	complete(&c->done);
	return 0;
}

static unsigned int parse_sectors(const char *s, sector_t *out, unsigned int max)
{
	unsigned int n = 0;

	while (s && *s && n < max) {
		sector_t v = 0;

		while (*s >= '0' && *s <= '9')
			v = v * 10 + (sector_t)(*s++ - '0');
		out[n++] = v;
		if (*s != ',')
			break;
		s++;
	}
	return n;
}

/* The options are read with cmdline_get(); registering them keeps the
 * kernel from reporting them as unknown. */
static int __init ata_test_opt(const char *v) { (void)v; return 0; }
__setup("ata_test.dev=", ata_test_opt);
static int __init ata_test_opt2(const char *v) { (void)v; return 0; }
__setup("ata_test.bad=", ata_test_opt2);

KTEST(ata, errors)
{
	char devname[16], list[128];
	sector_t bad[ERR_MAX_BAD];
	struct bio *bios[2 * ERR_MAX_BAD];
	struct async_io io[2 * ERR_MAX_BAD];
	bool want_fail[2 * ERR_MAX_BAD];
	struct clean_arg clean;
	struct block_device *b;
	unsigned int nbad, nb = 0;
	char *buf;

	if (!cmdline_get("ata_test.dev", devname, sizeof(devname)) ||
	    !cmdline_get("ata_test.bad", list, sizeof(list)))
		KT_SKIP("needs ata_test.dev= and ata_test.bad= (a blkdebug disk)");
	b = lookup_bdev(devname);
	KT_ASSERT_MSG(b, "no %s", devname);
	nbad = parse_sectors(list, bad, ERR_MAX_BAD);
	KT_ASSERT(nbad > 0);
	buf = (char *)__get_free_pages(GFP_KERNEL, 4);      /* 64 KiB: 16 bios' buffers */
	KT_ASSERT(buf);

	/* A second task reads a clean region all along. */
	clean.b = b;
	clean.first = 100000;
	clean.failures = 0;
	init_completion(&clean.done);
	KT_ASSERT(kthread_run(clean_reader, &clean, "ata_clean"));

	/* For each bad sector: a bio covering it (8 sectors, the bad one
	 * inside), and a clean bio 512 sectors later (not adjacent: no
	 * merge may glue it to the failing one). */
	for (unsigned int i = 0; i < nbad; i++) {
		sector_t s = bad[i] & ~(sector_t)7;

		want_fail[nb] = true;
		bios[nb] = start_io(b, false, s, buf + nb * ERR_BIO_BYTES, ERR_BIO_BYTES, &io[nb]);
		nb++;
		want_fail[nb] = false;
		bios[nb] = start_io(b, false, s + 512, buf + nb * ERR_BIO_BYTES, ERR_BIO_BYTES, &io[nb]);
		nb++;
	}
	for (unsigned int i = 0; i < nb; i++) {
		blk_status_t st = wait_io(bios[i], &io[i]);

		if (want_fail[i])
			KT_ASSERT_MSG(st == BLK_STS_IOERR, "bio %u over a bad sector: status %d", i, st);
		else
			KT_ASSERT_MSG(st == BLK_STS_OK, "clean bio %u: status %d", i, st);
	}
	KT_ASSERT_MSG(wait_for_completion_timeout(&clean.done, (long)msecs_to_jiffies(20000)) > 0,
		      "the concurrent reader is stuck");
	KT_ASSERT_MSG(clean.failures == 0, "concurrent clean reads failed: %d", clean.failures);
	/* and the disk still works */
	KT_ASSERT(sync_io(b, false, 64, buf, ERR_BIO_BYTES) == BLK_STS_OK);
	free_pages((unsigned long)buf, 4);
}

/* --- a lost interrupt ---------------------------------------------------------- */

static int __init ata_test_opt3(const char *v) { (void)v; return 0; }
__setup("ata_test.lost_irq=", ata_test_opt3);

/*
 * The device completes the command, but its interrupt never reaches the
 * CPU: disable_irq() holds it back, as a mis-routed or lost interrupt
 * would.  Nothing completes the request, so the block layer's timeout scan
 * (boot with a short ide.timeout=) calls the driver's timeout handler: it
 * must reset the channel and fail the request with BLK_STS_TIMEOUT.  When
 * the interrupt is let through afterwards it finds nothing in flight and
 * is ignored; the next I/O must work.
 */
KTEST(ata, lost_irq)
{
	char devname[16];
	struct block_device *b;
	struct async_io a;
	struct bio *bio;
	blk_status_t st;
	void *buf;
	int irq;
	long left;

	if (!cmdline_get("ata_test.lost_irq", devname, sizeof(devname)))
		KT_SKIP("needs ata_test.lost_irq=<disk> and a short ide.timeout=");
	b = lookup_bdev(devname);
	irq = ide_disk_irq(devname);
	KT_ASSERT_MSG(b && irq >= 0, "no IDE disk %s", devname);
	buf = (void *)__get_free_pages(GFP_KERNEL, 0);
	KT_ASSERT(buf);

	disable_irq((unsigned int)irq);
	bio = start_io(b, false, 4096, buf, PAGE_SIZE, &a);
	left = wait_for_completion_timeout(&a.done, (long)msecs_to_jiffies(20000));
	enable_irq((unsigned int)irq);
	KT_ASSERT_MSG(left > 0, "the request was never timed out");
	st = a.status;                  /* the completion is consumed: no wait_io() */
	bio_put(bio);
	KT_ASSERT_MSG(st == BLK_STS_TIMEOUT, "status %d, want BLK_STS_TIMEOUT", st);

	/* I/O continues after the reset */
	pattern_fill(buf, 8192 * 512, PAGE_SIZE, 77);
	KT_ASSERT(sync_io(b, true, 8192, buf, PAGE_SIZE) == BLK_STS_OK);
	memset(buf, 0, PAGE_SIZE);
	KT_ASSERT(sync_io(b, false, 8192, buf, PAGE_SIZE) == BLK_STS_OK);
	KT_ASSERT_MSG(pattern_check(buf, 8192 * 512, PAGE_SIZE, 77) < 0, "data wrong after reset");
	free_pages((unsigned long)buf, 0);
}

/* --- a registration that fails -------------------------------------------- */

#define REG_NEW_NAME    "hdx"           /* the second registration's name */

/*
 * One failed registration at point: everything it took comes back.  Three
 * counts must be as before: the gendisks alloc_disk() made and put_disk()
 * has not freed; the queues on the timeout scan; and the page allocator's
 * free pages -- the queue, its requests and its bio_set take whole pages
 * or slab objects, and a slab emptied again gives its page back, so a
 * leak of their memory shows there.  Nothing else allocates meanwhile.
 */
static void register_fails_at(struct ktest_state *kt, const char *name, struct fault_attr *point)
{
	unsigned long free0, injected0 = point->injected;
	unsigned long disks0 = blk_nr_gendisks();
	unsigned int queues0 = blk_mq_nr_queues();
	int err;

	kmem_cache_shrink_all(); /* objects parked in kmalloc's arrays */
	free0 = nr_free_pages();

	point->interval = 1;
	point->probability = 100;
	point->space = 0;
	point->times = 1;
	err = ide_register_disk_again(name, REG_NEW_NAME);
	point->times = 0;
	KT_ASSERT_MSG(point->injected == injected0 + 1, "%s: %lu failures injected, want 1",
		      point->name, point->injected - injected0);
	KT_ASSERT_MSG(err == -ENOMEM, "%s: ide_register_disk returned %d", point->name, err);
	KT_ASSERT_MSG(!lookup_bdev(REG_NEW_NAME), "%s: %s registered", point->name, REG_NEW_NAME);
	KT_ASSERT_MSG(blk_mq_nr_queues() == queues0, "%s: %u queues on the timeout scan, %u before",
		      point->name, blk_mq_nr_queues(), queues0);
	KT_ASSERT_MSG(blk_nr_gendisks() == disks0, "%s: %lu gendisks allocated, %lu before",
		      point->name, blk_nr_gendisks(), disks0);
	kmem_cache_shrink_all(); /* objects parked in kmalloc's arrays */
	KT_ASSERT_MSG(nr_free_pages() == free0, "%s: %lu free pages, %lu before", point->name,
		      nr_free_pages(), free0);
}

KTEST(ata_inject, register_fails)
{
	static const char *const names[] = { "hda", "hdb", "hdc", "hdd" };
	struct block_device *b = NULL;
	unsigned int i;
	void *buf;

	for (i = 0; !b && i < ARRAY_SIZE(names); i++)
		b = lookup_bdev(names[i]);
	if (!b)
		KT_SKIP("no IDE disk");
	register_fails_at(kt, b->bd_name, &fail_alloc_disk);
	register_fails_at(kt, b->bd_name, &fail_add_disk);

	/* the disk whose device was used is untouched and still works */
	buf = (void *)__get_free_pages(GFP_KERNEL, 0);
	KT_ASSERT(buf);
	pattern_fill(buf, 0, PAGE_SIZE, 77);
	KT_ASSERT(sync_io(b, true, 0, buf, PAGE_SIZE) == BLK_STS_OK);
	memset(buf, 0, PAGE_SIZE);
	KT_ASSERT(sync_io(b, false, 0, buf, PAGE_SIZE) == BLK_STS_OK);
	KT_ASSERT_MSG(pattern_check(buf, 0, PAGE_SIZE, 77) < 0, "%s: pattern differs", b->bd_name);
	free_pages((unsigned long)buf, 0);
}
