/* SPDX-License-Identifier: MIT */
/*
 * testline.h - the TEST lines of the glibc test programs whose cases
 * stop at their first failure (auxv.c, futex.c, threads.c, vdso.c).
 *
 * A program defines TEST_SUITE ("auxv", ...) before including this.  A
 * case is a void function that ends in pass("name") or leaves early
 * through FAIL("name", fmt, ...); main() ends in `return test_summary();`,
 * which prints "<N> passed, <M> failed" (the line tests/qemu/run.py
 * counts) and gives the exit status: 0 only if nothing failed.  The
 * hostile_* programs, whose cases go on after a failed check, use
 * hostile.h instead.
 */
#ifndef TESTLINE_H
#define TESTLINE_H

#include <stdio.h>

#ifndef TEST_SUITE
#error "define TEST_SUITE before including testline.h"
#endif

static int passed, failed;

#define FAIL(name, ...)                                                 \
	do {                                                            \
		printf("TEST " TEST_SUITE ".%s FAIL: ", name);          \
		printf(__VA_ARGS__);                                    \
		printf("\n");                                           \
		fflush(stdout);                                         \
		failed++;                                               \
		return;                                                 \
	} while (0)

static void pass(const char *name)
{
	printf("TEST " TEST_SUITE ".%s PASS\n", name);
	fflush(stdout);
	passed++;
}

static int test_summary(void)
{
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif
