// SPDX-License-Identifier: MIT
/*
 * sys.c - the small process system calls: identity (getpid, getppid),
 * process groups and sessions, sleeping and yielding, the clock, uname,
 * reboot -- and start_user_init(), which turns pid 1 into the first
 * user process at the end of boot.
 */
#define pr_fmt(fmt) "init: " fmt
#include <spindle/fs.h>
#include <spindle/init.h>
#include <spindle/err.h>
#include <spindle/process.h>
#include <spindle/signal.h>
#include <spindle/syscalls.h>
#include <spindle/uaccess.h>
#include <spindle/sched.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include <spindle/time.h>
#include <asm/traps.h>
#include <asm/io.h>

long sys_getpid(void)
{
	return current->pid;
}

long sys_getppid(void)
{
	struct task_struct *p = READ_ONCE(current->parent);

	return p ? p->pid : 0;
}

long sys_getpgrp(void)
{
	return current->pgid;
}

/* Is there a process in session sid with process group pgrp? */
static bool pgrp_in_session(int pgrp, int sid)
{
	struct task_struct *t;
	unsigned long flags = local_irq_save();
	bool found = false;

	list_for_each_entry(t, &task_list, tasks)
		if (t->sighand && !t->exit_state && t->pgid == pgrp && t->sid == sid)
			found = true;
	local_irq_restore(flags);
	return found;
}

/*
 * The session of process group pgrp, for TIOCSPGRP (Linux's
 * session_of_pgrp()): that of a member, else that of the process whose
 * pid it is; -ESRCH when the number is nobody's.
 */
int session_of_pgrp(int pgrp)
{
	struct task_struct *t;
	unsigned long flags = local_irq_save();
	int sid = -ESRCH, pid_sid = -ESRCH;

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
	local_irq_restore(flags);
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

	if (pgid < 0)
		return -EINVAL;
	if (pid == 0)
		pid = current->pid;
	if (pgid == 0)
		pgid = pid;
	flags = local_irq_save();               /* t cannot be reaped meanwhile */
	t = find_task_by_pid(pid);
	if (!t || !t->sighand || t->exit_state || (t != current && t->parent != current))
		err = -ESRCH;
	else if (t->sid != current->sid || t->sid == t->pid)
		err = -EPERM;                   /* another session, or its leader */
	else if (pgid != pid && !pgrp_in_session(pgid, current->sid))
		err = -EPERM;                   /* no such group here */
	else
		t->pgid = pgid;
	local_irq_restore(flags);
	return err;
}

/* A new session and group, led by the caller (not already a group leader). */
long sys_setsid(void)
{
	struct task_struct *t;
	unsigned long flags;
	bool leader = false;

	flags = local_irq_save();
	list_for_each_entry(t, &task_list, tasks)
		if (t->sighand && t->pgid == current->pid)
			leader = true;
	local_irq_restore(flags);
	if (leader)
		return -EPERM;
	current->sid = current->pgid = current->pid;
	return current->sid;
}

long sys_sched_yield(void)
{
	yield();
	return 0;
}

long sys_nanosleep(struct timespec __user *rqtp, struct timespec __user *rmtp)
{
	struct timespec ts;
	u64 deadline, now;

	if (copy_from_user(&ts, rqtp, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= (long)NSEC_PER_SEC)
		return -EINVAL;
	now = ktime_get_ns();
	if ((u64)ts.tv_sec > (~0ull - now) / NSEC_PER_SEC - 1)
		deadline = ~0ull;               /* effectively forever */
	else
		deadline = now + ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	/* never early (as msleep): sleep by ticks until the clock has passed
	 * the deadline; a signal ends it with -EINTR and the time left.  The
	 * state is set before the signal test, so a kill() in between still
	 * finds us TASK_INTERRUPTIBLE and wakes us (sched.h's rule). */
	for (;;) {
		u64 left;

		set_current_state(TASK_INTERRUPTIBLE);
		now = ktime_get_ns();
		if (now >= deadline)
			break;
		left = deadline - now;
		if (signal_pending(current)) {
			__set_current_state(TASK_RUNNING);
			if (rmtp) {
				ts.tv_sec = left / NSEC_PER_SEC;
				ts.tv_nsec = left % NSEC_PER_SEC;
				if (copy_to_user(rmtp, &ts, sizeof(ts)))
					return -EFAULT;
			}
			return -EINTR;
		}
		schedule_timeout(min_t(u64, msecs_to_jiffies(left / NSEC_PER_MSEC) + 1,
				       MAX_SCHEDULE_TIMEOUT / 2));
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

u64 rtc_read_seconds(void);

/* CLOCK_REALTIME = the RTC's time at boot + the monotonic clock. */
static u64 realtime_offset_ns(void)
{
	static u64 offset;
	static bool valid;

	if (!valid) {
		offset = rtc_read_seconds() * NSEC_PER_SEC - ktime_get_ns();
		valid = true;
	}
	return offset;
}

long sys_clock_gettime(clockid_t which_clock, struct timespec __user *tp)
{
	struct timespec ts;
	u64 ns;

	switch (which_clock) {
	case CLOCK_MONOTONIC:
		ns = ktime_get_ns();
		break;
	case CLOCK_REALTIME:
		ns = realtime_offset_ns() + ktime_get_ns();
		break;
	default:
		return -EINVAL;
	}
	ts.tv_sec = ns / NSEC_PER_SEC;
	ts.tv_nsec = ns % NSEC_PER_SEC;
	return copy_to_user(tp, &ts, sizeof(ts)) ? -EFAULT : 0;
}

long sys_uname(struct new_utsname __user *name)
{
	static const struct new_utsname uts = {
		.sysname = "Spindle",
		.nodename = "spindle",
		.release = "0.1",
		.version = "#1",
		.machine = "x86_64",
		.domainname = "(none)",
	};

	return copy_to_user(name, &uts, sizeof(uts)) ? -EFAULT : 0;
}

/*
 * reboot(2).  POWER_OFF (and HALT) leave QEMU; Spindle reads the 4th
 * argument as the exit status of the run (a Spindle extension, contract
 * 7: init passes its script's status), which becomes QEMU's
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
