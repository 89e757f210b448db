/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - what every fuzz target (tests/fuzz/fuzz_<name>.c) shares.
 *
 * A target is an ordinary libFuzzer program: LLVMFuzzerTestOneInput() is
 * called with one input at a time, hands it to a kernel parser built for
 * the host (the unit tests' shim, tests/unit/shim/host.h, is forced into
 * every file), and then checks what the parser promised about its result.
 * AddressSanitizer and UBSan catch the crashes and the undefined
 * behaviour; FUZZ_ASSERT() catches a broken promise, which is just as much
 * a bug: it prints the condition and aborts, and libFuzzer keeps the input
 * as a crash.
 *
 * Printing is captured by the shim (host_printk_buf) and kept quiet;
 * fuzz_begin() empties the buffer before each input, fuzz_end() fails
 * the input if the parser hit a WARN_ON() -- a warning that means "the
 * kernel's own bug", which no input should be able to cause.
 */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <spindle/types.h>
#include <spindle/string.h>

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define FUZZ_ASSERT(cond) do { \
	if (!(cond)) \
		fuzz_fail(__FILE__, __LINE__, #cond); \
} while (0)

static inline __attribute__((noreturn)) void fuzz_fail(const char *file, int line,
						     const char *cond)
{
	fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, cond);
	fprintf(stderr, "-- the parser's messages for this input --\n%s", host_printk_buf);
	abort();
}

static inline void fuzz_begin(void)
{
	host_printk_quiet = true;
	host_printk_reset();
}

static inline void fuzz_end(void)
{
	FUZZ_ASSERT(strstr(host_printk_buf, "WARNING at ") == NULL);
}

#endif /* TESTS_FUZZ_FUZZ_H */
