// SPDX-License-Identifier: MIT
/*
 * ttyctl [case] - the console terminal's control calls, from user space
 * (docs/processes.md, "The terminal's part"; fs/tty.c).  Run at the
 * console by init; the `flush` case waits for lines typed at it (the
 * tty-control scenario types them after its prompts).
 *
 *   winsize    TIOCSWINSZ stores the size TIOCGWINSZ then returns, and a
 *              change (only a change) sends SIGWINCH to the foreground
 *              group
 *   flush      TCFLSH: TCIFLUSH drops a line typed ahead and not yet
 *              read, TCOFLUSH keeps it (there is no output to drop), an
 *              unknown queue is EINVAL; the next typed line reads alone
 *   drain      tcdrain() (TCSBRK 1) and tcsendbreak() (TCSBRK 0,
 *              TCSBRKP) return 0 and the console writes on after them
 *   flow       TCXONC: after TCOOFF a writer waits (asleep, not done)
 *              until TCOON; TCIOFF/TCION send STOP/START; EINVAL else
 *   ixon       with IXON (the default), a typed ^S stops output: a writer
 *              waits asleep (and ^S is not input) until output restarts
 *   hangup     a session leader that took the console (TIOCSCTTY: EPERM
 *              while another live session holds it, unless stealing)
 *              exits: its foreground group gets SIGHUP and SIGCONT (a
 *              process without a handler dies of the SIGHUP), TIOCGPGRP
 *              then answers ENOTTY, and the next session leader takes
 *              the console with a plain TIOCSCTTY
 *
 * Every wait is for an event that must come (a byte on a pipe, a typed
 * line, a task found asleep in /proc): no sleeps.
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

#define SYS_poll 7
struct pollfd {
	int fd;
	short events, revents;
};
#define POLLIN 0x001

/* the kernel's struct termios (TCGETS, TCSETS) */
struct termios {
	unsigned int c_iflag, c_oflag, c_cflag, c_lflag;
	unsigned char c_line, c_cc[19];
};
#define IXON 0002000
#define ICANON 0000002
#define ECHO 0000010

struct winsize {
	unsigned short ws_row, ws_col, ws_xpixel, ws_ypixel;
};

static volatile int winch_count, got_hup, got_cont;

static void on_winch(int sig)
{
	winch_count++;
}

static void on_hup(int sig)
{
	got_hup = 1;
}

static void on_cont(int sig)
{
	got_cont = 1;
}

static void t_winsize(void)
{
	struct winsize ws, saved, big = { 40, 100, 0, 0 };

	CHECK(ioctl(0, TIOCGWINSZ, &saved) == 0);
	signal(SIGWINCH, on_winch);
	winch_count = 0;
	/* the signal is delivered as each ioctl returns */
	CHECK(ioctl(0, TIOCSWINSZ, &big) == 0);
	CHECK_MSG(winch_count == 1, "SIGWINCH %d times for a new size", winch_count);
	CHECK(ioctl(0, TIOCGWINSZ, &ws) == 0);
	CHECK_MSG(ws.ws_row == 40 && ws.ws_col == 100, "size %ux%u", ws.ws_row, ws.ws_col);
	CHECK(ioctl(0, TIOCSWINSZ, &big) == 0);
	CHECK_MSG(winch_count == 1, "SIGWINCH %d times, the size unchanged", winch_count);
	CHECK(ioctl(0, TIOCSWINSZ, &saved) == 0);
	CHECK(winch_count == 2);
	CHECK_ERR(ioctl(0, TIOCSWINSZ, (void *)16), EFAULT);
	signal(SIGWINCH, SIG_DFL);
}

