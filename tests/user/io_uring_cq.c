// SPDX-License-Identifier: MIT
/*
 * io_uring_cq [FILE] - io_uring's completion side through Debian's
 * liburing: a CQ that fills up loses nothing (docs/aio.md, "The CQ
 * overflow list").  Built with the host's glibc and liburing, as
 * tests/user/io_uring.c, and run on Linux (tests/user/run.sh) as the
 * oracle for what Spindle must answer.
 *
 *   nodrop    setup says IORING_FEAT_NODROP;
 *   overflow  a CQ of 4 entries, 8 NOPs submitted and none reaped: both
 *             submits take all 4 (a full CQ holds nothing back), 4 CQEs
 *             in the ring, IORING_SQ_CQ_OVERFLOW set, the overflow counter
 *             0; read by hand, the 4 are user_data 0..3; the flag stays
 *             until io_uring_enter(GETEVENTS) flushes the list: then
 *             4..7 in the ring, the flag clear;
 *   order     while older CQEs wait on the list, a new one joins the list
 *             even though the ring has room: with 2 read, a NOP's CQE is
 *             not in the ring before the list is flushed, and comes after
 *             the older ones;
 *   wake      a forked child asleep in io_uring_enter(GETEVENTS, 1) is
 *             woken by the CQE of a NOP the parent submits (a CQE posted
 *             without a wakeup leaves it asleep: a hang);
 *   irq       (FILE) 16 O_DIRECT reads of 4 KiB, submitted 4 at a time
 *             into a CQ of 4 without reaping -- most CQEs are posted by
 *             the disk's interrupt into a full ring -- all 16 come, each
 *             once, with res 4096; nothing counted lost;
 *   liburing  io_uring_wait_cqe and io_uring_peek_cqe on an overflowed
 *             ring: liburing sees the flag and enters to flush, and reads
 *             32 NOPs' CQEs in order through a CQ of 4.
 *
 * The ring's overflow counter (cq.koverflow) must stay 0 throughout: it
 * counts only CQEs the kernel could not keep.
 * Prints "TEST io_uring_cq.<case> PASS|FAIL|SKIP" and the closing count.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <liburing.h>
#include "hostile.h"

#define CQ_ENTRIES      4
#define IRQ_READS       16
#define IRQ_BS          4096
#define LIBURING_NOPS   32

static const char *file_name;
static unsigned char buf[IRQ_READS * IRQ_BS] __attribute__((aligned(4096)));

/* a ring of CQ_ENTRIES SQEs and CQ_ENTRIES CQEs (IORING_SETUP_CQSIZE) */
static int small_ring(struct io_uring *ring)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = CQ_ENTRIES;
	return io_uring_queue_init_params(CQ_ENTRIES, ring, &p);
}

static int enter(struct io_uring *ring, unsigned int to_submit, unsigned int min_complete,
		 unsigned int flags)
{
	return (int)syscall(__NR_io_uring_enter, ring->ring_fd, to_submit, min_complete, flags,
			    NULL, 0);
}

static unsigned int sq_flags(struct io_uring *ring)
{
	return __atomic_load_n(ring->sq.kflags, __ATOMIC_ACQUIRE);
}

static unsigned int lost(struct io_uring *ring)
{
	return __atomic_load_n(ring->cq.koverflow, __ATOMIC_RELAXED);
}

/* queue n NOPs, user_data first, first + 1, ... (not submitted) */
static void queue_nops(struct io_uring *ring, int n, unsigned long long first)
{
	for (int i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		io_uring_prep_nop(sqe);
		sqe->user_data = first + i;
	}
}

/*
 * Read the CQEs in the ring by hand -- no system call, as a polling
 * process reads them -- and check that they are user_data want, want + 1,
 * ... with res 0.  How many there were.
 */
static unsigned int read_cqes(struct io_uring *ring, unsigned long long *want)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;

	io_uring_for_each_cqe(ring, head, cqe) {
		CHECK_MSG(cqe->user_data == *want && cqe->res == 0,
			  "CQE %u: user_data %llu res %d, want %llu res 0", n,
			  (unsigned long long)cqe->user_data, cqe->res, *want);
		(*want)++;
		n++;
	}
	io_uring_cq_advance(ring, n);
	return n;
}

