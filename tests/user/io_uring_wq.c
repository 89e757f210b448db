// SPDX-License-Identifier: MIT
/*
 * io_uring_wq [-S] FILE - io_uring's requests that would block
 * (docs/aio.md, "io-wq"), through Debian's liburing.
 *
 * Built with the host's glibc and liburing, as tests/user/io_uring.c;
 * the same binary passes on Linux (tests/user/run.sh), the oracle for
 * tests/qemu/scenarios/io_uring-wq.scn.  FILE: a scratch file (on ext2
 * in the scenario).  Each wait for something that must come is guarded by
 * an alarm: a kernel that blocks where it must not fails the case (the
 * alarm's signal ends the blocked call) rather than hanging.
 *
 *   pipe     a READ of an empty pipe: io_uring_enter(to_submit=1,
 *            min_complete=0) returns 1 with no CQE; a write to the pipe
 *            then completes it with the bytes;
 *   async    IOSQE_ASYNC: a NOP, a WRITE and a READ of FILE, and a READ of
 *            an empty pipe (returns at once, completes after the write);
 *   link     READ of an empty pipe -> WRITE of that buffer to a second
 *            pipe -> NOP (IOSQE_IO_LINK): the submit returns 3 at once with
 *            no CQE; after a write, the three complete in order and the
 *            second pipe holds the bytes;
 *   attach   IORING_SETUP_ATTACH_WQ: wq_fd not open ENXIO, not a ring
 *            EINVAL, a ring's: a ring that works;
 *   exit     children leave -- by _exit, or killed -- with a READ of a pipe
 *            pending (the parent holds the write end): each exits; the
 *            parent's own write and read of the pipe then work (no reader
 *            is left over); -S: no worker of theirs is left, and MemFree
 *            is back (a busy host's MemFree moves by itself);
 *   fsync    a buffered WRITE to FILE, then FSYNC and FSYNC with
 *            IORING_FSYNC_DATASYNC: res 0, and the bytes read back;
 *   sqpoll   an SQPOLL ring's READ of an empty pipe (a registered file):
 *            the SQ thread hands it on, a write completes it; a child
 *            leaving with such a READ pending goes, and the pipe works;
 *   exec     a child execs (this program, -x) with a READ of a pipe
 *            pending: the exec goes through, and no reader is left over.
 *
 * -S: the kernel is Spindle (the checks above that only it can make).
 * Prints "TEST io_uring_wq.<case> PASS|FAIL|SKIP" and the closing count.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <dirent.h>
#include <sched.h>
#include <unistd.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <liburing.h>
#include "hostile.h"

#define GUARD_S         20      /* what must come comes long before this */
#define EXIT_ROUNDS     4

static const char *file_name, *self;
static int spindle;

static void on_alarm(int sig)
{
	(void)sig;
}

/* An alarm whose signal interrupts a blocked system call (no SA_RESTART). */
static void guard(unsigned int seconds)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarm(seconds);
}

/* The next CQE, waited for (under the guard): its res, its user_data. */
static int wait_one(struct io_uring *ring, int *res, unsigned long long *ud)
{
	struct io_uring_cqe *cqe;
	int r;

	guard(GUARD_S);
	r = io_uring_wait_cqe(ring, &cqe);
	alarm(0);
	if (r)
		return r;
	*res = cqe->res;
	if (ud)
		*ud = cqe->user_data;
	io_uring_cqe_seen(ring, cqe);
	return 0;
}

/* Submit what is queued, under the guard: how many, or -errno. */
static int submit_guarded(struct io_uring *ring)
{
	int r;

	guard(GUARD_S);
	r = io_uring_submit(ring);
	alarm(0);
	return r;
}

static int no_cqe(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;

	return io_uring_peek_cqe(ring, &cqe) == -EAGAIN;
}

static void t_pipe(void)
{
	struct io_uring ring;
	char buf[64];
	int p[2], res = 0;
	unsigned long long ud = 0;
	struct io_uring_sqe *sqe;

	CHECK(pipe(p) == 0);
	CHECK(io_uring_queue_init(4, &ring, 0) == 0);
	memset(buf, 0, sizeof(buf));
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
	sqe->user_data = 7;
	/* io_uring_submit: io_uring_enter(fd, 1, 0, 0) */
	CHECK_MSG(submit_guarded(&ring) == 1, "the submit of a READ of an empty pipe blocked");
	CHECK_MSG(no_cqe(&ring), "a CQE before anything was written");
	CHECK(write(p[1], "hello", 5) == 5);
	CHECK(wait_one(&ring, &res, &ud) == 0);
	CHECK_MSG(res == 5 && ud == 7, "res %d user_data %llu", res, ud);
	CHECK(!memcmp(buf, "hello", 5));
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
}

