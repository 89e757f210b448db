// SPDX-License-Identifier: MIT
/*
 * AHCI driver tests (suite "ahci", drivers/ahci/).  Scenarios ahci-*.scn
 * boot with AHCI disks; without them the cases that need a disk skip, so
 * test=all on a bare machine stays green.
 *
 *   fill_prdt       the PRD builder alone, on hand-made requests (no disk)
 *   fill_prdt_cases the same, table-driven, on made-up physical addresses:
 *                   contiguous runs merge up to 4 MiB, no 64 KiB rule,
 *                   buffers above and across 4 GiB (DBAU), the limits
 *   ncq_inflight    8 scattered 4 KiB reads issued while the port's
 *                   completions are held (its interrupts masked): more
 *                   than one outstanding at once; then 64 at once with
 *                   completions free: never more than 32
 *   port_done_table the slots __ahci_port_done() says ended, for chosen
 *                   PxCI/PxSACT/PxTFD values (no disk): an NCQ slot ends
 *                   when its PxSACT bit clears, not its PxCI bit
 *   flush           an empty REQ_PREFLUSH bio reaches the disk as FLUSH CACHE EXT
 *   discard         ahci_test.discard=<dev>:<offset>:<length>: write the
 *                   pattern (seed 5) over [0, 2 * offset + length), discard
 *                   the middle; the host checks the image.
 *                   ahci_test.nodiscard=<dev>: a discard there fails
 *                   with -EOPNOTSUPP
 *   errors          ahci_test.bad=<dev>:<sector>[,<sector>...]: sectors the
 *                   disk fails (blkdebug): 64 reads in flight at once, the
 *                   ones that cover a bad sector fail with -EIO, all others
 *                   succeed
 */
#include <spindle/ktest.h>
#include <spindle/blktrace.h>
#include <spindle/blkdev.h>
#include <spindle/blk_plug.h>
#include <spindle/blk_mq.h>
#include <spindle/bio.h>
#include <spindle/init.h>
#include <spindle/pattern.h>
#include <spindle/completion.h>
#include <spindle/spinlock.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include <spindle/time.h>
#include "../../drivers/ahci/ahci.h"
#include "ktest_block.h"
#include "ktest_sched.h"

#define BATCH           64              /* bios in flight at once */
#define BATCH_STRIDE    64              /* sectors between their starts */
#define BATCH_SECTORS   8               /* 4 KiB each */

/* An AHCI disk by name, or NULL (then the case skips). */
static struct block_device *ahci_bdev(const char *name, struct ahci_port_stats **stats)
{
	struct block_device *b = lookup_bdev(name);

	if (!b || b->bd_partno)
		return NULL;
	*stats = ahci_disk_stats(b->bd_disk);
	return *stats ? b : NULL;
}

/* ---- many bios at once --------------------------------------------------- */

struct batch;
struct batch_item {
	struct batch *batch;
	unsigned int index;
};

struct batch {
	spinlock_t lock;
	int remaining;
	struct completion done;
	int status[BATCH];
	struct batch_item items[BATCH];         /* each bio's bi_private */
};

static void batch_end_io(struct bio *bio)
{
	struct batch_item *item = bio->bi_private;
	struct batch *b = item->batch;
	unsigned int i = item->index;
	unsigned long flags;
	bool last;

	spin_lock_irqsave(&b->lock, flags);
	b->status[i] = blk_status_to_errno(bio->bi_status);
	last = --b->remaining == 0;
	spin_unlock_irqrestore(&b->lock, flags);
	bio_put(bio);
	if (last)
		complete(&b->done);
}

/*
 * Start @nr 4 KiB reads at sectors i * BATCH_STRIDE into @pages, all
 * submitted before any is waited for (the gaps keep them from merging);
 * b->done completes when every one has ended, status[i] its -errno.
 */
static void start_batch(struct block_device *bdev, struct batch *b, struct page *pages,
			unsigned int nr)
{
	struct blk_plug plug;

	spin_lock_init(&b->lock);
	init_completion(&b->done);
	b->remaining = nr;
	/* One plug for the batch: its requests reach the driver in one tight
	 * dispatch loop, however slow the host is at running the guest
	 * between two submit_bio() calls. */
	blk_start_plug(&plug);
	for (unsigned int i = 0; i < nr; i++) {
		struct bio *bio = bio_alloc(GFP_NOIO, 1);

		bio_set_dev(bio, bdev);
		bio->bi_iter.bi_sector = (sector_t)i * BATCH_STRIDE;
		bio->bi_opf = REQ_OP_READ;
		bio_add_page(bio, pages + i, BATCH_SECTORS * SECTOR_SIZE, 0);
		b->items[i].batch = b;
		b->items[i].index = i;
		b->status[i] = 1;               /* not ended yet */
		bio->bi_end_io = batch_end_io;
		bio->bi_private = &b->items[i];
		submit_bio(bio);
	}
	blk_finish_plug(&plug);
}

