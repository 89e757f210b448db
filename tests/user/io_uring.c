// SPDX-License-Identifier: MIT
/*
 * io_uring [-S] [-n] DEV [SLOWDEV [FILE]] - io_uring through Debian's
 * liburing (docs/aio.md, "io_uring").
 *
 * Unlike the other programs of tests/user, this one is built with the
 * host's glibc and liburing (gcc -static ... -luring: user/user.mk), so
 * the ring is set up, mapped and driven by the library real programs
 * use, not by code written beside the kernel.  The same binary runs on
 * the Linux host (tests/user/run.sh, over a loop device) when the host
 * allows io_uring.
 *
 *   probe     io_uring_get_probe says NOP, READ, WRITE, READV, WRITEV,
 *             FSYNC, READ_FIXED, WRITE_FIXED are there; setup with 33
 *             entries gives 64 SQ and 128 CQ entries and
 *             IORING_FEAT_SINGLE_MMAP (-S: and an opcode Spindle lacks,
 *             ACCEPT, is said to be missing);
 *   nop       16 NOPs in one submit: 16 CQEs, res 0, user_data as given;
 *   shared    a second thread, sharing the descriptor table, submits 8
 *             NOPs and a 4 KiB O_DIRECT read to the first thread's ring
 *             and waits for their CQEs, twice; then the first thread
 *             alone (the table no longer shared) does the same, and the
 *             ring is closed -- io_uring_enter finds its ring with a
 *             reference when the table is shared, without one when not;
 *   writes    32 O_DIRECT writes of 64 KiB in one submit (QD 32), in
 *             shuffled order, filling [1 MiB, 3 MiB) of DEV with the
 *             pattern (seed 21: the host checks the image);
 *   reads     512 O_DIRECT reads of 4 KiB in random order from there, 32
 *             kept in flight, each checked against the pattern;
 *   merge     32 consecutive 4 KiB writes at 4 MiB (seed 22) in one
 *             io_uring_enter reach the driver merged (/sys/block/DEV/stat:
 *             fewer than 32 write requests, some merges): the plug;
 *   fsync     a write at 5 MiB (seed 23), then FSYNC and FSYNC with
 *             IORING_FSYNC_DATASYNC: res 0;
 *   fixed     two registered buffers: WRITE_FIXED at 6 MiB (seed 24),
 *             READ_FIXED back and checked; a range outside its buffer and
 *             a buffer index past the registered ones: -EFAULT in the CQE;
 *             registering twice: EBUSY; unregistering twice: ENXIO;
 *   files     registered files (a hole, the device): a READ with
 *             IOSQE_FIXED_FILE through index 1 after the descriptor is
 *             closed; the hole, an index past the table and any index after
 *             unregistering: -EBADF; twice: EBUSY; unregistering twice:
 *             ENXIO; the ring's own descriptor: EBADF;
 *   links     IOSQE_IO_LINK: a WRITE, then a READ of what it wrote, then a
 *             NOP, in order; a failed link (a bad descriptor, a short read)
 *             cancels the rest of its chain (-ECANCELED) and no more; a
 *             hard link's failure cancels nothing;
 *   vectored  WRITEV of 4 buffers and READV back (buffered, on DEV), and
 *             READV of one buffer with O_DIRECT; READ at offset -1 (the
 *             file's position, which moves on: IORING_FEAT_RW_CUR_POS);
 *             READ and WRITE of a pipe;
 *   errors    a bad descriptor (-EBADF in the CQE), an opcode past
 *             IORING_OP_LAST (-EINVAL, and the batch stops after it), an
 *             unknown RWF flag (-EOPNOTSUPP), a buffer at an unmapped
 *             address (-EFAULT), an SQ array entry past the SQE array
 *             (dropped: sq_dropped counts it, the head moves on),
 *             io_uring_enter and io_uring_register on a descriptor that is
 *             not a ring (EOPNOTSUPP) or no descriptor (EBADF), setup with
 *             0 entries, too many, or nonzero reserved fields (EINVAL);
 *             CLAMP gives 32768;
 *   spindle   (-S) what Spindle answers where Linux 6.1 does more:
 *             IORING_SETUP_SINGLE_ISSUER EINVAL (SQPOLL and IOPOLL:
 *             tests/user/io_uring_poll.c), IOSQE_IO_DRAIN -EINVAL in the CQE
 *             (a full CQ: tests/user/io_uring_cq.c);
 *   eintr     (SLOWDEV: half a second a request) a signal ends a wait for
 *             a CQE: EINTR; the CQE comes later;
 *   exit      (SLOWDEV) children that leave with 16 slow reads in flight
 *             -- some after unmapping the rings, some killed while they
 *             wait -- and after several rounds MemFree is back;
 *   file      (FILE, on ext2) 256 KiB written by 4 WRITEs of 64 KiB with
 *             O_DIRECT at QD 4, fsynced, read back by READs: pattern seed 25
 *             counted from the file's start (the host checks the file).
 *
 * -n: DEV keeps no data (null_blk): the data checks are skipped.
 * -S: the kernel is Spindle (its exact answers, above).
 * Prints "TEST io_uring.<case> PASS|FAIL|SKIP" and the closing count.
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
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <liburing.h>
#include "hostile.h"

#define QD              32
#define WR_AT           (1ul << 20)
#define WR_BS           (64ul << 10)
#define RD_BS           4096ul
#define RD_IOS          512
#define MERGE_AT        (4ul << 20)
#define FSYNC_AT        (5ul << 20)
#define FIXED_AT        (6ul << 20)
#define FIXED_BS        (128ul << 10)
#define VEC_AT          (7ul << 20)
#define SLOW_BS         (64ul << 10)
#define EXIT_ROUNDS     2
#define FILE_BS         (64ul << 10)
#define FILE_NR         4

static const char *dev_name, *slow_name, *file_name;
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
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = splitmix64(seed + (dev_off + i) / 8);

		if (memcmp(p + i, &w, 8))
			return 0;
	}
	return 1;
}

static int open_dev(const char *name, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/%s", name);
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

/* Fields of /sys/block/DEV/stat (0-based: 4 write I/Os, 5 write merges). */
static int read_stat(const char *dev, unsigned long long f[11])
{
	char path[96], text[512];
	char *s = text;

	snprintf(path, sizeof(path), "/sys/block/%s/stat", dev);
	if (read_text(path, text, sizeof(text)) < 0)
		return -1;
	for (int i = 0; i < 11; i++) {
		char *end;

		f[i] = strtoull(s, &end, 10);
		if (end == s)
			return -1;
		s = end;
	}
	return 0;
}

