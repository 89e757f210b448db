// SPDX-License-Identifier: MIT
/*
 * watchdog.c - the soft and hard lockup detectors (Linux's watchdog.c
 * and, for hard lockups, Linux's kernel/watchdog_buddy.c).
 *
 * Soft lockup: the CPU still takes its timer interrupt, but nothing else
 * runs on it -- it loops in the kernel with preemption off, for example
 * spinning on a spinlock whose holder never lets go.  Every task switch,
 * and every pass of the idle loop, touches this CPU's watchdog_touch_ts;
 * the tick checks how long ago that was:
 *
 *     watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [insmod:345]
 *
 * then the interrupted registers and backtrace: where it is stuck.
 *
 * Hard lockup: the CPU is stuck with interrupts off, so its own tick
 * cannot run to notice.  Linux's "buddy" detector: each CPU watches the
 * next online one's tick count; if it has not moved while the watcher took
 * watchdog_thresh seconds of ticks of its own, the watched CPU is stuck:
 *
 *     watchdog: Watchdog detected hard LOCKUP on cpu 1
 *
 * and an NMI, which interrupts even a CPU with interrupts off, has it print
 * "NMI backtrace for cpu 1", its backtrace and its local APIC's state
 * (apic_show_state()).  The same silence comes from a CPU whose interrupts
 * are on but whose local APIC delivers none -- an in-service bit never
 * ended by an EOI blocks its whole priority class -- and the ISR and IRR
 * lines tell the two apart.  Counting the watcher's own
 * ticks rather than reading a clock keeps a paused virtual machine (both
 * CPUs stopped) from looking like a lockup when it resumes.
 *
 * The watcher measures time in jiffies, and also requires some ticks of
 * its own in that time (BUDDY_MIN_TICKS): after a pause of the whole
 * virtual machine both CPUs stopped, and the first tick of the watcher must
 * not take its buddy's silence for a lockup.  Not a second's worth: under
 * QEMU's one-thread TCG a CPU that loops without pause keeps the others
 * from running for a while, and their ticks arrive merged.
 *
 * Each lockup is reported once, until the CPU makes progress again.  A
 * CPU stuck with interrupts off for longer than 2 * watchdog_thresh is
 * also reported for a soft lockup once its tick comes back, as on Linux.
 */
#define pr_fmt(fmt) "watchdog: " fmt
#include <spindle/sched_debug.h>
#include <spindle/sched.h>
#include <spindle/smp.h>
#include <spindle/percpu.h>
#include <spindle/printk.h>
#include <spindle/ksyms.h>
#include <spindle/time.h>
#include <spindle/init.h>
#include <spindle/string.h>
#include <asm/ptrace.h>
#include <asm/traps.h>
#include <asm/smp.h>
#include <asm/apic.h>

#define WATCHDOG_THRESH_MAX 60
#define BUDDY_MIN_TICKS     10

static unsigned int watchdog_thresh = 10;       /* seconds, as Linux */
unsigned long softlockup_reports[NR_CPUS], hardlockup_reports, nmi_backtraces;

static int __init watchdog_thresh_setup(const char *val)
{
	unsigned int t;

	if (kstrtouint(val, 10, &t) || t > WATCHDOG_THRESH_MAX)
		return -EINVAL;
	watchdog_thresh = t;
	return 0;
}
__setup("watchdog_thresh=", watchdog_thresh_setup);

static int __init nowatchdog_setup(const char *val)
{
	(void)val;
	watchdog_thresh = 0;
	return 0;
}
__setup("nowatchdog", nowatchdog_setup);

static DEFINE_PER_CPU(u64, watchdog_touch_ts);  /* jiffies: last progress */
static DEFINE_PER_CPU(bool, soft_watchdog_warn);
static DEFINE_PER_CPU(unsigned long, hrtimer_interrupts); /* ticks taken */
static DEFINE_PER_CPU(bool, watchdog_ticking);  /* has a tick to count */
/* the watcher's view of its buddy */
static DEFINE_PER_CPU(unsigned long, buddy_seen);       /* its count, last look */
static DEFINE_PER_CPU(u64, buddy_moved_at);    /* jiffies when it last moved */
static DEFINE_PER_CPU(unsigned long, buddy_idle_ticks); /* my ticks since */
static DEFINE_PER_CPU(bool, hard_watchdog_warn);
/* set by the watcher, read by the stuck CPU's NMI handler */
static DEFINE_PER_CPU(bool, nmi_backtrace_pending);

