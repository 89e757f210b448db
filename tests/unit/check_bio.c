// SPDX-License-Identifier: MIT
/*
 * The bio layer on the host: generic_make_request()'s ordering under both
 * policies over model device stacks (Linux commit 79bd99596b73), split and chain
 * completion, partition bounds and remapping, mempool exhaustion and
 * waiting.
 *
 * The model: each device has up to three children and may split each bio
 * it gets into `pieces`.  Its make_request_fn logs its name, submits the
 * remainder of a split to itself first (as Linux commit 79bd99596b73 asks drivers to do),
 * then one clone of the front part to each child, and ends the bio; a
 * device without children just ends it.  Two reference models, written
 * independently of blk-core.c, say what order to expect:
 *   depth: pre-order -- a device, then everything below its front part,
 *          then its remainder;
 *   fifo:  breadth-first -- a queue in submission order.
 */
#include <check.h>
#include <signal.h>
#include <spindle/blkdev.h>
#include <spindle/sched.h>
#include <spindle/uio.h>
#include <spindle/string.h>
#include "shim/host_kernel.h"
#include "../../block/blk.h"

/* Every CPU's counters of b, summed (the host has one CPU). */
static struct disk_stats stats_of(struct block_device *b)
{
	struct disk_stats st;

	part_stat_read_all(b, &st);
	return st;
}

static unsigned long in_flight_of(struct block_device *b)
{
	struct disk_stats st = stats_of(b);

	return disk_stats_in_flight(&st);
}

#define MAX_DEVS   16
#define LOG_MAX    512

struct model_dev {
	char name;
	int nchild;
	int child[3];
	int pieces;                     /* how many parts it splits a bio into */
	bool bad;                       /* its bios name a partition it lacks */
	struct gendisk *disk;
};

static struct model_dev devs[MAX_DEVS];
static int ndevs;
static char call_log[LOG_MAX];
static int log_len;
static int nesting, max_nesting;        /* make_request_fn calls inside one another */
static struct bio_set test_bs;

static int error_ends;

/* a bio the checks refused: ended with an error, once */
static void count_error_end(struct bio *bio)
{
	ck_assert_uint_eq(bio->bi_status, BLK_STS_IOERR);
	error_ends++;
	bio_put(bio);
}

/* bi_iter.bi_sector carries how many pieces of the bio are left. */
static void model_make_request(struct request_queue *q, struct bio *bio)
{
	struct model_dev *d = q->queuedata;
	sector_t pieces = bio->bi_iter.bi_sector;

	ck_assert_int_lt(log_len, LOG_MAX - 1);
	call_log[log_len++] = d->name;
	if (++nesting > max_nesting)
		max_nesting = nesting;
	if (pieces > 1) {
		struct bio *rest = bio_alloc_bioset(GFP_NOIO, 0, &test_bs);

		rest->bi_disk = d->disk;
		rest->bi_flags |= BIO_REMAPPED;
		rest->bi_iter.bi_sector = pieces - 1;
		rest->bi_end_io = bio_put;
		generic_make_request(rest);
	}
	for (int c = 0; c < d->nchild; c++) {
		struct model_dev *cd = &devs[d->child[c]];
		struct bio *b = bio_alloc_bioset(GFP_NOIO, 0, &test_bs);

		b->bi_disk = cd->disk;
		b->bi_flags |= BIO_REMAPPED;
		b->bi_iter.bi_sector = cd->pieces;
		b->bi_end_io = bio_put;
		if (cd->bad) {
			b->bi_partno = DISK_MAX_PARTS - 1;
			b->bi_end_io = count_error_end;
		}
		generic_make_request(b);
	}
	bio_endio(bio);
	nesting--;
}

static int add_dev(char name, int pieces)
{
	struct model_dev *d = &devs[ndevs];

	d->name = name;
	d->pieces = pieces;
	d->nchild = 0;
	d->bad = false;
	d->disk = alloc_disk(1);
	d->disk->queue = blk_alloc_queue(model_make_request, d);
	d->disk->disk_name[0] = name;
	d->disk->disk_name[1] = '\0';
	set_capacity(d->disk, 1 << 20);
	ck_assert_int_eq(add_disk(d->disk), 0);
	return ndevs++;
}

static void link_dev(int parent, int child)
{
	devs[parent].child[devs[parent].nchild++] = child;
}

/* Reference models. */
static void expect_depth(int dev, int pieces, char *out, int *n)
{
	out[(*n)++] = devs[dev].name;
	for (int c = 0; c < devs[dev].nchild; c++)
		expect_depth(devs[dev].child[c], devs[devs[dev].child[c]].pieces, out, n);
	if (pieces > 1)
		expect_depth(dev, pieces - 1, out, n);
}

static void expect_fifo(int top, char *out, int *n)
{
	static int qdev[LOG_MAX], qpieces[LOG_MAX];
	int head = 0, tail = 0;

	qdev[tail] = top;
	qpieces[tail++] = devs[top].pieces;
	while (head < tail) {
		int d = qdev[head], p = qpieces[head++];

		out[(*n)++] = devs[d].name;
		if (p > 1) {
			qdev[tail] = d;
			qpieces[tail++] = p - 1;
		}
		for (int c = 0; c < devs[d].nchild; c++) {
			qdev[tail] = devs[d].child[c];
			qpieces[tail++] = devs[devs[d].child[c]].pieces;
		}
	}
}

