// SPDX-License-Identifier: MIT
/*
 * Device-mapper tests in the kernel (suite "dm"): each case builds its
 * own stack with dm_create() on RAM disks no mapped device holds yet,
 * does real I/O through it, looks at the legs directly where the data
 * must have landed (the verification pattern, keyed by the dm device's own
 * offsets), and removes what it built.  The dm-*.scn scenarios boot with
 * enough brd RAM disks; without two free ones every case skips.
 */
#include <spindle/ktest.h>
#include <spindle/blkdev.h>
#include <spindle/blk_plug.h>
#include <spindle/completion.h>
#include <spindle/console.h>
#include <spindle/sched.h>
#include <spindle/pattern.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/time.h>
#include "../../drivers/md/dm.h"

#define BUF_ORDER       5                       /* 32 pages: 128 KiB */
#define BUF_BYTES       (PAGE_SIZE << BUF_ORDER)
#define RAM_MIN_SECTORS 8192                    /* 4 MiB: room for every case */
#define RAM_MAX         16
#define RESERVED_IOS_TEST_MAX 64                /* bios the NOWAIT case can hold */

/* The n-th RAM disk (0-based) that no mapped device holds, or NULL. */
static const char *free_ram(unsigned int n)
{
	static char names[2][8];
	unsigned int found = 0;

	for (unsigned int i = 0; i < RAM_MAX && n < ARRAY_SIZE(names); i++) {
		struct block_device *b;

		snprintf(names[n], sizeof(names[n]), "ram%u", i);
		b = lookup_bdev(names[n]);
		if (b && !b->bd_holder && bdev_nr_sectors(b) >= RAM_MIN_SECTORS && found++ == n)
			return names[n];
	}
	return NULL;
}

/* Synchronous I/O of len bytes (contiguous pages) at sector. */
static int dm_rw(struct block_device *b, unsigned int opf, sector_t sector,
		 struct page *pages, unsigned int len)
{
	struct bio *bio = bio_alloc(GFP_NOIO, DIV_ROUND_UP(len, PAGE_SIZE));
	int err;

	bio_set_dev(bio, b);
	bio->bi_iter.bi_sector = sector;
	bio->bi_opf = opf;
	for (unsigned int off = 0; off < len; off += PAGE_SIZE)
		bio_add_page(bio, pages + off / PAGE_SIZE, min((unsigned int)PAGE_SIZE, len - off), 0);
	err = submit_bio_wait(bio);
	bio_put(bio);
	return err;
}

static int by_name_rw(const char *name, unsigned int opf, sector_t sector,
		      struct page *pages, unsigned int len)
{
	struct block_device *b = lookup_bdev(name);

	return b ? dm_rw(b, opf, sector, pages, len) : -ENXIO;
}

/* Write the pattern for [dev_off, dev_off + len) of the device at sector. */
static int write_pattern(const char *name, sector_t sector, u64 dev_off,
			 struct page *buf, unsigned int len, u64 seed)
{
	pattern_fill(page_address(buf), dev_off, len, seed);
	return by_name_rw(name, REQ_OP_WRITE, sector, buf, len);
}

/* Read len bytes at sector and check them against the pattern of
 * dev_off: 0 if they match, else -errno or 1. */
static int check_pattern(const char *name, sector_t sector, u64 dev_off,
			 struct page *buf, unsigned int len, u64 seed)
{
	int err;

	memset(page_address(buf), 0, len);
	err = by_name_rw(name, REQ_OP_READ, sector, buf, len);
	if (err)
		return err;
	return pattern_check(page_address(buf), dev_off, len, seed) < 0 ? 0 : 1;
}

/* "@0" and "@1" in tmpl become a[0] and a[1]. */
static const char *expand(char *out, size_t size, const char *tmpl, const char *a[2])
{
	size_t n = 0;

	for (const char *p = tmpl; *p && n + 1 < size; p++) {
		if (p[0] == '@' && (p[1] == '0' || p[1] == '1')) {
			n += strlcpy(out + n, a[p[1] - '0'], size - n);
			p++;
		} else {
			out[n++] = *p;
		}
	}
	out[min(n, size - 1)] = '\0';
	return out;
}

static struct mapped_device *create(const char *tmpl, const char *a[2])
{
	struct mapped_device *md = NULL;
	char spec[256];

	if (dm_create(expand(spec, sizeof(spec), tmpl, a), &md))
		return NULL;
	return md;
}

static const char *dev(struct mapped_device *md)
{
	return md->disk->disk_name;
}

#define NEED_TWO_RAMS(r) do { \
	r[0] = free_ram(0); r[1] = free_ram(1); \
	if (!r[0] || !r[1]) \
		KT_SKIP("needs two free RAM disks of 4 MiB (brd.rd_nr=, brd.rd_size=)"); \
} while (0)

/* --- Core ------------------------------------------------------------- */

/* Every broken table prints why and leaves nothing behind: no device,
 * no device below still held. */
KTEST(dm, table_errors_create_nothing)
{
	static const char *const bad[] = {
		"t-bad,,,rw,0 64 nosuch @0 0",                          /* unknown target */
		"t-bad,,,rw,0 64 linear @0",                            /* missing offset */
		"t-bad,,,rw,0 64 linear @0 zero",                       /* bad offset */
		"t-bad,,,rw,0 64 linear nosuchdev 0",                   /* no device */
		"t-bad,,,rw,0 64 linear @0 8388608",                    /* beyond its end */
		"t-bad,,,rw,8 64 linear @0 0",                          /* not from 0 */
		"t-bad,,,rw,0 64 linear @0 0,128 64 linear @1 0",       /* a gap */
		"t-bad,,,rw,0 64 linear @0 0,32 64 linear @1 0",        /* an overlap */
		"t-bad,,,rw,0 64 linear @0 0,64 64 linear nosuch 0",    /* 2nd fails after 1st */
		"t-bad,,,rw,0 0 linear @0 0",                           /* empty target */
		"t-bad,,,rx,0 64 linear @0 0",                          /* bad flags */
		"t-bad,,,rw",                                           /* no table */
		"t-bad,,x,rw,0 64 linear @0 0",                         /* bad minor */
		"t-bad,,,rw,0 96 striped 2 6 @0 0 @1 0",                /* chunk not 2^n */
		"t-bad,,,rw,0 72 striped 2 8 @0 0 @1 0",                /* not whole chunks */
		"t-bad,,,rw,0 64 striped 2 8 @0 0",                     /* missing stripe */
		"t-bad,,,rw,0 64 flakey @0 0 1",                        /* missing interval */
		"t-bad,,,rw,0 64 flakey @0 0 1 1 1 bogus",              /* unknown feature */
		"t-bad,,,rw,0 64 flakey @0 0 0 0",                      /* both intervals 0 */
		"t-bad,,,rw,0 64 delay @0 0",                           /* missing delay */
		"t-bad,,,rw,0 64 mirror disk 1 8 2 @0 0 @1 0",          /* not the core log */
		"t-bad,,,rw,0 64 mirror core 1 7 2 @0 0 @1 0",          /* region not 2^n */
		"t-bad,,,rw,0 64 mirror core 1 8 2 @0 0",               /* missing leg */
		"t-bad,,,rw,0 64 mirror core 1 8 2 @0 0 @1 0 1 bogus",  /* unknown feature */
	};
	const char *r[2];
	char spec[256];

	NEED_TWO_RAMS(r);
	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		int err = dm_create(expand(spec, sizeof(spec), bad[i], r), NULL);

		KT_ASSERT_MSG(err != 0, "created from '%s'", spec);
		KT_ASSERT_MSG(!dm_get_md("t-bad"), "a device remains after '%s'", spec);
		KT_ASSERT_MSG(!lookup_bdev(r[0])->bd_holder && !lookup_bdev(r[1])->bd_holder,
			      "a device below is still held after '%s'", spec);
	}
}

