// SPDX-License-Identifier: MIT
/*
 * check_nvme_ring - an NVMe queue pair's two rings (drivers/nvme/host/
 * ring.c: nvme_sq_copy_cmd, nvme_write_sq_db, nvme_process_cq) against a
 * model controller.
 *
 * ring.c is compiled here with tests/unit/nvme/asm/io.h in place of the
 * kernel's: its writel() is a store to the model's BAR 0, and its
 * barriers are the model's.  The model behaves as the NVMe 1.4 spec lets
 * a controller behave, which QEMU (under TCG, on x86) never shows:
 *
 *   - at an SQ Tail Doorbell write it fetches the entries from its head
 *     up to the new tail at once (§4.1, "Submission Queue Tail
 *     Doorbell");  with `weak` set, it sees the SQ memory only as it was
 *     at the last wmb(): a store not ordered before the doorbell by a
 *     barrier may not have reached it;
 *   - it posts a completion whenever the CQ has room (one slot always
 *     empty: full when tail + 1 == head), writing the Phase Tag inverted
 *     on each pass (§4.6, "Completion Queue Entry"); a CQ Head Doorbell
 *     write frees slots, which it fills at once with what it has waiting;
 *   - with `lazy` set, a new entry's Phase Tag is visible at once but its
 *     other fields only after the host's next rmb()/dma_rmb(): loads the
 *     CPU made before the tag's may see the entry the slot held before;
 *   - a doorbell write elsewhere than queue qid's two doorbells (BAR0 +
 *     0x1000 + (2 qid [+ 1]) * (4 << CAP.DSTRD)), or with a value past
 *     the queue's end, is a protocol error.
 *
 * The model records every doorbell write; nvme_handle_cqe() (pci.c's in
 * the kernel) is the test's and records each completion it is given.
 */
#include <check.h>
#include <spindle/string.h>
#include <spindle/spinlock.h>
#include "nvme/asm/io.h"
#include "../../drivers/nvme/host/nvme.h"

#define QMAX            16              /* ring entries at most, here */
#define DB_BASE         0x1000          /* NVME_REG_DBS */
#define BAR_BYTES       0x2000
#define STALE_CID       0xdead          /* what a slot holds before any pass */
#define MAX_EVENTS      512

struct doorbell_write {
	unsigned int offset;            /* from BAR 0 */
	u32 value;
};

static struct model {
	u32 bar[BAR_BYTES / 4];
	struct nvme_dev dev;
	struct nvme_queue q;
	struct nvme_command sq[QMAX];           /* the ring, in "host memory" */
	struct nvme_command published[QMAX];    /* the SQ as of the last wmb() */
	volatile struct nvme_completion cq[QMAX];       /* the ring the host reads */
	struct nvme_completion cq_written[QMAX];        /* whole entries, as posted */
	bool weak, lazy;
	/* the controller's side */
	unsigned int sq_head;
	unsigned int cq_tail, cq_head;          /* cq_head: the last head doorbell */
	u16 phase;                              /* the tag this pass writes */
	struct nvme_command fetched[MAX_EVENTS];
	unsigned int nr_fetched;
	u16 waiting[MAX_EVENTS];                /* completions not yet posted */
	unsigned int nr_waiting, next_waiting;
	/* what the host did */
	struct doorbell_write db[MAX_EVENTS];
	unsigned int nr_db, sq_db_writes, cq_db_writes, wmbs;
	struct nvme_completion handled[MAX_EVENTS];
	unsigned int nr_handled;
	char error[200];                        /* the first protocol error */
} m;

static unsigned int stride_bytes(void)
{
	return 4 * m.dev.db_stride;
}

static unsigned int sq_db_offset(void)
{
	return DB_BASE + 2 * m.q.qid * stride_bytes();
}

static unsigned int cq_db_offset(void)
{
	return sq_db_offset() + stride_bytes();
}

static void protocol_error(const char *fmt, unsigned int a, unsigned int b, unsigned int c)
{
	if (!m.error[0])
		snprintf(m.error, sizeof(m.error), fmt, a, b, c);
}

