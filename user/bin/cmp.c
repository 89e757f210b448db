// SPDX-License-Identifier: MIT
/*
 * cmp [-s] FILE1 FILE2 - compare two files byte by byte.  Prints the first
 * difference as GNU cmp does ("a b differ: byte 5, line 1"), or
 * "cmp: EOF on a after byte N, line L" when one is a prefix of the other.
 * Exit 0: same; 1: different; 2: trouble.  -s: say nothing.
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

struct side {
	const char *name;
	int fd;
	unsigned char buf[65536];
	ssize_t len, pos;
};

static struct side a, b;

/* the next byte, or -1 at the end, -2 on an error */
static int next_byte(struct side *s)
{
	if (s->pos == s->len) {
		do                              /* a signal is not an error */
			s->len = read(s->fd, s->buf, sizeof(s->buf));
		while (s->len < 0 && errno == EINTR);
		s->pos = 0;
		if (s->len < 0) {
			fprintf(stderr, "cmp: %s: %s\n", s->name, strerror(errno));
			return -2;
		}
		if (s->len == 0)
			return -1;
	}
	return s->buf[s->pos++];
}

static int open_side(struct side *s, const char *name)
{
	s->name = name;
	s->fd = strcmp(name, "-") ? open(name, O_RDONLY) : 0;
	if (s->fd < 0) {
		fprintf(stderr, "cmp: %s: %s\n", name, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long byte = 1, line = 1;
	int silent = 0, i = 1, last = 0;

	if (i < argc && strcmp(argv[i], "-s") == 0) {
		silent = 1;
		i++;
	}
	if (argc - i != 2) {
		fputs("usage: cmp [-s] FILE1 FILE2\n", stderr);
		return 2;
	}
	if (open_side(&a, argv[i]) || open_side(&b, argv[i + 1]))
		return 2;
	for (;; byte++) {
		int x = next_byte(&a), y = next_byte(&b);

		if (x == -2 || y == -2)
			return 2;
		if (x == -1 && y == -1)
			return 0;
		if (x == -1 || y == -1) {
			const char *shorter = x == -1 ? a.name : b.name;

			/* GNU's wording; the line is the one the last byte was in */
			if (silent)
				;
			else if (byte == 1)
				fprintf(stderr, "cmp: EOF on %s which is empty\n", shorter);
			else
				fprintf(stderr, "cmp: EOF on %s after byte %llu, line %llu\n",
					shorter, byte - 1, line - (last == '\n'));
			return 1;
		}
		if (x != y) {
			if (!silent)
				printf("%s %s differ: byte %llu, line %llu\n", a.name, b.name,
				       byte, line);
			return 1;
		}
		if (x == '\n')
			line++;
		last = x;
	}
}
