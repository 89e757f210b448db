// SPDX-License-Identifier: MIT
/*
 * hostile_console write|read - the console cannot hold a dying process,
 * nor lose a typed line to a bad pointer.
 *
 * write (no input needed):
 *   write_killed       a child writes 4 MiB to the console in one write();
 *                      as soon as /proc/<child>/stack shows it inside
 *                      tty_write, we send SIGKILL.  It must die of it
 *                      (waitpid) before the write completes: the buffer
 *                      ends with a marker line the scenario rejects.
 *   write_interrupted  the same with SIGUSR1, which the child handles:
 *                      write() returns the bytes written so far, more than
 *                      0 and fewer than 4 MiB, as Linux's n_tty_write().
 *   write_lock_killed  a second writer, asleep on the console's write lock
 *                      behind a 4 MiB write, dies of SIGKILL while the big
 *                      write is still going.
 * read (the scenario types two lines, each after a prompt):
 *   read_efault        a read into an unmapped buffer fails with EFAULT
 *                      and the line stays: the next read returns all of it
 *   read_partial       a buffer that runs into an unmapped page gets the
 *                      bytes that fit; the rest of the line comes next
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/mman.h>
#include <asm/unistd_64.h>
#include "hostile.h"

#define BIG             (4u << 20)
#define MARKER          "\nhostile_console: END OF THE BIG WRITE\n"

static char *big;

/* Is pid inside tty_write right now?  We run on its CPU (main() pins us
 * and so our children to one), so it does not: its stack shows where it
 * was preempted.  A child running on another CPU would show no stack. */
static int in_tty_write(pid_t pid)
{
	char path[64], buf[2048];
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, "tty_write") != NULL;
}

static void fill_big(void)
{
	if (!big) {
		big = malloc(BIG);
		if (!big)
			return;
		for (unsigned i = 0; i < BIG; i++)
			big[i] = (i % 64 == 63) ? '\n' : '.';
		memcpy(big + BIG - strlen(MARKER), MARKER, strlen(MARKER));
	}
}

/* Start a child writing the big buffer; wait until it is inside the write. */
static pid_t start_big_writer(int (*child)(void))
{
	pid_t pid;

	fill_big();
	CHECK(big != NULL);
	if (!big)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child());
	CHECK(pid > 0);
	while (pid > 0 && !in_tty_write(pid)) {
		int st;

		if (waitpid(pid, &st, WNOHANG) == pid) {
			CHECK_MSG(0, "the writer ended before we saw it write (status %#x)", st);
			return -1;
		}
		sched_yield();
	}
	return pid;
}

static int write_all_big(void)
{
	write(1, big, BIG);
	return 0;
}

static void t_write_killed(void)
{
	pid_t pid = start_big_writer(write_all_big);
	int st;

	if (pid <= 0)
		return;
	CHECK(kill(pid, SIGKILL) == 0);
	CHECK(waitpid(pid, &st, 0) == pid);
	printf("\n");
	CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status %#x", st);
}

static volatile int got_usr1;

static void on_usr1(int sig)
{
	got_usr1 = sig;
}

/* exit 0: write() returned a count short of the whole, after the signal */
static int write_big_handled(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	long n;

	sigaction(SIGUSR1, &sa, NULL);
	n = write(1, big, BIG);
	dprintf(1, "\nhostile_console: write returned %ld\n", n);
	return got_usr1 == SIGUSR1 && n > 0 && n < (long)BIG ? 0 : 1;
}

static void t_write_interrupted(void)
{
	pid_t pid = start_big_writer(write_big_handled);
	int st;

	if (pid <= 0)
		return;
	CHECK(kill(pid, SIGUSR1) == 0);
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
}

/* Is pid asleep waiting for a mutex (the console's write lock)? */
static int in_mutex_wait(pid_t pid)
{
	char path[64], buf[2048];
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, "mutex_lock") != NULL && strstr(buf, "tty_write") != NULL;
}

