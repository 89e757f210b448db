// SPDX-License-Identifier: MIT
/*
 * readprofile [-n N] [-r] - the kernel profile by function, in the guest,
 * as util-linux's readprofile(8) prints it:
 *
 *      18 blk_mq_make_request                        0.0095
 *     196 total                                      0.0007
 *
 * samples, function, and samples per byte of the function ("load").  The
 * counts come from /proc/profile (boot with profile=<shift>; the first
 * u32 is the bucket size, then one u32 per bucket of kernel text from
 * _stext), the names and addresses from /proc/kallsyms.  Functions with
 * no sample are left out; with -n N only the N with the most samples are
 * shown, most first (otherwise in address order, as readprofile does).
 * -r resets the counts (writes to /proc/profile) and prints nothing.
 * On the host, tools/profile-report.sh does the same with the real
 * readprofile and build/System.map.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#define MAX_SYMS 8192

struct sym {
	uint64_t addr;
	char name[48];
	uint64_t samples;
	uint64_t size; /* to the next function */
};

static struct sym syms[MAX_SYMS];
static int nsyms;

/* The whole of a /proc file, malloc'ed; its length in *len. */
static char *slurp(const char *path, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0 || !buf) {
		fprintf(stderr, "readprofile: %s: %s\n", path, strerror(fd < 0 ? errno : ENOMEM));
		exit(1);
	}
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap) {
			char *bigger = realloc(buf, cap * 2);

			if (!bigger) {
				fputs("readprofile: out of memory\n", stderr);
				exit(1);
			}
			buf = bigger;
			cap *= 2;
		}
	}
	close(fd);
	*len = n;
	return buf;
}

static int by_samples(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1
								     : 0;
}

int main(int argc, char **argv)
{
	char *text, *line, *prof;
	size_t tlen, plen;
	uint64_t step, nbuckets, stext = 0, total = 0;
	int top = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			top = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-r")) {
			int fd = open("/proc/profile", O_WRONLY);

			if (fd < 0 || write(fd, "0", 1) != 1) {
				fprintf(stderr, "readprofile: /proc/profile: %s\n", strerror(errno));
				return 1;
			}
			close(fd);
			return 0;
		} else {
			fputs("usage: readprofile [-n N] [-r]\n", stderr);
			return 2;
		}
	}
	prof = slurp("/proc/profile", &plen);
	if (plen < 8) {
		fputs("readprofile: /proc/profile is empty (boot with profile=2)\n", stderr);
		return 1;
	}
	memcpy(&step, prof, 4);
	step &= 0xffffffffu;
	nbuckets = plen / 4 - 1;

	text = slurp("/proc/kallsyms", &tlen);
	text[tlen ? tlen - 1 : 0] = '\0';
	for (line = strtok(text, "\n"); line && nsyms < MAX_SYMS; line = strtok(NULL, "\n")) {
		char *name = strchr(line, ' ');

		if (!name || name[1] == '\0' || name[2] != ' ')
			continue;
		syms[nsyms].addr = strtoull(line, NULL, 16);
		snprintf(syms[nsyms].name, sizeof(syms[nsyms].name), "%s", name + 3);
		if (!strcmp(syms[nsyms].name, "_stext"))
			stext = syms[nsyms].addr;
		nsyms++;
	}
	if (!stext || nsyms < 2) {
		fputs("readprofile: no _stext in /proc/kallsyms\n", stderr);
		return 1;
	}
	/* each bucket's samples go to the function holding its address */
	for (uint64_t b = 0; b < nbuckets; b++) {
		uint32_t count;
		uint64_t addr = stext + b * step;
		int lo = 0, hi = nsyms - 1;

		memcpy(&count, prof + 4 + b * 4, 4);
		if (!count)
			continue;
		total += count;
		while (lo < hi) { /* the last symbol <= addr */
			int mid = (lo + hi + 1) / 2;

			if (syms[mid].addr <= addr)
				lo = mid;
			else
				hi = mid - 1;
		}
		syms[lo].samples += count;
	}
	for (int i = 0; i + 1 < nsyms; i++)
		syms[i].size = syms[i + 1].addr - syms[i].addr;
	if (top > 0)
		qsort(syms, (size_t)nsyms, sizeof(syms[0]), by_samples);
	for (int i = 0, shown = 0; i < nsyms && (top <= 0 || shown < top); i++) {
		/* load = samples per byte, to four places (no floating point here) */
		uint64_t load = syms[i].size ? syms[i].samples * 10000 / syms[i].size : 0;

		if (!syms[i].samples)
			continue;
		printf("%6llu %-40s %4llu.%04llu\n", (unsigned long long)syms[i].samples,
		       syms[i].name, (unsigned long long)(load / 10000),
		       (unsigned long long)(load % 10000));
		shown++;
	}
	printf("%6llu %-40s\n", (unsigned long long)total, "total");
	return 0;
}