static const char *run_stack(int top)
{
	struct bio *bio = bio_alloc_bioset(GFP_NOIO, 0, &test_bs);

	log_len = 0;
	nesting = max_nesting = 0;
	bio->bi_disk = devs[top].disk;
	bio->bi_flags |= BIO_REMAPPED;
	bio->bi_iter.bi_sector = devs[top].pieces;
	bio->bi_end_io = bio_put;
	generic_make_request(bio);
	call_log[log_len] = '\0';
	ck_assert_ptr_null(current->bio_list);
	return call_log;
}

static void setup(void)
{
	host_printk_quiet = true;
	host_mm_init(2048 * PAGE_SIZE);
	ck_assert_int_eq(bioset_init(&test_bs, "test", 4, 0, 0), 0);
	ck_assert_int_eq(bioset_init(&fs_bio_set, "fs_bio_set", 4, 0, BIOSET_NEED_BVECS), 0);
	ndevs = 0;
	bio_order = BIO_ORDER_DEPTH;
}

static void teardown(void)
{
	struct gendisk *d, *t;

	list_for_each_entry_safe(d, t, &disk_list, list)
		list_del_init(&d->list);
	host_mm_exit();
}

/* Hand-derived orders: the anchors for the reference models. */
static const struct {
	const char *what;
	const char *depth, *fifo;
} anchors[] = {
	{ "leaf",             "D",      "D" },
	{ "chain of 4",       "ABCD",   "ABCD" },
	{ "tree",             "ABDECF", "ABCDEF" },
	{ "split over 2 levels", "TMDTMD", "TTMMDD" },
};

static int build_anchor(int i)
{
	int a, b, c, d, e, f;

	switch (i) {
	case 0:
		return add_dev('D', 1);
	case 1:
		a = add_dev('A', 1); b = add_dev('B', 1); c = add_dev('C', 1); d = add_dev('D', 1);
		link_dev(a, b); link_dev(b, c); link_dev(c, d);
		return a;
	case 2:
		a = add_dev('A', 1); b = add_dev('B', 1); c = add_dev('C', 1);
		d = add_dev('D', 1); e = add_dev('E', 1); f = add_dev('F', 1);
		link_dev(a, b); link_dev(a, c); link_dev(b, d); link_dev(b, e); link_dev(c, f);
		return a;
	default:
		a = add_dev('T', 2); b = add_dev('M', 1); c = add_dev('D', 1);
		link_dev(a, b); link_dev(b, c);
		return a;
	}
}

START_TEST(anchor_orders)
{
	int top = build_anchor(_i);
	char want[LOG_MAX];
	int n = 0;

	bio_order = BIO_ORDER_DEPTH;
	ck_assert_msg(strcmp(run_stack(top), anchors[_i].depth) == 0,
		      "%s, depth: got %s want %s", anchors[_i].what, call_log, anchors[_i].depth);
	expect_depth(top, devs[top].pieces, want, &n);
	want[n] = '\0';
	ck_assert_msg(strcmp(want, anchors[_i].depth) == 0, "depth model disagrees: %s", want);

	bio_order = BIO_ORDER_FIFO;
	ck_assert_msg(strcmp(run_stack(top), anchors[_i].fifo) == 0,
		      "%s, fifo: got %s want %s", anchors[_i].what, call_log, anchors[_i].fifo);
	n = 0;
	expect_fifo(top, want, &n);
	want[n] = '\0';
	ck_assert_msg(strcmp(want, anchors[_i].fifo) == 0, "fifo model disagrees: %s", want);
}
END_TEST

/*
 * Every uniform stack of depth 1-4 and fan-out 1-3 (a full tree, up to 40
 * devices... capped by MAX_DEVS: fan-out 3 stops at depth 2), with and
 * without a split at the top, against both reference models.
 */
START_TEST(stack_table)
{
	int depth = 1 + _i % 4, fanout = 1 + (_i / 4) % 3, split = 1 + _i / 12;
	int level_start = 0, level_n = 1, total = 1;
	char want[LOG_MAX], name = 'a';
	int n;

	for (int l = 1; l < depth; l++)
		total += level_n *= fanout;
	if (total > MAX_DEVS)
		return;                         /* too big for the model: skip */
	add_dev(name++, split);
	level_n = 1;
	for (int l = 1; l < depth; l++) {
		int next_start = ndevs;

		for (int p = level_start; p < level_start + level_n; p++)
			for (int f = 0; f < fanout; f++)
				link_dev(p, add_dev(name++, 1));
		level_start = next_start;
		level_n *= fanout;
	}
	for (int pol = 0; pol < 2; pol++) {
		bio_order = pol ? BIO_ORDER_FIFO : BIO_ORDER_DEPTH;
		n = 0;
		if (pol)
			expect_fifo(0, want, &n);
		else
			expect_depth(0, devs[0].pieces, want, &n);
		want[n] = '\0';
		run_stack(0);
		ck_assert_msg(strcmp(call_log, want) == 0,
			      "depth %d fanout %d split %d %s: got %s want %s", depth, fanout,
			      split, pol ? "fifo" : "depth", call_log, want);
	}
}
END_TEST

/*
 * A bio the checks refuse (here: a partition its disk lacks) has been
 * ended already, with an error; the loop goes on with the next one.  A
 * under it: B, refused, then C and D, which must still run -- a loop that
 * returned at the refused bio would leave C and D unsent and
 * current->bio_list set.
 */
START_TEST(refused_bio_does_not_stop_the_loop)
{
	int a = add_dev('A', 1), b = add_dev('B', 1), c = add_dev('C', 1), d = add_dev('D', 1);

	link_dev(a, b);
	link_dev(a, c);
	link_dev(a, d);
	devs[b].bad = true;
	error_ends = 0;
	host_printk_quiet = true;
	ck_assert_str_eq(run_stack(a), "ACD");
	ck_assert_int_eq(error_ends, 1);
}
END_TEST

