/* SPDX-License-Identifier: MIT */
/*
 * Completions: "wait until this has happened", counted.
 *
 * A submitter waits with wait_for_completion(&done); whoever finishes the
 * work (often an interrupt handler) calls complete(&done).  Unlike a bare
 * wait queue, a complete() that comes first is remembered: each complete()
 * lets one wait through, complete_all() lets every present and future one
 * through until reinit_completion().
 */
#ifndef SPINDLE_COMPLETION_H
#define SPINDLE_COMPLETION_H

#include <spindle/wait.h>

struct completion {
	unsigned int done;
	struct wait_queue_head wait;
};

#define COMPLETION_INITIALIZER(n) { 0, __WAIT_QUEUE_HEAD_INITIALIZER((n).wait) }
#define DECLARE_COMPLETION(n) struct completion n = COMPLETION_INITIALIZER(n)

void init_completion(struct completion *x);
void reinit_completion(struct completion *x);
/* May sleep. */
void wait_for_completion(struct completion *x);
/* the same, counted as a wait for I/O (io_wait_event(), wait.h) */
void wait_for_completion_io(struct completion *x);
/* Returns 0 on timeout, else the jiffies left (at least 1).  May sleep. */
long wait_for_completion_timeout(struct completion *x, long timeout);
bool try_wait_for_completion(struct completion *x);
bool completion_done(struct completion *x);
/* Do not sleep; callable from interrupt handlers. */
void complete(struct completion *x);
void complete_all(struct completion *x);

#endif /* SPINDLE_COMPLETION_H */
