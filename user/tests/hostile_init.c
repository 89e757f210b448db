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
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <signal.h>
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

int main(int argc, char **argv)
{
	return hostile_run("hostile_init", cases, sizeof(cases) / sizeof(cases[0]),
			   argc > 1 ? argv[1] : NULL);
}
