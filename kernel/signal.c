// SPDX-License-Identifier: MIT
/*
 * signal.c - sending signals and acting on them (include/spindle/signal.h).
 *
 * Sending (kill, the console's ^C, a fault) sets a bit in the target's
 * sig_pending and, if the target sleeps TASK_INTERRUPTIBLE, wakes it so
 * that its wait4/nanosleep/read returns -EINTR.  Nothing else happens at
 * the sender -- but for SIGCONT, which continues a stopped target there
 * and then (below).  The target acts on its signals itself, on its way
 * back to user mode (exit_to_user_mode()), where it is in a clean state
 * -- no locks held, its user registers saved in its pt_regs.  There, for
 * each pending signal that is not blocked:
 *
 *   SIG_IGN                 dropped
 *   SIG_DFL                 the default: ignore (SIGCHLD, SIGURG, SIGWINCH,
 *                           SIGCONT), stop (SIGSTOP, SIGTSTP, SIGTTIN,
 *                           SIGTTOU) or terminate, wait4 status = sig
 *   a handler               a signal frame is pushed on the user stack with
 *                           the interrupted registers; the process resumes
 *                           in the handler, whose return address is the
 *                           libc's restorer, which calls rt_sigreturn(15) to
 *                           restore them.
 *
 * SIGKILL cannot be caught, blocked or ignored -- except by pid 1, which
 * is sent nothing it has no handler for; nor can SIGSTOP.  Interrupted
 * system calls return -EINTR (no SA_RESTART restarting); one that returns
 * -ERESTARTNOHAND is made again when no handler ran.
 *
 * Job control, the state machine (Linux's, for a one-thread process):
 *
 *            stop signal, default action, taken in do_signal()
 *   running ----------------------------------------------> stopped
 *      ^     (parent: SIGCHLD unless SA_NOCLDSTOP; wait4     TASK_STOPPED,
 *      |      WUNTRACED reports 0x7f | sig << 8 once)         "T" in /proc
 *      |                                                        |
 *      +--------------------------------------------------------+
 *            SIGCONT, acted on by the sender: wake it (parent:
 *            SIGCHLD unless SA_NOCLDSTOP; wait4 WCONTINUED
 *            reports 0xffff once).  SIGKILL also wakes it -- to
 *            die; other signals wait for the SIGCONT.
 *
 * A stop signal sent discards a pending SIGCONT, a SIGCONT discards the
 * pending stop signals, so whichever came last wins.  SIGTSTP, SIGTTIN
 * and SIGTTOU (the terminal's) are discarded at delivery when the
 * process group is orphaned: nobody is left to continue it.
 *
 * Threads (docs/processes.md "Threads").  A process-directed signal
 * (kill, a process group's, SIGCHLD) is pending for the whole thread
 * group, in signal->shared_pending; a thread-directed one (tgkill, tkill,
 * a fault) in the thread's own sig_pending.  Each thread has its own
 * blocked mask; the actions are the group's (sighand is shared).  A
 * process-directed signal is handed to one thread that does not block
 * it -- the leader if it can, else the first other that can -- which is
 * woken to take it (Linux's complete_signal(), simplified: no preference
 * for the running thread).  SIGKILL reaches every thread at once.  A
 * thread takes its own signals first, then the shared ones.  Job
 * control stays per thread: a stop signal stops the thread that takes
 * it (Linux stops the whole group; see docs/processes.md).
 *
 * Locking: a task's sig_pending, sig_forced, sig_blocked, signal_flags,
 * stop_code and actions change under tasklist_lock (irqsave), taken by
 * the sender on any CPU and by the target acting on its signals (Linux
 * has a per-process sighand->siglock for this, inside tasklist_lock; one
 * lock is enough here).  signal_pending() reads without it: the sender's
 * store and the sleeper's set_current_state() are ordered by
 * try_to_wake_up()'s barrier, as for any wake-up.
 */
#define pr_fmt(fmt) "signal: " fmt
#include <spindle/signal.h>
#include <spindle/process.h>
#include <spindle/syscalls.h>
#include <spindle/uaccess.h>
#include <spindle/sched.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include <spindle/ratelimit.h>
#include <spindle/mm.h>
#include <asm/ptrace.h>
#include <asm/desc.h>
#include <asm/cpu.h>

#define UNBLOCKABLE     (sigmask(SIGKILL) | sigmask(SIGSTOP))
#define STOP_SIGNALS (sigmask(SIGSTOP) | sigmask(SIGTSTP) | sigmask(SIGTTIN) | sigmask(SIGTTOU))

static bool valid_signal(int sig)
{
	return sig >= 1 && sig <= _NSIG;
}

/* Is this signal's default action to do nothing? */
static bool sig_default_ignored(int sig)
{
	switch (sig) {
	case SIGCHLD:
	case SIGURG:
	case SIGWINCH:
	case SIGCONT:
		return true;
	default:
		return sig > SIGSYS && sig < 34;        /* unused numbers */
	}
}

/* Is this signal's default action to stop the process? */
static bool sig_kernel_stop(int sig)
{
	return (sigmask(sig) & STOP_SIGNALS) != 0;
}

/* ... and to end it? */
static bool sig_default_fatal(int sig)
{
	return !sig_default_ignored(sig) && !sig_kernel_stop(sig);
}

static unsigned long sig_handler(struct task_struct *t, int sig)
{
	return t->sighand ? t->sighand->action[sig - 1].sa_handler : SIG_DFL;
}

/* t's pending signals: its own and its group's (the signal_struct
 * goes NULL only as t is reaped, under tasklist_lock) */
static u64 task_pending(struct task_struct *t)
{
	struct signal_struct *sig = READ_ONCE(t->signal);

	return READ_ONCE(t->sig_pending) | (sig ? READ_ONCE(sig->shared_pending) : 0);
}

