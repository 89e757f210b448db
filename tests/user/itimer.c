// SPDX-License-Identifier: MIT
/*
 * itimer [case] - the process's real-time timer: alarm(37),
 * setitimer(38) and getitimer(36) with ITIMER_REAL, and the SIGALRM it
 * sends (docs/processes.md, "Interval timers").  The same program passes
 * on Linux (tests/user/run.sh), which is the oracle for every answer.
 *
 *   alarm_return     alarm's return: 0 with none pending, else the
 *                    seconds left rounded to nearest, 1 (never 0) for a
 *                    pending one under half a second
 *   alarm_pause      SIGALRM comes once, at least a second after
 *                    alarm(1), and ends pause() with EINTR
 *   alarm_read       ... and a read of an empty pipe with EINTR
 *   interval         it_interval re-arms: three signals, the third no
 *                    sooner than three periods; getitimer shows the period
 *   countdown        getitimer's it_value counts down and never exceeds
 *                    what was set; setitimer's old value is the previous
 *   fork_child       fork's child has no timer; the parent keeps its own
 *   exec_keeps       execve keeps the timer
 *   exit_pending     200 children exit with a 1 ms periodic timer
 *                    running: each exits normally, the kernel stays up
 *   errors           EINVAL for a bad timeval or timer, EFAULT for a bad
 *                    pointer (a bad old-value pointer still sets the
 *                    timer); a NULL new value disarms
 *
 * Time: only orderings and generous bounds are asserted ("at least 1 s
 * after"), never a measured figure, so a slow host cannot fail a case.
 * Raw system calls (syscall()) so that the C library adds nothing.
 */
#include <signal.h>
#include <time.h>
#include <sys/wait.h>
#include <asm/unistd_64.h> /* raw syscall() numbers */
#include "hostile.h"

#define ITIMER_REAL 0

struct ktimeval {
	long tv_sec;
	long tv_usec;
};
struct kitimerval {
	struct ktimeval it_interval;
	struct ktimeval it_value;
};

static char *self;                      /* argv[0], for exec_keeps */
static volatile int alarms;             /* SIGALRMs taken */

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static long sys_alarm(unsigned int s) { return syscall(__NR_alarm, (long)s); }
static long sys_setitimer(long which, const void *v, void *ov)
{
	return syscall(__NR_setitimer, which, (long)v, (long)ov);
}
static long sys_getitimer(long which, void *v) { return syscall(__NR_getitimer, which, (long)v); }

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static long long tv_us(const struct ktimeval *tv)
{
	return tv->tv_sec * 1000000LL + tv->tv_usec;
}

/* Arm ITIMER_REAL for value_us, then every interval_us */
static long arm(long long value_us, long long interval_us)
{
	struct kitimerval v = {
		.it_interval = { interval_us / 1000000, interval_us % 1000000 },
		.it_value = { value_us / 1000000, value_us % 1000000 },
	};

	return sys_setitimer(ITIMER_REAL, &v, NULL);
}

static void catch_alarm(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };

	alarms = 0;
	sigaction(SIGALRM, &sa, NULL);
}

/* Each answer holds unless the process stalls for 0.4 s between two
 * calls; a SIGALRM that came all the same is caught, and fails a check
 * instead of killing the program. */
static void t_alarm_return(void)
{
	catch_alarm();
	CHECK(sys_alarm(0) == 0);
	CHECK(sys_alarm(5) == 0);
	CHECK_MSG(sys_alarm(3) == 5, "5 s alarm, then alarm(3)");
	CHECK(sys_alarm(0) == 3);
	CHECK(sys_alarm(0) == 0);
	/* the remainder rounds to nearest; a pending one is never 0 */
	CHECK(arm(1400000, 0) == 0);
	CHECK_MSG(sys_alarm(0) == 1, "1.4 s left");
	CHECK(arm(2900000, 0) == 0);
	CHECK_MSG(sys_alarm(0) == 3, "2.9 s left");
	CHECK(arm(450000, 0) == 0);
	CHECK_MSG(sys_alarm(0) == 1, "0.45 s left");
	CHECK(alarms == 0);
}

