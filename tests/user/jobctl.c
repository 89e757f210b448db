// SPDX-License-Identifier: MIT
/*
 * jobctl [case] - job control: stopping and continuing a process, and
 * what its parent learns of it (docs/processes.md, "Job control").
 *
 * Each case forks a child in a process group of its own -- as a shell
 * puts a job -- which then waits for commands on a pipe: 'p' asks it to
 * answer 'P' (it is running), anything else to exit.  The parent stops
 * and continues it with kill() and watches through waitpid(), SIGCHLD and
 * /proc/<pid>/stat.  No sleeps: every step waits for an event that must
 * come (a wait4 report, a byte on a pipe).
 *
 *   stop_sigstop       SIGSTOP: waitpid(WUNTRACED) says WIFSTOPPED with
 *                      SIGSTOP, once; /proc says T; SIGCONT: waitpid
 *                      (WCONTINUED) says WIFCONTINUED, once; it answers
 *   stop_sigtstp       the same with SIGTSTP (^Z's signal)
 *   kill_stopped       SIGKILL ends a stopped child: WIFSIGNALED, SIGKILL
 *   term_waits         SIGTERM to a stopped child waits for SIGCONT (it
 *                      stays stopped), then ends it
 *   tstp_handled       a SIGTSTP handler runs instead of the stop
 *   cont_handled       SIGCONT continues a stopped child and then runs
 *                      its SIGCONT handler
 *   cont_discards_stop a SIGCONT discards a SIGTSTP the child has blocked,
 *                      so unblocking it later stops nothing
 *   sigchld_on_stop    the parent gets SIGCHLD for the stop and for the
 *                      continue -- and none with SA_NOCLDSTOP
 *   orphaned_tstp      in an orphaned process group (the child made its
 *                      own session), SIGTSTP is discarded; SIGSTOP stops
 *   orphaned_on_exit   a process whose exit orphans a group with a stopped
 *                      member: the member gets SIGHUP and SIGCONT, and so
 *                      dies instead of waiting forever (POSIX)
 *   waitid_exit        waitid(P_PID, WEXITED): the siginfo of an exit and
 *                      of a kill (si_signo SIGCHLD, si_code CLD_EXITED /
 *                      CLD_KILLED, si_pid, si_uid, si_status); WNOWAIT
 *                      leaves the zombie for the next wait; then ECHILD
 *   waitid_jobctl      WSTOPPED and WCONTINUED: CLD_STOPPED with the
 *                      signal, CLD_CONTINUED with SIGCONT, once each (and
 *                      again under WNOWAIT); WNOHANG with nothing to report
 *                      returns 0 and a zeroed siginfo
 *   waitid_which       P_PGID finds the child by its group (0: ours, where
 *                      it is not), P_ALL any child; EINVAL for no event
 *                      flag, an unknown idtype, P_PID 0; ECHILD for a pid
 *                      that is not a child
 *   ttou_change        in a session holding a terminal (a pseudo-terminal
 *                      on Linux, the console on Spindle): a background
 *                      child that calls TCSETS, TCSETSW, TCSETSF or
 *                      TIOCSPGRP stops with SIGTTOU; TCGETS does not; a
 *                      write stops only with TOSTOP set
 *   ttou_ignored       with SIGTTOU ignored or blocked the same calls go
 *                      ahead (TIOCSPGRP moves the foreground; a shell
 *                      takes it back so)
 *   ttou_orphaned      in an orphaned group nothing could continue it:
 *                      TCSETS fails with EIO, TIOCSPGRP with ENOTTY
 *
 * The same binary runs on Linux (tests/user/run.sh): the oracle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include "hostile.h"

struct kid {
	pid_t pid;
	int to, from; /* pipe ends: commands to it, answers from it */
};

/* read one byte, again after an interruption (a stop and continue may
 * end a pipe read with EINTR where Linux restarts it) */
