// SPDX-License-Identifier: MIT
/*
 * writeback DEV [CASE [OFFSET]] - the page cache's write-back seen from
 * user space (docs/fs.md, "The path of a write()"), one TEST line per
 * case.  DEV is a name under /dev, or a path (it has a '/'): a file,
 * whose errseq case then fails at OFFSET (bytes, default ERR_AT):
 *
 *   knobs     /proc/sys/vm/dirty_* read with Linux's defaults, take a new
 *             value, refuse a bad one
 *   meminfo   buffered writes show in /proc/meminfo's Dirty line, in
 *             Linux's layout, and leave it after fsync
 *   errseq    on a disk whose writes at byte ERR_AT fail (QEMU blkdebug):
 *             a buffered write there, then fsync, gets EIO once per open
 *             file; the next fsync of each gets 0 (Linux's errseq); a file
 *             opened afterwards gets 0; fdatasync likewise; syncfs works
 *   flusher   with dirty_expire_centisecs=100, a buffered 1 MiB write
 *             (pattern seed 7 at 1 MiB) leaves Dirty at 0 within a deadline
 *             with no fsync and the file still open -- the flusher wrote it.
 *             Then the program holds the file open and waits to be killed,
 *             so that no close or sync writes anything: the host then finds
 *             the pattern in the image (the outside oracle)
 * Without CASE, knobs and meminfo run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <asm/unistd_64.h>
#include <pattern.h>
#include "hostile.h"

#define ERR_AT          (1ul << 20)     /* blkdevwb.blkdebug fails sector 2048 */
#define FLUSH_AT        (1ul << 20)
#define FLUSH_LEN       (1ul << 20)
#define FLUSH_SEED      7
#define DEADLINE_MS     60000           /* a hang guard, not a timing claim */

static const char *dev_name;
static unsigned long err_at = ERR_AT;   /* the byte whose writes fail */
static unsigned char buf[FLUSH_LEN] __attribute__((aligned(4096)));

static int open_dev(int flags)
{
	char path[64];

	if (strchr(dev_name, '/'))
		return open(dev_name, flags);
	snprintf(path, sizeof(path), "/dev/%s", dev_name);
	return open(path, flags);
}

/* The text of a small file, NUL-terminated, in a static buffer; NULL if
 * it cannot be read. */
static const char *slurp(const char *path)
{
	static char text[2048];

	return read_text(path, text, sizeof(text)) < 0 ? NULL : text;
}

static int put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	long n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (long)strlen(text) ? 0 : -1;
}

/* A /proc/meminfo value in kB, or -1. */
static long meminfo_kb(const char *label)
{
	const char *text = slurp("/proc/meminfo"), *s;
	char key[32];

	snprintf(key, sizeof(key), "\n%s:", label);
	s = text ? strstr(text, key) : NULL;
	return s ? strtol(s + strlen(key), NULL, 10) : -1;
}

static void t_knobs(void)
{
	static const struct {
		const char *name, *def;
	} knobs[] = {
		{ "/proc/sys/vm/dirty_ratio", "20\n" },
		{ "/proc/sys/vm/dirty_background_ratio", "10\n" },
		{ "/proc/sys/vm/dirty_expire_centisecs", "3000\n" },
		{ "/proc/sys/vm/dirty_writeback_centisecs", "500\n" },
	};
	const char *t;

	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		t = slurp(knobs[i].name);
		CHECK_MSG(t && !strcmp(t, knobs[i].def), "%s reads \"%s\"", knobs[i].name, t ? t : "?");
	}
	CHECK(put("/proc/sys/vm/dirty_ratio", "30\n") == 0);
	t = slurp("/proc/sys/vm/dirty_ratio");
	CHECK(t && !strcmp(t, "30\n"));
	CHECK_ERR(put("/proc/sys/vm/dirty_ratio", "101"), EINVAL);
	CHECK_ERR(put("/proc/sys/vm/dirty_expire_centisecs", "soon"), EINVAL);
	CHECK(put("/proc/sys/vm/dirty_ratio", "20") == 0);
	t = slurp("/proc/sys/vm/dirty_ratio");
	CHECK(t && !strcmp(t, "20\n"));
}

