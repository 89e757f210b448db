// SPDX-License-Identifier: MIT
/*
 * The elevators on the host: dispatch orders of none, cscan and
 * mq-deadline for arrival sequences (with the fake clock for expiry),
 * merge lookups, request-to-request merging, tunables, the registry and
 * queue/scheduler's text.
 *
 * Requests are fake: struct requests in a static pool, never backed by
 * bios or memory -- the elevators look only at op, sector and length.
 * Calls take q->lock around them, as the request layer will.
 *
 * An arrival sequence is a script of tokens, run left to right:
 *   r100     insert a read of 8 sectors at sector 100 (w: a write)
 *   r100+16  ... of 16 sectors
 *   ^r100    ... inserted at_head
 *   t500     the clock moves 500 ms on
 *   d2       dispatch two requests now
 * and after the last token everything left is dispatched.  The dispatch
 * order is written back in the same notation ("r100 w50 r100+16"), so a
 * failure shows the whole order next to the one expected.
 */
#include <check.h>
#include <signal.h>
#include <spindle/bio.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include <spindle/mm.h>
#include <spindle/time.h>
#include "shim/host_kernel.h"
#include "../../block/elevator-internal.h"

#define POOL_SIZE   64
#define OUT_MAX     512
#define DEFAULT_SECTORS 8       /* a 4 KiB request */

static struct request pool[POOL_SIZE];
static int pool_used;
static struct request_queue tq;

static void setup(void)
{
	host_printk_quiet = true;
	host_printk_reset();
	host_mm_init(256 * PAGE_SIZE);
	ck_assert_int_eq(elevator_register_builtin(), 0);
	host_clock_ns = 0;
	pool_used = 0;
	memset(&tq, 0, sizeof(tq));
	spin_lock_init(&tq.lock);
}

static void teardown(void)
{
	host_mm_exit();
}

/* --- helpers -------------------------------------------------------------------- */

static struct request_queue *open_queue(const char *elevator)
{
	int err;

	err = elevator_init_queue(&tq, elevator);     /* takes q->lock itself */
	ck_assert_msg(err == 0, "elevator_init_queue(%s): %d", elevator, err);
	return &tq;
}

static void close_queue(void)
{
	elevator_exit_queue(&tq);
}

static struct request *new_rq(unsigned int op, sector_t sector, unsigned int sectors)
{
	struct request *rq;

	ck_assert_int_lt(pool_used, POOL_SIZE);
	rq = &pool[pool_used++];
	memset(rq, 0, sizeof(*rq));
	rq->q = &tq;
	INIT_LIST_HEAD(&rq->queuelist);
	INIT_LIST_HEAD(&rq->elv_sort);
	rq->cmd_flags = op;
	rq->__sector = sector;
	rq->__data_len = sectors << SECTOR_SHIFT;
	rq->tag = -1;
	return rq;
}

/* "r100", "w100+16" -> op, sector, sectors; returns the end of the token. */
static const char *parse_io(const char *s, unsigned int *op, sector_t *sector,
			    unsigned int *sectors)
{
	char *end;

	ck_assert_msg(*s == 'r' || *s == 'w', "bad token at \"%s\"", s);
	*op = *s == 'w' ? REQ_OP_WRITE : REQ_OP_READ;
	*sector = strtoull(s + 1, &end, 10);
	*sectors = DEFAULT_SECTORS;
	if (*end == '+')
		*sectors = strtoul(end + 1, &end, 10);
	return end;
}

static void rq_name(const struct request *rq, char *buf, size_t size)
{
	if (blk_rq_sectors(rq) == DEFAULT_SECTORS)
		snprintf(buf, size, "%c%llu", rq_data_dir(rq) ? 'w' : 'r',
			 (unsigned long long)blk_rq_pos(rq));
	else
		snprintf(buf, size, "%c%llu+%u", rq_data_dir(rq) ? 'w' : 'r',
			 (unsigned long long)blk_rq_pos(rq), blk_rq_sectors(rq));
}

/* Insert one request, through a list as the request layer does. */
static void insert(struct request *rq, bool at_head)
{
	LIST_HEAD(list);

	list_add_tail(&rq->queuelist, &list);
	spin_lock_irq(&tq.lock);
	elv_insert_requests(&tq, &list, at_head);
	spin_unlock_irq(&tq.lock);
	ck_assert(list_empty(&list));
}

static struct request *dispatch(void)
{
	struct request *rq;

	spin_lock_irq(&tq.lock);
	rq = elv_dispatch_request(&tq);
	spin_unlock_irq(&tq.lock);
	if (rq) {
		ck_assert(list_empty(&rq->queuelist));  /* free for the driver's list */
		rq->tag = 0;                            /* dispatched twice? caught below */
	}
	return rq;
}

static void dispatch_into(char *out, size_t size)
{
	struct request *rq = dispatch();
	char name[32];

	ck_assert_msg(rq != NULL, "elevator empty too early (so far: %s)", out);
	rq_name(rq, name, sizeof(name));
	if (out[0])
		strlcat(out, " ", size);
	strlcat(out, name, size);
}

