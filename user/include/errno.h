/* SPDX-License-Identifier: MIT */
/*
 * errno.h - error numbers, Linux's values.  A system call
 * that fails returns -errno in rax; the stubs in syscall.c store the
 * positive value here and return -1, as every C library does.
 */
#ifndef _ERRNO_H
#define _ERRNO_H

extern int errno;

#include <linux/errno.h> /* the numbers: include/uapi/linux/errno.h */

#define ENOTSUP EOPNOTSUPP /* POSIX's name, as glibc */

#endif
