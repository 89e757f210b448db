// SPDX-License-Identifier: MIT
/*
 * check_io_uring_cq - io_uring's completion side (fs/io_uring_cq.c:
 * io_cqring_post, io_cqring_overflow_flush) against a model process.
 *
 * io_uring_cq.c is compiled here with tests/unit/uring_cq/model.h forced
 * in: its barriers, its kmalloc and the two functions it calls are the
 * model's.  The model behaves as a process on another CPU may, which a
 * QEMU run on x86 never shows:
 *
 *   - it reads the CQ tail the moment it is stored, by any store -- a
 *     release, WRITE_ONCE or a plain one -- and then the CQEs below it;
 *   - but it sees the CQE array only as it was at the kernel's last
 *     smp_store_release() or smp_wmb(): an entry written after the
 *     barrier that published its tail reads as what the slot held before
 *     (the previous pass's CQE, or the poison the test put there);
 *   - a waiter, woken by io_cq_wake(), looks at the tail and the SQ ring's
 *     flags then: a wakeup before the tail moves finds nothing, and goes
 *     back to sleep.
 *
 * The shared words (tail, head, sq_flags, overflow) are the test's; it
 * moves the head as the process does.  The allocator can be told to fail,
 * and counts what is not freed.
 */
#include <check.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/mm.h>
#include "uring_cq/model.h"
#include "../../fs/io_uring_cq.h"

#define QMAX            16
#define STALE_DATA      0xdeadbeefdeadbeefull   /* what a slot holds before any pass */
#define STALE_RES       (-9999)
#define MAX_WAKES       256

static struct model {
	struct io_cq cq;
	struct io_uring_cqe mem[QMAX];          /* the CQEs, as the kernel wrote them */
	struct io_uring_cqe seen[QMAX];         /* as the process sees them */
	u32 tail, head, sq_flags, overflow;     /* the shared words */
	unsigned int barriers;
	/* what a waiter found at each wakeup */
	unsigned int wakes;
	u32 tail_at_wake[MAX_WAKES], flags_at_wake[MAX_WAKES];
	/* the allocator */
	unsigned int fail_allocs;               /* the next n fail */
	int live;                               /* allocated, not freed */
} m;

/* --- the model's side of model.h ------------------------------------------- */

void uring_model_barrier(void)
{
	memcpy(m.seen, m.mem, sizeof(m.seen));
	m.barriers++;
}

void uring_model_release(u32 *p, u32 v)
{
	uring_model_barrier();          /* every earlier store, then this one */
	*p = v;
}

void *model_kmalloc(size_t size, unsigned int gfp)
{
	void *p;

	ck_assert_msg(gfp & __GFP_ATOMIC, "kmalloc without GFP_ATOMIC: the caller holds a "
		      "spinlock with interrupts off, and may be an interrupt handler");
	if (m.fail_allocs) {
		m.fail_allocs--;
		return NULL;
	}
	p = malloc(size);
	ck_assert_ptr_nonnull(p);
	m.live++;
	return p;
}

void model_kfree(const void *p)
{
	if (!p)
		return;
	m.live--;
	free((void *)p);
}

struct io_uring_cqe *model_io_cq_slot(struct io_cq *cq, u32 idx)
{
	ck_assert_ptr_eq(cq, &m.cq);
	return &m.mem[idx & (cq->entries - 1)];
}

void model_io_cq_wake(struct io_cq *cq)
{
	ck_assert_ptr_eq(cq, &m.cq);
	if (m.wakes < MAX_WAKES) {
		m.tail_at_wake[m.wakes] = m.tail;
		m.flags_at_wake[m.wakes] = m.sq_flags;
	}
	m.wakes++;
}

static void model_init(u32 entries)
{
	memset(&m, 0, sizeof(m));
	for (int i = 0; i < QMAX; i++) {
		m.mem[i].user_data = STALE_DATA;
		m.mem[i].res = STALE_RES;
	}
	memcpy(m.seen, m.mem, sizeof(m.seen));
	model_io_cq_init(&m.cq, entries, &m.tail, &m.head, &m.sq_flags, &m.overflow);
}

/* --- the process ------------------------------------------------------------------ */

/*
 * The process reads n CQEs (at least n must be below the tail) and
 * checks them against want[]; then moves its head past them.
 */
