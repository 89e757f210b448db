// SPDX-License-Identifier: MIT
/*
 * core.c - tasks and the scheduler.
 *
 * One CPU, two FIFO lists of runnable tasks that are not running (the
 * running task is on neither): wake_queue, tasks woken with time left of
 * their slice, and run_queue, everyone else.  __schedule() picks the head
 * of wake_queue, else of run_queue (round robin); when both are empty the
 * idle task runs (the boot task, pid 0, "swapper" as in Linux), halting
 * the CPU until the next interrupt.
 *
 * Why a woken task goes first: it is usually woken because something it
 * waits for is ready -- a mutex it is to take, data in a pipe -- and others
 * may be waiting for what it does next.  At the tail of one round-robin
 * queue it would wait for every runnable task to have its turn first: with
 * a fork bomb's hundreds of runnable members that is seconds, and a mutex
 * handed from waiter to waiter (mutex.c) then moves one waiter per round
 * -- hundreds of rounds for its queue to drain, a machine that looks hung
 * (a test reading a pipe among them waited 20 minutes).  Linux's CFS does
 * the same with vruntime: a waking task is placed at the queue's smallest
 * vruntime and runs soon.  Starvation stays bounded as in CFS: a task's
 * slice is a budget, refilled only when it goes to the tail of run_queue
 * (preempted, or woken with none left), so between two turns at the tail
 * nobody runs more than one slice, woken or not.
 *
 * Who calls schedule():
 *   - a task that sleeps: it set its state to TASK_(UN)INTERRUPTIBLE first
 *     (wait queues, mutexes, completions, msleep all come here);
 *   - the exit path of an interrupt, when the tick has used up the running
 *     task's time slice (preemption; kernel/arch/x86/traps.c);
 *   - preempt_enable() / spin_unlock() when a switch became due while
 *     preemption was off.
 * A preempted task goes back on the queue whatever its state says: it may
 * have been just about to sleep, and must get to finish that itself.
 *
 * schedule() is the single place the CPU changes hands, so anything that
 * must happen before a task blocks hooks in here.
 */
#define pr_fmt(fmt) "sched: " fmt
#include <spindle/sched.h>
#include <spindle/spinlock.h>
#include <spindle/smp.h>
#include <spindle/sched_debug.h>
#include <spindle/mm.h>
#include <spindle/mm_types.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include <spindle/blk_plug.h>
#include <spindle/process.h>
#include <spindle/loadavg.h>
#include <spindle/uaccess.h>
#include <spindle/errno.h>
#include <spindle/syscalls.h>
#include <spindle/init.h>
#include "sched.h"
#include <asm/desc.h>
#include <asm/pgtable.h>
#include <asm/ptrace.h>

/* The boot task becomes the idle task; it runs on boot.S's stack. */
extern char boot_stack[];
static struct task_struct init_task = {
	.state = TASK_RUNNING,
	.pid = 0,
	.comm = "swapper",
	.stack = boot_stack,
	.usage = REFCOUNT_INIT(1),
	.on_rq = true,
	.on_cpu = 1,
	.pi_lock = __SPIN_LOCK_UNLOCKED(init_task.pi_lock),
	.alloc_lock = __SPIN_LOCK_UNLOCKED(init_task.alloc_lock),
	.cpus_mask = { .bits = 1 },             /* CPU 0's idle task */
	.group_leader = &init_task,
	.thread_group = LIST_HEAD_INIT(init_task.thread_group),
};

DEFINE_PER_CPU(struct task_struct *, current_task) = &init_task;
DEFINE_PER_CPU(bool, __need_resched);
DEFINE_PER_CPU(unsigned int, __preempt_count);
DEFINE_PER_CPU(struct rq, runqueues);
LIST_HEAD(task_list);
DEFINE_SPINLOCK(tasklist_lock);

static int next_pid = 1;
unsigned long total_forks;              /* tasks made since boot (/proc/stat) */
static bool scheduler_running;

struct task_struct *__switch_to(unsigned long *prev_ksp, unsigned long next_ksp,
				struct task_struct *prev);
extern char ret_from_kthread[];

const char *current_comm(void)
{
	return current->comm;
}

unsigned int nr_iowait_cpu(unsigned int cpu)
{
	return (unsigned int)atomic_read(&cpu_rq(cpu)->nr_iowait);
}

unsigned int nr_iowait(void)
{
	unsigned int cpu, n = 0;

	for_each_online_cpu(cpu)
		n += nr_iowait_cpu(cpu);
	return n;
}

u64 nr_context_switches(void)
{
	unsigned int cpu;
	u64 n = 0;

	for_each_online_cpu(cpu)
		n += READ_ONCE(cpu_rq(cpu)->nr_switches);
	return n;
}

unsigned int nr_running(void)
{
	unsigned int cpu, n = 0;

	for_each_online_cpu(cpu)
		n += READ_ONCE(cpu_rq(cpu)->nr_running);
	return n;
}

/* a CPU's idle task: the boot task, or an application processor's
 * first (init_idle()); pid 0 on every CPU, as in Linux */
static bool is_idle(struct task_struct *p)
{
	return p->pid == 0;
}

/*
 * Queue p to wait for rq's CPU.  woken: it was asleep (try_to_wake_up),
 * not preempted.  Called with rq->lock held; p is on_rq already (it was
 * running, or its waker just made it so).
 */