/*
 * The point of current->bio_list: however deep the stack of devices, one
 * make_request_fn never runs inside another, so the kernel stack does not
 * grow with the stack of devices.  A chain of 8 and a split over 2 levels,
 * under both orders.
 */
START_TEST(make_request_never_nests)
{
	int top = add_dev('a', 1), prev = top;

	for (int i = 1; i < 8; i++) {
		int d = add_dev('a' + i, 1);

		link_dev(prev, d);
		prev = d;
	}
	for (int pol = 0; pol < 2; pol++) {
		bio_order = pol ? BIO_ORDER_FIFO : BIO_ORDER_DEPTH;
		ck_assert_str_eq(run_stack(top), "abcdefgh");
		ck_assert_msg(max_nesting == 1, "%s: make_request_fn calls nested %d deep",
			      pol ? "fifo" : "depth", max_nesting);
	}
	top = add_dev('T', 3);
	link_dev(top, add_dev('M', 2));
	for (int pol = 0; pol < 2; pol++) {
		bio_order = pol ? BIO_ORDER_FIFO : BIO_ORDER_DEPTH;
		run_stack(top);
		ck_assert_msg(max_nesting == 1, "%s, split: make_request_fn calls nested %d deep",
			      pol ? "fifo" : "depth", max_nesting);
	}
}
END_TEST

/* --- split, chain, endio ------------------------------------------------ */

static int parent_ends;
static blk_status_t parent_status;

static void count_end(struct bio *bio)
{
	parent_ends++;
	parent_status = bio->bi_status;
}

START_TEST(chain_completes_parent_once_after_children)
{
	struct bio *parent = bio_alloc_bioset(GFP_NOIO, 0, &test_bs);
	struct bio *kids[3];

	parent_ends = 0;
	parent->bi_end_io = count_end;
	for (int i = 0; i < 3; i++) {
		kids[i] = bio_alloc_bioset(GFP_NOIO, 0, &fs_bio_set);
		bio_chain(kids[i], parent);
	}
	bio_endio(parent);                      /* its own part is done first */
	ck_assert_int_eq(parent_ends, 0);
	bio_endio(kids[1]);
	kids[0]->bi_status = BLK_STS_IOERR;
	bio_endio(kids[0]);
	ck_assert_int_eq(parent_ends, 0);
	bio_endio(kids[2]);                     /* a later success ... */
	ck_assert_int_eq(parent_ends, 1);
	ck_assert_uint_eq(parent_status, BLK_STS_IOERR);   /* ... hides no error */
}
END_TEST

/*
 * A piece that fails before the next is chained: blk_queue_split() chains
 * as it goes, and an early piece may end meanwhile.  bio_chain() must not
 * touch the parent's status -- the first error, recorded by bio_endio(),
 * stays.
 */
START_TEST(chain_keeps_error_of_finished_child)
{
	struct bio *parent = bio_alloc_bioset(GFP_NOIO, 0, &test_bs);
	struct bio *first = bio_alloc_bioset(GFP_NOIO, 0, &fs_bio_set);
	struct bio *second = bio_alloc_bioset(GFP_NOIO, 0, &fs_bio_set);

	parent_ends = 0;
	parent->bi_end_io = count_end;
	bio_chain(first, parent);
	first->bi_status = BLK_STS_IOERR;
	bio_endio(first);                       /* fails, before the next chain */
	bio_chain(second, parent);
	bio_endio(parent);
	ck_assert_int_eq(parent_ends, 0);
	bio_endio(second);
	ck_assert_int_eq(parent_ends, 1);
	ck_assert_msg(parent_status == BLK_STS_IOERR,
		      "the first piece's error was lost: the parent ended with status %u",
		      parent_status);
}
END_TEST

/*
 * A chain 2,000 links deep (a bio split, its piece split again, ... as
 * stacked devices do) ends from its deepest child in constant stack:
 * bio_endio() walks up in a loop.  A child's end_io that called
 * bio_endio(parent) itself would take a frame per link -- on a 16 KiB
 * kernel stack, a crash long before 2,000.  The parent's end_io measures
 * how deep below this test's frame it runs.
 */
#define CHAIN_DEPTH 2000
static unsigned long stack_at_end;

static void note_stack(struct bio *bio)
{
	char here;

	parent_ends++;
	parent_status = bio->bi_status;
	stack_at_end = (unsigned long)&here;
}

START_TEST(chain_ends_in_constant_stack)
{
	struct bio *top = bio_alloc_bioset(GFP_NOIO, 0, &test_bs);
	struct bio *link = top;
	char here;
	unsigned long used;

	parent_ends = 0;
	top->bi_end_io = note_stack;
	for (int i = 0; i < CHAIN_DEPTH; i++) {
		struct bio *child = bio_alloc_bioset(GFP_NOIO, 0, &fs_bio_set);

		bio_chain(child, link);
		bio_endio(link);                /* each level's own part: done */
		link = child;
	}
	ck_assert_int_eq(parent_ends, 0);
	bio_endio(link);                        /* the deepest child ends ... */
	ck_assert_int_eq(parent_ends, 1);       /* ... and so does every level */
	used = (unsigned long)&here - stack_at_end;
	ck_assert_msg(used < 4096,
		      "ending a chain %d deep used %lu bytes of stack: a frame per link "
		      "(bio_endio() must walk up the chain in its loop, not recurse)",
		      CHAIN_DEPTH, used);
}
END_TEST