static void t_probe(void)
{
	static const int want[] = { IORING_OP_NOP, IORING_OP_READ, IORING_OP_WRITE,
		IORING_OP_READV, IORING_OP_WRITEV, IORING_OP_FSYNC, IORING_OP_READ_FIXED,
		IORING_OP_WRITE_FIXED };
	struct io_uring_params p;
	struct io_uring ring;
	struct io_uring_probe *probe;

	memset(&p, 0, sizeof(p));
	CHECK(io_uring_queue_init_params(33, &ring, &p) == 0);
	CHECK_MSG(p.sq_entries == 64 && p.cq_entries == 128, "sq %u cq %u", p.sq_entries,
		  p.cq_entries);
	CHECK(p.features & IORING_FEAT_SINGLE_MMAP);
	CHECK(p.features & IORING_FEAT_RW_CUR_POS);
	probe = io_uring_get_probe_ring(&ring);
	CHECK(probe != NULL);
	if (probe) {
		for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			CHECK_MSG(io_uring_opcode_supported(probe, want[i]), "opcode %d missing",
				  want[i]);
		CHECK(probe->last_op >= IORING_OP_WRITE);
		if (spindle)
			CHECK(!io_uring_opcode_supported(probe, IORING_OP_ACCEPT));
		io_uring_free_probe(probe);
	}
	io_uring_queue_exit(&ring);
}

static void t_nop(void)
{
	struct io_uring ring;
	int res[16];
	uint64_t data[16], seen = 0;

	CHECK(io_uring_queue_init(16, &ring, 0) == 0);
	for (int i = 0; i < 16; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_nop(sqe);
		sqe->user_data = 0x1000 + i;
	}
	CHECK(io_uring_submit(&ring) == 16);
	CHECK(reap(&ring, 16, res, data) == 16);
	for (int i = 0; i < 16; i++) {
		CHECK_MSG(res[i] == 0, "NOP res %d", res[i]);
		CHECK(data[i] >= 0x1000 && data[i] < 0x1010);
		seen |= 1ull << (data[i] - 0x1000);
	}
	CHECK_MSG(seen == 0xffff, "user_data seen %#llx", (unsigned long long)seen);
	io_uring_queue_exit(&ring);
}

/* t_shared's work: 8 NOPs and a read on ring, their 9 CQEs checked */
struct shared_arg {
	struct io_uring *ring;
	int fd;
	void *buf;
};

static void *shared_run(void *p)
{
	struct shared_arg *a = p;
	struct io_uring_sqe *sqe;
	int res[9];
	uint64_t data[9], seen = 0;

	for (int i = 0; i < 8; i++) {
		sqe = io_uring_get_sqe(a->ring);
		io_uring_prep_nop(sqe);
		sqe->user_data = i;
	}
	sqe = io_uring_get_sqe(a->ring);
	io_uring_prep_read(sqe, a->fd, a->buf, RD_BS, WR_AT);
	sqe->user_data = 8;
	CHECK(io_uring_submit(a->ring) == 9);
	CHECK(reap(a->ring, 9, res, data) == 9);
	for (int i = 0; i < 9; i++) {
		CHECK(data[i] < 9);
		if (data[i] >= 9)
			break;
		CHECK_MSG(res[i] == (data[i] == 8 ? (int)RD_BS : 0), "user_data %llu: res %d",
			  (unsigned long long)data[i], res[i]);
		seen |= 1u << data[i];
	}
	CHECK_MSG(seen == 0x1ff, "user_data seen %#llx", (unsigned long long)seen);
	return NULL;
}