/* Post what waits while the CQ has room (one slot stays empty, §4.1.2). */
static void model_post(void)
{
	while (m.next_waiting < m.nr_waiting && (m.cq_tail + 1) % m.q.q_depth != m.cq_head) {
		struct nvme_completion e = { 0 };
		volatile struct nvme_completion *slot = &m.cq[m.cq_tail];

		e.command_id = m.waiting[m.next_waiting++];
		e.result = 0x1000u + e.command_id;
		e.sq_id = m.q.qid;
		e.sq_head = (u16)m.sq_head;
		e.status = m.phase;             /* success, and the Phase Tag */
		m.cq_written[m.cq_tail] = e;
		if (m.lazy) {
			slot->status = e.status;        /* the tag now, the rest at rmb() */
		} else {
			slot->result = e.result;
			slot->sq_head = e.sq_head;
			slot->sq_id = e.sq_id;
			slot->command_id = e.command_id;
			slot->status = e.status;
		}
		if (++m.cq_tail == m.q.q_depth) {
			m.cq_tail = 0;
			m.phase ^= 1;
		}
	}
}

/* The controller ran commands: their completions, in this order. */
static void model_complete(const u16 *cids, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		m.waiting[m.nr_waiting++] = cids[i];
	model_post();
}

void writel(u32 v, volatile void *addr)
{
	unsigned int off = (unsigned int)((const volatile u8 *)addr - (const u8 *)m.bar);

	if (m.nr_db < MAX_EVENTS)
		m.db[m.nr_db++] = (struct doorbell_write){ off, v };
	if (off == sq_db_offset()) {
		m.sq_db_writes++;
		if (v >= m.q.q_depth) {
			protocol_error("SQ tail doorbell written with %u: the queue has %u entries "
				       "(0 to %u)", v, m.q.q_depth, m.q.q_depth - 1u);
			return;
		}
		/* fetch sq_head .. v - 1, as the controller may, at once */
		while (m.sq_head != v && m.nr_fetched < MAX_EVENTS) {
			m.fetched[m.nr_fetched++] = m.weak ? m.published[m.sq_head] : m.sq[m.sq_head];
			m.sq_head = (m.sq_head + 1) % m.q.q_depth;
		}
	} else if (off == cq_db_offset()) {
		m.cq_db_writes++;
		if (v >= m.q.q_depth) {
			protocol_error("CQ head doorbell written with %u: the queue has %u entries "
				       "(0 to %u)", v, m.q.q_depth, m.q.q_depth - 1u);
			return;
		}
		m.cq_head = v;
		model_post();                   /* freed slots are reused at once */
	} else {
		protocol_error("a write to BAR0 + 0x%x, no doorbell of this queue (SQ tail at "
			       "0x%x, CQ head at 0x%x)", off, sq_db_offset(), cq_db_offset());
	}
}

u32 readl(const volatile void *addr)
{
	(void)addr;
	return 0;
}

void nvme_model_wmb(void)
{
	m.wmbs++;
	memcpy(m.published, m.sq, sizeof(m.sq));
}

void nvme_model_rmb(void)
{
	for (unsigned int i = 0; i < QMAX; i++) {
		m.cq[i].result = m.cq_written[i].result;
		m.cq[i].sq_head = m.cq_written[i].sq_head;
		m.cq[i].sq_id = m.cq_written[i].sq_id;
		m.cq[i].command_id = m.cq_written[i].command_id;
	}
}

/* pci.c's, in the kernel: here the record of what ring.c handed on. */
void nvme_handle_cqe(struct nvme_queue *nvmeq, const struct nvme_completion *cqe)
{
	ck_assert_ptr_eq(nvmeq, &m.q);
	if (m.nr_handled < MAX_EVENTS)
		m.handled[m.nr_handled++] = *cqe;
}

/* A queue pair qid of @depth entries, doorbell stride 4 << dstrd bytes. */
static void model_init(unsigned int qid, unsigned int depth, unsigned int dstrd)
{
	memset(&m, 0, sizeof(m));
	m.dev.mmio = m.bar;
	m.dev.db_stride = 1u << dstrd;
	m.q.dev = &m.dev;
	m.q.qid = (u16)qid;
	m.q.q_depth = (u16)depth;
	spin_lock_init(&m.q.sq_lock);
	spin_lock_init(&m.q.cq_lock);
	m.q.sq_cmds = m.sq;
	m.q.cqes = m.cq;
	/* as pci.c's nvme_alloc_queue: queue qid's SQ tail doorbell */
	m.q.q_db = m.bar + (DB_BASE + 2 * qid * 4 * m.dev.db_stride) / 4;
	m.q.cq_phase = 1;
	m.phase = 1;
	memset(m.sq, 0xa5, sizeof(m.sq));       /* no command: garbage */
	memcpy(m.published, m.sq, sizeof(m.sq));
	for (unsigned int i = 0; i < QMAX; i++) {
		m.cq[i].command_id = STALE_CID;         /* phase 0: not new */
		m.cq_written[i].command_id = STALE_CID;
	}
}

