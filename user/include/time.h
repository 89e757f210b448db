/* SPDX-License-Identifier: MIT */
/* time.h - clocks and sleeping: clock_gettime(228), nanosleep(35). */
#ifndef _TIME_H
#define _TIME_H

#include <sys/types.h>

struct timespec {
	time_t tv_sec;
	long tv_nsec;
};

struct timeval {
	time_t tv_sec;
	suseconds_t tv_usec;
};

#include <linux/time.h> /* the clock ids: include/uapi/linux/time.h */

int clock_gettime(clockid_t clk, struct timespec *ts);
int nanosleep(const struct timespec *req, struct timespec *rem);
time_t time(time_t *t);

#endif
