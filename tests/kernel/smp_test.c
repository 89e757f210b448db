// SPDX-License-Identifier: MIT
/*
 * The other CPUs at work: function calls sent to them, per-CPU data, and
 * spinlocks hammered from every CPU at once (the spin_lock part of
 * Linux's kernel/locking/locktorture.c).  Booted with -smp N; on one CPU
 * the cases that need two are skipped.
 *
 *   call_function_single  each CPU runs a function sent to it, as itself:
 *                         its CPU number, its own idle task, interrupts off
 *   on_each_cpu           all at once, each exactly once
 *   percpu                each CPU's copy of a per-CPU variable is its own
 *   locktorture_spinlock  for a second, every CPU takes one spinlock in a
 *                         loop and, in
 *                         the critical section, increments a counter in a
 *                         deliberately slow read-wait-write; it also checks
 *                         that no other CPU is inside with it.  Lost
 *                         increments or a second CPU inside are violations
 *                         (must be 0), and the case requires contention --
 *                         CPUs that found the lock held and waited -- so a
 *                         run where the CPUs never overlapped proves
 *                         nothing and fails.
 *   locktorture_mutex     the same with a mutex, taken by two kthreads
 *                         pinned to each CPU; every eighth holder sleeps
 *                         a tick inside, so the others queue and sleep
 *   completion_torture    kthreads on two CPUs hand two completions back
 *                         and forth: no wake-up lost, nothing left over
 *   remote_wakeup         this task, on CPU 0, sleeps on a completion that
 *                         CPU 1 completes, many times over: no wake-up is
 *                         lost (each wait ends long before its timeout),
 *                         and the idle CPU 0 was woken by rescheduling IPIs
 *   wakeup_before_sleep   CPU 1 wakes this task between its
 *                         set_current_state() and schedule(), still on the
 *                         run queue: the wake-up only sets it running
 *                         again (try_to_wake_up()'s on_rq case), so the
 *                         schedule() that follows does not sleep
 *   timers_from_another_cpu  for 300 ms CPU 1 deletes (del_timer_sync)
 *                         and re-arms timers that CPU 0's tick is firing:
 *                         every arming ends in exactly one run or one
 *                         delete, and no function is still running once
 *                         del_timer_sync() returns; every eighth round
 *                         CPU 1 and the function meet on purpose (it
 *                         waits inside until CPU 1 has seen it), so
 *                         del_timer_sync() must wait, and the case
 *                         requires such meetings
 *   synchronize_irq       an irq whose slow handler runs on CPU 1:
 *                         disable_irq() and free_irq() on CPU 0 return only
 *                         once it has returned
 *   soft_lockup, hard_lockup  (with watchdog_thresh=1) a CPU stuck with
 *                         preemption off, then one stuck with interrupts
 *                         off, each reported once (kernel/watchdog.c)
 */
#include <spindle/ktest.h>
#include <spindle/smp.h>
#include <spindle/percpu.h>
#include <spindle/sched.h>
#include <spindle/spinlock.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include <spindle/errno.h>
#include <spindle/init.h>
#include <spindle/sched_debug.h>
#include <spindle/completion.h>
#include <spindle/mutex.h>
#include <spindle/irq.h>
#include <asm/apic.h>
#include <asm/smp.h>

struct who_ran {
	int cpu;
	int pid;
	bool irqs_off;
	char comm[TASK_COMM_LEN];
};

static void record_who(void *arg)
{
	struct who_ran *w = arg;

	w->cpu = (int)smp_processor_id();
	w->pid = current->pid;
	w->irqs_off = irqs_disabled();
	strlcpy(w->comm, current->comm, sizeof(w->comm));
}

KTEST(smp, call_function_single)
{
	unsigned int cpu;

	KT_NEEDS_CPUS(2u);
	KT_ASSERT(ktest_pin_cpu(0));
	for_each_online_cpu(cpu) {
		struct who_ran w = { .cpu = -1 };
		char want[TASK_COMM_LEN];

		KT_ASSERT(smp_call_function_single(cpu, record_who, &w, true) == 0);
		KT_ASSERT_MSG(w.cpu == (int)cpu, "sent to CPU %u, ran on %d", cpu, w.cpu);
		KT_ASSERT_MSG(w.irqs_off, "CPU %u ran it with interrupts on", cpu);
		if (cpu == 0)
			continue;       /* this CPU: it ran as the caller */
		scnprintf(want, sizeof(want), "swapper/%u", cpu);
		KT_ASSERT_MSG(w.pid == 0 && !strcmp(w.comm, want),
			      "CPU %u's current is %s/%d, not its idle task %s", cpu, w.comm,
			      w.pid, want);
	}
	KT_ASSERT(smp_call_function_single(NR_CPUS, record_who, NULL, true) == -ENXIO);
}

