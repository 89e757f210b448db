// SPDX-License-Identifier: MIT
/*
 * rwf DISK - preadv2/pwritev2 (syscalls 327, 328) and their RWF_* flags
 * as Linux answers them (fs/read_write.c):
 *
 *   badflag     a flag Linux does not know (0x80): EOPNOTSUPP;
 *   nowait      RWF_NOWAIT on a block device: EOPNOTSUPP (Linux's answer
 *               for a file without FMODE_NOWAIT; Spindle marks none);
 *   empty       nothing to move: 0, whatever the flags (Linux looks at
 *               them only when there is something to do);
 *   badoffset   an offset below -1: EINVAL;
 *   readonly    pwritev2 on a descriptor open for reading: EBADF;
 *   pipe        an offset on a pipe: ESPIPE; -1 (the file position)
 *               reads it;
 *   fpos        offset -1 reads at the file position and moves it, as
 *               readv does;
 *   vector      two buffers filled in order, the count of both;
 *   manyvec     twelve buffers (more than the eight Linux copies the
 *               vector into on its stack, UIO_FASTIOV), in order;
 *   badvec      a vector of 1025 buffers (UIO_MAXIOV is 1024): EINVAL;
 *               one the process cannot read: EFAULT; a buffer length
 *               that is negative as a ssize_t: EINVAL;
 *   dsync       a buffered pwritev2 with RWF_DSYNC is on the disk when
 *               it returns: the disk's completed writes
 *               (/sys/block/DISK/stat) grew before the call came back.
 *
 * DISK is a disk under /dev with at least 1 MiB; its last MiB is
 * overwritten.  One "TEST rwf.<case> PASS|FAIL" line each, then the
 * count.  Exit status 0 when all pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdint.h>
#include <sys/uio.h>

static int passed, failed;

static void result(const char *name, const char *why)
{
	printf("TEST rwf.%s %s%s\n", name, why ? "FAIL: " : "PASS", why ? why : "");
	if (why)
		failed++;
	else
		passed++;
}

/* An error's errno, or 0 when the call succeeded. */
static int err_of(ssize_t r)
{
	return r < 0 ? errno : 0;
}

static void expect_errno(const char *name, ssize_t r, int want)
{
	char why[64];

	snprintf(why, sizeof(why), "returned %ld errno %d, not errno %d", (long)r, err_of(r), want);
	result(name, r < 0 && errno == want ? NULL : why);
}

/* The disk's completed writes: field 5 of /sys/block/DISK/stat. */
static long writes_done(const char *disk)
{
	char path[96], text[256], *p = text;
	long v = -1;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/block/%s/stat", disk);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = 0;
	for (int i = 0; i < 5; i++)
		v = strtol(p, &p, 10);
	return v;
}

int main(int argc, char **argv)
{
	static char buf[8192], two[2][512];
	struct iovec v = { buf, 512 }, vv[2] = { { two[0], 512 }, { two[1], 512 } };
	char path[64], why[96];
	int fd, p[2];
	off_t end, at;
	long before, after;
	ssize_t r;

	if (argc != 2) {
		fprintf(stderr, "usage: rwf DISK\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/dev/%s", argv[1]);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	end = lseek(fd, 0, SEEK_END);
	expect_errno("badflag", preadv2(fd, &v, 1, 0, 0x80), EOPNOTSUPP);
	expect_errno("nowait", preadv2(fd, &v, 1, 0, RWF_NOWAIT), EOPNOTSUPP);
	{
		struct iovec none = { buf, 0 };

		r = preadv2(fd, &none, 1, 0, 0x80);
		snprintf(why, sizeof(why), "returned %ld errno %d, not 0", (long)r, err_of(r));
		result("empty", r == 0 ? NULL : why);
	}
	expect_errno("badoffset", preadv2(fd, &v, 1, -2, 0), EINVAL);
	expect_errno("readonly", pwritev2(fd, &v, 1, 0, 0), EBADF);

	if (pipe(p) == 0) {
		int e;

		write(p[1], "pipe", 4);
		e = err_of(preadv2(p[0], &v, 1, 0, 0)) == ESPIPE;
		r = preadv2(p[0], &v, 1, -1, 0);
		snprintf(why, sizeof(why), "offset 0: %s; offset -1: %ld", e ? "ESPIPE" : "not ESPIPE",
			 (long)r);
		result("pipe", e && r == 4 && !memcmp(buf, "pipe", 4) ? NULL : why);
		close(p[0]);
		close(p[1]);
	} else {
		result("pipe", "no pipe");
	}

	lseek(fd, 4096, SEEK_SET);
	r = preadv2(fd, &v, 1, -1, RWF_HIPRI);
	at = lseek(fd, 0, SEEK_CUR);
	snprintf(why, sizeof(why), "read %ld, position %ld", (long)r, (long)at);
	result("fpos", r == 512 && at == 4096 + 512 ? NULL : why);
	close(fd);

	fd = open(path, O_RDWR);
	if (fd < 0 || end < (1 << 20)) {
		result("vector", "cannot open DISK read-write, or it is under 1 MiB");
		return 1;
	}
	memset(buf, 0x11, 512);
	memset(buf + 512, 0x22, 512);
	r = pwrite(fd, buf, 1024, end - 4096);
	memset(two, 0, sizeof(two));
	r = r == 1024 ? preadv2(fd, vv, 2, end - 4096, 0) : -1;
	snprintf(why, sizeof(why), "read %ld", (long)r);
	result("vector", r == 1024 && two[0][511] == 0x11 && two[1][0] == 0x22 ? NULL : why);

	{
		static unsigned char many[12][512];
		struct iovec mv[12];
		int good = 1;

		for (int i = 0; i < 12; i++) {
			memset(buf + i * 512, 0x30 + i, 512);
			mv[i] = (struct iovec){ many[i], 512 };
		}
		r = pwrite(fd, buf, 12 * 512, end - 65536);
		r = r == 12 * 512 ? preadv2(fd, mv, 12, end - 65536, 0) : -1;
		for (int i = 0; i < 12; i++)
			good &= many[i][0] == 0x30 + i && many[i][511] == 0x30 + i;
		snprintf(why, sizeof(why), "read %ld, buffers %s", (long)r, good ? "right" : "wrong");
		result("manyvec", r == 12 * 512 && good ? NULL : why);
	}
	{
		static struct iovec lots[1025];
		struct iovec neg = { buf, (size_t)-1 }, *volatile nowhere = NULL;
		int e1, e2, e3;

		for (int i = 0; i < 1025; i++)
			lots[i] = (struct iovec){ buf, 1 };
		e1 = err_of(preadv2(fd, lots, 1025, 0, 0));
		e2 = err_of(preadv2(fd, nowhere, 1, 0, 0));
		e3 = err_of(preadv2(fd, &neg, 1, 0, 0));
		snprintf(why, sizeof(why), "errno %d, %d, %d: not %d, %d, %d", e1, e2, e3, EINVAL,
			 EFAULT, EINVAL);
		result("badvec", e1 == EINVAL && e2 == EFAULT && e3 == EINVAL ? NULL : why);
	}

	memset(buf, 0x5a, sizeof(buf));
	v.iov_len = 4096;
	before = writes_done(argv[1]);
	r = pwritev2(fd, &v, 1, end - 8192, RWF_DSYNC);
	after = writes_done(argv[1]);
	snprintf(why, sizeof(why), "wrote %ld; completed writes %ld then %ld", (long)r, before,
		 after);
	result("dsync", r == 4096 && before >= 0 && after > before ? NULL : why);
	close(fd);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
