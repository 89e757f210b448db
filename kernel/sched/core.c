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
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include <spindle/blk_plug.h>
#include <spindle/process.h>
#include <spindle/loadavg.h>
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
	.refcount = 1,
};

DEFINE_PER_CPU(struct task_struct *, current_task) = &init_task;
DEFINE_PER_CPU(bool, __need_resched);
DEFINE_PER_CPU(unsigned int, __preempt_count);
LIST_HEAD(task_list);

static LIST_HEAD(wake_queue);             /* woken with budget left: run first */
static LIST_HEAD(run_queue);
static unsigned int nr_queued;
static int next_pid = 1;
static bool scheduler_running;

struct task_struct *__switch_to(unsigned long *prev_ksp, unsigned long next_ksp,
				struct task_struct *prev);
extern char ret_from_kthread[];

const char *current_comm(void)
{
	return current->comm;
}

unsigned int nr_running(void)
{
	return nr_queued + (current != &init_task);
}

/* a CPU's idle task: the boot task, or an application processor's
 * first (init_idle()); pid 0 on every CPU, as in Linux */
static bool is_idle(struct task_struct *p)
{
	return p->pid == 0;
}

/* Queue p; woken: it was asleep (wake_up_process), not preempted. */
static void enqueue_task(struct task_struct *p, bool woken)
{
	if (p->on_rq || is_idle(p))
		return;
	if (woken && p->time_slice) {
		list_add_tail(&p->run_list, &wake_queue);
	} else {
		p->time_slice = SCHED_TIMESLICE_MS * HZ / MSEC_PER_SEC;
		list_add_tail(&p->run_list, &run_queue);
	}
	p->on_rq = true;
	nr_queued++;
}

static struct task_struct *pick_next_task(void)
{
	struct list_head *q = list_empty(&wake_queue) ? &run_queue : &wake_queue;
	struct task_struct *p;

	if (list_empty(q))
		return &init_task;
	p = list_first_entry(q, struct task_struct, run_list);
	list_del_init(&p->run_list);
	p->on_rq = false;
	nr_queued--;
	return p;
}

void get_task_struct(struct task_struct *p)
{
	unsigned long flags = local_irq_save();

	p->refcount++;
	local_irq_restore(flags);
}

void put_task_struct(struct task_struct *p)
{
	unsigned long flags = local_irq_save();
	bool last = --p->refcount == 0;

	local_irq_restore(flags);
	if (last) {
		BUG_ON(p->state != TASK_DEAD || is_idle(p));
		kfree(p);
	}
}

/*
 * Runs in the new task right after the switch.  A task that died cannot
 * free its own stack while standing on it, so the task that runs after it
 * does it here.
 */
static void finish_task_switch(struct task_struct *prev)
{
	if (prev->state == TASK_DEAD) {
		list_del_init(&prev->tasks);
		kstack_free(prev->stack);
		prev->stack = NULL;
		put_task_struct(prev);
	}
}

/* The heart of it.  Interrupts are off; preempt: called because the
 * running task was preempted rather than because it wants to sleep. */