static void enqueue_task(struct rq *rq, struct task_struct *p, bool woken)
{
	assert_spin_locked(&rq->lock);
	BUG_ON(!list_empty(&p->run_list));      /* queued twice: a lost race */
	if (woken && p->time_slice) {
		list_add_tail(&p->run_list, &rq->wake_queue);
	} else {
		p->time_slice = msecs_to_jiffies(SCHED_TIMESLICE_MS);
		list_add_tail(&p->run_list, &rq->run_queue);
	}
}

static struct cpumask cpu_possible_bits(void);

static struct task_struct *pick_next_task(struct rq *rq)
{
	struct list_head *q = list_empty(&rq->wake_queue) ? &rq->run_queue : &rq->wake_queue;
	struct task_struct *p;

	if (list_empty(q))
		return rq->idle;
	p = list_first_entry(q, struct task_struct, run_list);
	list_del_init(&p->run_list);
	return p;
}

void get_task_struct(struct task_struct *p)
{
	refcount_inc(&p->usage);
}

void put_task_struct(struct task_struct *p)
{
	if (refcount_dec_and_test(&p->usage)) {
		BUG_ON(p->state != TASK_DEAD || is_idle(p));
		kfree(p);
	}
}

/*
 * Ask rq's CPU to pick again at its next chance (Linux's resched_curr()).
 * This CPU: set the flag; the interrupt exit or preempt_enable() acts on
 * it.  Another CPU: the flag is that CPU's, so set it there and send it a
 * RESCHEDULE_VECTOR IPI, whose exit acts on it -- an idle CPU wakes from
 * hlt for it.
 */
static void resched_curr(struct rq *rq)
{
	unsigned int cpu = rq->cpu;

	assert_spin_locked(&rq->lock);
	if (cpu == smp_processor_id()) {
		this_cpu_write(__need_resched, true);
		return;
	}
	if (READ_ONCE(per_cpu(__need_resched, cpu)))
		return;                         /* asked already */
	WRITE_ONCE(per_cpu(__need_resched, cpu), true);
	smp_send_reschedule(cpu);
}

void scheduler_ipi(void)
{
	/* The flag was set by the sender before the IPI; the interrupt's
	 * exit (irq_exit_preempt()) or the idle loop calls schedule().
	 * Only this CPU writes its count. */
	WRITE_ONCE(this_rq()->resched_ipis, this_rq()->resched_ipis + 1);
}

void sched_cpu_stats(unsigned int cpu, struct sched_cpu_stats *st)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long flags;

	spin_lock_irqsave(&rq->lock, flags);
	st->nr_running = rq->nr_running;
	st->nr_switches = rq->nr_switches;
	st->ttwu_count = rq->ttwu_count;
	st->ttwu_remote = rq->ttwu_remote;
	st->ttwu_runnable = rq->ttwu_runnable;
	st->resched_ipis = READ_ONCE(rq->resched_ipis);
	spin_unlock_irqrestore(&rq->lock, flags);
}

/*
 * The run queue's lock is held across the switch: taken by the task that
 * leaves, released by the one that arrives (Linux's prepare_lock_switch()
 * and finish_lock_switch()).  Lockdep keeps held locks per task, so the
 * hold moves from prev's list to next's.  The spinlock's own owner
 * record needs nothing: both run on this CPU.
 */
static void prepare_lock_switch(struct rq *rq)
{
	if (debug_locks)
		lock_release(&rq->lock);
}

static void finish_lock_switch(struct rq *rq)
{
	if (debug_locks)
		lock_acquire(&rq->lock.dep_map, rq->lock.name, &rq->lock, LD_SPINLOCK, 0, 0);
	__spin_release(&rq->lock, __FILE__, __LINE__);
	preempt_enable_no_resched();            /* pairs with __schedule()'s lock */
}

static unsigned int select_task_rq(struct task_struct *p);

/*
 * Queue p, which __schedule() took off a CPU it may no longer run on,
 * on one it may (Linux moves it with a stopper thread; here the switch
 * away from it is the moment).  Its state may not be TASK_RUNNING -- it
 * was preempted on its way to sleep -- so a wake-up may come first: it
 * finds p off every rq, queues it itself and clears migrate_pending;
 * pi_lock decides which of the two does.  After such a wake-up p may
 * have run, slept or died by the time we get here -- or run and been
 * taken off yet another CPU, which set migrate_pending again and may
 * still be switching away from it (on_cpu): that CPU's own
 * finish_task_switch() moves it then, and we must not queue it while its
 * stack is in use there.  So only a migrate_pending still set under the
 * lock with on_cpu clear says p is ours to move.  Interrupts off; the
 * caller holds a reference to p.
 */
static void migrate_task(struct task_struct *p)
{
	struct rq *rq;

	spin_lock(&p->pi_lock);
	if (p->migrate_pending && !p->on_rq && !smp_load_acquire(&p->on_cpu)) {
		p->migrate_pending = false;
		rq = cpu_rq(select_task_rq(p));
		spin_lock(&rq->lock);
		WRITE_ONCE(p->cpu, (int)rq->cpu);
		WRITE_ONCE(p->on_rq, true);
		rq->nr_running++;
		rq->nr_migrations++;
		enqueue_task(rq, p, false);
		if (is_idle(rq->curr))
			resched_curr(rq);
		spin_unlock(&rq->lock);
	}
	spin_unlock(&p->pi_lock);
}