static void t_async(void)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	char wbuf[512], rbuf[512];
	int fd, p[2], res = -1;
	unsigned long long ud = 0;

	CHECK(io_uring_queue_init(4, &ring, 0) == 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->flags |= IOSQE_ASYNC;
	sqe->user_data = 1;
	CHECK(submit_guarded(&ring) == 1);
	CHECK(wait_one(&ring, &res, &ud) == 0);
	CHECK_MSG(res == 0 && ud == 1, "async NOP: res %d user_data %llu", res, ud);

	fd = open(file_name, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	for (unsigned int i = 0; i < sizeof(wbuf); i++)
		wbuf[i] = (char)(i * 7 + 3);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write(sqe, fd, wbuf, sizeof(wbuf), 0);
	sqe->flags |= IOSQE_ASYNC;
	sqe->user_data = 2;
	CHECK(submit_guarded(&ring) == 1);
	CHECK(wait_one(&ring, &res, &ud) == 0);
	CHECK_MSG(res == (int)sizeof(wbuf) && ud == 2, "async WRITE: res %d", res);
	memset(rbuf, 0, sizeof(rbuf));
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, rbuf, sizeof(rbuf), 0);
	sqe->flags |= IOSQE_ASYNC;
	sqe->user_data = 3;
	CHECK(submit_guarded(&ring) == 1);
	CHECK(wait_one(&ring, &res, &ud) == 0);
	CHECK_MSG(res == (int)sizeof(rbuf) && ud == 3, "async READ: res %d", res);
	CHECK(!memcmp(rbuf, wbuf, sizeof(wbuf)));
	close(fd);

	CHECK(pipe(p) == 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], rbuf, sizeof(rbuf), 0);
	sqe->flags |= IOSQE_ASYNC;
	sqe->user_data = 4;
	CHECK(submit_guarded(&ring) == 1);
	CHECK(no_cqe(&ring));
	CHECK(write(p[1], "xyz", 3) == 3);
	CHECK(wait_one(&ring, &res, &ud) == 0);
	CHECK_MSG(res == 3 && ud == 4 && !memcmp(rbuf, "xyz", 3), "async pipe READ: res %d", res);
	close(p[0]);
	close(p[1]);
	io_uring_queue_exit(&ring);
}

static void t_link(void)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	char buf[16], out[16];
	int a[2], b[2], res;
	unsigned long long ud;

	CHECK(pipe(a) == 0 && pipe(b) == 0);
	CHECK(io_uring_queue_init(4, &ring, 0) == 0);
	memset(buf, 0, sizeof(buf));
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], buf, 3, 0);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 10;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write(sqe, b[1], buf, 3, 0);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 11;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 12;
	CHECK_MSG(submit_guarded(&ring) == 3, "the submit of a chain blocked");
	CHECK(no_cqe(&ring));
	CHECK(write(a[1], "abc", 3) == 3);
	for (int i = 0; i < 3; i++) {
		res = -1;
		ud = 0;
		CHECK(wait_one(&ring, &res, &ud) == 0);
		CHECK_MSG(ud == 10u + i && res == (i < 2 ? 3 : 0), "link %d: user_data %llu res %d",
			  i, ud, res);
	}
	memset(out, 0, sizeof(out));
	guard(GUARD_S);
	CHECK(read(b[0], out, sizeof(out)) == 3 && !memcmp(out, "abc", 3));
	alarm(0);
	io_uring_queue_exit(&ring);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}

static int setup_attach(unsigned int wq_fd)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_ATTACH_WQ;
	p.wq_fd = wq_fd;
	return (int)syscall(__NR_io_uring_setup, 4, &p);
}

static void t_attach(void)
{
	struct io_uring ring, ring2;
	struct io_uring_params p;
	int p2[2], fd, res;
	unsigned long long ud;

	CHECK(pipe(p2) == 0);
	CHECK(io_uring_queue_init(4, &ring, 0) == 0);
	errno = 0;
	CHECK_MSG(setup_attach(1000) == -1 && errno == ENXIO, "wq_fd not open: errno %d", errno);
	errno = 0;
	CHECK_MSG(setup_attach((unsigned int)p2[0]) == -1 && errno == EINVAL,
		  "wq_fd a pipe: errno %d", errno);
	fd = setup_attach((unsigned int)ring.ring_fd);
	CHECK_MSG(fd >= 0, "wq_fd a ring: errno %d", errno);
	if (fd >= 0)
		close(fd);
	/* and through liburing, a ring that works */
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_ATTACH_WQ;
	p.wq_fd = (unsigned int)ring.ring_fd;
	CHECK(io_uring_queue_init_params(4, &ring2, &p) == 0);
	io_uring_prep_nop(io_uring_get_sqe(&ring2));
	io_uring_prep_nop(io_uring_get_sqe(&ring2));
	CHECK(submit_guarded(&ring2) == 2);
	for (int i = 0; i < 2; i++) {
		res = -1;
		CHECK(wait_one(&ring2, &res, &ud) == 0 && res == 0);
	}
	io_uring_queue_exit(&ring2);
	io_uring_queue_exit(&ring);
	close(p2[0]);
	close(p2[1]);
}

