// SPDX-License-Identifier: MIT
/*
 * threads - POSIX threads, as Debian's glibc makes them, and futex(2).
 *
 * Unlike the other programs of tests/user, this one is built against the
 * host's glibc (gcc -static -pthread, user/user.mk): pthread_create is
 * glibc's clone(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
 * CLONE_THREAD | ...), its mutexes, condition variables and pthread_join
 * are glibc's futex calls -- the kernel is tested through a C library it
 * did not write.  The same binary passes on the host's Linux
 * (tests/user/run.sh), the oracle for every answer checked here.
 *
 *   threads [FILE]   FILE: what the I/O thread preads (a block device in
 *                    the guest; default /proc/self/exe)
 *
 * Prints "TEST threads.<case> PASS" or "... FAIL: <why>", then
 * "<N> passed, <M> failed"; exits 0 only if nothing failed.  Waits are
 * for events (a futex word, a pipe, a thread's state in
 * /proc/self/task/<tid>/stat), never for time: a slow machine only
 * takes longer.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TEST_SUITE "threads"
#include "testline.h"

static const char *io_path = "/proc/self/exe";
static const char *self_path;

#define CHECK(name, cond)                                       \
	do {                                                    \
		if (!(cond))                                    \
			FAIL(name, "line %d: %s (errno %d)", __LINE__, #cond, errno); \
	} while (0)

static long futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts,
		  uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, val3);
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* The state letter of thread tid of this process, from /proc ('?' if
 * it is gone). */
static char thread_state(pid_t tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* Wait until thread tid sleeps (S): asleep in the call it was about to
 * make, since it does nothing else once it has said so. */
static void wait_sleeping(pid_t tid)
{
	while (thread_state(tid) != 'S')
		sched_yield();
}

/* --- mutex: N threads, each adds under one mutex; the sum is exact ----- */

#define NTHREADS 4
#define ROUNDS 20000

static pthread_mutex_t sum_lock = PTHREAD_MUTEX_INITIALIZER;
static long sum;

static void *adder(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&sum_lock);
		sum++;
		pthread_mutex_unlock(&sum_lock);
	}
	return NULL;
}

static void test_mutex_sum(void)
{
	pthread_t t[NTHREADS];

	for (int i = 0; i < NTHREADS; i++)
		CHECK("mutex_sum", pthread_create(&t[i], NULL, adder, NULL) == 0);
	for (int i = 0; i < NTHREADS; i++)
		CHECK("mutex_sum", pthread_join(t[i], NULL) == 0);
	if (sum != (long)NTHREADS * ROUNDS)
		FAIL("mutex_sum", "sum %ld, expected %ld", sum, (long)NTHREADS * ROUNDS);
	pass("mutex_sum");
}

/* --- condition variable: waiters released by one broadcast ------------- */

static pthread_mutex_t cv_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int cv_go, cv_waiting, cv_woken;

static void *cv_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&cv_lock);
	cv_waiting++;
	pthread_cond_broadcast(&cv);            /* tell the main thread */
	while (!cv_go)
		pthread_cond_wait(&cv, &cv_lock);
	cv_woken++;
	pthread_mutex_unlock(&cv_lock);
	return NULL;
}

static void test_cond_broadcast(void)
{
	pthread_t t[NTHREADS];

	for (int i = 0; i < NTHREADS; i++)
		CHECK("cond_broadcast", pthread_create(&t[i], NULL, cv_waiter, NULL) == 0);
	pthread_mutex_lock(&cv_lock);
	while (cv_waiting < NTHREADS)
		pthread_cond_wait(&cv, &cv_lock);
	cv_go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&cv_lock);
	for (int i = 0; i < NTHREADS; i++)
		CHECK("cond_broadcast", pthread_join(t[i], NULL) == 0);
	if (cv_woken != NTHREADS)
		FAIL("cond_broadcast", "%d of %d woken", cv_woken, NTHREADS);
	pass("cond_broadcast");
}

/* --- join values, thread ids ----------------------------------------- */

