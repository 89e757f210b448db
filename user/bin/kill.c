// SPDX-License-Identifier: MIT
/* kill [-SIGNAL] PID... - send a signal (default TERM); SIGNAL by number or name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>

static const struct {
	const char *name;
	int sig;
} names[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "ABRT", SIGABRT },
	{ "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "SEGV", SIGSEGV }, { "USR2", SIGUSR2 },
	{ "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM }, { "CHLD", SIGCHLD },
	{ "CONT", SIGCONT }, { "STOP", SIGSTOP }, { "TSTP", SIGTSTP },
};

static int parse_signal(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (!*end && end != s)
		return n > 0 && n < NSIG ? (int)n : -1;
	if (strncmp(s, "SIG", 3) == 0)
		s += 3;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i].name) == 0)
			return names[i].sig;
	return -1;
}

int main(int argc, char **argv)
{
	int sig = SIGTERM, i = 1, status = 0;

	if (i < argc && argv[i][0] == '-' && argv[i][1]) {
		if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
			i++;
		sig = parse_signal(argv[i][0] == '-' ? argv[i] + 1 : argv[i]);
		if (sig < 0) {
			fprintf(stderr, "kill: unknown signal '%s'\n", argv[i]);
			return 2;
		}
		i++;
	}
	if (i == argc) {
		fputs("usage: kill [-SIGNAL] PID...\n", stderr);
		return 2;
	}
	for (; i < argc; i++) {
		char *end;
		long pid = strtol(argv[i], &end, 10);

		if (*end || end == argv[i]) {
			fprintf(stderr, "kill: invalid pid '%s'\n", argv[i]);
			status = 1;
		} else if (kill((pid_t)pid, sig) < 0) {
			fprintf(stderr, "kill: (%ld): %s\n", pid, strerror(errno));
			status = 1;
		}
	}
	return status;
}
