// SPDX-License-Identifier: MIT
/*
 * sys.c - the small process system calls: identity (getpid, getppid,
 * the user and group ids), process groups and sessions, sleeping and
 * yielding, the clock, uname, resource limits, random bytes, what a C
 * library asks at start-up (set_tid_address, set_robust_list, rseq),
 * reboot -- and start_user_init(), which turns pid 1 into the first user
 * process at the end of boot.
 */
#define pr_fmt(fmt) "init: " fmt
#include <spindle/loadavg.h>
#include <spindle/fs.h>
#include <spindle/init.h>
#include <spindle/err.h>
#include <spindle/process.h>
#include <spindle/signal.h>
#include <spindle/syscalls.h>
#include <spindle/version.h>
#include <spindle/uaccess.h>
#include <spindle/sched.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include <spindle/time.h>
#include <spindle/mm_types.h>
#include <spindle/mm.h>
#include <spindle/pagemap.h>
#include <uapi/linux/sysinfo.h>
#include <uapi/linux/timex.h>
#include <asm/cpu.h>
#include <asm/traps.h>
#include <asm/io.h>

/* the process's id: its thread group's (gettid() is the thread's own) */
long sys_getpid(void)
{
	return current->tgid;
}

/* the parent process: its leader is the parent of our leader */
long sys_getppid(void)
{
	struct task_struct *p = READ_ONCE(current->group_leader->parent);

	return p ? p->tgid : 0;
}

/* Every thread of t's process moves to process group pgid, session sid
 * (a process is in one group); tasklist_lock held. */
static void set_group_ids(struct task_struct *t, int pgid, int sid)
{
	struct task_struct *leader = t->group_leader, *th = leader;

	do {
		th->pgid = pgid;
		th->sid = sid;
		th = list_next_entry(th, thread_group);
	} while (th != leader);
}

long sys_getpgrp(void)
{
	return current->pgid;
}

/* Is there a process in session sid with process group pgrp?
 * tasklist_lock held. */
static bool pgrp_in_session(int pgrp, int sid)
{
	struct task_struct *t;

	assert_spin_locked(&tasklist_lock);
	list_for_each_entry(t, &task_list, tasks)
		if (t->sighand && !t->exit_state && t->pgid == pgrp && t->sid == sid)
			return true;
	return false;
}

/*
 * The session of process group pgrp, for TIOCSPGRP (Linux's
 * session_of_pgrp()): that of a member, else that of the process whose
 * pid it is; -ESRCH when the number is nobody's.
 */