static bool has_work(void)
{
	bool busy;

	spin_lock_irq(&tq.lock);
	busy = elv_has_work(&tq);
	spin_unlock_irq(&tq.lock);
	return busy;
}

/* Run a script (see the top of the file); the dispatch order lands in out. */
static void run_script(const char *s, char *out, size_t size)
{
	out[0] = '\0';
	while (*s) {
		char *end;

		if (*s == ' ') {
			s++;
		} else if (*s == 't') {
			host_clock_ns += strtoull(s + 1, &end, 10) * NSEC_PER_MSEC;
			s = end;
		} else if (*s == 'd') {
			unsigned long n = strtoul(s + 1, &end, 10);

			while (n--)
				dispatch_into(out, size);
			s = end;
		} else {
			bool at_head = *s == '^';
			unsigned int op, sectors;
			sector_t sector;

			s = parse_io(s + at_head, &op, &sector, &sectors);
			insert(new_rq(op, sector, sectors), at_head);
		}
	}
	while (has_work())
		dispatch_into(out, size);
	ck_assert_ptr_null(dispatch());
	for (int i = 0; i < pool_used; i++)
		ck_assert_msg(pool[i].tag == 0, "request %d never dispatched", i);
}

/* queue/iosched/<name>, as sysfs will use it */
static int store_attr(const char *name, const char *val)
{
	return elv_attr_store(&tq, name, val);
}

static const char *show_attr(const char *name)
{
	static char buf[64];
	int len = elv_attr_show(&tq, name, buf, sizeof(buf));

	ck_assert_int_eq(len, (int)strlen(buf));
	return buf;
}

/* "fifo_batch=2 writes_starved=0" */
static void set_tunables(const char *s)
{
	char buf[128], *p = buf, *word;

	strlcpy(buf, s, sizeof(buf));
	while ((word = strsep(&p, " ")) != NULL) {
		char *val = strchr(word, '=');

		*val++ = '\0';
		ck_assert_msg(store_attr(word, val) == 0, "%s=%s refused", word, val);
	}
}

static const char *show_scheduler(void)
{
	static char buf[128];
	int len = elv_iosched_show(&tq, buf, sizeof(buf));

	ck_assert_int_eq(len, (int)strlen(buf));
	return buf;
}

/* What a run-time switch does, once the queue is drained and frozen. */
static int switch_to(const char *elevator)
{
	int err;

	elevator_exit_queue(&tq);
	err = elevator_init_queue(&tq, elevator);
	return err;
}

/* --- dispatch orders ------------------------------------------------------------ */

