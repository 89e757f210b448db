/* SPDX-License-Identifier: MIT */
/*
 * syscalls.h - every system call Spindle implements, with Linux's x86-64
 * number and Linux's prototype.
 *
 * A user program puts the number in rax and up to six arguments in rdi,
 * rsi, rdx, r10, r8, r9, and executes SYSCALL; the kernel's entry
 * (kernel/arch/x86/entry.S) saves the registers as a struct pt_regs and
 * kernel/arch/x86/syscall.c calls sys_<name>() from the table with the
 * registers cast to these types.  The result comes back in rax: a value,
 * or -errno (-4095..-1).  Unknown numbers return -ENOSYS.
 *
 * Who implements what: the process calls are kernel/ (fork.c, exec.c,
 * exit.c, signal.c, sys.c, mm/mmap.c); the file calls are fs/.  Names
 * follow the syscall's name (sys_stat for stat(4), sys_uname for
 * uname(63), sys_umount2 for umount2(166)), where Linux's own functions
 * are sys_newstat, sys_newuname and sys_umount.
 */
#ifndef SPINDLE_SYSCALLS_H
#define SPINDLE_SYSCALLS_H

#include <spindle/types.h>
#include <spindle/compiler.h>
#include <spindle/signal.h>

struct stat;
struct linux_dirent64;
struct statfs;
struct timespec;
struct rusage;
struct new_utsname;
struct sysinfo;
struct iocb;
struct io_event;
struct __kernel_timespec;
struct sigaction;

/* Linux's x86-64 numbers: the list user space shares */
#include <uapi/asm/unistd_64.h>
#define NR_syscalls 451 /* Linux 6.1's highest number + 1 */

/* --- files (fs/) ---------------------------------------------------- */
long sys_read(unsigned int fd, char __user *buf, size_t count);
long sys_write(unsigned int fd, const char __user *buf, size_t count);
long sys_open(const char __user *filename, int flags, umode_t mode);
long sys_close(unsigned int fd);
long sys_stat(const char __user *filename, struct stat __user *statbuf);
long sys_fstat(unsigned int fd, struct stat __user *statbuf);
long sys_lstat(const char __user *filename, struct stat __user *statbuf);
long sys_lseek(unsigned int fd, off_t offset, unsigned int whence);
long sys_ioctl(unsigned int fd, unsigned int cmd, unsigned long arg);
long sys_pread64(unsigned int fd, char __user *buf, size_t count, loff_t pos);
long sys_pwrite64(unsigned int fd, const char __user *buf, size_t count, loff_t pos);
long sys_pipe(int __user *fildes);
long sys_dup(unsigned int fildes);
long sys_dup2(unsigned int oldfd, unsigned int newfd);
long sys_fsync(unsigned int fd);
long sys_fdatasync(unsigned int fd);
long sys_ftruncate(unsigned int fd, off_t length);
long sys_getcwd(char __user *buf, unsigned long size);
long sys_chdir(const char __user *filename);
long sys_mkdir(const char __user *pathname, umode_t mode);
long sys_rmdir(const char __user *pathname);
long sys_unlink(const char __user *pathname);
long sys_mknod(const char __user *filename, umode_t mode, unsigned int dev);
long sys_mknodat(int dfd, const char __user *filename, umode_t mode, unsigned int dev);
long sys_mkdirat(int dfd, const char __user *pathname, umode_t mode);
long sys_unlinkat(int dfd, const char __user *pathname, int flag);
long sys_link(const char __user *oldname, const char __user *newname);
long sys_linkat(int olddfd, const char __user *oldname, int newdfd, const char __user *newname,
		int flags);
long sys_symlink(const char __user *oldname, const char __user *newname);
long sys_symlinkat(const char __user *oldname, int newdfd, const char __user *newname);
long sys_rename(const char __user *oldname, const char __user *newname);
long sys_renameat(int olddfd, const char __user *oldname, int newdfd,
		  const char __user *newname);
long sys_renameat2(int olddfd, const char __user *oldname, int newdfd,
		   const char __user *newname, unsigned int flags);