/* BATCH reads at once, waited for. */
static int read_batch(struct block_device *bdev, struct batch *b)
{
	struct page *pages = alloc_pages(GFP_KERNEL, 6);        /* 64 pages */

	if (!pages)
		return -ENOMEM;
	start_batch(bdev, b, pages, BATCH);
	wait_for_completion(&b->done);
	__free_pages(pages, 6);
	return 0;
}

/* ---- the PRD builder alone -------------------------------------------------- */

KTEST(ahci, fill_prdt)
{
	struct page *pages = alloc_pages(GFP_KERNEL, 2);        /* 4 contiguous */
	struct ahci_prd prdt[4];
	struct request rq;
	struct bio *bio = bio_alloc(GFP_KERNEL, 4);
	phys_addr_t base;
	int n;

	KT_ASSERT(pages && bio);
	base = page_to_phys(pages);
	memset(&rq, 0, sizeof(rq));
	rq.bio = rq.biotail = bio;

	/* pages 0+1 are contiguous (one entry), then page 3, then page 2 */
	bio_add_page(bio, pages + 0, PAGE_SIZE, 0);
	bio_add_page(bio, pages + 1, PAGE_SIZE, 0);
	bio_add_page(bio, pages + 3, 512, 1024);
	bio_add_page(bio, pages + 2, 1536, 0);
	rq.__data_len = bio->bi_iter.bi_size;
	n = ahci_fill_prdt(&rq, prdt, 4);
	KT_ASSERT_MSG(n == 3, "got %d entries", n);
	KT_ASSERT(prdt[0].dba == (u32)base && prdt[0].dbau == (u32)(base >> 32));
	KT_ASSERT_MSG(prdt[0].dbc == 2 * PAGE_SIZE - 1, "dbc 0x%x: count - 1, 8 KiB", prdt[0].dbc);
	KT_ASSERT(prdt[1].dba == (u32)(base + 3 * PAGE_SIZE + 1024) && prdt[1].dbc == 511);
	KT_ASSERT(prdt[2].dba == (u32)(base + 2 * PAGE_SIZE) && prdt[2].dbc == 1535);
	KT_ASSERT_MSG(!(prdt[0].dbc & AHCI_PRD_IRQ), "no interrupt bit wanted");

	/* too few entries */
	KT_ASSERT(ahci_fill_prdt(&rq, prdt, 2) == -E2BIG);
	bio_put(bio);

	/* an odd address breaks the word rule */
	bio = bio_alloc(GFP_KERNEL, 1);
	bio_add_page(bio, pages, 512, 1);
	rq.bio = rq.biotail = bio;
	KT_ASSERT(ahci_fill_prdt(&rq, prdt, 4) == -EINVAL);
	bio_put(bio);
	__free_pages(pages, 2);
}

/*
 * Made-up physical addresses: above 4 GiB, or a 4 MiB run
 * (tests/kernel/ktest_block.h).
 */
struct prdt_case {
	const char *what;
	struct ktest_seg segs[KTEST_RQ_SEGS];
	unsigned int max;               /* table entries allowed */
	int ret;                        /* entries, or -errno */
	struct {
		u64 addr;
		u32 dbc;
	} want[KTEST_RQ_SEGS];
};