struct ids {
	pid_t tid, pid;
};

static void *report_ids(void *arg)
{
	struct ids *out = arg;

	out->tid = gettid_();
	out->pid = getpid();
	return (void *)(intptr_t)(out->tid * 3 + 1);
}

static void test_join_ids(void)
{
	pthread_t t[NTHREADS];
	struct ids ids[NTHREADS];

	CHECK("join_ids", gettid_() == getpid());     /* the main thread leads */
	for (int i = 0; i < NTHREADS; i++)
		CHECK("join_ids", pthread_create(&t[i], NULL, report_ids, &ids[i]) == 0);
	for (int i = 0; i < NTHREADS; i++) {
		void *ret;

		CHECK("join_ids", pthread_join(t[i], &ret) == 0);
		if ((intptr_t)ret != ids[i].tid * 3 + 1)
			FAIL("join_ids", "thread %d returned %ld", i, (long)(intptr_t)ret);
		if (ids[i].pid != getpid())
			FAIL("join_ids", "getpid() %d in a thread, %d in main", ids[i].pid, getpid());
		if (ids[i].tid == getpid())
			FAIL("join_ids", "a thread's tid is the pid");
		for (int j = 0; j < i; j++)
			if (ids[j].tid == ids[i].tid)
				FAIL("join_ids", "two threads with tid %d", ids[i].tid);
	}
	pass("join_ids");
}

/* --- a signal to the process: handled once, by one thread -------------- */

static atomic_int usr1_count;
static atomic_int usr2_tid;
static atomic_int spin_stop;

static void on_usr1(int sig)
{
	(void)sig;
	atomic_fetch_add(&usr1_count, 1);
}

static void on_usr2(int sig)
{
	(void)sig;
	atomic_store(&usr2_tid, gettid_());
}

static void *spinner(void *arg)
{
	(void)arg;
	while (!atomic_load(&spin_stop))
		sched_yield();
	return NULL;
}

static void test_process_signal(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t t[NTHREADS];
	sigset_t pending;

	CHECK("process_signal", sigaction(SIGUSR1, &sa, NULL) == 0);
	atomic_store(&spin_stop, 0);
	for (int i = 0; i < NTHREADS; i++)
		CHECK("process_signal", pthread_create(&t[i], NULL, spinner, NULL) == 0);
	CHECK("process_signal", kill(getpid(), SIGUSR1) == 0);
	while (atomic_load(&usr1_count) == 0)
		sched_yield();
	atomic_store(&spin_stop, 1);
	for (int i = 0; i < NTHREADS; i++)
		CHECK("process_signal", pthread_join(t[i], NULL) == 0);
	CHECK("process_signal", sigpending(&pending) == 0);
	if (sigismember(&pending, SIGUSR1))
		FAIL("process_signal", "still pending after it was handled");
	if (atomic_load(&usr1_count) != 1)
		FAIL("process_signal", "handled %d times", atomic_load(&usr1_count));
	pass("process_signal");
}

/* --- alarm_leader_gone: the process's ITIMER_REAL outlives its leader --
 * In a child: the leader blocks SIGALRM, starts a thread, arms a 50 ms
 * timer and exits (pthread_exit: a zombie while the thread lives).  The
 * timer is the process's, so its SIGALRM reaches the thread left, which
 * waits for it in sigsuspend() and exits 0 if its own handler ran. */

static atomic_int alarm_tid;

static void on_alarm(int sig)
{
	(void)sig;
	atomic_store(&alarm_tid, gettid_());
}

static void *alarm_waiter(void *arg)
{
	sigset_t open;

	(void)arg;
	sigemptyset(&open);
	while (!atomic_load(&alarm_tid))
		sigsuspend(&open);
	exit(atomic_load(&alarm_tid) == gettid_() ? 0 : 1);
}

