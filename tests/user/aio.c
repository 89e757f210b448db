// SPDX-License-Identifier: MIT
/*
 * aio [-n] [-S] DEV [SLOWDEV] - asynchronous I/O from one process
 * (io_setup, io_submit, io_getevents, io_cancel, io_destroy; docs/aio.md).
 *
 * On DEV (sda on AHCI, hda on IDE, nullb0, or a loop device on a Linux
 * host), opened O_DIRECT:
 *
 *   writes    one io_submit of 32 writes of 64 KiB, in shuffled order,
 *             filling [1 MiB, 3 MiB) with the verification pattern (seed
 *             11, counted from the start of DEV: the host checks the
 *             image); every event: res = 64 KiB, data and obj as given;
 *   reads     512 reads of 4 KiB from that area in a random order, 32
 *             kept in flight by one process (io_getevents min_nr 1, then
 *             io_submit the next), each buffer checked against the pattern;
 *   poll      io_getevents with timeout {0, 0} returns 0 at once when
 *             nothing is done, and reaps what is;
 *   merge     32 consecutive 4 KiB writes at 4 MiB (seed 12) in ONE
 *             io_submit reach the driver merged: /sys/block/DEV/stat's
 *             write-merge counter grows and fewer than 32 write requests
 *             complete (the plug io_submit holds around its batch);
 *   fsync     a write at 5 MiB (seed 13), then IOCB_CMD_FSYNC and
 *             IOCB_CMD_FDSYNC: both events res 0;
 *   eagain    io_setup(4): submitting without reaping, the fifth request
 *             (Linux: some later one, its ring is rounded up) is EAGAIN;
 *   efault    a bad iocb array, a bad iocb pointer, a bad ctx pointer
 *             for io_setup: EFAULT; an event array that faults part way
 *             or at once loses no event (-S: the ones before the fault
 *             are returned, as Spindle copies them one by one);
 *   einval    a context that is not one (io_submit, io_getevents,
 *             io_destroy, io_cancel), io_setup with *ctxp != 0 or 0
 *             events, an unknown opcode, a negative offset, a range
 *             past 2^63 (a read, a write): EINVAL; io_cancel of a read in
 *             flight: EINVAL (block I/O cannot be called back);
 *   timeout   (SLOWDEV: half a second a request) io_getevents with a
 *             50 ms timeout returns 0 after at least 50 ms, the read
 *             still in flight; then NULL (wait) gets it;
 *   eintr     (SLOWDEV) a signal ends an io_getevents wait: -1 EINTR;
 *   destroy   (SLOWDEV) io_destroy with 8 reads in flight waits for them
 *             and returns 0; the context is gone after;
 *   remap     the ring's page munmap()ed and the address mapped again by
 *             the process (a page whose first word is 0, so that Linux
 *             finds the context too): io_destroy returns 0; with -S the
 *             process's page must still be there, intact (Linux 6.18
 *             unmaps it: it unmaps whatever is at the ring's address);
 *   exit      (SLOWDEV) children that exit with 16 reads of 64 KiB in
 *             flight, and children killed with SIGKILL while they sleep
 *             in io_getevents for theirs: the kernel waits for the reads,
 *             and after several rounds MemFree is back where it was.
 *
 * -n: DEV keeps no data (null_blk): the data checks are skipped.
 * -S: the kernel is Spindle: its exact limits (EAGAIN at nr_events + 1)
 *     are checked, not only Linux's "at some point".
 *
 * Prints "TEST aio.<case> PASS|FAIL|SKIP" and the closing count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/aio_abi.h>
#include <pattern.h>
#include "hostile.h"

#define QD              32
#define WR_AT           (1ul << 20)     /* the writes case fills [1M, 3M) */
#define WR_BS           (64ul << 10)
#define RD_BS           4096ul
#define RD_IOS          512
#define MERGE_AT        (4ul << 20)
#define FSYNC_AT        (5ul << 20)
#define SLOW_BS         (64ul << 10)
#define EXIT_ROUNDS     4

static const char *dev_name, *slow_name;
static int no_data, spindle;
static unsigned char wbuf[QD * WR_BS] __attribute__((aligned(4096)));
static unsigned char rbuf[QD * WR_BS] __attribute__((aligned(4096)));

