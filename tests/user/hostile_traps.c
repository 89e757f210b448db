// SPDX-License-Identifier: MIT
/*
 * hostile_traps - faults become the right signals, and cannot flood the log.
 *
 *   x87_sigfpe      an unmasked x87 divide by zero raises #MF: the process
 *                   dies of SIGFPE; with a handler, si_code is FPE_FLTDIV
 *                   and si_addr the faulting instruction's page or near it
 *   simd_sigfpe     the same with SSE (divss, #XM)
 *   int_div         an integer divide by zero: SIGFPE, FPE_INTDIV
 *   segv_flood      200 children segfault as fast as they can; the kernel's
 *                   "segfault at" lines are rate-limited (the scenario counts
 *                   them: at most 10 per 5 s, as Linux's printk_ratelimited)
 *   sigreturn_flood 200 rt_sigreturns with a bad frame: the same for "bad
 *                   frame in rt_sigreturn"
 *   exec_flood      200 execs of a program cut after its first page: ENOEXEC
 *                   each time, and the same for its segments' bytes that
 *                   "lie beyond the file"
 *   tiocspgrp       the console's foreground group can only be set to a
 *                   group that exists (ESRCH) in our own session (EPERM)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include "hostile.h"

#define FPE_INTDIV      1
#define FPE_FLTDIV      3

/* si_code at offset 8 of the siginfo, si_addr at 16 (x86-64 Linux) */
static void exit_with_code(int sig, void *info, void *uc)
{
	int code;

	(void)uc;
	memcpy(&code, (char *)info + 8, 4);
	_exit(sig == SIGFPE ? 100 + code : 1);
}

static void x87_divide_by_zero(void)
{
	unsigned short cw = 0x037b;             /* all masked but ZM (bit 2) */

	__asm__ volatile("fninit\n\t"
			 "fldcw %0\n\t"
			 "fld1\n\t"
			 "fldz\n\t"
			 "fdivrp\n\t"           /* 1 / 0: ZE set, pending */
			 "fwait\n\t"            /* the pending error is raised here */
			 "fstp %%st(0)"
			 : : "m"(cw) : "memory");
}

static void simd_divide_by_zero(void)
{
	unsigned int mxcsr = 0x1f80 & ~(1u << 9);      /* unmask ZM */
	static const float one = 1.0f, zero = 0.0f;

	__asm__ volatile("ldmxcsr %0\n\t"
			 "movss %1, %%xmm0\n\t"
			 "divss %2, %%xmm0\n\t"
			 "stmxcsr %0"
			 : "+m"(mxcsr) : "m"(one), "m"(zero) : "memory");
	/* still here: the CPU set the flag without raising #XM -- QEMU's TCG
	 * does not implement SIMD exceptions; say so (exit 2) */
	if (mxcsr & (1u << 2))
		_exit(2);
}

static void int_divide_by_zero(void)
{
	int zero = 0;

	/* idiv in asm: in C, a division by zero is undefined and gcc may
	 * compile it into something that does not divide */
	__asm__ volatile("movl $1, %%eax\n\t"
			 "cltd\n\t"
			 "idivl %0" : : "r"(zero) : "eax", "edx");
}

/* Run fn in a child; with_handler: catch SIGFPE and exit 100 + si_code. */
static int fault_status(void (*fn)(void), int with_handler)
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		if (with_handler) {
			struct sigaction sa = { .sa_handler = (sighandler_t)(void (*)(void))exit_with_code };

			sigaction(SIGFPE, &sa, NULL);
		}
		fn();
		_exit(0);                       /* no signal: wrong */
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

static void check_fpe(void (*fn)(void), int code)
{
	int st = fault_status(fn, 0);

	CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGFPE, "status %#x, not SIGFPE", st);
	st = fault_status(fn, 1);
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 100 + code,
		  "with a handler: status %#x, expected exit %d (si_code %d)", st, 100 + code, code);
}

static void t_x87_sigfpe(void)
{
	check_fpe(x87_divide_by_zero, FPE_FLTDIV);
}

/* A SIGFPE handler starts with a clean x87: no error pending (FSW.ES), the
 * default control word -- else its own first x87 instruction would fault
 * again, and a handler that returns or longjmps would loop. */
static void exit_if_fpu_clean(int sig)
{
	unsigned short sw, cw;

	(void)sig;
	__asm__ volatile("fnstsw %0\n\tfnstcw %1" : "=m"(sw), "=m"(cw));
	_exit(!(sw & 0x80) && cw == 0x037f ? 0 : 10);
}

static void t_x87_handler_starts_clean(void)
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		struct sigaction sa = { .sa_handler = exit_if_fpu_clean };

		sigaction(SIGFPE, &sa, NULL);
		x87_divide_by_zero();
		_exit(20);                      /* no signal: wrong */
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "status %#x: the handler ran with the faulting FPU state", st);
}

