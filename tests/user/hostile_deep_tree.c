// SPDX-License-Identifier: MIT
/*
 * hostile_deep_tree - a directory tree deeper than any path.
 *
 * One path is limited to PATH_MAX, but chdir and mkdir build a tree of
 * any depth, one level at a time.  The kernel must handle it without
 * recursing once per level (16 KiB of kernel stack is gone after a few
 * hundred frames): getcwd at the bottom is ENAMETOOLONG, as Linux, and
 * unmounting the tmpfs that holds it frees the whole tree.  Before the
 * fix the umount recursed down the tree and overran the kernel stack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include "hostile.h"

#define MNT             "/tmp/hostile_deep"
#define DEPTH           3000            /* "/d" each: 6000 bytes of path */

static int built;

static void t_build(void)
{
	built = 0;
	mkdir(MNT, 0755);
	CHECK(mount("none", MNT, "tmpfs", 0, NULL) == 0);
	CHECK(chdir(MNT) == 0);
	for (int i = 0; i < DEPTH; i++) {
		if (mkdir("d", 0755) < 0 || chdir("d") < 0)
			break;
		built++;
	}
	CHECK(built == DEPTH);
}

static void t_getcwd_too_long(void)
{
	static char buf[16384];

	errno = 0;
	CHECK(getcwd(buf, sizeof(buf)) == NULL && errno == ENAMETOOLONG);
	/* past PATH_MAX wins over a small buffer, as in Linux's getcwd */
	errno = 0;
	CHECK(getcwd(buf, 64) == NULL && errno == ENAMETOOLONG);
}

static void t_still_usable(void)
{
	int fd = open("leaf", O_WRONLY | O_CREAT, 0644);
	struct stat st;

	CHECK(fd >= 0 && write(fd, "x", 1) == 1);
	if (fd >= 0)
		close(fd);
	CHECK(stat("../../d/d/leaf", &st) == 0 && st.st_size == 1);
}

static void t_umount_frees_it(void)
{
	struct statfs b;

	CHECK(chdir("/") == 0);
	CHECK(umount(MNT) == 0);
	/* what is left at MNT is /tmp's own empty directory */
	CHECK(statfs(MNT, &b) == 0 && b.f_type == TMPFS_MAGIC);
	CHECK(access(MNT "/d", F_OK) < 0 && errno == ENOENT);
	CHECK(rmdir(MNT) == 0);
	/* and it can all be done again */
	CHECK(mkdir(MNT, 0755) == 0 && mount("none", MNT, "tmpfs", 0, NULL) == 0);
	CHECK(umount(MNT) == 0 && rmdir(MNT) == 0);
}

static const struct hostile_case cases[] = {
	{ "build", t_build },
	{ "getcwd_too_long", t_getcwd_too_long },
	{ "still_usable", t_still_usable },
	{ "umount_frees_it", t_umount_frees_it },
};

int main(int argc, char **argv)
{
	return hostile_run("deep_tree", cases, sizeof(cases) / sizeof(cases[0]),
			   argc > 1 ? argv[1] : NULL);
}