long sys_chmod(const char __user *filename, umode_t mode);
long sys_fchmod(unsigned int fd, umode_t mode);
long sys_fchmodat(int dfd, const char __user *filename, umode_t mode);
long sys_chown(const char __user *filename, u32 user, u32 group);
long sys_fchown(unsigned int fd, u32 user, u32 group);
long sys_lchown(const char __user *filename, u32 user, u32 group);
long sys_fchownat(int dfd, const char __user *filename, u32 user, u32 group, int flag);
long sys_truncate(const char __user *path, long length);
long sys_statfs(const char __user *pathname, struct statfs __user *buf);
long sys_fstatfs(unsigned int fd, struct statfs __user *buf);
long sys_sync(void);
long sys_syncfs(int fd);
long sys_mount(char __user *dev_name, char __user *dir_name, char __user *type,
	       unsigned long flags, void __user *data);
long sys_umount2(char __user *name, int flags);
long sys_getdents64(unsigned int fd, struct linux_dirent64 __user *dirent,
		    unsigned int count);
long sys_openat(int dfd, const char __user *filename, int flags, umode_t mode);
long sys_pipe2(int __user *fildes, int flags);
long sys_newfstatat(int dfd, const char __user *filename, struct stat __user *statbuf, int flag);
struct statx;
long sys_statx(int dfd, const char __user *filename, unsigned int flags, unsigned int mask,
	       struct statx __user *buffer);
long sys_readlinkat(int dfd, const char __user *pathname, char __user *buf, int bufsiz);
long sys_readlink(const char __user *path, char __user *buf, int bufsiz);
long sys_faccessat2(int dfd, const char __user *filename, int mode, int flags);
long sys_faccessat(int dfd, const char __user *filename, int mode);
long sys_access(const char __user *filename, int mode);
long sys_fchdir(unsigned int fd);
long sys_utimensat(int dfd, const char __user *filename, const struct timespec __user *utimes,
		   int flags);
long sys_fcntl(unsigned int fd, unsigned int cmd, unsigned long arg);
struct iovec;
long sys_readv(unsigned long fd, const struct iovec __user *vec, unsigned long vlen);
long sys_writev(unsigned long fd, const struct iovec __user *vec, unsigned long vlen);
long sys_preadv2(unsigned long fd, const struct iovec __user *vec, unsigned long vlen,
		 unsigned long pos_l, unsigned long pos_h, int flags);
long sys_pwritev2(unsigned long fd, const struct iovec __user *vec, unsigned long vlen,
		  unsigned long pos_l, unsigned long pos_h, int flags);
long sys_sendfile(int out_fd, int in_fd, loff_t __user *offset, size_t count);
long sys_dup3(unsigned int oldfd, unsigned int newfd, int flags);
/* poll and select (fs/select.c) */
struct pollfd;
long sys_poll(struct pollfd __user *ufds, unsigned int nfds, int timeout_msecs);
long sys_ppoll(struct pollfd __user *ufds, unsigned int nfds,
	       const struct timespec __user *tsp, const sigset_t __user *sigmask,
	       size_t sigsetsize);
long sys_select(int n, u64 __user *inp, u64 __user *outp, u64 __user *exp, void __user *tvp);
long sys_pselect6(int n, u64 __user *inp, u64 __user *outp, u64 __user *exp,
		  const struct timespec __user *tsp, void __user *sig);
/* asynchronous I/O (fs/aio.c); aio_context_t is an unsigned long */
long sys_io_setup(unsigned int nr_events, unsigned long __user *ctxp);
long sys_io_destroy(unsigned long ctx_id);
long sys_io_submit(unsigned long ctx_id, long nr, struct iocb __user *__user *iocbpp);
long sys_io_getevents(unsigned long ctx_id, long min_nr, long nr,
		      struct io_event __user *events, struct __kernel_timespec __user *timeout);
long sys_io_cancel(unsigned long ctx_id, struct iocb __user *iocb,
		   struct io_event __user *result);
