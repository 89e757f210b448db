// SPDX-License-Identifier: MIT
/* cp SRC DST - copy a file; DST may be a directory (then DST/basename(SRC)). */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <limits.h>
#include <sys/stat.h>

static char buf[65536];

static int copy(const char *src, const char *dst)
{
	int in, out, status = 0;
	struct stat st, dst_st;
	ssize_t n;

	in = open(src, O_RDONLY);
	if (in < 0) {
		fprintf(stderr, "cp: cannot open '%s': %s\n", src, strerror(errno));
		return 1;
	}
	if (fstat(in, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "cp: -r not specified; omitting directory '%s'\n", src);
		close(in);
		return 1;
	}
	/* copying a file onto itself would truncate it first: refuse, as GNU */
	if (stat(dst, &dst_st) == 0 && dst_st.st_dev == st.st_dev && dst_st.st_ino == st.st_ino) {
		fprintf(stderr, "cp: '%s' and '%s' are the same file\n", src, dst);
		close(in);
		return 1;
	}
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, st.st_mode & 07777);
	if (out < 0) {
		fprintf(stderr, "cp: cannot create '%s': %s\n", dst, strerror(errno));
		close(in);
		return 1;
	}
	for (;;) {
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;               /* a signal, not an error: again */
		if (n <= 0)
			break;
		if (write_all(out, buf, (size_t)n)) {
			fprintf(stderr, "cp: error writing '%s': %s\n", dst, strerror(errno));
			status = 1;
			goto done;
		}
	}
	if (n < 0) {
		fprintf(stderr, "cp: error reading '%s': %s\n", src, strerror(errno));
		status = 1;
	}
done:
	close(in);
	if (close(out) < 0)
		status = 1;
	return status;
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	struct stat st;
	const char *dst;

	if (argc != 3) {
		fputs("usage: cp SRC DST\n", stderr);
		return 2;
	}
	dst = argv[2];
	if (stat(dst, &st) == 0 && S_ISDIR(st.st_mode)) {
		const char *base = strrchr(argv[1], '/');

		snprintf(path, sizeof(path), "%s/%s", dst, base ? base + 1 : argv[1]);
		dst = path;
	}
	return copy(argv[1], dst);
}