static void t_flush(void)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	char buf[64];
	int n = -1, after = -1;
	long r;

	printf("ttyctl: type ahead a line\n");
	fflush(stdout);
	/* a whole line is there once poll says so (canonical mode) */
	CHECK(syscall(SYS_poll, &pfd, 1, -1) == 1);
	CHECK_ERR(ioctl(0, TCFLSH, 3), EINVAL);
	CHECK(ioctl(0, TCFLSH, TCOFLUSH) == 0);
	CHECK(ioctl(0, FIONREAD, &n) == 0);
	CHECK_MSG(n > 0, "TCOFLUSH left %d bytes of input", n);
	CHECK(ioctl(0, TCFLSH, TCIFLUSH) == 0);
	CHECK(ioctl(0, FIONREAD, &after) == 0);
	CHECK_MSG(after == 0, "TCIFLUSH left %d bytes", after);
	printf("ttyctl: type another line\n");
	fflush(stdout);
	r = read(0, buf, sizeof(buf) - 1);
	buf[r > 0 ? r : 0] = '\0';
	CHECK_MSG(strcmp(buf, "kept\n") == 0, "read %ld bytes: \"%s\"", r, buf);
}

static void t_drain(void)
{
	CHECK(ioctl(0, TCSBRK, 1) == 0);        /* tcdrain() */
	CHECK(ioctl(0, TCSBRK, 0) == 0);        /* a break of 250 ms */
	CHECK(ioctl(0, TCSBRKP, 1) == 0);       /* one of 100 ms */
	printf("ttyctl: written after the breaks\n");
}

/*
 * Output is stopped: a child writing `held` must be found asleep, not
 * done, until TCOON restarts it -- checked only after the restart, since
 * a failure's message would wait too.
 */
