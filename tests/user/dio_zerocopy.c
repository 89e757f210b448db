// SPDX-License-Identifier: MIT
/*
 * dio_zerocopy DEV [SLOWDEV] - O_DIRECT on the caller's own pages.
 *
 * With zero-copy direct I/O the device's DMA reads and fills the user's
 * buffer itself (fs/block_dev.c pins its pages).  This checks what that
 * must keep true, on DEV (e.g. sda on AHCI, hda on IDE):
 *
 *   offsets   buffers at every 512-byte offset in a page, of one block,
 *             one page, 17 pages and 1 MiB, written at consecutive places
 *             from 1 MiB on with the verification pattern (seed 9, counted
 *             from the start of DEV: the host checks the raw image) and
 *             read back into a buffer at another offset;
 *   hole      a buffer whose third page is unmapped: the write is short,
 *             up to the hole, and nothing past it reaches the disk (at
 *             16 MiB: the host checks that the rest is still zeros); a
 *             buffer starting in the hole is EFAULT; the same for reads;
 *   killed    (with SLOWDEV, a disk that answers slowly) a child killed
 *             with SIGKILL while its direct read is in flight dies of it,
 *             and after several rounds free memory is back where it was:
 *             the pinned pages were released when the I/O ended.
 *
 * Prints "TEST dio_zerocopy.<case> PASS|FAIL: ..." and the closing count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <pattern.h>
#include "hostile.h"

#define SEED            9
#define AREA            (1ul << 20)     /* the offsets case writes from here */
#define HOLE_AT         (16ul << 20)    /* the hole case writes here */
#define BIG             (1ul << 20)
#define KILL_BYTES      (8ul << 20)
#define KILL_ROUNDS     4

static const char *dev_name, *slow_name;
static unsigned char buf[BIG + 8192] __attribute__((aligned(4096)));
static unsigned char back[BIG + 8192] __attribute__((aligned(4096)));

static int open_dev(const char *name, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/%s", name);
	return open(path, flags);
}

static void t_offsets(void)
{
	static const size_t lens[] = { 512, 4096, 17 * 4096, BIG };
	int fd = open_dev(dev_name, O_RDWR | O_DIRECT);
	uint64_t at = AREA;

	CHECK(fd >= 0);
	for (unsigned int off = 0; off < 4096 && fd >= 0; off += 512) {
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			size_t len = lens[l];
			unsigned int boff = (4096 - off) % 4096;
			long n;

			pattern_fill(buf + off, at, len, SEED);
			n = pwrite(fd, buf + off, len, at);
			CHECK_MSG(n == (long)len, "pwrite of %zu bytes from offset %u: %ld", len, off, n);
			memset(back, 0xa5, sizeof(back));
			n = pread(fd, back + boff, len, at);
			CHECK_MSG(n == (long)len, "pread of %zu bytes into offset %u: %ld", len, boff, n);
			CHECK_MSG(!memcmp(back + boff, buf + off, len),
				  "%zu bytes read into offset %u differ from those written", len, boff);
			CHECK_MSG(back[boff + len] == 0xa5, "the read went past its %zu bytes", len);
			at += len;
		}
	}
	printf("dio_zerocopy: offsets wrote [%lu, %llu)\n", AREA, (unsigned long long)at);
	if (fd >= 0)
		close(fd);
}

static void t_hole(void)
{
	int fd = open_dev(dev_name, O_RDWR | O_DIRECT);
	unsigned char *p = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long n;

	CHECK(fd >= 0);
	CHECK(p != MAP_FAILED);
	if (fd < 0 || p == MAP_FAILED)
		return;
	pattern_fill(p + 512, HOLE_AT, 3 * 4096, SEED);
	CHECK(munmap(p + 2 * 4096, 4096) == 0);
	n = pwrite(fd, p + 512, 3 * 4096, HOLE_AT);
	CHECK_MSG(n == 2 * 4096 - 512, "write across the hole: %ld, not the %d bytes before it",
		  n, 2 * 4096 - 512);
	CHECK_ERR(pwrite(fd, p + 2 * 4096, 4096, HOLE_AT + 65536), EFAULT);
	memset(p, 0, 2 * 4096);
	n = pread(fd, p + 512, 3 * 4096, HOLE_AT);
	CHECK_MSG(n == 2 * 4096 - 512, "read across the hole: %ld", n);
	pattern_fill(back, HOLE_AT, 2 * 4096 - 512, SEED);
	CHECK_MSG(!memcmp(p + 512, back, 2 * 4096 - 512), "what was read back is not what was written");
	CHECK_ERR(pread(fd, p + 2 * 4096 + 512, 4096, HOLE_AT), EFAULT);
	munmap(p, 4 * 4096);
	close(fd);
}

/* One child, killed in the middle of its direct read of the slow disk. */
static int kill_one_reader(void)
{
	unsigned char *p = mmap(NULL, KILL_BYTES, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open_dev(slow_name, O_RDONLY | O_DIRECT), status = 0;
	pid_t pid;
	char state;

	if (p == MAP_FAILED || fd < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		pread(fd, p, KILL_BYTES, 0);
		_exit(0);                       /* only if the kill came too late */
	}
	/* Wait until it sleeps in the I/O (state D), then kill it there. */
	while ((state = task_state(pid)) != 'D' && state != 0 && state != 'Z')
		sched_yield();
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	munmap(p, KILL_BYTES);
	close(fd);
	if (state != 'D')
		return -2;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : -3;
}

static void t_killed(void)
{
	long before, after;
	int r;

	if (!slow_name) {
		hostile_skip("no slow disk given");
		return;
	}
	r = kill_one_reader();                  /* warm up: the fork's own memory */
	CHECK_MSG(r == 0, "the first reader: %d (-2: never seen in D, -3: not killed)", r);
	before = mem_free_kb();
	for (int i = 0; i < KILL_ROUNDS && r == 0; i++) {
		r = kill_one_reader();
		CHECK_MSG(r == 0, "reader %d: %d (-2: never seen in D, -3: not killed)", i, r);
	}
	after = mem_free_kb();
	printf("dio_zerocopy: MemFree %ld kB before %d killed readers, %ld kB after\n",
	       before, KILL_ROUNDS, after);
	/* each round pinned 8 MiB; a leak would show as that much per round */
	CHECK_MSG(before > 0 && after > 0 && after >= before - 1024,
		  "MemFree went from %ld kB to %ld kB", before, after);
}

/*
 * O_DIRECT where there is no way round a cache: a tmpfs file (Linux 6.1's
 * tmpfs refuses it the same way) and a character device.  The file is
 * made all the same, as Linux's open creates it before it refuses.
 */
static void t_refused(void)
{
	CHECK_ERR(open("/tmp/dio_refused", O_RDWR | O_CREAT | O_DIRECT, 0644), EINVAL);
	CHECK(access("/tmp/dio_refused", F_OK) == 0);
	CHECK(unlink("/tmp/dio_refused") == 0);
	CHECK_ERR(open("/dev/null", O_WRONLY | O_DIRECT), EINVAL);
}

int main(int argc, char **argv)
{
	static const struct hostile_case cases[] = {
		{ "offsets", t_offsets },
		{ "hole", t_hole },
		{ "killed", t_killed },
		{ "refused", t_refused },
	};

	dev_name = argc > 1 ? argv[1] : "sda";
	slow_name = argc > 2 ? argv[2] : NULL;
	return hostile_run("dio_zerocopy", cases, sizeof(cases) / sizeof(cases[0]), NULL);
}
