// SPDX-License-Identifier: MIT
/*
 * vdso - the vDSO: found through AT_SYSINFO_EHDR, its symbols read as
 * ld.so reads them, its clocks against the system calls, its getcpu
 * against the CPU the test pinned itself to, and proof that glibc's
 * clock_gettime makes no system call through it.
 *
 * Built against the host's glibc (gcc -static, user/user.mk), whose
 * clock_gettime, gettimeofday, time and sched_getcpu go through the vDSO
 * when there is one.  The same binary passes on the host's Linux
 * (tests/user/run.sh), the oracle for what the vDSO holds and answers.
 *
 *   vdso           a vDSO that answers the clocks itself (the default)
 *   vdso fallback  a vDSO whose every clock call is the system call
 *                  (Spindle booted with tsc=unstable)
 *   vdso none      no vDSO at all (Spindle booted with vdso=0)
 *
 * "No system call" is read from /proc/self/syscalls where there is one
 * (Spindle's count of the calls this task made: it must not move over
 * 10,000 calls of glibc's clock_gettime); on Linux, which has no such
 * file, a seccomp filter makes the clock system calls fail with EPERM,
 * so a clock_gettime that succeeds did not make one.
 *
 * Prints "TEST vdso.<case> PASS" or "... FAIL: <why>", then
 * "<N> passed, <M> failed"; exits 0 only if nothing failed.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TEST_SUITE "vdso"
#include "testline.h"

#define LOOPS           10000   /* clock calls that must make no system call */
#define PINGS           500     /* clock handoffs between the two CPUs */
#define COARSE_SLACK_NS 100000000ll /* a coarse clock is at most this behind (10+ ticks) */

enum mode { MODE_VDSO, MODE_FALLBACK, MODE_NONE };
static enum mode mode = MODE_VDSO;

/* --- finding the functions, as ld.so does (dl_vdso_vsym) ---------------- */

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
typedef int (*gettimeofday_fn)(struct timeval *, void *);
typedef time_t (*time_fn)(time_t *);
typedef long (*getcpu_fn)(unsigned int *, unsigned int *, void *);

static const Elf64_Ehdr *vdso_eh;
static unsigned long vdso_bias;         /* load address - link address */
static const Elf64_Sym *vdso_symtab;
static const char *vdso_strtab;
static const Elf64_Versym *vdso_versym;
static const Elf64_Verdef *vdso_verdef;
static unsigned long vdso_nsyms;

/* The version name of version index ndx, from the verdef chain */
static const char *vdso_version_name(unsigned int ndx)
{
	const Elf64_Verdef *vd = vdso_verdef;

	while (vd) {
		if (vd->vd_ndx == ndx) {
			const Elf64_Verdaux *aux = (const void *)((const char *)vd + vd->vd_aux);

			return vdso_strtab + aux->vda_name;
		}
		if (!vd->vd_next)
			break;
		vd = (const void *)((const char *)vd + vd->vd_next);
	}
	return NULL;
}

/* The address of name@LINUX_2.6, or NULL: a defined function symbol
 * whose version is LINUX_2.6 (hidden versions refused, as ld.so does). */
static void *vdso_sym(const char *name)
{
	for (unsigned long i = 0; i < vdso_nsyms; i++) {
		const Elf64_Sym *s = &vdso_symtab[i];
		const char *ver;

		if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF ||
		    strcmp(vdso_strtab + s->st_name, name))
			continue;
		if (!vdso_versym || !vdso_verdef)
			continue;
		if (vdso_versym[i] & 0x8000)    /* VERSYM_HIDDEN */
			continue;
		ver = vdso_version_name(vdso_versym[i] & 0x7fff);
		if (ver && !strcmp(ver, "LINUX_2.6"))
			return (void *)(vdso_bias + s->st_value);
	}
	return NULL;
}