static void t_shared(void)
{
	struct io_uring ring;
	struct shared_arg a = { .ring = &ring, .buf = rbuf };
	pthread_t t;

	a.fd = open_dev(dev_name, O_RDONLY | O_DIRECT);
	CHECK(a.fd >= 0);
	CHECK(io_uring_queue_init(16, &ring, 0) == 0);
	for (int round = 0; round < 2 && !hostile_failed_now; round++) {
		CHECK(pthread_create(&t, NULL, shared_run, &a) == 0);
		CHECK(pthread_join(t, NULL) == 0);
	}
	shared_run(&a);                 /* alone again */
	io_uring_queue_exit(&ring);
	close(a.fd);
}

static void t_writes(void)
{
	struct io_uring ring;
	int order[QD], res[QD], fd = open_dev(dev_name, O_RDWR | O_DIRECT);
	uint64_t data[QD];

	CHECK(fd >= 0);
	CHECK(io_uring_queue_init(QD, &ring, 0) == 0);
	fill_pattern(wbuf, 21, WR_AT, QD * WR_BS);
	for (int i = 0; i < QD; i++)
		order[i] = i;
	srand(21);
	for (int i = QD - 1; i > 0; i--) {
		int j = rand() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (int i = 0; i < QD; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		int k = order[i];

		io_uring_prep_write(sqe, fd, wbuf + k * WR_BS, WR_BS, WR_AT + k * WR_BS);
		sqe->user_data = k;
	}
	CHECK(io_uring_submit(&ring) == QD);
	CHECK(reap(&ring, QD, res, data) == QD);
	for (int i = 0; i < QD; i++) {
		CHECK_MSG(res[i] == (int)WR_BS, "write %llu: res %d", (unsigned long long)data[i],
			  res[i]);
		CHECK(data[i] < QD);
	}
	io_uring_queue_exit(&ring);
	close(fd);
}

static void t_reads(void)
{
	struct io_uring ring;
	static uint64_t off[RD_IOS];
	int fd = open_dev(dev_name, O_RDONLY | O_DIRECT), next = 0, done = 0, bad = 0;

	CHECK(fd >= 0);
	CHECK(io_uring_queue_init(QD, &ring, 0) == 0);
	srand(22);
	for (int i = 0; i < RD_IOS; i++)
		off[i] = WR_AT + (uint64_t)(rand() % (int)(QD * WR_BS / RD_BS)) * RD_BS;
	/* slot s of rbuf serves one read at a time: user_data = s << 16 | i */
	for (int s = 0; s < QD; s++, next++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_read(sqe, fd, rbuf + s * RD_BS, RD_BS, off[next]);
		sqe->user_data = (uint64_t)s << 16 | next;
	}
	CHECK(io_uring_submit(&ring) == QD);
	while (done < RD_IOS && !hostile_failed_now) {
		struct io_uring_cqe *cqe;
		int r = io_uring_wait_cqe(&ring, &cqe);

		if (r == -EINTR)
			continue;
		CHECK_MSG(r == 0, "wait_cqe %d", r);
		if (r)
			break;
		int s = (int)(cqe->user_data >> 16), i = (int)(cqe->user_data & 0xffff);

		CHECK_MSG(cqe->res == (int)RD_BS, "read %d: res %d", i, cqe->res);
		if (!no_data && !pattern_ok(rbuf + s * RD_BS, 21, off[i], RD_BS))
			bad++;
		io_uring_cqe_seen(&ring, cqe);
		done++;
		if (next < RD_IOS) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_read(sqe, fd, rbuf + s * RD_BS, RD_BS, off[next]);
			sqe->user_data = (uint64_t)s << 16 | next;
			next++;
			CHECK(io_uring_submit(&ring) == 1);
		}
	}
	CHECK_MSG(bad == 0, "%d reads did not hold the pattern", bad);
	io_uring_queue_exit(&ring);
	close(fd);
}