START_TEST(split_shares_segments)
{
	struct bio *bio = bio_alloc_bioset(GFP_NOIO, 4, &fs_bio_set);
	struct page *pg = alloc_pages(GFP_KERNEL, 2);
	struct bio *front;
	struct bvec_iter it;
	struct bio_vec bv;
	unsigned int total = 0, segs = 0;

	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(bio_add_page(bio, pg + (3 - i), PAGE_SIZE, 0), PAGE_SIZE);
	bio->bi_opf = REQ_OP_WRITE;
	bio->bi_iter.bi_sector = 100;
	front = bio_split(bio, 12, GFP_NOIO, &fs_bio_set);      /* 6 KiB */
	ck_assert_uint_eq(front->bi_iter.bi_sector, 100);
	ck_assert_uint_eq(bio_sectors(front), 12);
	ck_assert_uint_eq(bio->bi_iter.bi_sector, 112);
	ck_assert_uint_eq(bio_sectors(bio), 20);
	/* the remainder starts half-way into the second page */
	bio_for_each_segment(bv, bio, it) {
		if (segs == 0) {
			ck_assert_ptr_eq(bv.bv_page, pg + 2);
			ck_assert_uint_eq(bv.bv_offset, 2048);
			ck_assert_uint_eq(bv.bv_len, 2048);
		}
		total += bv.bv_len;
		segs++;
	}
	ck_assert_uint_eq(total, 10240);
	ck_assert_uint_eq(segs, 3);
	bio_put(front);
	bio_put(bio);
}
END_TEST

/* --- partitions: bounds and remap --------------------------------------- */

static sector_t seen_sector;
static unsigned long long io_time_ns;    /* each I/O "takes" this long */

static void record_make_request(struct request_queue *q, struct bio *bio)
{
	(void)q;
	seen_sector = bio->bi_iter.bi_sector;
	host_clock_ns += io_time_ns;
	bio_endio(bio);
}

static blk_status_t last_status;
static void status_end(struct bio *bio)
{
	last_status = bio->bi_status;
	bio_put(bio);
}

static void submit_to(struct block_device *b, sector_t sector, unsigned int bytes)
{
	struct bio *bio = bio_alloc_bioset(GFP_NOIO, 1, &fs_bio_set);
	struct page *pg = alloc_pages(GFP_KERNEL, 1);

	bio_set_dev(bio, b);
	bio->bi_iter.bi_sector = sector;
	bio->bi_opf = REQ_OP_READ;
	bio_add_page(bio, pg, bytes, 0);
	bio->bi_end_io = status_end;
	last_status = 0xff;
	seen_sector = ~0ull;
	submit_bio(bio);
	__free_pages(pg, 1);
}

START_TEST(partition_remap_and_bounds)
{
	struct gendisk *disk = alloc_disk(1);       /* 1: add_disk does not scan */
	struct block_device *p1;

	strcpy(disk->disk_name, "sdz");
	disk->queue = blk_alloc_queue(record_make_request, NULL);
	set_capacity(disk, 1000);
	/* no table on this fake disk: add a partition by hand */
	ck_assert_int_eq(add_disk(disk), 0);
	disk->minors = 16;
	p1 = add_part(disk, 1, 100, 50);
	ck_assert_str_eq(p1->bd_name, "sdz1");
	ck_assert_ptr_eq(lookup_bdev("sdz1"), p1);

	submit_to(p1, 10, 4096);                /* inside: remapped by +100 */
	ck_assert_uint_eq(last_status, BLK_STS_OK);
	ck_assert_uint_eq(seen_sector, 110);
	submit_to(p1, 42, 4096);                /* 42 + 8 = 50: the last sectors */
	ck_assert_uint_eq(last_status, BLK_STS_OK);
	submit_to(p1, 43, 4096);                /* one sector past the end */
	ck_assert_uint_eq(last_status, BLK_STS_IOERR);
	ck_assert_uint_eq(seen_sector, ~0ull);  /* never reached the driver */
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "beyond end of device"));
	submit_to(disk->part[0], 992, 4096);    /* whole disk: its last 8 */
	ck_assert_uint_eq(last_status, BLK_STS_OK);
	ck_assert_uint_eq(seen_sector, 992);
}
END_TEST

/* Partition names as Linux makes them: the number after the disk's name,
 * with a 'p' between when that name ends in a digit (nvme0n1p1, not
 * nvme0n11, which would read as namespace 11). */
