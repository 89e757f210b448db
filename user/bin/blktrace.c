// SPDX-License-Identifier: MIT
/*
 * blktrace [-b] DEV [-o FILE] - the block-layer trace of a disk.
 *
 * Without -b: read from /sys/block/DEV/trace, one event per line in
 * blkparse's text layout (Q queued, G got a request, M merged, I
 * inserted, D dispatched, C completed, ...; docs/block.md).
 * With -b: the same events in Linux's binary blktrace format, from
 * /sys/block/DEV/trace0 -- the file Linux's blktrace writes as
 * DEV.blktrace.0, which blkparse, btt and iowatcher read on a Linux host;
 * the number of bytes goes to stderr ("blktrace: 4352 bytes").
 * -o FILE saves the trace instead of printing it (a path in /tmp, or a
 * disk to carry it out of the machine: -o /dev/sdb).
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *dev = NULL, *out = NULL;
	char path[256], buf[8192];
	int in, to = 1, binary = 0;
	unsigned long long total = 0;
	ssize_t n;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "-b"))
			binary = 1;
		else if (!dev && argv[i][0] != '-')
			dev = argv[i];
		else
			dev = NULL, i = argc;
	}
	if (!dev) {
		fputs("usage: blktrace [-b] DEV [-o FILE]\n", stderr);
		return 2;
	}
	snprintf(path, sizeof(path), "/sys/block/%s/%s", dev, binary ? "trace0" : "trace");
	in = open(path, O_RDONLY);
	if (in < 0) {
		fprintf(stderr, "blktrace: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (out) {
		to = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (to < 0) {
			fprintf(stderr, "blktrace: %s: %s\n", out, strerror(errno));
			return 1;
		}
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(to, buf, (size_t)n) != n) {
			fprintf(stderr, "blktrace: write: %s\n", strerror(errno));
			return 1;
		}
		total += (unsigned long long)n;
	}
	if (n < 0) {
		fprintf(stderr, "blktrace: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (binary)
		fprintf(stderr, "blktrace: %llu bytes\n", total);
	if (to != 1 && close(to) < 0) {
		fprintf(stderr, "blktrace: %s: %s\n", out, strerror(errno));
		return 1;
	}
	return 0;
}
