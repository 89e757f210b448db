// SPDX-License-Identifier: MIT
/*
 * mmap DIR [DEV [CASE]] - memory-mapped files (docs/memory.md, "File
 * mappings"), one TEST line per case.  DIR is a directory on an ext2
 * file system mounted read-write; DEV a block device name under /dev
 * whose bytes [DEV_AT, DEV_AT + DEV_LEN) may be overwritten ("-": none).
 *
 *   read      a file read through MAP_PRIVATE equals read(2), from an
 *             offset mapping too
 *   shared    MAP_SHARED writes a pattern (seed SHARED_SEED) over DIR/shared,
 *             msync(MS_SYNC): the host finds it in the image (debugfs dump)
 *   private   MAP_PRIVATE writes stay in the process: read(2) and a second
 *             mapping see the file, DIR/private keeps its pattern (host)
 *   uaccess   read(2) into a fresh MAP_PRIVATE mapping and write(2) from
 *             a fresh MAP_SHARED one: the kernel's user copies fault the
 *             file's pages in (and copy on write) like the process would
 *   sigbus    an access past EOF gets SIGBUS: a mapping longer than the
 *             file, and a mapped page after ftruncate cut it off
 *   errors    Linux's errno for bad arguments
 *   fork      MAP_SHARED pages shared with a child both ways; MAP_PRIVATE
 *             copies are the writer's own
 *   madvise   MADV_DONTNEED: a shared mapping rereads the cache (the
 *             write kept), a private one the file (the copy gone);
 *             MADV_WILLNEED accepted
 *   mprotect  a shared mapping made read-only faults on a write (SIGSEGV),
 *             and cannot be made writable when the fd was read-only
 *   reclaim   mapped page-cache pages survive memory pressure: a child
 *             touches anonymous memory until it is refused (SIGSEGV),
 *             which makes reclaim take every clean cache page it may;
 *             the parent's mapping must still read the file's pattern
 *             (a reclaimed page would be reused, and read as zeros)
 *   fault     one read fault on DIR/cold (if it exists: the scenario makes
 *             it and remounts, so that the page is not cached) at page
 *             FAULT_PAGE -- the fault whose path docs/memory.md traces
 *   bdev      MAP_SHARED of /dev/DEV written with the pattern (seed DEV_SEED,
 *             offsets counted from the device's start) and msync'd: the
 *             host checks the image with tools/pattern-check.py
 * Runs on Linux too (make check-user does not run it: it needs a disk).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <pattern.h>
#include "hostile.h"


#define PG              4096ul
#define FILE_LEN        (64 * PG + 100)         /* a ragged last page */
#define SHARED_LEN      (256 * 1024ul)
#define SHARED_SEED     11
#define PRIVATE_SEED    12
#define DEV_SEED        13
#define FAULT_PAGE      40
#define DEV_AT          (1ul << 20)
#define DEV_LEN         (1ul << 20)

static const char *dir, *dev;
static unsigned char buf[2 * SHARED_LEN];

