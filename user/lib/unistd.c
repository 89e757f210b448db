// SPDX-License-Identifier: MIT
/*
 * unistd.c - the <unistd.h> functions that are more than one system call:
 * execvp's PATH search, sleep on nanosleep, getcwd's C return value, the
 * terminal's process group, sbrk.
 */
#include <unistd.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <limits.h>
#include <time.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/ioctl.h>

long __getcwd(char *buf, size_t size);
void *__brk(void *addr);

int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

/*
 * execvp: a name with a '/' is a path; otherwise try each directory of
 * $PATH (default /bin:/usr/bin) in turn.  The first error other than
 * "not there" is remembered, so "permission denied" is not hidden by a
 * later ENOENT.
 */
int execvp(const char *file, char *const argv[])
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	int saved = ENOENT;

	if (!*file) {
		errno = ENOENT;
		return -1;
	}
	if (strchr(file, '/'))
		return execve(file, argv, environ);
	if (!path)
		path = "/bin:/usr/bin";
	while (*path) {
		size_t dl = strcspn(path, ":");
		size_t fl = strlen(file);

		if (dl + 1 + fl + 1 <= sizeof(buf)) {
			memcpy(buf, path, dl);
			if (dl == 0)
				buf[dl++] = '.';    /* an empty entry means "." */
			buf[dl] = '/';
			memcpy(buf + dl + 1, file, fl + 1);
			execve(buf, argv, environ);
			if (errno != ENOENT && errno != ENOTDIR)
				saved = errno;
		}
		path += strcspn(path, ":");
		if (*path == ':')
			path++;
	}
	errno = saved;
	return -1;
}

char *getcwd(char *buf, size_t size)
{
	if (!buf) {
		size = size ? size : PATH_MAX;
		buf = malloc(size);
		if (!buf)
			return NULL;
	}
	return __getcwd(buf, size) < 0 ? NULL : buf;
}

unsigned int sleep(unsigned int seconds)
{
	struct timespec ts = { seconds, 0 }, rem = { 0, 0 };

	if (nanosleep(&ts, &rem) < 0)
		return (unsigned int)rem.tv_sec + (rem.tv_nsec > 0);
	return 0;
}

int usleep(useconds_t usec)
{
	struct timespec ts = { usec / 1000000, (long)(usec % 1000000) * 1000 };

	return nanosleep(&ts, NULL);
}

time_t time(time_t *t)
{
	struct timespec ts = { 0, 0 };

	clock_gettime(CLOCK_REALTIME, &ts);
	if (t)
		*t = ts.tv_sec;
	return ts.tv_sec;
}

int isatty(int fd)
{
	char termios[64];               /* struct termios is 60 bytes */

	return ioctl(fd, TCGETS, termios) == 0;
}

pid_t tcgetpgrp(int fd)
{
	pid_t pgrp;

	return ioctl(fd, TIOCGPGRP, &pgrp) < 0 ? -1 : pgrp;
}

int tcsetpgrp(int fd, pid_t pgrp)
{
	return ioctl(fd, TIOCSPGRP, &pgrp);
}

int brk(void *addr)
{
	if (__brk(addr) != addr) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void *sbrk(long increment)
{
	char *old = __brk(NULL);

	if (increment && __brk(old + increment) != old + increment) {
		errno = ENOMEM;
		return (void *)-1;
	}
	return old;
}