static const struct prdt_case prdt_cases[] = {
	{ "one page", { { 0x100000, 4096 } }, 4, 1, { { 0x100000, 4095 } } },
	{ "contiguous pages merge", { { 0x200000, 4096 }, { 0x201000, 4096 } }, 4, 1,
	  { { 0x200000, 8191 } } },
	{ "a gap starts a new entry", { { 0x200000, 4096 }, { 0x202000, 512 } }, 4, 2,
	  { { 0x200000, 4095 }, { 0x202000, 511 } } },
	{ "backwards is not contiguous", { { 0x301000, 4096 }, { 0x300000, 4096 } }, 4, 2,
	  { { 0x301000, 4095 }, { 0x300000, 4095 } } },
	{ "no 64 KiB rule: across a boundary, one entry", { { 0x40f000, 8192 } }, 4, 1,
	  { { 0x40f000, 8191 } } },
	{ "above 4 GiB: DBAU", { { 0x123456000ull, 4096 } }, 4, 1,
	  { { 0x123456000ull, 4095 } } },
	{ "across 4 GiB: one entry", { { 0xfffff000ull, 4096 }, { 0x100000000ull, 4096 } }, 4, 1,
	  { { 0xfffff000ull, 8191 } } },
	{ "4 MiB is one entry", { { 0x1000000, 2u << 20 }, { 0x1200000, 2u << 20 } }, 4, 1,
	  { { 0x1000000, (4u << 20) - 1 } } },
	{ "past 4 MiB: a second entry", { { 0x1000000, 4u << 20 }, { 0x1400000, 4096 } }, 4, 2,
	  { { 0x1000000, (4u << 20) - 1 }, { 0x1400000, 4095 } } },
	{ "exactly max entries", { { 0x100000, 512 }, { 0x200000, 512 } }, 2, 2,
	  { { 0x100000, 511 }, { 0x200000, 511 } } },
	{ "one too many", { { 0x100000, 512 }, { 0x200000, 512 }, { 0x300000, 512 } }, 2, -E2BIG, { { 0, 0 } } },
	{ "odd address", { { 0x100001, 512 } }, 4, -EINVAL, { { 0, 0 } } },
	{ "odd length", { { 0x100000, 511 } }, 4, -EINVAL, { { 0, 0 } } },
};

/* The PRDT of a request over the case's segments. */
static int prdt_run_case(const struct prdt_case *tc, struct ahci_prd *prdt)
{
	struct ktest_rq kr;

	return ahci_fill_prdt(ktest_fake_request(&kr, tc->segs, REQ_OP_WRITE), prdt, tc->max);
}

KTEST(ahci, fill_prdt_cases)
{
	struct ahci_prd prdt[KTEST_RQ_SEGS];

	for (unsigned int i = 0; i < ARRAY_SIZE(prdt_cases); i++) {
		const struct prdt_case *tc = &prdt_cases[i];
		int ret;

		memset(prdt, 0xee, sizeof(prdt));
		ret = prdt_run_case(tc, prdt);
		KT_ASSERT_MSG(ret == tc->ret, "%s: returned %d, want %d", tc->what, ret, tc->ret);
		for (int e = 0; e < ret; e++) {
			u64 addr = (u64)prdt[e].dbau << 32 | prdt[e].dba;

			KT_ASSERT_MSG(addr == tc->want[e].addr && prdt[e].dbc == tc->want[e].dbc,
				      "%s: entry %d is (%#llx, dbc %#x), want (%#llx, dbc %#x)",
				      tc->what, e, (unsigned long long)addr, prdt[e].dbc,
				      (unsigned long long)tc->want[e].addr, tc->want[e].dbc);
			KT_ASSERT_MSG(prdt[e].reserved == 0, "%s: entry %d: reserved dword %#x",
				      tc->what, e, prdt[e].reserved);
		}
	}
}

/* ---- NCQ: more than one command in flight ---------------------------------- */

#define HELD_BATCH      8               /* reads issued while completions are held */

