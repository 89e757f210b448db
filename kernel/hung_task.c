// SPDX-License-Identifier: MIT
/*
 * hung_task.c - khungtaskd, the hung-task detector (as Linux's).
 *
 * A task in TASK_UNINTERRUPTIBLE waits for an event nothing else can
 * interrupt -- in the I/O path, the completion of its bio.  If that event
 * never comes (a lost interrupt, or the bio deadlock of the old FIFO order under
 * bio_order=fifo), the task stops without a word.  khungtaskd makes such
 * a task visible: it wakes every timeout / HUNG_TASK_CHECKS_PER_TIMEOUT,
 * looks at every task, and reports one that has been asleep in D state
 * longer than the timeout -- once per sleep -- in Linux's words:
 *
 *     INFO: task <comm>:<pid> blocked for more than <N> seconds.
 *           wchan: <where it sleeps, see get_wchan()>
 *     Call Trace:
 *      [<...>] ...
 *
 * followed by whatever the block layer's hung_task_show_io hook prints.
 *
 * Interface (include/spindle/sched_debug.h): the boot option
 * hung_task_timeout=<seconds> (default 120 as Linux, 0 turns the detector
 * off); hung_task_reports counts reports for tests.
 *
 * When is a task hung?  At a check, a task is judged if it
 *   - is in TASK_UNINTERRUPTIBLE and off the run queue (a task preempted
 *     on its way to sleep is still runnable, so not stuck),
 *   - has run at all (nvcsw + nivcsw > 0: a new thread waits in D state
 *     for its first wake_up_process, which is not a hang),
 *   - has the same context-switch count as at the last check: it has not
 *     run in between, so this is one and the same sleep, and
 *   - went to sleep (p->sleep_start) more than the timeout ago.
 * A task is so reported between timeout and timeout * 1.5 after it fell
 * asleep.  Linux keeps the last switch count in each task_struct; here a
 * small table of the D-state tasks seen at the last check holds it (and
 * whether this sleep was already reported), keyed by pid, which Spindle
 * never reuses.  Only khungtaskd touches the table, so it needs no lock.
 */
#include <spindle/sched_debug.h>
#include <spindle/sched.h>
#include <spindle/init.h>
#include <spindle/ksyms.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/time.h>

#define DEFAULT_HUNG_TASK_TIMEOUT_S     120     /* Linux's default */
/* Checks per timeout: 2 reports a hang at most half a timeout late. */
#define HUNG_TASK_CHECKS_PER_TIMEOUT    2
/* Largest timeout whose nanoseconds fit in a u64 (about 584 years). */
#define HUNG_TASK_TIMEOUT_MAX_S         (~0ULL / NSEC_PER_SEC)
/* D-state tasks remembered between checks; beyond that, the rest are
 * looked at only once the first ones wake up. */
#define HUNG_TASK_MAX_WATCH             64
/* Reports printed per check; the others wait for the next check. */
#define HUNG_TASK_MAX_REPORTS           8

unsigned long hung_task_timeout_secs = DEFAULT_HUNG_TASK_TIMEOUT_S;
unsigned long hung_task_reports;
void (*hung_task_show_io)(struct task_struct *p);

/* A task found in D state at a check, remembered until the next one. */
struct hung_task_watch {
	int pid;
	u64 switch_count;               /* nvcsw + nivcsw at that check */
	bool reported;                  /* this sleep has been reported */
};

/* Two tables: the last check's, read while this check's is filled. */
static struct hung_task_watch watch[2][HUNG_TASK_MAX_WATCH];
static unsigned int nr_watch[2];
static unsigned int last_check;         /* which table is the last check's */

static int __init hung_task_timeout_setup(const char *val)
{
	unsigned long long secs;

	if (kstrtoull(val, 10, &secs) || secs > HUNG_TASK_TIMEOUT_MAX_S)
		return -EINVAL;
	hung_task_timeout_secs = secs;
	return 0;
}
__setup("hung_task_timeout=", hung_task_timeout_setup);

