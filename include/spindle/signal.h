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

struct sighand_struct {
	struct sigaction action[_NSIG]; /* [sig - 1] */
};

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
/* signal_pending() is declared in sched.h, where sleeping code finds it. */
/* Will t die of a signal already sent (SIGKILL, or one whose action is the
 * default "terminate")?  For loops that must end early for a dying task. */
bool fatal_signal_pending(struct task_struct *t);

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