static unsigned int times_ran[NR_CPUS];

static void count_me(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&times_ran[smp_processor_id()], 1, __ATOMIC_RELAXED);
}

KTEST(smp, on_each_cpu)
{
	unsigned int cpu;

	KT_NEEDS_CPUS(2u);
	memset(times_ran, 0, sizeof(times_ran));
	for (int round = 0; round < 100; round++)
		on_each_cpu(count_me, NULL, true);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		KT_ASSERT_MSG(times_ran[cpu] == (cpu_online(cpu) ? 100u : 0u),
			      "CPU %u ran it %u times in 100 rounds", cpu, times_ran[cpu]);
}

static DEFINE_PER_CPU(unsigned long, percpu_test_var);

static void set_mine(void *arg)
{
	(void)arg;
	this_cpu_write(percpu_test_var, 1000 + smp_processor_id());
	this_cpu_add(percpu_test_var, 5);
}

KTEST(smp, percpu)
{
	unsigned int cpu;

	KT_NEEDS_CPUS(2u);
	on_each_cpu(set_mine, NULL, true);
	for_each_online_cpu(cpu) {
		KT_ASSERT_MSG(per_cpu(percpu_test_var, cpu) == 1005 + cpu,
			      "CPU %u's copy is %lu", cpu, per_cpu(percpu_test_var, cpu));
		KT_ASSERT(per_cpu_ptr(&percpu_test_var, cpu) != &percpu_test_var);
	}
	for_each_online_cpu(cpu) {
		if (cpu)
			KT_ASSERT(per_cpu_ptr(&percpu_test_var, cpu) !=
				  per_cpu_ptr(&percpu_test_var, 0));
	}
}

/* --- locktorture ------------------------------------------------------- */

/*
 * Timed, as Linux's locktorture is, rather than a count: how many
 * acquisitions a second gives depends on the host.  A ticket lock is
 * FIFO, so once several CPUs wait, every acquisition is a hand-over to the
 * next CPU -- under QEMU's one-thread TCG a switch of virtual CPU each
 * time, a millisecond or so: a count large enough for two CPUs took a
 * minute on four.
 */
#define TORTURE_NS        (1ull * NSEC_PER_SEC)
#define TORTURE_MIN_LOOPS 100   /* per CPU, however slow: no CPU starves */
#define TORTURE_CS_SPIN   200   /* busy-wait inside: a slow critical section */

static struct {
	spinlock_t lock;
	unsigned long counter;          /* under lock, updated slowly */
	int inside;                     /* CPUs in the critical section */
	/* atomics, outside the lock: */
	unsigned long acquired[NR_CPUS];
	unsigned long contended;        /* found the lock held, waited */
	unsigned long violations;
	u64 deadline;
} torture;

static void torture_spin_lock(void *arg)
{
	unsigned int me = smp_processor_id();
	unsigned long done = 0;

	(void)arg;
	while (done < TORTURE_MIN_LOOPS || ktime_get_ns() < torture.deadline) {
		unsigned long v;

		if (spin_is_locked(&torture.lock))
			__atomic_fetch_add(&torture.contended, 1, __ATOMIC_RELAXED);
		spin_lock(&torture.lock);
		if (__atomic_fetch_add(&torture.inside, 1, __ATOMIC_RELAXED) != 0)
			__atomic_fetch_add(&torture.violations, 1, __ATOMIC_RELAXED);
		v = READ_ONCE(torture.counter);
		for (int i = 0; i < TORTURE_CS_SPIN; i++)
			barrier();      /* not cpu_relax(): a holder does not yield */
		WRITE_ONCE(torture.counter, v + 1);
		__atomic_fetch_sub(&torture.inside, 1, __ATOMIC_RELAXED);
		spin_unlock(&torture.lock);
		done++;
	}
	torture.acquired[me] = done;
}