/* Command number i: every field says i, so a wrong one shows. */
static struct nvme_command command(unsigned int i)
{
	struct nvme_command c;

	memset(&c, 0, sizeof(c));
	c.opcode = i % 2 ? nvme_cmd_write : nvme_cmd_read;
	c.command_id = (u16)i;
	c.nsid = 1;
	c.prp1 = 0x100000ull + i * 0x1000ull;
	c.cdw10 = 3 * i;
	c.cdw12 = 7;
	return c;
}

static void submit(unsigned int i)
{
	struct nvme_command c = command(i);
	unsigned long flags;

	spin_lock_irqsave(&m.q.sq_lock, flags);
	__nvme_submit_cmd(&m.q, &c);
	spin_unlock_irqrestore(&m.q.sq_lock, flags);
}

static void assert_no_protocol_error(void)
{
	ck_assert_msg(!m.error[0], "%s", m.error);
}

/* The controller fetched commands first .. first + n - 1, whole. */
static void assert_fetched(unsigned int first, unsigned int n)
{
	assert_no_protocol_error();
	ck_assert_msg(m.nr_fetched == n, "the controller fetched %u commands at the doorbell "
		      "writes; want %u", m.nr_fetched, n);
	for (unsigned int i = 0; i < n; i++) {
		struct nvme_command want = command(first + i);
		const struct nvme_command *got = &m.fetched[i];

		ck_assert_msg(!memcmp(got, &want, sizeof(want)),
			      "fetch %u (slot %u): got command id 0x%x opcode 0x%x cdw10 %u; want "
			      "id 0x%x opcode 0x%x cdw10 %u", i, (first + i) % m.q.q_depth,
			      got->command_id, got->opcode, got->cdw10, want.command_id, want.opcode,
			      want.cdw10);
	}
}

/* ---- the submission queue ------------------------------------------------- */

START_TEST(sq_entry_at_tail)
{
	model_init(1, 8, 0);
	submit(0);
	assert_fetched(0, 1);
	ck_assert_msg(m.sq_db_writes == 1 && m.db[0].value == 1,
		      "after one command: %u SQ doorbell writes, the first with %u; want one, 1",
		      m.sq_db_writes, m.nr_db ? m.db[0].value : 0);
	submit(1);
	submit(2);
	assert_fetched(0, 3);
	ck_assert_msg(m.q.sq_tail == 3, "sq_tail %u after 3 commands", m.q.sq_tail);
	ck_assert_msg(m.db[m.nr_db - 1].value == 3, "the last SQ tail doorbell says %u; want 3",
		      m.db[m.nr_db - 1].value);
}
END_TEST

START_TEST(sq_tail_wraps)
{
	const unsigned int depth = 4, n = 4 * depth + 1;

	model_init(1, depth, 0);
	for (unsigned int i = 0; i < n; i++) {
		submit(i);
		assert_no_protocol_error();
		ck_assert_msg(m.db[m.nr_db - 1].value == (i + 1) % depth,
			      "command %u: SQ tail doorbell %u; want %u (the tail wraps to 0 after "
			      "slot %u)", i, m.db[m.nr_db - 1].value, (i + 1) % depth, depth - 1);
	}
	assert_fetched(0, n);
}
END_TEST

START_TEST(sq_entry_visible_before_doorbell)
{
	model_init(1, 4, 0);
	m.weak = true;
	for (unsigned int i = 0; i < 6; i++) {
		unsigned int wmbs = m.wmbs;

		submit(i);
		ck_assert_msg(m.wmbs > wmbs, "command %u: no wmb() between the entry and the "
			      "SQ tail doorbell", i);
		assert_no_protocol_error();
		ck_assert_msg(m.nr_fetched == i + 1, "command %u: the controller fetched %u "
			      "commands in all at the doorbells; want %u", i, m.nr_fetched, i + 1);
		ck_assert_msg(!memcmp(&m.fetched[i], &m.sq[i % 4], sizeof(m.sq[0])),
			      "command %u: at the doorbell the controller read slot %u and found "
			      "id 0x%x, not the command written there (id 0x%x): the entry was "
			      "not ordered before the doorbell (wmb() after the copy, before writel)",
			      i, i % 4, m.fetched[i].command_id, m.sq[i % 4].command_id);
	}
	assert_fetched(0, 6);
}
END_TEST

