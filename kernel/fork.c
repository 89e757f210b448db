// SPDX-License-Identifier: MIT
/*
 * fork.c - new processes: fork(2), and user_spawn() for the kernel.
 *
 * fork makes the child a copy of the caller: the same registers (but rax
 * = 0, so the child sees fork() return 0), a copy of the address space
 * (eager: every present page copied now, kernel/mm/mmap.c says why), the
 * signal actions and mask, the process group and session, and -- from fs
 * -- a duplicate of the descriptor table.  The child starts in
 * ret_from_fork (entry.S), which leaves for user mode from its copy of
 * the parent's pt_regs.  vfork is fork here (the copy is eager anyway).
 */
#include <spindle/fs.h>
#include <spindle/err.h>
#include <spindle/process.h>
#include <spindle/mm_types.h>
#include <spindle/signal.h>
#include <spindle/syscalls.h>
#include <spindle/sched.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include <spindle/mm.h>
#include <asm/ptrace.h>
#include <asm/pgtable.h>


void (*fork_test_hook)(struct task_struct *child);

/* Make child a child of the current task; interrupts off inside. */
static void link_child(struct task_struct *child)
{
	unsigned long flags = local_irq_save();

	child->parent = current;
	list_add_tail(&child->sibling, &current->children);
	get_task_struct(child);                 /* the parent's, for wait4 */
	local_irq_restore(flags);
}

/* Undo create_task() for a child that never ran.  Someone may still hold
 * a reference -- /proc found it on the task list -- so p->stack goes NULL
 * before the stack is freed, with interrupts off: stack_trace_save_tsk()
 * (/proc/<pid>/stack) tests it the same way and must not walk a freed
 * stack. */
static void free_unborn(struct task_struct *p)
{
	unsigned long flags = local_irq_save();
	void *stack = p->stack;

	list_del_init(&p->tasks);
	p->stack = NULL;
	local_irq_restore(flags);
	kstack_free(stack);
	kfree(p->sighand);
	kfree(p->fpu_state);
	p->state = TASK_DEAD;
	put_task_struct(p);
}

long sys_fork(void)
{
	struct task_struct *parent = current, *child;
	struct pt_regs *regs;
	unsigned long flags;
	int err = -ENOMEM;

	if (!parent->mm)
		return -EINVAL;
	if (fatal_signal_pending(parent))
		return -EINTR;                  /* dying: no child to outlive us */
	child = create_task(parent->comm, ret_from_fork);
	if (!child)
		return -ENOMEM;
	if (fork_test_hook)
		fork_test_hook(child);
	child->sighand = kmalloc(sizeof(*child->sighand), GFP_KERNEL);
	if (!child->sighand || fpu_copy_current(child))
		goto fail;
	*child->sighand = *parent->sighand;
	child->sig_blocked = parent->sig_blocked;
	child->pgid = parent->pgid;
	child->sid = parent->sid;

	/* the registers: the parent's, as saved by entry_SYSCALL_64 */
	regs = task_pt_regs(child);
	*regs = *task_pt_regs(parent);
	regs->rax = 0;                          /* the child's fork() returns 0 */

	child->mm = dup_mm(parent->mm);
	if (!child->mm)
		goto fail;
	err = copy_files(child, parent);
	if (err) {
		mmput(child->mm);
		child->mm = NULL;
		goto fail;
	}
	/*
	 * The moment the child becomes a process others can signal.  A kill
	 * of our group that came while we were copying found the child not
	 * yet in it (or only half made) and left it out -- but it did reach
	 * us.  So test for it here, with interrupts off, in the same step as
	 * linking: a kill before this point is pending in the parent and the
	 * child is thrown away; a kill after it finds the child complete in
	 * the group (kill walks the task list with interrupts off, so it is
	 * atomic against this).  Without it a fork bomb's members keep
	 * appearing after `kill(-pgrp, SIGKILL)`.  Linux's copy_process()
	 * makes the same test under tasklist_lock.
	 */
	flags = local_irq_save();
	if (fatal_signal_pending(parent)) {
		local_irq_restore(flags);
		exit_files(child);
		mmput(child->mm);
		child->mm = NULL;
		err = -EINTR;
		goto fail;
	}
	link_child(child);
	wake_up_process(child);
	local_irq_restore(flags);
	return child->pid;
fail:
	free_unborn(child);
	return err;
}

long sys_vfork(void)
{
	return sys_fork();
}

/* --- processes started by the kernel ---------------------------------- */

#define SPAWN_MAX_ARGS  8
#define SPAWN_BUF       512

struct spawn_args {
	char buf[SPAWN_BUF];            /* path, then the argument strings */
	int argc;
};

/* The new task: exec the program; returns only if that failed. */
static int spawn_thread(void *data)
{
	struct spawn_args a = *(struct spawn_args *)data;   /* own copy, on this stack */
	const char *argv[SPAWN_MAX_ARGS + 1];
	char *p = a.buf + strlen(a.buf) + 1;
	int err;

	kfree(data);
	for (int i = 0; i < a.argc; i++, p += strlen(p) + 1)
		argv[i] = p;
	argv[a.argc] = NULL;
	err = kernel_execve(a.buf, argv, NULL);
	printk(KERN_INFO "spawn: cannot execute %s: error %d\n", a.buf, err);
	return W_EXITCODE(127, 0);      /* the wait4 status, as a shell's */
}

int user_spawn(const char *path, const char *const argv[])
{
	struct spawn_args *a = kzalloc(sizeof(*a), GFP_KERNEL);
	struct task_struct *child;
	size_t used;
	int err;

	if (!a)
		return -ENOMEM;
	used = strlcpy(a->buf, path, SPAWN_BUF) + 1;
	for (; argv && argv[a->argc]; a->argc++) {
		if (a->argc == SPAWN_MAX_ARGS || used >= SPAWN_BUF) {
			kfree(a);
			return -E2BIG;
		}
		used += strlcpy(a->buf + used, argv[a->argc], SPAWN_BUF - used) + 1;
	}
	if (used > SPAWN_BUF) {
		kfree(a);
		return -E2BIG;
	}
	child = kthread_create(spawn_thread, a, "spawn");
	if (!child) {
		kfree(a);
		return -ENOMEM;
	}
	/* its own session and group, as a daemon's */
	child->pgid = child->sid = child->pid;
	err = init_task_files(child);
	if (err) {
		kfree(a);
		free_unborn(child);
		return err;
	}
	link_child(child);
	wake_up_process(child);
	return child->pid;
}