bool signal_pending(struct task_struct *t)
{
	return (task_pending(t) & ~(t->sig_blocked & ~UNBLOCKABLE)) != 0;
}

/*
 * Will t die of a signal it has already been sent?  SIGKILL, or any
 * unblocked signal whose action is the default "terminate": Linux turns
 * those into a group SIGKILL as they are sent (complete_signal()), and its
 * fatal_signal_pending() then sees them the same way.  Long system calls
 * (fork, a big console write) check it to stop early.
 */
bool fatal_signal_pending(struct task_struct *t)
{
	u64 ready = task_pending(t) & ~(t->sig_blocked & ~UNBLOCKABLE);

	if (ready & sigmask(SIGKILL))
		return true;
	for (; ready; ready &= ready - 1) {
		int sig = __builtin_ctzll(ready) + 1;

		if (sig_handler(t, sig) == SIG_DFL && sig_default_fatal(sig))
			return true;
	}
	return false;
}

static void __send_sig(int sig, struct task_struct *t);

/* The threads of t's group, t's leader first (tasklist_lock held) */
#define for_each_thread(leader, t) \
	for (t = (leader); t; \
	     t = list_next_entry(t, thread_group) == (leader) ? NULL : list_next_entry(t, thread_group))

int alloc_signal_state(struct task_struct *t)
{
	struct sighand_struct *sh = kzalloc(sizeof(*sh), GFP_KERNEL);
	struct signal_struct *sig = kzalloc(sizeof(*sig), GFP_KERNEL);
	unsigned long flags;

	if (!sh || !sig) {
		kfree(sh);
		kfree(sig);
		return -ENOMEM;
	}
	sh->count = 1;
	sig->count = 1;
	atomic_set(&sig->live, 1);
	itimer_init(sig);
	spin_lock_irqsave(&tasklist_lock, flags);
	t->sighand = sh;
	t->signal = sig;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return 0;
}

void __exit_signal_state(struct task_struct *t)
{
	assert_spin_locked(&tasklist_lock);
	if (t->sighand && --t->sighand->count == 0)
		kfree(t->sighand);
	t->sighand = NULL;
	if (t->signal && t->signal->count > 1) {
		/* a thread leaves its process: getrusage keeps its times */
		t->signal->dead.utime += t->utime;
		t->signal->dead.stime += t->stime;
		t->signal->dead.nvcsw += t->nvcsw;
		t->signal->dead.nivcsw += t->nivcsw;
	}
	if (t->signal && --t->signal->count == 0)
		kfree(t->signal);
	WRITE_ONCE(t->signal, NULL);
}

void exit_signal_state(struct task_struct *t)
{
	unsigned long flags;

	spin_lock_irqsave(&tasklist_lock, flags);
	__exit_signal_state(t);
	spin_unlock_irqrestore(&tasklist_lock, flags);
}

/* Wake t to act on a signal: from an interruptible sleep, and for
 * SIGKILL from a stop too (Linux's signal_wake_up()). */
static void signal_wake_up(struct task_struct *t, bool kill)
{
	wake_up_state(t, TASK_INTERRUPTIBLE | (kill ? TASK_STOPPED : 0));
}

int zap_other_threads(struct task_struct *p)
{
	struct task_struct *t;
	int n = 0;

	assert_spin_locked(&tasklist_lock);
	for_each_thread(p->group_leader, t) {
		if (t == p || t->exit_state)
			continue;
		n++;
		t->sig_pending |= sigmask(SIGKILL);
		signal_wake_up(t, true);
	}
	return n;
}

/* May t take sig now?  Not if it blocks it or is on its way out. */
static bool wants_signal(int sig, struct task_struct *t)
{
	return !(t->sig_blocked & sigmask(sig) & ~UNBLOCKABLE) && !t->exit_state &&
	       t->state != TASK_DEAD;
}

/* A process-directed sig is now pending for leader's group: wake a
 * thread that will take it.  None may (all block it): it waits, pending,
 * until one unblocks it.  tasklist_lock held. */
static void complete_signal(int sig, struct task_struct *leader)
{
	struct task_struct *t;

	for_each_thread(leader, t) {
		if (wants_signal(sig, t)) {
			signal_wake_up(t, false);
			return;
		}
	}
}

/*
 * Tell t's parent that t stopped or continued: SIGCHLD, unless the
 * parent asked for none with SA_NOCLDSTOP, and a wake-up for a parent
 * asleep in wait4 either way.  (Linux's siginfo also says which, with
 * si_code CLD_STOPPED or CLD_CONTINUED; Spindle's SIGCHLD carries none.)
 * tasklist_lock held.
 */
static void do_notify_parent_cldstop(struct task_struct *t)
{
	struct task_struct *parent = t->parent;

	assert_spin_locked(&tasklist_lock);
	if (!parent || !parent->signal || !atomic_read(&parent->signal->live))
		return;
	if (!(parent->sighand->action[SIGCHLD - 1].sa_flags & SA_NOCLDSTOP))
		group_send_sig(SIGCHLD, parent);
	wake_up_parent(parent);
}

/*
 * What a stop signal or SIGCONT does as it is sent, before anything
 * else -- even when it is blocked or ignored (Linux's prepare_signal()):
 * the later of the two cancels the earlier one still pending, and
 * SIGCONT continues a stopped process now, since a stopped process
 * runs no code of its own that could act on it.  tasklist_lock held.
 */
