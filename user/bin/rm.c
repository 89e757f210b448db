// SPDX-License-Identifier: MIT
/*
 * rm [-r] [-f] PATH... - remove files; -r: directories and what they hold;
 * -f: no complaint about missing files.
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>

static int opt_r, opt_f;

static int remove_path(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (opt_f && errno == ENOENT)
			return 0;
		fprintf(stderr, "rm: cannot remove '%s': %s\n", path, strerror(errno));
		return 1;
	}
	if (S_ISDIR(st.st_mode)) {
		DIR *d;
		struct dirent *de;
		int status = 0;

		if (!opt_r) {
			fprintf(stderr, "rm: cannot remove '%s': Is a directory\n", path);
			return 1;
		}
		/*
		 * Remove the children first.  Removing entries while reading
		 * the directory may make the reader skip some, so read it
		 * again until a pass finds nothing left to remove.
		 */
		for (int removed = 1; removed && !status;) {
			removed = 0;
			d = opendir(path);
			if (!d) {
				fprintf(stderr, "rm: cannot open '%s': %s\n", path, strerror(errno));
				return 1;
			}
			while ((de = readdir(d)) != NULL) {
				char child[PATH_MAX];

				if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
					continue;
				snprintf(child, sizeof(child), "%s/%s", path, de->d_name);
				status |= remove_path(child);
				removed++;
			}
			closedir(d);
		}
		if (rmdir(path) < 0) {
			fprintf(stderr, "rm: cannot remove '%s': %s\n", path, strerror(errno));
			return 1;
		}
		return status;
	}
	if (unlink(path) < 0) {
		fprintf(stderr, "rm: cannot remove '%s': %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int c, status = 0;

	while ((c = getopt(argc, argv, "rRf")) != -1) {
		if (c == 'r' || c == 'R')
			opt_r = 1;
		else if (c == 'f')
			opt_f = 1;
		else {
			fputs("usage: rm [-rf] PATH...\n", stderr);
			return 2;
		}
	}
	if (optind == argc && !opt_f) {
		fputs("rm: missing operand\n", stderr);
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		const char *base = strrchr(argv[i], '/');

		base = base ? base + 1 : argv[i];
		if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
			/* as GNU: never empty the directory you stand in */
			fprintf(stderr, "rm: refusing to remove '.' or '..' directory: skipping '%s'\n",
				argv[i]);
			status = 1;
			continue;
		}
		status |= remove_path(argv[i]);
	}
	return status;
}
