// SPDX-License-Identifier: MIT
/*
 * io_uring_ops [-D] [-c CASE] [DEV [DMADEV]] - io_uring's TIMEOUT, TIMEOUT_REMOVE and
 * ASYNC_CANCEL, and EBADR after a lost CQE, through Debian's liburing
 * (docs/aio.md, "Timeouts and cancellation").  Built with the host's
 * glibc and liburing, as tests/user/io_uring.c, and run on Linux
 * (tests/user/run.sh) as the oracle for what Spindle must answer.
 *
 *   probe     the probe says TIMEOUT, TIMEOUT_REMOVE, ASYNC_CANCEL;
 *   timeout   a relative TIMEOUT of 20 ms, off 0: its CQE is -ETIME, and
 *             not before 20 ms have passed;
 *   abs       IORING_TIMEOUT_ABS on CLOCK_MONOTONIC and on
 *             CLOCK_REALTIME (IORING_TIMEOUT_REALTIME), 20 ms ahead:
 *             -ETIME, not early; a time in the past: -ETIME at once;
 *   count     a TIMEOUT of 10 s with off 2: one NOP later nothing, two
 *             NOPs later its CQE, res 0, after the NOPs';
 *   remove    TIMEOUT_REMOVE of an armed TIMEOUT: the remove's CQE 0, the
 *             timeout's -ECANCELED; of none: -ENOENT;
 *   update    IORING_TIMEOUT_UPDATE turns a 10 s TIMEOUT with off 1 into
 *             one of 20 ms that counts nothing: -ETIME;
 *   cancel    ASYNC_CANCEL of an armed TIMEOUT by user_data: 0 and
 *             -ECANCELED; of none: -ENOENT; IORING_ASYNC_CANCEL_ALL of
 *             three with one user_data: 3; _ANY: every one, its count
 *             (0 when none); _FD on a file with nothing in flight: -ENOENT;
 *   link      a TIMEOUT linked to a NOP: -ETIME cancels the NOP
 *             (-ECANCELED); with IORING_TIMEOUT_ETIME_SUCCESS the NOP runs;
 *   waittime  io_uring_wait_cqe_timeout() with nothing to come: -ETIME
 *             (io_uring_enter's IORING_ENTER_EXT_ARG timeout), not early,
 *             nothing left in the CQ; with a NOP's CQE there: that CQE;
 *             a struct io_uring_getevents_arg of the wrong size or with
 *             pad set: EINVAL;
 *   errors    Linux's answers in the CQE: len not 1, a negative tv_nsec,
 *             unknown flags, two clocks (-EINVAL), the time at an
 *             unmapped address (-EFAULT); TIMEOUT_REMOVE with len or with
 *             flags but no UPDATE (-EINVAL); ASYNC_CANCEL with off, unknown
 *             flags, FD with ANY (-EINVAL), FD of a closed descriptor
 *             (-EBADF);
 *   release   rings closed, and children exiting, with TIMEOUTs armed --
 *             some of 1 ms firing meanwhile: nothing hangs;
 *   inflight  (DEV, slow: null_blk's completion_nsec) an O_DIRECT read at
 *             the device is not found by ASYNC_CANCEL: -ENOENT, as Linux
 *             answers for a request no worker runs; the read completes;
 *   unmapped  (DEV) a registered buffer stays pinned after munmap(), as
 *             Linux holds its pages: an O_DIRECT READ_FIXED into it and a
 *             WRITE_FIXED from it both move their 4096 bytes;
 *   unregistered  (DMADEV: a disk of zeros whose device writes a read's
 *             data late -- on Spindle an NVMe disk whose first completion
 *             the driver drops, so that the read is sent again after a
 *             controller reset) a READ_FIXED still in flight when its
 *             buffer is unregistered and unmapped: unregistering says 0,
 *             the read's CQE 4096, and the pages the process maps next --
 *             which would be the ones just unmapped, were they free (same
 *             CPU, the free list's first) -- keep what it wrote there: the
 *             read's pages stay the ring's until the read is done (on
 *             Linux 6.1 the unregistration waits for it); and the same
 *             with IOSQE_ASYNC, a worker issuing the read maybe after the
 *             unregistration: 4096 (Spindle: the request holds the
 *             buffers it was submitted with) or -EFAULT (Linux, when its
 *             worker came after), never a crash;
 *   dropped   (-D: the kernel was booted with fail_io_uring_cqe= armed
 *             once) a CQ of 4, 5 NOPs: the fifth finds the CQ full and
 *             its overflow entry fails: lost, counted in the overflow
 *             field; once the 4 are read, io_uring_enter(GETEVENTS, 1)
 *             says EBADR, and says it again (Linux never clears it); with
 *             a CQE to read it says 0.
 *
 * Prints "TEST io_uring_ops.<case> PASS|FAIL|SKIP" and the closing count.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <liburing.h>
#include "hostile.h"

#define SHORT_NS        (20 * 1000 * 1000ll)    /* 20 ms */
#define LONG_S          10                      /* never reached in a test */
#define RD_BS           4096

