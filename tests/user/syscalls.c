// SPDX-License-Identifier: MIT
/*
 * syscalls [DEV] - the system-call test: success and error paths, one
 * TEST line each, then "<N> passed, <M> failed[, <K> skipped]".
 *
 * Files are made in a fresh directory under /tmp.  DEV (default sda) is a
 * disk under /dev for the block-device cases -- nothing is written to it:
 * every write there is aimed past its end.  Without it those cases SKIP,
 * so this program also runs on a Linux host (make check-user), where the
 * answers are Linux's own: the same answers Spindle must give.
 *
 * To add a case: write `static void t_name(void)` using CHECK/CHECK_ERR
 * and add it to the table at the bottom.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <signal.h>
#include <stdint.h>
#include <dirent.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/sysinfo.h>
#include <asm/unistd_64.h> /* raw syscall() numbers */

/* addresses a user may not touch: unmapped low memory, and the kernel's half */
#define BAD_LOW     ((void *)16)
#define BAD_KERNEL  ((void *)0xffff800000001000UL)

static int passed, failed, skipped;
static const char *cur;                 /* the running case's name */
static int cur_failed, cur_skipped;
static char dev_path[64];

static void fail_at(int line, const char *what)
{
	if (!cur_failed)
		printf("TEST syscalls.%s FAIL: line %d: %s (errno %d %s)\n", cur, line, what, errno,
		       strerror(errno));
	cur_failed = 1;
}

/* CHECK(cond): the case fails if cond is false */
#define CHECK(cond) do { if (!(cond)) fail_at(__LINE__, #cond); } while (0)
/* CHECK_ERR(call, E): call must return -1 with errno E */
#define CHECK_ERR(call, E) do {                                                 \
		errno = 0;                                                      \
		long r_ = (long)(call);                                         \
		if (r_ != -1 || errno != (E))                                   \
			fail_at(__LINE__, #call " should fail with " #E);       \
	} while (0)

static void skip(const char *why)
{
	printf("TEST syscalls.%s SKIP: %s\n", cur, why);
	cur_skipped = 1;
}

static int have_dev(void)
{
	struct stat st;

	if (stat(dev_path, &st) < 0 || !S_ISBLK(st.st_mode)) {
		skip("no block device to test on");
		return 0;
	}
	return 1;
}

/* --- file descriptors --- */

static void t_bad_fd(void)
{
	char c;

	CHECK_ERR(read(-1, &c, 1), EBADF);
	CHECK_ERR(write(999, &c, 1), EBADF);
	CHECK_ERR(close(999), EBADF);
	CHECK_ERR(dup(-1), EBADF);
	CHECK_ERR(dup2(999, 5), EBADF);
	CHECK_ERR(lseek(999, 0, SEEK_SET), EBADF);
	CHECK_ERR(fsync(999), EBADF);
	CHECK_ERR(pread(-5, &c, 1, 0), EBADF);
}

static void t_file_roundtrip(void)
{
	char buf[64];
	struct stat st;
	int fd = open("f1", O_RDWR | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0);
	CHECK(write(fd, "hello, disk", 11) == 11);
	CHECK(lseek(fd, 0, SEEK_CUR) == 11);
	CHECK(lseek(fd, 7, SEEK_SET) == 7);
	CHECK(read(fd, buf, sizeof(buf)) == 4 && !memcmp(buf, "disk", 4));
	CHECK(read(fd, buf, sizeof(buf)) == 0);                  /* end of file */
	CHECK(pread(fd, buf, 5, 0) == 5 && !memcmp(buf, "hello", 5));
	CHECK(pwrite(fd, "J", 1, 0) == 1);
	CHECK(lseek(fd, 0, SEEK_CUR) == 11);                     /* pwrite keeps the offset */
	CHECK(fstat(fd, &st) == 0 && st.st_size == 11 && S_ISREG(st.st_mode));
	CHECK(fsync(fd) == 0 && fdatasync(fd) == 0);
	CHECK(close(fd) == 0);
	CHECK(stat("f1", &st) == 0 && st.st_size == 11);
	fd = open("f1", O_WRONLY | O_APPEND);
	CHECK(fd >= 0 && write(fd, "!", 1) == 1 && close(fd) == 0);
	fd = open("f1", O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == 12 && !memcmp(buf, "Jello, disk!", 12));
	close(fd);
	CHECK_ERR(open("f1", O_RDONLY | O_CREAT | O_EXCL, 0644), EEXIST);
	CHECK_ERR(open("no/such/file", O_RDONLY), ENOENT);
	CHECK_ERR(open("f1/x", O_RDONLY), ENOTDIR);
	CHECK_ERR(open("f1", O_RDONLY | O_DIRECTORY), ENOTDIR);
	CHECK(unlink("f1") == 0);
	CHECK_ERR(unlink("f1"), ENOENT);
}