static const struct order_case {
	const char *elevator, *what;
	const char *tunables;           /* NULL: Linux's defaults */
	const char *script, *want;
} order_cases[] = {
	/* none: arrival order, nothing else */
	{ "none", "FIFO whatever the sectors", NULL,
	  "r300 w100 r200 r100", "r300 w100 r200 r100" },
	{ "none", "at_head goes first", NULL,
	  "r300 d1 r100 r200 d1 ^w5", "r300 r100 w5 r200" },

	/* cscan: up from the head (sector 0 at first), then wrap */
	{ "cscan", "ascending, reads and writes together", NULL,
	  "r300 r100 w200", "r100 w200 r300" },
	{ "cscan", "wraps to the lowest", NULL,
	  "r100 d1 r50 r300 r200", "r100 r200 r300 r50" },
	{ "cscan", "the wrap goes to the lowest, not the nearest below the head", NULL,
	  "r500 d1 r100 r300 r200", "r500 r100 r200 r300" },
	{ "cscan", "after the wrap the sweep climbs through all below", NULL,
	  "r200 r400 d1 r100 r300 r50 r150", "r200 r300 r400 r50 r100 r150" },
	{ "cscan", "the head is the end sector: at or after it", NULL,
	  "r100+16 d1 r110 r116 r124", "r100+16 r116 r124 r110" },
	{ "cscan", "arrivals above the head join the sweep", NULL,
	  "r100 r500 d1 r300 r50", "r100 r300 r500 r50" },
	{ "cscan", "equal sectors in arrival order", NULL,
	  "w100 r100 w100+16", "w100 r100 w100+16" },
	{ "cscan", "at_head first, and the head moves with it", NULL,
	  "r100 r150 r300 d1 ^r200", "r100 r200 r300 r150" },
	{ "cscan", "several at_head: the last inserted goes first", NULL,
	  "r100 r150 d1 ^w300 ^w200", "r100 w200 w300 r150" },

	/* mq-deadline: batches in sector order, reads first, FIFOs expire */
	{ "mq-deadline", "a batch sweeps up in sector order", NULL,
	  "r100 r400 r200 r300", "r100 r200 r300 r400" },
	{ "mq-deadline", "the sweep starts at sector 0", NULL,
	  "r300 r100 r400 r200", "r100 r200 r300 r400" },
	{ "mq-deadline", "arrivals above the sweep join the batch", NULL,
	  "r100 d1 r50 r300", "r100 r300 r50" },
	{ "mq-deadline", "past the highest: restart from the oldest, not the lowest", NULL,
	  "r500 d1 r300 r100 r200", "r500 r300 r100 r200" },
	{ "mq-deadline", "each direction sweeps on from where it stopped", "fifo_batch=1",
	  "r100 r200 w500 d2 r50 r300", "r100 r200 w500 r300 r50" },
	{ "mq-deadline", "reads before writes", NULL,
	  "w50 w60 r100 r200", "r100 r200 w50 w60" },
	{ "mq-deadline", "fifo_batch ends a batch, writes_starved=2 lets writes in",
	  "fifo_batch=2",
	  "r100 r200 r300 r400 r500 r600 w50 w60", "r100 r200 r300 r400 w50 w60 r500 r600" },
	{ "mq-deadline", "the same with one big batch", NULL,
	  "r100 r200 r300 r400 r500 r600 w50 w60", "r100 r200 r300 r400 r500 r600 w50 w60" },
	{ "mq-deadline", "writes_starved: a write after two read batches", "fifo_batch=1",
	  "r100 r200 r300 r400 w50", "r100 r200 w50 r300 r400" },
	{ "mq-deadline", "writes_starved=0: waiting writes go first",
	  "fifo_batch=1 writes_starved=0",
	  "r100 r200 w50 w60", "w50 w60 r100 r200" },
	{ "mq-deadline", "an expired write still waits for writes_starved", "fifo_batch=1",
	  "w50 t6000 r100 r200 r300", "r100 r200 w50 r300" },
	{ "mq-deadline", "an expired read jumps the sweep", "fifo_batch=1",
	  "r100 d1 t1 r200 r50 r300 d1 t600 d1", "r100 r200 r50 r300" },
	{ "mq-deadline", "a read 1 ms before expiry waits its turn", "fifo_batch=1",
	  "r100 d1 t1 r200 r50 r300 d1 t499 d1", "r100 r200 r300 r50" },
	{ "mq-deadline", "expiry is looked at only between batches", NULL,
	  "r100 d1 t1 r200 r50 r300 d1 t600 d1", "r100 r200 r300 r50" },
	{ "mq-deadline", "an expired write jumps the sweep (at exactly 5000 ms)", "fifo_batch=1",
	  "w100 d1 t1 w200 w50 w300 d1 t5000 d1", "w100 w200 w50 w300" },
	{ "mq-deadline", "a write 1 ms before expiry waits its turn", "fifo_batch=1",
	  "w100 d1 t1 w200 w50 w300 d1 t4999 d1", "w100 w200 w300 w50" },
	{ "mq-deadline", "read_expire=0: every batch starts at the oldest",
	  "read_expire=0 fifo_batch=1",
	  "r100 r300 r200", "r100 r300 r200" },
	{ "mq-deadline", "at_head goes first", NULL,
	  "r100 r200 ^w900", "w900 r100 r200" },
	{ "mq-deadline", "several at_head: the last inserted goes first", NULL,
	  "r100 r200 ^w900 ^w800", "w800 w900 r100 r200" },
};

/* Every row of order_cases for one elevator, each on a fresh queue. */
static void run_order_table(const char *elevator)
{
	int rows = 0;

	for (size_t i = 0; i < ARRAY_SIZE(order_cases); i++) {
		const struct order_case *c = &order_cases[i];
		char out[OUT_MAX];

		if (strcmp(c->elevator, elevator) != 0)
			continue;
		if (rows) {             /* a fresh queue and clock, as setup() gives */
			host_clock_ns = 0;
			pool_used = 0;
			memset(&tq, 0, sizeof(tq));
			spin_lock_init(&tq.lock);
		}
		open_queue(c->elevator);
		if (c->tunables)
			set_tunables(c->tunables);
		run_script(c->script, out, sizeof(out));
		ck_assert_msg(strcmp(out, c->want) == 0, "%s, %s: \"%s\"\n  got  %s\n  want %s",
			      c->elevator, c->what, c->script, out, c->want);
		rows++;
	}
	ck_assert_int_gt(rows, 0);
}

START_TEST(none_order_table) { run_order_table("none"); } END_TEST
START_TEST(cscan_order_table) { run_order_table("cscan"); } END_TEST
START_TEST(deadline_order_table) { run_order_table("mq-deadline"); } END_TEST

/*
 * dd_fifo_expired(), mq-deadline's expiry test, by its contract: false for
 * a direction with no request, whatever the other one holds; true from
 * the oldest request's deadline on.  It is static, so mq-deadline.c is
 * compiled once more into this file (its one global renamed) and the copy
 * of the function is called on the queue the real elevator set up.
 */
#define mq_deadline mq_deadline_compiled_for_check_elevator
#include "../../block/mq-deadline.c"
#undef mq_deadline

