/* SPDX-License-Identifier: MIT */
/*
 * Error numbers: Linux's, from the one list user space shares
 * (include/uapi/linux/errno.h).  Kernel functions return -ERRNO on
 * failure.
 */
#ifndef SPINDLE_ERRNO_H
#define SPINDLE_ERRNO_H

#include <uapi/linux/errno.h>

/*
 * Kernel-internal, never seen by user space (Linux's numbers).  A system
 * call interrupted by a signal before it did anything returns
 * -ERESTARTNOHAND: on the way out (kernel/signal.c) it becomes -EINTR if
 * a handler runs, and otherwise the call is made again -- after a stop
 * and SIGCONT, a read at the terminal just goes on waiting.
 */
#define ERESTARTNOHAND  514

#endif /* SPINDLE_ERRNO_H */