KTEST(smp, locktorture_spinlock)
{
	unsigned long total = 0;
	unsigned long lo = ~0ul, hi = 0;
	unsigned int cpu, n = num_online_cpus();

	KT_NEEDS_CPUS(2u);
	memset(&torture, 0, sizeof(torture));
	spin_lock_init(&torture.lock);
	torture.deadline = ktime_get_ns() + TORTURE_NS;
	on_each_cpu(torture_spin_lock, NULL, true);
	for_each_online_cpu(cpu) {
		total += torture.acquired[cpu];
		lo = min(lo, torture.acquired[cpu]);
		hi = max(hi, torture.acquired[cpu]);
	}
	/* Linux's locktorture summary line */
	pr_info("spin_lock-torture: Writes: Total: %lu Max/Min: %lu/%lu Fail: %lu "
		"(%u CPUs, %lu contended)\n",
		total, hi, lo, torture.violations + (torture.counter != total), n,
		torture.contended);
	KT_ASSERT_MSG(lo >= TORTURE_MIN_LOOPS, "a CPU did only %lu", lo);
	KT_ASSERT_MSG(torture.violations == 0, "%lu times two CPUs were inside at once",
		      torture.violations);
	KT_ASSERT_MSG(torture.counter == total, "counter %lu after %lu increments: %lu lost",
		      torture.counter, total, total - torture.counter);
	KT_ASSERT_MSG(torture.contended > 0,
		      "no CPU ever found the lock held: the CPUs never overlapped");
	KT_ASSERT(!spin_is_locked(&torture.lock));
}


/* --- mutex and completion torture (locktorture's mutex_lock type) ------ */

/*
 * Sleeping locks on every CPU: TORTURE_THREADS kthreads per CPU, each
 * pinned, take one mutex in a loop for a second and, inside, increment a
 * counter slowly and check nobody else is in; every eighth time the
 * holder sleeps a tick with the mutex held, so the others must queue and
 * sleep, and the unlock must hand over to a sleeper on another CPU.  As
 * the spinlock case: no lost increment, never two inside, every thread
 * got the lock TORTURE_MIN_MUTEX times, and some thread found it held.
 */
#define TORTURE_THREADS    2
#define TORTURE_MIN_MUTEX  20

static struct {
	struct mutex m;
	unsigned long counter;          /* under m, updated slowly */
	int inside;
	unsigned long acquired[NR_CPUS * TORTURE_THREADS];
	unsigned long contended, violations;    /* atomics */
	u64 deadline;
	atomic_t running;
	struct completion all_done;
} mtorture;

static int torture_mutex_thread(void *arg)
{
	long idx = (long)arg;
	unsigned long done = 0;

	while (done < TORTURE_MIN_MUTEX || ktime_get_ns() < mtorture.deadline) {
		unsigned long v;

		if (mutex_is_locked(&mtorture.m))
			__atomic_fetch_add(&mtorture.contended, 1, __ATOMIC_RELAXED);
		mutex_lock(&mtorture.m);
		if (__atomic_fetch_add(&mtorture.inside, 1, __ATOMIC_RELAXED) != 0)
			__atomic_fetch_add(&mtorture.violations, 1, __ATOMIC_RELAXED);
		v = READ_ONCE(mtorture.counter);
		if ((done & 7) == 0)
			schedule_timeout_uninterruptible(1);    /* asleep, holding it */
		else
			for (int i = 0; i < TORTURE_CS_SPIN; i++)
				barrier();
		WRITE_ONCE(mtorture.counter, v + 1);
		__atomic_fetch_sub(&mtorture.inside, 1, __ATOMIC_RELAXED);
		mutex_unlock(&mtorture.m);
		done++;
	}
	mtorture.acquired[idx] = done;
	if (atomic_dec_and_test(&mtorture.running))
		complete(&mtorture.all_done);
	return 0;
}

/* Start fn(i) as a kthread pinned to cpu; false if it could not be made. */
static bool run_pinned(int (*fn)(void *), long i, unsigned int cpu, const char *name)
{
	struct cpumask m = { 0 };
	struct task_struct *t = kthread_create(fn, (void *)i, "%s/%u:%ld", name, cpu, i);

	if (!t)
		return false;
	cpumask_set_cpu(cpu, &m);
	set_cpus_allowed_ptr(t, &m);
	wake_up_process(t);
	return true;
}