START_TEST(deadline_fifo_expired_contract)
{
	struct deadline_data *dd;
	char out[OUT_MAX];

	open_queue("mq-deadline");
	dd = tq.elevator->elevator_data;
	spin_lock_irq(&tq.lock);
	ck_assert_msg(!dd_fifo_expired(dd, READ), "no reads queued: nothing can expire");
	ck_assert_msg(!dd_fifo_expired(dd, WRITE), "no writes queued: nothing can expire");
	spin_unlock_irq(&tq.lock);

	insert(new_rq(REQ_OP_WRITE, 100, 8), false);
	host_clock_ns += 5000 * NSEC_PER_MSEC;          /* write_expire */
	spin_lock_irq(&tq.lock);
	ck_assert_msg(dd_fifo_expired(dd, WRITE), "a write at exactly its deadline");
	ck_assert_msg(!dd_fifo_expired(dd, READ), "a write expired, but no read is queued");
	spin_unlock_irq(&tq.lock);

	insert(new_rq(REQ_OP_READ, 200, 8), false);
	host_clock_ns += 499 * NSEC_PER_MSEC;
	spin_lock_irq(&tq.lock);
	ck_assert_msg(!dd_fifo_expired(dd, READ), "a read 1 ms before read_expire");
	spin_unlock_irq(&tq.lock);
	host_clock_ns += 1 * NSEC_PER_MSEC;
	spin_lock_irq(&tq.lock);
	ck_assert_msg(dd_fifo_expired(dd, READ), "a read at exactly read_expire");
	spin_unlock_irq(&tq.lock);
	run_script("", out, sizeof(out));
	close_queue();
}
END_TEST

/* insert_requests takes a whole list (a plug flush) in its order. */
START_TEST(insert_takes_the_whole_list)
{
	static const char *const elevators[] = { "none", "cscan", "mq-deadline" };
	static const char *const want[] = { "r300 r100 r200", "r100 r200 r300", "r100 r200 r300" };

	for (int e = 0; e < 3; e++) {
		char out[OUT_MAX];
		LIST_HEAD(list);

		pool_used = 0;
		open_queue(elevators[e]);
		list_add_tail(&new_rq(REQ_OP_READ, 300, 8)->queuelist, &list);
		list_add_tail(&new_rq(REQ_OP_READ, 100, 8)->queuelist, &list);
		list_add_tail(&new_rq(REQ_OP_READ, 200, 8)->queuelist, &list);
		spin_lock_irq(&tq.lock);
		elv_insert_requests(&tq, &list, false);
		spin_unlock_irq(&tq.lock);
		ck_assert(list_empty(&list));
		run_script("", out, sizeof(out));
		ck_assert_msg(strcmp(out, want[e]) == 0, "%s: got %s", elevators[e], out);
		close_queue();
	}
}
END_TEST

/* --- merge lookups ----------------------------------------------------------------- */

static const struct merge_case {
	const char *elevator, *what, *tunables;
	const char *queued;             /* a script of inserts */
	const char *bio;                /* one token */
	enum elv_merge want;
	const char *want_rq;            /* the candidate's name, or NULL */
} merge_cases[] = {
	{ "none", "back", NULL, "r100", "r108", ELEVATOR_BACK_MERGE, "r100" },
	{ "none", "front", NULL, "r100", "r92", ELEVATOR_FRONT_MERGE, "r100" },
	{ "none", "another op", NULL, "w100", "r108", ELEVATOR_NO_MERGE, NULL },
	{ "none", "a gap of one sector", NULL, "r100", "r109", ELEVATOR_NO_MERGE, NULL },
	{ "none", "8th newest is still searched", NULL,
	  "r100 r1000 r2000 r3000 r4000 r5000 r6000 r7000", "r108", ELEVATOR_BACK_MERGE, "r100" },
	{ "none", "9th newest is not", NULL,
	  "r100 r1000 r2000 r3000 r4000 r5000 r6000 r7000 r8000", "r108", ELEVATOR_NO_MERGE, NULL },
	{ "none", "the newest candidate wins", NULL,
	  "r100 r116", "r108", ELEVATOR_FRONT_MERGE, "r116" },

	{ "mq-deadline", "back", NULL, "r100", "r108", ELEVATOR_BACK_MERGE, "r100" },
	{ "mq-deadline", "front", NULL, "r100", "r92", ELEVATOR_FRONT_MERGE, "r100" },
	{ "mq-deadline", "front_merges=0: no front merge", "front_merges=0",
	  "r100", "r92", ELEVATOR_NO_MERGE, NULL },
	{ "mq-deadline", "front_merges=0: back merges still", "front_merges=0",
	  "r100", "r108", ELEVATOR_BACK_MERGE, "r100" },
	{ "mq-deadline", "another op", NULL, "w100", "r108", ELEVATOR_NO_MERGE, NULL },
	{ "mq-deadline", "back before front", NULL,
	  "r116 r100", "r108", ELEVATOR_BACK_MERGE, "r100" },
	{ "mq-deadline", "writes", NULL, "r100 w100", "w108+16", ELEVATOR_BACK_MERGE, "w100" },
	{ "mq-deadline", "no look-back limit", NULL,
	  "r100 r1000 r2000 r3000 r4000 r5000 r6000 r7000 r8000 r9000", "r108",
	  ELEVATOR_BACK_MERGE, "r100" },

	{ "cscan", "back", NULL, "r100", "r108", ELEVATOR_BACK_MERGE, "r100" },
	{ "cscan", "front", NULL, "r100", "r92", ELEVATOR_FRONT_MERGE, "r100" },
	{ "cscan", "another op", NULL, "w100", "r108", ELEVATOR_NO_MERGE, NULL },
	{ "cscan", "back before front", NULL,
	  "r116 r100", "r108", ELEVATOR_BACK_MERGE, "r100" },
	{ "cscan", "no look-back limit", NULL,
	  "r100 r1000 r2000 r3000 r4000 r5000 r6000 r7000 r8000 r9000", "r108",
	  ELEVATOR_BACK_MERGE, "r100" },
};