KTEST(ahci, ncq_inflight)
{
	struct ahci_port_stats *st;
	struct block_device *b = ahci_bdev("sda", &st);
	static struct batch batch;
	struct page *pages;
	unsigned int held;

	if (!b)
		KT_SKIP("no AHCI disk sda");
	if (bdev_nr_sectors(b) < BATCH * BATCH_STRIDE)
		KT_SKIP("sda is too small");
	/*
	 * More than one command in flight, made certain: queue_rq runs with
	 * interrupts on, so on a fast host each slot can be reaped before the
	 * next is issued, and a depth of 1 would prove nothing either way.
	 * So the port's completions are held (its interrupts masked) while
	 * HELD_BATCH reads are issued; none can be reaped before the last goes
	 * out, and then they are let go.  Queued (NCQ) commands all go out at
	 * once; non-queued ones go one at a time, and the second waits for a
	 * completion that cannot come until the hold ends.
	 */
	pages = alloc_pages(GFP_KERNEL, 3);                     /* 8 pages */
	KT_ASSERT(pages != NULL);
	st->max_inflight = 0;
	KT_ASSERT(ahci_hold_completions(b->bd_disk, true) == 0);
	start_batch(b, &batch, pages, HELD_BATCH);
	/* sent from blk_finish_plug(), or by the queue's next run: wait for
	 * the count, not for a time (the bound is for a driver that never
	 * gets there) */
	ktest_wait_until(READ_ONCE(st->max_inflight) >= HELD_BATCH);
	held = READ_ONCE(st->max_inflight);
	ahci_hold_completions(b->bd_disk, false);
	wait_for_completion(&batch.done);
	__free_pages(pages, 3);
	for (unsigned int i = 0; i < HELD_BATCH; i++)
		KT_ASSERT_MSG(batch.status[i] == 0, "held read %u: %d", i, batch.status[i]);
	pr_info("ahci_test: sda: %u of %u reads outstanding at once with completions held\n",
		held, HELD_BATCH);
	KT_ASSERT_MSG(held >= 2 && held <= 32, "%u in flight with completions held", held);

	/* 64 reads, twice the slots, completions free: never more than 32 */
	st->max_inflight = 0;
	KT_ASSERT(read_batch(b, &batch) == 0);
	for (unsigned int i = 0; i < BATCH; i++)
		KT_ASSERT_MSG(batch.status[i] == 0, "read %u: %d", i, batch.status[i]);
	pr_info("ahci_test: sda: %u commands in flight at most (NCQ commands %lu, DMA %lu)\n",
		st->max_inflight, st->ncq_cmds, st->dma_cmds);
	KT_ASSERT_MSG(st->max_inflight >= 1 && st->max_inflight <= 32, "%u in flight",
		      st->max_inflight);
	KT_ASSERT_MSG(st->ncq_cmds > 0, "no NCQ command issued");
}

/* ---- which slots ended: __ahci_port_done() on chosen register values -------- */

/*
 * The completion masks of __ahci_port_done(), on register values the test
 * writes into ordinary memory (ahci_port_done_on()): a disk shows some of
 * these states only by chance of timing, chiefly an NCQ command the HBA
 * has sent (PxCI clear) that the disk still runs (PxSACT set).  It has not
 * ended: completing it frees its tag for a new command while the disk
 * still moves the old one's data.
 */
static const struct port_done_case {
	const char *what;
	u32 issued, ncq_issued;
	bool eh_pending;
	u32 status, ci, sact, tfd, serr;
	u32 done;  /* the slots that ended */
	int error; /* 1, 0, or -1: not judged */
} port_done_cases[] = {
	{ "NCQ: all sent (PxCI 0), slots 0 and 2 still running (PxSACT)",
	  0xf, 0xf, false, PORT_IRQ_SDBS, 0, 0x5, ATA_DRDY, 0, 0xa, 0 },
	{ "NCQ: slot 1 not yet sent, slot 0 sent and running",
	  0x3, 0x3, false, PORT_IRQ_SDBS, 0x2, 0x3, ATA_DRDY, 0, 0, 0 },
	{ "NCQ: every slot sent and finished",
	  0x30, 0x30, false, PORT_IRQ_SDBS, 0, 0, ATA_DRDY, 0, 0x30, 0 },
	{ "NCQ: only issued slots end (PxSACT clear elsewhere too)",
	  0x1, 0x1, false, PORT_IRQ_SDBS, 0, 0, ATA_DRDY, 0, 0x1, 0 },
	{ "NCQ: TFES for slot 2; 0 and 1 had finished well",
	  0x7, 0x7, false, PORT_IRQ_TFES | PORT_IRQ_SDBS, 0, 0x4,
	  (ATA_ABORTED << 8) | ATA_DRDY | ATA_ERR, 0, 0x3, 1 },
	{ "non-NCQ: the command ended (PxCI clear)",
	  0x1, 0, false, PORT_IRQ_DHRS, 0, 0, ATA_DRDY, 0, 0x1, 0 },
	{ "non-NCQ: still running (PxCI set)",
	  0x1, 0, false, PORT_IRQ_DHRS, 0x1, 0, ATA_DRDY, 0, 0, 0 },
	{ "non-NCQ: ended with TFES: left for the recovery",
	  0x1, 0, false, PORT_IRQ_TFES, 0, 0, (ATA_ABORTED << 8) | ATA_DRDY | ATA_ERR, 0, 0, 1 },
	{ "non-NCQ: an error is pending recovery",
	  0x1, 0, true, PORT_IRQ_DHRS, 0, 0, ATA_DRDY, 0, 0, -1 },
};

