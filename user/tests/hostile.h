/*
 * hostile.h - the TEST-line harness shared by the hostile_* programs.
 *
 * Each hostile_<suite> program attacks one promise of the kernel (see
 * docs/fs.md, "What the file layer promises a hostile program") and
 * prints, as user/tests/syscalls.c does, one line per case:
 *
 *      TEST <suite>.<case> PASS
 *      TEST <suite>.<case> FAIL: line <n>: <what> (errno <e> <name>)
 *
 * and at the end "<N> passed, <M> failed".  The suite's main() calls
 * hostile_run() with its table; a case uses CHECK and CHECK_ERR.
 */
#ifndef HOSTILE_H
#define HOSTILE_H

#include <stdio.h>
#include <string.h>
#include <errno.h>

static const char *h_suite, *h_case;
static int h_failed_now;

static void h_fail_at(int line, const char *what)
{
	if (!h_failed_now)
		printf("TEST %s.%s FAIL: line %d: %s (errno %d %s)\n", h_suite, h_case, line,
		       what, errno, strerror(errno));
	h_failed_now = 1;
}

/* CHECK(cond): the case fails if cond is false */
#define CHECK(cond) do { if (!(cond)) h_fail_at(__LINE__, #cond); } while (0)
/* CHECK_ERR(call, E): call must return -1 with errno E */
#define CHECK_ERR(call, E) do {                                                 \
		errno = 0;                                                      \
		long r_ = (long)(call);                                         \
		if (r_ != -1 || errno != (E))                                   \
			h_fail_at(__LINE__, #call " should fail with " #E);     \
	} while (0)

struct hostile_case {
	const char *name;
	void (*fn)(void);
};

/* Run every case (or only the one named `only`); returns main's status. */
static int hostile_run(const char *suite, const struct hostile_case *cases, int n,
		       const char *only)
{
	int passed = 0, failed = 0;

	h_suite = suite;
	for (int i = 0; i < n; i++) {
		if (only && strcmp(only, cases[i].name))
			continue;
		h_case = cases[i].name;
		h_failed_now = 0;
		fflush(stdout);
		cases[i].fn();
		if (h_failed_now) {
			failed++;
		} else {
			printf("TEST %s.%s PASS\n", suite, h_case);
			passed++;
		}
		fflush(stdout);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif /* HOSTILE_H */
