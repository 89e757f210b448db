// SPDX-License-Identifier: MIT
/*
 * hostile_leaks [DEV] - nothing the kernel copies out carries kernel memory.
 *
 * Every case fills the user buffer with a known byte first (0xAA), makes
 * the call, and then checks what came back: padding and unused fields are
 * zero, bytes past what the call returns are still the user's own 0xAA,
 * and no 8-byte word looks like a kernel address (0xffff8... and up: the
 * direct map, kernel stacks, the kernel image).
 *
 *   sigframe   a signal handler's frame on the user stack: the ucontext,
 *              the siginfo and the 512-byte fxsave image, whose last 96
 *              bytes the CPU never writes
 *   stat       struct stat's __pad0 and __unused[3]
 *   getdents64 the bytes after each name, up to d_reclen
 *   uname      each field after its NUL
 *   wait4      struct rusage (Spindle keeps no accounting: all zero)
 *   tcgets     the console's termios: 36 bytes and not one more
 *   blkgetsize64  8 bytes and not one more (on DEV, default sda)
 *
 * Runs on a Linux host too, where the answers are Linux's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include "hostile.h"

#define FILL            0xAA
#define NR_UNAME        63
#define NR_GETDENTS64   217

static char dev_path[64];

static int kernel_looking(uint64_t w)
{
	return w >= 0xffff800000000000ull;
}

/* Index of the first kernel-looking aligned word in [p, p+n), or -1. */
static long find_kernel_word(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, 8);
		if (kernel_looking(w))
			return (long)i;
	}
	return -1;
}

static int all_bytes(const void *p, size_t n, unsigned char v)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != v)
			return 0;
	return 1;
}

/* --- the signal frame --- */

/* x86-64 Linux's layout: the ucontext is 304 bytes; its sigcontext starts
 * at 40 and holds the fxsave image's address at 40 + 184; the siginfo (128
 * bytes) follows the ucontext; pretcode (8) sits right below the ucontext. */
#define UC_SIZE         304
#define UC_FPSTATE      (40 + 184)
#define SIGINFO_SIZE    128
#define FXSAVE_SIZE     512
#define FXSAVE_USED     416             /* the CPU writes bytes 0..415 only */

static unsigned char frame_copy[4096];
static size_t frame_len;
static uintptr_t frame_start, frame_fp, frame_uc, frame_info;
static volatile int handler_ran;

/*
 * The first signal's handler scribbles on its frame's unused fxsave tail.
 * rt_sigreturn reads the whole 512-byte image into a kernel buffer, frees
 * it, and the next signal's frame is built in the same buffer (the slab
 * hands back the object freed last): a kernel that copies the buffer out
 * without zeroing it returns those bytes -- here ours, in a long-running
 * system whatever kernel object sat there before.
 */
static void scribble_handler(int sig, void *info, void *uc)
{
	uint64_t fp;

	memcpy(&fp, (char *)uc + UC_FPSTATE, 8);
	memset((char *)fp + FXSAVE_USED, 0x5A, FXSAVE_SIZE - FXSAVE_USED);
	handler_ran = sig;
}

static void frame_handler(int sig, void *info, void *uc)
{
	uintptr_t start = (uintptr_t)uc - 8;
	uint64_t fp;

	memcpy(&fp, (char *)uc + UC_FPSTATE, 8);
	frame_start = start;
	frame_uc = (uintptr_t)uc;
	frame_info = (uintptr_t)info;
	frame_fp = fp;
	/* from pretcode to the end of the fxsave image */
	if (fp > start && fp + FXSAVE_SIZE - start <= sizeof(frame_copy)) {
		frame_len = fp + FXSAVE_SIZE - start;
		memcpy(frame_copy, (void *)start, frame_len);
	}
	handler_ran = sig;
}

/* Leave FILL in the stack below us, where the frame will be built. */
static void __attribute__((noinline)) fill_stack(void)
{
	volatile unsigned char big[32768];

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = FILL;
}

static void t_sigframe(void)
{
	struct sigaction sa = { .sa_handler = (sighandler_t)(void (*)(void))frame_handler };
	size_t uc_off, fp_off;
	long k;

	struct sigaction scribble = { .sa_handler = (sighandler_t)(void (*)(void))scribble_handler };

	CHECK(sigaction(SIGUSR2, &scribble, NULL) == 0);
	kill(getpid(), SIGUSR2);
	CHECK(handler_ran == SIGUSR2);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	handler_ran = 0;
	frame_len = 0;
	fill_stack();
	kill(getpid(), SIGUSR1);
	CHECK(handler_ran == SIGUSR1);
	CHECK_MSG(frame_len != 0, "fpstate %#lx not just above the frame at %#lx",
		  (unsigned long)frame_fp, (unsigned long)frame_start);
	if (hostile_failed_now)
		return;
	uc_off = frame_uc - frame_start;
	fp_off = frame_fp - frame_start;
	CHECK(frame_info == frame_uc + UC_SIZE);
	k = find_kernel_word(frame_copy, frame_len);
	CHECK_MSG(k < 0, "kernel-looking word %016llx at frame+%ld",
		  k >= 0 ? (unsigned long long)*(uint64_t *)(frame_copy + k) : 0ull, k);
	/* the fxsave image's unused tail: zero, not whatever was there */
	CHECK_MSG(all_bytes(frame_copy + fp_off + FXSAVE_USED, FXSAVE_SIZE - FXSAVE_USED, 0),
		  "fxsave bytes %d..%d are not zero", FXSAVE_USED, FXSAVE_SIZE - 1);
	/* between the siginfo and the fxsave image: alignment, never written */
	CHECK_MSG(all_bytes(frame_copy + uc_off + UC_SIZE + SIGINFO_SIZE,
			    fp_off - (uc_off + UC_SIZE + SIGINFO_SIZE), FILL),
		  "the gap below the fxsave image was written");
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
}

