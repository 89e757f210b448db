/* SPDX-License-Identifier: MIT */
/*
 * hostile.h - the little harness the hostile_* programs share.
 *
 * Each hostile program attacks one promise the kernel makes to user space
 * (docs/processes.md, "What the kernel promises a hostile program", and
 * docs/fs.md, "What the file layer promises a hostile program") and
 * prints one TEST line per case in the layout of tests/user/syscalls.c,
 * then "<N> passed, <M> failed".  A case is `static void t_name(void)`
 * using CHECK(), CHECK_MSG() and CHECK_ERR(); main() runs the table
 * through hostile_run().  mem_free_kb() and task_state() read /proc for
 * the cases that count memory or wait for a task to sleep.
 */
#ifndef HOSTILE_H
#define HOSTILE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/types.h>

static const char *hostile_suite;
static const char *hostile_case;
static int hostile_failed_now, hostile_skipped_now;

static void __attribute__((unused)) hostile_fail(int line, const char *what)
{
	if (!hostile_failed_now)
		printf("TEST %s.%s FAIL: line %d: %s (errno %d %s)\n", hostile_suite,
		       hostile_case, line, what, errno, strerror(errno));
	hostile_failed_now = 1;
}

#define CHECK(cond) do { if (!(cond)) hostile_fail(__LINE__, #cond); } while (0)
/* CHECK_MSG: as CHECK, with a formatted reason */
#define CHECK_MSG(cond, ...) do {                                               \
		if (!(cond) && !hostile_failed_now) {                           \
			char m_[160];                                           \
			snprintf(m_, sizeof(m_), __VA_ARGS__);                  \
			hostile_fail(__LINE__, m_);                             \
		}                                                               \
	} while (0)

/* CHECK_ERR(call, E): call must return -1 with errno E */
#define CHECK_ERR(call, E) do {                                                 \
		errno = 0;                                                      \
		long r_ = (long)(call);                                         \
		if (r_ != -1 || errno != (E))                                   \
			hostile_fail(__LINE__, #call " should fail with " #E);  \
	} while (0)

static inline void hostile_skip(const char *why)
{
	printf("TEST %s.%s SKIP: %s\n", hostile_suite, hostile_case, why);
	hostile_skipped_now = 1;
}

struct hostile_case {
	const char *name;
	void (*fn)(void);
};

/* A small text file (/proc, /sys) read whole into buf and NUL-terminated:
 * its length, or -1 if it cannot be opened or read is empty. */
static inline long read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	long n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* MemFree from /proc/meminfo, in KiB; -1 if it cannot be read.  (A
 * static buffer: some callers run with little memory to spare.) */
static inline long mem_free_kb(void)
{
	static char text[2048];
	char *s;

	if (read_text("/proc/meminfo", text, sizeof(text)) < 0)
		return -1;
	s = strstr(text, "MemFree:");
	return s ? strtol(s + 8, NULL, 10) : -1;
}

/* The state letter of /proc/<pid>/stat ('R', 'S', 'D', ...), or 0. */
static inline char task_state(pid_t pid)
{
	char path[64], text[512], *close_paren;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_text(path, text, sizeof(text)) < 0)
		return 0;
	close_paren = strrchr(text, ')');
	return close_paren && close_paren[1] == ' ' ? close_paren[2] : 0;
}

/* Run every case (or only the one named `only`); returns main's status. */
static inline int hostile_run(const char *suite, const struct hostile_case *c, int n,
			      const char *only)
{
	int passed = 0, failed = 0, skipped = 0;

	hostile_suite = suite;
	for (int i = 0; i < n; i++) {
		if (only && strcmp(only, c[i].name))
			continue;
		hostile_case = c[i].name;
		hostile_failed_now = hostile_skipped_now = 0;
		fflush(stdout);
		c[i].fn();
		fflush(stdout);
		if (hostile_failed_now)
			failed++;
		else if (hostile_skipped_now)
			skipped++;
		else {
			printf("TEST %s.%s PASS\n", suite, c[i].name);
			passed++;
		}
	}
	printf("%d passed, %d failed", passed, failed);
	if (skipped)
		printf(", %d skipped", skipped);
	printf("\n");
	fflush(stdout);
	return failed ? 1 : 0;
}

#endif /* HOSTILE_H */
