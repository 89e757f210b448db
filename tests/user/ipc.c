// SPDX-License-Identifier: MIT
/*
 * ipc - what fio needs from the kernel besides I/O: memory shared
 * between processes (MAP_SHARED | MAP_ANONYMOUS, System V shm, a mapped
 * tmpfs file), process-shared pthread mutexes and condition variables
 * on it (futexes keyed on the memory, not the address space), timerfd,
 * getrusage, nice and the NUMA policy calls, and libaio's view of an aio
 * context id (an address it reads).
 *
 * Built against the host's glibc (gcc -static -pthread, user/user.mk);
 * the same binary passes on the host's Linux (tests/user/run.sh), the
 * oracle for every value and errno checked here.  Nothing is decided by
 * timing: a timer case waits for its expiry with poll() and then counts
 * at least one, a CPU-time case spins until the time shows.
 *
 *   ipc DIR [CASE]   DIR: a tmpfs directory for the mapped-file case
 *
 * Prints "TEST ipc.<case> PASS" or "... FAIL: <why>", then
 * "<N> passed, <M> failed"; exits 0 only if nothing failed.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include "hostile.h"

#define PAGE    4096

static const char *dir;

/* Run fn in a child; its exit status (128 + signal if it died of one). */
static int in_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(fn(arg));
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

static int child_fill(void *p)
{
	memset(p, 0x5a, 3 * PAGE);
	return 0;
}

/* fork's child writes the shared pages; the parent sees every byte, and
 * a private mapping beside them stays the parent's own */
static void t_shared_anon_fork(void)
{
	unsigned char *p = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	unsigned char *q = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int bad = 0;

	CHECK(p != MAP_FAILED && q != MAP_FAILED);
	if (p == MAP_FAILED || q == MAP_FAILED)
		return;
	CHECK(p[0] == 0 && p[3 * PAGE - 1] == 0);       /* zero-filled */
	CHECK(in_child(child_fill, p) == 0);
	for (int i = 0; i < 3 * PAGE; i++)
		bad += p[i] != 0x5a;
	CHECK_MSG(!bad, "%d bytes of the shared pages not the child's", bad);
	memset(q, 1, 3 * PAGE);
	CHECK(in_child(child_fill, q) == 0);    /* the child's own copy */
	CHECK(q[0] == 1 && q[3 * PAGE - 1] == 1);
	munmap(p, 3 * PAGE);
	munmap(q, 3 * PAGE);
}

/* Two processes take turns through a PTHREAD_PROCESS_SHARED mutex and
 * condition variable in shared anonymous memory: each waits for its
 * turn, so ROUNDS handovers need every wake-up across the processes to
 * reach the other one's futex. */
#define ROUNDS  200
struct pingpong {
	pthread_mutex_t m;
	pthread_cond_t c;
	int turn, count;
};

static int pingpong_side(struct pingpong *pp, int me)
{
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&pp->m);
		while (pp->turn != me)
			pthread_cond_wait(&pp->c, &pp->m);
		pp->count++;
		pp->turn = !me;
		pthread_cond_broadcast(&pp->c);
		pthread_mutex_unlock(&pp->m);
	}
	return 0;
}

static int pingpong_child(void *arg)
{
	return pingpong_side(arg, 1);
}

