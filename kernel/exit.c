// SPDX-License-Identifier: MIT
/*
 * exit.c - how a task ends: do_exit, and for a process exit, the zombie,
 * wait4 and waitid (docs/processes.md).
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
 * Threads (kernel/fork.c, docs/processes.md "Threads").  exit(2) ends
 * one thread, exit_group(2) -- and a fatal signal -- the whole group:
 * every other thread is sent SIGKILL (zap_other_threads) and exits on
 * its own way out of the kernel.  A thread other than the leader is
 * nobody's child: it goes away as it exits (Linux's autoreap).  The
 * process ends with its last thread (signal->live reaches 0, the group
 * is dead): only then do its children go to init and its group leader
 * -- a zombie since it exited, maybe long before -- is reported to the
 * parent, once, with SIGCHLD (Linux's delay_group_leader()).  A thread
 * that asked for it (CLONE_CHILD_CLEARTID, set_tid_address) has its tid
 * word cleared and a futex waiter on it woken: pthread_join's wake-up.
 *
 * Locking: the parent/children links, exit_state and wait_status change
 * under tasklist_lock, which wait4 holds while it looks at its children
 * and kill while it walks the task list: a child exiting on another CPU
 * is either wholly a zombie to them or not yet one.
 */
#include <spindle/fs.h>
#include <spindle/err.h>
#include <spindle/process.h>
#include <spindle/mm_types.h>
#include <spindle/signal.h>
#include <spindle/syscalls.h>
#include <spindle/uaccess.h>
#include <spindle/sched.h>
#include <spindle/aio.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include <spindle/mm.h>
#include <spindle/blk_plug.h>
#include <asm/pgtable.h>
#include <asm/cpu.h>
#include <spindle/futex.h>

/* struct rusage, as Linux's x86-64 ABI has it */
struct rusage {
	struct __kernel_old_timeval ru_utime, ru_stime;
	long ru_maxrss;                 /* KiB */
	long ru_ixrss, ru_idrss, ru_isrss, ru_minflt, ru_majflt, ru_nswap;
	long ru_inblock, ru_oublock, ru_msgsnd, ru_msgrcv, ru_nsignals;
	long ru_nvcsw, ru_nivcsw;
};
#define RUSAGE_SIZE sizeof(struct rusage)
#define RUSAGE_SELF     0
#define RUSAGE_CHILDREN (-1)
#define RUSAGE_THREAD   1

static void usage_add(struct task_usage *sum, const struct task_usage *u)
{
	sum->utime += u->utime;
	sum->stime += u->stime;
	sum->nvcsw += u->nvcsw;
	sum->nivcsw += u->nivcsw;
}

static void usage_add_task(struct task_usage *sum, const struct task_struct *t)
{
	struct task_usage u = {
		.utime = READ_ONCE(t->utime), .stime = READ_ONCE(t->stime),
		.nvcsw = READ_ONCE(t->nvcsw), .nivcsw = READ_ONCE(t->nivcsw),
	};

	usage_add(sum, &u);
}

/* What the process of leader has used: its threads, those gone too
 * (Linux's thread_group_cputime).  tasklist_lock held. */
static void process_usage(struct task_struct *leader, struct task_usage *u)
{
	struct task_struct *t;

	*u = leader->signal ? leader->signal->dead : (struct task_usage){ 0 };
	usage_add_task(u, leader);
	list_for_each_entry(t, &leader->thread_group, thread_group)
		usage_add_task(u, t);
}

static struct rusage usage_to_rusage(const struct task_usage *u, unsigned long rss_pages)
{
	return (struct rusage){
		.ru_utime = { (long)(u->utime / NSEC_PER_SEC), (long)(u->utime % NSEC_PER_SEC / 1000) },
		.ru_stime = { (long)(u->stime / NSEC_PER_SEC), (long)(u->stime % NSEC_PER_SEC / 1000) },
		.ru_maxrss = (long)(rss_pages * (PAGE_SIZE / 1024)),
		.ru_nvcsw = (long)u->nvcsw,
		.ru_nivcsw = (long)u->nivcsw,
	};
}

struct task_struct *init_process;


/* Free what a reaped zombie still holds; drop the parent's reference.
 * tasklist_lock held. */
static void release_task(struct task_struct *t)
{
	__exit_signal_state(t);
	put_task_struct(t);
}

/* The process gives up its address space: back to the kernel's tables
 * first, since the CPU must never run on freed page tables.  A vfork
 * child's mm is its parent's: mmput() only drops the child's use, and
 * the parent, waiting for this moment, goes on. */
