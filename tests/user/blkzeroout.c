// SPDX-License-Identifier: MIT
/*
 * blkzeroout DEV OFFSET LENGTH [DEV2] - the BLKZEROOUT ioctl as Linux
 * answers it (block/ioctl.c): make LENGTH bytes at OFFSET of DEV read as
 * zeroes, the device doing the work (NVMe's Write Zeroes).
 *
 *   readonly    a file open read-only: EBADF, nothing written;
 *   unaligned   an offset or length not a multiple of 512, or a range
 *               past the end: EINVAL;
 *   zeroout     the range, after its old contents were read into the
 *               page cache: the ioctl succeeds and a buffered read then
 *               sees zeroes (the cached pages were dropped), and the host
 *               checks the image;
 *   nosupport   DEV2, a disk without write-zeroes: EOPNOTSUPP (Spindle
 *               does not fall back to writing pages of zeroes);
 *   fallocate   fallocate(FALLOC_FL_ZERO_RANGE) of the half MiB after the
 *               range (as mke2fs zeroes its inode tables): zeroes read
 *               back; Linux's errnos for a read-only file (EBADF), a
 *               hole punched without KEEP_SIZE (EOPNOTSUPP), a range past
 *               the end without KEEP_SIZE (EINVAL), and DEV2 (EOPNOTSUPP).
 *
 * OFFSET and LENGTH are bytes.  One "TEST blkzeroout.<case> PASS|FAIL"
 * line each, then the count.  Exit status 0 when all pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <asm/unistd_64.h>

#ifndef BLKZEROOUT
#define BLKZEROOUT 0x127f
#endif

static int passed, failed;

static void result(const char *name, const char *why)
{
	printf("TEST blkzeroout.%s %s%s\n", name, why ? "FAIL: " : "PASS", why ? why : "");
	if (why)
		failed++;
	else
		passed++;
}

/* ioctl(fd, BLKZEROOUT, {off, len}): 0, or the errno. */
static int zeroout(int fd, uint64_t off, uint64_t len)
{
	uint64_t range[2] = { off, len };

	return ioctl(fd, BLKZEROOUT, range) == 0 ? 0 : errno;
}

#define FALLOC_FL_KEEP_SIZE     0x01
#define FALLOC_FL_PUNCH_HOLE    0x02
#define FALLOC_FL_ZERO_RANGE    0x10

/* fallocate(2): 0, or the errno. */
static int falloc(int fd, int mode, uint64_t off, uint64_t len)
{
	return syscall(__NR_fallocate, fd, mode, (long)off, (long)len) == 0 ? 0 : errno;
}

/* Read [off, off + len) through the page cache; the count of non-zero
 * bytes, or -1 on a read error. */
static long nonzero(int fd, uint64_t off, uint64_t len)
{
	static unsigned char buf[65536];
	long n = 0;

	while (len) {
		size_t k = len < sizeof(buf) ? len : sizeof(buf);

		if (pread(fd, buf, k, (off_t)off) != (ssize_t)k)
			return -1;
		for (size_t i = 0; i < k; i++)
			n += buf[i] != 0;
		off += k;
		len -= k;
	}
	return n;
}

static int open_dev(const char *name, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/%s", name);
	return open(path, flags);
}

int main(int argc, char **argv)
{
	uint64_t off, len, size = 0;
	char why[80];
	long before, after;
	int fd, err;

	if (argc < 4) {
		fprintf(stderr, "usage: blkzeroout DEV OFFSET LENGTH [DEV2]\n");
		return 2;
	}
	off = strtoull(argv[2], NULL, 0);
	len = strtoull(argv[3], NULL, 0);

	fd = open_dev(argv[1], O_RDONLY);
	err = fd < 0 ? errno : zeroout(fd, off, len);
	snprintf(why, sizeof(why), "errno %d, not EBADF", err);
	result("readonly", err == EBADF ? NULL : why);
	if (fd >= 0)
		close(fd);

	fd = open_dev(argv[1], O_RDWR);
	if (fd < 0) {
		result("unaligned", "cannot open DEV read-write");
		return 1;
	}
	size = (uint64_t)lseek(fd, 0, SEEK_END);
	err = zeroout(fd, off + 1, len);
	if (err == EINVAL)
		err = zeroout(fd, off, len - 256);
	if (err == EINVAL)
		err = zeroout(fd, size - 512, 1024);
	snprintf(why, sizeof(why), "errno %d, not EINVAL", err);
	result("unaligned", err == EINVAL ? NULL : why);

	before = nonzero(fd, off, len);         /* the old contents, now cached */
	err = zeroout(fd, off, len);
	after = nonzero(fd, off, len);
	snprintf(why, sizeof(why), "ioctl errno %d; %ld non-zero bytes before, %ld after",
		 err, before, after);
	result("zeroout", !err && before > 0 && after == 0 ? NULL : why);

	{
		uint64_t half = len / 2, at = off + len + half;
		int ro = open_dev(argv[1], O_RDONLY), e_ro, e_punch, e_end, e_dev2 = EOPNOTSUPP;

		e_ro = ro < 0 ? -1 : falloc(ro, FALLOC_FL_ZERO_RANGE, at, half);
		if (ro >= 0)
			close(ro);
		e_punch = falloc(fd, FALLOC_FL_PUNCH_HOLE, at, half);
		e_end = falloc(fd, FALLOC_FL_ZERO_RANGE, size - 512, 1024);
		before = nonzero(fd, at, half);
		err = falloc(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, at, half);
		after = nonzero(fd, at, half);
		if (argc > 4) {
			int fd2 = open_dev(argv[4], O_RDWR);

			e_dev2 = fd2 < 0 ? -1 : falloc(fd2, FALLOC_FL_ZERO_RANGE, 0, 4096);
			if (fd2 >= 0)
				close(fd2);
		}
		snprintf(why, sizeof(why), "errno %d (ro %d punch %d end %d dev2 %d); %ld non-zero, then %ld",
			 err, e_ro, e_punch, e_end, e_dev2, before, after);
		result("fallocate", !err && e_ro == EBADF && e_punch == EOPNOTSUPP && e_end == EINVAL &&
		       e_dev2 == EOPNOTSUPP && before > 0 && after == 0 ? NULL : why);
	}
	close(fd);

	if (argc > 4) {
		fd = open_dev(argv[4], O_RDWR);
		err = fd < 0 ? errno : zeroout(fd, 0, 4096);
		snprintf(why, sizeof(why), "errno %d, not EOPNOTSUPP", err);
		result("nosupport", err == EOPNOTSUPP ? NULL : why);
		if (fd >= 0)
			close(fd);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