static void t_dup_pipe(void)
{
	int p[2], d;
	char buf[8];

	CHECK(pipe(p) == 0);
	CHECK(write(p[1], "abc", 3) == 3);
	d = dup(p[0]);
	CHECK(d > p[1]);
	CHECK(read(d, buf, sizeof(buf)) == 3 && !memcmp(buf, "abc", 3));
	CHECK(dup2(p[1], 20) == 20);
	CHECK(write(20, "z", 1) == 1 && read(p[0], buf, 1) == 1 && buf[0] == 'z');
	CHECK_ERR(lseek(p[0], 0, SEEK_SET), ESPIPE);
	close(20);
	close(p[1]);
	CHECK(read(p[0], buf, 1) == 0);                         /* no writer left: EOF */
	close(p[0]);
	close(d);
}

/* --- bad user pointers: the kernel must refuse them, not crash --- */

static void t_efault(void)
{
	int p[2], fd = open("f2", O_RDWR | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0 && write(fd, "data", 4) == 4);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	CHECK_ERR(read(fd, BAD_LOW, 4), EFAULT);
	CHECK_ERR(read(fd, BAD_KERNEL, 4), EFAULT);
	CHECK_ERR(write(fd, BAD_LOW, 4), EFAULT);
	CHECK_ERR(write(fd, BAD_KERNEL, 4), EFAULT);
	CHECK_ERR(open(BAD_LOW, O_RDONLY), EFAULT);
	CHECK_ERR(open(BAD_KERNEL, O_RDONLY), EFAULT);
	CHECK_ERR(stat("f2", BAD_KERNEL), EFAULT);
	CHECK_ERR(fstat(fd, BAD_LOW), EFAULT);
	CHECK_ERR(pipe(BAD_KERNEL), EFAULT);
	CHECK_ERR(getcwd(BAD_KERNEL, 64) ? 0 : -1, EFAULT);
	/* the system call: libc's clock_gettime goes through the vDSO,
	 * where a bad pointer is the caller's own segfault, as on Linux */
	CHECK_ERR(syscall(__NR_clock_gettime, CLOCK_MONOTONIC, BAD_KERNEL), EFAULT);
	CHECK_ERR(chdir(BAD_LOW), EFAULT);
	CHECK_ERR(mkdir(BAD_KERNEL, 0755), EFAULT);
	CHECK_ERR(getdents64(fd, BAD_KERNEL, 4096), ENOTDIR);   /* not a directory first */
	CHECK(pipe(p) == 0);
	CHECK_ERR(write(p[1], BAD_KERNEL, 1), EFAULT);
	close(p[0]);
	close(p[1]);
	close(fd);
	unlink("f2");
}

/* --- directories --- */

static void t_dirs(void)
{
	char cwd[256], buf[256];
	DIR *d;
	struct dirent *de;
	int seen = 0, fd;

	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	CHECK(mkdir("d", 0755) == 0);
	CHECK_ERR(mkdir("d", 0755), EEXIST);
	fd = open("d/inner", O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0);
	close(fd);
	CHECK_ERR(rmdir("d"), ENOTEMPTY);
	CHECK(chdir("d") == 0);
	CHECK(getcwd(buf, sizeof(buf)) && strlen(buf) == strlen(cwd) + 2 &&
	      !strcmp(buf + strlen(cwd), "/d"));
	CHECK_ERR(getcwd(buf, 2) ? 0 : -1, ERANGE);
	CHECK(chdir("..") == 0);
	d = opendir("d");
	CHECK(d != NULL);
	while (d && (de = readdir(d)) != NULL)
		seen |= !strcmp(de->d_name, "inner") ? 1 : !strcmp(de->d_name, ".") ? 2 :
			!strcmp(de->d_name, "..") ? 4 : 8;
	CHECK(seen == 7);
	if (d)
		closedir(d);
	CHECK_ERR(chdir("d/inner"), ENOTDIR);
	CHECK_ERR(rmdir("d/inner"), ENOTDIR);
	CHECK(unlink("d/inner") == 0);
	CHECK_ERR(unlink("d"), EISDIR);
	CHECK(rmdir("d") == 0);
	CHECK_ERR(rmdir("d"), ENOENT);
}

/* --- processes --- */

static void t_fork_wait(void)
{
	int st = 0, p[2];
	pid_t pid, me = getpid();
	char c = 0;

	CHECK(pipe(p) == 0);
	pid = fork();
	if (pid == 0) {
		/* the child: its own pid, the parent's fds, then exit 42 */
		char r = getppid() == me ? 'y' : 'n';

		write(p[1], &r, 1);
		_exit(42);
	}
	CHECK(pid > 0 && pid != me);
	CHECK(read(p[0], &c, 1) == 1 && c == 'y');
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 42);
	CHECK_ERR(waitpid(pid, &st, 0), ECHILD);
	CHECK_ERR(wait(&st), ECHILD);
	close(p[0]);
	close(p[1]);

	/* a child killed by a signal */
	pid = fork();
	if (pid == 0) {
		for (;;)
			sleep(1);
	}
	CHECK(kill(pid, SIGKILL) == 0);
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	CHECK_ERR(kill(pid, 0), ESRCH);
}

