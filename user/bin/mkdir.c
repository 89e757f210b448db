// SPDX-License-Identifier: MIT
/* mkdir [-p] DIR... - make directories; -p: parents too, no error if present. */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <limits.h>
#include <sys/stat.h>

static int make_parents(const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!len) {
		errno = ENOENT;                 /* mkdir -p "" */
		return -1;
	}
	memcpy(buf, path, len + 1);
	/* make each prefix that ends before a '/', then the whole path */
	for (char *p = buf + 1; ; p++) {
		if (*p == '/' || !*p) {
			char saved = *p;
			struct stat st;

			*p = '\0';
			if (mkdir(buf, 0777) < 0 &&
			    !(errno == EEXIST && stat(buf, &st) == 0 && S_ISDIR(st.st_mode)))
				return -1;
			*p = saved;
			if (!saved)
				return 0;
		}
	}
}

int main(int argc, char **argv)
{
	int parents = 0, status = 0, c;

	while ((c = getopt(argc, argv, "p")) != -1) {
		if (c != 'p') {
			fputs("usage: mkdir [-p] DIR...\n", stderr);
			return 2;
		}
		parents = 1;
	}
	if (optind == argc) {
		fputs("mkdir: missing operand\n", stderr);
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		int r = parents ? make_parents(argv[i]) : mkdir(argv[i], 0777);

		if (r < 0) {
			fprintf(stderr, "mkdir: cannot create directory '%s': %s\n", argv[i],
				strerror(errno));
			status = 1;
		}
	}
	return status;
}
