// SPDX-License-Identifier: MIT
/*
 * auxv - /proc/<pid>/auxv: the auxiliary vector a program was started with.
 *
 * Built against the host's glibc (gcc -static, user/user.mk), whose
 * getauxval() reads the vector from where exec put it on the stack: the
 * file must give the same pairs.  The same binary passes on the host's
 * Linux (tests/user/run.sh), the oracle for the file's format: binary
 * (type, value) pairs of unsigned long, the AT_NULL pair last.
 *
 *   auxv     run the cases below
 *
 * Prints "TEST auxv.<case> PASS" or "... FAIL: <why>", then
 * "<N> passed, <M> failed"; exits 0 only if nothing failed.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

#define TEST_SUITE "auxv"
#include "testline.h"

#define AUXV_MAX 128                    /* pairs read; Linux gives about 20 */



/* The whole file at path into buf (size bytes); its length or -errno. */
static long read_file(const char *path, void *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	/* small reads, so that a file longer than one read() is put together
	 * as a reader would */
	while (n < size && (r = read(fd, (char *)buf + n, size - n < 24 ? size - n : 24)) > 0)
		n += (size_t)r;
	r = r < 0 ? -errno : (long)n;
	close(fd);
	return r;
}

/* The value of type in the pairs v[0..n), *found set; the last if twice. */
static unsigned long auxv_find(const Elf64_auxv_t *v, long n, unsigned long type, int *found)
{
	unsigned long val = 0;

	*found = 0;
	for (long i = 0; i < n; i++)
		if (v[i].a_type == type) {
			val = v[i].a_un.a_val;
			(*found)++;
		}
	return val;
}

static Elf64_auxv_t self_v[AUXV_MAX];
static long self_len;                   /* bytes of /proc/self/auxv */

/* The file's shape: whole pairs, one AT_NULL, the last. */
static void test_format(void)
{
	long n;

	self_len = read_file("/proc/self/auxv", self_v, sizeof(self_v));
	if (self_len < 0)
		FAIL("format", "open/read /proc/self/auxv: errno %ld", -self_len);
	if (self_len == 0 || self_len % (long)sizeof(Elf64_auxv_t))
		FAIL("format", "%ld bytes: not whole (type, value) pairs", self_len);
	n = self_len / (long)sizeof(Elf64_auxv_t);
	if (n < 5)
		FAIL("format", "only %ld pairs", n);
	for (long i = 0; i < n - 1; i++)
		if (self_v[i].a_type == AT_NULL)
			FAIL("format", "AT_NULL at pair %ld of %ld", i, n);
	if (self_v[n - 1].a_type != AT_NULL || self_v[n - 1].a_un.a_val != 0)
		FAIL("format", "the last pair is (%lu, %lu), not (AT_NULL, 0)",
		     (unsigned long)self_v[n - 1].a_type, (unsigned long)self_v[n - 1].a_un.a_val);
	pass("format");
}

/* dl_iterate_phdr's view of the program itself: its program headers */
static int first_phdr(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(const void **)data = info->dlpi_phdr;
	return 1;                       /* the first object is the program */
}

/*
 * Each pair asked of getauxval() is in the file once with the same
 * value (not AT_HWCAP: glibc answers its own reading of CPUID there), and the values are what the program sees otherwise:
 * the page size, its program headers, its entry point.
 */
static void test_getauxval(void)
{
	static const struct { unsigned long type; const char *name; } want[] = {
		{ AT_PAGESZ, "AT_PAGESZ" }, { AT_PHDR, "AT_PHDR" }, { AT_PHENT, "AT_PHENT" },
		{ AT_PHNUM, "AT_PHNUM" }, { AT_ENTRY, "AT_ENTRY" }, { AT_RANDOM, "AT_RANDOM" },
		{ AT_EXECFN, "AT_EXECFN" }, { AT_PLATFORM, "AT_PLATFORM" }, { AT_CLKTCK, "AT_CLKTCK" },
	};
	long n = self_len / (long)sizeof(Elf64_auxv_t);
	const void *phdr = NULL;
	extern char _start[];
	int found;

	if (self_len <= 0)
		FAIL("getauxval", "no /proc/self/auxv");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		unsigned long v = auxv_find(self_v, n, want[i].type, &found), g;

		errno = 0;
		g = getauxval(want[i].type);
		if (found != 1)
			FAIL("getauxval", "%s is in the file %d times", want[i].name, found);
		if (g != v || errno)
			FAIL("getauxval", "%s: file %#lx, getauxval %#lx (errno %d)",
			     want[i].name, v, g, errno);
	}
	if (auxv_find(self_v, n, AT_PAGESZ, &found) != (unsigned long)sysconf(_SC_PAGESIZE))
		FAIL("getauxval", "AT_PAGESZ %lu, sysconf %ld", auxv_find(self_v, n, AT_PAGESZ, &found),
		     sysconf(_SC_PAGESIZE));
	if (auxv_find(self_v, n, AT_ENTRY, &found) != (unsigned long)_start)
		FAIL("getauxval", "AT_ENTRY %#lx, _start at %p", auxv_find(self_v, n, AT_ENTRY, &found),
		     (void *)_start);
	dl_iterate_phdr(first_phdr, &phdr);
	if (auxv_find(self_v, n, AT_PHDR, &found) != (unsigned long)phdr)
		FAIL("getauxval", "AT_PHDR %#lx, dl_iterate_phdr %p", auxv_find(self_v, n, AT_PHDR, &found),
		     phdr);
	if (strcmp((const char *)auxv_find(self_v, n, AT_PLATFORM, &found), "x86_64"))
		FAIL("getauxval", "AT_PLATFORM is \"%s\"", (const char *)auxv_find(self_v, n, AT_PLATFORM, &found));
	pass("getauxval");
}

