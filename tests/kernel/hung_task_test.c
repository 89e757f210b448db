// SPDX-License-Identifier: MIT
/*
 * Hung-task detector tests (test=hung_task; tests/qemu/scenarios/
 * hung-task.scn boots with hung_task_timeout=2 and checks the report's
 * text).
 *
 * Core: the stack of a thread asleep on a completion reads, innermost
 * first, scheduler -> wait_for_completion -> the thread's function ->
 * kthread_entry, and its wait channel is the thread's function, not
 * schedule().  A thread asleep in D state "forever" is reported once --
 * not before the timeout, not twice for the same sleep.
 *
 * Each thread sleeps on a static completion and is released at the end of
 * its case whatever the verdict (asserts come after the release), then
 * reaped with kthread_stop.  Static, not on the case's stack: a sleeper
 * must never be left pointing into a case that has returned.
 */
#include <spindle/ktest.h>
#include <spindle/sched.h>
#include <spindle/sched_debug.h>
#include <spindle/completion.h>
#include <spindle/ksyms.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include "ktest_sched.h"

/* Longer timeouts would make the report case too slow to run. */
#define HUNG_TEST_MAX_TIMEOUT_S 10
#define HUNG_TEST_POLL_MS       50
#define TRACE_DEPTH             16

/* --- hung_task: Core ------------------------------------------------- */

static DECLARE_COMPLETION(wchan_release);

static int wchan_test_thread(void *unused)
{
	(void)unused;
	wait_for_completion(&wchan_release);
	return 0;
}

/* The frames a sleep on a completion must show, outermost last. */
static const char *const wchan_expected_frames[] = {
	"wait_for_completion",
	"wchan_test_thread",
	"kthread_entry",
};

KTEST(hung_task, wchan_of_sleeper)
{
	unsigned long trace[TRACE_DEPTH], off, size;
	const char *wchan = NULL, *innermost = NULL;
	unsigned int n = 0, found = 0;
	struct task_struct *t;
	bool asleep;

	KT_ASSERT_MSG(get_wchan(current) == 0, "the running task has a wait channel");
	reinit_completion(&wchan_release);
	t = kthread_run(wchan_test_thread, NULL, "wchantest");
	KT_ASSERT(t != NULL);
	get_task_struct(t);             /* pinned until after kthread_stop */
	asleep = ktest_wait_asleep(t, TASK_UNINTERRUPTIBLE);
	if (asleep) {
		wchan = ksym_lookup(get_wchan(t), &off, &size);
		n = stack_trace_save_tsk(t, trace, ARRAY_SIZE(trace));
		if (n)
			innermost = ksym_lookup(trace[0], &off, &size);
		/* the expected frames, in order, anywhere in the trace */
		for (unsigned int i = 0; i < n && found < ARRAY_SIZE(wchan_expected_frames); i++) {
			const char *name = ksym_lookup(trace[i], &off, &size);

			if (name && strcmp(name, wchan_expected_frames[found]) == 0)
				found++;
		}
		sched_show_task(t);     /* for the reader of the log */
	}
	complete(&wchan_release);
	kthread_stop(t);
	put_task_struct(t);

	KT_ASSERT_MSG(asleep, "wchantest never went to sleep");
	KT_ASSERT_MSG(wchan && strcmp(wchan, "wchan_test_thread") == 0,
		      "wchan is %s", wchan ? wchan : "not in the kernel");
	KT_ASSERT_MSG(innermost && strstr(innermost, "schedule"),
		      "innermost frame %s is not the scheduler", innermost ? innermost : "?");
	KT_ASSERT_MSG(found == ARRAY_SIZE(wchan_expected_frames),
		      "%u frames, %s missing or out of order", n,
		      wchan_expected_frames[found < ARRAY_SIZE(wchan_expected_frames) ? found : 0]);
}

static DECLARE_COMPLETION(hung_release);

/* Sleeps in D state until the case releases it: the "hung" task. */
static int hungtest_thread(void *unused)
{
	(void)unused;
	wait_for_completion(&hung_release);
	return 0;
}

/*
 * The report must come after the timeout (only a lower bound is checked,
 * as in the time suite: a busy host can make it late, nothing can make a
 * correct one early) and within three timeouts (it is due by 1.5); then
 * another full timeout -- two more checks -- must bring no second report.
 */
KTEST(hung_task, reports_blocked_task)
{
	const u64 timeout_ms = hung_task_timeout_secs * MSEC_PER_SEC;
	unsigned long before, reports = 0, reports_later = 0;
	u64 slept_at = 0, seen_at = 0;
	struct task_struct *t;
	bool asleep;

	if (hung_task_timeout_secs == 0)
		KT_SKIP("hung_task_timeout=0: the detector is off");
	if (hung_task_timeout_secs > HUNG_TEST_MAX_TIMEOUT_S)
		KT_SKIP("hung_task_timeout=%lu s is too long for a test (boot with "
			"hung_task_timeout=2)", hung_task_timeout_secs);

	reinit_completion(&hung_release);
	before = READ_ONCE(hung_task_reports);
	t = kthread_run(hungtest_thread, NULL, "hungtest");
	KT_ASSERT(t != NULL);
	get_task_struct(t);             /* pinned until after kthread_stop */
	asleep = ktest_wait_asleep(t, TASK_UNINTERRUPTIBLE);
	slept_at = READ_ONCE(t->sleep_start);
	for (u64 ms = 0; asleep && ms < 3 * timeout_ms; ms += HUNG_TEST_POLL_MS) {
		msleep(HUNG_TEST_POLL_MS);
		reports = READ_ONCE(hung_task_reports) - before;
		if (reports) {
			seen_at = ktime_get_ns();
			break;
		}
	}
	if (reports) {
		/* in short sleeps: one msleep(timeout) is itself a D-state sleep
		 * the detector would report on a host slow enough to stretch it */
		for (u64 ms = 0; ms < timeout_ms; ms += HUNG_TEST_POLL_MS)
			msleep(HUNG_TEST_POLL_MS);
		reports_later = READ_ONCE(hung_task_reports) - before;
	}
	complete(&hung_release);
	kthread_stop(t);
	put_task_struct(t);

	KT_ASSERT_MSG(asleep, "hungtest never went to sleep");
	KT_ASSERT_MSG(reports == 1, "%lu reports within %llu ms, want 1", reports,
		      (unsigned long long)(3 * timeout_ms));
	KT_ASSERT_MSG(seen_at - slept_at >= timeout_ms * NSEC_PER_MSEC,
		      "reported %llu ms into the sleep, before the %lu s timeout",
		      (unsigned long long)((seen_at - slept_at) / NSEC_PER_MSEC),
		      hung_task_timeout_secs);
	KT_ASSERT_MSG(reports_later == 1, "%lu reports for one sleep", reports_later);
}
