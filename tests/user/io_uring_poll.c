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
 *                 some after unmapping the rings; MemFree is back after;
 *   sqpoll        IORING_SETUP_SQPOLL: a thread "iou-sqp-<pid>" takes the
 *                 SQEs; 32 WRITEs of 64 KiB through a registered file
 *                 (seed 32 at 8 MiB: the host checks the image), READs
 *                 back and checked, without this process entering the
 *                 kernel to submit; a buffered READ at an odd offset into
 *                 an odd address (the thread copies to this process's
 *                 memory); (-S) a descriptor not registered:
 *                 -EBADF (no IORING_FEAT_SQPOLL_NONFIXED, as Linux < 5.11);
 *   sqpoll_idle   after sq_thread_idle with nothing to do the thread sets
 *                 IORING_SQ_NEED_WAKEUP and sleeps: an SQE published then
 *                 is not taken until io_uring_enter(SQ_WAKEUP); once woken
 *                 the flag is clear until the thread idles again;
 *                 IORING_ENTER_SQ_WAIT returns when the SQ has room;
 *   sqpoll_aff    IORING_SETUP_SQ_AFF with sq_thread_cpu 1: the thread may
 *                 run on CPU 1 only (sched_getaffinity); a CPU that is not
 *                 online, and SQ_AFF without SQPOLL: EINVAL;
 *   sqpoll_iopoll SQPOLL|IOPOLL: the thread submits and polls, the process
 *                 only waits for CQEs (seed 33 at 10 MiB, read back);
 *   sqpoll_exit   children killed while their SQ thread is busy with reads
 *                 (some after closing the ring's descriptor, so the mapping
 *                 holds the ring): the thread is gone after each, and
 *                 MemFree is back after.
 *
 * -n: DEV keeps no data (null_blk): the data checks are skipped.
 * -S: the kernel is Spindle (min_complete is exact: Linux may return as
 *     soon as one CQE is there, which liburing's loop hides; MemFree is
 *     compared: a Linux host's moves by itself).
 *
 * On the host's Linux (6.18 here, over a loop device) iopoll_errors and
 * the SQPOLL cases without IOPOLL pass; a loop device has no poll queue,
 * and since Linux 6.? a REQ_POLLED bio to such a queue fails with
 * EOPNOTSUPP where 6.1 (and Spindle) clear the flag and complete it by
 * interrupt, so the IOPOLL data cases need a device that polls.
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
#include <sys/sysinfo.h>
#include <dirent.h>
#include <time.h>
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
#define SQ_AT           (8ul << 20)
#define SQ_IDLE_MS      1000u
#define SQ_SHORT_IDLE_MS 20u

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

/*
 * Submit the n SQEs prepared: 0, or -1.  On an SQPOLL ring liburing's
 * io_uring_submit counts the SQEs still in the ring once the tail is
 * published (tail - khead): the SQ thread, running on another CPU, may
 * have taken some of them already, and then it says fewer than n -- or 0
 * -- with nothing wrong.  Only an error counts there.
 */
static int submit_n(struct io_uring *ring, int n)
{
	int r = io_uring_submit(ring);

	if (ring->flags & IORING_SETUP_SQPOLL)
		return r >= 0 && r <= n ? 0 : -1;
	return r == n ? 0 : -1;
}

/* One SQE's answer: submit it, wait for its CQE; its res (or -9999). */
static int one(struct io_uring *ring)
{
	int res = -9999;

	if (submit_n(ring, 1))
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
	/* (a busy Linux host's MemFree moves by itself) */
	CHECK_MSG(!spindle || (before > 0 && after > 0 && after >= before - 512),
		  "MemFree went from %ld kB to %ld kB", before, after);
}

/* The pid of the task named comm under dir (its <pid>/comm), or 0. */
static pid_t find_task(const char *dir, const char *comm)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	pid_t found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		char path[300], text[64];

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%s/comm", dir, e->d_name);
		if (read_text(path, text, sizeof(text)) < 0)
			continue;
		text[strcspn(text, "\n")] = '\0';
		if (!strcmp(text, comm))
			found = atoi(e->d_name);
	}
	closedir(d);
	return found;
}

/* The SQ thread of owner's ring: a kernel thread of its own in Spindle,
 * a thread of the owner's process in Linux (/proc/<pid>/task/). */