START_TEST(partition_names)
{
	static const struct { const char *disk; int partno; const char *want; } cases[] = {
		{ "sdx", 1, "sdx1" },
		{ "sdx", 15, "sdx15" },
		{ "nvme0n1", 1, "nvme0n1p1" },
		{ "nvme12n3", 2, "nvme12n3p2" },
		{ "nullb0", 3, "nullb0p3" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gendisk *disk = alloc_disk(16);
		struct block_device *p;

		strcpy(disk->disk_name, cases[i].disk);
		p = add_part(disk, cases[i].partno, 8, 8);
		ck_assert_ptr_nonnull(p);
		ck_assert_str_eq(p->bd_name, cases[i].want);
	}
}
END_TEST

/* /proc/diskstats: counted on the partition and on the whole disk, with
 * times from the (fake) clock; a refused bio counts nowhere. */
START_TEST(diskstats_accounting)
{
	struct gendisk *disk = alloc_disk(1);
	struct block_device *p1;
	char text[1024];

	strcpy(disk->disk_name, "sdy");
	disk->major = 8;
	disk->first_minor = 16;
	disk->queue = blk_alloc_queue(record_make_request, NULL);
	set_capacity(disk, 1000);
	ck_assert_int_eq(add_disk(disk), 0);
	p1 = add_part(disk, 1, 100, 50);
	io_time_ns = 5000000;                   /* 5 ms */
	submit_to(p1, 0, 4096);
	submit_to(p1, 8, 2048);
	submit_to(p1, 49, 4096);                /* refused: beyond the end */
	submit_to(disk->part[0], 0, 512);
	io_time_ns = 0;
	ck_assert_uint_eq(stats_of(p1).ios[STAT_READ], 2);
	ck_assert_uint_eq(stats_of(p1).sectors[STAT_READ], 12);
	ck_assert_uint_eq(stats_of(p1).nsecs[STAT_READ], 10000000);
	ck_assert_uint_eq(in_flight_of(p1), 0);
	ck_assert_uint_eq(stats_of(p1).io_ticks_ms, 10);
	ck_assert_uint_eq(stats_of(disk->part[0]).ios[STAT_READ], 3);
	ck_assert_uint_eq(stats_of(disk->part[0]).sectors[STAT_READ], 13);
	blk_show_diskstats(text, sizeof(text));
	ck_assert_ptr_nonnull(strstr(text,
		"   8      16 sdy 3 0 13 15 0 0 0 0 0 15 15 0 0 0 0 0 0\n"));
	ck_assert_ptr_nonnull(strstr(text,
		"   8      17 sdy1 2 0 12 10 0 0 0 0 0 10 10 0 0 0 0 0 0\n"));
}
END_TEST

START_TEST(dying_queue_fails_bios)
{
	struct gendisk *disk = alloc_disk(1);

	strcpy(disk->disk_name, "gone");
	disk->queue = blk_alloc_queue(record_make_request, NULL);
	set_capacity(disk, 100);
	ck_assert_int_eq(add_disk(disk), 0);
	blk_cleanup_queue(disk->queue);
	submit_to(disk->part[0], 0, 512);
	ck_assert_uint_eq(last_status, BLK_STS_IOERR);
	ck_assert_uint_eq(seen_sector, ~0ull);
}
END_TEST

/* --- mempool: exhaustion and waiting ------------------------------------ */

static mempool_t *hook_pool;
static void *hook_element;
static int hook_calls;

/* Stands in for "another task completes I/O" while the allocator sleeps. */
static void free_one_while_asleep(void)
{
	hook_calls++;
	mempool_free(hook_element, hook_pool);
}

START_TEST(mempool_reserve_only_waits_for_free)
{
	mempool_t pool;
	void *a, *b, *c;

	ck_assert_int_eq(mempool_init(&pool, 2, 64, MEMPOOL_RESERVE_ONLY), 0);
	a = mempool_alloc(&pool, GFP_NOIO);
	b = mempool_alloc(&pool, GFP_NOIO);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_null(mempool_alloc(&pool, GFP_ATOMIC));   /* empty: no wait */
	hook_pool = &pool;
	hook_element = a;
	hook_calls = 0;
	host_schedule_hook = free_one_while_asleep;
	c = mempool_alloc(&pool, GFP_NOIO);     /* sleeps once, gets a back */
	host_schedule_hook = NULL;
	ck_assert_int_eq(hook_calls, 1);
	ck_assert_ptr_eq(c, a);
	ck_assert_uint_eq(pool.nr_waits, 1);
	mempool_free(b, &pool);
	mempool_free(c, &pool);
	mempool_exit(&pool);
}
END_TEST

START_TEST(mempool_prefers_allocator_then_reserve)
{
	mempool_t pool;
	void *p[8];

	ck_assert_int_eq(mempool_init(&pool, 2, 64, 0), 0);
	for (int i = 0; i < 8; i++)
		p[i] = mempool_alloc(&pool, GFP_NOIO);
	ck_assert_uint_eq(pool.curr_nr, 2);     /* reserve untouched */
	for (int i = 0; i < 8; i++)
		mempool_free(p[i], &pool);
	ck_assert_uint_eq(pool.curr_nr, 2);
	mempool_exit(&pool);
}
END_TEST

START_TEST(nowait_sleep_without_hook_panics)
{
	mempool_t pool;

	ck_assert_int_eq(mempool_init(&pool, 1, 64, MEMPOOL_RESERVE_ONLY), 0);
	mempool_alloc(&pool, GFP_NOIO);
	mempool_alloc(&pool, GFP_NOIO);         /* would sleep forever: the shim aborts */
}
END_TEST

/*
 * Out of memory: a sleeping bio_alloc() of a big bio does not fail.  The
 * fake RAM is eaten whole (every page, then every kmalloc object left in
 * a slab), so kmalloc of a segment array fails as it does in a full
 * kernel; the bio must come from fs_bio_set's reserves, and when those
 * are dry too the allocation waits for a bio to be freed -- the shim's
 * schedule() hook plays the I/O that completes -- instead of returning
 * NULL for the caller to dereference.
 */
static void eat_all_memory(void)
{
	while (alloc_page(GFP_KERNEL))
		;
	for (size_t size = 16; size <= KMALLOC_MAX_CACHE_SIZE; size *= 2)
		while (kmalloc(size, GFP_KERNEL))
			;
	ck_assert_ptr_null(kmalloc(BIO_MAX_VECS * sizeof(struct bio_vec), GFP_KERNEL));
}

static struct bio *hook_bio;

static void complete_one_bio(void)
{
	hook_calls++;
	bio_put(hook_bio);
}

/* Fill a bio with n distinct pages (none merges with the one before). */
static unsigned int fill_pages(struct bio *bio, unsigned int n)
{
	unsigned int added = 0;

	for (unsigned int i = 0; i < n; i++)
		added += bio_add_page(bio, pfn_to_page(1 + 2 * i), PAGE_SIZE, 0) ? 1 : 0;
	return added;
}

START_TEST(bio_alloc_uses_bvec_reserve_when_memory_is_gone)
{
	struct bio *big[4], *got;

	eat_all_memory();
	/* the reserve holds 4 bios and 4 arrays: all four come from it */
	for (int i = 0; i < 4; i++) {
		big[i] = bio_alloc(GFP_NOIO, 64 + i);
		ck_assert_ptr_nonnull(big[i]);
		ck_assert_uint_ge(big[i]->bi_max_vecs, 64 + i);
		ck_assert_uint_eq(fill_pages(big[i], 64 + i), 64 + i);
		ck_assert_uint_eq(big[i]->bi_iter.bi_size, (64 + i) * PAGE_SIZE);
	}
	ck_assert_uint_eq(fs_bio_set.bvec_pool.curr_nr, 0);
	/* dry: an atomic caller gets NULL, a sleeping one waits */
	ck_assert_ptr_null(bio_alloc(GFP_ATOMIC, 16));
	hook_bio = big[2];
	hook_calls = 0;
	host_schedule_hook = complete_one_bio;
	got = bio_alloc(GFP_NOIO, BIO_MAX_VECS);
	host_schedule_hook = NULL;
	ck_assert_ptr_nonnull(got);
	ck_assert_int_eq(hook_calls, 1);
	ck_assert_uint_eq(fs_bio_set.bvec_pool.nr_waits, 1);
	ck_assert_uint_eq(fill_pages(got, BIO_MAX_VECS), BIO_MAX_VECS);
	/* every array and bio goes back to the reserve it came from */
	bio_put(got);
	bio_put(big[0]);
	bio_put(big[1]);
	bio_put(big[3]);
	ck_assert_uint_eq(fs_bio_set.bvec_pool.curr_nr, 4);
	ck_assert_uint_eq(fs_bio_set.pool.curr_nr, 4);
}
END_TEST

/* Memory to spare: a big bio's array is kmalloc'ed to size, the reserve untouched. */
START_TEST(bio_alloc_prefers_kmalloc_for_bvecs)
{
	struct bio *bio = bio_alloc(GFP_NOIO, 32);

	ck_assert_ptr_nonnull(bio);
	ck_assert_uint_eq(bio->bi_max_vecs, 32);
	ck_assert_uint_eq(fs_bio_set.bvec_pool.curr_nr, 4);
	bio_put(bio);
	ck_assert_uint_eq(fs_bio_set.bvec_pool.curr_nr, 4);
}
END_TEST

/*
 * A set with a front pad (direct I/O's struct dio lives in front of its
 * bio): each bio sits front_pad bytes into a pool element, the pad is the
 * caller's to write without touching the bio, and bio_put() gives the
 * whole element back -- the reserve is whole again and hands the same
 * element out next.  (Under check-asan, an element too small for the pad
 * or a free of the bio's own address is an error here.)
 */
START_TEST(front_pad_shares_the_allocation)
{
	enum { PAD = 40 };
	struct bio_set pad_bs;
	struct bio *a, *b, *again;

	ck_assert_int_eq(bioset_init(&pad_bs, "pad", 2, PAD, BIOSET_RESERVE_ONLY), 0);
	a = bio_alloc_bioset(GFP_NOIO, 1, &pad_bs);
	b = bio_alloc_bioset(GFP_NOIO, BIO_INLINE_VECS, &pad_bs);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(pad_bs.pool.curr_nr, 0);
	memset((char *)a - PAD, 0x5a, PAD);
	memset((char *)b - PAD, 0xa5, PAD);
	ck_assert_uint_eq(fill_pages(b, BIO_INLINE_VECS), BIO_INLINE_VECS);
	ck_assert_ptr_eq(a->bi_io_vec, a->bi_inline_vecs);
	ck_assert_int_eq(atomic_read(&a->__bi_cnt), 1);
	ck_assert_ptr_eq(a->bi_pool, &pad_bs);
	ck_assert_uint_eq((unsigned char)((char *)b - PAD)[PAD - 1], 0xa5);
	ck_assert_ptr_null(bio_alloc_bioset(GFP_ATOMIC, 1, &pad_bs)); /* dry */
	bio_put(a);
	ck_assert_uint_eq(pad_bs.pool.curr_nr, 1);
	again = bio_alloc_bioset(GFP_NOIO, 1, &pad_bs);
	ck_assert_ptr_eq(again, a);
	bio_put(again);
	bio_put(b);
	ck_assert_uint_eq(pad_bs.pool.curr_nr, 2);
	bioset_exit(&pad_bs);
}
END_TEST

/*
 * The rescuer: an allocation from a dry set first hands the set's bios
 * that this task still has queued (both halves of current->bio_list) to
 * the rescuer; the rest stay, in order.  The shim's schedule() hook plays
 * the rescuer thread: it "submits" what it was given, which completes the
 * I/O and returns the bios to the pool.
 */
static struct bio_set rescue_bs;

static void play_rescuer(void)
{
	struct bio *bio;

	hook_calls++;
	while ((bio = bio_list_pop(&rescue_bs.rescue_list)) != NULL)
		bio_put(bio);
}

START_TEST(rescuer_takes_only_its_sets_bios)
{
	struct bio_list lists[2] = { BIO_EMPTY_LIST, BIO_EMPTY_LIST };
	struct bio *mine[2], *other[3], *got;

	ck_assert_int_eq(bioset_init(&rescue_bs, "rescue", 2, 0,
				     BIOSET_RESERVE_ONLY | BIOSET_NEED_RESCUER),
			 0);
	ck_assert_ptr_nonnull(rescue_bs.rescue_task);
	for (int i = 0; i < 3; i++)
		other[i] = bio_alloc_bioset(GFP_NOIO, 0, &test_bs);
	mine[0] = bio_alloc_bioset(GFP_NOIO, 0, &rescue_bs);
	mine[1] = bio_alloc_bioset(GFP_NOIO, 0, &rescue_bs);
	/* as generic_make_request leaves them: new ones in [0], older in [1] */
	bio_list_add(&lists[0], other[0]);
	bio_list_add(&lists[0], mine[1]);
	bio_list_add(&lists[1], mine[0]);
	bio_list_add(&lists[1], other[1]);
	bio_list_add(&lists[1], other[2]);
	current->bio_list = lists;
	hook_calls = 0;
	host_schedule_hook = play_rescuer;
	got = bio_alloc_bioset(GFP_NOIO, 0, &rescue_bs);    /* pool is dry */
	host_schedule_hook = NULL;
	current->bio_list = NULL;
	ck_assert_ptr_nonnull(got);
	ck_assert_int_eq(hook_calls, 1);
	ck_assert_ptr_eq(lists[0].head, other[0]);
	ck_assert_ptr_null(other[0]->bi_next);
	ck_assert_ptr_eq(lists[1].head, other[1]);
	ck_assert_ptr_eq(other[1]->bi_next, other[2]);
	ck_assert_ptr_eq(lists[1].tail, other[2]);
}
END_TEST

/*
 * An ITER_BVEC over three pages as io_uring registers a buffer: 100 bytes
 * from the end of the first page, a whole page, 50 bytes of the third.
 * Copies cross the segments in order; the iterator's address is the
 * direct map's at the same offset in its page; an empty bio takes the
 * iterator's own array from its place on (Linux's bio_iov_bvec_set): no
 * copy, no pin, BIO_CLONED, and its iterator yields the same segments.
 */
START_TEST(bvec_iter_crosses_segments)
{
	struct page *pg[3];
	struct bio_vec bv[3];
	unsigned char src[PAGE_SIZE + 150], dst[PAGE_SIZE + 150];
	struct iov_iter it;
	struct bio *bio;

	for (int i = 0; i < 3; i++) {
		pg[i] = alloc_page(GFP_KERNEL);
		ck_assert_ptr_nonnull(pg[i]);
		memset(page_address(pg[i]), 0xee, PAGE_SIZE);
	}
	bv[0] = (struct bio_vec){ pg[0], 100, PAGE_SIZE - 100 };
	bv[1] = (struct bio_vec){ pg[1], PAGE_SIZE, 0 };
	bv[2] = (struct bio_vec){ pg[2], 50, 0 };
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 7 + 1);
	iov_iter_bvec(&it, ITER_DEST, bv, 0, sizeof(src));
	ck_assert_uint_eq(iov_iter_addr(&it),
			  (unsigned long)page_address(pg[0]) + PAGE_SIZE - 100);
	ck_assert_uint_eq(copy_to_iter(src, sizeof(src), &it), sizeof(src));
	ck_assert_uint_eq(iov_iter_count(&it), 0);
	ck_assert(!memcmp((char *)page_address(pg[0]) + PAGE_SIZE - 100, src, 100));
	ck_assert(!memcmp(page_address(pg[1]), src + 100, PAGE_SIZE));
	ck_assert(!memcmp(page_address(pg[2]), src + 100 + PAGE_SIZE, 50));
	ck_assert_uint_eq(((unsigned char *)page_address(pg[2]))[50], 0xee);
	/* back out, from 60 bytes into the first segment */
	iov_iter_bvec(&it, ITER_SOURCE, bv, 60, sizeof(src) - 60);
	ck_assert_uint_eq(copy_from_iter(dst, sizeof(src) - 60, &it), sizeof(src) - 60);
	ck_assert(!memcmp(dst, src + 60, sizeof(src) - 60));
	/* zeroes, from inside the second segment to the end */
	iov_iter_bvec(&it, ITER_DEST, &bv[1], 10, PAGE_SIZE - 10 + 50);
	ck_assert_uint_eq(iov_iter_zero(PAGE_SIZE, &it), PAGE_SIZE);
	ck_assert_uint_eq(iov_iter_count(&it), 40);
	ck_assert_uint_eq(iov_iter_addr(&it), (unsigned long)page_address(pg[2]) + 10);
	ck_assert_uint_eq(((unsigned char *)page_address(pg[1]))[9], src[100 + 9]);
	ck_assert_uint_eq(((unsigned char *)page_address(pg[2]))[9], 0);
	ck_assert_uint_eq(((unsigned char *)page_address(pg[2]))[10], src[100 + PAGE_SIZE + 10]);
	/* a bio of the pages, from 40 bytes into the first segment */
	iov_iter_bvec(&it, ITER_DEST, bv, 40, sizeof(src) - 40);
	bio = bio_alloc(GFP_KERNEL, 0);
	ck_assert_int_eq(bio_iov_iter_get_pages(bio, &it), 0);
	ck_assert_uint_eq(iov_iter_count(&it), 0);
	ck_assert_ptr_eq(bio->bi_io_vec, bv);
	ck_assert(bio->bi_flags & BIO_CLONED);
	ck_assert_uint_eq(bio->bi_iter.bi_size, sizeof(src) - 40);
	{
		const unsigned int want_off[3] = { PAGE_SIZE - 60, 0, 0 };
		const unsigned int want_len[3] = { 60, PAGE_SIZE, 50 };
		struct bvec_iter bi;
		struct bio_vec seg;
		unsigned int n = 0;

		bio_for_each_segment(seg, bio, bi) {
			ck_assert_uint_lt(n, 3);
			ck_assert_ptr_eq(seg.bv_page, pg[n]);
			ck_assert_uint_eq(seg.bv_offset, want_off[n]);
			ck_assert_uint_eq(seg.bv_len, want_len[n]);
			n++;
		}
		ck_assert_uint_eq(n, 3);
	}
	ck_assert(!(bio->bi_flags & BIO_PAGE_PINNED));
	bio_put(bio);                   /* the array is not the bio's to free */
	ck_assert_uint_eq(bv[1].bv_len, PAGE_SIZE);
	for (int i = 0; i < 3; i++)
		__free_page(pg[i]);
}
END_TEST