static void t_merge(void)
{
	struct io_uring ring;
	unsigned long long before[11], after[11];
	int res[QD], fd = open_dev(dev_name, O_RDWR | O_DIRECT);

	CHECK(fd >= 0);
	CHECK(io_uring_queue_init(QD, &ring, 0) == 0);
	fill_pattern(wbuf, 22, MERGE_AT, QD * RD_BS);
	for (int i = 0; i < QD; i++)
		io_uring_prep_write(io_uring_get_sqe(&ring), fd, wbuf + i * RD_BS, RD_BS,
				    MERGE_AT + i * RD_BS);
	CHECK(read_stat(dev_name, before) == 0);
	CHECK(io_uring_submit(&ring) == QD);
	CHECK(reap(&ring, QD, res, NULL) == QD);
	CHECK(read_stat(dev_name, after) == 0);
	for (int i = 0; i < QD; i++)
		CHECK(res[i] == (int)RD_BS);
	unsigned long long ios = after[4] - before[4], merges = after[5] - before[5];

	printf("io_uring: 32 writes of 4 KiB in one io_uring_enter: %llu requests, %llu merges\n",
	       ios, merges);
	CHECK_MSG(merges > 0 && ios < QD, "%llu write requests, %llu merges", ios, merges);
	io_uring_queue_exit(&ring);
	close(fd);
}

static void t_fsync(void)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	int fd = open_dev(dev_name, O_RDWR | O_DIRECT);

	CHECK(fd >= 0);
	CHECK(io_uring_queue_init(4, &ring, 0) == 0);
	fill_pattern(wbuf, 23, FSYNC_AT, RD_BS);
	io_uring_prep_write(io_uring_get_sqe(&ring), fd, wbuf, RD_BS, FSYNC_AT);
	CHECK(one(&ring) == (int)RD_BS);
	io_uring_prep_fsync(io_uring_get_sqe(&ring), fd, 0);
	CHECK(one(&ring) == 0);
	io_uring_prep_fsync(io_uring_get_sqe(&ring), fd, IORING_FSYNC_DATASYNC);
	CHECK(one(&ring) == 0);
	/* an unknown fsync flag: EINVAL, as Linux's io_fsync_prep */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_fsync(sqe, fd, 0);
	sqe->fsync_flags = 0x80;
	CHECK(one(&ring) == -EINVAL);
	io_uring_queue_exit(&ring);
	close(fd);
}

static void t_fixed(void)
{
	struct io_uring ring;
	struct iovec iov[2] = {
		{ wbuf, FIXED_BS },
		{ rbuf, FIXED_BS },
	};
	struct io_uring_sqe *sqe;
	int fd = open_dev(dev_name, O_RDWR | O_DIRECT);

	CHECK(fd >= 0);
	CHECK(io_uring_queue_init(8, &ring, 0) == 0);
	CHECK(io_uring_register_buffers(&ring, iov, 2) == 0);
	CHECK(io_uring_register_buffers(&ring, iov, 2) == -EBUSY);
	fill_pattern(wbuf, 24, FIXED_AT, FIXED_BS);
	memset(rbuf, 0, FIXED_BS);
	io_uring_prep_write_fixed(io_uring_get_sqe(&ring), fd, wbuf, FIXED_BS, FIXED_AT, 0);
	CHECK(one(&ring) == (int)FIXED_BS);
	io_uring_prep_read_fixed(io_uring_get_sqe(&ring), fd, rbuf, FIXED_BS, FIXED_AT, 1);
	CHECK(one(&ring) == (int)FIXED_BS);
	CHECK(no_data || pattern_ok(rbuf, 24, FIXED_AT, FIXED_BS));
	/* a range that leaves its buffer: one page past its end */
	io_uring_prep_read_fixed(io_uring_get_sqe(&ring), fd, rbuf + 4096, FIXED_BS, FIXED_AT, 1);
	CHECK(one(&ring) == -EFAULT);
	/* buffer 0's range named as buffer 1 */
	io_uring_prep_read_fixed(io_uring_get_sqe(&ring), fd, wbuf, 4096, FIXED_AT, 1);
	CHECK(one(&ring) == -EFAULT);
	/* an index past the registered buffers */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, fd, rbuf, 4096, FIXED_AT, 2);
	CHECK(one(&ring) == -EFAULT);
	CHECK(io_uring_unregister_buffers(&ring) == 0);
	CHECK(io_uring_unregister_buffers(&ring) == -ENXIO);
	/* after unregistering, no index is valid */
	io_uring_prep_read_fixed(io_uring_get_sqe(&ring), fd, rbuf, 4096, FIXED_AT, 0);
	CHECK(one(&ring) == -EFAULT);
	io_uring_queue_exit(&ring);
	close(fd);
}

