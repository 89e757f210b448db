// SPDX-License-Identifier: MIT
/*
 * links [DIR [CASE]] - the namespace calls beyond open and mkdir: link, symlink,
 * rename (and their *at forms), unlinkat, mkdirat, mknodat, chmod, chown,
 * truncate.  Each case checks what a user sees afterwards (stat, readlink,
 * the data, the directory listing) and the errors, in Linux's order.
 *
 * Everything happens in a fresh directory under DIR (default /tmp) with a tmpfs
 * mounted on it (when mount is allowed: on a Linux host not run as root
 * the cases use whatever /tmp is), and a second tmpfs inside it for the
 * cross-mount cases (EXDEV, EBUSY), which SKIP without one.  The same
 * binary runs on Linux (tests/user/run.sh): Linux's answers are the ones
 * Spindle must give.  chown needs root and SKIPs otherwise.
 *
 * One TEST line per case, then "<N> passed, <M> failed[, <K> skipped]".
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <asm/unistd_64.h>
#include "hostile.h"

#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR 0x200
#define AT_SYMLINK_FOLLOW 0x400
#define AT_EMPTY_PATH 0x1000
#define RENAME_NOREPLACE 1
#define RENAME_EXCHANGE 2

static char top[256]; /* the test directory, a tmpfs if allowed */
static int top_mounted, sub_mounted;

/* The calls, raw: the libc has no wrappers for most of them. */
static long x_link(const char *a, const char *b) { return syscall(__NR_link, a, b); }
static long x_linkat(int d1, const char *a, int d2, const char *b, int fl)
{
	return syscall(__NR_linkat, d1, a, d2, b, fl);
}
static long x_symlink(const char *t, const char *n) { return syscall(__NR_symlink, t, n); }
static long x_symlinkat(const char *t, int d, const char *n)
{
	return syscall(__NR_symlinkat, t, d, n);
}
static long x_rename(const char *a, const char *b) { return syscall(__NR_rename, a, b); }
static long x_renameat2(int d1, const char *a, int d2, const char *b, unsigned int fl)
{
	return syscall(__NR_renameat2, d1, a, d2, b, fl);
}
static long x_chmod(const char *p, mode_t m) { return syscall(__NR_chmod, p, m); }
static long x_chown(const char *p, long u, long g) { return syscall(__NR_chown, p, u, g); }
static long x_truncate(const char *p, long len) { return syscall(__NR_truncate, p, len); }

/* a file holding text */
static int put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* the file's text, or "" if it cannot be read (or is empty) */
static const char *get(const char *path)
{
	static char buf[256];

	return read_text(path, buf, sizeof(buf)) < 0 ? "" : buf;
}

static ino_t ino_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? st.st_ino : 0;
}

static long nlink_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? (long)st.st_nlink : -1;
}

/* is name listed by getdents in dir? */
static int listed(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, name) == 0)
			found = 1;
	closedir(d);
	return found;
}

/* each case works in its own directory under top, made fresh */
static void in_case_dir(const char *name)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%s", top, name);
	mkdir(path, 0755);
	if (chdir(path) < 0)
		hostile_fail(__LINE__, "chdir into the case directory");
}

/*
 * Two-name calls that must fail, as data: the call (link, symlink,
 * rename), its two names, and the errno Linux gives.
 */
struct refused {
	long nr;
	const char *a, *b;
	int err;
};

static void check_refused(const struct refused *r, int n)
{
	for (int i = 0; i < n; i++) {
		long ret;

		errno = 0;
		ret = syscall(r[i].nr, r[i].a, r[i].b);
		CHECK_MSG(ret == -1 && errno == r[i].err, "call %ld (\"%s\", \"%s\"): %ld, errno %d, not %d",
			  r[i].nr, r[i].a, r[i].b, ret, errno, r[i].err);
	}
}

/* --- link ----------------------------------------------------------------- */