static void exit_mm(struct task_struct *t)
{
	struct mm_struct *mm = t->mm;

	if (!mm)
		return;
	/* under task_lock(): get_task_mm() on another CPU (/proc/<pid>/...)
	 * sees the mm or NULL, never one being freed (Linux's exit_mm()) */
	task_lock(t);
	t->mm = NULL;
	write_cr3(__pa(kernel_pml4));
	task_unlock(t);
	complete_vfork_done(t);
	mmput(mm);
}

/* Hand t's children to init (or to nobody); tasklist_lock held. */
static void forget_children(struct task_struct *t)
{
	struct task_struct *c, *tmp;
	struct task_struct *reaper = init_process;

	if (reaper == t || (reaper && (reaper->exit_state || !reaper->mm ||
				       !atomic_read(&reaper->signal->live))))
		reaper = NULL;
	list_for_each_entry_safe(c, tmp, &t->children, sibling) {
		list_del_init(&c->sibling);
		c->parent = reaper;
		if (reaper) {
			list_add_tail(&c->sibling, &reaper->children);
			if (c->exit_state == EXIT_ZOMBIE)
				wake_up_state(reaper, TASK_INTERRUPTIBLE);
		} else if (c->exit_state == EXIT_ZOMBIE) {
			c->exit_state = EXIT_DEAD;
			release_task(c);        /* a zombie nobody will reap */
		} else {
			put_task_struct(c);     /* no parent's reference any more */
		}
	}
}

/*
 * What the thread's C library asked for at its exit: the tid word
 * (CLONE_CHILD_CLEARTID, set_tid_address) goes to 0 and one waiter in
 * FUTEX_WAIT on it is woken -- pthread_join() sleeps there -- and the
 * mutexes on its robust list are marked FUTEX_OWNER_DIED (Linux's
 * mm_release() and exit_robust_list()).  Before the mm goes.
 */
static void exit_user_futexes(struct task_struct *t)
{
	int __user *tid = t->clear_child_tid;
	int zero = 0;

	if (t != current || !t->mm)
		return;
	exit_robust_list(t);
	if (!tid)
		return;
	t->clear_child_tid = NULL;
	if (!copy_to_user(tid, &zero, sizeof(zero)))
		futex_wake((u32 __user *)tid, 0, 1, FUTEX_BITSET_MATCH_ANY);
}

/* The group has no thread left: the leader, a zombie, is reported to
 * its parent now -- with the group exit's status if there was one.
 * tasklist_lock held. */
static void group_dead_notify(struct task_struct *leader)
{
	struct signal_struct *sig = leader->signal;

	if (sig && (sig->flags & SIGNAL_GROUP_EXIT))
		leader->wait_status = sig->group_exit_code;
	if (leader->parent) {
		do_notify_parent(leader);
	} else {
		leader->exit_state = EXIT_DEAD;
		__exit_signal_state(leader);
	}
}

void exit_process(struct task_struct *t, int code)
{
	struct task_struct *leader = t->group_leader;
	struct signal_struct *sig = t->signal;
	unsigned long flags;
	bool group_dead;

	if (!t->mm && !t->parent && !t->sighand && list_empty(&t->children))
		return;                         /* a kernel thread, nothing to do */
	/* the last thread out: the process ends (Linux's signal->live) */
	group_dead = !sig || atomic_dec_and_test(&sig->live);
	/* pid 1 is the reaper of every orphan and holds the console: with it
	 * gone the machine can only sit idle.  Linux panics here, in these
	 * words, and so a test whose init dies fails at once. */
	if (leader == init_process && group_dead)
		panic("Attempted to kill init! exitcode=0x%08x", code);
	/* the process's timers go with it, before its signal_struct can */
	if (group_dead && sig)
		itimer_exit(sig);
	exit_user_futexes(t);
	/* no io-wq worker may hold the mm past exit_mm (fs/io-wq.c) */
	io_uring_files_cancel();
	exit_mm(t);
	exit_files(t);
	fpu_free(t);
	/* a session leader's end hangs up its terminal: before its
	 * children go to init, so that they are signalled by then */
	if (group_dead)
		disassociate_ctty(leader);

	spin_lock_irqsave(&tasklist_lock, flags);
	if (group_dead) {
		exit_orphaned_pgrps(leader);
		forget_children(leader);
	}
	t->wait_status = code;
	/* a thread in execve waits for the others to be gone (de_thread) */
	if (sig && sig->group_exec_task && sig->group_exec_task != t)
		wake_up_process(sig->group_exec_task);
	if (t != leader) {
		/* a thread: gone from the group and reaped at once */
		list_del_init(&t->thread_group);
		t->exit_state = EXIT_DEAD;
		/*
		 * The leader is reported by whichever of it and its last
		 * thread takes tasklist_lock second -- decided here, under
		 * the lock, from the thread list and the leader's state.
		 * group_dead (the live count, dropped before the lock) cannot
		 * decide it: a leader that dropped it first and had not yet
		 * become a zombie would be missed by both, and its parent's
		 * wait would never end.
		 */
		if (leader->exit_state == EXIT_ZOMBIE && list_empty(&leader->thread_group))
			group_dead_notify(leader);
		__exit_signal_state(t);
		spin_unlock_irqrestore(&tasklist_lock, flags);
		put_task_struct(leader);        /* copy_process()'s, for group_leader */
		return;
	}
	/* a zombie now; reported (or released) once the last thread is
	 * gone: now, if none is left on the list (see above) */
	t->exit_state = EXIT_ZOMBIE;
	if (list_empty(&t->thread_group))
		group_dead_notify(t);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	if (init_process == t && group_dead)
		init_process = NULL;
}

