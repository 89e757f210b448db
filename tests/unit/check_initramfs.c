// SPDX-License-Identifier: MIT
/*
 * The initramfs unpacker (fs/initramfs.c) fed archives made by the host's
 * GNU cpio (-H newc; tests/unit/cpio/make_archives.sh: files, a symbolic
 * link, a file with three names) and hand-made and malformed
 * copies of them: every malformed archive is rejected with a log line,
 * and whatever was made before the bad spot is complete -- never half a
 * file.
 */
#include <check.h>
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include "shim/host_kernel.h"
#include "shim/host_fs.h"
#include "../../fs/internal.h"

#ifndef CPIO_DIR
#define CPIO_DIR "build/unit/cpio"
#endif

static char *good;
static size_t good_len;

static void load_good(void)
{
	const char *dir = getenv("CPIO_DIR") ? getenv("CPIO_DIR") : CPIO_DIR;
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/good.cpio", dir);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "no %s: run tests/unit/cpio/make_archives.sh", path);
	good = malloc(1 << 20);
	good_len = fread(good, 1, 1 << 20, f);
	fclose(f);
	ck_assert_uint_gt(good_len, 0);
}

static void setup(void)
{
	host_printk_quiet = true;
	host_printk_reset();
	host_mm_init(4096 * PAGE_SIZE);
	host_vfs_init();
	load_good();
}

static void teardown(void)
{
	exit_files(current);
	free(good);
}

/* The contents of a file, or -errno. */
static long slurp(const char *path, char *buf, size_t size)
{
	struct file *f = filp_open(path, O_RDONLY, 0);
	loff_t pos = 0;
	long n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, size, &pos);
	fput(f);
	return n;
}

static char *find_trailer(void)
{
	for (size_t i = 0; i + 10 <= good_len; i++)
		if (memcmp(good + i, "TRAILER!!!", 10) == 0)
			return good + i;
	ck_abort_msg("no trailer in good.cpio");
	return NULL;
}

static const char motd[] = "hello from the initramfs\n";
static const char init_sh[] = "#!/bin/sh\necho init\n";
#define BIG_LEN 20000

static bool big_ok(const char *buf)
{
	for (int i = 0; i < BIG_LEN; i++)
		if ((unsigned char)buf[i] != (i * 13) % 256)
			return false;
	return true;
}

