/* SPDX-License-Identifier: MIT */
/*
 * Tasks and the scheduler.
 *
 * Every thread of execution is a struct task_struct with its own kernel
 * stack.  Spindle has one CPU and a round-robin scheduler with a time
 * slice: the timer interrupt marks the running task need_resched when its
 * slice is used up, and the interrupt's exit path preempts it
 * (kernel/arch/x86/traps.c).
 *
 * schedule() is the one place where a task gives up the CPU.  To sleep:
 *
 *     set_current_state(TASK_UNINTERRUPTIBLE);
 *     if (!condition)
 *             schedule();
 *     __set_current_state(TASK_RUNNING);
 *
 * (or use wait_event(), include/spindle/wait.h).  Setting the state first
 * and testing the condition after means a wake_up_process() that happens
 * in between just puts the task back to TASK_RUNNING, and schedule() then
 * returns at once: no wakeup is lost.
 *
 * States as in Linux: TASK_RUNNING (on the run queue or running),
 * TASK_INTERRUPTIBLE (asleep; a signal may wake it), TASK_UNINTERRUPTIBLE
 * (asleep until its event: disk I/O waits are these, the "D" state),
 * TASK_STOPPED (job control: stopped by SIGSTOP or ^Z until SIGCONT, the
 * "T" state; kernel/signal.c).
 */
#ifndef SPINDLE_SCHED_H
#define SPINDLE_SCHED_H

#include <spindle/types.h>
#include <spindle/list.h>
#include <spindle/irqflags.h>
#include <spindle/lockdep.h>
#include <spindle/percpu.h>
#include <spindle/barrier.h>
#include <spindle/spinlock.h>
#include <spindle/refcount.h>
#include <spindle/smp.h>

struct bio_list;
struct blk_plug;
struct completion;
struct mm_struct;
struct sighand_struct;
struct signal_struct;

#define TASK_RUNNING            0
#define TASK_INTERRUPTIBLE      1
#define TASK_UNINTERRUPTIBLE    2
#define TASK_STOPPED            4
#define TASK_DEAD               64

#define TASK_COMM_LEN           16
#define THREAD_SIZE             16384   /* kernel stack per task */
#define SCHED_TIMESLICE_MS      10      /* round-robin time slice */

#define MAX_SCHEDULE_TIMEOUT    ((long)(~0UL >> 1))

struct task_struct {
	volatile long state;
	int pid;
	char comm[TASK_COMM_LEN];

	unsigned long ksp;              /* saved stack pointer while switched out */
	void *stack;                    /* base of the THREAD_SIZE kernel stack */

	struct list_head run_list;      /* on its rq's queue while waiting to run */
	struct list_head tasks;         /* on the list of all tasks */
	unsigned int time_slice;        /* ticks left before preemption */
	/* on a run queue: waiting there, or running (kernel/sched/sched.h);
	 * false once __schedule() has put it to sleep.  Under the rq's lock. */
	bool on_rq;
	/* on a CPU: from when __schedule() picks it until the switch away
	 * from it is complete, its stack no longer in use -- a waker on
	 * another CPU waits for that before it queues the task again */
	int on_cpu;
	int cpu;                        /* the CPU whose rq it is on, or last ran on */
	/* the CPUs it may run on (sched_setaffinity(); Linux's cpus_mask):
	 * changed under pi_lock and its rq's lock, so a wake-up sees it whole */
	struct cpumask cpus_mask;
	/* its CPU left cpus_mask while it ran: __schedule() took it off that
	 * rq, and finish_task_switch() queues it on an allowed one */
	bool migrate_pending;
	/* serializes its wake-ups (try_to_wake_up(); taken before the rq's lock) */
	spinlock_t pi_lock;
	/* task_lock(): its mm, stack and vfork_done, as another CPU reads
	 * them (Linux's alloc_lock); after tasklist_lock, before pi_lock */
	spinlock_t alloc_lock;
	/* asleep waiting for I/O (io_wait_event()): counted in its rq's
	 * nr_iowait while it sleeps */
	bool in_iowait;
	/* asleep TASK_UNINTERRUPTIBLE: counted in its rq's
	 * nr_uninterruptible until woken (the load average) */
	bool sched_contributes_to_load;
	/* CPU time it used, and when it started (ns; /proc/<pid>/stat) */
	u64 utime, stime, start_time;
	/* system calls it made: counted by do_syscall_64 on the task's own
	 * CPU, read by /proc/<pid>/syscalls from any (an aligned u64) */
	u64 nr_syscalls;

	int (*threadfn)(void *data);    /* kernel thread body */
	void *data;
	int exit_code;
	refcount_t usage;               /* the task itself + get_task_struct() */
	bool should_stop;               /* kthread_stop() was called */
	struct task_struct *stopper;    /* who waits in kthread_stop() */