/*
 * The end of every task: a kernel thread's function returning, exit(2),
 * a fatal signal.  A process lets go of its memory and files and becomes
 * a zombie for its parent (exit_process() above); a plain kernel thread
 * has none.  Then the scheduler switches away for the last time.
 */
void do_exit(int code)
{
	struct task_struct *me = current;

	if (me->plug) {
		/* A bug in the task: blk_start_plug() without blk_finish_plug().
		 * The plug was on a stack frame that has returned; flush what it
		 * holds while that memory is still intact. */
		pr_warn("WARNING: %s:%d exited with a plug still attached; flushing it\n",
			me->comm, me->pid);
		blk_flush_plug(me, false);
		me->plug = NULL;
	}
	exit_process(me, code);
	me->exit_code = code;
	do_task_dead();
}

/*
 * The whole process exits: exit_group(2), or a fatal signal taken by one
 * of its threads.  The first to get here decides the status; the other
 * threads are sent SIGKILL and, as they take it, come here too and use
 * that status (Linux's do_group_exit()).  A thread killed for another's
 * execve (de_thread) just exits.
 */
void do_group_exit(int status)
{
	struct signal_struct *sig = current->signal;
	unsigned long flags;

	if (sig) {
		spin_lock_irqsave(&tasklist_lock, flags);
		if (sig->flags & SIGNAL_GROUP_EXIT) {
			status = sig->group_exit_code;
		} else if (!sig->group_exec_task) {
			sig->flags |= SIGNAL_GROUP_EXIT;
			sig->group_exit_code = status;
			zap_other_threads(current);
		}
		spin_unlock_irqrestore(&tasklist_lock, flags);
	}
	do_exit(status);
}

/* exit(2): this thread only (a process of one thread: the process) */
long sys_exit(int error_code)
{
	do_exit(W_EXITCODE(error_code & 0xff, 0));
}

long sys_exit_group(int error_code)
{
	do_group_exit(W_EXITCODE(error_code & 0xff, 0));
}

/*
 * One wait, as wait4 and waitid ask for it (Linux's struct wait_opts):
 * which children (type and pid), which events (flags), and what was found.
 * Both calls share do_wait(); they differ only in how they say it: wait4
 * in a status word, waitid in a siginfo.
 */
struct wait_opts {
	int type;  /* P_ALL, P_PID or P_PGID */
	int pid;   /* the pid or process group for P_PID and P_PGID */
	int flags; /* WEXITED WSTOPPED WCONTINUED WNOHANG WNOWAIT */
	int stat;  /* out: the wait4 status word of the child found */
	struct task_usage usage;        /* out: what a reaped child used */
};

static bool wait_match(const struct wait_opts *wo, struct task_struct *c)
{
	switch (wo->type) {
	case P_PID:
		return c->pid == wo->pid;
	case P_PGID:
		return c->pgid == wo->pid;
	default:
		return true;
	}
}

/* A zombie found: its status, and (unless WNOWAIT) reap it.
 * tasklist_lock held on entry; released here. */