/* Parse the image at AT_SYSINFO_EHDR: "" or what is wrong with it. */
static const char *vdso_parse(void)
{
	const Elf64_Phdr *ph;
	const Elf64_Dyn *dyn = NULL;
	const Elf64_Word *hash = NULL;
	bool load = false;

	vdso_eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	if (!vdso_eh)
		return "no AT_SYSINFO_EHDR";
	if (memcmp(vdso_eh->e_ident, ELFMAG, SELFMAG) || vdso_eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    vdso_eh->e_type != ET_DYN || vdso_eh->e_machine != EM_X86_64)
		return "not a 64-bit x86 ELF shared object";
	ph = (const Elf64_Phdr *)((const char *)vdso_eh + vdso_eh->e_phoff);
	for (int i = 0; i < vdso_eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !load) {
			vdso_bias = (unsigned long)vdso_eh + ph[i].p_offset - ph[i].p_vaddr;
			load = true;
		}
	}
	for (int i = 0; i < vdso_eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const Elf64_Dyn *)(vdso_bias + ph[i].p_vaddr);
	if (!load || !dyn)
		return "no PT_LOAD or no PT_DYNAMIC";
	for (; dyn->d_tag != DT_NULL; dyn++) {
		unsigned long p = vdso_bias + dyn->d_un.d_ptr;

		switch (dyn->d_tag) {
		case DT_SYMTAB: vdso_symtab = (const void *)p; break;
		case DT_STRTAB: vdso_strtab = (const void *)p; break;
		case DT_HASH: hash = (const void *)p; break;
		case DT_VERSYM: vdso_versym = (const void *)p; break;
		case DT_VERDEF: vdso_verdef = (const void *)p; break;
		}
	}
	if (!vdso_symtab || !vdso_strtab || !hash)
		return "no DT_SYMTAB, DT_STRTAB or DT_HASH";
	vdso_nsyms = hash[1];                   /* nchain: one per symbol */
	return "";
}

static clock_gettime_fn v_clock_gettime;
static gettimeofday_fn v_gettimeofday;
static time_fn v_time;
static getcpu_fn v_getcpu;

/* AT_SYSINFO_EHDR, the ELF image, and the mappings /proc/self/maps shows */
static void test_found(void)
{
	const char *why = vdso_parse();
	char line[512], name[64];
	bool vdso_line = false, vvar_line = false;
	FILE *f;

	if (mode == MODE_NONE) {
		if (getauxval(AT_SYSINFO_EHDR))
			FAIL("found", "AT_SYSINFO_EHDR is %#lx, with the vDSO off",
			     getauxval(AT_SYSINFO_EHDR));
		f = fopen("/proc/self/maps", "r");
		while (f && fgets(line, sizeof(line), f))
			if (strstr(line, "[vdso]") || strstr(line, "[vvar]"))
				FAIL("found", "with the vDSO off, maps has: %s", line);
		if (f)
			fclose(f);
		pass("found");
		return;
	}
	if (*why)
		FAIL("found", "%s", why);
	f = fopen("/proc/self/maps", "r");
	if (!f)
		FAIL("found", "/proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end;
		char perms[8];

		name[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %63s", &start, &end, perms, name) < 3)
			continue;
		if (!strcmp(name, "[vdso]") && start == (unsigned long)vdso_eh &&
		    !strcmp(perms, "r-xp"))
			vdso_line = true;
		if (!strcmp(name, "[vvar]") && perms[0] == 'r' && perms[1] == '-')
			vvar_line = true;
	}
	fclose(f);
	if (!vdso_line)
		FAIL("found", "no r-xp [vdso] line at AT_SYSINFO_EHDR %p in /proc/self/maps", vdso_eh);
	if (!vvar_line)
		FAIL("found", "no read-only [vvar] line in /proc/self/maps");
	pass("found");
}

/* the four functions, by name and version LINUX_2.6 */
static void test_symbols(void)
{
	if (mode == MODE_NONE)
		return;
	v_clock_gettime = (clock_gettime_fn)vdso_sym("__vdso_clock_gettime");
	v_gettimeofday = (gettimeofday_fn)vdso_sym("__vdso_gettimeofday");
	v_time = (time_fn)vdso_sym("__vdso_time");
	v_getcpu = (getcpu_fn)vdso_sym("__vdso_getcpu");
	if (!v_clock_gettime || !v_gettimeofday || !v_time || !v_getcpu)
		FAIL("symbols", "missing@LINUX_2.6: clock_gettime %p gettimeofday %p time %p getcpu %p",
		     (void *)v_clock_gettime, (void *)v_gettimeofday, (void *)v_time,
		     (void *)v_getcpu);
	pass("symbols");
}

/* --- the clocks against the system call --------------------------------- */

static long long ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000ll + ts->tv_nsec;
}