/*
 * Runs in the new task right after the switch.  prev's stack is no longer
 * in use: only now may a waker on another CPU queue prev again (on_cpu,
 * try_to_wake_up()).  A task that died cannot free its own stack while
 * standing on it, so the task that runs after it does it here.
 *
 * prev's state is read before on_cpu drops, as Linux's finish_task_switch
 * reads prev_state: after it, a waker may queue prev on another CPU,
 * where it may run and exit -- and that CPU frees it.  Reading TASK_DEAD
 * then would free it a second time (a forkbomb killed at once did:
 * "kstack_free: (nil) is not a live stack").  For the same reason a
 * prev still to be migrated is held by a reference across the release.
 */
static void finish_task_switch(struct task_struct *prev)
{
	struct rq *rq = this_rq();
	unsigned int prev_state = READ_ONCE(prev->state);
	bool migrate = READ_ONCE(prev->migrate_pending);

	if (unlikely(migrate))
		get_task_struct(prev);
	smp_store_release(&prev->on_cpu, 0);
	finish_lock_switch(rq);
	if (unlikely(migrate)) {
		migrate_task(prev);
		put_task_struct(prev);
	}
	if (prev_state == TASK_DEAD) {
		void *stack;

		spin_lock(&tasklist_lock);      /* interrupts are off */
		list_del_init(&prev->tasks);
		spin_unlock(&tasklist_lock);
		/* stack_trace_save_tsk() may be reading it from another CPU */
		task_lock(prev);
		stack = prev->stack;
		prev->stack = NULL;
		task_unlock(prev);
		kstack_free(stack);
		put_task_struct(prev);
	}
}

/* The heart of it.  Interrupts are off; preempt: called because the
 * running task was preempted rather than because it wants to sleep. */
static void __schedule(bool preempt)
{
	struct rq *rq = this_rq();
	struct task_struct *prev, *next;

	touch_softlockup_watchdog();    /* this CPU makes progress */
	spin_lock(&rq->lock);
	prev = rq->curr;
	/*
	 * prev's state is read under the lock a waker takes to see on_rq
	 * (try_to_wake_up()): either the waker finds prev still on_rq and
	 * sets TASK_RUNNING first -- then prev stays -- or it finds prev
	 * off the queue and puts it back.  Nothing in between.
	 */
	if ((prev->state == TASK_RUNNING || preempt) && !is_idle(prev) &&
	    !cpumask_test_cpu(rq->cpu, &prev->cpus_mask)) {
		/* still runnable, but no longer allowed here: off this rq;
		 * finish_task_switch() queues it where it may run */
		WRITE_ONCE(prev->on_rq, false);
		rq->nr_running--;
		prev->migrate_pending = true;
		if (preempt)
			prev->nivcsw++;
	} else if (prev->state == TASK_RUNNING || preempt) {
		if (!is_idle(prev))
			enqueue_task(rq, prev, false);
		if (preempt)
			prev->nivcsw++;
	} else {
		WRITE_ONCE(prev->on_rq, false);         /* asleep */
		rq->nr_running--;
		if (prev->in_iowait)
			atomic_inc(&rq->nr_iowait);     /* until try_to_wake_up() */
		prev->sched_contributes_to_load = prev->state & TASK_UNINTERRUPTIBLE;
		if (prev->sched_contributes_to_load)
			atomic_inc(&rq->nr_uninterruptible);
		prev->nvcsw++;
		prev->sleep_start = ktime_get_ns();
	}
	next = pick_next_task(rq);
	this_cpu_write(__need_resched, false);
	if (next == prev) {
		spin_unlock(&rq->lock);
		return;
	}

	rq->nr_switches++;
	rq->curr = next;
	WRITE_ONCE(next->on_cpu, 1);
	prepare_lock_switch(rq);        /* while current is still prev */
	this_cpu_write(current_task, next);
	tss_set_rsp0((unsigned long)next->stack + THREAD_SIZE);
	/* the address space (CR3) and the user's SSE registers */
	switch_mm_fpu(prev, next);
	prev = __switch_to(&prev->ksp, next->ksp, prev);
	finish_task_switch(prev);
}

/*
 * Work a task must hand on before it blocks.  Its plug (Linux commit 73c101011926) may hold
 * I/O it is about to wait for: sent now, or it would wait forever.  Runs
 * before interrupts go off, because flushing submits I/O.  Preemption does
 * not come here: a preempted task is still runnable and will finish its
 * batch itself.
 */
static void sched_submit_work(struct task_struct *tsk)
{
	/* LAB 3 BEGIN */
	if (tsk->state != TASK_RUNNING && blk_needs_flush_plug(tsk))
		blk_flush_plug(tsk, true);
	/* LAB 3 END: (void)tsk; */
}

void schedule(void)
{
	unsigned long flags;

	if (unlikely(in_atomic()))
		panic("scheduling while atomic: %s, preempt_count %#x",
		      current->comm, preempt_count());
	sched_submit_work(current);
	flags = local_irq_save();
	__schedule(false);
	local_irq_restore(flags);
}

void io_schedule(void)
{
	blk_flush_plug(current, true);
	schedule();
}

void irq_exit_preempt(bool irqs_were_on)
{
	if (need_resched() && irqs_were_on && preempt_count() == 0)
		__schedule(true);
}