START_TEST(good_archive_unpacks_completely)
{
	static char buf[BIG_LEN + 100];
	struct stat st;

	ck_assert_int_eq(unpack_to_rootfs(good, good_len), 0);
	ck_assert_int_eq(slurp("/etc/motd", buf, sizeof(buf)), (long)strlen(motd));
	ck_assert_int_eq(memcmp(buf, motd, strlen(motd)), 0);
	ck_assert_int_eq(slurp("/init", buf, sizeof(buf)), (long)strlen(init_sh));
	ck_assert_int_eq(ksys_stat("/init", &st), 0);
	ck_assert_int_eq(st.st_mode, S_IFREG | 0755);
	ck_assert_int_eq(slurp("/bin/big", buf, sizeof(buf)), BIG_LEN);
	ck_assert(big_ok(buf));
	ck_assert_int_eq(ksys_stat("/etc/rc.d/emptyfile", &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	ck_assert_int_eq(ksys_stat("/empty", &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "initramfs: unpacked"));
	/* unpacking twice (a second module) overwrites, no error */
	ck_assert_int_eq(unpack_to_rootfs(good, good_len), 0);
}
END_TEST

/* Whatever exists after a failed unpack is whole. */
static void assert_nothing_half_made(void)
{
	static char buf[BIG_LEN + 100];
	long n;

	n = slurp("/etc/motd", buf, sizeof(buf));
	ck_assert(n == -ENOENT || (n == (long)strlen(motd) && !memcmp(buf, motd, n)));
	n = slurp("/init", buf, sizeof(buf));
	ck_assert(n == -ENOENT || (n == (long)strlen(init_sh) && !memcmp(buf, init_sh, n)));
	n = slurp("/bin/big", buf, sizeof(buf));
	ck_assert_msg(n == -ENOENT || (n == BIG_LEN && big_ok(buf)), "bin/big: %ld bytes", n);
}

/* Cut the archive everywhere (in steps) before the trailer. */
START_TEST(truncated_archives_are_rejected_cleanly)
{
	char *trailer = find_trailer();
	size_t end = trailer - good;

	for (size_t cut = _i; cut < end; cut += 211) {
		/* a fresh root for each cut (the old tree is simply leaked) */
		exit_files(current);
		root_mnt = NULL;
		host_vfs_init();
		host_printk_reset();
		ck_assert_int_eq(unpack_to_rootfs(good, cut), -EINVAL);
		ck_assert_ptr_nonnull(strstr(host_printk_buf, "initramfs: rejected: "));
		assert_nothing_half_made();
	}
}
END_TEST

/* Offset of the n-th entry header (0 = first). */
static size_t entry_offset(int n)
{
	size_t off = 0;

	while (n--) {
		unsigned long namesize, filesize;
		char f[9] = { 0 };

		memcpy(f, good + off + 94, 8);
		namesize = strtoul(f, NULL, 16);
		memcpy(f, good + off + 54, 8);
		filesize = strtoul(f, NULL, 16);
		off = ALIGN(ALIGN(off + 110 + namesize, 4) + filesize, 4);
	}
	return off;
}

static const struct corruption {
	const char *what;
	int entry;              /* which header */
	int at;                 /* byte in it */
	char byte;
	const char *log;
} corruptions[] = {
	{ "magic of the first", 0, 0, '1', "bad magic" },
	{ "magic of the third", 2, 5, '9', "bad magic" },
	{ "hex digit in a size", 3, 60, 'g', "bad hex digit" },
	{ "name size too large", 2, 95, 'f', "name" },
	{ "file size too large", 4, 54, '7', "data beyond the end" },
	{ "name without its NUL", 1, 110 + 1, 'x', "name not NUL-terminated" },
};

START_TEST(corrupted_headers_are_rejected)
{
	const struct corruption *c = &corruptions[_i];
	size_t off = entry_offset(c->entry);
	char *bad = malloc(good_len);

	memcpy(bad, good, good_len);
	if (c->at == 110 + 1) {
		/* overwrite the name's NUL */
		char f[9] = { 0 };

		memcpy(f, good + off + 94, 8);
		bad[off + 110 + strtoul(f, NULL, 16) - 1] = c->byte;
	} else {
		bad[off + c->at] = c->byte;
	}
	ck_assert_int_eq(unpack_to_rootfs(bad, good_len), -EINVAL);
	ck_assert_msg(strstr(host_printk_buf, c->log) != NULL, "%s: log was %s", c->what,
		      host_printk_buf);
	assert_nothing_half_made();
	free(bad);
}
END_TEST

START_TEST(missing_trailer_is_rejected_after_the_files)
{
	char *trailer = find_trailer();
	size_t end = trailer - good - 110;              /* the trailer's header */
	static char buf[BIG_LEN + 100];

	ck_assert_int_eq(unpack_to_rootfs(good, end), -EINVAL);
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "no TRAILER!!!"));
	ck_assert_int_eq(slurp("/bin/big", buf, sizeof(buf)), BIG_LEN);  /* all made */
	ck_assert_int_eq(unpack_to_rootfs("", 0), -EINVAL);
}
END_TEST

/* A newc header by hand, for entries GNU cpio needs root to make. */
static size_t put_entry(char *p, const char *name, unsigned int mode,
			unsigned int rmaj, unsigned int rmin)
{
	size_t n = sprintf(p, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
			   1u, mode, 0u, 0u, 1u, 0u, 0u, 0u, 0u, rmaj, rmin,
			   (unsigned int)strlen(name) + 1, 0u);

	strcpy(p + n, name);
	n += strlen(name) + 1;
	while (n % 4)
		p[n++] = '\0';
	return n;
}

/* A FIFO made by mknod has no pipe buffer until someone opens it. */
static bool fifo_has_buffer(const char *path)
{
	struct path p;
	bool has;

	ck_assert_int_eq(kern_path(path, 0, &p), 0);
	has = p.dentry->d_inode->i_pipe != NULL;
	path_put(&p);
	return has;
}