static const char *dev_name, *dma_dev_name;
static int dropped_armed;
static unsigned char rbuf[RD_BS] __attribute__((aligned(4096)));

/* Is the running kernel release at least major.minor? */
static int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 0;
	return ma > major || (ma == major && mi >= minor);
}

static long long now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static struct __kernel_timespec ns_ts(long long ns)
{
	return (struct __kernel_timespec){ .tv_sec = ns / 1000000000ll,
					   .tv_nsec = ns % 1000000000ll };
}

/* Wait for n CQEs; store res by user_data index (user_data < 64) and the
 * order they came in.  0, or -1 if one was out of range or a wait failed. */
static int reap(struct io_uring *ring, int n, int res[64], unsigned long long order[])
{
	for (int i = 0; i < n; i++) {
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe(ring, &cqe))
			return -1;
		if (cqe->user_data >= 64) {
			io_uring_cqe_seen(ring, cqe);
			return -1;
		}
		res[cqe->user_data] = cqe->res;
		if (order)
			order[i] = cqe->user_data;
		io_uring_cqe_seen(ring, cqe);
	}
	return 0;
}

/* The result of one SQE submitted alone (its CQE's res). */
static int one(struct io_uring *ring, struct io_uring_sqe *sqe)
{
	int res[64];

	sqe->user_data = 1;
	res[1] = 12345;
	if (io_uring_submit(ring) != 1 || reap(ring, 1, res, NULL))
		return 12345;
	return res[1];
}

static struct io_uring_sqe *prep_timeout(struct io_uring *ring, struct __kernel_timespec *ts,
					 unsigned int off, unsigned int flags,
					 unsigned long long ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_timeout(sqe, ts, off, flags);
	sqe->user_data = ud;
	return sqe;
}

static void prep_nop(struct io_uring *ring, unsigned long long ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_nop(sqe);
	sqe->user_data = ud;
}

static void prep_cancel(struct io_uring *ring, unsigned long long target, int flags,
			unsigned long long ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_cancel64(sqe, target, flags);
	sqe->user_data = ud;
}

static void t_probe(void)
{
	struct io_uring_probe *p = io_uring_get_probe();

	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(io_uring_opcode_supported(p, IORING_OP_TIMEOUT));
	CHECK(io_uring_opcode_supported(p, IORING_OP_TIMEOUT_REMOVE));
	CHECK(io_uring_opcode_supported(p, IORING_OP_ASYNC_CANCEL));
	io_uring_free_probe(p);
}

static void t_timeout(void)
{
	struct io_uring ring;
	struct __kernel_timespec ts = ns_ts(SHORT_NS);
	int res[64] = { 0 };
	long long t0;

	CHECK(io_uring_queue_init(8, &ring, 0) == 0);
	t0 = now_ns(CLOCK_MONOTONIC);
	prep_timeout(&ring, &ts, 0, 0, 3);
	CHECK(io_uring_submit(&ring) == 1);
	CHECK(reap(&ring, 1, res, NULL) == 0);
	CHECK_MSG(res[3] == -ETIME, "res %d", res[3]);
	CHECK_MSG(now_ns(CLOCK_MONOTONIC) - t0 >= SHORT_NS, "fired after %lld ns",
		  now_ns(CLOCK_MONOTONIC) - t0);
	io_uring_queue_exit(&ring);
}