KTEST(ahci, port_done_table)
{
	static struct ahci_port_regs regs;

	for (unsigned int i = 0; i < ARRAY_SIZE(port_done_cases); i++) {
		const struct port_done_case *c = &port_done_cases[i];
		const struct ahci_port_done_args in = {
			.issued = c->issued,
			.ncq_issued = c->ncq_issued,
			.eh_pending = c->eh_pending,
			.status = c->status,
		};
		struct ahci_port_done_result out;

		memset(&regs, 0, sizeof(regs));
		regs.ci = c->ci;
		regs.sact = c->sact;
		regs.tfd = c->tfd;
		regs.serr = c->serr;
		KT_ASSERT(ahci_port_done_on(&regs, &in, &out) == 0);
		KT_ASSERT_MSG(out.done == c->done,
			      "%s: PxCI %#x PxSACT %#x, issued %#x (NCQ %#x): slots %#x ended, want %#x",
			      c->what, c->ci, c->sact, c->issued, c->ncq_issued, out.done, c->done);
		KT_ASSERT_MSG(c->error < 0 || out.error == c->error, "%s: error %s, want %s",
			      c->what, out.error ? "set" : "not set", c->error ? "set" : "not set");
		KT_ASSERT_MSG(out.tfd == c->tfd, "%s: *tfd %#x, want PxTFD %#x", c->what, out.tfd,
			      c->tfd);
	}
}

/* ---- flush ---------------------------------------------------------------- */

KTEST(ahci, flush)
{
	struct ahci_port_stats *st;
	struct block_device *b = ahci_bdev("sda", &st);
	unsigned long before;
	struct bio *bio;
	int err;

	if (!b)
		KT_SKIP("no AHCI disk sda");
	if (!b->bd_disk->queue->write_cache)
		KT_SKIP("sda has no volatile write cache");
	before = st->flushes;
	bio = bio_alloc(GFP_KERNEL, 0);
	bio_set_dev(bio, b);
	bio->bi_opf = REQ_OP_FLUSH | REQ_PREFLUSH;
	err = submit_bio_wait(bio);
	bio_put(bio);
	KT_ASSERT_MSG(err == 0, "flush: %d", err);
	KT_ASSERT_MSG(st->flushes == before + 1, "FLUSH CACHE EXT issued %lu times",
		      st->flushes - before);
	blk_trace_print_all();          /* with blktrace=sda: the flush's events */
}

/* ---- discard ------------------------------------------------------------- */

static int write_pattern(struct block_device *b, u64 offset, u64 len, u64 seed)
{
	struct page *pages = alloc_pages(GFP_KERNEL, 4);        /* 64 KiB */
	int err = 0;

	if (!pages)
		return -ENOMEM;
	for (u64 pos = offset; pos < offset + len && !err; pos += 16 * PAGE_SIZE) {
		struct bio *bio = bio_alloc(GFP_NOIO, 16);

		pattern_fill(page_address(pages), pos, 16 * PAGE_SIZE, seed);
		bio_set_dev(bio, b);
		bio->bi_iter.bi_sector = pos >> SECTOR_SHIFT;
		bio->bi_opf = REQ_OP_WRITE;
		for (unsigned int i = 0; i < 16; i++)
			bio_add_page(bio, pages + i, PAGE_SIZE, 0);
		err = submit_bio_wait(bio);
		bio_put(bio);
	}
	__free_pages(pages, 4);
	return err;
}

static int discard(struct block_device *b, u64 offset, u64 len)
{
	struct bio *bio = bio_alloc(GFP_KERNEL, 0);
	int err;

	bio_set_dev(bio, b);
	bio->bi_opf = REQ_OP_DISCARD;
	bio->bi_iter.bi_sector = offset >> SECTOR_SHIFT;
	bio->bi_iter.bi_size = len;
	err = submit_bio_wait(bio);
	bio_put(bio);
	return err;
}

/* "<dev>:<rest>" -> dev, rest */
static const char *split_dev(char *opt, char **rest)
{
	char *colon = strchr(opt, ':');

	if (!colon)
		return NULL;
	*colon = 0;
	*rest = colon + 1;
	return opt;
}

