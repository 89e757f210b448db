// SPDX-License-Identifier: MIT
/*
 * hostile_fifo - named pipes made, used and deleted by the hundred.
 *
 * A FIFO's 16 KiB buffer must live only while a file is open on it (as
 * Linux's put_pipe_info): making, opening, using, closing and deleting
 * many FIFOs leaves free memory where it was (/proc/meminfo's MemFree;
 * before the fix each one kept its four pages for good), and a FIFO
 * nobody has open holds no data.  mknod(2) itself answers as Linux's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include "hostile.h"

#define FIFO            "/tmp/hostile_fifo.p"
#define NODE            "/tmp/hostile_fifo.n"
#define ROUNDS          64

/* One FIFO's whole life; 0 if every step worked. */
static int fifo_life(void)
{
	char buf[8];
	int r, w, ok;

	if (mkfifo(FIFO, 0644) < 0)
		return -1;
	r = open(FIFO, O_RDONLY | O_NONBLOCK);
	w = open(FIFO, O_WRONLY);
	ok = r >= 0 && w >= 0 && write(w, "hello", 5) == 5 && read(r, buf, sizeof(buf)) == 5 &&
	     memcmp(buf, "hello", 5) == 0;
	close(w);
	close(r);
	return unlink(FIFO) == 0 && ok ? 0 : -1;
}

static void t_mknod_errors(void)
{
	struct stat st;
	int fd;

	CHECK(mkfifo(FIFO, 0600) == 0);
	CHECK(stat(FIFO, &st) == 0 && S_ISFIFO(st.st_mode) && (st.st_mode & 07777) == 0600);
	CHECK_ERR(mkfifo(FIFO, 0600), EEXIST);
	CHECK(unlink(FIFO) == 0);
	CHECK_ERR(mknod(NODE, S_IFDIR | 0755, 0), EPERM);     /* mkdir's job */
	CHECK_ERR(mknod(NODE, S_IFSOCK | 0755, 0), EPERM);    /* no sockets here */
	CHECK_ERR(mknod(NODE, 0170000 | 0644, 0), EINVAL);    /* no such type */
	CHECK_ERR(mknod("/tmp/no/such/dir", S_IFIFO | 0644, 0), ENOENT);
	CHECK_ERR(mknod("/proc/x", S_IFIFO | 0644, 0), EPERM);
	/* type 0 is a regular file */
	CHECK(mknod(NODE, 0644, 0) == 0);
	CHECK(stat(NODE, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0);
	CHECK(unlink(NODE) == 0);
	/* a device node: 1:3 is the null device wherever the node lives */
	CHECK(mknod(NODE, S_IFCHR | 0666, makedev(1, 3)) == 0);
	CHECK(stat(NODE, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
	      minor(st.st_rdev) == 3);
	fd = open(NODE, O_WRONLY);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1);
	if (fd >= 0)
		close(fd);
	CHECK(unlink(NODE) == 0);
}

static void t_fifo_roundtrip(void)
{
	CHECK(fifo_life() == 0);
}

/* Once nobody has it open, a FIFO's data is gone (Linux discards it). */
static void t_data_gone_after_last_close(void)
{
	char buf[8];
	int fd;

	CHECK(mkfifo(FIFO, 0644) == 0);
	fd = open(FIFO, O_RDWR);
	CHECK(fd >= 0 && write(fd, "stale", 5) == 5);
	close(fd);
	fd = open(FIFO, O_RDWR | O_NONBLOCK);
	CHECK(fd >= 0);
	CHECK_ERR(read(fd, buf, sizeof(buf)), EAGAIN);        /* empty, a writer: us */
	close(fd);
	CHECK(unlink(FIFO) == 0);
}

static void t_no_leak(void)
{
	long before, after;
	int bad = 0;

	for (int i = 0; i < 4; i++)             /* the slabs' first objects */
		bad |= fifo_life();
	before = mem_free_kb();
	for (int i = 0; i < ROUNDS; i++)
		bad |= fifo_life();
	after = mem_free_kb();
	CHECK(!bad);
	CHECK(before > 0 && after > 0);
	/* a leak is 16 KiB a FIFO (1 MiB here); allow 64 KiB of slab noise */
	if (before - after >= 64)
		printf("# MemFree %ld kB before, %ld kB after %d FIFOs\n", before, after, ROUNDS);
	CHECK(before - after < 64);
}

static const struct hostile_case cases[] = {
	{ "mknod_errors", t_mknod_errors },
	{ "fifo_roundtrip", t_fifo_roundtrip },
	{ "data_gone_after_last_close", t_data_gone_after_last_close },
	{ "no_leak", t_no_leak },
};

int main(int argc, char **argv)
{
	return hostile_run("fifo", cases, sizeof(cases) / sizeof(cases[0]),
			   argc > 1 ? argv[1] : NULL);
}