static void t_abs(void)
{
	static const struct {
		clockid_t clk;
		unsigned int flag;
	} clocks[] = { { CLOCK_MONOTONIC, 0 }, { CLOCK_REALTIME, IORING_TIMEOUT_REALTIME } };
	struct io_uring ring;
	int res[64];

	CHECK(io_uring_queue_init(8, &ring, 0) == 0);
	for (unsigned int i = 0; i < 2; i++) {
		long long t0 = now_ns(clocks[i].clk);
		struct __kernel_timespec ts = ns_ts(t0 + SHORT_NS);

		res[4] = 0;
		prep_timeout(&ring, &ts, 0, IORING_TIMEOUT_ABS | clocks[i].flag, 4);
		CHECK(io_uring_submit(&ring) == 1);
		CHECK(reap(&ring, 1, res, NULL) == 0);
		CHECK_MSG(res[4] == -ETIME, "clock %d: res %d", clocks[i].clk, res[4]);
		CHECK_MSG(now_ns(clocks[i].clk) >= t0 + SHORT_NS, "clock %d: early",
			  clocks[i].clk);
	}
	/* a time already past: at once (the test would hang otherwise) */
	{
		struct __kernel_timespec past = ns_ts(now_ns(CLOCK_MONOTONIC) - SHORT_NS);

		res[5] = 0;
		prep_timeout(&ring, &past, 0, IORING_TIMEOUT_ABS, 5);
		CHECK(io_uring_submit(&ring) == 1);
		CHECK(reap(&ring, 1, res, NULL) == 0);
		CHECK_MSG(res[5] == -ETIME, "past: res %d", res[5]);
	}
	io_uring_queue_exit(&ring);
}

static void t_count(void)
{
	struct io_uring ring;
	struct __kernel_timespec ts = { .tv_sec = LONG_S };
	struct io_uring_cqe *cqe;
	unsigned long long order[3];
	int res[64] = { 0 };

	CHECK(io_uring_queue_init(8, &ring, 0) == 0);
	prep_timeout(&ring, &ts, 2, 0, 6);
	CHECK(io_uring_submit(&ring) == 1);
	prep_nop(&ring, 7);
	CHECK(io_uring_submit_and_wait(&ring, 1) == 1);
	CHECK(reap(&ring, 1, res, order) == 0 && order[0] == 7);
	/* one CQE since: the timeout waits on */
	CHECK(io_uring_peek_cqe(&ring, &cqe) == -EAGAIN);
	prep_nop(&ring, 8);
	CHECK(io_uring_submit(&ring) == 1);
	CHECK(reap(&ring, 2, res, order) == 0);
	CHECK_MSG(order[0] == 8 && order[1] == 6, "order %llu %llu", order[0], order[1]);
	CHECK_MSG(res[6] == 0, "timeout res %d", res[6]);
	io_uring_queue_exit(&ring);
}

static void t_remove(void)
{
	struct io_uring ring;
	struct __kernel_timespec ts = { .tv_sec = LONG_S };
	struct io_uring_sqe *sqe;
	int res[64] = { 0 };

	CHECK(io_uring_queue_init(8, &ring, 0) == 0);
	prep_timeout(&ring, &ts, 0, 0, 9);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_timeout_remove(sqe, 9, 0);
	sqe->user_data = 10;
	CHECK(io_uring_submit(&ring) == 2);
	CHECK(reap(&ring, 2, res, NULL) == 0);
	CHECK_MSG(res[10] == 0 && res[9] == -ECANCELED, "remove %d timeout %d", res[10], res[9]);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_timeout_remove(sqe, 9, 0);
	CHECK_MSG((res[1] = one(&ring, sqe)) == -ENOENT, "remove of none: %d", res[1]);
	io_uring_queue_exit(&ring);
}

