// SPDX-License-Identifier: MIT
/*
 * fuzz [COUNT] [SEED] - throw random system calls at the kernel.
 *
 * A child process makes COUNT (default 5000) calls, each a random pick
 * from Spindle's system calls (the list in docs/user.md) with arguments drawn from a small
 * set of troublemakers: bad file descriptors, NULL, unmapped and kernel
 * addresses, a valid buffer full of random bytes (NUL-terminated, so
 * it doubles as a random path), huge and negative sizes.  The kernel
 * must answer every one with a result or an error -- never crash, hang or
 * hurt anyone else.  Calls that would end or replace the fuzzer, or harm
 * the machine, are left out: exit, exit_group, execve, fork, vfork,
 * reboot, kill, mmap/munmap/brk (which could unmap the fuzzer itself),
 * rt_sigaction (a handler at a random address), nanosleep (a random long
 * sleep), mount and umount2, and chdir: the child stays in a directory
 * of its own under /tmp, and its random names start with a letter, so
 * what it creates or removes is its own (the parent removes the
 * directory afterwards).  Its fds 0-2 are closed: no console input.
 *
 * Prints "TEST fuzz.syscalls PASS" if the child finished its COUNT calls
 * and exited normally, then "TEST fuzz.after PASS" if the kernel still
 * does ordinary work (a pipe round trip, a file written and read back).
 * The same SEED repeats the same sequence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdint.h>
#include <sys/wait.h>
#include <signal.h>
#include <sys/stat.h>
#include <dirent.h>
#include <limits.h>

static const int calls[] = {
	0, 1, 2, 3, 4, 5, 6, 8,         /* read write open close stat fstat lstat lseek */
	14, 16, 17, 18, 22, 24,         /* rt_sigprocmask ioctl pread64 pwrite64 pipe sched_yield */
	32, 33, 39, 61, 63, 74, 75,     /* dup dup2 getpid wait4 uname fsync fdatasync */
	79, 83, 84, 87,                 /* getcwd mkdir rmdir unlink */
	109, 110, 111, 112, 162,        /* setpgid getppid getpgrp setsid sync */
	137, 138,                       /* statfs fstatfs */
	217, 228, 257, 293,             /* getdents64 clock_gettime openat pipe2 */
	500, -1,                        /* numbers nobody implements */
};

static uint64_t state;

static uint64_t next_random(void)
{
	/* splitmix64 again: good enough, and one seed repeats a run */
	uint64_t z = (state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static char buffer[8192] __attribute__((aligned(4096)));

static long random_arg(void)
{
	static const long values[] = {
		0, 1, 2, 3, 4, 5, 7, 64, 512, 4096, 65536, -1, -4096, 0x7fffffff,
		(long)0x8000000000000000UL, 0x40000000,
	};
	switch (next_random() % 6) {
	case 0: return (long)buffer;                            /* valid memory */
	case 1: return (long)(buffer + next_random() % sizeof(buffer));
	case 2: return (long)0xffff800000000000UL + (long)(next_random() % 65536);  /* kernel */
	case 3: return (long)(next_random() & 0x7fffffffffffUL);  /* anywhere in user space */
	default: return values[next_random() % (sizeof(values) / sizeof(values[0]))];
	}
}

static void fuzz(unsigned long count)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/fuzz.%d", getpid());
	if (mkdir(dir, 0755) < 0 || chdir(dir) < 0)
		_exit(2);
	close(0);
	close(1);
	close(2);
	signal(SIGPIPE, SIG_IGN);       /* writes to a pipe nobody reads: EPIPE */
	for (unsigned long i = 0; i < count; i++) {
		int nr = calls[next_random() % (sizeof(calls) / sizeof(calls[0]))];
		long a[6];

		/* random bytes with a NUL: a random file name too */
		for (unsigned j = 0; j < 64; j++)
			buffer[j] = (char)(' ' + next_random() % 95);
		buffer[0] = (char)('a' + next_random() % 26);   /* relative, not "." */
		buffer[1 + next_random() % 16] = '\0';
		for (int k = 0; k < 6; k++)
			a[k] = random_arg();
		/* keep the descriptors small, where the fuzzer's own files are */
		if (nr != 17 && nr != 18 && next_random() % 2)
			a[0] = (long)(next_random() % 8) - 1;
		/* fsync, sync and friends on a big device are slow: rarely */
		if ((nr == 162 || nr == 74 || nr == 75) && next_random() % 16)
			continue;
		/* wait4 for "any child" with no children: ECHILD at once */
		if (nr == 61)
			a[0] = -1, a[2] = 1;   /* WNOHANG */
		/*
		 * Never block: an empty pipe's reader or a full pipe's writer
		 * would wait forever (the fuzzer holds both ends).  Pipes get
		 * zero-length reads and writes, which return at once.
		 */
		if (nr == 0 || nr == 1 || nr == 17 || nr == 18) {
			struct stat st;

			if (fstat((int)a[0], &st) == 0 && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
				a[2] = 0;
		}
		__syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	}
	_exit(0);
}

/* rm -r: the fuzzer's directory and whatever it made there */
static void remove_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	for (int again = 1, tries = 0; again && tries < 8; tries++) {
		again = 0;
		d = opendir(path);
		while (d && (de = readdir(d)) != NULL) {
			char child[PATH_MAX];

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			snprintf(child, sizeof(child), "%s/%s", path, de->d_name);
			remove_tree(child);
			again = 1;
		}
		if (d)
			closedir(d);
		if (rmdir(path) == 0)
			break;
	}
}

static int kernel_still_works(void)
{
	char buf[16];
	int p[2], fd;

	if (pipe(p) < 0 || write(p[1], "ok", 2) != 2 || read(p[0], buf, 2) != 2)
		return 0;
	close(p[0]);
	close(p[1]);
	fd = open("/tmp/fuzz.after", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "spindle", 7) != 7 || pread(fd, buf, 7, 0) != 7 ||
	    memcmp(buf, "spindle", 7))
		return 0;
	close(fd);
	unlink("/tmp/fuzz.after");
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long count = argc > 1 ? strtoul(argv[1], NULL, 0) : 5000;
	int st = 0, ok, failed = 0;
	pid_t pid;

	state = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		fuzz(count);
	if (pid < 0 || waitpid(pid, &st, 0) != pid) {
		printf("TEST fuzz.syscalls FAIL: fork or wait: %s\n", strerror(errno));
		failed++;
	} else if (WIFSIGNALED(st)) {
		printf("TEST fuzz.syscalls FAIL: the fuzzer died of signal %d\n", WTERMSIG(st));
		failed++;
	} else if (WEXITSTATUS(st)) {
		printf("TEST fuzz.syscalls FAIL: the fuzzer exited %d\n", WEXITSTATUS(st));
		failed++;
	} else {
		printf("TEST fuzz.syscalls PASS\n");
	}
	/* wait4(-1) in the child might have been pointed elsewhere: reap */
	while (waitpid(-1, NULL, 0) > 0)
		;
	{
		char dir[64];

		snprintf(dir, sizeof(dir), "/tmp/fuzz.%d", pid);
		remove_tree(dir);
	}
	ok = kernel_still_works();
	printf(ok ? "TEST fuzz.after PASS\n" : "TEST fuzz.after FAIL: a pipe or file round trip\n");
	failed += !ok;
	printf("%d passed, %d failed\n", 2 - failed, failed);
	return failed ? 1 : 0;
}