void touch_softlockup_watchdog(void)
{
	this_cpu_write(watchdog_touch_ts, READ_ONCE(jiffies));
}

/* set by a CPU that knows it runs long with interrupts off; its buddy
 * takes it as a tick (Linux's watchdog_hardlockup_touched) */
static DEFINE_PER_CPU(bool, nmi_touched);

void touch_nmi_watchdog(void)
{
	this_cpu_write(nmi_touched, true);
	touch_softlockup_watchdog();
}

static void show_where(struct pt_regs *regs)
{
	show_regs(regs);
	dump_backtrace(regs->rip, regs->rbp);
}

static void check_soft_lockup(struct pt_regs *regs, u64 now)
{
	u64 stuck = now - this_cpu_read(watchdog_touch_ts);

	if (stuck <= 2ull * watchdog_thresh * HZ) {
		this_cpu_write(soft_watchdog_warn, false);
		return;
	}
	if (this_cpu_read(soft_watchdog_warn))
		return;
	this_cpu_write(soft_watchdog_warn, true);
	softlockup_reports[smp_processor_id()]++;
	pr_emerg("BUG: soft lockup - CPU#%u stuck for %llus! [%s:%d]\n", smp_processor_id(),
		 (unsigned long long)(stuck / HZ), current->comm, current->pid);
	show_where(regs);
}

/* the next online CPU after this one, round the ring */
static unsigned int buddy_cpu(unsigned int me)
{
	for (unsigned int i = 1; i < NR_CPUS; i++) {
		unsigned int cpu = (me + i) % NR_CPUS;

		if (cpu_online(cpu))
			return cpu;
	}
	return me;
}

static void check_hard_lockup(u64 now)
{
	unsigned int me = smp_processor_id(), buddy = buddy_cpu(me);
	unsigned long count;

	if (buddy == me || !READ_ONCE(per_cpu(watchdog_ticking, buddy)))
		return;
	count = READ_ONCE(per_cpu(hrtimer_interrupts, buddy));
	if (READ_ONCE(per_cpu(nmi_touched, buddy))) {
		WRITE_ONCE(per_cpu(nmi_touched, buddy), false);
		this_cpu_write(buddy_seen, count - 1);  /* as if it had ticked */
	}
	if (count != this_cpu_read(buddy_seen)) {
		this_cpu_write(buddy_seen, count);
		this_cpu_write(buddy_moved_at, now);
		this_cpu_write(buddy_idle_ticks, 0);
		this_cpu_write(hard_watchdog_warn, false);
		return;
	}
	this_cpu_inc(buddy_idle_ticks);
	if (now - this_cpu_read(buddy_moved_at) < (u64)watchdog_thresh * HZ ||
	    this_cpu_read(buddy_idle_ticks) < BUDDY_MIN_TICKS || this_cpu_read(hard_watchdog_warn))
		return;
	this_cpu_write(hard_watchdog_warn, true);
	hardlockup_reports++;
	pr_emerg("Watchdog detected hard LOCKUP on cpu %u\n", buddy);
	trigger_single_cpu_backtrace(buddy);
}

void watchdog_tick(struct pt_regs *regs)
{
	u64 now;

	this_cpu_write(watchdog_ticking, true);
	this_cpu_inc(hrtimer_interrupts);
	if (!watchdog_thresh)
		return;
	now = READ_ONCE(jiffies);

	check_soft_lockup(regs, now);
	check_hard_lockup(now);
}

/* Have cpu print "NMI backtrace for cpu N", where it is and its local
 * APIC (Linux's trigger_single_cpu_backtrace()); also for kernel/smp.c's
 * report of a CPU that does not run what it was sent. */
void trigger_single_cpu_backtrace(unsigned int cpu)
{
	WRITE_ONCE(per_cpu(nmi_backtrace_pending, cpu), true);
	arch_trigger_cpu_backtrace(cpu);
}

bool watchdog_nmi(struct pt_regs *regs)
{
	if (!this_cpu_read(nmi_backtrace_pending))
		return false;
	this_cpu_write(nmi_backtrace_pending, false);
	pr_emerg("NMI backtrace for cpu %u\n", smp_processor_id());
	show_where(regs);
	apic_show_state();
	WRITE_ONCE(nmi_backtraces, nmi_backtraces + 1);
	return true;
}
