/* SPDX-License-Identifier: MIT */
/*
 * Time: a monotonic nanosecond clock, the periodic tick, kernel timers and
 * sleeping for a while.
 *
 *   ktime_get_ns()   nanoseconds since boot, never goes backwards; usable
 *                    from any context, also before the tick starts (0).
 *   ktime_get_real_ns()  the wall clock (the RTC at boot + ktime_get_ns()),
 *                    nanoseconds since 1970: file times.
 *   jiffies          ticks since the timer started, HZ per second.
 *   msleep(ms)       sleep at least ms milliseconds (may sleep: task
 *                    context only); never returns early.
 *   udelay/mdelay    busy-wait; for hardware settle times only.
 *   timer_list       call fn from the timer interrupt once jiffies reach
 *                    expires (does not sleep: fn runs in interrupt context).
 */
#ifndef SPINDLE_TIME_H
#define SPINDLE_TIME_H

#include <spindle/types.h>
#include <spindle/list.h>

#define NSEC_PER_USEC   1000ULL
#define NSEC_PER_MSEC   1000000ULL
#define NSEC_PER_SEC    1000000000ULL
#define MSEC_PER_SEC    1000UL

/*
 * Timer interrupts per second, on each CPU: 250, Linux's default
 * (CONFIG_HZ_250) and Debian's.  It was 1000 until 2026-12-07: under
 * QEMU every tick of every CPU is a timer its main-loop thread fires,
 * and on a host with as many cores as busy vCPUs that thread takes a
 * core from one of them -- 1,500 times a second more at two CPUs, 4 to
 * 7% of two CPUs' throughput (docs/performance.md, "Scaling with CPUs").
 */
#define HZ              250

extern volatile u64 jiffies;

u64 ktime_get_ns(void);
void time_init(void);               /* calibrate the clock, start the tick */
void timekeeping_init(void);        /* after it: CLOCK_REALTIME from the RTC */
u64 rtc_read_seconds(void);         /* the CMOS clock: seconds since 1970, UTC */
u64 get_boot_time_seconds(void);    /* when it booted: seconds since 1970, UTC */
u64 ktime_get_real_ns(void);        /* CLOCK_REALTIME: nanoseconds since 1970, UTC */
u64 realtime_offset_ns(void);      /* CLOCK_REALTIME - CLOCK_MONOTONIC, ns (futex) */
/* CLOCK_MONOTONIC as of the last tick: the *_COARSE clocks, read from
 * the vDSO's data page so that the system call and the vDSO give the
 * same value (kernel/arch/x86/vdso/vma.c) */
u64 ktime_get_coarse_ns(void);
u64 tick_period_ns(void);           /* the tick's period: the coarse clocks' resolution */
/* ktime_get_ns()'s TSC conversion, for the vDSO; false before calibration */
bool tsc_clock_params(u64 *base, u32 *mult, u32 *shift);

void udelay(unsigned long us);
void mdelay(unsigned long ms);
void msleep(unsigned int ms);

static inline u64 msecs_to_jiffies(u64 ms) { return DIV_ROUND_UP(ms * HZ, MSEC_PER_SEC); }
static inline u64 jiffies_to_msecs(u64 j)  { return j * MSEC_PER_SEC / HZ; }
/* a is after b, robust against wrap-around as in Linux */
#define time_after(a, b)     ((s64)((b) - (a)) < 0)
#define time_after_eq(a, b)  ((s64)((a) - (b)) >= 0)

struct timer_list {
	struct list_head entry;
	u64 expires;                        /* in jiffies */
	void (*function)(struct timer_list *t);
	bool pending;
};

void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *));
/* (Re)arm t to fire at jiffies == expires.  Does not sleep. */
void mod_timer(struct timer_list *t, u64 expires);
/* Is t armed?  Stable only where nothing else arms or fires it: under
 * the lock its function takes, say (Linux's timer_pending()). */
static inline bool timer_pending(const struct timer_list *t)
{
	return READ_ONCE(t->pending);
}
/* Disarm; returns true if it was pending.  Does not sleep.  The function
 * may still be running on the CPU that takes the tick. */
bool del_timer(struct timer_list *t);
/* del_timer(), and then wait until the function is not running anywhere:
 * after it, t may be freed.  Not from t's own function, nor with a lock
 * that function takes (it would wait for itself); not from the tick's
 * CPU with interrupts off. */
bool del_timer_sync(struct timer_list *t);

/* Called from the timer interrupt: advance jiffies by ticks (more than 1
 * when interrupts were missed), run due timers, account the running
 * task's time slice. */
void timer_tick(unsigned long ticks);

#endif /* SPINDLE_TIME_H */