static int write_small(void)
{
	write(1, "hostile_console: the waiter wrote\n", 34);
	return 0;
}

/* A writer waiting for the console's write lock behind a 4 MiB write
 * dies of SIGKILL at once -- while the big writer is still writing. */
static void t_write_lock_killed(void)
{
	pid_t big_writer = start_big_writer(write_all_big), waiter;
	int st;

	if (big_writer <= 0)
		return;
	waiter = fork();
	if (waiter == 0)
		_exit(write_small());
	CHECK(waiter > 0);
	while (waiter > 0 && !in_mutex_wait(waiter)) {
		if (waitpid(waiter, &st, WNOHANG) == waiter) {
			CHECK_MSG(0, "the waiter ended before it waited (status %#x)", st);
			waiter = -1;
			break;
		}
		sched_yield();
	}
	if (waiter > 0) {
		CHECK(kill(waiter, SIGKILL) == 0);
		CHECK(waitpid(waiter, &st, 0) == waiter);
		CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "waiter status %#x", st);
		/* it died first: the big write is still going */
		CHECK(waitpid(big_writer, &st, WNOHANG) == 0);
	}
	kill(big_writer, SIGKILL);
	waitpid(big_writer, &st, 0);
	printf("\n");
}

/* --- reading --- */

/* A page we own, followed by one that is unmapped. */
static char *edge_page(void)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p + 4096, 4096);
	return p;
}

static void t_read_efault(void)
{
	char buf[128];
	long n;

	printf("hostile_console: type a line\n");
	fflush(stdout);
	errno = 0;
	n = read(0, (void *)16, sizeof(buf));     /* blocks until the line */
	CHECK_MSG(n == -1 && errno == EFAULT, "read into NULL+16 returned %ld", n);
	n = read(0, buf, sizeof(buf) - 1);
	CHECK(n >= 0);
	buf[n < 0 ? 0 : n] = '\0';
	CHECK_MSG(n == 14 && strcmp(buf, "line one kept\n") == 0, "the next read got %ld: \"%s\"",
		  n, buf);
}

static void t_read_partial(void)
{
	char *p = edge_page(), buf[128];
	long n;

	CHECK(p != NULL);
	if (!p)
		return;
	printf("hostile_console: type another line\n");
	fflush(stdout);
	n = read(0, p + 4096 - 4, 100);         /* 4 bytes fit */
	CHECK_MSG(n == 4 && memcmp(p + 4092, "line", 4) == 0, "the edge read returned %ld", n);
	n = read(0, buf, sizeof(buf) - 1);
	CHECK(n >= 0);
	buf[n < 0 ? 0 : n] = '\0';
	CHECK_MSG(n == 10 && strcmp(buf, " two kept\n") == 0, "the next read got %ld: \"%s\"", n, buf);
	munmap(p, 4096);
}

static const struct hostile_case write_cases[] = {
	{ "write_killed", t_write_killed },
	{ "write_interrupted", t_write_interrupted },
	{ "write_lock_killed", t_write_lock_killed },
};

static const struct hostile_case read_cases[] = {
	{ "read_efault", t_read_efault },
	{ "read_partial", t_read_partial },
};

int main(int argc, char **argv)
{
	unsigned long cpu0 = 1;

	/* the writers we fork run on our CPU, where we can catch them
	 * preempted inside the write (in_tty_write()) */
	if (syscall(__NR_sched_setaffinity, 0, sizeof(cpu0), &cpu0) != 0)
		fprintf(stderr, "hostile_console: sched_setaffinity failed: %s\n", strerror(errno));
	if (argc > 1 && strcmp(argv[1], "write") == 0)
		return hostile_run("hostile_console", write_cases, 3, argc > 2 ? argv[2] : NULL);
	if (argc > 1 && strcmp(argv[1], "read") == 0)
		return hostile_run("hostile_console", read_cases, 2, argc > 2 ? argv[2] : NULL);
	fprintf(stderr, "usage: hostile_console write|read [case]\n");
	return 2;
}
