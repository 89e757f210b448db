// SPDX-License-Identifier: MIT
/*
 * hostile_dio_leak DEV... - does a read of a device that fills nothing
 * hand out someone else's memory?
 *
 * null_blk (and QEMU's null-co disk) complete a read without writing the
 * buffer.  With Linux's zero-copy O_DIRECT the buffer is the reader's own,
 * so it keeps what the reader had there; a kernel that bounces through
 * its own pages must give zeros.  Either way, every byte returned must be
 * zero or the reader's own prior content -- never memory another process
 * freed a moment ago.
 *
 * For each DEV (e.g. nullb0), ROUNDS times: write a recognisable secret
 * to a file in /tmp and unlink it (its pages go back to the kernel, most
 * recently freed first), then read 1 MiB of DEV with O_DIRECT and, after
 * another secret, 1 MiB through the cache (a fresh part each round),
 * into a buffer the reader filled with its own byte.  Prints
 * "TEST hostile_dio_leak.<dev>_<direct|cached> PASS|FAIL: ..." and the
 * closing count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#define READ_BYTES  (1024 * 1024)
#define ROUNDS      4
#define OWN_BYTE    0x5c                        /* the reader's own content */
#define SECRET_FILE "/tmp/hostile_dio_leak.secret"

static unsigned char buf[READ_BYTES] __attribute__((aligned(4096)));
static unsigned char secret[READ_BYTES];
static int passed, failed;

/* Someone else's data: written to a file, then the file is removed. */
static int drop_secret(void)
{
	int fd = open(SECRET_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	long n;

	if (fd < 0)
		return -1;
	n = write(fd, secret, sizeof(secret));
	close(fd);
	unlink(SECRET_FILE);
	return n == (long)sizeof(secret) ? 0 : -1;
}

/* Bytes of buf that are neither zero nor the reader's own; *first: where. */
static long foreign_bytes(long n, long *first)
{
	long bad = 0;

	*first = -1;
	for (long i = 0; i < n; i++)
		if (buf[i] != 0 && buf[i] != OWN_BYTE) {
			if (*first < 0)
				*first = i;
			bad++;
		}
	return bad;
}

static void run(const char *dev, int direct)
{
	char path[64];
	long bad = 0, first = -1, got = 0;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/dev/%s", dev);
	fd = open(path, O_RDONLY | (direct ? O_DIRECT : 0));
	if (fd < 0) {
		printf("TEST hostile_dio_leak.%s_%s FAIL: open %s: %s\n", dev,
		       direct ? "direct" : "cached", path, strerror(errno));
		failed++;
		return;
	}
	for (int r = 0; r < ROUNDS && !err; r++) {
		long n, f;

		if (drop_secret() < 0) {
			err = errno ? errno : EIO;
			break;
		}
		memset(buf, OWN_BYTE, sizeof(buf));
		n = pread(fd, buf, READ_BYTES, (long)r * READ_BYTES);
		if (n != READ_BYTES) {
			err = n < 0 ? errno : EIO;
			break;
		}
		got += n;
		n = foreign_bytes(n, &f);
		if (n && first < 0)
			first = (long)r * READ_BYTES + f;
		bad += n;
	}
	close(fd);
	if (err) {
		printf("TEST hostile_dio_leak.%s_%s FAIL: errno %d (%s) after %ld bytes\n",
		       dev, direct ? "direct" : "cached", err, strerror(err), got);
		failed++;
	} else if (bad) {
		printf("TEST hostile_dio_leak.%s_%s FAIL: %ld of %ld bytes were neither zero "
		       "nor the reader's own, the first at %ld\n",
		       dev, direct ? "direct" : "cached", bad, got, first);
		failed++;
	} else {
		printf("TEST hostile_dio_leak.%s_%s PASS\n", dev, direct ? "direct" : "cached");
		passed++;
	}
}

int main(int argc, char **argv)
{
	for (int i = 0; i < READ_BYTES; i++)
		secret[i] = "SPINDLE-SECRET:"[i % 15];
	for (int i = 1; i < argc; i++) {
		run(argv[i], 1);
		run(argv[i], 0);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