static void test_alarm_leader_gone(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_alarm };
		struct itimerval it = { .it_value = { 0, 50000 } };
		sigset_t block;
		pthread_t t;

		sigemptyset(&block);
		sigaddset(&block, SIGALRM);
		sigaction(SIGALRM, &sa, NULL);
		pthread_sigmask(SIG_BLOCK, &block, NULL);
		if (pthread_create(&t, NULL, alarm_waiter, NULL) ||
		    setitimer(ITIMER_REAL, &it, NULL))
			_exit(2);
		pthread_exit(NULL);
	}
	CHECK("alarm_leader_gone", pid > 0);
	CHECK("alarm_leader_gone", waitpid(pid, &status, 0) == pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		FAIL("alarm_leader_gone", "child status %#x", status);
	pass("alarm_leader_gone");
}

/* --- tgkill: the named thread, and no other, runs the handler ---------- */

static atomic_int target_tid;

static void *tgkill_target(void *arg)
{
	(void)arg;
	atomic_store(&target_tid, gettid_());
	while (!atomic_load(&usr2_tid))
		sched_yield();
	return NULL;
}

static void test_tgkill(void)
{
	struct sigaction sa = { .sa_handler = on_usr2 };
	pthread_t t;
	pid_t tid;

	CHECK("tgkill", sigaction(SIGUSR2, &sa, NULL) == 0);
	CHECK("tgkill", pthread_create(&t, NULL, tgkill_target, NULL) == 0);
	while (!(tid = atomic_load(&target_tid)))
		sched_yield();
	CHECK("tgkill", syscall(SYS_tgkill, getpid(), tid, SIGUSR2) == 0);
	CHECK("tgkill", pthread_join(t, NULL) == 0);
	if (atomic_load(&usr2_tid) != tid)
		FAIL("tgkill", "handler ran in %d, sent to %d", atomic_load(&usr2_tid), tid);
	/* a tid of another group, a bad signal, a tid gone */
	CHECK("tgkill", syscall(SYS_tgkill, getpid() + 100000, tid, 0) == -1 && errno == ESRCH);
	CHECK("tgkill", syscall(SYS_tgkill, getpid(), gettid_(), 99) == -1 && errno == EINVAL);
	CHECK("tgkill", syscall(SYS_tgkill, 0, gettid_(), 0) == -1 && errno == EINVAL);
	pass("tgkill");
}

/* --- exit_group from a thread ends every thread ----------------------- */

static void *exit_42(void *arg)
{
	(void)arg;
	exit(42);                               /* glibc: exit_group(42) */
}

static void *sleep_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void test_exit_group(void)
{
	pid_t child = fork();
	int status;

	CHECK("exit_group", child >= 0);
	if (child == 0) {
		pthread_t a, b;

		pthread_create(&a, NULL, sleep_forever, NULL);
		pthread_create(&b, NULL, exit_42, NULL);
		for (;;)
			pause();
	}
	CHECK("exit_group", waitpid(child, &status, 0) == child);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 42)
		FAIL("exit_group", "status %#x, expected exit 42", status);
	pass("exit_group");
}

/* --- the leader exits first; the process ends with its last thread ---- */

static int leader_pipe[2];