static void t_update(void)
{
	struct io_uring ring;
	struct __kernel_timespec ts = { .tv_sec = LONG_S }, short_ts = ns_ts(SHORT_NS);
	struct io_uring_sqe *sqe;
	int res[64] = { 0 };

	CHECK(io_uring_queue_init(8, &ring, 0) == 0);
	prep_timeout(&ring, &ts, 1, 0, 11);
	CHECK(io_uring_submit(&ring) == 1);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_timeout_update(sqe, &short_ts, 11, 0);
	sqe->user_data = 12;
	CHECK(io_uring_submit(&ring) == 1);
	/* the update's own CQE would have completed it, had it still counted */
	CHECK(reap(&ring, 2, res, NULL) == 0);
	CHECK_MSG(res[12] == 0 && res[11] == -ETIME, "update %d timeout %d", res[12], res[11]);
	io_uring_queue_exit(&ring);
}

static void t_cancel(void)
{
	struct io_uring ring;
	struct __kernel_timespec ts = { .tv_sec = LONG_S };
	struct io_uring_sqe *sqe;
	int res[64] = { 0 }, fd;

	CHECK(io_uring_queue_init(16, &ring, 0) == 0);
	/* by user_data */
	prep_timeout(&ring, &ts, 0, 0, 13);
	prep_cancel(&ring, 13, 0, 14);
	CHECK(io_uring_submit(&ring) == 2);
	CHECK(reap(&ring, 2, res, NULL) == 0);
	CHECK_MSG(res[14] == 0 && res[13] == -ECANCELED, "cancel %d timeout %d", res[14], res[13]);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_cancel64(sqe, 13, 0);
	CHECK_MSG((res[1] = one(&ring, sqe)) == -ENOENT, "cancel of none: %d", res[1]);
	/* ALL: three with one user_data */
	for (int i = 0; i < 3; i++)
		prep_timeout(&ring, &ts, 0, 0, 15);
	CHECK(io_uring_submit(&ring) == 3);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_cancel64(sqe, 15, IORING_ASYNC_CANCEL_ALL);
	sqe->user_data = 16;
	CHECK(io_uring_submit(&ring) == 1);
	for (int i = 0; i < 4; i++) {
		struct io_uring_cqe *cqe;

		CHECK(io_uring_wait_cqe(&ring, &cqe) == 0);
		if (cqe->user_data == 15)
			CHECK_MSG(cqe->res == -ECANCELED, "ALL: timeout %d", cqe->res);
		else
			CHECK_MSG(cqe->user_data == 16 && cqe->res == 3, "ALL: %llu res %d",
				  (unsigned long long)cqe->user_data, cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
	/* ANY: every one, counted */
	prep_timeout(&ring, &ts, 0, 0, 17);
	prep_timeout(&ring, &ts, 0, 0, 18);
	CHECK(io_uring_submit(&ring) == 2);
	prep_cancel(&ring, 0, IORING_ASYNC_CANCEL_ANY, 19);
	CHECK(io_uring_submit(&ring) == 1);
	res[17] = res[18] = 0;
	CHECK(reap(&ring, 3, res, NULL) == 0);
	CHECK_MSG(res[19] == 2 && res[17] == -ECANCELED && res[18] == -ECANCELED,
		  "ANY: %d, timeouts %d %d", res[19], res[17], res[18]);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
	CHECK_MSG((res[1] = one(&ring, sqe)) == 0, "ANY of none: %d", res[1]);
	/* by file: nothing of /dev/null is in flight */
	fd = open("/dev/null", O_RDONLY);
	CHECK(fd >= 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_cancel_fd(sqe, fd, 0);
	CHECK_MSG((res[1] = one(&ring, sqe)) == -ENOENT, "FD: %d", res[1]);
	close(fd);
	io_uring_queue_exit(&ring);
}

static void t_link(void)
{
	struct io_uring ring;
	struct __kernel_timespec ts = ns_ts(SHORT_NS);
	struct io_uring_sqe *sqe;
	unsigned long long order[2];
	int res[64] = { 0 };

	CHECK(io_uring_queue_init(8, &ring, 0) == 0);
	sqe = prep_timeout(&ring, &ts, 0, 0, 20);
	sqe->flags |= IOSQE_IO_LINK;
	prep_nop(&ring, 21);
	CHECK(io_uring_submit(&ring) == 2);
	CHECK(reap(&ring, 2, res, order) == 0);
	CHECK_MSG(res[20] == -ETIME && res[21] == -ECANCELED, "timeout %d nop %d", res[20],
		  res[21]);
	CHECK_MSG(order[0] == 20 && order[1] == 21, "order %llu %llu", order[0], order[1]);
	sqe = prep_timeout(&ring, &ts, 0, IORING_TIMEOUT_ETIME_SUCCESS, 22);
	sqe->flags |= IOSQE_IO_LINK;
	prep_nop(&ring, 23);
	CHECK(io_uring_submit(&ring) == 2);
	CHECK(reap(&ring, 2, res, NULL) == 0);
	CHECK_MSG(res[22] == -ETIME && res[23] == 0, "ETIME_SUCCESS: timeout %d nop %d",
		  res[22], res[23]);
	io_uring_queue_exit(&ring);
}

static void t_waittime(void)
{
	struct io_uring ring;
	struct __kernel_timespec ts = ns_ts(SHORT_NS);
	struct io_uring_cqe *cqe;
	long long t0;
	int ret;

	CHECK(io_uring_queue_init(8, &ring, 0) == 0);
	t0 = now_ns(CLOCK_MONOTONIC);
	ret = io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
	CHECK_MSG(ret == -ETIME, "nothing to come: %d", ret);
	CHECK(now_ns(CLOCK_MONOTONIC) - t0 >= SHORT_NS);
	/* liburing's own TIMEOUT left nothing behind */
	CHECK(io_uring_cq_ready(&ring) == 0);
	prep_nop(&ring, 24);
	CHECK(io_uring_submit(&ring) == 1);
	ret = io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
	CHECK_MSG(ret == 0 && cqe->user_data == 24, "a NOP: %d", ret);
	if (!ret)
		io_uring_cqe_seen(&ring, cqe);
	CHECK(ring.features & IORING_FEAT_EXT_ARG);
	{
		struct io_uring_getevents_arg arg = { .ts = (unsigned long)&ts };

		CHECK_ERR(syscall(__NR_io_uring_enter, ring.ring_fd, 0, 1,
				  IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &arg,
				  sizeof(arg) - 1), EINVAL);
		/* Linux 6.1 refuses a nonzero pad; from 6.12 the field is
		 * min_wait_usec, so a newer host waits (ETIME) instead */
		arg.pad = 1;
		errno = 0;
		ret = (int)syscall(__NR_io_uring_enter, ring.ring_fd, 0, 1,
				   IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &arg, sizeof(arg));
		CHECK_MSG(ret == -1 && (errno == EINVAL || (errno == ETIME && kernel_at_least(6, 12))),
			  "pad 1: %d errno %d", ret, errno);
	}
	io_uring_queue_exit(&ring);
}

/* The result of a bad SQE prepared by fill, submitted alone. */
static int bad(struct io_uring *ring, void (*fill)(struct io_uring_sqe *))
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	static struct __kernel_timespec ts = { .tv_sec = LONG_S };

	io_uring_prep_timeout(sqe, &ts, 0, 0);
	fill(sqe);
	return one(ring, sqe);
}

static void len2(struct io_uring_sqe *s) { s->len = 2; }
static void negns(struct io_uring_sqe *s)
{
	static struct __kernel_timespec neg = { .tv_sec = 0, .tv_nsec = -1 };

	s->addr = (unsigned long)&neg;
}
static void badflag(struct io_uring_sqe *s) { s->timeout_flags = 1u << 7; }
static void twoclocks(struct io_uring_sqe *s)
{
	s->timeout_flags = IORING_TIMEOUT_BOOTTIME | IORING_TIMEOUT_REALTIME;
}
static void unmapped(struct io_uring_sqe *s) { s->addr = 8; }
static void rm_len(struct io_uring_sqe *s) { io_uring_prep_timeout_remove(s, 99, 0); s->len = 1; }
static void rm_flags(struct io_uring_sqe *s)
{
	io_uring_prep_timeout_remove(s, 99, IORING_TIMEOUT_ABS);
}
static void cn_off(struct io_uring_sqe *s) { io_uring_prep_cancel64(s, 99, 0); s->off = 1; }
static void cn_flags(struct io_uring_sqe *s) { io_uring_prep_cancel64(s, 99, 1 << 7); }
static void cn_fdany(struct io_uring_sqe *s)
{
	io_uring_prep_cancel_fd(s, 0, IORING_ASYNC_CANCEL_ANY);
}
static void cn_badfd(struct io_uring_sqe *s) { io_uring_prep_cancel_fd(s, 1000, 0); }

static void t_errors(void)
{
	static const struct {
		const char *what;
		void (*fill)(struct io_uring_sqe *);
		int want;
	} tab[] = {
		{ "TIMEOUT len 2", len2, -EINVAL },
		{ "TIMEOUT tv_nsec -1", negns, -EINVAL },
		{ "TIMEOUT flag 1<<7", badflag, -EINVAL },
		{ "TIMEOUT two clocks", twoclocks, -EINVAL },
		{ "TIMEOUT time unmapped", unmapped, -EFAULT },
		{ "TIMEOUT_REMOVE len 1", rm_len, -EINVAL },
		{ "TIMEOUT_REMOVE flags no UPDATE", rm_flags, -EINVAL },
		{ "ASYNC_CANCEL off 1", cn_off, -EINVAL },
		{ "ASYNC_CANCEL flag 1<<7", cn_flags, -EINVAL },
		{ "ASYNC_CANCEL FD|ANY", cn_fdany, -EINVAL },
		{ "ASYNC_CANCEL FD closed", cn_badfd, -EBADF },
	};
	struct io_uring ring;

	CHECK(io_uring_queue_init(8, &ring, 0) == 0);
	for (unsigned int i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		int r = bad(&ring, tab[i].fill);

		CHECK_MSG(r == tab[i].want, "%s: %d, want %d", tab[i].what, r, tab[i].want);
	}
	io_uring_queue_exit(&ring);
}

/* A ring with TIMEOUTs armed -- long ones, and short ones that may fire
 * while it is released -- closed (exit 0 from a child: closed by exit). */
static void armed_ring(int by_exit)
{
	struct io_uring ring;
	struct __kernel_timespec lng = { .tv_sec = LONG_S }, shrt = ns_ts(1000000);

	if (io_uring_queue_init(16, &ring, 0))
		_exit(1);
	for (int i = 0; i < 8; i++)
		prep_timeout(&ring, i & 1 ? &shrt : &lng, 0, 0, (unsigned long long)i);
	if (io_uring_submit(&ring) != 8)
		_exit(1);
	usleep(1000);
	if (by_exit)
		_exit(0);
	io_uring_queue_exit(&ring);
}

static void t_release(void)
{
	for (int round = 0; round < 4; round++) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			armed_ring(round & 1);
			_exit(0);
		}
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
		CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "round %d: status %x",
			  round, status);
	}
}