KTEST(smp, locktorture_mutex)
{
	unsigned int n = num_online_cpus(), threads = n * TORTURE_THREADS;
	unsigned long total = 0, lo = ~0ul, hi = 0;

	KT_NEEDS_CPUS(2u);
	memset(&mtorture, 0, sizeof(mtorture));
	mutex_init(&mtorture.m);
	init_completion(&mtorture.all_done);
	atomic_set(&mtorture.running, (int)threads);
	mtorture.deadline = ktime_get_ns() + TORTURE_NS;
	for (unsigned int i = 0; i < threads; i++)
		KT_ASSERT(run_pinned(torture_mutex_thread, (long)i, i % n, "mtorture"));
	KT_ASSERT_MSG(wait_for_completion_timeout(&mtorture.all_done, (long)msecs_to_jiffies(60000)),
		      "the threads did not finish in 60 s");
	for (unsigned int i = 0; i < threads; i++) {
		total += mtorture.acquired[i];
		lo = min(lo, mtorture.acquired[i]);
		hi = max(hi, mtorture.acquired[i]);
	}
	pr_info("mutex_lock-torture: Writes: Total: %lu Max/Min: %lu/%lu Fail: %lu "
		"(%u threads on %u CPUs, %lu contended)\n",
		total, hi, lo, mtorture.violations + (mtorture.counter != total), threads, n,
		mtorture.contended);
	KT_ASSERT_MSG(lo >= TORTURE_MIN_MUTEX, "a thread did only %lu", lo);
	KT_ASSERT_MSG(mtorture.violations == 0, "%lu times two threads were inside at once",
		      mtorture.violations);
	KT_ASSERT_MSG(mtorture.counter == total, "counter %lu after %lu increments: %lu lost",
		      mtorture.counter, total, total - mtorture.counter);
	KT_ASSERT_MSG(mtorture.contended > 0, "no thread ever found the mutex held");
	KT_ASSERT(!mutex_is_locked(&mtorture.m));
}

/*
 * Completions across CPUs: pairs of kthreads on two CPUs play ping-pong
 * -- one completes ping and waits for pong, the other waits for ping and
 * completes pong -- PINGPONG_ROUNDS times, each wait a sleep the other
 * CPU's complete() must end.  A lost wake-up is a wait that ends only by
 * its timeout; at the end nothing is left over (done == 0).
 */
#define PINGPONG_ROUNDS 500

static struct pingpong {
	struct completion ping, pong;
	unsigned long rounds, lost;
	struct completion finished;
} pp[NR_CPUS / 2];

static int ping_thread(void *arg)
{
	struct pingpong *p = &pp[(long)arg];

	for (int r = 0; r < PINGPONG_ROUNDS; r++) {
		complete(&p->ping);
		if (!wait_for_completion_timeout(&p->pong, HZ))
			p->lost++;
	}
	complete(&p->finished);
	return 0;
}

static int pong_thread(void *arg)
{
	struct pingpong *p = &pp[(long)arg];

	for (int r = 0; r < PINGPONG_ROUNDS; r++) {
		if (!wait_for_completion_timeout(&p->ping, HZ))
			p->lost++;
		p->rounds++;
		complete(&p->pong);
	}
	complete(&p->finished);
	return 0;
}

KTEST(smp, completion_torture)
{
	unsigned int n = num_online_cpus(), pairs = n / 2;
	unsigned long rounds = 0, lost = 0;

	KT_NEEDS_CPUS(2u);
	for (unsigned int i = 0; i < pairs; i++) {
		init_completion(&pp[i].ping);
		init_completion(&pp[i].pong);
		init_completion(&pp[i].finished);
		pp[i].rounds = pp[i].lost = 0;
		KT_ASSERT(run_pinned(ping_thread, (long)i, 2 * i, "ping"));
		KT_ASSERT(run_pinned(pong_thread, (long)i, 2 * i + 1, "pong"));
	}
	for (unsigned int i = 0; i < pairs; i++) {
		for (int k = 0; k < 2; k++)
			KT_ASSERT_MSG(wait_for_completion_timeout(&pp[i].finished,
								  (long)msecs_to_jiffies(60000)),
				      "pair %u did not finish", i);
		rounds += pp[i].rounds;
		lost += pp[i].lost;
		KT_ASSERT_MSG(!pp[i].ping.done && !pp[i].pong.done,
			      "pair %u: completions left over (%u, %u)", i, pp[i].ping.done,
			      pp[i].pong.done);
	}
	pr_info("completion-torture: %lu rounds in %u pairs of CPUs, %lu lost\n", rounds, pairs,
		lost);
	KT_ASSERT_MSG(lost == 0, "%lu wake-ups lost", lost);
	KT_ASSERT_MSG(rounds == (unsigned long)pairs * PINGPONG_ROUNDS, "%lu rounds, not %lu",
		      rounds, (unsigned long)pairs * PINGPONG_ROUNDS);
}

/* --- timers from another CPU (kernel/timer.c) ----------------------- */

#define HAMMER_NS       (300 * NSEC_PER_MSEC)
#define HAMMER_TIMERS   4

static struct {
	struct timer_list timer[HAMMER_TIMERS];
	int running[HAMMER_TIMERS];     /* its function is inside */
	/* a meeting: the function waits inside until CPU 1 has seen it */
	int handshake[HAMMER_TIMERS], seen[HAMMER_TIMERS];
	unsigned long fired;            /* atomic: from the tick */
	/* CPU 1's, read once it is done: */
	unsigned long armed, deleted, met_running, violations;
	u64 deadline;
	bool done;
} hammer;

