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

/* Linux's x86-64 system-call numbers: include/uapi/asm/unistd_64.h */
#include <asm/unistd_64.h>

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