static void make_bio(struct bio *bio, const char *tok)
{
	unsigned int op, sectors;
	sector_t sector;

	memset(bio, 0, sizeof(*bio));
	parse_io(tok, &op, &sector, &sectors);
	bio->bi_opf = op;
	bio->bi_iter.bi_sector = sector;
	bio->bi_iter.bi_size = sectors << SECTOR_SHIFT;
}

static enum elv_merge merge(struct bio *bio, struct request **rq)
{
	enum elv_merge type;

	spin_lock_irq(&tq.lock);
	type = elv_merge(&tq, rq, bio);
	spin_unlock_irq(&tq.lock);
	return type;
}

START_TEST(merge_table)
{
	const struct merge_case *c = &merge_cases[_i];
	struct request *rq = (struct request *)1;
	struct bio bio;
	char out[OUT_MAX], name[32] = "NULL";
	enum elv_merge type;

	open_queue(c->elevator);
	if (c->tunables)
		set_tunables(c->tunables);
	for (const char *s = c->queued; *s; ) {
		unsigned int op, sectors;
		sector_t sector;

		s = parse_io(s, &op, &sector, &sectors);
		insert(new_rq(op, sector, sectors), false);
		while (*s == ' ')
			s++;
	}
	make_bio(&bio, c->bio);
	type = merge(&bio, &rq);
	if (rq)
		rq_name(rq, name, sizeof(name));
	ck_assert_msg(type == c->want, "%s, %s: type %d, want %d", c->elevator, c->what,
		      type, c->want);
	if (c->want_rq)
		ck_assert_msg(rq && strcmp(name, c->want_rq) == 0, "%s, %s: merge into %s, want %s",
			      c->elevator, c->what, name, c->want_rq);
	else
		ck_assert_ptr_null(rq);
	run_script("", out, sizeof(out));       /* a lookup removes nothing */
}
END_TEST

/* REQ_NOMERGE on either side: never a candidate. */
START_TEST(nomerge_flag)
{
	static const char *const elevators[] = { "none", "cscan", "mq-deadline" };

	for (int e = 0; e < 3; e++) {
		struct request *rq, *r100;
		struct bio bio;
		char out[OUT_MAX];

		pool_used = 0;
		open_queue(elevators[e]);
		r100 = new_rq(REQ_OP_READ, 100, 8);
		insert(r100, false);
		make_bio(&bio, "r108");
		bio.bi_opf |= REQ_NOMERGE;
		ck_assert_int_eq(merge(&bio, &rq), ELEVATOR_NO_MERGE);
		make_bio(&bio, "r108");
		r100->cmd_flags |= REQ_NOMERGE;
		ck_assert_int_eq(merge(&bio, &rq), ELEVATOR_NO_MERGE);
		run_script("", out, sizeof(out));
		close_queue();
	}
}
END_TEST

/* --- after a merge ------------------------------------------------------------------ */

/* A front merge moves a request's start: the sorted list must follow. */
START_TEST(front_merge_resorts)
{
	static const char *const elevators[] = { "cscan", "mq-deadline" };

	for (int e = 0; e < 2; e++) {
		struct request *r296, *r300, *rq;
		struct bio bio;
		char out[OUT_MAX];

		pool_used = 0;
		open_queue(elevators[e]);
		r296 = new_rq(REQ_OP_READ, 296, 2);
		r300 = new_rq(REQ_OP_READ, 300, 8);
		insert(r296, false);
		insert(r300, false);
		make_bio(&bio, "r290+10");
		ck_assert_int_eq(merge(&bio, &rq), ELEVATOR_FRONT_MERGE);
		ck_assert_ptr_eq(rq, r300);
		/* what the request layer does for a front merge */
		r300->__sector = 290;
		r300->__data_len += bio.bi_iter.bi_size;
		spin_lock_irq(&tq.lock);
		elv_merged_request(&tq, r300, ELEVATOR_FRONT_MERGE);
		ck_assert_ptr_eq(elv_latter_request(&tq, r300), r296);
		ck_assert_ptr_eq(elv_former_request(&tq, r296), r300);
		spin_unlock_irq(&tq.lock);
		run_script("", out, sizeof(out));
		if (e == 0)             /* cscan from sector 0 */
			ck_assert_str_eq(out, "r290+18 r296+2");
		close_queue();
	}
}
END_TEST