static int wait_task_zombie(struct wait_opts *wo, struct task_struct *c, unsigned long flags)
{
	int pid = c->pid;

	wo->stat = c->wait_status;
	if (wo->flags & WNOWAIT) { /* looked at, left for a later wait */
		spin_unlock_irqrestore(&tasklist_lock, flags);
		return pid;
	}
	list_del_init(&c->sibling);
	c->exit_state = EXIT_DEAD;
	c->parent = NULL;
	/* the child's whole use becomes ours (RUSAGE_CHILDREN), and wait4's */
	process_usage(c, &wo->usage);
	if (c->signal)
		usage_add(&wo->usage, &c->signal->children);
	/* a kernel thread that forked (a test) has no signal_struct */
	if (current->signal)
		usage_add(&current->signal->children, &wo->usage);
	__exit_signal_state(c);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	put_task_struct(c);             /* the parent's reference */
	return pid;
}

/*
 * Wait for a child of current that wo matches to exit, stop or continue
 * (as wo->flags ask): its pid, with wo->stat set; 0 under WNOHANG when
 * none has yet; -ECHILD if no child matches at all; -EINTR for a signal.
 * Each stop and continue is reported once, an exit reaps the child --
 * unless WNOWAIT, which leaves either to be reported again.  May sleep.
 */
static long do_wait(struct wait_opts *wo)
{
	might_sleep();
	for (;;) {
		struct task_struct *c;
		bool have_child = false;
		unsigned long flags;

		spin_lock_irqsave(&tasklist_lock, flags);
		/* the children of the process: any of its threads may reap them */
		list_for_each_entry(c, &current->group_leader->children, sibling) {
			if (!wait_match(wo, c))
				continue;
			have_child = true;
			/* a leader whose threads live on is not reaped yet
			 * (Linux's delay_group_leader()) */
			if (c->exit_state == EXIT_ZOMBIE && list_empty(&c->thread_group)) {
				if (wo->flags & WEXITED)
					return wait_task_zombie(wo, c, flags);
				continue;
			}
			if (c->exit_state)
				continue;
			wo->stat = wait_task_jobctl(c, wo->flags);
			if (wo->stat) {
				spin_unlock_irqrestore(&tasklist_lock, flags);
				return c->pid;
			}
		}
		if (!have_child) {
			spin_unlock_irqrestore(&tasklist_lock, flags);
			return -ECHILD;
		}
		if (wo->flags & WNOHANG) {
			spin_unlock_irqrestore(&tasklist_lock, flags);
			return 0;
		}
		/* state first, then sleep: a child exiting in between sees us
		 * TASK_INTERRUPTIBLE and wakes us (sched.h's rule) */
		set_current_state(TASK_INTERRUPTIBLE);
		spin_unlock_irqrestore(&tasklist_lock, flags);
		if (current->sighand && signal_pending(current)) {
			__set_current_state(TASK_RUNNING);
			return -EINTR;
		}
		schedule();
	}
}

static long do_wait4(int pid, int *status, int options, struct task_usage *usage)
{
	struct wait_opts wo = { .type = P_ALL, .pid = 0, .flags = options | WEXITED };
	long ret;

	/* WUNTRACED, WCONTINUED: report a child's stop or continue too, once
	 * each (job control, kernel/signal.c); the child stays unreaped */
	if (options & ~(WNOHANG | WUNTRACED | WCONTINUED))
		return -EINVAL;
	if (pid > 0) {
		wo.type = P_PID;
		wo.pid = pid;
	} else if (pid == 0 || pid < -1) {
		wo.type = P_PGID;
		wo.pid = pid ? -pid : current->pgid;
	}
	ret = do_wait(&wo);
	if (ret > 0 && status)
		*status = wo.stat;
	if (ret > 0 && usage)
		*usage = wo.usage;
	return ret;
}

long kernel_wait4(int pid, int *status, int options)
{
	return do_wait4(pid, status, options, NULL);
}

long sys_wait4(pid_t pid, int __user *stat_addr, int options, struct rusage __user *ru)
{
	struct task_usage usage = { 0 };
	int status = 0;
	long ret;

	if (pid == (pid_t)0x80000000)
		return -ESRCH;
	/* Check the pointer before reaping: a bad one must not lose a child. */
	if (stat_addr && !access_ok(stat_addr, sizeof(int)))
		return -EFAULT;
	if (ru && !access_ok(ru, RUSAGE_SIZE))
		return -EFAULT;
	ret = do_wait4(pid, &status, options, &usage);
	if (ret > 0 && stat_addr && copy_to_user(stat_addr, &status, sizeof(status)))
		return -EFAULT;
	if (ret > 0 && ru) {
		struct rusage r = usage_to_rusage(&usage, 0);

		if (copy_to_user(ru, &r, sizeof(r)))
			return -EFAULT;
	}
	return ret;
}