	/* the block layer (include/spindle/bio.h): bios queued by
	 * generic_make_request() while this task is inside a make_request_fn
	 * (recursion avoidance): [0] those queued by the running
	 * make_request_fn, [1] those waiting from before.  NULL when the task
	 * is not submitting. */
	struct bio_list *bio_list;
	/* the task's on-stack plug (include/spindle/blk_plug.h), or NULL;
	 * schedule() flushes it before the task sleeps (Linux commit 73c101011926) */
	struct blk_plug *plug;
	/* the hardware queue this task is dispatching to right now, if any
	 * (block/blk-mq.c: an inline completion does not nest a second run) */
	struct blk_mq_hw_ctx *blk_dispatch_hctx;
	/* the journal handle this task holds open (fs/jbd2/transaction.c),
	 * or NULL: a second jbd2_journal_start() nests in it */
	void *journal_info;
	/* io_uring (fs/io-wq.c): set as the task exits or execs, once its
	 * io-wq works are cancelled; no work of its own runs after that */
	bool io_uring_cancel;

	/* lockdep=1 (include/spindle/lockdep.h): the locks it holds,
	 * innermost last */
	unsigned int lockdep_depth;
	struct held_lock held_locks[MAX_LOCK_DEPTH];

	/* statistics (for /proc/<pid>/stat, the hung-task detector) */
	u64 nvcsw, nivcsw;              /* voluntary / involuntary switches */
	u64 sleep_start;                /* ktime_get_ns() when it last slept */

	/* --- processes (kernel/fork.c, exec.c, exit.c, signal.c,
	 * docs/processes.md).  A kernel thread has mm == NULL and runs on the
	 * kernel's page tables; exec gives a task an mm and makes it a
	 * process, fork copies one.  Zero/NULL in a kernel thread. --- */
	struct mm_struct *mm;           /* user address space, or NULL */
	/* the thread group (kernel/fork.c, docs/processes.md "Threads"):
	 * tgid is the process's id, getpid()'s answer -- the pid of its
	 * first thread, the group_leader.  thread_group links the threads
	 * of one group (empty for a process of one thread); signal is
	 * their shared state.  Changed under tasklist_lock. */
	int tgid;
	struct task_struct *group_leader;
	struct list_head thread_group;
	struct signal_struct *signal;   /* NULL in a kernel thread */
	/* a vfork child: its parent's completion, waited on until this
	 * child execs or exits (complete_vfork_done); NULL otherwise, and
	 * once done -- or once the parent, killed, has stopped waiting */
	struct completion *vfork_done;
	struct task_struct *parent;     /* who reaps it with wait4, or NULL */
	struct list_head children;      /* its children, linked by ->sibling */
	struct list_head sibling;
	int exit_state;                 /* 0, EXIT_ZOMBIE, EXIT_DEAD */
	int wait_status;                /* wait4's status word, once a zombie */
	int pgid, sid;                  /* process group and session */
	u64 sig_pending;                /* bit sig-1: sent, not yet acted on */
	u64 sig_blocked;                /* rt_sigprocmask's mask */
	u64 sig_forced;                 /* of sig_pending: sent by force_sig() (a fault) */
	/* job control (kernel/signal.c): SIGNAL_STOP_STOPPED while stopped,
	 * SIGNAL_STOP_CONTINUED from SIGCONT until wait4(WCONTINUED) has
	 * reported it; stop_code: the signal that stopped it, until
	 * wait4(WUNTRACED) has reported it (Linux's group_exit_code) */
	unsigned int signal_flags;
	int stop_code;
	struct sighand_struct *sighand; /* actions per signal; NULL: kernel thread */
	/* the siginfo of a fault's signal (force_sig_fault()): si_code and
	 * si_addr for the frame of signal fault_sig; 0 when none */
	int fault_sig, fault_code;
	unsigned long fault_addr;
	void *fpu_state;                /* 512-byte fxsave area (SSE registers) */
	unsigned long fsbase;		/* MSR_FS_BASE: the libc's thread pointer (arch_prctl) */
	/* rt_sigsuspend: the mask to put back once the signal that ended it
	 * has been handled (its frame carries this one, not the temporary) */
	u64 saved_sigmask;
	bool restore_sigmask;
	unsigned long sas_ss_sp, sas_ss_size; /* sigaltstack(2); size 0: none */
	int __user *clear_child_tid;	      /* set_tid_address / CLONE_CHILD_CLEARTID: 0 at exit */
	void __user *robust_list;	      /* set_robust_list: kept, not walked at exit */
	unsigned int umask;		      /* umask(2): bits taken off a new file's mode */
	int nice;                       /* setpriority(2), -20..19: shown, not weighed
					 * (the scheduler is round robin) */
	int mempolicy;                  /* set_mempolicy(2)'s mode: one node, all alike */