static void t_link(void)
{
	struct stat a, b;

	in_case_dir("link");
	CHECK(put("f", "one") == 0);
	CHECK(x_link("f", "g") == 0);
	CHECK(stat("f", &a) == 0 && stat("g", &b) == 0);
	CHECK(a.st_ino == b.st_ino && a.st_nlink == 2 && b.st_nlink == 2);
	CHECK(put("g", "two") == 0);
	CHECK(strcmp(get("f"), "two") == 0); /* one file, two names */
	CHECK(unlink("f") == 0);
	CHECK(nlink_of("g") == 1);
	CHECK(strcmp(get("g"), "two") == 0); /* the data stays with g */
	CHECK(!listed(".", "f") && listed(".", "g"));
	/* a file unlinked while open keeps its data until the close */
	{
		int fd = open("g", O_RDONLY);
		char c = 0;

		CHECK(fd >= 0);
		CHECK(unlink("g") == 0);
		CHECK(read(fd, &c, 1) == 1 && c == 't');
		close(fd);
	}
	/* on the tmpfs: 64 KiB under two names is held once, and given back
	 * with the last name */
	if (top_mounted) {
		static char block[65536];
		struct statfs before, two, after;
		int fd;

		memset(block, 'z', sizeof(block));
		CHECK(statfs(".", &before) == 0);
		fd = open("big", O_WRONLY | O_CREAT, 0644);
		CHECK(write(fd, block, sizeof(block)) == (ssize_t)sizeof(block));
		close(fd);
		CHECK(x_link("big", "big2") == 0);
		CHECK(statfs(".", &two) == 0);
		CHECK_MSG(before.f_bfree - two.f_bfree == sizeof(block) / two.f_bsize,
			  "%ld blocks taken", (long)(before.f_bfree - two.f_bfree));
		CHECK(unlink("big") == 0);
		CHECK(statfs(".", &after) == 0 && after.f_bfree == two.f_bfree);
		CHECK(unlink("big2") == 0);
		CHECK(statfs(".", &after) == 0 && after.f_bfree == before.f_bfree);
	}
}

static void t_link_errors(void)
{
	in_case_dir("link_errors");
	CHECK(put("f", "x") == 0);
	CHECK(put("e", "y") == 0);
	CHECK(mkdir("d", 0755) == 0);
	{
		static const struct refused refused[] = {
			{ __NR_link, "f", "e", EEXIST },
			{ __NR_link, "d", "d2", EPERM }, /* no hard links to directories */
			{ __NR_link, "d", "e", EEXIST }, /* EEXIST before EPERM */
			{ __NR_link, "nothing", "n", ENOENT },
			{ __NR_link, "f", "nodir/n", ENOENT },
			{ __NR_link, "f", "e/n", ENOTDIR },
			{ __NR_link, "f/", "n", ENOTDIR },
			{ __NR_link, "f", "n/", ENOENT }, /* asks for a directory */
			{ __NR_link, "", "n", ENOENT },
			{ __NR_link, "f", "", ENOENT },
			{ __NR_link, "f", ".", EEXIST },
		};

		check_refused(refused, sizeof(refused) / sizeof(refused[0]));
	}
	CHECK_ERR(x_linkat(AT_FDCWD, "f", AT_FDCWD, "n", 0x8000), EINVAL);
	CHECK_ERR(x_linkat(-5, "f", AT_FDCWD, "n", 0), EBADF);
	CHECK_ERR(x_link((const char *)16, "n"), EFAULT);
	CHECK(nlink_of("f") == 1 && access("n", F_OK) < 0); /* nothing changed */
}

/* linkat: the link itself, or with AT_SYMLINK_FOLLOW what it names */
static void t_linkat_follow(void)
{
	int dfd;

	in_case_dir("linkat");
	CHECK(put("f", "data") == 0);
	CHECK(x_symlink("f", "s") == 0);
	CHECK(x_linkat(AT_FDCWD, "s", AT_FDCWD, "hard_s", 0) == 0);
	CHECK(ino_of("hard_s") == ino_of("s")); /* a second name of the link */
	CHECK(x_linkat(AT_FDCWD, "s", AT_FDCWD, "hard_f", AT_SYMLINK_FOLLOW) == 0);
	CHECK(ino_of("hard_f") == ino_of("f") && nlink_of("f") == 2);
	dfd = open(".", O_RDONLY | O_DIRECTORY);
	CHECK(mkdir("sub", 0755) == 0);
	CHECK(x_linkat(dfd, "f", dfd, "sub/f2", 0) == 0);
	CHECK(strcmp(get("sub/f2"), "data") == 0 && nlink_of("f") == 3);
	close(dfd);
}