/*
 * vfork: the child runs in the parent's own memory, and the parent sleeps
 * until the child exits or execs.  Each check would fail if vfork were a
 * fork: a store would reach only the child's copy, and the parent would
 * run on while the child pauses.
 */
static void t_vfork(void)
{
	const struct timespec nap = { 0, 50 * 1000 * 1000 };
	volatile int seen = 0, failed_errno = 0;
	char *sh_argv[] = { "sh", "-c", "exit 7", NULL };
	char *none_argv[] = { "/no/such/program", NULL };
	int p[2], st = -1;
	pid_t pid;
	char c = 0;

	/* the child's store, to the parent's stack, is the parent's */
	pid = vfork();
	if (pid == 0) {
		seen = 1;
		_exit(5);
	}
	CHECK(pid > 0);
	CHECK(seen == 1);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 5);

	/* the parent sleeps until the child's exit: what the child wrote
	 * after a pause is in the pipe as soon as vfork returns */
	CHECK(pipe2(p, O_NONBLOCK) == 0);
	pid = vfork();
	if (pid == 0) {
		nanosleep(&nap, NULL);
		write(p[1], "x", 1);
		_exit(0);
	}
	CHECK(read(p[0], &c, 1) == 1 && c == 'x');
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(p[0]);
	close(p[1]);

	/* ... or until its exec: the store just before execve is seen */
	seen = 0;
	pid = vfork();
	if (pid == 0) {
		nanosleep(&nap, NULL);
		seen = 2;
		execve("/bin/sh", sh_argv, environ);
		_exit(99);
	}
	CHECK(seen == 2);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 7);

	/* a failed exec told through memory, as busybox's spawn() does */
	pid = vfork();
	if (pid == 0) {
		execve(none_argv[0], none_argv, environ);
		failed_errno = errno;
		_exit(111);
	}
	CHECK(failed_errno == ENOENT);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 111);
}

/* A vforked child that dies of a signal lets its parent go; a parent
 * killed while it waits dies (the wait is killable), and its child, in
 * the memory it shared, runs on. */
static void t_vfork_kill(void)
{
	const struct timespec nap = { 0, 10 * 1000 * 1000 };
	int p[2], st = -1;
	pid_t pid, mid, orphan = 0;

	pid = vfork();
	if (pid == 0) {
		kill(getpid(), SIGKILL);
		for (;;)
			nanosleep(&nap, NULL);
	}
	CHECK(pid > 0);
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);

	CHECK(pipe(p) == 0);
	mid = fork();
	if (mid == 0) {
		if (vfork() == 0) {
			pid_t me = getpid();

			kill(getppid(), SIGKILL);
			write(p[1], &me, sizeof(me)); /* after its parent's end */
			for (;;)
				nanosleep(&nap, NULL);
		}
		_exit(1); /* not reached: killed inside vfork */
	}
	CHECK(mid > 0);
	CHECK(waitpid(mid, &st, 0) == mid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	CHECK(read(p[0], &orphan, sizeof(orphan)) == sizeof(orphan) && orphan > 0);
	if (orphan > 0)
		CHECK(kill(orphan, SIGKILL) == 0);
	close(p[0]);
	close(p[1]);
}

#define CLONE_VM 0x00000100
#define CLONE_VFORK 0x00004000

/*
 * clone(CLONE_VM | CLONE_VFORK | SIGCHLD) with a stack of the child's
 * own, as glibc's posix_spawn calls it.  The child cannot return from a
 * C function on a new stack, so it is written out here: it stores code
 * in *flag (the parent's memory) and exits with it.
 */
static long clone_vfork_store(volatile int *flag, int code, void *stack_top)
{
	register long r10 asm("r10") = 0;
	register long r8 asm("r8") = 0;
	long ret;

	asm volatile("syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     "movl %k[code], (%[flag])\n\t" /* the child */
		     "movl %k[code], %%edi\n\t"
		     "movl $231, %%eax\n\t" /* exit_group */
		     "syscall\n\t"
		     "1:"
		     : "=a"(ret)
		     : "a"(56L), "D"((long)(CLONE_VM | CLONE_VFORK | SIGCHLD)), "S"(stack_top),
		       "d"(0L), "r"(r10), "r"(r8), [flag] "r"(flag), [code] "r"((long)code)
		     : "rcx", "r11", "memory");
	return ret;
}

