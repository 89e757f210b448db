// SPDX-License-Identifier: MIT
/*
 * NVMe driver tests (suite "nvme", drivers/nvme/host/).  Scenarios nvme-*.scn
 * boot with NVMe disks; without one the case that needs a disk skips, so
 * test=all on a bare machine stays green.
 *
 *   map_data_cases  the PRP builder alone (nvme_map_data), table-driven on
 *                   made-up physical addresses (no disk): one page in
 *                   PRP1, two in PRP1 and PRP2 (both by the one-segment
 *                   fast path, nvme_setup_prp_simple, and up to its edge:
 *                   a segment ending exactly two pages on, one a byte
 *                   past it), more through the PRP list,
 *                   a first segment off its page's start, segments that
 *                   continue each other, a hole inside a page (-EAGAIN:
 *                   the driver bounces it), a segment off a dword (-EINVAL)
 *   prp_hole        nvme_test.hole=<dev>: a write and a read whose segments
 *                   leave holes inside pages reach the disk through the
 *                   bounce buffer: the read gives back what the write put,
 *                   a plain read agrees, and the host checks the image
 *                   (seed 31 over 6 KiB at 1 MiB)
 *   ring_wrapped    nvme_test.ring=<dev>, after the boot's I/O (lab 10):
 *                   the disk's I/O queue pairs, each idle, wrapped at
 *                   least 8 times in all, and each consistent: as many
 *                   commands taken as completions consumed (SQ tail ==
 *                   CQ head), the head and the expected Phase Tag where
 *                   that many completions put them (cq_phase starts at 1
 *                   and flips at every wrap)
 */
#include <spindle/ktest.h>
#include <spindle/blkdev.h>
#include <spindle/blk_mq.h>
#include <spindle/bio.h>
#include <spindle/init.h>
#include <spindle/mm.h>
#include <spindle/pattern.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include "../../drivers/nvme/host/nvme.h"
#include "ktest_block.h"

#define PG      4096ull

struct prp_case {
	const char *what;
	struct ktest_seg segs[KTEST_RQ_SEGS];
	int ret;                /* nvme_map_data's answer */
	u64 prp1, prp2;         /* prp2 == LIST: the list's own address */
	u64 list[4];            /* the list's first entries (0: not checked) */
};

#define LIST    1ull            /* "PRP2 points at the PRP list" */
#define B       0x100000ull     /* a made-up page-aligned buffer */

static const struct prp_case prp_cases[] = {
	{ "one page", { { B, 4096 } }, 0, B, 0, { 0 } },
	{ "two pages", { { B, 8192 } }, 0, B, B + PG, { 0 } },
	{ "three pages: a list", { { B, 12288 } }, 0, B, LIST, { B + PG, B + 2 * PG } },
	{ "512 bytes in: PRP1 with an offset", { { B + 512, 3584 } }, 0, B + 512, 0, { 0 } },
	{ "offset, crossing one page", { { B + 512, 4096 } }, 0, B + 512, B + PG, { 0 } },
	{ "offset, crossing two pages: a list", { { B + 512, 8192 } }, 0, B + 512, LIST,
	  { B + PG, B + 2 * PG } },
	{ "one segment ending exactly two pages on", { { B + 512, 7680 } }, 0, B + 512, B + PG,
	  { 0 } },
	{ "pages apart, each whole", { { B, 4096 }, { B + 8 * PG, 4096 }, { B + 3 * PG, 4096 } },
	  0, B, LIST, { B + 8 * PG, B + 3 * PG } },
	{ "segments continuing in memory", { { B, 1024 }, { B + 1024, 3072 }, { B + PG, 512 } },
	  0, B, B + PG, { 0 } },
	{ "first ends mid-page, next elsewhere: a hole", { { B, 512 }, { B + 4 * PG, 512 } },
	  -EAGAIN, 0, 0, { 0 } },
	{ "second starts mid-page: a hole", { { B, 4096 }, { B + 4 * PG + 512, 512 } },
	  -EAGAIN, 0, 0, { 0 } },
	{ "off a dword", { { B + 2, 512 } }, -EINVAL, 0, 0, { 0 } },
};