	/* the file layer (include/spindle/fs.h): the
	 * descriptor table and the cwd/root; NULL in a kernel thread that has
	 * none (it then looks paths up from the namespace's root) */
	struct files_struct *files;
	struct fs_struct *fs;
};

/* exit_state: a zombie has exited and waits for its parent's wait4. */
#define EXIT_ZOMBIE             16
#define EXIT_DEAD               32

/* The task running on this CPU (Linux's current): one instruction, %gs
 * relative (asm/percpu.h).  It is the same task wherever that task runs,
 * so the compiler may reuse a value read earlier. */
DECLARE_PER_CPU(struct task_struct *, current_task);
#define current this_cpu_read_stable(current_task)

/* The running task's name, safe to call before the scheduler starts. */
const char *current_comm(void);

/*
 * Before testing the condition it waits for, a sleeper sets its state;
 * a waker sets the condition, then looks at the state.  Each side is a
 * store followed by a load of the other's variable -- the one pair x86
 * reorders (barrier.h).  Without the full barrier both could see the old
 * value: the sleeper sleeps, the waker does not wake it.  So
 * set_current_state() is smp_store_mb(), as in Linux; the waker's side
 * gets its barrier in try_to_wake_up(), right after it takes the task's
 * pi_lock (smp_mb__after_spinlock()).  __set_current_state() is for
 * setting TASK_RUNNING, which needs no such pairing.
 */
static inline void __set_current_state(long s) { current->state = s; }
static inline void set_current_state(long s)
{
	smp_store_mb(current->state, s);
}

void sched_init(void);
/* An application processor's idle task, made its current (smpboot.c). */
struct task_struct *init_idle(unsigned int cpu, void *stack);
/* Give up the CPU: run the next runnable task (may sleep). */
void schedule(void);
/* schedule() for a task waiting for I/O: always sends its plugged I/O
 * first, whatever its state (Linux's io_schedule). */
void io_schedule(void);
/* Sleep for at most timeout jiffies in the current state (set it first);
 * returns the jiffies left (0 if it timed out). */
long schedule_timeout(long timeout);
long schedule_timeout_uninterruptible(long timeout);
/* Voluntarily let other runnable tasks go first. */
void yield(void);
/* Make a sleeping task runnable; returns false if it was already running.
 * Does not sleep: callable from interrupt handlers, on any CPU. */
bool wake_up_process(struct task_struct *p);
/* The same, only if its state is one of those in the mask @state
 * (TASK_INTERRUPTIBLE: a signal wakes only who sleeps interruptibly) */
bool wake_up_state(struct task_struct *p, unsigned int state);
/* The idle loop, where each CPU's boot ends. */
void cpu_startup_entry(void) __attribute__((noreturn));
#define TASK_NORMAL (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)

/* The CPU whose run queue the task is on, or last was. */
static inline unsigned int task_cpu(const struct task_struct *p)
{
	return (unsigned int)READ_ONCE(p->cpu);
}

/* This CPU should switch tasks as soon as it may: set by the timer tick
 * when the running task's slice is used up, or by a wake-up while the
 * CPU idles -- from another CPU with a RESCHEDULE_VECTOR IPI after it
 * (resched_curr()). */
DECLARE_PER_CPU(bool, __need_resched);
static inline bool need_resched(void) { return this_cpu_read(__need_resched); }
/* A task that spins (bio_poll's callers) gives the CPU up here when its
 * slice is over; it stays runnable (Linux's cond_resched). */
static inline void cond_resched(void)
{
	if (need_resched())
		schedule();
}
/* Called on the way out of an interrupt; irqs_were_on: the interrupted
 * context had interrupts enabled (so it may be preempted). */
void irq_exit_preempt(bool irqs_were_on);

/* Called by every CPU's tick (update_process_times()): the running
 * task's time slice. */
void scheduler_tick(void);
/* Every CPU's tick: charge the tick to the running task and to this
 * CPU's user, system, idle or iowait time (kernel/sched/cputime.c), then
 * scheduler_tick().  user_tick: the tick interrupted user mode. */
void update_process_times(bool user_tick);
/* tasks asleep in io_wait_event() (all CPUs, or one) */
unsigned int nr_iowait(void);
unsigned int nr_iowait_cpu(unsigned int cpu);
/* context switches since boot, all CPUs */
u64 nr_context_switches(void);
/* tasks made since boot (fork, kernel threads); under the task list's
 * interrupts-off for now, as next_pid */
extern unsigned long total_forks;