static void prepare_signal(int sig, struct task_struct *p)
{
	struct task_struct *t;

	if (!sig_kernel_stop(sig) && sig != SIGCONT)
		return;
	if (p->signal)
		p->signal->shared_pending &= ~(sig == SIGCONT ? STOP_SIGNALS : sigmask(SIGCONT));
	/* every thread of the group: a SIGCONT continues a stopped thread
	 * whichever it is, and the leader speaks for the process to wait4 */
	for_each_thread(p->group_leader, t) {
		if (sig_kernel_stop(sig)) {
			t->sig_pending &= ~sigmask(SIGCONT);
		} else {
			t->sig_pending &= ~STOP_SIGNALS;
			if (t->signal_flags & SIGNAL_STOP_STOPPED) {
				t->signal_flags = SIGNAL_STOP_CONTINUED;
				t->stop_code = 0; /* a stop not yet reported is gone */
				do_notify_parent_cldstop(t->group_leader == t ? t : t->group_leader);
				wake_up_state(t, TASK_STOPPED);
			}
		}
	}
}

/* Is sig, sent to t, dropped as it is sent? */
static bool sig_ignored(int sig, struct task_struct *t)
{
	unsigned long h = sig_handler(t, sig);

	/* An ignored signal is dropped at once, as Linux does. */
	if (sig != SIGKILL && (h == SIG_IGN || (h == SIG_DFL && sig_default_ignored(sig))))
		return true;
	/* init gets only the signals it has a handler for: the default
	 * action would end pid 1, and with it the machine.  SIGKILL and
	 * SIGSTOP too (Linux's SIGNAL_UNKILLABLE, sig_task_ignored()); a
	 * fault in init is force_sig() and still kills it. */
	return t->group_leader == init_process && h == SIG_DFL;
}

void group_send_sig(int sig, struct task_struct *p)
{
	struct task_struct *leader = p->group_leader, *t;

	assert_spin_locked(&tasklist_lock);
	if (!leader->signal || !leader->sighand)
		return;
	prepare_signal(sig, leader);
	if (sig_ignored(sig, leader))
		return;
	if (sig == SIGKILL) {
		/* fatal to all of them: every thread takes it at once */
		for_each_thread(leader, t) {
			if (t->exit_state)
				continue;
			t->sig_pending |= sigmask(SIGKILL);
			signal_wake_up(t, true);
		}
		return;
	}
	leader->signal->shared_pending |= sigmask(sig);
	complete_signal(sig, leader);
}

/* A thread-directed signal (tgkill, send_sig()); tasklist_lock held. */
static void __send_sig(int sig, struct task_struct *t)
{
	assert_spin_locked(&tasklist_lock);
	prepare_signal(sig, t);
	if (sig_ignored(sig, t))
		return;
	t->sig_pending |= sigmask(sig);
	/* a stopped task wakes only for SIGKILL; any other signal waits
	 * for SIGCONT (Linux's wants_signal()): a shell sends a stopped job
	 * SIGTERM and then SIGCONT */
	if (signal_pending(t))
		wake_up_state(t, TASK_INTERRUPTIBLE | (sig == SIGKILL ? TASK_STOPPED : 0));
}

void send_sig(int sig, struct task_struct *t)
{
	unsigned long flags;

	spin_lock_irqsave(&tasklist_lock, flags);
	if (t->sighand && !t->exit_state)
		__send_sig(sig, t);
	spin_unlock_irqrestore(&tasklist_lock, flags);
}

/*
 * t has just become a zombie (exit_process()): wake its parent if it
 * sleeps in wait4 -- and only then: a parent waiting for a disk must not
 * be woken early; the state is tested inside the wake-up, after its
 * barrier -- and send it SIGCHLD (ignored unless it has a handler: a
 * shell's SIGCHLD handler ends its rt_sigsuspend).  Linux's
 * do_notify_parent(); tasklist_lock held.
 */
void wake_up_parent(struct task_struct *parent)
{
	struct task_struct *t;

	assert_spin_locked(&tasklist_lock);
	for_each_thread(parent->group_leader, t)
		wake_up_state(t, TASK_INTERRUPTIBLE);
}

void do_notify_parent(struct task_struct *t)
{
	struct task_struct *parent = t->parent;

	assert_spin_locked(&tasklist_lock);
	wake_up_parent(parent);
	if (parent->signal && atomic_read(&parent->signal->live))
		group_send_sig(SIGCHLD, parent);
}

void force_sig(int sig)
{
	struct task_struct *t = current;
	unsigned long flags;

	spin_lock_irqsave(&tasklist_lock, flags);
	t->sig_blocked &= ~sigmask(sig);
	if (t->sighand && t->sighand->action[sig - 1].sa_handler == SIG_IGN)
		t->sighand->action[sig - 1].sa_handler = SIG_DFL;
	t->sig_pending |= sigmask(sig);
	t->sig_forced |= sigmask(sig);          /* a fault: even init dies of it */
	spin_unlock_irqrestore(&tasklist_lock, flags);
}

/* A fault's signal, with what its siginfo says: si_code (FPE_FLTDIV ...)
 * and si_addr (the faulting instruction or address). */
void force_sig_fault(int sig, int code, unsigned long addr)
{
	current->fault_sig = sig;
	current->fault_code = code;
	current->fault_addr = addr;
	force_sig(sig);
}

/* Send sig to every process for which match(t, arg); sig 0 only checks
 * that one exists.  Returns 0 if any matched, -ESRCH if none.
 * tasklist_lock held. */
static int send_sig_matching(int sig, bool (*match)(struct task_struct *, long), long arg)
{
	struct task_struct *t;
	int found = 0;

	assert_spin_locked(&tasklist_lock);
	list_for_each_entry(t, &task_list, tasks) {
		/* one per process: its leader, or once the leader has
		 * exited, the first of the threads still there */
		struct task_struct *leader = t->group_leader;

		if (!t->sighand || t->exit_state || t->state == TASK_DEAD)
			continue;
		if (t != (leader->exit_state ? list_first_entry(&leader->thread_group,
								 struct task_struct, thread_group)
					     : leader))
			continue;
		if (!match(t, arg))
			continue;
		found = 1;
		if (sig)
			group_send_sig(sig, t);
	}
	return found ? 0 : -ESRCH;
}

