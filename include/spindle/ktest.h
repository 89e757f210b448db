/* SPDX-License-Identifier: MIT */
/*
 * In-kernel tests, run by the serial test harness.
 *
 * A test case is a function registered with KTEST(suite, name).  Booting
 * with test=<suite>[,<suite>...] (or test=all, or test=<suite>.<case>
 * for a single case) runs those suites in a
 * kernel thread, one case after another, and prints one line per case on
 * the serial console:
 *
 *     TEST <suite>.<case> PASS
 *     TEST <suite>.<case> FAIL: <reason>
 *     TEST <suite>.<case> SKIP: <reason>
 *
 * then "<N> passed, <M> failed[, <K> skipped]" and leaves QEMU through
 * isa-debug-exit with the success or failure status.
 *
 * Inside a case, KT_ASSERT(cond) and KT_ASSERT_MSG(cond, fmt, ...) end the
 * case as failed (with file, line and the condition as the reason);
 * KT_SKIP(fmt, ...) ends it as skipped.  A case may sleep; it must free
 * what it allocates (the mm suite checks for leaks around other suites).
 *
 *     KTEST(mm, kmalloc_zeroed)
 *     {
 *             char *p = kzalloc(100, GFP_KERNEL);
 *             KT_ASSERT(p != NULL);
 *             ...
 *     }
 */
#ifndef SPINDLE_KTEST_H
#define SPINDLE_KTEST_H

#include <spindle/compiler.h>

struct ktest_state;

struct ktest_case {
	const char *suite;
	const char *name;
	void (*fn)(struct ktest_state *kt);
	const char *file;               /* cases run in source order */
	int line;
};

void ktest_fail(struct ktest_state *kt, const char *file, int line,
		const char *fmt, ...) __printf(4, 5);
void ktest_skip(struct ktest_state *kt, const char *fmt, ...) __printf(2, 3);
/* The case's TEST line was printed by someone else -- a user program
 * reporting its own result (tests/kernel/user_test.c): count it, print
 * nothing more. */
void ktest_reported(struct ktest_state *kt, bool passed);

#define KTEST(suite, name) \
	static void __ktest_fn_##suite##_##name(struct ktest_state *kt); \
	static const struct ktest_case __ktest_##suite##_##name \
	__used __section(".ktest") __aligned(8) = \
		{ #suite, #name, __ktest_fn_##suite##_##name, __FILE__, __LINE__ }; \
	static void __ktest_fn_##suite##_##name(struct ktest_state *kt __unused)

/* The condition is quoted as written: each macro stringifies its own
 * argument, as one passed on to another macro would be expanded first
 * (READ_ONCE(x) would read "(*(const volatile __typeof__(x) *)&(x))"). */
#define __KT_ASSERT(cond, text, fmt, ...)                                                    \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			ktest_fail(kt, __FILE__, __LINE__, "%s: " fmt, text, ##__VA_ARGS__); \
			return;                                                              \
		}                                                                            \
	} while (0)
#define KT_ASSERT_MSG(cond, fmt, ...) __KT_ASSERT(cond, #cond, fmt, ##__VA_ARGS__)
#define KT_ASSERT(cond) __KT_ASSERT(cond, #cond, "%s", "false")
#define KT_SKIP(fmt, ...) do { ktest_skip(kt, fmt, ##__VA_ARGS__); return; } while (0)
/* Skip a case that needs n CPUs when fewer are online (qemu -smp); the
 * caller includes spindle/smp.h. */
#define KT_NEEDS_CPUS(n)                                                     \
	do {                                                                 \
		if (num_online_cpus() < (n))                                 \
			KT_SKIP("needs %u CPUs, %u online (qemu -smp)", (n), \
				num_online_cpus());                          \
	} while (0)
/* A case about one CPU runs there only, until it ends (tasks run on
 * every CPU; each case starts free to run on any). */
bool ktest_pin_cpu(unsigned int cpu);

/* kernel/ktest.c: start a thread running the suites named by test=;
 * it exits QEMU with their verdict when done. */
void ktest_run_requested(void);
bool ktest_requested(void);

#endif /* SPINDLE_KTEST_H */