/* Names and numbers: dm-<minor>, major 253, unique names and minors. */
KTEST(dm, names_and_numbers)
{
	struct mapped_device *md, *md2;
	const char *r[2];
	char num[16];

	NEED_TWO_RAMS(r);
	md = create("t-num,,42,rw,0 64 linear @0 0", r);
	KT_ASSERT(md);
	KT_ASSERT(strcmp(dev(md), "dm-42") == 0);
	KT_ASSERT(md->disk->part[0]->bd_dev == MKDEV(DM_MAJOR, 42));
	KT_ASSERT(dm_get_md("t-num") == md && dm_get_md("dm-42") == md);
	KT_ASSERT(lookup_bdev("253:42") == md->disk->part[0]);
	KT_ASSERT(dm_create("t-num,,,rw,0 64 linear @1 0", NULL) != 0);   /* same name */
	KT_ASSERT(create("t-num2,,42,rw,0 64 linear @1 0", r) == NULL);    /* same minor */
	/* a device below by <major>:<minor>, and held once per mapped device */
	snprintf(num, sizeof(num), "%u:%u", MAJOR(lookup_bdev(r[1])->bd_dev),
		 MINOR(lookup_bdev(r[1])->bd_dev));
	KT_ASSERT(dm_create("t-busy,,,rw,0 64 linear dm-42 0", NULL) == 0);
	KT_ASSERT(dm_destroy(md) == -EBUSY);            /* it is a leg of t-busy */
	KT_ASSERT(dm_destroy(dm_get_md("t-busy")) == 0);
	{
		const char *a[2] = { num, r[0] };

		md2 = create("t-num2,,,rw,0 64 linear @0 0", a);
		KT_ASSERT(md2);
		KT_ASSERT(create("t-num3,,,rw,0 64 linear @0 64", a) == NULL);  /* held */
	}
	KT_ASSERT(dm_destroy(md2) == 0);
	KT_ASSERT(dm_destroy(md) == 0);
	KT_ASSERT(!lookup_bdev("dm-42") && !lookup_bdev(r[0])->bd_holder);
}

/* Linear: what goes in at dm sector s lands at offset + s on the leg. */
KTEST(dm, linear_remaps)
{
	struct page *buf = alloc_pages(GFP_KERNEL, BUF_ORDER);
	const sector_t offset = 4096, s = 100;
	const unsigned int len = 64 * 1024;
	struct mapped_device *md;
	const char *r[2];

	NEED_TWO_RAMS(r);
	KT_ASSERT(buf);
	md = create("t-lin,,,rw,0 2048 linear @0 4096", r);
	KT_ASSERT(md);
	KT_ASSERT(get_capacity(md->disk) == 2048);
	KT_ASSERT(write_pattern(dev(md), s, s * SECTOR_SIZE, buf, len, 11) == 0);
	KT_ASSERT_MSG(check_pattern(r[0], offset + s, s * SECTOR_SIZE, buf, len, 11) == 0,
		      "the leg does not hold the data at offset + sector");
	KT_ASSERT(check_pattern(dev(md), s, s * SECTOR_SIZE, buf, len, 11) == 0);
	/* one sector past the end of the mapped device is refused */
	KT_ASSERT(by_name_rw(dev(md), REQ_OP_WRITE, 2048 - 7, buf, 4096) == -EIO);
	KT_ASSERT(dm_destroy(md) == 0);
	__free_pages(buf, BUF_ORDER);
}

/* Two linear lines concatenate: the second starts at its own offset. */
KTEST(dm, linear_concatenates)
{
	struct page *buf = alloc_pages(GFP_KERNEL, BUF_ORDER);
	struct mapped_device *md;
	const char *r[2];

	NEED_TWO_RAMS(r);
	KT_ASSERT(buf);
	md = create("t-cat,,,rw,0 64 linear @0 1000,64 64 linear @1 2000", r);
	KT_ASSERT(md);
	/* 64 KiB from dm sector 32: 32 sectors on @0, 64 on @1, 32 past it */
	KT_ASSERT(by_name_rw(dev(md), REQ_OP_WRITE, 32, buf, 64 * 1024) == -EIO);
	KT_ASSERT(write_pattern(dev(md), 32, 32 * SECTOR_SIZE, buf, 32 * 1024, 5) == 0);
	KT_ASSERT(check_pattern(r[0], 1000 + 32, 32 * SECTOR_SIZE, buf, 16 * 1024, 5) == 0);
	KT_ASSERT(check_pattern(r[1], 2000, 64 * SECTOR_SIZE, buf, 16 * 1024, 5) == 0);
	KT_ASSERT(dm_destroy(md) == 0);
	__free_pages(buf, BUF_ORDER);
}

/*
 * Striped, chunk 8: a 64 KiB bio from dm sector 4 crosses 16 chunk
 * boundaries; each piece must land on stripe c % 2, chunk c / 2 there.
 */