START_TEST(device_nodes_and_fifos)
{
	char ar[1024];
	size_t n = 0;
	struct stat st;
	struct file *f;

	memset(ar, 0, sizeof(ar));
	n += put_entry(ar + n, "dev", S_IFDIR | 0755, 0, 0);
	n += put_entry(ar + n, "dev/null", S_IFCHR | 0666, 1, 3);
	n += put_entry(ar + n, "dev/sda", S_IFBLK | 0660, 8, 0);
	n += put_entry(ar + n, "dev/fifo", S_IFIFO | 0644, 0, 0);
	n += put_entry(ar + n, "dev/sock", 0140777, 0, 0);      /* a socket: skipped */
	n += put_entry(ar + n, "TRAILER!!!", 0, 0, 0);
	ck_assert_int_eq(unpack_to_rootfs(ar, n + 64), 0);      /* + zero padding */
	ck_assert_int_eq(ksys_stat("/dev/null", &st), 0);
	ck_assert_int_eq(st.st_mode, S_IFCHR | 0666);
	ck_assert_uint_eq(st.st_rdev, 0x103);
	ck_assert_int_eq(ksys_stat("/dev/sda", &st), 0);
	ck_assert_uint_eq(st.st_rdev, 0x800);
	ck_assert_int_eq(ksys_stat("/dev/fifo", &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert(!fifo_has_buffer("/dev/fifo"));       /* made, not opened */
	ck_assert_int_eq(ksys_stat("/dev/sock", &st), -ENOENT);
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "not supported"));
	/* the node opens the memory device */
	f = filp_open("/dev/null", O_WRONLY, 0);
	ck_assert(!IS_ERR(f));
	ck_assert_int_eq(kernel_write(f, "x", 1, NULL), 1);
	fput(f);
	/* no disk 8:0 on the host */
	ck_assert_int_eq(PTR_ERR(filp_open("/dev/sda", O_RDONLY, 0)), -ENXIO);
}
END_TEST

#define CPIO_HDR_LEN_TEST 110   /* a newc header's length */

static char *load_cpio(const char *name, size_t *len)
{
	const char *dir = getenv("CPIO_DIR") ? getenv("CPIO_DIR") : CPIO_DIR;
	char path[512], *buf = malloc(1 << 20);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "no %s: run tests/unit/cpio/make_archives.sh", path);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

/*
 * Two archives one after the other, as Linux accepts them (a boot
 * loader's early files added to an initramfs): both unpack, the second's
 * files replacing the first's.  The host's cpio pads each to 512 bytes.
 */
START_TEST(concatenated_archives_both_unpack)
{
	size_t extra_len;
	char *extra = load_cpio("extra.cpio", &extra_len);
	static char both[1 << 21], buf[BIG_LEN + 100];

	memcpy(both, good, good_len);
	memcpy(both + good_len, extra, extra_len);
	ck_assert_int_eq(unpack_to_rootfs(both, good_len + extra_len), 0);
	ck_assert_int_eq(slurp("/bin/big", buf, sizeof(buf)), BIG_LEN);     /* the first's */
	ck_assert_int_eq(slurp("/etc/early", buf, sizeof(buf)), 6);         /* the second's */
	ck_assert_mem_eq(buf, "early\n", 6);
	ck_assert_int_eq(slurp("/etc/motd", buf, sizeof(buf)), 9);          /* replaced */
	ck_assert_mem_eq(buf, "replaced\n", 9);
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "from 2 archives"));
	free(extra);
}
END_TEST

/* Hand-made archives: padding of zeros to 4 bytes between them is fine;
 * one that starts off a 4-byte boundary, or junk after a trailer, is
 * rejected (Linux: "invalid magic at start of compressed archive"). */
