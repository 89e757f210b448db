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
 * the parent's pt_regs.
 *
 * vfork (and clone(CLONE_VM | CLONE_VFORK)) copies nothing: the child
 * runs on the parent's own address space (one more user of the mm) and
 * the parent sleeps until the child lets go of it -- by exec, which gives
 * the child a new mm, or by exit.  That is the whole contract a vfork
 * child keeps: it may write the parent's memory (busybox's spawn() tells
 * its parent that exec failed through a variable), it must not return
 * from the function that called vfork, and it ends with _exit or exec.
 * The parent's wait is killable, and only killable (Linux's
 * wait_for_vfork_done): SIGKILL or another fatal signal ends it, any
 * other signal stays pending until vfork returns.  Since the parent does
 * not run meanwhile, a vfork costs a task and no memory copy -- why a
 * shell on a machine without an MMU, and busybox on any, prefers it.
 *
 * clone(2) is how a C library forks: glibc's fork() is clone(SIGCHLD |
 * CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID, ...), which asks the kernel
 * to write the child's pid into the child's copy of the thread's tid
 * field.  It is also how a C library makes a thread: pthread_create()
 * passes CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD
 * | CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID |
 * CLONE_CHILD_CLEARTID, a stack of its own and its thread pointer.  Each
 * CLONE_ flag shares one thing instead of copying it:
 *
 *   CLONE_VM       the address space (mm_users counts the tasks on it)
 *   CLONE_FS       cwd and root (fs_struct)
 *   CLONE_FILES    the descriptor table (files_struct)
 *   CLONE_SIGHAND  the signal actions (sighand_struct; needs CLONE_VM)
 *   CLONE_THREAD   the thread group: the same tgid (getpid), the process-
 *                  wide pending signals and the group exit (signal_struct;
 *                  needs CLONE_SIGHAND).  A thread is nobody's child: it
 *                  is not waited for, and goes away as it exits.
 *   CLONE_SYSVSEM  System V semaphore undo lists: Spindle has none.
 *
 * Linux's validity rules, in Linux's order: CLONE_THREAD without
 * CLONE_SIGHAND, or CLONE_SIGHAND without CLONE_VM, is -EINVAL (a group
 * must agree on its handlers, and handlers are addresses in one mm).
 * clone3(2) takes the same flags in a struct clone_args (sys_clone3).
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
#include <spindle/uaccess.h>
#include <spindle/completion.h>
#include <asm/ptrace.h>
#include <asm/pgtable.h>


void (*fork_test_hook)(struct task_struct *child);

/* Make child a child of the current process (its group leader);
 * tasklist_lock held. */
static void link_child(struct task_struct *child)
{
	assert_spin_locked(&tasklist_lock);
	child->parent = current->group_leader;
	list_add_tail(&child->sibling, &current->group_leader->children);
	get_task_struct(child);                 /* the parent's, for wait4 */
}

/* Undo create_task() for a child that never ran.  Someone may still hold
 * a reference -- /proc found it on the task list -- so p->stack goes NULL
 * under task_lock() before the stack is freed: stack_trace_save_tsk()
 * (/proc/<pid>/stack) tests it under the same lock and must not walk a
 * freed stack. */
static void free_unborn(struct task_struct *p)
{
	unsigned long flags;
	void *stack;

	spin_lock_irqsave(&tasklist_lock, flags);
	list_del_init(&p->tasks);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	task_lock(p);
	stack = p->stack;
	p->stack = NULL;
	task_unlock(p);
	kstack_free(stack);
	exit_signal_state(p);
	kfree(p->fpu_state);
	p->state = TASK_DEAD;
	put_task_struct(p);
}

/* clone's flags (Linux's include/uapi/linux/sched.h) */
#define CSIGNAL 0x000000ff /* the signal sent to the parent at exit */
#define CLONE_VM 0x00000100
#define CLONE_FS 0x00000200
#define CLONE_FILES 0x00000400
#define CLONE_SIGHAND 0x00000800
#define CLONE_VFORK 0x00004000
#define CLONE_THREAD 0x00010000
#define CLONE_SYSVSEM 0x00040000
#define CLONE_SETTLS 0x00080000
#define CLONE_PARENT_SETTID 0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_CHILD_SETTID 0x01000000
#define CLONE_KNOWN (CSIGNAL | CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | \
		     CLONE_VFORK | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS | \
		     CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID)

