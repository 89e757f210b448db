// SPDX-License-Identifier: MIT
/*
 * blkstat [-i SECS] [-c COUNT] [DEV]... - per-disk activity, iostat-style,
 * from the growth of /proc/diskstats over each interval:
 *
 *   Device      r/s     w/s    rkB/s    wkB/s  await
 *   sda        12.0   310.5     48.0  39744.0    2.3
 *
 * r/s w/s: requests completed per second; rkB/s wkB/s: kilobytes moved
 * per second; await: the mean time a request took, queueing included,
 * in milliseconds (time spent reading + writing / requests).  The fields
 * used, from Linux's Documentation/admin-guide/iostats.rst: 1 reads
 * completed, 3 sectors read, 4 ms reading, 5 writes completed, 7
 * sectors written, 8 ms writing.  Default: every disk that did anything,
 * one report over 1 second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdint.h>
#include <time.h>

#define MAX_DEVS 64

struct disk {
	char name[32];
	uint64_t rd, rsect, rms, wr, wsect, wms;
};

static int read_diskstats(struct disk *d, int max)
{
	static char buf[16384];
	int fd = open("/proc/diskstats", O_RDONLY), n = 0;
	ssize_t len, got = 0;
	char *line;

	if (fd < 0) {
		perror("blkstat: /proc/diskstats");
		exit(1);
	}
	while ((len = read(fd, buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += len;
	close(fd);
	buf[got] = '\0';
	for (char *p = buf; (line = strsep(&p, "\n")) != NULL && n < max;) {
		uint64_t v[11];
		char *q = line, *name;
		int f;

		strtoul(q, &q, 10);             /* major */
		strtoul(q, &q, 10);             /* minor */
		while (*q == ' ')
			q++;
		name = q;
		while (*q && *q != ' ')
			q++;
		if (!*q)
			continue;
		*q++ = '\0';
		for (f = 0; f < 11; f++) {
			char *end;

			v[f] = strtoull(q, &end, 10);
			if (end == q)
				break;
			q = end;
		}
		if (f < 8)
			continue;
		snprintf(d[n].name, sizeof(d[n].name), "%s", name);
		d[n].rd = v[0], d[n].rsect = v[2], d[n].rms = v[3];
		d[n].wr = v[4], d[n].wsect = v[6], d[n].wms = v[7];
		n++;
	}
	return n;
}

static int wanted(const char *name, char **devs, int ndevs)
{
	if (!ndevs)
		return 1;
	for (int i = 0; i < ndevs; i++)
		if (!strcmp(name, devs[i]))
			return 1;
	return 0;
}

/* x / secs with one decimal, as "%lu.%lu", computed in tenths */
static void rate(char *out, size_t size, uint64_t x, uint64_t ms)
{
	uint64_t t = ms ? x * 10000 / ms : 0;   /* tenths per second */

	snprintf(out, size, "%llu.%llu", (unsigned long long)(t / 10), (unsigned long long)(t % 10));
}

int main(int argc, char **argv)
{
	static struct disk before[MAX_DEVS], after[MAX_DEVS];
	unsigned long secs = 1, count = 1;
	int c, nb;

	while ((c = getopt(argc, argv, "i:c:")) != -1) {
		if (c == 'i')
			secs = strtoul(optarg, NULL, 10);
		else if (c == 'c')
			count = strtoul(optarg, NULL, 10);
		else {
			fputs("usage: blkstat [-i SECS] [-c COUNT] [DEV]...\n", stderr);
			return 2;
		}
	}
	if (!secs)
		secs = 1;
	nb = read_diskstats(before, MAX_DEVS);
	for (unsigned long k = 0; k < count; k++) {
		struct timespec t0, t1;
		uint64_t ms;
		int na;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		sleep((unsigned)secs);
		na = read_diskstats(after, MAX_DEVS);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000 +
		     (uint64_t)((t1.tv_nsec - t0.tv_nsec) / 1000000);
		printf("%-10s %8s %8s %10s %10s %7s\n", "Device", "r/s", "w/s", "rkB/s", "wkB/s",
		       "await");
		for (int i = 0; i < na; i++) {
			struct disk *a = &after[i], zero = { .rd = 0 }, *b = &zero;
			char rs[24], ws[24], rk[24], wk[24], aw[24];
			uint64_t ios, tms;

			for (int x = 0; x < nb; x++)
				if (!strcmp(before[x].name, a->name))
					b = &before[x];
			ios = (a->rd - b->rd) + (a->wr - b->wr);
			if (!wanted(a->name, argv + optind, argc - optind) ||
			    (optind == argc && !ios && a->rsect == b->rsect && a->wsect == b->wsect))
				continue;
			rate(rs, sizeof(rs), a->rd - b->rd, ms);
			rate(ws, sizeof(ws), a->wr - b->wr, ms);
			rate(rk, sizeof(rk), (a->rsect - b->rsect) / 2, ms);
			rate(wk, sizeof(wk), (a->wsect - b->wsect) / 2, ms);
			tms = (a->rms - b->rms) + (a->wms - b->wms);
			snprintf(aw, sizeof(aw), "%llu.%llu",
				 (unsigned long long)(ios ? tms * 10 / ios / 10 : 0),
				 (unsigned long long)(ios ? tms * 10 / ios % 10 : 0));
			printf("%-10s %8s %8s %10s %10s %7s\n", a->name, rs, ws, rk, wk, aw);
		}
		if (k + 1 < count)
			putchar('\n');
		fflush(stdout);
		memcpy(before, after, sizeof(before));
		nb = na;
	}
	return 0;
}
