// SPDX-License-Identifier: MIT
/*
 * profile.c - where the kernel spends its time, by sampling (Linux's
 * kernel/profile.c, the profile= boot option).
 *
 * The idea is the oldest profiler there is: interrupt the CPU at regular
 * moments and note where it was.  Every timer interrupt (HZ per second)
 * that interrupted kernel code adds one to a counter for that address;
 * after a workload, the counters show which functions the time went to,
 * in proportion.  Under QEMU's -icount the timer fires after a fixed
 * number of guest instructions, so a sample is "one million instructions
 * went by" and a profile repeats run after run (docs/performance.md).
 *
 * Buckets: one u32 per 2^shift bytes of kernel text from _stext, shift
 * from profile=<shift> (Linux's meaning; profile=2 is one per 4 bytes,
 * finer than any function).  /proc/profile has Linux's layout: a u32
 * holding the step 1 << shift, then the buckets -- which is what
 * util-linux's readprofile(8) reads, with the kernel's System.map
 * (build/System.map) for names.  Writing anything to it starts the
 * counts again.
 *
 * Locking: the counters are only incremented, from every CPU's tick, so
 * each increment is one atomic add (Linux's are atomic_t too); a read
 * copies them as they are.
 */
#define pr_fmt(fmt) "profile: " fmt
#include <spindle/profile.h>
#include <spindle/init.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/errno.h>
#include <asm/ptrace.h>

#define PROFILE_MAX_SHIFT   16

extern char _stext[], _etext[];

static int prof_shift = -1;             /* -1: off */
static u32 *prof_buffer;
static unsigned long prof_len;          /* buckets */

static int __init profile_setup(const char *val)
{
	unsigned long long shift;

	if (kstrtoull(val, 10, &shift) || shift > PROFILE_MAX_SHIFT)
		return -EINVAL;
	prof_shift = (int)shift;
	return 0;
}
__setup("profile=", profile_setup);

static int __init profile_init(void)
{
	size_t bytes;

	if (prof_shift < 0)
		return 0;
	prof_len = ((unsigned long)(_etext - _stext) >> prof_shift) + 1;
	bytes = prof_len * sizeof(u32);
	prof_buffer = (u32 *)__get_free_pages(__GFP_ZERO, get_order(bytes));
	if (!prof_buffer) {
		pr_err("no memory for %zu bytes of counters: profiling off\n", bytes);
		prof_shift = -1;
		return -ENOMEM;
	}
	pr_info("kernel profiling on: %lu buckets of %lu bytes, one sample per tick\n",
		prof_len, 1ul << prof_shift);
	return 0;
}
core_initcall(profile_init);

void profile_tick(struct pt_regs *regs)
{
	unsigned long pc;

	if (!prof_buffer || !regs || user_mode(regs))
		return;
	pc = (regs->rip - (unsigned long)_stext) >> prof_shift;
	/* an address outside the text (boot code) counts in the last bucket,
	 * as Linux does */
	__atomic_fetch_add(&prof_buffer[min(pc, prof_len - 1)], 1, __ATOMIC_RELAXED);
}

size_t profile_size(void)
{
	return prof_buffer ? (prof_len + 1) * sizeof(u32) : 0;
}

size_t profile_read(void *buf, size_t size)
{
	u32 step = 1u << (prof_shift < 0 ? 0 : prof_shift);
	size_t n = profile_size();

	if (!n || size < n)
		return 0;
	memcpy(buf, &step, sizeof(step));
	memcpy((u32 *)buf + 1, prof_buffer, prof_len * sizeof(u32));
	return n;
}

void profile_reset(void)
{
	if (prof_buffer)
		memset(prof_buffer, 0, prof_len * sizeof(u32));
}