/* A bio that holds a segment already cannot take the array: the pages
 * are copied in, as many as it has room for (two), and the iterator stops
 * after them. */
START_TEST(bvec_iter_fills_a_small_bio)
{
	struct page *pg[3], *first;
	struct bio_vec bv[3];
	struct iov_iter it;
	struct bio *bio;

	for (int i = 0; i < 3; i++) {
		pg[i] = alloc_page(GFP_KERNEL);
		ck_assert_ptr_nonnull(pg[i]);
		bv[i] = (struct bio_vec){ pg[i], PAGE_SIZE, 0 };
	}
	first = alloc_page(GFP_KERNEL);
	iov_iter_bvec(&it, ITER_SOURCE, bv, 0, 3 * PAGE_SIZE);
	bio = bio_alloc(GFP_KERNEL, 3);
	ck_assert_uint_ge(bio->bi_max_vecs, 3);
	bio->bi_max_vecs = 3;           /* the pool may round up: room for three */
	ck_assert_uint_eq(bio_add_page(bio, first, PAGE_SIZE, 0), PAGE_SIZE);
	ck_assert_int_eq(bio_iov_iter_get_pages(bio, &it), 0);
	ck_assert(!(bio->bi_flags & BIO_CLONED));
	ck_assert_uint_eq(bio->bi_vcnt, 3);
	ck_assert_ptr_eq(bio->bi_io_vec[1].bv_page, pg[0]);
	ck_assert_ptr_eq(bio->bi_io_vec[2].bv_page, pg[1]);
	ck_assert_uint_eq(iov_iter_count(&it), PAGE_SIZE);
	ck_assert_uint_eq(iov_iter_addr(&it), (unsigned long)page_address(pg[2]));
	bio_put(bio);
	__free_page(first);
	for (int i = 0; i < 3; i++)
		__free_page(pg[i]);
}
END_TEST

