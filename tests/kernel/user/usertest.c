// SPDX-License-Identifier: MIT
/*
 * usertest.c - the user suite's test program: runs in ring 3 on Spindle
 * and checks each process system call's success and error paths from
 * where a program sees them.  No libc: its own syscall stubs and printf.
 *
 *   usertest                 run every test, print TEST lines and the
 *                            closing "<N> passed, <M> failed"; exit 1 if any failed
 *   usertest <name>          run one test (the in-kernel suite `user` runs
 *                            each this way, tests/kernel/user_test.c):
 *                            prints "TEST user.<name> PASS|FAIL: why",
 *                            exits 0 (pass) or 1 (fail)
 *   usertest exec-child ...  the target of the exec test (checks its argv,
 *                            envp and auxv, exits 7 if all is right)
 *
 * Each test is a function returning NULL (pass) or a reason.  Tests that
 * must crash do it in a forked child and look at its wait4 status.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

typedef unsigned long ulong;

/* --- system calls (Linux x86-64 numbers) ------------------------------ */

#define NR_write 1
#define NR_mmap 9
#define NR_mprotect 10
#define NR_munmap 11
#define NR_brk 12
#define NR_rt_sigaction 13
#define NR_rt_sigprocmask 14
#define NR_sched_yield 24
#define NR_nanosleep 35
#define NR_getpid 39
#define NR_fork 57
#define NR_vfork 58
#define NR_execve 59
#define NR_exit 60
#define NR_wait4 61
#define NR_kill 62
#define NR_uname 63
#define NR_setpgid 109
#define NR_getppid 110
#define NR_getpgrp 111
#define NR_setsid 112
#define NR_reboot 169
#define NR_clock_gettime 228
#define NR_exit_group 231

#define EPERM 1
#define ENOENT 2
#define ESRCH 3
#define EINTR 4
#define E2BIG 7
#define ENOEXEC 8
#define ECHILD 10
#define EFAULT 14
#define EBADF 9
#define ENODEV 19
#define EINVAL 22
#define ENOSYS 38

#define SIGILL 4
#define SIGFPE 8
#define SIGKILL 9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGTERM 15
#define SIGCHLD 17

static long syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall" : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#define sc0(n)             syscall6(n, 0, 0, 0, 0, 0, 0)
#define sc1(n, a)          syscall6(n, (long)(a), 0, 0, 0, 0, 0)
#define sc2(n, a, b)       syscall6(n, (long)(a), (long)(b), 0, 0, 0, 0)
#define sc3(n, a, b, c)    syscall6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define sc4(n, a, b, c, d) syscall6(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

static void __attribute__((noreturn)) sys_exit(int code)
{
	sc1(NR_exit, code);
	for (;;)
		;
}

/* --- tiny libc -------------------------------------------------------- */

static int ustrcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}
void *memset(void *d, int c, size_t n)
{
	unsigned char *p = d;
	while (n--)
		*p++ = c;
	return d;
}
void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *p = d;
	const unsigned char *q = s;
	while (n--)
		*p++ = *q++;
	return d;
}

static char outbuf[512];
static size_t outlen;

