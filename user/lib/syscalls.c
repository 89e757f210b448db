// SPDX-License-Identifier: MIT
/*
 * syscalls.c - one small C function per system call Spindle implements.
 *
 * Each is the libc name for a Linux system call, with Linux's number and
 * argument order; each turns a -errno result into errno (syscall_ret in
 * syscall.h).  Wrappers that add behaviour (execvp, sleep, getcwd's
 * return value ...) are in unistd.c.
 */
#include <stdarg.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/mount.h>
#include <sys/mman.h>
#include <sys/reboot.h>
#include <dirent.h>
#include <time.h>
#include "syscall.h"
#include <linux/aio_abi.h>

int errno;

/* --- files (the fs part implements these in the kernel) --- */

ssize_t read(int fd, void *buf, size_t n)
{
	return syscall_ret(syscall3(__NR_read, fd, buf, n));
}

ssize_t write(int fd, const void *buf, size_t n)
{
	return syscall_ret(syscall3(__NR_write, fd, buf, n));
}

/* mode is read only when O_CREAT asks for it, as POSIX says */
int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & O_CREAT) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return (int)syscall_ret(syscall3(__NR_open, path, flags, mode));
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & O_CREAT) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return (int)syscall_ret(syscall4(__NR_openat, dirfd, path, flags, mode));
}

int creat(const char *path, mode_t mode)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
}

int close(int fd)
{
	return (int)syscall_ret(syscall1(__NR_close, fd));
}

int access(const char *path, int mode)
{
	return (int)syscall_ret(syscall2(__NR_access, path, mode));
}

int stat(const char *path, struct stat *st)
{
	return (int)syscall_ret(syscall2(__NR_stat, path, st));
}

int fstat(int fd, struct stat *st)
{
	return (int)syscall_ret(syscall2(__NR_fstat, fd, st));
}

int lstat(const char *path, struct stat *st)
{
	return (int)syscall_ret(syscall2(__NR_lstat, path, st));
}

off_t lseek(int fd, off_t off, int whence)
{
	return syscall_ret(syscall3(__NR_lseek, fd, off, whence));
}

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	return (int)syscall_ret(syscall3(__NR_ioctl, fd, request, arg));
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return syscall_ret(syscall4(__NR_pread64, fd, buf, n, off));
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return syscall_ret(syscall4(__NR_pwrite64, fd, buf, n, off));
}

/* x86-64: the whole offset in pos_l, pos_h 0 (glibc's LO_HI_LONG) */
ssize_t preadv2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags)
{
	return syscall_ret(syscall6(__NR_preadv2, fd, iov, iovcnt, offset, 0, flags));
}

ssize_t pwritev2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags)
{
	return syscall_ret(syscall6(__NR_pwritev2, fd, iov, iovcnt, offset, 0, flags));
}

int pipe(int fds[2])
{
	return (int)syscall_ret(syscall1(__NR_pipe, fds));
}

int pipe2(int fds[2], int flags)
{
	return (int)syscall_ret(syscall2(__NR_pipe2, fds, flags));
}

int dup(int fd)
{
	return (int)syscall_ret(syscall1(__NR_dup, fd));
}

int dup2(int fd, int newfd)
{
	return (int)syscall_ret(syscall2(__NR_dup2, fd, newfd));
}

int fsync(int fd)
{
	return (int)syscall_ret(syscall1(__NR_fsync, fd));
}

int fdatasync(int fd)
{
	return (int)syscall_ret(syscall1(__NR_fdatasync, fd));
}

/* not among Spindle's first system calls: ENOSYS until the kernel has it */
int ftruncate(int fd, off_t length)
{
	return (int)syscall_ret(syscall2(__NR_ftruncate, fd, length));
}

/* the raw call returns the length stored, NUL included; getcwd() is in unistd.c */
long __getcwd(char *buf, size_t size)
{
	return syscall_ret(syscall2(__NR_getcwd, buf, size));
}

int chdir(const char *path)
{
	return (int)syscall_ret(syscall1(__NR_chdir, path));
}

int mkdir(const char *path, mode_t mode)
{
	return (int)syscall_ret(syscall2(__NR_mkdir, path, mode));
}

/* dev as Linux's new_encode_dev of major/minor (makedev in sys/stat.h) */
int mknod(const char *path, mode_t mode, dev_t dev)
{
	return (int)syscall_ret(syscall3(__NR_mknod, path, mode, dev));
}

int mkfifo(const char *path, mode_t mode)
{
	return mknod(path, S_IFIFO | (mode & 07777), 0);
}

int statfs(const char *path, struct statfs *buf)
{
	return (int)syscall_ret(syscall2(__NR_statfs, path, buf));
}

int fstatfs(int fd, struct statfs *buf)
{
	return (int)syscall_ret(syscall2(__NR_fstatfs, fd, buf));
}

int rmdir(const char *path)
{
	return (int)syscall_ret(syscall1(__NR_rmdir, path));
}

int unlink(const char *path)
{
	return (int)syscall_ret(syscall1(__NR_unlink, path));
}

void sync(void)
{
	syscall0(__NR_sync);
}

int mount(const char *source, const char *target, const char *fstype,
	  unsigned long flags, const void *data)
{
	return (int)syscall_ret(syscall5(__NR_mount, source, target, fstype, flags, data));
}