static int sys_clock(clockid_t clk, struct timespec *ts)
{
	return syscall(SYS_clock_gettime, clk, ts);
}

/*
 * Each clock read by the vDSO between two system calls on the same
 * clock lies between them: a <= b <= c (a clock that never goes back,
 * read in that order on one CPU).  The coarse clocks likewise, and
 * they are behind the exact clock by no more than COARSE_SLACK_NS.
 */
static void test_clocks(void)
{
	static const struct {
		clockid_t id;
		const char *name;
	} clocks[] = {
		{ CLOCK_MONOTONIC, "CLOCK_MONOTONIC" },
		{ CLOCK_REALTIME, "CLOCK_REALTIME" },
		{ CLOCK_BOOTTIME, "CLOCK_BOOTTIME" },
		{ CLOCK_MONOTONIC_RAW, "CLOCK_MONOTONIC_RAW" },
		{ CLOCK_MONOTONIC_COARSE, "CLOCK_MONOTONIC_COARSE" },
		{ CLOCK_REALTIME_COARSE, "CLOCK_REALTIME_COARSE" },
	};

	if (mode == MODE_NONE)
		return;
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		for (int round = 0; round < 100; round++) {
			struct timespec a, b, c, exact;
			int r;

			if (sys_clock(clocks[i].id, &a))
				FAIL("clocks", "%s: the system call: %s", clocks[i].name, strerror(errno));
			r = v_clock_gettime(clocks[i].id, &b);
			sys_clock(clocks[i].id, &c);
			if (r)
				FAIL("clocks", "%s: the vDSO returned %d", clocks[i].name, r);
			if (b.tv_nsec < 0 || b.tv_nsec >= 1000000000)
				FAIL("clocks", "%s: tv_nsec %ld", clocks[i].name, b.tv_nsec);
			if (ts_ns(&a) > ts_ns(&b) || ts_ns(&b) > ts_ns(&c))
				FAIL("clocks", "%s: system call %lld, vDSO %lld, system call %lld",
				     clocks[i].name, ts_ns(&a), ts_ns(&b), ts_ns(&c));
			if (clocks[i].id == CLOCK_MONOTONIC_COARSE || clocks[i].id == CLOCK_REALTIME_COARSE) {
				sys_clock(clocks[i].id == CLOCK_MONOTONIC_COARSE ? CLOCK_MONOTONIC :
										   CLOCK_REALTIME, &exact);
				if (ts_ns(&exact) < ts_ns(&b) || ts_ns(&exact) - ts_ns(&b) > COARSE_SLACK_NS)
					FAIL("clocks", "%s %lld is not just behind the exact clock's %lld",
					     clocks[i].name, ts_ns(&b), ts_ns(&exact));
			}
		}
	}
	pass("clocks");
}

/* gettimeofday and time through the vDSO between two CLOCK_REALTIME
 * system calls, in their own units; a NULL argument is allowed */
static void test_gettimeofday_time(void)
{
	struct timespec a, c;
	struct timeval tv;
	struct timezone tz = { -1, -1 };
	time_t t, t2;

	if (mode == MODE_NONE)
		return;
	for (int round = 0; round < 100; round++) {
		sys_clock(CLOCK_REALTIME, &a);
		if (v_gettimeofday(&tv, &tz))
			FAIL("gettimeofday_time", "__vdso_gettimeofday failed");
		t = v_time(&t2);
		sys_clock(CLOCK_REALTIME, &c);
		if (tv.tv_usec < 0 || tv.tv_usec >= 1000000)
			FAIL("gettimeofday_time", "tv_usec %ld", (long)tv.tv_usec);
		if (tv.tv_sec * 1000000ll + tv.tv_usec < ts_ns(&a) / 1000 ||
		    tv.tv_sec * 1000000ll + tv.tv_usec > ts_ns(&c) / 1000)
			FAIL("gettimeofday_time", "gettimeofday %ld.%06ld outside [%ld.%09ld, %ld.%09ld]",
			     (long)tv.tv_sec, (long)tv.tv_usec, (long)a.tv_sec, a.tv_nsec,
			     (long)c.tv_sec, c.tv_nsec);
		if (t != t2 || t < tv.tv_sec || t > c.tv_sec)
			FAIL("gettimeofday_time", "time %ld (stored %ld) outside [%ld, %ld]", (long)t,
			     (long)t2, (long)tv.tv_sec, (long)c.tv_sec);
		if (tz.tz_minuteswest != 0 || tz.tz_dsttime != 0)
			FAIL("gettimeofday_time", "the time zone is %d, %d, not zeros",
			     tz.tz_minuteswest, tz.tz_dsttime);
	}
	if (v_gettimeofday(NULL, NULL) || v_time(NULL) < a.tv_sec)
		FAIL("gettimeofday_time", "NULL arguments refused");
	pass("gettimeofday_time");
}

