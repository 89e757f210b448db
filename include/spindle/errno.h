/* SPDX-License-Identifier: MIT */
/*
 * Error numbers: Linux's, from the one list user space shares
 * (include/uapi/linux/errno.h).  Kernel functions return -ERRNO on
 * failure.
 */
#ifndef SPINDLE_ERRNO_H
#define SPINDLE_ERRNO_H

#include <uapi/linux/errno.h>

#endif /* SPINDLE_ERRNO_H */
