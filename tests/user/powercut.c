// SPDX-License-Identifier: MIT
/*
 * powercut DEV BLOCKS - the writer the power-cut test (tools/powercut.py)
 * kills at a random moment.
 *
 * Writes DEV's 64 KiB blocks 0, 1, 2, ... BLOCKS-1 with the verification
 * pattern (seed 21, counted from DEV's start), through the block
 * device's page cache, in groups of two, and after each group an fsync --
 * which writes the dirty pages back, waits for them, and sends the disk a
 * cache flush (REQ_PREFLUSH): once it has returned, the group is durable.
 * (Buffered on purpose: an fsync that returned before its write-back had
 * reached the disk would leave the data in memory, and the cut would lose
 * it.)  Only then does it print
 *
 *     POWERCUT durable <n>       blocks [0, n) are on the disk
 *
 * and before each write it prints "POWERCUT writing <i>" (so the host
 * knows how far the writes may have gone: nothing past the last block
 * begun may change).  The host cuts the power (kills QEMU) somewhere in
 * the middle and checks the raw image against the last "durable" line.
 *
 * powercut -f DIR FILES - the same on a file system: creates DIR/f0,
 * DIR/f1, ... each one BLOCK of the pattern (file i holds the words of
 * bytes [i * BLOCK, (i + 1) * BLOCK), so no two files are alike), and
 * after each one fsync()s the file and then DIR, as a careful program
 * must: a new file's name lives in its directory, which the file's own
 * fsync need not write (on Linux's ext2 it does not).  Then
 *
 *     POWERCUT durable-file <i>  DIR/f<i> is on the disk, name and data
 *
 * The host (tools/powercut.py --fs ext2, or a scenario's check) repairs
 * the image with e2fsck -fy, as ext2 needs after a crash, and reads each
 * durable file back with debugfs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include <pattern.h>

#define SEED    21
#define BLOCK   (64 * 1024)
#define GROUP   2

static unsigned char buf[BLOCK] __attribute__((aligned(4096)));

static int fail(const char *what, long i)
{
	printf("powercut: %s %ld: %s\n", what, i, strerror(errno));
	return 1;
}

static int write_files(const char *dir, long files)
{
	char path[256];
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);

	if (dfd < 0)
		return fail(dir, 0);
	printf("POWERCUT start\n");
	fflush(stdout);
	for (long i = 0; i < files; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/f%ld", dir, i);
		pattern_fill(buf, (uint64_t)i * BLOCK, BLOCK, SEED);
		printf("POWERCUT writing %ld\n", i);
		fflush(stdout);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			return fail("create of file", i);
		if (write(fd, buf, BLOCK) != BLOCK)
			return fail("write of file", i);
		if (fsync(fd))
			return fail("fsync of file", i);
		if (close(fd))
			return fail("close of file", i);
		if (fsync(dfd))
			return fail("fsync of the directory after file", i);
		printf("POWERCUT durable-file %ld\n", i);
		fflush(stdout);
	}
	printf("POWERCUT done\n");
	return 0;
}

int main(int argc, char **argv)
{
	char path[64];
	long blocks;
	int fd;

	if (argc == 4 && !strcmp(argv[1], "-f") && (blocks = strtol(argv[3], NULL, 10)) > 0)
		return write_files(argv[2], blocks);
	if (argc != 3 || (blocks = strtol(argv[2], NULL, 10)) <= 0) {
		fputs("usage: powercut DEV BLOCKS | powercut -f DIR FILES\n", stderr);
		return 2;
	}
	snprintf(path, sizeof(path), "/dev/%s", argv[1]);
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		printf("powercut: %s: %s\n", path, strerror(errno));
		return 1;
	}
	printf("POWERCUT start\n");
	fflush(stdout);
	for (long i = 0; i < blocks; i++) {
		pattern_fill(buf, (uint64_t)i * BLOCK, BLOCK, SEED);
		printf("POWERCUT writing %ld\n", i);
		fflush(stdout);
		if (pwrite(fd, buf, BLOCK, (off_t)i * BLOCK) != BLOCK) {
			printf("powercut: write of block %ld: %s\n", i, strerror(errno));
			return 1;
		}
		if ((i + 1) % GROUP == 0) {
			if (fsync(fd)) {
				printf("powercut: fsync: %s\n", strerror(errno));
				return 1;
			}
			printf("POWERCUT durable %ld\n", i + 1);
			fflush(stdout);
		}
	}
	printf("POWERCUT done\n");
	return 0;
}