static void reap(unsigned int n, const struct io_uring_cqe *want, const char *what)
{
	u32 tail = m.tail;

	ck_assert_msg(tail - m.head >= n && tail - m.head <= m.cq.entries,
		      "%s: the tail says %u CQEs are ready, want %u (head %u, tail %u)", what,
		      tail - m.head, n, m.head, tail);
	for (unsigned int i = 0; i < n; i++, m.head++) {
		const struct io_uring_cqe *c = &m.seen[m.head & (m.cq.entries - 1)];

		ck_assert_msg(c->user_data == want[i].user_data && c->res == want[i].res &&
			      c->flags == want[i].flags,
			      "%s: the process read CQE %u (slot %u) as {user_data %#llx, res %d, "
			      "flags %#x}, want {%#llx, %d, %#x}%s", what, m.head,
			      m.head & (m.cq.entries - 1), (unsigned long long)c->user_data, c->res,
			      c->flags, (unsigned long long)want[i].user_data, want[i].res,
			      want[i].flags,
			      c->user_data == m.mem[m.head & (m.cq.entries - 1)].user_data &&
			      c->res == m.mem[m.head & (m.cq.entries - 1)].res ? "" :
			      ": memory holds the right one, but no barrier published it before "
			      "the tail that shows it");
	}
}

static struct io_uring_cqe cqe_of(u64 user_data, s32 res, u32 flags)
{
	return (struct io_uring_cqe){ .user_data = user_data, .res = res, .flags = flags };
}

/* post {k, -k, 0} for k in [first, first + n), each kept */
static void post_range(u64 first, unsigned int n)
{
	for (u64 k = first; k < first + n; k++)
		ck_assert_msg(model_io_cqring_post(&m.cq, k, -(s32)k, 0),
			      "io_cqring_post() said CQE %llu was lost; memory was there",
			      (unsigned long long)k);
}

static void reap_range(u64 first, unsigned int n, const char *what)
{
	struct io_uring_cqe want[QMAX];

	for (unsigned int i = 0; i < n; i++)
		want[i] = cqe_of(first + i, -(s32)(first + i), 0);
	reap(n, want, what);
}

static void assert_no_leak(void)
{
	model_io_cqring_overflow_kill(&m.cq);
	ck_assert_msg(m.live == 0, "%d overflow entries allocated and never freed", m.live);
}

/* --- posting ------------------------------------------------------------------ */

START_TEST(post_writes_the_entry)
{
	const struct io_uring_cqe want[3] = {
		cqe_of(0x8000000000000001ull, 4096, 0),
		cqe_of(7, -5 /* -EIO */, 0),
		cqe_of(0, 0, 2),
	};

	model_init(8);
	for (int i = 0; i < 3; i++)
		ck_assert(model_io_cqring_post(&m.cq, want[i].user_data, want[i].res,
					       want[i].flags));
	ck_assert_uint_eq(m.cq.cached_tail, 3);
	reap(3, want, "3 CQEs into an 8-entry CQ");
	ck_assert_uint_eq(m.overflow, 0);
	ck_assert_uint_eq(m.sq_flags, 0);
}
END_TEST

START_TEST(entry_visible_before_tail)
{
	model_init(4);
	/* 5 passes over 4 slots, one CQE at a time: each must be read whole
	 * the moment its tail is seen, over the previous pass's entry */
	for (u64 k = 0; k < 20; k++) {
		char what[64];

		snprintf(what, sizeof(what), "CQE %llu, read as soon as the tail shows it",
			 (unsigned long long)k);
		post_range(k, 1);
		reap_range(k, 1, what);
	}
	/* and in batches of 3, wrapping */
	for (u64 k = 20; k < 41; k += 3) {
		post_range(k, 3);
		reap_range(k, 3, "batches of 3 through 4 slots");
	}
	ck_assert_uint_eq(m.overflow, 0);
}
END_TEST

/* --- a full CQ ------------------------------------------------------------------ */

START_TEST(full_ring_goes_to_overflow_list)
{
	model_init(4);
	post_range(0, 4);                       /* the CQ is full */
	post_range(4, 3);                       /* these must wait */
	ck_assert_msg(m.tail == 4, "the tail is %u with 4 slots: a CQE was written over one "
		      "the process has not read", m.tail);
	ck_assert_msg(m.sq_flags & IORING_SQ_CQ_OVERFLOW,
		      "IORING_SQ_CQ_OVERFLOW not set with CQEs waiting for room");
	ck_assert_msg(m.overflow == 0, "%u CQEs counted lost: there was memory to keep them",
		      m.overflow);
	reap_range(0, 4, "the 4 CQEs of the full ring, untouched");
	/* the process made room and asked (io_uring_enter GETEVENTS) */
	ck_assert(model_io_cqring_overflow_flush(&m.cq));
	reap_range(4, 3, "the 3 that waited on the overflow list, in order");
	ck_assert_msg(!(m.sq_flags & IORING_SQ_CQ_OVERFLOW),
		      "IORING_SQ_CQ_OVERFLOW still set after the list was flushed");
	assert_no_leak();
}
END_TEST