static void t_simd_sigfpe(void)
{
	int st = fault_status(simd_divide_by_zero, 0);

	if (WIFEXITED(st) && WEXITSTATUS(st) == 2) {
		hostile_skip("this CPU sets MXCSR.ZE without raising #XM (QEMU TCG)");
		return;
	}
	check_fpe(simd_divide_by_zero, FPE_FLTDIV);
}

static void t_int_div(void)
{
	check_fpe(int_divide_by_zero, FPE_INTDIV);
}

#define FLOOD   200

static void t_segv_flood(void)
{
	int bad = 0;

	printf("hostile_traps: segv flood start\n");
	fflush(stdout);
	for (int i = 0; i < FLOOD; i++) {
		int st;
		pid_t pid = fork();

		if (pid == 0) {
			volatile int *volatile bad_ptr = (int *)16;

			*bad_ptr = 1;
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFSIGNALED(st) ||
		    WTERMSIG(st) != SIGSEGV)
			bad++;
	}
	printf("hostile_traps: segv flood end\n");
	CHECK_MSG(bad == 0, "%d of %d children did not die of SIGSEGV", bad, FLOOD);
}

/* rt_sigreturn with the stack pointer in unmapped memory: a bad frame */
static void bad_sigreturn(void)
{
	__asm__ volatile("movq $16, %%rsp\n\t"
			 "movl $15, %%eax\n\t"
			 "syscall" : : : "memory");
}

static void t_sigreturn_flood(void)
{
	int bad = 0;

	for (int i = 0; i < FLOOD; i++) {
		int st = fault_status(bad_sigreturn, 0);

		if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV)
			bad++;
	}
	CHECK_MSG(bad == 0, "%d of %d children did not die of SIGSEGV", bad, FLOOD);
}

/* exec of an ELF cut short: ENOEXEC, and a log line -- rate-limited */
static void t_exec_flood(void)
{
	static char hdr[4096];
	char *argv[] = { "/tmp/hostile_cut", NULL };
	int fd = open("/tests/hostile_traps", O_RDONLY), bad = 0;
	long n;

	CHECK(fd >= 0);
	n = fd >= 0 ? read(fd, hdr, sizeof(hdr)) : -1;
	close(fd);
	CHECK(n == sizeof(hdr));
	fd = open("/tmp/hostile_cut", O_WRONLY | O_CREAT | O_TRUNC, 0755);
	CHECK(fd >= 0 && write(fd, hdr, n) == n);
	close(fd);
	for (int i = 0; i < FLOOD; i++) {
		errno = 0;
		if (execve(argv[0], argv, NULL) != -1 || errno != ENOEXEC)
			bad++;
	}
	unlink("/tmp/hostile_cut");
	CHECK_MSG(bad == 0, "%d of %d execs did not fail with ENOEXEC", bad, FLOOD);
}

static void t_tiocspgrp(void)
{
	pid_t mine = tcgetpgrp(0), child;
	int pg, st;

	if (mine < 0) {
		hostile_skip("stdin is not a terminal");
		return;
	}
	pg = 99999;                             /* nobody's */
	errno = 0;
	CHECK_MSG(ioctl(0, TIOCSPGRP, &pg) == -1 && errno == ESRCH, "no such group: errno %d", errno);
	pg = -1;
	errno = 0;
	CHECK(ioctl(0, TIOCSPGRP, &pg) == -1 && errno == EINVAL);
	/* a group in another session: a child that made its own */
	int ready[2], done[2];
	char c;

	CHECK(pipe(ready) == 0 && pipe(done) == 0);
	child = fork();
	if (child == 0) {
		setsid();
		write(ready[1], "r", 1);
		read(done[0], &c, 1);           /* until the parent is done */
		_exit(0);
	}
	CHECK(child > 0);
	CHECK(read(ready[0], &c, 1) == 1);
	pg = child;
	errno = 0;
	CHECK_MSG(ioctl(0, TIOCSPGRP, &pg) == -1 && errno == EPERM, "other session: errno %d", errno);
	write(done[1], "x", 1);
	waitpid(child, &st, 0);
	close(ready[0]);
	close(ready[1]);
	close(done[0]);
	close(done[1]);
	CHECK(tcgetpgrp(0) == mine);            /* nothing changed */
	pg = getpgrp();
	CHECK(ioctl(0, TIOCSPGRP, &pg) == 0);   /* our own group: fine */
	pg = mine;
	ioctl(0, TIOCSPGRP, &pg);               /* back, if that group still exists */
}

static const struct hostile_case cases[] = {
	{ "x87_sigfpe", t_x87_sigfpe },
	{ "x87_handler_starts_clean", t_x87_handler_starts_clean },
	{ "simd_sigfpe", t_simd_sigfpe },
	{ "int_div", t_int_div },
	{ "segv_flood", t_segv_flood },
	{ "sigreturn_flood", t_sigreturn_flood },
	{ "exec_flood", t_exec_flood },
	{ "tiocspgrp", t_tiocspgrp },
};

int main(int argc, char **argv)
{
	return hostile_run("hostile_traps", cases, sizeof(cases) / sizeof(cases[0]),
			   argc > 1 ? argv[1] : NULL);
}