static void writer_held(const char *held)
{
	pid_t child;
	char state = 0;
	int st = 0, early;

	child = fork();
	if (child == 0)
		_exit(write(1, held, strlen(held)) == (ssize_t)strlen(held) ? 0 : 1);
	/* nothing printed until TCOON: this writer would wait too */
	while (child > 0 && (state = task_state(child)) && state != 'S' && state != 'Z')
		sched_yield();
	early = child > 0 ? waitpid(child, &st, WNOHANG) : -1;
	ioctl(0, TCXONC, TCOON);
	CHECK_MSG(state == 'S' && early == 0, "the writer was %c (wait: %d)", state ? state : '?',
		  early);
	CHECK(child > 0 && waitpid(child, &st, 0) == child);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void t_flow(void)
{
	fflush(stdout);
	CHECK_ERR(ioctl(0, TCXONC, 4), EINVAL);
	CHECK(ioctl(0, TCXONC, TCIOFF) == 0);
	CHECK(ioctl(0, TCXONC, TCION) == 0);
	CHECK(ioctl(0, TCXONC, TCOOFF) == 0);
	writer_held("ttyctl: held until TCOON\n");
}

static void t_ixon(void)
{
	struct termios saved, raw;
	char c = 0;

	CHECK(ioctl(0, TCGETS, &saved) == 0);
	CHECK_MSG(saved.c_iflag & IXON, "IXON is off: c_iflag %#o", saved.c_iflag);
	raw = saved;
	raw.c_lflag &= ~(ICANON | ECHO);
	CHECK(ioctl(0, TCSETS, &raw) == 0);
	printf("ttyctl: type ^S and x\n");
	fflush(stdout);
	/* the tty handles bytes in order: with x read, ^S was seen */
	CHECK(read(0, &c, 1) == 1);
	writer_held("ttyctl: held after ^S\n");
	CHECK(ioctl(0, TCSETS, &saved) == 0);
	CHECK_MSG(c == 'x', "read %#x, not x", c);
}

/*
 * The session's last process in the leader's group: handlers record the
 * hangup's signals, a bystander without one must die of SIGHUP.  Reports
 * back through rep once its parent, the leader, is gone.
 */
struct hangup_report {
	int hup, cont, pgrp_errno, bystander_status;
};

static void hangup_member(int ready, int rep)
{
	struct hangup_report r = { 0 };
	pid_t leader = getppid(), bystander;
	pid_t pgrp;

	/* the bystander has the default action from birth */
	signal(SIGHUP, SIG_DFL);
	bystander = fork();
	if (bystander == 0)
		for (;;)
			sleep(1000);
	signal(SIGHUP, on_hup);
	signal(SIGCONT, on_cont);
	write(ready, "r", 1);
	/* the hangup happens before the leader's children go to init */
	while (getppid() == leader)
		sched_yield();
	r.hup = got_hup;
	r.cont = got_cont;
	errno = 0;
	pgrp = tcgetpgrp(0);
	r.pgrp_errno = pgrp == -1 ? errno : 0;
	/* no hangup: end the bystander, so the report says so at once */
	if (!got_hup && bystander > 0)
		kill(bystander, SIGKILL);
	if (bystander < 0 || waitpid(bystander, &r.bystander_status, 0) != bystander)
		r.bystander_status = -1;
	write(rep, &r, sizeof(r));
	_exit(0);
}

static void t_hangup(void)
{
	struct hangup_report r = { 0 };
	int ready[2], rep[2], st = -1;
	pid_t leader, next;

	CHECK(tcsetpgrp(0, getpgrp()) == 0);    /* our session holds it */
	CHECK(pipe(ready) == 0 && pipe(rep) == 0);
	leader = fork();
	if (leader == 0) {
		char c;

		setsid();
		if (!(ioctl(0, TIOCSCTTY, 0) == -1 && errno == EPERM))
			_exit(1);
		if (ioctl(0, TIOCSCTTY, 1) != 0 || tcgetpgrp(0) != getpid())
			_exit(2);
		close(rep[0]);
		if (fork() == 0)
			hangup_member(ready[1], rep[1]);
		close(ready[1]);
		close(rep[1]);
		_exit(read(ready[0], &c, 1) == 1 ? 0 : 3);
	}
	/* only the member writes: a read then ends with its report or, if
	 * it never came to be, with EOF */
	close(ready[0]);
	close(ready[1]);
	close(rep[1]);
	CHECK(leader > 0 && waitpid(leader, &st, 0) == leader);
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "leader status %#x", st);
	CHECK(read(rep[0], &r, sizeof(r)) == sizeof(r));
	close(rep[0]);
	CHECK_MSG(r.hup && r.cont, "the foreground group got SIGHUP %d, SIGCONT %d", r.hup, r.cont);
	CHECK_MSG(r.pgrp_errno == ENOTTY, "TIOCGPGRP in the hung-up session: errno %d",
		  r.pgrp_errno);
	CHECK_MSG(WIFSIGNALED(r.bystander_status) && WTERMSIG(r.bystander_status) == SIGHUP,
		  "the bystander's status %#x", r.bystander_status);
	/* the console was taken from us, and is nobody's now */
	CHECK_ERR(tcgetpgrp(0), ENOTTY);
	/* the next session leader needs no steal */
	next = fork();
	if (next == 0) {
		setsid();
		_exit(ioctl(0, TIOCSCTTY, 0) == 0 && tcgetpgrp(0) == getpid() ? 0 : 1);
	}
	CHECK(next > 0 && waitpid(next, &st, 0) == next);
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a plain TIOCSCTTY failed: %#x", st);
	/* Spindle: a console nobody holds goes to a TIOCSPGRP of any session */
	CHECK(tcsetpgrp(0, getpgrp()) == 0 && tcgetpgrp(0) == getpgrp());
}

static const struct hostile_case cases[] = {
	{ "winsize", t_winsize },
	{ "flush", t_flush },
	{ "drain", t_drain },
	{ "flow", t_flow },
	{ "ixon", t_ixon },
	{ "hangup", t_hangup },
};

int main(int argc, char **argv)
{
	/* a group of our own in the foreground, as a shell's job */
	setpgid(0, 0);
	if (tcsetpgrp(0, getpgrp()) != 0) {
		printf("ttyctl: stdin is not the console's terminal: %s\n", strerror(errno));
		return 1;
	}
	return hostile_run("ttyctl", cases, sizeof(cases) / sizeof(cases[0]),
			   argc > 1 ? argv[1] : NULL);
}