/* preempt_enable()'s way out (include/spindle/irqflags.h): a switch is due */
void preempt_schedule(void)
{
	if (preempt_count() == 0 && !irqs_disabled()) {
		unsigned long flags = local_irq_save();

		__schedule(true);
		local_irq_restore(flags);
	}
}

/*
 * A task that yields waits for something, most often for a task on
 * another CPU: a loop of sched_yield() is a spin-wait, and with nothing
 * else queued here __schedule() comes straight back, so it ends in a
 * cpu_relax() as a spin-wait does (see its comment: without it, QEMU's
 * -icount never ran the other CPU while a child spun on sched_yield()
 * for its SQPOLL thread there).
 */
void yield(void)
{
	unsigned long flags = local_irq_save();

	__schedule(true);
	local_irq_restore(flags);
	cpu_relax();
}

/* Nothing running and nothing queued: its idle task runs. */
static bool rq_idle(struct rq *rq)
{
	return is_idle(READ_ONCE(rq->curr)) && !READ_ONCE(rq->nr_running);
}

/*
 * The CPU a woken task is queued on (Linux's select_task_rq(), much
 * simplified): the one it last ran on if that is allowed and idle --
 * its cache may still hold its data -- else the allowed CPU with the
 * fewest tasks, the one it last ran on winning a tie.  The counts are
 * read unlocked: a moment's picture, as Linux's is; a CPU that turns out
 * busy is evened out by idle_balance().  No allowed CPU online (a mask
 * of CPUs that never came up): CPU 0, as Linux's select_fallback_rq().
 */
static unsigned int select_task_rq(struct task_struct *p)
{
	unsigned int prev = (unsigned int)READ_ONCE(p->cpu), cpu, best = nr_cpu_ids;
	unsigned int best_load = ~0u;

	if (cpumask_test_cpu(prev, &p->cpus_mask) && cpu_online(prev) && rq_idle(cpu_rq(prev)))
		return prev;
	for_each_online_cpu(cpu) {
		unsigned int load;

		if (!cpumask_test_cpu(cpu, &p->cpus_mask))
			continue;
		load = READ_ONCE(cpu_rq(cpu)->nr_running);
		if (load < best_load || (load == best_load && cpu == prev)) {
			best = cpu;
			best_load = load;
		}
	}
	return best < nr_cpu_ids ? best : 0;
}

/* Two run queues locked at once, the lower address first, so two CPUs
 * doing it never wait for each other (Linux's double_rq_lock()).
 * Interrupts off. */
static void double_rq_lock(struct rq *a, struct rq *b)
{
	if (a > b) {
		struct rq *t = a;

		a = b;
		b = t;
	}
	spin_lock(&a->lock);
	spin_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);
}

static void double_rq_unlock(struct rq *a, struct rq *b)
{
	spin_unlock(&a->lock);
	spin_unlock(&b->lock);
}

/* Move p, queued on src and not running, to dst's queue; both locked. */
static void move_queued_task(struct rq *src, struct rq *dst, struct task_struct *p)
{
	list_del_init(&p->run_list);
	src->nr_running--;
	WRITE_ONCE(p->cpu, (int)dst->cpu);
	dst->nr_running++;
	list_add_tail(&p->run_list, &dst->run_queue);
	if (is_idle(dst->curr))
		resched_curr(dst);
}

/*
 * An idle CPU takes a waiting task from the busiest run queue (Linux's
 * newidle balance, reduced to its core): wake-ups already go to idle
 * CPUs, but a task preempted on a busy CPU waits there while another
 * CPU idles -- until this, at that CPU's next tick or interrupt.
 */
bool idle_balance(void)
{
	struct rq *this = this_rq(), *busiest = NULL;
	unsigned int cpu, most = 1;
	struct task_struct *p;
	bool moved = false;

	if (READ_ONCE(this->nr_running))
		return false;
	for_each_online_cpu(cpu) {
		unsigned int n = READ_ONCE(cpu_rq(cpu)->nr_running);

		if (cpu != this->cpu && n > most) {     /* one running, others waiting */
			busiest = cpu_rq(cpu);
			most = n;
		}
	}
	if (!busiest)
		return false;
	double_rq_lock(this, busiest);
	/* the oldest waiter that may run here, woken ones first; a queued
	 * task is off its CPU (on_cpu drops before its rq's lock does) */
	for (int i = 0; i < 2 && !moved && !this->nr_running; i++) {
		struct list_head *q = i ? &busiest->run_queue : &busiest->wake_queue;

		list_for_each_entry(p, q, run_list) {
			if (cpumask_test_cpu(this->cpu, &p->cpus_mask)) {
				move_queued_task(busiest, this, p);
				this->nr_migrations++;
				moved = true;
				break;
			}
		}
	}
	double_rq_unlock(this, busiest);
	return moved;
}

/*
 * Wake p if its state is one of @state (Linux's try_to_wake_up(), the
 * same steps and names).  Any CPU, any context; p's pi_lock orders
 * wake-ups of one task among themselves, and the rq lock orders a wake-up
 * against p's own __schedule():
 *
 *   1. Under p->pi_lock, read p->state after a full barrier, which pairs
 *      with set_current_state()'s: a sleeper that set its state before
 *      testing the condition is seen sleeping by a waker that set the
 *      condition first.
 *   2. p still on_rq (it has not got through __schedule() yet, or was
 *      preempted): under its rq's lock, just set TASK_RUNNING; its
 *      __schedule() then keeps it (ttwu_runnable()).
 *   3. Otherwise p is asleep, but its CPU may still be switching away
 *      from it, on its stack: wait for on_cpu to drop, then queue it on
 *      the rq select_task_rq() picks and kick that CPU if it idles.
 */