static void flush(void)
{
	if (outlen)
		sc3(NR_write, 1, outbuf, outlen);
	outlen = 0;
}
static void putch(char c)
{
	if (outlen == sizeof(outbuf))
		flush();
	outbuf[outlen++] = c;
}
static void putnum(unsigned long v, int base, int neg)
{
	char tmp[24];
	int n = 0;

	if (neg)
		putch('-');
	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n)
		putch(tmp[--n]);
}
/* %s %d %ld %u %lu %x %lx %p %c */
static void vfmt(const char *f, va_list ap)
{
	for (; *f; f++) {
		int lng = 0;

		if (*f != '%') {
			putch(*f);
			continue;
		}
		if (*++f == 'l')
			lng = 1, f++;
		switch (*f) {
		case 's': { const char *s = va_arg(ap, const char *); while (*s) putch(*s++); break; }
		case 'c': putch((char)va_arg(ap, int)); break;
		case 'd': { long v = lng ? va_arg(ap, long) : va_arg(ap, int);
			    putnum(v < 0 ? -(ulong)v : (ulong)v, 10, v < 0); break; }
		case 'u': putnum(lng ? va_arg(ap, ulong) : va_arg(ap, unsigned), 10, 0); break;
		case 'x': putnum(lng ? va_arg(ap, ulong) : va_arg(ap, unsigned), 16, 0); break;
		case 'p': putch('0'); putch('x'); putnum((ulong)va_arg(ap, void *), 16, 0); break;
		default: putch(*f);
		}
	}
}
static void printf(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	vfmt(f, ap);
	va_end(ap);
	flush();
}
static char reason[200];
/* Build a failure reason (the test returns it). */
static const char *why(const char *f, ...)
{
	va_list ap;
	size_t save = outlen;
	char *keep = outbuf;

	(void)keep;
	flush();
	va_start(ap, f);
	vfmt(f, ap);
	va_end(ap);
	save = outlen < sizeof(reason) - 1 ? outlen : sizeof(reason) - 1;
	memcpy(reason, outbuf, save);
	reason[save] = 0;
	outlen = 0;
	return reason;
}
#define CHECK(cond) do { if (!(cond)) return why("line %d: %s", __LINE__, #cond); } while (0)
#define CHECK_EQ(a, b) do { long _a = (long)(a), _b = (long)(b); \
	if (_a != _b) return why("line %d: %s = %ld, expected %ld", __LINE__, #a, _a, _b); } while (0)

/* --- structures (Linux x86-64 ABI) ------------------------------------ */

struct timespec { long tv_sec, tv_nsec; };
struct utsname { char sysname[65], nodename[65], release[65], version[65],
		 machine[65], domainname[65]; };
struct ksigaction { void (*handler)(int); ulong flags; void (*restorer)(void); uint64_t mask; };
#define SA_RESTORER 0x04000000
#define SIG_IGN ((void (*)(int))1)
#define SIG_DFL ((void (*)(int))0)
#define PROT_READ 1
#define PROT_WRITE 2
#define PROT_EXEC 4
#define MAP_SHARED 1
#define MAP_PRIVATE 2
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define WNOHANG 1
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1

#define KERNEL_ADDR   ((void *)0xffff888000100000ul)  /* the direct map */
#define UNMAPPED_ADDR ((void *)0x10000000ul)
#define NONCANON_ADDR ((void *)0x8000000000000000ul)

extern void restore_rt(void);
extern char _start[];
static char **g_envp;
static ulong *g_auxv;
static ulong g_start_misalign;

static ulong auxv_get(ulong type)
{
	for (ulong *a = g_auxv; a[0]; a += 2)
		if (a[0] == type)
			return a[1];
	return 0;
}

static long now_ns(void)
{
	struct timespec ts;
	sc2(NR_clock_gettime, CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	sc2(NR_nanosleep, &ts, 0);
}

/* fork; in the child run fn and exit with its result; returns the wait4
 * status in the parent (or a negative errno). */
static long run_child(int (*fn)(void))
{
	long pid = sc0(NR_fork);
	int status = -1;

	if (pid < 0)
		return pid;
	if (pid == 0)
		sys_exit(fn());
	if (sc4(NR_wait4, pid, &status, 0, 0) != pid)
		return -1000;
	return status;
}
#define WIFEXITED(s)   (((s) & 0x7f) == 0)
#define WEXITSTATUS(s) (((s) >> 8) & 0xff)
#define WTERMSIG(s)    ((s) & 0x7f)

/* --- the tests --------------------------------------------------------- */

static const char *t_ids(void)
{
	long pid = sc0(NR_getpid), ppid = sc0(NR_getppid);

	CHECK(pid > 1);
	CHECK(ppid > 0 && ppid != pid);
	CHECK_EQ(sc0(NR_getpgrp), pid);         /* spawned in its own group */
	CHECK_EQ(sc0(NR_sched_yield), 0);
	return NULL;
}

static const char *t_uname(void)
{
	struct utsname u;

	CHECK_EQ(sc1(NR_uname, &u), 0);
	CHECK(ustrcmp(u.sysname, "Spindle") == 0);
	CHECK(ustrcmp(u.release, "0.1") == 0);
	CHECK(ustrcmp(u.machine, "x86_64") == 0);
	CHECK_EQ(sc1(NR_uname, 0), -EFAULT);
	CHECK_EQ(sc1(NR_uname, KERNEL_ADDR), -EFAULT);
	CHECK_EQ(sc1(NR_uname, UNMAPPED_ADDR), -EFAULT);
	CHECK_EQ(sc1(NR_uname, NONCANON_ADDR), -EFAULT);
	return NULL;
}

static const char *t_clock(void)
{
	struct timespec a, b;

	CHECK_EQ(sc2(NR_clock_gettime, CLOCK_MONOTONIC, &a), 0);
	CHECK_EQ(sc2(NR_clock_gettime, CLOCK_MONOTONIC, &b), 0);
	CHECK(b.tv_sec > a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec >= a.tv_nsec));
	CHECK(a.tv_nsec >= 0 && a.tv_nsec < 1000000000L);
	CHECK_EQ(sc2(NR_clock_gettime, CLOCK_REALTIME, &a), 0);
	CHECK(a.tv_sec > 1577836800L);          /* after 2020-01-01 */
	CHECK_EQ(sc2(NR_clock_gettime, 99, &a), -EINVAL);
	CHECK_EQ(sc2(NR_clock_gettime, CLOCK_MONOTONIC, 0), -EFAULT);
	CHECK_EQ(sc2(NR_clock_gettime, CLOCK_MONOTONIC, KERNEL_ADDR), -EFAULT);
	return NULL;
}

static const char *t_nanosleep(void)
{
	struct timespec ts = { 0, 20 * 1000000L };
	long t0 = now_ns();

	CHECK_EQ(sc2(NR_nanosleep, &ts, 0), 0);
	CHECK(now_ns() - t0 >= 20 * 1000000L);  /* never early */
	ts.tv_nsec = 1000000000L;
	CHECK_EQ(sc2(NR_nanosleep, &ts, 0), -EINVAL);
	ts.tv_sec = -1, ts.tv_nsec = 0;
	CHECK_EQ(sc2(NR_nanosleep, &ts, 0), -EINVAL);
	CHECK_EQ(sc2(NR_nanosleep, 0, 0), -EFAULT);
	return NULL;
}

static void *mmap_anon(void *addr, ulong len, int prot, int flags)
{
	return (void *)syscall6(NR_mmap, (long)addr, len, prot, flags | MAP_ANONYMOUS, -1, 0);
}
#define MMAP_FAILED(p) ((ulong)(p) >= (ulong)-4095)

static const char *t_efault(void)
{
	char *p;
	struct utsname *u;

	CHECK_EQ(sc3(NR_write, 1, 0, 10), -EFAULT);
	CHECK_EQ(sc3(NR_write, 1, KERNEL_ADDR, 10), -EFAULT);
	CHECK_EQ(sc3(NR_write, 1, UNMAPPED_ADDR, 10), -EFAULT);
	CHECK_EQ(sc3(NR_write, 1, NONCANON_ADDR, 10), -EFAULT);
	CHECK_EQ(sc3(NR_write, 1, (char *)0x7ffffffffff0ul, 64), -EFAULT);  /* past the end */
	/* a copy_to_user that starts on a page and runs into a hole */
	p = mmap_anon(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	CHECK(!MMAP_FAILED(p));
	CHECK_EQ(sc2(NR_munmap, p + 4096, 4096), 0);
	u = (struct utsname *)(p + 4096 - 100);
	CHECK_EQ(sc1(NR_uname, u), -EFAULT);
	CHECK(ustrcmp(u->sysname, "Spindle") == 0);     /* the part that fit was copied */
	/* unknown system calls */
	CHECK_EQ(sc0(400), -ENOSYS);
	CHECK_EQ(sc0(100000), -ENOSYS);
	CHECK_EQ(sc0(-1), -ENOSYS);
	CHECK_EQ(sc0(0x100000000l + NR_getpid), -ENOSYS);
	return NULL;
}

static const char *t_brk(void)
{
	char *b0 = (char *)sc1(NR_brk, 0), *b1;

	CHECK(b0 != 0 && (ulong)b0 >= 0x400000);
	CHECK_EQ(sc1(NR_brk, b0 + 100000), (long)(b0 + 100000));
	for (long i = 0; i < 100000; i++)
		CHECK(b0[i] == 0);                      /* demand-zero */
	for (long i = 0; i < 100000; i++)
		b0[i] = (char)i;
	for (long i = 0; i < 100000; i++)
		CHECK(b0[i] == (char)i);
	CHECK_EQ(sc1(NR_brk, 0), (long)(b0 + 100000));
	CHECK_EQ(sc1(NR_brk, b0 + 5000), (long)(b0 + 5000));    /* shrink */
	CHECK(b0[4999] == (char)4999);
	/* the heap may not grow into a mapping */
	b1 = mmap_anon(b0 + (1 << 20), 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED);
	CHECK_EQ(b1, b0 + (1 << 20));
	CHECK_EQ(sc1(NR_brk, b0 + (2 << 20)), (long)(b0 + 5000));
	CHECK_EQ(sc2(NR_munmap, b1, 4096), 0);
	CHECK_EQ(sc1(NR_brk, 0x7ffffffff000ul), (long)(b0 + 5000));   /* into the stack */
	CHECK_EQ(sc1(NR_brk, 0x1000), (long)(b0 + 5000));        /* below the heap */
	CHECK_EQ(sc1(NR_brk, b0), (long)b0);
	return NULL;
}

static int touch_freed_heap(void)
{
	char *b0 = (char *)sc1(NR_brk, 0);

	sc1(NR_brk, b0 + 3 * 4096);
	b0[2 * 4096] = 1;
	sc1(NR_brk, b0);
	b0[2 * 4096] = 2;                       /* gone: SIGSEGV */
	return 0;
}

static int write_readonly_map(void)
{
	char *p = mmap_anon(0, 4096, PROT_READ, MAP_PRIVATE);

	if (MMAP_FAILED(p) || p[0] != 0)
		return 1;
	p[0] = 1;                               /* SIGSEGV */
	return 0;
}

/* three pages of t_mprotect's, for its children (fork copies them) */
static char *mp;

static int read_mp_middle(void)
{
	return mp[4096] == 7 ? 0 : 1; /* PROT_NONE: SIGSEGV */
}

static int write_mp_middle(void)
{
	mp[4096] = 1; /* read-only: SIGSEGV */
	return 0;
}

/*
 * mprotect: the range's VMAs are split where it cuts them, the pages
 * present change rights at once and keep their data, PROT_NONE is not
 * even readable (by the program or by the kernel on its behalf), and a
 * fork copies the rights with the pages.  A child dies holding a
 * PROT_NONE page: user.no_leaks sees that page freed.
 */
static const char *t_mprotect(void)
{
	long st;

	mp = mmap_anon(0, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	CHECK(!MMAP_FAILED(mp));
	mp[0] = 1;
	mp[4096] = 7;
	mp[8192] = 3;
	CHECK_EQ(sc3(NR_mprotect, mp + 4096, 4096, PROT_READ), 0);
	CHECK(mp[4096] == 7);
	st = run_child(write_mp_middle);
	CHECK_EQ(WTERMSIG(st), SIGSEGV);
	mp[0] = 11; /* the pages around it: still RW */
	mp[8192] = 13;
	CHECK_EQ(sc3(NR_mprotect, mp + 4096, 4096, 0), 0);
	st = run_child(read_mp_middle);
	CHECK_EQ(WTERMSIG(st), SIGSEGV);
	CHECK_EQ(sc3(NR_write, 1, mp + 4096, 1), -EFAULT);
	/* back to RW across the three VMAs it made: the data is still there */
	CHECK_EQ(sc3(NR_mprotect, mp, 3 * 4096, PROT_READ | PROT_WRITE), 0);
	CHECK(mp[0] == 11 && mp[4096] == 7 && mp[8192] == 13);
	mp[4096] = 8;
	st = run_child(read_mp_middle); /* 8, not 7: exits 1, no signal */
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	/* a page never touched, PROT_NONE then RW: demand-zero as ever */
	CHECK_EQ(sc3(NR_mprotect, mp + 8192, 4096, 0), 0);
	CHECK_EQ(sc2(NR_munmap, mp + 8192, 4096), 0);
	CHECK_EQ(mmap_anon(mp + 8192, 4096, 0, MAP_PRIVATE | MAP_FIXED), mp + 8192);
	CHECK_EQ(sc3(NR_mprotect, mp + 8192, 4096, PROT_READ | PROT_WRITE), 0);
	CHECK(mp[8192] == 0);
	/* errors, as Linux: unaligned, unknown bits, a hole in the range */
	CHECK_EQ(sc3(NR_mprotect, mp + 1, 4096, PROT_READ), -EINVAL);
	CHECK_EQ(sc3(NR_mprotect, mp, 4096, 0x10), -EINVAL);
	CHECK_EQ(sc2(NR_munmap, mp + 4096, 4096), 0);
	CHECK_EQ(sc3(NR_mprotect, mp, 3 * 4096, PROT_READ), -12 /* ENOMEM */);
	CHECK_EQ(sc2(NR_munmap, mp, 3 * 4096), 0);
	return NULL;
}

static char *sp;        /* t_mmap's shared anonymous page */

static int write_shared(void)
{
	sp[100] = 42;
	return 0;
}

static const char *t_mmap(void)
{
	ulong len = 1 << 20;
	char *p = mmap_anon(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE), *q;
	long st;

	CHECK(!MMAP_FAILED(p));
	CHECK(((ulong)p & 4095) == 0);
	for (ulong i = 0; i < len; i += 4096)
		CHECK(p[i] == 0);
	for (ulong i = 0; i < len; i += 512)
		p[i] = (char)(i >> 9);
	for (ulong i = 0; i < len; i += 512)
		CHECK(p[i] == (char)(i >> 9));
	q = mmap_anon(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	CHECK(!MMAP_FAILED(q) && (q + 4096 <= p || q >= p + len));
	CHECK_EQ(sc2(NR_munmap, p, len), 0);
	CHECK_EQ(sc2(NR_munmap, q, 4096), 0);
	/* MAP_FIXED at an address of our choosing */
	p = mmap_anon((void *)0x60000000ul, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED);
	CHECK_EQ(p, 0x60000000ul);
	p[8191] = 5;
	CHECK_EQ(sc2(NR_munmap, p, 8192), 0);
	/* errors */
	CHECK_EQ(mmap_anon(0, 0, PROT_READ, MAP_PRIVATE), -EINVAL);
	/* shared anonymous memory (a file of the kernel's own tmpfs): zeroes,
	 * and a forked child's write reaches the parent */
	sp = mmap_anon(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED);
	CHECK(!MMAP_FAILED(sp));
	CHECK(sp[100] == 0);
	st = run_child(write_shared);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(sp[100] == 42);
	CHECK_EQ(sc2(NR_munmap, sp, 4096), 0);
	/* a file mapping of a descriptor that is not open: Linux's EBADF
	 * (file mappings themselves: tests/user/mmap.c) */
	CHECK_EQ(syscall6(NR_mmap, 0, 4096, PROT_READ, MAP_PRIVATE, 3, 0), -EBADF);
	CHECK_EQ(mmap_anon((void *)0x60000001ul, 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED), -EINVAL);
	CHECK_EQ(mmap_anon(0, 1ul << 62, PROT_READ, MAP_PRIVATE), -12 /* ENOMEM */);
	CHECK_EQ(sc2(NR_munmap, 0x60000001ul, 4096), -EINVAL);
	CHECK_EQ(sc2(NR_munmap, 0x60000000ul, 0), -EINVAL);
	/* a huge sparse mapping costs nothing until touched, and unmaps fast */
	p = mmap_anon(0, 1ul << 40, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	CHECK(!MMAP_FAILED(p));
	p[0] = 1;
	p[(1ul << 40) - 1] = 2;
	CHECK_EQ(sc2(NR_munmap, p, 1ul << 40), 0);
	/* rights and lifetimes are enforced */
	st = run_child(write_readonly_map);
	CHECK_EQ(WTERMSIG(st), SIGSEGV);
	st = run_child(touch_freed_heap);
	CHECK_EQ(WTERMSIG(st), SIGSEGV);
	return NULL;
}

static int global_counter = 100;

static int child_exit_42(void)
{
	global_counter = 1;                     /* the parent must not see it */
	return 42;
}

static int child_sleep_then_exit(void)
{
	msleep(50);
	return 3;
}

static const char *t_fork_wait(void)
{
	long pids[5], st;
	int status = 0, seen = 0;

	st = run_child(child_exit_42);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 42);
	CHECK_EQ(global_counter, 100);          /* address spaces are separate */
	for (int i = 0; i < 5; i++) {
		pids[i] = sc0(i % 2 ? NR_vfork : NR_fork);
		CHECK(pids[i] >= 0);
		if (pids[i] == 0) {
			CHECK_EQ(sc0(NR_getppid) > 1, 1);
			sys_exit(10 + i);
		}
	}
	for (int i = 0; i < 5; i++) {
		long pid = sc4(NR_wait4, -1, &status, 0, 0);

		CHECK(pid > 0);
		for (int j = 0; j < 5; j++)
			if (pids[j] == pid) {
				CHECK_EQ(WEXITSTATUS(status), 10 + j);
				seen |= 1 << j;
			}
	}
	CHECK_EQ(seen, 31);
	CHECK_EQ(sc4(NR_wait4, -1, &status, 0, 0), -ECHILD);
	CHECK_EQ(sc4(NR_wait4, 12345, &status, 0, 0), -ECHILD);
	/* WNOHANG on a running child; a bad status pointer loses nothing */
	pids[0] = sc0(NR_fork);
	if (pids[0] == 0)
		sys_exit(child_sleep_then_exit());
	CHECK_EQ(sc4(NR_wait4, pids[0], &status, WNOHANG, 0), 0);
	CHECK_EQ(sc4(NR_wait4, pids[0], KERNEL_ADDR, 0, 0), -EFAULT);
	CHECK_EQ(sc4(NR_wait4, pids[0], &status, 0x100, 0), -EINVAL);
	CHECK_EQ(sc4(NR_wait4, pids[0], &status, 0, 0), pids[0]);
	CHECK_EQ(WEXITSTATUS(status), 3);
	return NULL;
}

static int null_deref(void) { return *(volatile int *)0; }
static int write_text(void) { *(volatile char *)_start = 0; return 0; }
static int kernel_read_user(void) { return *(volatile int *)KERNEL_ADDR; }
static int jump_to_kernel(void) { ((void (*)(void))0xffffffff80100000ul)(); return 0; }
static char data_code[16] = { (char)0xc3 };     /* ret, in a non-executable page */
static int exec_data(void) { ((void (*)(void))data_code)(); return 0; }
static int run_ud2(void) { __asm__ volatile("ud2"); return 0; }
static int divide_by_zero(void)
{
	/* in assembly: gcc would turn 1 / x into a comparison */
	__asm__ volatile("xorl %%ecx, %%ecx; movl $1, %%eax; xorl %%edx, %%edx; divl %%ecx"
			 ::: "eax", "ecx", "edx");
	return 0;
}
static volatile int recurse_forever = 1;
static int recurse(int n)
{
	volatile char pad[4096];

	pad[0] = n;
	return recurse_forever ? recurse(n + 1) + pad[0] : 0;   /* off the stack's end */
}
static int stack_overflow(void) { return recurse(0); }

/*
 * A program may keep anything in rbp -- code built without frame
 * pointers uses it as one more register.  With a value that looks like a
 * kernel address, it touches fresh pages (each under a new page table:
 * faults that allocate) and spins through timer ticks, so that the
 * kernel is entered from user mode with that rbp many times.  The
 * kernel's backtraces (lockdep's, slab_debug's) must end at the entry
 * rather than follow it: the user-proc scenario runs this under
 * test-debug too.  The child exits 0 and the kernel stays up.
 */
static int bad_rbp_child(void)
{
	char *p = mmap_anon(0, 1ul << 40, PROT_READ | PROT_WRITE, MAP_PRIVATE);

	if (MMAP_FAILED(p))
		return 1;
	__asm__ volatile("movq %%rbp, %%r12\n\t"
			 "movq $-32, %%rbp\n\t"
			 "movl $64, %%ecx\n"
			 "1:\tmovb $1, (%0)\n\t"
			 "addq $0x200000, %0\n\t"
			 "decl %%ecx\n\t"
			 "jnz 1b\n\t"
			 "movl $20000000, %%ecx\n"
			 "2:\tdecl %%ecx\n\t"
			 "jnz 2b\n\t"
			 "movq %%r12, %%rbp"
			 : "+r"(p)
			 :
			 : "rcx", "r12", "memory", "cc");
	return 0;
}

static const char *t_bad_rbp(void)
{
	long st = run_child(bad_rbp_child);

	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return NULL;
}

static const char *t_segv(void)
{
	static const struct { int (*fn)(void); int sig; const char *name; } crash[] = {
		{ null_deref, SIGSEGV, "NULL" }, { write_text, SIGSEGV, "text write" },
		{ kernel_read_user, SIGSEGV, "kernel read" }, { jump_to_kernel, SIGSEGV, "kernel jump" },
		{ exec_data, SIGSEGV, "NX data" }, { run_ud2, SIGILL, "ud2" },
		{ divide_by_zero, SIGFPE, "divide" }, { stack_overflow, SIGSEGV, "stack guard" },
	};

	for (unsigned i = 0; i < sizeof(crash) / sizeof(crash[0]); i++) {
		long st = run_child(crash[i].fn);

		if (WIFEXITED(st) || WTERMSIG(st) != crash[i].sig)
			return why("%s: wait4 status %lx, expected signal %d", crash[i].name,
				   st, crash[i].sig);
	}
	return NULL;
}

static volatile int got_signal;
static void on_usr1(int sig) { got_signal = sig; }

static int sleep_long(void)
{
	struct timespec ts = { 100, 0 };
	return sc2(NR_nanosleep, &ts, &ts) == -EINTR ? 5 : 6;
}

static int ignore_term_then_sleep(void)
{
	struct ksigaction sa = { SIG_IGN, 0, 0, 0 };

	if (sc4(NR_rt_sigaction, SIGTERM, &sa, 0, 8))
		return 1;
	msleep(100);
	return 9;
}

static const char *t_signals(void)
{
	struct ksigaction sa = { on_usr1, SA_RESTORER, restore_rt, 0 }, old;
	uint64_t set = 1ul << (SIGUSR1 - 1), oset;
	long pid, st;
	int status;

	/* a handler, delivered on the way out of kill() */
	CHECK_EQ(sc4(NR_rt_sigaction, SIGUSR1, &sa, 0, 8), 0);
	CHECK_EQ(sc4(NR_rt_sigaction, SIGUSR1, 0, &old, 8), 0);
	CHECK(old.handler == on_usr1);
	got_signal = 0;
	CHECK_EQ(sc2(NR_kill, sc0(NR_getpid), SIGUSR1), 0);
	CHECK_EQ(got_signal, SIGUSR1);
	/* blocked: pending until unblocked */
	got_signal = 0;
	CHECK_EQ(sc4(NR_rt_sigprocmask, 0 /* SIG_BLOCK */, &set, 0, 8), 0);
	CHECK_EQ(sc2(NR_kill, sc0(NR_getpid), SIGUSR1), 0);
	CHECK_EQ(got_signal, 0);
	CHECK_EQ(sc4(NR_rt_sigprocmask, 1 /* SIG_UNBLOCK */, &set, &oset, 8), 0);
	CHECK_EQ(oset, set);
	CHECK_EQ(got_signal, SIGUSR1);
	/* errors */
	CHECK_EQ(sc4(NR_rt_sigaction, SIGKILL, &sa, 0, 8), -EINVAL);
	CHECK_EQ(sc4(NR_rt_sigaction, 65, &sa, 0, 8), -EINVAL);
	CHECK_EQ(sc4(NR_rt_sigaction, SIGUSR1, &sa, 0, 4), -EINVAL);
	CHECK_EQ(sc4(NR_rt_sigaction, SIGUSR1, KERNEL_ADDR, 0, 8), -EFAULT);
	CHECK_EQ(sc4(NR_rt_sigprocmask, 7, &set, 0, 8), -EINVAL);
	CHECK_EQ(sc2(NR_kill, sc0(NR_getpid), 65), -EINVAL);
	CHECK_EQ(sc2(NR_kill, 99999, SIGTERM), -ESRCH);
	CHECK_EQ(sc2(NR_kill, sc0(NR_getpid), 0), 0);    /* exists? */
	/* SIGTERM interrupts a sleep, and kills by default */
	pid = sc0(NR_fork);
	if (pid == 0)
		sys_exit(sleep_long());
	msleep(30);
	CHECK_EQ(sc2(NR_kill, pid, SIGTERM), 0);
	CHECK_EQ(sc4(NR_wait4, pid, &status, 0, 0), pid);
	CHECK_EQ(WTERMSIG(status), SIGTERM);
	/* SIG_IGN: it survives SIGTERM, but not SIGKILL */
	pid = sc0(NR_fork);
	if (pid == 0)
		sys_exit(ignore_term_then_sleep());
	msleep(30);
	CHECK_EQ(sc2(NR_kill, pid, SIGTERM), 0);
	CHECK_EQ(sc4(NR_wait4, pid, &status, 0, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 9);
	pid = sc0(NR_fork);
	if (pid == 0)
		sys_exit(ignore_term_then_sleep());
	msleep(30);
	/* to its process group, as the console's ^C will */
	CHECK_EQ(sc2(NR_setpgid, pid, pid), 0);
	CHECK_EQ(sc2(NR_kill, -pid, SIGKILL), 0);
	CHECK_EQ(sc4(NR_wait4, pid, &status, 0, 0), pid);
	CHECK_EQ(WTERMSIG(status), SIGKILL);
	/* SIGCHLD is ignored by default: an exiting child does not kill us */
	st = run_child(child_exit_42);
	CHECK_EQ(WEXITSTATUS(st), 42);
	return NULL;
}

static int session_child(void)
{
	long pid = sc0(NR_getpid);

	if (sc0(NR_setsid) != pid || sc0(NR_getpgrp) != pid)
		return 1;
	if (sc0(NR_setsid) != -EPERM)           /* already a group leader */
		return 2;
	if (sc2(NR_setpgid, 0, 0) != -EPERM)    /* a session leader stays */
		return 3;
	return 0;
}

static const char *t_pgrp(void)
{
	long pid, st;
	int status;

	CHECK_EQ(sc0(NR_setsid), -EPERM);       /* we lead our group already */
	CHECK_EQ(sc2(NR_setpgid, 99999, 0), -ESRCH);
	CHECK_EQ(sc2(NR_setpgid, 0, -1), -EINVAL);
	st = run_child(session_child);
	CHECK_EQ(st, 0);
	pid = sc0(NR_fork);
	if (pid == 0) {
		msleep(50);
		sys_exit(sc0(NR_getpgrp) == sc0(NR_getpid) ? 0 : 1);
	}
	CHECK_EQ(sc2(NR_setpgid, pid, 0), 0);   /* its own group */
	CHECK_EQ(sc2(NR_setpgid, pid, 77777), -EPERM);  /* no such group */
	CHECK_EQ(sc4(NR_wait4, -pid, &status, 0, 0), pid);  /* by group */
	CHECK_EQ(status, 0);
	return NULL;
}

/*
 * fork_killed: a kill of the group that arrives while a member is inside
 * fork() must not let the new child escape.  The kernel side (user_test.c)
 * sets fork_test_hook to send SIGKILL to the forking process's group at
 * the worst moment -- the child's task exists but is not in the group yet
 * -- whenever the forker leads its own group and has a user parent: our
 * child A below.  A's fork must then fail (A dies of SIGKILL), or any
 * child it made must die with it: the group ends up empty.
 */
static int fork_killed_child(void)
{
	long pid;

	sc2(NR_setpgid, 0, 0);
	pid = sc0(NR_fork);                     /* the kill comes in here */
	if (pid == 0)
		for (;;)
			msleep(1000);           /* an escaped member lives on */
	return 0;                               /* A must not get here */
}

static const char *t_fork_killed(void)
{
	long pid = sc0(NR_fork);
	int status = -1;
	long alive;

	CHECK(pid >= 0);
	if (pid == 0)
		sys_exit(fork_killed_child());
	CHECK_EQ(sc4(NR_wait4, pid, &status, 0, 0), pid);
	alive = sc2(NR_kill, -pid, 0);
	if (alive == 0)
		sc2(NR_kill, -pid, SIGKILL);    /* clean up after a failure */
	CHECK_EQ(WTERMSIG(status), SIGKILL);
	CHECK_EQ(alive, -ESRCH);                /* nobody left in A's group */
	return NULL;
}

static char big[200 * 1024];

static const char *t_exec(void)
{
	char *argv[] = { "usertest", "exec-child", "second arg", 0 };
	char *envp[] = { "SPINDLE=yes", "X=1", 0 };
	char *bad_argv[] = { "usertest", (char *)KERNEL_ADDR, 0 };
	char *big_argv[] = { "usertest", big, 0 };
	long pid;
	int status;

	CHECK_EQ(sc3(NR_execve, "/no/such/program", argv, envp), -ENOENT);
	CHECK_EQ(sc3(NR_execve, "", argv, envp), -ENOENT);
	CHECK_EQ(sc3(NR_execve, 0, argv, envp), -EFAULT);
	CHECK_EQ(sc3(NR_execve, KERNEL_ADDR, argv, envp), -EFAULT);
	CHECK_EQ(sc3(NR_execve, "/ktest/usertest", KERNEL_ADDR, envp), -EFAULT);
	CHECK_EQ(sc3(NR_execve, "/ktest/usertest", bad_argv, envp), -EFAULT);
	memset(big, 'x', sizeof(big) - 1);
	CHECK_EQ(sc3(NR_execve, "/ktest/usertest", big_argv, envp), -E2BIG);
	CHECK_EQ(sc3(NR_execve, "/ktest/notelf", argv, envp), -ENOEXEC);
	/* and one that works: the child becomes a fresh usertest */
	pid = sc0(NR_fork);
	if (pid == 0) {
		sc3(NR_execve, "/ktest/usertest", argv, envp);
		sys_exit(99);
	}
	CHECK_EQ(sc4(NR_wait4, pid, &status, 0, 0), pid);
	CHECK_EQ(status, 7 << 8);
	return NULL;
}

/* The exec test's target: is the new image set up as the ABI says? */
static int exec_child(int argc, char **argv)
{
	ulong phdr = auxv_get(3 /* AT_PHDR */), rnd = auxv_get(25 /* AT_RANDOM */);

	if (argc != 3 || ustrcmp(argv[1], "exec-child") || ustrcmp(argv[2], "second arg"))
		return 1;
	if (!g_envp[0] || ustrcmp(g_envp[0], "SPINDLE=yes") || ustrcmp(g_envp[1], "X=1") || g_envp[2])
		return 2;
	if (auxv_get(6 /* AT_PAGESZ */) != 4096 || auxv_get(9 /* AT_ENTRY */) != (ulong)_start)
		return 3;
	if (!phdr || (*(uint32_t *)phdr != 6 /* PT_PHDR */ && *(uint32_t *)phdr != 1 /* PT_LOAD */))
		return 4;
	if (!rnd || auxv_get(5 /* AT_PHNUM */) == 0)
		return 5;
	if (g_start_misalign)
		return 6;                       /* rsp was not 16-byte aligned */
	if (global_counter != 100)
		return 8;                       /* data not loaded */
	return 7;
}

/* Keep a value in xmm15 across sleeps and switches to another process
 * that uses xmm15 too: the kernel must save and restore the SSE
 * registers.  All in assembly, so that the compiler's own use of the XMM
 * registers cannot get in the way. */
static int fpu_check(uint64_t pattern)
{
	static const struct timespec one_ms = { 0, 1000000 };
	uint64_t in[2] __attribute__((aligned(16))) = { pattern, ~pattern };
	uint64_t out[2] __attribute__((aligned(16)));

	__asm__ volatile(
		"movdqa %[in], %%xmm15\n\t"
		"movl $20, %%r12d\n"
		"1:\n\t"
		"movl $24, %%eax\n\t"                 /* sched_yield */
		"syscall\n\t"
		"movl $35, %%eax\n\t"                 /* nanosleep(&one_ms, 0) */
		"leaq %[ts], %%rdi\n\t"
		"xorl %%esi, %%esi\n\t"
		"syscall\n\t"
		"decl %%r12d\n\t"
		"jnz 1b\n\t"
		"movdqa %%xmm15, %[out]"
		: [out] "=m"(out)
		: [in] "m"(in), [ts] "m"(one_ms)
		: "rax", "rcx", "rdx", "rdi", "rsi", "r11", "r12", "xmm15", "memory");
	return out[0] == pattern && out[1] == ~pattern ? 0 : 1;
}
static int fpu_child(void) { return fpu_check(0x1122334455667788ull); }

static const char *t_fpu(void)
{
	long pid = sc0(NR_fork);
	int status, mine;

	if (pid == 0)
		sys_exit(fpu_child());
	mine = fpu_check(0xa5a5a5a5deadbeefull);
	CHECK_EQ(sc4(NR_wait4, pid, &status, 0, 0), pid);
	CHECK_EQ(status, 0);
	CHECK_EQ(mine, 0);
	return NULL;
}

static const char *t_reboot(void)
{
	/* only the error path: the real one would end the run */
	CHECK_EQ(sc4(NR_reboot, 0, 0, 0, 0), -EINVAL);
	CHECK_EQ(sc4(NR_reboot, 0xfee1dead, 672274793, 0x1234, 0), -EINVAL);
	return NULL;
}

/*
 * The fuzzer: random system call numbers and arguments in a child, a
 * bounded number of times.  Whatever the child does to itself, the kernel
 * must stay up and the parent must get a wait4 status.  Calls that would
 * end the test early or reach outside the child are left out: exit,
 * fork, kill, reboot, rt_sigreturn, nanosleep (long sleeps), munmap and
 * MAP_FIXED (unmapping its own code), and the file calls that read the
 * console, print, or create files -- and so readv, writev, sendfile; the
 * calls that wait for an event nobody will send (rt_sigsuspend, poll,
 * select, ppoll, pselect6, clock_nanosleep, pause, futex); clone (a
 * fork) and tkill, tgkill (a kill).  The calls that make a new name get NULL for it (see
 * fuzz_names).
 */
static uint64_t rng = 0x5eed;
static uint64_t rand64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static long fuzz_arg(char *scratch)
{
	switch (rand64() % 12) {
	case 0: return 0;
	case 1: return -1;
	case 2: return rand64() % 64;
	case 3: return (long)rand64();
	case 4: return (long)(scratch + rand64() % 4096);
	case 5: return (long)KERNEL_ADDR;
	case 6: return 0xffffffff80100000l;
	case 7: return (long)UNMAPPED_ADDR;
	case 8: return (long)NONCANON_ADDR;
	case 9: return 0x7ffffffff000l - rand64() % 64;
	case 10: return (long)(scratch + 4096 - 8);  /* runs into the guard */
	default: return rand64() & 0xffffffff;
	}
}

static int fuzz_denied(long nr)
{
	switch (nr) {
	case 0: case 1: case 2: case 11: case 15: case 17: case 18: case 35:
	case 57: case 58: case 60: case 62: case 80: case 83: case 84: case 87:
	case 165: case 166: case 169: case 231: case 257:
	case 7:
	case 34:
	case 202:
	case 19:
	case 20:
	case 23:
	case 40:
	case 56:
	case 130:
	case 200:
	case 230:
	case 234:
	case 270:
	case 271:
		return 1;
	default:
		return 0;
	}
}

/*
 * The calls that make a name, and which argument the new name is.  Random
 * bytes are often a valid file name (mknod made one once), and the file
 * would stay in the cwd, its memory kept past user.no_leaks: the new name
 * is NULL (EFAULT), the other arguments still random.  Leaving the calls
 * out instead would change the random sequence.  shmget is one too: a
 * System V segment outlives its process, as a file does; with size 0 it
 * can only find one, never make one (EINVAL).
 */
static const struct {
	short nr, arg;
} fuzz_names[] = {
	{ 82, 1 }, /* rename */ { 85, 0 }, /* creat */ { 86, 1 }, /* link */
	{ 88, 1 },
	/* symlink */ { 133, 0 },
	/* mknod */ { 258, 1 }, /* mkdirat */
	{ 259, 1 },
	/* mknodat */ { 264, 3 },
	/* renameat */ { 265, 3 }, /* linkat */
	{ 266, 2 },
	/* symlinkat */ { 316, 3 }, /* renameat2 */
	{ 29, 1 }, /* shmget */
};

static int fuzz_child(void)
{
	char *scratch = mmap_anon(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE);

	if (MMAP_FAILED(scratch))
		return 1;
	sc2(NR_munmap, scratch + 4096, 4096);   /* a hole right after it */
	for (int i = 0; i < 3000; i++) {
		long nr, a[6];

		for (int j = 0; j < 4096; j += 8)
			*(uint64_t *)(scratch + j) = rand64();
		switch (rand64() % 4) {
		case 0: nr = rand64() % 300; break;
		case 1: nr = (long)rand64(); break;
		default: nr = rand64() % 64; break;
		}
		if (fuzz_denied(nr))
			continue;
		for (int j = 0; j < 6; j++)
			a[j] = fuzz_arg(scratch);
		if (nr == NR_mmap)
			a[3] &= ~MAP_FIXED;
		for (unsigned int k = 0; k < sizeof(fuzz_names) / sizeof(fuzz_names[0]); k++)
			if (fuzz_names[k].nr == nr)
				a[fuzz_names[k].arg] = 0;
		syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	}
	return 0;
}

static const char *t_fuzz(void)
{
	for (int round = 0; round < 4; round++) {
		long st;

		rng = 0x5eed + round * 7919;
		st = run_child(fuzz_child);
		CHECK(st >= 0);                 /* it ended, one way or another */
		printf("fuzz round %d: seed %lx, child status %lx\n", round,
		       (ulong)(0x5eed + round * 7919), (ulong)st);
	}
	CHECK(sc0(NR_getpid) > 1);              /* and we are still fine */
	return NULL;
}

static const struct test {
	const char *name;
	const char *(*fn)(void);
} tests[] = {
	{ "ids", t_ids },
	{ "uname", t_uname },
	{ "clock", t_clock },
	{ "nanosleep", t_nanosleep },
	{ "efault", t_efault },
	{ "brk", t_brk },
	{ "mmap", t_mmap },
	{ "mprotect", t_mprotect },
	{ "bad_rbp", t_bad_rbp },
	{ "fork_wait", t_fork_wait },
	{ "segv", t_segv },
	{ "signals", t_signals },
	{ "pgrp", t_pgrp },
	{ "exec", t_exec },
	{ "fpu", t_fpu },
	{ "reboot", t_reboot },
	{ "fuzz", t_fuzz },
	{ "fork_killed", t_fork_killed },
};
#define NTESTS (sizeof(tests) / sizeof(tests[0]))

static int run_test(const struct test *t)
{
	const char *r = t->fn();

	if (r)
		printf("TEST user.%s FAIL: %s\n", t->name, r);
	else
		printf("TEST user.%s PASS\n", t->name);
	return r != NULL;
}

void __attribute__((noreturn)) ustart(long *sp, ulong misalign)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;
	char **e = envp;
	int failed = 0;

	g_start_misalign = misalign;
	while (*e)
		e++;
	g_envp = envp;
	g_auxv = (ulong *)(e + 1);

	if (argc >= 2 && ustrcmp(argv[1], "exec-child") == 0)
		sys_exit(exec_child(argc, argv));
	if (argc >= 2) {
		for (unsigned i = 0; i < NTESTS; i++)
			if (ustrcmp(argv[1], tests[i].name) == 0)
				sys_exit(run_test(&tests[i]));
		printf("usertest: no test named %s\n", argv[1]);
		sys_exit(2);
	}
	for (unsigned i = 0; i < NTESTS; i++)
		failed += run_test(&tests[i]);
	printf("%d passed, %d failed\n", (int)NTESTS - failed, failed);
	sc1(NR_exit_group, failed ? 1 : 0);
	for (;;)
		;
}