static void *wait_for_pipe(void *arg)
{
	char c;

	(void)arg;
	while (read(leader_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;                            /* the last thread: exit(0) */
}

static void test_leader_exits_first(void)
{
	pid_t child;
	int status, ready[2];
	char c;

	CHECK("leader_first", pipe(leader_pipe) == 0 && pipe(ready) == 0);
	child = fork();
	CHECK("leader_first", child >= 0);
	if (child == 0) {
		pthread_t t;

		pthread_create(&t, NULL, wait_for_pipe, NULL);
		write(ready[1], "r", 1);
		pthread_exit(NULL);             /* the leader goes, t lives on */
	}
	CHECK("leader_first", read(ready[0], &c, 1) == 1);
	/* the leader thread is gone (a zombie), not yet the process: wait
	 * for its state, then the process must not be reaped */
	for (;;) {
		char path[64], buf[256], *p;
		FILE *f;
		size_t n;

		snprintf(path, sizeof(path), "/proc/%d/stat", child);
		f = fopen(path, "r");
		CHECK("leader_first", f != NULL);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		p = strrchr(buf, ')');
		if (p && p[2] == 'Z')
			break;
		sched_yield();
	}
	if (waitpid(child, &status, WNOHANG) != 0)
		FAIL("leader_first", "reaped while a thread still runs");
	CHECK("leader_first", write(leader_pipe[1], "x", 1) == 1);
	CHECK("leader_first", waitpid(child, &status, 0) == child);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		FAIL("leader_first", "status %#x", status);
	close(leader_pipe[0]);
	close(leader_pipe[1]);
	close(ready[0]);
	close(ready[1]);
	pass("leader_first");
}

/* --- blocking disk I/O in one thread while another computes ----------- */

static atomic_int io_done;

static void *io_reader(void *arg)
{
	long *bytes = arg;
	char buf[4096];
	int fd = open(io_path, O_RDONLY);

	*bytes = -1;
	if (fd >= 0) {
		*bytes = 0;
		for (off_t off = 0; off < 4 << 20; off += sizeof(buf)) {
			ssize_t n = pread(fd, buf, sizeof(buf), off);

			if (n <= 0)
				break;
			*bytes += n;
		}
		close(fd);
	}
	atomic_store(&io_done, 1);
	return NULL;
}

static void *computer(void *arg)
{
	unsigned long *x = arg, v = 1;

	for (unsigned long i = 0; i < 2000000; i++)
		v = v * 6364136223846793005ul + 1442695040888963407ul;
	*x = v;
	return NULL;
}

static void test_io_and_compute(void)
{
	unsigned long expect = 1, got = 0;
	pthread_t io, cpu;
	long bytes;

	for (unsigned long i = 0; i < 2000000; i++)
		expect = expect * 6364136223846793005ul + 1442695040888963407ul;
	CHECK("io_compute", pthread_create(&io, NULL, io_reader, &bytes) == 0);
	CHECK("io_compute", pthread_create(&cpu, NULL, computer, &got) == 0);
	CHECK("io_compute", pthread_join(cpu, NULL) == 0);
	CHECK("io_compute", pthread_join(io, NULL) == 0);
	if (bytes <= 0)
		FAIL("io_compute", "pread of %s: %ld bytes", io_path, bytes);
	if (got != expect)
		FAIL("io_compute", "the computation went wrong");
	pass("io_compute");
}

/* --- two threads at once on two CPUs ---------------------------------- */

static atomic_int here[2];
static int cpu_seen[2];

static void *on_cpu(void *arg)
{
	int i = (int)(intptr_t)arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(i, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		cpu_seen[i] = -2;
		atomic_store(&here[i], 1);
		return NULL;
	}
	/* both spin here at the same time, each pinned to its own CPU:
	 * neither yields, so only two CPUs running at once get past */
	atomic_store(&here[i], 1);
	while (!atomic_load(&here[!i]))
		;
	cpu_seen[i] = sched_getcpu();
	return NULL;
}

static void test_two_cpus(void)
{
	pthread_t t[2];
	char line[64];
	DIR *d;
	int ntasks = 0;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("TEST threads.two_cpus SKIP: one CPU\n");
		return;
	}
	for (int i = 0; i < 2; i++)
		CHECK("two_cpus", pthread_create(&t[i], NULL, on_cpu, (void *)(intptr_t)i) == 0);
	/* meanwhile: /proc/self/task lists three threads, then */
	d = opendir("/proc/self/task");
	CHECK("two_cpus", d != NULL);
	for (struct dirent *e; (e = readdir(d));)
		ntasks += e->d_name[0] != '.';
	closedir(d);
	for (int i = 0; i < 2; i++)
		CHECK("two_cpus", pthread_join(t[i], NULL) == 0);
	if (cpu_seen[0] != 0 || cpu_seen[1] != 1)
		FAIL("two_cpus", "ran on CPUs %d and %d", cpu_seen[0], cpu_seen[1]);
	/* those that had not yet exited, and the main thread */
	if (ntasks < 1 || ntasks > 3)
		FAIL("two_cpus", "/proc/self/task lists %d", ntasks);
	snprintf(line, sizeof(line), "/proc/self/task/%d/comm", getpid());
	CHECK("two_cpus", access(line, R_OK) == 0);
	pass("two_cpus");
}

/* --- fork from a thread: the child has one thread --------------------- */

static int count_tasks(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void *forker(void *arg)
{
	int *status = arg;
	pid_t child = fork();

	if (child == 0) {
		/* one thread, which leads its process */
		_exit(count_tasks("/proc/self/task") == 1 && gettid_() == getpid() ? 0 : 1);
	}
	/* a thread's wait4 reaps a child of its process */
	if (child < 0 || waitpid(child, status, 0) != child)
		*status = -1;
	return NULL;
}

static void test_fork_from_thread(void)
{
	pthread_t a, b;
	int status = -1;

	atomic_store(&spin_stop, 0);
	CHECK("fork_thread", pthread_create(&a, NULL, spinner, NULL) == 0);
	CHECK("fork_thread", pthread_create(&b, NULL, forker, &status) == 0);
	CHECK("fork_thread", pthread_join(b, NULL) == 0);
	atomic_store(&spin_stop, 1);
	CHECK("fork_thread", pthread_join(a, NULL) == 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		FAIL("fork_thread", "child status %#x", status);
	pass("fork_thread");
}

/* --- execve from a thread: the others go, the pid stays ---------------- */

static void *exec_self(void *arg)
{
	char pid[16];

	(void)arg;
	snprintf(pid, sizeof(pid), "%d", getpid());
	execl(self_path, self_path, "--exec-child", pid, (char *)NULL);
	_exit(99);
}

/* the program execve'd above: one thread, the same pid */
static int exec_child(const char *pid)
{
	if (atoi(pid) != getpid())
		return 2;
	if (count_tasks("/proc/self/task") != 1)
		return 3;
	return gettid_() == getpid() ? 0 : 4;
}

static void test_exec_from_thread(void)
{
	pid_t child = fork();
	int status;

	CHECK("exec_thread", child >= 0);
	if (child == 0) {
		pthread_t a, b;

		pthread_create(&a, NULL, sleep_forever, NULL);
		pthread_create(&b, NULL, exec_self, NULL);
		for (;;)
			pause();
	}
	CHECK("exec_thread", waitpid(child, &status, 0) == child);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		FAIL("exec_thread", "status %#x", status);
	pass("exec_thread");
}

/* --- a process killed while its threads sleep in a futex and in I/O --- */

static uint32_t never;

static void *futex_forever(void *arg)
{
	(void)arg;
	for (;;)
		futex(&never, FUTEX_WAIT_PRIVATE, 0, NULL, 0);
	return NULL;
}

static void *read_forever(void *arg)
{
	char buf[4096];
	int fd = open(io_path, O_RDONLY);

	(void)arg;
	for (off_t off = 0;; off = (off + sizeof(buf)) % (1 << 20))
		if (pread(fd, buf, sizeof(buf), off) < 0)
			break;
	return NULL;
}

static void test_kill_sleepers(void)
{
	int ready[2], status;
	pid_t child;
	char c;

	CHECK("kill_sleepers", pipe(ready) == 0);
	child = fork();
	CHECK("kill_sleepers", child >= 0);
	if (child == 0) {
		pthread_t a, b;

		pthread_create(&a, NULL, futex_forever, NULL);
		pthread_create(&b, NULL, read_forever, NULL);
		write(ready[1], "r", 1);
		for (;;)
			pause();
	}
	CHECK("kill_sleepers", read(ready[0], &c, 1) == 1);
	CHECK("kill_sleepers", kill(child, SIGKILL) == 0);
	CHECK("kill_sleepers", waitpid(child, &status, 0) == child);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		FAIL("kill_sleepers", "status %#x", status);
	close(ready[0]);
	close(ready[1]);
	pass("kill_sleepers");
}

/* --- aio: io_destroy while another thread waits on the context ---------- */

static aio_context_t aio_ctx;
static atomic_int aio_waiter_tid;
static long aio_wait_ret;
static int aio_wait_errno;

static void *aio_waiter(void *arg)
{
	struct io_event ev;
	struct timespec ts = { 10, 0 }; /* only for a kernel that never wakes it */

	(void)arg;
	atomic_store(&aio_waiter_tid, gettid_());
	aio_wait_ret = syscall(SYS_io_getevents, aio_ctx, 1L, 1L, &ev, &ts);
	aio_wait_errno = errno;
	return NULL;
}

/*
 * One thread sleeps in io_getevents for an event that never comes; another
 * destroys the context.  The sleeper holds a reference to the context
 * (Linux's lookup_ioctx), so it is not freed under it: io_destroy wakes
 * it, and it returns -1 EINVAL at once (as on Linux), not 0 after its
 * timeout from a freed context.
 */
static void test_aio_destroy_sleeper(void)
{
	pthread_t t;

	aio_ctx = 0;
	atomic_store(&aio_waiter_tid, 0);
	CHECK("aio_destroy_sleeper", syscall(SYS_io_setup, 4, &aio_ctx) == 0);
	CHECK("aio_destroy_sleeper", pthread_create(&t, NULL, aio_waiter, NULL) == 0);
	while (!atomic_load(&aio_waiter_tid))
		sched_yield();
	wait_sleeping(atomic_load(&aio_waiter_tid));
	CHECK("aio_destroy_sleeper", syscall(SYS_io_destroy, aio_ctx) == 0);
	pthread_join(t, NULL);
	if (aio_wait_ret != -1 || aio_wait_errno != EINVAL)
		FAIL("aio_destroy_sleeper", "io_getevents returned %ld errno %d, want -1 EINVAL",
		     aio_wait_ret, aio_wait_errno);
	else
		pass("aio_destroy_sleeper");
}

/* --- clone's flag rules ------------------------------------------------ */

static void test_clone_flags(void)
{
	char stack[256];
	void *sp = stack + sizeof(stack);

	/* CLONE_THREAD needs CLONE_SIGHAND; CLONE_SIGHAND needs CLONE_VM */
	errno = 0;
	CHECK("clone_flags", syscall(SYS_clone, CLONE_THREAD, sp, NULL, NULL, 0) == -1 &&
			     errno == EINVAL);
	errno = 0;
	CHECK("clone_flags", syscall(SYS_clone, CLONE_SIGHAND, sp, NULL, NULL, 0) == -1 &&
			     errno == EINVAL);
	errno = 0;
	CHECK("clone_flags", syscall(SYS_clone, CLONE_THREAD | CLONE_SIGHAND, sp, NULL, NULL,
				     0) == -1 && errno == EINVAL);
	pass("clone_flags");
}

/* --- a robust mutex whose owner thread died: EOWNERDEAD ---------------- */

static pthread_mutex_t robust;

static void *lock_and_die(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&robust);
	return NULL;                    /* exits holding it */
}

static void test_robust_mutex(void)
{
	pthread_mutexattr_t a;
	pthread_t t;

	CHECK("robust_mutex", pthread_mutexattr_init(&a) == 0);
	CHECK("robust_mutex", pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) == 0);
	CHECK("robust_mutex", pthread_mutex_init(&robust, &a) == 0);
	CHECK("robust_mutex", pthread_create(&t, NULL, lock_and_die, NULL) == 0);
	CHECK("robust_mutex", pthread_join(t, NULL) == 0);
	/* the kernel's walk of the dead thread's robust list marked it */
	CHECK("robust_mutex", pthread_mutex_lock(&robust) == EOWNERDEAD);
	CHECK("robust_mutex", pthread_mutex_consistent(&robust) == 0);
	CHECK("robust_mutex", pthread_mutex_unlock(&robust) == 0);
	CHECK("robust_mutex", pthread_mutex_lock(&robust) == 0);
	pthread_mutex_unlock(&robust);
	pass("robust_mutex");
}

/* --- futex(2) directly ------------------------------------------------- */

static uint32_t fword;
static atomic_int fresult[3];
static atomic_int fdone[3];
static atomic_int ftid[3];

struct fwait {
	int i;
	uint32_t bitset;
};

static void *futex_waiter(void *arg)
{
	struct fwait *w = arg;
	long r;

	atomic_store(&ftid[w->i], gettid_());
	r = futex(&fword, FUTEX_WAIT_BITSET_PRIVATE, 0, NULL, w->bitset);
	atomic_store(&fresult[w->i], r ? -errno : 0);
	atomic_store(&fdone[w->i], 1);
	return NULL;
}

static void start_waiters(pthread_t *t, struct fwait *w, int n)
{
	fword = 0;
	for (int i = 0; i < n; i++) {
		atomic_store(&fdone[i], 0);
		atomic_store(&ftid[i], 0);
		pthread_create(&t[i], NULL, futex_waiter, &w[i]);
	}
	for (int i = 0; i < n; i++) {
		while (!atomic_load(&ftid[i]))
			sched_yield();
		wait_sleeping(atomic_load(&ftid[i]));
	}
}

static void test_futex_errors(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 }, abs;
	uint32_t w = 5;

	/* the value differs: no sleep */
	CHECK("futex_errors", futex(&w, FUTEX_WAIT_PRIVATE, 4, NULL, 0) == -1 && errno == EAGAIN);
	/* nobody wakes: the relative timeout ends it */
	CHECK("futex_errors", futex(&w, FUTEX_WAIT_PRIVATE, 5, &ts, 0) == -1 &&
			      errno == ETIMEDOUT);
	/* WAIT_BITSET's timeout is absolute: on CLOCK_MONOTONIC, or a past
	 * CLOCK_REALTIME one */
	clock_gettime(CLOCK_MONOTONIC, &abs);
	abs.tv_nsec += 20 * 1000 * 1000;
	if (abs.tv_nsec >= 1000000000) {
		abs.tv_sec++;
		abs.tv_nsec -= 1000000000;
	}
	CHECK("futex_errors", futex(&w, FUTEX_WAIT_BITSET_PRIVATE, 5, &abs, FUTEX_BITSET_MATCH_ANY) == -1 &&
			      errno == ETIMEDOUT);
	abs.tv_sec = 1;
	abs.tv_nsec = 0;
	CHECK("futex_errors", futex(&w, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 5, &abs,
				    FUTEX_BITSET_MATCH_ANY) == -1 && errno == ETIMEDOUT);
	/* bad timeouts, bitset 0, an unaligned word, no memory there */
	ts.tv_nsec = 1000000000;
	CHECK("futex_errors", futex(&w, FUTEX_WAIT_PRIVATE, 5, &ts, 0) == -1 && errno == EINVAL);
	CHECK("futex_errors", futex(&w, FUTEX_WAIT_BITSET_PRIVATE, 5, NULL, 0) == -1 &&
			      errno == EINVAL);
	CHECK("futex_errors", futex(&w, FUTEX_WAKE_BITSET_PRIVATE, 1, NULL, 0) == -1 &&
			      errno == EINVAL);
	CHECK("futex_errors", futex((uint32_t *)((char *)&w + 1), FUTEX_WAIT_PRIVATE, 5, NULL, 0) == -1 &&
			      errno == EINVAL);
	CHECK("futex_errors", futex((uint32_t *)((char *)&w + 2), FUTEX_WAKE, 1, NULL, 0) == -1 &&
			      errno == EINVAL);
	CHECK("futex_errors", futex((uint32_t *)16, FUTEX_WAIT_PRIVATE, 0, NULL, 0) == -1 &&
			      errno == EFAULT);
	CHECK("futex_errors", futex((uint32_t *)16, FUTEX_WAKE, 1, NULL, 0) == -1 &&
			      errno == EFAULT);
	/* a private wake looks at no memory: nobody there, 0 woken */
	CHECK("futex_errors", futex((uint32_t *)16, FUTEX_WAKE_PRIVATE, 1, NULL, 0) == 0);
	/* an operation not known here */
	CHECK("futex_errors", futex(&w, 99, 0, NULL, 0) == -1 && errno == ENOSYS);
	/* nobody waits: 0 woken */
	CHECK("futex_errors", futex(&w, FUTEX_WAKE_PRIVATE, 1, NULL, 0) == 0);
	pass("futex_errors");
}

