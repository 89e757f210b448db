// SPDX-License-Identifier: MIT
/*
 * The VFS on the host: path lookup and its errors, ramfs files and
 * directories, the descriptor table, pipes, mounts, devtmpfs,
 * proc, and the console tty's line discipline.  Everything goes through
 * the sys_* functions with the test's buffers as "user" pointers, so the
 * checks are those a user program would make; errors are Linux's.
 */
#include <check.h>
#include <spindle/fs.h>
#include <spindle/sched.h>
#include <spindle/mm.h>
#include <spindle/mm_types.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include "shim/host_kernel.h"
#include "shim/host_fs.h"
#include "../../fs/internal.h"
#include <uapi/asm/ioctls.h>

long sys_fcntl(unsigned int fd, unsigned int cmd, unsigned long arg);
long sys_dup3(unsigned int oldfd, unsigned int newfd, int flags);
long sys_read(unsigned int fd, char *buf, size_t count);
long sys_write(unsigned int fd, const char *buf, size_t count);
long sys_open(const char *filename, int flags, umode_t mode);
long sys_openat(int dfd, const char *filename, int flags, umode_t mode);
long sys_close(unsigned int fd);
long sys_stat(const char *filename, struct stat *statbuf);
long sys_fstat(unsigned int fd, struct stat *statbuf);
long sys_lseek(unsigned int fd, off_t offset, unsigned int whence);
long sys_pread64(unsigned int fd, char *buf, size_t count, loff_t pos);
long sys_pwrite64(unsigned int fd, const char *buf, size_t count, loff_t pos);
long sys_ftruncate(unsigned int fd, off_t length);
long sys_pipe(int *fildes);
long sys_pipe2(int *fildes, int flags);
long sys_dup(unsigned int fildes);
long sys_dup2(unsigned int oldfd, unsigned int newfd);
long sys_getcwd(char *buf, unsigned long size);
long sys_chdir(const char *filename);
long sys_mkdir(const char *pathname, umode_t mode);
long sys_rmdir(const char *pathname);
long sys_unlink(const char *pathname);
long sys_mount(char *dev_name, char *dir_name, char *type, unsigned long flags, void *data);
long sys_umount2(char *name, int flags);
long sys_getdents64(unsigned int fd, struct linux_dirent64 *dirent, unsigned int count);
long sys_ioctl(unsigned int fd, unsigned int cmd, unsigned long arg);
long sys_fsync(unsigned int fd);

static void setup(void)
{
	host_printk_quiet = true;
	host_mm_init(4096 * PAGE_SIZE);
	host_vfs_init();
}

static void teardown(void)
{
	exit_files(current);
}

/* Make a file with the given contents. */
static void make_file(const char *path, const char *text)
{
	long fd = sys_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(sys_write(fd, text, strlen(text)), (long)strlen(text));
	ck_assert_int_eq(sys_close(fd), 0);
}

static long read_all(const char *path, char *buf, size_t size)
{
	long fd = sys_open(path, O_RDONLY, 0), n, total = 0;

	if (fd < 0)
		return fd;
	while ((n = sys_read(fd, buf + total, size - 1 - total)) > 0)
		total += n;
	buf[total] = '\0';
	sys_close(fd);
	return n < 0 ? n : total;
}

/* --- Path lookup ------------------------------------------------------------- */

