/*
 * Plugging meets the scheduler (seed 002): a task that sleeps has its plug
 * flushed by schedule() -- before it sleeps, since what it waits for may
 * be on that plug -- io_schedule() flushes even a running task's plug, a
 * preempted task keeps its batch, and a task that exits with a plug
 * attached is warned about and flushed.
 */
#include <spindle/ktest.h>
#include <spindle/blk_plug.h>
#include <spindle/sched.h>
#include <spindle/completion.h>
#include <spindle/time.h>
#include <spindle/mm.h>

static int flushes;
static bool flushed_from_schedule;
static long state_at_flush;

static void note_flush(struct blk_plug_cb *cb, bool from_schedule)
{
	flushes++;
	flushed_from_schedule = from_schedule;
	state_at_flush = current->state;
	kfree(cb);
}

static void park(void)
{
	blk_check_plugged(note_flush, &flushes, sizeof(struct blk_plug_cb));
}

KTEST(plug, schedule_flushes_before_sleep)
{
	struct blk_plug plug;

	if (!plug_enabled)
		KT_SKIP("booted with plug=off");
	flushes = 0;
	blk_start_plug(&plug);
	park();
	KT_ASSERT(flushes == 0);
	msleep(2);                      /* sleeps: schedule() flushes first */
	KT_ASSERT_MSG(flushes == 1, "flushes %d", flushes);
	KT_ASSERT(flushed_from_schedule);
	/* flushed while the task was already marked as going to sleep */
	KT_ASSERT(state_at_flush == TASK_UNINTERRUPTIBLE);
	KT_ASSERT(current->plug == &plug);
	blk_finish_plug(&plug);
	KT_ASSERT(flushes == 1);
}

KTEST(plug, yield_does_not_flush)
{
	struct blk_plug plug;

	if (!plug_enabled)
		KT_SKIP("booted with plug=off");
	flushes = 0;
	blk_start_plug(&plug);
	park();
	yield();                        /* still runnable: the batch stays */
	KT_ASSERT(flushes == 0);
	io_schedule();                  /* always flushes */
	KT_ASSERT(flushes == 1);
	blk_finish_plug(&plug);
}

static int leaky(void *arg)
{
	static struct blk_plug plug;    /* static: outlives the frame on purpose */

	(void)arg;
	blk_start_plug(&plug);
	park();
	return 0;                       /* the bug: no blk_finish_plug() */
}

KTEST(plug, exit_with_plug_is_flushed)
{
	struct task_struct *t;

	if (!plug_enabled)
		KT_SKIP("booted with plug=off");
	flushes = 0;
	t = kthread_run(leaky, NULL, "leaky");
	KT_ASSERT(t != NULL);
	for (int i = 0; i < 100 && !flushes; i++)
		msleep(1);
	KT_ASSERT_MSG(flushes == 1, "the exiting task's plug was not flushed");
}

KTEST(plug, off_means_no_plug)
{
	struct blk_plug plug;

	blk_start_plug(&plug);
	if (plug_enabled) {
		KT_ASSERT(current->plug == &plug);
		blk_finish_plug(&plug);
		KT_SKIP("plugging is on (boot with plug=off to test this)");
	}
	KT_ASSERT(current->plug == NULL);
	KT_ASSERT(blk_check_plugged(note_flush, &flushes, sizeof(struct blk_plug_cb)) == NULL);
	blk_finish_plug(&plug);
}