/* How many tasks in /proc are named "iou-wrk-<pid>" (Spindle's workers
 * are kernel threads there; Linux's are threads of the process). */
static int workers_of(pid_t pid)
{
	char want[32], path[300], comm[32];
	struct dirent *d;
	DIR *dir = opendir("/proc");
	int n = 0;

	if (!dir)
		return -1;
	snprintf(want, sizeof(want), "iou-wrk-%d\n", (int)pid);
	while ((d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, want))
			n++;
		fclose(f);
	}
	closedir(dir);
	return n;
}

/*
 * A child with a READ of pipe p pending (IOSQE_ASYNC in odd rounds: a
 * worker surely holds it) leaves: by _exit (mode 0) or SIGKILL while it
 * waits for the CQE (mode 1).  0 if it went and the pipe works after.
 */
static int exit_one(int mode, int async)
{
	int p[2], ready[2], status;
	pid_t pid;
	char c = 0;

	if (pipe(p) || pipe(ready))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct io_uring ring;
		struct io_uring_cqe *cqe;
		struct io_uring_sqe *sqe;
		static char buf[64];

		close(ready[0]);
		if (io_uring_queue_init(4, &ring, 0))
			_exit(2);
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
		if (async)
			sqe->flags |= IOSQE_ASYNC;
		if (io_uring_submit(&ring) != 1)
			_exit(3);
		if (write(ready[1], "s", 1) != 1)
			_exit(4);
		if (mode == 1)
			io_uring_wait_cqe(&ring, &cqe);
		_exit(0);
	}
	close(ready[1]);
	guard(GUARD_S);
	if (pid < 0 || read(ready[0], &c, 1) != 1) {
		alarm(0);
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
		return -2;
	}
	alarm(0);
	close(ready[0]);
	if (mode == 1)
		kill(pid, SIGKILL);
	guard(GUARD_S);
	if (waitpid(pid, &status, 0) != pid) {
		alarm(0);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -3;
	}
	alarm(0);
	if (mode == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		return -4;
	/* nobody reads p any more but us */
	if (write(p[1], "x", 1) != 1)
		return -5;
	guard(GUARD_S);
	c = 0;
	if (read(p[0], &c, 1) != 1 || c != 'x') {
		alarm(0);
		return -6;
	}
	alarm(0);
	close(p[0]);
	close(p[1]);
	return spindle && workers_of(pid) ? -7 : 0;
}

static void t_exit(void)
{
	long before, after;
	int r = exit_one(0, 0);         /* warm up: the fork's own memory */

	CHECK_MSG(r == 0, "the first child: %d", r);
	before = mem_free_kb();
	for (int i = 0; i < EXIT_ROUNDS && r == 0; i++)
		for (int mode = 0; mode < 2 && r == 0; mode++) {
			r = exit_one(mode, i & 1);
			CHECK_MSG(r == 0, "round %d, mode %d: %d", i, mode, r);
		}
	after = mem_free_kb();
	printf("io_uring_wq: MemFree %ld kB before %d rounds of children leaving with a pipe "
	       "read pending, %ld kB after\n", before, EXIT_ROUNDS, after);
	CHECK_MSG(!spindle || (before > 0 && after > 0 && after >= before - 512),
		  "MemFree went from %ld kB to %ld kB", before, after);
}

static void t_fsync(void)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	char wbuf[4096], rbuf[4096];
	int fd, res;
	unsigned long long ud;

	fd = open(file_name, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	CHECK(io_uring_queue_init(4, &ring, 0) == 0);
	for (unsigned int i = 0; i < sizeof(wbuf); i++)
		wbuf[i] = (char)(i * 13 + 1);
	io_uring_prep_write(io_uring_get_sqe(&ring), fd, wbuf, sizeof(wbuf), 0);
	CHECK(submit_guarded(&ring) == 1);
	CHECK(wait_one(&ring, &res, NULL) == 0);
	CHECK_MSG(res == (int)sizeof(wbuf), "WRITE: res %d", res);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_fsync(sqe, fd, 0);
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
	sqe->user_data = 2;
	CHECK(submit_guarded(&ring) == 2);
	for (int i = 0; i < 2; i++) {
		res = -1;
		ud = 0;
		CHECK(wait_one(&ring, &res, &ud) == 0);
		CHECK_MSG(res == 0 && (ud == 1 || ud == 2), "FSYNC: res %d user_data %llu", res, ud);
	}
	CHECK(pread(fd, rbuf, sizeof(rbuf), 0) == (ssize_t)sizeof(rbuf));
	CHECK(!memcmp(rbuf, wbuf, sizeof(wbuf)));
	io_uring_queue_exit(&ring);
	close(fd);
}

