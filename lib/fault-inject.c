// SPDX-License-Identifier: MIT
/*
 * fault-inject.c - should_fail() and its command-line form: see
 * include/spindle/fault_inject.h.
 *
 * The decision, in Linux's order: a disarmed point never fails; the
 * space budget is spent first; then only every interval-th call is a
 * candidate, and a candidate fails with the given probability.  The
 * probability's generator is splitmix64 from a fixed start, so a run with
 * the same options fails the same calls again -- a failure found once can
 * be replayed.  That holds while the calls come in one order: calls from
 * several CPUs at once are decided one at a time under attr->lock, but
 * which CPU's call is the n-th may differ from run to run.
 */
#include <spindle/compiler.h>
#include <spindle/fault_inject.h>
#include <spindle/pattern.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/spinlock.h>

/* An armed point (should_fail() decided a disarmed one without the lock:
 * the I/O path asks some points once per request on every CPU, and one
 * lock -- one cache line written by all of them -- would be the only
 * thing they share, tools/c2c.py). */
bool __should_fail(struct fault_attr *attr, size_t size)
{
	unsigned long flags;
	bool fail = false;

	spin_lock_irqsave(&attr->lock, flags);
	if (!attr->times)
		goto out;
	if (attr->space && attr->space >= size) {
		attr->space -= size;    /* the budget first: "until space reaches zero" */
		goto out;
	}
	attr->space = 0;
	attr->count++;
	if (attr->interval > 1 && attr->count % attr->interval)
		goto out;
	if (attr->probability < 100 &&
	    splitmix64(attr->rnd++) % 100 >= attr->probability)
		goto out;
	if (attr->times > 0)
		attr->times--;
	attr->injected++;
	fail = true;
out:
	spin_unlock_irqrestore(&attr->lock, flags);
	if (fail)
		pr_info("FAULT_INJECTION: forcing a failure at %s (%lu so far)\n",
			attr->name, attr->injected);
	return fail;
}

int setup_fault_attr(struct fault_attr *attr, const char *str)
{
	unsigned long long v[3];
	char buf[80], *rest = buf, *field;
	long long times;
	unsigned int i;

	if (!str || strlcpy(buf, str, sizeof(buf)) >= sizeof(buf))
		goto bad;
	for (i = 0; i < 3; i++) {
		field = strsep(&rest, ",");
		if (!rest || kstrtoull(field, 10, &v[i]))
			goto bad;
	}
	/* unsigned long and long long are both 64 bits on x86-64 */
	if (kstrtoll(rest, 10, &times) || times < -1 || !v[0] || v[1] > 100)
		goto bad;
	attr->interval = (unsigned long)v[0];
	attr->probability = (unsigned long)v[1];
	attr->space = (unsigned long)v[2];
	attr->times = (long)times;
	attr->count = 0;
	pr_info("FAULT_INJECTION: %s: interval %lu, probability %lu%%, space %lu, times %ld\n",
		attr->name, attr->interval, attr->probability, attr->space, attr->times);
	return 0;
bad:
	pr_warn("FAULT_INJECTION: %s=%s: want <interval>,<probability>,<space>,<times>\n",
		attr->name, str ? str : "");
	return -EINVAL;
}