static void t_meminfo(void)
{
	int fd = open_dev(O_RDWR);
	const char *text;
	long before;

	CHECK(fd >= 0);
	before = meminfo_kb("Dirty");
	memset(buf, 'm', 3 * 4096);
	CHECK(pwrite(fd, buf, 3 * 4096, 8 << 20) == 3 * 4096);
	CHECK_MSG(meminfo_kb("Dirty") >= before + 12, "Dirty %ld kB, before %ld",
		  meminfo_kb("Dirty"), before);
	text = slurp("/proc/meminfo");
	CHECK(text && strstr(text, "\nWriteback:"));
	CHECK(fsync(fd) == 0);
	CHECK_MSG(meminfo_kb("Dirty") == 0, "Dirty %ld kB after fsync", meminfo_kb("Dirty"));
	close(fd);
}

static void t_errseq(void)
{
	int a = open_dev(O_RDWR), b = open_dev(O_RDWR), c;

	CHECK(a >= 0 && b >= 0);
	memset(buf, 'e', 4096);
	CHECK(pwrite(a, buf, 4096, (long)err_at) == 4096); /* only the cache knows */
	CHECK_ERR(fsync(a), EIO);
	CHECK(fsync(a) == 0);                           /* reported once */
	CHECK_ERR(fsync(b), EIO);                       /* to every open file */
	CHECK(fsync(b) == 0);
	c = open_dev(O_RDWR);
	CHECK(fsync(c) == 0);                           /* opened after: not its error */
	CHECK(pwrite(c, buf, 4096, (long)err_at) == 4096);
	CHECK_ERR(fdatasync(c), EIO);
	CHECK_ERR(fdatasync(a), EIO);
	CHECK(fdatasync(a) == 0);
	/* a write elsewhere is unaffected, and syncfs takes a descriptor */
	pattern_fill(buf, 0, 4096, 11);
	CHECK(pwrite(a, buf, 4096, 0) == 4096);
	CHECK(fsync(a) == 0);
	CHECK(syscall(__NR_syncfs, a) == 0);
	CHECK_ERR(syscall(__NR_syncfs, 99), EBADF);
	close(c);
	close(b);
	close(a);
}

static void t_flusher(void)
{
	int fd = open_dev(O_RDWR), waited = 0;

	CHECK(fd >= 0);
	CHECK(put("/proc/sys/vm/dirty_expire_centisecs", "100") == 0);
	CHECK(put("/proc/sys/vm/dirty_writeback_centisecs", "50") == 0);
	pattern_fill(buf, FLUSH_AT, FLUSH_LEN, FLUSH_SEED);
	CHECK(pwrite(fd, buf, FLUSH_LEN, FLUSH_AT) == (long)FLUSH_LEN);
	/* no fsync, no close: only the flusher can make Dirty 0 */
	while ((meminfo_kb("Dirty") != 0 || meminfo_kb("Writeback") != 0) && waited < DEADLINE_MS) {
		usleep(100000);
		waited += 100;
	}
	CHECK_MSG(meminfo_kb("Dirty") == 0, "Dirty still %ld kB", meminfo_kb("Dirty"));
	if (!hostile_failed_now)
		printf("writeback: the flusher wrote 1 MiB, the file still open\n");
	/* fd stays open (main waits): no close writes anything back */
}

static const struct hostile_case cases[] = {
	{ "knobs", t_knobs },
	{ "meminfo", t_meminfo },
	{ "errseq", t_errseq },
	{ "flusher", t_flusher },
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: writeback DEV [knobs|meminfo|errseq [OFFSET]|flusher]\n");
		return 2;
	}
	dev_name = argv[1];
	if (argc > 3)
		err_at = strtoul(argv[3], NULL, 0);
	if (argc < 3)
		return hostile_run("writeback", cases, 2, NULL);        /* knobs, meminfo */
	if (strcmp(argv[2], "flusher"))
		return hostile_run("writeback", cases, 4, argv[2]);
	hostile_run("writeback", cases, 4, "flusher");
	/* the device stays open until QEMU is killed, so that no last close
	 * (and no sync at power-off) writes anything: the image holds only
	 * what the flusher wrote */
	for (;;)
		sleep(1000);
}