/* requests_merged: next is gone; the others are untouched. */
START_TEST(requests_merged_forgets_next)
{
	static const char *const elevators[] = { "none", "cscan", "mq-deadline" };

	for (int e = 0; e < 3; e++) {
		struct request *r100, *r108;
		char out[OUT_MAX];

		pool_used = 0;
		open_queue(elevators[e]);
		r100 = new_rq(REQ_OP_READ, 100, 8);
		r108 = new_rq(REQ_OP_READ, 108, 8);
		insert(r100, false);
		insert(r108, false);
		insert(new_rq(REQ_OP_READ, 200, 8), false);
		r100->__data_len += blk_rq_bytes(r108);
		spin_lock_irq(&tq.lock);
		elv_merge_requests(&tq, r100, r108);
		spin_unlock_irq(&tq.lock);
		r108->tag = 0;          /* run_script: it counts as gone */
		run_script("", out, sizeof(out));
		ck_assert_msg(strcmp(out, "r100+16 r200") == 0, "%s: got %s", elevators[e], out);
		close_queue();
	}
}
END_TEST

/* mq-deadline: the merged request keeps the earlier deadline and its
 * place in the FIFO. */
START_TEST(deadline_merge_keeps_earlier_deadline)
{
	struct request *r100, *r108, *r900;
	char out[OUT_MAX];

	open_queue("mq-deadline");
	r108 = new_rq(REQ_OP_READ, 108, 8);
	r900 = new_rq(REQ_OP_READ, 900, 8);
	r100 = new_rq(REQ_OP_READ, 100, 8);
	insert(r108, false);                            /* t = 0: due at 500 ms */
	host_clock_ns = 50 * NSEC_PER_MSEC;
	insert(r900, false);
	host_clock_ns = 100 * NSEC_PER_MSEC;
	insert(r100, false);                            /* due at 600 ms */
	ck_assert_uint_eq(r100->fifo_time, 600 * NSEC_PER_MSEC);

	spin_lock_irq(&tq.lock);
	ck_assert_ptr_eq(elv_latter_request(&tq, r100), r108);
	r100->__data_len += blk_rq_bytes(r108);
	elv_merge_requests(&tq, r100, r108);
	spin_unlock_irq(&tq.lock);
	r108->tag = 0;
	ck_assert_uint_eq(r100->fifo_time, 500 * NSEC_PER_MSEC);
	/* All expired: the batch starts at the oldest, which is now r100 (in
	 * r108's place), not r900. */
	host_clock_ns = 700 * NSEC_PER_MSEC;
	run_script("", out, sizeof(out));
	ck_assert_str_eq(out, "r100+16 r900");
}
END_TEST

START_TEST(latter_and_former)
{
	struct request *r100, *w150, *r200;

	/* none keeps no disk order: no neighbours */
	open_queue("none");
	r100 = new_rq(REQ_OP_READ, 100, 8);
	insert(r100, false);
	spin_lock_irq(&tq.lock);
	ck_assert_ptr_null(elv_latter_request(&tq, r100));
	ck_assert_ptr_null(elv_former_request(&tq, r100));
	elv_dispatch_request(&tq);
	spin_unlock_irq(&tq.lock);
	close_queue();

	for (int e = 0; e < 2; e++) {
		pool_used = 0;
		open_queue(e ? "mq-deadline" : "cscan");
		r100 = new_rq(REQ_OP_READ, 100, 8);
		w150 = new_rq(REQ_OP_WRITE, 150, 8);
		r200 = new_rq(REQ_OP_READ, 200, 8);
		insert(r200, false);
		insert(w150, false);
		insert(r100, false);
		spin_lock_irq(&tq.lock);
		ck_assert_ptr_eq(elv_latter_request(&tq, r100), r200);  /* w150 skipped */
		ck_assert_ptr_eq(elv_former_request(&tq, r200), r100);
		ck_assert_ptr_null(elv_latter_request(&tq, r200));
		ck_assert_ptr_null(elv_former_request(&tq, r100));
		ck_assert_ptr_null(elv_latter_request(&tq, w150));
		ck_assert_ptr_null(elv_former_request(&tq, w150));
		while (elv_dispatch_request(&tq))
			;
		spin_unlock_irq(&tq.lock);
		close_queue();
	}
}
END_TEST

/* --- tunables ------------------------------------------------------------------------ */

START_TEST(tunables_defaults_and_store)
{
	static const struct { const char *name, *dflt, *set; } attrs[] = {
		{ "read_expire", "500\n", "250" },          /* ms */
		{ "write_expire", "5000\n", "1000" },       /* ms */
		{ "writes_starved", "2\n", "4" },
		{ "fifo_batch", "16\n", "8" },
		{ "front_merges", "1\n", "0" },
	};
	char want[32];
	int n = 0;

	open_queue("mq-deadline");
	for (const struct elv_fs_entry *a = tq.elevator->type->elevator_attrs; a->name; a++)
		ck_assert_str_eq(a->name, attrs[n++].name);     /* Linux's names, this order */
	ck_assert_int_eq(n, 5);
	for (int i = 0; i < 5; i++) {
		ck_assert_str_eq(show_attr(attrs[i].name), attrs[i].dflt);
		ck_assert_int_eq(store_attr(attrs[i].name, attrs[i].set), 0);
		snprintf(want, sizeof(want), "%s\n", attrs[i].set);
		ck_assert_str_eq(show_attr(attrs[i].name), want);
	}
	/* echo 300 > read_expire: the newline is accepted */
	ck_assert_int_eq(store_attr("read_expire", "300\n"), 0);
	ck_assert_str_eq(show_attr("read_expire"), "300\n");
	/* and it is in ms: a read inserted now is due 300 ms later */
	host_clock_ns = 7 * NSEC_PER_MSEC;
	insert(new_rq(REQ_OP_READ, 1, 8), false);
	ck_assert_uint_eq(pool[0].fifo_time, 307 * NSEC_PER_MSEC);
	ck_assert_ptr_eq(dispatch(), &pool[0]);
}
END_TEST