KTEST(dm, striped_splits_at_chunks)
{
	struct page *buf = alloc_pages(GFP_KERNEL, BUF_ORDER);
	struct page *leg = alloc_pages(GFP_KERNEL, BUF_ORDER);
	const sector_t first = 4, nr = 128, chunk = 8;
	const sector_t start[2] = { 64, 128 };
	struct mapped_device *md;
	const char *r[2];

	NEED_TWO_RAMS(r);
	KT_ASSERT(buf && leg);
	md = create("t-str,,,rw,0 512 striped 2 8 @0 64 @1 128", r);
	KT_ASSERT(md);
	KT_ASSERT(write_pattern(dev(md), first, first * SECTOR_SIZE, buf, nr * SECTOR_SIZE, 3) == 0);
	for (unsigned int s = 0; s < 2; s++) {
		u8 *mem = page_address(leg);

		KT_ASSERT(by_name_rw(r[s], REQ_OP_READ, start[s], leg, 128 * SECTOR_SIZE) == 0);
		for (sector_t d = first; d < first + nr; d++) {
			sector_t c = d / chunk, at = (c / 2) * chunk + d % chunk;

			if (c % 2 != s)
				continue;
			KT_ASSERT_MSG(pattern_check(mem + at * SECTOR_SIZE, d * SECTOR_SIZE,
						    SECTOR_SIZE, 3) < 0,
				      "dm sector %llu not at %s sector %llu",
				      (unsigned long long)d, r[s], (unsigned long long)(start[s] + at));
		}
	}
	KT_ASSERT(check_pattern(dev(md), first, first * SECTOR_SIZE, buf, nr * SECTOR_SIZE, 3) == 0);
	KT_ASSERT(dm_destroy(md) == 0);
	__free_pages(buf, BUF_ORDER);
	__free_pages(leg, BUF_ORDER);
}

/*
 * Striped over three stripes (a RAM disk may hold two of them, at
 * different offsets), chunk 16: with three, chunk c is on stripe c % 3 at
 * chunk c / 3 there -- a map that took "every other chunk" would pass two
 * stripes and fail here.
 */
KTEST(dm, striped_three_stripes)
{
	struct page *buf = alloc_pages(GFP_KERNEL, BUF_ORDER);
	struct page *leg = alloc_pages(GFP_KERNEL, BUF_ORDER);
	const sector_t nr = 256, chunk = 16;
	struct { unsigned int ram; sector_t start; } stripe[3] = { { 0, 0 }, { 1, 32 }, { 0, 1024 } };
	struct mapped_device *md;
	const char *r[2];

	NEED_TWO_RAMS(r);
	KT_ASSERT(buf && leg);
	md = create("t-str3,,,rw,0 768 striped 3 16 @0 0 @1 32 @0 1024", r);
	KT_ASSERT(md);
	KT_ASSERT(write_pattern(dev(md), 0, 0, buf, nr * SECTOR_SIZE, 9) == 0);
	for (unsigned int s = 0; s < 3; s++) {
		u8 *mem = page_address(leg);

		KT_ASSERT(by_name_rw(r[stripe[s].ram], REQ_OP_READ, stripe[s].start, leg,
				     128 * SECTOR_SIZE) == 0);
		for (sector_t d = 0; d < nr; d++) {
			sector_t c = d / chunk, at = (c / 3) * chunk + d % chunk;

			if (c % 3 != s)
				continue;
			KT_ASSERT_MSG(pattern_check(mem + at * SECTOR_SIZE, d * SECTOR_SIZE,
						    SECTOR_SIZE, 9) < 0,
				      "dm sector %llu not at %s sector %llu",
				      (unsigned long long)d, r[stripe[s].ram],
				      (unsigned long long)(stripe[s].start + at));
		}
	}
	KT_ASSERT(check_pattern(dev(md), 0, 0, buf, nr * SECTOR_SIZE, 9) == 0);
	KT_ASSERT(dm_destroy(md) == 0);
	__free_pages(buf, BUF_ORDER);
	__free_pages(leg, BUF_ORDER);
}

/* The deadlock lab's stack, striped over two linear devices: it works
 * under bio_order=depth whatever dm_mod.reserved_bio_based_ios is. */
KTEST(dm, striped_over_linear)
{
	struct page *buf = alloc_pages(GFP_KERNEL, BUF_ORDER);
	struct mapped_device *l0, *l1, *st;
	const char *r[2], *legs[2];

	NEED_TWO_RAMS(r);
	KT_ASSERT(buf);
	if (bio_order != BIO_ORDER_DEPTH)
		KT_SKIP("bio_order=fifo deadlocks this stack (deadlock-fifo.scn)");
	l0 = create("t-l0,,,rw,0 2048 linear @0 0", r);
	l1 = create("t-l1,,,rw,0 2048 linear @1 0", r);
	KT_ASSERT(l0 && l1);
	legs[0] = dev(l0);
	legs[1] = dev(l1);
	st = create("t-st,,,rw,0 4096 striped 2 8 @0 0 @1 0", legs);
	KT_ASSERT(st);
	for (sector_t s = 0; s < 1024; s += BUF_BYTES / SECTOR_SIZE)
		KT_ASSERT(write_pattern(dev(st), s, s * SECTOR_SIZE, buf, BUF_BYTES, 8) == 0);
	for (sector_t s = 0; s < 1024; s += BUF_BYTES / SECTOR_SIZE)
		KT_ASSERT(check_pattern(dev(st), s, s * SECTOR_SIZE, buf, BUF_BYTES, 8) == 0);
	/* chunk 1 (dm sectors 8..15) is chunk 0 of the second stripe */
	KT_ASSERT(check_pattern(r[1], 0, 8 * SECTOR_SIZE, buf, 8 * SECTOR_SIZE, 8) == 0);
	KT_ASSERT(dm_destroy(st) == 0);
	KT_ASSERT(dm_destroy(l1) == 0 && dm_destroy(l0) == 0);
	__free_pages(buf, BUF_ORDER);
}

/* An empty flush goes to every stripe: a down flakey on either one
 * fails it. */
KTEST(dm, flush_reaches_every_stripe)
{
	struct mapped_device *fl, *st;
	const char *r[2], *legs[2];

	NEED_TWO_RAMS(r);
	fl = create("t-fdown,,,rw,0 1024 flakey @0 0 0 60", r);
	KT_ASSERT(fl);
	for (int down = 0; down < 2; down++) {
		legs[down] = dev(fl);
		legs[!down] = r[1];
		st = create("t-fst,,,rw,0 2048 striped 2 8 @0 0 @1 0", legs);
		KT_ASSERT(st);
		KT_ASSERT_MSG(by_name_rw(dev(st), REQ_OP_FLUSH, 0, NULL, 0) == -EIO,
			      "the flush did not reach stripe %d", down);
		KT_ASSERT(dm_destroy(st) == 0);
	}
	KT_ASSERT(dm_destroy(fl) == 0);
}

