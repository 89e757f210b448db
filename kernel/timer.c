// SPDX-License-Identifier: MIT
/*
 * timer.c - jiffies, kernel timers (struct timer_list) and msleep().
 *
 * Where it sits: the tick interrupt (kernel/arch/x86/time.c) calls
 * timer_tick() about HZ times a second, with the ticks that passed.
 * Above, schedule_timeout() arms a timer to wake a sleeping task, and
 * msleep() sleeps with it; drivers use timers for command timeouts.
 * Interface: include/spindle/time.h.
 *
 * Pending timers sit on one list sorted by expiry, so the tick looks only
 * at the front: O(1) per tick when nothing is due, O(n) to arm.  (Linux
 * uses a "timer wheel" to make arming O(1) as well; with the handful of
 * timers a teaching kernel has, a sorted list is the clearer choice.)
 *
 * Timer functions run in interrupt context, from the tick: they must not
 * sleep.  The list is shared between task context (mod_timer, del_timer),
 * the tick, and any other CPU, so every access is under timer_base.lock,
 * taken with interrupts off (Linux's struct timer_base; Spindle has one,
 * ticked by CPU 0).  A timer's function runs without the lock, so it may
 * re-arm or delete timers; meanwhile base->running_timer names it, and
 * del_timer_sync() waits for it to return before the timer may be freed.
 */
#include <spindle/time.h>
#include <spindle/sched.h>
#include <spindle/irqflags.h>
#include <spindle/list.h>
#include <spindle/printk.h>
#include <spindle/spinlock.h>
#include <spindle/irq.h>
#include <asm/ptrace.h>

volatile u64 jiffies;

static struct timer_base {
	spinlock_t lock;
	struct list_head pending;       /* pending timers, by expires */
	struct timer_list *running_timer;       /* whose function runs now */
} timer_base = {
	.lock = __SPIN_LOCK_UNLOCKED(timer_base.lock),
	.pending = LIST_HEAD_INIT(timer_base.pending),
};

void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *))
{
	INIT_LIST_HEAD(&t->entry);
	t->expires = 0;
	t->function = fn;
	t->pending = false;
}

/* Take a pending timer off the list.  Under timer_base.lock. */
static void __timer_detach(struct timer_list *t)
{
	list_del_init(&t->entry);
	t->pending = false;
}

void mod_timer(struct timer_list *t, u64 expires)
{
	struct timer_base *base = &timer_base;
	struct list_head *pos;
	unsigned long flags;

	spin_lock_irqsave(&base->lock, flags);
	if (t->pending)
		__timer_detach(t);
	t->expires = expires;
	/* Insert before the first timer due strictly later: timers due at
	 * the same jiffy then fire in the order they were armed. */
	list_for_each(pos, &base->pending) {
		if (time_after(list_entry(pos, struct timer_list, entry)->expires, expires))
			break;
	}
	list_add_tail(&t->entry, pos);
	t->pending = true;
	spin_unlock_irqrestore(&base->lock, flags);
}

bool del_timer(struct timer_list *t)
{
	struct timer_base *base = &timer_base;
	unsigned long flags;
	bool was_pending;

	spin_lock_irqsave(&base->lock, flags);
	was_pending = t->pending;
	if (was_pending)
		__timer_detach(t);
	spin_unlock_irqrestore(&base->lock, flags);
	return was_pending;
}

/*
 * Linux's del_timer_sync(): off the list, and not running.  Waits with
 * the lock dropped: the function cannot finish while we hold what
 * run_timers() retakes after it; and it may have re-armed the timer, so
 * each round deletes again.
 */
bool del_timer_sync(struct timer_list *t)
{
	struct timer_base *base = &timer_base;
	bool was_pending = false;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&base->lock, flags);
		if (t->pending) {
			__timer_detach(t);
			was_pending = true;
		}
		if (READ_ONCE(base->running_timer) != t) {
			spin_unlock_irqrestore(&base->lock, flags);
			return was_pending;
		}
		spin_unlock_irqrestore(&base->lock, flags);
		cpu_relax();
	}
}

/*
 * Run every timer that is due.  The due ones are first moved to a private
 * list, and run from there: a function that re-arms its own timer for
 * "now" then runs again at the next tick instead of looping here forever.
 * Each timer is detached before its function runs, so the function may
 * mod_timer() it again, or del_timer() / mod_timer() any other timer --
 * including one still waiting on the private list, since that is a list
 * like any other.
 */
static void run_timers(void)
{
	struct timer_base *base = &timer_base;
	LIST_HEAD(due);

	spin_lock(&base->lock);
	while (!list_empty(&base->pending)) {
		struct timer_list *t = list_first_entry(&base->pending,
							struct timer_list, entry);

		if (time_after(t->expires, jiffies))
			break;
		list_move_tail(&t->entry, &due);
	}
	while (!list_empty(&due)) {
		struct timer_list *t = list_first_entry(&due, struct timer_list, entry);

		__timer_detach(t);
		WRITE_ONCE(base->running_timer, t);
		spin_unlock(&base->lock);
		t->function(t);
		spin_lock(&base->lock);
		WRITE_ONCE(base->running_timer, NULL);
	}
	spin_unlock(&base->lock);
}

void timer_tick(unsigned long ticks)
{
	unsigned long flags = local_irq_save();  /* already off in the tick */

	jiffies += ticks;
	run_timers();
	update_process_times(user_mode(get_irq_regs()));
	local_irq_restore(flags);
}

/*
 * Sleep at least @ms milliseconds.  schedule_timeout() counts whole
 * jiffies from "now", which is somewhere inside the current one, so n
 * jiffies may be a little less than n periods: ask for one more.  And
 * since a tick can be late or lost on a busy host (or a sleeper woken
 * early), loop on the clock until the deadline has really passed: this
 * never returns early.  Task context only; call after time_init().
 */
void msleep(unsigned int ms)
{
	u64 deadline = ktime_get_ns() + (u64)ms * NSEC_PER_MSEC;
	u64 now;

	might_sleep();
	while ((now = ktime_get_ns()) < deadline) {
		u64 left = DIV_ROUND_UP((deadline - now) * HZ, NSEC_PER_SEC);

		schedule_timeout_uninterruptible((long)left + 1);
	}
}
