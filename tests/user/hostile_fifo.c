// SPDX-License-Identifier: MIT
/*
 * hostile_fifo - named pipes made, used and deleted by the hundred.
 *
 * A FIFO's 16 KiB buffer must live only while a file is open on it (as
 * Linux's put_pipe_info): making, opening, using, closing and deleting
 * many FIFOs leaves free memory where it was (/proc/meminfo's MemFree;
 * before the fix each one kept its four pages for good), and a FIFO
 * nobody has open holds no data.  mknod(2) itself answers as Linux's.
 *
 * Opening a FIFO waits for the other end, as Linux's fifo_open: the
 * open_* cases also run on the host's Linux (make check-user), whose
 * answers they must get.  Whether an open sleeps is seen in
 * /proc/<pid>/stat (state S) before it has said it returned, so no case
 * depends on timing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <asm/unistd_64.h>
#include "hostile.h"

/* in /tmp, or in the directory main's second argument names */
static char fifo_path[256] = "/tmp/hostile_fifo.p";
static char node_path[256] = "/tmp/hostile_fifo.n";
#define FIFO            fifo_path
#define NODE            node_path
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

/* --- opening a FIFO waits for the other end --- */

/*
 * Linux (fs/pipe.c, fifo_open): an open for reading sleeps until a writer
 * opens the FIFO, and one for writing until a reader does -- unless that
 * end is open already; O_RDWR never waits.  With O_NONBLOCK a reader's
 * open returns at once (a read then gives 0, and poll says POLLHUP only
 * once a writer has come and gone) and a writer's fails with ENXIO while
 * nobody reads.  A signal ends the wait: EINTR under a handler without
 * SA_RESTART, and the end it was opening is not counted any more.
 */

static void on_usr1(int sig)
{
	(void)sig;
}

/* A child that opens FIFO with flags (a SIGUSR1 handler installed, no
 * SA_RESTART) and writes the open's errno, 0 for success, to report. */
static pid_t fifo_opener(int flags, int report)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	pid_t pid = fork();

	if (pid == 0) {
		int fd, res;

		sigaction(SIGUSR1, &sa, NULL);
		fd = open(FIFO, flags);
		res = fd >= 0 ? 0 : errno;
		if (write(report, &res, sizeof(res)) != sizeof(res))
			_exit(2);
		_exit(0);
	}
	return pid;
}

/* 1 once the child sleeps before it reported (its open waits); 0 if it
 * reported first (its open returned), its answer in *res.  report_rd is
 * non-blocking (pipe2 O_NONBLOCK). */
static int open_sleeps(pid_t pid, int report_rd, int *res)
{
	for (;;) {
		if (read(report_rd, res, sizeof(*res)) == sizeof(*res))
			return 0;
		if (task_state(pid) == 'S')
			/* asleep: in its open, unless it reported just before */
			return read(report_rd, res, sizeof(*res)) == sizeof(*res) ? 0 : 1;
		sched_yield();
	}
}

struct poll_fd {
	int fd;
	short events, revents;
};

/* poll(2) on one descriptor for POLLIN: its revents, -1 on error */
static int poll_revents(int fd, int timeout_ms)
{
	struct poll_fd pfd = { fd, 1 /* POLLIN */, 0 };

	return syscall(__NR_poll, &pfd, 1, timeout_ms) < 0 ? -1 : pfd.revents;
}

/* The child's report, waiting for it. */
static int opener_result(int report_rd)
{
	int res = -1;

	if (poll_revents(report_rd, -1) < 0 || read(report_rd, &res, sizeof(res)) != sizeof(res))
		res = -1;
	return res;
}

/* One end opened by a child must wait for the other, opened here. */
static void open_waits_for(int child_flags, int our_flags)
{
	int rep[2], res = -1, fd, st;
	pid_t pid;

	CHECK(mkfifo(FIFO, 0644) == 0);
	CHECK(pipe2(rep, O_NONBLOCK) == 0);
	pid = fifo_opener(child_flags, rep[1]);
	CHECK(pid > 0);
	if (open_sleeps(pid, rep[0], &res)) {
		fd = open(FIFO, our_flags);       /* the sleeper's end counts: no wait */
		CHECK(fd >= 0);
		CHECK(opener_result(rep[0]) == 0); /* and it is woken */
		close(fd);
	} else {
		CHECK_MSG(0, "the open returned (%d) with no other end", res);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(rep[0]);
	close(rep[1]);
	CHECK(unlink(FIFO) == 0);
}

static void t_open_reader_waits(void)
{
	open_waits_for(O_RDONLY, O_WRONLY);
}

static void t_open_writer_waits(void)
{
	open_waits_for(O_WRONLY, O_RDONLY);
}

static void t_open_nonblock(void)
{
	char c;
	int r, r2, w, rw;

	CHECK(mkfifo(FIFO, 0644) == 0);
	CHECK_ERR(open(FIFO, O_WRONLY | O_NONBLOCK), ENXIO);  /* nobody reads */
	r = open(FIFO, O_RDONLY | O_NONBLOCK);                  /* at once */
	CHECK(r >= 0);
	CHECK(read(r, &c, 1) == 0);                             /* no writer: end of file */
	CHECK(!(poll_revents(r, 0) & 0x10));                       /* no POLLHUP: none came yet */
	w = open(FIFO, O_WRONLY | O_NONBLOCK);                  /* a reader now */
	CHECK(w >= 0);
	r2 = open(FIFO, O_RDONLY | O_NONBLOCK);                 /* with a writer there */
	CHECK(r2 >= 0);
	CHECK(write(w, "x", 1) == 1);
	close(w);
	CHECK(read(r, &c, 1) == 1 && c == 'x');
	CHECK(poll_revents(r, 0) & 0x10);                          /* it came and went */
	CHECK(poll_revents(r2, 0) & 0x10);
	close(r2);
	close(r);
	rw = open(FIFO, O_RDWR);                                /* never waits */
	CHECK(rw >= 0);
	close(rw);
	CHECK(unlink(FIFO) == 0);
}

static void t_open_interrupted(void)
{
	int rep[2], res = -1, st;
	pid_t pid;

	CHECK(mkfifo(FIFO, 0644) == 0);
	CHECK(pipe2(rep, O_NONBLOCK) == 0);
	pid = fifo_opener(O_RDONLY, rep[1]);
	CHECK(pid > 0);
	if (open_sleeps(pid, rep[0], &res)) {
		CHECK(kill(pid, SIGUSR1) == 0);
		CHECK(opener_result(rep[0]) == EINTR);
	} else {
		CHECK_MSG(0, "the open returned (%d) with no writer", res);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* the interrupted reader is gone: still nobody reads */
	CHECK_ERR(open(FIFO, O_WRONLY | O_NONBLOCK), ENXIO);
	close(rep[0]);
	close(rep[1]);
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
	{ "open_reader_waits", t_open_reader_waits },
	{ "open_writer_waits", t_open_writer_waits },
	{ "open_nonblock", t_open_nonblock },
	{ "open_interrupted", t_open_interrupted },
	{ "no_leak", t_no_leak },
};

/* hostile_fifo [CASE [DIR]]: every case, or only CASE; the FIFO in DIR */
int main(int argc, char **argv)
{
	if (argc > 2) {
		snprintf(fifo_path, sizeof(fifo_path), "%s/hostile_fifo.p", argv[2]);
		snprintf(node_path, sizeof(node_path), "%s/hostile_fifo.n", argv[2]);
	}
	return hostile_run("fifo", cases, sizeof(cases) / sizeof(cases[0]),
			   argc > 1 ? argv[1] : NULL);
}
