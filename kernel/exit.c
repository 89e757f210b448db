// SPDX-License-Identifier: MIT
/*
 * exit.c - how a process ends: exit, the zombie, wait4 (docs/processes.md).
 *
 * A process that exits (exit(2), or killed by a signal) cannot vanish at
 * once: its parent is entitled to learn how it ended.  So exit frees what
 * it can right away -- the address space, the files, the SSE area -- and
 * keeps only its task_struct, as a *zombie* holding the wait4 status
 * word.  The parent's wait4() finds the zombie among its children, takes
 * the status and frees the rest ("reaping").
 *
 * A parent that exits first leaves orphans: they are given to pid 1
 * (init), whose job includes reaping them.  init itself must never exit:
 * signals it has no handler for are not delivered to it (signal.c), and
 * if it exits anyway the kernel panics, as Linux does.  When pid 1 is not a user
 * process (no /init, so the kernel runs alone) orphans have nobody and
 * reap themselves on exit.
 *
 * References: a task with a parent carries one extra reference
 * (get_task_struct), the parent's, dropped when it is reaped -- or at its
 * exit if by then it has no parent.  The scheduler drops the task's own
 * reference once it has switched away from it for the last time.
 *
 * Locking: the parent/children links and exit_state change with
 * interrupts off (one CPU; kill_pgrp() may run in an interrupt handler).
 */
#include <spindle/fs.h>
#include <spindle/err.h>
#include <spindle/process.h>
#include <spindle/mm_types.h>
#include <spindle/signal.h>
#include <spindle/syscalls.h>
#include <spindle/uaccess.h>
#include <spindle/sched.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include <spindle/mm.h>
#include <asm/pgtable.h>
#include <asm/cpu.h>

struct task_struct *init_process;


/* Free what a reaped zombie still holds; drop the parent's reference. */
static void release_task(struct task_struct *t)
{
	kfree(t->sighand);
	t->sighand = NULL;
	put_task_struct(t);
}

/* The process gives up its address space: back to the kernel's tables
 * first, since the CPU must never run on freed page tables. */
static void exit_mm(struct task_struct *t)
{
	struct mm_struct *mm = t->mm;
	unsigned long flags;

	if (!mm)
		return;
	flags = local_irq_save();
	t->mm = NULL;
	write_cr3(__pa(kernel_pml4));
	local_irq_restore(flags);
	mmput(mm);
}

/* Hand t's children to init (or to nobody); interrupts off. */
static void forget_children(struct task_struct *t)
{
	struct task_struct *c, *tmp;
	struct task_struct *reaper = init_process;

	if (reaper == t || (reaper && (reaper->exit_state || !reaper->mm)))
		reaper = NULL;
	list_for_each_entry_safe(c, tmp, &t->children, sibling) {
		list_del_init(&c->sibling);
		c->parent = reaper;
		if (reaper) {
			list_add_tail(&c->sibling, &reaper->children);
			if (c->exit_state == EXIT_ZOMBIE && reaper->state == TASK_INTERRUPTIBLE)
				wake_up_process(reaper);
		} else if (c->exit_state == EXIT_ZOMBIE) {
			c->exit_state = EXIT_DEAD;
			release_task(c);        /* a zombie nobody will reap */
		} else {
			put_task_struct(c);     /* no parent's reference any more */
		}
	}
}