START_TEST(tunables_reject_bad_values)
{
	static const char *const names[] = {
		"read_expire", "write_expire", "writes_starved", "fifo_batch", "front_merges",
	};
	static const char *const bad[] = {
		"", "abc", "-1", "12abc", " 5", "5 5", "99999999999", "2147483648",
	};

	open_queue("mq-deadline");
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char before[64];

		strlcpy(before, show_attr(names[i]), sizeof(before));
		for (size_t j = 0; j < ARRAY_SIZE(bad); j++) {
			ck_assert_msg(store_attr(names[i], bad[j]) == -EINVAL, "%s=\"%s\" accepted",
				      names[i], bad[j]);
			ck_assert_str_eq(show_attr(names[i]), before);
		}
	}
	ck_assert_int_eq(store_attr("front_merges", "2"), -EINVAL);
	ck_assert_str_eq(show_attr("front_merges"), "1\n");
	ck_assert_int_eq(store_attr("fifo_batch", "2147483647"), 0);
	/* no such tunable, or none at all */
	ck_assert_int_eq(store_attr("quantum", "1"), -ENOENT);
	close_queue();
	open_queue("none");
	ck_assert_int_eq(store_attr("read_expire", "1"), -ENOENT);
	ck_assert_int_eq(elv_attr_show(&tq, "read_expire", (char[8]){ 0 }, 8), -ENOENT);
}
END_TEST

/* --- the registry, queue/scheduler, attaching ----------------------------------------- */

START_TEST(scheduler_show_format)
{
	ck_assert_str_eq(show_scheduler(), "none\n");           /* no elevator: bio-based */
	open_queue("mq-deadline");
	ck_assert_str_eq(show_scheduler(), "[mq-deadline] none cscan\n");
	switch_to("none");
	ck_assert_str_eq(show_scheduler(), "mq-deadline [none] cscan\n");
	switch_to("cscan");
	ck_assert_str_eq(show_scheduler(), "mq-deadline none [cscan]\n");
}
END_TEST

START_TEST(registry)
{
	static struct elevator_type dup = {
		.elevator_name = "cscan",
		.ops = { .insert_requests = (void *)1, .dispatch_request = (void *)1,
			 .has_work = (void *)1 },
	};
	static struct elevator_type incomplete = { .elevator_name = "broken" };

	ck_assert_ptr_eq(elevator_find("none"), &elevator_noop);
	ck_assert_ptr_eq(elevator_find("mq-deadline"), &mq_deadline);
	ck_assert_ptr_eq(elevator_find("cscan"), &elevator_cscan);
	ck_assert_ptr_null(elevator_find("bfq"));
	ck_assert_int_eq(elevator_register_builtin(), 0);       /* again: nothing changes */
	ck_assert_int_eq(elv_register(&dup), -EBUSY);
	ck_assert_int_eq(elv_register(&incomplete), -EINVAL);
	open_queue("none");
	ck_assert_str_eq(show_scheduler(), "mq-deadline [none] cscan\n");
}
END_TEST

START_TEST(default_is_mq_deadline)
{
	open_queue(NULL);
	ck_assert_ptr_eq(tq.elevator->type, &mq_deadline);
}
END_TEST

/* Linux 6.1's elevator_get_default: several hardware queues get none,
 * one (or a queue that is not blk-mq: 0) mq-deadline. */
START_TEST(default_for_several_hw_queues_is_none)
{
	static const struct { unsigned int nr_hw_queues; struct elevator_type *want; } cases[] = {
		{ 0, &mq_deadline }, { 1, &mq_deadline }, { 2, &elevator_noop }, { 8, &elevator_noop },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		tq.nr_hw_queues = cases[i].nr_hw_queues;
		open_queue(NULL);
		ck_assert_msg(tq.elevator->type == cases[i].want, "%u hw queues: %s",
			      cases[i].nr_hw_queues, tq.elevator->type->elevator_name);
		ck_assert(tq.sched_none == (cases[i].want == &elevator_noop));
		close_queue();
	}
}
END_TEST

/* elevator=<name> is the default of every queue, several hardware queues too. */
START_TEST(boot_option_overrides_multiqueue_default)
{
	ck_assert_int_eq(elevator_setup("mq-deadline"), 0);
	tq.nr_hw_queues = 2;
	open_queue(NULL);
	ck_assert_ptr_eq(tq.elevator->type, &mq_deadline);
	close_queue();
}
END_TEST