static void path(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

/* A file of len bytes holding the pattern for seed (offsets from its start). */
static int make_file(const char *name, size_t len, uint64_t seed)
{
	char p[256];
	int fd;

	path(p, sizeof(p), name);
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	pattern_fill(buf, 0, (len + 7) & ~7ul, seed);
	if (write(fd, buf, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return fd;
}

/* How child() ended: its signal, or 0 for a normal exit. */
static int child_signal(void (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void touch_read(void *p) { (void)*(volatile char *)p; }
static void touch_write(void *p) { *(volatile char *)p = 1; }

static void t_read(void)
{
	int fd = make_file("r", FILE_LEN, 1);
	unsigned char *m, *m2;
	size_t len = FILE_LEN;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	CHECK(pread(fd, buf, len, 0) == (ssize_t)len);
	CHECK_MSG(!memcmp(m, buf, len), "the mapping differs from read(2)");
	/* the rest of the last page reads as zeros, as Linux */
	for (size_t i = len; i < ((len + PG - 1) & ~(PG - 1)); i++)
		if (m[i]) {
			CHECK_MSG(0, "byte %zu past EOF is %#x", i, m[i]);
			break;
		}
	m2 = mmap(NULL, 2 * PG, PROT_READ, MAP_SHARED, fd, 8 * PG);
	CHECK(m2 != MAP_FAILED);
	if (m2 != MAP_FAILED) {
		CHECK_MSG(!memcmp(m2, buf + 8 * PG, 2 * PG), "an offset mapping differs");
		munmap(m2, 2 * PG);
	}
	munmap(m, len);
	close(fd);
}

static void t_shared(void)
{
	char p[256];
	unsigned char *m;
	int fd;

	path(p, sizeof(p), "shared");
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(ftruncate(fd, SHARED_LEN) == 0);  /* a hole: blocks come at write-back */
	m = mmap(NULL, SHARED_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	pattern_fill(m, 0, SHARED_LEN, SHARED_SEED);
	CHECK(msync(m, SHARED_LEN, MS_SYNC) == 0);
	/* written again after the msync: the next one finds it (PTE dirty bit) */
	pattern_fill(m + SHARED_LEN / 2, SHARED_LEN / 2, PG, SHARED_SEED);
	CHECK(msync(m, SHARED_LEN, MS_SYNC) == 0);
	CHECK(pread(fd, buf, SHARED_LEN, 0) == (ssize_t)SHARED_LEN);
	CHECK_MSG(!memcmp(m, buf, SHARED_LEN), "read(2) does not see the mapping's writes");
	CHECK(fsync(fd) == 0);
	munmap(m, SHARED_LEN);
	close(fd);
}

static void t_private(void)
{
	int fd = make_file("private", 4 * PG, PRIVATE_SEED);
	unsigned char *m, *m2;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	m = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	m2 = mmap(NULL, 4 * PG, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED && m2 != MAP_FAILED);
	if (m == MAP_FAILED || m2 == MAP_FAILED)
		return;
	(void)*(volatile char *)(m + PG);       /* mapped read-only first: COW later */
	memset(m, 0xaa, 2 * PG);
	CHECK(m[0] == 0xaa && m[2 * PG - 1] == 0xaa);
	CHECK(msync(m, 4 * PG, MS_SYNC) == 0);
	pattern_fill(buf, 0, 4 * PG, PRIVATE_SEED);
	CHECK_MSG(!memcmp(m + 2 * PG, buf + 2 * PG, 2 * PG), "unwritten private pages changed");
	CHECK_MSG(!memcmp(m2, buf, 4 * PG), "a shared mapping sees a private write");
	CHECK(pread(fd, buf + 4 * PG, 4 * PG, 0) == (ssize_t)(4 * PG));
	CHECK_MSG(!memcmp(buf + 4 * PG, buf, 4 * PG), "read(2) sees a private write");
	CHECK(fsync(fd) == 0);
	munmap(m, 4 * PG);
	munmap(m2, 4 * PG);
	close(fd);
}

static void t_uaccess(void)
{
	int fd = make_file("ua", 8 * PG, 7), out = make_file("ua2", 0, 0);
	unsigned char *pv, *sh;

	CHECK(fd >= 0 && out >= 0);
	if (fd < 0 || out < 0)
		return;
	pv = mmap(NULL, 8 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	sh = mmap(NULL, 8 * PG, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(pv != MAP_FAILED && sh != MAP_FAILED);
	if (pv == MAP_FAILED || sh == MAP_FAILED)
		return;
	/* the kernel writes into pages the process never touched */
	CHECK(pread(fd, pv, 4 * PG, 4 * PG) == (ssize_t)(4 * PG));
	pattern_fill(buf, 0, 8 * PG, 7);
	CHECK_MSG(!memcmp(pv, buf + 4 * PG, 4 * PG), "read(2) into a private mapping");
	CHECK_MSG(!memcmp(sh, buf, 8 * PG), "the file changed under a private mapping");
	munmap(sh, 8 * PG);
	sh = mmap(NULL, 8 * PG, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(sh != MAP_FAILED);
	if (sh == MAP_FAILED)
		return;
	/* ... and reads from pages the process never touched */
	CHECK(write(out, sh, 8 * PG) == (ssize_t)(8 * PG));
	CHECK(pread(out, buf + 8 * PG, 8 * PG, 0) == (ssize_t)(8 * PG));
	CHECK_MSG(!memcmp(buf + 8 * PG, buf, 8 * PG), "write(2) from a shared mapping");
	/* write(2) of a page from a fresh mapping of that very page: the
	 * fault on the source must not wait for the page write() locks */
	munmap(sh, 8 * PG);
	sh = mmap(NULL, 8 * PG, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(sh != MAP_FAILED);
	if (sh != MAP_FAILED) {
		CHECK(pwrite(fd, sh + PG, 100, PG) == 100);
		CHECK(!memcmp(sh + PG, buf + PG, 100));
	}
	munmap(pv, 8 * PG);
	munmap(sh, 8 * PG);
	close(fd);
	close(out);
}

static void t_sigbus(void)
{
	int fd = make_file("bus", 2 * PG, 2);
	unsigned char *m;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	m = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	CHECK_MSG(child_signal(touch_read, m + PG) == 0, "a page inside the file faulted");
	CHECK_MSG(child_signal(touch_read, m + 3 * PG) == SIGBUS, "a page past EOF: no SIGBUS");
	m[PG] = 7;                              /* mapped now, in this process */
	CHECK(ftruncate(fd, 100) == 0);
	CHECK_MSG(child_signal(touch_read, m + PG) == SIGBUS, "a page cut off by ftruncate: no SIGBUS");
	/* ours too, not only a fresh child's: the PTE went */
	CHECK_MSG(child_signal(touch_write, m + PG + 5) == SIGBUS, "a write past the new EOF");
	CHECK(m[50] == 2 || m[50] != 0);        /* the first page is still there */
	CHECK_MSG(m[200] == 0, "the tail past the new EOF is not zero");
	munmap(m, 4 * PG);
	close(fd);
}

static void t_errors(void)
{
	char p[256];
	int rw = make_file("err", 2 * PG, 3), ro, wo, d;
	void *m;

	path(p, sizeof(p), "err");
	ro = open(p, O_RDONLY);
	wo = open(p, O_WRONLY);
	d = open(dir, O_RDONLY);
	CHECK(rw >= 0 && ro >= 0 && wo >= 0 && d >= 0);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, MAP_SHARED, rw, 100), EINVAL);
	CHECK_ERR(mmap(NULL, 0, PROT_READ, MAP_SHARED, rw, 0), EINVAL);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, MAP_SHARED, 999, 0), EBADF);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, MAP_SHARED, d, 0), ENODEV);
	CHECK_ERR(mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0), EACCES);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, MAP_SHARED, wo, 0), EACCES);
	CHECK_ERR(mmap(NULL, PG, PROT_READ, 0, rw, 0), EINVAL);
	/* a private writable mapping of a read-only fd is fine */
	m = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, ro, 0);
	CHECK(m != MAP_FAILED);
	if (m != MAP_FAILED)
		munmap(m, PG);
	m = mmap(NULL, PG, PROT_READ, MAP_SHARED, ro, 0);
	CHECK(m != MAP_FAILED);
	if (m != MAP_FAILED) {
		CHECK_ERR(mprotect(m, PG, PROT_READ | PROT_WRITE), EACCES);
		CHECK_ERR(msync((char *)m + 1, PG, MS_SYNC), EINVAL);
		CHECK_ERR(msync(m, PG, MS_SYNC | MS_ASYNC), EINVAL);
		CHECK_ERR(msync(m, PG, 0x100), EINVAL);
		munmap(m, PG);
		CHECK_ERR(msync(m, PG, MS_SYNC), ENOMEM);
	}
	close(rw);
	close(ro);
	close(wo);
	close(d);
}