static void hammer_fn(struct timer_list *t)
{
	int i = (int)(t - hammer.timer);

	WRITE_ONCE(hammer.running[i], 1);
	if (READ_ONCE(hammer.handshake[i])) {
		u64 until = ktime_get_ns() + 20 * NSEC_PER_MSEC;

		while (!smp_load_acquire(&hammer.seen[i]) && ktime_get_ns() < until)
			cpu_relax();
		WRITE_ONCE(hammer.handshake[i], 0);
	}
	udelay(20);                     /* slow, so that CPU 1 meets it running */
	__atomic_add_fetch(&hammer.fired, 1, __ATOMIC_RELAXED);
	smp_store_release(&hammer.running[i], 0);
}

static void hammer_timers(void *arg)
{
	unsigned int i = 0;

	(void)arg;
	for (unsigned int round = 0; ktime_get_ns() < hammer.deadline; round++) {
		struct timer_list *t = &hammer.timer[i];

		if (round % 8 == 0) {
			/* Meet its function running, on purpose: arm it for
			 * now, wait (20 ms at most) for the tick to start it;
			 * it waits inside until we have seen it, so that our
			 * del_timer_sync() below must wait for it to return
			 * however the CPUs take turns. */
			u64 until = ktime_get_ns() + 20 * NSEC_PER_MSEC;

			if (del_timer_sync(t))
				hammer.deleted++;
			WRITE_ONCE(hammer.seen[i], 0);
			WRITE_ONCE(hammer.handshake[i], 1);
			mod_timer(t, jiffies);
			hammer.armed++;
			while (!smp_load_acquire(&hammer.running[i]) && ktime_get_ns() < until)
				cpu_relax();
			if (READ_ONCE(hammer.running[i]))
				hammer.met_running++;
			smp_store_release(&hammer.seen[i], 1);
			if (del_timer_sync(t))
				hammer.deleted++;
			if (smp_load_acquire(&hammer.running[i]))
				hammer.violations++;
			i = (i + 1) % HAMMER_TIMERS;
			continue;
		}
		if (round % 8 == 4) {
			/* One deletion that cannot lose its race: due in ten
			 * seconds, taken back at once.  The deletions below
			 * race the tick, and on a host that runs this CPU
			 * late every timer has fired before it comes back
			 * (seen: 86 runs, 0 deletes, at a load of 15). */
			if (del_timer_sync(t))
				hammer.deleted++;
			mod_timer(t, jiffies + 10 * HZ);
			hammer.armed++;
			if (del_timer_sync(t))
				hammer.deleted++;
			i = (i + 1) % HAMMER_TIMERS;
			continue;
		}
		if (READ_ONCE(hammer.running[i]))
			hammer.met_running++;
		if (del_timer_sync(t))
			hammer.deleted++;
		if (smp_load_acquire(&hammer.running[i]))
			hammer.violations++;    /* del_timer_sync() did not wait */
		mod_timer(t, jiffies + (i & 1));        /* due at this tick or the next */
		hammer.armed++;
		i = (i + 1) % HAMMER_TIMERS;
		udelay(200);                    /* a round of the four is about a tick */
	}
	smp_store_release(&hammer.done, true);
}

KTEST(smp, timers_from_another_cpu)
{
	unsigned long fired;

	KT_NEEDS_CPUS(2u);
	KT_ASSERT(ktest_pin_cpu(0));
	memset(&hammer, 0, sizeof(hammer));
	for (int i = 0; i < HAMMER_TIMERS; i++)
		timer_setup(&hammer.timer[i], hammer_fn);
	hammer.deadline = ktime_get_ns() + HAMMER_NS;
	KT_ASSERT(smp_call_function_single(1, hammer_timers, NULL, false) == 0);
	while (!smp_load_acquire(&hammer.done))
		msleep(10);
	for (int i = 0; i < HAMMER_TIMERS; i++)
		if (del_timer_sync(&hammer.timer[i]))
			hammer.deleted++;
	fired = __atomic_load_n(&hammer.fired, __ATOMIC_RELAXED);
	printk(KERN_INFO "timer_hammer: armed %lu, fired %lu, deleted %lu, met a running function %lu times, %lu violations\n",
	       hammer.armed, fired, hammer.deleted, hammer.met_running, hammer.violations);
	KT_ASSERT_MSG(fired + hammer.deleted == hammer.armed,
		      "%lu armings, %lu runs + %lu deletes", hammer.armed, fired, hammer.deleted);
	KT_ASSERT_MSG(hammer.violations == 0, "a function still ran after del_timer_sync() %lu times",
		      hammer.violations);
	KT_ASSERT_MSG(fired > 0 && hammer.deleted > 0, "no overlap: %lu runs, %lu deletes",
		      fired, hammer.deleted);
	KT_ASSERT_MSG(hammer.met_running > 0, "CPU 1 never met a timer function running");
}