static void t_files(void)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	int fd = open_dev(dev_name, O_RDONLY | O_DIRECT), fds[2];

	CHECK(fd >= 0);
	CHECK(io_uring_queue_init(4, &ring, 0) == 0);
	fds[0] = -1;                    /* a hole */
	fds[1] = fd;
	CHECK(io_uring_register_files(&ring, fds, 2) == 0);
	CHECK(io_uring_register_files(&ring, fds, 2) == -EBUSY);
	close(fd);                      /* the table keeps the file */
	memset(rbuf, 0, RD_BS);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, 1, rbuf, RD_BS, WR_AT);
	sqe->flags |= IOSQE_FIXED_FILE;
	CHECK(one(&ring) == (int)RD_BS);
	CHECK(no_data || pattern_ok(rbuf, 21, WR_AT, RD_BS));
	/* the hole, and an index past the table: EBADF */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, 0, rbuf, RD_BS, WR_AT);
	sqe->flags |= IOSQE_FIXED_FILE;
	CHECK(one(&ring) == -EBADF);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, 2, rbuf, RD_BS, WR_AT);
	sqe->flags |= IOSQE_FIXED_FILE;
	CHECK(one(&ring) == -EBADF);
	CHECK(io_uring_unregister_files(&ring) == 0);
	CHECK(io_uring_unregister_files(&ring) == -ENXIO);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, 1, rbuf, RD_BS, WR_AT);
	sqe->flags |= IOSQE_FIXED_FILE;
	CHECK(one(&ring) == -EBADF);
	/* a ring cannot hold its own descriptor */
	fds[0] = ring.ring_fd;
	CHECK(io_uring_register_files(&ring, fds, 1) == -EBADF);
	io_uring_queue_exit(&ring);
}

/* Queue n linked SQEs (prepared by the caller), submit, collect the CQEs
 * in order of user_data 0..n-1 into res. */
static int run_chain(struct io_uring *ring, int n, int *res)
{
	int got[8];
	uint64_t data[8];

	if (io_uring_submit(ring) != n || reap(ring, n, got, data) != n)
		return -1;
	for (int i = 0; i < n; i++)
		res[data[i]] = got[i];
	return 0;
}

static void t_links(void)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	int res[4], fd = open_dev(dev_name, O_RDWR | O_DIRECT);
	long long size = lseek(fd, 0, SEEK_END);

	CHECK(fd >= 0 && size > 0);
	CHECK(io_uring_queue_init(8, &ring, 0) == 0);
	/* write, then read back what it wrote: the read starts only after
	 * the write has ended */
	fill_pattern(wbuf, 27, WR_AT, RD_BS);
	memset(rbuf, 0, RD_BS);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write(sqe, fd, wbuf, RD_BS, 8 * WR_BS);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 0;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, rbuf, RD_BS, 8 * WR_BS);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 2;
	CHECK(run_chain(&ring, 3, res) == 0);
	CHECK_MSG(res[0] == (int)RD_BS && res[1] == (int)RD_BS && res[2] == 0,
		  "chain: %d %d %d", res[0], res[1], res[2]);
	CHECK(no_data || !memcmp(rbuf, wbuf, RD_BS));
	/* a failed link cancels the rest of its chain, and no further */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, 1000, rbuf, RD_BS, 0);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 0;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 2;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 3;
	CHECK(run_chain(&ring, 4, res) == 0);
	CHECK_MSG(res[0] == -EBADF && res[1] == -ECANCELED && res[2] == -ECANCELED && res[3] == 0,
		  "failed chain: %d %d %d %d", res[0], res[1], res[2], res[3]);
	/* a short read fails its link too */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, rbuf, 2 * RD_BS, size - RD_BS);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 0;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 1;
	CHECK(run_chain(&ring, 2, res) == 0);
	CHECK_MSG(res[0] == (int)RD_BS && res[1] == -ECANCELED, "short: %d %d", res[0], res[1]);
	/* a hard link's failure does not */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, 1000, rbuf, RD_BS, 0);
	sqe->flags |= IOSQE_IO_HARDLINK;
	sqe->user_data = 0;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 1;
	CHECK(run_chain(&ring, 2, res) == 0);
	CHECK_MSG(res[0] == -EBADF && res[1] == 0, "hardlink: %d %d", res[0], res[1]);
	io_uring_queue_exit(&ring);
	close(fd);
}

