// SPDX-License-Identifier: MIT
/*
 * ratelimit.c - "at most burst messages per interval" (ratelimit.h), as
 * Linux's lib/ratelimit.c: a driver that logs every failed request, or a
 * student's loop that trips a warning, must not flood the console.
 *
 * Portable: the host unit tests run this file (jiffies is theirs).
 */
#include <spindle/ratelimit.h>
#include <spindle/printk.h>
#include <spindle/irqflags.h>
#include <spindle/time.h>

/*
 * Count events in the current interval; when an interval has passed, say
 * how many were dropped in it and start a new one.
 */
int ___ratelimit(struct ratelimit_state *rs, const char *func)
{
	unsigned long flags;
	int missed = 0, ok;

	if (!rs->interval)
		return 1;
	/* Another CPU is deciding for this call site right now: it is busy
	 * printing, so this message goes (Linux does the same). */
	flags = local_irq_save();
	if (!arch_spin_trylock(&rs->lock)) {
		local_irq_restore(flags);
		return 0;
	}
	if (!rs->begin)
		rs->begin = jiffies;
	if (time_after(jiffies, rs->begin + rs->interval)) {
		missed = rs->missed;
		rs->missed = 0;
		rs->begin = jiffies;
		rs->printed = 0;
	}
	ok = rs->burst > rs->printed;
	if (ok)
		rs->printed++;
	else
		rs->missed++;
	arch_spin_unlock(&rs->lock);
	local_irq_restore(flags);
	if (missed)
		printk(KERN_WARNING "%s: %d callbacks suppressed\n", func, missed);
	return ok;
}