/* The fields of a SIGCHLD siginfo that waitid fills (Linux's layout). */
struct waitid_info {
	s32 si_signo, si_errno, si_code, pad;
	s32 si_pid;
	u32 si_uid;
	s32 si_status;
};
#define SIGINFO_SIZE 128

/* How a wait4 status word reads in a siginfo: si_code and si_status. */
static void wait_status_to_info(int stat, struct waitid_info *info)
{
	if (stat == 0xffff) { /* WIFCONTINUED */
		info->si_code = CLD_CONTINUED;
		info->si_status = SIGCONT;
	} else if ((stat & 0xff) == 0x7f) { /* WIFSTOPPED */
		info->si_code = CLD_STOPPED;
		info->si_status = (stat >> 8) & 0xff;
	} else if (WIFEXITED(stat)) {
		info->si_code = CLD_EXITED;
		info->si_status = WEXITSTATUS(stat);
	} else {
		info->si_code = (stat & WCOREFLAG) ? CLD_DUMPED : CLD_KILLED;
		info->si_status = WTERMSIG(stat);
	}
}

/*
 * waitid(which, id, infop, options, ru): wait4 with the events named
 * one by one (at least one of WEXITED, WSTOPPED, WCONTINUED) and WNOWAIT
 * to look without reaping; the answer in a siginfo.  As Linux, infop is
 * written whatever happens -- zeros when nothing was found (WNOHANG) or on
 * an error -- and the return value is 0, not a pid.  Process groups by
 * number (P_PGID; 0 is the caller's); no pidfds here (P_PIDFD: EINVAL).
 */
long sys_waitid(int which, pid_t upid, void __user *infop, int options,
		struct rusage __user *ru)
{
	struct wait_opts wo = { .type = which, .pid = upid, .flags = options };
	struct waitid_info info = { 0 };
	long ret;

	if (options & ~(WNOHANG | WNOWAIT | WEXITED | WSTOPPED | WCONTINUED))
		return -EINVAL;
	if (!(options & (WEXITED | WSTOPPED | WCONTINUED)))
		return -EINVAL;
	switch (which) {
	case P_ALL:
		break;
	case P_PID:
		if (upid <= 0)
			return -EINVAL;
		break;
	case P_PGID:
		if (upid < 0)
			return -EINVAL;
		if (!upid)
			wo.pid = current->pgid;
		break;
	default: /* P_PIDFD among them */
		return -EINVAL;
	}
	if (infop && !access_ok(infop, SIGINFO_SIZE))
		return -EFAULT;
	if (ru && !access_ok(ru, RUSAGE_SIZE))
		return -EFAULT;
	ret = do_wait(&wo);
	if (ret > 0) {
		info.si_signo = SIGCHLD;
		info.si_pid = (s32)ret;
		info.si_uid = 0; /* everyone is root */
		wait_status_to_info(wo.stat, &info);
		ret = 0;
		if (ru) {
			struct rusage r = usage_to_rusage(&wo.usage, 0);

			if (copy_to_user(ru, &r, sizeof(r)))
				return -EFAULT;
		}
	}
	if (infop && copy_to_user(infop, &info, sizeof(info)))
		return -EFAULT;
	return ret;
}

/*
 * getrusage: CPU time and context switches of the caller's process
 * (its threads, those gone included), of its reaped children, or of the
 * calling thread (Linux's kernel/sys.c).  ru_maxrss is the resident size
 * now, not its peak (Spindle keeps no high-water mark), and 0 for
 * children; the fault, block and IPC counts are 0 -- none is kept.
 */
long sys_getrusage(int who, struct rusage __user *ru)
{
	struct task_usage u = { 0 };
	unsigned long flags, rss = 0;
	struct rusage r;

	if (who != RUSAGE_SELF && who != RUSAGE_CHILDREN && who != RUSAGE_THREAD)
		return -EINVAL;
	spin_lock_irqsave(&tasklist_lock, flags);
	if (who == RUSAGE_SELF)
		process_usage(current->group_leader, &u);
	else if (who == RUSAGE_THREAD)
		usage_add_task(&u, current);
	else if (current->signal)
		u = current->signal->children;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	if (who != RUSAGE_CHILDREN && current->mm)
		rss = READ_ONCE(current->mm->nr_pages);
	r = usage_to_rusage(&u, rss);
	return copy_to_user(ru, &r, sizeof(r)) ? -EFAULT : 0;
}
