// SPDX-License-Identifier: MIT
/*
 * debug.c - the backtrace and wait channel of a task that is not running
 * (include/spindle/sched_debug.h).
 *
 * Where it sits: beside the scheduler (core.c), read by the hung-task
 * detector (kernel/hung_task.c) and by anyone asking "where is this task
 * stuck?".  It only reads; it never changes a task.
 *
 * A task that is not running gave up the CPU in __schedule(), whose call
 * to __switch_to (kernel/arch/x86/switch.S) pushed the callee-saved
 * registers and saved the stack pointer in p->ksp.  So p->ksp points at a
 * struct inactive_task_frame, whose rbp is __schedule's frame pointer:
 * from there the frame-pointer chain runs up through schedule(), the sleep
 * primitive, and the code that chose to sleep, exactly as dump_backtrace
 * (kernel/ksyms.c) walks the running task's own stack.
 *
 * Rule for callers: p must not be freed under us (hold a reference).
 */
#include <spindle/sched_debug.h>
#include <spindle/sched.h>
#include <spindle/ksyms.h>
#include <spindle/printk.h>
#include <spindle/string.h>

#define SHOW_TASK_MAX_DEPTH     32      /* frames, as dump_backtrace */

/* What __switch_to leaves at p->ksp: its pushes, lowest address first. */
struct inactive_task_frame {
	unsigned long r15, r14, r13, r12, rbx;
	unsigned long rbp;              /* __schedule's frame */
	unsigned long ret_addr;         /* into __schedule */
};
_Static_assert(sizeof(struct inactive_task_frame) == 7 * sizeof(long),
	       "switch.S pushes six registers over the return address");

/*
 * The walk, with dump_backtrace's rules against a corrupt chain: every
 * frame must lie above the one before (the first above ksp), 8-byte
 * aligned, and wholly inside p's stack, p->stack .. p->stack + THREAD_SIZE;
 * a zero rbp (where kthread_create and boot.S start) or a zero return
 * address ends it.
 *
 * Under task_lock(p), which the exit path also takes to free the stack
 * (finish_task_switch()), so the stack cannot go away under the walk.  A
 * task on a CPU right now -- this one or another -- has no saved frame
 * to start from and gives none (Linux's try_get_task_stack() and
 * task_curr()).  It may start running while we read: the frames then
 * change under us, but every read stays inside its stack, so the worst
 * is a wrong trace, never a wrong read.  Printing comes after, from the
 * copy.
 */
unsigned int stack_trace_save_tsk(struct task_struct *p, unsigned long *store,
				  unsigned int size)
{
	const struct inactive_task_frame *f;
	unsigned long bottom, top, prev, rbp, ksp;
	unsigned int n = 0;

	task_lock(p);
	if (READ_ONCE(p->on_cpu) || !p->stack || size == 0)
		goto out;               /* running: no saved frame; exited: no stack */
	bottom = (unsigned long)p->stack;
	top = bottom + THREAD_SIZE;
	ksp = READ_ONCE(p->ksp);
	if (ksp < bottom || ksp > top - sizeof(*f) || (ksp & 7))
		goto out;
	f = (const struct inactive_task_frame *)ksp;
	store[n++] = f->ret_addr;

	prev = ksp;
	rbp = f->rbp;
	while (n < size) {
		const unsigned long *frame = (const unsigned long *)rbp;

		/* [rbp] is the caller's rbp, [rbp + 8] the return address;
		 * rbp == 0 fails the first test */
		if (rbp <= prev || (rbp & 7) || rbp > top - 2 * sizeof(long) || !frame[1])
			break;
		store[n++] = frame[1];
		prev = rbp;
		rbp = frame[0];
	}
out:
	task_unlock(p);
	return n;
}

/*
 * Which return addresses belong to the act of sleeping rather than to the
 * reason for it.  By symbol-name prefix, so that every variant counts
 * (schedule_timeout_uninterruptible, wait_for_completion_timeout, and
 * compiler clones such as "schedule_timeout.part.0"):
 *   - the scheduler: the switch, __schedule, schedule*, io_schedule*,
 *     yield, and the preemption paths preempt_schedule / irq_exit_preempt;
 *   - the sleep primitives: wait_for_completion* (and do_wait_for_common,
 *     their wait), mutex_lock*, msleep.
 * wait_event() is a macro, so it leaves no frame of its own: its caller is
 * the wait channel, as it should be.  (Linux marks these functions by
 * putting them in a .sched.text section instead.)  A new primitive that
 * sleeps on behalf of its caller belongs in this list.
 */
static const char *const sched_function_prefixes[] = {
	"__switch_to",
	"__schedule",
	"schedule",
	"io_schedule",
	"yield",
	"preempt_schedule",
	"irq_exit_preempt",
	"wait_for_completion",
	"do_wait_for_common",
	"mutex_lock",
	"msleep",
};

static bool in_sched_functions(unsigned long addr)
{
	unsigned long off, size;
	const char *name = ksym_lookup(addr, &off, &size);

	if (!name)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(sched_function_prefixes); i++) {
		const char *prefix = sched_function_prefixes[i];

		if (strncmp(name, prefix, strlen(prefix)) == 0)
			return true;
	}
	return false;
}

unsigned long get_wchan(struct task_struct *p)
{
	unsigned long trace[SHOW_TASK_MAX_DEPTH];
	unsigned int n;

	/* A runnable task waits for nothing but the CPU. */
	if (p == current || READ_ONCE(p->state) == TASK_RUNNING)
		return 0;
	n = stack_trace_save_tsk(p, trace, ARRAY_SIZE(trace));
	for (unsigned int i = 0; i < n; i++)
		if (!in_sched_functions(trace[i]))
			return trace[i];
	return 0;
}

void sched_show_task(struct task_struct *p)
{
	unsigned long trace[SHOW_TASK_MAX_DEPTH];
	unsigned int n;
	char sym[128];

	if (p == current) {
		dump_stack();
		return;
	}
	n = stack_trace_save_tsk(p, trace, ARRAY_SIZE(trace));
	printk(KERN_ERR "Call Trace:\n");
	if (n == 0 && !p->stack)
		printk(KERN_ERR " (none: the task has exited)\n");
	else if (n == 0)
		printk(KERN_ERR " (none: saved stack pointer %#lx is not on its stack)\n", p->ksp);
	for (unsigned int i = 0; i < n; i++) {
		ksym_snprint(sym, sizeof(sym), trace[i]);
		printk(KERN_ERR " [<%016lx>] %s\n", trace[i], sym);
	}
}