static const struct hung_task_watch *watch_find(int pid)
{
	for (unsigned int i = 0; i < nr_watch[last_check]; i++)
		if (watch[last_check][i].pid == pid)
			return &watch[last_check][i];
	return NULL;
}

/*
 * Record D-state task p in this check's entry w; returns true if it has
 * now slept, unreported, for longer than the timeout.
 */
static bool check_hung_task(struct task_struct *p, struct hung_task_watch *w,
			    u64 now, u64 timeout_ns)
{
	const struct hung_task_watch *last = watch_find(p->pid);

	w->pid = p->pid;
	w->switch_count = p->nvcsw + p->nivcsw;
	w->reported = false;
	if (!last || last->switch_count != w->switch_count)
		return false;           /* it ran since: a new sleep, judge it next time */
	w->reported = last->reported;
	return !w->reported && now - p->sleep_start > timeout_ns;
}

static void hung_task_report(struct task_struct *p)
{
	char wchan[128];

	ksym_snprint(wchan, sizeof(wchan), get_wchan(p));
	printk(KERN_ERR "INFO: task %s:%d blocked for more than %lu seconds.\n",
	       p->comm, p->pid, hung_task_timeout_secs);
	printk(KERN_ERR "      wchan: %s\n", wchan);
	sched_show_task(p);
	if (hung_task_show_io)
		hung_task_show_io(p);
	WRITE_ONCE(hung_task_reports, hung_task_reports + 1);
}

/*
 * One check.  Fork and exit on any CPU change the task list, so it is
 * walked under tasklist_lock -- but printing to the serial port is slow,
 * so the walk only picks the hung tasks (pinning each with
 * get_task_struct, so none can be freed) and the reports come after,
 * unlocked.  (A task may wake in between: its report then shows
 * where it is now.)
 */
static void check_hung_uninterruptible_tasks(void)
{
	const u64 timeout_ns = hung_task_timeout_secs * NSEC_PER_SEC;
	const unsigned int this_check = !last_check;
	struct task_struct *hung[HUNG_TASK_MAX_REPORTS];
	unsigned int nr = 0, nr_hung = 0;
	struct task_struct *p;
	unsigned long flags;
	u64 now;

	spin_lock_irqsave(&tasklist_lock, flags);
	now = ktime_get_ns();
	list_for_each_entry(p, &task_list, tasks) {
		struct hung_task_watch *w;

		if (p->state != TASK_UNINTERRUPTIBLE || p->on_rq ||
		    p->nvcsw + p->nivcsw == 0)
			continue;
		if (nr == HUNG_TASK_MAX_WATCH)
			break;
		w = &watch[this_check][nr++];
		if (check_hung_task(p, w, now, timeout_ns) &&
		    nr_hung < HUNG_TASK_MAX_REPORTS) {
			get_task_struct(p);
			hung[nr_hung++] = p;
			w->reported = true;
		}
	}
	nr_watch[this_check] = nr;
	last_check = this_check;
	spin_unlock_irqrestore(&tasklist_lock, flags);

	for (unsigned int i = 0; i < nr_hung; i++) {
		hung_task_report(hung[i]);
		put_task_struct(hung[i]);
	}
}

static int khungtaskd(void *unused)
{
	const u64 interval_ms = hung_task_timeout_secs * MSEC_PER_SEC /
				HUNG_TASK_CHECKS_PER_TIMEOUT;

	(void)unused;
	for (;;) {
		/* TASK_INTERRUPTIBLE, not msleep()'s D state: the watcher's
		 * own sleep is not one it should ever find (Linux: TASK_IDLE). */
		set_current_state(TASK_INTERRUPTIBLE);
		schedule_timeout((long)msecs_to_jiffies(interval_ms));
		check_hung_uninterruptible_tasks();
	}
	return 0;
}

static int __init hung_task_init(void)
{
	if (!hung_task_timeout_secs)
		return 0;               /* hung_task_timeout=0: off */
	if (!kthread_run(khungtaskd, NULL, "khungtaskd"))
		return -ENOMEM;
	return 0;
}
late_initcall(hung_task_init);
