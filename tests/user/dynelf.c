// SPDX-License-Identifier: MIT
/*
 * dynelf - a dynamically linked program, as Debian builds them: a PIE
 * against the host's glibc, started by its ld.so (PT_INTERP).  It prints
 * what a user would check, in lines that are the same on Linux and on
 * Spindle, so that the host's run is the oracle for the guest's
 * (tests/qemu/scenarios/dynelf.scn compares the two):
 *
 *   - argv and an environment variable, as the kernel laid them out;
 *   - with DYNELF_BASE=1 in the environment, the address the program was
 *     loaded at: Linux's with randomisation off (`setarch -R`) is the
 *     oracle for Spindle's, which randomises nothing;
 *   - the auxiliary vector: each entry ld.so and glibc read is on the
 *     stack above envp, getauxval() agrees with it, and it says what it
 *     should -- AT_PHDR/AT_PHNUM are this program's headers and AT_BASE
 *     ld.so's base (both as dl_iterate_phdr() sees them), AT_ENTRY is
 *     _start, AT_EXECFN the path exec'd, AT_HWCAP CPUID 1's EDX ...;
 *     /proc/self/auxv, where there is one, holds the same pairs;
 *   - the interpreter named in our own PT_INTERP;
 *   - a dlopen() of libdynelf.so (tests/user/dynelf_lib.c) and a call
 *     into it, which calls back into libc;
 *   - a thread, with its own thread-local variable.
 *
 * `dynelf --exec-errors` instead runs execve() on the copies of itself
 * whose PT_INTERP was damaged by tests/user/dynelf_bad.py (in the
 * current directory) and prints each errno: ENOENT, ELIBBAD, ...
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpuid.h>
#include <sys/auxv.h>
#include <unistd.h>

extern char _start[];

static int failures;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("dynelf: ", stdout);
	vprintf(fmt, ap);
	fputs("\n", stdout);
	va_end(ap);
}

static void yes(const char *what, int ok)
{
	say("%s: %s", what, ok ? "yes" : "NO");
	failures += !ok;
}

/* --- the auxiliary vector ------------------------------------------------ */

static const Elf64_auxv_t *auxv;         /* on the stack, after envp's NULL */

static const Elf64_auxv_t *aux_find(unsigned long type)
{
	for (const Elf64_auxv_t *a = auxv; a->a_type != AT_NULL; a++)
		if (a->a_type == type)
			return a;
	return NULL;
}

/* The entry is on the stack, and getauxval() says the same. */
static unsigned long aux_get(const char *name, unsigned long type)
{
	const Elf64_auxv_t *a = aux_find(type);
	char what[64];

	snprintf(what, sizeof(what), "%s on the stack, as getauxval() says", name);
	yes(what, a && a->a_un.a_val == getauxval(type));
	return a ? a->a_un.a_val : 0;
}

struct objects {
	unsigned long prog_base, interp_base;
	const ElfW(Phdr) *prog_phdr;
	int prog_phnum, count;
};

static int find_objects(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct objects *o = arg;

	(void)size;
	if (o->count++ == 0) {                  /* the program comes first */
		o->prog_base = info->dlpi_addr;
		o->prog_phdr = info->dlpi_phdr;
		o->prog_phnum = info->dlpi_phnum;
	}
	if (strstr(info->dlpi_name, "ld-linux"))
		o->interp_base = info->dlpi_addr;
	return 0;
}

/* /proc/self/auxv, if there is one: the same pairs as the stack's. */
static void check_proc_auxv(void)
{
	Elf64_auxv_t buf[64];
	FILE *f = fopen("/proc/self/auxv", "r");
	size_t n, i;

	if (!f)
		return;                         /* Spindle has none yet */
	n = fread(buf, sizeof(buf[0]), 64, f);
	fclose(f);
	for (i = 0; i < n && auxv[i].a_type != AT_NULL; i++)
		if (buf[i].a_type != auxv[i].a_type || buf[i].a_un.a_val != auxv[i].a_un.a_val)
			break;
	if (i >= n || buf[i].a_type != AT_NULL) {
		say("/proc/self/auxv differs from the stack's at pair %zu: NO", i);
		failures++;
	}
}