int umount2(const char *target, int flags)
{
	return (int)syscall_ret(syscall2(__NR_umount2, target, flags));
}

int umount(const char *target)
{
	return umount2(target, 0);
}

int getdents64(int fd, void *buf, size_t n)
{
	return (int)syscall_ret(syscall3(__NR_getdents64, fd, buf, n));
}

/* --- processes and memory (the proc part implements these) --- */

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return (void *)syscall_ret(syscall6(__NR_mmap, addr, len, prot, flags, fd, off));
}

int munmap(void *addr, size_t len)
{
	return (int)syscall_ret(syscall2(__NR_munmap, addr, len));
}

int mprotect(void *addr, size_t len, int prot)
{
	return (int)syscall_ret(syscall3(__NR_mprotect, addr, len, prot));
}

int msync(void *addr, size_t len, int flags)
{
	return (int)syscall_ret(syscall3(__NR_msync, addr, len, flags));
}

int madvise(void *addr, size_t len, int advice)
{
	return (int)syscall_ret(syscall3(__NR_madvise, addr, len, advice));
}

/* brk(12) returns the new break, or the old one when it refused */
void *__brk(void *addr)
{
	return (void *)syscall1(__NR_brk, addr);
}

int sched_yield(void)
{
	return (int)syscall_ret(syscall0(__NR_sched_yield));
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	return (int)syscall_ret(syscall2(__NR_nanosleep, req, rem));
}

extern int (*__vdso_clock_gettime)(clockid_t, struct timespec *);

/* through the vDSO when exec mapped one (vdso.c): no system call */
int clock_gettime(clockid_t clk, struct timespec *ts)
{
	if (__vdso_clock_gettime)
		return (int)syscall_ret(__vdso_clock_gettime(clk, ts));
	return (int)syscall_ret(syscall2(__NR_clock_gettime, clk, ts));
}

pid_t getpid(void)
{
	return (pid_t)syscall0(__NR_getpid);
}

pid_t getppid(void)
{
	return (pid_t)syscall0(__NR_getppid);
}

pid_t getpgrp(void)
{
	return (pid_t)syscall0(__NR_getpgrp);
}

int setpgid(pid_t pid, pid_t pgid)
{
	return (int)syscall_ret(syscall2(__NR_setpgid, pid, pgid));
}

pid_t setsid(void)
{
	return (pid_t)syscall_ret(syscall0(__NR_setsid));
}

pid_t fork(void)
{
	return (pid_t)syscall_ret(syscall0(__NR_fork));
}

/* vfork() is in crt0.S: it must not keep its return address on the stack */

int execve(const char *path, char *const argv[], char *const envp[])
{
	return (int)syscall_ret(syscall3(__NR_execve, path, argv, envp));
}

/* exit_group(231): the whole process, which is what _exit(2) means */
void _exit(int status)
{
	for (;;) {
		syscall1(__NR_exit_group, status);
		syscall1(__NR_exit, status);
	}
}

pid_t wait4(pid_t pid, int *status, int options, void *rusage)
{
	return (pid_t)syscall_ret(syscall4(__NR_wait4, pid, status, options, rusage));
}

pid_t waitpid(pid_t pid, int *status, int options)
{
	return wait4(pid, status, options, 0);
}

pid_t wait(int *status)
{
	return wait4(-1, status, 0, 0);
}

int kill(pid_t pid, int sig)
{
	return (int)syscall_ret(syscall2(__NR_kill, pid, sig));
}

int __rt_sigaction(int sig, const void *act, void *old)
{
	return (int)syscall_ret(syscall4(__NR_rt_sigaction, sig, act, old, 8));
}

int sigprocmask(int how, const unsigned long *set, unsigned long *old)
{
	return (int)syscall_ret(syscall4(__NR_rt_sigprocmask, how, set, old, 8));
}

int reboot(int cmd)
{
	return spindle_reboot(cmd, 0);
}

/* on Spindle the fourth argument carries init's exit status (docs/user.md) */
int spindle_reboot(int cmd, int status)
{
	return (int)syscall_ret(syscall4(__NR_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2,
					 (unsigned int)cmd, (long)status));
}

long __syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	return __sc(nr, a1, a2, a3, a4, a5, a6);
}

long syscall(long nr, ...)
{
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	return syscall_ret(__sc(nr, a[0], a[1], a[2], a[3], a[4], a[5]));
}

/* --- asynchronous I/O (linux/aio_abi.h): the raw calls, no libaio ------- */

int io_setup(unsigned int nr_events, aio_context_t *ctxp)
{
	return (int)syscall_ret(syscall2(__NR_io_setup, nr_events, ctxp));
}

int io_destroy(aio_context_t ctx)
{
	return (int)syscall_ret(syscall1(__NR_io_destroy, ctx));
}

long io_submit(aio_context_t ctx, long nr, struct iocb **iocbpp)
{
	return syscall_ret(syscall3(__NR_io_submit, ctx, nr, iocbpp));
}

long io_getevents(aio_context_t ctx, long min_nr, long nr, struct io_event *events,
		  struct timespec *timeout)
{
	return syscall_ret(syscall5(__NR_io_getevents, ctx, min_nr, nr, events, timeout));
}

int io_cancel(aio_context_t ctx, struct iocb *iocb, struct io_event *result)
{
	return (int)syscall_ret(syscall3(__NR_io_cancel, ctx, iocb, result));
}
