// SPDX-License-Identifier: MIT
/*
 * elevator DEV [NAME] - show or switch a disk's I/O scheduler through
 * /sys/block/DEV/queue/scheduler, whose line names every scheduler with
 * the active one in brackets: "[mq-deadline] none cscan".  Writing a
 * name switches (the kernel freezes the queue meanwhile).
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[256], line[256];
	ssize_t n;
	int fd;

	if (argc < 2 || argc > 3) {
		fputs("usage: elevator DEV [NAME]\n", stderr);
		return 2;
	}
	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", argv[1]);
	if (argc == 3) {
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, argv[2], strlen(argv[2])) < 0) {
			fprintf(stderr, "elevator: %s: %s\n", path, strerror(errno));
			return 1;
		}
		close(fd);
	}
	fd = open(path, O_RDONLY);
	if (fd < 0 || (n = read(fd, line, sizeof(line) - 1)) < 0) {
		fprintf(stderr, "elevator: %s: %s\n", path, strerror(errno));
		return 1;
	}
	line[n] = '\0';
	printf("%s: %s", argv[1], line);
	if (n && line[n - 1] != '\n')
		putchar('\n');
	close(fd);
	return 0;
}
