/* SPDX-License-Identifier: MIT */
/*
 * kernel_stat.h - each CPU's time by kind (Linux's struct kernel_cpustat),
 * charged tick by tick (kernel/sched/cputime.c) and printed by /proc/stat.
 * The enum's order is Linux's; /proc/stat prints another, Linux's too:
 * user nice system idle iowait irq softirq steal guest guest_nice.
 */
#ifndef SPINDLE_KERNEL_STAT_H
#define SPINDLE_KERNEL_STAT_H

#include <spindle/types.h>
#include <spindle/percpu.h>

enum cpu_usage_stat {
	CPUTIME_USER,
	CPUTIME_NICE,           /* no nice values here: stays 0 */
	CPUTIME_SYSTEM,
	CPUTIME_SOFTIRQ,        /* no softirqs: stays 0 */
	CPUTIME_IRQ,            /* a tick cannot interrupt a handler: stays 0 */
	CPUTIME_IDLE,
	CPUTIME_IOWAIT,
	CPUTIME_STEAL,
	CPUTIME_GUEST,
	CPUTIME_GUEST_NICE,
	NR_STATS,
};

struct kernel_cpustat {
	u64 cpustat[NR_STATS];          /* nanoseconds */
};

DECLARE_PER_CPU(struct kernel_cpustat, kernel_cpustat);
/* a copy of that CPU's counters */
void kcpustat_cpu_fetch(struct kernel_cpustat *dst, unsigned int cpu);

#define USER_HZ 100                     /* /proc's clock ticks (sysconf(_SC_CLK_TCK)) */
static inline u64 nsec_to_clock_t(u64 ns) { return ns / (1000000000ull / USER_HZ); }

#endif /* SPINDLE_KERNEL_STAT_H */