static bool try_to_wake_up(struct task_struct *p, unsigned int state)
{
	unsigned int cpu = smp_processor_id();
	unsigned long flags;
	bool success = false;
	struct rq *rq;

	spin_lock_irqsave(&p->pi_lock, flags);
	smp_mb__after_spinlock();
	if (!(READ_ONCE(p->state) & state))
		goto out;
	success = true;

	if (READ_ONCE(p->on_rq)) {
		rq = task_rq(p);
		spin_lock(&rq->lock);
		if (p->on_rq) {
			WRITE_ONCE(p->state, TASK_RUNNING);
			rq->ttwu_count++;
			rq->ttwu_runnable++;
			if (rq->cpu != cpu)
				rq->ttwu_remote++;
			spin_unlock(&rq->lock);
			goto out;
		}
		spin_unlock(&rq->lock);
	}
	/* off the rq: its last switch may still be running on its CPU */
	while (smp_load_acquire(&p->on_cpu))
		cpu_relax();
	/* counted where it slept -- unless it did not sleep but was taken
	 * off a CPU it may no longer run on (migrate_task(), which waits
	 * for our pi_lock and then finds it queued) */
	if (!p->migrate_pending) {
		if (p->in_iowait)
			atomic_dec(&task_rq(p)->nr_iowait);
		if (p->sched_contributes_to_load)
			atomic_dec(&task_rq(p)->nr_uninterruptible);
	}
	p->migrate_pending = false;     /* placed here: migrate_task() has nothing to do */

	rq = cpu_rq(select_task_rq(p));
	spin_lock(&rq->lock);
	WRITE_ONCE(p->cpu, (int)rq->cpu);
	WRITE_ONCE(p->state, TASK_RUNNING);
	WRITE_ONCE(p->on_rq, true);
	rq->nr_running++;
	enqueue_task(rq, p, true);
	rq->ttwu_count++;
	if (rq->cpu != cpu)
		rq->ttwu_remote++;
	if (is_idle(rq->curr))
		resched_curr(rq);       /* the idle task gives way at once */
	spin_unlock(&rq->lock);
out:
	spin_unlock_irqrestore(&p->pi_lock, flags);
	return success;
}

bool wake_up_process(struct task_struct *p)
{
	return try_to_wake_up(p, TASK_NORMAL);
}

bool wake_up_state(struct task_struct *p, unsigned int state)
{
	return try_to_wake_up(p, state);
}

/*
 * idle=poll (Linux's boot option, arch/x86/kernel/process.c): the idle
 * task never halts; it spins, interrupts on, until there is work.  A
 * wake-up is then seen at once, without an interrupt to end a hlt --
 * and the CPU burns its time (and on a host, its core) doing nothing.
 * Linux offers it for measurements and for latency at any price; here
 * it is how docs/performance.md compares kernels at equal halts: under
 * -icount a halted CPU lets the virtual clock jump to its next timer.
 * idle=halt is the default.
 */
static bool cpu_idle_force_poll;

static int __init idle_setup(const char *val)
{
	if (!strcmp(val, "poll")) {
		pr_info("using polling idle threads\n");
		cpu_idle_force_poll = true;
	} else if (!strcmp(val, "halt")) {
		cpu_idle_force_poll = false;
	} else {
		return -EINVAL;
	}
	return 0;
}
__setup("idle=", idle_setup);

/*
 * Every CPU's idle task ends here (Linux's cpu_startup_entry() and
 * do_idle()): sleep until an interrupt, run it, and give way to a task
 * as soon as one is queued here -- or waits on a busier CPU, which
 * idle_balance() then takes.  The test and the halt are one step (sti;
 * hlt): a wake-up IPI between them ends the hlt at once.
 */
void cpu_startup_entry(void)
{
	for (;;) {
		local_irq_disable();
		touch_softlockup_watchdog();
		if (need_resched() || idle_balance()) {
			local_irq_enable();
			schedule();
		} else if (cpu_idle_force_poll) {
			local_irq_enable();     /* an interrupt may come in here */
			cpu_relax();            /* pause, then test again */
		} else {
			safe_halt();            /* sti; hlt: wake on the next interrupt */
		}
	}
}

/* p's run queue, locked; p cannot move off it meanwhile (Linux's
 * task_rq_lock(), with p->pi_lock already held). */
static struct rq *task_rq_lock(struct task_struct *p)
{
	for (;;) {
		struct rq *rq = task_rq(p);

		spin_lock(&rq->lock);
		if (rq == task_rq(p))
			return rq;
		spin_unlock(&rq->lock);         /* idle_balance() moved it */
	}
}

/* every CPU the machine may have (an AP that did not come up too) */
static struct cpumask cpu_possible_bits(void)
{
	struct cpumask m = { .bits = nr_cpu_ids >= 8 * sizeof(long) ? ~0ul : (1ul << nr_cpu_ids) - 1 };

	return m;
}