/* --- an irq's handler on another CPU (kernel/arch/x86/irq.c) -------- */

#define SLOW_HANDLER_US 20000

static struct {
	int running;            /* inside the handler */
	int ran_on;
	int calls;
} slow;

static irqreturn_t slow_handler(int irq, void *dev_id)
{
	(void)irq;
	(void)dev_id;
	WRITE_ONCE(slow.ran_on, (int)smp_processor_id());
	WRITE_ONCE(slow.running, 1);
	udelay(SLOW_HANDLER_US);
	WRITE_ONCE(slow.calls, slow.calls + 1);
	smp_store_release(&slow.running, 0);
	return IRQ_HANDLED;
}

/*
 * Send the irq's vector to CPU 1, and wait until its handler is inside.
 * The limit only ends a wait for an interrupt that never comes: a loaded
 * host can leave one vCPU unscheduled for over a second (seen once, at
 * 1 s, with the host's two cores running eleven jobs).
 */
static bool fire_on_cpu1(int irq)
{
	u64 end = ktime_get_ns() + 20 * NSEC_PER_SEC;

	apic_send_IPI(per_cpu(x86_cpu_to_apicid, 1), (u8)(IRQ0_VECTOR + irq));
	while (!smp_load_acquire(&slow.running))
		if (ktime_get_ns() > end)
			return false;
	return true;
}

KTEST(smp, synchronize_irq)
{
	u64 addr;
	u32 data;
	int irq, err;

	KT_NEEDS_CPUS(2u);
	KT_ASSERT(ktest_pin_cpu(0));
	memset(&slow, 0, sizeof(slow));
	irq = irq_alloc_msi(&addr, &data);
	KT_ASSERT_MSG(irq >= FIRST_MSI_IRQ, "irq_alloc_msi: %d", irq);
	err = request_irq((unsigned int)irq, slow_handler, 0, "slow", &slow);
	KT_ASSERT_MSG(err == 0, "request_irq: %d", err);

	KT_ASSERT_MSG(fire_on_cpu1(irq), "the handler never ran on CPU 1");
	disable_irq((unsigned int)irq);
	KT_ASSERT_MSG(!READ_ONCE(slow.running), "disable_irq() returned while the handler ran");
	KT_ASSERT_MSG(slow.ran_on == 1 && slow.calls == 1, "ran on CPU %d, %d calls", slow.ran_on,
		      slow.calls);
	enable_irq((unsigned int)irq);

	KT_ASSERT_MSG(fire_on_cpu1(irq), "the handler never ran on CPU 1 again");
	free_irq((unsigned int)irq, &slow);
	KT_ASSERT_MSG(!READ_ONCE(slow.running), "free_irq() returned while the handler ran");
	KT_ASSERT_MSG(slow.calls == 2, "%d calls", slow.calls);
	irq_free_msi((unsigned int)irq);
}

/* --- wake-ups from another CPU (kernel/sched/core.c) ---------------- */

#define WAKE_ROUNDS     2000

struct remote_complete {
	struct completion done;
	struct task_struct *waiter;
};

/*
 * On CPU 1: complete once the waiter is asleep, so that the wake-up is a
 * remote one.  Without the wait, QEMU's one-thread TCG may switch to CPU
 * 1 as soon as the IPI is raised -- before CPU 0 reaches its wait --
 * and every round then finds done already set: no sleep, no remote
 * wake-up (once in four debug runs of all-q35, all 2,000 rounds so).
 * Bounded: a waiter that never sleeps is the lost-wake-up check's.
 */
static void complete_it(void *arg)
{
	struct remote_complete *rc = arg;

	for (int i = 0; i < 1000000; i++) {
		if (READ_ONCE(rc->waiter->state) == TASK_UNINTERRUPTIBLE &&
		    !READ_ONCE(rc->waiter->on_cpu))
			break;
		cpu_relax();
	}
	complete(&rc->done);
}