static pid_t find_sqp(pid_t owner)
{
	char comm[32], dir[64];
	pid_t t;

	snprintf(comm, sizeof(comm), "iou-sqp-%d", (int)owner);
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)owner);
	t = find_task(dir, comm);
	return t ? t : find_task("/proc", comm);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int sqpoll_ring(struct io_uring *ring, unsigned int entries, unsigned int flags,
		       unsigned int idle_ms, struct io_uring_params *out)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQPOLL | flags;
	p.sq_thread_idle = idle_ms;
	p.sq_thread_cpu = 1;
	if (out)
		*out = p;
	return io_uring_queue_init_params(entries, ring, out ? out : &p);
}

/* n transfers of bs bytes at `at` through registered file 0, all in one
 * submit, reaped; how many gave bs. */
static int sq_rw(struct io_uring *ring, int write, unsigned char *buf, size_t bs, int n,
		 unsigned long at)
{
	int res[QD], good = 0;

	for (int i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		if (write)
			io_uring_prep_write(sqe, 0, buf + i * bs, bs, at + i * bs);
		else
			io_uring_prep_read(sqe, 0, buf + i * bs, bs, at + i * bs);
		sqe->flags |= IOSQE_FIXED_FILE;
	}
	if (submit_n(ring, n))
		return -1;
	if (reap(ring, n, res, NULL) != n)
		return -2;
	for (int i = 0; i < n; i++)
		good += res[i] == (int)bs;
	return good;
}

static void t_sqpoll(void)
{
	struct io_uring ring;
	struct io_uring_params p;
	int fd = open_dev(O_RDWR | O_DIRECT), r;
	pid_t sqp;

	CHECK(fd >= 0);
	CHECK(sqpoll_ring(&ring, QD, 0, SQ_IDLE_MS, &p) == 0);
	if (hostile_failed_now)
		return;
	sqp = find_sqp(getpid());
	CHECK_MSG(sqp > 0, "no thread iou-sqp-%d", (int)getpid());
	CHECK(io_uring_register_files(&ring, &fd, 1) == 0);
	fill_pattern(wbuf, 32, SQ_AT, QD * WR_BS);
	r = sq_rw(&ring, 1, wbuf, WR_BS, QD, SQ_AT);
	CHECK_MSG(r == QD, "SQPOLL writes: %d of %d", r, QD);
	memset(rbuf, 0, QD * WR_BS);
	r = sq_rw(&ring, 0, rbuf, WR_BS, QD, SQ_AT);
	CHECK_MSG(r == QD, "SQPOLL reads: %d of %d", r, QD);
	CHECK_MSG(pattern_ok(rbuf, 32, SQ_AT, QD * WR_BS), "SQPOLL reads differ from the pattern");
	/* buffered, through a second registered file: the thread copies
	 * into this process's buffer (the owner's mm, borrowed) */
	{
		int fds[2] = { fd, open_dev(O_RDONLY) }, res = -1;
		struct io_uring_sqe *sqe;

		CHECK(fds[1] >= 0);
		CHECK(io_uring_unregister_files(&ring) == 0);
		CHECK(io_uring_register_files(&ring, fds, 2) == 0);
		memset(rbuf, 0, WR_BS);
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, 1, rbuf + 520, WR_BS - 520, SQ_AT + 520);
		sqe->flags |= IOSQE_FIXED_FILE;
		res = one(&ring);
		CHECK_MSG(res == (int)(WR_BS - 520), "buffered SQPOLL read: res %d", res);
		CHECK_MSG(pattern_ok(rbuf + 520, 32, SQ_AT + 520, WR_BS - 520),
			  "buffered SQPOLL read differs from the pattern");
		close(fds[1]);
	}
	if (!(p.features & IORING_FEAT_SQPOLL_NONFIXED)) {
		io_uring_prep_read(io_uring_get_sqe(&ring), fd, rbuf, RD_BS, 0);
		r = one(&ring);
		CHECK_MSG(r == -EBADF, "a descriptor not registered: res %d", r);
	}
	io_uring_queue_exit(&ring);
	close(fd);
}

/* Wait (up to 10 s) for the SQ thread to say it sleeps. */
static int wait_need_wakeup(struct io_uring *ring)
{
	long end = now_ms() + 10000;

	while (!(IO_URING_READ_ONCE(*ring->sq.kflags) & IORING_SQ_NEED_WAKEUP))
		if (now_ms() > end)
			return 0;
		else
			usleep(1000);
	return 1;
}

