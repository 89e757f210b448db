// SPDX-License-Identifier: MIT
/*
 * Scheduler tests: many threads, sleep and wake-up, mutex contention,
 * preemption of a thread that never yields, completion hand-off,
 * kthread_stop.  Each test waits for its threads through completions
 * (never a fixed sleep) and checks a result only correct scheduling gives.
 */
#include <spindle/ktest.h>
#include <spindle/sched.h>
#include <spindle/wait.h>
#include <spindle/mutex.h>
#include <spindle/completion.h>
#include <spindle/time.h>
#include <spindle/mm.h>
#include <spindle/atomic.h>
#include <spindle/errno.h>
#include <asm/cpu.h>
#include "ktest_sched.h"

#define NR_THREADS 32
#define ROUNDS     50

struct shared {
	struct mutex lock;
	struct completion done;
	volatile unsigned long counter;
	volatile int started;
};

static int counter_thread(void *arg)
{
	struct shared *s = arg;

	for (int i = 0; i < ROUNDS; i++) {
		mutex_lock(&s->lock);
		/* A deliberately non-atomic update, with a switch in the middle:
		 * only mutual exclusion keeps the count right. */
		unsigned long v = s->counter;

		if (i % 3 == 0)
			yield();
		else if (i % 7 == 0)
			msleep(1);
		s->counter = v + 1;
		mutex_unlock(&s->lock);
	}
	complete(&s->done);
	return 0;
}

KTEST(sched, many_threads_mutex)
{
	struct shared *s = kzalloc(sizeof(*s), GFP_KERNEL);
	struct task_struct *t[NR_THREADS];
	unsigned long free_before;
	int left;

	kmem_cache_shrink_all(); /* objects parked in kmalloc's arrays */
	free_before = nr_free_pages();

	KT_ASSERT(s != NULL);
	mutex_init(&s->lock);
	init_completion(&s->done);
	for (int i = 0; i < NR_THREADS; i++) {
		t[i] = kthread_create(counter_thread, s, "counter/%d", i);
		KT_ASSERT(t[i] != NULL);
		get_task_struct(t[i]); /* ktest_wait_reaped() drops it */
		wake_up_process(t[i]);
	}
	for (int i = 0; i < NR_THREADS; i++)
		wait_for_completion(&s->done);
	KT_ASSERT_MSG(s->counter == NR_THREADS * ROUNDS, "counter %lu, want %d",
		      s->counter, NR_THREADS * ROUNDS);
	KT_ASSERT(!mutex_is_locked(&s->lock));
	kfree(s);
	/* Every thread's stack is freed once the switch away from it is over. */
	left = ktest_wait_reaped(t, NR_THREADS);
	KT_ASSERT_MSG(left == 0, "%d of %d exited threads never freed their stacks",
		      left, NR_THREADS);
	kmem_cache_shrink_all();
	KT_ASSERT_MSG(nr_free_pages() + 2 >= free_before, "threads leaked %ld pages",
		      (long)(free_before - nr_free_pages()));
}

static DECLARE_WAIT_QUEUE_HEAD(flag_wq);
static volatile int flag;
static volatile bool sleeper_woke;

static int sleeper(void *arg)
{
	struct completion *done = arg;

	wait_event(flag_wq, flag == 1);
	sleeper_woke = true;
	complete(done);
	return 0;
}

KTEST(sched, sleep_and_wake)
{
	DECLARE_COMPLETION(done);
	struct task_struct *t;
	bool asleep, early;

	flag = 0;
	sleeper_woke = false;
	t = kthread_run(sleeper, &done, "sleeper");
	KT_ASSERT(t != NULL);
	/* It goes to sleep, not spinning, and has not seen the flag.  Woken
	 * whatever was found: done is in this frame. */
	asleep = ktest_wait_asleep(t, TASK_UNINTERRUPTIBLE);
	early = sleeper_woke;
	flag = 1;
	wake_up(&flag_wq);
	wait_for_completion(&done);
	KT_ASSERT_MSG(asleep, "the sleeper never slept");
	KT_ASSERT(!early);
	KT_ASSERT(sleeper_woke);
}

static volatile bool spin_stop;
static volatile unsigned long spins;

static int spinner(void *arg)
{
	struct completion *done = arg;

	/* Never sleeps or yields: only preemption lets anyone else run. */
	while (!spin_stop)
		spins++;
	complete(done);
	return 0;
}