/* What the vDSO does not answer itself it hands to the system call: a
 * CPU-time clock works, an unknown clock is -EINVAL (the vDSO returns
 * the system call's -errno, as Linux's does: glibc sets errno) */
static void test_fallback(void)
{
	struct timespec ts;
	int r;

	if (mode == MODE_NONE)
		return;
	r = v_clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	if (r == -EINVAL) {
		/* a kernel without the CPU-time clocks: the same answer as
		 * its system call is what is asked */
		if (sys_clock(CLOCK_PROCESS_CPUTIME_ID, &ts) != -1 || errno != EINVAL)
			FAIL("fallback", "CLOCK_PROCESS_CPUTIME_ID: vDSO -EINVAL, not the system call's");
	} else if (r != 0) {
		FAIL("fallback", "CLOCK_PROCESS_CPUTIME_ID: %d", r);
	}
	r = v_clock_gettime(1234, &ts);
	if (r != -EINVAL)
		FAIL("fallback", "clock 1234: %d, not -EINVAL", r);
	errno = 0;
	if (clock_gettime(1234, &ts) != -1 || errno != EINVAL)
		FAIL("fallback", "glibc's clock_gettime(1234): errno %d, not EINVAL", errno);
	pass("fallback");
}

/* --- getcpu against the CPU we are pinned to ------------------------------ */

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* each CPU we may run on in turn: pinned there, the vDSO's getcpu, glibc's
 * sched_getcpu() and the system call all name it */
static void test_getcpu(void)
{
	cpu_set_t all;
	int n = 0;

	if (sched_getaffinity(0, sizeof(all), &all))
		FAIL("getcpu", "sched_getaffinity: %s", strerror(errno));
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		unsigned int vc = ~0u, vn = ~0u, sc = ~0u;

		if (!CPU_ISSET(cpu, &all))
			continue;
		if (pin(cpu))
			FAIL("getcpu", "sched_setaffinity(cpu %d): %s", cpu, strerror(errno));
		if (v_getcpu && (v_getcpu(&vc, &vn, NULL) || vc != (unsigned int)cpu || vn != 0))
			FAIL("getcpu", "pinned to %d: the vDSO says cpu %u node %u", cpu, vc, vn);
		if (sched_getcpu() != cpu)
			FAIL("getcpu", "pinned to %d: sched_getcpu() says %d", cpu, sched_getcpu());
		if (syscall(SYS_getcpu, &sc, NULL, NULL) || sc != (unsigned int)cpu)
			FAIL("getcpu", "pinned to %d: the system call says %u", cpu, sc);
		n++;
	}
	sched_setaffinity(0, sizeof(all), &all);
	printf("getcpu: %d cpus checked\n", n);
	pass("getcpu");
}

/* --- no system call ----------------------------------------------------- */