/* The parent's part after a child left with a READ of p pending: the
 * child is reaped, and the parent's own write and read of p work. */
static int reap_and_probe(pid_t pid, int p[2])
{
	int status;
	char c = 0;

	guard(GUARD_S);
	if (waitpid(pid, &status, 0) != pid) {
		alarm(0);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -3;
	}
	alarm(0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return -4;
	if (write(p[1], "x", 1) != 1)
		return -5;
	guard(GUARD_S);
	if (read(p[0], &c, 1) != 1 || c != 'x') {
		alarm(0);
		return -6;
	}
	alarm(0);
	return spindle && workers_of(pid) ? -7 : 0;
}

static void t_sqpoll(void)
{
	struct io_uring ring;
	struct io_uring_params params;
	struct io_uring_sqe *sqe;
	char buf[16];
	int p[2], res = -1, r;
	unsigned long long ud = 0;
	pid_t pid;

	CHECK(pipe(p) == 0);
	memset(&params, 0, sizeof(params));
	params.flags = IORING_SETUP_SQPOLL;
	params.sq_thread_idle = 100;
	CHECK(io_uring_queue_init_params(4, &ring, &params) == 0);
	CHECK(io_uring_register_files(&ring, p, 1) == 0);
	memset(buf, 0, sizeof(buf));
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, 0, buf, 4, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = 5;
	/* 0 or 1: liburing counts what the SQ thread has not taken yet */
	r = submit_guarded(&ring);
	CHECK_MSG(r == 0 || r == 1, "SQPOLL submit: %d", r);
	CHECK(write(p[1], "sqpl", 4) == 4);
	CHECK(wait_one(&ring, &res, &ud) == 0);
	CHECK_MSG(res == 4 && ud == 5 && !memcmp(buf, "sqpl", 4), "SQPOLL pipe READ: res %d", res);
	io_uring_queue_exit(&ring);

	/* a child leaves with one pending */
	pid = fork();
	if (pid == 0) {
		memset(&params, 0, sizeof(params));
		params.flags = IORING_SETUP_SQPOLL;
		if (io_uring_queue_init_params(4, &ring, &params) ||
		    io_uring_register_files(&ring, p, 1))
			_exit(2);
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, 0, buf, 4, 0);
		sqe->flags |= IOSQE_FIXED_FILE;
		r = io_uring_submit(&ring);     /* 0 if the SQ thread took it already */
		if (r != 0 && r != 1)
			_exit(3);
		/* until the SQ thread has taken it */
		while (io_uring_sq_ready(&ring))
			sched_yield();
		_exit(0);
	}
	r = pid > 0 ? reap_and_probe(pid, p) : -1;
	CHECK_MSG(r == 0, "SQPOLL child: %d", r);
	close(p[0]);
	close(p[1]);
}

static void t_exec(void)
{
	int p[2], r;
	pid_t pid;

	CHECK(pipe(p) == 0);
	pid = fork();
	if (pid == 0) {
		struct io_uring ring;
		static char buf[16];

		if (io_uring_queue_init(4, &ring, 0))
			_exit(2);
		io_uring_prep_read(io_uring_get_sqe(&ring), p[0], buf, sizeof(buf), 0);
		if (io_uring_submit(&ring) != 1)
			_exit(3);
		execl(self, self, "-x", (char *)NULL);
		_exit(4);
	}
	r = pid > 0 ? reap_and_probe(pid, p) : -1;
	CHECK_MSG(r == 0, "exec child: %d", r);
	close(p[0]);
	close(p[1]);
}

int main(int argc, char **argv)
{
	static const struct hostile_case cases[] = {
		{ "pipe", t_pipe },
		{ "async", t_async },
		{ "link", t_link },
		{ "attach", t_attach },
		{ "exit", t_exit },
		{ "fsync", t_fsync },
		{ "sqpoll", t_sqpoll },
		{ "exec", t_exec },
	};

	int i = 1;

	if (argc == 2 && !strcmp(argv[1], "-x"))
		return 0;               /* t_exec's child, exec'd */
	self = argv[0];
	if (i < argc && !strcmp(argv[i], "-S")) {
		spindle = 1;
		i++;
	}
	if (i + 1 != argc) {
		fprintf(stderr, "usage: io_uring_wq [-S] FILE\n");
		return 2;
	}
	file_name = argv[i];
	return hostile_run("io_uring_wq", cases, sizeof(cases) / sizeof(cases[0]), NULL);
}