static void t_vfork_clone(void)
{
	static char stack[16384] __attribute__((aligned(16)));
	volatile int flag = 0;
	int st = -1;
	long pid = clone_vfork_store(&flag, 9, stack + sizeof(stack));

	CHECK(pid > 0);
	CHECK(flag == 9);
	CHECK(waitpid((pid_t)pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 9);
}

static char **main_argv;

/* /proc/self/cmdline: argv, each string with its NUL, read from our own
 * memory -- so a program that rewrites argv shows the new text. */
static void t_cmdline(void)
{
	char want[256], got[256];
	size_t n = 0;
	int fd;
	ssize_t r;

	for (char **a = main_argv; *a && n + strlen(*a) + 1 <= sizeof(want); a++) {
		memcpy(want + n, *a, strlen(*a) + 1);
		n += strlen(*a) + 1;
	}
	fd = open("/proc/self/cmdline", O_RDONLY);
	CHECK(fd >= 0);
	r = read(fd, got, sizeof(got));
	CHECK(r == (ssize_t)n && memcmp(got, want, n) == 0);
	close(fd);
	main_argv[0][0] = '#';
	fd = open("/proc/self/cmdline", O_RDONLY);
	CHECK(fd >= 0);
	r = read(fd, got, sizeof(got));
	CHECK(r == (ssize_t)n && got[0] == '#' && memcmp(got + 1, want + 1, n - 1) == 0);
	close(fd);
	main_argv[0][0] = want[0];
}

static void t_exec(void)
{
	char *argv[] = { "/no/such/program", NULL };
	int st = 0;
	pid_t pid;

	CHECK_ERR(execve("/no/such/program", argv, NULL), ENOENT);
	CHECK_ERR(execve(BAD_KERNEL, argv, NULL), EFAULT);
	pid = fork();
	if (pid == 0) {
		/* found through PATH: a shell is there in either userland */
		char *targv[] = { "sh", "-c", "exit 0", NULL };

		execvp("sh", targv);
		_exit(99);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void t_misc(void)
{
	struct timespec a, b, nap = { 0, 20 * 1000 * 1000 };

	CHECK(getpid() > 0);
	CHECK(clock_gettime(CLOCK_MONOTONIC, &a) == 0);
	CHECK(nanosleep(&nap, NULL) == 0);
	CHECK(clock_gettime(CLOCK_MONOTONIC, &b) == 0);
	/* never early (a test of "not too fast" only; no upper bound) */
	CHECK((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) >= 20000000L);
	CHECK_ERR(syscall(9999), ENOSYS);
	CHECK(sched_yield() == 0);
}

/*
 * adjtimex(2) and clock_adjtime(2), reading only (busybox's adjtimex, and
 * through it tools/compare-linux's timing of dd).  struct timex is 208
 * bytes on x86-64 with the time at offset 72; it is spelled out as longs
 * here because Spindle's libc has no <sys/timex.h>.  Setting anything is
 * not tried: on the host this runs as root and would move its clock.
 */
static void t_adjtimex(void)
{
	long tx[26] = { 0 };            /* modes 0: read only */
	long ret = syscall(__NR_adjtimex, tx);
	time_t now = time(NULL);

	/* TIME_OK (0) .. TIME_ERROR (5): which one depends on NTP */
	CHECK(ret >= 0 && ret <= 5);
	CHECK(tx[9] >= now - 2 && tx[9] <= now + 2);    /* time.tv_sec */
	CHECK(tx[10] >= 0 && tx[10] < 1000000);         /* time.tv_usec */
	CHECK(syscall(__NR_clock_adjtime, CLOCK_REALTIME, tx) == ret);
	/* a clock with nothing to adjust, a clock that is not */
	CHECK_ERR(syscall(__NR_clock_adjtime, CLOCK_MONOTONIC, tx), EOPNOTSUPP);
	CHECK_ERR(syscall(__NR_clock_adjtime, 1234, tx), EINVAL);
	CHECK_ERR(syscall(__NR_adjtimex, BAD_KERNEL), EFAULT);
}

/* this task's system calls so far (/proc/self/syscalls), or -1 */
static long self_syscalls(void)
{
	char buf[32] = "";
	int fd = open("/proc/self/syscalls", O_RDONLY);
	long n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atol(buf) : -1;
}

/*
 * This libc's clock_gettime goes through the vDSO (user/lib/vdso.c):
 * 1000 calls leave the count of system calls as two reads of the count
 * leave it; the answers lie between two system calls; a clock the vDSO
 * hands back to the kernel still gives its errno.  Linux has no count
 * of system calls to read: there only the answers are checked.
 */
static void t_vdso_clock(void)
{
	struct timespec a, b, c;
	long n0 = self_syscalls(), n1 = self_syscalls(), n2;

	for (int i = 0; i < 1000; i++)
		CHECK(clock_gettime(CLOCK_MONOTONIC, &b) == 0);
	n2 = self_syscalls();
	if (n0 >= 0)
		CHECK(n2 - n1 == n1 - n0);
	CHECK(syscall(__NR_clock_gettime, CLOCK_REALTIME, &a) == 0);
	CHECK(clock_gettime(CLOCK_REALTIME, &b) == 0);
	CHECK(syscall(__NR_clock_gettime, CLOCK_REALTIME, &c) == 0);
	CHECK(a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec <= b.tv_nsec));
	CHECK(b.tv_sec < c.tv_sec || (b.tv_sec == c.tv_sec && b.tv_nsec <= c.tv_nsec));
	CHECK_ERR(clock_gettime(1234, &b), EINVAL);
}

static void t_memory(void)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *big;

	CHECK(p != MAP_FAILED);
	if (p != MAP_FAILED) {
		CHECK(p[0] == 0 && p[8191] == 0);       /* anonymous memory is zeroed */
		p[100] = 7;
		/* madvise: advice Linux does not know is EINVAL, before anything
		 * else is looked at; known advice on a mapping is taken */
		CHECK(madvise(p, 8192, 0) == 0);                /* MADV_NORMAL */
		CHECK_ERR(madvise(p, 8192, 5), EINVAL);         /* 5-7: unused */
		CHECK_ERR(madvise(p, 8192, 999), EINVAL);
		CHECK_ERR(madvise(p + 1, 8192, 999), EINVAL);
		CHECK(munmap(p, 8192) == 0);
	}
	big = malloc(1 << 20);
	CHECK(big != NULL);
	if (big)
		memset(big, 1, 1 << 20);
	free(big);
	CHECK(sbrk(0) != (void *)-1);
}

/* --- block devices --- */

static uint64_t dev_size(int fd)
{
	uint64_t bytes = 0;

	ioctl(fd, BLKGETSIZE64, &bytes);
	return bytes;
}

static void t_blk_direct_align(void)
{
	char *buf;
	int fd;

	if (!have_dev())
		return;
	fd = open(dev_path, O_RDONLY | O_DIRECT);
	CHECK(fd >= 0);
	buf = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(pread(fd, buf, 4096, 0) == 4096);                  /* aligned: fine */
	CHECK_ERR(pread(fd, buf + 1, 4096, 0), EINVAL);          /* memory unaligned */
	CHECK_ERR(pread(fd, buf, 4096, 100), EINVAL);            /* offset unaligned */
	CHECK_ERR(pread(fd, buf, 100, 0), EINVAL);               /* length unaligned */
	close(fd);
	munmap(buf, 8192);
}

/*
 * O_DIRECT at and past the device's end.  Linux's blkdev_read_iter and
 * blkdev_write_iter look at the end before blkdev_direct_IO looks at the
 * alignment: a read at or past the end returns 0 and a write there fails
 * with ENOSPC whatever the offset, length and buffer; a read across the
 * end is cut at the end first, so only what is left must be aligned.
 */
static void t_blk_direct_end(void)
{
	char *buf;
	uint64_t size;
	int fd;

	if (!have_dev())
		return;
	fd = open(dev_path, O_RDWR | O_DIRECT);
	CHECK(fd >= 0);
	size = dev_size(fd);
	CHECK(size > 8192 && size % 4096 == 0);
	buf = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(pread(fd, buf, 4096, (off_t)size) == 0);                  /* at the end */
	CHECK(pread(fd, buf, 4096, (off_t)size + 100) == 0);            /* past, offset unaligned */
	CHECK(pread(fd, buf, 100, (off_t)size) == 0);                   /* length unaligned */
	CHECK(pread(fd, buf + 1, 4096, (off_t)size + 4096) == 0);       /* memory unaligned */
	CHECK(pread(fd, buf, 4096 + 100, (off_t)size - 4096) == 4096);  /* cut at the end */
	CHECK_ERR(pread(fd, buf, 4096, (off_t)size - 4096 + 100), EINVAL); /* before it: checked */
	CHECK_ERR(pwrite(fd, buf, 100, (off_t)size + 100), ENOSPC);
	CHECK_ERR(pwrite(fd, buf + 1, 4096, (off_t)size), ENOSPC);
	close(fd);
	munmap(buf, 8192);
}

static void t_blk_excl(void)
{
	int a, b, c;

	if (!have_dev())
		return;
	/* O_EXCL on a block device: an exclusive claim (as a mount makes) */
	a = open(dev_path, O_RDONLY | O_EXCL);
	CHECK(a >= 0);
	CHECK_ERR(open(dev_path, O_RDONLY | O_EXCL), EBUSY);
	c = open(dev_path, O_RDONLY);                           /* a plain open still works */
	CHECK(c >= 0);
	close(c);
	close(a);
	b = open(dev_path, O_RDONLY | O_EXCL);                  /* released on close */
	CHECK(b >= 0);
	close(b);
}

static void t_blk_end(void)
{
	char *buf;
	uint64_t size;
	int fd;

	if (!have_dev())
		return;
	fd = open(dev_path, O_RDWR);
	CHECK(fd >= 0);
	size = dev_size(fd);
	CHECK(size > 8192 && size % 512 == 0);
	buf = malloc(8192);
	memset(buf, 0, 8192);
	CHECK(pread(fd, buf, 4096, (off_t)(size - 512)) == 512);        /* short */
	CHECK(pread(fd, buf, 4096, (off_t)size) == 0);                  /* at the end */
	CHECK(pread(fd, buf, 4096, (off_t)size + 4096) == 0);           /* beyond */
	CHECK_ERR(pwrite(fd, buf, 512, (off_t)size), ENOSPC);
	CHECK_ERR(pwrite(fd, buf, 4096, (off_t)size + 8192), ENOSPC);
	CHECK(lseek(fd, 0, SEEK_END) == (off_t)size);
	close(fd);
	free(buf);
}

/* --- what a static glibc program needs (busybox); raw calls, since
 * this libc has no wrappers for most of them --- */

#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003

/* The FS base (glibc's thread pointer): set, read back, inherited by a
 * fork's child, and by clone's, which also gets its tid written. */
static void t_tls_clone(void)
{
	static unsigned long tls_word;
	unsigned long base = 0, old = 0;
	int tid = 0, status = -1;
	pid_t pid;

	CHECK(syscall(__NR_arch_prctl, ARCH_GET_FS, &old) == 0);
	CHECK(syscall(__NR_arch_prctl, ARCH_SET_FS, &tls_word) == 0);
	CHECK(syscall(__NR_arch_prctl, ARCH_GET_FS, &base) == 0);
	CHECK(base == (unsigned long)&tls_word);
	/* glibc's fork: SIGCHLD | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID */
	pid = syscall(__NR_clone, SIGCHLD | 0x01000000 | 0x00200000, 0, NULL, &tid, 0);
	if (pid == 0) {
		unsigned long b = 0;

		syscall(__NR_arch_prctl, ARCH_GET_FS, &b);
		_exit(b == (unsigned long)&tls_word && tid == getpid() ? 0 : 1);
	}
	CHECK(pid > 0);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(tid == 0); /* the parent's copy was not written */
	CHECK(syscall(__NR_arch_prctl, ARCH_SET_FS, old) == 0);
	CHECK(syscall(__NR_set_tid_address, &tid) == getpid());
}

static void t_startup_calls(void)
{
	unsigned long rl[2] = { 0, 0 };
	unsigned char rnd[64] = { 0 };
	int any = 0;
	long old;

	CHECK(syscall(__NR_prlimit64, 0, 7 /* RLIMIT_NOFILE */, NULL, rl) == 0);
	CHECK(rl[0] > 2 && rl[0] <= rl[1]);
	CHECK(syscall(__NR_getrandom, rnd, sizeof(rnd), 0) == (long)sizeof(rnd));
	for (unsigned i = 0; i < sizeof(rnd); i++)
		any |= rnd[i];
	CHECK(any); /* 64 zero bytes: not random */
	CHECK_ERR(syscall(__NR_getrandom, rnd, 8, 0x100), EINVAL);
	old = syscall(__NR_umask, 027);
	CHECK(syscall(__NR_umask, old) == 027);
	CHECK(syscall(__NR_getuid) == syscall(__NR_geteuid));
	CHECK(syscall(__NR_getpgid, 0) == getpgrp());
	/*
	 * A session id of 0 is legal: in a container the session leader can
	 * live outside our pid namespace (CI runs this half on Linux there).
	 */
	CHECK(syscall(__NR_getsid, 0) >= 0);
	CHECK(syscall(__NR_getsid, 0) == syscall(__NR_getsid, getpid()));
	CHECK_ERR(syscall(__NR_getsid, 0x3fffffff), ESRCH); /* no such pid */
	CHECK(syscall(__NR_gettid) == getpid());
}

/*
 * The errors of setpgid and prlimit64 for pids that are not, as Linux
 * orders them: pid 0 means the caller and pgid 0 means pid, so
 * setpgid(-1, 0) asks for group -1 (EINVAL), while a pid that does not
 * exist is ESRCH -- for prlimit64 too, before any question of rights.
 */
static void t_pid_errors(void)
{
	unsigned long rl[2];

	CHECK_ERR(syscall(__NR_setpgid, -1, 0), EINVAL);
	CHECK_ERR(syscall(__NR_setpgid, 0, -1), EINVAL);
	CHECK_ERR(syscall(__NR_setpgid, 0x3fffffff, 0), ESRCH);
	CHECK_ERR(syscall(__NR_prlimit64, 0x3fffffff, 7 /* RLIMIT_NOFILE */, NULL, rl), ESRCH);
	CHECK_ERR(syscall(__NR_prlimit64, 0, 999, NULL, rl), EINVAL);
	CHECK(syscall(__NR_prlimit64, getpid(), 7, NULL, rl) == 0);
}

/*
 * prlimit64 on another process, as Linux's: the order of its checks is
 * EFAULT for an unreadable new limit, ESRCH for no such process, then
 * check_prlimit_permission() -- EPERM unless the caller has the target's
 * uid and gid or CAP_SYS_RESOURCE, which root (Spindle's only user) has
 * -- then EINVAL for an unknown resource or a soft limit above the hard
 * one.  So a process may read its child's limits, and set one to what it
 * already is; both were EPERM on Spindle before.
 */
static void t_prlimit_other(void)
{
	unsigned long mine[2], its[2] = { 0, 0 }, bad[2];
	int p[2], st;
	pid_t pid;

	CHECK(pipe(p) == 0);
	pid = fork();
	if (pid == 0) {
		char c;

		close(p[1]);
		_exit(read(p[0], &c, 1) == 0 ? 0 : 1);  /* until the parent closes */
	}
	close(p[0]);
	CHECK(pid > 0);
	CHECK(syscall(__NR_prlimit64, 0, 7 /* RLIMIT_NOFILE */, NULL, mine) == 0);
	CHECK(syscall(__NR_prlimit64, pid, 7, NULL, its) == 0);
	CHECK(its[0] == mine[0] && its[1] == mine[1]);          /* fork inherits them */
	CHECK(syscall(__NR_prlimit64, pid, 7, its, NULL) == 0);  /* unchanged: allowed */
	CHECK_ERR(syscall(__NR_prlimit64, pid, 7, BAD_LOW, NULL), EFAULT);
	CHECK_ERR(syscall(__NR_prlimit64, pid, 999, NULL, its), EINVAL);
	bad[0] = its[1] + 1;
	bad[1] = its[1];
	CHECK_ERR(syscall(__NR_prlimit64, pid, 7, bad, NULL), EINVAL); /* soft above hard */
	CHECK_ERR(syscall(__NR_prlimit64, 0x3fffffff, 7, BAD_LOW, NULL), EFAULT); /* before ESRCH */
	close(p[1]);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* sysinfo(2), which busybox's ls, free and uptime ask: the figures hang together */
static void t_sysinfo(void)
{
	struct sysinfo si;

	_Static_assert(sizeof(struct sysinfo) == 112, "Linux's x86-64 struct sysinfo");
	memset(&si, 0xa5, sizeof(si));
	CHECK(syscall(__NR_sysinfo, &si) == 0);
	CHECK(si.mem_unit >= 1);
	CHECK(si.totalram > 0 && si.freeram > 0 && si.freeram < si.totalram);
	CHECK(si.bufferram < si.totalram && si.freeswap <= si.totalswap);
	CHECK(si.uptime > 0);
	CHECK(si.procs >= 1);
	CHECK_ERR(syscall(__NR_sysinfo, NULL), EFAULT);
}

/* fcntl, dup3, the *at() stat calls, readlink, access */
static void t_fds_at(void)
{
	struct stat st;
	int p[2], fd;

	CHECK(pipe(p) == 0);
	fd = syscall(__NR_fcntl, p[0], 1030 /* F_DUPFD_CLOEXEC */, 10);
	CHECK(fd >= 10);
	CHECK(syscall(__NR_fcntl, fd, 1 /* F_GETFD */) == 1 /* FD_CLOEXEC */);
	CHECK_ERR(syscall(__NR_dup3, fd, fd, 0), EINVAL);
	CHECK(syscall(__NR_newfstatat, fd, "", &st, 0x1000 /* AT_EMPTY_PATH */) == 0);
	CHECK(S_ISFIFO(st.st_mode));
	CHECK_ERR(syscall(__NR_newfstatat, AT_FDCWD, "", &st, 0), ENOENT);
	CHECK(syscall(__NR_newfstatat, AT_FDCWD, "/", &st, 0) == 0 && S_ISDIR(st.st_mode));
	CHECK_ERR(syscall(__NR_readlinkat, AT_FDCWD, "/", (char[8]){ 0 }, 8), EINVAL);
	CHECK_ERR(syscall(__NR_access, "/no/such/file", 0), ENOENT);
	CHECK(syscall(__NR_access, "/", 1 /* X_OK */) == 0);
	close(fd);
	close(p[0]);
	close(p[1]);
}

/* poll on a pipe: nothing, then data, then the writer gone */
static void t_poll_pipe(void)
{
	struct {
		int fd;
		short events, revents;
	} pfd;
	int p[2];

	CHECK(pipe(p) == 0);
	pfd.fd = p[0];
	pfd.events = 1; /* POLLIN */
	CHECK(syscall(__NR_poll, &pfd, 1, 0) == 0);
	CHECK(write(p[1], "x", 1) == 1);
	CHECK(syscall(__NR_poll, &pfd, 1, -1) == 1 && (pfd.revents & 1));
	close(p[1]);
	CHECK(read(p[0], (char[2]){ 0 }, 2) == 1);
	CHECK(syscall(__NR_poll, &pfd, 1, 1000) == 1 && (pfd.revents & 0x10 /* POLLHUP */));
	close(p[0]);
}

static volatile int usr1_seen;
static void on_usr1(int sig)
{
	(void)sig;
	usr1_seen = 1;
}

/* rt_sigsuspend: a blocked, pending signal ends it once the temporary
 * mask lets it in; afterwards the old mask (blocking it) is back */
static void t_sigsuspend(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigset_t block = 0, empty = 0, now = 0;

	sigaddset(&block, SIGUSR1);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	CHECK(sigprocmask(SIG_BLOCK, &block, NULL) == 0);
	CHECK(kill(getpid(), SIGUSR1) == 0);
	CHECK(!usr1_seen);
	CHECK_ERR(syscall(__NR_rt_sigsuspend, &empty, 8), EINTR);
	CHECK(usr1_seen);
	CHECK(sigprocmask(SIG_SETMASK, NULL, &now) == 0);
	CHECK(sigismember(&now, SIGUSR1));
	CHECK(sigprocmask(SIG_UNBLOCK, &block, NULL) == 0);
	signal(SIGUSR1, SIG_DFL);
}

/* posix_fadvise's system call: Linux's errors, and every advice taken on
 * a file (what the advice does is checked by debian-tools.scn, with GNU
 * dd's iflag=nocache, where the disk's counters can tell) */
static void t_fadvise(void)
{
	int p[2], fd = open("fadv", O_RDWR | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0);
	CHECK(write(fd, "advice", 6) == 6);
	for (int advice = 0; advice <= 5; advice++)
		CHECK(syscall(__NR_fadvise64, fd, 0, 0, advice) == 0);
	CHECK(syscall(__NR_fadvise64, fd, 4096, 1 << 20, 4) == 0);     /* DONTNEED */
	CHECK_ERR(syscall(__NR_fadvise64, fd, 0, 0, 6), EINVAL);
	CHECK_ERR(syscall(__NR_fadvise64, fd, 0, 0, -1), EINVAL);
	CHECK_ERR(syscall(__NR_fadvise64, -1, 0, 0, 0), EBADF);
	CHECK_ERR(syscall(__NR_fadvise64, 999, 0, 0, 0), EBADF);
	CHECK(pipe(p) == 0);
	CHECK_ERR(syscall(__NR_fadvise64, p[0], 0, 0, 0), ESPIPE);
	close(p[0]);
	close(p[1]);
	close(fd);
	unlink("fadv");
	/* a disk, where WILLNEED starts a read and DONTNEED drops pages */
	fd = open(dev_path, O_RDONLY);
	if (fd >= 0) {
		CHECK(syscall(__NR_fadvise64, fd, 8 << 20, 1 << 20, 3) == 0);  /* WILLNEED */
		CHECK(syscall(__NR_fadvise64, fd, 0, 0, 3) == 0);              /* to the end */
		CHECK(syscall(__NR_fadvise64, fd, 0, 0, 4) == 0);              /* DONTNEED */
		CHECK(syscall(__NR_fadvise64, fd, 0, 0, 1) == 0);              /* RANDOM */
		CHECK(pread(fd, p, sizeof(p), 12345) == (ssize_t)sizeof(p));
		CHECK(syscall(__NR_fadvise64, fd, 0, 0, 0) == 0);              /* NORMAL */
		close(fd);
	}
}

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
	{ "bad_fd", t_bad_fd },
	{ "file_roundtrip", t_file_roundtrip },
	{ "dup_pipe", t_dup_pipe },
	{ "efault", t_efault },
	{ "dirs", t_dirs },
	{ "fork_wait", t_fork_wait },
	{ "exec", t_exec },
	{ "vfork", t_vfork },
	{ "vfork_kill", t_vfork_kill },
	{ "vfork_clone", t_vfork_clone },
	{ "cmdline", t_cmdline },
	{ "misc", t_misc },
	{ "adjtimex", t_adjtimex },
	{ "vdso_clock", t_vdso_clock },
	{ "memory", t_memory },
	{ "blk_direct_align", t_blk_direct_align },
	{ "blk_direct_end", t_blk_direct_end },
	{ "blk_excl", t_blk_excl },
	{ "blk_end", t_blk_end },
	{ "tls_clone", t_tls_clone },
	{ "startup_calls", t_startup_calls },
	{ "pid_errors", t_pid_errors },
	{ "prlimit_other", t_prlimit_other },
	{ "sysinfo", t_sysinfo },
	{ "fds_at", t_fds_at },
	{ "poll_pipe", t_poll_pipe },
	{ "sigsuspend", t_sigsuspend },
	{ "fadvise", t_fadvise },
};

int main(int argc, char **argv)
{
	char dir[64];
	const char *only = argc > 2 ? argv[2] : NULL;

	main_argv = argv;

	snprintf(dev_path, sizeof(dev_path), "/dev/%s", argc > 1 ? argv[1] : "sda");
	snprintf(dir, sizeof(dir), "/tmp/syscalls.%d", getpid());
	if (mkdir(dir, 0755) < 0 || chdir(dir) < 0) {
		printf("TEST syscalls.setup FAIL: %s: %s\n", dir, strerror(errno));
		printf("0 passed, 1 failed\n");
		return 1;
	}
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (only && strcmp(only, cases[i].name))
			continue;
		cur = cases[i].name;
		cur_failed = cur_skipped = 0;
		fflush(stdout);
		cases[i].fn();
		if (cur_failed)
			failed++;
		else if (cur_skipped)
			skipped++;
		else {
			printf("TEST syscalls.%s PASS\n", cur);
			passed++;
		}
	}
	chdir("/");
	rmdir(dir);
	printf("%d passed, %d failed", passed, failed);
	if (skipped)
		printf(", %d skipped", skipped);
	printf("\n");
	return failed ? 1 : 0;
}
