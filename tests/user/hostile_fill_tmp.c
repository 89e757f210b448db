// SPDX-License-Identifier: MIT
/*
 * hostile_fill_tmp - fill /tmp until it refuses, and check the system
 * survives it.
 *
 * /tmp is a tmpfs (user init mounts it) whose size= is half of RAM, as
 * Linux's default.  Filling it must end with ENOSPC at that size -- not
 * ENOMEM, not a panic, and not with the kernel's memory gone: while it
 * is full, fork and exec still work, and unlink gives every page back
 * (a second fill gets exactly as far as the first); statfs tells the same
 * story as it goes.  Before tmpfs had a
 * limit, a 128 MiB guest let a program write ~120 MiB to /tmp, after
 * which every fork, and unlink itself, failed with ENOMEM.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/wait.h>
#include <sys/statfs.h>
#include "hostile.h"

#define FILL_A          "/tmp/hostile_fill.a"
#define FILL_B          "/tmp/hostile_fill.b"
#define CHUNK           (64 * 1024)

static char chunk[CHUNK];
static long long limit;                 /* /tmp's size=, bytes; -1: not shown */
static long long first_fill;
static int fill_errno;

/* Write chunks to path until a write fails; bytes written, errno kept. */
static long long fill(const char *path, int *err)
{
	long long done = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t n;

	*err = 0;
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	while ((n = write(fd, chunk, sizeof(chunk))) > 0)
		done += n;
	*err = n < 0 ? errno : 0;
	close(fd);
	return done;
}

/* /tmp's size= from /proc/mounts ("tmpfs /tmp tmpfs rw,size=65536k,..."). */
static void t_limit_shown(void)
{
	static char buf[4096];
	int fd = open("/proc/mounts", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	char *line, *size;

	limit = -1;
	CHECK(n > 0);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	line = strstr(buf, " /tmp tmpfs ");
	CHECK(line != NULL);
	if (!line)
		return;
	size = strstr(line, "size=");
	CHECK(size != NULL && size < strchr(line, '\n'));
	if (size && size < strchr(line, '\n'))
		limit = strtoll(size + 5, NULL, 10) * 1024;
	CHECK(limit > 0);
}

/* statfs agrees with /proc/mounts, and an empty /tmp is all free. */
static void t_statfs_empty(void)
{
	struct statfs b;

	CHECK(statfs("/tmp", &b) == 0);
	CHECK(b.f_type == TMPFS_MAGIC && b.f_bsize == 4096);
	CHECK(limit > 0 && (long long)b.f_blocks * b.f_bsize == limit);
	CHECK(b.f_bfree == b.f_blocks && b.f_bavail == b.f_blocks);
	CHECK(b.f_files > 0 && b.f_ffree < b.f_files);  /* the root's inode */
}

/* Full: (almost) nothing free, as statfs says it. */
static void t_statfs_full(void)
{
	struct statfs b;

	CHECK(statfs("/tmp", &b) == 0);
	CHECK(b.f_bfree <= b.f_blocks / 64);            /* an index array's room */
	CHECK((long long)(b.f_blocks - b.f_bfree) * b.f_bsize >= first_fill);
}

static void t_fill_enospc(void)
{
	first_fill = fill(FILL_A, &fill_errno);
	CHECK(first_fill > 0);
	errno = fill_errno;
	CHECK(fill_errno == ENOSPC);
	/* at the limit: within the page-index arrays' share of it */
	CHECK(limit > 0 && first_fill <= limit && first_fill >= limit - limit / 64);
}

static void t_still_full(void)
{
	int err;

	/* a second file gets no data either */
	CHECK(fill(FILL_B, &err) == 0);
	errno = err;
	CHECK(err == ENOSPC);
}

static void t_fork_while_full(void)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0)
		_exit(42);
	CHECK(pid > 0);
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 42);
}

static void t_exec_while_full(void)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		char *argv[] = { "exec_template", NULL };

		execve("/tests/exec_template", argv, NULL);
		_exit(99);
	}
	CHECK(pid > 0);
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void t_unlink_frees(void)
{
	int fd;

	CHECK(unlink(FILL_A) == 0);
	CHECK(unlink(FILL_B) == 0);
	fd = open(FILL_B, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	for (int i = 0; i < 16 && fd >= 0; i++)         /* 1 MiB */
		CHECK(write(fd, chunk, sizeof(chunk)) == (ssize_t)sizeof(chunk));
	CHECK(fd >= 0 && close(fd) == 0);
	CHECK(unlink(FILL_B) == 0);
}

/* Every page came back: the same fill gets exactly as far. */
static void t_refill_same(void)
{
	struct statfs b;
	int err;
	long long again = fill(FILL_A, &err);

	errno = err;
	CHECK(err == ENOSPC);
	CHECK(again == first_fill);
	CHECK(unlink(FILL_A) == 0);
	CHECK(statfs("/tmp", &b) == 0 && b.f_bfree == b.f_blocks);
}

static const struct hostile_case cases[] = {
	{ "limit_shown", t_limit_shown },
	{ "statfs_empty", t_statfs_empty },
	{ "fill_enospc", t_fill_enospc },
	{ "statfs_full", t_statfs_full },
	{ "still_full", t_still_full },
	{ "fork_while_full", t_fork_while_full },
	{ "exec_while_full", t_exec_while_full },
	{ "unlink_frees", t_unlink_frees },
	{ "refill_same", t_refill_same },
};

int main(int argc, char **argv)
{
	memset(chunk, 0x5a, sizeof(chunk));
	return hostile_run("fill_tmp", cases, sizeof(cases) / sizeof(cases[0]),
			   argc > 1 ? argv[1] : NULL);
}