static bool in_pgrp(struct task_struct *t, long pgrp)
{
	return t->pgid == pgrp;
}


/* kill(-1, sig): everyone but init and the sender's process, as Linux. */
static bool not_init_nor_self(struct task_struct *t, long unused)
{
	(void)unused;
	return t->tgid != 1 && t->tgid != current->tgid;
}

/*
 * Linux's will_become_orphaned_pgrp(): a process group is orphaned when
 * none of its members has a parent in another group of the same session
 * -- the shell that could continue it.  A parent that is init does not
 * count (init runs no job control), nor does the task with pid
 * `ignored` (0: none), which is about to exit, as a member or a parent.
 * tasklist_lock held.
 */
static bool will_become_orphaned_pgrp(int pgrp, int ignored)
{
	struct task_struct *t;
	bool orphaned = true;

	assert_spin_locked(&tasklist_lock);
	list_for_each_entry(t, &task_list, tasks) {
		struct task_struct *p = t->parent;

		if (!t->sighand || t->exit_state || t->pgid != pgrp || t->pid == ignored)
			continue;
		if (p && p->pid != ignored && p != init_process && !p->exit_state &&
		    p->pgid != pgrp && p->sid == t->sid) {
			orphaned = false;
			break;
		}
	}
	return orphaned;
}

bool is_current_pgrp_orphaned(void)
{
	unsigned long flags;
	bool orphaned;

	spin_lock_irqsave(&tasklist_lock, flags);
	orphaned = will_become_orphaned_pgrp(current->pgid, 0);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return orphaned;
}

static bool has_stopped_jobs(int pgrp)
{
	struct task_struct *t;

	list_for_each_entry(t, &task_list, tasks)
		if (t->pgid == pgrp && !t->exit_state && (t->signal_flags & SIGNAL_STOP_STOPPED))
			return true;
	return false;
}

/*
 * If t's exit leaves pgrp -- the group t was a link of to a parent of
 * the same session -- orphaned with stopped members, they would wait for
 * a SIGCONT nobody is left to send: POSIX has them sent SIGHUP and
 * SIGCONT (Linux's kill_orphaned_pgrp()).  tasklist_lock held.
 */
static void kill_orphaned_pgrp(int pgrp, struct task_struct *t)
{
	if (will_become_orphaned_pgrp(pgrp, t->pid) && has_stopped_jobs(pgrp)) {
		send_sig_matching(SIGHUP, in_pgrp, pgrp);
		send_sig_matching(SIGCONT, in_pgrp, pgrp);
	}
}

void exit_orphaned_pgrps(struct task_struct *t)
{
	struct task_struct *c;

	assert_spin_locked(&tasklist_lock);

	/* t's own group, if t's parent was its link outside */
	if (t->parent && t->parent->pgid != t->pgid && t->parent->sid == t->sid)
		kill_orphaned_pgrp(t->pgid, t);
	/* its children's groups, if t was theirs */
	list_for_each_entry(c, &t->children, sibling)
		if (!c->exit_state && c->pgid != t->pgid && c->sid == t->sid)
			kill_orphaned_pgrp(c->pgid, t);
}

bool is_ignored(int sig)
{
	return (current->sig_blocked & sigmask(sig)) || sig_handler(current, sig) == SIG_IGN;
}

int wait_task_jobctl(struct task_struct *c, int options)
{
	bool consume = !(options & WNOWAIT); /* waitid's WNOWAIT: look only */

	if ((options & WUNTRACED) && (c->signal_flags & SIGNAL_STOP_STOPPED) && c->stop_code) {
		int status = (c->stop_code << 8) | 0x7f;

		if (consume)
			c->stop_code = 0;
		return status;
	}
	if ((options & WCONTINUED) && (c->signal_flags & SIGNAL_STOP_CONTINUED)) {
		if (consume)
			c->signal_flags &= ~SIGNAL_STOP_CONTINUED;
		return 0xffff;
	}
	return 0;
}

/* gettid: the thread's own id (getpid() is its group's) */
long sys_gettid(void)
{
	return current->pid;
}

/*
 * tgkill/tkill: a signal to one thread, pending in its own set -- how
 * glibc's raise() and abort() signal the calling thread, and
 * pthread_kill() another.  tgid < 0 (tkill): any group.  Linux's
 * do_tkill(): -EINVAL for a bad number, -ESRCH when no thread of that
 * id is in that group.
 */
static long do_tkill(pid_t tgid, pid_t pid, int sig)
{
	struct task_struct *t;
	unsigned long flags;
	long ret = -ESRCH;

	if (pid <= 0 || (sig && !valid_signal(sig)))
		return -EINVAL;
	spin_lock_irqsave(&tasklist_lock, flags);
	t = find_task_by_pid(pid);
	if (t && t->signal && !t->exit_state && (tgid <= 0 || t->tgid == tgid)) {
		ret = 0;
		if (sig)
			__send_sig(sig, t);
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return ret;
}

long sys_tgkill(pid_t tgid, pid_t pid, int sig)
{
	if (tgid <= 0)
		return -EINVAL;
	return do_tkill(tgid, pid, sig);
}

long sys_tkill(pid_t pid, int sig)
{
	return do_tkill(0, pid, sig);
}

struct task_struct *find_task_by_tgid(int tgid)
{
	struct task_struct *p = find_task_by_pid(tgid), *t;

	if (p)
		return p;
	/* the leader has exited (and left the task list, as every dead
	 * task does): a live thread of its group stands for it */
	list_for_each_entry(t, &task_list, tasks)
		if (t->tgid == tgid && !t->exit_state && t->state != TASK_DEAD)
			return t->group_leader;
	return NULL;
}

int get_nr_threads(const struct task_struct *p)
{
	int n = p->signal ? atomic_read(&p->signal->live) : 1;

	return n > 0 ? n : 1;
}

/* kill(pid): pid may name any thread; the signal is its process's */
static int kill_pid(pid_t pid, int sig)
{
	struct task_struct *t;
	unsigned long flags;
	int ret = -ESRCH;

	spin_lock_irqsave(&tasklist_lock, flags);
	t = find_task_by_tgid(pid);
	if (t && t->group_leader->signal && atomic_read(&t->group_leader->signal->live) &&
	    t->group_leader->exit_state != EXIT_DEAD) {
		ret = 0;
		if (sig)
			group_send_sig(sig, t);
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return ret;
}

/* send_sig_matching(), taking tasklist_lock */
static int kill_matching(int sig, bool (*match)(struct task_struct *, long), long arg)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&tasklist_lock, flags);
	ret = send_sig_matching(sig, match, arg);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return ret;
}