static void t_inflight(void)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	char path[64];
	int res[64] = { 0 }, fd;

	if (!dev_name) {
		hostile_skip("no DEV");
		return;
	}
	snprintf(path, sizeof(path), "/dev/%s", dev_name);
	fd = open(path, O_RDONLY | O_DIRECT);
	CHECK(fd >= 0);
	CHECK(io_uring_queue_init(8, &ring, 0) == 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, rbuf, RD_BS, 0);
	sqe->user_data = 25;
	prep_cancel(&ring, 25, 0, 26);
	CHECK(io_uring_submit(&ring) == 2);
	CHECK(reap(&ring, 2, res, NULL) == 0);
	CHECK_MSG(res[26] == -ENOENT && res[25] == RD_BS, "cancel %d read %d", res[26], res[25]);
	io_uring_queue_exit(&ring);
	close(fd);
}

/* len bytes of fresh anonymous memory, each set to byte (MAP_FAILED: none) */
static void *map_filled(size_t len, int byte)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED)
		memset(p, byte, len);
	return p;
}

static void t_unmapped(void)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct iovec iov;
	char path[64];
	int res[64] = { 0 }, fd;

	if (!dev_name) {
		hostile_skip("no DEV");
		return;
	}
	snprintf(path, sizeof(path), "/dev/%s", dev_name);
	fd = open(path, O_RDWR | O_DIRECT);
	CHECK(fd >= 0);
	iov.iov_len = 2 * RD_BS;
	iov.iov_base = map_filled(iov.iov_len, 0x5a);
	CHECK(iov.iov_base != MAP_FAILED);
	CHECK(io_uring_queue_init(8, &ring, 0) == 0);
	CHECK(io_uring_register_buffers(&ring, &iov, 1) == 0);
	CHECK(munmap(iov.iov_base, iov.iov_len) == 0);
	/* the range is gone from the process; the ring still holds its pages */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, fd, (char *)iov.iov_base + RD_BS, RD_BS, 0, 0);
	sqe->user_data = 27;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write_fixed(sqe, fd, iov.iov_base, RD_BS, RD_BS, 0);
	sqe->user_data = 28;
	CHECK(io_uring_submit(&ring) == 2);
	CHECK(reap(&ring, 2, res, NULL) == 0);
	CHECK_MSG(res[27] == RD_BS && res[28] == RD_BS, "READ_FIXED %d WRITE_FIXED %d", res[27],
		  res[28]);
	CHECK(io_uring_unregister_buffers(&ring) == 0);
	io_uring_queue_exit(&ring);
	close(fd);
}

