/* SPDX-License-Identifier: MIT */
/*
 * blk_plug.h - per-task plugging (Linux commit 73c101011926): batching I/O on the
 * submitter's stack.
 *
 *     struct blk_plug plug;
 *     blk_start_plug(&plug);
 *     ... submit_bio() several times ...
 *     blk_finish_plug(&plug);        -- the batch goes down here
 *
 * While a plug is active (current->plug), I/O that can wait collects on it
 * without any lock -- it is this task's alone -- and is sent on in one
 * batch when the plug is finished, or when the task blocks: schedule()
 * flushes the plug of a task about to sleep, because the task might be
 * about to wait for I/O that is still sitting in its own plug, which would
 * never be sent.  Nested plugs: only the outermost is attached; the inner
 * start and finish do nothing.
 *
 * What collects on a plug: requests of request-based queues (block/blk-mq.c,
 * merged there without a lock) and callbacks (blk_check_plugged), with
 * which a stacked driver batches its own work (dm-raid1's mirror_map()).
 *
 * Boot option plug=off makes blk_start_plug() a no-op, for comparison in
 * labs.
 */
#ifndef SPINDLE_BLK_PLUG_H
#define SPINDLE_BLK_PLUG_H

#include <spindle/list.h>
#include <spindle/types.h>

struct task_struct;
struct blk_plug_cb;

typedef void (*blk_plug_cb_fn)(struct blk_plug_cb *cb, bool from_schedule);

struct blk_plug_cb {
	struct list_head list;
	blk_plug_cb_fn callback;        /* runs once when the plug is flushed */
	void *data;                     /* the driver's, identifies the cb */
};

/*
 * What blk_start_plug() writes in plug->magic.  Everything that uses a
 * plug checks it (BUG_ON, as Linux's blk_flush_plug_list() did): a plug
 * that was never started, or whose stack frame has returned and been
 * reused, is caught where it is used rather than as a corrupt list.
 */
#define PLUG_MAGIC 0x91827364

struct blk_plug {
	unsigned int magic;             /* PLUG_MAGIC: a started plug */
	struct list_head mq_list;       /* plugged requests (block/blk-mq.c) */
	unsigned int rq_count;          /* how many: bounded, see blk-mq.c */
	struct list_head cb_list;       /* struct blk_plug_cb */
};

void blk_start_plug(struct blk_plug *plug);
void blk_finish_plug(struct blk_plug *plug);

/*
 * The callback (fn, data) of the current task's plug, allocated (zeroed,
 * `size` bytes, at least sizeof(struct blk_plug_cb)) the first time it is
 * asked for; NULL when the task has no plug (or no memory): then the
 * driver must not delay its work.  Does not sleep.
 */
struct blk_plug_cb *blk_check_plugged(blk_plug_cb_fn fn, void *data, size_t size);

/* Run everything on tsk's plug now; the plug stays attached. */
void blk_flush_plug(struct task_struct *tsk, bool from_schedule);
/* Is there anything on tsk's plug? */
bool blk_needs_flush_plug(struct task_struct *tsk);

extern bool plug_enabled;           /* plug=on|off */

#endif /* SPINDLE_BLK_PLUG_H */