KTEST(nvme, map_data_cases)
{
	struct nvme_queue q;
	u64 *list = kzalloc(PG, GFP_KERNEL);
	u64 *lists[1] = { list };
	phys_addr_t list_dma = 0x7000000;       /* made up: only compared */

	KT_ASSERT(list != NULL);
	memset(&q, 0, sizeof(q));
	q.prp_lists = lists;
	q.prp_dma = &list_dma;
	for (size_t i = 0; i < ARRAY_SIZE(prp_cases); i++) {
		const struct prp_case *c = &prp_cases[i];
		struct ktest_rq kr;
		struct nvme_command cmd;
		int ret;

		memset(&cmd, 0, sizeof(cmd));
		memset(list, 0, PG);
		ret = nvme_map_data(&q, ktest_fake_request(&kr, c->segs, REQ_OP_READ), 0, &cmd);
		KT_ASSERT_MSG(ret == c->ret, "%s: returned %d, not %d", c->what, ret, c->ret);
		if (ret)
			continue;
		KT_ASSERT_MSG(cmd.prp1 == c->prp1, "%s: PRP1 %#llx, not %#llx", c->what,
			      (unsigned long long)cmd.prp1, (unsigned long long)c->prp1);
		KT_ASSERT_MSG(cmd.prp2 == (c->prp2 == LIST ? list_dma : c->prp2),
			      "%s: PRP2 %#llx", c->what, (unsigned long long)cmd.prp2);
		for (unsigned int k = 0; k < 4 && c->list[k]; k++)
			KT_ASSERT_MSG(list[k] == c->list[k], "%s: list[%u] %#llx, not %#llx",
				      c->what, k, (unsigned long long)list[k],
				      (unsigned long long)c->list[k]);
	}
	kfree(list);
}

/* ---- a request with holes, on a real disk ---------------------------------- */

static char hole_dev[16];

static int __init nvme_test_hole_setup(const char *val)
{
	strlcpy(hole_dev, val, sizeof(hole_dev));
	return 0;
}
__setup("nvme_test.hole=", nvme_test_hole_setup);

#define HOLE_OFFSET     (1024 * 1024)   /* bytes into the disk */
#define HOLE_SEED       31

/* Where each segment sits in its page, and how long: 6 KiB with holes. */
static const struct { unsigned int off, len; } hole_segs[] = {
	{ 0, 512 }, { 512, 1024 }, { 0, 4096 }, { 3584, 512 },
};

/* One bio over four pages laid out as hole_segs, at HOLE_OFFSET. */
static int hole_io(struct block_device *b, struct page *pages, unsigned int op)
{
	struct bio *bio = bio_alloc(GFP_KERNEL, ARRAY_SIZE(hole_segs));
	int err;

	bio_set_dev(bio, b);
	bio->bi_iter.bi_sector = HOLE_OFFSET / SECTOR_SIZE;
	bio->bi_opf = op;
	for (size_t i = 0; i < ARRAY_SIZE(hole_segs); i++)
		bio_add_page(bio, pages + 2 * i, hole_segs[i].len, hole_segs[i].off);
	err = submit_bio_wait(bio);
	bio_put(bio);
	return err;
}

/* Requests bounced on any I/O queue pair: the test may run on any CPU. */
static unsigned long nvme_bounced(struct nvme_dev *dev)
{
	unsigned long n = 0;

	for (unsigned int i = 0; i < dev->nr_io_queues; i++)
		n += dev->ioqs[i].bounced;
	return n;
}

