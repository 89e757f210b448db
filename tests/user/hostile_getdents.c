// SPDX-License-Identifier: MIT
/*
 * hostile_getdents - getdents64 into a buffer that faults part-way.
 *
 * A directory of 42 files is listed into a buffer whose second half is
 * an unmapped page.  The kernel returns the records that fit before the
 * fault, as Linux, or EFAULT if none did -- and the directory position must
 * move only past records that reached the user: a retry with a good
 * buffer lists every remaining name, so each of ".", ".." and the 42
 * files is seen exactly once.  Before the fix the call returned EFAULT
 * with the position already past everything, and a retry listed 0 of 42.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include "hostile.h"

#define DIR_PATH        "/tmp/hostile_getdents"
#define NFILES          42
#define PAGE            4096

static unsigned char seen[NFILES + 2];  /* [0] ".", [1] "..", [2 + i] "fNN" */
static int bad_names;

/* Count each record's name in seen[]. */
static void tally(const char *buf, long n)
{
	for (long off = 0; off < n; ) {
		const struct dirent *d = (const void *)(buf + off);   /* linux_dirent64 */
		int i;

		if (strcmp(d->d_name, ".") == 0)
			seen[0]++;
		else if (strcmp(d->d_name, "..") == 0)
			seen[1]++;
		else if (d->d_name[0] == 'f' && (i = atoi(d->d_name + 1)) >= 0 && i < NFILES)
			seen[2 + i]++;
		else
			bad_names++;
		off += d->d_reclen;
	}
}

static int all_seen_once(void)
{
	for (int i = 0; i < NFILES + 2; i++)
		if (seen[i] != 1)
			return 0;
	return !bad_names;
}

static void setup_dir(void)
{
	char name[64];

	mkdir(DIR_PATH, 0755);
	for (int i = 0; i < NFILES; i++) {
		snprintf(name, sizeof(name), DIR_PATH "/f%02d", i);
		close(open(name, O_WRONLY | O_CREAT, 0644));
	}
}

/* A buffer of `len` bytes whose page after `room` bytes is unmapped. */
static char *straddling_buffer(size_t room)
{
	char *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (munmap(p + PAGE, PAGE) < 0)
		return NULL;
	return p + PAGE - room;
}

/* Finish the listing with a good buffer. */
static void list_rest(int fd)
{
	static char good[8192];
	long n;

	while ((n = getdents64(fd, good, sizeof(good))) > 0)
		tally(good, n);
	CHECK(n == 0);
}

/* 200 bytes before the hole: a few records fit, the next faults. */
static void t_straddle(void)
{
	char *buf = straddling_buffer(200);
	int fd = open(DIR_PATH, O_RDONLY | O_DIRECTORY);
	long n;

	memset(seen, 0, sizeof(seen));
	bad_names = 0;
	CHECK(buf != NULL && fd >= 0);
	if (!buf || fd < 0)
		return;
	/* as Linux: the records before the fault are returned */
	n = getdents64(fd, buf, 4096);
	CHECK(n > 0 && n <= 200);
	if (n > 0)
		tally(buf, n);
	list_rest(fd);
	CHECK(all_seen_once());
	close(fd);
}

/* The whole buffer unmapped: EFAULT, and nothing lost. */
static void t_all_unmapped(void)
{
	char *buf = straddling_buffer(0);
	int fd = open(DIR_PATH, O_RDONLY | O_DIRECTORY);

	memset(seen, 0, sizeof(seen));
	bad_names = 0;
	CHECK(buf != NULL && fd >= 0);
	if (!buf || fd < 0)
		return;
	CHECK_ERR(getdents64(fd, buf, 4096), EFAULT);
	list_rest(fd);
	CHECK(all_seen_once());
	close(fd);
}

/* Mid-listing: a good call, a faulting one, then the rest. */
static void t_fault_midway(void)
{
	static char good[256];
	char *buf = straddling_buffer(0);
	int fd = open(DIR_PATH, O_RDONLY | O_DIRECTORY);
	long n;

	memset(seen, 0, sizeof(seen));
	bad_names = 0;
	CHECK(buf != NULL && fd >= 0);
	if (!buf || fd < 0)
		return;
	n = getdents64(fd, good, sizeof(good));
	CHECK(n > 0);
	tally(good, n);
	CHECK_ERR(getdents64(fd, buf, 4096), EFAULT);
	list_rest(fd);
	CHECK(all_seen_once());
	close(fd);
}

static const struct hostile_case cases[] = {
	{ "straddle", t_straddle },
	{ "all_unmapped", t_all_unmapped },
	{ "fault_midway", t_fault_midway },
};

int main(int argc, char **argv)
{
	setup_dir();
	return hostile_run("getdents", cases, sizeof(cases) / sizeof(cases[0]),
			   argc > 1 ? argv[1] : NULL);
}