static void t_vectored(void)
{
	struct io_uring ring;
	struct iovec iov[4];
	int fd = open_dev(dev_name, O_RDWR), dfd = open_dev(dev_name, O_RDONLY | O_DIRECT);

	CHECK(fd >= 0 && dfd >= 0);
	CHECK(io_uring_queue_init(4, &ring, 0) == 0);
	fill_pattern(wbuf, 26, VEC_AT, 4 * 8192);
	for (int i = 0; i < 4; i++)
		iov[i] = (struct iovec){ wbuf + i * 8192, 8192 };
	io_uring_prep_writev(io_uring_get_sqe(&ring), fd, iov, 4, VEC_AT);
	CHECK(one(&ring) == 4 * 8192);
	io_uring_prep_fsync(io_uring_get_sqe(&ring), fd, 0);
	CHECK(one(&ring) == 0);
	memset(rbuf, 0, 4 * 8192);
	for (int i = 0; i < 4; i++)
		iov[i] = (struct iovec){ rbuf + (3 - i) * 8192, 8192 };     /* reversed */
	io_uring_prep_readv(io_uring_get_sqe(&ring), fd, iov, 4, VEC_AT);
	CHECK(one(&ring) == 4 * 8192);
	for (int i = 0; i < 4 && !no_data; i++)
		CHECK_MSG(pattern_ok(rbuf + (3 - i) * 8192, 26, VEC_AT + i * 8192, 8192),
			  "readv buffer %d", i);
	/* one buffer, O_DIRECT: from the disk, not the cache */
	memset(rbuf, 0, 8192);
	iov[0] = (struct iovec){ rbuf, 8192 };
	io_uring_prep_readv(io_uring_get_sqe(&ring), dfd, iov, 1, VEC_AT + 8192);
	CHECK(one(&ring) == 8192);
	CHECK(no_data || pattern_ok(rbuf, 26, VEC_AT + 8192, 8192));
	/* offset -1: at the file's position, which moves on
	 * (IORING_FEAT_RW_CUR_POS) */
	CHECK(lseek(fd, VEC_AT + 8192, SEEK_SET) == (off_t)(VEC_AT + 8192));
	io_uring_prep_read(io_uring_get_sqe(&ring), fd, rbuf, 8192, -1);
	CHECK(one(&ring) == 8192);
	CHECK(no_data || pattern_ok(rbuf, 26, VEC_AT + 8192, 8192));
	io_uring_prep_read(io_uring_get_sqe(&ring), fd, rbuf, 8192, -1);
	CHECK(one(&ring) == 8192);
	CHECK(no_data || pattern_ok(rbuf, 26, VEC_AT + 16384, 8192));
	CHECK(lseek(fd, 0, SEEK_CUR) == (off_t)(VEC_AT + 24576));
	/* a pipe: no offset at all */
	{
		int p[2];

		CHECK(pipe(p) == 0);
		CHECK(write(p[1], "hello", 5) == 5);
		io_uring_prep_read(io_uring_get_sqe(&ring), p[0], rbuf, 64, 0);
		CHECK(one(&ring) == 5 && !memcmp(rbuf, "hello", 5));
		io_uring_prep_write(io_uring_get_sqe(&ring), p[1], "abc", 3, -1);
		CHECK(one(&ring) == 3);
		CHECK(read(p[0], rbuf, 64) == 3 && !memcmp(rbuf, "abc", 3));
		close(p[0]);
		close(p[1]);
	}
	io_uring_queue_exit(&ring);
	close(fd);
	close(dfd);
}

static void t_errors(void)
{
	struct io_uring ring;
	struct io_uring_params p;
	struct io_uring_sqe *sqe;
	int res[2], fd = open_dev(dev_name, O_RDWR | O_DIRECT);
	uint64_t data[2];
	void *hole = (void *)4096;      /* below every mapping (Linux's mmap_min_addr too) */

	CHECK(fd >= 0);
	CHECK(io_uring_queue_init(8, &ring, 0) == 0);

	io_uring_prep_read(io_uring_get_sqe(&ring), 1000, rbuf, 4096, 0);
	CHECK(one(&ring) == -EBADF);
	io_uring_prep_read(io_uring_get_sqe(&ring), fd, hole, 4096, 0);
	{ int r_ = one(&ring); CHECK_MSG(r_ == -EFAULT, "read into a hole: %d", r_); }
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, rbuf, 4096, 0);
	sqe->rw_flags = 0x40000000;     /* no RWF_* flag has this bit */
	CHECK(one(&ring) == -EOPNOTSUPP);

	/* an opcode past the last: its CQE says EINVAL and the batch stops */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->opcode = 200;
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 2;
	CHECK_MSG(io_uring_submit(&ring) == 1, "the batch went on after a bad opcode");
	CHECK(reap(&ring, 1, res, data) == 1);
	CHECK(res[0] == -EINVAL && data[0] == 1);
	CHECK(io_uring_submit(&ring) == 1);     /* the NOP, next time */
	CHECK(reap(&ring, 1, res, data) == 1);
	CHECK(res[0] == 0 && data[0] == 2);

	/* an SQ array entry past the SQE array: dropped and counted */
	{
		unsigned int tail = *ring.sq.ktail, head = *ring.sq.khead;
		unsigned int dropped = *ring.sq.kdropped;

		ring.sq.array[tail & *ring.sq.kring_mask] = 9999;
		__atomic_store_n(ring.sq.ktail, tail + 1, __ATOMIC_RELEASE);
		ring.sq.sqe_tail = ring.sq.sqe_head = tail + 1;
		CHECK(syscall(__NR_io_uring_enter, ring.ring_fd, 1, 0, 0, NULL, 0) == 0);
		CHECK_MSG(*ring.sq.kdropped == dropped + 1, "sq_dropped %u", *ring.sq.kdropped);
		CHECK_MSG(__atomic_load_n(ring.sq.khead, __ATOMIC_ACQUIRE) == head + 1,
			  "head %u, was %u", *ring.sq.khead, head);
		CHECK(io_uring_cq_ready(&ring) == 0);
	}

	/* descriptors */
	CHECK_ERR(syscall(__NR_io_uring_enter, fd, 0, 0, 0, NULL, 0), EOPNOTSUPP);
	CHECK_ERR(syscall(__NR_io_uring_enter, 1000, 0, 0, 0, NULL, 0), EBADF);
	CHECK_ERR(syscall(__NR_io_uring_register, fd, IORING_REGISTER_PROBE, NULL, 0), EOPNOTSUPP);
	CHECK_ERR(syscall(__NR_io_uring_register, 1000, IORING_REGISTER_PROBE, NULL, 0), EBADF);
	io_uring_queue_exit(&ring);

	/* setup */
	memset(&p, 0, sizeof(p));
	CHECK_ERR(syscall(__NR_io_uring_setup, 0, &p), EINVAL);
	CHECK_ERR(syscall(__NR_io_uring_setup, 40000, &p), EINVAL);
	memset(&p, 0, sizeof(p));
	p.resv[1] = 1;
	CHECK_ERR(syscall(__NR_io_uring_setup, 8, &p), EINVAL);
	CHECK_ERR(syscall(__NR_io_uring_setup, 8, (void *)8), EFAULT);
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CLAMP;
	{
		long rfd = syscall(__NR_io_uring_setup, 40000, &p);

		CHECK_MSG(rfd >= 0 && p.sq_entries == 32768 && p.cq_entries == 65536,
			  "CLAMP: fd %ld sq %u cq %u", rfd, p.sq_entries, p.cq_entries);
		if (rfd >= 0)
			close((int)rfd);
	}
	/* CQSIZE smaller than the SQ: EINVAL */
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = 4;
	CHECK_ERR(syscall(__NR_io_uring_setup, 8, &p), EINVAL);
	close(fd);
}