KTEST(nvme, prp_hole)
{
	struct block_device *b = hole_dev[0] ? lookup_bdev(hole_dev) : NULL;
	struct page *pages, *plain;
	struct nvme_ns *ns;
	unsigned long before;
	u64 pos = HOLE_OFFSET;
	s64 bad;
	int err;

	if (!b || b->bd_partno || strncmp(b->bd_disk->disk_name, "nvme", 4))
		KT_SKIP("no NVMe disk given (nvme_test.hole=<dev>)");
	ns = b->bd_disk->private_data;
	pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, 3);        /* 8 pages: every other used */
	plain = alloc_pages(GFP_KERNEL | __GFP_ZERO, 1);
	KT_ASSERT(pages && plain);
	before = nvme_bounced(ns->dev);
	for (size_t i = 0; i < ARRAY_SIZE(hole_segs); i++) {
		pattern_fill((u8 *)page_address(pages + 2 * i) + hole_segs[i].off, pos,
			     hole_segs[i].len, HOLE_SEED);
		pos += hole_segs[i].len;
	}
	err = hole_io(b, pages, REQ_OP_WRITE);
	KT_ASSERT_MSG(err == 0, "write: %d", err);
	memset(page_address(pages), 0, 8 * PG);
	err = hole_io(b, pages, REQ_OP_READ);
	KT_ASSERT_MSG(err == 0, "read: %d", err);
	pos = HOLE_OFFSET;
	for (size_t i = 0; i < ARRAY_SIZE(hole_segs); i++) {
		bad = pattern_check((u8 *)page_address(pages + 2 * i) + hole_segs[i].off, pos,
				    hole_segs[i].len, HOLE_SEED);
		KT_ASSERT_MSG(bad < 0, "read with holes: segment %zu wrong at byte %lld",
			      i, (long long)bad);
		pos += hole_segs[i].len;
	}
	KT_ASSERT_MSG(nvme_bounced(ns->dev) == before + 2, "%lu requests bounced, not 2",
		      nvme_bounced(ns->dev) - before);
	/* and a plain read, one contiguous buffer, agrees */
	{
		struct bio *bio = bio_alloc(GFP_KERNEL, 1);

		bio_set_dev(bio, b);
		bio->bi_iter.bi_sector = HOLE_OFFSET / SECTOR_SIZE;
		bio->bi_opf = REQ_OP_READ;
		bio_add_page(bio, plain, 6144, 0);
		err = submit_bio_wait(bio);
		bio_put(bio);
	}
	KT_ASSERT_MSG(err == 0, "plain read: %d", err);
	bad = pattern_check(page_address(plain), HOLE_OFFSET, 6144, HOLE_SEED);
	KT_ASSERT_MSG(bad < 0, "plain read wrong at byte %lld", (long long)bad);
	__free_pages(pages, 3);
	__free_pages(plain, 1);
}

/* ---- the rings after many wraps (lab 10) ------------------------------------ */

static char ring_dev[16];

static int __init nvme_test_ring_setup(const char *val)
{
	strlcpy(ring_dev, val, sizeof(ring_dev));
	return 0;
}
__setup("nvme_test.ring=", nvme_test_ring_setup);

#define RING_MIN_WRAPS  8       /* passes through the queues, in all */

KTEST(nvme, ring_wrapped)
{
	struct block_device *b;
	struct nvme_dev *dev;
	unsigned long all = 0;

	if (!ring_dev[0])
		KT_SKIP("no NVMe disk given (nvme_test.ring=<dev>)");
	b = lookup_bdev(ring_dev);
	KT_ASSERT_MSG(b && !strncmp(b->bd_disk->disk_name, "nvme", 4),
		      "nvme_test.ring=%s: no such NVMe disk (did the controller probe?)", ring_dev);
	dev = ((struct nvme_ns *)b->bd_disk->private_data)->dev;
	for (unsigned int i = 0; i < dev->nr_io_queues; i++) {
		struct nvme_queue *q = &dev->ioqs[i];
		unsigned long flags, done;
		unsigned int tail, head, phase;

		/* idle: nothing in flight, the interrupt consumed everything */
		spin_lock_irqsave(&q->sq_lock, flags);
		tail = q->sq_tail;
		spin_unlock_irqrestore(&q->sq_lock, flags);
		spin_lock_irqsave(&q->cq_lock, flags);
		head = q->cq_head;
		phase = q->cq_phase;
		done = q->completions;
		spin_unlock_irqrestore(&q->cq_lock, flags);
		pr_info("nvme_test: %s QID %u: %u entries, %lu completions, SQ tail %u, "
			"CQ head %u, phase %u\n", dev->name, q->qid, q->q_depth, done, tail, head, phase);
		KT_ASSERT_MSG(tail == head, "QID %u: SQ tail %u but CQ head %u on an idle queue",
			      q->qid, tail, head);
		KT_ASSERT_MSG(head == done % q->q_depth, "QID %u: CQ head %u after %lu completions "
			      "in %u entries", q->qid, head, done, q->q_depth);
		KT_ASSERT_MSG(phase == (1 ^ (done / q->q_depth) % 2), "QID %u: expected phase %u "
			      "after %lu wraps", q->qid, phase, done / q->q_depth);
		all += done / q->q_depth;
	}
	KT_ASSERT_MSG(all >= RING_MIN_WRAPS, "the I/O queues wrapped %lu times in all, want %d "
		      "(nvme.io_queue_depth= small enough?)", all, RING_MIN_WRAPS);
}
