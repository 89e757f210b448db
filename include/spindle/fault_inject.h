/* SPDX-License-Identifier: MIT */
/*
 * fault_inject.h - make chosen calls fail on purpose, to test error paths.
 *
 * Linux's fault-injection framework in miniature (lib/fault-inject.c,
 * Documentation/fault-injection/): an error path that never runs is an
 * error path nobody has tested, and a failed allocation at boot is rare
 * enough that it never runs by accident.  A fault point is a struct
 * fault_attr; the code that may fail asks should_fail() first and, when
 * told to, fails exactly as it would for real:
 *
 *     static DECLARE_FAULT_ATTR(fail_alloc_disk);
 *     ...
 *     if (should_fail(&fail_alloc_disk, 1))
 *             return NULL;
 *
 * An attribute is armed from the command line with Linux's four numbers,
 *     fail_alloc_disk=<interval>,<probability>,<space>,<times>
 * (setup_fault_attr()), or by a test setting its fields directly:
 *   interval     fail only every interval-th eligible call (1: each one)
 *   probability  percent of eligible calls that fail (100: all of them)
 *   space        a budget spent by the size of each call before any call
 *                is eligible: with size 1, the first `space` calls pass
 *   times        failures left to inject; -1 no limit, 0 disarmed
 * The points Spindle has are listed in docs/testing.md, "Fault injection".
 *
 * Does not sleep; callable from any context.  Portable (host unit tests).
 */
#ifndef SPINDLE_FAULT_INJECT_H
#define SPINDLE_FAULT_INJECT_H

#include <spindle/compiler.h>
#include <spindle/types.h>
#include <spindle/spinlock.h>

struct fault_attr {
	/* should_fail() may be asked from every CPU at once: the counters
	 * and the generator below change under it (interrupts off) */
	spinlock_t lock;
	const char *name;
	/* the four numbers of the command line (percent for probability) */
	unsigned long interval;
	unsigned long probability;
	unsigned long space;
	long times;
	/* kept by should_fail(): eligible calls seen, failures injected so
	 * far, the state of the probability's generator */
	unsigned long count;
	unsigned long injected;
	u64 rnd;
};

/* Disarmed (times 0) until the command line or a test arms it. */
#define FAULT_ATTR_INITIALIZER(n)                                          \
	{                                                                  \
		.lock = __SPIN_LOCK_UNLOCKED(fault_attr.lock),             \
		.name = (n), .interval = 1, .probability = 100, .times = 0 \
	}
#define DECLARE_FAULT_ATTR(n) struct fault_attr n = FAULT_ATTR_INITIALIZER(#n)

bool __should_fail(struct fault_attr *attr, size_t size);

/*
 * Should the call of this size at attr's point fail?  Logs each failure.
 * A disarmed point -- every point, in a run that injects nothing -- is
 * decided here, by one load and no call: some points sit on the I/O path
 * (NVMe's completion), asked once per request on every CPU.
 */
static inline bool should_fail(struct fault_attr *attr, size_t size)
{
	if (!READ_ONCE(attr->times))
		return false;
	return __should_fail(attr, size);
}

/* Arm attr from "<interval>,<probability>,<space>,<times>"; 0 or -EINVAL
 * (attr unchanged). */
int setup_fault_attr(struct fault_attr *attr, const char *str);

#endif /* SPINDLE_FAULT_INJECT_H */