static void t_alarm_pause(void)
{
	struct kitimerval cur;
	long long t0;
	long r;

	catch_alarm();
	t0 = now_us();
	CHECK(sys_alarm(1) == 0);
	errno = 0;
	r = syscall(__NR_pause);
	CHECK(r == -1 && errno == EINTR);
	CHECK_MSG(alarms == 1, "%d SIGALRMs", alarms);
	CHECK_MSG(now_us() - t0 >= 1000000, "woken after %lld us", now_us() - t0);
	/* spent: disarmed, nothing more comes */
	CHECK(sys_getitimer(ITIMER_REAL, &cur) == 0);
	CHECK(tv_us(&cur.it_value) == 0 && tv_us(&cur.it_interval) == 0);
	CHECK(sys_alarm(0) == 0);
	CHECK(alarms == 1);
}

static void t_alarm_read(void)
{
	int fds[2];
	char c;
	long long t0;
	ssize_t n;

	catch_alarm();
	CHECK(pipe(fds) == 0);
	t0 = now_us();
	CHECK(sys_alarm(1) == 0);
	errno = 0;
	n = read(fds[0], &c, 1);
	CHECK(n == -1 && errno == EINTR);
	CHECK_MSG(alarms == 1, "%d SIGALRMs", alarms);
	CHECK(now_us() - t0 >= 1000000);
	close(fds[0]);
	close(fds[1]);
}

static void t_interval(void)
{
	struct kitimerval cur;
	long long t0, t3;

	catch_alarm();
	t0 = now_us();
	CHECK(arm(100000, 100000) == 0);
	CHECK(sys_getitimer(ITIMER_REAL, &cur) == 0);
	CHECK(cur.it_interval.tv_sec == 0 && cur.it_interval.tv_usec == 100000);
	while (alarms < 3)
		syscall(__NR_pause);
	t3 = now_us();
	CHECK(arm(0, 0) == 0);
	CHECK_MSG(t3 - t0 >= 300000, "3 periods of 100 ms in %lld us", t3 - t0);
	/* disarming a periodic timer stops it */
	CHECK(sys_getitimer(ITIMER_REAL, &cur) == 0);
	CHECK(tv_us(&cur.it_value) == 0 && tv_us(&cur.it_interval) == 0);
}

static void t_countdown(void)
{
	struct kitimerval a, b, old;
	struct timespec pause_20ms = { 0, 20000000 };

	CHECK(arm(10000000, 0) == 0);
	CHECK(sys_getitimer(ITIMER_REAL, &a) == 0);
	CHECK(tv_us(&a.it_value) > 0 && tv_us(&a.it_value) <= 10000000);
	CHECK(a.it_value.tv_usec >= 0 && a.it_value.tv_usec < 1000000);
	CHECK(tv_us(&a.it_interval) == 0);
	nanosleep(&pause_20ms, NULL);
	CHECK(sys_getitimer(ITIMER_REAL, &b) == 0);
	CHECK_MSG(tv_us(&b.it_value) <= tv_us(&a.it_value) - 20000,
		  "%lld us left, then %lld us 20 ms later", tv_us(&a.it_value),
		  tv_us(&b.it_value));
	/* the old value: what was left of the 10 s one, and its period */
	struct kitimerval v = { { 0, 0 }, { 20, 0 } };
	CHECK(sys_setitimer(ITIMER_REAL, &v, &old) == 0);
	CHECK(tv_us(&old.it_value) > 0 && tv_us(&old.it_value) <= tv_us(&b.it_value));
	CHECK(tv_us(&old.it_interval) == 0);
	CHECK(sys_alarm(0) == 20);
}

static void t_fork_child(void)
{
	int status;
	pid_t pid;

	CHECK(sys_alarm(10) == 0);
	pid = fork();
	if (pid == 0) {
		struct kitimerval cur;

		if (sys_getitimer(ITIMER_REAL, &cur) || tv_us(&cur.it_value) ||
		    sys_alarm(0) != 0)
			_exit(1);
		_exit(0);
	}
	CHECK(pid > 0);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child has a timer");
	CHECK_MSG(sys_alarm(0) == 10, "the parent's alarm");
}

