/*
 * blktrace DEV [-o FILE] - print the block-layer trace of a disk, read
 * from /sys/block/DEV/trace: one event per line in blkparse's text layout
 * (Q queued, G got a request, M merged, I inserted, D dispatched, C
 * completed, ...; docs/block.md).  -o FILE saves it instead.
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
	int in, to = 1;
	ssize_t n;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!dev && argv[i][0] != '-')
			dev = argv[i];
		else
			dev = NULL, i = argc;
	}
	if (!dev) {
		fputs("usage: blktrace DEV [-o FILE]\n", stderr);
		return 2;
	}
	snprintf(path, sizeof(path), "/sys/block/%s/trace", dev);
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
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(to, buf, (size_t)n) != n) {
			fprintf(stderr, "blktrace: write: %s\n", strerror(errno));
			return 1;
		}
	if (n < 0) {
		fprintf(stderr, "blktrace: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}