KTEST(sched, preempt_spinner)
{
	DECLARE_COMPLETION(done);
	struct task_struct *t;
	bool ran;
	u64 switches;

	spin_stop = false;
	spins = 0;
	/* both on CPU 0: on two CPUs nobody would need to preempt it */
	KT_ASSERT(ktest_pin_cpu(0));
	t = kthread_create(spinner, &done, "spinner");
	KT_ASSERT(t != NULL);
	KT_ASSERT(set_cpus_allowed_ptr(t, &(struct cpumask){ .bits = 1 }) == 0);
	get_task_struct(t);
	wake_up_process(t);
	/* This test thread gets the CPU back only if the spinner is
	 * preempted: it sleeps until the spinner has spun, which the spinner
	 * does only once it has the CPU. */
	ran = ktest_wait_until(spins > 0);
	switches = t->nivcsw;
	spin_stop = true;
	wait_for_completion(&done);
	put_task_struct(t);
	KT_ASSERT_MSG(ran, "the spinner never ran");
	KT_ASSERT_MSG(switches > 0, "spinner was never preempted");
}

struct pingpong {
	struct completion ping, pong;
	int count;
};

#define PINGPONG_ROUNDS 1000

static int ponger(void *arg)
{
	struct pingpong *pp = arg;

	for (int i = 0; i < PINGPONG_ROUNDS; i++) {
		wait_for_completion(&pp->ping);
		pp->count++;
		complete(&pp->pong);
	}
	return 0;
}

KTEST(sched, completion_handoff)
{
	struct pingpong pp = { .count = 0 };

	init_completion(&pp.ping);
	init_completion(&pp.pong);
	KT_ASSERT(kthread_run(ponger, &pp, "ponger") != NULL);
	for (int i = 0; i < PINGPONG_ROUNDS; i++) {
		complete(&pp.ping);
		wait_for_completion(&pp.pong);
		KT_ASSERT_MSG(pp.count == i + 1, "round %d count %d", i, pp.count);
	}
}

KTEST(sched, completion_timeout)
{
	DECLARE_COMPLETION(never);
	unsigned long j0 = jiffies;

	KT_ASSERT(wait_for_completion_timeout(&never, msecs_to_jiffies(30)) == 0);
	/* A timeout is counted in jiffies, from the last tick seen: when a
	 * loaded host delivers ticks late, jiffies catches up several at
	 * once, and the nanosecond clock may have moved well under 30 ms --
	 * 20 ms was once missed at a host load of 15.  What the call
	 * promises is the jiffies (msleep, which checks the clock, is tested
	 * exactly in time). */
	KT_ASSERT(time_after_eq(jiffies, j0 + msecs_to_jiffies(30)));
	complete(&never);
	KT_ASSERT(wait_for_completion_timeout(&never, msecs_to_jiffies(30)) > 0);
	/* complete_all lets every later wait through */
	complete_all(&never);
	for (int i = 0; i < 5; i++)
		KT_ASSERT(try_wait_for_completion(&never));
}

static int stoppable(void *arg)
{
	(void)arg;
	while (!kthread_should_stop()) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 42;
}

KTEST(sched, kthread_stop)
{
	struct task_struct *t = kthread_run(stoppable, NULL, "stoppable");
	bool asleep;

	KT_ASSERT(t != NULL);
	/* asleep first, so that kthread_stop() must wake it */
	asleep = ktest_wait_asleep(t, TASK_UNINTERRUPTIBLE);
	KT_ASSERT(kthread_stop(t) == 42);
	KT_ASSERT_MSG(asleep, "the thread never slept");
}

struct fifo_state {
	struct mutex lock;
	struct completion done;
	int order[4];
	int n;
};

struct fifo_arg {
	struct fifo_state *s;
	int id;
};

static int fifo_waiter(void *arg)
{
	struct fifo_arg *a = arg;

	mutex_lock(&a->s->lock);
	a->s->order[a->s->n++] = a->id;
	mutex_unlock(&a->s->lock);
	complete(&a->s->done);
	return 0;
}

/* Waiters get the mutex in the order they started waiting. */
KTEST(sched, mutex_fifo_handoff)
{
	struct fifo_state s = { .n = 0 };
	struct fifo_arg args[4];
	struct task_struct *t;
	int unqueued = -1;

	mutex_init(&s.lock);
	init_completion(&s.done);
	mutex_lock(&s.lock);
	for (int i = 0; i < 4; i++) {
		args[i].s = &s;
		args[i].id = i;
		t = kthread_run(fifo_waiter, &args[i], "fifo/%d", i);
		KT_ASSERT(t != NULL);
		/* queued on the mutex (asleep there) before the next starts */
		if (!ktest_wait_asleep(t, TASK_UNINTERRUPTIBLE))
			unqueued = i;
	}
	mutex_unlock(&s.lock);
	for (int i = 0; i < 4; i++)
		wait_for_completion(&s.done);
	KT_ASSERT_MSG(unqueued < 0, "fifo/%d never slept on the mutex", unqueued);
	for (int i = 0; i < 4; i++)
		KT_ASSERT_MSG(s.order[i] == i, "position %d got waiter %d", i, s.order[i]);
}

