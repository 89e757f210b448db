// SPDX-License-Identifier: MIT
/*
 * io_uring_poll [-S] [-n] [-o CASE] DEV - io_uring's polled rings through
 * Debian's liburing (docs/aio.md, "io_uring: IOPOLL and SQPOLL").
 *
 * Built as tests/user/io_uring.c is, with the host's glibc and liburing
 * (user/user.mk), so the rings are set up and driven by the library real
 * programs use.  DEV should be a block device with poll queues (nvme0n1
 * with nvme.poll_queues=, nullb0 with null_blk.poll_queues=): on one
 * without, Linux and Spindle both fall back to interrupts for the I/O
 * and the cases still pass, polling nothing.
 *
 *   iopoll        IORING_SETUP_IOPOLL: 32 O_DIRECT writes of 64 KiB in one
 *                 submit fill [1 MiB, 3 MiB) of DEV with the pattern (seed
 *                 30: the host checks the image), then 256 reads of 4 KiB,
 *                 16 in flight, each checked; io_uring_enter(0, 8,
 *                 GETEVENTS) after 8 reads returns with all 8 CQEs there
 *                 (min_complete: the reaper polls until then);
 *   iopoll_errors what an IOPOLL ring refuses, in the CQE: a buffered read
 *                 of DEV and a read of a pipe (-EOPNOTSUPP: not pollable),
 *                 FSYNC (-EINVAL: not a polled opcode); NOP is allowed;
 *   iopoll_link   a WRITE linked to a READ of what it wrote (seed 31 at
 *                 4 MiB), then a NOP: in order, the data back;
 *   iopoll_exit   children that exit with 16 polled reads in flight that
 *                 they never reap (the ring's release must poll them, or
 *                 the exit hangs on a poll queue that raises no interrupt),
 *                 some after unmapping the rings; MemFree is back after.
 *
 * -n: DEV keeps no data (null_blk): the data checks are skipped.
 * -S: the kernel is Spindle (min_complete is exact: Linux may return as
 *     soon as one CQE is there, which liburing's loop hides).
 * -o CASE: run that case only (the scenario counts interrupts around it).
 * Prints "TEST io_uring_poll.<case> PASS|FAIL|SKIP" and the closing count.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <liburing.h>
#include "hostile.h"

#define QD              32
#define WR_AT           (1ul << 20)
#define WR_BS           (64ul << 10)
#define RD_BS           4096ul
#define RD_IOS          256
#define RD_QD           16
#define LINK_AT         (4ul << 20)
#define EXIT_IOS        16
#define EXIT_ROUNDS     3

static const char *dev_name;
static int no_data, spindle;
static unsigned char wbuf[QD * WR_BS] __attribute__((aligned(4096)));
static unsigned char rbuf[QD * WR_BS] __attribute__((aligned(4096)));

/* lib/pattern.c's rule: word k of the device is splitmix64(seed + k) */
static uint64_t splitmix64(uint64_t x)
{
	uint64_t z = x + 0x9E3779B97F4A7C15ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void fill_pattern(unsigned char *p, uint64_t seed, uint64_t dev_off, size_t len)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = splitmix64(seed + (dev_off + i) / 8);

		memcpy(p + i, &w, 8);
	}
}

static int pattern_ok(const unsigned char *p, uint64_t seed, uint64_t dev_off, size_t len)
{
	if (no_data)
		return 1;
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = splitmix64(seed + (dev_off + i) / 8);

		if (memcmp(p + i, &w, 8))
			return 0;
	}
	return 1;
}

static int open_dev(int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/%s", dev_name);
	return open(path, flags);
}

/* Reap exactly n CQEs into res[] / data[] (either may be NULL); how many. */
static int reap(struct io_uring *ring, int n, int *res, uint64_t *data)
{
	int got = 0;

	while (got < n) {
		struct io_uring_cqe *cqe;
		int r = io_uring_wait_cqe(ring, &cqe);

		if (r == -EINTR)
			continue;
		if (r < 0)
			break;
		if (res)
			res[got] = cqe->res;
		if (data)
			data[got] = cqe->user_data;
		io_uring_cqe_seen(ring, cqe);
		got++;
	}
	return got;
}

/* One SQE's answer: submit it, wait for its CQE; its res (or -9999). */
static int one(struct io_uring *ring)
{
	int res = -9999;

	if (io_uring_submit(ring) != 1)
		return -9998;
	reap(ring, 1, &res, NULL);
	return res;
}