static int read_byte(int fd)
{
	char c;
	ssize_t n;

	while ((n = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	return n == 1 ? (unsigned char)c : -1;
}

static int write_byte(int fd, char c)
{
	ssize_t n;

	while ((n = write(fd, &c, 1)) < 0 && errno == EINTR)
		;
	return n == 1 ? 0 : -1;
}

static volatile int handled;
static int answer_fd = -1;

/* a handler that says it ran, on the answer pipe */
static void on_sig(int sig)
{
	handled = sig;
	if (answer_fd >= 0)
		write_byte(answer_fd, 'H');
}

static int catch_signal(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	return sigaction(sig, &sa, NULL);
}

/* how the child sets itself up before it says it is ready */
enum kid_setup {
	PLAIN,
	HANDLE_TSTP, /* a SIGTSTP handler */
	HANDLE_CONT, /* a SIGCONT handler */
	BLOCK_TSTP,  /* SIGTSTP blocked until told 'u' */
	NEW_SESSION, /* a session of its own: its group is orphaned */
};

/* The child: set up as asked, say 'R' (ready), then serve commands. */
static void kid_main(int in, int out, int how)
{
	sigset_t set;
	int c;

	answer_fd = out;
	if (how == HANDLE_TSTP)
		catch_signal(SIGTSTP, on_sig, 0);
	if (how == HANDLE_CONT)
		catch_signal(SIGCONT, on_sig, 0);
	if (how == NEW_SESSION && setsid() < 0)
		_exit(3);
	sigemptyset(&set);
	sigaddset(&set, SIGTSTP);
	if (how == BLOCK_TSTP)
		sigprocmask(SIG_BLOCK, &set, NULL);
	write_byte(out, 'R');
	while ((c = read_byte(in)) == 'p' || c == 'u') {
		if (c == 'u') /* unblock SIGTSTP: it acts now if pending */
			sigprocmask(SIG_UNBLOCK, &set, NULL);
		write_byte(out, 'P');
	}
	_exit(0);
}

static int kid_start(struct kid *k, int how)
{
	int down[2], up[2];

	if (pipe(down) < 0 || pipe(up) < 0)
		return -1;
	k->pid = fork();
	if (k->pid < 0)
		return -1;
	if (k->pid == 0) {
		close(down[1]);
		close(up[0]);
		if (how != NEW_SESSION)
			setpgid(0, 0); /* a job: a group of its own */
		kid_main(down[0], up[1], how);
	}
	if (how != NEW_SESSION)
		setpgid(k->pid, k->pid); /* whoever runs first, as a shell does */
	close(down[0]);
	close(up[1]);
	k->to = down[1];
	k->from = up[0];
	return read_byte(k->from) == 'R' ? 0 : -1;
}

/* Is the child running?  It answers a ping. */
static int kid_alive(struct kid *k)
{
	return write_byte(k->to, 'p') == 0 && read_byte(k->from) == 'P';
}

/* waitpid, again after EINTR (a SIGCHLD handler may interrupt it) */
static pid_t wait_kid(struct kid *k, int *st, int options)
{
	pid_t r;

	while ((r = waitpid(k->pid, st, options)) < 0 && errno == EINTR)
		;
	return r;
}

/* End the child and reap it: exit 0 if it was running, else it is killed */
static void kid_end(struct kid *k)
{
	int st;

	kill(k->pid, SIGKILL);
	close(k->to);
	close(k->from);
	wait_kid(k, &st, 0);
}

/* Stop the child with sig and check every sign of it. */
static void expect_stopped(struct kid *k, int sig)
{
	int st = 0;

	CHECK(wait_kid(k, &st, WUNTRACED) == k->pid);
	CHECK_MSG(WIFSTOPPED(st) && WSTOPSIG(st) == sig, "status %#x, want stopped by %d", st,
		  sig);
	CHECK_MSG(task_state(k->pid) == 'T', "/proc/%d/stat state %c", k->pid,
		  task_state(k->pid));
	/* reported once */
	CHECK(wait_kid(k, &st, WUNTRACED | WNOHANG) == 0);
}

/* Continue the child and check it reports so, once, and runs. */
static void expect_continued(struct kid *k)
{
	int st = 0;

	CHECK(kill(k->pid, SIGCONT) == 0);
	CHECK(wait_kid(k, &st, WCONTINUED) == k->pid);
	CHECK_MSG(WIFCONTINUED(st), "status %#x, want continued (0xffff)", st);
	CHECK(wait_kid(k, &st, WCONTINUED | WNOHANG) == 0);
	CHECK(kid_alive(k));
	CHECK(task_state(k->pid) != 'T');
}

static void stop_cont(int sig)
{
	struct kid k;

	CHECK(kid_start(&k, PLAIN) == 0);
	CHECK(kid_alive(&k));
	CHECK(kill(k.pid, sig) == 0);
	expect_stopped(&k, sig);
	expect_continued(&k);
	/* and again: a second stop is reported as the first */
	CHECK(kill(k.pid, sig) == 0);
	expect_stopped(&k, sig);
	expect_continued(&k);
	kid_end(&k);
}

static void t_stop_sigstop(void)
{
	stop_cont(SIGSTOP);
}

static void t_stop_sigtstp(void)
{
	stop_cont(SIGTSTP);
}

static void t_kill_stopped(void)
{
	struct kid k;
	int st = 0;

	CHECK(kid_start(&k, PLAIN) == 0);
	CHECK(kill(k.pid, SIGSTOP) == 0);
	expect_stopped(&k, SIGSTOP);
	CHECK(kill(k.pid, SIGKILL) == 0);
	CHECK(wait_kid(&k, &st, WUNTRACED) == k.pid);
	CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status %#x", st);
	close(k.to);
	close(k.from);
}

static void t_term_waits(void)
{
	struct kid k;
	int st = 0;

	CHECK(kid_start(&k, PLAIN) == 0);
	CHECK(kill(k.pid, SIGSTOP) == 0);
	expect_stopped(&k, SIGSTOP);
	CHECK(kill(k.pid, SIGTERM) == 0);
	CHECK_MSG(task_state(k.pid) == 'T', "state %c after SIGTERM", task_state(k.pid));
	CHECK(wait_kid(&k, &st, WUNTRACED | WNOHANG) == 0);
	CHECK(kill(k.pid, SIGCONT) == 0);
	CHECK(wait_kid(&k, &st, 0) == k.pid);
	CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status %#x", st);
	close(k.to);
	close(k.from);
}

static void t_tstp_handled(void)
{
	struct kid k;
	int st = 0;

	CHECK(kid_start(&k, HANDLE_TSTP) == 0);
	CHECK(kill(k.pid, SIGTSTP) == 0);
	CHECK_MSG(read_byte(k.from) == 'H', "the SIGTSTP handler did not run");
	CHECK(kid_alive(&k));
	CHECK(wait_kid(&k, &st, WUNTRACED | WNOHANG) == 0);
	CHECK(task_state(k.pid) != 'T');
	kid_end(&k);
}

static void t_cont_handled(void)
{
	struct kid k;

	CHECK(kid_start(&k, HANDLE_CONT) == 0);
	CHECK(kill(k.pid, SIGSTOP) == 0);
	expect_stopped(&k, SIGSTOP);
	CHECK(kill(k.pid, SIGCONT) == 0);
	CHECK_MSG(read_byte(k.from) == 'H', "the SIGCONT handler did not run");
	CHECK(kid_alive(&k));
	kid_end(&k);
}

static void t_cont_discards_stop(void)
{
	struct kid k;
	int st = 0;

	CHECK(kid_start(&k, BLOCK_TSTP) == 0);
	CHECK(kill(k.pid, SIGTSTP) == 0); /* pending: blocked */
	CHECK(kid_alive(&k));
	CHECK(kill(k.pid, SIGCONT) == 0); /* discards it */
	CHECK(write_byte(k.to, 'u') == 0 && read_byte(k.from) == 'P');
	CHECK(kid_alive(&k));
	CHECK(wait_kid(&k, &st, WUNTRACED | WNOHANG) == 0);
	/* the control: unblocked, SIGTSTP does stop it */
	CHECK(kill(k.pid, SIGTSTP) == 0);
	expect_stopped(&k, SIGTSTP);
	kid_end(&k);
}

static volatile int chld_count;

static void on_chld(int sig)
{
	(void)sig;
	chld_count++;
}

static void t_sigchld_on_stop(void)
{
	struct kid k;

	CHECK(catch_signal(SIGCHLD, on_chld, 0) == 0);
	CHECK(kid_start(&k, PLAIN) == 0);
	chld_count = 0;
	CHECK(kill(k.pid, SIGSTOP) == 0);
	expect_stopped(&k, SIGSTOP);
	/* sent before the wait4 wake-up: handled on the way back from it */
	CHECK_MSG(chld_count == 1, "%d SIGCHLD for a stop", (int)chld_count);
	expect_continued(&k);
	CHECK_MSG(chld_count == 2, "%d SIGCHLD for a stop and a continue", (int)chld_count);

	CHECK(catch_signal(SIGCHLD, on_chld, SA_NOCLDSTOP) == 0);
	chld_count = 0;
	CHECK(kill(k.pid, SIGSTOP) == 0);
	expect_stopped(&k, SIGSTOP);
	expect_continued(&k);
	CHECK_MSG(chld_count == 0, "%d SIGCHLD with SA_NOCLDSTOP", (int)chld_count);
	signal(SIGCHLD, SIG_DFL);
	kid_end(&k);
}

static void t_orphaned_tstp(void)
{
	struct kid k;
	int st = 0;

	CHECK(kid_start(&k, NEW_SESSION) == 0);
	CHECK(kill(k.pid, SIGTSTP) == 0);
	CHECK(kid_alive(&k)); /* discarded, not pending */
	CHECK(wait_kid(&k, &st, WUNTRACED | WNOHANG) == 0);
	CHECK(kill(k.pid, SIGSTOP) == 0);
	expect_stopped(&k, SIGSTOP); /* not SIGTSTP: it is gone */
	kid_end(&k);
}

#define NR_POLL 7 /* not in our libc: by number */
#define NR_PRCTL 157
#define PR_SET_CHILD_SUBREAPER 36
#define ORPHAN_WAIT_MS 10000 /* bounds a failure only */

struct pollfd_k {
	int fd;
	short events, revents;
};

static void t_orphaned_on_exit(void)
{
	int up[2], st = 0;
	pid_t m, g = 0;
	struct pollfd_k pfd;
	/* On Linux the orphan comes back to us rather than to whatever
	 * reaper the host has, so we can reap it; Spindle has no
	 * subreapers (EINVAL), and its init reaps it. */
	long subreaper = syscall(NR_PRCTL, PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

	CHECK(pipe(up) == 0);
	m = fork();
	if (m == 0) {
		/* the middle process: a session of its own, so the group
		 * below has its one link to a parent in M */
		close(up[0]);
		if (setsid() < 0)
			_exit(2);
		g = fork();
		if (g == 0) {
			setpgid(0, 0);
			for (;;)
				sleep(100);
		}
		setpgid(g, g);
		if (kill(g, SIGSTOP) < 0 || waitpid(g, &st, WUNTRACED) != g || !WIFSTOPPED(st))
			_exit(3);
		write(up[1], &g, sizeof(g));
		_exit(0); /* the group of g is orphaned now, g stopped */
	}
	close(up[1]);
	CHECK(waitpid(m, &st, 0) == m && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(read(up[0], &g, sizeof(g)) == sizeof(g));
	/* g holds the pipe's last writing end: EOF when it is gone */
	pfd = (struct pollfd_k){ .fd = up[0], .events = 1 /* POLLIN */ };
	if (syscall(NR_POLL, &pfd, 1, ORPHAN_WAIT_MS) != 1) {
		CHECK_MSG(0, "the stopped orphan %d is still there", g);
		if (g > 0)
			kill(g, SIGKILL);
	}
	CHECK(read(up[0], &st, 1) == 0);
	if (subreaper == 0) {
		CHECK(waitpid(g, &st, 0) == g);
		CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGHUP, "status %#x", st);
		syscall(NR_PRCTL, PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	}
	close(up[0]);
}

/* --- waitid(2): not in our libc, so by number, with Linux's siginfo ----- */

#define NR_WAITID 247
#define NR_GETUID 102
#define P_ALL 0
#define P_PID 1
#define P_PGID 2
#define WEXITED 4
#define WSTOPPED WUNTRACED
#define WNOWAIT 0x01000000
#define CLD_EXITED 1
#define CLD_KILLED 2
#define CLD_STOPPED 5
#define CLD_CONTINUED 6

/* the SIGCHLD fields of struct siginfo (128 bytes on x86-64) */
struct wid_info {
	int si_signo, si_errno, si_code, pad;
	int si_pid;
	unsigned int si_uid;
	int si_status;
	char rest[100];
};

static long wid(int which, int id, struct wid_info *si, int options)
{
	long r;

	memset(si, 0x5a, sizeof(*si)); /* what the call must overwrite */
	while ((r = syscall(NR_WAITID, which, id, si, options, NULL)) < 0 && errno == EINTR)
		;
	return r;
}

/* si says child pid reported (code, status) */
static int wid_is(const struct wid_info *si, pid_t pid, int code, int status)
{
	return si->si_signo == SIGCHLD && si->si_errno == 0 && si->si_code == code &&
	       si->si_pid == pid && si->si_uid == (unsigned int)syscall(NR_GETUID) &&
	       si->si_status == status;
}

#define CHECK_WID(si, pid, code, status)                                                     \
	CHECK_MSG(wid_is(si, pid, code, status),                                             \
		  "siginfo signo %d errno %d code %d pid %d uid %u status %d, want code %d " \
		  "pid %d status %d",                                                        \
		  (si)->si_signo, (si)->si_errno, (si)->si_code, (si)->si_pid, (si)->si_uid, \
		  (si)->si_status, code, (int)(pid), status)

static void t_waitid_exit(void)
{
	struct wid_info si;
	char ru[144]; /* struct rusage: only accepted here */
	struct kid k;
	pid_t pid;

	CHECK(kid_start(&k, PLAIN) == 0);
	pid = k.pid;
	close(k.to); /* it reads EOF and exits 0 */
	close(k.from);
	CHECK(wid(P_PID, pid, &si, WEXITED | WNOWAIT) == 0);
	CHECK_WID(&si, pid, CLD_EXITED, 0);
	CHECK(wid(P_PID, pid, &si, WEXITED | WNOWAIT) == 0); /* still there */
	CHECK_WID(&si, pid, CLD_EXITED, 0);
	CHECK(syscall(NR_WAITID, P_PID, pid, &si, WEXITED, ru) == 0); /* reaped now */
	CHECK_WID(&si, pid, CLD_EXITED, 0);
	CHECK_ERR(syscall(NR_WAITID, P_PID, pid, &si, WEXITED, NULL), ECHILD);
	CHECK_ERR(waitpid(pid, NULL, WNOHANG), ECHILD);

	CHECK(kid_start(&k, PLAIN) == 0);
	CHECK(kill(k.pid, SIGKILL) == 0);
	CHECK(wid(P_PID, k.pid, &si, WEXITED) == 0);
	CHECK_WID(&si, k.pid, CLD_KILLED, SIGKILL);
	close(k.to);
	close(k.from);
}

static void t_waitid_jobctl(void)
{
	struct wid_info si;
	struct kid k;

	CHECK(kid_start(&k, PLAIN) == 0);
	/* running: nothing to report, and a zeroed siginfo says so */
	CHECK(wid(P_PID, k.pid, &si, WEXITED | WSTOPPED | WNOHANG) == 0);
	CHECK_MSG(si.si_signo == 0 && si.si_pid == 0 && si.si_code == 0,
		  "WNOHANG, nothing to report: signo %d pid %d code %d", si.si_signo, si.si_pid,
		  si.si_code);
	CHECK(kill(k.pid, SIGSTOP) == 0);
	CHECK(wid(P_PID, k.pid, &si, WSTOPPED | WNOWAIT) == 0);
	CHECK_WID(&si, k.pid, CLD_STOPPED, SIGSTOP);
	CHECK(wid(P_PID, k.pid, &si, WSTOPPED) == 0); /* WNOWAIT left it */
	CHECK_WID(&si, k.pid, CLD_STOPPED, SIGSTOP);
	CHECK(wid(P_PID, k.pid, &si, WSTOPPED | WNOHANG) == 0); /* once */
	CHECK(si.si_pid == 0);
	CHECK(kill(k.pid, SIGCONT) == 0);
	CHECK(wid(P_PID, k.pid, &si, WCONTINUED) == 0);
	CHECK_WID(&si, k.pid, CLD_CONTINUED, SIGCONT);
	CHECK(wid(P_PID, k.pid, &si, WCONTINUED | WNOHANG) == 0);
	CHECK(si.si_pid == 0);
	CHECK(kid_alive(&k));
	kid_end(&k);
}

static void t_waitid_which(void)
{
	struct wid_info si;
	struct kid k;

	CHECK(kid_start(&k, PLAIN) == 0); /* in a group of its own: k.pid */
	CHECK_ERR(syscall(NR_WAITID, P_PID, k.pid, &si, WNOHANG, NULL), EINVAL);
	CHECK_ERR(syscall(NR_WAITID, 99, k.pid, &si, WEXITED, NULL), EINVAL);
	CHECK_ERR(syscall(NR_WAITID, P_PID, 0, &si, WEXITED, NULL), EINVAL);
	CHECK_ERR(syscall(NR_WAITID, P_PID, getpid(), &si, WEXITED, NULL), ECHILD);
	/* our own group (0) holds no child of ours */
	CHECK_ERR(syscall(NR_WAITID, P_PGID, 0, &si, WEXITED | WNOHANG, NULL), ECHILD);
	CHECK(kill(k.pid, SIGSTOP) == 0);
	CHECK(wid(P_PGID, k.pid, &si, WSTOPPED) == 0);
	CHECK_WID(&si, k.pid, CLD_STOPPED, SIGSTOP);
	CHECK(kill(k.pid, SIGKILL) == 0);
	CHECK(wid(P_ALL, 0, &si, WEXITED) == 0);
	CHECK_WID(&si, k.pid, CLD_KILLED, SIGKILL);
	close(k.to);
	close(k.from);
}

/* --- the terminal: SIGTTOU for a background process that changes it --- */

#define NR_UNAME 63
#define TIOCGPTN 0x80045430   /* the pseudo-terminal's number */
#define TIOCSPTLCK 0x40045431 /* (un)lock its slave end: unlockpt() */
#define TOSTOP 0000400	      /* c_lflag: background writes get SIGTTOU */

struct kernel_termios {
	unsigned int c_iflag, c_oflag, c_cflag, c_lflag;
	unsigned char c_line, c_cc[19];
};

/*
 * A terminal for a new session to hold: on Linux a fresh pseudo-terminal
 * (its master end kept open in *master, never read: a byte written fits),
 * on Spindle the console, its one terminal.  -1 if there is none.
 */
static int open_terminal(int *master)
{
	char uts[6 * 65], path[32];
	int n = 0, unlock = 0;

	*master = -1;
	if (syscall(NR_UNAME, uts) == 0 && strcmp(uts, "Spindle") == 0)
		return open("/dev/console", O_RDWR);
	*master = open("/dev/ptmx", O_RDWR | O_NOCTTY);
	if (*master < 0 || ioctl(*master, TIOCSPTLCK, &unlock) < 0 ||
	    ioctl(*master, TIOCGPTN, &n) < 0)
		return -1;
	snprintf(path, sizeof(path), "/dev/pts/%d", n);
	return open(path, O_RDWR);
}

static int tty_fd = -1; /* the session's terminal, in body() and its children */

static pid_t fg_pgrp(void)
{
	pid_t pgrp = -1;

	return ioctl(tty_fd, TIOCGPGRP, &pgrp) < 0 ? -1 : pgrp;
}

/*
 * Run body() in a new session that holds a terminal as its controlling
 * one (TIOCSCTTY), its group in the foreground: a login shell's place.
 * The CHECKs in the session print there; its exit status says whether one
 * failed (1), or it skipped (2).
 */
static void in_session(void (*body)(void))
{
	pid_t s;
	int st = 0;

	fflush(stdout);
	s = fork();
	if (s == 0) {
		int master;

		if (setsid() < 0)
			_exit(3);
		tty_fd = open_terminal(&master);
		if (tty_fd < 0) {
			hostile_skip("no terminal to hold (no /dev/ptmx)");
			fflush(stdout);
			_exit(2);
		}
		/* 1: taken from the session that has it, if any (as root may):
		 * on Spindle, run from a shell at the console, the shell's */
		CHECK(ioctl(tty_fd, TIOCSCTTY, 1) == 0);
		CHECK_MSG(fg_pgrp() == getpid(), "foreground group %d, want %d", (int)fg_pgrp(),
			  (int)getpid());
		if (!hostile_failed_now)
			body();
		fflush(stdout);
		_exit(hostile_failed_now ? 1 : 0);
	}
	CHECK(s > 0 && waitpid(s, &st, 0) == s);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 2)
		hostile_skipped_now = 1; /* it said why */
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 1)
		hostile_failed_now = 1; /* it said why */
	else
		CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "session leader: status %#x", st);
}

enum tty_op { OP_TCGETS,
	      OP_TCSETS,
	      OP_TCSETSW,
	      OP_TCSETSF,
	      OP_TIOCSPGRP,
	      OP_WRITE };
static const char *const op_name[] = { "TCGETS", "TCSETS", "TCSETSW",
				       "TCSETSF", "TIOCSPGRP", "write" };

/* op on the session's terminal: 0, or the errno it failed with */
static int tty_do(int op)
{
	struct kernel_termios t;
	pid_t pgrp = getpgrp();
	static const unsigned long set[] = { [OP_TCSETS] = TCSETS,
					     [OP_TCSETSW] = TCSETSW,
					     [OP_TCSETSF] = TCSETSF };
	long r;

	if (ioctl(tty_fd, TCGETS, &t) < 0)
		return errno;
	if (op == OP_TCGETS)
		return 0;
	if (op == OP_TIOCSPGRP)
		r = ioctl(tty_fd, TIOCSPGRP, &pgrp);
	else if (op == OP_WRITE)
		r = write(tty_fd, "\n", 1);
	else
		r = ioctl(tty_fd, set[op], &t); /* the same modes again */
	return r < 0 ? errno : 0;
}

enum ttou_setup { TTOU_DFL,
		  TTOU_IGNORED,
		  TTOU_BLOCKED,
		  TTOU_ORPHANED };

/*
 * op in a child put in a background group of the session, set up as
 * `how`: the wait4 status it stopped or ended with; *err is op's result
 * if it got one (else -1).  A stopped child is killed.
 *
 * TTOU_ORPHANED: the child starts a group and forks the one that does op,
 * then exits -- the group is then orphaned, its one member's parent being
 * init (or the host's reaper), outside the session.  The doer waits for
 * that by reading EOF from its parent's pipe, and reports op's result.
 */
static int bg_op(int op, int how, int *err)
{
	int up[2], gone[2], st = -1;
	pid_t b;
	char c;

	*err = -1;
	if (pipe(up) < 0 || pipe(gone) < 0)
		return -1;
	fflush(stdout);
	b = fork();
	if (b == 0) {
		sigset_t set;
		pid_t me = getpid();

		close(up[0]);
		setpgid(0, 0);
		if (how == TTOU_IGNORED)
			signal(SIGTTOU, SIG_IGN);
		sigemptyset(&set);
		sigaddset(&set, SIGTTOU);
		if (how == TTOU_BLOCKED)
			sigprocmask(SIG_BLOCK, &set, NULL);
		if (how == TTOU_ORPHANED && fork() != 0)
			_exit(0); /* the doer's parent: gone[1] closes now */
		if (how == TTOU_ORPHANED) {
			close(gone[1]);
			while (read(gone[0], &c, 1) > 0) /* EOF: it is exiting */
				;
			/* and the group is orphaned once it has handed us to
			 * the reaper: a little after its files are closed */
			while (getppid() == me)
				sched_yield();
		}
		c = (char)tty_do(op);
		write(up[1], &c, 1);
		_exit(0);
	}
	close(up[1]);
	close(gone[0]);
	close(gone[1]);
	setpgid(b, b); /* whoever runs first, as a shell does */
	if (b > 0 && waitpid(b, &st, WUNTRACED) != b)
		st = -1;
	if (st != -1 && WIFSTOPPED(st)) {
		kill(b, SIGKILL);
		waitpid(b, NULL, 0);
	} else if (read(up[0], &c, 1) == 1) {
		*err = c;
	}
	close(up[0]);
	return st;
}

/* op from the background is stopped by SIGTTOU (stop) or runs to err */
static void expect_bg(int op, int how, int stop, int err)
{
	int got, st = bg_op(op, how, &got);

	if (stop)
		CHECK_MSG(st != -1 && WIFSTOPPED(st) && WSTOPSIG(st) == SIGTTOU,
			  "%s from the background: status %#x, want stopped by SIGTTOU",
			  op_name[op], st);
	else
		CHECK_MSG(st != -1 && WIFEXITED(st) && got == err,
			  "%s from the background: status %#x, errno %d, want %d", op_name[op], st,
			  got, err);
	CHECK_MSG(fg_pgrp() == getpgrp(), "after %s the foreground is %d", op_name[op],
		  (int)fg_pgrp());
}

/* TOSTOP on or off, as the foreground may */
static int set_tostop(int on)
{
	struct kernel_termios t;

	if (ioctl(tty_fd, TCGETS, &t) < 0)
		return -1;
	t.c_lflag = on ? t.c_lflag | TOSTOP : t.c_lflag & ~TOSTOP;
	return ioctl(tty_fd, TCSETS, &t);
}

static void ttou_change(void)
{
	for (int op = OP_TCSETS; op <= OP_TIOCSPGRP; op++)
		expect_bg(op, TTOU_DFL, 1, 0);
	expect_bg(OP_TCGETS, TTOU_DFL, 0, 0);
	CHECK(set_tostop(0) == 0);
	expect_bg(OP_WRITE, TTOU_DFL, 0, 0);
	CHECK(set_tostop(1) == 0);
	expect_bg(OP_WRITE, TTOU_DFL, 1, 0);
	CHECK(set_tostop(0) == 0);
}

static void ttou_ignored(void)
{
	int err, st;

	expect_bg(OP_TCSETS, TTOU_IGNORED, 0, 0);
	expect_bg(OP_TCSETSF, TTOU_BLOCKED, 0, 0);
	CHECK(set_tostop(1) == 0);
	expect_bg(OP_WRITE, TTOU_BLOCKED, 0, 0);
	CHECK(set_tostop(0) == 0);
	/* the child makes itself the foreground; we, now in the background,
	 * take the terminal back as a shell does: with SIGTTOU ignored */
	st = bg_op(OP_TIOCSPGRP, TTOU_IGNORED, &err);
	CHECK_MSG(st != -1 && WIFEXITED(st) && err == 0, "TIOCSPGRP, SIGTTOU ignored: "
							 "status %#x, errno %d",
		  st, err);
	CHECK(fg_pgrp() != getpgrp());
	signal(SIGTTOU, SIG_IGN);
	CHECK(tcsetpgrp(tty_fd, getpgrp()) == 0);
	signal(SIGTTOU, SIG_DFL);
	CHECK(fg_pgrp() == getpgrp());
}

static void ttou_orphaned(void)
{
	expect_bg(OP_TCSETS, TTOU_ORPHANED, 0, EIO);
	expect_bg(OP_TIOCSPGRP, TTOU_ORPHANED, 0, ENOTTY);
	expect_bg(OP_TCGETS, TTOU_ORPHANED, 0, 0);
}

static void t_ttou_change(void)
{
	in_session(ttou_change);
}

static void t_ttou_ignored(void)
{
	in_session(ttou_ignored);
}

static void t_ttou_orphaned(void)
{
	in_session(ttou_orphaned);
}

static const struct hostile_case cases[] = {
	{ "stop_sigstop", t_stop_sigstop },
	{ "stop_sigtstp", t_stop_sigtstp },
	{ "kill_stopped", t_kill_stopped },
	{ "term_waits", t_term_waits },
	{ "tstp_handled", t_tstp_handled },
	{ "cont_handled", t_cont_handled },
	{ "cont_discards_stop", t_cont_discards_stop },
	{ "sigchld_on_stop", t_sigchld_on_stop },
	{ "orphaned_tstp", t_orphaned_tstp },
	{ "orphaned_on_exit", t_orphaned_on_exit },
	{ "waitid_exit", t_waitid_exit },
	{ "waitid_jobctl", t_waitid_jobctl },
	{ "waitid_which", t_waitid_which },
	{ "ttou_change", t_ttou_change },
	{ "ttou_ignored", t_ttou_ignored },
	{ "ttou_orphaned", t_ttou_orphaned },
};

int main(int argc, char **argv)
{
	return hostile_run("jobctl", cases, sizeof(cases) / sizeof(cases[0]),
			   argc > 1 ? argv[1] : NULL);
}
