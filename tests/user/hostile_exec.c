// SPDX-License-Identifier: MIT
/*
 * hostile_exec [DISK] - execve(2) of things that are not programs.
 *
 * Linux runs only regular files (do_open_execat: EACCES for anything
 * else) and rejects an ELF whose headers point outside the file or
 * describe impossible segments (ENOEXEC).  This suite checks both:
 *
 *   - a directory, /dev/null, a FIFO, a /proc file, /dev/console and a
 *     disk with a valid ELF written on it (DISK, e.g. sdb: its first
 *     64 KiB are overwritten) must all give EACCES -- /dev/console must
 *     not block, the disk's program must not run;
 *   - copies of /tests/exec_template, each with one header field made hostile
 *     (offsets of 2^63 and more, ranges that wrap, bytes past the end,
 *     p_filesz > p_memsz, overlapping segments) must give ENOEXEC, and
 *     the unmodified copy must run and exit 0 (so the crafting is sound).
 *
 * Each attempt runs in a child, which reports a failed execve's errno
 * through a close-on-exec pipe: if the pipe closes empty, the program ran.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "hostile.h"

#define TEMPLATE        "/tests/exec_template"
#define CRAFTED         "/tmp/hostile_exec.elf"

typedef struct {
	unsigned char e_ident[16];
	uint16_t e_type, e_machine;
	uint32_t e_version;
	uint64_t e_entry, e_phoff, e_shoff;
	uint32_t e_flags;
	uint16_t e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
} Elf64_Ehdr;

typedef struct {
	uint32_t p_type, p_flags;
	uint64_t p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
} Elf64_Phdr;

#define PT_LOAD 1

static const char *disk;
static char *image;                     /* the template's bytes */
static size_t image_len;

/*
 * Run path in a child.  Returns -1 with errno = execve's error, or the
 * child's wait status if the program started.
 */
static int try_exec(const char *path)
{
	char *argv[] = { (char *)path, NULL };
	int fds[2], st = 0, err = 0;
	pid_t pid;
	ssize_t n;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -2;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		execve(path, argv, NULL);
		err = errno;
		write(fds[1], &err, sizeof(err));
		_exit(127);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return -2;
	}
	n = read(fds[0], &err, sizeof(err));
	close(fds[0]);
	waitpid(pid, &st, 0);
	if (n == sizeof(err)) {
		errno = err;
		return -1;
	}
	return st;
}

static int load_template(void)
{
	struct stat st;
	int fd = open(TEMPLATE, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	image_len = st.st_size;
	image = malloc(image_len);
	if (!image || read(fd, image, image_len) != (ssize_t)image_len)
		return -1;
	close(fd);
	return 0;
}

static Elf64_Ehdr *ehdr(char *img) { return (Elf64_Ehdr *)img; }
static Elf64_Phdr *phdr(char *img, int i)
{
	return (Elf64_Phdr *)(img + ehdr(img)->e_phoff) + i;
}

/* The i-th PT_LOAD of the copy (the template has two: text, data). */
static Elf64_Phdr *load_phdr(char *img, int i)
{
	for (int k = 0; k < ehdr(img)->e_phnum; k++)
		if (phdr(img, k)->p_type == PT_LOAD && i-- == 0)
			return phdr(img, k);
	return NULL;
}

/* Write a copy of the template, changed by mutate, and exec it. */
static int exec_crafted(void (*mutate)(char *img))
{
	char *img = malloc(image_len);
	int fd, ret;

	if (!img)
		return -2;
	memcpy(img, image, image_len);
	if (mutate)
		mutate(img);
	fd = open(CRAFTED, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0 || write_all(fd, img, image_len) < 0 || close(fd) < 0) {
		free(img);
		return -2;
	}
	free(img);
	ret = try_exec(CRAFTED);
	{
		int e = errno;

		unlink(CRAFTED);
		errno = e;
	}
	return ret;
}

#define CHECK_NOEXEC(mutate) CHECK_ERR(exec_crafted(mutate), ENOEXEC)

/* --- not regular files: EACCES --- */

static void t_directory(void)     { CHECK_ERR(try_exec("/tmp"), EACCES); }
static void t_dev_null(void)      { CHECK_ERR(try_exec("/dev/null"), EACCES); }

static void t_fifo(void)
{
	CHECK(mkfifo(CRAFTED ".fifo", 0755) == 0);
	CHECK_ERR(try_exec(CRAFTED ".fifo"), EACCES);
	CHECK(unlink(CRAFTED ".fifo") == 0);
}
static void t_proc_file(void)     { CHECK_ERR(try_exec("/proc/meminfo"), EACCES); }
/* before the check, the loader's first read waited for a console line */
static void t_console(void)       { CHECK_ERR(try_exec("/dev/console"), EACCES); }

static void t_block_device(void)
{
	char path[64];
	int fd;

	CHECK(disk != NULL);                    /* the scenario names one */
	if (!disk)
		return;
	snprintf(path, sizeof(path), "/dev/%s", disk);
	fd = open(path, O_WRONLY);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write_all(fd, image, image_len) == 0);
	CHECK(fsync(fd) == 0);
	close(fd);
	/* a valid program on the disk: still not a regular file */
	CHECK_ERR(try_exec(path), EACCES);
}

