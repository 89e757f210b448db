// SPDX-License-Identifier: MIT
/*
 * fs_test.c - the file layer in the running kernel (test=fs): the root
 * ramfs and what the boot made, mounts of proc/sysfs/devtmpfs, a real
 * disk's block-device file (buffered with fsync, then O_DIRECT), the
 * scheduler switch through sysfs, a pipe between two threads that block,
 * and /proc/<pid>/stack of a sleeping thread.
 *
 * The suite's thread gets a descriptor table (init_task_files) and calls
 * the ksys_* functions, the kernel-pointer halves of the system calls.
 * The scenario (tests/qemu/scenarios/fs.scn) gives it an AHCI disk sda
 * and checks the pattern written through /dev/sda in the image afterwards.
 */
#include <spindle/ktest.h>
#include <spindle/fs.h>
#include <spindle/blkdev.h>
#include <spindle/sched.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/pattern.h>
#include <spindle/wait.h>
#include <spindle/time.h>
#include "ktest_sched.h"

#define FS_PATTERN_SEED 77
#define FS_PATTERN_LEN  (1024 * 1024)   /* through the cache at offset 0 */
#define FS_DIRECT_OFF   (2 * 1024 * 1024)
#define FS_DIRECT_LEN   (256 * 1024)    /* O_DIRECT at 2 MiB, seed + 1 */

static bool fs_mounted(const char *dir, const char *type)
{
	long err = do_mount("none", dir, type, 0, NULL);

	return err == 0;
}

static void fs_begin(void)
{
	if (!current->files)
		init_task_files(current);
}

/* Read a whole small file into buf (NUL-terminated); bytes or -errno. */
static long fs_slurp(const char *path, char *buf, size_t size)
{
	struct file *f = filp_open(path, O_RDONLY, 0);
	loff_t pos = 0;
	long n, total = 0;

	if (IS_ERR(f))
		return PTR_ERR(f);
	while ((n = kernel_read(f, buf + total, size - 1 - total, &pos)) > 0)
		total += n;
	fput(f);
	buf[total] = '\0';
	return n < 0 ? n : total;
}

static long fs_write_str(const char *path, const char *s)
{
	struct file *f = filp_open(path, O_WRONLY, 0);
	loff_t pos = 0;
	long n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, s, strlen(s), &pos);
	fput(f);
	return n;
}

KTEST(fs, root_and_boot_dirs)
{
	struct stat st;
	char cwd[64];

	fs_begin();
	KT_ASSERT(ksys_stat("/", &st) == 0 && S_ISDIR(st.st_mode));
	KT_ASSERT(ksys_stat("/dev", &st) == 0 && S_ISDIR(st.st_mode));
	KT_ASSERT(ksys_stat("/proc", &st) == 0 && ksys_stat("/sys", &st) == 0);
	KT_ASSERT(ksys_getcwd(cwd, sizeof(cwd)) == 1 && strcmp(cwd, "/") == 0);
	KT_ASSERT(ksys_stat("/nope/x", &st) == -ENOENT);
}

KTEST(fs, ramfs_file_and_descriptors)
{
	static const char text[] = "written by fs_test\n";
	char buf[64];
	struct iov_iter it;
	long fd, fd2;

	fs_begin();
	fd = ksys_open(AT_FDCWD, "/tmp/t1", O_RDWR | O_CREAT | O_TRUNC, 0644);
	KT_ASSERT_MSG(fd >= 3, "open: %ld", fd);
	iov_iter_kvec(&it, ITER_SOURCE, (void *)text, sizeof(text) - 1);
	KT_ASSERT(ksys_write(fd, &it) == sizeof(text) - 1);
	fd2 = ksys_dup(fd);
	KT_ASSERT(ksys_lseek(fd2, 0, SEEK_SET) == 0);   /* shared position */
	iov_iter_kvec(&it, ITER_DEST, buf, sizeof(buf));
	KT_ASSERT(ksys_read(fd, &it) == sizeof(text) - 1);
	KT_ASSERT(memcmp(buf, text, sizeof(text) - 1) == 0);
	KT_ASSERT(close_fd(fd) == 0 && close_fd(fd2) == 0);
	KT_ASSERT(do_unlinkat(AT_FDCWD, "/tmp/t1") == 0);
}

