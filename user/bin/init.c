// SPDX-License-Identifier: MIT
/*
 * init - the first user process (pid 1); docs/user.md.
 *
 *  1. mount the kernel's file systems: proc on /proc, sysfs on /sys,
 *     devtmpfs on /dev, a tmpfs on /tmp (the directories come with the
 *     initramfs; init creates nothing), and open /dev/console again as
 *     descriptors 0, 1 and 2;
 *  2. run /etc/init.sh if that file exists (a test's script, from
 *     QEMU's fw_cfg), else an interactive shell on the console; either
 *     with busybox's ash as a login shell (it reads /etc/profile) if
 *     /bin/busybox exists, else with Spindle's own /bin/sh;
 *  3. meanwhile reap every process that exits: orphans are re-parented
 *     to pid 1, and a zombie nobody waits for would stay forever;
 *  4. when the shell ends, sync and power off with its exit status
 *     (Spindle hands the status to QEMU: 0 = pass, else fail).
 *
 * pid 1 must never exit: the kernel has nobody to hand its children to.
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/reboot.h>

#define INIT_SCRIPT "/etc/init.sh"
#define BUSYBOX "/bin/busybox" /* the shell, if there (docs/user.md) */

static const struct {
	const char *fstype, *target, *options;
} mounts[] = {
	{ "proc", "/proc", NULL },
	{ "sysfs", "/sys", NULL },
	{ "devtmpfs", "/dev", NULL },
	/* a tmpfs of its own, as Linux distributions mount it: filling it
	 * stops at its size (half of RAM) and leaves / alone */
	{ "tmpfs", "/tmp", NULL },
};

static void mount_kernel_filesystems(void)
{
	for (unsigned i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++)
		if (mount(mounts[i].fstype, mounts[i].target, mounts[i].fstype, 0,
			  mounts[i].options) < 0)
			fprintf(stderr, "init: mount %s on %s: %s\n", mounts[i].fstype,
				mounts[i].target, strerror(errno));
}

static pid_t start_shell(int script)
{
	char *script_argv[] = { "/bin/sh", INIT_SCRIPT, NULL };
	char *shell_argv[] = { "/bin/sh", NULL };
	/* a login shell ('-' before its name) reads /etc/profile, so a
	 * script sees the names the console does */
	char *ash_argv[] = { "-ash", NULL };
	char *ash_script_argv[] = { "-sh", INIT_SCRIPT, NULL };
	char *envp[] = { "PATH=/bin:/tests", "HOME=/", "TERM=vt100", NULL };
	struct stat st;
	pid_t pid = fork();

	if (pid == 0) {
		/* init ignores ^C; the shell starts with the defaults (a
		 * shell takes a signal ignored on entry as ignored for good) */
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		/* the shell makes its own process group (interactive: the
		 * console's foreground one); init's stays apart from it.
		 * busybox's ash when the initramfs has it (argv[0] names
		 * the applet), else Spindle's sh. */
		if (script && stat(BUSYBOX, &st) == 0)
			execve(BUSYBOX, ash_script_argv, envp);
		if (!script && stat(BUSYBOX, &st) == 0) {
			/* ash expects to start as the console's foreground
			 * group, as a getty's login shell does (else it waits
			 * for the terminal): a group of its own, given the
			 * console */
			setpgid(0, 0);
			tcsetpgrp(0, getpid());
			execve(BUSYBOX, ash_argv, envp);
		}
		execve("/bin/sh", script ? script_argv : shell_argv, envp);
		fprintf(stderr, "init: cannot run /bin/sh: %s\n", strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		fprintf(stderr, "init: fork: %s\n", strerror(errno));
	return pid;
}

/* wait for the shell, reaping every other child that ends meanwhile */
static int wait_for(pid_t shell)
{
	for (;;) {
		int st = 0;
		pid_t pid = wait(&st);

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			return 1;               /* no children at all: something broke */
		if (pid != shell)
			continue;               /* an orphan, now reaped */
		if (WIFSIGNALED(st))
			return 128 + WTERMSIG(st);
		return WEXITSTATUS(st);
	}
}

/*
 * The kernel gives init descriptors 0, 1 and 2 on the console before
 * anything is mounted on /dev, so they have no name.  Opened again by
 * name, they do: ttyname() and busybox's `tty` answer /dev/console, as
 * on Linux, whose kernel opens /dev/console for init.  The same
 * terminal either way, so nothing else changes.
 */
static void reopen_console(void)
{
	int fd = open("/dev/console", O_RDWR | O_NOCTTY);

	if (fd < 0) {
		fprintf(stderr, "init: /dev/console: %s\n", strerror(errno));
		return;                         /* the nameless ones still work */
	}
	for (int i = 0; i < 3; i++)
		if (fd != i)
			dup2(fd, i);
	if (fd > 2)
		close(fd);
}

int main(void)
{
	struct stat st;
	int script, status;
	pid_t shell;

	/* ^C on the console must not kill init */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	mount_kernel_filesystems();
	reopen_console();
	script = stat(INIT_SCRIPT, &st) == 0;
	shell = start_shell(script);
	status = shell > 0 ? wait_for(shell) : 127;

	/* reap whatever is left without blocking, then power off */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	printf("init: %s exited with status %d, powering off\n",
	       script ? "/etc/init.sh" : "the shell", status);
	fflush(stdout);
	sync();
	spindle_reboot(LINUX_REBOOT_CMD_POWER_OFF, status);
	/* not reached on Spindle; elsewhere (not root?), wait forever */
	for (;;)
		sleep(3600);
}