/* More than BIO_MAX_VECS registered pages: one bio takes BIO_MAX_VECS of
 * them, the iterator keeps the rest for the next. */
START_TEST(bvec_iter_bio_takes_at_most_max_vecs)
{
	enum { N = BIO_MAX_VECS + 3 };
	static struct bio_vec bv[N];
	struct page *pg = alloc_page(GFP_KERNEL);
	struct iov_iter it;
	struct bio *bio;

	for (int i = 0; i < N; i++)
		bv[i] = (struct bio_vec){ pg, PAGE_SIZE, 0 };
	iov_iter_bvec(&it, ITER_DEST, bv, 100, (size_t)N * PAGE_SIZE - 100);
	bio = bio_alloc(GFP_KERNEL, 0);
	ck_assert_int_eq(bio_iov_iter_get_pages(bio, &it), 0);
	ck_assert_uint_eq(bio->bi_iter.bi_size, BIO_MAX_VECS * PAGE_SIZE - 100);
	ck_assert_uint_eq(iov_iter_count(&it), 3 * PAGE_SIZE);
	ck_assert_ptr_eq(it.bvec, &bv[BIO_MAX_VECS]);
	bio_put(bio);
	__free_page(pg);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("Bio");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_loop_test(core, anchor_orders, 0, sizeof(anchors) / sizeof(anchors[0]));
	tcase_add_loop_test(core, stack_table, 0, 24);
	tcase_add_test(core, make_request_never_nests);
	tcase_add_test(core, refused_bio_does_not_stop_the_loop);
	tcase_add_test(core, chain_completes_parent_once_after_children);
	tcase_add_test(core, chain_keeps_error_of_finished_child);
	tcase_add_test(core, chain_ends_in_constant_stack);
	tcase_add_test(core, split_shares_segments);
	tcase_add_test(core, partition_remap_and_bounds);
	tcase_add_test(core, partition_names);
	tcase_add_test(core, diskstats_accounting);
	tcase_add_test(core, bvec_iter_crosses_segments);
	tcase_add_test(core, bvec_iter_fills_a_small_bio);
	tcase_add_test(core, bvec_iter_bio_takes_at_most_max_vecs);
	suite_add_tcase(s, core);

	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(limits, dying_queue_fails_bios);
	tcase_add_test(limits, mempool_reserve_only_waits_for_free);
	tcase_add_test(limits, mempool_prefers_allocator_then_reserve);
	tcase_add_test(limits, rescuer_takes_only_its_sets_bios);
	tcase_add_test(limits, bio_alloc_uses_bvec_reserve_when_memory_is_gone);
	tcase_add_test(limits, bio_alloc_prefers_kmalloc_for_bvecs);
	tcase_add_test(limits, front_pad_shares_the_allocation);
	tcase_add_test_raise_signal(limits, nowait_sleep_without_hook_panics, SIGABRT);
	suite_add_tcase(s, limits);
	return s;
}