static int iopoll_ring(struct io_uring *ring, unsigned int entries)
{
	return io_uring_queue_init(entries, ring, IORING_SETUP_IOPOLL);
}

static void t_iopoll(void)
{
	struct io_uring ring;
	int res[QD], fd = open_dev(O_RDWR | O_DIRECT), done = 0, sent = 0;
	uint64_t data[QD];
	unsigned int order[RD_IOS];

	CHECK(fd >= 0);
	CHECK(iopoll_ring(&ring, QD) == 0);
	if (hostile_failed_now)
		return;
	fill_pattern(wbuf, 30, WR_AT, QD * WR_BS);
	for (int i = 0; i < QD; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_write(sqe, fd, wbuf + i * WR_BS, WR_BS, WR_AT + i * WR_BS);
		sqe->user_data = i;
	}
	CHECK(io_uring_submit(&ring) == QD);
	CHECK(reap(&ring, QD, res, data) == QD);
	for (int i = 0; i < QD; i++)
		CHECK_MSG(res[i] == (int)WR_BS, "write %llu: res %d",
			  (unsigned long long)data[i], res[i]);

	/* reads in a shuffled order, RD_QD in flight */
	for (unsigned int i = 0; i < RD_IOS; i++)
		order[i] = i;
	srand(30);
	for (unsigned int i = RD_IOS - 1; i > 0; i--) {
		unsigned int j = (unsigned int)rand() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	memset(rbuf, 0, RD_IOS * RD_BS);
	while (done < RD_IOS && !hostile_failed_now) {
		while (sent < RD_IOS && sent - done < RD_QD) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
			unsigned int k = order[sent++];

			io_uring_prep_read(sqe, fd, rbuf + k * RD_BS, RD_BS, WR_AT + k * RD_BS);
			sqe->user_data = k;
		}
		CHECK(io_uring_submit(&ring) >= 0);
		CHECK(reap(&ring, 1, res, data) == 1);
		CHECK_MSG(res[0] == (int)RD_BS, "read %llu: res %d", (unsigned long long)data[0],
			  res[0]);
		done++;
	}
	CHECK_MSG(pattern_ok(rbuf, 30, WR_AT, RD_IOS * RD_BS), "the reads differ from the pattern");

	/* min_complete: 8 reads sent, then one io_uring_enter that asks for 8 */
	for (int i = 0; i < 8; i++)
		io_uring_prep_read(io_uring_get_sqe(&ring), fd, rbuf + i * RD_BS, RD_BS,
				   WR_AT + i * RD_BS);
	CHECK(io_uring_submit(&ring) == 8);
	if (spindle) {
		CHECK(syscall(__NR_io_uring_enter, ring.ring_fd, 0, 8, IORING_ENTER_GETEVENTS,
			      NULL, 0) == 0);
		CHECK_MSG(io_uring_cq_ready(&ring) == 8, "min_complete 8: %u CQEs",
			  io_uring_cq_ready(&ring));
	}
	CHECK(reap(&ring, 8, res, NULL) == 8);
	for (int i = 0; i < 8; i++)
		CHECK_MSG(res[i] == (int)RD_BS, "read: res %d", res[i]);
	/* nothing in flight: GETEVENTS returns at once */
	CHECK(syscall(__NR_io_uring_enter, ring.ring_fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0) == 0);
	CHECK(io_uring_cq_ready(&ring) == 0);
	io_uring_queue_exit(&ring);
	close(fd);
}

static void t_iopoll_errors(void)
{
	struct io_uring ring;
	int fd = open_dev(O_RDWR), pfd[2];

	CHECK(fd >= 0 && pipe(pfd) == 0);
	CHECK(iopoll_ring(&ring, 4) == 0);
	if (hostile_failed_now)
		return;
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	CHECK(one(&ring) == 0);
	/* buffered: not O_DIRECT */
	io_uring_prep_read(io_uring_get_sqe(&ring), fd, rbuf, RD_BS, 0);
	CHECK_MSG(one(&ring) == -EOPNOTSUPP, "buffered read on an IOPOLL ring");
	io_uring_prep_write(io_uring_get_sqe(&ring), fd, wbuf, RD_BS, 0);
	CHECK_MSG(one(&ring) == -EOPNOTSUPP, "buffered write on an IOPOLL ring");
	CHECK(write(pfd[1], "x", 1) == 1);
	io_uring_prep_read(io_uring_get_sqe(&ring), pfd[0], rbuf, 1, 0);
	CHECK_MSG(one(&ring) == -EOPNOTSUPP, "pipe read on an IOPOLL ring");
	io_uring_prep_fsync(io_uring_get_sqe(&ring), fd, 0);
	CHECK_MSG(one(&ring) == -EINVAL, "FSYNC on an IOPOLL ring");
	io_uring_queue_exit(&ring);
	close(pfd[0]);
	close(pfd[1]);
	close(fd);
}