static long copy_process(unsigned long clone_flags, unsigned long newsp,
			 int __user *parent_tid, int __user *child_tid, unsigned long tls);

long sys_fork(void)
{
	return copy_process(0, 0, NULL, NULL, 0);
}

long sys_vfork(void)
{
	return copy_process(CLONE_VM | CLONE_VFORK | SIGCHLD, 0, NULL, NULL, 0);
}

static long kernel_clone(unsigned long clone_flags, unsigned long newsp, int __user *parent_tid,
			 int __user *child_tid, unsigned long tls)
{
	if (clone_flags & ~CLONE_KNOWN)
		return -EINVAL;
	if ((clone_flags & CSIGNAL) && (clone_flags & CSIGNAL) != SIGCHLD)
		return -EINVAL; /* only SIGCHLD: wait4 reaps the rest too */
	/* Linux's copy_process(): a group shares its handlers, and
	 * handlers are addresses in one address space */
	if ((clone_flags & CLONE_THREAD) && !(clone_flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((clone_flags & CLONE_SIGHAND) && !(clone_flags & CLONE_VM))
		return -EINVAL;
	if (newsp >= USER_SPACE_END || tls >= USER_SPACE_END)
		return -EINVAL;
	return copy_process(clone_flags, newsp, parent_tid, child_tid, tls);
}

long sys_clone(unsigned long clone_flags, unsigned long newsp, int __user *parent_tid,
	       int __user *child_tid, unsigned long tls)
{
	return kernel_clone(clone_flags, newsp, parent_tid, child_tid, tls);
}

/* clone3's argument (Linux's struct clone_args, CLONE_ARGS_SIZE_VER0
 * = 64 bytes: the fields up to tls) */
struct clone_args {
	u64 flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};
#define CLONE_ARGS_SIZE_VER0 64

/*
 * clone3(args, size): clone's flags and pointers in a struct, the
 * signal apart, and the stack as a base and a size (the child's rsp is
 * their sum, x86's stack growing down).  The later fields (set_tid,
 * cgroup) and pidfds (CLONE_PIDFD) are not supported: a larger struct
 * must hold zeros there (-E2BIG otherwise, as Linux for fields it does
 * not know).
 */
long sys_clone3(void __user *uargs, size_t size)
{
	struct clone_args a;
	u64 stack = 0;

	if (size < CLONE_ARGS_SIZE_VER0 || size > PAGE_SIZE)
		return -EINVAL;
	if (copy_from_user(&a, uargs, sizeof(a)))
		return -EFAULT;
	for (size_t off = sizeof(a); off < size; off++) {
		char c;

		if (copy_from_user(&c, (char __user *)uargs + off, 1))
			return -EFAULT;
		if (c)
			return -E2BIG;
	}
	/* pidfd is read only with CLONE_PIDFD, which is not known here */
	if ((a.flags & CSIGNAL) || a.exit_signal > CSIGNAL ||
	    a.flags > 0xffffffffull)
		return -EINVAL;
	if ((a.stack == 0) != (a.stack_size == 0))
		return -EINVAL;
	if (a.stack) {
		if (a.stack >= USER_SPACE_END || a.stack_size > USER_SPACE_END - a.stack)
			return -EINVAL;
		stack = a.stack + a.stack_size;
	}
	return kernel_clone(a.flags | a.exit_signal, stack, (int __user *)a.parent_tid,
			    (int __user *)a.child_tid, a.tls);
}

/* The child's pid where the parent or the child asked for it.  A child
 * with an mm of its own: its copy is its own page, reached through the
 * direct map (the child is not running yet, its page tables are not
 * live).  A thread (CLONE_VM): the same memory as ours, a plain user copy. */
static int clone_settid(struct task_struct *child, unsigned long clone_flags,
			int __user *parent_tid, int __user *child_tid)
{
	if ((clone_flags & CLONE_PARENT_SETTID) &&
	    copy_to_user(parent_tid, &child->pid, sizeof(int)))
		return -EFAULT;
	if (clone_flags & CLONE_CHILD_SETTID) {
		unsigned long addr = (unsigned long)child_tid;
		char *page;

		if (addr >= USER_SPACE_END || (addr & (sizeof(int) - 1)))
			return -EFAULT;
		if (clone_flags & CLONE_VM) {
			if (copy_to_user(child_tid, &child->pid, sizeof(int)))
				return -EFAULT;
		} else {
			page = mm_get_page(child->mm, addr);
			if (!page)
				return -EFAULT;
			*(int *)(page + (addr & ~PAGE_MASK)) = child->pid;
		}
	}
	if (clone_flags & CLONE_CHILD_CLEARTID)
		child->clear_child_tid = child_tid;
	return 0;
}

/* The child's sighand and signal_struct: the parent's, one more user
 * (CLONE_SIGHAND, CLONE_THREAD), or copies -- the actions as the
 * parent's, nothing pending. */
static int copy_signal_state(struct task_struct *child, unsigned long clone_flags)
{
	struct task_struct *parent = current;
	unsigned long flags;

	if (!(clone_flags & CLONE_SIGHAND)) {
		child->sighand = kmalloc(sizeof(*child->sighand), GFP_KERNEL);
		if (!child->sighand)
			return -ENOMEM;
		spin_lock_irqsave(&tasklist_lock, flags);
		*child->sighand = *parent->sighand;
		spin_unlock_irqrestore(&tasklist_lock, flags);
		child->sighand->count = 1;
	}
	if (!(clone_flags & CLONE_THREAD)) {
		child->signal = kzalloc(sizeof(*child->signal), GFP_KERNEL);
		if (!child->signal)
			return -ENOMEM;
		child->signal->count = 1;
		atomic_set(&child->signal->live, 1);
		itimer_init(child->signal);     /* a child has no alarm (POSIX) */
	}
	spin_lock_irqsave(&tasklist_lock, flags);
	if (clone_flags & CLONE_SIGHAND) {
		child->sighand = parent->sighand;
		child->sighand->count++;
	}
	if (clone_flags & CLONE_THREAD) {
		child->signal = parent->signal;
		child->signal->count++;
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return 0;
}

void complete_vfork_done(struct task_struct *t)
{
	struct completion *vfork;

	/* taken, cleared and completed under task_lock(), which the parent's
	 * give-up in wait_for_vfork_done() takes too: the completion lives on
	 * the parent's stack, and a parent killed on another CPU must not
	 * return from that frame while we complete it (Linux's
	 * complete_vfork_done()) */
	task_lock(t);
	vfork = t->vfork_done;
	t->vfork_done = NULL;
	if (vfork)
		complete(vfork);
	task_unlock(t);
}

/*
 * The vfork parent: asleep until the child execs or exits, or we are
 * killed (Linux's wait_for_completion_killable: a fatal signal ends the
 * sleep; any other wakes it, and it sleeps again, the signal pending
 * until vfork returns).  The child cannot be reaped meanwhile (we are
 * its parent, and busy here), so it needs no reference of ours.
 */
static void wait_for_vfork_done(struct task_struct *child, struct completion *vfork)
{
	bool done = false;

	wait_event_interruptible(vfork->wait, (done = try_wait_for_completion(vfork)) ||
						      fatal_signal_pending(current));
	if (done)
		return;
	/* killed: the child runs on, and must not complete a completion
	 * whose stack frame is gone (it may have completed it just now) */
	task_lock(child);
	child->vfork_done = NULL;
	task_unlock(child);
}

static long copy_process(unsigned long clone_flags, unsigned long newsp,
			 int __user *parent_tid, int __user *child_tid, unsigned long tls)
{
	struct task_struct *parent = current, *child;
	struct completion vfork;
	struct pt_regs *regs;
	unsigned long flags;
	int err = -ENOMEM;
	int pid;

	if (!parent->mm || !parent->signal)
		return -EINVAL;
	if (fatal_signal_pending(parent))
		return -EINTR;                  /* dying: no child to outlive us */
	child = create_task(parent->comm, ret_from_fork);
	if (!child)
		return -ENOMEM;
	if (fork_test_hook)
		fork_test_hook(child);
	if (copy_signal_state(child, clone_flags) || fpu_copy_current(child))
		goto fail;
	child->sig_blocked = parent->sig_blocked;
	child->cpus_mask = parent->cpus_mask;   /* taskset's child runs where it may */
	child->pgid = parent->pgid;
	child->sid = parent->sid;
	child->umask = parent->umask;
	child->nice = parent->nice;
	child->mempolicy = parent->mempolicy;
	child->sas_ss_sp = parent->sas_ss_sp;
	child->sas_ss_size = parent->sas_ss_size;
	child->fsbase = (clone_flags & CLONE_SETTLS) ? tls : parent->fsbase;

	/* the registers: the parent's, as saved by entry_SYSCALL_64 */
	regs = task_pt_regs(child);
	*regs = *task_pt_regs(parent);
	regs->rax = 0;                          /* the child's fork() returns 0 */
	if (newsp)
		regs->rsp = newsp; /* clone's own stack for the child */

	if (clone_flags & CLONE_VM) {
		/* vfork or a thread: the same address space, one more user */
		mmget(parent->mm);
		child->mm = parent->mm;
		if (!(clone_flags & CLONE_VFORK))
			WRITE_ONCE(parent->mm->threaded, true);
	} else {
		/* under the mmap_lock: another thread of ours must not
		 * change the VMAs while they are copied */
		mutex_lock(&parent->mm->mmap_lock);
		child->mm = dup_mm(parent->mm);
		mutex_unlock(&parent->mm->mmap_lock);
		if (!child->mm)
			goto fail;
	}
	err = clone_settid(child, clone_flags, parent_tid, child_tid);
	if (!err)
		err = copy_files(child, parent, clone_flags & CLONE_FILES, clone_flags & CLONE_FS);
	if (err) {
		mmput(child->mm);
		child->mm = NULL;
		goto fail;
	}
	/*
	 * The moment the child becomes a process others can signal.  A kill
	 * of our group that came while we were copying found the child not
	 * yet in it (or only half made) and left it out -- but it did reach
	 * us.  So test for it here, under tasklist_lock, in the same step as
	 * linking: a kill before this point is pending in the parent and the
	 * child is thrown away; a kill after it finds the child complete in
	 * the group (kill walks the task list under the same lock, so it is
	 * atomic against this).  Without it a fork bomb's members keep
	 * appearing after `kill(-pgrp, SIGKILL)`.  Linux's copy_process()
	 * makes the same test under tasklist_lock -- and for a thread, that
	 * no group exit has begun (it would not find the new thread).
	 */
	spin_lock_irqsave(&tasklist_lock, flags);
	if (fatal_signal_pending(parent) || (parent->signal->flags & SIGNAL_GROUP_EXIT) ||
	    parent->signal->group_exec_task) {
		spin_unlock_irqrestore(&tasklist_lock, flags);
		exit_files(child);
		mmput(child->mm);
		child->mm = NULL;
		err = -EINTR;
		goto fail;
	}
	if (clone_flags & CLONE_VFORK) {
		init_completion(&vfork);
		child->vfork_done = &vfork;
	}
	if (clone_flags & CLONE_THREAD) {
		/* a thread of our group: nobody's child, reaped as it exits */
		child->tgid = parent->tgid;
		child->group_leader = parent->group_leader;
		list_add_tail(&child->thread_group, &parent->group_leader->thread_group);
		atomic_inc(&child->signal->live);
		get_task_struct(child->group_leader); /* until this thread exits */
	} else {
		/* a process: the child of our whole group (any thread's
		 * wait4 may reap it), linked to the group's leader */
		link_child(child);
	}
	wake_up_process(child);
	pid = child->pid;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	if (clone_flags & CLONE_VFORK)
		wait_for_vfork_done(child, &vfork);
	return pid;
fail:
	free_unborn(child);
	return err;
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
	unsigned long flags;
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
	spin_lock_irqsave(&tasklist_lock, flags);
	link_child(child);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	wake_up_process(child);
	return child->pid;
}