START_TEST(list_keeps_the_order)
{
	model_init(4);
	post_range(0, 6);                       /* 4 in the ring, 4 and 5 on the list */
	reap_range(0, 2, "the first 2");        /* room for 2 */
	post_range(6, 1);
	ck_assert_msg(m.tail == 4, "CQE 6 went into the ring (tail %u) while 4 and 5 waited on "
		      "the overflow list: the process would read it before them", m.tail);
	ck_assert(!model_io_cqring_overflow_flush(&m.cq));      /* room for 4 and 5 only */
	ck_assert(m.sq_flags & IORING_SQ_CQ_OVERFLOW);
	reap_range(2, 4, "2 and 3, then 4 and 5 from the list");
	ck_assert(model_io_cqring_overflow_flush(&m.cq));
	reap_range(6, 1, "6, last");
	ck_assert(!(m.sq_flags & IORING_SQ_CQ_OVERFLOW));
	/* the list empty again, a CQE goes straight into the ring */
	post_range(7, 1);
	reap_range(7, 1, "7, with the list empty");
	assert_no_leak();
}
END_TEST

START_TEST(other_sq_flags_kept)
{
	model_init(4);
	m.sq_flags = IORING_SQ_NEED_WAKEUP;     /* the SQ thread's, set and cleared apart */
	post_range(0, 5);
	ck_assert_msg(m.sq_flags == (IORING_SQ_NEED_WAKEUP | IORING_SQ_CQ_OVERFLOW),
		      "sq_flags %#x, want %#x: IORING_SQ_NEED_WAKEUP is the SQ thread's",
		      m.sq_flags, IORING_SQ_NEED_WAKEUP | IORING_SQ_CQ_OVERFLOW);
	reap_range(0, 4, "the full ring");
	ck_assert(model_io_cqring_overflow_flush(&m.cq));
	ck_assert_uint_eq(m.sq_flags, IORING_SQ_NEED_WAKEUP);
	assert_no_leak();
}
END_TEST

START_TEST(every_post_wakes)
{
	model_init(4);
	for (unsigned int i = 0; i < 6; i++) {
		post_range(i, 1);
		ck_assert_msg(m.wakes == i + 1, "%u wakeups after %u CQEs posted: a process asleep "
			      "in io_uring_enter would sleep on", m.wakes, i + 1);
		if (i < 4)
			ck_assert_msg(m.tail_at_wake[i] == i + 1,
				      "CQE %u: the waiter was woken with the tail at %u, before "
				      "the tail showed the CQE: it finds nothing and sleeps again",
				      i, m.tail_at_wake[i]);
		else
			ck_assert_msg(m.flags_at_wake[i] & IORING_SQ_CQ_OVERFLOW,
				      "CQE %u went on the overflow list, but the waiter was woken "
				      "before IORING_SQ_CQ_OVERFLOW was set", i);
	}
	assert_no_leak();
}
END_TEST

START_TEST(lost_only_without_memory)
{
	model_init(4);
	post_range(0, 4);
	m.fail_allocs = 1;
	ck_assert_msg(!model_io_cqring_post(&m.cq, 4, -4, 0),
		      "io_cqring_post() said a CQE was kept with no memory to keep it in");
	ck_assert_msg(m.overflow == 1, "the overflow counter is %u after one CQE was lost, "
		      "want 1", m.overflow);
	post_range(5, 1);                       /* memory again: kept */
	ck_assert_uint_eq(m.overflow, 1);
	ck_assert(m.sq_flags & IORING_SQ_CQ_OVERFLOW);
	reap_range(0, 4, "the full ring");
	ck_assert(model_io_cqring_overflow_flush(&m.cq));
	reap_range(5, 1, "the one kept");
	assert_no_leak();
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("io_uring_cq");
	TCase *post = tcase_create("Post");
	TCase *full = tcase_create("FullRing");

	tcase_add_test(post, post_writes_the_entry);
	tcase_add_test(post, entry_visible_before_tail);
	tcase_add_test(post, every_post_wakes);
	suite_add_tcase(s, post);
	tcase_add_test(full, full_ring_goes_to_overflow_list);
	tcase_add_test(full, list_keeps_the_order);
	tcase_add_test(full, other_sq_flags_kept);
	tcase_add_test(full, lost_only_without_memory);
	suite_add_tcase(s, full);
	return s;
}