KTEST(ahci, discard)
{
	char opt[64], *rest, *colon;
	struct ahci_port_stats *st;
	struct block_device *b;
	unsigned long long off, len;
	unsigned long before;
	const char *dev;
	int err;

	if (cmdline_get("ahci_test.nodiscard", opt, sizeof(opt))) {
		b = ahci_bdev(opt, &st);
		KT_ASSERT_MSG(b, "%s is not an AHCI disk", opt);
		err = discard(b, 0, 4096);
		KT_ASSERT_MSG(err == -EOPNOTSUPP, "discard on %s (no TRIM): %d", opt, err);
	}
	if (!cmdline_get("ahci_test.discard", opt, sizeof(opt)))
		KT_SKIP("no ahci_test.discard=<dev>:<offset>:<length>");
	dev = split_dev(opt, &rest);
	colon = dev ? strchr(rest, ':') : NULL;
	KT_ASSERT_MSG(colon, "bad ahci_test.discard=");
	*colon = 0;
	KT_ASSERT(kstrtoull(rest, 0, &off) == 0 && kstrtoull(colon + 1, 0, &len) == 0);
	b = ahci_bdev(dev, &st);
	KT_ASSERT_MSG(b, "%s is not an AHCI disk", dev);
	KT_ASSERT_MSG(b->bd_disk->queue->limits.max_discard_sectors, "%s: no TRIM", dev);

	KT_ASSERT(write_pattern(b, 0, 2 * off + len, 5) == 0);
	before = st->trims;
	err = discard(b, off, len);
	KT_ASSERT_MSG(err == 0, "discard: %d", err);
	KT_ASSERT_MSG(st->trims == before + 1, "DSM TRIM issued %lu times", st->trims - before);
	pr_info("ahci_test: %s: discarded %llu bytes at %llu\n", dev, len, off);
}

/* ---- errors: exactly the bad reads fail ----------------------------------- */

KTEST(ahci, errors)
{
	char opt[128], *rest, *p;
	sector_t bad[8];
	unsigned int nbad = 0, nfailed = 0;
	struct ahci_port_stats *st;
	struct block_device *b;
	static struct batch batch;
	const char *dev;

	if (!cmdline_get("ahci_test.bad", opt, sizeof(opt)))
		KT_SKIP("no ahci_test.bad=<dev>:<sector>,...");
	dev = split_dev(opt, &rest);
	KT_ASSERT_MSG(dev, "bad ahci_test.bad=");
	for (p = rest; p && *p && nbad < ARRAY_SIZE(bad); ) {
		char *comma = strchr(p, ',');
		unsigned long long s;

		if (comma)
			*comma = 0;
		KT_ASSERT(kstrtoull(p, 0, &s) == 0);
		bad[nbad++] = s;
		p = comma ? comma + 1 : NULL;
	}
	b = ahci_bdev(dev, &st);
	KT_ASSERT_MSG(b, "%s is not an AHCI disk", dev);

	KT_ASSERT(read_batch(b, &batch) == 0);
	for (unsigned int i = 0; i < BATCH; i++) {
		sector_t start = (sector_t)i * BATCH_STRIDE;
		bool covers = false;

		for (unsigned int k = 0; k < nbad; k++)
			if (bad[k] >= start && bad[k] < start + BATCH_SECTORS)
				covers = true;
		if (covers) {
			KT_ASSERT_MSG(batch.status[i] == -EIO, "read at %llu covers a bad sector: %d",
				      (unsigned long long)start, batch.status[i]);
			nfailed++;
		} else {
			KT_ASSERT_MSG(batch.status[i] == 0, "read at %llu: %d",
				      (unsigned long long)start, batch.status[i]);
		}
	}
	pr_info("ahci_test: %s: %u of %u reads failed as expected; %u in flight at most, %lu recoveries, %lu requeued\n",
		dev, nfailed, BATCH, st->max_inflight, st->errors, st->requeued);
	KT_ASSERT(nfailed > 0);
	/* the disk still works after the recoveries */
	KT_ASSERT(read_batch(b, &batch) == 0);
	for (unsigned int i = 0; i < BATCH; i++) {
		sector_t start = (sector_t)i * BATCH_STRIDE;
		bool covers = false;

		for (unsigned int k = 0; k < nbad; k++)
			if (bad[k] >= start && bad[k] < start + BATCH_SECTORS)
				covers = true;
		KT_ASSERT_MSG((batch.status[i] == -EIO) == covers, "second round, read at %llu: %d",
			      (unsigned long long)start, batch.status[i]);
	}
}