/* --- structures returned by system calls --- */

static void t_stat(void)
{
	struct stat st;

	memset(&st, FILL, sizeof(st));
	CHECK(stat("/", &st) == 0);
	CHECK(st.__pad0 == 0);
	CHECK(st.__unused[0] == 0 && st.__unused[1] == 0 && st.__unused[2] == 0);
	CHECK(find_kernel_word(&st, sizeof(st)) < 0);
	memset(&st, FILL, sizeof(st));
	CHECK(fstat(1, &st) == 0);
	CHECK(st.__pad0 == 0);
	CHECK(st.__unused[0] == 0 && st.__unused[1] == 0 && st.__unused[2] == 0);
}

static void t_getdents64(void)
{
	static unsigned char buf[4096];
	int fd = open("/", O_RDONLY);
	long n;

	CHECK(fd >= 0);
	memset(buf, FILL, sizeof(buf));
	n = syscall(NR_GETDENTS64, fd, buf, sizeof(buf));
	close(fd);
	CHECK(n > 0);
	for (long off = 0; off < n && !hostile_failed_now;) {
		unsigned short reclen;
		const char *name = (const char *)buf + off + 19;
		size_t used;

		memcpy(&reclen, buf + off + 16, 2);
		CHECK(reclen >= 24 && off + reclen <= n);
		if (hostile_failed_now)
			break;
		used = 19 + strnlen(name, reclen - 19) + 1;
		CHECK_MSG(all_bytes(buf + off + used, reclen - used, 0),
			  "padding after \"%s\" is not zero", name);
		off += reclen;
	}
	CHECK(all_bytes(buf + n, sizeof(buf) - n, FILL));
}

static void t_uname(void)
{
	char u[6 * 65 + 64];

	memset(u, FILL, sizeof(u));
	CHECK(syscall(NR_UNAME, u) == 0);
	for (int f = 0; f < 6; f++) {
		char *field = u + f * 65;
		size_t len = strnlen(field, 65);

		CHECK_MSG(len < 65, "field %d has no NUL", f);
		if (len < 65)
			CHECK_MSG(all_bytes(field + len, 65 - len, 0), "field %d (\"%s\") is not zero-padded",
				  f, field);
	}
	CHECK(all_bytes(u + 6 * 65, 64, FILL));
}

static void t_wait4_rusage(void)
{
	unsigned char ru[144 + 16];
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(7);
	CHECK(pid > 0);
	memset(ru, FILL, sizeof(ru));
	CHECK(wait4(pid, &status, 0, ru) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	CHECK(find_kernel_word(ru, 144) < 0);
	CHECK(all_bytes(ru + 144, 16, FILL));
}

static void t_tcgets(void)
{
	unsigned char t[64];

	memset(t, FILL, sizeof(t));
	if (ioctl(1, TCGETS, t) < 0) {
		hostile_skip("stdout is not a terminal");
		return;
	}
	CHECK(t[16] == 0);                      /* c_line: N_TTY */
	CHECK_MSG(all_bytes(t + 36, sizeof(t) - 36, FILL), "TCGETS wrote past its 36 bytes");
}

static void t_blkgetsize64(void)
{
	unsigned char b[24];
	int fd = open(dev_path, O_RDONLY);

	if (fd < 0) {
		hostile_skip("no block device to test on");
		return;
	}
	memset(b, FILL, sizeof(b));
	CHECK(ioctl(fd, BLKGETSIZE64, b) == 0);
	CHECK(all_bytes(b + 8, sizeof(b) - 8, FILL));
	memset(b, FILL, sizeof(b));
	CHECK(ioctl(fd, BLKSSZGET, b) == 0);
	CHECK(all_bytes(b + 4, sizeof(b) - 4, FILL));
	close(fd);
}

static const struct hostile_case cases[] = {
	{ "sigframe", t_sigframe },
	{ "stat", t_stat },
	{ "getdents64", t_getdents64 },
	{ "uname", t_uname },
	{ "wait4_rusage", t_wait4_rusage },
	{ "tcgets", t_tcgets },
	{ "blkgetsize64", t_blkgetsize64 },
};

int main(int argc, char **argv)
{
	snprintf(dev_path, sizeof(dev_path), "/dev/%s", argc > 1 ? argv[1] : "sda");
	return hostile_run("hostile_leaks", cases, sizeof(cases) / sizeof(cases[0]),
			   argc > 2 ? argv[2] : NULL);
}