static void t_fork(void)
{
	int fd = make_file("fork", 4 * PG, 4), status;
	unsigned char *s, *pv;
	pid_t pid;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	s = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	pv = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(s != MAP_FAILED && pv != MAP_FAILED);
	if (s == MAP_FAILED || pv == MAP_FAILED)
		return;
	s[0] = 'P';                     /* the parent's shared write, before */
	pv[0] = 'p';                    /* the parent's private copy, before */
	(void)*(volatile char *)(pv + PG);      /* a private page not written */
	pid = fork();
	if (pid == 0) {
		int ok = s[0] == 'P' && pv[0] == 'p';

		s[PG] = 'C';            /* seen by the parent */
		pv[PG] = 'c';           /* not seen by anyone */
		pv[0] = 'x';            /* the child's own copy */
		_exit(ok ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child saw other pages");
	CHECK_MSG(s[PG] == 'C', "the child's shared write is not the parent's");
	CHECK_MSG(pv[0] == 'p', "the child's private write reached the parent");
	CHECK_MSG(pv[PG] != 'c', "the child's private write reached the parent");
	CHECK(pread(fd, buf, 2, 0) == 2 && buf[0] == 'P');
	CHECK(pread(fd, buf, 1, PG) == 1 && buf[0] == 'C');
	munmap(s, 4 * PG);
	munmap(pv, 4 * PG);
	close(fd);
}

static void t_madvise(void)
{
	int fd = make_file("madv", 4 * PG, 5);
	unsigned char *s, *pv, first;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	s = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	pv = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(s != MAP_FAILED && pv != MAP_FAILED);
	if (s == MAP_FAILED || pv == MAP_FAILED)
		return;
	first = pv[PG];
	s[0] = 0x5a;
	pv[PG] = (unsigned char)(first + 1);
	CHECK(madvise(s, 4 * PG, MADV_DONTNEED) == 0);
	CHECK(madvise(pv, 4 * PG, MADV_DONTNEED) == 0);
	CHECK_MSG(s[0] == 0x5a, "a shared write lost to MADV_DONTNEED");
	CHECK_MSG(pv[PG] == first, "a private copy survived MADV_DONTNEED");
	CHECK(madvise(s, 4 * PG, MADV_WILLNEED) == 0);
	munmap(s, 4 * PG);
	munmap(pv, 4 * PG);
	close(fd);
}

static void t_mprotect(void)
{
	int fd = make_file("prot", 2 * PG, 6);
	unsigned char *m;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	m = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	m[0] = 1;
	CHECK(mprotect(m, 2 * PG, PROT_READ) == 0);
	CHECK_MSG(child_signal(touch_write, m) == SIGSEGV, "a write to a read-only mapping");
	CHECK(mprotect(m, 2 * PG, PROT_READ | PROT_WRITE) == 0);
	m[PG] = 2;
	CHECK(msync(m, 2 * PG, MS_SYNC) == 0);
	CHECK(pread(fd, buf, 1, PG) == 1 && buf[0] == 2);
	munmap(m, 2 * PG);
	close(fd);
}

#define RECLAIM_LEN     SHARED_LEN              /* fits buf */
#define RECLAIM_SEED    8
#define HOG_LEN         (1ul << 32)             /* more than the guest has */

static void hog(void *unused)
{
	char *p = mmap(NULL, HOG_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)unused;
	if (p == MAP_FAILED)
		return;
	for (unsigned long i = 0; i < HOG_LEN; i += PG)
		p[i] = 1;
}

static void t_reclaim(void)
{
	int fd = make_file("recl", RECLAIM_LEN, RECLAIM_SEED), sig;
	unsigned char *m;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	m = mmap(NULL, RECLAIM_LEN, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	pattern_fill(buf, 0, RECLAIM_LEN / 2, RECLAIM_SEED);
	CHECK(!memcmp(m, buf, RECLAIM_LEN / 2));        /* every page mapped */
	pattern_fill(buf, RECLAIM_LEN / 2, RECLAIM_LEN / 2, RECLAIM_SEED);
	CHECK(!memcmp(m + RECLAIM_LEN / 2, buf, RECLAIM_LEN / 2));
	sig = child_signal(hog, NULL);
	/* Linux's OOM killer sends SIGKILL; Spindle refuses the fault */
	CHECK_MSG(sig == SIGSEGV || sig == SIGKILL || sig == 0, "the hog ended with signal %d", sig);
	pattern_fill(buf, 0, RECLAIM_LEN / 2, RECLAIM_SEED);
	CHECK_MSG(!memcmp(m, buf, RECLAIM_LEN / 2), "a mapped page changed under memory pressure");
	pattern_fill(buf, RECLAIM_LEN / 2, RECLAIM_LEN / 2, RECLAIM_SEED);
	CHECK_MSG(!memcmp(m + RECLAIM_LEN / 2, buf, RECLAIM_LEN / 2),
		  "a mapped page changed under memory pressure");
	munmap(m, RECLAIM_LEN);
	close(fd);
}

static void t_fault(void)
{
	char p[256];
	unsigned char *m;
	int fd;

	path(p, sizeof(p), "cold");
	fd = open(p, O_RDONLY);
	if (fd < 0) {
		hostile_skip("no cold file");
		return;
	}
	m = mmap(NULL, 2 * FAULT_PAGE * PG, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	printf("fault at page %d: %#x\n", FAULT_PAGE, m[FAULT_PAGE * PG]);
	munmap(m, 2 * FAULT_PAGE * PG);
	close(fd);
}

static void t_bdev(void)
{
	char p[64];
	unsigned char *m;
	int fd;

	if (!dev || !strcmp(dev, "-")) {
		hostile_skip("no device");
		return;
	}
	snprintf(p, sizeof(p), "/dev/%s", dev);
	fd = open(p, O_RDWR);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	m = mmap(NULL, DEV_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, DEV_AT);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	pattern_fill(m, DEV_AT, DEV_LEN, DEV_SEED);
	CHECK(msync(m, DEV_LEN, MS_SYNC) == 0);
	munmap(m, DEV_LEN);
	close(fd);
}

static const struct hostile_case cases[] = {
	{ "read", t_read }, { "shared", t_shared }, { "private", t_private },
	{ "uaccess", t_uaccess }, { "sigbus", t_sigbus }, { "errors", t_errors }, { "fork", t_fork },
	{ "madvise", t_madvise }, { "mprotect", t_mprotect }, { "reclaim", t_reclaim },
	{ "fault", t_fault },
	{ "bdev", t_bdev },
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: mmap DIR [DEV|- [CASE]]\n");
		return 2;
	}
	dir = argv[1];
	dev = argc > 2 ? argv[2] : NULL;
	return hostile_run("mmap", cases, (int)(sizeof(cases) / sizeof(cases[0])),
			   argc > 3 ? argv[3] : NULL);
}
