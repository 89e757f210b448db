// SPDX-License-Identifier: MIT
/*
 * ktest.c - the in-kernel test runner (include/spindle/ktest.h).
 *
 * test=<suite>[,<suite>...] on the command line (test=all for every
 * suite, test=<suite>.<case> for one case) selects suites; after boot, a kernel thread "ktest" runs their
 * cases in link order and prints the harness's lines on the console:
 *
 *     TEST mm.kmalloc_churn PASS
 *     TEST sched.mutex_contention FAIL: tests/kernel/sched_test.c:88: ...
 *     5 passed, 1 failed
 *
 * Suites run in the order test= names them (test=all: link order), each
 * suite's cases in source order.  The runner then leaves QEMU through
 * isa-debug-exit: QEMU_EXIT_SUCCESS when nothing
 * failed, QEMU_EXIT_FAILURE otherwise.  A suite name that matches no case
 * is reported as a failure, so a typo in a scenario cannot pass silently.
 * A case that panics ends the run with the panic report.
 */
#include <spindle/ktest.h>
#include <spindle/init.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/sched.h>
#include <spindle/mm.h>
#include <asm/traps.h>

#define KTEST_MAX_SUITES  16
#define KTEST_REASON_LEN  256
#define KTEST_MAX_CASES   512

enum ktest_result { KTEST_PASS, KTEST_FAIL, KTEST_SKIP };

struct ktest_state {
	enum ktest_result result;
	char reason[KTEST_REASON_LEN];
	bool reported;                  /* the TEST line was printed elsewhere */
};

extern const struct ktest_case __ktest_start[], __ktest_end[];


/* Run the calling case on cpu only, from now until the case ends; false
 * if it is not there after a switch (the scheduler did not move it). */
bool ktest_pin_cpu(unsigned int cpu)
{
	struct cpumask m = { 0 };

	cpumask_set_cpu(cpu, &m);
	if (set_cpus_allowed_ptr(current, &m))
		return false;
	if (smp_processor_id() != cpu)
		schedule();     /* the switch away moves it */
	return smp_processor_id() == cpu;
}

static char suites[KTEST_MAX_SUITES][32];
static int nr_suites;
static bool run_all;

static int __init test_setup(const char *val)
{
	char buf[256], *p = buf, *s;

	strlcpy(buf, val, sizeof(buf));
	while ((s = strsep(&p, ",")) != NULL) {
		if (!*s)
			continue;
		if (strcmp(s, "all") == 0) {
			run_all = true;
			continue;
		}
		if (nr_suites == KTEST_MAX_SUITES)
			return -EINVAL;
		strlcpy(suites[nr_suites++], s, sizeof(suites[0]));
	}
	return 0;
}
__setup("test=", test_setup);

bool ktest_requested(void)
{
	return run_all || nr_suites > 0;
}

void ktest_fail(struct ktest_state *kt, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	kt->result = KTEST_FAIL;
	n = scnprintf(kt->reason, sizeof(kt->reason), "%s:%d: ", file, line);
	va_start(ap, fmt);
	vscnprintf(kt->reason + n, sizeof(kt->reason) - n, fmt, ap);
	va_end(ap);
}

void ktest_skip(struct ktest_state *kt, const char *fmt, ...)
{
	va_list ap;

	kt->result = KTEST_SKIP;
	va_start(ap, fmt);
	vscnprintf(kt->reason, sizeof(kt->reason), fmt, ap);
	va_end(ap);
}

void ktest_reported(struct ktest_state *kt, bool passed)
{
	kt->result = passed ? KTEST_PASS : KTEST_FAIL;
	kt->reported = true;
}

static bool case_before(const struct ktest_case *a, const struct ktest_case *b)
{
	int f = strcmp(a->file, b->file);

	return f < 0 || (f == 0 && a->line < b->line);
}

/* Run the cases of one suite (or just the case named `only`), in source
 * order; returns how many ran. */
static int run_suite(const char *suite, const char *only, int counts[3])
{
	static const struct ktest_case *cases[KTEST_MAX_CASES];
	static struct ktest_state kt;
	static const char *const verdict[] = { "PASS", "FAIL: ", "SKIP: " };
	int n = 0;

	for (const struct ktest_case *c = __ktest_start; c < __ktest_end; c++) {
		if (strcmp(c->suite, suite) != 0 || (only && strcmp(c->name, only) != 0))
			continue;
		if (n == KTEST_MAX_CASES)
			panic("ktest: more than %d cases in suite %s", KTEST_MAX_CASES, suite);
		/* insertion sort: n is small */
		int i = n++;

		while (i > 0 && case_before(c, cases[i - 1])) {
			cases[i] = cases[i - 1];
			i--;
		}
		cases[i] = c;
	}
	for (int i = 0; i < n; i++) {
		kt.result = KTEST_PASS;
		kt.reason[0] = '\0';
		kt.reported = false;
		/* every case starts free to run on any CPU; one about a
		 * given CPU pins itself (ktest_pin_cpu()) */
		set_cpus_allowed_ptr(current, cpu_online_mask);
		cases[i]->fn(&kt);
		counts[kt.result]++;
		if (!kt.reported)
			printk("TEST %s.%s %s%s\n", cases[i]->suite, cases[i]->name,
			       verdict[kt.result], kt.reason);
	}
	return n;
}

static int ktest_thread(void *unused)
{
	int counts[3] = { 0, 0, 0 };    /* indexed by enum ktest_result */

	(void)unused;
	if (run_all) {
		/* every suite once, in link order, except two below */
		for (const struct ktest_case *c = __ktest_start; c < __ktest_end; c++) {
			bool seen = false;

			for (const struct ktest_case *p = __ktest_start; p < c && !seen; p++)
				seen = strcmp(p->suite, c->suite) == 0;
			/* fault crashes; debug commits memory and lock bugs on purpose */
			if (!seen && strcmp(c->suite, "fault") != 0 && strcmp(c->suite, "debug") != 0)
				run_suite(c->suite, NULL, counts);
		}
	}
	for (int i = 0; i < nr_suites; i++) {
		char *only = strchr(suites[i], '.');    /* test=suite.case */

		if (only)
			*only++ = '\0';
		/* A named suite with no cases is an error, not an empty success. */
		if (run_suite(suites[i], only, counts) == 0) {
			printk("TEST %s.%s FAIL: no such test\n", suites[i], only ? only : "*");
			counts[KTEST_FAIL]++;
		}
	}
	if (counts[KTEST_SKIP])
		printk("%d passed, %d failed, %d skipped\n", counts[KTEST_PASS],
		       counts[KTEST_FAIL], counts[KTEST_SKIP]);
	else
		printk("%d passed, %d failed\n", counts[KTEST_PASS], counts[KTEST_FAIL]);
	qemu_exit(counts[KTEST_FAIL] ? QEMU_EXIT_FAILURE : QEMU_EXIT_SUCCESS);
}

void ktest_run_requested(void)
{
	if (!kthread_run(ktest_thread, NULL, "ktest"))
		panic("ktest: cannot start the test thread");
}
