/* SPDX-License-Identifier: MIT */
/*
 * uapi/linux/timex.h - adjtimex(2)'s struct timex, in Linux's layout
 * (x86-64: 208 bytes), and the few constants Spindle answers with.
 * Spindle's clock is not disciplined by NTP and cannot be adjusted:
 * adjtimex() only reads it (kernel/sys.c).
 */
#ifndef _UAPI_LINUX_TIMEX_H
#define _UAPI_LINUX_TIMEX_H

#include <spindle/types.h>

struct timex {
	unsigned int modes;     /* what to set: 0 reads only */
	long offset;            /* time offset (us) */
	long freq;              /* frequency offset (scaled ppm) */
	long maxerror;          /* maximum error (us) */
	long esterror;          /* estimated error (us) */
	int status;             /* STA_* */
	long constant;          /* PLL time constant */
	long precision;         /* clock precision (us) */
	long tolerance;         /* clock frequency tolerance (scaled ppm) */
	struct {
		long tv_sec, tv_usec;
	} time;                 /* the time now, CLOCK_REALTIME */
	long tick;              /* microseconds between clock ticks */
	long ppsfreq, jitter;
	int shift;
	long stabil, jitcnt, calcnt, errcnt, stbcnt;
	int tai;
	int reserved[11];
};

#define STA_UNSYNC      0x0040  /* clock not synchronized */
#define TIME_ERROR      5       /* adjtimex()'s return: clock not synchronized */

#endif /* _UAPI_LINUX_TIMEX_H */