static void t_sqpoll_idle(void)
{
	struct io_uring ring;
	int res;
	long t0;
	unsigned int head;

	CHECK(sqpoll_ring(&ring, 4, 0, SQ_SHORT_IDLE_MS, NULL) == 0);
	if (hostile_failed_now)
		return;
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	CHECK(one(&ring) == 0);
	CHECK_MSG(wait_need_wakeup(&ring), "NEED_WAKEUP never set after %u ms idle",
		  SQ_SHORT_IDLE_MS);
	/* asleep: a NOP published without entering is not taken ... */
	head = IO_URING_READ_ONCE(*ring.sq.khead);
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	io_uring_smp_store_release(ring.sq.ktail, ring.sq.sqe_tail);
	ring.sq.sqe_head = ring.sq.sqe_tail;
	usleep(100 * 1000);
	CHECK_MSG(IO_URING_READ_ONCE(*ring.sq.khead) == head && io_uring_cq_ready(&ring) == 0,
		  "the sleeping SQ thread took an SQE without SQ_WAKEUP");
	/* ... until io_uring_enter(SQ_WAKEUP) */
	CHECK(syscall(__NR_io_uring_enter, ring.ring_fd, 1, 0, IORING_ENTER_SQ_WAKEUP, NULL, 0) == 1);
	CHECK(reap(&ring, 1, &res, NULL) == 1 && res == 0);
	io_uring_queue_exit(&ring);

	/* a long idle: right after its work the woken thread has the flag clear */
	CHECK(sqpoll_ring(&ring, 4, 0, SQ_IDLE_MS, NULL) == 0);
	if (hostile_failed_now)
		return;
	CHECK_MSG(wait_need_wakeup(&ring), "NEED_WAKEUP never set after %u ms idle", SQ_IDLE_MS);
	t0 = now_ms();
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	CHECK(io_uring_submit(&ring) == 1);     /* liburing sees the flag: SQ_WAKEUP */
	CHECK(reap(&ring, 1, &res, NULL) == 1 && res == 0);
	if (now_ms() - t0 < SQ_IDLE_MS)
		CHECK_MSG(!(IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_NEED_WAKEUP),
			  "NEED_WAKEUP still set after the wakeup");
	/* SQ_WAIT: there is room, it returns */
	CHECK(io_uring_sqring_wait(&ring) >= 0);
	io_uring_queue_exit(&ring);
}

static void t_sqpoll_aff(void)
{
	struct io_uring ring;
	struct io_uring_params p;
	cpu_set_t set;
	pid_t sqp;
	int bad = get_nprocs_conf();

	if (get_nprocs() < 2) {
		hostile_skip("one CPU");
		return;
	}
	CHECK(sqpoll_ring(&ring, 4, IORING_SETUP_SQ_AFF, SQ_IDLE_MS, NULL) == 0);
	if (hostile_failed_now)
		return;
	sqp = find_sqp(getpid());
	CHECK(sqp > 0);
	CPU_ZERO(&set);
	CHECK(sqp > 0 && sched_getaffinity(sqp, sizeof(set), &set) == 0);
	CHECK_MSG(CPU_COUNT(&set) == 1 && CPU_ISSET(1, &set), "the SQ thread may run on %d CPUs",
		  CPU_COUNT(&set));
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	CHECK(one(&ring) == 0);
	io_uring_queue_exit(&ring);

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQPOLL | IORING_SETUP_SQ_AFF;
	p.sq_thread_cpu = bad;
	CHECK_ERR(syscall(__NR_io_uring_setup, 4, &p), EINVAL);
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQ_AFF;
	p.sq_thread_cpu = 0;
	CHECK_ERR(syscall(__NR_io_uring_setup, 4, &p), EINVAL);
}

static void t_sqpoll_iopoll(void)
{
	struct io_uring ring;
	int fd = open_dev(O_RDWR | O_DIRECT), r;

	CHECK(fd >= 0);
	CHECK(sqpoll_ring(&ring, QD, IORING_SETUP_IOPOLL, SQ_IDLE_MS, NULL) == 0);
	if (hostile_failed_now)
		return;
	CHECK(io_uring_register_files(&ring, &fd, 1) == 0);
	fill_pattern(wbuf, 33, SQ_AT + QD * WR_BS, 16 * WR_BS);
	r = sq_rw(&ring, 1, wbuf, WR_BS, 16, SQ_AT + QD * WR_BS);
	CHECK_MSG(r == 16, "SQPOLL|IOPOLL writes: %d of 16", r);
	memset(rbuf, 0, 16 * WR_BS);
	r = sq_rw(&ring, 0, rbuf, WR_BS, 16, SQ_AT + QD * WR_BS);
	CHECK_MSG(r == 16, "SQPOLL|IOPOLL reads: %d of 16", r);
	CHECK(pattern_ok(rbuf, 33, SQ_AT + QD * WR_BS, 16 * WR_BS));
	io_uring_queue_exit(&ring);
	close(fd);
}

