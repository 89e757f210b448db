// SPDX-License-Identifier: MIT
/*
 * blk-plug.c - per-task plugging (Linux commit 73c101011926; include/spindle/blk_plug.h).
 *
 * Where it sits: between the submitters (who bracket a batch with
 * blk_start_plug/blk_finish_plug) and the request layer and stacked
 * drivers (which park work on the plug instead of sending it at once:
 * blk-mq's requests, dm-raid1's callback).  The
 * scheduler calls blk_flush_plug() from schedule() for a task about to
 * sleep, and io_schedule() always does.
 *
 * Everything here touches only current's own plug, so it needs no lock:
 * that is the point of making plugs per task.
 */
#include <spindle/blk_plug.h>
#include <spindle/sched.h>
#include <spindle/mm.h>
#include <spindle/init.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include "blk.h"

bool plug_enabled = true;

static int __init plug_setup(const char *val)
{
	if (strcmp(val, "off") == 0)
		plug_enabled = false;
	else if (strcmp(val, "on") == 0)
		plug_enabled = true;
	else
		return -EINVAL;
	return 0;
}
__setup("plug=", plug_setup);

void blk_start_plug(struct blk_plug *plug)
{
	/* LAB 3 BEGIN */
	plug->magic = PLUG_MAGIC;
	INIT_LIST_HEAD(&plug->mq_list);
	plug->rq_count = 0;
	INIT_LIST_HEAD(&plug->cb_list);
	/* Nested: the outer plug stays in charge; this one is never used. */
	if (!current->plug && plug_enabled)
		current->plug = plug;
	/* LAB 3 END: (void)plug; */
}

/* Run and free every callback; each may queue new ones, so loop. */
static void flush_plug_callbacks(struct blk_plug *plug, bool from_schedule)
{
	LIST_HEAD(callbacks);

	while (!list_empty(&plug->cb_list)) {
		list_splice_init(&plug->cb_list, &callbacks);
		while (!list_empty(&callbacks)) {
			struct blk_plug_cb *cb = list_first_entry(&callbacks,
							struct blk_plug_cb, list);

			list_del(&cb->list);
			cb->callback(cb, from_schedule);   /* it frees cb: kfree */
		}
	}
}

void blk_flush_plug(struct task_struct *tsk, bool from_schedule)
{
	/* LAB 3 BEGIN */
	struct blk_plug *plug = tsk->plug;

	if (!plug)
		return;
	BUG_ON(plug->magic != PLUG_MAGIC);
	flush_plug_callbacks(plug, from_schedule);
	if (!list_empty(&plug->mq_list))
		blk_mq_flush_plug_list(plug, from_schedule);
	/* LAB 3 END: (void)tsk; (void)from_schedule; (void)flush_plug_callbacks; */
}

bool blk_needs_flush_plug(struct task_struct *tsk)
{
	struct blk_plug *plug = tsk->plug;

	return plug && (!list_empty(&plug->cb_list) || !list_empty(&plug->mq_list));
}

void blk_finish_plug(struct blk_plug *plug)
{
	/* LAB 3 BEGIN */
	if (plug != current->plug)
		return;                 /* an inner (nested) plug, or plug=off */
	blk_flush_plug(current, false);
	current->plug = NULL;
	/* LAB 3 END: (void)plug; */
}

struct blk_plug_cb *blk_check_plugged(blk_plug_cb_fn fn, void *data, size_t size)
{
	struct blk_plug *plug = current->plug;
	struct blk_plug_cb *cb;

	if (!plug)
		return NULL;
	BUG_ON(plug->magic != PLUG_MAGIC);
	list_for_each_entry(cb, &plug->cb_list, list)
		if (cb->callback == fn && cb->data == data)
			return cb;
	BUG_ON(size < sizeof(*cb));
	cb = kzalloc(size, GFP_ATOMIC);
	if (!cb)
		return NULL;
	cb->data = data;
	cb->callback = fn;
	list_add(&cb->list, &plug->cb_list);
	return cb;
}