/* io_uring (fs/io_uring.c) */
struct io_uring_params;
long sys_io_uring_setup(u32 entries, struct io_uring_params __user *params);
long sys_io_uring_enter(unsigned int fd, u32 to_submit, u32 min_complete, u32 flags,
			const void __user *argp, size_t argsz);
long sys_io_uring_register(unsigned int fd, unsigned int opcode, void __user *arg,
			   unsigned int nr_args);

/* --- processes (kernel/) ------------------------------------------- */
long sys_mmap(unsigned long addr, unsigned long len, unsigned long prot,
	      unsigned long flags, unsigned long fd, unsigned long off);
long sys_munmap(unsigned long addr, size_t len);
long sys_brk(unsigned long brk);
long sys_rt_sigaction(int sig, const struct sigaction __user *act,
		      struct sigaction __user *oact, size_t sigsetsize);
long sys_rt_sigprocmask(int how, sigset_t __user *set, sigset_t __user *oset,
			size_t sigsetsize);
long sys_rt_sigreturn(void);
long sys_sched_yield(void);
long sys_sched_setaffinity(pid_t pid, unsigned int len, unsigned long __user *user_mask_ptr);
long sys_sched_getaffinity(pid_t pid, unsigned int len, unsigned long __user *user_mask_ptr);
long sys_nanosleep(struct timespec __user *rqtp, struct timespec __user *rmtp);
long sys_getpid(void);
long sys_fork(void);
long sys_vfork(void);
long sys_execve(const char __user *filename, const char __user *const __user *argv,
		const char __user *const __user *envp);
long sys_exit(int error_code);
long sys_wait4(pid_t pid, int __user *stat_addr, int options, struct rusage __user *ru);
long sys_waitid(int which, pid_t upid, void __user *infop, int options,
		struct rusage __user *ru);
long sys_kill(pid_t pid, int sig);
long sys_uname(struct new_utsname __user *name);
long sys_sysinfo(struct sysinfo __user *info);
long sys_syslog(int type, char __user *buf, int len);
long sys_setpgid(pid_t pid, pid_t pgid);
long sys_getppid(void);
long sys_getpgrp(void);
long sys_setsid(void);
long sys_reboot(int magic1, int magic2, unsigned int cmd, void __user *arg);
long sys_clock_gettime(clockid_t which_clock, struct timespec __user *tp);
long sys_exit_group(int error_code);
long sys_clone(unsigned long clone_flags, unsigned long newsp, int __user *parent_tid,
	       int __user *child_tid, unsigned long tls);
long sys_gettid(void);
long sys_tgkill(pid_t tgid, pid_t pid, int sig);
long sys_tkill(pid_t pid, int sig);
long sys_futex(u32 __user *uaddr, int op, u32 val, const struct timespec __user *utime,
	       u32 __user *uaddr2, u32 val3);
long sys_clone3(void __user *uargs, size_t size);
long sys_getcpu(unsigned int __user *cpu, unsigned int __user *node, void __user *unused);
long sys_pause(void);
struct __kernel_old_itimerval;
long sys_getitimer(int which, struct __kernel_old_itimerval __user *value);
long sys_setitimer(int which, const struct __kernel_old_itimerval __user *value,
		   struct __kernel_old_itimerval __user *ovalue);
long sys_alarm(unsigned int seconds);
long sys_rt_sigpending(sigset_t __user *uset, size_t sigsetsize);
long sys_rt_sigsuspend(sigset_t __user *unewset, size_t sigsetsize);
struct stack_t;
long sys_sigaltstack(const struct stack_t __user *uss, struct stack_t __user *uoss);
long sys_arch_prctl(int option, unsigned long addr);
long sys_mprotect(unsigned long start, size_t len, unsigned long prot);
long sys_madvise(unsigned long start, size_t len, int behavior);
long sys_fadvise64(int fd, loff_t offset, loff_t len, int advice);
struct itimerspec;
long sys_timerfd_create(int clockid, int flags);
long sys_timerfd_settime(int fd, int flags, const struct itimerspec __user *utmr,
			 struct itimerspec __user *otmr);
