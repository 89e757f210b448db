// SPDX-License-Identifier: MIT
/*
 * itimer.c - the process's real-time interval timer: setitimer(38),
 * getitimer(36) with ITIMER_REAL, and alarm(37) built on it (Linux's
 * itimer.c, of its time subsystem).
 *
 * Where it sits: above kernel/timer.c (a timer_list, run from the tick)
 * and beside kernel/signal.c (the SIGALRM it sends).  The timer belongs
 * to the process, not to a thread: it lives in the signal_struct the
 * threads share, and its SIGALRM is process-directed -- any thread that
 * does not block it takes it.  fork's child gets a signal_struct of its
 * own, disarmed; execve keeps it; the last thread's exit cancels it
 * (itimer_exit(), from exit_process()).
 *
 * Time is kept as ktime_get_ns() nanoseconds -- it_real_expires, when it
 * fires, and it_real_incr, the period -- so getitimer's countdown is
 * exact; the timer_list under it counts jiffies (1 ms each), so a signal
 * comes up to a tick late, never early: the function checks the clock
 * and, should the tick run ahead of it, waits out the rest.  A periodic
 * timer re-arms in its function for the next period after now, skipping
 * periods already missed (Linux's hrtimer_forward()), so a late tick
 * does not bring a burst of catching-up signals.
 *
 * Locking: the three fields change under tasklist_lock (the lock every
 * signal sender takes; see docs/locking.md), taken by the syscalls and by
 * the timer's function, which runs in the tick's interrupt on CPU 0 --
 * possibly while the process runs on another CPU.  setitimer() cannot
 * wait for a running function there (it takes tasklist_lock too), so it
 * only del_timer()s and re-arms; a function that then gets the lock
 * finds the timer disarmed or pending again, and does nothing.  Only
 * itimer_exit(), with no lock held, waits (del_timer_sync()).
 *
 * Departures from Linux (docs/processes.md): ITIMER_VIRTUAL and
 * ITIMER_PROF fail with EINVAL; a periodic timer re-arms when it fires,
 * where Linux re-arms it when a thread takes the SIGALRM, so that a tiny
 * period cannot keep an hrtimer busy for a signal already pending (on
 * Linux a blocked or ignored SIGALRM stops the period; here it keeps
 * running, at worst once a tick).
 */
#define pr_fmt(fmt) "itimer: " fmt
#include <spindle/signal.h>
#include <spindle/sched.h>
#include <spindle/syscalls.h>
#include <spindle/uaccess.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include <spindle/time.h>

#define USEC_PER_SEC    1000000L
#define KTIME_MAX       ((u64)0x7fffffffffffffffULL)    /* Linux's ktime_t limit */

static void it_real_fn(struct timer_list *t);

void itimer_init(struct signal_struct *sig)
{
	timer_setup(&sig->real_timer, it_real_fn);
	sig->it_real_expires = 0;
	sig->it_real_incr = 0;
}

/* Arm the timer_list for sig->it_real_expires.  jiffies counts whole
 * ticks from somewhere inside the current one: one more, so as not to
 * fire early.  tasklist_lock held. */
static void it_real_arm(struct signal_struct *sig, u64 now)
{
	u64 delta = sig->it_real_expires > now ? sig->it_real_expires - now : 0;

	mod_timer(&sig->real_timer, jiffies + DIV_ROUND_UP(delta, NSEC_PER_SEC / HZ) + 1);
}

/*
 * The timer fired (tick interrupt, CPU 0).  Send SIGALRM to the process
 * and re-arm a periodic timer -- unless setitimer() changed the timer
 * while we waited for tasklist_lock.
 */
static void it_real_fn(struct timer_list *t)
{
	struct signal_struct *sig = container_of(t, struct signal_struct, real_timer);
	struct task_struct *p;
	unsigned long flags;
	u64 now;

	spin_lock_irqsave(&tasklist_lock, flags);
	if (!sig->it_real_expires || timer_pending(t))
		goto out;               /* disarmed, or re-armed, meanwhile */
	now = ktime_get_ns();
	if (now < sig->it_real_expires) {
		it_real_arm(sig, now);  /* the tick ran ahead of the clock */
		goto out;
	}
	/* the process is alive: its last thread's exit cancels us first */
	p = find_task_by_tgid(sig->it_real_tgid);
	if (p && p->group_leader->signal == sig)
		group_send_sig(SIGALRM, p);
	if (sig->it_real_incr) {
		u64 missed = (now - sig->it_real_expires) / sig->it_real_incr + 1;

		if (sig->it_real_expires + missed * sig->it_real_incr > KTIME_MAX)
			sig->it_real_expires = KTIME_MAX;
		else
			sig->it_real_expires += missed * sig->it_real_incr;
		it_real_arm(sig, now);
	} else {
		sig->it_real_expires = 0;
	}
out:
	spin_unlock_irqrestore(&tasklist_lock, flags);
}

void itimer_exit(struct signal_struct *sig)
{
	unsigned long flags;

	spin_lock_irqsave(&tasklist_lock, flags);
	sig->it_real_expires = 0;       /* a running function will not re-arm */
	sig->it_real_incr = 0;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	del_timer_sync(&sig->real_timer);
}