KTEST(smp, remote_wakeup)
{
	struct sched_cpu_stats before, after;
	struct remote_complete rc = { .waiter = current };
	unsigned int lost = 0;

	KT_NEEDS_CPUS(2u);
	KT_ASSERT(ktest_pin_cpu(0));
	KT_ASSERT_MSG(smp_processor_id() == 0, "ktests run on CPU 0, not %u", smp_processor_id());
	init_completion(&rc.done);
	sched_cpu_stats(0, &before);
	for (int i = 0; i < WAKE_ROUNDS; i++) {
		reinit_completion(&rc.done);
		KT_ASSERT(smp_call_function_single(1, complete_it, &rc, false) == 0);
		/* a lost wake-up is a wait that ends only by its timeout */
		if (!wait_for_completion_timeout(&rc.done, HZ))
			lost++;
	}
	sched_cpu_stats(0, &after);
	printk(KERN_INFO "remote_wakeup: %d rounds, %llu remote wake-ups, %llu rescheduling IPIs, %u lost\n",
	       WAKE_ROUNDS, (unsigned long long)(after.ttwu_remote - before.ttwu_remote),
	       (unsigned long long)(after.resched_ipis - before.resched_ipis), lost);
	KT_ASSERT_MSG(lost == 0, "%u of %d wake-ups from CPU 1 lost", lost, WAKE_ROUNDS);
	/* proof that the case did what it says: CPU 1 woke a sleeping
	 * task here, and had to kick the idle CPU 0 to run it */
	KT_ASSERT_MSG(after.ttwu_remote > before.ttwu_remote, "no wake-up came from CPU 1");
	KT_ASSERT_MSG(after.resched_ipis > before.resched_ipis,
		      "CPU 0 idled and took no rescheduling IPI");
}

struct wake_call {
	struct task_struct *task;
	bool woken;
};

static void wake_it(void *arg)
{
	struct wake_call *w = arg;

	w->woken = wake_up_process(w->task);
}

KTEST(smp, wakeup_before_sleep)
{
	struct sched_cpu_stats before, after;
	struct wake_call w = { .task = current };
	unsigned int not_woken = 0, still_asleep = 0;
	u64 nvcsw = current->nvcsw;

	KT_NEEDS_CPUS(2u);
	KT_ASSERT(ktest_pin_cpu(0));
	sched_cpu_stats(0, &before);
	for (int i = 0; i < WAKE_ROUNDS; i++) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		/* CPU 1 wakes us now, before we reach schedule(); we wait
		 * (spinning, still runnable) until it has */
		w.woken = false;
		KT_ASSERT(smp_call_function_single(1, wake_it, &w, true) == 0);
		if (!w.woken)
			not_woken++;
		if (READ_ONCE(current->state) != TASK_RUNNING)
			still_asleep++;
		schedule();     /* must come straight back: we are running */
		__set_current_state(TASK_RUNNING);
	}
	sched_cpu_stats(0, &after);
	KT_ASSERT_MSG(not_woken == 0, "wake_up_process() found us awake %u times", not_woken);
	KT_ASSERT_MSG(still_asleep == 0, "%u wake-ups left our state asleep", still_asleep);
	KT_ASSERT_MSG(current->nvcsw == nvcsw, "slept %llu times although woken first",
		      (unsigned long long)(current->nvcsw - nvcsw));
	KT_ASSERT_MSG(after.ttwu_runnable - before.ttwu_runnable >= WAKE_ROUNDS,
		      "%llu of %d wake-ups took the on_rq path",
		      (unsigned long long)(after.ttwu_runnable - before.ttwu_runnable), WAKE_ROUNDS);
}
/* --- the lockup detectors (kernel/watchdog.c) -------------------------- */

#define LOCKUP_MAX_NS (15ull * NSEC_PER_SEC)    /* give up: the detector failed */

static bool watchdog_test_enabled(void)
{
	char v[8];

	return cmdline_get("watchdog_thresh", v, sizeof(v)) && !strcmp(v, "1");
}

/*
 * Spin until the detector has reported, or LOCKUP_MAX_NS.  The loop calls
 * nothing (jiffies, not ktime_get_ns()): the report's backtrace starts at
 * the interrupted instruction, and at a called function's first
 * instruction the frame-pointer walk would skip its caller -- the very
 * function the report must name.  Inlined, as every caller is stuck.
 */
static __always_inline void spin_until_reported(unsigned long *reports, unsigned long before)
{
	u64 end = READ_ONCE(jiffies) + LOCKUP_MAX_NS / (NSEC_PER_SEC / HZ);

	while (READ_ONCE(*reports) == before && READ_ONCE(jiffies) < end)
		barrier();      /* no pause: a stuck CPU does not yield */
}