/*
 * A batch (the block layer's bd->last): commands copied in with
 * nvme_sq_copy_cmd() are not announced -- no doorbell write -- until
 * nvme_write_sq_db(), whose one write covers them all, each whole (the
 * model's weak memory: a wmb() before the doorbell).  The second batch
 * wraps the 4-entry ring.
 */
START_TEST(sq_batch_one_doorbell)
{
	unsigned long flags;

	model_init(1, 4, 0);
	m.weak = true;
	for (unsigned int batch = 0; batch < 2; batch++) {
		unsigned int before = m.sq_db_writes;

		spin_lock_irqsave(&m.q.sq_lock, flags);
		for (unsigned int i = 3 * batch; i < 3 * batch + 3; i++) {
			struct nvme_command c = command(i);

			nvme_sq_copy_cmd(&m.q, &c);
			ck_assert_msg(m.sq_db_writes == before, "batch %u: command %u copied in, "
				      "and %u SQ doorbell writes already: a batch is rung for once, "
				      "by nvme_write_sq_db()", batch, i, m.sq_db_writes - before);
		}
		nvme_write_sq_db(&m.q);
		spin_unlock_irqrestore(&m.q.sq_lock, flags);
		assert_no_protocol_error();
		ck_assert_msg(m.sq_db_writes == before + 1 &&
			      m.db[m.nr_db - 1].value == (3 * batch + 3) % 4,
			      "batch %u: %u SQ doorbell writes, the last with %u; want one, with %u",
			      batch, m.sq_db_writes - before, m.db[m.nr_db - 1].value,
			      (3 * batch + 3) % 4);
		assert_fetched(0, 3 * batch + 3);
	}
}
END_TEST

/* ---- doorbell placement ----------------------------------------------------- */

static const struct { unsigned int qid, dstrd; } strides[] = {
	{ 1, 0 }, { 2, 0 }, { 1, 1 }, { 3, 2 }, { 0, 3 },
};

START_TEST(doorbells_at_stride)
{
	unsigned int qid = strides[_i].qid, dstrd = strides[_i].dstrd;
	const u16 cid = 0;

	model_init(qid, 8, dstrd);
	submit(0);
	assert_no_protocol_error();
	ck_assert_msg(m.nr_db == 1 && m.db[0].offset == sq_db_offset(),
		      "queue %u, CAP.DSTRD %u: SQ tail written at BAR0 + 0x%x; want 0x%x",
		      qid, dstrd, m.nr_db ? m.db[0].offset : 0, sq_db_offset());
	model_complete(&cid, 1);
	ck_assert_uint_eq(nvme_process_cq(&m.q), 1);
	assert_no_protocol_error();
	ck_assert_msg(m.nr_db == 2 && m.db[1].offset == cq_db_offset() && m.db[1].value == 1,
		      "queue %u, CAP.DSTRD %u: CQ head written at BAR0 + 0x%x with %u; want 0x%x "
		      "with 1", qid, dstrd, m.nr_db > 1 ? m.db[1].offset : 0,
		      m.nr_db > 1 ? m.db[1].value : 0, cq_db_offset());
}
END_TEST

/* ---- the completion queue --------------------------------------------------- */

/* nvme_process_cq() consumed completions first .. first + n - 1, in order. */
static void assert_handled(unsigned int first, unsigned int n, const char *when)
{
	assert_no_protocol_error();
	ck_assert_msg(m.nr_handled == n, "%s: %u completions handled; want %u", when,
		      m.nr_handled, n);
	for (unsigned int i = 0; i < n; i++)
		ck_assert_msg(m.handled[i].command_id == first + i &&
			      m.handled[i].result == 0x1000u + first + i,
			      "%s: completion %u has command id 0x%x (result 0x%x); want 0x%x "
			      "(0x%x)", when, i, m.handled[i].command_id, m.handled[i].result,
			      first + i, 0x1000u + first + i);
}

