/* SPDX-License-Identifier: MIT */
/*
 * uapi/linux/time.h - the clock ids of clock_gettime(2) and its kin that
 * Spindle knows, Linux's values: the one list the kernel
 * (include/spindle/syscalls.h) and the C library (user/include/time.h)
 * both include.  (Linux's file also has struct timespec; here each side
 * keeps its own, as the kernel's and glibc's do.)
 */
#ifndef _UAPI_LINUX_TIME_H
#define _UAPI_LINUX_TIME_H

#define CLOCK_REALTIME          0
#define CLOCK_MONOTONIC         1
#define CLOCK_MONOTONIC_RAW     4
#define CLOCK_REALTIME_COARSE   5
#define CLOCK_MONOTONIC_COARSE  6
#define CLOCK_BOOTTIME          7

#endif /* _UAPI_LINUX_TIME_H */