/* exec_keeps' other half: the timer set before execve is still there */
static int exec_child(void)
{
	struct kitimerval cur;

	if (sys_getitimer(ITIMER_REAL, &cur))
		return 2;
	return tv_us(&cur.it_value) > 0 && tv_us(&cur.it_value) <= 30000000 &&
	       sys_alarm(0) > 0 ? 0 : 1;
}

static void t_exec_keeps(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		char *argv[] = { self, "--exec-child", NULL };
		char *envp[] = { NULL };

		sys_alarm(30);
		execve(self, argv, envp);
		_exit(3);
	}
	CHECK(pid > 0);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "the exec'd child's status %#x", status);
}

static void t_exit_pending(void)
{
	for (int i = 0; i < 200 && !hostile_failed_now; i++) {
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			signal(SIGALRM, SIG_IGN);
			arm(1000, 1000);
			/* exit at varying points of the period */
			for (volatile int spin = 0; spin < i * 500; spin++)
				;
			_exit(7);
		}
		CHECK(pid > 0);
		CHECK(waitpid(pid, &status, 0) == pid);
		CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 7,
			  "child %d: status %#x", i, status);
	}
}

static void t_errors(void)
{
	struct kitimerval v = { { 0, 0 }, { 0, 0 } }, cur;
	void *bad = (void *)1;

	v.it_value.tv_usec = 1000000;
	CHECK_ERR(sys_setitimer(ITIMER_REAL, &v, NULL), EINVAL);
	v.it_value.tv_usec = -1;
	CHECK_ERR(sys_setitimer(ITIMER_REAL, &v, NULL), EINVAL);
	v.it_value.tv_usec = 0;
	v.it_value.tv_sec = -1;
	CHECK_ERR(sys_setitimer(ITIMER_REAL, &v, NULL), EINVAL);
	v.it_value.tv_sec = 5;
	v.it_interval.tv_usec = 1000000;
	CHECK_ERR(sys_setitimer(ITIMER_REAL, &v, NULL), EINVAL);
	v.it_interval.tv_usec = 0;
	CHECK_ERR(sys_setitimer(99, &v, NULL), EINVAL);
	CHECK_ERR(sys_setitimer(-1, &v, NULL), EINVAL);
	CHECK_ERR(sys_getitimer(99, &cur), EINVAL);
	/* none of those armed anything */
	CHECK(sys_alarm(0) == 0);
	CHECK_ERR(sys_setitimer(ITIMER_REAL, bad, NULL), EFAULT);
	CHECK_ERR(sys_getitimer(ITIMER_REAL, bad), EFAULT);
	/* a bad old-value pointer: EFAULT, but the new value is set */
	CHECK_ERR(sys_setitimer(ITIMER_REAL, &v, bad), EFAULT);
	CHECK_MSG(sys_alarm(0) == 5, "the timer set despite EFAULT");
	/* NULL new value: disarms, as a zero one; the old value comes back */
	CHECK(sys_alarm(5) == 0);
	CHECK(sys_setitimer(ITIMER_REAL, NULL, &cur) == 0);
	CHECK(tv_us(&cur.it_value) > 0 && tv_us(&cur.it_value) <= 5000000);
	CHECK(sys_alarm(0) == 0);
}

static const struct hostile_case cases[] = {
	{ "alarm_return", t_alarm_return },
	{ "alarm_pause", t_alarm_pause },
	{ "alarm_read", t_alarm_read },
	{ "interval", t_interval },
	{ "countdown", t_countdown },
	{ "fork_child", t_fork_child },
	{ "exec_keeps", t_exec_keeps },
	{ "exit_pending", t_exit_pending },
	{ "errors", t_errors },
};

int main(int argc, char **argv)
{
	self = argv[0];
	if (argc > 1 && !strcmp(argv[1], "--exec-child"))
		return exec_child();
	return hostile_run("itimer", cases, sizeof(cases) / sizeof(cases[0]),
			   argc > 1 ? argv[1] : NULL);
}