static void check_auxv(char **argv)
{
	struct objects o = { 0 };
	unsigned long v, hw, a, b, c, d;
	const char *s;
	int nonzero = 0;

	aux_get("AT_PAGESZ", AT_PAGESZ);
	say("AT_PAGESZ = %lu (sysconf: %ld)", getauxval(AT_PAGESZ), sysconf(_SC_PAGESIZE));
	say("AT_PHENT = %lu", aux_get("AT_PHENT", AT_PHENT));
	say("AT_CLKTCK = %lu (sysconf: %ld)", aux_get("AT_CLKTCK", AT_CLKTCK),
	    sysconf(_SC_CLK_TCK));
	say("AT_FLAGS = %lu", aux_get("AT_FLAGS", AT_FLAGS));
	say("AT_SECURE = %lu", aux_get("AT_SECURE", AT_SECURE));
	yes("AT_UID, AT_EUID are getuid(), geteuid()",
	    aux_get("AT_UID", AT_UID) == getuid() && aux_get("AT_EUID", AT_EUID) == geteuid());
	yes("AT_GID, AT_EGID are getgid(), getegid()",
	    aux_get("AT_GID", AT_GID) == getgid() && aux_get("AT_EGID", AT_EGID) == getegid());
	s = (const char *)aux_get("AT_PLATFORM", AT_PLATFORM);
	say("AT_PLATFORM = %s", s ? s : "(none)");
	s = (const char *)aux_get("AT_EXECFN", AT_EXECFN);
	yes("AT_EXECFN is the path exec'd (argv[0] here)", s && strcmp(s, argv[0]) == 0);
	v = aux_get("AT_RANDOM", AT_RANDOM);
	for (int i = 0; v && i < 16; i++)
		nonzero |= ((const unsigned char *)v)[i];
	yes("AT_RANDOM: 16 bytes, not all zero", nonzero);
	/* not getauxval(AT_HWCAP): glibc answers that with its own x86 bits */
	hw = aux_find(AT_HWCAP) ? aux_find(AT_HWCAP)->a_un.a_val : ~0ul;
	__cpuid(1, a, b, c, d);
	(void)a; (void)b; (void)c;
	yes("AT_HWCAP on the stack is CPUID 1's EDX", hw == (d & 0xffffffff));
	yes("AT_HWCAP2 is there", aux_find(AT_HWCAP2) != NULL);

	dl_iterate_phdr(find_objects, &o);
	yes("AT_PHDR is this program's headers (dl_iterate_phdr)",
	    aux_get("AT_PHDR", AT_PHDR) == (unsigned long)o.prog_phdr);
	yes("AT_PHNUM is their number", aux_get("AT_PHNUM", AT_PHNUM) == (unsigned long)o.prog_phnum);
	yes("AT_ENTRY is _start", aux_get("AT_ENTRY", AT_ENTRY) == (unsigned long)_start);
	yes("AT_BASE is ld.so's base (dl_iterate_phdr)",
	    o.interp_base && aux_get("AT_BASE", AT_BASE) == o.interp_base);
	yes("a PIE: the program was loaded at a page-aligned base above 0",
	    o.prog_base && !(o.prog_base & (getauxval(AT_PAGESZ) - 1)));
	if (getenv("DYNELF_BASE"))
		say("the program's base: %#lx", o.prog_base);
	/* our own PT_INTERP, read through AT_PHDR */
	for (int i = 0; i < o.prog_phnum; i++)
		if (o.prog_phdr[i].p_type == PT_INTERP)
			say("PT_INTERP: %s", (const char *)(o.prog_base + o.prog_phdr[i].p_vaddr));
	check_proc_auxv();
}

/* --- a thread, with its own copy of a thread-local variable ---------------- */

static __thread long tls_sum = -1;

static void *thread_main(void *arg)
{
	tls_sum = 0;
	for (long i = 1; i <= (long)arg; i++)
		tls_sum += i;
	return (void *)tls_sum;
}

static void check_thread(void)
{
	pthread_t t;
	void *ret;

	tls_sum = 7;
	if (pthread_create(&t, NULL, thread_main, (void *)1000l) != 0 ||
	    pthread_join(t, &ret) != 0) {
		say("thread: pthread_create/join failed: NO");
		failures++;
		return;
	}
	say("thread: summed 1..1000 = %ld", (long)ret);
	yes("thread: the main thread's TLS copy untouched", tls_sum == 7);
}

/* --- dlopen -------------------------------------------------------------------- */

static void check_dlopen(const char *argv0)
{
	char path[4096], answer[64];
	const char *slash = strrchr(argv0, '/');
	int (*fn)(char *, size_t, int, int);
	const int *loaded;
	void *h;

	snprintf(path, sizeof(path), "%.*s/libdynelf.so", slash ? (int)(slash - argv0) : 1,
		 slash ? argv0 : ".");
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		say("dlopen libdynelf.so: %s: NO", dlerror());
		failures++;
		return;
	}
	fn = (int (*)(char *, size_t, int, int))dlsym(h, "dynelf_lib_multiply");
	loaded = dlsym(h, "dynelf_lib_loaded");
	if (!fn || !loaded) {
		say("dlsym: %s: NO", dlerror());
		failures++;
		return;
	}
	fn(answer, sizeof(answer), 6, 7);
	say("dlopen libdynelf.so: constructor ran %d time(s); it says \"%s\"", *loaded, answer);
	yes("dlclose", dlclose(h) == 0);
}

/* --- the damaged copies: execve's errors ------------------------------------ */

static const char *const bad[] = {
	"dynelf-missing-ld",    /* PT_INTERP names a file that is not there */
	"dynelf-text-ld",       /* ... a text file */
	"dynelf-empty-ld",      /* ... an empty file: shorter than an ELF header */
	"dynelf-dir-ld",        /* ... a directory */
	"dynelf-unterminated",  /* its last byte is not a NUL */
	"dynelf-long-interp",   /* longer than PATH_MAX */
	"dynelf-short-interp",  /* one byte */
};

static const char *errno_name(int e)
{
	switch (e) {
	case ENOENT: return "ENOENT";
	case EIO: return "EIO";
	case ENOEXEC: return "ENOEXEC";
	case EACCES: return "EACCES";
	case ELIBBAD: return "ELIBBAD";
	default: return "?";
	}
}

static int exec_errors(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char path[64];
		char *av[] = { path, NULL };

		snprintf(path, sizeof(path), "./%s", bad[i]);
		errno = 0;
		execve(path, av, environ);
		say("execve %s: %s (%s)", bad[i], strerror(errno), errno_name(errno));
	}
	say("exec errors done");
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	char **e = envp;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && strcmp(argv[1], "--exec-errors") == 0)
		return exec_errors();
	while (*e)
		e++;
	auxv = (const Elf64_auxv_t *)(e + 1);
	say("argc = %d", argc);
	for (int i = 1; i < argc; i++)
		say("argv[%d] = \"%s\"", i, argv[i]);
	say("DYNELF = \"%s\"", getenv("DYNELF") ? getenv("DYNELF") : "(unset)");
	check_auxv(argv);
	check_dlopen(argv[0]);
	check_thread();
	say("%s", failures ? "FAILED" : "all checks passed");
	return failures ? 1 : 0;
}
