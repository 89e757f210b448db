/* SPDX-License-Identifier: MIT */
/*
 * syscall.h - how a user program enters the kernel (private to the libc).
 *
 * x86-64 Linux's convention: the number goes in rax, the
 * arguments in rdi, rsi, rdx, r10, r8, r9 (r10, not rcx: the SYSCALL
 * instruction itself overwrites rcx with the return address and r11 with
 * rflags).  The result comes back in rax; a value in -4095..-1 is a
 * negated errno.  syscall_ret() turns that into C's convention: errno set,
 * -1 returned.
 */
#ifndef USER_LIB_SYSCALL_H
#define USER_LIB_SYSCALL_H

#include <errno.h>

/* Linux's x86-64 system-call numbers (arch/x86/entry/syscalls/syscall_64.tbl) */
#define SYS_read            0
#define SYS_write           1
#define SYS_open            2
#define SYS_close           3
#define SYS_stat            4
#define SYS_fstat           5
#define SYS_lstat           6
#define SYS_lseek           8
#define SYS_mmap            9
#define SYS_munmap         11
#define SYS_brk            12
#define SYS_rt_sigaction   13
#define SYS_rt_sigprocmask 14
#define SYS_rt_sigreturn   15
#define SYS_ioctl          16
#define SYS_pread64        17
#define SYS_pwrite64       18
#define SYS_pipe           22
#define SYS_sched_yield    24
#define SYS_dup            32
#define SYS_dup2           33
#define SYS_nanosleep      35
#define SYS_getpid         39
#define SYS_fork           57
#define SYS_vfork          58
#define SYS_execve         59
#define SYS_exit           60
#define SYS_wait4          61
#define SYS_kill           62
#define SYS_uname          63
#define SYS_fsync          74
#define SYS_fdatasync      75
#define SYS_ftruncate      77
#define SYS_getcwd         79
#define SYS_chdir          80
#define SYS_mkdir          83
#define SYS_rmdir          84
#define SYS_unlink         87
#define SYS_mknod         133
#define SYS_statfs        137
#define SYS_fstatfs       138
#define SYS_setpgid       109
#define SYS_getppid       110
#define SYS_getpgrp       111
#define SYS_setsid        112
#define SYS_sync          162
#define SYS_mount         165
#define SYS_umount2       166
#define SYS_reboot        169
#define SYS_io_setup      206
#define SYS_io_destroy    207
#define SYS_io_getevents  208
#define SYS_io_submit     209
#define SYS_io_cancel     210
#define SYS_getdents64    217
#define SYS_clock_gettime 228
#define SYS_exit_group    231
#define SYS_openat        257
#define SYS_pipe2         293

static inline long __sc(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

#define __SC_ARG(x) ((long)(x))
#define syscall0(n)                 __sc(n, 0, 0, 0, 0, 0, 0)
#define syscall1(n, a)              __sc(n, __SC_ARG(a), 0, 0, 0, 0, 0)
#define syscall2(n, a, b)           __sc(n, __SC_ARG(a), __SC_ARG(b), 0, 0, 0, 0)
#define syscall3(n, a, b, c)        __sc(n, __SC_ARG(a), __SC_ARG(b), __SC_ARG(c), 0, 0, 0)
#define syscall4(n, a, b, c, d)     __sc(n, __SC_ARG(a), __SC_ARG(b), __SC_ARG(c), __SC_ARG(d), 0, 0)
#define syscall5(n, a, b, c, d, e)  __sc(n, __SC_ARG(a), __SC_ARG(b), __SC_ARG(c), __SC_ARG(d), __SC_ARG(e), 0)
#define syscall6(n, a, b, c, d, e, f) \
	__sc(n, __SC_ARG(a), __SC_ARG(b), __SC_ARG(c), __SC_ARG(d), __SC_ARG(e), __SC_ARG(f))

/* -4095..-1 is an error; anything else (even a "negative" address) is a result */
static inline long syscall_ret(long r)
{
	if ((unsigned long)r > -4096UL) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

#endif