static void test_futex_wake_count(void)
{
	struct fwait w[3] = { { 0, ~0u }, { 1, ~0u }, { 2, ~0u } };
	pthread_t t[3];
	int done = 0;
	long r;

	start_waiters(t, w, 3);
	r = futex(&fword, FUTEX_WAKE_PRIVATE, 2, NULL, 0);
	if (r != 2)
		FAIL("futex_wake_count", "wake 2 of 3 woke %ld", r);
	r = futex(&fword, FUTEX_WAKE_PRIVATE, 10, NULL, 0);
	if (r != 1)
		FAIL("futex_wake_count", "wake 10 of 1 woke %ld", r);
	for (int i = 0; i < 3; i++) {
		pthread_join(t[i], NULL);
		done += atomic_load(&fdone[i]) && atomic_load(&fresult[i]) == 0;
	}
	if (done != 3)
		FAIL("futex_wake_count", "%d of 3 returned 0", done);
	pass("futex_wake_count");
}

static void test_futex_bitset(void)
{
	struct fwait w[2] = { { 0, 1 }, { 1, 2 } };
	pthread_t t[2];
	long r;

	start_waiters(t, w, 2);
	r = futex(&fword, FUTEX_WAKE_BITSET_PRIVATE, 10, NULL, 2);
	if (r != 1)
		FAIL("futex_bitset", "bitset 2 woke %ld", r);
	pthread_join(t[1], NULL);
	if (atomic_load(&fdone[0]) || atomic_load(&fresult[1]) != 0)
		FAIL("futex_bitset", "the wrong waiter woke");
	/* the other one is still asleep, for bitset 1 */
	wait_sleeping(atomic_load(&ftid[0]));
	r = futex(&fword, FUTEX_WAKE_BITSET_PRIVATE, 10, NULL, 1);
	if (r != 1)
		FAIL("futex_bitset", "bitset 1 woke %ld", r);
	pthread_join(t[0], NULL);
	pass("futex_bitset");
}