int kill_pgrp(int pgrp, int sig)
{
	if (!valid_signal(sig) || pgrp <= 0)
		return -EINVAL;
	return kill_matching(sig, in_pgrp, pgrp);
}

long sys_kill(pid_t pid, int sig)
{
	if (sig && !valid_signal(sig))
		return -EINVAL;
	if (pid > 0)
		return kill_pid(pid, sig);
	if (pid == 0)
		return kill_matching(sig, in_pgrp, READ_ONCE(current->pgid));
	if (pid == -1)
		return kill_matching(sig, not_init_nor_self, 0);
	if (pid == (pid_t)0x80000000)
		return -ESRCH;                  /* -INT_MIN does not exist */
	return kill_matching(sig, in_pgrp, -pid);
}

long sys_rt_sigaction(int sig, const struct sigaction __user *act,
		      struct sigaction __user *oact, size_t sigsetsize)
{
	struct sigaction new, old, *cur;
	unsigned long flags;

	if (sigsetsize != sizeof(sigset_t) || !valid_signal(sig))
		return -EINVAL;
	if (!current->sighand)
		return -EINVAL;
	cur = &current->sighand->action[sig - 1];
	if (act && copy_from_user(&new, act, sizeof(new)))
		return -EFAULT;
	/* the actions are the thread group's: another thread may change them */
	spin_lock_irqsave(&tasklist_lock, flags);
	old = *cur;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	if (oact && copy_to_user(oact, &old, sizeof(old)))
		return -EFAULT;
	if (act) {
		if (sig == SIGKILL || sig == SIGSTOP)
			return -EINVAL;
		new.sa_mask &= ~UNBLOCKABLE;
		/* a sender on another CPU reads the action as it sends */
		spin_lock_irqsave(&tasklist_lock, flags);
		*cur = new;
		/* setting SIG_IGN drops what is pending (POSIX) */
		if (new.sa_handler == SIG_IGN ||
		    (new.sa_handler == SIG_DFL && sig_default_ignored(sig))) {
			struct task_struct *t;

			current->signal->shared_pending &= ~sigmask(sig);
			for_each_thread(current->group_leader, t) {
				t->sig_pending &= ~sigmask(sig);
				t->sig_forced &= ~sigmask(sig);
			}
		}
		spin_unlock_irqrestore(&tasklist_lock, flags);
	}
	return 0;
}

/*
 * Change current's blocked mask (Linux's set_current_blocked()), under
 * tasklist_lock: a sender on another CPU decides whether to wake us from
 * the mask, so an unblock and a send must not pass each other -- else
 * the sender sees the old mask and does not wake us, and we, having
 * unblocked, miss its bit and sleep on.
 */
static void set_current_blocked(sigset_t mask)
{
	unsigned long flags;
	u64 newly, shared;

	spin_lock_irqsave(&tasklist_lock, flags);
	newly = mask & ~current->sig_blocked & ~UNBLOCKABLE;
	current->sig_blocked = mask & ~UNBLOCKABLE;
	/* a process signal we may have been woken for, now blocked here:
	 * hand it to another thread (Linux's retarget_shared_pending()) */
	shared = current->signal ? current->signal->shared_pending & newly : 0;
	for (; shared; shared &= shared - 1)
		complete_signal(__builtin_ctzll(shared) + 1, current->group_leader);
	spin_unlock_irqrestore(&tasklist_lock, flags);
}