static long long read_syscalls(void)
{
	char buf[32] = "";
	int fd = open("/proc/self/syscalls", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoll(buf) : -1;
}

/* glibc's three clock calls LOOPS times each; 0 if all succeeded */
static int clock_loop(void)
{
	struct timespec ts;
	struct timeval tv;

	for (int i = 0; i < LOOPS; i++) {
		if (clock_gettime(CLOCK_MONOTONIC, &ts) || gettimeofday(&tv, NULL) ||
		    time(NULL) == (time_t)-1)
			return -1;
	}
	return 0;
}

/* Linux's way to see it: the clock system calls forbidden (EPERM) in a
 * child; its glibc calls still succeed only if none was made */
static int seccomp_child(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clock_gettime, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_gettimeofday, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_time, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	struct timespec ts;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		_exit(2);
	if (sys_clock(CLOCK_MONOTONIC, &ts) != -1 || errno != EPERM)
		_exit(3);               /* the filter does not bite: no proof */
	_exit(clock_loop() ? 1 : 0);
}

/*
 * With the vDSO, LOOPS calls each of glibc's clock_gettime, gettimeofday
 * and time move the count of system calls by nothing: the count across
 * the loop equals the count across nothing (both include the reads of
 * the file).  Without it -- or when it must fall back -- by 3 * LOOPS.
 */
static void test_nosyscall(void)
{
	long long n0 = read_syscalls(), n1 = read_syscalls(), n2, made;
	int status;
	pid_t pid;

	if (n0 < 0) {
		if (mode != MODE_VDSO)
			FAIL("nosyscall", "no /proc/self/syscalls to count with");
		pid = fork();
		if (pid == 0)
			seccomp_child();
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			FAIL("nosyscall", "the seccomp child did not exit");
		if (WEXITSTATUS(status) != 0)
			FAIL("nosyscall", "seccomp child: %s", WEXITSTATUS(status) == 1 ?
				"a clock call made the system call" : "no seccomp filter");
		printf("nosyscall: %d x 3 clock calls under a seccomp filter that fails them\n",
		       LOOPS);
		pass("nosyscall");
		return;
	}
	if (clock_loop())
		FAIL("nosyscall", "a clock call failed");
	n2 = read_syscalls();
	made = (n2 - n1) - (n1 - n0);
	printf("nosyscall: %d x 3 clock calls made %lld system calls\n", LOOPS, made);
	if (mode == MODE_VDSO && made != 0)
		FAIL("nosyscall", "%lld system calls for %d clock calls", made, 3 * LOOPS);
	if (mode != MODE_VDSO && made < 3 * LOOPS)
		FAIL("nosyscall", "only %lld system calls: the vDSO answered itself", made);
	pass("nosyscall");
}

/* --- one clock across two CPUs ------------------------------------------- */

/*
 * Two processes pinned to two CPUs hand a CLOCK_MONOTONIC reading back
 * and forth through pipes: each reads its clock only after it has the
 * other's reading, so its own must not be smaller -- the TSCs of the two
 * CPUs agree, and the vDSO converts them as the kernel does.
 */
static void test_cpus(void)
{
	int ab[2], ba[2], status, cpus[2], n = 0;
	cpu_set_t all;
	pid_t pid;

	sched_getaffinity(0, sizeof(all), &all);
	for (int cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &all))
			cpus[n++] = cpu;
	if (n < 2) {
		printf("TEST vdso.cpus SKIP: one CPU\n");
		return;
	}
	if (pipe(ab) || pipe(ba))
		FAIL("cpus", "pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		long long seen, now;
		struct timespec ts;

		close(ab[1]);           /* so that the parent's close ends the loop */
		close(ba[0]);
		if (pin(cpus[1]))
			_exit(2);
		while (read(ab[0], &seen, sizeof(seen)) == sizeof(seen)) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			now = ts_ns(&ts);
			if (now < seen) {
				printf("TEST vdso.cpus FAIL: cpu %d read %lld after cpu %d's %lld\n",
				       cpus[1], now, cpus[0], seen);
				_exit(1);
			}
			if (write(ba[1], &now, sizeof(now)) != sizeof(now))
				_exit(3);
		}
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	if (pin(cpus[0]))
		FAIL("cpus", "sched_setaffinity: %s", strerror(errno));
	for (int i = 0; i < PINGS; i++) {
		long long seen, now;
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = ts_ns(&ts);
		if (write(ab[1], &now, sizeof(now)) != sizeof(now) ||
		    read(ba[0], &seen, sizeof(seen)) != sizeof(seen))
			break;          /* the child failed: its status says */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (ts_ns(&ts) < seen) {
			close(ab[1]);
			waitpid(pid, &status, 0);
			FAIL("cpus", "cpu %d read %lld after cpu %d's %lld", cpus[0], ts_ns(&ts),
			     cpus[1], seen);
		}
	}
	close(ab[1]);
	sched_setaffinity(0, sizeof(all), &all);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		FAIL("cpus", "the child on cpu %d failed", cpus[1]);
	printf("cpus: %d handoffs between cpus %d and %d\n", PINGS, cpus[0], cpus[1]);
	pass("cpus");
}

