// SPDX-License-Identifier: MIT
/*
 * Time and interrupt tests (test=time,irq).
 *
 * Suite "time": the clock never goes backwards, sleeps never end early,
 * jiffies move, timers fire (and cancelled ones do not).  Only lower
 * bounds are checked: a busy host can make anything late, nothing can make
 * a correct sleep early.  "Did it happen" waits use a generous bound and
 * judge only that it happened.
 *
 * Suite "irq": the whole path of an MSI without a device -- allocate an
 * irq, request it, then have the local APIC send this CPU the vector the
 * message carries (a self-IPI), as a device's MSI write would; sharing,
 * lazy disable with replay, and bad requests.
 */
#include <spindle/ktest.h>
#include <spindle/irqflags.h>
#include <spindle/time.h>
#include <spindle/irq.h>
#include <spindle/sched.h>
#include <spindle/errno.h>
#include <asm/apic.h>

/* How long to wait for something that should happen within a few ticks. */
#define WAIT_GENEROUS_MS        5000
#define WAIT_STEP_MS            5

/* --- time: Core ------------------------------------------------------ */

#define MONOTONIC_READS         100000

KTEST(time, ktime_monotonic)
{
	u64 prev = ktime_get_ns(), now;

	KT_ASSERT_MSG(prev > 0, "the clock is not running");
	for (int i = 0; i < MONOTONIC_READS; i++) {
		now = ktime_get_ns();
		KT_ASSERT_MSG(now >= prev, "read %d: %llu after %llu", i,
			      (unsigned long long)now, (unsigned long long)prev);
		prev = now;
	}
	msleep(2);
	now = ktime_get_ns();
	KT_ASSERT_MSG(now > prev, "%llu after sleeping, %llu before",
		      (unsigned long long)now, (unsigned long long)prev);
}

static const unsigned int msleep_cases_ms[] = { 1, 10, 50 };

KTEST(time, msleep_never_early)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(msleep_cases_ms); i++) {
		unsigned int ms = msleep_cases_ms[i];
		u64 t0 = ktime_get_ns(), slept;

		msleep(ms);
		slept = ktime_get_ns() - t0;
		KT_ASSERT_MSG(slept >= ms * NSEC_PER_MSEC, "msleep(%u) took %llu ns",
			      ms, (unsigned long long)slept);
	}
}

KTEST(time, udelay_never_early)
{
	u64 t0 = ktime_get_ns(), waited;

	udelay(500);
	waited = ktime_get_ns() - t0;
	KT_ASSERT_MSG(waited >= 500 * NSEC_PER_USEC, "udelay(500) took %llu ns",
		      (unsigned long long)waited);
}

KTEST(time, jiffies_advance)
{
	u64 j0 = jiffies;

	msleep(20);
	KT_ASSERT_MSG(jiffies > j0, "jiffies stuck at %llu", (unsigned long long)j0);
}

KTEST(time, tick_is_irq0)
{
	u64 c0 = irq_count(0);

	msleep(20);
	KT_ASSERT_MSG(irq_count(0) > c0, "irq 0 count stuck at %llu",
		      (unsigned long long)c0);
}

/* --- time: timers ------------------------------------------------------ */

struct test_timer {
	struct timer_list timer;
	volatile int fired;
	volatile bool in_irq;
	volatile u64 fired_at;          /* jiffies when it ran */
};

static void test_timer_fn(struct timer_list *t)
{
	struct test_timer *tt = container_of(t, struct test_timer, timer);

	tt->fired++;
	tt->in_irq = in_irq();
	tt->fired_at = jiffies;
}

/* Sleep in small steps until *flag is set, for at most WAIT_GENEROUS_MS. */
static void wait_for_flag(volatile int *flag)
{
	for (int waited = 0; !*flag && waited < WAIT_GENEROUS_MS; waited += WAIT_STEP_MS)
		msleep(WAIT_STEP_MS);
}

