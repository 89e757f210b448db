// SPDX-License-Identifier: MIT
/*
 * signal.c - sigaction() and signal() over rt_sigaction(13).
 *
 * The kernel's struct sigaction differs from C's: handler, flags, a
 * "restorer" and then the mask.  The restorer is the code the handler
 * returns into; it must call rt_sigreturn(15) to undo the signal frame.
 * On x86-64 Linux user space must supply it (SA_RESTORER): ours is
 * __restore_rt in crt0.S.
 */
#include <signal.h>
#include <errno.h>
#include <unistd.h>

struct k_sigaction {
	sighandler_t handler;
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

void __restore_rt(void);
int __rt_sigaction(int sig, const void *act, void *old);

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct k_sigaction kact, kold;

	if (act) {
		kact.handler = act->sa_handler;
		kact.flags = (unsigned int)act->sa_flags | SA_RESTORER;
		kact.restorer = __restore_rt;
		kact.mask = act->sa_mask;
	}
	if (__rt_sigaction(sig, act ? &kact : NULL, old ? &kold : NULL) < 0)
		return -1;
	if (old) {
		old->sa_handler = kold.handler;
		old->sa_flags = (int)(kold.flags & ~(unsigned long)SA_RESTORER);
		old->sa_mask = kold.mask;
	}
	return 0;
}

/* BSD semantics, as glibc's signal(): restart interrupted calls */
sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa = { .sa_handler = handler, .sa_mask = 0, .sa_flags = SA_RESTART };
	struct sigaction old;

	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

static int sig_ok(int sig)
{
	if (sig < 1 || sig >= NSIG) {
		errno = EINVAL;
		return 0;
	}
	return 1;
}

int sigemptyset(sigset_t *set) { *set = 0; return 0; }
int sigfillset(sigset_t *set)  { *set = ~0UL; return 0; }

int sigaddset(sigset_t *set, int sig)
{
	if (!sig_ok(sig))
		return -1;
	*set |= 1UL << (sig - 1);
	return 0;
}

int sigdelset(sigset_t *set, int sig)
{
	if (!sig_ok(sig))
		return -1;
	*set &= ~(1UL << (sig - 1));
	return 0;
}

int sigismember(const sigset_t *set, int sig)
{
	if (!sig_ok(sig))
		return -1;
	return (*set >> (sig - 1)) & 1;
}

int raise(int sig)
{
	return kill(getpid(), sig);
}

const char *strsignal(int sig)
{
	static const char *const names[] = {
		[SIGHUP] = "Hangup", [SIGINT] = "Interrupt", [SIGQUIT] = "Quit",
		[SIGILL] = "Illegal instruction", [SIGTRAP] = "Trace/breakpoint trap",
		[SIGABRT] = "Aborted", [SIGBUS] = "Bus error",
		[SIGFPE] = "Floating point exception", [SIGKILL] = "Killed",
		[SIGUSR1] = "User defined signal 1", [SIGSEGV] = "Segmentation fault",
		[SIGUSR2] = "User defined signal 2", [SIGPIPE] = "Broken pipe",
		[SIGALRM] = "Alarm clock", [SIGTERM] = "Terminated",
		[SIGCHLD] = "Child exited", [SIGCONT] = "Continued",
		[SIGSTOP] = "Stopped (signal)", [SIGTSTP] = "Stopped",
	};

	if (sig > 0 && sig < (int)(sizeof(names) / sizeof(names[0])) && names[sig])
		return names[sig];
	return "Unknown signal";
}
