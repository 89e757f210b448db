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
	unsigned long free_before = nr_free_pages();

	KT_ASSERT(s != NULL);
	mutex_init(&s->lock);
	init_completion(&s->done);
	for (int i = 0; i < NR_THREADS; i++)
		KT_ASSERT(kthread_run(counter_thread, s, "counter/%d", i) != NULL);
	for (int i = 0; i < NR_THREADS; i++)
		wait_for_completion(&s->done);
	KT_ASSERT_MSG(s->counter == NR_THREADS * ROUNDS, "counter %lu, want %d",
		      s->counter, NR_THREADS * ROUNDS);
	KT_ASSERT(!mutex_is_locked(&s->lock));
	kfree(s);
	/* Let the exited threads be reaped (their stacks freed). */
	msleep(20);
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

	flag = 0;
	sleeper_woke = false;
	t = kthread_run(sleeper, &done, "sleeper");
	KT_ASSERT(t != NULL);
	msleep(20);
	/* It is asleep, not spinning, and has not seen the flag. */
	KT_ASSERT(!sleeper_woke);
	KT_ASSERT_MSG(t->state == TASK_UNINTERRUPTIBLE, "state %ld", t->state);
	flag = 1;
	wake_up(&flag_wq);
	wait_for_completion(&done);
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
	u64 switches;

	spin_stop = false;
	spins = 0;
	t = kthread_run(spinner, &done, "spinner");
	KT_ASSERT(t != NULL);
	get_task_struct(t);
	/* This test thread gets the CPU back only if the spinner is preempted. */
	msleep(50);
	KT_ASSERT(spins > 0);
	switches = t->nivcsw;
	spin_stop = true;
	wait_for_completion(&done);
	put_task_struct(t);
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
	u64 t0 = ktime_get_ns();

	KT_ASSERT(wait_for_completion_timeout(&never, msecs_to_jiffies(30)) == 0);
	/* A timeout counts jiffies from the last tick seen, and on a loaded
	 * host QEMU may deliver a tick a few ms late: only a rough lower bound
	 * holds (msleep, which checks the clock, is tested exactly in time). */
	KT_ASSERT(ktime_get_ns() - t0 >= 20 * NSEC_PER_MSEC);
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

	KT_ASSERT(t != NULL);
	msleep(5);
	KT_ASSERT(kthread_stop(t) == 42);
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

	mutex_init(&s.lock);
	init_completion(&s.done);
	mutex_lock(&s.lock);
	for (int i = 0; i < 4; i++) {
		args[i].s = &s;
		args[i].id = i;
		KT_ASSERT(kthread_run(fifo_waiter, &args[i], "fifo/%d", i) != NULL);
		msleep(5);      /* let it block on the mutex before starting the next */
	}
	mutex_unlock(&s.lock);
	for (int i = 0; i < 4; i++)
		wait_for_completion(&s.done);
	for (int i = 0; i < 4; i++)
		KT_ASSERT_MSG(s.order[i] == i, "position %d got waiter %d", i, s.order[i]);
}