int set_cpus_allowed_ptr(struct task_struct *p, const struct cpumask *mask)
{
	struct cpumask m = cpu_possible_bits();
	unsigned long flags;
	struct rq *rq, *dst;

	m.bits &= mask->bits;
	if (!cpumask_intersects(&m, cpu_online_mask) || is_idle(p))
		return -EINVAL;
	spin_lock_irqsave(&p->pi_lock, flags);
	rq = task_rq_lock(p);
	WRITE_ONCE(p->cpus_mask.bits, m.bits);
	if (cpumask_test_cpu(rq->cpu, &m) || !p->on_rq) {
		/* allowed where it is, or asleep: its wake-up places it */
		spin_unlock(&rq->lock);
	} else if (rq->curr == p) {
		resched_curr(rq);               /* __schedule() moves it */
		spin_unlock(&rq->lock);
	} else {
		spin_unlock(&rq->lock);
		dst = cpu_rq(select_task_rq(p));
		double_rq_lock(rq, dst);
		/* as it was, unless rq picked it to run meanwhile (or it is
		 * already where it may be) */
		if (task_rq(p) == rq && p->on_rq && !cpumask_test_cpu(rq->cpu, &m)) {
			if (rq->curr == p)
				resched_curr(rq);
			else
				move_queued_task(rq, dst, p);
		}
		double_rq_unlock(rq, dst);
	}
	spin_unlock_irqrestore(&p->pi_lock, flags);
	return 0;
}

/* The task pid names (0: the caller), referenced; NULL if none. */
static struct task_struct *find_get_task_by_pid(pid_t pid)
{
	struct task_struct *p;
	unsigned long flags;

	if (!pid) {
		get_task_struct(current);
		return current;
	}
	spin_lock_irqsave(&tasklist_lock, flags);
	p = find_task_by_pid(pid);
	if (p)
		get_task_struct(p);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return p;
}

/*
 * sched_setaffinity(2): the CPUs pid may run on, as a bit mask of len
 * bytes (busybox's taskset).  Bits beyond the machine's CPUs are
 * ignored, as on Linux; a mask with no online CPU is EINVAL.
 */
long sys_sched_setaffinity(pid_t pid, unsigned int len, unsigned long __user *user_mask_ptr)
{
	struct cpumask m = { 0 };
	struct task_struct *p;
	long err;

	if (pid < 0)
		return -ESRCH;
	if (copy_from_user(&m.bits, user_mask_ptr, min_t(size_t, len, sizeof(m.bits))))
		return -EFAULT;
	p = find_get_task_by_pid(pid);
	if (!p)
		return -ESRCH;
	err = set_cpus_allowed_ptr(p, &m);
	put_task_struct(p);
	return err;
}

/*
 * sched_getaffinity(2): the mask, online CPUs only.  len must hold one
 * bit per possible CPU in whole longs (EINVAL otherwise); the return is
 * the bytes written, as the raw system call's is on Linux.
 */
long sys_sched_getaffinity(pid_t pid, unsigned int len, unsigned long __user *user_mask_ptr)
{
	struct task_struct *p;
	unsigned long bits;

	if (len * 8 < nr_cpu_ids || (len & (sizeof(unsigned long) - 1)))
		return -EINVAL;
	if (pid < 0)
		return -ESRCH;
	p = find_get_task_by_pid(pid);
	if (!p)
		return -ESRCH;
	bits = READ_ONCE(p->cpus_mask.bits) & cpu_online_mask->bits;
	put_task_struct(p);
	if (copy_to_user(user_mask_ptr, &bits, sizeof(bits)))
		return -EFAULT;
	return sizeof(bits);
}

/*
 * The load average's sample (include/spindle/loadavg.h): the tasks that
 * are running or runnable, and those in uninterruptible sleep -- waiting
 * for a disk, mostly; kernel threads idle for work sleep interruptibly
 * and do not count.  The idle task does not.  Every LOAD_FREQ, from CPU
 * 0's tick, summed from each run queue's counters -- no walk of the task
 * list in an interrupt (Linux folds per-CPU counts the same way,
 * calc_load_fold_active()).  Each counter is read once, unlocked: a
 * moment's sample, as Linux's is.
 */
static unsigned long calc_load_update = LOAD_FREQ;

static void calc_global_load_tick(void)
{
	long nr_active = 0;
	unsigned int cpu;

	if ((long)(jiffies - calc_load_update) < 0)
		return;
	calc_load_update += LOAD_FREQ;
	for_each_online_cpu(cpu) {
		struct rq *rq = cpu_rq(cpu);

		nr_active += READ_ONCE(rq->nr_running) + atomic_read(&rq->nr_uninterruptible);
	}
	calc_global_load(nr_active > 0 ? (unsigned long)nr_active : 0);
}

void scheduler_tick(void)
{
	struct rq *rq = this_rq();
	struct task_struct *p;

	if (smp_processor_id() == 0)
		calc_global_load_tick();        /* once per tick, not per CPU */

	/* An idle CPU with nothing queued has nothing to do, and takes no
	 * lock to find that out (a task queued meanwhile comes with a
	 * rescheduling IPI).  Under -icount every CPU's instructions are
	 * the guest's time: idle CPUs' ticks must cost next to nothing. */
	if (is_idle(READ_ONCE(rq->curr)) && !READ_ONCE(rq->nr_running))
		return;
	spin_lock(&rq->lock);
	p = rq->curr;
	if (is_idle(p)) {
		if (rq->nr_running)
			resched_curr(rq);
	} else if (p->time_slice && --p->time_slice == 0) {
		resched_curr(rq);
	}
	spin_unlock(&rq->lock);
}