/* Flakey: down fails everything; drop_writes and error_writes only
 * writes; up is linear. */
KTEST(dm, flakey_fails_while_down)
{
	struct page *buf = alloc_pages(GFP_KERNEL, BUF_ORDER);
	const unsigned int len = 16 * 1024;
	struct mapped_device *md;
	const char *r[2];

	NEED_TWO_RAMS(r);
	KT_ASSERT(buf);
	KT_ASSERT(write_pattern(r[0], 0, 0, buf, len, 31) == 0);

	md = create("t-fl,,,rw,0 1024 flakey @0 0 0 60", r);           /* down 60 s */
	KT_ASSERT(md);
	KT_ASSERT(by_name_rw(dev(md), REQ_OP_READ, 0, buf, len) == -EIO);
	KT_ASSERT(write_pattern(dev(md), 0, 0, buf, len, 32) == -EIO);
	KT_ASSERT(dm_destroy(md) == 0);

	md = create("t-fl,,,rw,0 1024 flakey @0 0 0 60 1 drop_writes", r);
	KT_ASSERT(md);
	KT_ASSERT(write_pattern(dev(md), 0, 0, buf, len, 33) == 0);     /* "done" */
	KT_ASSERT_MSG(check_pattern(dev(md), 0, 0, buf, len, 31) == 0,
		      "a dropped write reached the disk, or reads fail");
	KT_ASSERT(dm_destroy(md) == 0);

	md = create("t-fl,,,rw,0 1024 flakey @0 0 0 60 1 error_writes", r);
	KT_ASSERT(md);
	KT_ASSERT(write_pattern(dev(md), 0, 0, buf, len, 34) == -EIO);
	KT_ASSERT(check_pattern(dev(md), 0, 0, buf, len, 31) == 0);
	KT_ASSERT(dm_destroy(md) == 0);

	md = create("t-fl,,,rw,0 1024 flakey @0 0 60 60", r);          /* up 60 s */
	KT_ASSERT(md);
	KT_ASSERT(write_pattern(dev(md), 0, 0, buf, len, 35) == 0);
	KT_ASSERT(check_pattern(r[0], 0, 0, buf, len, 35) == 0);
	KT_ASSERT(dm_destroy(md) == 0);
	__free_pages(buf, BUF_ORDER);
}

/* Mirror: a write reaches every leg; reads come back from either. */
KTEST(dm, raid1_writes_reach_every_leg)
{
	struct page *buf = alloc_pages(GFP_KERNEL, BUF_ORDER);
	struct mapped_device *md;
	const char *r[2];

	NEED_TWO_RAMS(r);
	KT_ASSERT(buf);
	md = create("t-m,,,rw,0 1024 mirror core 1 1024 2 @0 0 @1 512", r);
	KT_ASSERT(md);
	KT_ASSERT(write_pattern(dev(md), 16, 16 * SECTOR_SIZE, buf, BUF_BYTES, 41) == 0);
	KT_ASSERT(check_pattern(r[0], 16, 16 * SECTOR_SIZE, buf, BUF_BYTES, 41) == 0);
	KT_ASSERT(check_pattern(r[1], 512 + 16, 16 * SECTOR_SIZE, buf, BUF_BYTES, 41) == 0);
	for (int i = 0; i < 4; i++)     /* round-robin: both legs serve */
		KT_ASSERT(check_pattern(dev(md), 16, 16 * SECTOR_SIZE, buf, BUF_BYTES, 41) == 0);
	KT_ASSERT(dm_destroy(md) == 0);
	__free_pages(buf, BUF_ORDER);
}

/*
 * Under a plug, a mirror's writes wait on the submitter's plug (the
 * callback of blk_check_plugged(), as md raid1 does) and reach kmirrord
 * together at blk_finish_plug(): before it, nothing has started; after
 * it, every write is on both legs.  No more writes than the device's
 * reserve of bios (dm_mod.reserved_bio_based_ios): one more would wait
 * for a bio, and a task that sleeps flushes its plug -- correctly, but
 * then the writes start before blk_finish_plug().
 */
#define PLUGGED_WRITES 8

struct plugged_writes {
	spinlock_t lock;
	unsigned int finished, expected;
	struct completion all;          /* when finished reaches expected */
};

static void plugged_write_endio(struct bio *bio)
{
	struct plugged_writes *pw = bio->bi_private;
	unsigned long flags;

	spin_lock_irqsave(&pw->lock, flags);
	if (++pw->finished == pw->expected)
		complete(&pw->all);
	spin_unlock_irqrestore(&pw->lock, flags);
}

KTEST(dm, raid1_batches_under_a_plug)
{
	struct page *buf = alloc_pages(GFP_KERNEL, BUF_ORDER);
	struct bio *bios[PLUGGED_WRITES];
	struct plugged_writes pw;
	struct mapped_device *md;
	struct blk_plug plug;
	unsigned int started, failed = 0;
	unsigned long flags;
	bool parked, plugged;
	const char *r[2];
	unsigned int n = min(PLUGGED_WRITES + 0u, dm_get_reserved_bio_based_ios());

	NEED_TWO_RAMS(r);
	KT_ASSERT(buf);
	md = create("t-mp,,,rw,0 1024 mirror core 1 1024 2 @0 0 @1 512", r);
	KT_ASSERT(md);
	spin_lock_init(&pw.lock);
	pw.finished = 0;
	pw.expected = n;
	init_completion(&pw.all);
	blk_start_plug(&plug);
	plugged = current->plug == &plug;
	for (unsigned int i = 0; i < n; i++) {
		struct bio *bio = bio_alloc(GFP_NOIO, 1);

		pattern_fill(page_address(buf + i), i * PAGE_SIZE, PAGE_SIZE, 71);
		bio_set_dev(bio, lookup_bdev(dev(md)));
		bio->bi_iter.bi_sector = i * (PAGE_SIZE / SECTOR_SIZE);
		bio->bi_opf = REQ_OP_WRITE;
		bio->bi_end_io = plugged_write_endio;
		bio->bi_private = &pw;
		bio_add_page(bio, buf + i, PAGE_SIZE, 0);
		bios[i] = bio;
		submit_bio(bio);
	}
	parked = blk_needs_flush_plug(current);
	spin_lock_irqsave(&pw.lock, flags);
	started = pw.finished;
	spin_unlock_irqrestore(&pw.lock, flags);
	blk_finish_plug(&plug);
	wait_for_completion(&pw.all);   /* nothing in flight past this line */
	for (unsigned int i = 0; i < n; i++) {
		failed += bios[i]->bi_status != BLK_STS_OK;
		bio_put(bios[i]);
	}
	KT_ASSERT(dm_destroy(md) == 0);
	KT_ASSERT_MSG(failed == 0, "%u writes failed", failed);
	if (plugged) {
		KT_ASSERT_MSG(parked, "raid1 parked nothing on the plug");
		KT_ASSERT_MSG(started == 0, "%u of %u writes finished before the plug was flushed",
			      started, n);
	}
	KT_ASSERT(check_pattern(r[0], 0, 0, buf, n * PAGE_SIZE, 71) == 0);
	KT_ASSERT(check_pattern(r[1], 512, 0, buf, n * PAGE_SIZE, 71) == 0);
	__free_pages(buf, BUF_ORDER);
	if (!plugged)
		KT_SKIP("plug=off: the writes went out one by one (and reached both legs)");
}