/* ns -> a timeval, truncating the microseconds as Linux's put_itimerval() */
static struct __kernel_old_timeval ns_to_timeval(u64 ns)
{
	return (struct __kernel_old_timeval){
		.tv_sec = (long)(ns / NSEC_PER_SEC),
		.tv_usec = (long)(ns % NSEC_PER_SEC / NSEC_PER_USEC),
	};
}

/* A valid timeval -> ns, limited to KTIME_MAX as Linux's ktime_t is */
static u64 timeval_to_ns(const struct __kernel_old_timeval *tv)
{
	if ((u64)tv->tv_sec >= KTIME_MAX / NSEC_PER_SEC)
		return KTIME_MAX;
	return (u64)tv->tv_sec * NSEC_PER_SEC + (u64)tv->tv_usec * NSEC_PER_USEC;
}

static bool timeval_valid(const struct __kernel_old_timeval *tv)
{
	return tv->tv_sec >= 0 && (unsigned long)tv->tv_usec < USEC_PER_SEC;
}

/* What is left, in ns: a pending timer whose moment has come (the tick
 * is on its way) has 1 us left, never 0 (Linux's itimer_get_remtime()).
 * tasklist_lock held. */
static u64 it_real_remaining(struct signal_struct *sig, u64 now)
{
	if (!sig->it_real_expires)
		return 0;
	return sig->it_real_expires > now ? sig->it_real_expires - now : NSEC_PER_USEC;
}

/* getitimer's answer; tasklist_lock held */
static struct __kernel_old_itimerval it_real_get(struct signal_struct *sig, u64 now)
{
	return (struct __kernel_old_itimerval){
		.it_interval = ns_to_timeval(sig->it_real_incr),
		.it_value = ns_to_timeval(it_real_remaining(sig, now)),
	};
}

/* Linux's do_setitimer() for ITIMER_REAL; value already checked.  The
 * old setting goes to ovalue, what was left of it (ns) to old_rem. */
static void it_real_set(const struct __kernel_old_itimerval *value,
			struct __kernel_old_itimerval *ovalue, u64 *old_rem)
{
	struct signal_struct *sig = current->signal;
	unsigned long flags;
	u64 now, expires;

	spin_lock_irqsave(&tasklist_lock, flags);
	now = ktime_get_ns();
	if (ovalue)
		*ovalue = it_real_get(sig, now);
	if (old_rem)
		*old_rem = it_real_remaining(sig, now);
	del_timer(&sig->real_timer);
	expires = timeval_to_ns(&value->it_value);
	if (expires) {
		sig->it_real_expires = expires > KTIME_MAX - now ? KTIME_MAX : now + expires;
		sig->it_real_incr = timeval_to_ns(&value->it_interval);
		sig->it_real_tgid = current->tgid;
		it_real_arm(sig, now);
	} else {
		sig->it_real_expires = 0;
		sig->it_real_incr = 0;
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
}

long sys_getitimer(int which, struct __kernel_old_itimerval __user *value)
{
	struct __kernel_old_itimerval cur;
	unsigned long flags;

	if (which != ITIMER_REAL)
		return -EINVAL;         /* ITIMER_VIRTUAL, ITIMER_PROF: not here */
	spin_lock_irqsave(&tasklist_lock, flags);
	cur = it_real_get(current->signal, ktime_get_ns());
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return copy_to_user(value, &cur, sizeof(cur)) ? -EFAULT : 0;
}

/*
 * setitimer: a NULL value disarms, as a zero one would -- a misfeature
 * Linux still accepts, with a warning once per boot.  Linux's order:
 * EFAULT reading value, EINVAL for a bad timeval or timer, and EFAULT
 * writing ovalue comes after the timer is set.
 */
long sys_setitimer(int which, const struct __kernel_old_itimerval __user *value,
		   struct __kernel_old_itimerval __user *ovalue)
{
	static atomic_t warned;
	struct __kernel_old_itimerval set = { 0 }, old;

	if (value) {
		if (copy_from_user(&set, value, sizeof(set)))
			return -EFAULT;
	} else if (!atomic_xchg(&warned, 1)) {
		pr_warn("%s calls setitimer() with new_value NULL pointer\n", current_comm());
	}
	if (!timeval_valid(&set.it_value) || !timeval_valid(&set.it_interval))
		return -EINVAL;
	if (which != ITIMER_REAL)
		return -EINVAL;
	it_real_set(&set, ovalue ? &old : NULL, NULL);
	if (ovalue && copy_to_user(ovalue, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

/*
 * alarm: ITIMER_REAL set to seconds, once (Linux's alarm_setitimer()).
 * Returns the whole seconds that were left of the previous one, rounded
 * to nearest (half up) -- but 1, not 0, while one is pending.
 */
long sys_alarm(unsigned int seconds)
{
	struct __kernel_old_itimerval set = { .it_value.tv_sec = seconds };
	u64 rem;
	long left, frac;

	it_real_set(&set, NULL, &rem);
	left = (long)(rem / NSEC_PER_SEC);
	frac = (long)(rem % NSEC_PER_SEC);
	if ((!left && frac) || frac >= (long)(NSEC_PER_SEC / 2))
		left++;
	return left;
}