START_TEST(concatenation_padding_and_junk)
{
	static char ar[2048];
	size_t n = 0, first;
	struct stat st;

	memset(ar, 0, sizeof(ar));
	n += put_entry(ar + n, "a", S_IFDIR | 0755, 0, 0);
	n += put_entry(ar + n, "TRAILER!!!", 0, 0, 0);
	first = n + 4;                                  /* 4 zeros between */
	n = first;
	n += put_entry(ar + n, "b", S_IFDIR | 0755, 0, 0);
	n += put_entry(ar + n, "TRAILER!!!", 0, 0, 0);
	ck_assert_int_eq(unpack_to_rootfs(ar, n), 0);
	ck_assert_int_eq(ksys_stat("/a", &st), 0);
	ck_assert_int_eq(ksys_stat("/b", &st), 0);

	/* the second archive two bytes late */
	memmove(ar + first + 2, ar + first, n - first);
	memset(ar + first, 0, 2);
	host_printk_reset();
	ck_assert_int_eq(unpack_to_rootfs(ar, n + 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "4-byte boundary"));

	/* junk after the first trailer */
	memset(ar + first - 4, 0, n + 2 - (first - 4));
	memset(ar + first, 'j', CPIO_HDR_LEN_TEST);
	host_printk_reset();
	ck_assert_int_eq(unpack_to_rootfs(ar, first + CPIO_HDR_LEN_TEST), -EINVAL);
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "bad magic"));
}
END_TEST