/* A new task that starts at `entry` (asm) the first time it is switched
 * to, with the task it replaced in %rax; not runnable until
 * wake_up_process().  fork and kthread_create use it.  NULL: no memory. */
struct task_struct *create_task(const char *comm, void *entry);
/* Called first by a new task (ret_from_fork): what __schedule() would
 * have done after __switch_to. */
void schedule_tail(struct task_struct *prev);
/* Find a task by pid; NULL if none.  Hold tasklist_lock while using the
 * result: it keeps the task from being reaped (Linux's RCU does that). */
struct task_struct *find_task_by_pid(int pid);
/* The same, and also the leader of a process whose other threads live on
 * although the leader has exited (kill(), /proc name a process by it);
 * tasklist_lock held (kernel/signal.c). */
struct task_struct *find_task_by_tgid(int tgid);
/* The threads of p's process not yet exiting, at least 1 (a zombie
 * counts itself, as Linux's); tasklist_lock held (kernel/signal.c). */
int get_nr_threads(const struct task_struct *p);

/* Kernel threads. */
struct task_struct *kthread_create(int (*fn)(void *data), void *data,
				   const char *namefmt, ...) __attribute__((format(printf, 3, 4)));
#define kthread_run(fn, data, ...) ({ \
	struct task_struct *__k = kthread_create(fn, data, __VA_ARGS__); \
	if (__k) \
		wake_up_process(__k); \
	__k; \
})
/* Ask a thread to stop and wait until it has exited; returns its result. */
int kthread_stop(struct task_struct *k);
bool kthread_should_stop(void);
/* A kernel thread borrows a process's address space, and gives it back
 * (Linux's kthread_use_mm): kernel/sched/core.c says what the caller
 * holds.  May not be nested. */
void kthread_use_mm(struct mm_struct *mm);
void kthread_unuse_mm(struct mm_struct *mm);
void do_exit(int code) __attribute__((noreturn));
/* do_exit()'s last step: never returns (kernel/sched/core.c) */
void do_task_dead(void) __attribute__((noreturn));

/* Does t have a signal to act on (pending, not blocked)?  kernel/signal.c;
 * here, not in signal.h with the rest, because sleeping code tests it. */
bool signal_pending(struct task_struct *t);
/* /proc/<pid>/status's signal lines: bit sig-1 of each mask -- t's own
 * pending, its process's, blocked, ignored, caught (kernel/signal.c) */
struct task_sigmasks {
	u64 pending, shared, blocked, ignored, caught;
};
void task_sigmasks(struct task_struct *t, struct task_sigmasks *m);
/* The session of process group pgrp (or of process pgrp), or -ESRCH
 * (kernel/sys.c; TIOCSPGRP checks it). */
int session_of_pgrp(int pgrp);

/* Keep a task_struct alive after the task exits (e.g. to read exit_code). */
void get_task_struct(struct task_struct *p);
void put_task_struct(struct task_struct *p);

/* Every task but the idle tasks, linked by ->tasks.  tasklist_lock
 * (irqsave) guards the list and each task's parent, children, pgid and
 * sid, exit_state and signal state: walk the list, fork, exit, reap and
 * send signals under it (Linux's tasklist_lock, an rwlock there; one
 * spinlock is enough here).  Taken before alloc_lock, pi_lock, rq locks. */
extern struct list_head task_list;
extern spinlock_t tasklist_lock;

/* A task's mm, stack and vfork_done, against another CPU reading them
 * (Linux's task_lock(), include/linux/sched/task.h).  Not irq-safe:
 * never taken from an interrupt. */
static inline void task_lock(struct task_struct *p)
{
	spin_lock(&p->alloc_lock);
}

static inline void task_unlock(struct task_struct *p)
{
	spin_unlock(&p->alloc_lock);
}
/* runnable tasks on every CPU, the running ones included, idle not */
unsigned int nr_running(void);
/* Let p run only on the CPUs in mask (some online one): -EINVAL if none
 * is.  A task running elsewhere moves at its next switch, a queued one at
 * once (Linux's set_cpus_allowed_ptr()). */
int set_cpus_allowed_ptr(struct task_struct *p, const struct cpumask *mask);
/* The idle loop's step before it halts: if this CPU has nothing to run
 * and another has tasks waiting, take one (Linux's newidle balance).
 * Interrupts off.  True if it took one: schedule() then runs it. */
bool idle_balance(void);
/* The idle loop, where each CPU's boot ends. */
void cpu_startup_entry(void) __attribute__((noreturn));
/* the RESCHEDULE_VECTOR IPI's handler: this CPU was asked to
 * reschedule; the interrupt's exit does it (Linux's scheduler_ipi()) */
void scheduler_ipi(void);

#endif /* SPINDLE_SCHED_H */
