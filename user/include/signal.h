/* SPDX-License-Identifier: MIT */
/* signal.h - Linux's signal numbers and sigaction(13) (user/lib/signal.c). */
#ifndef _SIGNAL_H
#define _SIGNAL_H

#include <sys/types.h>

#include <asm/signal.h> /* numbers, SA_*, SIG_BLOCK: include/uapi/asm/signal.h */

#define NSIG     65

typedef void (*sighandler_t)(int);
#define SIG_DFL ((sighandler_t)0)
#define SIG_IGN ((sighandler_t)1)
#define SIG_ERR ((sighandler_t)-1)

typedef unsigned long sigset_t;     /* the kernel's 64-signal mask */

struct sigaction {
	sighandler_t sa_handler;
	sigset_t sa_mask;
	int sa_flags;
};

sighandler_t signal(int sig, sighandler_t handler);
int sigaction(int sig, const struct sigaction *act, struct sigaction *old);
int sigprocmask(int how, const sigset_t *set, sigset_t *old);
int sigemptyset(sigset_t *set);
int sigfillset(sigset_t *set);
int sigaddset(sigset_t *set, int sig);
int sigdelset(sigset_t *set, int sig);
int sigismember(const sigset_t *set, int sig);
int kill(pid_t pid, int sig);
int raise(int sig);
const char *strsignal(int sig);

#endif