/*
 * A function that may sleep was called where sleeping is not allowed --
 * even if this time it would not have slept.  Without lockdep: stop here.
 * With lockdep=1: Linux's report, with the locks held, and go on.
 */
void __might_sleep(const char *file, int line)
{
	if (!scheduler_running || !(in_atomic() || irqs_disabled()))
		return;
	if (debug_locks) {
		lockdep_might_sleep_bug(file, line);
		return;
	}
	panic("BUG: sleeping function called from invalid context at %s:%d "
	      "(preempt_count %#x, irqs %s)",
	      file, line, preempt_count(),
	      irqs_disabled() ? "off" : "on");
}

void __spin_lock_bug(spinlock_t *l, const char *file, int line, const char *what)
{
	int owner = READ_ONCE(l->owner_cpu) - 1;
	const char *owner_file = l->owner_file;

	if (owner >= 0 && owner_file)
		panic("BUG: spinlock %s: %s on CPU#%u at %s:%d (taken on CPU#%d at %s:%d)",
		      l->name, what, smp_processor_id(), file, line, owner, owner_file,
		      l->owner_line);
	panic("BUG: spinlock %s: %s on CPU#%u at %s:%d", l->name, what, smp_processor_id(),
	      file, line);
}

struct schedule_timeout_timer {
	struct timer_list timer;
	struct task_struct *task;
};

static void process_timeout(struct timer_list *t)
{
	wake_up_process(container_of(t, struct schedule_timeout_timer, timer)->task);
}

long schedule_timeout(long timeout)
{
	struct schedule_timeout_timer t;
	u64 expire;

	if (timeout == MAX_SCHEDULE_TIMEOUT) {
		schedule();
		return timeout;
	}
	if (timeout <= 0) {
		__set_current_state(TASK_RUNNING);
		return 0;
	}
	expire = jiffies + timeout;
	t.task = current;
	timer_setup(&t.timer, process_timeout);
	mod_timer(&t.timer, expire);
	schedule();
	/* the timer is on this stack: its function must be done with it */
	del_timer_sync(&t.timer);
	timeout = (long)(expire - jiffies);
	return timeout < 0 ? 0 : timeout;
}

long schedule_timeout_uninterruptible(long timeout)
{
	__set_current_state(TASK_UNINTERRUPTIBLE);
	return schedule_timeout(timeout);
}

/* --- kernel threads ---------------------------------------------------- */

void schedule_tail(struct task_struct *prev)
{
	finish_task_switch(prev);       /* what __schedule() does after the switch */
}

void kthread_entry(struct task_struct *prev)
{
	schedule_tail(prev);
	local_irq_enable();
	do_exit(current->threadfn(current->data));
}

struct task_struct *create_task(const char *comm, void *entry)
{
	struct task_struct *p = kzalloc(sizeof(*p), GFP_KERNEL);
	unsigned long *sp;
	unsigned long flags;

	if (!p)
		return NULL;
	p->stack = kstack_alloc();
	if (!p->stack) {
		kfree(p);
		return NULL;
	}
	strlcpy(p->comm, comm, sizeof(p->comm));
	p->start_time = ktime_get_ns();
	p->state = TASK_UNINTERRUPTIBLE;        /* until wake_up_process() */
	refcount_set(&p->usage, 1);
	spin_lock_init(&p->pi_lock);
	spin_lock_init(&p->alloc_lock);
	p->cpus_mask = cpu_possible_bits();     /* fork: the parent's, copy_process() */
	INIT_LIST_HEAD(&p->run_list);
	INIT_LIST_HEAD(&p->children);
	INIT_LIST_HEAD(&p->sibling);
	INIT_LIST_HEAD(&p->thread_group);
	p->group_leader = p;            /* a thread of CLONE_THREAD: copy_process() */

	/* The top of the stack is the task's struct pt_regs (asm/ptrace.h);
	 * below it, the frame __switch_to pops: six callee-saved registers
	 * (rbp = 0 ends backtraces), then the return address. */
	sp = (unsigned long *)task_pt_regs(p);
	*--sp = (unsigned long)entry;
	for (int i = 0; i < 6; i++)
		*--sp = 0;
	p->ksp = (unsigned long)sp;

	spin_lock_irqsave(&tasklist_lock, flags);
	p->pid = next_pid++;
	p->tgid = p->pid;
	total_forks++;
	list_add_tail(&p->tasks, &task_list);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return p;
}

struct task_struct *find_task_by_pid(int pid)
{
	struct task_struct *p;

	assert_spin_locked(&tasklist_lock);
	list_for_each_entry(p, &task_list, tasks)
		if (p->pid == pid && p->state != TASK_DEAD)
			return p;
	return NULL;
}

struct task_struct *kthread_create(int (*fn)(void *), void *data, const char *fmt, ...)
{
	char comm[TASK_COMM_LEN];
	struct task_struct *p;
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(comm, sizeof(comm), fmt, ap);
	va_end(ap);
	p = create_task(comm, ret_from_kthread);
	if (!p)
		return NULL;
	p->threadfn = fn;
	p->data = data;
	return p;
}

bool kthread_should_stop(void)
{
	return READ_ONCE(current->should_stop);
}

int kthread_stop(struct task_struct *k)
{
	int ret;

	might_sleep();
	get_task_struct(k);
	k->stopper = current;
	WRITE_ONCE(k->should_stop, true);
	wake_up_process(k);
	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (READ_ONCE(k->state) == TASK_DEAD)
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	ret = k->exit_code;
	put_task_struct(k);
	return ret;
}