/*
 * CPU 0 loops with preemption off (interrupts on: its tick still comes)
 * until the soft-lockup report, which must come after 2 * watchdog_thresh
 * seconds, and once.  The detector counts in jiffies from this CPU's last
 * touch; so the test touches it itself, with preemption already off, and
 * counts in jiffies too, from no later than its touch.  (Timed with
 * ktime_get_ns() from a point after the scheduler's last touch, a report
 * on time once looked early: "after 1990 ms".)
 */
KTEST(smp, soft_lockup)
{
	unsigned long before = softlockup_reports[0], hard = hardlockup_reports;
	u64 j0, took;

	if (!watchdog_test_enabled())
		KT_SKIP("needs watchdog_thresh=1");
	KT_ASSERT(ktest_pin_cpu(0));               /* softlockup_reports[0] is CPU 0's */
	preempt_disable();
	j0 = READ_ONCE(jiffies);         /* before the touch: its jiffies >= j0 */
	touch_softlockup_watchdog();
	spin_until_reported(&softlockup_reports[0], before);
	took = READ_ONCE(jiffies) - j0;
	preempt_enable();
	KT_ASSERT_MSG(softlockup_reports[0] == before + 1, "%lu reports",
		      softlockup_reports[0] - before);
	KT_ASSERT_MSG(took > 2 * HZ, "reported after %llu jiffies, not more than 2 s of them",
		      (unsigned long long)took);
	KT_ASSERT_MSG(hardlockup_reports == hard, "a hard lockup reported too");
}

/* until the NMI has come and printed this CPU's backtrace */
static void spin_irqs_off(void *arg)
{
	unsigned long *before = arg;

	spin_until_reported(&nmi_backtraces, *before);
	WRITE_ONCE(*before, ~0ul);      /* done */
}

/*
 * CPU 1 loops with interrupts off, in a function sent to it, until its
 * buddy (CPU 0) reports the hard lockup and an NMI has it print its
 * backtrace.  CPU 0 waits asleep, so that it is not in a soft lockup of
 * its own meanwhile.  (CPU 1 may also be reported for a soft lockup when
 * its tick comes back, if it was stuck long enough: Linux does the same.)
 */
KTEST(smp, hard_lockup)
{
	unsigned long before = hardlockup_reports, arg = nmi_backtraces, soft = softlockup_reports[0];
	u64 end = ktime_get_ns() + 2 * LOCKUP_MAX_NS;

	KT_NEEDS_CPUS(2u);
	KT_ASSERT(ktest_pin_cpu(0));
	if (!watchdog_test_enabled())
		KT_SKIP("needs watchdog_thresh=1");
	KT_ASSERT(smp_call_function_single(1, spin_irqs_off, &arg, false) == 0);
	while (READ_ONCE(arg) != ~0ul && ktime_get_ns() < end)
		msleep(10);
	KT_ASSERT_MSG(READ_ONCE(arg) == ~0ul, "CPU 1 never came back");
	KT_ASSERT_MSG(hardlockup_reports == before + 1, "%lu reports", hardlockup_reports - before);
	KT_ASSERT_MSG(softlockup_reports[0] == soft, "a soft lockup of CPU 0 reported too");
}

/* --- a call that is not run (kernel/smp.c's csd lock report) ----------- */

static void csd_nop(void *arg)
{
	(void)arg;
}

/*
 * CPU 1 runs a function that loops with interrupts off.  CPU 0 sends it
 * another call, which first waits for the looping one (one call slot per
 * sender and target, kernel/smp.c): after
 * smp.csd_lock_timeout= (300 ms here) it must report the wait once, send
 * the interrupt again and have CPU 1 show where it is and its local APIC
 * (the NMI ends the loop), and then see the call run ("got unstuck").
 * Without the report only the hard-lockup detector, 10 s later, would end
 * the loop, and the count below would not have moved.
 */
KTEST(smp, csd_lock_wait_report)
{
	unsigned long reports = csd_lock_reports, arg = nmi_backtraces;
	char v[8];

	KT_NEEDS_CPUS(2u);
	KT_ASSERT(ktest_pin_cpu(0));
	if (!cmdline_get("smp.csd_lock_timeout", v, sizeof(v)) || strcmp(v, "300"))
		KT_SKIP("needs smp.csd_lock_timeout=300");
	KT_ASSERT(smp_call_function_single(1, spin_irqs_off, &arg, false) == 0);
	KT_ASSERT(smp_call_function_single(1, csd_nop, NULL, true) == 0);
	KT_ASSERT_MSG(READ_ONCE(arg) == ~0ul, "CPU 1 still loops");
	KT_ASSERT_MSG(csd_lock_reports == reports + 1, "%lu reports of the wait",
		      csd_lock_reports - reports);
}