/* Which of two patterns 4 KiB at sector 0 of name holds: 0, 1, or -1
 * (neither, or the read failed). */
static int which_pattern(const char *name, struct page *buf, const u64 pats[2])
{
	if (by_name_rw(name, REQ_OP_READ, 0, buf, PAGE_SIZE))
		return -1;
	for (int i = 0; i < 2; i++)
		if (pattern_check(page_address(buf), 0, PAGE_SIZE, pats[i]) < 0)
			return i;
	return -1;
}

/*
 * Read balancing, made visible: the legs of a nosync mirror hold
 * different data, so each read shows which leg served it.  Round-robin:
 * consecutive reads alternate between the two healthy legs.
 */
KTEST(dm, raid1_reads_alternate_legs)
{
	struct page *buf = alloc_pages(GFP_KERNEL, 0);
	const u64 pats[2] = { 61, 62 };
	struct mapped_device *md;
	const char *r[2];
	int prev = -1;

	NEED_TWO_RAMS(r);
	KT_ASSERT(buf);
	KT_ASSERT(write_pattern(r[0], 0, 0, buf, PAGE_SIZE, pats[0]) == 0);
	KT_ASSERT(write_pattern(r[1], 0, 0, buf, PAGE_SIZE, pats[1]) == 0);
	md = create("t-mrr,,,rw,0 1024 mirror core 2 1024 nosync 2 @0 0 @1 0", r);
	KT_ASSERT(md);
	for (int i = 0; i < 6; i++) {
		int leg = which_pattern(dev(md), buf, pats);

		KT_ASSERT_MSG(leg >= 0, "read %d: neither leg's data", i);
		KT_ASSERT_MSG(leg != prev, "reads %d and %d both from %s", i - 1, i, r[leg]);
		prev = leg;
	}
	KT_ASSERT(dm_destroy(md) == 0);
	__free_page(buf);
}

/*
 * A leg whose write failed is dropped: leg 0 fails writes but still
 * answers reads (flakey error_writes) with old data.  After the first
 * write through the mirror, every read must come from leg 1 -- a mirror
 * that kept leg 0 would serve every other read from its stale copy.
 */
KTEST(dm, raid1_failed_leg_is_not_read)
{
	struct page *buf = alloc_pages(GFP_KERNEL, 0);
	const u64 pats[2] = { 63, 64 };        /* the old data, the new */
	struct mapped_device *fl, *md;
	const char *r[2], *legs[2];

	NEED_TWO_RAMS(r);
	KT_ASSERT(buf);
	KT_ASSERT(write_pattern(r[0], 0, 0, buf, PAGE_SIZE, pats[0]) == 0);
	KT_ASSERT(write_pattern(r[1], 0, 0, buf, PAGE_SIZE, pats[0]) == 0);
	fl = create("t-mew,,,rw,0 1024 flakey @0 0 0 60 1 error_writes", r);
	KT_ASSERT(fl);
	legs[0] = dev(fl);
	legs[1] = r[1];
	md = create("t-mew2,,,rw,0 1024 mirror core 2 1024 nosync 2 @0 0 @1 0 1 handle_errors", legs);
	KT_ASSERT(md);
	KT_ASSERT_MSG(write_pattern(dev(md), 0, 0, buf, PAGE_SIZE, pats[1]) == 0,
		      "a write that one leg took failed");
	KT_ASSERT(which_pattern(r[1], buf, pats) == 1);
	for (int i = 0; i < 4; i++)
		KT_ASSERT_MSG(which_pattern(dev(md), buf, pats) == 1,
			      "read %d came from the failed leg (old data)", i);
	KT_ASSERT(dm_destroy(md) == 0);
	KT_ASSERT(dm_destroy(fl) == 0);
	__free_page(buf);
}

/*
 * Two writes fail on one leg while both are in flight: still one lost
 * leg, reported once.  The leg is a device of this test's own target,
 * "ktest-hold", that keeps every bio it is given until the test ends
 * them -- so both writes' clones are on the leg before either completes,
 * whatever the timing.  The test reads the report through a console of
 * its own.
 */
struct leg_hold {
	spinlock_t lock;
	bool holding; /* hold what comes; after: fail it */
	struct bio_list held;
	unsigned int nr_held;	   /* taken while holding */
	unsigned int nr_late;	   /* came after: the leg was still used */
	unsigned int writes_done;  /* the test's writes through the mirror */
	struct wait_queue_head wq; /* nr_held or writes_done changed */
};

static struct leg_hold leg_hold;

/* "<start> <len> ktest-hold": no device below; bios are held or failed. */
static int hold_ctr(struct dm_target *ti, unsigned int argc, char **argv __unused)
{
	if (argc) {
		ti->error = "ktest-hold takes no arguments";
		return -EINVAL;
	}
	ti->private = &leg_hold;
	return 0;
}

static int hold_map(struct dm_target *ti, struct bio *bio)
{
	struct leg_hold *h = ti->private;
	unsigned long flags;
	bool held;

	spin_lock_irqsave(&h->lock, flags);
	held = h->holding;
	if (held) {
		bio_list_add(&h->held, bio);
		h->nr_held++;
	} else {
		h->nr_late++;
	}
	spin_unlock_irqrestore(&h->lock, flags);
	if (!held)
		return DM_MAPIO_KILL;
	wake_up(&h->wq);
	return DM_MAPIO_SUBMITTED;
}