KTEST(time, timer_fires)
{
	struct test_timer tt = { 0 };
	u64 expires;

	timer_setup(&tt.timer, test_timer_fn);
	expires = jiffies + msecs_to_jiffies(5);
	mod_timer(&tt.timer, expires);
	wait_for_flag(&tt.fired);
	if (!tt.fired)
		del_timer(&tt.timer);   /* it is on our stack */
	KT_ASSERT_MSG(tt.fired == 1, "fired %d times", tt.fired);
	KT_ASSERT(tt.in_irq);
	KT_ASSERT_MSG(time_after_eq(tt.fired_at, expires), "fired at jiffy %llu, due %llu",
		      (unsigned long long)tt.fired_at, (unsigned long long)expires);
	KT_ASSERT(!tt.timer.pending);
	KT_ASSERT(!del_timer(&tt.timer));
}

KTEST(time, del_timer_prevents_firing)
{
	struct test_timer tt = { 0 };

	timer_setup(&tt.timer, test_timer_fn);
	mod_timer(&tt.timer, jiffies + msecs_to_jiffies(20));
	KT_ASSERT(del_timer(&tt.timer));
	KT_ASSERT(!del_timer(&tt.timer));       /* no longer pending */
	msleep(60);
	KT_ASSERT_MSG(tt.fired == 0, "a deleted timer fired");
}

KTEST(time, mod_timer_rearms_once)
{
	struct test_timer a = { 0 }, b = { 0 };
	unsigned long flags;

	/* Re-arming a pending timer moves it; it must not sit on the list
	 * twice.  b, due between a's two expiry times, checks the order. */
	timer_setup(&a.timer, test_timer_fn);
	timer_setup(&b.timer, test_timer_fn);
	/* no tick between the three calls, however loaded the host: a must
	 * still be pending when it is re-armed, or it would fire twice */
	flags = local_irq_save();
	mod_timer(&a.timer, jiffies + msecs_to_jiffies(2));
	mod_timer(&b.timer, jiffies + msecs_to_jiffies(5));
	mod_timer(&a.timer, jiffies + msecs_to_jiffies(10));
	local_irq_restore(flags);
	wait_for_flag(&a.fired);
	wait_for_flag(&b.fired);
	msleep(20);
	del_timer(&a.timer);
	del_timer(&b.timer);
	KT_ASSERT_MSG(a.fired == 1 && b.fired == 1, "fired %d and %d times", a.fired, b.fired);
	KT_ASSERT_MSG(time_after_eq(a.fired_at, b.fired_at), "a at %llu before b at %llu",
		      (unsigned long long)a.fired_at, (unsigned long long)b.fired_at);
}

/* --- irq ----------------------------------------------------------------- */

struct irq_probe {
	volatile int calls;
	volatile int last_irq;
	volatile bool in_irq;
	irqreturn_t ret;
};

static irqreturn_t probe_handler(int irq, void *dev_id)
{
	struct irq_probe *p = dev_id;

	p->calls++;
	p->last_irq = irq;
	p->in_irq = in_irq();
	return p->ret;
}

/* Send ourselves the vector of an MSI irq, as its device would, and give
 * it a moment to arrive (a self-IPI is normally taken at once). */
static void fire_msi(u32 msi_data)
{
	apic_send_IPI_self(msi_data & MSI_DATA_VECTOR_MASK);
	msleep(1);
}

/*
 * The handlers' state lives on the test's stack, so every case below
 * frees its irq before it asserts anything: a failed assertion returns at
 * once, and must not leave a handler pointing into a dead stack frame.
 */