/* Spindle's answers where Linux 6.1 does more (-S only). */
static void t_spindle(void)
{
	struct io_uring ring;
	struct io_uring_params p;
	struct io_uring_sqe *sqe;

	if (!spindle) {
		hostile_skip("Linux does these");
		return;
	}
	/* a setup flag Spindle does not have */
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SINGLE_ISSUER;
	CHECK_ERR(syscall(__NR_io_uring_setup, 8, &p), EINVAL);

	CHECK(io_uring_queue_init(4, &ring, 0) == 0);  /* 4 SQ, 8 CQ entries */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->flags = IOSQE_IO_DRAIN;
	CHECK(one(&ring) == -EINVAL);
	io_uring_queue_exit(&ring);
}

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static void t_eintr(void)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct sigaction sa;
	pid_t parent = getpid(), pid;
	int r, fd, status;

	if (!slow_name) {
		hostile_skip("no slow disk given");
		return;
	}
	fd = open_dev(slow_name, O_RDONLY | O_DIRECT);
	CHECK(fd >= 0);
	CHECK(io_uring_queue_init(4, &ring, 0) == 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;        /* no SA_RESTART */
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	io_uring_prep_read(io_uring_get_sqe(&ring), fd, rbuf, SLOW_BS, 0);
	CHECK(io_uring_submit(&ring) == 1);
	pid = fork();
	if (pid == 0) {
		/* the signal comes once the parent sleeps for the CQE (the
		 * read takes half a second) */
		while (task_state(parent) != 'S')
			sched_yield();
		kill(parent, SIGUSR1);
		_exit(0);
	}
	r = io_uring_wait_cqe(&ring, &cqe);
	CHECK_MSG(r == -EINTR && got_usr1, "wait_cqe under a signal: %d, handler %d", r,
		  (int)got_usr1);
	waitpid(pid, &status, 0);
	do
		r = io_uring_wait_cqe(&ring, &cqe);
	while (r == -EINTR);
	CHECK(r == 0 && cqe->res == (int)SLOW_BS);
	if (r == 0)
		io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	signal(SIGUSR1, SIG_DFL);
	close(fd);
}

/* A child with 16 slow reads in flight: mode 0 exits at once, mode 1
 * unmaps its rings first, mode 2 waits for them and is killed there.
 * 0, or the child's reason. */