#define FRESH_PAGES 16

static void t_unregistered(void)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct iovec iov;
	unsigned char *fresh;
	char path[64];
	int res[64] = { 0 }, fd, bad = 0;
	cpu_set_t one_cpu;

	if (!dma_dev_name) {
		hostile_skip("no DMADEV");
		return;
	}
	/* freed pages go to this CPU's free list: stay on the CPU that
	 * would free them and map the next ones */
	CPU_ZERO(&one_cpu);
	CPU_SET(sched_getcpu(), &one_cpu);
	CHECK(sched_setaffinity(0, sizeof(one_cpu), &one_cpu) == 0);
	snprintf(path, sizeof(path), "/dev/%s", dma_dev_name);
	fd = open(path, O_RDONLY | O_DIRECT);
	CHECK(fd >= 0);
	iov.iov_len = RD_BS;
	iov.iov_base = map_filled(iov.iov_len, 0x5a);
	CHECK(iov.iov_base != MAP_FAILED);
	CHECK(io_uring_queue_init(8, &ring, 0) == 0);
	CHECK(io_uring_register_buffers(&ring, &iov, 1) == 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, fd, iov.iov_base, RD_BS, 0, 0);
	sqe->user_data = 29;
	CHECK(io_uring_submit(&ring) == 1);
	CHECK(io_uring_unregister_buffers(&ring) == 0);
	CHECK(munmap(iov.iov_base, iov.iov_len) == 0);
	fresh = map_filled(FRESH_PAGES * RD_BS, 0xa5);
	CHECK(fresh != MAP_FAILED);
	CHECK(reap(&ring, 1, res, NULL) == 0);
	CHECK_MSG(res[29] == RD_BS, "READ_FIXED %d", res[29]);
	for (int i = 0; i < FRESH_PAGES * RD_BS; i++)
		bad += fresh[i] != 0xa5;
	CHECK_MSG(bad == 0, "%d bytes of freshly mapped memory changed under us: "
		  "the read's DMA went to pages freed before it ended", bad);
	munmap(fresh, FRESH_PAGES * RD_BS);
	/* again with IOSQE_ASYNC: a worker issues it, maybe after the
	 * unregistration -- still into the pages registered at submission */
	iov.iov_base = map_filled(iov.iov_len, 0x5a);
	CHECK(iov.iov_base != MAP_FAILED);
	CHECK(io_uring_register_buffers(&ring, &iov, 1) == 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, fd, iov.iov_base, RD_BS, 0, 0);
	sqe->flags |= IOSQE_ASYNC;
	sqe->user_data = 30;
	CHECK(io_uring_submit(&ring) == 1);
	CHECK(io_uring_unregister_buffers(&ring) == 0);
	CHECK(munmap(iov.iov_base, iov.iov_len) == 0);
	CHECK(reap(&ring, 1, res, NULL) == 0);
	/* Linux 6.1's worker may find the buffer gone: EFAULT */
	CHECK_MSG(res[30] == RD_BS || res[30] == -EFAULT, "READ_FIXED by a worker %d", res[30]);
	io_uring_queue_exit(&ring);
	close(fd);
	CPU_ZERO(&one_cpu);
	for (int c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &one_cpu);
	sched_setaffinity(0, sizeof(one_cpu), &one_cpu);
}

