// SPDX-License-Identifier: MIT
/* sleep SECONDS[.FRACTION] - wait that long (nanosleep). */
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <time.h>
#include <errno.h>

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 0 };
	char *end;

	if (argc != 2) {
		fputs("usage: sleep SECONDS\n", stderr);
		return 2;
	}
	ts.tv_sec = strtol(argv[1], &end, 10);
	if (*end == '.') {
		long scale = 100000000;

		for (end++; isdigit((unsigned char)*end) && scale; end++, scale /= 10)
			ts.tv_nsec += (*end - '0') * scale;
		while (isdigit((unsigned char)*end))
			end++;
	}
	if (*end || end == argv[1] || ts.tv_sec < 0) {
		fprintf(stderr, "sleep: invalid time interval '%s'\n", argv[1]);
		return 2;
	}
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return 0;
}
