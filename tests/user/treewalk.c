// SPDX-License-Identifier: MIT
/*
 * treewalk [-c PROGRAM] DIR - describe every name under DIR, for a host
 * oracle to compare (tools/ext2-check.py).
 *
 * One line per name, depth first, names sorted (bytewise), paths relative
 * to DIR, what lstat(2) says of it:
 *
 *   ENTRY <path> ino=N mode=0OOOOOO nlink=N uid=N gid=N size=N blocks=N atime=S mtime=S
 *
 * then "STATFS type=0x... bsize=N blocks=N bfree=N bavail=N files=N
 * ffree=N namelen=N flags=0x..." for DIR itself.  With -c, PROGRAM runs
 * on each regular file and each symbolic link (through the link), many
 * paths per run as xargs does (e.g. /bin/cksum: "CRC SIZE PATH" each).
 * Whatever fails is a line "ERROR <path> <call>: <strerror>", and the
 * walk goes on; the exit status is 1 if anything failed (PROGRAM's own
 * failures aside: they show in its output).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>

static const char *program;
static int status;

static void report(const char *path, const char *call)
{
	printf("ERROR %s %s: %s\n", path, call, strerror(errno));
	status = 1;
}

/* Paths waiting for PROGRAM: it runs once per batch, as xargs would --
 * a fork and exec per file would cost more than the files' reading. */
#define BATCH 128
static char *batch[BATCH + 2];
static int nbatch;

static void run_program(void)
{
	int st;
	pid_t pid;

	if (!nbatch)
		return;
	batch[0] = (char *)program;
	batch[nbatch + 1] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execv(program, batch);
		_exit(127);
	}
	/* the program's own failure (a dangling link) is its output's business */
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		report(batch[1], program);
	while (nbatch)
		free(batch[nbatch--]);
}

static void queue_program(const char *path)
{
	batch[++nbatch] = strdup(path);
	if (nbatch == BATCH)
		run_program();
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk(const char *top, const char *rel);

static void entry(const char *top, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	if (lstat(path, &st) < 0) {
		report(rel, "lstat");
		return;
	}
	printf("ENTRY %s ino=%lu mode=0%o nlink=%lu uid=%u gid=%u size=%ld blocks=%ld "
	       "atime=%lu mtime=%lu\n",
	       rel, (unsigned long)st.st_ino, st.st_mode,
	       (unsigned long)st.st_nlink, st.st_uid, st.st_gid, (long)st.st_size,
	       (long)st.st_blocks, (unsigned long)st.st_atime, (unsigned long)st.st_mtime);
	if (program && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
		queue_program(path);
	if (S_ISDIR(st.st_mode))
		walk(top, rel);
}

static void walk(const char *top, const char *rel)
{
	char path[PATH_MAX], sub[PATH_MAX];
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s%s%s", top, *rel ? "/" : "", rel);
	d = opendir(path);
	if (!d) {
		report(*rel ? rel : ".", "opendir");
		return;
	}
	for (errno = 0; (de = readdir(d)) != NULL; errno = 0) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				exit(2);
		}
		names[n++] = strdup(de->d_name);
	}
	if (errno)
		report(*rel ? rel : ".", "readdir");
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", names[i]);
		entry(top, sub);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	struct statfs sf;
	int c;

	while ((c = getopt(argc, argv, "c:")) != -1) {
		if (c != 'c') {
			fputs("usage: treewalk [-c PROGRAM] DIR\n", stderr);
			return 2;
		}
		program = optarg;
	}
	if (optind != argc - 1) {
		fputs("usage: treewalk [-c PROGRAM] DIR\n", stderr);
		return 2;
	}
	walk(argv[optind], "");
	run_program();
	if (statfs(argv[optind], &sf) < 0)
		report(argv[optind], "statfs");
	else
		printf("STATFS type=0x%lx bsize=%ld blocks=%lu bfree=%lu bavail=%lu files=%lu "
		       "ffree=%lu namelen=%ld flags=0x%lx\n",
		       (unsigned long)sf.f_type,
		       (long)sf.f_bsize, (unsigned long)sf.f_blocks, (unsigned long)sf.f_bfree,
		       (unsigned long)sf.f_bavail, (unsigned long)sf.f_files,
		       (unsigned long)sf.f_ffree, (long)sf.f_namelen, (unsigned long)sf.f_flags);
	fflush(stdout);
	return status;
}