static void t_nodrop(void)
{
	struct io_uring ring;
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	CHECK(io_uring_queue_init_params(4, &ring, &p) == 0);
	CHECK(p.features & IORING_FEAT_NODROP);
	io_uring_queue_exit(&ring);
}

static void t_overflow(void)
{
	struct io_uring ring;
	unsigned long long want = 0;

	CHECK(small_ring(&ring) == 0);
	CHECK(*ring.cq.kring_entries == CQ_ENTRIES);
	queue_nops(&ring, 4, 0);
	CHECK(io_uring_submit(&ring) == 4);
	CHECK(!(sq_flags(&ring) & IORING_SQ_CQ_OVERFLOW));
	/* the CQ is full: the next 4 are taken all the same (kernels 5.5 to
	 * 5.11 at least said EBUSY here; 6.1 and the host's take them) */
	queue_nops(&ring, 4, 4);
	CHECK(io_uring_submit(&ring) == 4);
	CHECK(io_uring_cq_ready(&ring) == 4);
	CHECK(sq_flags(&ring) & IORING_SQ_CQ_OVERFLOW);
	CHECK(lost(&ring) == 0);
	CHECK(read_cqes(&ring, &want) == 4);
	/* room now, but nothing moves the list until the process asks */
	CHECK(io_uring_cq_ready(&ring) == 0);
	CHECK(sq_flags(&ring) & IORING_SQ_CQ_OVERFLOW);
	CHECK(enter(&ring, 0, 0, IORING_ENTER_GETEVENTS) == 0);
	CHECK(!(sq_flags(&ring) & IORING_SQ_CQ_OVERFLOW));
	CHECK(read_cqes(&ring, &want) == 4);
	CHECK(want == 8);
	CHECK(lost(&ring) == 0);
	io_uring_queue_exit(&ring);
}

static void t_order(void)
{
	struct io_uring ring;
	unsigned long long want = 0;
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;

	CHECK(small_ring(&ring) == 0);
	queue_nops(&ring, 4, 0);
	CHECK(io_uring_submit(&ring) == 4);
	queue_nops(&ring, 2, 4);
	CHECK(io_uring_submit(&ring) == 2);             /* 4 and 5 on the list */
	/* read 2 (0 and 1): room for 2 */
	io_uring_for_each_cqe(&ring, head, cqe) {
		if (n == 2)
			break;
		CHECK(cqe->user_data == n);
		n++;
	}
	io_uring_cq_advance(&ring, 2);
	want = 2;
	/* a NOP submitted without GETEVENTS: its CQE must not pass 4 and 5 */
	queue_nops(&ring, 1, 6);
	io_uring_smp_store_release(ring.sq.ktail, ring.sq.sqe_tail);
	ring.sq.sqe_head = ring.sq.sqe_tail;
	CHECK(enter(&ring, 1, 0, 0) == 1);
	CHECK_MSG(io_uring_cq_ready(&ring) == 2, "%u CQEs in the ring, want 2 (2 and 3): "
		  "a CQE passed older ones on the overflow list", io_uring_cq_ready(&ring));
	CHECK(read_cqes(&ring, &want) == 2);
	CHECK(enter(&ring, 0, 0, IORING_ENTER_GETEVENTS) == 0);
	CHECK(read_cqes(&ring, &want) == 3);            /* 4, 5, 6 */
	CHECK(want == 7);
	CHECK(!(sq_flags(&ring) & IORING_SQ_CQ_OVERFLOW));
	CHECK(lost(&ring) == 0);
	io_uring_queue_exit(&ring);
}

static void t_wake(void)
{
	struct io_uring ring;
	pid_t pid;
	int status = 0;

	CHECK(small_ring(&ring) == 0);
	pid = fork();
	if (pid == 0) {
		/* the ring's mapping is shared: the child reads the parent's CQE */
		struct io_uring_cqe *cqe;

		if (enter(&ring, 0, 1, IORING_ENTER_GETEVENTS) != 0)
			_exit(2);
		if (io_uring_cq_ready(&ring) != 1)
			_exit(3);
		cqe = &ring.cq.cqes[*ring.cq.khead & *ring.cq.kring_mask];
		_exit(cqe->user_data == 42 && cqe->res == 0 ? 0 : 4);
	}
	CHECK(pid > 0);
	/* wait until it sleeps in io_uring_enter (it does nothing else) */
	while (task_state(pid) != 'S')
		sched_yield();
	queue_nops(&ring, 1, 42);
	CHECK(io_uring_submit(&ring) == 1);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "the waiting child ended with status %#x", status);
	io_uring_queue_exit(&ring);
}