/* A child whose SQ thread reads on and on until the child is killed
 * (close_fd: the ring's descriptor closed first, its mapping kept).  0
 * when its SQ thread is gone after. */
static int sq_exit_one(int close_fd)
{
	int status = -1, pfd[2];
	pid_t pid;
	char c;
	long end;

	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		struct io_uring ring;
		int fd = open_dev(O_RDONLY | O_DIRECT);

		/* a long idle: the thread sleeps only if this child stalls
		 * for a minute (a closed descriptor cannot wake it) */
		if (fd < 0 || sqpoll_ring(&ring, 8, 0, 60000, NULL) ||
		    io_uring_register_files(&ring, &fd, 1))
			_exit(2);
		if (close_fd)
			close(ring.ring_fd);
		for (unsigned long n = 0;;) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
			struct io_uring_cqe *cqe;

			if (!sqe) {
				/* wait by polling the CQ (no descriptor to enter) */
				while (io_uring_peek_cqe(&ring, &cqe))
					;
				io_uring_cq_advance(&ring, io_uring_cq_ready(&ring));
				continue;
			}
			io_uring_prep_read(sqe, 0, rbuf + (n % 8) * RD_BS, RD_BS, (n % 64) * RD_BS);
			sqe->flags |= IOSQE_FIXED_FILE;
			io_uring_smp_store_release(ring.sq.ktail, ring.sq.sqe_tail);
			ring.sq.sqe_head = ring.sq.sqe_tail;
			/* liburing's rule: a barrier, then wake a sleeping thread */
			io_uring_smp_mb();
			if (!close_fd && (IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_NEED_WAKEUP))
				syscall(__NR_io_uring_enter, ring.ring_fd, 0, 0, IORING_ENTER_SQ_WAKEUP,
					NULL, 0);
			/* 64 published: the thread is busy, say so once */
			if (++n == 64 && write(pfd[1], "s", 1) != 1)
				_exit(4);
			while (io_uring_peek_cqe(&ring, &cqe) == 0)
				io_uring_cqe_seen(&ring, cqe);
		}
	}
	close(pfd[1]);
	if (pid < 0 || read(pfd[0], &c, 1) != 1) {
		close(pfd[0]);
		if (pid > 0)
			waitpid(pid, &status, 0);
		return -1;
	}
	close(pfd[0]);
	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status))
		return -2;
	/* the release stops the thread before the exit ends, or (the
	 * mapping held the ring) the thread ends itself right after */
	end = now_ms() + 10000;
	while (find_sqp(pid))
		if (now_ms() > end)
			return -3;
		else
			usleep(1000);
	return 0;
}

static void t_sqpoll_exit(void)
{
	long before, after;
	int r = sq_exit_one(0);         /* warm up */

	CHECK_MSG(r == 0, "the first child: %d", r);
	before = mem_free_kb();
	for (int i = 0; i < 4 && r == 0; i++) {
		r = sq_exit_one(i & 1);
		CHECK_MSG(r == 0, "round %d: %d", i, r);
	}
	after = mem_free_kb();
	printf("io_uring_poll: MemFree %ld kB before 4 children were killed with their SQ "
	       "thread busy, %ld kB after\n", before, after);
	CHECK_MSG(!spindle || (before > 0 && after > 0 && after >= before - 512),
		  "MemFree went from %ld kB to %ld kB", before, after);
}

int main(int argc, char **argv)
{
	static const struct hostile_case cases[] = {
		{ "iopoll", t_iopoll },
		{ "iopoll_errors", t_iopoll_errors },
		{ "iopoll_link", t_iopoll_link },
		{ "iopoll_exit", t_iopoll_exit },
		{ "sqpoll", t_sqpoll },
		{ "sqpoll_idle", t_sqpoll_idle },
		{ "sqpoll_aff", t_sqpoll_aff },
		{ "sqpoll_iopoll", t_sqpoll_iopoll },
		{ "sqpoll_exit", t_sqpoll_exit },
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