KTEST(irq, msi_self_ipi)
{
	struct irq_probe p = { .ret = IRQ_HANDLED };
	u64 addr, before, after;
	u32 data;
	int irq = irq_alloc_msi(&addr, &data), err;

	KT_ASSERT_MSG(irq >= FIRST_MSI_IRQ && irq < NR_IRQS, "irq_alloc_msi: %d", irq);
	err = request_irq(irq, probe_handler, 0, "ktest-msi", &p);
	before = irq_count(irq);
	if (!err) {
		fire_msi(data);
		free_irq(irq, &p);
	}
	after = irq_count(irq);
	irq_free_msi(irq);
	KT_ASSERT_MSG(err == 0, "request_irq: %d", err);
	KT_ASSERT_MSG((addr & ~0xff000ull) == MSI_ADDR_BASE, "MSI address %#llx",
		      (unsigned long long)addr);
	KT_ASSERT_MSG(p.calls == 1, "handler ran %d times", p.calls);
	KT_ASSERT(p.last_irq == irq);
	KT_ASSERT_MSG(p.in_irq, "handler ran outside interrupt context");
	KT_ASSERT(after == before + 1);
}

KTEST(irq, request_bad_irq)
{
	struct irq_probe p = { .ret = IRQ_HANDLED };

	KT_ASSERT(request_irq(NR_IRQS, probe_handler, 0, "bad", &p) == -EINVAL);
	KT_ASSERT(request_irq(100000, probe_handler, 0, "bad", &p) == -EINVAL);
	/* Between the IOAPIC inputs and the MSI range nothing exists. */
	KT_ASSERT(request_irq(FIRST_MSI_IRQ - 1, probe_handler, 0, "bad", &p) == -EINVAL);
	KT_ASSERT(request_irq(0, NULL, 0, "bad", &p) == -EINVAL);
	KT_ASSERT(request_irq(0, probe_handler, IRQF_SHARED, "bad", NULL) == -EINVAL);
}

KTEST(irq, shared_handlers)
{
	struct irq_probe a = { .ret = IRQ_NONE }, b = { .ret = IRQ_HANDLED }, c = { 0 };
	u64 addr;
	u32 data;
	int irq = irq_alloc_msi(&addr, &data), err_a, err_b, err_c;

	KT_ASSERT_MSG(irq >= FIRST_MSI_IRQ, "irq_alloc_msi: %d", irq);
	err_a = request_irq(irq, probe_handler, IRQF_SHARED, "ktest-a", &a);
	err_b = request_irq(irq, probe_handler, IRQF_SHARED, "ktest-b", &b);
	/* A requester that does not agree to share is refused. */
	err_c = request_irq(irq, probe_handler, 0, "ktest-c", &c);
	fire_msi(data);                 /* both run */
	if (!err_a)
		free_irq(irq, &a);
	fire_msi(data);                 /* only b is left */
	if (!err_b)
		free_irq(irq, &b);
	if (!err_c)
		free_irq(irq, &c);
	irq_free_msi(irq);
	KT_ASSERT(err_a == 0 && err_b == 0);
	KT_ASSERT_MSG(err_c == -EBUSY, "unshared request on a shared irq: %d", err_c);
	KT_ASSERT_MSG(a.calls == 1 && b.calls == 2, "calls: a %d (want 1), b %d (want 2)",
		      a.calls, b.calls);
	KT_ASSERT(c.calls == 0);
}

KTEST(irq, disable_defers_until_enable)
{
	struct irq_probe p = { .ret = IRQ_HANDLED };
	u64 addr;
	u32 data;
	int irq = irq_alloc_msi(&addr, &data), err, calls_while_disabled = -1;

	KT_ASSERT_MSG(irq >= FIRST_MSI_IRQ, "irq_alloc_msi: %d", irq);
	err = request_irq(irq, probe_handler, 0, "ktest-dis", &p);
	if (!err) {
		disable_irq(irq);
		disable_irq(irq);               /* nests */
		fire_msi(data);
		enable_irq(irq);
		msleep(1);
		calls_while_disabled = p.calls;
		enable_irq(irq);                /* replays the edge that came meanwhile */
		msleep(1);
		free_irq(irq, &p);
	}
	irq_free_msi(irq);
	KT_ASSERT_MSG(err == 0, "request_irq: %d", err);
	KT_ASSERT_MSG(calls_while_disabled == 0, "handler ran while disabled");
	KT_ASSERT_MSG(p.calls == 1, "handler ran %d times after enable_irq", p.calls);
}