/* --- the mappings' rights ----------------------------------------------- */

static long long read_syscalls(void);

/* the page of /proc/self/maps named name, or 0 */
static unsigned long maps_start(const char *name)
{
	char line[512], what[64];
	unsigned long start, end, found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		what[0] = 0;
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %63s", &start, &end, what) >= 2 &&
		    !strcmp(what, name) && !found)
			found = start;
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * [vvar] never becomes writable (EACCES: every process maps the one
 * page); [vdso] does, as Linux 6.1 lets it (VM_MAYWRITE), and a write
 * then changes this process's copy only: a child writes into its ELF
 * header's padding, the parent's stays as it was, and the child's clock
 * still works.  Later Linux kernels refuse that mprotect (EINVAL on the
 * 6.18 this was checked on): where there is no /proc/self/syscalls --
 * not Spindle -- that answer is taken too, and said.
 */
static void test_protect(void)
{
	unsigned long vvar = maps_start("[vvar]");
	unsigned char *pad = (unsigned char *)vdso_eh + EI_PAD + 1; /* e_ident padding */
	unsigned char before = *pad;
	int status;
	pid_t pid;

	if (!vvar)
		FAIL("protect", "no [vvar] in /proc/self/maps");
	errno = 0;
	if (mprotect((void *)vvar, 4096, PROT_READ | PROT_WRITE) != -1 || errno != EACCES)
		FAIL("protect", "mprotect([vvar], PROT_WRITE): errno %d, not EACCES", errno);
	pid = fork();
	if (pid == 0) {
		struct timespec ts;

		if (mprotect((void *)vdso_eh, 4096, PROT_READ | PROT_WRITE | PROT_EXEC))
			_exit(errno == EINVAL && read_syscalls() < 0 ? 3 : 1);
		*pad = (unsigned char)(before + 1);
		_exit(*pad == (unsigned char)(before + 1) &&
		      v_clock_gettime(CLOCK_MONOTONIC, &ts) == 0 ? 0 : 2);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		FAIL("protect", "the child did not exit (status %#x)", status);
	if (WEXITSTATUS(status) == 3)
		printf("protect: this kernel refuses to make [vdso] writable (EINVAL)\n");
	else if (WEXITSTATUS(status))
		FAIL("protect", "the child could not write its [vdso] (status %#x)", status);
	if (*pad != before)
		FAIL("protect", "the child's write reached the parent's [vdso]");
	pass("protect");
}

/* --- fork keeps it -------------------------------------------------------- */

/* a child has the same AT_SYSINFO_EHDR, the same [vdso], and its clock works */
static void test_fork(void)
{
	int status;
	pid_t pid;

	if (mode == MODE_NONE)
		return;
	pid = fork();
	if (pid == 0) {
		struct timespec a, b;

		sys_clock(CLOCK_MONOTONIC, &a);
		if (v_clock_gettime(CLOCK_MONOTONIC, &b) || ts_ns(&b) < ts_ns(&a))
			_exit(1);
		_exit(!memcmp(vdso_eh->e_ident, ELFMAG, SELFMAG) &&
		      getauxval(AT_SYSINFO_EHDR) == (unsigned long)vdso_eh ? 0 : 2);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		FAIL("fork", "the child's vDSO failed (status %#x)", status);
	pass("fork");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "fallback"))
		mode = MODE_FALLBACK;
	else if (argc > 1 && !strcmp(argv[1], "none"))
		mode = MODE_NONE;
	else if (argc > 1) {
		fprintf(stderr, "usage: vdso [fallback|none]\n");
		return 2;
	}
	test_found();
	if (mode != MODE_NONE && vdso_eh && !*vdso_parse()) {
		test_symbols();
		if (v_clock_gettime && v_gettimeofday && v_time) {
			test_clocks();
			test_gettimeofday_time();
			test_fallback();
			test_protect();
			test_fork();
		}
	}
	test_getcpu();
	test_nosyscall();
	test_cpus();
	return test_summary();
}