static void __schedule(bool preempt)
{
	struct task_struct *prev = current, *next;

	/* Tasks run on the boot CPU only, for now: the queues below are
	 * guarded by its interrupts being off, which keeps out no other CPU.
	 * The others idle and run the functions sent to them (kernel/smp.c)
	 * until each CPU has a run queue with its own lock. */
	BUG_ON(smp_processor_id() != 0);
	touch_softlockup_watchdog();    /* this CPU makes progress */

	if (prev->state == TASK_RUNNING || preempt) {
		if (!is_idle(prev))
			enqueue_task(prev, false);
		if (preempt)
			prev->nivcsw++;
	} else {
		prev->nvcsw++;
		prev->sleep_start = ktime_get_ns();
	}
	next = pick_next_task();
	this_cpu_write(__need_resched, false);
	if (next == prev)
		return;

	this_cpu_write(current_task, next);
	tss_set_rsp0((unsigned long)next->stack + THREAD_SIZE);
	/* the address space (CR3) and the user's SSE registers */
	switch_mm_fpu(prev, next);
	preempt_disable();                      /* nobody preempts a half-done switch */
	prev = __switch_to(&prev->ksp, next->ksp, prev);
	preempt_enable_no_resched();
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

void preempt_enable(void)
{
	preempt_enable_no_resched();
	if (unlikely(need_resched()) && preempt_count() == 0 && !irqs_disabled()) {
		unsigned long flags = local_irq_save();

		__schedule(true);
		local_irq_restore(flags);
	}
}

void yield(void)
{
	unsigned long flags = local_irq_save();

	__schedule(true);
	local_irq_restore(flags);
}

bool wake_up_process(struct task_struct *p)
{
	unsigned long flags = local_irq_save();
	bool woken = false;

	if (p->state != TASK_RUNNING && p->state != TASK_DEAD) {
		p->state = TASK_RUNNING;
		if (p != current)
			enqueue_task(p, true);
		woken = true;
	}
	if (is_idle(current) && nr_queued)
		this_cpu_write(__need_resched, true); /* the idle task gives way at once */
	local_irq_restore(flags);
	return woken;
}

/*
 * The load average's sample (include/spindle/loadavg.h): the tasks that
 * are running or runnable, and those in uninterruptible sleep -- waiting
 * for a disk, mostly; kernel threads idle for work sleep interruptibly
 * and do not count.  The idle task does not.  Every LOAD_FREQ, from the
 * tick (interrupts off, so the walk sees a still task list).
 */
static unsigned long calc_load_update = LOAD_FREQ;

static void calc_global_load_tick(void)
{
	struct task_struct *t;
	unsigned long nr_active = 0;

	if ((long)(jiffies - calc_load_update) < 0)
		return;
	calc_load_update += LOAD_FREQ;
	list_for_each_entry(t, &task_list, tasks)
		if (!is_idle(t) && (t->state == TASK_RUNNING || t->state == TASK_UNINTERRUPTIBLE))
			nr_active++;
	calc_global_load(nr_active);
}

void scheduler_tick(void)
{
	struct task_struct *p = current;

	calc_global_load_tick();

	if (is_idle(p)) {
		if (nr_queued)
			this_cpu_write(__need_resched, true);
	} else if (p->time_slice && --p->time_slice == 0) {
		this_cpu_write(__need_resched, true);
	}
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
	del_timer(&t.timer);
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
	preempt_enable_no_resched();            /* pairs with __schedule() */
	finish_task_switch(prev);
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
	p->state = TASK_UNINTERRUPTIBLE;        /* until wake_up_process() */
	p->refcount = 1;
	INIT_LIST_HEAD(&p->run_list);
	INIT_LIST_HEAD(&p->children);
	INIT_LIST_HEAD(&p->sibling);

	/* The top of the stack is the task's struct pt_regs (asm/ptrace.h);
	 * below it, the frame __switch_to pops: six callee-saved registers
	 * (rbp = 0 ends backtraces), then the return address. */
	sp = (unsigned long *)task_pt_regs(p);
	*--sp = (unsigned long)entry;
	for (int i = 0; i < 6; i++)
		*--sp = 0;
	p->ksp = (unsigned long)sp;

	flags = local_irq_save();
	p->pid = next_pid++;
	list_add_tail(&p->tasks, &task_list);
	local_irq_restore(flags);
	return p;
}

struct task_struct *find_task_by_pid(int pid)
{
	struct task_struct *p, *found = NULL;
	unsigned long flags = local_irq_save();

	list_for_each_entry(p, &task_list, tasks) {
		if (p->pid == pid && p->state != TASK_DEAD) {
			found = p;
			break;
		}
	}
	local_irq_restore(flags);
	return found;
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
 * The end of do_exit() (kernel/exit.c), as Linux's do_task_dead(): the
 * task is marked dead, a kthread_stop() waiting for it is woken, and the
 * switch away from it is the last; finish_task_switch() drops its
 * reference.
 */
void do_task_dead(void)
{
	struct task_struct *me = current;

	BUG_ON(is_idle(me));
	local_irq_disable();
	me->state = TASK_DEAD;
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
	idle->refcount = 1;
	scnprintf(idle->comm, sizeof(idle->comm), "swapper/%u", cpu);
	INIT_LIST_HEAD(&idle->run_list);
	INIT_LIST_HEAD(&idle->tasks);
	INIT_LIST_HEAD(&idle->children);
	INIT_LIST_HEAD(&idle->sibling);
	per_cpu(current_task, cpu) = idle;
	return idle;
}

void sched_init(void)
{
	INIT_LIST_HEAD(&init_task.run_list);
	list_add(&init_task.tasks, &task_list);
	scheduler_running = true;
}
