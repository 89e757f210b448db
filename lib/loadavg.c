// SPDX-License-Identifier: MIT
/*
 * loadavg.c - the load average's arithmetic (include/spindle/loadavg.h):
 * Linux's calc_load() in fixed point, the three averages, and the text
 * of /proc/loadavg.  The sampling -- which tasks count, and when -- is
 * the scheduler's (kernel/sched/core.c).
 */
#include <spindle/loadavg.h>
#include <spindle/printk.h>

unsigned long avenrun[3];

/*
 * load * exp + active * (1 - exp), all over FIXED_1.  The division
 * truncates, which alone would leave a rising average short of active for
 * ever (a constant 1 would settle at 0.99); so while the count is at or
 * above the average, round up instead, as Linux does.
 */
unsigned long calc_load(unsigned long load, unsigned long exp, unsigned long active)
{
	unsigned long newload = load * exp + active * (FIXED_1 - exp);

	if (active >= load)
		newload += FIXED_1 - 1;
	return newload / FIXED_1;
}

void calc_global_load(unsigned long nr_active)
{
	unsigned long active = nr_active * FIXED_1;

	avenrun[0] = calc_load(avenrun[0], EXP_1, active);
	avenrun[1] = calc_load(avenrun[1], EXP_5, active);
	avenrun[2] = calc_load(avenrun[2], EXP_15, active);
}

int loadavg_format(char *buf, size_t size, const unsigned long loads[3], unsigned int running,
		   unsigned int total, int last_pid)
{
	unsigned long a[3];

	/* + 0.005: two decimals rounded, not truncated (Linux's offset) */
	for (int i = 0; i < 3; i++)
		a[i] = loads[i] + FIXED_1 / 200;
	return scnprintf(buf, size, "%lu.%02lu %lu.%02lu %lu.%02lu %u/%u %d\n", LOAD_INT(a[0]),
			 LOAD_FRAC(a[0]), LOAD_INT(a[1]), LOAD_FRAC(a[1]), LOAD_INT(a[2]),
			 LOAD_FRAC(a[2]), running, total, last_pid);
}