static void on_usr1_quiet(int sig)
{
	(void)sig;
}

static void test_futex_eintr(void)
{
	struct sigaction sa = { .sa_handler = on_usr1_quiet }, old;
	struct fwait w[1] = { { 0, ~0u } };
	pthread_t t[1];

	CHECK("futex_eintr", sigaction(SIGUSR1, &sa, &old) == 0);  /* no SA_RESTART */
	start_waiters(t, w, 1);
	CHECK("futex_eintr", pthread_kill(t[0], SIGUSR1) == 0);
	pthread_join(t[0], NULL);
	sigaction(SIGUSR1, &old, NULL);
	if (atomic_load(&fresult[0]) != -EINTR)
		FAIL("futex_eintr", "wait ended with %d", atomic_load(&fresult[0]));
	pass("futex_eintr");
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--exec-child") == 0)
		return exec_child(argv[2]);
	self_path = "/proc/self/exe";
	if (argc > 1)
		io_path = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_clone_flags();
	test_mutex_sum();
	test_cond_broadcast();
	test_join_ids();
	test_process_signal();
	test_tgkill();
	test_alarm_leader_gone();
	test_exit_group();
	test_leader_exits_first();
	test_io_and_compute();
	test_two_cpus();
	test_fork_from_thread();
	test_exec_from_thread();
	test_kill_sleepers();
	test_futex_errors();
	test_futex_wake_count();
	test_futex_bitset();
	test_futex_eintr();
	test_robust_mutex();
	test_aio_destroy_sleeper();
	return test_summary();
}
