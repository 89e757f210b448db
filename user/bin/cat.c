// SPDX-License-Identifier: MIT
/* cat [FILE]... - copy each FILE (or stdin, or "-") to stdout. */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static char buf[65536];

static int cat_fd(int fd, const char *name)
{
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "cat: %s: %s\n", name, strerror(errno));
			return 1;
		}
		if (write_all(1, buf, (size_t)n)) {
			fprintf(stderr, "cat: write error: %s\n", strerror(errno));
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2)
		return cat_fd(0, "-");
	for (int i = 1; i < argc; i++) {
		int fd = strcmp(argv[i], "-") ? open(argv[i], O_RDONLY) : 0;

		if (fd < 0) {
			fprintf(stderr, "cat: %s: %s\n", argv[i], strerror(errno));
			status = 1;
			continue;
		}
		status |= cat_fd(fd, argv[i]);
		if (fd)
			close(fd);
	}
	return status;
}