KTEST(fs, proc_and_sysfs_mounted)
{
	static char buf[4096];

	fs_begin();
	KT_ASSERT(fs_mounted("/proc", "proc"));
	KT_ASSERT(fs_mounted("/sys", "sysfs"));
	KT_ASSERT(fs_mounted("/dev", "devtmpfs"));
	KT_ASSERT(fs_slurp("/proc/partitions", buf, sizeof(buf)) > 0);
	printk("==> /proc/partitions (fs test) <==\n%s", buf);
	KT_ASSERT(strncmp(buf, "major minor  #blocks  name\n", 27) == 0);
	KT_ASSERT(fs_slurp("/proc/meminfo", buf, sizeof(buf)) > 0);
	KT_ASSERT(strncmp(buf, "MemTotal:", 9) == 0);
	KT_ASSERT(fs_slurp("/proc/self/stat", buf, sizeof(buf)) > 0);
	KT_ASSERT_MSG(strstr(buf, "(ktest) R ") != NULL, "%s", buf);
	KT_ASSERT(fs_slurp("/proc/mounts", buf, sizeof(buf)) > 0);
	KT_ASSERT(strstr(buf, " /proc proc ") && strstr(buf, " /dev devtmpfs "));
}

/* The pattern through the cache; fsync; then O_DIRECT at 2 MiB, read back. */
KTEST(fs, block_device_buffered_and_direct)
{
	struct file *f;
	u64 *buf;
	loff_t pos = 0;
	long n;
	size_t i;

	fs_begin();
	if (!lookup_bdev("sda"))
		KT_SKIP("no sda");
	buf = (u64 *)__get_free_pages(GFP_KERNEL, get_order(FS_PATTERN_LEN));
	KT_ASSERT(buf);
	for (i = 0; i < FS_PATTERN_LEN / 8; i++)
		buf[i] = splitmix64(FS_PATTERN_SEED + i);
	f = filp_open("/dev/sda", O_RDWR, 0);
	KT_ASSERT_MSG(!IS_ERR(f), "open /dev/sda: %ld", PTR_ERR(f));
	n = kernel_write(f, buf, FS_PATTERN_LEN, &pos);
	KT_ASSERT(n == FS_PATTERN_LEN);
	KT_ASSERT(vfs_fsync(f, 0) == 0);
	fput(f);

	/* O_DIRECT: misaligned is EINVAL, aligned reaches the disk */
	f = filp_open("/dev/sda", O_RDWR | O_DIRECT | O_EXCL, 0);
	KT_ASSERT(!IS_ERR(f));
	KT_ASSERT(PTR_ERR(filp_open("/dev/sda", O_RDONLY | O_EXCL, 0)) == -EBUSY);
	pos = 7;
	KT_ASSERT(kernel_read(f, buf, 512, &pos) == -EINVAL);
	for (i = 0; i < FS_DIRECT_LEN / 8; i++)
		buf[i] = splitmix64(FS_PATTERN_SEED + 1 + (FS_DIRECT_OFF / 8) + i);
	pos = FS_DIRECT_OFF;
	KT_ASSERT(kernel_write(f, buf, FS_DIRECT_LEN, &pos) == FS_DIRECT_LEN);
	memset(buf, 0, FS_DIRECT_LEN);
	pos = 0;                                /* the buffered data, read directly */
	KT_ASSERT(kernel_read(f, buf, FS_DIRECT_LEN, &pos) == FS_DIRECT_LEN);
	for (i = 0; i < FS_DIRECT_LEN / 8; i++)
		KT_ASSERT_MSG(buf[i] == splitmix64(FS_PATTERN_SEED + i), "word %zu", i);
	fput(f);
	free_pages((unsigned long)buf, get_order(FS_PATTERN_LEN));
	printk("fs: /dev/sda written: pattern %d at 0 (1 MiB, buffered), %d at 2 MiB (256 KiB, O_DIRECT)\n",
	       FS_PATTERN_SEED, FS_PATTERN_SEED + 1);
}