/* --- crafted ELF headers: ENOEXEC --- */

static void t_control(void)
{
	int st = exec_crafted(NULL);

	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void m_phoff_2_63(char *img)     { ehdr(img)->e_phoff = 1ull << 63; }
static void m_phoff_wraps(char *img)    { ehdr(img)->e_phoff = ~0ull - 16; }
static void m_phoff_past_end(char *img) { ehdr(img)->e_phoff = image_len - 8; }
static void m_text_off_2_63(char *img)  { load_phdr(img, 0)->p_offset = 1ull << 63; }
static void m_data_off_2_63(char *img)  { load_phdr(img, 1)->p_offset |= 1ull << 63; }
static void m_data_off_wraps(char *img) { load_phdr(img, 1)->p_offset = ~0ull - 0xfff; }
static void m_data_past_end(char *img)  { load_phdr(img, 1)->p_offset = image_len - 16; }
static void m_filesz_gt_memsz(char *img)
{
	Elf64_Phdr *p = load_phdr(img, 1);

	p->p_filesz = p->p_memsz + 1;
}
static void m_vaddr_wraps(char *img)
{
	Elf64_Phdr *p = load_phdr(img, 1);

	p->p_vaddr = ~0ull - 0xfff;
}
static void m_overlap(char *img)
{
	/* the data segment laid over the text segment's pages */
	load_phdr(img, 1)->p_vaddr = load_phdr(img, 0)->p_vaddr + 0x1000;
}

static void t_phoff_2_63(void)       { CHECK_NOEXEC(m_phoff_2_63); }
static void t_phoff_wraps(void)      { CHECK_NOEXEC(m_phoff_wraps); }
static void t_phoff_past_end(void)   { CHECK_NOEXEC(m_phoff_past_end); }
static void t_text_off_2_63(void)    { CHECK_NOEXEC(m_text_off_2_63); }
static void t_data_off_2_63(void)    { CHECK_NOEXEC(m_data_off_2_63); }
static void t_data_off_wraps(void)   { CHECK_NOEXEC(m_data_off_wraps); }
static void t_data_past_end(void)    { CHECK_NOEXEC(m_data_past_end); }
static void t_filesz_gt_memsz(void)  { CHECK_NOEXEC(m_filesz_gt_memsz); }
static void t_vaddr_wraps(void)      { CHECK_NOEXEC(m_vaddr_wraps); }
static void t_overlap(void)          { CHECK_NOEXEC(m_overlap); }

/* After all of that the kernel still runs programs. */
static void t_still_runs(void)
{
	int st = try_exec(TEMPLATE);

	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static const struct hostile_case cases[] = {
	{ "directory", t_directory },
	{ "dev_null", t_dev_null },
	{ "fifo", t_fifo },
	{ "proc_file", t_proc_file },
	{ "control", t_control },
	{ "phoff_2_63", t_phoff_2_63 },
	{ "phoff_wraps", t_phoff_wraps },
	{ "phoff_past_end", t_phoff_past_end },
	{ "text_off_2_63", t_text_off_2_63 },
	{ "data_off_2_63", t_data_off_2_63 },
	{ "data_off_wraps", t_data_off_wraps },
	{ "data_past_end", t_data_past_end },
	{ "filesz_gt_memsz", t_filesz_gt_memsz },
	{ "vaddr_wraps", t_vaddr_wraps },
	{ "overlap", t_overlap },
	/* last of all: before the fix the console's case blocked for good */
	{ "block_device", t_block_device },
	{ "console", t_console },
	{ "still_runs", t_still_runs },
};

int main(int argc, char **argv)
{
	disk = argc > 1 ? argv[1] : NULL;
	if (load_template() < 0) {
		printf("TEST exec.setup FAIL: %s: %s\n", TEMPLATE, strerror(errno));
		printf("0 passed, 1 failed\n");
		return 1;
	}
	return hostile_run("exec", cases, sizeof(cases) / sizeof(cases[0]),
			   argc > 2 ? argv[2] : NULL);
}