int session_of_pgrp(int pgrp)
{
	struct task_struct *t;
	unsigned long flags;
	int sid = -ESRCH, pid_sid = -ESRCH;

	spin_lock_irqsave(&tasklist_lock, flags);
	list_for_each_entry(t, &task_list, tasks) {
		if (!t->sighand || t->state == TASK_DEAD)
			continue;
		if (t->pgid == pgrp) {
			sid = t->sid;
			break;
		}
		if (t->pid == pgrp)
			pid_sid = t->sid;
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return sid >= 0 ? sid : pid_sid;
}

/*
 * setpgid(pid, pgid): move pid (0: the caller) -- the caller or one of
 * its children -- into process group pgid (0: its own pid).  A shell
 * puts each job in its own group, so that ^C reaches the job only.
 */
long sys_setpgid(pid_t pid, pid_t pgid)
{
	struct task_struct *t;
	unsigned long flags;
	long err = 0;

	/* in Linux's order: setpgid(-1, 0) asks for group -1, EINVAL */
	if (pid == 0)
		pid = current->tgid;
	if (pgid == 0)
		pgid = pid;
	if (pgid < 0)
		return -EINVAL;
	spin_lock_irqsave(&tasklist_lock, flags); /* t cannot be reaped meanwhile */
	t = find_task_by_pid(pid);
	if (t)
		t = t->group_leader;
	if (!t || !t->sighand || t->exit_state ||
	    (t != current->group_leader && t->parent != current->group_leader))
		err = -ESRCH;
	else if (t->sid != current->sid || t->sid == t->pid)
		err = -EPERM;                   /* another session, or its leader */
	else if (pgid != pid && !pgrp_in_session(pgid, current->sid))
		err = -EPERM;                   /* no such group here */
	else
		set_group_ids(t, pgid, t->sid);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return err;
}

/* A new session and group, led by the caller (not already a group
 * leader).  The test and the change are one step under tasklist_lock:
 * otherwise a child's setpgid() on another CPU could make a group of
 * our pid in between, and we would lead a group in two sessions. */
long sys_setsid(void)
{
	struct task_struct *t;
	unsigned long flags;
	long ret;

	spin_lock_irqsave(&tasklist_lock, flags);
	ret = current->tgid;
	list_for_each_entry(t, &task_list, tasks)
		if (t->sighand && t->pgid == current->tgid)
			ret = -EPERM;
	if (ret > 0)
		set_group_ids(current, current->tgid, current->tgid);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return ret;
}

/* getpgid/getsid(pid): of the caller (0) or of any process */
static long task_ids(pid_t pid, bool sid)
{
	struct task_struct *t;
	unsigned long flags;
	long ret;

	if (pid < 0)
		return -ESRCH;
	if (!pid)
		return sid ? current->sid : current->pgid;
	spin_lock_irqsave(&tasklist_lock, flags);
	t = find_task_by_pid(pid);
	ret = !t || !t->sighand || t->exit_state ? -ESRCH : sid ? t->sid : t->pgid;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return ret;
}

long sys_getpgid(pid_t pid)
{
	return task_ids(pid, false);
}

long sys_getsid(pid_t pid)
{
	return task_ids(pid, true);
}

/*
 * Users and groups: Spindle has one user, root (uid and gid 0), as a
 * single-user teaching machine.  The calls that read an id answer 0; the
 * calls that set one succeed only when asked for 0 -- root becoming root --
 * and refuse anything else with -EPERM rather than pretend.
 */
long sys_getuid(void) { return 0; }
long sys_geteuid(void) { return 0; }
long sys_getgid(void) { return 0; }
long sys_getegid(void) { return 0; }

long sys_setuid(u32 uid)
{
	return uid == 0 ? 0 : -EPERM;
}

long sys_setgid(u32 gid)
{
	return gid == 0 ? 0 : -EPERM;
}

static long all_root(const u32 __user *a, const u32 __user *b, const u32 __user *c)
{
	static const u32 zero[3];

	if (copy_to_user((void __user *)a, zero, sizeof(u32)) ||
	    copy_to_user((void __user *)b, zero, sizeof(u32)) ||
	    copy_to_user((void __user *)c, zero, sizeof(u32)))
		return -EFAULT;
	return 0;
}

long sys_getresuid(u32 __user *r, u32 __user *e, u32 __user *s)
{
	return all_root(r, e, s);
}

long sys_getresgid(u32 __user *r, u32 __user *e, u32 __user *s)
{
	return all_root(r, e, s);
}

/* no supplementary groups */
long sys_getgroups(int size, u32 __user *list)
{
	(void)list;
	return size < 0 ? -EINVAL : 0;
}

long sys_umask(int mask)
{
	unsigned int old = current->umask;

	current->umask = mask & 0777;
	return old;
}

/*
 * The start-up calls of a C library.  set_tid_address: where the thread's
 * id lives, cleared at exit (kernel/exit.c); the result is the tid, which
 * for a process's first thread is its pid.  set_robust_list: the list of
 * mutexes a thread holds, which exit marks FUTEX_OWNER_DIED if it dies
 * holding them (kernel/futex.c).  rseq: restartable
 * sequences are not implemented; -ENOSYS, as a kernel built without
 * CONFIG_RSEQ answers, and glibc carries on without them.
 */
long sys_set_tid_address(int __user *tidptr)
{
	current->clear_child_tid = tidptr;
	return current->pid;            /* the thread's id */
}

/* getcpu: the CPU the caller runs on (it may move right after), node 0 */
long sys_getcpu(unsigned int __user *cpu, unsigned int __user *node, void __user *unused)
{
	unsigned int c = smp_processor_id(), n = 0;

	(void)unused;
	if (cpu && copy_to_user(cpu, &c, sizeof(c)))
		return -EFAULT;
	if (node && copy_to_user(node, &n, sizeof(n)))
		return -EFAULT;
	return 0;
}

/*
 * get_mempolicy: the NUMA policy, on a machine of one node (Linux's
 * answers with CONFIG_NUMA and one node; set_mempolicy and mbind do not
 * exist here).  libnuma asks at start-up whether NUMA works; fio links
 * it.  The policy is always MPOL_DEFAULT, whose node mask is empty; the
 * nodes allowed are {0}; every page is on node 0.
 */
#define MPOL_DEFAULT            0
#define MPOL_PREFERRED          1
#define MPOL_BIND               2
#define MPOL_INTERLEAVE         3
#define MPOL_LOCAL              4
#define MPOL_PREFERRED_MANY     5
#define MPOL_MODE_FLAGS         (3 << 14)       /* MPOL_F_STATIC_NODES, _RELATIVE_NODES */
#define MPOL_F_NODE             (1 << 0)        /* the node, not the policy */
#define MPOL_F_ADDR             (1 << 1)        /* of the page at addr */
#define MPOL_F_MEMS_ALLOWED     (1 << 2)        /* the nodes allowed */

long sys_get_mempolicy(int __user *policy, unsigned long __user *nmask, unsigned long maxnode,
		       unsigned long addr, unsigned long flags)
{
	unsigned long words = maxnode ? (maxnode - 1 + 63) / 64 : 0, first = 0;
	int mode = current->mempolicy;

	if (flags & ~(unsigned long)(MPOL_F_NODE | MPOL_F_ADDR | MPOL_F_MEMS_ALLOWED))
		return -EINVAL;
	if (nmask && maxnode < 1)       /* fewer bits than nodes */
		return -EINVAL;
	if (flags & MPOL_F_MEMS_ALLOWED) {
		if (flags & (MPOL_F_NODE | MPOL_F_ADDR))
			return -EINVAL;
		first = 1;              /* node 0 */
		mode = MPOL_DEFAULT;
	} else if (flags & MPOL_F_ADDR) {
		struct mm_struct *mm = current->mm;
		struct vm_area_struct *vma;
		bool mapped;

		if (!mm)
			return -EFAULT;
		mutex_lock(&mm->mmap_lock);
		vma = find_vma(mm, addr);
		mapped = vma && vma->vm_start <= addr;
		mutex_unlock(&mm->mmap_lock);
		if (!mapped)
			return -EFAULT;
		/* MPOL_F_NODE: the page's node, 0; else the VMA's policy,
		 * which mbind would set: the task's */
		if (flags & MPOL_F_NODE)
			mode = 0;
	} else if (addr) {
		return -EINVAL;
	} else if (flags & MPOL_F_NODE) {
		/* the next node an interleave policy uses: 0 */
		if (mode != MPOL_INTERLEAVE)
			return -EINVAL;
		mode = 0;
	}
	/* the policy's nodes: {0} for all but MPOL_DEFAULT and MPOL_LOCAL */
	if (!(flags & (MPOL_F_MEMS_ALLOWED | MPOL_F_NODE)) &&
	    current->mempolicy != MPOL_DEFAULT && current->mempolicy != MPOL_LOCAL)
		first = 1;
	if (policy && copy_to_user(policy, &mode, sizeof(mode)))
		return -EFAULT;
	if (!nmask)
		return 0;
	if (words * sizeof(long) > PAGE_SIZE)
		return -EINVAL;         /* as Linux's copy_nodes_to_user */
	for (unsigned long i = 0; i < words; i++) {
		unsigned long w = i ? 0 : first;

		if (copy_to_user(nmask + i, &w, sizeof(w)))
			return -EFAULT;
	}
	return 0;
}

/*
 * set_mempolicy: every policy is the same on one node, so only what
 * Linux refuses is refused -- an unknown mode, a node that is not online
 * (any but 0), a mask where the mode takes none or an empty one where it
 * needs one -- and the mode is kept for get_mempolicy.
 */

long sys_set_mempolicy(int mode, const unsigned long __user *nmask, unsigned long maxnode)
{
	unsigned long words = maxnode > 1 ? (maxnode - 1 + 63) / 64 : 0, w, nodes = 0;
	int flags = mode & MPOL_MODE_FLAGS;

	mode &= ~MPOL_MODE_FLAGS;
	if (mode < MPOL_DEFAULT || mode > MPOL_PREFERRED_MANY || flags == MPOL_MODE_FLAGS)
		return -EINVAL;
	if (words * sizeof(long) > PAGE_SIZE)
		return -EINVAL;
	for (unsigned long i = 0; nmask && i < words; i++) {
		if (copy_from_user(&w, nmask + i, sizeof(w)))
			return -EFAULT;
		if (i == words - 1 && (maxnode - 1) % 64)
			w &= (1ul << ((maxnode - 1) % 64)) - 1;   /* bits past maxnode */
		if (i ? w : w & ~1ul)
			return -EINVAL;         /* a node that is not online */
		nodes |= i ? 0 : w;
	}
	switch (mode) {
	case MPOL_DEFAULT:
	case MPOL_LOCAL:
		if (nodes || flags)
			return -EINVAL;
		break;
	case MPOL_PREFERRED:
		break;                  /* no node: the local one */
	default:
		if (!nodes)
			return -EINVAL;
	}
	current->mempolicy = mode;
	return 0;
}

/*
 * getpriority/setpriority: the nice value, kept per task, inherited at
 * fork and shown in /proc/<pid>/stat; Spindle's round-robin scheduler
 * does not weigh it.  Everyone is root: PRIO_USER 0 is every task, and
 * any task may lower its nice value.  glibc's nice() is the two of them.
 */
#define PRIO_PROCESS    0
#define PRIO_PGRP       1
#define PRIO_USER       2
#define MIN_NICE        (-20)
#define MAX_NICE        19

/* Is p among the tasks which/who names?  tasklist_lock held. */
static bool prio_match(const struct task_struct *p, int which, int who)
{
	switch (which) {
	case PRIO_PROCESS:
		return p->pid == (who ? who : current->pid);
	case PRIO_PGRP:
		return p->pgid == (who ? who : current->pgid);
	default:
		return who == 0;        /* every task's uid is 0 */
	}
}

long sys_getpriority(int which, int who)
{
	struct task_struct *p;
	unsigned long flags;
	long ret = -ESRCH;

	if (which < PRIO_PROCESS || which > PRIO_USER || who < 0)
		return -EINVAL;
	spin_lock_irqsave(&tasklist_lock, flags);
	list_for_each_entry(p, &task_list, tasks)
		if (prio_match(p, which, who))
			ret = max(ret, 20l - p->nice);  /* 1..40: never an errno */
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return ret;
}

long sys_setpriority(int which, int who, int niceval)
{
	struct task_struct *p;
	unsigned long flags;
	long ret = -ESRCH;

	if (which < PRIO_PROCESS || which > PRIO_USER || who < 0)
		return -EINVAL;
	niceval = clamp(niceval, MIN_NICE, MAX_NICE);
	spin_lock_irqsave(&tasklist_lock, flags);
	list_for_each_entry(p, &task_list, tasks)
		if (prio_match(p, which, who)) {
			WRITE_ONCE(p->nice, niceval);
			ret = 0;
		}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return ret;
}

#define ROBUST_LIST_HEAD_SIZE 24 /* struct robust_list_head on x86-64 */

long sys_set_robust_list(void __user *head, size_t len)
{
	if (len != ROBUST_LIST_HEAD_SIZE)
		return -EINVAL;
	current->robust_list = head;
	return 0;
}

long sys_rseq(void)
{
	return -ENOSYS;
}

/*
 * Resource limits: Spindle enforces none but two fixed facts, which it
 * reports as Linux does: the stack (8 MiB, the size exec maps) and the
 * descriptors (the size of the table).  Everything else is unlimited.
 * The same for every process, so another's are ours.  Limits cannot be
 * changed: a new one equal to the old is accepted (it changes nothing),
 * any other refused with -EPERM.
 */
#define RLIMIT_STACK 3
#define RLIMIT_NOFILE 7
#define RLIM_NLIMITS 16
#define RLIM_INFINITY (~0ul)

struct rlimit64 {
	u64 rlim_cur, rlim_max;
};

static int get_rlimit(unsigned int resource, struct rlimit64 *r)
{
	if (resource >= RLIM_NLIMITS)
		return -EINVAL;
	r->rlim_cur = r->rlim_max = RLIM_INFINITY;
	if (resource == RLIMIT_STACK)
		r->rlim_cur = STACK_SIZE;
	if (resource == RLIMIT_NOFILE)
		r->rlim_cur = r->rlim_max = NR_OPEN_DEFAULT;
	return 0;
}

/*
 * Linux's checks, in Linux's order: the new limit is read (EFAULT), the
 * process found (ESRCH), check_prlimit_permission() asked -- another
 * process's limits need its uid and gid or CAP_SYS_RESOURCE, and root,
 * Spindle's only user, has the capability, so it always passes here --
 * and then do_prlimit's EINVAL for an unknown resource or a soft limit
 * above the hard one.
 */
long sys_prlimit64(pid_t pid, unsigned int resource, const void __user *new_rlim,
		   void __user *old_rlim)
{
	struct rlimit64 r, want;
	unsigned long flags;
	bool exists;
	int err;

	if (new_rlim && copy_from_user(&want, new_rlim, sizeof(want)))
		return -EFAULT;
	if (pid && pid != current->pid) {
		spin_lock_irqsave(&tasklist_lock, flags);
		exists = find_task_by_pid(pid) != NULL;
		spin_unlock_irqrestore(&tasklist_lock, flags);
		if (!exists)
			return -ESRCH;
	}
	err = get_rlimit(resource, &r);
	if (err)
		return err;
	if (new_rlim) {
		if (want.rlim_cur > want.rlim_max)
			return -EINVAL;
		if (want.rlim_cur != r.rlim_cur || want.rlim_max != r.rlim_max)
			return -EPERM;
	}
	if (old_rlim && copy_to_user(old_rlim, &r, sizeof(r)))
		return -EFAULT;
	return 0;
}

long sys_getrlimit(unsigned int resource, void __user *rlim)
{
	return sys_prlimit64(0, resource, NULL, rlim);
}

long sys_setrlimit(unsigned int resource, const void __user *rlim)
{
	return sys_prlimit64(0, resource, rlim, NULL);
}

/* prctl: the task's name (as ps and /proc/<pid>/comm show it) only */
#define PR_SET_NAME 15
#define PR_GET_NAME 16

long sys_prctl(int option, unsigned long arg2)
{
	char comm[TASK_COMM_LEN];

	switch (option) {
	case PR_SET_NAME:
		if (strncpy_from_user(comm, (const char __user *)arg2, sizeof(comm)) < 0)
			return -EFAULT;
		comm[sizeof(comm) - 1] = '\0';
		strlcpy(current->comm, comm, sizeof(current->comm));
		return 0;
	case PR_GET_NAME:
		return copy_to_user((void __user *)arg2, current->comm, sizeof(current->comm)) ? -EFAULT : 0;
	default:
		return -EINVAL;
	}
}

/* splitmix64 over the TSC: unpredictable enough for a teaching kernel
 * (exec's AT_RANDOM bytes, getrandom) */
u64 get_random_u64(void)
{
	u64 z = rdtsc() + 0x9E3779B97F4A7C15ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/*
 * getrandom: bytes for hash seeds and the like (glibc's malloc asks at
 * start-up).  Spindle has no entropy pool; the bytes come from the same
 * splitmix64 over the TSC as exec's AT_RANDOM -- unpredictable enough to
 * teach with, not for cryptography.  GRND_NONBLOCK and GRND_RANDOM change
 * nothing: the source never blocks.
 */
#define GRND_NONBLOCK 0x1
#define GRND_RANDOM 0x2
#define GRND_INSECURE 0x4

long sys_getrandom(char __user *buf, size_t count, unsigned int flags)
{
	size_t done = 0;

	if (flags & ~(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE))
		return -EINVAL;
	if (count > 256 * 1024)
		count = 256 * 1024; /* a short count, as Linux's 32 MiB cap */
	while (done < count) {
		u64 r = get_random_u64();
		size_t n = min_t(size_t, count - done, sizeof(r));

		if (copy_to_user(buf + done, &r, n))
			return done ? (long)done : -EFAULT;
		done += n;
	}
	return done;
}

long sys_sched_yield(void)
{
	yield();
	return 0;
}

/*
 * Sleep until the monotonic clock reaches deadline (ns).  Never early (as
 * msleep): sleep by ticks until the clock has passed it; a signal ends it
 * with -EINTR and *left set.  The state is set before the signal test, so
 * a kill() in between still finds us TASK_INTERRUPTIBLE and wakes us
 * (sched.h's rule).
 */
static long sleep_until(u64 deadline, u64 *left)
{
	for (;;) {
		u64 now;

		set_current_state(TASK_INTERRUPTIBLE);
		now = ktime_get_ns();
		if (now >= deadline)
			break;
		*left = deadline - now;
		if (signal_pending(current)) {
			__set_current_state(TASK_RUNNING);
			return -EINTR;
		}
		schedule_timeout(min_t(u64, msecs_to_jiffies(*left / NSEC_PER_MSEC) + 1,
				       MAX_SCHEDULE_TIMEOUT / 2));
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* now + a relative timespec, saturated (a huge one means "forever") */
static int deadline_after(const struct timespec *ts, u64 now, u64 *deadline)
{
	if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= (long)NSEC_PER_SEC)
		return -EINVAL;
	if ((u64)ts->tv_sec > (~0ull - now) / NSEC_PER_SEC - 1)
		*deadline = ~0ull;
	else
		*deadline = now + ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
	return 0;
}

static long sleep_rel(struct timespec __user *rqtp, struct timespec __user *rmtp)
{
	struct timespec ts;
	u64 deadline, left = 0;
	long err;

	if (copy_from_user(&ts, rqtp, sizeof(ts)))
		return -EFAULT;
	err = deadline_after(&ts, ktime_get_ns(), &deadline);
	if (err)
		return err;
	err = sleep_until(deadline, &left);
	if (err == -EINTR && rmtp) {
		ts.tv_sec = left / NSEC_PER_SEC;
		ts.tv_nsec = left % NSEC_PER_SEC;
		if (copy_to_user(rmtp, &ts, sizeof(ts)))
			return -EFAULT;
	}
	return err;
}

long sys_nanosleep(struct timespec __user *rqtp, struct timespec __user *rmtp)
{
	return sleep_rel(rqtp, rmtp);
}

/* CLOCK_REALTIME = the RTC's time at boot + the monotonic clock.  The
 * offset is read once, at boot, before any other CPU could ask (were it
 * read at the first clock_gettime, two CPUs asking at once across an RTC
 * second would each set a different one). */
static u64 realtime_offset;

void timekeeping_init(void)
{
	realtime_offset = rtc_read_seconds() * NSEC_PER_SEC - ktime_get_ns();
}

u64 realtime_offset_ns(void)
{
	return realtime_offset;
}

/* CLOCK_REALTIME in nanoseconds since 1970 (Linux's ktime_get_real_ns()):
 * what file systems stamp times with. */
u64 ktime_get_real_ns(void)
{
	return realtime_offset_ns() + ktime_get_ns();
}

/* The wall-clock second the machine booted at (Linux's getboottime64();
 * /proc/stat's btime). */
u64 get_boot_time_seconds(void)
{
	return realtime_offset_ns() / NSEC_PER_SEC;
}

/* The clock's offset from the monotonic one: 0, or the realtime offset.
 * The coarse and boot-time variants are the same clocks here (there is no
 * suspend, and the clock is read exactly each time). */
static int clock_offset(clockid_t which_clock, u64 *offset)
{
	switch (which_clock) {
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
		*offset = 0;
		return 0;
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
		*offset = realtime_offset_ns();
		return 0;
	default:
		return -EINVAL;
	}
}

static void ns_to_timespec(u64 ns, struct timespec *ts)
{
	ts->tv_sec = ns / NSEC_PER_SEC;
	ts->tv_nsec = ns % NSEC_PER_SEC;
}

long sys_clock_gettime(clockid_t which_clock, struct timespec __user *tp)
{
	struct timespec ts;
	u64 offset;

	if (clock_offset(which_clock, &offset))
		return -EINVAL;
	ns_to_timespec(offset + ktime_get_ns(), &ts);
	return copy_to_user(tp, &ts, sizeof(ts)) ? -EFAULT : 0;
}

/* every clock counts nanoseconds (the TSC's scale, kernel/arch/x86/time.c) */
long sys_clock_getres(clockid_t which_clock, struct timespec __user *tp)
{
	struct timespec ts = { 0, 1 };
	u64 offset;

	if (clock_offset(which_clock, &offset))
		return -EINVAL;
	return tp && copy_to_user(tp, &ts, sizeof(ts)) ? -EFAULT : 0;
}

/* time(2): CLOCK_REALTIME's seconds (glibc calls it where there is no vDSO) */
long sys_time(long __user *tloc)
{
	long t = (realtime_offset_ns() + ktime_get_ns()) / NSEC_PER_SEC;

	if (tloc && copy_to_user(tloc, &t, sizeof(t)))
		return -EFAULT;
	return t;
}

/* the BSD call, on CLOCK_REALTIME in microseconds; no time zone (zeros) */
long sys_gettimeofday(void __user *tv, void __user *tz)
{
	u64 ns = realtime_offset_ns() + ktime_get_ns();
	struct {
		long tv_sec, tv_usec;
	} t = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC / 1000 };
	static const int zone[2];

	if (tv && copy_to_user(tv, &t, sizeof(t)))
		return -EFAULT;
	if (tz && copy_to_user(tz, zone, sizeof(zone)))
		return -EFAULT;
	return 0;
}

/*
 * adjtimex(2), reading only: busybox's `adjtimex` prints the clock with
 * microseconds, the one way a shell script can read it finely on both
 * Spindle and Linux (tools/compare-linux times dd that way on both).
 * The values are those of a Linux clock that NTP never touched: not
 * synchronized (STA_UNSYNC, return TIME_ERROR), maximum and estimated
 * error 16 s, tick 10,000 us (USER_HZ 100).  Spindle's clock cannot be
 * adjusted: any mode bit gets EPERM, what an unprivileged caller gets on
 * Linux.
 */
long sys_adjtimex(struct timex __user *utx)
{
	return sys_clock_adjtime(CLOCK_REALTIME, utx);
}

/* glibc's adjtimex() is clock_adjtime(CLOCK_REALTIME): the same, and only
 * the realtime clock has anything to adjust (EOPNOTSUPP for the others) */
long sys_clock_adjtime(clockid_t which_clock, struct timex __user *utx)
{
	u64 ns = realtime_offset_ns() + ktime_get_ns(), offset;
	struct timex tx;

	if (clock_offset(which_clock, &offset))
		return -EINVAL;
	if (which_clock != CLOCK_REALTIME)
		return -EOPNOTSUPP;
	if (copy_from_user(&tx, utx, sizeof(tx)))
		return -EFAULT;
	if (tx.modes)
		return -EPERM;
	memset(&tx, 0, sizeof(tx));
	tx.maxerror = 16000000;
	tx.esterror = 16000000;
	tx.status = STA_UNSYNC;
	tx.constant = 2;
	tx.precision = 1;
	tx.tolerance = 500l << 16;      /* 500 ppm, scaled */
	tx.time.tv_sec = ns / NSEC_PER_SEC;
	tx.time.tv_usec = ns % NSEC_PER_SEC / NSEC_PER_USEC;
	tx.tick = 1000000 / 100;        /* us per tick at USER_HZ */
	if (copy_to_user(utx, &tx, sizeof(tx)))
		return -EFAULT;
	return TIME_ERROR;
}

/* nanosleep on a named clock; TIMER_ABSTIME: until the clock shows *rqtp */
#define TIMER_ABSTIME 1

long sys_clock_nanosleep(clockid_t which_clock, int flags, struct timespec __user *rqtp,
			 struct timespec __user *rmtp)
{
	struct timespec ts;
	u64 offset, abs, left;

	if (clock_offset(which_clock, &offset))
		return -EINVAL;
	if (!(flags & TIMER_ABSTIME))
		return sleep_rel(rqtp, rmtp);
	if (copy_from_user(&ts, rqtp, sizeof(ts)))
		return -EFAULT;
	if (deadline_after(&ts, 0, &abs))
		return -EINVAL;
	return sleep_until(abs > offset ? abs - offset : 0, &left); /* no remainder */
}

long sys_uname(struct new_utsname __user *name)
{
	return copy_to_user(name, &init_uts, sizeof(init_uts)) ? -EFAULT : 0;
}

/*
 * sysinfo(2), as Linux's do_sysinfo(): memory in bytes (mem_unit 1, as
 * Linux answers when the byte counts fit in a long), "buffers" the block
 * devices' page-cache pages as /proc/meminfo's Buffers, procs every task
 * that has not been reaped, loads the 1, 5 and 15 minute load averages
 * (include/spindle/loadavg.h) with SI_LOAD_SHIFT bits of fraction.
 * Spindle has no swap, shared memory or high memory: those read 0, as on
 * a Linux machine without them.
 */
long sys_sysinfo(struct sysinfo __user *info)
{
	struct sysinfo si;
	struct page_cache_stats st;
	struct task_struct *t;
	unsigned long flags;
	unsigned int procs = 0;

	memset(&si, 0, sizeof(si));
	si.uptime = (long)((ktime_get_ns() + NSEC_PER_SEC - 1) / NSEC_PER_SEC);
	page_cache_stats(&st);
	si.totalram = totalram_pages() * PAGE_SIZE;
	si.freeram = nr_free_pages() * PAGE_SIZE;
	si.bufferram = st.nr_bdev * PAGE_SIZE;
	spin_lock_irqsave(&tasklist_lock, flags);
	list_for_each_entry(t, &task_list, tasks)
		procs++;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	si.procs = procs > 0xffff ? 0xffff : (unsigned short)procs;
	for (int i = 0; i < 3; i++)
		si.loads[i] = READ_ONCE(avenrun[i]) << (SI_LOAD_SHIFT - FSHIFT);
	si.mem_unit = 1;
	return copy_to_user(info, &si, sizeof(si)) ? -EFAULT : 0;
}

/*
 * reboot(2).  POWER_OFF (and HALT) leave QEMU; Spindle reads the 4th
 * argument as the exit status of the run (a Spindle extension: init
 * passes its script's status, docs/user.md), which becomes QEMU's
 * pass/fail status for tests/qemu/run.py.  RESTART resets the machine.
 */
long sys_reboot(int magic1, int magic2, unsigned int cmd, void __user *arg)
{
	int status = (int)(long)arg;

	if ((unsigned int)magic1 != LINUX_REBOOT_MAGIC1 ||
	    (magic2 != LINUX_REBOOT_MAGIC2 && magic2 != LINUX_REBOOT_MAGIC2A &&
	     magic2 != LINUX_REBOOT_MAGIC2B && magic2 != LINUX_REBOOT_MAGIC2C))
		return -EINVAL;
	switch (cmd) {
	case LINUX_REBOOT_CMD_CAD_ON:
	case LINUX_REBOOT_CMD_CAD_OFF:
		return 0;                       /* no Ctrl-Alt-Del to configure */
	case LINUX_REBOOT_CMD_POWER_OFF:
	case LINUX_REBOOT_CMD_HALT:
		ksys_sync();
		printk(KERN_EMERG "reboot: Power down (status %d)\n", status);
		qemu_exit(status ? QEMU_EXIT_FAILURE : QEMU_EXIT_SUCCESS);
	case LINUX_REBOOT_CMD_RESTART:
		ksys_sync();
		printk(KERN_EMERG "reboot: Restarting system\n");
		outb(0xcf9, 0x06);              /* PCI reset control: hard reset */
		outb(0x64, 0xfe);               /* the keyboard controller's, if not */
		for (;;)
			cpu_relax();
	default:
		return -EINVAL;
	}
}


/*
 * The end of boot (kernel/main.c): pid 1, the "init" kernel thread, execs
 * /init -- or /sbin/init -- and becomes the first user process, ancestor
 * of all others.  When neither exists (no initramfs) the kernel says so
 * once and carries on as before: the tests and scenarios that need no
 * user space keep working.  `init=<path>` runs that program instead, as
 * on Linux, which panics if it cannot ("Requested init ... failed").
 */
static char execute_command[128];

static int init_setup(const char *val)
{
	if (!*val || strlen(val) >= sizeof(execute_command))
		return -EINVAL;
	strlcpy(execute_command, val, sizeof(execute_command));
	return 0;
}
__setup("init=", init_setup);

int start_user_init(void)
{
	static const char *const paths[] = { "/init", "/sbin/init" };
	static const char *const envp[] = { "HOME=/", "TERM=linux", "PATH=/sbin:/bin", NULL };
	int err = -ENOENT;

	current->pgid = current->sid = current->pid;
	current->umask = 0022; /* as Linux's init_fs */
	prepare_namespace();   /* root=: a disk becomes "/" first */
	err = init_task_files(current);
	if (err) {
		pr_err("cannot set up the console for init: error %d\n", err);
		return err;
	}
	init_process = current;
	if (execute_command[0]) {
		const char *argv[] = { execute_command, NULL };

		err = kernel_execve(execute_command, argv, envp);
		panic("Requested init %s failed (error %d).", execute_command, err);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(paths); i++) {
		const char *argv[] = { paths[i], NULL };

		err = kernel_execve(paths[i], argv, envp);      /* returns only on failure */
		if (err != -ENOENT)
			pr_err("failed to execute %s (error %d)\n", paths[i], err);
	}
	init_process = NULL;
	if (err == -ENOENT)
		pr_info("no /init or /sbin/init: no user space, the kernel runs alone\n");
	return err;
}
