// SPDX-License-Identifier: MIT
/* umount [-l] TARGET... - unmount; -l: lazily (MNT_DETACH). */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/mount.h>

int main(int argc, char **argv)
{
	int flags = 0, status = 0, c;

	while ((c = getopt(argc, argv, "lf")) != -1) {
		if (c == 'l')
			flags |= MNT_DETACH;
		else if (c == 'f')
			flags |= MNT_FORCE;
		else {
			fputs("usage: umount [-lf] TARGET...\n", stderr);
			return 2;
		}
	}
	for (int i = optind; i < argc; i++)
		if (umount2(argv[i], flags) < 0) {
			fprintf(stderr, "umount: %s: %s\n", argv[i], strerror(errno));
			status = 1;
		}
	return status;
}