long sys_timerfd_gettime(int fd, struct itimerspec __user *otmr);
long sys_get_mempolicy(int __user *policy, unsigned long __user *nmask, unsigned long maxnode,
		       unsigned long addr, unsigned long flags);
long sys_set_mempolicy(int mode, const unsigned long __user *nmask, unsigned long maxnode);
long sys_getpriority(int which, int who);
long sys_getrusage(int who, struct rusage __user *ru);
long sys_fallocate(int fd, int mode, loff_t offset, loff_t len);
long sys_setpriority(int which, int who, int niceval);
struct shmid64_ds;
long sys_shmget(int key, size_t size, int shmflg);
long sys_shmat(int shmid, unsigned long shmaddr, int shmflg);
long sys_shmdt(unsigned long shmaddr);
long sys_shmctl(int shmid, int cmd, struct shmid64_ds __user *buf);
long sys_msync(unsigned long start, size_t len, int flags);
long sys_getpgid(pid_t pid);
long sys_getsid(pid_t pid);
long sys_getuid(void);
long sys_geteuid(void);
long sys_getgid(void);
long sys_getegid(void);
long sys_setuid(u32 uid);
long sys_setgid(u32 gid);
long sys_getresuid(u32 __user *r, u32 __user *e, u32 __user *s);
long sys_getresgid(u32 __user *r, u32 __user *e, u32 __user *s);
long sys_getgroups(int size, u32 __user *list);
long sys_umask(int mask);
long sys_set_tid_address(int __user *tidptr);
long sys_set_robust_list(void __user *head, size_t len);
long sys_rseq(void);
long sys_prlimit64(pid_t pid, unsigned int resource, const void __user *new_rlim,
		   void __user *old_rlim);
long sys_getrlimit(unsigned int resource, void __user *rlim);
long sys_setrlimit(unsigned int resource, const void __user *rlim);
long sys_prctl(int option, unsigned long arg2);
long sys_getrandom(char __user *buf, size_t count, unsigned int flags);
long sys_clock_getres(clockid_t which_clock, struct timespec __user *tp);
long sys_time(long __user *tloc);
long sys_gettimeofday(void __user *tv, void __user *tz);
struct timex;
long sys_adjtimex(struct timex __user *utx);
long sys_clock_adjtime(clockid_t which_clock, struct timex __user *utx);
long sys_clock_nanosleep(clockid_t which_clock, int flags, struct timespec __user *rqtp,
			 struct timespec __user *rmtp);
/* splitmix64 over the TSC (kernel/sys.c): not for cryptography */
u64 get_random_u64(void);

/* arch_prctl(2) */
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003

/* The x86-64 user ABI structures the process calls use. */
struct timespec {
	long tv_sec;
	long tv_nsec;
};

struct itimerspec {                     /* timerfd_settime, timerfd_gettime */
	struct timespec it_interval;    /* the period; 0: once */
	struct timespec it_value;       /* until the first expiry; 0: disarmed */
};

/* getitimer/setitimer's (Linux's __kernel_old_itimerval: timevals) */
struct __kernel_old_timeval {
	long tv_sec;
	long tv_usec;
};
struct __kernel_old_itimerval {
	struct __kernel_old_timeval it_interval;        /* the period; 0: once */
	struct __kernel_old_timeval it_value;           /* left until it fires */
};
#define ITIMER_REAL     0       /* wall-clock time: SIGALRM */
#define ITIMER_VIRTUAL  1       /* user CPU time: SIGVTALRM (not in Spindle) */
#define ITIMER_PROF     2       /* all CPU time: SIGPROF (not in Spindle) */

struct new_utsname {
	char sysname[65];
	char nodename[65];
	char release[65];
	char version[65];
	char machine[65];
	char domainname[65];
};

#include <uapi/linux/time.h> /* the clock ids: shared with user space */

#include <uapi/linux/reboot.h> /* reboot(2)'s magic and commands: shared with user space */

#endif /* SPINDLE_SYSCALLS_H */