long sys_rt_sigprocmask(int how, sigset_t __user *set, sigset_t __user *oset,
			size_t sigsetsize)
{
	sigset_t new, old = current->sig_blocked;

	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	if (set) {
		if (copy_from_user(&new, set, sizeof(new)))
			return -EFAULT;
		switch (how) {
		case SIG_BLOCK:   new = old | new; break;
		case SIG_UNBLOCK: new = old & ~new; break;
		case SIG_SETMASK: break;
		default:          return -EINVAL;
		}
		set_current_blocked(new);
	}
	if (oset && copy_to_user(oset, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

void set_restore_sigmask(sigset_t mask)
{
	current->saved_sigmask = current->sig_blocked;
	current->restore_sigmask = true;
	set_current_blocked(mask);
}

/* rt_sigpending: the blocked signals waiting, the thread's and its
 * process's */
long sys_rt_sigpending(sigset_t __user *uset, size_t sigsetsize)
{
	unsigned long flags;
	sigset_t set;

	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	spin_lock_irqsave(&tasklist_lock, flags);
	set = task_pending(current) & current->sig_blocked;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return copy_to_user(uset, &set, sizeof(set)) ? -EFAULT : 0;
}

/* pause: sleep until a signal is taken; -EINTR once its handler has run
 * (-ERESTARTNOHAND: a signal that runs no handler -- one that stops and
 * continues us -- sends us back to sleep, as Linux) */
long sys_pause(void)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (signal_pending(current))
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return -ERESTARTNOHAND;
}

/*
 * rt_sigsuspend: wait for a signal with the given mask in place -- the way
 * a shell sleeps until SIGCHLD without the race of unblocking it first
 * and then pausing.  It always ends in -EINTR; the old mask comes back
 * after the handler has run (the frame carries it, restore_sigmask).
 */
long sys_rt_sigsuspend(sigset_t __user *unewset, size_t sigsetsize)
{
	sigset_t newset;

	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	if (copy_from_user(&newset, unewset, sizeof(newset)))
		return -EFAULT;
	set_restore_sigmask(newset);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (signal_pending(current))
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return -EINTR;
}

/*
 * sigaltstack: a stack for handlers that asked for one (SA_ONSTACK), so
 * that a handler can run when the normal stack has overflowed.
 */
struct stack_t {
	u64 ss_sp;
	s32 ss_flags;
	u32 pad;
	u64 ss_size;
};

#define SS_ONSTACK 1
#define SS_DISABLE 2
#define MINSIGSTKSZ 2048

static bool on_sig_stack(unsigned long sp)
{
	return current->sas_ss_size && sp > current->sas_ss_sp &&
	       sp - current->sas_ss_sp <= current->sas_ss_size;
}

long sys_sigaltstack(const struct stack_t __user *uss, struct stack_t __user *uoss)
{
	unsigned long sp = task_pt_regs(current)->rsp;
	struct stack_t old = {
		.ss_sp = current->sas_ss_sp,
		.ss_size = current->sas_ss_size,
		.ss_flags = !current->sas_ss_size ? SS_DISABLE : on_sig_stack(sp) ? SS_ONSTACK
										  : 0,
	},
		       new;

	if (uss) {
		if (copy_from_user(&new, uss, sizeof(new)))
			return -EFAULT;
		if (on_sig_stack(sp))
			return -EPERM; /* not while running on it */
		if (new.ss_flags & ~SS_DISABLE)
			return -EINVAL;
		if (new.ss_flags & SS_DISABLE) {
			new.ss_sp = new.ss_size = 0;
		} else if (new.ss_size < MINSIGSTKSZ) {
			return -ENOMEM;
		} else if (new.ss_sp >= USER_SPACE_END || new.ss_size > USER_SPACE_END - new.ss_sp) {
			return -EFAULT;
		}
		current->sas_ss_sp = new.ss_sp;
		current->sas_ss_size = new.ss_size;
	}
	if (uoss && copy_to_user(uoss, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

/* --- handler frames (x86-64 Linux's layout: struct rt_sigframe) -------- */

struct sigcontext {
	u64 r8, r9, r10, r11, r12, r13, r14, r15;
	u64 rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	u16 cs, gs, fs, ss;
	u64 err, trapno, oldmask, cr2;
	u64 fpstate;                    /* user address of the fxsave image */
	u64 reserved1[8];
};

struct ucontext {
	u64 uc_flags;
	u64 uc_link;
	struct { u64 ss_sp; s32 ss_flags; u32 pad; u64 ss_size; } uc_stack;
	struct sigcontext uc_mcontext;
	sigset_t uc_sigmask;
};

struct siginfo {
	s32 si_signo, si_errno, si_code, pad;
	u8 fields[112];
};

struct rt_sigframe {
	u64 pretcode;                   /* the handler returns here: sa_restorer */
	struct ucontext uc;
	struct siginfo info;
};
BUILD_BUG_ON(sizeof(struct siginfo) != 128);
BUILD_BUG_ON(offsetof(struct ucontext, uc_mcontext) != 40);

#define RED_ZONE        128             /* the ABI's scratch area below rsp */
#define FXSAVE_SIZE     512
/* Flags a program may change through rt_sigreturn: arithmetic, DF, TF, AC. */
#define FIX_EFLAGS      0x40dd5ul
/* pt_regs.error_code of a SYSCALL entry holds the call's number (for a
 * restart); this marks "none to restart" */
#define NO_RESTART (~0ull)

static int setup_rt_frame(int sig, struct sigaction *ka, struct pt_regs *regs)
{
	unsigned long sp = regs->rsp - RED_ZONE;
	sigset_t oldmask = current->restore_sigmask ? current->saved_sigmask : current->sig_blocked;
	sigset_t blocked;
	unsigned long fp_addr, flags;
	struct rt_sigframe *f, frame;
	void *fx;
	int err = 0;

	if (!(ka->sa_flags & SA_RESTORER))
		return -EFAULT;                 /* x86-64 needs a restorer (libc's) */
	/* A handler outside user space would be entered by IRETQ with a
	 * non-canonical (or kernel) rip: a #GP in ring 0 on Intel. */
	if (ka->sa_handler >= USER_SPACE_END)
		return -EFAULT;
	if ((ka->sa_flags & SA_ONSTACK) && current->sas_ss_size && !on_sig_stack(regs->rsp))
		sp = current->sas_ss_sp + current->sas_ss_size;
	fp_addr = (sp - FXSAVE_SIZE) & ~63ul;
	sp = fp_addr - sizeof(struct rt_sigframe);
	sp = ((sp + 8) & ~15ul) - 8;            /* as if `call` had pushed pretcode */
	f = (struct rt_sigframe *)sp;

	memset(&frame, 0, sizeof(frame));
	frame.pretcode = ka->sa_restorer;
	frame.uc.uc_sigmask = oldmask;
	frame.uc.uc_stack.ss_sp = current->sas_ss_sp;
	frame.uc.uc_stack.ss_size = current->sas_ss_size;
	frame.uc.uc_mcontext = (struct sigcontext){
		.r8 = regs->r8,
		.r9 = regs->r9,
		.r10 = regs->r10,
		.r11 = regs->r11,
		.r12 = regs->r12,
		.r13 = regs->r13,
		.r14 = regs->r14,
		.r15 = regs->r15,
		.rdi = regs->rdi,
		.rsi = regs->rsi,
		.rbp = regs->rbp,
		.rbx = regs->rbx,
		.rdx = regs->rdx,
		.rax = regs->rax,
		.rcx = regs->rcx,
		.rsp = regs->rsp,
		.rip = regs->rip,
		.eflags = regs->rflags,
		.cs = regs->cs,
		.ss = regs->ss,
		.trapno = regs->vector,
		.err = regs->vector == SYSCALL_VECTOR ? 0 : regs->error_code,
		.oldmask = oldmask,
		.fpstate = fp_addr,
	};
	frame.info.si_signo = sig;
	if (sig == current->fault_sig) {        /* si_code 0 otherwise: SI_USER */
		frame.info.si_code = current->fault_code;
		memcpy(frame.info.fields, &current->fault_addr, sizeof(u64));   /* si_addr */
		current->fault_sig = 0;
	}
	/* the SSE registers too: the handler may use them (a 512-byte
	 * kmalloc object is 512-aligned, as fxsave needs 16).  Zeroed:
	 * fxsave writes only bytes 0..415, and the rest of a recycled
	 * buffer is whatever kernel object lived there before -- copied to
	 * the user's stack it would hand out kernel pointers. */
	fx = kzalloc(FXSAVE_SIZE, GFP_KERNEL);
	if (!fx)
		return -ENOMEM;
	fpu_save_current(fx);
	if (copy_to_user((void __user *)fp_addr, fx, FXSAVE_SIZE) ||
	    copy_to_user(f, &frame, sizeof(frame)))
		err = -EFAULT;
	kfree(fx);
	if (err)
		return err;
	/* The handler starts with a clean FPU, as Linux's (fpu__clear_user_
	 * states): an x87 error left pending would fault again at its first
	 * x87 instruction.  sigreturn brings the interrupted state back. */
	fpu_init_state(current);

	regs->rdi = sig;
	regs->rsi = (u64)&f->info;
	regs->rdx = (u64)&f->uc;
	regs->rax = 0;
	regs->rsp = sp;
	regs->rip = ka->sa_handler;
	regs->rflags &= ~(X86_EFLAGS_DF | X86_EFLAGS_TF);
	regs->cs = GDT_USER_CS;
	regs->ss = GDT_USER_DS;

	current->restore_sigmask = false; /* the frame has it: sigreturn restores */
	blocked = current->sig_blocked | ka->sa_mask;
	if (!(ka->sa_flags & SA_NODEFER))
		blocked |= sigmask(sig);
	spin_lock_irqsave(&tasklist_lock, flags);
	current->sig_blocked = blocked & ~UNBLOCKABLE;
	if (ka->sa_flags & SA_RESETHAND)
		ka->sa_handler = SIG_DFL;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return 0;
}

long sys_rt_sigreturn(void)
{
	struct pt_regs *regs = task_pt_regs(current);
	struct rt_sigframe __user *f = (void __user *)(regs->rsp - 8);
	struct rt_sigframe frame;
	struct sigcontext *sc = &frame.uc.uc_mcontext;
	void *fx = kmalloc(FXSAVE_SIZE, GFP_KERNEL);

	if (!fx || copy_from_user(&frame, f, sizeof(frame)) ||
	    (sc->fpstate && copy_from_user(fx, (void __user *)sc->fpstate, FXSAVE_SIZE)))
		goto bad;
	/* the frame is the user's to write: never return to a rip outside
	 * user space (IRETQ to a non-canonical one faults in ring 0) */
	if (sc->rip >= USER_SPACE_END)
		goto bad;
	regs->r8 = sc->r8; regs->r9 = sc->r9; regs->r10 = sc->r10; regs->r11 = sc->r11;
	regs->r12 = sc->r12; regs->r13 = sc->r13; regs->r14 = sc->r14; regs->r15 = sc->r15;
	regs->rdi = sc->rdi; regs->rsi = sc->rsi; regs->rbp = sc->rbp; regs->rbx = sc->rbx;
	regs->rdx = sc->rdx; regs->rax = sc->rax; regs->rcx = sc->rcx; regs->rsp = sc->rsp;
	regs->rip = sc->rip;
	/* never trust the frame with privileges: user segments, IF on */
	regs->rflags = (regs->rflags & ~FIX_EFLAGS) | (sc->eflags & FIX_EFLAGS) | X86_EFLAGS_IF;
	regs->cs = GDT_USER_CS;
	regs->ss = GDT_USER_DS;
	/* rax is now the interrupted code's, whatever it holds: never a
	 * result to restart on (Linux sets orig_ax to -1) */
	regs->error_code = NO_RESTART;
	set_current_blocked(frame.uc.uc_sigmask);
	if (sc->fpstate)
		fpu_restore_current(fx);
	kfree(fx);
	return regs->rax;                       /* what the interrupted code had */
bad:
	kfree(fx);
	printk_ratelimited(KERN_INFO "%s[%d]: bad frame in rt_sigreturn ip %llx sp %llx\n",
			   current->comm, current->pid, (unsigned long long)regs->rip,
			   (unsigned long long)regs->rsp);
	force_sig(SIGSEGV);
	return 0;
}

/*
 * Stop: the default action of a stop signal, which do_signal() has just
 * taken off sig_pending (tasklist_lock held since, so that no SIGCONT
 * can slip in between).  Sleep TASK_STOPPED until prepare_signal() sees
 * a SIGCONT and clears SIGNAL_STOP_STOPPED, or SIGKILL arrives; any
 * other wake-up just goes back to sleep.  Linux's do_signal_stop().
 * Called and returns with tasklist_lock held (interrupts off); drops it
 * to sleep.
 */
static void do_signal_stop(int sig)
{
	struct task_struct *t = current;

	t->signal_flags = SIGNAL_STOP_STOPPED;
	t->stop_code = sig;
	set_current_state(TASK_STOPPED);
	do_notify_parent_cldstop(t);
	spin_unlock_irq(&tasklist_lock);
	for (;;) {
		set_current_state(TASK_STOPPED);
		if (!(READ_ONCE(t->signal_flags) & SIGNAL_STOP_STOPPED) ||
		    (READ_ONCE(t->sig_pending) & sigmask(SIGKILL)))
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	spin_lock_irq(&tasklist_lock);
	if (t->signal_flags & SIGNAL_STOP_STOPPED) { /* woken to die */
		t->signal_flags = 0;
		t->stop_code = 0;
	}
}

/* Was regs saved by a system call that asks to be made again? */
static bool syscall_wants_restart(const struct pt_regs *regs)
{
	return regs->vector == SYSCALL_VECTOR && regs->error_code != NO_RESTART &&
	       (long)regs->rax == -ERESTARTNOHAND;
}

/* Take the lowest pending, unblocked signal and act on it. */
static void do_signal(struct pt_regs *regs)
{
	struct task_struct *t = current;
	struct sigaction *ka;
	unsigned long flags;
	bool forced;
	u64 ready;
	int sig;

	spin_lock_irqsave(&tasklist_lock, flags);
	/* the thread's own signals first, then its process's */
	ready = t->sig_pending & ~(t->sig_blocked & ~UNBLOCKABLE);
	if (ready) {
		sig = __builtin_ctzll(ready) + 1;
		t->sig_pending &= ~sigmask(sig);
	} else {
		ready = t->signal->shared_pending & ~(t->sig_blocked & ~UNBLOCKABLE);
		if (!ready) {
			spin_unlock_irqrestore(&tasklist_lock, flags);
			return;
		}
		sig = __builtin_ctzll(ready) + 1;
		t->signal->shared_pending &= ~sigmask(sig);
	}
	forced = t->sig_forced & sigmask(sig);
	t->sig_forced &= ~sigmask(sig);
	ka = &t->sighand->action[sig - 1];
	if (sig != SIGKILL && ka->sa_handler == SIG_DFL && sig_kernel_stop(sig)) {
		/* the terminal's stops do not hold a group nobody could
		 * continue; SIGSTOP stops it all the same (Linux's
		 * get_signal()).  init is never stopped (as at sending). */
		if ((sig != SIGSTOP && will_become_orphaned_pgrp(t->pgid, 0)) ||
		    t->group_leader == init_process) {
			spin_unlock_irqrestore(&tasklist_lock, flags);
			return;
		}
		do_signal_stop(sig);
		spin_unlock_irqrestore(&tasklist_lock, flags);
		return;
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	if (sig == SIGKILL || ka->sa_handler == SIG_DFL) {
		if (sig != SIGKILL && sig_default_ignored(sig))
			return;
		/* sent while init had a handler, which it has since reset:
		 * dropped now, as at sending (Linux's get_signal() does the
		 * same for SIGNAL_UNKILLABLE).  A fault's force_sig() still
		 * kills it. */
		if (t->group_leader == init_process && sig != SIGKILL && !forced)
			return;
		do_group_exit(W_EXITCODE(0, sig));
	}
	if (ka->sa_handler == SIG_IGN)
		return;
	/* a handler runs: the interrupted call ends in -EINTR */
	if (syscall_wants_restart(regs))
		regs->rax = -EINTR;
	if (setup_rt_frame(sig, ka, regs)) {
		printk_ratelimited(KERN_INFO "%s[%d]: cannot deliver signal %d (no restorer or bad stack), killing it\n",
				   t->comm, t->pid, sig);
		do_group_exit(W_EXITCODE(0, SIGSEGV));
	}
}

void exit_to_user_mode(struct pt_regs *regs)
{
	lockdep_sys_exit(); /* lockdep=1: no lock may go along */
	for (;;) {
		local_irq_disable();
		if (need_resched()) {
			local_irq_enable();
			schedule();
			continue;
		}
		if (current->sighand && signal_pending(current)) {
			local_irq_enable();
			do_signal(regs);
			continue;
		}
		/* rt_sigsuspend ended by a signal that needed no handler */
		if (current->restore_sigmask) {
			current->restore_sigmask = false;
			spin_lock(&tasklist_lock);      /* set_current_blocked() */
			current->sig_blocked = current->saved_sigmask;
			spin_unlock(&tasklist_lock);
			continue;
		}
		/*
		 * The call was interrupted and no handler ran (the signal
		 * stopped us, or was ignored): make it again, as if the
		 * program had not yet reached SYSCALL -- the number back in
		 * rax (do_syscall_64() kept it in error_code, Linux's
		 * orig_ax), rip back over the two-byte instruction.
		 */
		if (syscall_wants_restart(regs)) {
			regs->rax = regs->error_code;
			regs->rip -= 2;
		}
		return;                         /* interrupts off, as entry.S needs */
	}
}

void task_sigmasks(struct task_struct *t, struct task_sigmasks *m)
{
	unsigned long flags;

	memset(m, 0, sizeof(*m));
	spin_lock_irqsave(&tasklist_lock, flags);
	m->pending = t->sig_pending;
	m->blocked = t->sig_blocked;
	if (t->signal)
		m->shared = t->signal->shared_pending;
	for (int sig = 1; t->sighand && sig <= _NSIG; sig++) {
		unsigned long h = t->sighand->action[sig - 1].sa_handler;

		if (h == SIG_IGN)
			m->ignored |= 1ull << (sig - 1);
		else if (h != SIG_DFL)
			m->caught |= 1ull << (sig - 1);
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
}
