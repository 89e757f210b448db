// SPDX-License-Identifier: MIT
/*
 * hostile_forkbomb [ROUNDS [SECONDS [vfork]]] - a fork bomb can be killed.
 *
 * Each round starts a bomb in a process group of its own: every member
 * forks as fast as it can until fork fails (ENOMEM or EAGAIN: memory or
 * kernel stacks are gone), then keeps retrying every millisecond -- so when
 * the kill comes, some members are asleep, some are running and some are
 * in the middle of fork().  As soon as one member reports that fork failed
 * (the machine is full), the program sends ONE kill(-pgrp, SIGKILL), and
 * then checks:
 *
 *   - the leader, our child, died of SIGKILL (waitpid);
 *   - the group empties: kill(-pgrp, 0) reaches ESRCH within the round's
 *     deadline, with no second kill -- a member created while the kill
 *     was being sent must not escape it;
 *   - the machine is usable afterwards: we can fork and wait again.
 *
 * Members left behind by the leader are orphans: init reaps them.
 * ROUNDS (default 3) and SECONDS (the deadline per round, default 20)
 * make it a soak: `hostile_forkbomb 200 60` runs for a long while.
 *
 * With "vfork" the members vfork instead.  A vforked child runs on its
 * parent's memory while the parent sleeps, so the bomb is a chain: each
 * member sleeps in vfork for the next, and only the newest runs -- until
 * the kernel has no task left to give.  Nothing is copied, so it fills
 * the machine with tasks alone, and the kill must end members asleep in
 * vfork's wait (killable) as well as the running one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <signal.h>
#include <time.h>
#include <sys/wait.h>
#include "hostile.h"

static int rounds = 3, deadline_s = 20;
static int use_vfork;

/* milliseconds on the monotonic clock (no floating point in these programs) */
static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* A member: fork forever.  Only the first failure is reported. */
static void __attribute__((noreturn)) bomb(int report_fd)
{
	const struct timespec ms = { 0, 1000000 };
	volatile int reported = 0; /* shared with a vforked member */

	for (;;) {
		pid_t p = use_vfork ? vfork() : fork();

		if (p == 0)
			continue;               /* the child is a member too */
		if (p < 0) {
			if (!reported && (errno == ENOMEM || errno == EAGAIN)) {
				reported = 1;
				write(report_fd, "F", 1);
			}
			nanosleep(&ms, NULL);
		}
	}
}

/* One round; returns 0 if it passed. */
static int one_round(int round)
{
	int rep[2], status;
	pid_t leader;
	char c;
	long t0, t_kill;
	int gone = 0;

	CHECK(pipe(rep) == 0);
	leader = fork();
	if (leader == 0) {
		setpgid(0, 0);
		close(rep[0]);
		bomb(rep[1]);
	}
	CHECK(leader > 0);
	if (leader <= 0)
		return -1;
	setpgid(leader, leader);                /* whoever runs first, as a shell does */
	close(rep[1]);
	t0 = now_ms();
	/* the machine is full once one member cannot fork */
	CHECK_MSG(read(rep[0], &c, 1) == 1, "round %d: no member reported a failed fork", round);
	close(rep[0]);
	t_kill = now_ms();
	CHECK(kill(-leader, SIGKILL) == 0);
	CHECK(waitpid(leader, &status, 0) == leader);
	CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		  "round %d: leader status %#x", round, status);
	/* the group drains with no further kill: poll until it is empty */
	while (now_ms() - t_kill < deadline_s * 1000L) {
		const struct timespec tick = { 0, 10000000 };

		if (kill(-leader, 0) < 0 && errno == ESRCH) {
			gone = 1;
			break;
		}
		nanosleep(&tick, NULL);
	}
	CHECK_MSG(gone, "round %d: group %d still has members %d s after one SIGKILL",
		  round, leader, deadline_s);
	if (gone)
		printf("hostile_forkbomb: round %d: full after %ld ms, empty %ld ms after the kill\n",
		       round, t_kill - t0, now_ms() - t_kill);
	if (!gone)
		kill(-leader, SIGKILL);         /* leave the machine usable for what follows */
	return hostile_failed_now ? -1 : 0;
}

static void t_kill_group(void)
{
	for (int r = 1; r <= rounds && !hostile_failed_now; r++)
		one_round(r);
}

/* After the bombs: fork, exec-free exit and wait still work. */
static void t_usable_after(void)
{
	int status;
	pid_t p = fork();

	if (p == 0)
		_exit(42);
	CHECK(p > 0);
	CHECK(waitpid(p, &status, 0) == p);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 42);
}

static const struct hostile_case cases[] = {
	{ "kill_group", t_kill_group },
	{ "usable_after", t_usable_after },
};

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atoi(argv[1]);
	if (argc > 2)
		deadline_s = atoi(argv[2]);
	if (argc > 3)
		use_vfork = strcmp(argv[3], "vfork") == 0 ? 1 : -1;
	if (rounds < 1 || deadline_s < 1 || use_vfork < 0) {
		fprintf(stderr, "usage: hostile_forkbomb [ROUNDS [SECONDS [vfork]]]\n");
		return 2;
	}
	return hostile_run("hostile_forkbomb", cases, sizeof(cases) / sizeof(cases[0]), NULL);
}
