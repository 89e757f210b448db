// SPDX-License-Identifier: MIT
/*
 * hexdump -C [-s OFFSET] [-n LENGTH] [FILE]... - the "canonical" hex+ASCII
 * layout of util-linux's hexdump -C:
 *
 *   00000000  48 65 6c 6c 6f 0a 00 00  00 00 00 00 00 00 00 00  |Hello...........|
 *   *
 *   00000100
 *
 * 16 bytes a line, an extra space after the 8th; printable ASCII between
 * bars; a line equal to the one before is shown once, as '*'; the last
 * line is the total length.  Files given are read one after the other as
 * one stream.  Only -C's layout is offered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

struct input {
	char **files;
	int nfiles, cur, fd;
	int status;
};

/* read up to n bytes from the concatenated inputs; 0 at the very end */
static size_t input_read(struct input *in, unsigned char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r;

		if (in->fd < 0) {
			if (in->cur >= in->nfiles)
				break;
			in->fd = open(in->files[in->cur], O_RDONLY);
			if (in->fd < 0) {
				fprintf(stderr, "hexdump: %s: %s\n", in->files[in->cur], strerror(errno));
				in->status = 1;
				in->cur++;
				continue;
			}
		}
		r = read(in->fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0) {
				fprintf(stderr, "hexdump: %s: %s\n", in->files[in->cur], strerror(errno));
				in->status = 1;
			}
			if (in->fd > 0)
				close(in->fd);
			in->fd = -1;
			in->cur++;
			continue;
		}
		got += (size_t)r;
	}
	return got;
}

static void print_line(unsigned long long off, const unsigned char *b, size_t n)
{
	printf("%08llx ", off);
	for (size_t i = 0; i < 16; i++) {
		if (i == 8)
			putchar(' ');
		if (i < n)
			printf(" %02x", b[i]);
		else
			fputs("   ", stdout);
	}
	fputs("  |", stdout);
	for (size_t i = 0; i < n; i++)
		putchar(b[i] >= 0x20 && b[i] < 0x7f ? b[i] : '.');
	puts("|");
}

/* skip `skip` bytes of input (reading, as input may be a pipe) */
static unsigned long long skip_input(struct input *in, unsigned long long skip)
{
	unsigned char buf[4096];
	unsigned long long done = 0;

	while (done < skip) {
		size_t want = skip - done < sizeof(buf) ? (size_t)(skip - done) : sizeof(buf);
		size_t got = input_read(in, buf, want);

		if (!got)
			break;
		done += got;
	}
	return done;
}

int main(int argc, char **argv)
{
	static char *stdin_name[] = { "-" };
	struct input in = { .fd = -1 };
	unsigned char line[16], prev[16];
	unsigned long long off = 0, limit = ~0ULL;
	int c, have_prev = 0, starred = 0;

	while ((c = getopt(argc, argv, "Cs:n:")) != -1) {
		if (c == 's')
			off = strtoull(optarg, NULL, 0);
		else if (c == 'n')
			limit = strtoull(optarg, NULL, 0);
		else if (c != 'C') {
			fputs("usage: hexdump -C [-s OFFSET] [-n LENGTH] [FILE]...\n", stderr);
			return 2;
		}
	}
	in.files = argv + optind;
	in.nfiles = argc - optind;
	if (!in.nfiles) {
		in.files = stdin_name;
		in.nfiles = 1;
		in.fd = 0;
	}
	off = skip_input(&in, off);
	for (;;) {
		size_t want = limit < 16 ? (size_t)limit : 16;
		size_t n = want ? input_read(&in, line, want) : 0;

		if (!n)
			break;
		limit -= n;
		if (n == 16 && have_prev && memcmp(line, prev, 16) == 0) {
			if (!starred)
				puts("*");
			starred = 1;
		} else {
			print_line(off, line, n);
			starred = 0;
		}
		memcpy(prev, line, 16);
		have_prev = n == 16;
		off += n;
	}
	if (off)                        /* util-linux prints nothing for no input */
		printf("%08llx\n", off);
	return in.status;
}
