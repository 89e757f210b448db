// SPDX-License-Identifier: MIT
/*
 * syscall.c - system calls: the MSRs behind SYSCALL, the dispatch table,
 * and the C half of the entry (the assembly half is entry_SYSCALL_64 in
 * entry.S).  Numbers, names and prototypes: include/spindle/syscalls.h.
 *
 * The path of one call, e.g. write(1, buf, 5) from a user program:
 *   1. the program: rax = 1, rdi = 1, rsi = buf, rdx = 5; SYSCALL
 *   2. the CPU: rcx = rip, r11 = rflags, CS/SS from MSR_STAR, rip from
 *      MSR_LSTAR, RFLAGS &= ~MSR_SYSCALL_MASK (interrupts off)
 *   3. entry_SYSCALL_64: switch to the kernel stack, save a pt_regs
 *   4. do_syscall_64(): interrupts on, sys_call_table[1](regs) ->
 *      __x64_sys_write(regs) -> sys_write(1, buf, 5); rax = the result
 *   5. exit_to_user_mode(): reschedule if due, act on pending signals
 *   6. back to entry.S: SYSRET (or IRETQ, see there) to the program.
 */
#include <spindle/syscalls.h>
#include <spindle/process.h>
#include <spindle/errno.h>
#include <spindle/sched.h>
#include <spindle/printk.h>
#include <asm/ptrace.h>
#include <asm/desc.h>
#include <asm/cpu.h>

extern char entry_SYSCALL_64[];

/*
 * MSR_STAR (SDM vol. 3, 5.8.8): bits 47:32 are the kernel CS for SYSCALL
 * (SS = CS + 8); bits 63:48 the base for SYSRET to 64-bit mode: CS = base
 * + 16, SS = base + 8, both with RPL 3.  Hence the GDT's order: kernel
 * code 0x08, kernel data 0x10, user data 0x18, user code 0x20.
 */
void syscall_init(void)
{
	BUILD_BUG_ON(GDT_USER_CS != ((GDT_KERNEL_DS + 16) | 3));
	BUILD_BUG_ON(GDT_USER_DS != ((GDT_KERNEL_DS + 8) | 3));
	wrmsr(MSR_STAR, ((u64)GDT_KERNEL_DS << 48) | ((u64)GDT_KERNEL_CS << 32));
	wrmsr(MSR_LSTAR, (u64)entry_SYSCALL_64);
	/* Cleared on entry: IF (entry.S must switch stacks first), DF (the
	 * ABI says clear), TF (no single-stepping into the kernel), AC (SMAP
	 * on), NT. */
	wrmsr(MSR_SYSCALL_MASK, X86_EFLAGS_IF | X86_EFLAGS_DF | X86_EFLAGS_TF |
	      X86_EFLAGS_AC | X86_EFLAGS_NT);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
}

/*
 * One wrapper per call turns the saved registers into the typed
 * arguments of sys_<name>() (arguments 1-6: rdi, rsi, rdx, r10, r8, r9;
 * r10 stands in for rcx, which SYSCALL uses for the return address).
 */
typedef long (*syscall_fn_t)(const struct pt_regs *regs);

#define SYSCALL0(name) \
	static long __x64_sys_##name(const struct pt_regs *r) { (void)r; return sys_##name(); }