static struct target_type hold_target = {
	.name = "ktest-hold",
	.ctr = hold_ctr,
	.map = hold_map,
};

/* Stop holding and end every held bio with an I/O error. */
static void hold_fail_all(struct leg_hold *h)
{
	struct bio_list list;
	unsigned long flags;
	struct bio *bio;

	spin_lock_irqsave(&h->lock, flags);
	h->holding = false;
	list = h->held;
	bio_list_init(&h->held);
	spin_unlock_irqrestore(&h->lock, flags);
	while ((bio = bio_list_pop(&list)) != NULL)
		bio_io_error(bio);
}

static void hold_write_endio(struct bio *bio)
{
	struct leg_hold *h = bio->bi_private;
	unsigned long flags;

	spin_lock_irqsave(&h->lock, flags);
	h->writes_done++;
	spin_unlock_irqrestore(&h->lock, flags);
	wake_up(&h->wq);
}

/* What printk() writes while the capture is registered. */
static struct log_capture {
	struct console con;
	char text[4096];
	size_t len;
	bool overflowed;
} capture;

static void capture_write(struct console *con, const char *s, size_t len)
{
	struct log_capture *c = container_of(con, struct log_capture, con);
	size_t room = sizeof(c->text) - 1 - c->len;

	if (len > room) {
		c->overflowed = true;
		len = room;
	}
	memcpy(c->text + c->len, s, len);
	c->len += len;
	c->text[c->len] = '\0';
}

/* How many times the captured log holds needle. */
static unsigned int capture_count(const char *needle)
{
	unsigned int n = 0;

	for (const char *p = capture.text; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

#define HELD_WRITES 2

KTEST(dm, raid1_leg_reported_once)
{
	static bool registered;
	struct page *buf = alloc_pages(GFP_KERNEL, 1);
	struct leg_hold *h = &leg_hold;
	struct bio *bios[HELD_WRITES];
	struct mapped_device *hd, *md;
	unsigned int held, done, failed = 0;
	char report[64], lost_once[96];
	const char *r[2], *legs[2];
	unsigned long flags;
	long left;
	int later;

	NEED_TWO_RAMS(r);
	KT_ASSERT(buf);
	/* each write holds a bio of the mirror's reserve until its leg
	 * fails it: with fewer, the second submit_bio() would wait for the
	 * first, which waits for this test */
	if (dm_get_reserved_bio_based_ios() < HELD_WRITES) {
		__free_pages(buf, 1);
		KT_SKIP("dm_mod.reserved_bio_based_ios=%u: two writes cannot be in flight at once",
			dm_get_reserved_bio_based_ios());
	}
	if (!registered) {
		KT_ASSERT(dm_register_target(&hold_target) == 0);
		registered = true;
	}
	spin_lock_init(&h->lock);
	bio_list_init(&h->held);
	init_waitqueue_head(&h->wq);
	h->holding = true;
	h->nr_held = h->nr_late = h->writes_done = 0;
	hd = create("t-hold,,,rw,0 1024 ktest-hold", r);
	KT_ASSERT(hd);
	legs[0] = dev(hd);
	legs[1] = r[0];
	md = create("t-mh,,,rw,0 1024 mirror core 2 1024 nosync 2 @0 0 @1 0 1 handle_errors", legs);
	KT_ASSERT(md);
	snprintf(report, sizeof(report), "raid1: %s failed", dev(hd));
	snprintf(lost_once, sizeof(lost_once), "raid1: %s failed, continuing with 1 legs", dev(hd));
	capture = (struct log_capture){ .con = { .name = "ktest", .write = capture_write } };
	register_console(&capture.con);

	for (unsigned int i = 0; i < HELD_WRITES; i++) {
		struct bio *bio = bio_alloc(GFP_NOIO, 1);

		pattern_fill(page_address(buf + i), i * PAGE_SIZE, PAGE_SIZE, 75);
		bio_set_dev(bio, lookup_bdev(dev(md)));
		bio->bi_iter.bi_sector = i * (PAGE_SIZE / SECTOR_SIZE);
		bio->bi_opf = REQ_OP_WRITE;
		bio->bi_end_io = hold_write_endio;
		bio->bi_private = h;
		bio_add_page(bio, buf + i, PAGE_SIZE, 0);
		bios[i] = bio;
		submit_bio(bio);
	}
	/* Both clones on the held leg -- or, for a mirror that does not
	 * send them there, the writes ended without it.  The bound only
	 * keeps a mirror that waits for each write before the next from
	 * hanging the suite. */
	left = wait_event_timeout(h->wq, READ_ONCE(h->nr_held) == HELD_WRITES || READ_ONCE(h->writes_done) == HELD_WRITES,
				  msecs_to_jiffies(10 * MSEC_PER_SEC));
	spin_lock_irqsave(&h->lock, flags);
	held = h->nr_held;
	done = h->writes_done;
	spin_unlock_irqrestore(&h->lock, flags);
	hold_fail_all(h); /* both fail now, one after the other */
	if (!wait_event_timeout(h->wq, READ_ONCE(h->writes_done) == HELD_WRITES,
				msecs_to_jiffies(10 * MSEC_PER_SEC))) {
		unregister_console(&capture.con);
		KT_ASSERT_MSG(false, "%u of %u writes ended, 10 s after their leg failed them",
			      READ_ONCE(h->writes_done), HELD_WRITES);
	}
	for (unsigned int i = 0; i < HELD_WRITES; i++) {
		failed += bios[i]->bi_status != BLK_STS_OK;
		bio_put(bios[i]);
	}
	/* the leg is dropped: a later write goes to the good leg alone */
	later = write_pattern(dev(md), 64, 64 * SECTOR_SIZE, buf, PAGE_SIZE, 76);
	unregister_console(&capture.con);
	KT_ASSERT(dm_destroy(md) == 0);
	KT_ASSERT(dm_destroy(hd) == 0);

	KT_ASSERT_MSG(held == HELD_WRITES, "the leg held %u of %u writes at once (%u ended%s)",
		      held, HELD_WRITES, done, left ? "" : ", 10 s waited");
	KT_ASSERT_MSG(failed == 0, "%u writes failed though the other leg took them", failed);
	KT_ASSERT_MSG(later == 0, "a write after the leg failed: %d", later);
	KT_ASSERT_MSG(h->nr_late == 0, "the failed leg got %u more I/Os", h->nr_late);
	KT_ASSERT_MSG(!capture.overflowed, "the log captured overflowed");
	KT_ASSERT_MSG(capture_count(report) == 1,
		      "'%s' printed %u times for two failed writes on one leg, want once",
		      report, capture_count(report));
	KT_ASSERT_MSG(capture_count(lost_once) == 1, "the report does not say '%s'", lost_once);
	KT_ASSERT(check_pattern(r[0], 0, 0, buf, HELD_WRITES * PAGE_SIZE, 75) == 0);
	__free_pages(buf, 1);
}

/*
 * A leg that fails its first bios and then works: "ktest-fail".  It
 * counts every bio it is given, so a test sees whether a mirror went back
 * to a leg it should have dropped; and because its failures run out, a
 * mirror that retries a failed leg again and again gets an answer (a read
 * from a leg it had dropped) instead of hanging the suite.
 *
 *   <start> <len> ktest-fail <slot> <nr_fail> <dev> <offset>
 *
 * After nr_fail failures it is linear onto dev.  fail_legs[slot] points
 * at the newest one built in that slot (a stack a failed case left behind
 * keeps its own).
 */
struct fail_leg {
	spinlock_t lock;
	unsigned int to_fail;   /* bios still to fail */
	unsigned int nr_bios;   /* every bio it was given */
	struct dm_dev *dev;
	sector_t start;
};

static struct fail_leg *fail_legs[2];

static int fail_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	unsigned long long start;
	unsigned int slot, nr_fail;
	struct fail_leg *f;
	int err;

	if (argc != 4 || kstrtouint(argv[0], 10, &slot) || slot >= ARRAY_SIZE(fail_legs) ||
	    kstrtouint(argv[1], 10, &nr_fail) || kstrtoull(argv[3], 10, &start)) {
		ti->error = "expected <slot> <nr_fail> <dev> <offset>";
		return -EINVAL;
	}
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f) {
		ti->error = "out of memory";
		return -ENOMEM;
	}
	spin_lock_init(&f->lock);
	f->to_fail = nr_fail;
	f->start = start;
	err = dm_get_device(ti, argv[2], start, ti->len, &f->dev);
	if (err) {
		kfree(f);
		return err;
	}
	ti->private = fail_legs[slot] = f;
	return 0;
}

