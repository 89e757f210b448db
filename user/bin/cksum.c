// SPDX-License-Identifier: MIT
/*
 * cksum [FILE]... - POSIX cksum: for each FILE (or stdin, or "-") print
 * "CRC SIZE NAME" (no NAME for stdin), as GNU cksum's default output.
 *
 * The CRC is POSIX's: the 32-bit CRC with generator 0x04C11DB7, bits taken
 * most significant first, over the bytes and then over the length (its
 * bytes least significant first, only as many as it needs), and the
 * result complemented.  It is not zlib's CRC-32 (that one is reflected),
 * so the host's `cksum` is the oracle (tests/user/run.sh).
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#define CKSUM_POLY 0x04C11DB7u

static unsigned int crc_table[256];
static unsigned char buf[65536];

static void crc_init(void)
{
	for (unsigned int i = 0; i < 256; i++) {
		unsigned int c = i << 24;

		for (int k = 0; k < 8; k++)
			c = c & 0x80000000u ? (c << 1) ^ CKSUM_POLY : c << 1;
		crc_table[i] = c;
	}
}

static unsigned int crc_add(unsigned int crc, const unsigned char *p, size_t n)
{
	while (n--)
		crc = (crc << 8) ^ crc_table[(crc >> 24) ^ *p++];
	return crc;
}

static int cksum_fd(int fd, const char *name)
{
	unsigned long long size = 0;
	unsigned int crc = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "cksum: %s: %s\n", name, strerror(errno));
			return 1;
		}
		crc = crc_add(crc, buf, (size_t)n);
		size += (unsigned long long)n;
	}
	for (unsigned long long len = size; len; len >>= 8) {
		unsigned char c = (unsigned char)len;

		crc = crc_add(crc, &c, 1);
	}
	crc = ~crc;
	if (strcmp(name, "-"))
		printf("%u %llu %s\n", crc, size, name);
	else
		printf("%u %llu\n", crc, size);
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0;

	crc_init();
	if (argc < 2)
		return cksum_fd(0, "-");
	for (int i = 1; i < argc; i++) {
		int fd = strcmp(argv[i], "-") ? open(argv[i], O_RDONLY) : 0;

		if (fd < 0) {
			fprintf(stderr, "cksum: %s: %s\n", argv[i], strerror(errno));
			status = 1;
			continue;
		}
		status |= cksum_fd(fd, argv[i]);
		if (fd)
			close(fd);
	}
	return status;
}
