/* SPDX-License-Identifier: MIT */
/*
 * process.h - the life of a process: exec, fork, exit, wait.
 *
 * A process is a task (include/spindle/sched.h) with a user address space
 * (task->mm, include/spindle/mm_types.h), a parent, and signal state.
 * Kernel threads become processes in one way only: by exec'ing a program
 * (pid 1 at boot, start_user_init(); the user test suite).  Every other
 * process is forked from one.  See docs/processes.md.
 *
 *   fork     kernel/fork.c    copy the address space (eagerly), files
 *   vfork    kernel/fork.c    share it; the parent waits for exec or exit
 *   execve   kernel/exec.c    replace the address space with an ELF image
 *   exit     kernel/exit.c    free memory and files, become a zombie
 *   wait4    kernel/exit.c    the parent reaps the zombie, reads its status
 *   (waitid the same, answered in a siginfo)
 */
#ifndef SPINDLE_PROCESS_H
#define SPINDLE_PROCESS_H

#include <spindle/types.h>
#include <spindle/compiler.h>

struct task_struct;
struct pt_regs;

/* wait4's status word, as Linux: exit code in bits 8..15, or the number
 * of the signal that killed the process in bits 0..6. */
#define W_EXITCODE(code, sig)   ((((code) & 0xff) << 8) | ((sig) & 0x7f))
#define WIFEXITED(s)            (((s) & 0x7f) == 0)
#define WEXITSTATUS(s)          (((s) >> 8) & 0xff)
#define WIFSIGNALED(s)          (((s) & 0x7f) != 0 && ((s) & 0x7f) != 0x7f)
#define WTERMSIG(s)             ((s) & 0x7f)
#define WNOHANG                 1
#define WUNTRACED 2  /* report stopped children too */
#define WCONTINUED 8 /* report continued children too */
#define WCOREFLAG 0x80 /* in the status word: it dumped core */
/* waitid(2): the events are named one by one (WSTOPPED is WUNTRACED) */
#define WSTOPPED WUNTRACED
#define WEXITED 4
#define WNOWAIT 0x01000000 /* report, but leave the child waitable */
/* waitid's idtype: which children */
#define P_ALL 0
#define P_PID 1
#define P_PGID 2
#define P_PIDFD 3
/* si_code of SIGCHLD, in waitid's siginfo (Linux's asm-generic/siginfo.h) */
#define CLD_EXITED 1
#define CLD_KILLED 2
#define CLD_DUMPED 3
#define CLD_TRAPPED 4
#define CLD_STOPPED 5
#define CLD_CONTINUED 6

/*
 * Exec the program at path in the current task, with kernel-space argv
 * and envp arrays (NULL-terminated).  Returns -errno, or does not return
 * at all: the task leaves for user mode.  May sleep.
 */
int kernel_execve(const char *path, const char *const argv[], const char *const envp[]);

/*
 * Start a new process running path (a kernel thread that execs it), as a
 * child of the current task.  Returns its pid or -errno.  The exec
 * happens in the child: a failure shows up as its exit status
 * W_EXITCODE(127, 0), like a shell's "command not found".
 */
int user_spawn(const char *path, const char *const argv[]);

/* wait4 for kernel callers: status in a kernel int.  May sleep. */
long kernel_wait4(int pid, int *status, int options);

/* kernel/main.c calls this at the end of boot: exec /init (then
 * /sbin/init) in pid 1.  Returns only if neither could be exec'd. */
int start_user_init(void);

/* A vfork child lets its parent go on: called as it gives up the
 * parent's address space, at exec and at exit (Linux's mm_release).
 * Does not sleep. */
void complete_vfork_done(struct task_struct *t);

/* Called by do_exit() for every task: a process frees its memory and
 * files and becomes a zombie (code: the wait4 status word). */
void exit_process(struct task_struct *t, int code);

/* The process is done: all of it exits with this wait4 status. */
void do_group_exit(int status) __noreturn;

/* kernel/arch/x86/process.c: switch CR3 and the SSE registers from prev
 * to next (called by __schedule(), interrupts off). */
void switch_mm_fpu(struct task_struct *prev, struct task_struct *next);
/* The user SSE state: fresh (exec), copied from the running task (fork). */
int fpu_init_state(struct task_struct *t);
int fpu_copy_current(struct task_struct *child);
/* exec: no thread pointer until the new program sets one (arch_prctl) */
void fsbase_reset(struct task_struct *t);
void fpu_free(struct task_struct *t);
void fpu_save_current(void *area);      /* 512 bytes, 16-aligned */
void fpu_restore_current(void *area);

/* kernel/arch/x86/entry.S: leave for user mode with the registers in
 * regs (the task's own pt_regs); the way a kernel thread that exec'd
 * becomes a user process. */
void ret_to_user(struct pt_regs *regs) __noreturn;
/* Where a forked child starts: finishes the switch, then returns to user
 * mode from its copy of the parent's registers with rax = 0. */
void ret_from_fork(void);

/* Work before returning to user mode: reschedule, act on signals.
 * Returns with interrupts off. */
void exit_to_user_mode(struct pt_regs *regs);

/* A fault or trap in user mode: the process gets sig (kernel/signal.c),
 * even if it blocks or ignores it. */
void force_sig(int sig);
/* The same for a fault, with the siginfo's si_code and si_addr. */
void force_sig_fault(int sig, int code, unsigned long addr);

/* si_code values of SIGFPE (Linux's asm-generic/siginfo.h) */
#define BUS_ADRERR      2               /* SIGBUS: nonexistent physical address (a mapping past EOF) */
#define FPE_INTDIV      1               /* integer divide by zero */
#define FPE_INTOVF      2               /* integer overflow */
#define FPE_FLTDIV      3               /* floating-point divide by zero */
#define FPE_FLTOVF      4               /* floating-point overflow */
#define FPE_FLTUND      5               /* floating-point underflow */
#define FPE_FLTRES      6               /* floating-point inexact result */
#define FPE_FLTINV      7               /* floating-point invalid operation */

/* pid 1, once it is a user process (orphans are reparented to it). */
extern struct task_struct *init_process;
/* Test seam (tests/kernel/user_test.c): called, when set, by fork right
 * after the child's task exists and before it is a member of anything --
 * where a signal to the parent's group can arrive.  NULL otherwise. */
extern void (*fork_test_hook)(struct task_struct *child);

#endif /* SPINDLE_PROCESS_H */
