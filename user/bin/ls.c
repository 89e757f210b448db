// SPDX-License-Identifier: MIT
/*
 * ls [-l] [-a] [-1] [PATH]... - list directories (sorted by name) or name files.
 *   -a  include names starting with '.'
 *   -l  long format: type and permissions, links, owner, group, size (or
 *       major, minor for a device), modification time in seconds since
 *       the epoch (no time zones here), name
 * Output goes one name per line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>

static int opt_all, opt_long;

static char type_char(mode_t m)
{
	if (S_ISDIR(m))  return 'd';
	if (S_ISCHR(m))  return 'c';
	if (S_ISBLK(m))  return 'b';
	if (S_ISLNK(m))  return 'l';
	if (S_ISFIFO(m)) return 'p';
	if (S_ISSOCK(m)) return 's';
	return '-';
}

static void mode_string(mode_t m, char *out)
{
	const char *rwx = "rwxrwxrwx";

	out[0] = type_char(m);
	for (int i = 0; i < 9; i++)
		out[i + 1] = (m & (0400 >> i)) ? rwx[i] : '-';
	out[10] = '\0';
}

static void print_entry(const char *dir, const char *name)
{
	char path[PATH_MAX], mode[11];
	struct stat st;

	if (!opt_long) {
		puts(name);
		return;
	}
	if (dir)
		snprintf(path, sizeof(path), "%s/%s", dir, name);
	else
		snprintf(path, sizeof(path), "%s", name);
	if (lstat(path, &st) < 0) {
		fprintf(stderr, "ls: %s: %s\n", path, strerror(errno));
		return;
	}
	mode_string(st.st_mode, mode);
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		printf("%s %2lu %u %u %4u, %4u %10ld %s\n", mode, st.st_nlink, st.st_uid,
		       st.st_gid, major(st.st_rdev), minor(st.st_rdev), st.st_mtime, name);
	else
		printf("%s %2lu %u %u %10ld %10ld %s\n", mode, st.st_nlink, st.st_uid,
		       st.st_gid, st.st_size, st.st_mtime, name);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (!d) {
		fprintf(stderr, "ls: cannot open directory %s: %s\n", path, strerror(errno));
		return 1;
	}
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' && !opt_all)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names) {
				fputs("ls: out of memory\n", stderr);
				return 1;
			}
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		print_entry(path, names[i]);
		free(names[i]);
	}
	free(names);
	return 0;
}

int main(int argc, char **argv)
{
	int c, status = 0, many;

	while ((c = getopt(argc, argv, "la1")) != -1) {
		if (c == 'l')
			opt_long = 1;
		else if (c == 'a')
			opt_all = 1;
		else if (c != '1') {
			fputs("usage: ls [-la1] [PATH]...\n", stderr);
			return 2;
		}
	}
	if (optind == argc)
		return list_dir(".");
	many = argc - optind > 1;
	for (int i = optind; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "ls: cannot access '%s': %s\n", argv[i], strerror(errno));
			status = 2;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			print_entry(NULL, argv[i]);
			continue;
		}
		if (many)
			printf("%s%s:\n", i > optind ? "\n" : "", argv[i]);
		status |= list_dir(argv[i]);
	}
	return status;
}
