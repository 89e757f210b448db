/* SPDX-License-Identifier: MIT */
/*
 * loadavg.h - the load average, as Linux's kernel/sched/loadavg.c keeps
 * it: how many tasks want the CPU or wait for the disk, averaged over
 * 1, 5 and 15 minutes.
 *
 * Every LOAD_FREQ the scheduler tick counts the active tasks -- running
 * or runnable, and those in uninterruptible sleep (a task waiting for
 * its disk counts: Linux's choice, which makes an I/O-bound machine
 * look loaded) -- and folds the count into three exponentially decaying
 * averages, in fixed point with FSHIFT bits of fraction:
 *
 *     load = load * e + active * (1 - e),   e = exp(-5 s / period)
 *
 * so that a constant count n brings each average to n, reaching 63 %
 * (1 - 1/e) of the way in one period.  /proc/loadavg prints them with
 * two decimals, sysinfo(2) hands them out with SI_LOAD_SHIFT bits.
 *
 * lib/loadavg.c; portable, with Check tests (check_loadavg).  The state
 * (avenrun) is changed by the tick only, with interrupts off.
 */
#ifndef SPINDLE_LOADAVG_H
#define SPINDLE_LOADAVG_H

#include <spindle/types.h>
#include <spindle/time.h>

#define FSHIFT          11                      /* bits of fraction */
#define FIXED_1         (1UL << FSHIFT)         /* 1.0 */
/* one sample every 5 s, and a tick more (Linux's): a task that wakes
 * every 5 s exactly does not always, or never, fall on the sample */
#define LOAD_FREQ       (5 * HZ + 1)
#define EXP_1           1884                    /* FIXED_1 / exp(5 s / 1 min) */
#define EXP_5           2014                    /* FIXED_1 / exp(5 s / 5 min) */
#define EXP_15          2037                    /* FIXED_1 / exp(5 s / 15 min) */
#define LOAD_INT(x)     ((x) >> FSHIFT)
#define LOAD_FRAC(x)    LOAD_INT(((x) & (FIXED_1 - 1)) * 100)

/* The 1, 5 and 15 minute averages, FSHIFT fixed point. */
extern unsigned long avenrun[3];

/* One step of one average: load and the result in fixed point, active
 * the count times FIXED_1. */
unsigned long calc_load(unsigned long load, unsigned long exp, unsigned long active);
/* Fold one sample of nr_active tasks into the three averages. */
void calc_global_load(unsigned long nr_active);
/* /proc/loadavg's line: the three averages with two decimals (rounded,
 * as Linux), running/total tasks, and the highest pid. */
int loadavg_format(char *buf, size_t size, const unsigned long loads[3], unsigned int running,
		   unsigned int total, int last_pid);

#endif /* SPINDLE_LOADAVG_H */