/*
 * The file is byte for byte the vector on the stack, which starts after
 * envp's NULL (the psABI's initial stack) -- and it is the vector exec
 * gave, not the stack now: a pair overwritten on the stack is not
 * overwritten in the file.
 */
static void test_stack(void)
{
	static Elf64_auxv_t v[AUXV_MAX];
	extern char **environ;
	char **e = environ;
	Elf64_auxv_t *stack;
	unsigned long saved;
	long len;

	if (self_len <= 0)
		FAIL("stack", "no /proc/self/auxv");
	while (*e)
		e++;
	stack = (Elf64_auxv_t *)(e + 1);
	if (memcmp(stack, self_v, (size_t)self_len))
		FAIL("stack", "the file's %ld bytes differ from the stack's vector", self_len);
	/* the first pair's value, changed and put back */
	saved = stack[0].a_un.a_val;
	stack[0].a_un.a_val = ~saved;
	len = read_file("/proc/self/auxv", v, sizeof(v));
	stack[0].a_un.a_val = saved;
	if (len != self_len || memcmp(v, self_v, (size_t)len))
		FAIL("stack", "the file changed with the stack (%ld bytes)", len);
	pass("stack");
}

/* The same bytes under /proc/<pid>/ and /proc/<pid>/task/<tid>/. */
static void test_paths(void)
{
	static Elf64_auxv_t v[AUXV_MAX];
	char path[64];
	long len;

	if (self_len <= 0)
		FAIL("paths", "no /proc/self/auxv");
	snprintf(path, sizeof(path), "/proc/%d/auxv", getpid());
	len = read_file(path, v, sizeof(v));
	if (len != self_len || memcmp(v, self_v, (size_t)len))
		FAIL("paths", "%s: %ld bytes, differs from /proc/self/auxv's %ld", path, len, self_len);
	snprintf(path, sizeof(path), "/proc/self/task/%d/auxv", gettid());
	len = read_file(path, v, sizeof(v));
	if (len != self_len || memcmp(v, self_v, (size_t)len))
		FAIL("paths", "%s: %ld bytes, differs from /proc/self/auxv's %ld", path, len, self_len);
	pass("paths");
}

/*
 * A forked child has its parent's vector (fork copies the address
 * space); read from the parent, by its pid, while it waits.
 */
static void test_fork(void)
{
	static Elf64_auxv_t v[AUXV_MAX];
	char path[64], c;
	int pfd[2], status;
	long len;
	pid_t pid;

	if (self_len <= 0)
		FAIL("fork", "no /proc/self/auxv");
	if (pipe(pfd))
		FAIL("fork", "pipe: errno %d", errno);
	pid = fork();
	if (pid < 0)
		FAIL("fork", "fork: errno %d", errno);
	if (pid == 0) {
		close(pfd[1]);
		_exit(read(pfd[0], &c, 1) == 0 ? 0 : 1);        /* until the parent closes */
	}
	close(pfd[0]);
	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	len = read_file(path, v, sizeof(v));
	close(pfd[1]);
	waitpid(pid, &status, 0);
	if (len != self_len || memcmp(v, self_v, (size_t)len))
		FAIL("fork", "%s: %ld bytes, differs from the parent's %ld", path, len, self_len);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		FAIL("fork", "child status %#x", status);
	pass("fork");
}

int main(void)
{
	test_format();
	test_getauxval();
	test_stack();
	test_paths();
	test_fork();
	return test_summary();
}