/* --- tasks on every CPU ------------------------------------------------ */

#define SPREAD_BUSY_NS  (20 * NSEC_PER_MSEC)

struct spread {
	struct completion done;
	unsigned long seen;             /* a bit per CPU a thread ran on */
	atomic_t left;
};

/* Busy for a while (so the threads overlap), then say where it ran. */
static int spread_thread(void *arg)
{
	struct spread *s = arg;
	u64 end = ktime_get_ns() + SPREAD_BUSY_NS;

	__atomic_fetch_or(&s->seen, 1ul << smp_processor_id(), __ATOMIC_RELAXED);
	while (ktime_get_ns() < end)
		cpu_relax();
	__atomic_fetch_or(&s->seen, 1ul << smp_processor_id(), __ATOMIC_RELAXED);
	if (atomic_dec_and_test(&s->left))
		complete(&s->done);
	return 0;
}

/*
 * Two busy threads per CPU: the wake-ups place them on idle CPUs first
 * (select_task_rq()), so every online CPU must run one.  With the
 * scheduler of one CPU, all ran on CPU 0.
 */
KTEST(sched, tasks_on_every_cpu)
{
	unsigned int n = 2 * num_online_cpus();
	struct spread s = { .seen = 0 };

	if (num_online_cpus() < 2)
		KT_SKIP("needs 2 CPUs (qemu -smp)");
	init_completion(&s.done);
	atomic_set(&s.left, (int)n);
	for (unsigned int i = 0; i < n; i++)
		KT_ASSERT(kthread_run(spread_thread, &s, "spread/%u", i) != NULL);
	wait_for_completion(&s.done);
	printk(KERN_INFO "tasks_on_every_cpu: %u threads ran on CPUs %#lx of %#lx\n", n, s.seen,
	       cpu_online_mask->bits);
	KT_ASSERT_MSG(s.seen == cpu_online_mask->bits, "threads ran on CPUs %#lx, online %#lx",
		      s.seen, cpu_online_mask->bits);
}

/*
 * sched_setaffinity's core: the running task moves to each CPU its mask
 * allows, at its next switch; a mask of no online CPU is refused.
 */
KTEST(sched, affinity_moves_running_task)
{
	unsigned int cpu;
	struct cpumask none = { 0 };

	if (num_online_cpus() < 2)
		KT_SKIP("needs 2 CPUs (qemu -smp)");
	for (int round = 0; round < 2; round++) {
		for_each_online_cpu(cpu) {
			KT_ASSERT_MSG(ktest_pin_cpu(cpu), "asked for CPU %u, runs on %u", cpu,
				      smp_processor_id());
			KT_ASSERT(current->cpu == (int)cpu);
		}
	}
	cpumask_set_cpu(nr_cpu_ids, &none);     /* a CPU that does not exist */
	KT_ASSERT(set_cpus_allowed_ptr(current, &none) == -EINVAL);
	KT_ASSERT(cpumask_test_cpu(smp_processor_id(), &current->cpus_mask));
}

struct where {
	struct completion done;
	int cpu;
};

static int report_cpu(void *arg)
{
	struct where *w = arg;

	w->cpu = (int)smp_processor_id();
	complete(&w->done);
	return 0;
}

/* A task's mask set before its wake-up decides where it runs. */
KTEST(sched, affinity_places_woken_task)
{
	unsigned int last = 0, cpu;

	if (num_online_cpus() < 2)
		KT_SKIP("needs 2 CPUs (qemu -smp)");
	for_each_online_cpu(cpu)
		last = cpu;
	for (unsigned int want = 0; want <= last; want += last) {
		struct cpumask m = { 0 };
		struct where w = { .cpu = -1 };
		struct task_struct *t;

		init_completion(&w.done);
		t = kthread_create(report_cpu, &w, "where/%u", want);
		KT_ASSERT(t != NULL);
		cpumask_set_cpu(want, &m);
		KT_ASSERT(set_cpus_allowed_ptr(t, &m) == 0);
		wake_up_process(t);
		wait_for_completion(&w.done);
		KT_ASSERT_MSG(w.cpu == (int)want, "pinned to CPU %u, ran on %d", want, w.cpu);
		if (!last)
			break;
	}
}
