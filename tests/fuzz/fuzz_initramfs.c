// SPDX-License-Identifier: MIT
/*
 * fuzz_initramfs.c - the initramfs unpacker (fs/initramfs.c) fed
 * arbitrary archives.
 *
 * The input is the buffer GRUB would have loaded: a newc cpio archive,
 * or several in a row.  unpack_to_rootfs() runs on it over a fake file
 * layer defined here -- filp_open, kernel_write, fput, do_mkdirat,
 * do_mknodat, do_symlinkat, do_linkat, do_unlinkat and do_set_mtime only
 * record what they are asked to make -- because the
 * real one (ramfs) would keep every file of every input and slow each
 * run down; check_initramfs.c runs the unpacker over the real VFS.  What
 * the unpacker promises, and this target checks:
 *
 *   - it reads nothing outside the buffer (ASan: libFuzzer's copy of the
 *     input is exactly its size), and every file's data it writes lies
 *     inside the buffer;
 *   - every path it makes starts with one '/' and has more after it (the
 *     root itself is never made), and fits PATH_MAX; so does every
 *     symbolic link's target and hard link's first name;
 *   - it returns 0 and says "unpacked N entries", N being what it made,
 *     only for an archive that ends with its trailer; otherwise -EINVAL
 *     and one "rejected:" line whose count is again what it made before;
 *   - every file it opens is closed, every allocation freed (LeakSanitizer).
 * The fake file layer holds FAKE_FS_BYTES of file data and then fails
 * the write (a full RAM disk): small against the seeds' files, so that
 * the fuzzer's longer inputs reach the unpacker's error path too --
 * -ENOSPC, and a line saying so.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/err.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include "../../fs/internal.h"
#include "fuzz.h"

#define FAKE_FS_BYTES 1024              /* bytes written before -ENOSPC */

static struct {
	const u8 *data;                 /* the input */
	size_t size;
	unsigned int made;              /* entries made: files, dirs, nodes */
	unsigned int open;              /* files open now */
	bool linked;                    /* the last thing made was a hard link */
	bool writing_link;              /* the open file is that link: its data
					 * makes no new entry */
	size_t written;
	struct file file;               /* what filp_open hands out */
} fake;

static void check_path(const char *path)
{
	size_t len = strnlen(path, PATH_MAX + 1);

	FUZZ_ASSERT(len <= PATH_MAX && len >= 2);
	FUZZ_ASSERT(path[0] == '/' && path[1] != '/');
}

void *kmalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return malloc(size);
}

void *kzalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(1, size);
}

void kfree(const void *p)
{
	free((void *)p);
}

struct file *filp_open(const char *path, int flags, umode_t mode)
{
	check_path(path);
	/* without O_CREAT only to write a hard link's data, right after it */
	FUZZ_ASSERT((flags & O_CREAT) || fake.linked);
	FUZZ_ASSERT((mode & ~07777) == 0);
	fake.writing_link = !(flags & O_CREAT);
	fake.linked = false;
	fake.open++;
	return &fake.file;
}

void fput(struct file *f)
{
	FUZZ_ASSERT(f == &fake.file && fake.open > 0);
	if (--fake.open == 0 && !fake.writing_link)
		fake.made++;            /* the file is whole once it is closed */
}

ssize_t kernel_write(struct file *f, const void *buf, size_t count, loff_t *pos)
{
	const u8 *b = buf;

	FUZZ_ASSERT(f == &fake.file && fake.open > 0);
	FUZZ_ASSERT(b >= fake.data && count <= fake.size - (size_t)(b - fake.data));
	if (fake.written + count > FAKE_FS_BYTES)
		return -ENOSPC;
	fake.written += count;
	*pos += count;
	return count;
}

int do_mkdirat(int dfd, const char *path, umode_t mode)
{
	FUZZ_ASSERT(dfd == AT_FDCWD);
	check_path(path);
	FUZZ_ASSERT((mode & ~07777) == 0);
	fake.made++;
	fake.linked = false;
	return 0;
}

int do_mknodat(int dfd, const char *path, umode_t mode, dev_t dev)
{
	umode_t type = mode & S_IFMT;

	(void)dev;
	FUZZ_ASSERT(dfd == AT_FDCWD);
	check_path(path);
	FUZZ_ASSERT(type == S_IFCHR || type == S_IFBLK || type == S_IFIFO);
	fake.made++;
	fake.linked = false;
	return 0;
}

int do_symlinkat(const char *target, int newdfd, const char *path)
{
	size_t len = strnlen(target, PATH_MAX);

	FUZZ_ASSERT(newdfd == AT_FDCWD);
	check_path(path);
	FUZZ_ASSERT(len > 0 && len < PATH_MAX);
	fake.made++;
	fake.linked = false;
	return 0;
}

int do_linkat(int olddfd, const char *oldname, int newdfd, const char *newname, bool follow)
{
	FUZZ_ASSERT(olddfd == AT_FDCWD && newdfd == AT_FDCWD && !follow);
	check_path(oldname);
	check_path(newname);
	FUZZ_ASSERT(strcmp(oldname, newname) != 0);
	fake.made++;
	fake.linked = true;
	return 0;
}

/* Nothing exists in the fake file layer: there is never a name to remove. */
int do_set_mtime(int dfd, const char *path, unsigned int lookup_flags, const u64 *mtime_ns)
{
	(void)lookup_flags;
	FUZZ_ASSERT(dfd == AT_FDCWD && mtime_ns);
	check_path(path);
	return 0;
}

int do_unlinkat(int dfd, const char *path)
{
	FUZZ_ASSERT(dfd == AT_FDCWD);
	check_path(path);
	return -ENOENT;
}

/* The number in the unpacker's line starting with start, read with fmt
 * from there. */
static bool said(const char *start, const char *fmt, unsigned int *count)
{
	const char *at = strstr(host_printk_buf, start);

	return at && sscanf(at, fmt, count) == 1;
}

/* Is there a trailer's name anywhere in the input?  Success needs one. */
static bool has_trailer(const u8 *data, size_t size)
{
	static const char name[] = "TRAILER!!!";

	for (size_t i = 0; i + sizeof(name) <= size; i++)
		if (memcmp(data + i, name, sizeof(name)) == 0)
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	unsigned int n, skipped = 0;
	const char *p;
	int err;

	fuzz_begin();
	memset(&fake, 0, sizeof(fake));
	fake.data = data;
	fake.size = size;
	err = unpack_to_rootfs((const char *)data, size);
	FUZZ_ASSERT(fake.open == 0);

	/* Entries of a type it does not make are counted, with a warning. */
	for (p = host_printk_buf; (p = strstr(p, "not supported, skipped")); p++)
		skipped++;
	if (err == 0) {
		FUZZ_ASSERT(said("initramfs: unpacked ", "initramfs: unpacked %u", &n));
		FUZZ_ASSERT(n == fake.made + skipped);
		FUZZ_ASSERT(has_trailer(data, size));
	} else if (err == -EINVAL) {
		FUZZ_ASSERT(strstr(host_printk_buf, "initramfs: rejected: "));
		FUZZ_ASSERT(said(" at offset ", " at offset %*u (%u entries", &n));
		FUZZ_ASSERT(n == fake.made + skipped);
	} else {
		/* The file being written when the space ran out is not counted
		 * by the unpacker, so no count is compared here. */
		FUZZ_ASSERT(err == -ENOSPC && fake.written <= FAKE_FS_BYTES);
		FUZZ_ASSERT(strstr(host_printk_buf, "cannot make"));
	}
	fuzz_end();
	return 0;
}
