// SPDX-License-Identifier: MIT
/*
 * access [-n] MODE PATH... - ask access(2) (with -n: faccessat2 with
 * AT_SYMLINK_NOFOLLOW, so a symbolic link is asked about itself) whether
 * PATH may be read, written, executed: MODE is any of r, w, x (or f,
 * existence).  One line per PATH: "ACCESS <mode> <path>: OK" or the
 * error's text, so a scenario can expect e.g. EROFS on a read-only mount.
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <asm/unistd_64.h>

#define AT_SYMLINK_NOFOLLOW 0x100

int main(int argc, char **argv)
{
	int nofollow = argc > 1 && !strcmp(argv[1], "-n");
	int mode = 0, i = 1 + nofollow;

	if (argc - i < 2) {
		fputs("usage: access [-n] MODE PATH...\n", stderr);
		return 2;
	}
	if (strchr(argv[i], 'r'))
		mode |= R_OK;
	if (strchr(argv[i], 'w'))
		mode |= W_OK;
	if (strchr(argv[i], 'x'))
		mode |= X_OK;
	for (int ret = 0; ++i < argc; ret = 0) {
		if (nofollow)
			ret = (int)syscall(__NR_faccessat2, AT_FDCWD, argv[i], mode,
					   AT_SYMLINK_NOFOLLOW);
		else
			ret = (int)syscall(__NR_access, argv[i], mode);
		printf("ACCESS %s%s %s: %s\n", nofollow ? "-n " : "", argv[1 + nofollow], argv[i],
		       ret < 0 ? strerror(errno) : "OK");
	}
	return 0;
}