static void t_iopoll_link(void)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	int res[3], fd = open_dev(O_RDWR | O_DIRECT);
	uint64_t data[3];

	CHECK(fd >= 0);
	CHECK(iopoll_ring(&ring, 4) == 0);
	if (hostile_failed_now)
		return;
	fill_pattern(wbuf, 31, LINK_AT, WR_BS);
	memset(rbuf, 0, WR_BS);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write(sqe, fd, wbuf, WR_BS, LINK_AT);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, rbuf, WR_BS, LINK_AT);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 2;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 3;
	CHECK(io_uring_submit(&ring) == 3);
	CHECK(reap(&ring, 3, res, data) == 3);
	for (int i = 0; i < 3; i++) {
		CHECK_MSG(data[i] == (uint64_t)i + 1, "CQE %d is %llu", i,
			  (unsigned long long)data[i]);
		CHECK_MSG(res[i] == (i < 2 ? (int)WR_BS : 0), "CQE %d: res %d", i, res[i]);
	}
	CHECK_MSG(pattern_ok(rbuf, 31, LINK_AT, WR_BS), "the linked read differs");
	io_uring_queue_exit(&ring);
	close(fd);
}

/* A child that leaves with EXIT_IOS polled reads it never reaps (unmap:
 * after unmapping the rings).  0 when it exited as asked. */
static int exit_one(int unmap)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		struct io_uring ring;
		int fd = open_dev(O_RDONLY | O_DIRECT);

		if (fd < 0 || iopoll_ring(&ring, EXIT_IOS))
			_exit(2);
		for (int i = 0; i < EXIT_IOS; i++)
			io_uring_prep_read(io_uring_get_sqe(&ring), fd, rbuf + i * RD_BS, RD_BS,
					   i * RD_BS);
		/* submit without reaping (liburing's submit on an IOPOLL ring
		 * polls once too): publish the SQ tail, enter without
		 * GETEVENTS */
		io_uring_smp_store_release(ring.sq.ktail, ring.sq.sqe_tail);
		ring.sq.sqe_head = ring.sq.sqe_tail;
		if (syscall(__NR_io_uring_enter, ring.ring_fd, EXIT_IOS, 0, 0, NULL, 0) != EXIT_IOS)
			_exit(3);
		if (unmap) {
			size_t sqes_sz = *ring.sq.kring_entries * sizeof(struct io_uring_sqe);

			munmap(ring.sq.ring_ptr, ring.sq.ring_sz);
			munmap(ring.sq.sqes, sqes_sz);
		}
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

static void t_iopoll_exit(void)
{
	long before, after;
	int r = exit_one(0);            /* warm up: the fork's own memory */

	CHECK_MSG(r == 0, "the first child: %d", r);
	before = mem_free_kb();
	for (int i = 0; i < EXIT_ROUNDS && r == 0; i++) {
		r = exit_one(i & 1);
		CHECK_MSG(r == 0, "round %d: %d", i, r);
	}
	after = mem_free_kb();
	printf("io_uring_poll: MemFree %ld kB before %d children left polled reads unreaped, "
	       "%ld kB after\n", before, EXIT_ROUNDS, after);
	CHECK_MSG(before > 0 && after > 0 && after >= before - 512,
		  "MemFree went from %ld kB to %ld kB", before, after);
}

int main(int argc, char **argv)
{
	static const struct hostile_case cases[] = {
		{ "iopoll", t_iopoll },
		{ "iopoll_errors", t_iopoll_errors },
		{ "iopoll_link", t_iopoll_link },
		{ "iopoll_exit", t_iopoll_exit },
	};
	const char *only = NULL;
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-n"))
			no_data = 1;
		else if (!strcmp(argv[i], "-S"))
			spindle = 1;
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			only = argv[++i];
	}
	if (i >= argc) {
		fprintf(stderr, "usage: io_uring_poll [-S] [-n] [-o CASE] DEV\n");
		return 2;
	}
	dev_name = argv[i];
	return hostile_run("io_uring_poll", cases, sizeof(cases) / sizeof(cases[0]), only);
}