/*
 * A kernel thread works in a process's address space (Linux's
 * kthread_use_mm): from here to kthread_unuse_mm() its user copies,
 * faults and pinned pages reach mm, as if it were one of the process's
 * threads -- io_uring's SQ thread reads and writes the buffers its SQEs
 * name.  The caller holds a user of mm (get_task_mm) until after
 * kthread_unuse_mm(), and mm must already be marked threaded (set before
 * the thread could run, by the process itself): loaded on two CPUs at
 * once, its PTEs are flushed from every CPU when they change
 * (kernel/mm/mmap.c).  Under task_lock(), as exit_mm() changes it; the
 * switch back to this task loads the same CR3 (switch_mm_fpu).
 */
void kthread_use_mm(struct mm_struct *mm)
{
	struct task_struct *tsk = current;
	unsigned long flags;

	BUG_ON(tsk->mm || !READ_ONCE(mm->threaded));
	task_lock(tsk);
	flags = local_irq_save();
	tsk->mm = mm;
	write_cr3(__pa(mm->pgd));
	local_irq_restore(flags);
	task_unlock(tsk);
}

/* Back to the kernel's page tables; the caller then drops its user of mm. */
void kthread_unuse_mm(struct mm_struct *mm)
{
	struct task_struct *tsk = current;
	unsigned long flags;

	BUG_ON(tsk->mm != mm);
	task_lock(tsk);
	flags = local_irq_save();
	tsk->mm = NULL;
	write_cr3(__pa(kernel_pml4));
	local_irq_restore(flags);
	task_unlock(tsk);
}

/*
 * The end of do_exit() (kernel/exit.c), as Linux's do_task_dead(): the
 * task is marked dead, a kthread_stop() waiting for it is woken, and the
 * switch away from it is the last; finish_task_switch() drops its
 * reference.
 *
 * TASK_DEAD is written under our own pi_lock, as Linux's
 * set_special_state() writes it.  A waker's try_to_wake_up() reads the
 * state and, later, writes TASK_RUNNING, all under that lock; a plain
 * store could fall between the two.  Say a kthread_stop() finds us still
 * TASK_UNINTERRUPTIBLE, just leaving a wait, and is held up there while
 * we exit: without the lock it would go on to find us off the run queue,
 * overwrite TASK_DEAD with TASK_RUNNING and queue us -- after
 * finish_task_switch() had freed our stack.  The next switch to us then
 * pops from an unmapped stack (a double fault in __switch_to).  With the
 * lock, a wake-up that has seen a sleeping state ends before TASK_DEAD
 * is written, and one that comes after sees TASK_DEAD and does nothing.
 */
void do_task_dead(void)
{
	struct task_struct *me = current;

	BUG_ON(is_idle(me));
	local_irq_disable();
	spin_lock(&me->pi_lock);
	WRITE_ONCE(me->state, TASK_DEAD);
	spin_unlock(&me->pi_lock);
	if (me->stopper)
		wake_up_process(me->stopper);
	__schedule(false);
	panic("do_exit: dead task %s ran again", me->comm);
}

/*
 * An application processor's idle task (Linux's init_idle()), running on
 * the stack smpboot.c gave that CPU: what current is there while it
 * idles or runs an interrupt.  Not on task_list: like the boot CPU's,
 * it is nobody's child and never exits.
 */
struct task_struct *init_idle(unsigned int cpu, void *stack)
{
	struct task_struct *idle = kzalloc(sizeof(*idle), GFP_KERNEL);

	if (!idle)
		return NULL;
	idle->state = TASK_RUNNING;
	idle->pid = 0;
	idle->stack = stack;
	refcount_set(&idle->usage, 1);
	spin_lock_init(&idle->pi_lock);
	spin_lock_init(&idle->alloc_lock);
	idle->cpu = (int)cpu;
	cpumask_set_cpu(cpu, &idle->cpus_mask);
	idle->on_rq = true;
	idle->on_cpu = 1;
	scnprintf(idle->comm, sizeof(idle->comm), "swapper/%u", cpu);
	INIT_LIST_HEAD(&idle->run_list);
	INIT_LIST_HEAD(&idle->tasks);
	INIT_LIST_HEAD(&idle->children);
	INIT_LIST_HEAD(&idle->sibling);
	INIT_LIST_HEAD(&idle->thread_group);
	idle->group_leader = idle;
	per_cpu(current_task, cpu) = idle;
	cpu_rq(cpu)->idle = idle;
	cpu_rq(cpu)->curr = idle;
	return idle;
}

/* Every possible CPU's run queue, empty: CPU 0 runs the boot task, the
 * others get their idle tasks from init_idle() as they come up. */
void sched_init(void)
{
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct rq *rq = cpu_rq(cpu);

		spin_lock_init(&rq->lock);
		atomic_set(&rq->nr_iowait, 0);
		atomic_set(&rq->nr_uninterruptible, 0);
		INIT_LIST_HEAD(&rq->wake_queue);
		INIT_LIST_HEAD(&rq->run_queue);
		rq->cpu = cpu;
	}
	cpu_rq(0)->idle = &init_task;
	cpu_rq(0)->curr = &init_task;
	INIT_LIST_HEAD(&init_task.run_list);
	list_add(&init_task.tasks, &task_list);
	scheduler_running = true;
}
