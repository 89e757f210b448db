// SPDX-License-Identifier: MIT
/*
 * blkrrpart DEV - the BLKRRPART ioctl (re-read the partition table) as
 * Linux answers it.  DEV (e.g. sda) must be a fresh disk without a table:
 * the program writes one.
 *
 *   excl_busy     another open file holds DEV with O_EXCL: EBUSY, and the
 *                 holder itself may rescan (Linux's disk_scan_partitions
 *                 claims the disk unless the caller already holds it);
 *   cached_table  a table written through DEV's cache and not synced is
 *                 the one the rescan finds: the kernel writes the cache
 *                 back first, and the partitions appear at once with the
 *                 sizes written (printed as /proc/partitions for the
 *                 host to compare with sfdisk's reading of the image);
 *   part_open     a partition is open: EBUSY, and nothing changes;
 *   on_partition  BLKRRPART on a partition: EINVAL.
 *
 * One "TEST blkrrpart.<case> PASS|FAIL: ..." line each, then the count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdint.h>
#include <sys/ioctl.h>

#ifndef BLKRRPART
#define BLKRRPART 0x125f
#endif

/* The table written: two Linux partitions (MBR type 0x83), in sectors. */
#define P1_START  2048
#define P1_SIZE   8192          /* 4 MiB */
#define P2_START  10240
#define P2_SIZE   16384         /* 8 MiB */

static int passed, failed;
static char dev[32], path[64], part1[64];

static void result(const char *name, const char *why)
{
	if (!why) {
		printf("TEST blkrrpart.%s PASS\n", name);
		passed++;
	} else {
		printf("TEST blkrrpart.%s FAIL: %s\n", name, why);
		failed++;
	}
}

/* ioctl(fd, BLKRRPART): 0, or the errno. */
static int rrpart(int fd)
{
	return ioctl(fd, BLKRRPART, 0) == 0 ? 0 : errno;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void mbr_entry(unsigned char *e, uint32_t start, uint32_t size)
{
	e[4] = 0x83;
	put_le32(e + 8, start);
	put_le32(e + 12, size);
}

/* Blocks (KiB) /proc/partitions gives name, or -1 if it is not listed. */
static long proc_blocks(const char *name)
{
	char line[128];
	long blocks = -1;
	FILE *f = fopen("/proc/partitions", "r");

	if (!f)
		return -1;
	/* "major minor #blocks name" */
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		long b;

		strtol(p, &end, 10);            /* major */
		if (end == p)
			continue;
		strtol(end, &p, 10);            /* minor */
		b = strtol(p, &end, 10);
		while (*end == ' ')
			end++;
		end[strcspn(end, "\n")] = '\0';
		if (strcmp(end, name) == 0)
			blocks = b;
	}
	fclose(f);
	return blocks;
}

static void show_partitions(void)
{
	char line[128];
	FILE *f = fopen("/proc/partitions", "r");

	printf("==> /proc/partitions <==\n");
	while (f && fgets(line, sizeof(line), f))
		fputs(line, stdout);
	if (f)
		fclose(f);
}

static void t_excl_busy(void)
{
	int holder = open(path, O_RDONLY | O_EXCL);
	int other = open(path, O_RDONLY);
	static char why[96];
	int e;

	if (holder < 0 || other < 0) {
		result("excl_busy", "open failed");
		return;
	}
	e = rrpart(other);
	if (e != EBUSY) {
		snprintf(why, sizeof(why), "BLKRRPART while another holds O_EXCL: errno %d, want EBUSY", e);
		result("excl_busy", why);
	} else if ((e = rrpart(holder)) != 0) {
		snprintf(why, sizeof(why), "BLKRRPART by the O_EXCL holder: errno %d, want 0", e);
		result("excl_busy", why);
	} else {
		close(holder);
		holder = -1;
		e = rrpart(other);
		snprintf(why, sizeof(why), "BLKRRPART once the holder closed: errno %d, want 0", e);
		result("excl_busy", e ? why : NULL);
	}
	if (holder >= 0)
		close(holder);
	close(other);
}

static void t_cached_table(void)
{
	static unsigned char mbr[512];
	static char why[128];
	char n1[40], n2[40];
	int fd = open(path, O_RDWR);
	long b1, b2;
	int e;

	if (fd < 0) {
		result("cached_table", "open failed");
		return;
	}
	memset(mbr, 0, sizeof(mbr));
	mbr_entry(mbr + 446, P1_START, P1_SIZE);
	mbr_entry(mbr + 462, P2_START, P2_SIZE);
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	/* through the cache, no fsync: only the cache has the table now */
	if (pwrite(fd, mbr, sizeof(mbr), 0) != (long)sizeof(mbr)) {
		result("cached_table", "pwrite of the table failed");
		close(fd);
		return;
	}
	e = rrpart(fd);
	show_partitions();
	snprintf(n1, sizeof(n1), "%s1", dev);
	snprintf(n2, sizeof(n2), "%s2", dev);
	b1 = proc_blocks(n1);
	b2 = proc_blocks(n2);
	if (e)
		snprintf(why, sizeof(why), "BLKRRPART: errno %d, want 0", e);
	else if (b1 != P1_SIZE / 2 || b2 != P2_SIZE / 2)
		snprintf(why, sizeof(why), "partitions 1 and 2 have %ld and %ld blocks, want %d and %d "
			 "(-1: not listed)", b1, b2, P1_SIZE / 2, P2_SIZE / 2);
	result("cached_table", e || b1 != P1_SIZE / 2 || b2 != P2_SIZE / 2 ? why : NULL);
	close(fd);
}

static void t_part_open(void)
{
	int fd = open(path, O_RDONLY), p = open(part1, O_RDONLY);
	static char why[96];
	int e;

	if (fd < 0 || p < 0) {
		result("part_open", "open failed (no partition 1?)");
		if (fd >= 0)
			close(fd);
		return;
	}
	e = rrpart(fd);
	snprintf(why, sizeof(why), "BLKRRPART with %s open: errno %d, want EBUSY", part1, e);
	result("part_open", e == EBUSY ? NULL : why);
	close(p);
	close(fd);
}

static void t_on_partition(void)
{
	int p = open(part1, O_RDONLY);
	static char why[96];
	int e;

	if (p < 0) {
		result("on_partition", "open failed (no partition 1?)");
		return;
	}
	e = rrpart(p);
	snprintf(why, sizeof(why), "BLKRRPART on %s: errno %d, want EINVAL", part1, e);
	result("on_partition", e == EINVAL ? NULL : why);
	close(p);
}

int main(int argc, char **argv)
{
	snprintf(dev, sizeof(dev), "%s", argc > 1 ? argv[1] : "sda");
	snprintf(path, sizeof(path), "/dev/%s", dev);
	snprintf(part1, sizeof(part1), "/dev/%s1", dev);
	t_excl_busy();
	t_cached_table();
	t_part_open();
	t_on_partition();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