#define SYSCALL1(name, t1) \
	static long __x64_sys_##name(const struct pt_regs *r) \
	{ return sys_##name((t1)r->rdi); }
#define SYSCALL2(name, t1, t2) \
	static long __x64_sys_##name(const struct pt_regs *r) \
	{ return sys_##name((t1)r->rdi, (t2)r->rsi); }
#define SYSCALL3(name, t1, t2, t3) \
	static long __x64_sys_##name(const struct pt_regs *r) \
	{ return sys_##name((t1)r->rdi, (t2)r->rsi, (t3)r->rdx); }
#define SYSCALL4(name, t1, t2, t3, t4) \
	static long __x64_sys_##name(const struct pt_regs *r) \
	{ return sys_##name((t1)r->rdi, (t2)r->rsi, (t3)r->rdx, (t4)r->r10); }
#define SYSCALL5(name, t1, t2, t3, t4, t5) \
	static long __x64_sys_##name(const struct pt_regs *r) \
	{ return sys_##name((t1)r->rdi, (t2)r->rsi, (t3)r->rdx, (t4)r->r10, (t5)r->r8); }
#define SYSCALL6(name, t1, t2, t3, t4, t5, t6) \
	static long __x64_sys_##name(const struct pt_regs *r) \
	{ return sys_##name((t1)r->rdi, (t2)r->rsi, (t3)r->rdx, (t4)r->r10, (t5)r->r8, (t6)r->r9); }

#define U(t) t __user *

SYSCALL3(read, unsigned int, U(char), size_t)
SYSCALL3(write, unsigned int, U(const char), size_t)
SYSCALL3(open, U(const char), int, umode_t)
SYSCALL1(close, unsigned int)
SYSCALL2(stat, U(const char), U(struct stat))
SYSCALL2(fstat, unsigned int, U(struct stat))
SYSCALL2(lstat, U(const char), U(struct stat))
SYSCALL3(lseek, unsigned int, off_t, unsigned int)
SYSCALL6(mmap, unsigned long, unsigned long, unsigned long, unsigned long,
	 unsigned long, unsigned long)
SYSCALL2(munmap, unsigned long, size_t)
SYSCALL1(brk, unsigned long)
SYSCALL4(rt_sigaction, int, U(const struct sigaction), U(struct sigaction), size_t)
SYSCALL4(rt_sigprocmask, int, U(sigset_t), U(sigset_t), size_t)
SYSCALL0(rt_sigreturn)
SYSCALL3(ioctl, unsigned int, unsigned int, unsigned long)
SYSCALL4(pread64, unsigned int, U(char), size_t, loff_t)
SYSCALL4(pwrite64, unsigned int, U(const char), size_t, loff_t)
SYSCALL1(pipe, U(int))
SYSCALL0(sched_yield)
SYSCALL1(dup, unsigned int)
SYSCALL2(dup2, unsigned int, unsigned int)
SYSCALL2(nanosleep, U(struct timespec), U(struct timespec))
SYSCALL0(getpid)
SYSCALL0(fork)
SYSCALL0(vfork)
SYSCALL3(execve, U(const char), const char __user *const __user *,
	 const char __user *const __user *)
SYSCALL1(exit, int)
SYSCALL4(wait4, pid_t, U(int), int, U(struct rusage))
SYSCALL5(waitid, int, pid_t, U(void), int, U(struct rusage))
SYSCALL2(kill, pid_t, int)
SYSCALL1(uname, U(struct new_utsname))
SYSCALL1(sysinfo, U(struct sysinfo))
SYSCALL3(syslog, int, U(char), int)
SYSCALL1(fsync, unsigned int)
SYSCALL1(fdatasync, unsigned int)
SYSCALL2(ftruncate, unsigned int, off_t)
SYSCALL2(getcwd, U(char), unsigned long)
SYSCALL1(chdir, U(const char))
SYSCALL2(mkdir, U(const char), umode_t)
SYSCALL1(rmdir, U(const char))
SYSCALL1(unlink, U(const char))
SYSCALL3(mknod, U(const char), umode_t, unsigned int)
SYSCALL4(mknodat, int, U(const char), umode_t, unsigned int)
SYSCALL3(mkdirat, int, U(const char), umode_t)
SYSCALL3(unlinkat, int, U(const char), int)
SYSCALL2(link, U(const char), U(const char))
SYSCALL5(linkat, int, U(const char), int, U(const char), int)
SYSCALL2(symlink, U(const char), U(const char))
SYSCALL3(symlinkat, U(const char), int, U(const char))
SYSCALL2(rename, U(const char), U(const char))
SYSCALL4(renameat, int, U(const char), int, U(const char))
SYSCALL5(renameat2, int, U(const char), int, U(const char), unsigned int)
SYSCALL2(chmod, U(const char), umode_t)
SYSCALL2(fchmod, unsigned int, umode_t)
SYSCALL3(fchmodat, int, U(const char), umode_t)
SYSCALL3(chown, U(const char), u32, u32)
SYSCALL3(fchown, unsigned int, u32, u32)
SYSCALL3(lchown, U(const char), u32, u32)
SYSCALL5(fchownat, int, U(const char), u32, u32, int)
SYSCALL2(truncate, U(const char), long)
SYSCALL2(statfs, U(const char), U(struct statfs))
SYSCALL2(fstatfs, unsigned int, U(struct statfs))
SYSCALL2(setpgid, pid_t, pid_t)
SYSCALL0(getppid)
SYSCALL0(getpgrp)
SYSCALL0(setsid)
SYSCALL0(sync)
SYSCALL1(syncfs, int)
SYSCALL5(mount, U(char), U(char), U(char), unsigned long, U(void))
SYSCALL2(umount2, U(char), int)
SYSCALL4(reboot, int, int, unsigned int, U(void))
SYSCALL3(getdents64, unsigned int, U(struct linux_dirent64), unsigned int)
SYSCALL2(clock_gettime, clockid_t, U(struct timespec))
SYSCALL1(exit_group, int)
SYSCALL4(openat, int, U(const char), int, umode_t)
SYSCALL2(pipe2, U(int), int)
SYSCALL3(sched_setaffinity, pid_t, unsigned int, U(unsigned long))
SYSCALL3(sched_getaffinity, pid_t, unsigned int, U(unsigned long))
SYSCALL2(io_setup, unsigned int, U(unsigned long))
SYSCALL1(io_destroy, unsigned long)
SYSCALL3(io_submit, unsigned long, long, struct iocb __user *__user *)
SYSCALL5(io_getevents, unsigned long, long, long, U(struct io_event), U(struct __kernel_timespec))
SYSCALL3(io_cancel, unsigned long, U(struct iocb), U(struct io_event))
SYSCALL2(io_uring_setup, u32, U(struct io_uring_params))
SYSCALL6(io_uring_enter, unsigned int, u32, u32, u32, U(const void), size_t)
SYSCALL4(io_uring_register, unsigned int, unsigned int, U(void), unsigned int)

SYSCALL5(clone, unsigned long, unsigned long, U(int), U(int), unsigned long)
SYSCALL2(rt_sigsuspend, U(sigset_t), size_t)
SYSCALL2(sigaltstack, U(const struct stack_t), U(struct stack_t))
SYSCALL2(arch_prctl, int, unsigned long)
SYSCALL3(mprotect, unsigned long, size_t, unsigned long)
SYSCALL3(madvise, unsigned long, size_t, int)
SYSCALL4(fadvise64, int, loff_t, loff_t, int)
SYSCALL5(get_mempolicy, U(int), U(unsigned long), unsigned long, unsigned long, unsigned long)
SYSCALL3(set_mempolicy, int, U(const unsigned long), unsigned long)
SYSCALL2(getpriority, int, int)
SYSCALL2(getrusage, int, U(struct rusage))
SYSCALL4(fallocate, int, int, loff_t, loff_t)
SYSCALL3(setpriority, int, int, int)
SYSCALL3(shmget, int, size_t, int)
SYSCALL2(timerfd_create, int, int)
SYSCALL4(timerfd_settime, int, int, U(const struct itimerspec), U(struct itimerspec))
SYSCALL2(timerfd_gettime, int, U(struct itimerspec))
SYSCALL3(shmat, int, unsigned long, int)
SYSCALL1(shmdt, unsigned long)
SYSCALL3(shmctl, int, int, U(struct shmid64_ds))
SYSCALL3(msync, unsigned long, size_t, int)
SYSCALL1(getpgid, pid_t)
SYSCALL1(getsid, pid_t)
SYSCALL0(getuid)
SYSCALL0(geteuid)
SYSCALL0(getgid)
SYSCALL0(getegid)
SYSCALL1(setuid, u32)
SYSCALL1(setgid, u32)
SYSCALL3(getresuid, U(u32), U(u32), U(u32))
SYSCALL3(getresgid, U(u32), U(u32), U(u32))
SYSCALL2(getgroups, int, U(u32))
SYSCALL1(umask, int)
SYSCALL1(set_tid_address, U(int))
SYSCALL2(set_robust_list, U(void), size_t)
SYSCALL0(rseq)
SYSCALL4(prlimit64, pid_t, unsigned int, U(const void), U(void))
SYSCALL2(getrlimit, unsigned int, U(void))
SYSCALL2(setrlimit, unsigned int, U(const void))
SYSCALL2(prctl, int, unsigned long)
SYSCALL3(getrandom, U(char), size_t, unsigned int)
SYSCALL2(clock_getres, clockid_t, U(struct timespec))
SYSCALL2(gettimeofday, U(void), U(void))
SYSCALL1(adjtimex, U(struct timex))
SYSCALL2(clock_adjtime, clockid_t, U(struct timex))
SYSCALL4(clock_nanosleep, clockid_t, int, U(struct timespec), U(struct timespec))
SYSCALL4(newfstatat, int, U(const char), U(struct stat), int)
SYSCALL5(statx, int, U(const char), unsigned int, unsigned int, U(struct statx))
SYSCALL4(readlinkat, int, U(const char), U(char), int)
SYSCALL3(readlink, U(const char), U(char), int)
SYSCALL4(faccessat2, int, U(const char), int, int)
SYSCALL3(faccessat, int, U(const char), int)
SYSCALL2(access, U(const char), int)
SYSCALL1(fchdir, unsigned int)
SYSCALL3(fcntl, unsigned int, unsigned int, unsigned long)
SYSCALL3(dup3, unsigned int, unsigned int, int)
SYSCALL3(poll, U(struct pollfd), unsigned int, int)
SYSCALL5(ppoll, U(struct pollfd), unsigned int, U(const struct timespec), U(const sigset_t), size_t)
SYSCALL5(select, int, U(u64), U(u64), U(u64), U(void))
SYSCALL6(pselect6, int, U(u64), U(u64), U(u64), U(const struct timespec), U(void))
SYSCALL3(readv, unsigned long, U(const struct iovec), unsigned long)
SYSCALL3(writev, unsigned long, U(const struct iovec), unsigned long)
SYSCALL6(preadv2, unsigned long, U(const struct iovec), unsigned long, unsigned long,
	 unsigned long, int)
SYSCALL6(pwritev2, unsigned long, U(const struct iovec), unsigned long, unsigned long,
	 unsigned long, int)
SYSCALL4(sendfile, int, int, U(loff_t), size_t)
SYSCALL1(time, U(long))
SYSCALL0(gettid)
SYSCALL4(utimensat, int, U(const char), U(const struct timespec), int)
SYSCALL6(futex, U(u32), int, u32, U(const struct timespec), U(u32), u32)
SYSCALL2(clone3, U(void), size_t)
SYSCALL3(getcpu, U(unsigned int), U(unsigned int), U(void))
SYSCALL0(pause)
SYSCALL2(getitimer, int, U(struct __kernel_old_itimerval))
SYSCALL3(setitimer, int, U(const struct __kernel_old_itimerval),
	 U(struct __kernel_old_itimerval))
SYSCALL1(alarm, unsigned int)
SYSCALL2(rt_sigpending, U(sigset_t), size_t)
SYSCALL3(tgkill, pid_t, pid_t, int)
SYSCALL2(tkill, pid_t, int)

#define SYSCALL_ENTRY(name) [__NR_##name] = __x64_sys_##name

static const syscall_fn_t sys_call_table[NR_syscalls] = {
	SYSCALL_ENTRY(read),
	SYSCALL_ENTRY(write),
	SYSCALL_ENTRY(open),
	SYSCALL_ENTRY(close),
	SYSCALL_ENTRY(stat),
	SYSCALL_ENTRY(fstat),
	SYSCALL_ENTRY(lstat),
	SYSCALL_ENTRY(lseek),
	SYSCALL_ENTRY(mmap),
	SYSCALL_ENTRY(munmap),
	SYSCALL_ENTRY(brk),
	SYSCALL_ENTRY(rt_sigaction),
	SYSCALL_ENTRY(rt_sigprocmask),
	SYSCALL_ENTRY(rt_sigreturn),
	SYSCALL_ENTRY(ioctl),
	SYSCALL_ENTRY(pread64),
	SYSCALL_ENTRY(pwrite64),
	SYSCALL_ENTRY(pipe),
	SYSCALL_ENTRY(sched_yield),
	SYSCALL_ENTRY(dup),
	SYSCALL_ENTRY(dup2),
	SYSCALL_ENTRY(nanosleep),
	SYSCALL_ENTRY(getpid),
	SYSCALL_ENTRY(fork),
	SYSCALL_ENTRY(vfork),
	SYSCALL_ENTRY(execve),
	SYSCALL_ENTRY(exit),
	SYSCALL_ENTRY(wait4),
	SYSCALL_ENTRY(waitid),
	SYSCALL_ENTRY(kill),
	SYSCALL_ENTRY(uname),
	SYSCALL_ENTRY(sysinfo),
	SYSCALL_ENTRY(fsync),
	SYSCALL_ENTRY(fdatasync),
	SYSCALL_ENTRY(ftruncate),
	SYSCALL_ENTRY(getcwd),
	SYSCALL_ENTRY(chdir),
	SYSCALL_ENTRY(mkdir),
	SYSCALL_ENTRY(rmdir),
	SYSCALL_ENTRY(unlink),
	SYSCALL_ENTRY(mknod),
	SYSCALL_ENTRY(mknodat),
	SYSCALL_ENTRY(mkdirat),
	SYSCALL_ENTRY(unlinkat),
	SYSCALL_ENTRY(link),
	SYSCALL_ENTRY(linkat),
	SYSCALL_ENTRY(symlink),
	SYSCALL_ENTRY(symlinkat),
	SYSCALL_ENTRY(rename),
	SYSCALL_ENTRY(renameat),
	SYSCALL_ENTRY(renameat2),
	SYSCALL_ENTRY(chmod),
	SYSCALL_ENTRY(fchmod),
	SYSCALL_ENTRY(fchmodat),
	SYSCALL_ENTRY(chown),
	SYSCALL_ENTRY(fchown),
	SYSCALL_ENTRY(lchown),
	SYSCALL_ENTRY(fchownat),
	SYSCALL_ENTRY(truncate),
	SYSCALL_ENTRY(statfs),
	SYSCALL_ENTRY(fstatfs),
	SYSCALL_ENTRY(setpgid),
	SYSCALL_ENTRY(getppid),
	SYSCALL_ENTRY(getpgrp),
	SYSCALL_ENTRY(setsid),
	SYSCALL_ENTRY(sync),
	SYSCALL_ENTRY(mount),
	SYSCALL_ENTRY(umount2),
	SYSCALL_ENTRY(reboot),
	SYSCALL_ENTRY(getdents64),
	SYSCALL_ENTRY(clock_gettime),
	SYSCALL_ENTRY(exit_group),
	SYSCALL_ENTRY(openat),
	SYSCALL_ENTRY(pipe2),
	SYSCALL_ENTRY(sched_setaffinity),
	SYSCALL_ENTRY(sched_getaffinity),
	SYSCALL_ENTRY(io_setup),
	SYSCALL_ENTRY(io_destroy),
	SYSCALL_ENTRY(io_getevents),
	SYSCALL_ENTRY(io_submit),
	SYSCALL_ENTRY(io_cancel),
	SYSCALL_ENTRY(io_uring_setup),
	SYSCALL_ENTRY(io_uring_enter),
	SYSCALL_ENTRY(io_uring_register),
	SYSCALL_ENTRY(syncfs),
	/* what a static glibc program (busybox) needs beyond Spindle's libc */
	SYSCALL_ENTRY(clone),
	SYSCALL_ENTRY(rt_sigsuspend),
	SYSCALL_ENTRY(sigaltstack),
	SYSCALL_ENTRY(arch_prctl),
	SYSCALL_ENTRY(mprotect),
	SYSCALL_ENTRY(madvise),
	SYSCALL_ENTRY(fadvise64),
	SYSCALL_ENTRY(get_mempolicy),
	SYSCALL_ENTRY(set_mempolicy),
	SYSCALL_ENTRY(getpriority),
	SYSCALL_ENTRY(getrusage),
	SYSCALL_ENTRY(fallocate),
	SYSCALL_ENTRY(setpriority),
	SYSCALL_ENTRY(shmget),
	SYSCALL_ENTRY(timerfd_create),
	SYSCALL_ENTRY(timerfd_settime),
	SYSCALL_ENTRY(timerfd_gettime),
	SYSCALL_ENTRY(shmat),
	SYSCALL_ENTRY(shmdt),
	SYSCALL_ENTRY(shmctl),
	SYSCALL_ENTRY(msync),
	SYSCALL_ENTRY(getpgid),
	SYSCALL_ENTRY(getsid),
	SYSCALL_ENTRY(getuid),
	SYSCALL_ENTRY(syslog),
	SYSCALL_ENTRY(geteuid),
	SYSCALL_ENTRY(getgid),
	SYSCALL_ENTRY(getegid),
	SYSCALL_ENTRY(setuid),
	SYSCALL_ENTRY(setgid),
	SYSCALL_ENTRY(getresuid),
	SYSCALL_ENTRY(getresgid),
	SYSCALL_ENTRY(getgroups),
	SYSCALL_ENTRY(umask),
	SYSCALL_ENTRY(set_tid_address),
	SYSCALL_ENTRY(set_robust_list),
	SYSCALL_ENTRY(rseq),
	SYSCALL_ENTRY(prlimit64),
	SYSCALL_ENTRY(getrlimit),
	SYSCALL_ENTRY(setrlimit),
	SYSCALL_ENTRY(prctl),
	SYSCALL_ENTRY(getrandom),
	SYSCALL_ENTRY(clock_getres),
	SYSCALL_ENTRY(gettimeofday),
	SYSCALL_ENTRY(adjtimex),
	SYSCALL_ENTRY(clock_adjtime),
	SYSCALL_ENTRY(clock_nanosleep),
	SYSCALL_ENTRY(newfstatat),
	SYSCALL_ENTRY(statx),
	SYSCALL_ENTRY(readlinkat),
	SYSCALL_ENTRY(readlink),
	SYSCALL_ENTRY(faccessat2),
	SYSCALL_ENTRY(faccessat),
	SYSCALL_ENTRY(access),
	SYSCALL_ENTRY(fchdir),
	SYSCALL_ENTRY(fcntl),
	SYSCALL_ENTRY(dup3),
	SYSCALL_ENTRY(poll),
	SYSCALL_ENTRY(ppoll),
	SYSCALL_ENTRY(select),
	SYSCALL_ENTRY(pselect6),
	SYSCALL_ENTRY(readv),
	SYSCALL_ENTRY(writev),
	SYSCALL_ENTRY(preadv2),
	SYSCALL_ENTRY(pwritev2),
	SYSCALL_ENTRY(sendfile),
	SYSCALL_ENTRY(time),
	SYSCALL_ENTRY(gettid),
	SYSCALL_ENTRY(tgkill),
	SYSCALL_ENTRY(tkill),
	SYSCALL_ENTRY(utimensat),
	SYSCALL_ENTRY(futex),
	SYSCALL_ENTRY(clone3),
	SYSCALL_ENTRY(getcpu),
	SYSCALL_ENTRY(pause),
	SYSCALL_ENTRY(getitimer),
	SYSCALL_ENTRY(setitimer),
	SYSCALL_ENTRY(alarm),
	SYSCALL_ENTRY(rt_sigpending),
};

/* Can SYSRET return to what regs describe?  Only if rcx/r11 still hold
 * rip/rflags as SYSCALL left them, rip is a canonical user address, and
 * no flag SYSRET would mishandle (RF, TF) is set. */
static bool sysret_ok(const struct pt_regs *regs)
{
	return regs->rcx == regs->rip && regs->r11 == regs->rflags &&
	       regs->cs == GDT_USER_CS && regs->ss == GDT_USER_DS &&
	       regs->rip < 0x00007ffffffff000ul &&
	       !(regs->rflags & (X86_EFLAGS_RF | X86_EFLAGS_TF));
}

/* Linux's name of each call by number (generated from the list of numbers
 * in include/uapi/asm/unistd_64.h by the Makefile). */
static const char *const syscall_names[NR_syscalls] = {
#include <generated/syscall_names.h>
};

/*
 * A call Spindle does not implement returns -ENOSYS, as on a Linux kernel
 * too old to have it: a C library then falls back to an older call (glibc
 * does for rseq, clone3, faccessat2 ...).  Each number is named in the
 * log the first time a program makes it, so the next gap in the ABI shows
 * without flooding the console when a program retries in a loop.
 */
static long sys_ni_syscall(unsigned long nr)
{
	static unsigned long warned[(NR_syscalls + 63) / 64];
	static bool warned_unknown;
	const char *name = nr < NR_syscalls ? syscall_names[nr] : NULL;

	if (nr < NR_syscalls) {
		if (warned[nr / 64] & (1ul << (nr % 64)))
			return -ENOSYS;
		warned[nr / 64] |= 1ul << (nr % 64);
	} else if (warned_unknown) {
		return -ENOSYS; /* beyond Linux's list: said once for all */
	} else {
		warned_unknown = true;
	}
	printk(KERN_WARNING "sys_%lu (%s) not implemented, called by %s[%d]\n", nr,
	       name ? name : "unknown", current->comm, current->pid);
	return -ENOSYS;
}

/* Called by entry_SYSCALL_64 with interrupts off; returns with them off,
 * true when the SYSRET way back is safe. */
bool do_syscall_64(struct pt_regs *regs)
{
	unsigned long nr = regs->rax;

	/* the number, for a restart once rax holds the result (Linux's
	 * orig_ax; a SYSCALL entry has no error code of its own) */
	regs->error_code = nr;
	local_irq_enable();
	if (nr < NR_syscalls && sys_call_table[nr])
		regs->rax = sys_call_table[nr](regs);
	else
		regs->rax = sys_ni_syscall(nr);
	exit_to_user_mode(regs);
	return sysret_ok(regs);
}