static void t_irq(void)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int fd, seen[IRQ_READS] = { 0 }, got = 0;

	if (!file_name) {
		hostile_skip("no file given");
		return;
	}
	fd = open(file_name, O_RDONLY | O_DIRECT);
	if (fd < 0 && errno == EINVAL)
		fd = open(file_name, O_RDONLY);         /* a file system without O_DIRECT */
	CHECK(fd >= 0);
	CHECK(small_ring(&ring) == 0);
	for (int i = 0; i < IRQ_READS; i += CQ_ENTRIES) {
		for (int j = i; j < i + CQ_ENTRIES; j++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_read(sqe, fd, buf + j * IRQ_BS, IRQ_BS, (off_t)j * IRQ_BS);
			sqe->user_data = (unsigned long long)j;
		}
		/* plain submits, no GETEVENTS: nothing is reaped or flushed */
		io_uring_smp_store_release(ring.sq.ktail, ring.sq.sqe_tail);
		ring.sq.sqe_head = ring.sq.sqe_tail;
		CHECK(enter(&ring, CQ_ENTRIES, 0, 0) == CQ_ENTRIES);
	}
	/* liburing's wait flushes the list whenever the flag says so */
	while (got < IRQ_READS && io_uring_wait_cqe(&ring, &cqe) == 0) {
		unsigned long long ud = cqe->user_data;

		CHECK_MSG(ud < IRQ_READS && !seen[ud] && cqe->res == IRQ_BS,
			  "CQE user_data %llu res %d", ud, cqe->res);
		if (ud < IRQ_READS)
			seen[ud] = 1;
		io_uring_cqe_seen(&ring, cqe);
		got++;
	}
	CHECK_MSG(got == IRQ_READS, "%d CQEs of %d", got, IRQ_READS);
	CHECK(lost(&ring) == 0);
	CHECK(!(sq_flags(&ring) & IORING_SQ_CQ_OVERFLOW));
	io_uring_queue_exit(&ring);
	close(fd);
}

static void t_liburing(void)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	unsigned long long want = 0;

	CHECK(small_ring(&ring) == 0);
	for (int i = 0; i < LIBURING_NOPS; i += CQ_ENTRIES) {
		queue_nops(&ring, CQ_ENTRIES, (unsigned long long)i);
		CHECK(io_uring_submit(&ring) == CQ_ENTRIES);
	}
	CHECK(sq_flags(&ring) & IORING_SQ_CQ_OVERFLOW);
	while (want < LIBURING_NOPS) {
		int r = (want & 1) ? io_uring_peek_cqe(&ring, &cqe) : io_uring_wait_cqe(&ring, &cqe);

		CHECK_MSG(r == 0, "%s: %d at CQE %llu", (want & 1) ? "peek" : "wait", r, want);
		if (r)
			break;
		CHECK_MSG(cqe->user_data == want, "CQE %llu has user_data %llu", want,
			  (unsigned long long)cqe->user_data);
		io_uring_cqe_seen(&ring, cqe);
		want++;
	}
	CHECK(io_uring_peek_cqe(&ring, &cqe) == -EAGAIN);
	CHECK(!(sq_flags(&ring) & IORING_SQ_CQ_OVERFLOW));
	CHECK(lost(&ring) == 0);
	io_uring_queue_exit(&ring);
}

static const struct hostile_case cases[] = {
	{ "nodrop", t_nodrop },
	{ "overflow", t_overflow },
	{ "order", t_order },
	{ "wake", t_wake },
	{ "irq", t_irq },
	{ "liburing", t_liburing },
};

int main(int argc, char **argv)
{
	if (argc > 1)
		file_name = argv[1];
	setvbuf(stdout, NULL, _IONBF, 0);
	return hostile_run("io_uring_cq", cases, (int)(sizeof(cases) / sizeof(cases[0])), NULL);
}