static void fail_dtr(struct dm_target *ti)
{
	struct fail_leg *f = ti->private;

	for (unsigned int i = 0; i < ARRAY_SIZE(fail_legs); i++)
		if (fail_legs[i] == f)
			fail_legs[i] = NULL;
	dm_put_device(ti, f->dev);
	kfree(f);
}

static int fail_map(struct dm_target *ti, struct bio *bio)
{
	struct fail_leg *f = ti->private;
	unsigned long flags;
	bool fail;

	spin_lock_irqsave(&f->lock, flags);
	f->nr_bios++;
	fail = f->to_fail > 0;
	if (fail)
		f->to_fail--;
	spin_unlock_irqrestore(&f->lock, flags);
	if (fail)
		return DM_MAPIO_KILL;
	bio_set_dev(bio, f->dev->bdev);
	bio->bi_iter.bi_sector = f->start + dm_target_offset(ti, bio->bi_iter.bi_sector);
	return DM_MAPIO_REMAPPED;
}

static struct target_type fail_target = {
	.name = "ktest-fail",
	.ctr = fail_ctr,
	.dtr = fail_dtr,
	.map = fail_map,
};

/* How many bios the leg of slot was given so far (0 if none is built). */
static unsigned int fail_leg_bios(unsigned int slot)
{
	struct fail_leg *f = fail_legs[slot];
	unsigned long flags;
	unsigned int n;

	if (!f)
		return 0;
	spin_lock_irqsave(&f->lock, flags);
	n = f->nr_bios;
	spin_unlock_irqrestore(&f->lock, flags);
	return n;
}

static void register_fail_target(void)
{
	static bool registered;

	if (!registered && dm_register_target(&fail_target) == 0)
		registered = true;
}

/*
 * Mirror over a leg that fails every I/O and a good one: the first read
 * goes to the bad leg, fails, and is retried on the good one; after that
 * the bad leg is dropped -- no later read or write may reach it (a mirror
 * that kept choosing it would still return good data, each read costing a
 * failed I/O first, so the test counts the leg's bios).
 */
KTEST(dm, raid1_reads_survive_a_failed_leg)
{
	struct page *buf = alloc_pages(GFP_KERNEL, BUF_ORDER);
	struct mapped_device *fl, *md;
	const char *r[2], *legs[2];
	int reads[3], wrote, read_new;
	unsigned int bad_bios;

	NEED_TWO_RAMS(r);
	KT_ASSERT(buf);
	register_fail_target();
	fl = create("t-mfl,,,rw,0 1024 ktest-fail 0 1000000 @0 0", r);        /* fails all */
	KT_ASSERT(fl);
	legs[0] = dev(fl);
	legs[1] = r[1];
	md = create("t-m2,,,rw,0 1024 mirror core 2 1024 nosync 2 @0 0 @1 0 1 handle_errors", legs);
	KT_ASSERT(md);
	KT_ASSERT(write_pattern(r[1], 0, 0, buf, BUF_BYTES, 51) == 0);     /* the good copy */
	for (int i = 0; i < 3; i++)
		reads[i] = check_pattern(dev(md), 0, 0, buf, BUF_BYTES, 51);
	wrote = write_pattern(dev(md), 0, 0, buf, BUF_BYTES, 52);
	read_new = check_pattern(dev(md), 0, 0, buf, BUF_BYTES, 52);
	bad_bios = fail_leg_bios(0);
	KT_ASSERT(dm_destroy(md) == 0);
	KT_ASSERT(dm_destroy(fl) == 0);

	for (int i = 0; i < 3; i++)
		KT_ASSERT_MSG(reads[i] == 0, "read %d through the mirror failed (%d)", i, reads[i]);
	KT_ASSERT_MSG(wrote == 0, "a write with one leg left failed (%d)", wrote);
	KT_ASSERT(check_pattern(r[1], 0, 0, buf, BUF_BYTES, 52) == 0);
	KT_ASSERT_MSG(read_new == 0, "a read after the write failed or was stale (%d)", read_new);
	KT_ASSERT_MSG(bad_bios == 1, "the failing leg was given %u I/Os for 4 reads and a write: "
				     "want 1, the first read -- a leg whose I/O failed must not be chosen again",
		      bad_bios);
	__free_pages(buf, BUF_ORDER);
}