static void t_process_shared_futex(void)
{
	struct pingpong *pp = mmap(NULL, sizeof(*pp), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pid_t pid;
	int st;

	CHECK(pp != MAP_FAILED);
	if (pp == MAP_FAILED)
		return;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&pp->m, &ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_cond_init(&pp->c, &ca);
	pid = fork();
	if (pid == 0)
		_exit(pingpong_child(pp));
	pingpong_side(pp, 0);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_MSG(pp->count == 2 * ROUNDS, "%d handovers, not %d", pp->count, 2 * ROUNDS);
	munmap(pp, sizeof(*pp));
}

static int shm_nattch(int id)
{
	struct shmid_ds ds;

	return shmctl(id, IPC_STAT, &ds) ? -1 : (int)ds.shm_nattch;
}

static int shm_child(void *arg)
{
	int id = *(int *)arg;
	char *p;

	/* the attachment came with fork; a second one maps it again */
	if (shm_nattch(id) != 2)
		return 10;
	p = shmat(id, NULL, 0);
	if (p == (void *)-1 || shm_nattch(id) != 3)
		return 11;
	strcpy(p + 5000, "from the child");
	return shmdt(p) ? 12 : 0;
}

/* System V shm, as fio keeps its jobs' state: a private segment, its
 * attach count through fork and shmdt, data seen across processes, and
 * IPC_RMID letting it go with the last detach */
static void t_shm_private(void)
{
	struct shmid_ds ds;
	int id = shmget(IPC_PRIVATE, 10000, IPC_CREAT | 0600), st;
	char *p;

	CHECK(id >= 0);
	if (id < 0)
		return;
	CHECK(shm_nattch(id) == 0);
	p = shmat(id, NULL, 0);
	CHECK(p != (void *)-1);
	if (p == (void *)-1)
		goto out;
	CHECK(((uintptr_t)p & (PAGE - 1)) == 0);
	CHECK(shmctl(id, IPC_STAT, &ds) == 0);
	CHECK(ds.shm_segsz == 10000 && ds.shm_nattch == 1);
	CHECK((ds.shm_perm.mode & 0777) == 0600);
	CHECK(ds.shm_cpid == getpid() && ds.shm_lpid == getpid());
	CHECK(ds.shm_atime > 0 && ds.shm_ctime > 0);
	CHECK(p[0] == 0 && p[9999] == 0);
	st = in_child(shm_child, &id);
	CHECK_MSG(st == 0, "child status %d", st);
	CHECK(strcmp(p + 5000, "from the child") == 0);
	CHECK(shm_nattch(id) == 1);
	ds.shm_perm.mode = 0640;
	CHECK(shmctl(id, IPC_SET, &ds) == 0);
	CHECK(shmctl(id, IPC_STAT, &ds) == 0 && (ds.shm_perm.mode & 0777) == 0640);
	CHECK(shmdt(p) == 0);
	CHECK(shm_nattch(id) == 0);
	CHECK_ERR(shmdt(p), EINVAL);            /* nothing attached there now */
out:
	CHECK(shmctl(id, IPC_RMID, NULL) == 0);
	CHECK_ERR(shmctl(id, IPC_STAT, &ds), EINVAL);
	CHECK_ERR(shmat(id, NULL, 0), EINVAL);
}

/* A key names one segment: IPC_EXCL, a size larger than the segment,
 * a key nobody created, and the key free again after IPC_RMID */
static void t_shm_key(void)
{
	key_t key = 0x5e1d0000 + (getpid() & 0xffff);
	int id = shmget(key, 8192, IPC_CREAT | IPC_EXCL | 0600);

	CHECK(id >= 0);
	if (id < 0)
		return;
	CHECK_ERR(shmget(key, 8192, IPC_CREAT | IPC_EXCL | 0600), EEXIST);
	CHECK(shmget(key, 0, 0) == id);
	CHECK(shmget(key, 4096, IPC_CREAT | 0600) == id);
	CHECK_ERR(shmget(key, 8193, 0), EINVAL);
	CHECK(shmctl(id, IPC_RMID, NULL) == 0);
	CHECK_ERR(shmget(key, 0, 0), ENOENT);
	CHECK_ERR(shmget(IPC_PRIVATE, 0, IPC_CREAT | 0600), EINVAL);
}

static int shm_write_rdonly(void *arg)
{
	char *p = shmat(*(int *)arg, NULL, SHM_RDONLY);

	if (p == (void *)-1)
		return 20;
	if (p[0] != 0)
		return 21;
	*(volatile char *)p = 1;        /* SIGSEGV */
	return 22;
}

/* Bad ids, addresses and commands; SHM_RDONLY really read-only; an
 * address given with SHM_RND, and SHM_REMAP needed over a mapping */
static void t_shm_errors(void)
{
	int id = shmget(IPC_PRIVATE, PAGE, IPC_CREAT | 0600);
	char *fixed, *p;

	CHECK(id >= 0);
	if (id < 0)
		return;
	CHECK_ERR(shmat(id + 1000000, NULL, 0), EINVAL);
	CHECK_ERR(shmat(-1, NULL, 0), EINVAL);
	CHECK_ERR(shmctl(id, 12345, NULL), EINVAL);
	CHECK_ERR(shmdt((void *)&id), EINVAL);
	CHECK(in_child(shm_write_rdonly, &id) == 128 + SIGSEGV);
	fixed = mmap(NULL, 2 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(fixed != MAP_FAILED);
	CHECK_ERR(shmat(id, fixed + 1, 0), EINVAL);     /* unaligned */
	CHECK_ERR(shmat(id, fixed, 0), EINVAL);         /* mapped already */
	p = shmat(id, fixed + 1, SHM_RND | SHM_REMAP);
	CHECK(p == fixed);
	if (p == fixed) {
		p[10] = 7;                              /* writable now */
		CHECK(shmdt(p) == 0);
	}
	munmap(fixed, 2 * PAGE);
	CHECK(shmctl(id, IPC_RMID, NULL) == 0);
}

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

static int tmpfs_child(void *arg)
{
	char *p = arg;

	if (strcmp(p, "written by write()"))
		return 30;
	strcpy(p + PAGE, "written through the child's mapping");
	return 0;
}

/* A tmpfs file mapped MAP_SHARED: what write() put there, what the
 * mapping writes seen by read() and by another process, and SIGBUS
 * past the end after a truncate */
static void t_tmpfs_mmap(void)
{
	char path[256], buf[64];
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	volatile int bused = 0;
	int fd;
	char *p;

	snprintf(path, sizeof(path), "%s/ipc-mmap.%d", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	unlink(path);
	CHECK(pwrite(fd, "written by write()", 19, 0) == 19);
	CHECK(ftruncate(fd, 3 * PAGE) == 0);
	p = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	if (p == MAP_FAILED)
		goto out;
	CHECK(in_child(tmpfs_child, p) == 0);
	CHECK(pread(fd, buf, 36, PAGE) == 36 &&
	      !memcmp(buf, "written through the child's mapping", 36));
	strcpy(p + 2 * PAGE, "late");
	CHECK(ftruncate(fd, PAGE) == 0);
	sigaction(SIGBUS, &sa, &old);
	if (!sigsetjmp(bus_jmp, 1))
		(void)*(volatile char *)(p + 2 * PAGE);
	else
		bused = 1;
	sigaction(SIGBUS, &old, NULL);
	CHECK_MSG(bused, "no SIGBUS past the end after truncate");
	CHECK(ftruncate(fd, 3 * PAGE) == 0);
	CHECK(p[2 * PAGE] == 0);                /* the page came back zeroed */
	CHECK(strcmp(p, "written by write()") == 0);
	munmap(p, 3 * PAGE);
out:
	close(fd);
}

/* A tmpfs file, made in dir and unlinked, of `pages` pages: its fd. */
static int tmpfs_file(const char *tag, int pages)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/ipc-%s.%d", dir, tag, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	unlink(path);
	if (ftruncate(fd, (off_t)pages * PAGE) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* read() and write() of a tmpfs file whose buffer is a mapping of that
 * same file, on pages not yet touched: the copy faults the file's own
 * pages in, and both calls copy everything (no EFAULT) */
static void t_tmpfs_copy_self(void)
{
	char want[100];
	char *p;
	int fd = tmpfs_file("self", 4);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	memset(want, 'x', sizeof(want));
	CHECK(pwrite(fd, want, sizeof(want), 0) == (ssize_t)sizeof(want));
	memset(want, 'y', sizeof(want));
	CHECK(pwrite(fd, want, sizeof(want), 2 * PAGE) == (ssize_t)sizeof(want));
	p = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	if (p == MAP_FAILED)
		goto out;
	/* file page 0 into the mapping's page 1 (= file page 1) */
	CHECK(pread(fd, p + PAGE, 100, 0) == 100);
	CHECK(p[PAGE] == 'x' && p[PAGE + 99] == 'x');
	/* the mapping's page 2 (file page 2) into file page 3 */
	CHECK(pwrite(fd, p + 2 * PAGE, 100, 3 * PAGE) == 100);
	CHECK(p[3 * PAGE] == 'y' && p[3 * PAGE + 99] == 'y');
	munmap(p, 4 * PAGE);
out:
	close(fd);
}

#define CROSS_ROUNDS 1000

/* Read file `from` into a fresh mapping of file `into`, `rounds` times:
 * every read's copy faults a page of the other file in. */
static int cross_reads(int from, int into, int rounds)
{
	for (int i = 0; i < rounds; i++) {
		char *m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, into, 0);

		if (m == MAP_FAILED)
			return 1;
		if (pread(from, m, PAGE, 0) != PAGE || pwrite(into, m, 1, 1) != 1)
			return 2;
		munmap(m, PAGE);
	}
	return 0;
}

static int fd_a, fd_b;

static int cross_child(void *unused)
{
	(void)unused;
	return cross_reads(fd_a, fd_b, CROSS_ROUNDS);
}

/* Two processes copying crosswise between two tmpfs files, each through
 * a fresh mapping of the other file: a kernel that holds one file's lock
 * while the copy faults the other's in can deadlock here; Linux does not,
 * and both finish */
static void t_tmpfs_copy_crosswise(void)
{
	fd_a = tmpfs_file("cross-a", 1);
	fd_b = tmpfs_file("cross-b", 1);
	CHECK(fd_a >= 0 && fd_b >= 0);
	if (fd_a >= 0 && fd_b >= 0) {
		pid_t pid = fork();
		int st = -1, mine;

		if (pid == 0)
			_exit(cross_child(NULL));
		mine = cross_reads(fd_b, fd_a, CROSS_ROUNDS);
		CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
		CHECK_MSG(mine == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
			  "parent %d, child status %#x", mine, st);
	}
	if (fd_a >= 0)
		close(fd_a);
	if (fd_b >= 0)
		close(fd_b);
}

/* timerfd: a relative expiry, one in the past with TFD_TIMER_ABSTIME,
 * a period, TFD_NONBLOCK before any expiry, and Linux's errnos */
static void t_timerfd(void)
{
	struct itimerspec its = { .it_value = { 0, 20 * 1000 * 1000 } }, cur;
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t n = 0;
	struct timespec now;
	int pipefd[2], rt;
	uint32_t small;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(fcntl(fd, F_GETFD) == FD_CLOEXEC);
	CHECK_ERR(read(fd, &n, sizeof(n)), EAGAIN);     /* disarmed */
	CHECK(timerfd_gettime(fd, &cur) == 0 && cur.it_value.tv_sec == 0 &&
	      cur.it_value.tv_nsec == 0);
	CHECK(timerfd_settime(fd, 0, &its, NULL) == 0);
	CHECK(timerfd_gettime(fd, &cur) == 0 && cur.it_value.tv_sec == 0 &&
	      cur.it_value.tv_nsec > 0 && cur.it_value.tv_nsec <= 20 * 1000 * 1000);
	CHECK_ERR(read(fd, &n, sizeof(n)), EAGAIN);     /* not yet */
	CHECK(poll(&pfd, 1, 10000) == 1 && (pfd.revents & POLLIN));
	CHECK(read(fd, &n, sizeof(n)) == sizeof(n) && n == 1);
	CHECK_ERR(read(fd, &n, sizeof(n)), EAGAIN);     /* read resets */
	/* CLOCK_REALTIME, absolute: a second ago has passed already, and
	 * 20 ms from now comes (a blocking read waits for it) */
	rt = timerfd_create(CLOCK_REALTIME, 0);
	CHECK(rt >= 0);
	clock_gettime(CLOCK_REALTIME, &now);
	its.it_value = (struct timespec){ now.tv_sec - 1, now.tv_nsec };
	CHECK(timerfd_settime(rt, TFD_TIMER_ABSTIME, &its, NULL) == 0);
	CHECK(read(rt, &n, sizeof(n)) == sizeof(n) && n == 1);
	its.it_value = now;
	its.it_value.tv_nsec += 20 * 1000 * 1000;
	if (its.it_value.tv_nsec >= 1000000000) {
		its.it_value.tv_sec++;
		its.it_value.tv_nsec -= 1000000000;
	}
	CHECK(timerfd_settime(rt, TFD_TIMER_ABSTIME, &its, NULL) == 0);
	CHECK(read(rt, &n, sizeof(n)) == sizeof(n) && n == 1);
	clock_gettime(CLOCK_REALTIME, &now);
	CHECK(now.tv_sec > its.it_value.tv_sec ||
	      (now.tv_sec == its.it_value.tv_sec && now.tv_nsec >= its.it_value.tv_nsec));
	close(rt);
	/* a period: at least two expiries counted by one read */
	its.it_value = (struct timespec){ 0, 1000 * 1000 };
	its.it_interval = (struct timespec){ 0, 1000 * 1000 };
	pfd.revents = 0;
	CHECK(timerfd_settime(fd, 0, &its, NULL) == 0);
	for (int i = 0; i < 2; i++)
		CHECK(poll(&pfd, 1, 10000) == 1 && read(fd, &n, sizeof(n)) == sizeof(n) && n >= 1);
	CHECK(timerfd_gettime(fd, &cur) == 0 && cur.it_interval.tv_nsec == 1000 * 1000);
	its = (struct itimerspec){ 0 };
	CHECK(timerfd_settime(fd, 0, &its, &cur) == 0 && cur.it_interval.tv_nsec == 1000 * 1000);
	/* errors */
	CHECK_ERR(read(fd, &small, sizeof(small)), EINVAL);
	its.it_value.tv_nsec = 1000000000;
	CHECK_ERR(timerfd_settime(fd, 0, &its, NULL), EINVAL);
	its.it_value.tv_nsec = 0;
	CHECK_ERR(timerfd_settime(fd, 0x40, &its, NULL), EINVAL);
	CHECK_ERR(timerfd_create(12345, 0), EINVAL);
	CHECK_ERR(timerfd_create(CLOCK_MONOTONIC, 0x1), EINVAL);
	CHECK_ERR(timerfd_settime(-1, 0, &its, NULL), EBADF);
	CHECK(pipe(pipefd) == 0);
	CHECK_ERR(timerfd_settime(pipefd[0], 0, &its, NULL), EINVAL);
	CHECK_ERR(timerfd_gettime(pipefd[0], &cur), EINVAL);
	close(pipefd[0]);
	close(pipefd[1]);
	close(fd);
}

static long used_us(const struct rusage *ru)
{
	return (ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000L +
	       ru->ru_utime.tv_usec + ru->ru_stime.tv_usec;
}

/* Spin until this process has used ms of CPU (getrusage says so). */
static int spin_ms(int ms)
{
	struct rusage ru;
	time_t start = time(NULL);

	do {
		if (getrusage(RUSAGE_SELF, &ru))
			return 40;
		if (time(NULL) - start > 60)
			return 41;      /* the time never showed */
	} while (used_us(&ru) < ms * 1000L);
	return 0;
}

static int spin_child(void *arg)
{
	(void)arg;
	return spin_ms(30);
}

/* getrusage: the process's own time grows, a reaped child's becomes
 * RUSAGE_CHILDREN's and wait4's */
static void t_getrusage(void)
{
	struct rusage self, thread, children, waited;
	pid_t pid;
	int st;

	CHECK(spin_ms(10) == 0);
	CHECK(getrusage(RUSAGE_SELF, &self) == 0 && used_us(&self) >= 10000);
	CHECK(getrusage(RUSAGE_THREAD, &thread) == 0 && used_us(&thread) >= 10000);
	CHECK(self.ru_maxrss > 0);
	CHECK(getrusage(RUSAGE_CHILDREN, &children) == 0);
	pid = fork();
	if (pid == 0)
		_exit(spin_child(NULL));
	CHECK(wait4(pid, &st, 0, &waited) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_MSG(used_us(&waited) >= 30000, "wait4's rusage: %ld us", used_us(&waited));
	{
		struct rusage after;

		CHECK(getrusage(RUSAGE_CHILDREN, &after) == 0);
		CHECK_MSG(used_us(&after) - used_us(&children) >= 30000,
			  "RUSAGE_CHILDREN grew by %ld us", used_us(&after) - used_us(&children));
	}
	CHECK_ERR(getrusage(5, &self), EINVAL);
	CHECK_ERR(syscall(SYS_getrusage, RUSAGE_SELF, (void *)8), EFAULT);
}

static int nice_child(void *arg)
{
	(void)arg;
	errno = 0;
	return getpriority(PRIO_PROCESS, 0) == 5 && errno == 0 ? 0 : 50;
}

/* nice values: set, read back, inherited by fork, in /proc/<pid>/stat */
static void t_nice(void)
{
	char text[512], *s;
	int prio = -100, nice_field = -100;

	/* from 0, whatever the runner's was (nice make check on the host) */
	CHECK(setpriority(PRIO_PROCESS, 0, 0) == 0);
	errno = 0;
	CHECK(nice(0) == 0 && errno == 0);
	CHECK(setpriority(PRIO_PROCESS, 0, 5) == 0);
	errno = 0;
	CHECK(getpriority(PRIO_PROCESS, 0) == 5 && errno == 0);
	CHECK(getpriority(PRIO_PROCESS, getpid()) == 5);
	CHECK(in_child(nice_child, NULL) == 0);
	if (read_text("/proc/self/stat", text, sizeof(text)) > 0 && (s = strrchr(text, ')'))) {
		/* fields 18 and 19, counted from field 3 after the name */
		s += 2;
		for (int f = 3; f < 18 && s; f++)
			s = strchr(s, ' ') ? strchr(s, ' ') + 1 : NULL;
		if (s)
			sscanf(s, "%d %d", &prio, &nice_field);
	}
	CHECK_MSG(prio == 25 && nice_field == 5, "/proc/self/stat: priority %d nice %d",
		  prio, nice_field);
	CHECK(setpriority(PRIO_PROCESS, 0, 0) == 0);    /* root may lower it */
	CHECK(getpriority(PRIO_PROCESS, 0) == 0);
	CHECK(setpriority(PRIO_PROCESS, 0, 100) == 0);  /* clamped */
	CHECK(getpriority(PRIO_PROCESS, 0) == 19);
	CHECK(setpriority(PRIO_PROCESS, 0, 0) == 0);
	CHECK_ERR(getpriority(7, 0), EINVAL);
	CHECK_ERR(setpriority(PRIO_PROCESS, 0x3fffffff, 0), ESRCH);
}

#define MPOL_DEFAULT_       0
#define MPOL_BIND_          2
#define MPOL_F_MEMS_ALLOWED_ 4

/* The NUMA policy calls on a machine of one node */
static void t_mempolicy(void)
{
	unsigned long mask[2] = { 0 };
	int mode = -1;

	CHECK(syscall(SYS_get_mempolicy, &mode, mask, 128, 0, 0) == 0);
	CHECK(mode == MPOL_DEFAULT_ && mask[0] == 0);
	CHECK(syscall(SYS_get_mempolicy, &mode, mask, 128, 0, MPOL_F_MEMS_ALLOWED_) == 0);
	CHECK(mask[0] == 1);
	mask[0] = 1;
	CHECK(syscall(SYS_set_mempolicy, MPOL_BIND_, mask, 65) == 0);
	CHECK(syscall(SYS_get_mempolicy, &mode, mask, 128, 0, 0) == 0);
	CHECK(mode == MPOL_BIND_ && mask[0] == 1);
	mask[0] = 2;                                    /* node 1: none */
	CHECK_ERR(syscall(SYS_set_mempolicy, MPOL_BIND_, mask, 65), EINVAL);
	mask[0] = 0;
	CHECK_ERR(syscall(SYS_set_mempolicy, MPOL_BIND_, mask, 65), EINVAL);
	mask[0] = 1;
	CHECK_ERR(syscall(SYS_set_mempolicy, MPOL_DEFAULT_, mask, 65), EINVAL);
	CHECK_ERR(syscall(SYS_set_mempolicy, 77, NULL, 0), EINVAL);
	CHECK(syscall(SYS_set_mempolicy, MPOL_DEFAULT_, NULL, 0) == 0);
	CHECK(syscall(SYS_get_mempolicy, &mode, NULL, 0, 0, 0) == 0 && mode == MPOL_DEFAULT_);
	CHECK_ERR(syscall(SYS_get_mempolicy, &mode, mask, 0, 0, 0), EINVAL);
	CHECK_ERR(syscall(SYS_get_mempolicy, &mode, NULL, 0, 0, 0x80), EINVAL);
}

/* libaio reads the page an aio context id points at (its ring header)
 * before it calls io_getevents: the id must be a readable address */
static void t_aio_ctx_mapped(void)
{
	unsigned long ctx = 0;
	const uint32_t *ring;

	CHECK(syscall(SYS_io_setup, 8, &ctx) == 0);
	ring = (const uint32_t *)ctx;
	CHECK(ctx && (ctx & (PAGE - 1)) == 0);
	if (!ctx)
		return;
	CHECK_MSG(ring[7] == 32, "ring header_length %u", ring[7]);   /* sizeof(struct aio_ring) */
	CHECK(ring[2] == ring[3]);                                      /* head == tail: empty */
	CHECK(syscall(SYS_io_destroy, ctx) == 0);
	CHECK_ERR(syscall(SYS_io_destroy, ctx), EINVAL);
}

int main(int argc, char **argv)
{
	static const struct hostile_case cases[] = {
		{ "shared_anon_fork", t_shared_anon_fork },
		{ "process_shared_futex", t_process_shared_futex },
		{ "shm_private", t_shm_private },
		{ "shm_key", t_shm_key },
		{ "shm_errors", t_shm_errors },
		{ "tmpfs_mmap", t_tmpfs_mmap },
		{ "tmpfs_copy_self", t_tmpfs_copy_self },
		{ "tmpfs_copy_crosswise", t_tmpfs_copy_crosswise },
		{ "timerfd", t_timerfd },
		{ "getrusage", t_getrusage },
		{ "nice", t_nice },
		{ "mempolicy", t_mempolicy },
		{ "aio_ctx_mapped", t_aio_ctx_mapped },
	};

	if (argc < 2) {
		fprintf(stderr, "usage: ipc DIR [CASE]\n");
		return 2;
	}
	dir = argv[1];
	return hostile_run("ipc", cases, (int)(sizeof(cases) / sizeof(cases[0])),
			   argc > 2 ? argv[2] : NULL);
}