static void t_dropped(void)
{
	struct io_uring ring;
	struct io_uring_params p;
	struct io_uring_cqe *cqe;
	int ret;

	if (!dropped_armed) {
		hostile_skip("needs a kernel whose overflow entry fails once (-D)");
		return;
	}
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = 4;
	CHECK(io_uring_queue_init_params(4, &ring, &p) == 0);
	for (int i = 0; i < 4; i++)
		prep_nop(&ring, (unsigned long long)i);
	CHECK(io_uring_submit(&ring) == 4);
	prep_nop(&ring, 4);
	CHECK(io_uring_submit(&ring) == 1);
	CHECK_MSG(*ring.cq.koverflow == 1, "overflow %u", *ring.cq.koverflow);
	CHECK(io_uring_cq_ready(&ring) == 4);
	io_uring_cq_advance(&ring, 4);
	ret = (int)syscall(__NR_io_uring_enter, ring.ring_fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	CHECK_MSG(ret == -1 && errno == EBADR, "enter: %d errno %d", ret, errno);
	ret = (int)syscall(__NR_io_uring_enter, ring.ring_fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	CHECK_MSG(ret == -1 && errno == EBADR, "again: %d errno %d", ret, errno);
	/* a CQE to read: no error */
	prep_nop(&ring, 5);
	CHECK(io_uring_submit(&ring) == 1);
	ret = (int)syscall(__NR_io_uring_enter, ring.ring_fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	CHECK_MSG(ret == 0, "with a CQE: %d errno %d", ret, errno);
	CHECK(io_uring_peek_cqe(&ring, &cqe) == 0 && cqe->user_data == 5);
	io_uring_queue_exit(&ring);
}

static const struct hostile_case cases[] = {
	{ "probe", t_probe },
	{ "timeout", t_timeout },
	{ "abs", t_abs },
	{ "count", t_count },
	{ "remove", t_remove },
	{ "update", t_update },
	{ "cancel", t_cancel },
	{ "link", t_link },
	{ "waittime", t_waittime },
	{ "errors", t_errors },
	{ "release", t_release },
	{ "inflight", t_inflight },
	{ "unmapped", t_unmapped },
	{ "unregistered", t_unregistered },
	{ "dropped", t_dropped },
};

int main(int argc, char **argv)
{
	const char *only = NULL;
	int i = 1;

	if (i < argc && !strcmp(argv[i], "-D")) {
		dropped_armed = 1;
		i++;
	}
	if (i + 1 < argc && !strcmp(argv[i], "-c")) {
		only = argv[i + 1];
		i += 2;
	}
	if (i < argc)
		dev_name = argv[i++];
	if (i < argc)
		dma_dev_name = argv[i];
	setvbuf(stdout, NULL, _IONBF, 0);
	return hostile_run("io_uring_ops", cases, (int)(sizeof(cases) / sizeof(cases[0])), only);
}