void exit_process(struct task_struct *t, int code)
{
	unsigned long flags;

	if (!t->mm && !t->parent && !t->sighand && list_empty(&t->children))
		return;                         /* a kernel thread, nothing to do */
	/* pid 1 is the reaper of every orphan and holds the console: with it
	 * gone the machine can only sit idle.  Linux panics here, in these
	 * words, and so a test whose init dies fails at once. */
	if (t == init_process)
		panic("Attempted to kill init! exitcode=0x%08x", code);
	/* glibc's fork asked for this (CLONE_CHILD_CLEARTID): the word goes
	 * to 0 as the thread ends (Linux then wakes its futex; Spindle has no
	 * futexes, and no threads to wait on it) */
	if (t == current && t->clear_child_tid) {
		int zero = 0;

		(void)copy_to_user(t->clear_child_tid, &zero, sizeof(zero));
	}
	exit_mm(t);
	exit_files(t);
	fpu_free(t);

	flags = local_irq_save();
	exit_orphaned_pgrps(t);
	forget_children(t);
	t->wait_status = code;
	if (t->parent) {
		t->exit_state = EXIT_ZOMBIE;
		/* wake a parent sleeping in wait4 (and only such a sleep: a
		 * parent waiting for a disk must not be woken early) */
		if (t->parent->state == TASK_INTERRUPTIBLE)
			wake_up_process(t->parent);
		/* and tell it (ignored unless it has a handler: a shell's
		 * SIGCHLD handler ends its rt_sigsuspend) */
		send_sig(SIGCHLD, t->parent);
	} else {
		t->exit_state = EXIT_DEAD;
		if (t->sighand) {
			kfree(t->sighand);
			t->sighand = NULL;
		}
	}
	local_irq_restore(flags);
	if (init_process == t)
		init_process = NULL;
}

void do_group_exit(int status)
{
	do_exit(status);
}

long sys_exit(int error_code)
{
	do_group_exit(W_EXITCODE(error_code, 0));
}

long sys_exit_group(int error_code)
{
	do_group_exit(W_EXITCODE(error_code, 0));
}

/* Does child c match wait4's pid argument? */
static bool wait_match(struct task_struct *c, int pid)
{
	if (pid > 0)
		return c->pid == pid;
	if (pid == -1)
		return true;
	if (pid == 0)
		return c->pgid == current->pgid;
	return c->pgid == -pid;
}

long kernel_wait4(int pid, int *status, int options)
{
	might_sleep();
	/* WUNTRACED, WCONTINUED: report a child's stop or continue too, once
	 * each (job control, kernel/signal.c); the child stays unreaped */
	if (options & ~(WNOHANG | WUNTRACED | WCONTINUED))
		return -EINVAL;
	for (;;) {
		struct task_struct *c, *zombie = NULL;
		bool have_child = false;
		int jobctl;
		unsigned long flags = local_irq_save();

		list_for_each_entry(c, &current->children, sibling) {
			if (!wait_match(c, pid))
				continue;
			have_child = true;
			if (c->exit_state == EXIT_ZOMBIE) {
				zombie = c;
				break;
			}
			jobctl = wait_task_jobctl(c, options);
			if (jobctl) {
				local_irq_restore(flags);
				if (status)
					*status = jobctl;
				return c->pid;
			}
		}
		if (zombie) {
			list_del_init(&zombie->sibling);
			zombie->exit_state = EXIT_DEAD;
			zombie->parent = NULL;
			local_irq_restore(flags);
			pid = zombie->pid;
			if (status)
				*status = zombie->wait_status;
			release_task(zombie);
			return pid;
		}
		if (!have_child) {
			local_irq_restore(flags);
			return -ECHILD;
		}
		if (options & WNOHANG) {
			local_irq_restore(flags);
			return 0;
		}
		/* state first, then sleep: a child exiting in between sees us
		 * TASK_INTERRUPTIBLE and wakes us (sched.h's rule) */
		set_current_state(TASK_INTERRUPTIBLE);
		local_irq_restore(flags);
		if (current->sighand && signal_pending(current)) {
			__set_current_state(TASK_RUNNING);
			return -EINTR;
		}
		schedule();
	}
}

long sys_wait4(pid_t pid, int __user *stat_addr, int options, struct rusage __user *ru)
{
	int status = 0;
	long ret;

	if (pid == (pid_t)0x80000000)
		return -ESRCH;
	/* Check the pointer before reaping: a bad one must not lose a child. */
	if (stat_addr && !access_ok(stat_addr, sizeof(int)))
		return -EFAULT;
	if (ru && !access_ok(ru, 144))          /* sizeof(struct rusage) */
		return -EFAULT;
	ret = kernel_wait4(pid, &status, options);
	if (ret > 0 && stat_addr && copy_to_user(stat_addr, &status, sizeof(status)))
		return -EFAULT;
	if (ret > 0 && ru && clear_user(ru, 144))  /* no accounting: zeros */
		return -EFAULT;
	return ret;
}