/* The pattern's bytes for device bytes [dev_off, dev_off + len), into p
 * (lib/pattern.c's rule: word i of the device is splitmix64(seed + i)). */
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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void prep(struct iocb *cb, int op, int fd, void *buf, size_t len, uint64_t off,
		 uint64_t data)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_lio_opcode = op;
	cb->aio_fildes = fd;
	cb->aio_buf = (uint64_t)(uintptr_t)buf;
	cb->aio_nbytes = len;
	cb->aio_offset = off;
	cb->aio_data = data;
	cb->aio_key = 0x5a5a;           /* the kernel writes 0 here */
}

/* Collect exactly n events (waiting as long as it takes); how many came. */
static long reap(aio_context_t ctx, struct io_event *ev, long n)
{
	long got = 0;

	while (got < n) {
		long r = io_getevents(ctx, n - got, n - got, ev + got, NULL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	return got;
}

/* Fields of /sys/block/DEV/stat (0-based: 4 write I/Os, 5 write merges). */
static int read_stat(const char *dev, unsigned long long f[11])
{
	char path[96], text[512];

	snprintf(path, sizeof(path), "/sys/block/%s/stat", dev);
	if (read_text(path, text, sizeof(text)) < 0)
		return -1;
	char *s = text;
	for (int i = 0; i < 11; i++) {
		char *end;

		f[i] = strtoull(s, &end, 10);
		if (end == s)
			return -1;
		s = end;
	}
	return 0;
}

static void t_writes(void)
{
	static struct iocb cbs[QD];
	struct iocb *list[QD];
	struct io_event ev[QD];
	aio_context_t ctx = 0;
	int fd = open_dev(dev_name, O_RDWR | O_DIRECT);
	int seen[QD] = { 0 };

	CHECK(fd >= 0);
	CHECK(io_setup(QD, &ctx) == 0);
	fill_pattern(wbuf, 11, WR_AT, sizeof(wbuf));
	/* request k writes chunk (k * 7) % 32: every chunk once, out of order */
	for (int k = 0; k < QD; k++) {
		int c = (k * 7) % QD;

		prep(&cbs[k], IOCB_CMD_PWRITE, fd, wbuf + c * WR_BS, WR_BS, WR_AT + c * WR_BS, 1000 + c);
		list[k] = &cbs[k];
	}
	CHECK_MSG(io_submit(ctx, QD, list) == QD, "io_submit: errno %d", errno);
	CHECK(cbs[0].aio_key == 0);
	CHECK(reap(ctx, ev, QD) == QD);
	for (int i = 0; i < QD; i++) {
		struct iocb *cb = (struct iocb *)(uintptr_t)ev[i].obj;
		long c = (long)ev[i].data - 1000;

		CHECK_MSG(ev[i].res == (int64_t)WR_BS, "event %d: res %lld", i, (long long)ev[i].res);
		CHECK_MSG(c >= 0 && c < QD && cb == &cbs[(c * 23) % QD] && !seen[c],
			  "event %d: data %llu obj %p", i, (unsigned long long)ev[i].data, (void *)cb);
		if (c >= 0 && c < QD)
			seen[c] = 1;
	}
	CHECK(io_destroy(ctx) == 0);
	close(fd);
}

static void t_reads(void)
{
	static struct iocb cbs[QD];
	struct iocb *one[1];
	struct io_event ev[QD];
	aio_context_t ctx = 0;
	int fd = open_dev(dev_name, O_RDONLY | O_DIRECT);
	long sent = 0, done = 0, bad = 0, inflight = 0;
	uint64_t blocks = (2ul << 20) / RD_BS;

	CHECK(fd >= 0);
	CHECK(io_setup(QD, &ctx) == 0);
	memset(rbuf, 0xee, sizeof(rbuf));
	/* one io_submit of QD, then one more for each completion */
	while (done < RD_IOS && !hostile_failed_now) {
		while (inflight < QD && sent < RD_IOS) {
			int slot = -1;

			for (int s = 0; s < QD; s++)
				if (!cbs[s].aio_data) {
					slot = s;
					break;
				}
			uint64_t off = WR_AT + (splitmix64(77 + sent) % blocks) * RD_BS;

			prep(&cbs[slot], IOCB_CMD_PREAD, fd, rbuf + slot * RD_BS, RD_BS, off, slot + 1);
			one[0] = &cbs[slot];
			CHECK_MSG(io_submit(ctx, 1, one) == 1, "io_submit: errno %d", errno);
			sent++;
			inflight++;
		}
		long n = io_getevents(ctx, 1, QD, ev, NULL);

		CHECK_MSG(n >= 1, "io_getevents: %ld errno %d", n, errno);
		for (long i = 0; i < n; i++) {
			int slot = (int)ev[i].data - 1;
			struct iocb *cb = &cbs[slot];

			CHECK(ev[i].res == (int64_t)RD_BS);
			if (!no_data && !pattern_ok(rbuf + slot * RD_BS, 11, cb->aio_offset, RD_BS))
				bad++;
			memset(rbuf + slot * RD_BS, 0xee, RD_BS);
			cb->aio_data = 0;
			inflight--;
			done++;
		}
	}
	CHECK_MSG(bad == 0, "%ld of %ld reads had the wrong data", bad, done);
	CHECK(io_destroy(ctx) == 0);
	close(fd);
}

static void t_poll(void)
{
	struct timespec zero = { 0, 0 };
	struct io_event ev[2];
	struct iocb cb, *list[1] = { &cb };
	aio_context_t ctx = 0;
	int fd = open_dev(dev_name, O_RDONLY | O_DIRECT);
	long n = 0;

	CHECK(fd >= 0);
	CHECK(io_setup(4, &ctx) == 0);
	CHECK(io_getevents(ctx, 1, 2, ev, &zero) == 0);        /* nothing in flight */
	prep(&cb, IOCB_CMD_PREAD, fd, rbuf, RD_BS, 0, 42);
	CHECK(io_submit(ctx, 1, list) == 1);
	/* polling until it is there: each poll returns at once, 0 or 1 */
	for (int i = 0; i < 1000000 && n == 0; i++) {
		n = io_getevents(ctx, 1, 2, ev, &zero);
		CHECK(n == 0 || n == 1);
	}
	CHECK(n == 1 && ev[0].data == 42 && ev[0].res == (int64_t)RD_BS);
	CHECK(io_getevents(ctx, 0, 2, ev, &zero) == 0);        /* reaped: gone */
	CHECK(io_destroy(ctx) == 0);
	close(fd);
}

static void t_merge(void)
{
	static struct iocb cbs[QD];
	struct iocb *list[QD];
	struct io_event ev[QD];
	unsigned long long before[11], after[11];
	aio_context_t ctx = 0;
	int fd = open_dev(dev_name, O_RDWR | O_DIRECT);

	CHECK(fd >= 0);
	CHECK(io_setup(QD, &ctx) == 0);
	fill_pattern(wbuf, 12, MERGE_AT, QD * RD_BS);
	for (int i = 0; i < QD; i++) {
		prep(&cbs[i], IOCB_CMD_PWRITE, fd, wbuf + i * RD_BS, RD_BS, MERGE_AT + i * RD_BS, i);
		list[i] = &cbs[i];
	}
	CHECK(read_stat(dev_name, before) == 0);
	CHECK(io_submit(ctx, QD, list) == QD);
	CHECK(reap(ctx, ev, QD) == QD);
	CHECK(read_stat(dev_name, after) == 0);
	for (int i = 0; i < QD; i++)
		CHECK(ev[i].res == (int64_t)RD_BS);
	unsigned long long ios = after[4] - before[4], merges = after[5] - before[5];

	printf("aio: 32 writes of 4 KiB in one io_submit: %llu requests, %llu merges\n", ios, merges);
	CHECK_MSG(merges > 0 && ios < QD, "%llu write requests, %llu merges", ios, merges);
	CHECK(io_destroy(ctx) == 0);
	close(fd);
}

static void t_fsync(void)
{
	struct iocb cb[3], *list[3] = { &cb[0], &cb[1], &cb[2] };
	struct io_event ev[3];
	aio_context_t ctx = 0;
	int fd = open_dev(dev_name, O_RDWR | O_DIRECT);

	CHECK(fd >= 0);
	CHECK(io_setup(8, &ctx) == 0);
	fill_pattern(wbuf, 13, FSYNC_AT, RD_BS);
	prep(&cb[0], IOCB_CMD_PWRITE, fd, wbuf, RD_BS, FSYNC_AT, 1);
	CHECK(io_submit(ctx, 1, list) == 1);
	CHECK(reap(ctx, ev, 1) == 1 && ev[0].res == (int64_t)RD_BS);
	prep(&cb[1], IOCB_CMD_FSYNC, fd, NULL, 0, 0, 2);
	prep(&cb[2], IOCB_CMD_FDSYNC, fd, NULL, 0, 0, 3);
	CHECK(io_submit(ctx, 2, list + 1) == 2);
	CHECK(reap(ctx, ev, 2) == 2);
	CHECK_MSG(ev[0].res == 0 && ev[1].res == 0, "fsync res %lld, fdatasync res %lld",
		  (long long)ev[0].res, (long long)ev[1].res);
	CHECK(ev[0].data + ev[1].data == 5);
	CHECK(io_destroy(ctx) == 0);
	close(fd);
}

static void t_eagain(void)
{
	static struct iocb cbs[4096];
	static struct io_event ev[4096];
	aio_context_t ctx = 0;
	int fd = open_dev(dev_name, O_RDONLY | O_DIRECT);
	int n = 0;
	long r = 0;

	CHECK(fd >= 0);
	CHECK(io_setup(4, &ctx) == 0);
	/* all into one page of rbuf: the data is not looked at */
	while (n < 4096) {
		struct iocb *one = &cbs[n];

		prep(&cbs[n], IOCB_CMD_PREAD, fd, rbuf, RD_BS, 0, n);
		r = io_submit(ctx, 1, &one);
		if (r != 1)
			break;
		n++;
	}
	CHECK_MSG(r == -1 && errno == EAGAIN, "after %d requests io_submit gave %ld errno %d",
		  n, r, errno);
	CHECK_MSG(n >= 4, "only %d of nr_events 4 fitted", n);
	if (spindle)
		CHECK_MSG(n == 4, "%d requests fitted, nr_events 4", n);
	CHECK(reap(ctx, ev, n) == n);
	struct iocb *one = &cbs[0];        /* room again once reaped */
	CHECK(io_submit(ctx, 1, &one) == 1);
	CHECK(io_destroy(ctx) == 0);
	close(fd);
}

/*
 * io_getevents into an array whose third entry crosses into an unmapped
 * page: what was not copied stays for the next call.  Linux copies a
 * ring page's events at once (all or EFAULT), Spindle one by one (the
 * two that fit, -S), but neither loses an event: the three reads are
 * reaped, each once, with a good array after.  A wholly bad array is
 * EFAULT and loses nothing either.
 */
static void efault_keeps_events(aio_context_t ctx, int fd)
{
	struct iocb cbs[3], *list[3] = { &cbs[0], &cbs[1], &cbs[2] };
	struct io_event ev[3], *split;
	unsigned char *area = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long r, got = 0, seen = 0;

	CHECK(area != MAP_FAILED && munmap(area + 4096, 4096) == 0);
	split = (struct io_event *)(area + 4096 - 2 * sizeof(*split) - 16);
	for (int i = 0; i < 3; i++)
		prep(&cbs[i], IOCB_CMD_PREAD, fd, rbuf + i * RD_BS, RD_BS, (uint64_t)i * RD_BS, 1 << i);
	CHECK(io_submit(ctx, 3, list) == 3);
	r = io_getevents(ctx, 3, 3, split, NULL);
	CHECK_MSG(r == 2 || (r == -1 && errno == EFAULT && !spindle),
		  "io_getevents into a split array: %ld errno %d", r, errno);
	for (long i = 0; i < r; i++) {
		seen |= (long)split[i].data;
		got++;
	}
	CHECK_ERR(io_getevents(ctx, 1, 1, (struct io_event *)(area + 4096), NULL), EFAULT);
	got += reap(ctx, ev, 3 - got);
	for (long i = 0; i < 3 - (r > 0 ? r : 0); i++)
		seen |= (long)ev[i].data;
	CHECK_MSG(got == 3 && seen == 7, "reaped %ld events, data mask %#lx", got, seen);
	munmap(area, 4096);
}

static void t_efault(void)
{
	struct iocb *bad = (struct iocb *)8, *list[1] = { bad };
	aio_context_t ctx = 0;
	int fd = open_dev(dev_name, O_RDONLY | O_DIRECT);

	CHECK(fd >= 0);
	CHECK_ERR(io_setup(4, (aio_context_t *)8), EFAULT);
	CHECK(io_setup(4, &ctx) == 0);
	CHECK_ERR(io_submit(ctx, 1, (struct iocb **)8), EFAULT);
	CHECK_ERR(io_submit(ctx, 1, list), EFAULT);
	efault_keeps_events(ctx, fd);
	CHECK(io_destroy(ctx) == 0);
	close(fd);
}

static void t_einval(void)
{
	struct iocb cb, *list[1] = { &cb };
	struct io_event ev[1];
	aio_context_t ctx = 0, junk = 12345;
	int fd = open_dev(slow_name ? slow_name : dev_name, O_RDONLY | O_DIRECT);
	int wfd = open_dev(dev_name, O_RDWR | O_DIRECT);

	CHECK(fd >= 0 && wfd >= 0);
	CHECK_ERR(io_submit(0, 1, list), EINVAL);
	CHECK_ERR(io_submit(0xdead000, 1, list), EINVAL);
	CHECK_ERR(io_getevents(0xdead000, 0, 1, ev, NULL), EINVAL);
	CHECK_ERR(io_destroy(0xdead000), EINVAL);
	CHECK_ERR(io_cancel(0xdead000, &cb, ev), EINVAL);
	CHECK_ERR(io_setup(4, &junk), EINVAL);
	CHECK_ERR(io_setup(0, &ctx), EINVAL);
	CHECK(io_setup(4, &ctx) == 0);
	CHECK_ERR(io_getevents(ctx, 2, 1, ev, NULL), EINVAL);   /* min_nr > nr */
	prep(&cb, 99, fd, rbuf, RD_BS, 0, 1);
	CHECK_ERR(io_submit(ctx, 1, list), EINVAL);
	prep(&cb, IOCB_CMD_PREAD, fd, rbuf, RD_BS, -4096, 1);
	CHECK_ERR(io_submit(ctx, 1, list), EINVAL);
	/* a range past 2^63 is not a position (Linux's rw_verify_area):
	 * refused by io_submit, for a write as for a read */
	prep(&cb, IOCB_CMD_PREAD, fd, rbuf, 2 * RD_BS, INT64_MAX - (RD_BS - 1), 1);
	CHECK_ERR(io_submit(ctx, 1, list), EINVAL);
	prep(&cb, IOCB_CMD_PWRITE, wfd, wbuf, 2 * RD_BS, INT64_MAX - (RD_BS - 1), 1);
	CHECK_ERR(io_submit(ctx, 1, list), EINVAL);
	/* a read in flight (on the slow disk, if there is one, it stays
	 * in flight for half a second) cannot be called back */
	prep(&cb, IOCB_CMD_PREAD, fd, rbuf, RD_BS, 0, 1);
	CHECK(io_submit(ctx, 1, list) == 1);
	CHECK_ERR(io_cancel(ctx, &cb, ev), EINVAL);
	CHECK(reap(ctx, ev, 1) == 1 && ev[0].res == (int64_t)RD_BS);
	CHECK(io_destroy(ctx) == 0);
	CHECK_ERR(io_destroy(ctx), EINVAL);                     /* gone */
	close(wfd);
	close(fd);
}

static void t_timeout(void)
{
	struct timespec t50 = { 0, 50 * 1000 * 1000 };
	struct iocb cb, *list[1] = { &cb };
	struct io_event ev[1];
	aio_context_t ctx = 0;
	uint64_t t0, dt;
	int fd;
	long n;

	if (!slow_name) {
		hostile_skip("no slow disk given");
		return;
	}
	fd = open_dev(slow_name, O_RDONLY | O_DIRECT);
	CHECK(fd >= 0);
	CHECK(io_setup(4, &ctx) == 0);
	prep(&cb, IOCB_CMD_PREAD, fd, rbuf, SLOW_BS, 0, 7);
	CHECK(io_submit(ctx, 1, list) == 1);
	t0 = now_ns();
	n = io_getevents(ctx, 1, 1, ev, &t50);
	dt = now_ns() - t0;
	CHECK_MSG(n == 0, "io_getevents with a 50 ms timeout: %ld", n);
	CHECK_MSG(dt >= 50000000u, "returned after %llu us, before the 50 ms", (unsigned long long)dt / 1000);
	CHECK(io_getevents(ctx, 1, 1, ev, NULL) == 1 && ev[0].data == 7 &&
	      ev[0].res == (int64_t)SLOW_BS);
	CHECK(io_destroy(ctx) == 0);
	close(fd);
}

static volatile int got_usr1;
static void on_usr1(int sig) { (void)sig; got_usr1 = 1; }

static void t_eintr(void)
{
	struct iocb cb, *list[1] = { &cb };
	struct io_event ev[1];
	aio_context_t ctx = 0;
	struct sigaction sa;
	pid_t parent = getpid(), pid;
	int fd, status;
	long n;

	if (!slow_name) {
		hostile_skip("no slow disk given");
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	fd = open_dev(slow_name, O_RDONLY | O_DIRECT);
	CHECK(fd >= 0);
	CHECK(io_setup(4, &ctx) == 0);
	prep(&cb, IOCB_CMD_PREAD, fd, rbuf, SLOW_BS, 0, 8);
	CHECK(io_submit(ctx, 1, list) == 1);
	pid = fork();
	if (pid == 0) {
		/* the signal must come while the parent waits: the read
		 * takes 500 ms, the signal comes after 100 */
		struct timespec t = { 0, 100 * 1000 * 1000 };

		nanosleep(&t, NULL);
		kill(parent, SIGUSR1);
		_exit(0);
	}
	errno = 0;
	n = io_getevents(ctx, 1, 1, ev, NULL);
	CHECK_MSG(n == -1 && errno == EINTR && got_usr1, "io_getevents: %ld errno %d, handler %d",
		  n, errno, got_usr1);
	waitpid(pid, &status, 0);
	CHECK(reap(ctx, ev, 1) == 1 && ev[0].res == (int64_t)SLOW_BS);
	CHECK(io_destroy(ctx) == 0);
	signal(SIGUSR1, SIG_DFL);
	close(fd);
}

static void t_destroy(void)
{
	static struct iocb cbs[8];
	struct iocb *list[8];
	struct io_event ev[1];
	aio_context_t ctx = 0;
	uint64_t t0, dt;
	int fd;

	if (!slow_name) {
		hostile_skip("no slow disk given");
		return;
	}
	fd = open_dev(slow_name, O_RDONLY | O_DIRECT);
	CHECK(fd >= 0);
	CHECK(io_setup(8, &ctx) == 0);
	for (int i = 0; i < 8; i++) {
		prep(&cbs[i], IOCB_CMD_PREAD, fd, rbuf + i * SLOW_BS, SLOW_BS, i * SLOW_BS, i);
		list[i] = &cbs[i];
	}
	CHECK(io_submit(ctx, 8, list) == 8);
	t0 = now_ns();
	CHECK(io_destroy(ctx) == 0);
	dt = now_ns() - t0;
	printf("aio: io_destroy with 8 slow reads in flight took %llu ms\n",
	       (unsigned long long)dt / 1000000);
	/* the reads take half a second: it waited for them */
	CHECK_MSG(dt >= 100000000u, "io_destroy returned after %llu us", (unsigned long long)dt / 1000);
	CHECK_ERR(io_getevents(ctx, 0, 1, ev, NULL), EINVAL);
	close(fd);
}

static void t_remap(void)
{
	long psz = 4096; /* x86-64 */
	aio_context_t ctx = 0;
	char *p;
	int mapped;

	CHECK(io_setup(4, &ctx) == 0);
	CHECK(munmap((void *)(uintptr_t)ctx, psz) == 0);
	p = mmap((void *)(uintptr_t)ctx, psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(p == (void *)(uintptr_t)ctx);
	if (p != (void *)(uintptr_t)ctx)
		return;
	strcpy(p + 100, "not the ring");
	CHECK(io_destroy(ctx) == 0);
	/* msync answers ENOMEM for an address nothing maps */
	mapped = msync(p, psz, MS_ASYNC) == 0;
	printf("aio: after io_destroy the page at the ring's address is %s\n",
	       mapped ? "still mapped" : "gone");
	if (spindle) {
		CHECK_MSG(mapped, "io_destroy unmapped the process's own page");
		CHECK(mapped && strcmp(p + 100, "not the ring") == 0);
	}
	if (mapped)
		munmap(p, psz);
}

/* A child that leaves with 16 reads in flight; its exit status, or -1. */
static int exit_one(void)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		static struct iocb cbs[16];
		struct iocb *list[16];
		unsigned char *p = mmap(NULL, 16 * SLOW_BS, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		aio_context_t ctx = 0;
		int fd = open_dev(slow_name, O_RDONLY | O_DIRECT);

		if (p == MAP_FAILED || fd < 0 || io_setup(16, &ctx))
			_exit(2);
		for (int i = 0; i < 16; i++) {
			prep(&cbs[i], IOCB_CMD_PREAD, fd, p + i * SLOW_BS, SLOW_BS, i * SLOW_BS, i);
			list[i] = &cbs[i];
		}
		_exit(io_submit(ctx, 16, list) == 16 ? 0 : 3);  /* no reaping */
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * A child with 16 reads in flight, asleep in io_getevents, killed there:
 * it must die of SIGKILL (the wait is interruptible) and its exit must
 * wait for the reads.  0, or -1 (no child), -2 (never seen asleep), -3
 * (not killed by the signal).
 */
static int kill_one(void)
{
	int status = 0, pfd[2];
	pid_t pid;
	char state, c;

	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		static struct iocb cbs[16];
		static struct io_event ev[16];
		struct iocb *list[16];
		aio_context_t ctx = 0;
		int fd = open_dev(slow_name, O_RDONLY | O_DIRECT);

		if (fd < 0 || io_setup(16, &ctx))
			_exit(2);
		for (int i = 0; i < 16; i++) {
			prep(&cbs[i], IOCB_CMD_PREAD, fd, rbuf + i * SLOW_BS, SLOW_BS, i * SLOW_BS, i);
			list[i] = &cbs[i];
		}
		if (io_submit(ctx, 16, list) != 16)
			_exit(3);
		write(pfd[1], "s", 1);          /* submitted: now it waits */
		io_getevents(ctx, 16, 16, ev, NULL);
		_exit(0);                       /* only if the kill came too late */
	}
	close(pfd[1]);
	if (pid < 0 || read(pfd[0], &c, 1) != 1) {
		close(pfd[0]);
		if (pid > 0)
			waitpid(pid, &status, 0);
		return -1;
	}
	close(pfd[0]);
	/* wait until it sleeps in io_getevents (state S), then kill it there */
	while ((state = task_state(pid)) != 'S' && state != 0 && state != 'Z')
		sched_yield();
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (state != 'S')
		return -2;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : -3;
}

static void t_exit(void)
{
	long before, after;
	int r;

	if (!slow_name) {
		hostile_skip("no slow disk given");
		return;
	}
	r = exit_one();                 /* warm up: the fork's own memory */
	CHECK_MSG(r == 0, "the first child: %d", r);
	before = mem_free_kb();
	for (int i = 0; i < EXIT_ROUNDS && r == 0; i++) {
		r = exit_one();
		CHECK_MSG(r == 0, "child %d: %d", i, r);
		if (r == 0) {
			r = kill_one();
			CHECK_MSG(r == 0, "killed child %d: %d (-2: never seen asleep, -3: not killed)",
				  i, r);
		}
	}
	after = mem_free_kb();
	printf("aio: MemFree %ld kB before %d children exited and %d were killed with AIO in "
	       "flight, %ld kB after\n", before, EXIT_ROUNDS, EXIT_ROUNDS, after);
	/* each child pinned 1 MiB and had a context: a leak shows per round */
	CHECK_MSG(before > 0 && after > 0 && after >= before - 512,
		  "MemFree went from %ld kB to %ld kB", before, after);
}

int main(int argc, char **argv)
{
	static const struct hostile_case cases[] = {
		{ "writes", t_writes },
		{ "reads", t_reads },
		{ "poll", t_poll },
		{ "merge", t_merge },
		{ "fsync", t_fsync },
		{ "eagain", t_eagain },
		{ "efault", t_efault },
		{ "einval", t_einval },
		{ "timeout", t_timeout },
		{ "eintr", t_eintr },
		{ "destroy", t_destroy },
		{ "remap", t_remap },
		{ "exit", t_exit },
	};
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-n"))
			no_data = 1;
		else if (!strcmp(argv[i], "-S"))
			spindle = 1;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: aio [-n] [-S] DEV [SLOWDEV]\n");
		return 2;
	}
	dev_name = argv[i];
	slow_name = i + 1 < argc ? argv[i + 1] : NULL;
	return hostile_run("aio", cases, sizeof(cases) / sizeof(cases[0]), NULL);
}