/*
 * Mirror whose legs both fail: a read fails on one, is retried on the
 * other, fails again -- and ends with an error, for no leg is left.  Each
 * leg here fails only its first I/O and then works, so a mirror that went
 * back to a leg it had dropped would get a read through (and one that
 * retried forever gets one too, instead of hanging); a write must fail
 * without reaching either.
 */
KTEST(dm, raid1_all_legs_failed)
{
	struct page *buf = alloc_pages(GFP_KERNEL, 0);
	struct mapped_device *f0, *f1, *md;
	const char *r[2], *legs[2];
	unsigned int after_read[2], after_write[2];
	int read, wrote;

	NEED_TWO_RAMS(r);
	KT_ASSERT(buf);
	register_fail_target();
	f0 = create("t-a0,,,rw,0 64 ktest-fail 0 1 @0 0", r);
	f1 = create("t-a1,,,rw,0 64 ktest-fail 1 1 @1 0", r);
	KT_ASSERT(f0 && f1);
	legs[0] = dev(f0);
	legs[1] = dev(f1);
	md = create("t-a,,,rw,0 64 mirror core 1 64 2 @0 0 @1 0", legs);
	KT_ASSERT(md);
	read = by_name_rw(dev(md), REQ_OP_READ, 0, buf, PAGE_SIZE);
	after_read[0] = fail_leg_bios(0);
	after_read[1] = fail_leg_bios(1);
	wrote = by_name_rw(dev(md), REQ_OP_WRITE, 0, buf, PAGE_SIZE);
	after_write[0] = fail_leg_bios(0);
	after_write[1] = fail_leg_bios(1);
	KT_ASSERT(dm_destroy(md) == 0);
	KT_ASSERT(dm_destroy(f1) == 0 && dm_destroy(f0) == 0);

	KT_ASSERT_MSG(read == -EIO && after_read[0] == 1 && after_read[1] == 1,
		      "a read with both legs failing returned %d after %u and %u I/Os on the legs: "
		      "want -EIO after one each -- a leg whose I/O failed must not be tried again",
		      read, after_read[0], after_read[1]);
	KT_ASSERT_MSG(wrote == -EIO, "a write with no leg left returned %d, want -EIO", wrote);
	KT_ASSERT_MSG(after_write[0] == 1 && after_write[1] == 1,
		      "a write with no leg left reached the failed legs (%u and %u more I/Os)",
		      after_write[0] - 1, after_write[1] - 1);
	__free_page(buf);
}

/* Delay: a bio waits at least its delay; a separate write class sends
 * writes to their own device. */
KTEST(dm, delay_holds_bios)
{
	struct page *buf = alloc_pages(GFP_KERNEL, BUF_ORDER);
	const unsigned int delay_ms = 50, len = 16 * 1024;
	struct mapped_device *md;
	const char *r[2];
	u64 j0;

	NEED_TWO_RAMS(r);
	KT_ASSERT(buf);
	md = create("t-dl,,,rw,0 1024 delay @0 0 50", r);
	KT_ASSERT(md);
	/* in jiffies, the clock the delay's timer runs on */
	j0 = jiffies;
	KT_ASSERT(write_pattern(dev(md), 8, 8 * SECTOR_SIZE, buf, len, 61) == 0);
	KT_ASSERT_MSG(jiffies - j0 >= msecs_to_jiffies(delay_ms),
		      "a write came back after %llu jiffies",
		      (unsigned long long)(jiffies - j0));
	KT_ASSERT(check_pattern(r[0], 8, 8 * SECTOR_SIZE, buf, len, 61) == 0);
	KT_ASSERT(dm_destroy(md) == 0);

	md = create("t-dl,,,rw,0 1024 delay @0 0 0 @1 256 50", r);
	KT_ASSERT(md);
	KT_ASSERT(write_pattern(dev(md), 0, 0, buf, len, 62) == 0);
	KT_ASSERT(check_pattern(r[1], 256, 0, buf, len, 62) == 0);     /* writes: @1 */
	KT_ASSERT(write_pattern(r[0], 0, 0, buf, len, 63) == 0);
	KT_ASSERT(check_pattern(dev(md), 0, 0, buf, len, 63) == 0);    /* reads: @0 */
	KT_ASSERT(dm_destroy(md) == 0);
	__free_pages(buf, BUF_ORDER);
}

/* --- Limits ---------------------------------------------------------- */

/* flags "ro": writes fail, reads pass. */
KTEST(dm, read_only_refuses_writes)
{
	struct page *buf = alloc_page(GFP_KERNEL);
	struct mapped_device *md;
	const char *r[2];

	NEED_TWO_RAMS(r);
	KT_ASSERT(buf);
	md = create("t-ro,,,ro,0 64 linear @0 0", r);
	KT_ASSERT(md);
	KT_ASSERT(md->read_only);
	KT_ASSERT(by_name_rw(dev(md), REQ_OP_WRITE, 0, buf, PAGE_SIZE) == -EIO);
	KT_ASSERT(by_name_rw(dev(md), REQ_OP_READ, 0, buf, PAGE_SIZE) == 0);
	KT_ASSERT(dm_destroy(md) == 0);
	__free_page(buf);
}

/* REQ_NOWAIT with the device's reserve empty: BLK_STS_AGAIN at once,
 * not a sleep; with a bio back in the reserve it goes through. */
KTEST(dm, nowait_gets_again_when_reserve_is_empty)
{
	struct bio *held[RESERVED_IOS_TEST_MAX];
	struct page *buf = alloc_page(GFP_KERNEL);
	struct mapped_device *md;
	unsigned int n = dm_get_reserved_bio_based_ios();
	const char *r[2];

	NEED_TWO_RAMS(r);
	KT_ASSERT(buf);
	if (n > ARRAY_SIZE(held))
		KT_SKIP("dm_mod.reserved_bio_based_ios=%u is more than this test holds", n);
	md = create("t-nw,,,rw,0 64 linear @0 0", r);
	KT_ASSERT(md);
	for (unsigned int i = 0; i < n; i++)
		held[i] = bio_alloc_bioset(GFP_NOIO, 0, &md->bs);
	KT_ASSERT(by_name_rw(dev(md), REQ_OP_READ | REQ_NOWAIT, 0, buf, PAGE_SIZE) == -EAGAIN);
	bio_put(held[--n]);
	KT_ASSERT(by_name_rw(dev(md), REQ_OP_READ | REQ_NOWAIT, 0, buf, PAGE_SIZE) == 0);
	while (n)
		bio_put(held[--n]);
	KT_ASSERT(dm_destroy(md) == 0);
	__free_page(buf);
}
