// SPDX-License-Identifier: MIT
/*
 * ps - list the processes, from /proc/<pid>/stat (Linux's format:
 * "pid (comm) state ppid pgrp session tty_nr tpgid ...").  The name is in
 * parentheses and may itself hold spaces or ')', so the fields after it
 * are found from the LAST ')'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>
#include <ctype.h>

static int numeric(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void show(int pid)
{
	char path[64], buf[1024], comm[64], state;
	int ppid = 0, pgrp = 0;
	char *open_paren, *close_paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;                 /* it exited meanwhile */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return;
	snprintf(comm, sizeof(comm), "%.*s", (int)(close_paren - open_paren - 1), open_paren + 1);
	state = close_paren[2];
	ppid = (int)strtol(close_paren + 4, &close_paren, 10);
	pgrp = (int)strtol(close_paren, NULL, 10);
	printf("%5d %5d %5d %c %s\n", pid, ppid, pgrp, state, comm);
}

int main(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int pids[1024], n = 0;

	if (!d) {
		perror("ps: /proc");
		return 1;
	}
	while ((de = readdir(d)) != NULL && n < 1024)
		if (numeric(de->d_name))
			pids[n++] = atoi(de->d_name);
	closedir(d);
	qsort(pids, (size_t)n, sizeof(pids[0]), cmp_int);
	printf("  PID  PPID  PGID S CMD\n");
	for (int i = 0; i < n; i++)
		show(pids[i]);
	return 0;
}