KTEST(fs, sysfs_scheduler_switch)
{
	char buf[256], old[32];
	char *l, *r;

	fs_begin();
	if (!lookup_bdev("sda"))
		KT_SKIP("no sda");
	KT_ASSERT(fs_slurp("/sys/block/sda/queue/scheduler", buf, sizeof(buf)) > 0);
	l = strchr(buf, '[');
	r = l ? strchr(l, ']') : NULL;
	KT_ASSERT_MSG(l && r, "%s", buf);
	strlcpy(old, l + 1, r - l);
	KT_ASSERT(fs_write_str("/sys/block/sda/queue/scheduler", "cscan\n") == 6);
	KT_ASSERT(fs_slurp("/sys/block/sda/queue/scheduler", buf, sizeof(buf)) > 0);
	KT_ASSERT_MSG(strstr(buf, "[cscan]") != NULL, "%s", buf);
	KT_ASSERT(fs_write_str("/sys/block/sda/queue/scheduler", "bogus") == -EINVAL);
	KT_ASSERT(fs_write_str("/sys/block/sda/queue/scheduler", old) == (long)strlen(old));
	KT_ASSERT(fs_slurp("/sys/block/sda/size", buf, sizeof(buf)) > 0);
	KT_ASSERT_MSG(fs_slurp("/sys/block/sda/stat", buf, sizeof(buf)) == 17 * 9, "'%s'", buf);
	if (strcmp(old, "mq-deadline") == 0) {
		KT_ASSERT(fs_slurp("/sys/block/sda/queue/iosched/read_expire", buf, sizeof(buf)) > 0);
		KT_ASSERT_MSG(strcmp(buf, "500\n") == 0, "read_expire: %s", buf);
	}
}

/* A writer thread that blocks on a full pipe while we read slowly. */
static struct file *pipe_ends[2];
#define PIPE_TEST_BYTES (256 * 1024)

static int pipe_writer(void *unused)
{
	static char chunk[1000];
	long left = PIPE_TEST_BYTES, n;
	u64 k = 0;

	(void)unused;
	while (left > 0) {
		size_t len = min_t(size_t, sizeof(chunk), left);

		for (size_t i = 0; i < len; i++)
			chunk[i] = (char)(k + i);
		n = kernel_write(pipe_ends[1], chunk, len, NULL);
		if (n <= 0)
			break;
		k += n;
		left -= n;
	}
	fput(pipe_ends[1]);             /* the reader then sees EOF */
	return 0;
}

KTEST(fs, pipe_between_threads)
{
	static char buf[777];
	u64 k = 0;
	long n;

	fs_begin();
	KT_ASSERT(create_pipe_files(pipe_ends, 0) == 0);
	KT_ASSERT(kthread_run(pipe_writer, NULL, "pipe-writer"));
	while ((n = kernel_read(pipe_ends[0], buf, sizeof(buf), NULL)) > 0) {
		for (long i = 0; i < n; i++)
			KT_ASSERT_MSG(buf[i] == (char)(k + i), "byte %llu", (unsigned long long)(k + i));
		k += n;
	}
	KT_ASSERT(n == 0);
	KT_ASSERT(k == PIPE_TEST_BYTES);
	fput(pipe_ends[0]);
}

static DECLARE_WAIT_QUEUE_HEAD(stack_wq);
static bool stack_go;

static int stack_sleeper(void *unused)
{
	(void)unused;
	wait_event(stack_wq, READ_ONCE(stack_go));
	return 0;
}

KTEST(fs, proc_pid_stack_of_a_sleeper)
{
	static char buf[2048], path[32];
	struct task_struct *t;
	bool asleep;
	long n;

	fs_begin();
	stack_go = false;
	t = kthread_run(stack_sleeper, NULL, "sleeper");
	KT_ASSERT(t);
	get_task_struct(t);
	/* switched away, asleep in its wait: a running task shows no stack */
	asleep = ktest_wait_asleep(t, TASK_UNINTERRUPTIBLE);
	snprintf(path, sizeof(path), "/proc/%d/stack", t->pid);
	n = fs_slurp(path, buf, sizeof(buf));
	stack_go = true;
	wake_up(&stack_wq);
	put_task_struct(t);
	KT_ASSERT_MSG(asleep, "the sleeper never slept");
	KT_ASSERT_MSG(n > 0, "%s: %ld", path, n);
	KT_ASSERT_MSG(strncmp(buf, "[<0>] ", 6) == 0 && strstr(buf, "schedule"), "%s", buf);
	KT_ASSERT(strstr(buf, "stack_sleeper") != NULL);
}

KTEST(fs, umount_busy_then_done)
{
	struct file *f;

	fs_begin();
	f = filp_open("/proc/vmstat", O_RDONLY, 0);
	KT_ASSERT(!IS_ERR(f));
	KT_ASSERT(do_umount("/proc", 0) == -EBUSY);
	fput(f);
	KT_ASSERT(do_umount("/proc", 0) == 0);
	KT_ASSERT(do_umount("/sys", 0) == 0);
	KT_ASSERT(do_umount("/dev", 0) == 0);
	exit_files(current);
}