static int exit_one(int mode)
{
	int status = -1, pfd[2];
	pid_t pid;
	char c, state = 0;

	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		struct io_uring ring;
		struct io_uring_cqe *cqe;
		unsigned char *p = mmap(NULL, 16 * SLOW_BS, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int fd = open_dev(slow_name, O_RDONLY | O_DIRECT);

		if (p == MAP_FAILED || fd < 0 || io_uring_queue_init(16, &ring, 0))
			_exit(2);
		for (int i = 0; i < 16; i++)
			io_uring_prep_read(io_uring_get_sqe(&ring), fd, p + i * SLOW_BS, SLOW_BS,
					   i * SLOW_BS);
		if (io_uring_submit(&ring) != 16)
			_exit(3);
		if (mode == 1) {
			/* the rings go from this address space; the kernel's
			 * pages stay until the reads are done */
			size_t sqes_sz = *ring.sq.kring_entries * sizeof(struct io_uring_sqe);

			munmap(ring.sq.ring_ptr, ring.sq.ring_sz);
			munmap(ring.sq.sqes, sqes_sz);
		}
		if (write(pfd[1], "s", 1) != 1)
			_exit(4);
		if (mode == 2)
			io_uring_wait_cqe_nr(&ring, &cqe, 16);
		_exit(0);
	}
	close(pfd[1]);
	if (pid < 0 || read(pfd[0], &c, 1) != 1) {
		close(pfd[0]);
		if (pid > 0)
			waitpid(pid, &status, 0);
		return -1;
	}
	close(pfd[0]);
	if (mode == 2) {
		while ((state = task_state(pid)) != 'S' && state != 0 && state != 'Z')
			sched_yield();
		kill(pid, SIGKILL);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (mode == 2)
		return state != 'S' ? -2 : WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : -3;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void t_exit(void)
{
	long before, after;
	int r;

	if (!slow_name) {
		hostile_skip("no slow disk given");
		return;
	}
	r = exit_one(0);                /* warm up: the fork's own memory */
	CHECK_MSG(r == 0, "the first child: %d", r);
	before = mem_free_kb();
	for (int i = 0; i < EXIT_ROUNDS && r == 0; i++)
		for (int mode = 0; mode < 3 && r == 0; mode++) {
			r = exit_one(mode);
			CHECK_MSG(r == 0, "round %d, mode %d: %d", i, mode, r);
		}
	after = mem_free_kb();
	printf("io_uring: MemFree %ld kB before %d rounds of children leaving with I/O in "
	       "flight, %ld kB after\n", before, EXIT_ROUNDS, after);
	CHECK_MSG(before > 0 && after > 0 && after >= before - 512,
		  "MemFree went from %ld kB to %ld kB", before, after);
}

static void t_file(void)
{
	struct io_uring ring;
	int res[FILE_NR], fd;

	if (!file_name) {
		hostile_skip("no file given");
		return;
	}
	fd = open(file_name, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	CHECK(fd >= 0);
	CHECK(io_uring_queue_init(FILE_NR, &ring, 0) == 0);
	fill_pattern(wbuf, 25, 0, FILE_NR * FILE_BS);
	for (int i = 0; i < FILE_NR; i++)
		io_uring_prep_write(io_uring_get_sqe(&ring), fd, wbuf + i * FILE_BS, FILE_BS,
				    i * FILE_BS);
	CHECK(io_uring_submit(&ring) == FILE_NR);
	CHECK(reap(&ring, FILE_NR, res, NULL) == FILE_NR);
	for (int i = 0; i < FILE_NR; i++)
		CHECK_MSG(res[i] == (int)FILE_BS, "file write: res %d", res[i]);
	io_uring_prep_fsync(io_uring_get_sqe(&ring), fd, 0);
	CHECK(one(&ring) == 0);
	memset(rbuf, 0, FILE_NR * FILE_BS);
	for (int i = 0; i < FILE_NR; i++)
		io_uring_prep_read(io_uring_get_sqe(&ring), fd, rbuf + i * FILE_BS, FILE_BS,
				   i * FILE_BS);
	CHECK(io_uring_submit(&ring) == FILE_NR);
	CHECK(reap(&ring, FILE_NR, res, NULL) == FILE_NR);
	for (int i = 0; i < FILE_NR; i++)
		CHECK_MSG(res[i] == (int)FILE_BS, "file read: res %d", res[i]);
	CHECK(pattern_ok(rbuf, 25, 0, FILE_NR * FILE_BS));
	/* past the end: 0 bytes */
	io_uring_prep_read(io_uring_get_sqe(&ring), fd, rbuf, FILE_BS, FILE_NR * FILE_BS);
	CHECK(one(&ring) == 0);
	io_uring_queue_exit(&ring);
	close(fd);
}

int main(int argc, char **argv)
{
	static const struct hostile_case cases[] = {
		{ "probe", t_probe },
		{ "nop", t_nop },
		{ "shared", t_shared },
		{ "writes", t_writes },
		{ "reads", t_reads },
		{ "merge", t_merge },
		{ "fsync", t_fsync },
		{ "fixed", t_fixed },
		{ "files", t_files },
		{ "links", t_links },
		{ "vectored", t_vectored },
		{ "errors", t_errors },
		{ "spindle", t_spindle },
		{ "eintr", t_eintr },
		{ "exit", t_exit },
		{ "file", t_file },
	};
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-n"))
			no_data = 1;
		else if (!strcmp(argv[i], "-S"))
			spindle = 1;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: io_uring [-S] [-n] DEV [SLOWDEV [FILE]]\n");
		return 2;
	}
	dev_name = argv[i];
	slow_name = i + 1 < argc && strcmp(argv[i + 1], "-") ? argv[i + 1] : NULL;
	file_name = i + 2 < argc ? argv[i + 2] : NULL;
	return hostile_run("io_uring", cases, sizeof(cases) / sizeof(cases[0]), NULL);
}