/* --- symlink --------------------------------------------------------------- */

static void t_symlink(void)
{
	char buf[64];
	struct stat st;
	long n;

	in_case_dir("symlink");
	CHECK(put("f", "target data") == 0);
	CHECK(x_symlink("f", "s") == 0);
	CHECK(lstat("s", &st) == 0 && S_ISLNK(st.st_mode) && st.st_size == 1);
	CHECK(stat("s", &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 11);
	n = syscall(__NR_readlink, "s", buf, sizeof(buf));
	CHECK(n == 1 && buf[0] == 'f');
	CHECK(strcmp(get("s"), "target data") == 0);
	/* a relative target is read from the link's own directory */
	CHECK(mkdir("d", 0755) == 0);
	CHECK(x_symlink("../f", "d/up") == 0);
	CHECK(strcmp(get("d/up"), "target data") == 0);
	/* to a directory: walked through, also with a trailing slash */
	CHECK(x_symlink("d", "sd") == 0);
	CHECK(stat("sd/", &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(strcmp(get("sd/up"), "target data") == 0);
	/* dangling: the link exists, what it names does not */
	CHECK(x_symlink("no/such/file", "dangling") == 0);
	CHECK_ERR(stat("dangling", &st), ENOENT);
	CHECK(lstat("dangling", &st) == 0 && st.st_size == 12);
	/* O_CREAT through a dangling link makes what it names (from the
	 * link's directory), also at the end of a chain of links */
	{
		int fd;

		CHECK(x_symlink("../made", "d/to_make") == 0);
		fd = open("d/to_make", O_WRONLY | O_CREAT, 0644);
		CHECK(fd >= 0 && write(fd, "m", 1) == 1);
		close(fd);
		CHECK(strcmp(get("made"), "m") == 0);
		CHECK_ERR(open("d/to_make", O_WRONLY | O_CREAT | O_EXCL, 0644), EEXIST);
		CHECK(x_symlink("chain2", "chain1") == 0 && x_symlink("d/made2", "chain2") == 0);
		fd = open("chain1", O_WRONLY | O_CREAT, 0600);
		CHECK(fd >= 0);
		close(fd);
		CHECK(lstat("d/made2", &st) == 0 && S_ISREG(st.st_mode));
		CHECK(x_symlink("nodir/x", "bad") == 0);
		CHECK_ERR(open("bad", O_WRONLY | O_CREAT, 0644), ENOENT);
	}
	/* a long target (4000 bytes) is kept whole, and on the tmpfs costs a
	 * block, as Linux's shmem puts it in a page; a short one costs none */
	{
		static char long_target[4001], back[4096];
		struct statfs before, after;

		memset(long_target, 'x', 4000);
		CHECK(statfs(".", &before) == 0);
		CHECK(x_symlink(long_target, "long") == 0 && x_symlink("s", "short") == 0);
		CHECK(syscall(__NR_readlink, "long", back, sizeof(back)) == 4000 &&
		      memcmp(back, long_target, 4000) == 0);
		CHECK(statfs(".", &after) == 0);
		if (top_mounted)
			CHECK_MSG(before.f_bfree - after.f_bfree == 1, "%ld blocks for the links",
				  (long)(before.f_bfree - after.f_bfree));
		CHECK(unlink("long") == 0 && unlink("short") == 0);
		CHECK(statfs(".", &after) == 0);
		if (top_mounted)
			CHECK(after.f_bfree == before.f_bfree);
	}
	/* unlink removes the link, not its target */
	CHECK(unlink("s") == 0);
	CHECK(access("f", F_OK) == 0 && access("s", F_OK) < 0);
	/* symlinkat relative to a directory descriptor */
	{
		int dfd = open("d", O_RDONLY | O_DIRECTORY);

		CHECK(x_symlinkat("../f", dfd, "at") == 0);
		close(dfd);
		CHECK(strcmp(get("d/at"), "target data") == 0);
	}
}

static void t_symlink_errors(void)
{
	struct stat st;

	in_case_dir("symlink_errors");
	CHECK(put("f", "x") == 0);
	{
		static const struct refused refused[] = {
			{ __NR_symlink, "anything", "f", EEXIST },
			{ __NR_symlink, "", "s", ENOENT },
			{ __NR_symlink, "f", "", ENOENT },
			{ __NR_symlink, "f", "nodir/s", ENOENT },
			{ __NR_symlink, "f", "f/s", ENOTDIR },
			{ __NR_symlink, "f", "s/", ENOENT },
		};

		check_refused(refused, sizeof(refused) / sizeof(refused[0]));
	}
	CHECK_ERR(x_symlinkat("f", -5, "s"), EBADF);
	/* a loop is found, not followed forever */
	CHECK(x_symlink("loop2", "loop1") == 0 && x_symlink("loop1", "loop2") == 0);
	CHECK_ERR(stat("loop1", &st), ELOOP);
	CHECK_ERR(open("loop1", O_RDONLY), ELOOP);
	CHECK_ERR(open("loop1", O_WRONLY | O_CREAT, 0644), ELOOP);
}

/* --- rename ---------------------------------------------------------------- */

static void t_rename(void)
{
	ino_t ino;

	in_case_dir("rename");
	CHECK(put("a", "A") == 0);
	ino = ino_of("a");
	CHECK(x_rename("a", "b") == 0);
	CHECK(access("a", F_OK) < 0 && ino_of("b") == ino && strcmp(get("b"), "A") == 0);
	CHECK(!listed(".", "a") && listed(".", "b"));
	/* over an existing file: the old one loses that name */
	CHECK(put("c", "C") == 0);
	CHECK(x_link("c", "c2") == 0);
	CHECK(x_rename("b", "c") == 0);
	CHECK(strcmp(get("c"), "A") == 0 && ino_of("c") == ino);
	CHECK(nlink_of("c2") == 1 && strcmp(get("c2"), "C") == 0);
	/* onto itself, and onto another name of the same file: nothing happens */
	CHECK(x_rename("c", "c") == 0 && ino_of("c") == ino);
	CHECK(x_link("c", "c3") == 0);
	CHECK(x_rename("c", "c3") == 0);
	CHECK(ino_of("c") == ino && ino_of("c3") == ino && nlink_of("c") == 2);
	/* RENAME_NOREPLACE: a new name is fine, an existing one EEXIST */
	CHECK(x_renameat2(AT_FDCWD, "c3", AT_FDCWD, "c4", RENAME_NOREPLACE) == 0);
	CHECK_ERR(x_renameat2(AT_FDCWD, "c4", AT_FDCWD, "c2", RENAME_NOREPLACE), EEXIST);
	CHECK(strcmp(get("c2"), "C") == 0);
	/* a symbolic link is renamed, not what it names */
	CHECK(x_symlink("c2", "s") == 0);
	CHECK(x_rename("s", "s2") == 0);
	CHECK(strcmp(get("s2"), "C") == 0 && access("c2", F_OK) == 0);
}

static void t_rename_dir(void)
{
	long n1, n2;

	in_case_dir("rename_dir");
	CHECK(mkdir("d1", 0755) == 0 && mkdir("d2", 0755) == 0);
	CHECK(mkdir("d1/sub", 0755) == 0 && put("d1/sub/f", "deep") == 0);
	n1 = nlink_of("d1");
	n2 = nlink_of("d2");
	CHECK(x_rename("d1/sub", "d2/moved") == 0);
	CHECK(strcmp(get("d2/moved/f"), "deep") == 0);
	CHECK(access("d1/sub", F_OK) < 0 && listed("d2", "moved") && !listed("d1", "sub"));
	CHECK(nlink_of("d1") == n1 - 1 && nlink_of("d2") == n2 + 1); /* ".." moved */
	/* ".." of the moved directory is its new parent */
	CHECK(put("d2/here", "new parent") == 0);
	CHECK(strcmp(get("d2/moved/../here"), "new parent") == 0);
	/* over an empty directory */
	CHECK(mkdir("empty", 0755) == 0);
	CHECK(x_rename("d2/moved", "empty") == 0);
	CHECK(strcmp(get("empty/f"), "deep") == 0 && nlink_of("d2") == n2);
	/* the cwd moves with its directory */
	CHECK(chdir("empty") == 0);
	CHECK(x_rename("../empty", "../renamed_cwd") == 0);
	{
		char cwd[256];

		CHECK(getcwd(cwd, sizeof(cwd)) && strstr(cwd, "/rename_dir/renamed_cwd"));
	}
	CHECK(chdir("..") == 0);
}

static void t_rename_errors(void)
{
	in_case_dir("rename_errors");
	CHECK(put("f", "x") == 0 && put("g", "y") == 0);
	CHECK(mkdir("d", 0755) == 0 && mkdir("d/sub", 0755) == 0);
	CHECK(mkdir("full", 0755) == 0 && put("full/x", "x") == 0);
	CHECK(mkdir("e", 0755) == 0);
	{
		static const struct refused refused[] = {
			{ __NR_rename, "nothing", "n", ENOENT },
			{ __NR_rename, "f", "nodir/n", ENOENT },
			{ __NR_rename, "d", "f", ENOTDIR }, /* a directory over a file */
			{ __NR_rename, "f", "d", EISDIR },  /* a file over a directory */
			{ __NR_rename, "e", "full", ENOTEMPTY },
			{ __NR_rename, "d", "d/sub/in", EINVAL }, /* into its own subtree */
			{ __NR_rename, "d", "d/in", EINVAL },
			{ __NR_rename, "d/sub", "d", ENOTEMPTY }, /* over its own parent */
			{ __NR_rename, ".", "n", EBUSY },
			{ __NR_rename, "d/..", "n", EBUSY },
			{ __NR_rename, "f", ".", EBUSY },
			{ __NR_rename, "f", "d/..", EBUSY },
			{ __NR_rename, "f/", "n", ENOTDIR },
			{ __NR_rename, "f", "n/", ENOTDIR },
			{ __NR_rename, "", "n", ENOENT },
			{ __NR_rename, "f", "", ENOENT },
			{ __NR_rename, "f", "g/n", ENOTDIR },
		};

		check_refused(refused, sizeof(refused) / sizeof(refused[0]));
	}
	CHECK_ERR(x_renameat2(AT_FDCWD, "f", AT_FDCWD, "n", 0x80), EINVAL);
	CHECK_ERR(x_renameat2(AT_FDCWD, "f", AT_FDCWD, "n", RENAME_NOREPLACE | RENAME_EXCHANGE),
		  EINVAL);
	CHECK_ERR(x_renameat2(-5, "f", AT_FDCWD, "n", 0), EBADF);
	/* nothing moved */
	CHECK(strcmp(get("f"), "x") == 0 && strcmp(get("g"), "y") == 0);
	CHECK(access("d/sub", F_OK) == 0 && access("full/x", F_OK) == 0 && access("e", F_OK) == 0);
	/* a directory is renamed with a trailing slash on both names */
	CHECK(x_rename("e/", "e2/") == 0 && access("e2", F_OK) == 0);
}

/* Across mounts EXDEV; a mount point cannot be renamed (EBUSY). */
static void t_cross_mount(void)
{
	char m[300];

	if (!sub_mounted) {
		hostile_skip("no second tmpfs (mount not allowed)");
		return;
	}
	snprintf(m, sizeof(m), "%s/mnt", top);
	in_case_dir("cross");
	CHECK(put("f", "x") == 0);
	CHECK(chdir(top) == 0);
	{
		static const struct refused refused[] = {
			{ __NR_rename, "cross/f", "mnt/f", EXDEV },
			{ __NR_link, "cross/f", "mnt/f", EXDEV },
			{ __NR_link, "cross/f", "mnt/.", EEXIST }, /* EEXIST before EXDEV */
			{ __NR_rename, "mnt", "mnt2", EBUSY },
			{ __NR_rename, "cross/f", "mnt", EISDIR },
		};

		check_refused(refused, sizeof(refused) / sizeof(refused[0]));
	}
	CHECK(access("cross/f", F_OK) == 0 && access(m, F_OK) == 0);
}

/*
 * On a read-only tmpfs every change is EROFS -- but in Linux's order:
 * after EEXIST for "." and the old name's ENOENT, before a missing name's
 * ENOENT and before link's EPERM; "." and ".." (EBUSY, EISDIR, EINVAL)
 * and truncate's EISDIR first.
 */
static void t_read_only(void)
{
	in_case_dir("read_only");
	CHECK(mkdir("ro", 0755) == 0);
	if (mount("links-ro", "ro", "tmpfs", MS_RDONLY, NULL) < 0) {
		hostile_skip("no read-only tmpfs (mount not allowed)");
		return;
	}
	{
		static const struct refused refused[] = {
			{ __NR_symlink, "t", "ro/s", EROFS },
			{ __NR_symlink, "t", "ro/.", EEXIST },
			{ __NR_rename, "ro/a", "ro/b", EROFS }, /* before ENOENT */
			{ __NR_rename, "ro/.", "ro/b", EBUSY },
			{ __NR_link, "ro/nothing", "ro/n", ENOENT },
			{ __NR_link, "ro", "ro/n", EROFS }, /* before EPERM */
			{ __NR_link, "ro", "ro/.", EEXIST },
		};

		check_refused(refused, sizeof(refused) / sizeof(refused[0]));
	}
	CHECK_ERR(mkdir("ro/x", 0755), EROFS);
	CHECK_ERR(mkdir("ro/.", 0755), EEXIST);
	CHECK_ERR(syscall(__NR_mknod, "ro/n", S_IFIFO | 0600, 0), EROFS);
	CHECK_ERR(open("ro/f", O_WRONLY | O_CREAT, 0644), EROFS);
	CHECK_ERR(unlink("ro/x"), EROFS); /* before ENOENT */
	CHECK_ERR(unlink("ro/."), EISDIR);
	CHECK_ERR(rmdir("ro/."), EINVAL);
	CHECK_ERR(rmdir("ro/x"), EROFS);
	CHECK_ERR(x_chmod("ro", 0700), EROFS);
	CHECK_ERR(x_chown("ro", 0, 0), EROFS);
	CHECK_ERR(x_truncate("ro", 0), EISDIR);
	CHECK_ERR(syscall(__NR_utimensat, AT_FDCWD, "ro", NULL, 0), EROFS);
	CHECK(umount("ro") == 0);
}

/* --- unlinkat, mkdirat, mknodat --------------------------------------------- */

static void t_at_calls(void)
{
	struct stat st;
	int dfd;

	in_case_dir("at_calls");
	CHECK(mkdir("d", 0755) == 0);
	dfd = open("d", O_RDONLY | O_DIRECTORY);
	CHECK(dfd >= 0);
	CHECK(syscall(__NR_mkdirat, dfd, "sub", 0750) == 0);
	CHECK(stat("d/sub", &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(syscall(__NR_mknodat, dfd, "reg", S_IFREG | 0600, 0) == 0);
	CHECK(stat("d/reg", &st) == 0 && S_ISREG(st.st_mode));
	CHECK(syscall(__NR_mknodat, dfd, "fifo", S_IFIFO | 0600, 0) == 0);
	CHECK(lstat("d/fifo", &st) == 0 && S_ISFIFO(st.st_mode));
	CHECK_ERR(syscall(__NR_mkdirat, dfd, "sub", 0755), EEXIST);
	CHECK_ERR(syscall(__NR_unlinkat, dfd, "sub", 0), EISDIR);
	CHECK_ERR(syscall(__NR_unlinkat, dfd, "reg", AT_REMOVEDIR), ENOTDIR);
	CHECK_ERR(syscall(__NR_unlinkat, dfd, "reg", 0x1), EINVAL);
	CHECK(syscall(__NR_unlinkat, dfd, "sub", AT_REMOVEDIR) == 0);
	CHECK(syscall(__NR_unlinkat, dfd, "reg", 0) == 0);
	CHECK(syscall(__NR_unlinkat, dfd, "fifo", 0) == 0);
	CHECK(!listed("d", "sub") && !listed("d", "reg") && !listed("d", "fifo"));
	CHECK_ERR(syscall(__NR_unlinkat, dfd, "reg", 0), ENOENT);
	CHECK_ERR(syscall(__NR_mkdirat, -5, "x", 0755), EBADF);
	close(dfd);
}

/* --- chmod, chown, truncate ------------------------------------------------- */

static void t_chmod(void)
{
	struct stat st;
	int fd;

	in_case_dir("chmod");
	CHECK(put("f", "x") == 0);
	CHECK(x_chmod("f", 0640) == 0);
	CHECK(stat("f", &st) == 0 && st.st_mode == (S_IFREG | 0640));
	CHECK(x_chmod("f", S_IFDIR | 04755) == 0); /* the type bits are ignored */
	CHECK(stat("f", &st) == 0 && st.st_mode == (S_IFREG | 04755));
	fd = open("f", O_RDONLY);
	CHECK(syscall(__NR_fchmod, fd, 0600) == 0);
	CHECK(fstat(fd, &st) == 0 && st.st_mode == (S_IFREG | 0600));
	close(fd);
	/* through a symbolic link: the file it names */
	CHECK(x_symlink("f", "s") == 0);
	CHECK(x_chmod("s", 0444) == 0);
	CHECK(stat("f", &st) == 0 && st.st_mode == (S_IFREG | 0444));
	CHECK(lstat("s", &st) == 0 && st.st_mode == (S_IFLNK | 0777));
	CHECK(mkdir("d", 0755) == 0);
	CHECK(syscall(__NR_fchmodat, AT_FDCWD, "d", 01777) == 0);
	CHECK(stat("d", &st) == 0 && st.st_mode == (S_IFDIR | 01777));
	CHECK_ERR(x_chmod("nothing", 0644), ENOENT);
	CHECK_ERR(x_chmod("f/", 0644), ENOTDIR);
	CHECK_ERR(syscall(__NR_fchmod, -1, 0644), EBADF);
	CHECK_ERR(x_chmod((const char *)16, 0644), EFAULT);
}

static void t_chown(void)
{
	struct stat st;
	int fd;

	if (syscall(__NR_getuid) != 0) {
		hostile_skip("chown needs root");
		return;
	}
	in_case_dir("chown");
	CHECK(put("f", "x") == 0);
	CHECK(x_chown("f", 1234, 5678) == 0);
	CHECK(stat("f", &st) == 0 && st.st_uid == 1234 && st.st_gid == 5678);
	CHECK(x_chown("f", -1, 42) == 0); /* -1: leave it */
	CHECK(stat("f", &st) == 0 && st.st_uid == 1234 && st.st_gid == 42);
	/* chown takes set-user-ID off (and set-group-ID with group execute) */
	CHECK(x_chmod("f", 06755) == 0);
	CHECK(x_chown("f", -1, -1) == 0);
	CHECK(stat("f", &st) == 0 && (st.st_mode & 07777) == 0755);
	CHECK(x_chmod("f", 06745) == 0); /* no group execute: S_ISGID stays */
	CHECK(x_chown("f", 0, 0) == 0);
	CHECK(stat("f", &st) == 0 && (st.st_mode & 07777) == 02745 && st.st_uid == 0);
	/* lchown: the link itself; chown: what it names */
	CHECK(x_symlink("f", "s") == 0);
	CHECK(syscall(__NR_lchown, "s", 7, 8) == 0);
	CHECK(lstat("s", &st) == 0 && st.st_uid == 7 && st.st_gid == 8);
	CHECK(stat("f", &st) == 0 && st.st_uid == 0);
	CHECK(syscall(__NR_fchownat, AT_FDCWD, "s", 9, 10, 0) == 0);
	CHECK(stat("f", &st) == 0 && st.st_uid == 9 && st.st_gid == 10);
	fd = open("f", O_RDONLY);
	CHECK(syscall(__NR_fchown, fd, 11, 12) == 0);
	CHECK(syscall(__NR_fchownat, fd, "", 13, 14, AT_EMPTY_PATH) == 0);
	CHECK(fstat(fd, &st) == 0 && st.st_uid == 13 && st.st_gid == 14);
	close(fd);
	CHECK_ERR(syscall(__NR_fchownat, AT_FDCWD, "f", 0, 0, 0x4), EINVAL);
	CHECK_ERR(syscall(__NR_fchown, -1, 0, 0), EBADF);
	CHECK_ERR(x_chown("nothing", 0, 0), ENOENT);
}

static void t_truncate(void)
{
	struct stat st;
	char buf[8];
	int fd;

	in_case_dir("truncate");
	CHECK(put("f", "0123456789") == 0);
	CHECK(x_truncate("f", 4) == 0);
	CHECK(stat("f", &st) == 0 && st.st_size == 4 && strcmp(get("f"), "0123") == 0);
	CHECK(x_truncate("f", 8192) == 0); /* grows with zeros */
	fd = open("f", O_RDONLY);
	CHECK(pread(fd, buf, 8, 4) == 8 && memcmp(buf, "\0\0\0\0\0\0\0\0", 8) == 0);
	close(fd);
	CHECK(stat("f", &st) == 0 && st.st_size == 8192);
	CHECK(x_symlink("f", "s") == 0);
	CHECK(x_truncate("s", 2) == 0); /* follows the link */
	CHECK(stat("f", &st) == 0 && st.st_size == 2);
	CHECK(mkdir("d", 0755) == 0 && mkfifo("p", 0600) == 0);
	CHECK_ERR(x_truncate("d", 0), EISDIR);
	CHECK_ERR(x_truncate("p", 0), EINVAL);
	CHECK_ERR(x_truncate("f", -1), EINVAL);
	CHECK_ERR(x_truncate("nothing", 0), ENOENT);
	CHECK_ERR(x_truncate("nothing", -1), EINVAL); /* the length is checked first */
	CHECK_ERR(x_truncate("f/", 0), ENOTDIR);
}

static const struct hostile_case cases[] = {
	{ "link", t_link },
	{ "link_errors", t_link_errors },
	{ "linkat_follow", t_linkat_follow },
	{ "symlink", t_symlink },
	{ "symlink_errors", t_symlink_errors },
	{ "rename", t_rename },
	{ "rename_dir", t_rename_dir },
	{ "rename_errors", t_rename_errors },
	{ "cross_mount", t_cross_mount },
	{ "read_only", t_read_only },
	{ "at_calls", t_at_calls },
	{ "chmod", t_chmod },
	{ "chown", t_chown },
	{ "truncate", t_truncate },
};

int main(int argc, char **argv)
{
	char m[300];
	int status;

	snprintf(top, sizeof(top), "%s/links.%d", argc > 1 ? argv[1] : "/tmp", (int)getpid());
	if (mkdir(top, 0755) < 0) {
		printf("links: cannot make %s (errno %d)\n", top, errno);
		return 1;
	}
	top_mounted = mount("links", top, "tmpfs", 0, NULL) == 0;
	snprintf(m, sizeof(m), "%s/mnt", top);
	if (mkdir(m, 0755) == 0)
		sub_mounted = mount("links2", m, "tmpfs", 0, NULL) == 0;
	status = hostile_run("links", cases, sizeof(cases) / sizeof(cases[0]),
			     argc > 2 ? argv[2] : NULL);
	/* leave nothing behind: the mounts go, and with them every file
	 * (without them, the caller's DIR holds what is left) */
	chdir("/");
	if (sub_mounted)
		umount(m);
	if (top_mounted)
		umount(top);
	if (top_mounted)
		rmdir(top);
	return status;
}