START_TEST(boot_option_chooses_default)
{
	ck_assert_int_eq(elevator_setup("cscan"), 0);
	open_queue(NULL);
	ck_assert_ptr_eq(tq.elevator->type, &elevator_cscan);
	/* an explicit name still wins */
	ck_assert_int_eq(switch_to("none"), 0);
	ck_assert_ptr_eq(tq.elevator->type, &elevator_noop);
	elevator_setup("mq-deadline");  /* as it was, should CK_FORK=no run on */
}
END_TEST

START_TEST(boot_option_unknown_warns_once)
{
	ck_assert_int_eq(elevator_setup("bfq"), 0);     /* not checked yet: no types at boot */
	open_queue(NULL);
	ck_assert_ptr_eq(tq.elevator->type, &mq_deadline);
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "unknown elevator=bfq"));
	host_printk_reset();
	ck_assert_int_eq(switch_to(NULL), 0);                   /* the next disk */
	ck_assert_ptr_eq(tq.elevator->type, &mq_deadline);
	ck_assert_ptr_null(strstr(host_printk_buf, "unknown elevator"));
}
END_TEST

START_TEST(boot_option_bad_values)
{
	ck_assert_int_eq(elevator_setup(""), -EINVAL);
	ck_assert_int_eq(elevator_setup("a-name-much-too-long"), -EINVAL);
}
END_TEST

START_TEST(init_errors)
{
	ck_assert_int_eq(elevator_init_queue(&tq, "bfq"), -EINVAL);
	ck_assert_ptr_null(tq.elevator);
	ck_assert_int_eq(elevator_init_queue(&tq, "none"), 0);
	ck_assert_int_eq(elevator_init_queue(&tq, "cscan"), -EBUSY);
	ck_assert_ptr_eq(tq.elevator->type, &elevator_noop);
	elevator_exit_queue(&tq);
	ck_assert_ptr_null(tq.elevator);
	elevator_exit_queue(&tq);                       /* none attached: nothing to do */
}
END_TEST

/* A switch as the request layer will do it: drained, exit, init. */
START_TEST(switch_exit_then_init)
{
	char out[OUT_MAX];

	open_queue("none");
	run_script("r300 r100 r200", out, sizeof(out));
	ck_assert_str_eq(out, "r300 r100 r200");
	ck_assert_int_eq(switch_to("cscan"), 0);
	pool_used = 0;
	run_script("r300 r100 r200", out, sizeof(out));
	ck_assert_str_eq(out, "r100 r200 r300");
	spin_lock_irq(&tq.lock);
	elv_completed_request(&pool[0]);                /* optional op: none has it */
	spin_unlock_irq(&tq.lock);
}
END_TEST

START_TEST(empty_dispatches_nothing)
{
	static const char *const elevators[] = { "none", "cscan", "mq-deadline" };

	for (int e = 0; e < 3; e++) {
		open_queue(elevators[e]);
		ck_assert(!has_work());
		ck_assert_ptr_null(dispatch());
		close_queue();
	}
}
END_TEST

/* Broken rules panic (abort on the host). */
START_TEST(exit_with_requests_inside_panics)
{
	open_queue("mq-deadline");
	insert(new_rq(REQ_OP_READ, 100, 8), false);
	elevator_exit_queue(&tq);
}
END_TEST

START_TEST(call_without_queue_lock_panics)
{
	open_queue("cscan");
	elv_dispatch_request(&tq);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("Elevator");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, none_order_table);
	tcase_add_test(core, cscan_order_table);
	tcase_add_test(core, deadline_order_table);
	tcase_add_test(core, deadline_fifo_expired_contract);
	tcase_add_test(core, insert_takes_the_whole_list);
	tcase_add_loop_test(core, merge_table, 0, ARRAY_SIZE(merge_cases));
	tcase_add_test(core, front_merge_resorts);
	tcase_add_test(core, requests_merged_forgets_next);
	tcase_add_test(core, deadline_merge_keeps_earlier_deadline);
	tcase_add_test(core, latter_and_former);
	tcase_add_test(core, tunables_defaults_and_store);
	tcase_add_test(core, scheduler_show_format);
	tcase_add_test(core, registry);
	tcase_add_test(core, default_is_mq_deadline);
	tcase_add_test(core, default_for_several_hw_queues_is_none);
	tcase_add_test(core, boot_option_overrides_multiqueue_default);
	tcase_add_test(core, boot_option_chooses_default);
	tcase_add_test(core, switch_exit_then_init);
	suite_add_tcase(s, core);

	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(limits, nomerge_flag);
	tcase_add_test(limits, tunables_reject_bad_values);
	tcase_add_test(limits, boot_option_unknown_warns_once);
	tcase_add_test(limits, boot_option_bad_values);
	tcase_add_test(limits, init_errors);
	tcase_add_test(limits, empty_dispatches_nothing);
	tcase_add_test_raise_signal(limits, exit_with_requests_inside_panics, SIGABRT);
	tcase_add_test_raise_signal(limits, call_without_queue_lock_panics, SIGABRT);
	suite_add_tcase(s, limits);
	return s;
}