START_TEST(cq_phase_flips_at_wrap)
{
	const unsigned int depth = 4, rounds = 8;
	unsigned int next = 0;
	char when[64];

	model_init(1, depth, 0);
	ck_assert_msg(nvme_process_cq(&m.q) == 0 && m.nr_handled == 0,
		      "an empty CQ (phase 0 everywhere): %u entries consumed", m.nr_handled);
	for (unsigned int r = 0; r < rounds; r++) {
		u16 cids[QMAX];
		unsigned int n = r % 2 ? depth - 1 : 2, found;    /* 2 or a full CQ */

		for (unsigned int i = 0; i < n; i++)
			cids[i] = (u16)(next + i);
		model_complete(cids, n);
		m.nr_handled = 0;
		found = nvme_process_cq(&m.q);
		snprintf(when, sizeof(when), "round %u (CQ slots from %u, pass %u)", r,
			 next % depth, next / depth + 1);
		assert_handled(next, n, when);
		ck_assert_msg(found == n, "%s: nvme_process_cq() returned %u; want %u", when,
			      found, n);
		ck_assert_msg(m.q.cq_phase == m.phase, "%s: expected phase %u after the batch, "
			      "the controller writes %u now", when, m.q.cq_phase, m.phase);
		next += n;
		m.nr_handled = 0;
		ck_assert_msg(nvme_process_cq(&m.q) == 0 && m.nr_handled == 0, "%s: called again "
			      "with nothing new, %u old entries consumed as new", when, m.nr_handled);
	}
}
END_TEST

START_TEST(cq_head_once_per_batch)
{
	const u16 cids[] = { 0, 1, 2, 3, 4 };
	unsigned int before;

	model_init(1, 8, 0);
	ck_assert_uint_eq(nvme_process_cq(&m.q), 0);
	ck_assert_msg(m.cq_db_writes == 0, "nothing consumed, yet %u CQ head doorbell writes",
		      m.cq_db_writes);
	model_complete(cids, 5);
	ck_assert_uint_eq(nvme_process_cq(&m.q), 5);
	assert_handled(0, 5, "a batch of 5");
	ck_assert_msg(m.cq_db_writes == 1, "a batch of 5: %u CQ head doorbell writes; want 1, "
		      "after the batch", m.cq_db_writes);
	ck_assert_msg(m.db[m.nr_db - 1].value == 5, "a batch of 5: CQ head doorbell %u; want 5",
		      m.db[m.nr_db - 1].value);
	before = m.cq_db_writes;
	ck_assert_uint_eq(nvme_process_cq(&m.q), 0);
	ck_assert_msg(m.cq_db_writes == before, "nothing new, yet a CQ head doorbell write");
}
END_TEST

START_TEST(cq_head_after_consuming)
{
	/* more completions than the CQ holds: each head doorbell frees
	 * slots that the controller fills again at once */
	const unsigned int depth = 4, n = 11;
	u16 cids[16];
	unsigned int calls = 0, total = 0;

	model_init(1, depth, 0);
	for (unsigned int i = 0; i < n; i++)
		cids[i] = (u16)i;
	model_complete(cids, n);
	while (total < n && calls++ < 2 * n) {
		unsigned int found = nvme_process_cq(&m.q);

		assert_no_protocol_error();
		if (!found)
			break;
		total += found;
	}
	ck_assert_msg(total == n, "%u of %u completions consumed before nvme_process_cq() found "
		      "nothing new: the controller, short of CQ slots, waits for the head doorbell",
		      total, n);
	assert_handled(0, n, "11 completions through a 4-entry CQ");
}
END_TEST

START_TEST(cqe_fields_after_phase)
{
	const u16 cids[] = { 0, 1, 2, 3, 4, 5 };

	model_init(1, 4, 0);
	m.lazy = true;
	model_complete(cids, 3);
	ck_assert_uint_eq(nvme_process_cq(&m.q), 3);
	assert_handled(0, 3, "entries whose fields follow the Phase Tag");
	model_complete(cids + 3, 3);
	m.nr_handled = 0;
	ck_assert_uint_eq(nvme_process_cq(&m.q), 3);
	assert_handled(3, 3, "the second pass, over the first pass's entries");
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("nvme_ring");
	TCase *sq = tcase_create("SubmissionQueue");
	TCase *db = tcase_create("Doorbells");
	TCase *cq = tcase_create("CompletionQueue");

	tcase_add_test(sq, sq_entry_at_tail);
	tcase_add_test(sq, sq_tail_wraps);
	tcase_add_test(sq, sq_entry_visible_before_doorbell);
	tcase_add_test(sq, sq_batch_one_doorbell);
	suite_add_tcase(s, sq);
	tcase_add_loop_test(db, doorbells_at_stride, 0, sizeof(strides) / sizeof(strides[0]));
	suite_add_tcase(s, db);
	tcase_add_test(cq, cq_phase_flips_at_wrap);
	tcase_add_test(cq, cq_head_once_per_batch);
	tcase_add_test(cq, cq_head_after_consuming);
	tcase_add_test(cq, cqe_fields_after_phase);
	suite_add_tcase(s, cq);
	return s;
}
