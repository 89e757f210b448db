// SPDX-License-Identifier: MIT
/*
 * pattern write|verify DEV OFFSET LENGTH SEED [hipri] - the verification pattern,
 * from user space; the same line as the kernel's pattern= boot
 * option:
 *
 *   PATTERN write sda 0 1048576 OK
 *   PATTERN verify sda 0 1048576 FAIL: 4100        (the first bad byte)
 *
 * DEV is a name under /dev (sda, sda1, dm-0) or a path (it has a '/').
 * OFFSET and LENGTH are bytes, K/M/G/T suffixes allowed (binary), multiples
 * of 512; SEED is a number (0x... works).  The 8-byte little-endian word
 * at byte offset 8k of the device is splitmix64(SEED + k), k counted from
 * the start of DEV.  A block device is opened with O_DIRECT, so the data
 * really goes to (and comes from) the disk, not the page cache; a write
 * ends with fsync.  With hipri, every read and write is a preadv2 or
 * pwritev2 with RWF_HIPRI: polled for on a disk with poll queues
 * (nvme.poll_queues=).  Exit status 0 when OK.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <pattern.h>
#include <memparse.h>

#define CHUNK (256 * 1024)      /* bytes per read or write */
#define SECTOR 512

static int report(const char *op, const char *dev, uint64_t off, uint64_t len, const char *why)
{
	if (why)
		printf("PATTERN %s %s %llu %llu FAIL: %s\n", op, dev, (unsigned long long)off,
		       (unsigned long long)len, why);
	else
		printf("PATTERN %s %s %llu %llu OK\n", op, dev, (unsigned long long)off,
		       (unsigned long long)len);
	return why ? 1 : 0;
}

int main(int argc, char **argv)
{
	static char why[96];
	uint64_t off, len, seed;
	const char *op, *dev;
	char path[256];
	struct stat st;
	uint64_t *buf;
	int fd, write_mode, flags, hipri;

	hipri = argc == 7 && !strcmp(argv[6], "hipri");
	if ((argc != 6 && !hipri) || (strcmp(argv[1], "write") && strcmp(argv[1], "verify"))) {
		fputs("usage: pattern write|verify DEV OFFSET LENGTH SEED [hipri]\n", stderr);
		return 2;
	}
	op = argv[1];
	dev = argv[2];
	write_mode = !strcmp(op, "write");
	if (parse_size(argv[3], &off))
		return report(op, dev, 0, 0, "bad offset");
	if (parse_size(argv[4], &len))
		return report(op, dev, off, 0, "bad length");
	if (parse_size(argv[5], &seed))
		return report(op, dev, off, len, "bad seed");
	if (off % SECTOR || len % SECTOR || !len)
		return report(op, dev, off, len, "offset and length must be non-zero multiples of 512");
	snprintf(path, sizeof(path), strchr(dev, '/') ? "%s" : "/dev/%s", dev);

	flags = write_mode ? O_WRONLY : O_RDONLY;
	if (stat(path, &st) == 0 && S_ISBLK(st.st_mode))
		flags |= O_DIRECT;
	fd = open(path, flags);
	if (fd < 0) {
		snprintf(why, sizeof(why), "%s: %s", path, strerror(errno));
		return report(op, dev, off, len, why);
	}
	/* page-aligned memory, as O_DIRECT needs */
	buf = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return report(op, dev, off, len, "out of memory");

	for (uint64_t done = 0; done < len;) {
		size_t n = len - done < CHUNK ? (size_t)(len - done) : CHUNK;
		uint64_t k = (off + done) / 8;          /* the first word's index */
		struct iovec v = { buf, n };
		ssize_t r;

		if (write_mode) {
			for (size_t i = 0; i < n / 8; i++)
				buf[i] = splitmix64(seed + k + i);
			r = hipri ? pwritev2(fd, &v, 1, (off_t)(off + done), RWF_HIPRI)
				  : pwrite(fd, buf, n, (off_t)(off + done));
		} else {
			r = hipri ? preadv2(fd, &v, 1, (off_t)(off + done), RWF_HIPRI)
				  : pread(fd, buf, n, (off_t)(off + done));
		}
		if (r != (ssize_t)n) {
			if (r >= 0)
				snprintf(why, sizeof(why), "short %s at byte %llu", write_mode ? "write" : "read",
					 (unsigned long long)(off + done + (uint64_t)r));
			else
				snprintf(why, sizeof(why), "I/O error -%d in bytes %llu-%llu", errno,
					 (unsigned long long)(off + done),
					 (unsigned long long)(off + done + n - 1));
			return report(op, dev, off, len, why);
		}
		for (size_t i = 0; !write_mode && i < n / 8; i++) {
			uint64_t want = splitmix64(seed + k + i);

			if (buf[i] != want) {
				const unsigned char *g = (const unsigned char *)&buf[i];
				const unsigned char *w = (const unsigned char *)&want;
				int b = 0;

				while (g[b] == w[b])
					b++;
				snprintf(why, sizeof(why), "%llu",
					 (unsigned long long)(off + done + 8 * i + (uint64_t)b));
				return report(op, dev, off, len, why);
			}
		}
		done += n;
	}
	if (write_mode && fsync(fd) < 0) {
		snprintf(why, sizeof(why), "fsync: %s", strerror(errno));
		return report(op, dev, off, len, why);
	}
	close(fd);
	return report(op, dev, off, len, NULL);
}
