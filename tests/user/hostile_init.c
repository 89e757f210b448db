// SPDX-License-Identifier: MIT
/*
 * hostile_init - pid 1 cannot be killed.
 *
 * Sends init (pid 1) every signal whose default action would end it,
 * SIGKILL first.  As on Linux, kill() succeeds (init exists, and we may
 * signal it) but init, which has no handler for them, is not sent them:
 * the kernel keeps its reaper and its console.  The program then checks
 * that init still exists; the scenario that runs it checks the rest --
 * init outlives the script, reaps it and powers the machine off with the
 * script's status.  (A kernel that let init die sits idle, or panics with
 * "Attempted to kill init!".)
 *
 * Run as pid 1 (init=/tests/hostile_init), it also checks that a signal
 * left pending from when init had a handler does not kill it once the
 * handler is reset to SIG_DFL, then powers off with its status.
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <signal.h>
#include <sys/reboot.h>
#include "hostile.h"

static const int fatal[] = { SIGKILL, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGSEGV, SIGABRT,
			     SIGALRM, SIGPIPE, SIGSTOP };

static void t_kill_init(void)
{
	for (unsigned i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		CHECK_MSG(kill(1, fatal[i]) == 0, "kill(1, %d): errno %d", fatal[i], errno);
	/* give init the CPU, so that it would act on what it was sent */
	for (int i = 0; i < 100; i++)
		sched_yield();
	CHECK(kill(1, 0) == 0);
	if (getpid() != 1)
		CHECK(getppid() != 0);
}

/* kill(-1, sig) reaches everyone but init and the sender (POSIX, Linux):
 * sent 0, it must find at least init's other children; never init. */
static void t_kill_all_spares_init(void)
{
	CHECK(kill(-1, 0) == 0);
	CHECK(kill(1, 0) == 0);
}

static const struct hostile_case cases[] = {
	{ "kill_init", t_kill_init },
	{ "kill_all_spares_init", t_kill_all_spares_init },
};

static void on_term(int sig)
{
	(void)sig;
}

/*
 * As pid 1 itself (init=/tests/hostile_init): a signal that became
 * pending while init had a handler for it, and whose handler init then
 * reset to SIG_DFL, must not kill init when it is unblocked -- Linux
 * drops it at delivery too (get_signal(), SIGNAL_UNKILLABLE).
 */
static void t_pending_then_default(void)
{
	struct sigaction sa = { .sa_handler = on_term };
	sigset_t set = 0;

	sigaddset(&set, SIGTERM);
	CHECK(sigaction(SIGTERM, &sa, NULL) == 0);
	CHECK(sigprocmask(SIG_BLOCK, &set, NULL) == 0);
	CHECK(kill(1, SIGTERM) == 0);           /* handled: pending, blocked */
	signal(SIGTERM, SIG_DFL);
	CHECK(sigprocmask(SIG_UNBLOCK, &set, NULL) == 0);
	/* still here */
	CHECK(getpid() == 1);
}

static const struct hostile_case as_init_cases[] = {
	{ "pending_then_default", t_pending_then_default },
	{ "kill_init", t_kill_init },
};

int main(int argc, char **argv)
{
	if (getpid() == 1) {
		int st = hostile_run("hostile_init", as_init_cases, 2, NULL);

		spindle_reboot(LINUX_REBOOT_CMD_POWER_OFF, st);
		return st;
	}
	return hostile_run("hostile_init", cases, sizeof(cases) / sizeof(cases[0]),
			   argc > 1 ? argv[1] : NULL);
}
