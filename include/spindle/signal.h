/* SPDX-License-Identifier: MIT */
/*
 * signal.h - signals, with Linux's numbers and x86-64 ABI structures.
 *
 * A signal is a bit in the target's sig_pending (task_struct).  Sending
 * only sets the bit (and wakes the target if it sleeps interruptibly);
 * the target acts on it itself, on its way back to user mode
 * (exit_to_user_mode(), kernel/signal.c): ignore it, die of it (the
 * default action of most), or run the process's handler in a signal
 * frame that rt_sigreturn(15) takes down again.  See docs/processes.md.
 *
 * For other subsystems: kill_pgrp() (the console's ^C) and
 * signal_pending() -- a task sleeping TASK_INTERRUPTIBLE should check it
 * after each wake-up and return -EINTR (wait4, nanosleep, pipes, the tty).
 */
#ifndef SPINDLE_SIGNAL_H
#define SPINDLE_SIGNAL_H

#include <spindle/types.h>
#include <spindle/compiler.h>
#include <spindle/atomic.h>
#include <spindle/time.h>

#include <uapi/asm/signal.h> /* the numbers and flags, shared with user space */

#define _NSIG           64

#define SIG_DFL         ((unsigned long)0)
#define SIG_IGN         ((unsigned long)1)

typedef u64 sigset_t;                   /* bit sig-1 (the kernel's sigset) */

#define sigmask(sig)    (1ull << ((sig) - 1))

/* The rt_sigaction argument, as x86-64 Linux lays it out. */
struct sigaction {
	unsigned long sa_handler;       /* SIG_DFL, SIG_IGN or a function */
	unsigned long sa_flags;
	unsigned long sa_restorer;      /* calls rt_sigreturn (libc provides it) */
	sigset_t sa_mask;               /* blocked while the handler runs */
};

/* The actions, shared by the tasks cloned with CLONE_SIGHAND (every
 * thread of a process): a handler one thread sets is every thread's. */
struct sighand_struct {
	int count;                      /* tasks using it; under tasklist_lock */
	struct sigaction action[_NSIG]; /* [sig - 1] */
};

/*
 * What the threads of one process share of signals (Linux's
 * signal_struct): the signals sent to the process as a whole (kill) --
 * any thread that does not block one may take it -- and the group exit.
 * A thread's own pending set (tgkill, a fault) and blocked mask stay in
 * its task_struct.  Under tasklist_lock, but for live, which an exiting
 * thread counts down without it.
 */
/* CPU time and context switches, summed (getrusage, kernel/exit.c) */
struct task_usage {
	u64 utime, stime;               /* ns */
	u64 nvcsw, nivcsw;
};

struct signal_struct {
	int count;                      /* tasks pointing at it; under tasklist_lock */
	atomic_t live;                  /* threads not yet exiting */
	u64 shared_pending;             /* process-directed signals: bit sig-1 */
	unsigned int flags;             /* SIGNAL_GROUP_EXIT */
	int group_exit_code;            /* the wait4 status, once a group exit began */
	/* execve in a thread: the others are being killed for it (de_thread) */
	struct task_struct *group_exec_task;
	/* ITIMER_REAL, setitimer(2) and alarm(2) (kernel/itimer.c): SIGALRM
	 * to the process at it_real_expires (ktime_get_ns(); 0: disarmed),
	 * then every it_real_incr ns if that is not 0.  Under tasklist_lock;
	 * cancelled when the last thread exits (itimer_exit()). */
	struct timer_list real_timer;
	u64 it_real_expires;
	u64 it_real_incr;
	int it_real_tgid;               /* the process it signals */
	/* getrusage's: the process's threads already gone (each added as
	 * it is released), and its reaped children (their whole process,
	 * their own children included).  Under tasklist_lock. */
	struct task_usage dead, children;
};
#define SIGNAL_GROUP_EXIT       0x4     /* exit_group or a fatal signal: all threads die */

struct task_struct;

/* Send sig to every process in process group pgrp (the console's ^C);
 * 0 if one at least got it, -ESRCH if the group is empty. */
int kill_pgrp(int pgrp, int sig);
/* Send sig to one task; does not sleep. */
void send_sig(int sig, struct task_struct *t);
/* t has just become a zombie: wake its parent in wait4 and send it
 * SIGCHLD (exit_process(); tasklist_lock held). */
void do_notify_parent(struct task_struct *t);
/* A temporary signal mask for a wait (rt_sigsuspend, ppoll, pselect6): the
 * caller's comes back once the signal that ends the wait has been handled. */
void set_restore_sigmask(sigset_t mask);
/* A new process's signal state: actions all SIG_DFL, nothing pending
 * (exec of a kernel thread).  0 or -ENOMEM. */
int alloc_signal_state(struct task_struct *t);
/* Drop t's uses of its sighand and signal_struct (the last frees them);
 * t no longer sends or takes signals.  Takes tasklist_lock. */
void exit_signal_state(struct task_struct *t);
/* The same, tasklist_lock held (release_task, reaping). */
void __exit_signal_state(struct task_struct *t);
/* Wake every thread of parent's process that sleeps interruptibly (one
 * may be in wait4); tasklist_lock held. */
void wake_up_parent(struct task_struct *parent);
/* Send sig to t's whole thread group, as kill() does; tasklist_lock held. */
void group_send_sig(int sig, struct task_struct *t);
/* Kill every other thread of current's group (SIGKILL); tasklist_lock
 * held.  Returns how many there were. */
int zap_other_threads(struct task_struct *t);
/* signal_pending() is declared in sched.h, where sleeping code finds it. */
/* Will t die of a signal already sent (SIGKILL, or one whose action is the
 * default "terminate")?  For loops that must end early for a dying task. */
bool fatal_signal_pending(struct task_struct *t);

/* --- interval timers (kernel/itimer.c) --- */

/* A new signal_struct's ITIMER_REAL: disarmed (fork's child has none). */
void itimer_init(struct signal_struct *sig);
/* The process's last thread is exiting: cancel ITIMER_REAL and wait for
 * its function to finish, so that none runs once sig is freed.  May spin;
 * no locks held. */
void itimer_exit(struct signal_struct *sig);

/* --- job control (kernel/signal.c) --- */

/* task_struct.signal_flags */
#define SIGNAL_STOP_STOPPED     0x1     /* stopped: sleeps TASK_STOPPED */
#define SIGNAL_STOP_CONTINUED   0x2     /* SIGCONT'd, not yet reported by wait4 */

/* Does current ignore or block sig?  (The terminal: a background read
 * with SIGTTIN ignored fails with -EIO instead of stopping.) */
bool is_ignored(int sig);
/* Is current's process group orphaned -- no member has a parent in
 * another group of the same session, so no shell would continue it?
 * A terminal stop signal to such a group is discarded. */
bool is_current_pgrp_orphaned(void);
/* t is exiting: a process group its exit orphans, with stopped members,
 * gets SIGHUP and SIGCONT (POSIX).  tasklist_lock held. */
void exit_orphaned_pgrps(struct task_struct *t);
/* wait4's report of child c's stop (WUNTRACED) or continue (WCONTINUED),
 * taken once (WNOWAIT: left for the next wait; tasklist_lock held): the status word, or 0 if
 * there is none to report.  Interrupts off. */
int wait_task_jobctl(struct task_struct *c, int options);

#endif /* SPINDLE_SIGNAL_H */