/* The target of the symbolic link at path, NUL-terminated, or -errno. */
static long link_target(const char *path, char *buf, int size)
{
	long n = ksys_readlinkat(AT_FDCWD, path, buf, size - 1);

	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/*
 * GNU cpio's own archive of a symbolic link and a file with three names
 * (three entries, one ino, the data with the last): the link holds its
 * target, the names are one file with the data and nlink 3 -- also when
 * the archive comes a second time and finds every name there.  Each
 * entry's mtime is its file's: the file's, the link's own, and the two
 * directories' although their entries were made after them.
 */
START_TEST(links_from_gnu_cpio)
{
	static const char text[] = "one file, three names\n";
	static const char *const names[] = { "/bin/tool", "/bin/alias1", "/lib/alias2" };
	size_t len;
	char *ar = load_cpio("links.cpio", &len);
	char buf[64];
	struct stat st, first;

	for (int round = 0; round < 2; round++) {
		ck_assert_int_eq(unpack_to_rootfs(ar, len), 0);
		for (int i = 0; i < 3; i++) {
			ck_assert_int_eq(ksys_stat(names[i], &st), 0);
			if (i == 0)
				first = st;
			ck_assert_uint_eq(st.st_ino, first.st_ino);
			ck_assert_uint_eq(st.st_nlink, 3);
			ck_assert_int_eq(slurp(names[i], buf, sizeof(buf)), (long)strlen(text));
			ck_assert_mem_eq(buf, text, strlen(text));
		}
		ck_assert_int_eq(ksys_lstat("/lib/tool-link", &st), 0);
		ck_assert(S_ISLNK(st.st_mode));
		ck_assert_int_eq(link_target("/lib/tool-link", buf, sizeof(buf)), 11);
		ck_assert_str_eq(buf, "../bin/tool");
		ck_assert_int_eq(slurp("/lib/tool-link", buf, sizeof(buf)), (long)strlen(text));
		ck_assert_uint_eq(st.st_mtime, 1600000100);     /* the link's, lstat */
		ck_assert_int_eq(ksys_stat("/bin/alias1", &st), 0);
		ck_assert_uint_eq(st.st_mtime, 1600000000);
		ck_assert_int_eq(ksys_stat("/lib", &st), 0);
		ck_assert_uint_eq(st.st_mtime, 1600000200);
		ck_assert_int_eq(ksys_stat("/bin", &st), 0);
		ck_assert_uint_eq(st.st_mtime, 1600000300);
	}
	free(ar);
}
END_TEST

/* A newc entry with data, for links GNU cpio would not write this way. */
static size_t put_entry_data(char *p, const char *name, unsigned int mode, unsigned int ino,
			     unsigned int nlink, const char *data, size_t len)
{
	size_t n = sprintf(p, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
			   ino, mode, 0u, 0u, nlink, 0u, (unsigned int)len, 0u, 0u, 0u, 0u,
			   (unsigned int)strlen(name) + 1, 0u);

	strcpy(p + n, name);
	n += strlen(name) + 1;
	while (n % 4)
		p[n++] = '\0';
	memcpy(p + n, data, len);
	n += len;
	while (n % 4)
		p[n++] = '\0';
	return n;
}

/*
 * Hand-made link entries: the data may come with the first name (other
 * writers than GNU cpio), a link replaces a file an earlier archive made,
 * inode numbers start afresh after a trailer, and a symbolic link's
 * target that is empty or holds a NUL rejects the archive before it.
 */
START_TEST(links_by_hand)
{
	static char ar[4096];
	char buf[64];
	struct stat a, b;
	size_t n = 0;

	memset(ar, 0, sizeof(ar));
	n += put_entry_data(ar + n, "x", S_IFREG | 0644, 7, 1, "old", 3);
	n += put_entry_data(ar + n, "TRAILER!!!", 0, 0, 1, "", 0);
	n += put_entry_data(ar + n, "first", S_IFREG | 0644, 7, 2, "data first", 10);
	n += put_entry_data(ar + n, "x", S_IFREG | 0644, 7, 2, "", 0);
	n += put_entry_data(ar + n, "TRAILER!!!", 0, 0, 1, "", 0);
	/* ino 7 again, in a new archive: a different file */
	n += put_entry_data(ar + n, "other", S_IFREG | 0644, 7, 2, "other", 5);
	n += put_entry_data(ar + n, "abs", S_IFLNK | 0777, 8, 1, "/first", 6);
	n += put_entry_data(ar + n, "TRAILER!!!", 0, 0, 1, "", 0);
	ck_assert_int_eq(unpack_to_rootfs(ar, n), 0);
	ck_assert_int_eq(ksys_stat("/first", &a), 0);
	ck_assert_int_eq(ksys_stat("/x", &b), 0);
	ck_assert_uint_eq(a.st_ino, b.st_ino);
	ck_assert_uint_eq(b.st_nlink, 2);
	ck_assert_int_eq(slurp("/x", buf, sizeof(buf)), 10);
	ck_assert_mem_eq(buf, "data first", 10);
	ck_assert_int_eq(ksys_stat("/other", &b), 0);
	ck_assert_uint_ne(a.st_ino, b.st_ino);
	ck_assert_int_eq(slurp("/abs", buf, sizeof(buf)), 10);  /* through the link */

	n = 0;
	n += put_entry_data(ar + n, "before", S_IFDIR | 0755, 1, 2, "", 0);
	n += put_entry_data(ar + n, "empty-link", S_IFLNK | 0777, 2, 1, "", 0);
	n += put_entry_data(ar + n, "TRAILER!!!", 0, 0, 1, "", 0);
	host_printk_reset();
	ck_assert_int_eq(unpack_to_rootfs(ar, n), -EINVAL);
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "bad symbolic link target size"));
	ck_assert_int_eq(ksys_stat("/before", &a), 0);  /* what came before is made */
	ck_assert_int_eq(ksys_lstat("/empty-link", &a), -ENOENT);

	n = 0;
	n += put_entry_data(ar + n, "nul-link", S_IFLNK | 0777, 2, 1, "a\0b", 3);
	n += put_entry_data(ar + n, "TRAILER!!!", 0, 0, 1, "", 0);
	host_printk_reset();
	ck_assert_int_eq(unpack_to_rootfs(ar, n), -EINVAL);
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "NUL in a symbolic link target"));
	ck_assert_int_eq(ksys_lstat("/nul-link", &a), -ENOENT);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("initramfs");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, good_archive_unpacks_completely);
	tcase_add_test(core, device_nodes_and_fifos);
	tcase_add_test(core, concatenated_archives_both_unpack);
	tcase_add_test(core, concatenation_padding_and_junk);
	tcase_add_test(core, links_from_gnu_cpio);
	tcase_add_test(core, links_by_hand);
	suite_add_tcase(s, core);

	tcase_set_timeout(limits, 60);
	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_loop_test(limits, truncated_archives_are_rejected_cleanly, 0, 4);
	tcase_add_loop_test(limits, corrupted_headers_are_rejected, 0, ARRAY_SIZE(corruptions));
	tcase_add_test(limits, missing_trailer_is_rejected_after_the_files);
	suite_add_tcase(s, limits);
	return s;
}