START_TEST(lookup_absolute_relative_dot_dotdot)
{
	struct stat st;
	char cwd[64];

	ck_assert_int_eq(sys_mkdir("/a", 0755), 0);
	ck_assert_int_eq(sys_mkdir("/a/b", 0755), 0);
	make_file("/a/b/f", "x");
	ck_assert_int_eq(sys_stat("/a/b/f", &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(sys_stat("//a/./b/../b//f", &st), 0);
	ck_assert_int_eq(sys_stat("/../../a/b/f", &st), 0);    /* ".." of / is / */
	ck_assert_int_eq(sys_stat("/a/b/", &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(sys_chdir("/a"), 0);
	ck_assert_int_eq(sys_stat("b/f", &st), 0);
	ck_assert_int_eq(sys_stat("./b/../b/f", &st), 0);
	ck_assert_int_eq(sys_getcwd(cwd, sizeof(cwd)), 3);     /* "/a" + NUL */
	ck_assert_str_eq(cwd, "/a");
	ck_assert_int_eq(sys_chdir("b"), 0);
	ck_assert_int_eq(sys_getcwd(cwd, sizeof(cwd)), 5);
	ck_assert_str_eq(cwd, "/a/b");
	ck_assert_int_eq(sys_getcwd(cwd, 4), -ERANGE);
	ck_assert_int_eq(sys_chdir(".."), 0);
	ck_assert_int_eq(sys_chdir(".."), 0);
	ck_assert_int_eq(sys_getcwd(cwd, sizeof(cwd)), 2);
	ck_assert_str_eq(cwd, "/");
}
END_TEST

START_TEST(lookup_errors_as_linux)
{
	struct stat st;
	char longname[300], longpath[PATH_MAX + 10];

	make_file("/f", "x");
	ck_assert_int_eq(sys_stat("/nope", &st), -ENOENT);
	ck_assert_int_eq(sys_stat("/nope/x", &st), -ENOENT);
	ck_assert_int_eq(sys_stat("/f/x", &st), -ENOTDIR);
	ck_assert_int_eq(sys_stat("/f/", &st), -ENOTDIR);
	ck_assert_int_eq(sys_stat("", &st), -ENOENT);
	ck_assert_int_eq(sys_chdir("/f"), -ENOTDIR);
	memset(longname, 'n', sizeof(longname));
	longname[0] = '/';
	longname[NAME_MAX + 2] = '\0';          /* a component of 256 bytes */
	ck_assert_int_eq(sys_stat(longname, &st), -ENAMETOOLONG);
	ck_assert_int_eq(sys_mkdir(longname, 0755), -ENAMETOOLONG);
	longname[NAME_MAX + 1] = '\0';          /* 255: allowed */
	ck_assert_int_eq(sys_mkdir(longname, 0755), 0);
	memset(longpath, '/', sizeof(longpath));
	longpath[sizeof(longpath) - 1] = '\0';
	ck_assert_int_eq(sys_stat(longpath, &st), -ENAMETOOLONG);
	ck_assert_int_eq(sys_stat((const char *)0xffff800000000000ul, &st), -EFAULT);
}
END_TEST

START_TEST(create_and_remove_errors_as_linux)
{
	ck_assert_int_eq(sys_mkdir("/d", 0755), 0);
	ck_assert_int_eq(sys_mkdir("/d", 0755), -EEXIST);
	ck_assert_int_eq(sys_mkdir("/", 0755), -EEXIST);
	ck_assert_int_eq(sys_mkdir("/x/y", 0755), -ENOENT);
	make_file("/d/f", "x");
	ck_assert_int_eq(sys_open("/d/f", O_CREAT | O_EXCL | O_WRONLY, 0644), -EEXIST);
	ck_assert_int_eq(sys_open("/d", O_WRONLY, 0), -EISDIR);
	ck_assert_int_eq(sys_open("/d/f", O_RDONLY | O_DIRECTORY, 0), -ENOTDIR);
	ck_assert_int_eq(sys_open("/d/nope", O_RDONLY, 0), -ENOENT);
	ck_assert_int_eq(sys_unlink("/d"), -EISDIR);
	ck_assert_int_eq(sys_rmdir("/d"), -ENOTEMPTY);
	ck_assert_int_eq(sys_rmdir("/d/f"), -ENOTDIR);
	ck_assert_int_eq(sys_rmdir("/d/."), -EINVAL);
	ck_assert_int_eq(sys_unlink("/d/nope"), -ENOENT);
	ck_assert_int_eq(sys_unlink("/d/f"), 0);
	ck_assert_int_eq(sys_unlink("/d/f"), -ENOENT);
	ck_assert_int_eq(sys_rmdir("/d"), 0);
	ck_assert_int_eq(sys_rmdir("/d"), -ENOENT);
}
END_TEST

/* --- ramfs ---------------------------------------------------------------------- */

START_TEST(ramfs_read_write_seek_truncate_append)
{
	char buf[64];
	long fd;
	struct stat st;

	make_file("/f", "hello world");
	ck_assert_int_eq(read_all("/f", buf, sizeof(buf)), 11);
	ck_assert_str_eq(buf, "hello world");
	fd = sys_open("/f", O_RDWR, 0);
	ck_assert_int_eq(sys_lseek(fd, -5, SEEK_END), 6);
	ck_assert_int_eq(sys_read(fd, buf, 5), 5);
	ck_assert_int_eq(memcmp(buf, "world", 5), 0);
	ck_assert_int_eq(sys_read(fd, buf, 5), 0);             /* end of file */
	ck_assert_int_eq(sys_lseek(fd, -1, SEEK_SET), -EINVAL);
	ck_assert_int_eq(sys_pwrite64(fd, "W", 1, 6), 1);
	ck_assert_int_eq(sys_pread64(fd, buf, 5, 6), 5);
	ck_assert_int_eq(memcmp(buf, "World", 5), 0);
	/* a hole past the end reads as zeroes */
	ck_assert_int_eq(sys_pwrite64(fd, "!", 1, 3 * PAGE_SIZE), 1);
	ck_assert_int_eq(sys_fstat(fd, &st), 0);
	ck_assert_int_eq(st.st_size, 3 * PAGE_SIZE + 1);
	ck_assert_int_eq(sys_pread64(fd, buf, 4, PAGE_SIZE), 4);
	ck_assert_int_eq(memcmp(buf, "\0\0\0\0", 4), 0);
	ck_assert_int_eq(sys_fsync(fd), 0);
	sys_close(fd);
	/* O_APPEND writes at the end whatever the position */
	fd = sys_open("/f", O_WRONLY | O_TRUNC | O_APPEND, 0);
	ck_assert_int_eq(sys_write(fd, "ab", 2), 2);
	ck_assert_int_eq(sys_lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(sys_write(fd, "cd", 2), 2);
	sys_close(fd);
	ck_assert_int_eq(read_all("/f", buf, sizeof(buf)), 4);
	ck_assert_str_eq(buf, "abcd");
}
END_TEST

START_TEST(ramfs_unlinked_file_lives_while_open)
{
	char buf[16];
	long fd;
	unsigned long before = nr_free_pages();

	make_file("/f", "still here");
	fd = sys_open("/f", O_RDONLY, 0);
	ck_assert_int_eq(sys_unlink("/f"), 0);
	ck_assert_int_eq(sys_open("/f", O_RDONLY, 0), -ENOENT);
	ck_assert_int_eq(sys_read(fd, buf, sizeof(buf)), 10);
	sys_close(fd);
	ck_assert_uint_ge(nr_free_pages() + 1, before);          /* the page is back */
}
END_TEST

START_TEST(ramfs_large_file_round_trip)
{
	static char in[5 * 4096 + 123], out[sizeof(in) + 1];
	long fd;

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (char)(i * 7 + 3);
	fd = sys_open("/big", O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(sys_write(fd, in, sizeof(in)), (long)sizeof(in));
	ck_assert_int_eq(sys_lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(sys_read(fd, out, sizeof(out)), (long)sizeof(in));
	ck_assert_int_eq(memcmp(in, out, sizeof(in)), 0);
	sys_close(fd);
}
END_TEST

/* Collect the names getdents64 returns, "name:type " each. */
static void list_dir(const char *path, char *out, size_t size, unsigned int bufsize)
{
	char buf[1024];
	long fd = sys_open(path, O_RDONLY | O_DIRECTORY, 0), n;

	ck_assert_int_ge(fd, 0);
	out[0] = '\0';
	while ((n = sys_getdents64(fd, (struct linux_dirent64 *)buf, bufsize)) > 0) {
		for (long off = 0; off < n; ) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			char one[300];

			ck_assert_int_eq(d->d_reclen % 8, 0);
			snprintf(one, sizeof(one), "%s:%u ", d->d_name, d->d_type);
			strlcat(out, one, size);
			off += d->d_reclen;
		}
	}
	ck_assert_int_eq(n, 0);
	sys_close(fd);
}

START_TEST(getdents64_lists_entries_with_types)
{
	char names[512];
	char tiny[8];
	long fd;

	sys_mkdir("/d", 0755);
	sys_mkdir("/d/sub", 0755);
	make_file("/d/file", "");
	list_dir("/d", names, sizeof(names), sizeof(names));
	ck_assert_str_eq(names, ".:4 ..:4 sub:4 file:8 ");
	/* a small buffer: one record per call, same result */
	list_dir("/d", names, sizeof(names), 32);
	ck_assert_str_eq(names, ".:4 ..:4 sub:4 file:8 ");
	fd = sys_open("/d", O_RDONLY, 0);
	ck_assert_int_eq(sys_getdents64(fd, (struct linux_dirent64 *)tiny, sizeof(tiny)), -EINVAL);
	sys_close(fd);
	fd = sys_open("/d/file", O_RDONLY, 0);
	ck_assert_int_eq(sys_getdents64(fd, (struct linux_dirent64 *)names, 100), -ENOTDIR);
	sys_close(fd);
}
END_TEST

/* --- descriptors -------------------------------------------------------------- */

START_TEST(fd_lowest_free_dup_dup2_close)
{
	long fd, fd2;
	char c;

	make_file("/f", "ab");
	fd = sys_open("/f", O_RDONLY, 0);
	ck_assert_int_eq(fd, 3);                /* 0-2 are the console */
	fd2 = sys_dup(fd);
	ck_assert_int_eq(fd2, 4);
	ck_assert_int_eq(sys_read(fd, &c, 1), 1);
	ck_assert_int_eq(sys_read(fd2, &c, 1), 1);     /* shared position */
	ck_assert_int_eq(c, 'b');
	ck_assert_int_eq(sys_close(1), 0);
	ck_assert_int_eq(sys_dup(fd), 1);       /* the lowest free: stdout */
	ck_assert_int_eq(sys_dup2(fd, 10), 10);
	ck_assert_int_eq(sys_dup2(fd, fd), fd);
	ck_assert_int_eq(sys_dup2(40, 11), -EBADF);
	ck_assert_int_eq(sys_dup2(fd, 64), -EBADF);
	ck_assert_int_eq(sys_close(10), 0);
	ck_assert_int_eq(sys_close(10), -EBADF);
	ck_assert_int_eq(sys_close(99), -EBADF);
	ck_assert_int_eq(sys_read(20, &c, 1), -EBADF);
	ck_assert_int_eq(sys_write(fd, "x", 1), -EBADF);  /* opened read-only */
}
END_TEST

/* The fuzzer's find: openat() relative to the very descriptor the open
 * has reserved for itself (a placeholder, not yet a file) is EBADF,
 * not a kernel crash. */
START_TEST(openat_on_a_reserved_descriptor_is_ebadf)
{
	make_file("/f", "x");
	/* 3 is the lowest free descriptor: the open reserves it first */
	ck_assert_int_eq(sys_openat(3, "f", O_RDONLY, 0), -EBADF);
	ck_assert_int_eq(sys_open("/f", O_RDONLY, 0), 3);      /* and gave it back */
}
END_TEST

START_TEST(ftruncate_cuts_and_grows_with_zeros)
{
	char buf[16];
	long fd, ro;

	make_file("/f", "abcdef");
	fd = sys_open("/f", O_RDWR, 0);
	ro = sys_open("/f", O_RDONLY, 0);
	ck_assert_int_eq(sys_ftruncate(fd, 3), 0);
	ck_assert_int_eq(sys_pread64(fd, buf, sizeof(buf), 0), 3);
	ck_assert_int_eq(memcmp(buf, "abc", 3), 0);
	ck_assert_int_eq(sys_ftruncate(fd, 8), 0);
	ck_assert_int_eq(sys_pread64(fd, buf, sizeof(buf), 0), 8);
	ck_assert_int_eq(memcmp(buf, "abc\0\0\0\0\0", 8), 0);      /* grown with zeros */
	ck_assert_int_eq(sys_ftruncate(ro, 1), -EINVAL);        /* not open for writing */
	ck_assert_int_eq(sys_ftruncate(fd, -1), -EINVAL);
	ck_assert_int_eq(sys_ftruncate(40, 0), -EBADF);
}
END_TEST

/* lseek: a position may pass the end of a file (a hole to come), but not
 * overflow or go negative -- EINVAL, never a wrapped position. */
START_TEST(lseek_overflow_is_einval)
{
	const loff_t max = (loff_t)(~0ull >> 1);
	long fd;

	make_file("/f", "abc");
	fd = sys_open("/f", O_RDONLY, 0);
	ck_assert_int_eq(sys_lseek(fd, 100, SEEK_SET), 100);
	ck_assert_int_eq(sys_lseek(fd, -1, SEEK_END), 2);
	ck_assert_int_eq(sys_lseek(fd, -3, SEEK_CUR), -EINVAL);
	ck_assert(sys_lseek(fd, max, SEEK_SET) == max);
	ck_assert_int_eq(sys_lseek(fd, 1, SEEK_CUR), -EINVAL);
	ck_assert(sys_lseek(fd, 0, SEEK_CUR) == max);          /* unchanged */
	ck_assert_int_eq(sys_lseek(fd, 0, 7), -EINVAL);
}
END_TEST

/* The largest file size there is: a hole, stat-able without overflow. */
START_TEST(largest_size_is_a_hole)
{
	const loff_t max = (loff_t)(~0ull >> 1);
	struct stat st;
	char buf[4] = "xxx";
	long fd;

	fd = sys_open("/f", O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(sys_ftruncate(fd, max), 0);
	ck_assert_int_eq(sys_fstat(fd, &st), 0);
	ck_assert(st.st_size == max);
	ck_assert_int_eq(st.st_blocks, 0);              /* all hole */
	ck_assert_int_eq(sys_pwrite64(fd, "abc", 3, 1 << 20), 3);
	ck_assert_int_eq(sys_fstat(fd, &st), 0);
	ck_assert_int_eq(st.st_blocks, 8);              /* one page, as tmpfs's */
	ck_assert_int_eq(sys_pread64(fd, buf, 3, max - 3), 3);  /* zeros, up to the end */
	ck_assert_mem_eq(buf, "\0\0\0", 3);
	ck_assert_int_eq(sys_pread64(fd, buf, 3, max - 1), -EINVAL);   /* would wrap */
	ck_assert_int_eq(sys_ftruncate(fd, 0), 0);
	ck_assert_int_eq(sys_close(fd), 0);
}
END_TEST

/*
 * A position is never negative, and [pos, pos + count) must fit in a
 * loff_t (Linux's rw_verify_area): EINVAL, and the buffer untouched.
 * A huge unsigned offset (an ELF's p_offset of 2^63) arrives here as a
 * negative loff_t; ramfs must never compute "i_size - pos" with it.
 */
START_TEST(negative_or_wrapping_position_is_einval)
{
	const loff_t max = (loff_t)(~0ull >> 1);
	char buf[8];
	struct file *f;
	loff_t pos;
	long fd;

	make_file("/f", "abcdefgh");
	f = filp_open("/f", O_RDWR, 0);
	ck_assert(!IS_ERR(f));
	memset(buf, 'x', sizeof(buf));
	pos = (loff_t)(1ull << 63);                     /* 2^63 as a loff_t */
	ck_assert_int_eq(kernel_read(f, buf, sizeof(buf), &pos), -EINVAL);
	pos = -1;
	ck_assert_int_eq(kernel_read(f, buf, sizeof(buf), &pos), -EINVAL);
	ck_assert_int_eq(kernel_write(f, "zz", 2, &pos), -EINVAL);
	ck_assert(pos == -1);                           /* not moved */
	pos = max - 3;                                  /* the range would wrap */
	ck_assert_int_eq(kernel_read(f, buf, sizeof(buf), &pos), -EINVAL);
	ck_assert_int_eq(kernel_write(f, buf, sizeof(buf), &pos), -EINVAL);
	ck_assert_mem_eq(buf, "xxxxxxxx", sizeof(buf)); /* no zeros "read" */
	pos = 2;
	ck_assert_int_eq(kernel_read(f, buf, 3, &pos), 3);
	ck_assert_mem_eq(buf, "cde", 3);
	fput(f);

	fd = sys_open("/f", O_RDWR, 0);
	ck_assert_int_eq(sys_pread64(fd, buf, 1, -1), -EINVAL);
	ck_assert_int_eq(sys_pwrite64(fd, buf, 1, (loff_t)(1ull << 63)), -EINVAL);
	ck_assert_int_eq(sys_pwrite64(fd, buf, 8, max - 3), -EINVAL);
	ck_assert(sys_lseek(fd, max, SEEK_SET) == max);
	ck_assert_int_eq(sys_read(fd, buf, 2), -EINVAL);
	ck_assert_int_eq(sys_write(fd, buf, 2), -EINVAL);
	ck_assert_int_eq(sys_close(fd), 0);
}
END_TEST

/* rm -r's pattern: read part of a directory, unlink what was read, read
 * on -- nothing may be skipped (positions do not shift on unlink). */
START_TEST(getdents_resumes_right_after_unlink)
{
	char buf[256], name[16];
	int seen = 0;
	long fd;

	ck_assert_int_eq(sys_mkdir("/d", 0755), 0);
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "/d/file%02d", i);
		make_file(name, "x");
	}
	fd = sys_open("/d", O_RDONLY | O_DIRECTORY, 0);
	for (;;) {
		long n = sys_getdents64(fd, (struct linux_dirent64 *)buf, sizeof(buf));

		ck_assert_int_ge(n, 0);
		if (n == 0)
			break;
		for (long off = 0; off < n; ) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);

			if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
				snprintf(name, sizeof(name), "/d/%s", d->d_name);
				ck_assert_int_eq(sys_unlink(name), 0);
				seen++;
			}
			off += d->d_reclen;
		}
	}
	ck_assert_int_eq(seen, 40);
	ck_assert_int_eq(sys_rmdir("/d"), 0);           /* really empty */
}
END_TEST

/* A directory removed while it is someone's cwd takes no new names. */
START_TEST(no_new_names_in_a_removed_directory)
{
	ck_assert_int_eq(sys_mkdir("/gone", 0755), 0);
	ck_assert_int_eq(sys_chdir("/gone"), 0);
	ck_assert_int_eq(sys_rmdir("/gone"), 0);
	ck_assert_int_eq(sys_open("f", O_WRONLY | O_CREAT, 0644), -ENOENT);
	ck_assert_int_eq(sys_mkdir("sub", 0755), -ENOENT);
	ck_assert_int_eq(sys_chdir("/"), 0);
}
END_TEST

START_TEST(fd_table_full_is_emfile)
{
	int n = 0;

	make_file("/f", "");
	while (sys_open("/f", O_RDONLY, 0) >= 0)
		n++;
	ck_assert_int_eq(n, NR_OPEN_DEFAULT - 3);
	ck_assert_int_eq(sys_open("/f", O_RDONLY, 0), -EMFILE);
	ck_assert_int_eq(sys_dup(0), -EMFILE);
}
END_TEST

START_TEST(fork_copies_table_exec_closes_cloexec)
{
	struct task_struct child = { .pid = 2 };
	struct task_struct *parent = current;
	long keep, shut;
	char c;

	make_file("/f", "xyz");
	keep = sys_open("/f", O_RDONLY, 0);
	shut = sys_open("/f", O_RDONLY | O_CLOEXEC, 0);
	sys_mkdir("/d", 0755);
	sys_chdir("/d");
	ck_assert_int_eq(copy_files(&child, parent, false, false), 0);
	current_task = &child;
	ck_assert_int_eq(sys_read(keep, &c, 1), 1);    /* the child reads 'x' */
	files_close_on_exec(&child);
	ck_assert_int_eq(sys_read(shut, &c, 1), -EBADF);
	ck_assert_int_eq(sys_read(keep, &c, 1), 1);
	ck_assert_int_eq(sys_open("../f", O_RDONLY, 0), 3 > shut ? 3 : shut);  /* cwd /d */
	exit_files(&child);
	current_task = parent;
	/* the file position is shared with the parent, as after fork() */
	ck_assert_int_eq(sys_read(keep, &c, 1), 1);
	ck_assert_int_eq(c, 'z');
	ck_assert_int_eq(sys_read(shut, &c, 1), 1);    /* still open here */
}
END_TEST

/* A thread's clone(CLONE_FILES | CLONE_FS): one table and one cwd for
 * both; what either opens or closes, the other sees; the thread's exit
 * leaves them to the other. */
START_TEST(thread_shares_table_and_cwd)
{
	struct task_struct thread = { .pid = 3 };
	struct task_struct *leader = current;
	long fd;
	char c;

	make_file("/g", "abc");
	sys_mkdir("/e", 0755);
	ck_assert_int_eq(copy_files(&thread, leader, true, true), 0);
	ck_assert_ptr_eq(thread.files, leader->files);
	ck_assert_ptr_eq(thread.fs, leader->fs);
	current_task = &thread;
	fd = sys_open("/g", O_RDONLY, 0);               /* opened by the thread */
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(sys_chdir("/e"), 0);
	exit_files(&thread);
	current_task = leader;
	ck_assert_int_eq(sys_read(fd, &c, 1), 1);       /* still open here */
	ck_assert_int_eq(c, 'a');
	ck_assert_int_eq(sys_open("../g", O_RDONLY, 0), fd + 1);   /* cwd /e */
	ck_assert_int_eq(sys_close(fd), 0);
	ck_assert_int_eq(sys_close(fd + 1), 0);
	sys_chdir("/");
}
END_TEST

/* --- pipes -------------------------------------------------------------------- */

START_TEST(pipe_data_eof_epipe)
{
	int fds[2];
	char buf[16];

	ck_assert_int_eq(sys_pipe(fds), 0);
	ck_assert_int_eq(sys_write(fds[1], "hello", 5), 5);
	ck_assert_int_eq(sys_read(fds[0], buf, 3), 3);
	ck_assert_int_eq(memcmp(buf, "hel", 3), 0);
	ck_assert_int_eq(sys_read(fds[0], buf, 16), 2);
	ck_assert_int_eq(sys_lseek(fds[0], 0, SEEK_SET), -ESPIPE);
	ck_assert_int_eq(sys_pread64(fds[0], buf, 1, 0), -ESPIPE);
	ck_assert_int_eq(sys_read(fds[1], buf, 1), -EBADF);
	ck_assert_int_eq(sys_close(fds[1]), 0);
	ck_assert_int_eq(sys_read(fds[0], buf, 16), 0);        /* no writer: EOF */
	sys_close(fds[0]);

	ck_assert_int_eq(sys_pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
	ck_assert_int_eq(sys_read(fds[0], buf, 1), -EAGAIN);
	ck_assert_int_eq(sys_close(fds[0]), 0);
	ck_assert_int_eq(sys_write(fds[1], "x", 1), -EPIPE);   /* no reader */
	sys_close(fds[1]);
	ck_assert_int_eq(sys_pipe2(fds, 0x1), -EINVAL);
}
END_TEST

START_TEST(pipe_ring_wraps_and_fills)
{
	static char in[3000], out[3000];
	int fds[2];
	long n, total = 0;


	ck_assert_int_eq(sys_pipe2(fds, O_NONBLOCK), 0);
	/* many rounds through the 16 KiB ring, each checked */
	for (int round = 0; round < 40; round++) {
		for (size_t i = 0; i < sizeof(in); i++)
			in[i] = (char)(round * 31 + i);
		ck_assert_int_eq(sys_write(fds[1], in, sizeof(in)), (long)sizeof(in));
		ck_assert_int_eq(sys_read(fds[0], out, sizeof(out)), (long)sizeof(out));
		ck_assert_int_eq(memcmp(in, out, sizeof(in)), 0);
	}
	/* fill it: a write of <= PIPE_BUF bytes goes in whole or not at all */
	while ((n = sys_write(fds[1], in, sizeof(in))) > 0)
		total += n;
	ck_assert_int_eq(n, -EAGAIN);
	ck_assert_int_eq(total, 15000);                 /* 5 x 3000; 1384 left */
	ck_assert_int_eq(sys_write(fds[1], in, 1384), 1384);
	ck_assert_int_eq(sys_write(fds[1], in, 1), -EAGAIN);
	sys_close(fds[0]);
	sys_close(fds[1]);
}
END_TEST

/* Does the FIFO at path hold a pipe buffer right now? */
static bool fifo_has_buffer(const char *path)
{
	struct path p;
	bool has;

	ck_assert_int_eq(kern_path(path, 0, &p), 0);
	ck_assert(S_ISFIFO(p.dentry->d_inode->i_mode));
	has = p.dentry->d_inode->i_pipe != NULL;
	path_put(&p);
	return has;
}

/*
 * A FIFO's 16 KiB buffer lives while a file is open on it, as Linux's
 * put_pipe_info: make, open, use, close and delete many FIFOs and every
 * page comes back (before, each opened FIFO kept its buffer forever).
 */
START_TEST(fifo_buffers_are_freed)
{
	unsigned long before;
	char buf[4];
	long r, w;

	ck_assert_int_eq(do_mknodat(AT_FDCWD, "/kept", S_IFIFO | 0644, 0), 0);
	ck_assert(!fifo_has_buffer("/kept"));
	before = nr_free_pages();
	for (int i = 0; i < 32; i++) {
		ck_assert_int_eq(do_mknodat(AT_FDCWD, "/fifo", S_IFIFO | 0644, 0), 0);
		r = sys_open("/fifo", O_RDONLY | O_NONBLOCK, 0);
		w = sys_open("/fifo", O_WRONLY, 0);
		ck_assert(r >= 0 && w >= 0);
		ck_assert(fifo_has_buffer("/fifo"));
		ck_assert_int_eq(sys_write(w, "hi", 2), 2);
		ck_assert_int_eq(sys_read(r, buf, sizeof(buf)), 2);
		ck_assert_int_eq(sys_close(w), 0);
		ck_assert_int_eq(sys_close(r), 0);
		ck_assert_int_eq(sys_unlink("/fifo"), 0);
	}
	ck_assert_uint_eq(nr_free_pages(), before);
	/* one that stays in its directory: no buffer once nobody has it open */
	r = sys_open("/kept", O_RDWR, 0);
	ck_assert(fifo_has_buffer("/kept"));
	ck_assert_int_eq(sys_close(r), 0);
	ck_assert(!fifo_has_buffer("/kept"));
	ck_assert_uint_eq(nr_free_pages(), before);
	/* and it works again: a new buffer, empty */
	r = sys_open("/kept", O_RDWR, 0);
	ck_assert_int_eq(sys_write(r, "ab", 2), 2);
	ck_assert_int_eq(sys_read(r, buf, sizeof(buf)), 2);
	ck_assert_int_eq(sys_close(r), 0);
}
END_TEST

/* --- mounts, devtmpfs, proc ------------------------------------------------------ */

/* /proc/<pid>/cmdline: the bytes between the mm's arg_start and arg_end,
 * read anew at each open (a rewritten argv shows); empty without an mm
 * (a kernel thread, a zombie). */
START_TEST(proc_cmdline)
{
	static char args[] = "ps\0-ef\0";
	struct mm_struct mm = { .arg_start = (unsigned long)args,
				.arg_end = (unsigned long)args + sizeof(args) - 1 };
	char buf[64];

	sys_mkdir("/proc", 0555);
	ck_assert_int_eq(sys_mount("proc", "/proc", "proc", 0, NULL), 0);
	current->mm = &mm;
	ck_assert_int_eq(read_all("/proc/self/cmdline", buf, sizeof(buf)), 7);
	ck_assert_mem_eq(buf, "ps\0-ef\0", 7);
	args[0] = 'P';
	ck_assert_int_eq(read_all("/proc/1/cmdline", buf, sizeof(buf)), 7);
	ck_assert_mem_eq(buf, "Ps\0-ef\0", 7);
	current->mm = NULL;
	ck_assert_int_eq(read_all("/proc/self/cmdline", buf, sizeof(buf)), 0);
	ck_assert_int_eq(sys_umount2("/proc", 0), 0);
}
END_TEST

START_TEST(mount_umount_busy)
{
	char buf[512], want[200];
	long fd;

	sys_mkdir("/proc", 0555);
	ck_assert_int_eq(sys_mount("none", "/proc", "nosuchfs", 0, NULL), -ENODEV);
	ck_assert_int_eq(sys_mount("none", "/nope", "proc", 0, NULL), -ENOENT);
	ck_assert_int_eq(sys_mount("proc", "/proc", "proc", 0, NULL), 0);
	ck_assert_int_gt(read_all("/proc/meminfo", buf, sizeof(buf)), 0);
	ck_assert_ptr_nonnull(strstr(buf, "MemTotal:"));
	ck_assert_int_gt(read_all("/proc/mounts", buf, sizeof(buf)), 0);
	/* rootfs has tmpfs's limits: half of RAM, in pages and in inodes */
	snprintf(want, sizeof(want), "rootfs / rootfs rw,noatime,size=%luk,nr_inodes=%lu,mode=755,inode64 0 0\n"
		 "proc /proc proc rw,noatime 0 0\n", totalram_pages() / 2 * 4, totalram_pages() / 2);
	ck_assert_str_eq(buf, want);
	fd = sys_open("/proc/vmstat", O_RDONLY, 0);
	ck_assert_int_eq(sys_umount2("/proc", 0), -EBUSY);     /* a file is open */
	sys_close(fd);
	ck_assert_int_eq(sys_chdir("/proc"), 0);
	ck_assert_int_eq(sys_umount2("/proc", 0), -EBUSY);     /* it is our cwd */
	ck_assert_int_eq(sys_chdir("/"), 0);
	ck_assert_int_eq(sys_umount2("/", 0), -EBUSY);
	ck_assert_int_eq(sys_umount2("/nope", 0), -ENOENT);
	sys_mkdir("/d", 0755);
	ck_assert_int_eq(sys_umount2("/d", 0), -EINVAL);       /* not a mount */
	ck_assert_int_eq(sys_umount2("/proc", 0), 0);
	ck_assert_int_eq(read_all("/proc/meminfo", buf, sizeof(buf)), -ENOENT);
	/* a ramfs on a directory hides what is below, until umount */
	make_file("/d/under", "u");
	ck_assert_int_eq(sys_mount("none", "/d", "tmpfs", 0, NULL), 0);
	ck_assert_int_eq(read_all("/d/under", buf, sizeof(buf)), -ENOENT);
	make_file("/d/over", "o");
	ck_assert_int_eq(sys_rmdir("/d"), -EBUSY);
	ck_assert_int_eq(sys_umount2("/d", 0), 0);
	ck_assert_int_eq(read_all("/d/under", buf, sizeof(buf)), 1);
	ck_assert_int_eq(read_all("/d/over", buf, sizeof(buf)), -ENOENT);
}
END_TEST

/*
 * An open for writing and a remount read-only never both succeed, as
 * Linux's mnt_want_write() and sb_prepare_remount_readonly() see to it.
 * The remount sleeps between its "no writers?" check and setting
 * SB_RDONLY (in writeback, in the file system's remount_fs), and an open
 * that had already found the file system read-write may run then and
 * reach the point where it becomes a writer (dentry_open).  The test plays
 * that open from inside remount_fs, the last step before SB_RDONLY: it
 * must get EROFS.  (Before the fix it got a file open for writing, and
 * the remount still made the file system read-only under it.)  If the
 * remount fails, writers are let in again.
 */
static struct path racer_path;
static struct file *racer;
static int racer_remount_result;

static int remount_with_a_racing_open(struct super_block *sb, unsigned long *flags, char *data)
{
	(void)sb, (void)flags, (void)data;
	racer = dentry_open(&racer_path, O_WRONLY);
	return racer_remount_result;
}

START_TEST(remount_ro_and_open_for_writing_never_both_succeed)
{
	struct super_operations racing_ops;
	const struct super_operations *real_ops;
	struct super_block *sb;
	long fd;

	sys_mkdir("/r", 0755);
	ck_assert_int_eq(sys_mount("none", "/r", "tmpfs", 0, NULL), 0);
	make_file("/r/f", "data");
	ck_assert_int_eq(kern_path("/r/f", 0, &racer_path), 0);
	sb = racer_path.mnt->mnt_sb;
	ck_assert(!sb_rdonly(sb));              /* what the opener saw */
	real_ops = sb->s_op;
	racing_ops = *real_ops;
	racing_ops.remount_fs = remount_with_a_racing_open;
	sb->s_op = &racing_ops;

	/* a remount that fails lets writers in again */
	racer_remount_result = -EIO;
	ck_assert_int_eq(sys_mount(NULL, "/r", NULL, MS_REMOUNT | MS_RDONLY, NULL), -EIO);
	ck_assert_ptr_eq(racer, ERR_PTR(-EROFS));
	fd = sys_open("/r/f", O_WRONLY, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(sys_close(fd), 0);

	/* one that succeeds: the racing open lost, and later ones see ro */
	racer_remount_result = 0;
	ck_assert_int_eq(sys_mount(NULL, "/r", NULL, MS_REMOUNT | MS_RDONLY, NULL), 0);
	ck_assert_ptr_eq(racer, ERR_PTR(-EROFS));
	ck_assert_int_eq(sys_open("/r/f", O_WRONLY, 0), -EROFS);
	sb->s_op = real_ops;

	/* and the other order: a writer first, then the remount is EBUSY */
	ck_assert_int_eq(sys_mount(NULL, "/r", NULL, MS_REMOUNT, NULL), 0);
	fd = sys_open("/r/f", O_RDWR, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(sys_mount(NULL, "/r", NULL, MS_REMOUNT | MS_RDONLY, NULL), -EBUSY);
	ck_assert_int_eq(sys_close(fd), 0);
	ck_assert_int_eq(sys_mount(NULL, "/r", NULL, MS_REMOUNT | MS_RDONLY, NULL), 0);
	path_put(&racer_path);
	ck_assert_int_eq(sys_umount2("/r", 0), 0);
}
END_TEST

/*
 * Anonymous device numbers (the st_dev of a tmpfs, of proc) come from
 * Linux's get_anon_bdev(): the lowest free minor of major 0, from an
 * IDA, given back by free_anon_bdev() when the super_block goes.  So a
 * remount gets its old number again, and mounting and unmounting for ever
 * neither runs out of them nor carries a minor past its 20 bits into the
 * major.  (Before, each mount took the next number and none came back.)
 */
START_TEST(anon_dev_numbers_are_reused)
{
	struct stat st;
	unsigned long first, second;

	sys_mkdir("/a", 0755);
	sys_mkdir("/b", 0755);
	ck_assert_int_eq(sys_mount("none", "/a", "tmpfs", 0, NULL), 0);
	ck_assert_int_eq(sys_stat("/a", &st), 0);
	first = st.st_dev;
	ck_assert_uint_eq(first >> 8 & 0xfff, 0);       /* major 0 */
	ck_assert_uint_ne(first, 0);                    /* 0:0 is never handed out */
	ck_assert_int_eq(sys_mount("none", "/b", "tmpfs", 0, NULL), 0);
	ck_assert_int_eq(sys_stat("/b", &st), 0);
	second = st.st_dev;
	ck_assert_uint_ne(second, first);
	ck_assert_int_eq(sys_umount2("/a", 0), 0);
	ck_assert_int_eq(sys_mount("none", "/a", "tmpfs", 0, NULL), 0);
	ck_assert_int_eq(sys_stat("/a", &st), 0);
	ck_assert_uint_eq(st.st_dev, first);            /* the lowest free again */
	ck_assert_int_eq(sys_umount2("/b", 0), 0);
	for (int i = 0; i < 5000; i++) {
		ck_assert_int_eq(sys_mount("none", "/b", "tmpfs", 0, NULL), 0);
		ck_assert_int_eq(sys_umount2("/b", 0), 0);
	}
	ck_assert_int_eq(sys_mount("none", "/b", "tmpfs", 0, NULL), 0);
	ck_assert_int_eq(sys_stat("/b", &st), 0);
	ck_assert_uint_eq(st.st_dev, second);
	ck_assert_int_eq(sys_umount2("/b", 0), 0);
	ck_assert_int_eq(sys_umount2("/a", 0), 0);
}
END_TEST

/* Write `total` bytes of 'x' in 4 KiB pieces; what was written, or -errno
 * if not even the first piece went in.  *err: the error that stopped it. */
static long fill(const char *path, long total, long *err)
{
	static char chunk[4096];
	long fd = sys_open(path, O_WRONLY | O_CREAT | O_APPEND, 0600), done = 0, n = 0;

	ck_assert_int_ge(fd, 0);
	memset(chunk, 'x', sizeof(chunk));
	while (done < total && (n = sys_write(fd, chunk, sizeof(chunk))) > 0)
		done += n;
	*err = n < 0 ? n : 0;
	ck_assert_int_eq(sys_close(fd), 0);
	return done;
}

/*
 * tmpfs's size=: writes stop with ENOSPC at the limit (not when memory
 * runs out), and unlink gives every page back: a second fill gets
 * exactly as far as the first.
 */
START_TEST(tmpfs_size_limit_is_enospc_and_unlink_returns_it)
{
	unsigned long before;
	long err, first, again;

	sys_mkdir("/t", 0755);
	ck_assert_int_eq(sys_mount("none", "/t", "tmpfs", 0, "size=64k"), 0);
	before = nr_free_pages();
	first = fill("/t/a", 1 << 20, &err);
	ck_assert_int_eq(err, -ENOSPC);
	ck_assert_int_eq(first, 64 * 1024);             /* a small file: data only */
	ck_assert_int_eq(fill("/t/b", 4096, &err), 0);  /* another file: full too */
	ck_assert_int_eq(err, -ENOSPC);
	ck_assert_int_eq(sys_unlink("/t/a"), 0);
	ck_assert_int_eq(sys_unlink("/t/b"), 0);
	ck_assert_uint_eq(nr_free_pages(), before);
	again = fill("/t/c", 1 << 20, &err);
	ck_assert_int_eq(err, -ENOSPC);
	ck_assert_int_eq(again, first);
	ck_assert_int_eq(sys_unlink("/t/c"), 0);
	ck_assert_int_eq(sys_umount2("/t", 0), 0);
}
END_TEST

/* statfs: tmpfs's size= and nr_inodes= and what is used of them, as
 * Linux's shmem_statfs; the others' magic numbers with no figures. */
START_TEST(statfs_figures_as_linux)
{
	static char big[2 << 20];
	struct statfs b;
	int fds[2];
	long fd;

	sys_mkdir("/t", 0755);
	ck_assert_int_eq(sys_mount("none", "/t", "tmpfs", 0, "size=4m,nr_inodes=10"), 0);
	ck_assert_int_eq(ksys_statfs("/t", &b), 0);
	ck_assert_int_eq(b.f_type, TMPFS_MAGIC);
	ck_assert_int_eq(b.f_bsize, 4096);
	ck_assert_int_eq(b.f_frsize, 4096);
	ck_assert_int_eq(b.f_namelen, 255);
	ck_assert_int_eq(b.f_flags, ST_VALID);
	ck_assert_uint_eq(b.f_blocks, 1024);
	ck_assert_uint_eq(b.f_bfree, 1024);
	ck_assert_uint_eq(b.f_bavail, 1024);
	ck_assert_uint_eq(b.f_files, 10);
	ck_assert_uint_eq(b.f_ffree, 9);                /* the root's inode */
	make_file("/t/small", "abc");
	ck_assert_int_eq(ksys_statfs("/t/small", &b), 0);
	ck_assert_uint_eq(b.f_bfree, 1023);
	ck_assert_uint_eq(b.f_ffree, 8);
	/* 2 MiB: 512 data pages and a 4 KiB index array */
	fd = sys_open("/t/big", O_WRONLY | O_CREAT, 0600);
	ck_assert_int_eq(sys_write(fd, big, sizeof(big)), (long)sizeof(big));
	ck_assert_int_eq(ksys_fstatfs(fd, &b), 0);
	ck_assert_uint_eq(b.f_bfree, 1023 - 512 - 1);
	sys_close(fd);
	ck_assert_int_eq(sys_unlink("/t/big"), 0);
	ck_assert_int_eq(sys_unlink("/t/small"), 0);
	ck_assert_int_eq(ksys_statfs("/t", &b), 0);
	ck_assert_uint_eq(b.f_bfree, 1024);
	ck_assert_uint_eq(b.f_ffree, 9);
	ck_assert_int_eq(sys_umount2("/t", 0), 0);

	ck_assert_int_eq(sys_mount("none", "/t", "ramfs", 0, NULL), 0);
	ck_assert_int_eq(ksys_statfs("/t", &b), 0);
	ck_assert_int_eq(b.f_type, RAMFS_MAGIC);
	ck_assert_uint_eq(b.f_blocks, 0);               /* no limit */
	ck_assert_int_eq(sys_umount2("/t", 0), 0);
	sys_mkdir("/proc", 0555);
	ck_assert_int_eq(sys_mount("proc", "/proc", "proc", 0, NULL), 0);
	ck_assert_int_eq(ksys_statfs("/proc/meminfo", &b), 0);
	ck_assert_int_eq(b.f_type, PROC_SUPER_MAGIC);
	ck_assert_int_eq(ksys_statfs("/nope", &b), -ENOENT);
	ck_assert_int_eq(ksys_fstatfs(99, &b), -EBADF);
	ck_assert_int_eq(sys_pipe(fds), 0);
	ck_assert_int_eq(ksys_fstatfs(fds[0], &b), 0);
	ck_assert_int_eq(b.f_type, PIPEFS_MAGIC);
	sys_close(fds[0]);
	sys_close(fds[1]);
}
END_TEST

/* The mount options tmpfs takes, and the figures /proc/mounts shows. */
START_TEST(tmpfs_mount_options_as_linux)
{
	static const struct {
		const char *opts;
		long err;
		const char *shown;      /* the options part of the /proc/mounts line */
	} cases[] = {
		{ "size=1m", 0, "rw,noatime,size=1024k,nr_inodes=%lu,inode64 " },
		{ "size=1000", 0, "rw,noatime,size=4k,nr_inodes=%lu,inode64 " }, /* up to a page */
		{ "size=2M,mode=700", 0, "rw,noatime,size=2048k,nr_inodes=%lu,mode=700,inode64 " },
		{ "nr_inodes=5,size=0x2000", 0, "rw,noatime,size=8k,nr_inodes=5,inode64 " },
		{ "size=0", 0, "rw,noatime,size=0k,nr_inodes=%lu,inode64 " }, /* 0: no limit */
		{ "size=12x", -EINVAL, NULL },
		{ "size=", -EINVAL, NULL },
		{ "size=-1", -EINVAL, NULL },
		{ "size=99999999999999999%", -EINVAL, NULL },
		{ "mode=8", -EINVAL, NULL },
		{ "nosuchoption=1", -EINVAL, NULL },
	};
	char buf[512], want[100], *line;

	sys_mkdir("/proc", 0555);
	sys_mkdir("/t", 0755);
	ck_assert_int_eq(sys_mount("proc", "/proc", "proc", 0, NULL), 0);
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		ck_assert_msg(sys_mount("none", "/t", "tmpfs", 0, (void *)cases[i].opts) ==
			      cases[i].err, "%s", cases[i].opts);
		if (cases[i].err)
			continue;
		ck_assert_int_gt(read_all("/proc/mounts", buf, sizeof(buf)), 0);
		line = strstr(buf, "none /t tmpfs ");
		ck_assert_ptr_nonnull(line);
		snprintf(want, sizeof(want), cases[i].shown, totalram_pages() / 2);
		ck_assert_msg(strncmp(line + 14, want, strlen(want)) == 0, "%s: %s", cases[i].opts,
			      line);
		ck_assert_int_eq(sys_umount2("/t", 0), 0);
	}
	/* a share of RAM, as Linux's size=50% */
	ck_assert_int_eq(sys_mount("none", "/t", "tmpfs", 0, "size=50%"), 0);
	ck_assert_int_gt(read_all("/proc/mounts", buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "none /t tmpfs rw,noatime,size=%luk,",   /* bytes, rounded up */
		 (totalram_pages() * 4096 * 50 / 100 + 4095) / 4096 * 4);
	ck_assert_ptr_nonnull(strstr(buf, want));
	ck_assert_int_eq(sys_umount2("/t", 0), 0);
	/* ramfs is Linux's ramfs: no limit, and size= is ignored */
	ck_assert_int_eq(sys_mount("none", "/t", "ramfs", 0, "size=4k"), 0);
	ck_assert_int_gt(read_all("/proc/mounts", buf, sizeof(buf)), 0);
	ck_assert_ptr_nonnull(strstr(buf, "none /t ramfs rw,noatime 0 0\n"));
	ck_assert_int_eq(sys_umount2("/t", 0), 0);
}
END_TEST

/* A tmpfs mounted, used and unmounted: its super_block goes too. */
static void tmpfs_cycle(void)
{
	ck_assert_int_eq(sys_mount("none", "/t", "tmpfs", 0, "size=1m"), 0);
	make_file("/t/f", "data");
	ck_assert_int_eq(sys_mkdir("/t/d", 0755), 0);
	make_file("/t/d/g", "more");
	ck_assert_int_eq(sys_umount2("/t", 0), 0);
}

START_TEST(tmpfs_mount_umount_leaks_nothing)
{
	unsigned long before;

	sys_mkdir("/t", 0755);
	tmpfs_cycle();                  /* the slabs' first objects */
	before = nr_free_pages();
	for (int i = 0; i < 256; i++)
		tmpfs_cycle();
	ck_assert_uint_eq(nr_free_pages(), before);
}
END_TEST

/* A tree deeper than any path (chdir, mkdir, again): getcwd is
 * ENAMETOOLONG as Linux, and umount frees all of it, side branches too. */
START_TEST(deep_tree_umount_frees_everything)
{
	unsigned long before;
	char cwd[64];

	sys_mkdir("/t", 0755);
	tmpfs_cycle();
	before = nr_free_pages();
	ck_assert_int_eq(sys_mount("none", "/t", "tmpfs", 0, "nr_inodes=0"), 0);
	ck_assert_int_eq(sys_chdir("/t"), 0);
	for (int i = 0; i < 2100; i++) {        /* "/t" + 2100 x "/d": past PATH_MAX */
		ck_assert_int_eq(sys_mkdir("d", 0755), 0);
		if (i % 100 == 0)
			make_file("side", "branch");
		ck_assert_int_eq(sys_chdir("d"), 0);
	}
	ck_assert_int_eq(sys_getcwd(cwd, sizeof(cwd)), -ENAMETOOLONG);
	ck_assert_int_eq(sys_chdir("/"), 0);
	ck_assert_int_eq(sys_umount2("/t", 0), 0);
	ck_assert_uint_eq(nr_free_pages(), before);
}
END_TEST

/* nr_inodes= counts every inode, the root's too. */
START_TEST(tmpfs_nr_inodes_is_enospc)
{
	sys_mkdir("/t", 0755);
	ck_assert_int_eq(sys_mount("none", "/t", "tmpfs", 0, "nr_inodes=3"), 0);
	make_file("/t/a", "a");
	ck_assert_int_eq(sys_mkdir("/t/d", 0755), 0);
	ck_assert_int_eq(sys_open("/t/b", O_WRONLY | O_CREAT, 0600), -ENOSPC);
	ck_assert_int_eq(sys_mkdir("/t/e", 0755), -ENOSPC);
	ck_assert_int_eq(sys_unlink("/t/a"), 0);
	make_file("/t/b", "b");                         /* the inode came back */
}
END_TEST

/*
 * Freeing must not need memory: with every free page taken, unlink and
 * close still work and give the file's pages back (before the path-name
 * reserve, unlink failed with ENOMEM and nothing could be freed).
 */
START_TEST(unlink_and_close_work_with_no_free_memory)
{
	struct list_head hog = LIST_HEAD_INIT(hog);
	struct page *pg, *tmp;
	unsigned long freed;
	long fd, err;

	ck_assert_int_eq(fill("/f", 8 * 4096, &err), 8 * 4096);
	fd = sys_open("/f", O_RDONLY, 0);
	ck_assert_int_ge(fd, 0);
	while ((pg = alloc_page(GFP_KERNEL)))
		list_add(&pg->lru, &hog);
	ck_assert_uint_eq(nr_free_pages(), 0);
	ck_assert_int_eq(sys_unlink("/f"), 0);
	ck_assert_uint_eq(nr_free_pages(), 0);          /* still open: data kept */
	ck_assert_int_eq(sys_close(fd), 0);
	freed = nr_free_pages();
	ck_assert_uint_ge(freed, 8);                    /* the data pages, at least */
	list_for_each_entry_safe(pg, tmp, &hog, lru)
		__free_page(pg);
}
END_TEST

START_TEST(devtmpfs_null_zero_console_nodes)
{
	char names[512], buf[8];
	struct stat st;
	long fd;

	sys_mkdir("/dev", 0755);
	ck_assert_int_eq(sys_mount("none", "/dev", "devtmpfs", 0, NULL), 0);
	list_dir("/dev", names, sizeof(names), sizeof(names));
	ck_assert_str_eq(names, ".:4 ..:4 console:2 null:2 zero:2 ");
	ck_assert_int_eq(sys_stat("/dev/null", &st), 0);
	ck_assert_int_eq(st.st_mode, S_IFCHR | 0666);
	ck_assert_uint_eq(st.st_rdev, 0x103);           /* new_encode_dev(1, 3) */
	fd = sys_open("/dev/null", O_RDWR, 0);
	ck_assert_int_eq(sys_write(fd, "abc", 3), 3);
	ck_assert_int_eq(sys_read(fd, buf, 8), 0);
	sys_close(fd);
	fd = sys_open("/dev/zero", O_RDONLY, 0);
	memset(buf, 1, sizeof(buf));
	ck_assert_int_eq(sys_read(fd, buf, 8), 8);
	ck_assert_int_eq(memcmp(buf, "\0\0\0\0\0\0\0\0", 8), 0);
	sys_close(fd);
	ck_assert_int_eq(sys_stat("/dev/sdz", &st), -ENOENT);
}
END_TEST

START_TEST(stat_encodes_device_numbers_as_linux)
{
	ck_assert_uint_eq(new_encode_dev(8, 1), 0x801);
	ck_assert_uint_eq(new_encode_dev(253, 0), 0xfd00);
	ck_assert_uint_eq(new_encode_dev(8, 300), (300 & 0xff) | (8 << 8) | ((300 & ~0xff) << 12));
	ck_assert_uint_eq(sizeof(struct stat), 144);
}
END_TEST

START_TEST(proc_pid_stat_has_52_fields)
{
	char buf[1024];
	int fields = 0;
	char *p;

	sys_mkdir("/proc", 0555);
	ck_assert_int_eq(sys_mount("proc", "/proc", "proc", 0, NULL), 0);
	strcpy(current->comm, "host");
	ck_assert_int_gt(read_all("/proc/self/stat", buf, sizeof(buf)), 0);
	ck_assert_int_eq(strncmp(buf, "1 (host) R 0 0 0 0 -1 ", 22), 0);
	for (p = buf; *p; p++)
		if (*p == ' ')
			fields++;
	ck_assert_int_eq(fields + 1, 52);
	ck_assert_int_gt(read_all("/proc/1/stat", buf, sizeof(buf)), 0);
	ck_assert_int_eq(read_all("/proc/99/stat", buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(read_all("/proc/1/stack", buf, sizeof(buf)), 0);
}
END_TEST

/*
 * /proc listed in pieces while processes exit: every process alive
 * throughout is listed once.  (Positions were indexes into the task
 * list, so an exit before the reader's place made it skip a process.)
 */
START_TEST(proc_listing_skips_no_process_when_one_exits)
{
	static struct task_struct tasks[5];
	char buf[64], seen[200] = "";
	long fd, n;

	sys_mkdir("/proc", 0555);
	ck_assert_int_eq(sys_mount("proc", "/proc", "proc", 0, NULL), 0);
	for (int i = 0; i < 5; i++) {
		tasks[i].pid = tasks[i].tgid = 2 + i;   /* pids 2..6; we are 1 */
		tasks[i].group_leader = &tasks[i];
		tasks[i].state = TASK_RUNNING;
		list_add_tail(&tasks[i].tasks, &task_list);
	}
	fd = sys_open("/proc", O_RDONLY | O_DIRECTORY, 0);
	ck_assert_int_ge(fd, 0);
	/* one record per call (a 32-byte buffer holds one short name) */
	while ((n = sys_getdents64(fd, (struct linux_dirent64 *)buf, 32)) > 0) {
		struct linux_dirent64 *d = (struct linux_dirent64 *)buf;

		strcat(seen, d->d_name);
		strcat(seen, " ");
		if (strcmp(d->d_name, "3") == 0)
			list_del(&tasks[0].tasks);      /* pid 2 exits, behind us */
	}
	ck_assert_int_eq(n, 0);
	sys_close(fd);
	ck_assert_ptr_nonnull(strstr(seen, " self irq 1 2 3 4 5 6 "));
	for (int i = 1; i < 5; i++)
		list_del(&tasks[i].tasks);
}
END_TEST

/*
 * /proc/stat and /proc/uptime in Linux 6.1's layout, from the shim's
 * fixed counters (one CPU whose stat i is i + 1 USER_HZ ticks): the
 * columns in /proc/stat's order (user nice system idle iowait irq softirq
 * steal guest guest_nice), which is not the enum's; "cpu " with two
 * spaces; intr's total first; then the named lines in order.
 */
START_TEST(proc_stat_layout_as_linux)
{
	char buf[4096];
	long fd, n;

	sys_mkdir("/proc", 0555);
	sys_mount("proc", "/proc", "proc", 0, NULL);
	fd = sys_open("/proc/stat", O_RDONLY, 0);
	ck_assert_int_ge(fd, 0);
	n = sys_read(fd, buf, sizeof(buf) - 1);
	sys_close(fd);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_msg(!strncmp(buf, "cpu  1 2 3 6 7 5 4 8 9 10\ncpu0 1 2 3 6 7 5 4 8 9 10\nintr 5 5 0 ",
			       strlen("cpu  1 2 3 6 7 5 4 8 9 10\ncpu0 1 2 3 6 7 5 4 8 9 10\nintr 5 5 0 ")),
		      "/proc/stat begins:\n%.120s", buf);
	ck_assert_ptr_nonnull(strstr(buf, " 0\nctxt 42\nbtime 1764892800\nprocesses 7\n"
					  "procs_running 2\nprocs_blocked 1\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n"));
	fd = sys_open("/proc/uptime", O_RDONLY, 0);
	ck_assert_int_ge(fd, 0);
	n = sys_read(fd, buf, sizeof(buf) - 1);
	sys_close(fd);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	/* idle: the idle and iowait stats, 6 + 7 ticks = 0.13 s */
	ck_assert_msg(strstr(buf, " 0.13\n") != NULL, "/proc/uptime: %s", buf);
}
END_TEST

START_TEST(proc_meminfo_layout_as_linux)
{
	char buf[1024];
	unsigned long v;
	char label[32];

	proc_meminfo_show(buf, sizeof(buf));
	/* "MemTotal:       16380 kB": label, padding to column 16, %8lu kB */
	ck_assert_int_eq(sscanf(buf, "%31s %lu kB", label, &v), 2);
	ck_assert_str_eq(label, "MemTotal:");
	ck_assert_uint_eq(v, totalram_pages() * 4);
	ck_assert_int_eq(strchr(buf, '\n') - buf, 16 + 8 + 3);
	ck_assert_ptr_nonnull(strstr(buf, "\nMemFree:        "));
	proc_vmstat_show(buf, sizeof(buf));
	ck_assert_int_eq(strncmp(buf, "nr_free_pages ", 14), 0);
	ck_assert_ptr_nonnull(strstr(buf, "\npgpgin "));
	ck_assert_ptr_nonnull(strstr(buf, "\npgpgout "));
}
END_TEST

/* --- the console tty ------------------------------------------------------------- */

static int sigint_pgrp, sigwinch_pgrp, sigwinch_count;
int kill_pgrp(int pgrp, int sig)
{
	if (sig == SIGINT)
		sigint_pgrp = pgrp;
	if (sig == SIGWINCH) {
		sigwinch_pgrp = pgrp;
		sigwinch_count++;
	}
	return 0;
}

static void type(const char *s)
{
	while (*s)
		n_tty_receive_char(tty_console(), *s++);
}

START_TEST(tty_canonical_editing_echo_eof_intr)
{
	char buf[64];
	int pgrp = 7;

	host_console_len = 0;
	type("ls -x\x7f\x7fl\r");
	ck_assert_str_eq(host_console_buf, "ls -x\b \b\b \bl\n");
	ck_assert_int_eq(sys_read(0, buf, sizeof(buf)), 5);
	ck_assert_int_eq(memcmp(buf, "ls l\n", 5), 0);
	/* ^U kills the line; a read returns at most one line */
	type("junk\x15one\ntwo\n");
	ck_assert_int_eq(sys_read(0, buf, sizeof(buf)), 4);
	ck_assert_int_eq(memcmp(buf, "one\n", 4), 0);
	ck_assert_int_eq(sys_read(0, buf, 2), 2);       /* a short read ... */
	ck_assert_int_eq(sys_read(0, buf, sizeof(buf)), 2);   /* ... the rest */
	ck_assert_int_eq(memcmp(buf, "o\n", 2), 0);
	/* ^D: the pending text without newline, then on an empty line EOF */
	type("abc\x04");
	ck_assert_int_eq(sys_read(0, buf, sizeof(buf)), 3);
	type("\x04");
	ck_assert_int_eq(sys_read(0, buf, sizeof(buf)), 0);
	/* ^C: SIGINT to the foreground group set with TIOCSPGRP */
	ck_assert_int_eq(sys_ioctl(0, 0x5410, (unsigned long)&pgrp), 0);
	pgrp = 0;
	ck_assert_int_eq(sys_ioctl(0, 0x540F, (unsigned long)&pgrp), 0);
	ck_assert_int_eq(pgrp, 7);
	host_console_len = 0;
	type("half\x03");
	ck_assert_int_eq(sigint_pgrp, 7);
	ck_assert_str_eq(host_console_buf, "half^C\n");
	type("x\n");
	ck_assert_int_eq(sys_read(0, buf, sizeof(buf)), 2);    /* "half" is gone */
	/* output goes raw to the consoles */
	host_console_len = 0;
	ck_assert_int_eq(sys_write(1, "out\n", 4), 4);
	ck_assert_str_eq(host_console_buf, "out\n");
	ck_assert_int_eq(sys_ioctl(1, 0x1234, 0), -ENOTTY);
}
END_TEST

/* The termios a line editor sets: TCGETS, clear ICANON, ECHO and ISIG
 * (c_lflag is the 4th u32; VMIN stays 1), TCSETS; then back. */
START_TEST(tty_raw_mode_bytes_at_once_no_echo_no_signals)
{
	u32 t[9], saved[9];
	char buf[8];

	ck_assert_int_eq(sys_ioctl(0, 0x5401, (unsigned long)saved), 0); /* TCGETS */
	memcpy(t, saved, sizeof(t));
	t[3] &= ~(0000002u | 0000010u | 0000001u);		     /* ICANON, ECHO, ISIG */
	ck_assert_int_eq(sys_ioctl(0, 0x5402, (unsigned long)t), 0); /* TCSETS */
	host_console_len = 0;
	sigint_pgrp = 0;
	type("q\x03");
	ck_assert_int_eq(host_console_len, 0);		    /* no echo */
	ck_assert_int_eq(sigint_pgrp, 0);		    /* ^C is a byte */
	ck_assert_int_eq(sys_read(0, buf, sizeof(buf)), 2); /* no Enter needed */
	ck_assert_int_eq(memcmp(buf, "q\x03", 2), 0);
	/* typed in cooked mode before the switch: readable in raw mode */
	ck_assert_int_eq(sys_ioctl(0, 0x5402, (unsigned long)saved), 0);
	type("q");
	ck_assert_int_eq(sys_ioctl(0, 0x5402, (unsigned long)t), 0);
	ck_assert_int_eq(sys_read(0, buf, sizeof(buf)), 1);
	ck_assert_int_eq(buf[0], 'q');
	/* IXON (on, as on Linux): ^S and ^Q are flow control, not input;
	 * the write below would sleep for good had ^Q not restarted output */
	ck_assert_uint_ne(saved[0] & 0002000u, 0);
	type("\023a\021"); /* ^S a ^Q */
	ck_assert_int_eq(sys_read(0, buf, sizeof(buf)), 1);
	ck_assert_int_eq(buf[0], 'a');
	ck_assert_int_eq(sys_write(1, "on", 2), 2);
	/* TCSETSF drops what was not read; cooked mode edits again */
	type("lost");
	ck_assert_int_eq(sys_ioctl(0, 0x5404, (unsigned long)saved), 0);
	type("ab\x7f\r");
	ck_assert_int_eq(sys_read(0, buf, sizeof(buf)), 2);
	ck_assert_int_eq(memcmp(buf, "a\n", 2), 0);
}
END_TEST

/* What poll(2) would answer for the console (descriptor 0). */
static unsigned int console_poll(void)
{
	struct file *f = fget(0);
	unsigned int mask = f->f_op->poll(f);

	fput(f);
	return mask;
}

/* TIOCSWINSZ stores the size and tells the foreground group of a change
 * (only of a change); TCFLSH drops typed lines and the line being edited;
 * TCSBRK 0 sends a break that ends, 1 only drains; TCXONC sends STOP and
 * START ahead of the output; while output is stopped (TCOOFF, ^S) poll
 * does not call the console writable.  Bad arguments: EINVAL, nothing
 * changed. */
START_TEST(tty_winsize_flush_break_flow)
{
	u16 ws[4], big[4] = { 40, 100, 0, 0 }, std[4] = { 25, 80, 0, 0 };
	int pgrp = 7, n;
	char buf[16];

	ck_assert_int_eq(sys_ioctl(0, TIOCSPGRP, (unsigned long)&pgrp), 0);
	ck_assert_int_eq(sys_ioctl(0, TIOCGWINSZ, (unsigned long)ws), 0);
	ck_assert_mem_eq(ws, std, sizeof(ws));
	sigwinch_count = 0;
	ck_assert_int_eq(sys_ioctl(0, TIOCSWINSZ, (unsigned long)big), 0);
	ck_assert_int_eq(sigwinch_count, 1);
	ck_assert_int_eq(sigwinch_pgrp, 7);
	ck_assert_int_eq(sys_ioctl(0, TIOCGWINSZ, (unsigned long)ws), 0);
	ck_assert_mem_eq(ws, big, sizeof(ws));
	ck_assert_int_eq(sys_ioctl(0, TIOCSWINSZ, (unsigned long)big), 0);
	ck_assert_int_eq(sigwinch_count, 1);                   /* no change, no news */
	ck_assert_int_eq(sys_ioctl(0, TIOCSWINSZ, (unsigned long)std), 0);
	ck_assert_int_eq(sigwinch_count, 2);

	/* TCFLSH: a finished line and a half-typed one */
	type("lost\npart");
	ck_assert_int_eq(sys_ioctl(0, TCFLSH, 3), -EINVAL);
	ck_assert_int_eq(sys_ioctl(0, TCFLSH, TCOFLUSH), 0);   /* input stays */
	ck_assert_int_eq(sys_ioctl(0, FIONREAD, (unsigned long)&n), 0);
	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(sys_ioctl(0, TCFLSH, TCIFLUSH), 0);
	ck_assert_int_eq(sys_ioctl(0, FIONREAD, (unsigned long)&n), 0);
	ck_assert_int_eq(n, 0);
	type("kept\n");
	ck_assert_int_eq(sys_read(0, buf, sizeof(buf)), 5);    /* not "partkept" */
	ck_assert_int_eq(memcmp(buf, "kept\n", 5), 0);
	type("x\n");
	ck_assert_int_eq(sys_ioctl(0, TCFLSH, TCIOFLUSH), 0);
	ck_assert_int_eq(sys_ioctl(0, FIONREAD, (unsigned long)&n), 0);
	ck_assert_int_eq(n, 0);

	/* TCSBRK: tcdrain() sends no break, tcsendbreak() one that ends */
	host_serial_breaks = 0;
	ck_assert_int_eq(sys_ioctl(0, TCSBRK, 1), 0);
	ck_assert_int_eq(host_serial_breaks, 0);
	ck_assert_int_eq(sys_ioctl(0, TCSBRK, 0), 0);
	ck_assert_int_eq(host_serial_breaks, 1);
	ck_assert(!host_serial_in_break);

	/* TCXONC: STOP then START to the far end; output stopped and restarted */
	host_console_len = 0;
	ck_assert_int_eq(sys_ioctl(0, TCXONC, TCIOFF), 0);
	ck_assert_int_eq(sys_ioctl(0, TCXONC, TCION), 0);
	ck_assert_str_eq(host_console_buf, "\x13\x11");
	ck_assert_int_eq(sys_ioctl(0, TCXONC, 4), -EINVAL);
	ck_assert(console_poll() & POLLOUT);
	ck_assert_int_eq(sys_ioctl(0, TCXONC, TCOOFF), 0);
	ck_assert(!(console_poll() & POLLOUT));         /* a write would wait */
	ck_assert_int_eq(sys_ioctl(0, TCXONC, TCOON), 0);
	ck_assert(console_poll() & POLLOUT);
	ck_assert_int_eq(sys_write(1, "on", 2), 2);
	ck_assert_str_eq(host_console_buf, "\x13\x11on");
	/* ^S typed stops the output too, ^Q restarts it: poll says so */
	type("\x13");
	ck_assert(!(console_poll() & POLLOUT));
	type("\x11");
	ck_assert(console_poll() & POLLOUT);
}
END_TEST

/* fcntl's descriptor flag and duplicate-from, dup3's O_CLOEXEC */
START_TEST(fcntl_dupfd_cloexec_and_dup3)
{
	int fd = sys_fcntl(1, 1030, 10); /* F_DUPFD_CLOEXEC from 10 */

	ck_assert_int_eq(fd, 10);
	ck_assert_int_eq(sys_fcntl(fd, 1, 0), 1); /* F_GETFD: FD_CLOEXEC */
	ck_assert_int_eq(sys_fcntl(fd, 2, 0), 0); /* F_SETFD 0 */
	ck_assert_int_eq(sys_fcntl(fd, 1, 0), 0);
	ck_assert_int_eq(sys_fcntl(1, 0, 10), 11); /* F_DUPFD: the next free */
	ck_assert_int_eq(sys_dup3(1, 12, O_CLOEXEC), 12);
	ck_assert_int_eq(sys_fcntl(12, 1, 0), 1);
	ck_assert_int_eq(sys_dup3(1, 1, 0), -EINVAL); /* unlike dup2 */
	ck_assert_int_eq(sys_fcntl(1, 1030, 64), -EINVAL);
	ck_assert_int_eq(sys_fcntl(99, 1, 0), -EBADF);
	ck_assert_int_eq(sys_fcntl(1, 5, 0), -EINVAL); /* F_GETLK: no locks */
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("VFS");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, lookup_absolute_relative_dot_dotdot);
	tcase_add_test(core, openat_on_a_reserved_descriptor_is_ebadf);
	tcase_add_test(core, ftruncate_cuts_and_grows_with_zeros);
	tcase_add_test(core, lseek_overflow_is_einval);
	tcase_add_test(core, getdents_resumes_right_after_unlink);
	tcase_add_test(core, no_new_names_in_a_removed_directory);
	tcase_add_test(core, ramfs_read_write_seek_truncate_append);
	tcase_add_test(core, ramfs_large_file_round_trip);
	tcase_add_test(core, getdents64_lists_entries_with_types);
	tcase_add_test(core, fd_lowest_free_dup_dup2_close);
	tcase_add_test(core, fork_copies_table_exec_closes_cloexec);
	tcase_add_test(core, thread_shares_table_and_cwd);
	tcase_add_test(core, pipe_data_eof_epipe);
	tcase_add_test(core, mount_umount_busy);
	tcase_add_test(core, remount_ro_and_open_for_writing_never_both_succeed);
	tcase_add_test(core, anon_dev_numbers_are_reused);
	tcase_add_test(core, proc_cmdline);
	tcase_add_test(core, devtmpfs_null_zero_console_nodes);
	tcase_add_test(core, proc_pid_stat_has_52_fields);
	tcase_add_test(core, proc_meminfo_layout_as_linux);
	tcase_add_test(core, proc_stat_layout_as_linux);
	tcase_add_test(core, proc_listing_skips_no_process_when_one_exits);
	tcase_add_test(core, tty_canonical_editing_echo_eof_intr);
	tcase_add_test(core, tty_raw_mode_bytes_at_once_no_echo_no_signals);
	tcase_add_test(core, tty_winsize_flush_break_flow);
	tcase_add_test(core, fcntl_dupfd_cloexec_and_dup3);
	suite_add_tcase(s, core);

	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(limits, lookup_errors_as_linux);
	tcase_add_test(limits, negative_or_wrapping_position_is_einval);
	tcase_add_test(limits, largest_size_is_a_hole);
	tcase_add_test(limits, tmpfs_size_limit_is_enospc_and_unlink_returns_it);
	tcase_add_test(limits, tmpfs_mount_options_as_linux);
	tcase_add_test(limits, statfs_figures_as_linux);
	tcase_add_test(limits, tmpfs_nr_inodes_is_enospc);
	tcase_add_test(limits, tmpfs_mount_umount_leaks_nothing);
	tcase_add_test(limits, deep_tree_umount_frees_everything);
	tcase_add_test(limits, unlink_and_close_work_with_no_free_memory);
	tcase_add_test(limits, fifo_buffers_are_freed);
	tcase_add_test(limits, create_and_remove_errors_as_linux);
	tcase_add_test(limits, ramfs_unlinked_file_lives_while_open);
	tcase_add_test(limits, fd_table_full_is_emfile);
	tcase_add_test(limits, pipe_ring_wraps_and_fills);
	tcase_add_test(limits, stat_encodes_device_numbers_as_linux);
	suite_add_tcase(s, limits);
	return s;
}
