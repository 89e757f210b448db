// SPDX-License-Identifier: MIT
/*
 * ext2 (fs/ext2/) on the host, over a fake disk holding an image that the
 * host's mke2fs made from a small tree (tests/unit/ext2/make_images.sh),
 * for 1 KiB and 4 KiB blocks.
 *
 * Core: through the system calls, as a program would -- the files read
 * back byte for byte as the host's copies of the tree (at any offset,
 * holes as zeros), stat and lstat, fast and slow links followed and read
 * as the host's readlink(), a loop of links is ELOOP, getdents64 in
 * small pieces and from a position lseek chose, statfs; a read-only
 * mount answers every change with EROFS.  The allocator's searches (a
 * free bit near a goal, a run, a group for a new inode).
 *
 * Limits: the image damaged one field at a time (a table: the superblock,
 * the group descriptor, inodes, directory entries, an indirect block);
 * each gives the caller its error (EINVAL for what is not ext2 or not
 * supported, EUCLEAN for damage, EIO for a freed inode) and the log one
 * line in Linux's words, and the mount still goes away cleanly.
 */
#include <check.h>
#include <stdio.h>
#include <unistd.h>
#include <spindle/fs.h>
#include <spindle/blkdev.h>
#include <spindle/bio.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/ext2_fs.h>
#include "shim/host_kernel.h"
#include "shim/host_fs.h"
#include "../../fs/internal.h"
#include "../../fs/ext2/ext2.h"

#ifndef EXT2_IMAGE_DIR
#define EXT2_IMAGE_DIR "build/unit/ext2"
#endif

long sys_read(unsigned int fd, char *buf, size_t count);
long sys_open(const char *filename, int flags, umode_t mode);
long sys_close(unsigned int fd);
long sys_stat(const char *filename, struct stat *statbuf);
long sys_lstat(const char *filename, struct stat *statbuf);
long sys_lseek(unsigned int fd, off_t offset, unsigned int whence);
long sys_pread64(unsigned int fd, char *buf, size_t count, loff_t pos);
long sys_mkdir(const char *pathname, umode_t mode);
long sys_rmdir(const char *pathname);
long sys_unlink(const char *pathname);
long sys_getdents64(unsigned int fd, struct linux_dirent64 *dirent, unsigned int count);
long sys_statfs(const char *pathname, struct statfs *buf);
long sys_readlinkat(int dfd, const char *pathname, char *buf, int bufsiz);
long sys_write(unsigned int fd, const char *buf, size_t count);
long sys_pwrite64(unsigned int fd, const char *buf, size_t count, loff_t pos);
long sys_ftruncate(unsigned int fd, off_t length);
long sys_fsync(unsigned int fd);
long sys_link(const char *oldname, const char *newname);
long sys_symlink(const char *oldname, const char *newname);
long sys_rename(const char *oldname, const char *newname);

static const unsigned int block_sizes[] = { 1024, 4096 };
static unsigned char *ram;
static size_t ram_bytes;
static unsigned int bs; /* the image's block size */

/* what make_images.sh wrote in ext2-<bs>.layout */
struct layout_entry {
	char name[32];
	unsigned long value;
};
static struct layout_entry layout[32];

static unsigned long L(const char *name)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(layout) && layout[i].name[0]; i++)
		if (!strcmp(layout[i].name, name))
			return layout[i].value;
	ck_abort_msg("layout has no %s", name);
	return 0;
}

/* A brd-like disk: copies at once. */
static unsigned long ram_read_bios, ram_read_sectors; /* reads reaching the disk */

static void ram_make_request(struct request_queue *q, struct bio *bio)
{
	struct bio_vec bv;
	struct bvec_iter iter;
	u64 pos = bio->bi_iter.bi_sector * 512;

	(void)q;
	if (!bio_is_write(bio)) {
		ram_read_bios++;
		ram_read_sectors += bio_sectors(bio);
	}
	bio_for_each_segment(bv, bio, iter) {
		char *p = (char *)page_address(bv.bv_page) + bv.bv_offset;

		ck_assert_uint_le(pos + bv.bv_len, ram_bytes);
		if (bio_is_write(bio))
			memcpy(ram + pos, p, bv.bv_len);
		else
			memcpy(p, ram + pos, bv.bv_len);
		pos += bv.bv_len;
	}
	bio_endio(bio);
}

static void load_image(unsigned int block_size)
{
	char path[256], name[32];
	unsigned long value;
	FILE *f;
	int n = 0;

	bs = block_size;
	snprintf(path, sizeof(path), "%s/ext2-%u.img", EXT2_IMAGE_DIR, bs);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s missing (tests/unit/ext2/make_images.sh makes it)", path);
	fseek(f, 0, SEEK_END);
	ram_bytes = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	ram = malloc(ram_bytes);
	ck_assert_uint_eq(fread(ram, 1, ram_bytes, f), ram_bytes);
	fclose(f);
	snprintf(path, sizeof(path), "%s/ext2-%u.layout", EXT2_IMAGE_DIR, bs);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	memset(layout, 0, sizeof(layout));
	while (n < (int)ARRAY_SIZE(layout) && fscanf(f, "%31s %lu", name, &value) == 2) {
		strcpy(layout[n].name, name);
		layout[n++].value = value;
	}
	fclose(f);
}

/* The disk "fake" (/dev/fake) holding the image; /mnt to mount it on. */
static void setup_disk(unsigned int block_size)
{
	struct request_queue *q;
	struct gendisk *disk;

	host_printk_quiet = true;
	host_mm_init(8192 * PAGE_SIZE);
	ck_assert_int_eq(bioset_init(&fs_bio_set, "fs_bio_set", 8, 0, BIOSET_NEED_BVECS), 0);
	ck_assert_int_eq(dio_init(), 0);
	host_vfs_init();
	load_image(block_size);
	q = blk_alloc_queue(ram_make_request, NULL);
	disk = alloc_disk(1);
	strcpy(disk->disk_name, "fake");
	disk->major = 240;
	disk->queue = q;
	set_capacity(disk, ram_bytes / 512);
	ck_assert_int_eq(add_disk(disk), 0);
	ck_assert_int_eq(do_mkdirat(AT_FDCWD, "/dev", 0755), 0);
	ck_assert_int_eq(do_mount("none", "/dev", "devtmpfs", 0, NULL), 0);
	ck_assert_int_eq(do_mkdirat(AT_FDCWD, "/mnt", 0755), 0);
	host_printk_reset();
}

static void teardown(void)
{
	exit_files(current);
	free(ram);
	ram = NULL;
}

static int mount_ro(void)
{
	return do_mount("/dev/fake", "/mnt", "ext2", MS_RDONLY, NULL);
}

/* The host's copy of a file of the tree, read whole. */
static size_t host_file(const char *rel, char *buf, size_t size)
{
	char path[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/tree/%s", EXT2_IMAGE_DIR, rel);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s", path);
	n = fread(buf, 1, size, f);
	fclose(f);
	return n;
}

/* A file of the mounted image, read whole in reads of `chunk` bytes. */
static long guest_file(const char *path, char *buf, size_t size, size_t chunk)
{
	long fd = sys_open(path, O_RDONLY, 0), n = 0, got = 0;

	if (fd < 0)
		return fd;
	while ((size_t)got < size &&
	       (n = sys_read(fd, buf + got, min(chunk, size - (size_t)got))) > 0)
		got += n;
	sys_close(fd);
	return n < 0 ? n : got; /* an error part-way is the caller's to see */
}

/* --- Core ---------------------------------------------------------------------- */

START_TEST(files_read_as_the_hosts)
{
	static const char *const files[] = { "hello.txt", "big.bin", "holes.bin", "sub/file" };
	static char want[70000], got[70000];

	setup_disk(block_sizes[_i]);
	ck_assert_int_eq(mount_ro(), 0);
	for (unsigned int i = 0; i < ARRAY_SIZE(files); i++) {
		char path[64];
		size_t n = host_file(files[i], want, sizeof(want));

		snprintf(path, sizeof(path), "/mnt/%s", files[i]);
		/* odd read sizes cross every block boundary at some point */
		for (size_t chunk = 1000; chunk <= 9000; chunk += 4000) {
			memset(got, 0x5a, sizeof(got));
			ck_assert_int_eq(guest_file(path, got, sizeof(got), chunk), n);
			ck_assert_msg(!memcmp(want, got, n), "%s differs (reads of %zu)", path, chunk);
		}
	}
	ck_assert_int_eq(do_umount("/mnt", 0), 0);
}
END_TEST

START_TEST(pread_anywhere_in_a_file)
{
	static char want[70000], got[2000];
	size_t n;
	long fd;

	setup_disk(block_sizes[_i]);
	ck_assert_int_eq(mount_ro(), 0);
	n = host_file("big.bin", want, sizeof(want));
	fd = sys_open("/mnt/big.bin", O_RDONLY, 0);
	ck_assert_int_ge(fd, 0);
	for (size_t off = 0; off < n + 500; off += 997) {
		long expect = off >= n ? 0 : (long)min(sizeof(got), n - off);

		ck_assert_int_eq(sys_pread64(fd, got, sizeof(got), (loff_t)off), expect);
		ck_assert(!memcmp(got, want + off, expect));
	}
	sys_close(fd);
	ck_assert_int_eq(do_umount("/mnt", 0), 0);
}
END_TEST

/*
 * O_DIRECT reads of a file whose size is not a multiple of the block size
 * (hello.txt, 12 bytes): the first gives the 12 bytes; one at or past the
 * end gives 0 whatever its alignment, as Linux's -- the reader's next
 * read starts at byte 12, and dd stops only on a 0 -- while one inside
 * the file must still be aligned.
 */
START_TEST(direct_read_at_an_unaligned_end)
{
	char *buf;
	long fd;

	setup_disk(block_sizes[_i]);
	ck_assert_int_eq(mount_ro(), 0);
	buf = page_address(alloc_pages(GFP_KERNEL, 2)); /* the device may write it */
	fd = sys_open("/mnt/hello.txt", O_RDONLY | O_DIRECT, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(sys_read(fd, buf, bs), 12);
	ck_assert(!memcmp(buf, "hello, ext2\n", 12));
	ck_assert_int_eq(sys_read(fd, buf, bs), 0);
	ck_assert_int_eq(sys_pread64(fd, buf, bs, 13), 0);
	ck_assert_int_eq(sys_pread64(fd, buf, bs, bs), 0);
	ck_assert_int_eq(sys_pread64(fd, buf, 1, 1 << 20), 0);
	ck_assert_int_eq(sys_pread64(fd, buf, bs, 5), -EINVAL);
	sys_close(fd);
	__free_pages(virt_to_page(buf), 2);
	ck_assert_int_eq(do_umount("/mnt", 0), 0);
}
END_TEST

/* 64 MiB of holes under every level of the map: read in pieces of odd
 * sizes, the file is the host's, zeros and all. */
START_TEST(holes_at_every_level)
{
	static char want[1 << 20], got[1 << 20];
	char path[256];
	size_t n, total = 0;
	long fd, r;
	FILE *f;

	setup_disk(block_sizes[_i]);
	ck_assert_int_eq(mount_ro(), 0);
	snprintf(path, sizeof(path), "%s/tree/far.bin", EXT2_IMAGE_DIR);
	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fd = sys_open("/mnt/far.bin", O_RDONLY, 0);
	ck_assert_int_ge(fd, 0);
	while ((n = fread(want, 1, sizeof(want) - 4097, f)) > 0) {
		memset(got, 0x5a, n);
		r = sys_read(fd, got, n);
		ck_assert_int_eq(r, n);
		ck_assert_msg(!memcmp(want, got, n), "differs in the MiB at %zu", total);
		total += n;
	}
	ck_assert_int_eq(sys_read(fd, got, 1), 0);
	ck_assert_uint_eq(total, 67500003);
	fclose(f);
	sys_close(fd);
	ck_assert_int_eq(do_umount("/mnt", 0), 0);
}
END_TEST

START_TEST(stat_lstat_and_links)
{
	char buf[256], want[256];
	struct stat st;
	long n;

	setup_disk(block_sizes[_i]);
	ck_assert_int_eq(mount_ro(), 0);
	ck_assert_int_eq(sys_stat("/mnt/hello.txt", &st), 0);
	ck_assert_uint_eq(st.st_mode, S_IFREG | 0640);
	ck_assert_uint_eq(st.st_size, 12);
	ck_assert_uint_eq(st.st_nlink, 1);
	ck_assert_uint_eq(st.st_mtime, 1600000000);
	ck_assert_uint_eq(st.st_ino, L("ino_hello_txt"));	/* debugfs's number */
	ck_assert_uint_eq(st.st_blksize, bs);
	ck_assert_uint_eq(st.st_blocks, bs / 512);
	/* a sparse file holds only its two data blocks -- and at 1 KiB, the
	 * indirect block that maps the second (block 29) */
	ck_assert_int_eq(sys_stat("/mnt/holes.bin", &st), 0);
	ck_assert_uint_eq(st.st_size, 30004);
	ck_assert_uint_eq(st.st_blocks, (bs == 1024 ? 3 : 2) * (bs / 512));
	ck_assert_int_eq(sys_stat("/mnt/sub", &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_nlink, 2);
	ck_assert_uint_eq(st.st_size, bs);

	/* stat follows links (through two of them), lstat does not */
	ck_assert_int_eq(sys_stat("/mnt/chain", &st), 0);
	ck_assert_uint_eq(st.st_ino, L("ino_hello_txt"));
	ck_assert_int_eq(sys_lstat("/mnt/fast", &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_uint_eq(st.st_size, 9);
	ck_assert_uint_eq(st.st_blocks, 0); /* fast: no block */
	ck_assert_int_eq(sys_lstat("/mnt/slow", &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_uint_eq(st.st_blocks, bs / 512); /* slow: one block */
	for (const char *const *l = (const char *const[]){ "fast", "slow", "chain", NULL }; *l; l++) {
		char path[64], host[256];

		snprintf(path, sizeof(path), "/mnt/%s", *l);
		snprintf(host, sizeof(host), "%s/tree/%s", EXT2_IMAGE_DIR, *l);
		n = readlink(host, want, sizeof(want));
		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(sys_readlinkat(AT_FDCWD, path, buf, sizeof(buf)), n);
		ck_assert(!memcmp(buf, want, n));
	}
	/* a slow link's target is a path with many ".."s: it opens */
	ck_assert_int_eq(guest_file("/mnt/slow", buf, sizeof(buf), 100), 7);
	ck_assert(!memcmp(buf, "in sub\n", 7));
	ck_assert_int_eq(sys_readlinkat(AT_FDCWD, "/mnt/slow", buf, 4), 4); /* cut, as Linux */
	ck_assert_int_eq(sys_readlinkat(AT_FDCWD, "/mnt/hello.txt", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(sys_stat("/mnt/loop1", &st), -ELOOP);
	ck_assert_int_eq(sys_lstat("/mnt/loop1", &st), 0);
	ck_assert_int_eq(sys_stat("/mnt/nothing", &st), -ENOENT);
	ck_assert_int_eq(sys_stat("/mnt/hello.txt/x", &st), -ENOTDIR);
	ck_assert_int_eq(do_umount("/mnt", 0), 0);
}
END_TEST

/* Every name getdents64 gives for path, "name:type " each, reading with
 * a buffer of bufsize bytes, from position start. */
static void list_dir(const char *path, char *out, size_t size, unsigned int bufsize, off_t start)
{
	char buf[4096];
	long fd = sys_open(path, O_RDONLY | O_DIRECTORY, 0), n;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(sys_lseek(fd, start, SEEK_SET), start);
	out[0] = '\0';
	while ((n = sys_getdents64(fd, (struct linux_dirent64 *)buf, bufsize)) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			char one[300];

			snprintf(one, sizeof(one), "%s:%u ", d->d_name, d->d_type);
			strlcat(out, one, size);
			off += d->d_reclen;
		}
	}
	ck_assert_int_eq(n, 0);
	sys_close(fd);
}

START_TEST(getdents_lists_every_name_once)
{
	static const char want[] = ".:4 ..:4 lost+found:4 big.bin:8 chain:10 fast:10 "
				   "far.bin:8 hello.txt:8 holes.bin:8 loop1:10 loop2:10 slow:10 sub:4 ";
	char all[1024], pieces[1024], from[1024];

	setup_disk(block_sizes[_i]);
	ck_assert_int_eq(mount_ro(), 0);
	list_dir("/mnt", all, sizeof(all), sizeof(all), 0);
	/* same names whatever the order mke2fs chose */
	ck_assert_uint_eq(strlen(all), strlen(want));
	for (const char *w = want; *w;) {
		char one[64];
		size_t len = strcspn(w, " ") + 1;

		memcpy(one, w, len);
		one[len] = '\0';
		ck_assert_msg(strstr(all, one), "%s missing from %s", one, all);
		w += len;
	}
	/* one record per call: the position resumes right after each */
	list_dir("/mnt", pieces, sizeof(pieces), 40, 0);
	ck_assert_str_eq(pieces, all);
	/* a position inside an entry (lseek's): the listing resumes at the
	 * next entry, so it is a tail of the whole one, never garbage */
	for (off_t at = 1; at < 64; at += 5) {
		list_dir("/mnt", from, sizeof(from), sizeof(from), at);
		ck_assert_msg(!strcmp(all + strlen(all) - strlen(from), from),
			      "from %ld: %s", (long)at, from);
	}
	ck_assert_int_eq(do_umount("/mnt", 0), 0);
}
END_TEST

START_TEST(statfs_and_read_only)
{
	struct statfs sf;
	struct stat st;

	setup_disk(block_sizes[_i]);
	ck_assert_int_eq(do_mount("/dev/fake", "/mnt", "ext2", MS_RDONLY, "bogus=1"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(host_printk_buf,
				     "EXT2-fs (fake): Unrecognized mount option \"bogus=1\""));
	ck_assert_int_eq(do_mount("/dev/null", "/mnt", "ext2", MS_RDONLY, NULL), -ENOTBLK);
	ck_assert_int_eq(mount_ro(), 0);
	/* the device is claimed: a second mount is EBUSY */
	ck_assert_int_eq(do_mkdirat(AT_FDCWD, "/mnt2", 0755), 0);
	ck_assert_int_eq(do_mount("/dev/fake", "/mnt2", "ext2", MS_RDONLY, NULL), -EBUSY);
	ck_assert_int_eq(sys_statfs("/mnt/sub", &sf), 0);
	ck_assert_int_eq(sf.f_type, 0xEF53);
	ck_assert_int_eq(sf.f_bsize, bs);
	ck_assert_int_eq(sf.f_namelen, 255);
	ck_assert_uint_eq(sf.f_files, 64);
	ck_assert_uint_gt(sf.f_blocks, sf.f_bfree);
	ck_assert_uint_ge(sf.f_bfree, sf.f_bavail);
	ck_assert(sf.f_flags & ST_RDONLY);

	ck_assert_int_eq(sys_open("/mnt/hello.txt", O_WRONLY, 0), -EROFS);
	ck_assert_int_eq(sys_open("/mnt/hello.txt", O_RDWR, 0), -EROFS);
	ck_assert_int_eq(sys_open("/mnt/hello.txt", O_RDONLY | O_TRUNC, 0), -EROFS);
	ck_assert_int_eq(sys_open("/mnt/new", O_WRONLY | O_CREAT, 0644), -EROFS);
	ck_assert_int_eq(sys_mkdir("/mnt/newdir", 0755), -EROFS);
	ck_assert_int_eq(sys_mkdir("/mnt/sub", 0755), -EEXIST); /* EEXIST first */
	ck_assert_int_eq(sys_unlink("/mnt/hello.txt"), -EROFS);
	ck_assert_int_eq(sys_rmdir("/mnt/sub"), -EROFS);
	ck_assert_int_eq(sys_stat("/mnt/hello.txt", &st), 0); /* all still there */
	ck_assert_int_eq(do_umount("/mnt", 0), 0);
	/* released: it mounts again */
	ck_assert_int_eq(do_mount("/dev/fake", "/mnt2", "ext2", MS_RDONLY, NULL), 0);
	ck_assert_int_eq(do_umount("/mnt2", 0), 0);
}
END_TEST

/*
 * A file's data through the page cache: the first read is read ahead (a
 * few bios, not one per block); a second open finds the same inode and
 * its cached pages, so only the lookup's directory block is read.
 */
START_TEST(file_pages_cached_across_opens)
{
	static char want[70000], got[70000];
	size_t n;

	setup_disk(block_sizes[_i]);
	ck_assert_int_eq(mount_ro(), 0);
	n = host_file("big.bin", want, sizeof(want));
	ram_read_bios = 0;
	ck_assert_int_eq(guest_file("/mnt/big.bin", got, n, 1000), (long)n);
	ck_assert(!memcmp(want, got, n));
	ck_assert_uint_lt(ram_read_bios, n / bs / 4 + 4);
	ram_read_sectors = 0;
	ck_assert_int_eq(guest_file("/mnt/big.bin", got, n, 1000), (long)n);
	ck_assert(!memcmp(want, got, n));
	ck_assert_uint_lt(ram_read_sectors, n / 512 / 4);
	ck_assert_int_eq(do_umount("/mnt", 0), 0);
}
END_TEST

/* Cached pages, kept inodes and their indirect blocks go at umount. */
START_TEST(mount_and_umount_leak_nothing)
{
	static char big[70000];
	unsigned long before;
	char buf[64];

	setup_disk(block_sizes[_i]);
	before = nr_free_pages();
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(mount_ro(), 0);
		ck_assert_int_eq(guest_file("/mnt/slow", buf, sizeof(buf), 64), 7);
		ck_assert_int_gt(guest_file("/mnt/big.bin", big, sizeof(big), 4096), 61000);
		ck_assert_int_eq(do_umount("/mnt", 0), 0);
	}
	ck_assert_uint_eq(nr_free_pages(), before);
}
END_TEST

/* The host's e2fsck -fn on the fake disk as it is now: its exit status
 * (0: clean, nothing to fix). */
static int host_fsck(void)
{
	char path[] = "/tmp/check_ext2_XXXXXX", cmd[128];
	int fd = mkstemp(path), status;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, ram, ram_bytes), (ssize_t)ram_bytes);
	close(fd);
	snprintf(cmd, sizeof(cmd), "PATH=$PATH:/usr/sbin:/sbin e2fsck -fn %s >/dev/null 2>&1", path);
	status = system(cmd);
	unlink(path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * A file rewritten through a read-write mount: cut to nothing (O_TRUNC),
 * written in uneven pieces past its direct blocks, a few bytes far past
 * the end (a hole, then an indirect path of its own), fsync, then cut
 * back into the hole.  After umount the host's e2fsck finds nothing to
 * fix and the superblock says "clean"; mounted again, the file reads as
 * written (zeros in the hole, its size the cut's), and the blocks the
 * cut freed are free again (statfs).
 */
START_TEST(write_truncate_and_fsck)
{
	static char want[100000], got[100000];
	struct statfs before, after;
	const struct ext2_super_block *es;
	long fd;

	setup_disk(block_sizes[_i]);
	es = (const void *)(ram + 1024);
	for (size_t i = 0; i < 70000; i++)
		want[i] = (char)(i * 13 + i / 4093);
	ck_assert_int_eq(host_fsck(), 0);
	ck_assert_int_eq(do_mount("/dev/fake", "/mnt", "ext2", 0, NULL), 0);
	ck_assert(es->s_state == 0); /* "mounted, not clean", on the disk already */
	ck_assert_int_eq(sys_statfs("/mnt", &before), 0);
	fd = sys_open("/mnt/hello.txt", O_WRONLY | O_TRUNC, 0);
	ck_assert_int_ge(fd, 0);
	for (size_t at = 0; at < 70000; at += 3001)
		ck_assert_int_eq(sys_write(fd, want + at, min((size_t)3001, 70000 - at)),
				 min((size_t)3001, 70000 - at));
	ck_assert_int_eq(sys_pwrite64(fd, "far away", 8, 300000), 8);
	ck_assert_int_eq(sys_fsync(fd), 0);
	ck_assert_int_eq(sys_ftruncate(fd, 100000), 0);
	ck_assert_int_eq(sys_close(fd), 0);
	ck_assert_int_eq(sys_statfs("/mnt", &after), 0);
	/* 70000 bytes and the map's indirect block: a block or two of
	 * rounding, never the far write's blocks */
	ck_assert_uint_le(before.f_bfree - after.f_bfree, 70000 / bs + 3);
	ck_assert_uint_ge(before.f_bfree - after.f_bfree, 70000 / bs);
	ck_assert_int_eq(do_umount("/mnt", 0), 0);
	ck_assert(es->s_state == EXT2_VALID_FS);
	ck_assert_uint_eq(es->s_free_blocks_count, after.f_bfree);
	ck_assert_int_eq(host_fsck(), 0);

	ck_assert_int_eq(mount_ro(), 0);
	memset(got, 0x55, sizeof(got));
	ck_assert_int_eq(guest_file("/mnt/hello.txt", got, sizeof(got), 4096), 100000);
	ck_assert(!memcmp(want, got, sizeof(got)));
	ck_assert_int_eq(do_umount("/mnt", 0), 0);
}
END_TEST

/*
 * A read-only-compatible feature this driver does not know: a read-write
 * mount becomes read-only (said in the log), and the superblock is left
 * as it was -- not even the mount count changes.
 */
START_TEST(unknown_ro_compat_mounts_read_only)
{
	struct ext2_super_block *es;
	struct statfs sf;
	u16 mounts;

	setup_disk(block_sizes[_i]);
	es = (void *)(ram + 1024);
	es->s_feature_ro_compat |= 0x1000;
	mounts = es->s_mnt_count;
	ck_assert_int_eq(do_mount("/dev/fake", "/mnt", "ext2", 0, NULL), 0);
	ck_assert_ptr_nonnull(strstr(host_printk_buf,
				     "couldn't mount RDWR because of unsupported optional features (1000)"));
	ck_assert_int_eq(sys_statfs("/mnt", &sf), 0);
	ck_assert(sf.f_flags & ST_RDONLY);
	ck_assert_int_eq(sys_open("/mnt/hello.txt", O_WRONLY, 0), -EROFS);
	ck_assert_int_eq(do_umount("/mnt", 0), 0);
	ck_assert_uint_eq(es->s_mnt_count, mounts);
	ck_assert_uint_eq(es->s_state, EXT2_VALID_FS);
}
END_TEST

/*
 * mount -o remount: read-only is refused while a file is open for
 * writing and while an unlinked file is still open (EBUSY, as Linux);
 * then granted, it leaves the image as umount would -- "clean", e2fsck
 * silent -- and writes get EROFS.  Back to read-write: "not clean"
 * again, one more mount counted.
 */
START_TEST(remount_read_only_and_back)
{
	const struct ext2_super_block *es;
	struct statfs sf;
	u16 mounts;
	long fd;

	setup_disk(block_sizes[_i]);
	es = (const void *)(ram + 1024);
	ck_assert_int_eq(do_mount("/dev/fake", "/mnt", "ext2", 0, NULL), 0);
	mounts = es->s_mnt_count;
	ck_assert(es->s_state == 0);
	fd = sys_open("/mnt/new.txt", O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(sys_write(fd, "remount", 7), 7);
	ck_assert_int_eq(do_mount(NULL, "/mnt", NULL, MS_REMOUNT | MS_RDONLY, NULL), -EBUSY);
	ck_assert_int_eq(sys_close(fd), 0);
	fd = sys_open("/mnt/hello.txt", O_RDONLY, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(sys_unlink("/mnt/hello.txt"), 0);
	ck_assert_int_eq(do_mount(NULL, "/mnt", NULL, MS_REMOUNT | MS_RDONLY, NULL), -EBUSY);
	ck_assert_int_eq(sys_close(fd), 0); /* its blocks freed now */
	ck_assert_int_eq(do_mount(NULL, "/mnt/lost+found", NULL, MS_REMOUNT | MS_RDONLY, NULL),
			 -EINVAL); /* not a mount point */
	ck_assert_int_eq(do_mount(NULL, "/mnt", NULL, MS_REMOUNT | MS_RDONLY, NULL), 0);
	ck_assert_uint_eq(es->s_state, EXT2_VALID_FS);
	ck_assert_int_eq(host_fsck(), 0);
	ck_assert_int_eq(sys_statfs("/mnt", &sf), 0);
	ck_assert(sf.f_flags & ST_RDONLY);
	ck_assert_int_eq(sys_open("/mnt/new.txt", O_WRONLY, 0), -EROFS);
	ck_assert_int_eq(do_mount(NULL, "/mnt", NULL, MS_REMOUNT, NULL), 0);
	ck_assert(es->s_state == 0);
	ck_assert_uint_eq(es->s_mnt_count, (u16)(mounts + 1));
	fd = sys_open("/mnt/new.txt", O_WRONLY | O_APPEND, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(sys_write(fd, " twice", 6), 6);
	ck_assert_int_eq(sys_close(fd), 0);
	ck_assert_int_eq(do_umount("/mnt", 0), 0);
	ck_assert_uint_eq(es->s_state, EXT2_VALID_FS);
	ck_assert_int_eq(host_fsck(), 0);
}
END_TEST

/* ... and a read-only-compatible feature this driver does not know
 * refuses read-write (EROFS) rather than leave it read-only silently;
 * the superblock is untouched. */
START_TEST(remount_rw_refused_for_unknown_ro_compat)
{
	struct ext2_super_block *es;
	u16 mounts;

	setup_disk(block_sizes[_i]);
	es = (void *)(ram + 1024);
	es->s_feature_ro_compat |= 0x1000;
	mounts = es->s_mnt_count;
	ck_assert_int_eq(mount_ro(), 0);
	ck_assert_int_eq(do_mount(NULL, "/mnt", NULL, MS_REMOUNT, NULL), -EROFS);
	ck_assert_ptr_nonnull(strstr(host_printk_buf,
				     "couldn't remount RDWR because of unsupported optional features (1000)"));
	ck_assert_int_eq(sys_open("/mnt/hello.txt", O_WRONLY, 0), -EROFS);
	ck_assert_int_eq(do_umount("/mnt", 0), 0);
	ck_assert_uint_eq(es->s_mnt_count, mounts);
	ck_assert_uint_eq(es->s_state, EXT2_VALID_FS);
}
END_TEST

/* Name i of NAMES in /mnt/d: 150 bytes each, 160 in a directory block. */
#define NAMES 30
static void long_name(char *buf, int i)
{
	int n = snprintf(buf, 200, "/mnt/d/%03d-", i);

	memset(buf + n, 'n', 150 - 4);
	buf[n + 146] = '\0';
}

/*
 * The name space changed through a read-write mount, errors included: a
 * directory grown past one block by 150 names (st_size), every other
 * name unlinked, a tree of directories (link counts), hard and symbolic
 * links, renames within and across directories and over a file, and the
 * refusals -- EEXIST, ENOENT, ENOTEMPTY for rmdir and for a rename over
 * a full directory, EEXIST for a link's name.  After umount the host's
 * e2fsck finds nothing to fix (entries, counts, bitmaps); mounted again,
 * every name and count is what was done.
 */
START_TEST(names_change_and_fsck)
{
	struct stat st;
	char name[200], buf[64];

	setup_disk(block_sizes[_i]);
	ck_assert_int_eq(do_mount("/dev/fake", "/mnt", "ext2", 0, NULL), 0);
	ck_assert_int_eq(sys_mkdir("/mnt/d", 0755), 0);
	for (int i = 0; i < NAMES; i++) {
		long fd;

		long_name(name, i);
		fd = sys_open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(sys_close(fd), 0);
	}
	ck_assert_int_eq(sys_stat("/mnt/d", &st), 0);
	ck_assert_int_gt(st.st_size, (off_t)bs); /* "." and ".." and 30 x 160 bytes */
	for (int i = 0; i < NAMES; i += 2) {
		long_name(name, i);
		ck_assert_int_eq(sys_unlink(name), 0);
	}
	ck_assert_int_eq(sys_unlink(name), -ENOENT);
	ck_assert_int_eq(sys_mkdir("/mnt/d", 0755), -EEXIST);
	ck_assert_int_eq(sys_mkdir("/mnt/d/x", 0755), 0);
	ck_assert_int_eq(sys_mkdir("/mnt/d/x/y", 0755), 0);
	ck_assert_int_eq(sys_mkdir("/mnt/e", 0755), 0);
	ck_assert_int_eq(sys_rmdir("/mnt/d/x"), -ENOTEMPTY);
	ck_assert_int_eq(sys_rename("/mnt/e", "/mnt/d/x"), -ENOTEMPTY);
	ck_assert_int_eq(sys_rename("/mnt/d/x", "/mnt/moved"), 0); /* across */
	ck_assert_int_eq(sys_rename("/mnt/e", "/mnt/moved/y"), 0); /* over empty */
	ck_assert_int_eq(sys_link("/mnt/hello.txt", "/mnt/moved/second"), 0);
	ck_assert_int_eq(sys_link("/mnt/hello.txt", "/mnt/moved/second"), -EEXIST);
	long_name(name, 1);
	ck_assert_int_eq(sys_rename(name, "/mnt/moved/second"), 0);
	ck_assert_int_eq(sys_symlink("hello.txt", "/mnt/fast2"), 0);
	memset(buf, 'p', 59);
	buf[59] = '\0';
	ck_assert_int_eq(sys_symlink(buf, "/mnt/edge59"), 0); /* the longest fast */
	buf[59] = 'p';
	buf[60] = '\0';
	ck_assert_int_eq(sys_symlink(buf, "/mnt/edge60"), 0); /* the shortest slow */
	ck_assert_int_eq(do_umount("/mnt", 0), 0);
	ck_assert_int_eq(host_fsck(), 0);

	ck_assert_int_eq(mount_ro(), 0);
	ck_assert_int_eq(sys_stat("/mnt/d", &st), 0);
	ck_assert_uint_eq(st.st_nlink, 2); /* x moved away */
	ck_assert_int_eq(sys_stat("/mnt/moved", &st), 0);
	ck_assert_uint_eq(st.st_nlink, 3); /* y, now the old e */
	ck_assert_int_eq(sys_stat("/mnt/hello.txt", &st), 0);
	ck_assert_uint_eq(st.st_nlink, 1); /* its second name renamed over */
	ck_assert_int_eq(sys_stat("/mnt/moved/second", &st), 0);
	ck_assert_uint_eq(st.st_size, 0);
	long_name(name, 1);
	ck_assert_int_eq(sys_stat(name, &st), -ENOENT);
	long_name(name, NAMES - 1);
	ck_assert_int_eq(sys_stat(name, &st), 0);
	long_name(name, NAMES - 2);
	ck_assert_int_eq(sys_stat(name, &st), -ENOENT);
	ck_assert_int_eq(sys_readlinkat(AT_FDCWD, "/mnt/edge59", name, sizeof(name)), 59);
	ck_assert_int_eq(sys_readlinkat(AT_FDCWD, "/mnt/edge60", name, sizeof(name)), 60);
	ck_assert_int_eq(sys_readlinkat(AT_FDCWD, "/mnt/fast2", name, sizeof(name)), 9);
	ck_assert_int_eq(do_umount("/mnt", 0), 0);
}
END_TEST

/*
 * A full disk: once a file has taken every free block, new names go on
 * only while the directory's blocks have room; the name that needs a new
 * block, a mkdir (its first block) and a slow link (its block) get
 * ENOSPC, and each failed attempt gives its new inode back (statfs's free
 * inodes) -- e2fsck -fn finds nothing left behind.
 */
START_TEST(names_on_a_full_disk)
{
	static char chunk[65536];
	struct statfs before, after;
	char name[200];
	long fd, n;
	int made = 0;

	setup_disk(block_sizes[_i]);
	ck_assert_int_eq(do_mount("/dev/fake", "/mnt", "ext2", 0, NULL), 0);
	ck_assert_int_eq(sys_mkdir("/mnt/d", 0755), 0);
	fd = sys_open("/mnt/filler", O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	/* big pieces, then a block at a time: to the last free block */
	while ((n = sys_write(fd, chunk, sizeof(chunk))) == (long)sizeof(chunk))
		;
	while ((n = sys_write(fd, chunk, bs)) == (long)bs)
		;
	ck_assert_int_eq(n, -ENOSPC);
	ck_assert_int_eq(sys_close(fd), 0);
	ck_assert_int_eq(sys_statfs("/mnt", &before), 0);
	ck_assert_uint_eq(before.f_bfree, 0);
	for (;;) {
		long_name(name, made);
		fd = sys_open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			break;
		ck_assert_int_eq(sys_close(fd), 0);
		made++;
	}
	ck_assert_int_eq(fd, -ENOSPC);
	/* what the first block holds after "." and "..": 160 bytes a name */
	ck_assert_int_eq(made, (int)(bs - 24) / 160);
	ck_assert_int_eq(sys_statfs("/mnt", &before), 0);
	ck_assert_int_eq(sys_mkdir("/mnt/newdir", 0755), -ENOSPC);
	memset(name, 's', 100);
	name[100] = '\0';
	ck_assert_int_eq(sys_symlink(name, "/mnt/slow-new"), -ENOSPC);
	ck_assert_int_eq(sys_statfs("/mnt", &after), 0);
	ck_assert_uint_eq(after.f_ffree, before.f_ffree);
	ck_assert_uint_eq(after.f_bfree, before.f_bfree);
	ck_assert_int_eq(do_umount("/mnt", 0), 0);
	ck_assert_int_eq(host_fsck(), 0);
}
END_TEST

/* The allocator's searches, on bitmaps and descriptors made here. */
START_TEST(bitmap_search)
{
	u8 bm[16] = { 0 }; /* 128 blocks */

	ck_assert_int_eq(ext2_bitmap_find(bm, 128, 37), 37); /* the goal itself */
	ext2_set_bit(bm, 37);
	ext2_set_bit(bm, 38);
	ck_assert_int_eq(ext2_bitmap_find(bm, 128, 37), 39); /* the next after it */
	ck_assert_uint_eq(ext2_bitmap_run(bm, 128, 39, 1000), 128 - 39);
	ck_assert_uint_eq(ext2_bitmap_run(bm, 128, 30, 5), 5);
	ck_assert_uint_eq(ext2_bitmap_run(bm, 128, 30, 50), 7);
	ck_assert_uint_eq(ext2_bitmap_run(bm, 128, 37, 50), 0);
	memset(bm + 5, 0xff, 11);			      /* 40..127 taken */
	ck_assert_int_eq(ext2_bitmap_find(bm, 128, 40), 0);   /* wraps round */
	ck_assert_int_eq(ext2_bitmap_find(bm, 128, 500), 0);  /* past the end: from 0 */
	ck_assert_int_eq(ext2_bitmap_find(bm, 100, 39), 39);
	memset(bm, 0xff, 5);
	ck_assert_int_eq(ext2_bitmap_find(bm, 128, 3), -1);
	ext2_clear_bit(bm, 127);
	ck_assert_int_eq(ext2_bitmap_find(bm, 128, 3), 127);
	ck_assert_int_eq(ext2_bitmap_find(bm, 127, 3), -1); /* bit 127 is past nbits */
}
END_TEST

START_TEST(group_choice)
{
	struct ext2_group_desc gd[4] = { 0 };
	struct ext2_sb_info sbi = { .s_groups_count = 4, .s_group_desc = gd };

	for (int g = 0; g < 4; g++) {
		gd[g].bg_free_blocks_count = 100;
		gd[g].bg_free_inodes_count = 10;
	}
	/* blocks: the goal's group, else the next with room, wrapping */
	ck_assert_int_eq(ext2_find_block_group(&sbi, 2), 2);
	gd[2].bg_free_blocks_count = 0;
	gd[3].bg_free_blocks_count = 0;
	ck_assert_int_eq(ext2_find_block_group(&sbi, 2), 0);
	/* a file: its directory's group while it has an inode and a block */
	ck_assert_int_eq(ext2_find_inode_group(&sbi, 1, false), 1);
	ck_assert_int_eq(ext2_find_inode_group(&sbi, 3, false), 0); /* no blocks in 3 */
	gd[0].bg_free_inodes_count = 0;
	ck_assert_int_eq(ext2_find_inode_group(&sbi, 1, false), 1);
	/* none with both (3 + 1, + 2 probed): the first with an inode, its own */
	ck_assert_int_eq(ext2_find_inode_group(&sbi, 3, false), 3);
	gd[1].bg_free_blocks_count = 0;
	gd[2].bg_free_blocks_count = 100;
	ck_assert_int_eq(ext2_find_inode_group(&sbi, 3, false), 2);
	/* a directory: above-average room, then the fewest directories */
	for (int g = 0; g < 4; g++) {
		gd[g].bg_free_blocks_count = 100;
		gd[g].bg_free_inodes_count = 10;
		gd[g].bg_used_dirs_count = (u16)(5 + 2 * g);
	}
	gd[1].bg_used_dirs_count = 2;
	ck_assert_int_eq(ext2_find_inode_group(&sbi, 0, true), 1);
	gd[1].bg_free_inodes_count = 1; /* below the average now */
	ck_assert_int_eq(ext2_find_inode_group(&sbi, 0, true), 0);
	/* none with a free inode: -1; with only one: that one */
	for (int g = 0; g < 4; g++)
		gd[g].bg_free_inodes_count = 0;
	ck_assert_int_eq(ext2_find_inode_group(&sbi, 0, true), -1);
	ck_assert_int_eq(ext2_find_inode_group(&sbi, 0, false), -1);
	gd[3].bg_free_inodes_count = 1;
	ck_assert_int_eq(ext2_find_inode_group(&sbi, 0, false), 3);
	for (int g = 0; g < 4; g++)
		gd[g].bg_free_blocks_count = 0;
	ck_assert_int_eq(ext2_find_block_group(&sbi, 1), -1);
}
END_TEST

/* --- Limits: damaged images ----------------------------------------------------- */

enum where { AT_SUPER,
	     AT_DESC,
	     AT_INODE,
	     AT_BLOCK };
enum op { OP_MOUNT,
	  OP_STAT,
	  OP_LSTAT,
	  OP_READ,
	  OP_READDIR,
	  OP_READLINK };
#define V_BLOCKS_COUNT 0xb10c0000u /* value: the file system's block count */

struct damage {
	const char *name;
	enum where where;
	const char *what;	  /* a layout name: the inode or block */
	unsigned int offset, len; /* the field, in it */
	u32 value;
	enum op op;
	const char *path;
	int err;
	const char *log; /* a part of the line it logs */
	u32 dtime;	 /* AT_INODE: also set i_dtime (a freed inode) */
	const char *log_ino; /* a layout name: the inode number for log's %lu */
};

#define SB(field) AT_SUPER, NULL, offsetof(struct ext2_super_block, field), \
		  sizeof(((struct ext2_super_block *)0)->field)
#define GD(field) AT_DESC, NULL, offsetof(struct ext2_group_desc, field), \
		  sizeof(((struct ext2_group_desc *)0)->field)
#define INO(ino, field) AT_INODE, ino, offsetof(struct ext2_inode, field), \
			sizeof(((struct ext2_inode *)0)->field)
#define DE(blk, at, field) AT_BLOCK, blk, (at) + offsetof(struct ext2_dir_entry_2, field), \
			   sizeof(((struct ext2_dir_entry_2 *)0)->field)

static const struct damage damages[] = {
	{ "magic", SB(s_magic), 0, OP_MOUNT, NULL, -EINVAL,
	  "EXT2-fs (fake): error: can't find an ext2 filesystem on dev fake.", 0, NULL },
	{ "revision 2", SB(s_rev_level), 2, OP_MOUNT, NULL, -EINVAL, "revision level 2 too high", 0, NULL },
	{ "incompat feature", SB(s_feature_incompat), 0x10002, OP_MOUNT, NULL, -EINVAL,
	  "EXT2-fs (fake): error: couldn't mount because of unsupported optional features (10000)", 0, NULL },
	{ "meta_bg", SB(s_feature_incompat), 0x12, OP_MOUNT, NULL, -EINVAL,
	  "unsupported optional features (10)", 0, NULL },
	{ "block size 64 KiB", SB(s_log_block_size), 6, OP_MOUNT, NULL, -EINVAL,
	  "unsupported blocksize", 0, NULL },
	{ "inode size 100", SB(s_inode_size), 100, OP_MOUNT, NULL, -EUCLEAN,
	  "error: unsupported inode size: 100", 0, NULL },
	{ "no blocks per group", SB(s_blocks_per_group), 0, OP_MOUNT, NULL, -EUCLEAN,
	  "error: #blocks per group too big: 0", 0, NULL },
	{ "blocks per group", SB(s_blocks_per_group), 0x100000, OP_MOUNT, NULL, -EUCLEAN,
	  "error: #blocks per group too big", 0, NULL },
	{ "inodes per group", SB(s_inodes_per_group), 1, OP_MOUNT, NULL, -EUCLEAN,
	  "error: invalid #inodes per group: 1", 0, NULL },
	{ "inode count", SB(s_inodes_count), 65, OP_MOUNT, NULL, -EUCLEAN,
	  "error: invalid #inodes: 65 vs computed 64", 0, NULL },
	{ "first data block", SB(s_first_data_block), 7, OP_MOUNT, NULL, -EUCLEAN,
	  "error: first data block 7", 0, NULL },
	{ "past the device", SB(s_blocks_count), 0x7fffffff, OP_MOUNT, NULL, -EUCLEAN,
	  "bad geometry: block count 2147483647 exceeds size of device", 0, NULL },
	{ "reserved blocks", SB(s_r_blocks_count), 0x7fffffff, OP_MOUNT, NULL, -EUCLEAN,
	  "reserved block count 2147483647 exceeds", 0, NULL },
	{ "first inode", SB(s_first_ino), 3, OP_MOUNT, NULL, -EUCLEAN, "invalid first inode 3", 0, NULL },
	{ "block bitmap", GD(bg_block_bitmap), V_BLOCKS_COUNT, OP_MOUNT, NULL, -EUCLEAN,
	  "EXT2-fs error (device fake): ext2_check_descriptors: Block bitmap for group 0 not in group", 0, NULL },
	{ "inode bitmap", GD(bg_inode_bitmap), V_BLOCKS_COUNT, OP_MOUNT, NULL, -EUCLEAN,
	  "Inode bitmap for group 0 not in group", 0, NULL },
	{ "inode table", GD(bg_inode_table), V_BLOCKS_COUNT - 1, OP_MOUNT, NULL, -EUCLEAN,
	  "Inode table for group 0 not in group", 0, NULL },
	{ "root inode type", INO("ino_root", i_mode), 0170755, OP_MOUNT, NULL, -EUCLEAN,
	  "ext2_iget: inode 2: bad file type (mode 0170755)", 0, NULL },
	{ "root not a directory", INO("ino_root", i_mode), 0100755, OP_MOUNT, NULL, -EUCLEAN,
	  "error: corrupt root inode, run e2fsck", 0, NULL },
	{ "inode type", INO("ino_hello_txt", i_mode), 0170644, OP_STAT, "/mnt/hello.txt",
	  -EUCLEAN, "EXT2-fs error (device fake): ext2_iget: inode %lu: bad file type", 0, "ino_hello_txt" },
	{ "freed inode", INO("ino_hello_txt", i_links_count), 0, OP_STAT, "/mnt/hello.txt",
	  -EIO, "EXT2-fs error (device fake): ext2_lookup: deleted inode referenced: %lu",
	  1600000000, "ino_hello_txt" },
	{ "file too large", INO("ino_big_bin", i_size_high), 0x7fffffff, OP_STAT, "/mnt/big.bin",
	  -EUCLEAN, "inode %lu: size", 0, "ino_big_bin" },
	{ "directory size", INO("ino_sub", i_size), 1000, OP_STAT, "/mnt/sub",
	  -EUCLEAN, "size of directory #%lu is not a multiple of chunk size", 0, "ino_sub" },
	{ "fast link too long", INO("ino_fast", i_size), 200, OP_LSTAT, "/mnt/fast",
	  -EUCLEAN, "inode %lu: symbolic link of 200 bytes", 0, "ino_fast" },
	{ "slow link without block", INO("ino_slow", i_block[0]), 0, OP_READLINK, "/mnt/slow",
	  -EUCLEAN, "symbolic link #%lu has no block", 0, "ino_slow" },
	{ "rec_len unaligned", DE("blk_sub_0", 0, rec_len), 13, OP_READDIR, "/mnt/sub",
	  -EUCLEAN, "bad entry in directory #%lu: unaligned directory entry - offset=0, inode=%lu, rec_len=13, name_len=1",
	  0, "ino_sub" },
	{ "rec_len small", DE("blk_sub_0", 0, rec_len), 8, OP_READDIR, "/mnt/sub",
	  -EUCLEAN, "rec_len is smaller than minimal", 0, NULL },
	{ "rec_len past the block", DE("blk_sub_0", 12, rec_len), 0xfff0, OP_READDIR, "/mnt/sub",
	  -EUCLEAN, "directory entry across blocks - offset=12", 0, NULL },
	{ "name_len", DE("blk_sub_0", 0, name_len), 200, OP_READDIR, "/mnt/sub",
	  -EUCLEAN, "rec_len is too small for name_len", 0, NULL },
	{ "entry inode", DE("blk_sub_0", 0, inode), 0xffffff, OP_READDIR, "/mnt/sub",
	  -EUCLEAN, "inode out of bounds", 0, NULL },
	{ "entry names a reserved inode", DE("blk_sub_0", 24, inode), 5, OP_STAT, "/mnt/sub/file",
	  -EUCLEAN, "EXT2-fs error (device fake): ext2_get_inode: bad inode number: 5", 0, NULL },
	{ "lookup through a damaged block", DE("blk_root_0", 0, rec_len), 2, OP_STAT,
	  "/mnt/hello.txt", -EUCLEAN, "rec_len is smaller than minimal", 0, NULL },
	{ "data block past the end", INO("ino_hello_txt", i_block[0]), V_BLOCKS_COUNT,
	  OP_READ, "/mnt/hello.txt", -EUCLEAN, "inode %lu: data block", 0, "ino_hello_txt" },
	{ "indirect block past the end", INO("ino_big_bin", i_block[EXT2_IND_BLOCK]), 0xfffffff0,
	  OP_READ, "/mnt/big.bin", -EUCLEAN, "inode %lu: indirect block 4294967280 outside the file system", 0,
	  "ino_big_bin" },
	{ "indirect entry", AT_BLOCK, "ind_big", 0, 4, 0xfffffff0, OP_READ, "/mnt/big.bin",
	  -EUCLEAN, "ext2_get_branch: inode %lu: data block 4294967280 outside the file system (logical block",
	  0, "ino_big_bin" },
};

static u32 *field_at(const struct damage *d, unsigned int *len)
{
	u8 *fs = ram;
	size_t at;

	*len = d->len;
	switch (d->where) {
	case AT_SUPER:
		at = EXT2_SUPER_OFFSET;
		break;
	case AT_DESC:
		at = (size_t)(bs == 1024 ? 2 : 1) * bs;
		break;
	case AT_INODE: {
		const struct ext2_super_block *es = (const void *)(fs + EXT2_SUPER_OFFSET);
		unsigned long ino = strcmp(d->what, "ino_root") ? L(d->what) : EXT2_ROOT_INO;

		at = L("itable0") * bs + (ino - 1) * es->s_inode_size;
		break;
	}
	default:
		at = L(d->what) * bs;
	}
	at += d->offset;
	ck_assert_uint_le(at + *len, ram_bytes);
	return (u32 *)(fs + at);
}

static void damage_image(const struct damage *d)
{
	const struct ext2_super_block *es = (const void *)(ram + EXT2_SUPER_OFFSET);
	u32 v = d->value;
	unsigned int len;
	void *p = field_at(d, &len);

	if (v >= V_BLOCKS_COUNT - 16 && v <= V_BLOCKS_COUNT)
		v = es->s_blocks_count - (V_BLOCKS_COUNT - v);
	if (d->dtime)
		((struct ext2_inode *)((u8 *)p - d->offset))->i_dtime = d->dtime;
	if (len == 1)
		*(u8 *)p = (u8)v;
	else if (len == 2)
		*(u16 *)p = (u16)v;
	else
		*(u32 *)p = v;
}

static long run_op(const struct damage *d)
{
	static char buf[70000];
	struct stat st;

	switch (d->op) {
	case OP_MOUNT:
		return mount_ro();
	case OP_STAT:
		return sys_stat(d->path, &st);
	case OP_LSTAT:
		return sys_lstat(d->path, &st);
	case OP_READ:
		return guest_file(d->path, buf, sizeof(buf), 4096);
	case OP_READLINK:
		return sys_readlinkat(AT_FDCWD, d->path, buf, 256);
	case OP_READDIR: {
		long fd = sys_open(d->path, O_RDONLY | O_DIRECTORY, 0), n;

		if (fd < 0)
			return fd;
		while ((n = sys_getdents64(fd, (struct linux_dirent64 *)buf, 4096)) > 0)
			;
		sys_close(fd);
		return n;
	}
	}
	return 0;
}

START_TEST(damaged_image)
{
	const struct damage *d = &damages[_i / 2];
	char log[256];
	long ret;

	setup_disk(block_sizes[_i % 2]);
	damage_image(d);
	if (d->op != OP_MOUNT)
		ck_assert_int_eq(mount_ro(), 0);
	host_printk_reset();
	ret = run_op(d);
	ck_assert_msg(ret == d->err, "%s (%u): got %ld, expected %d; log: %s", d->name, bs, ret,
		      d->err, host_printk_buf);
	if (d->log_ino)
		snprintf(log, sizeof(log), d->log, L(d->log_ino), L(d->log_ino));
	else
		strlcpy(log, d->log, sizeof(log));
	ck_assert_msg(strstr(host_printk_buf, log), "%s (%u): log lacks \"%s\": %s", d->name, bs,
		      log, host_printk_buf);
	/* the same error again: the caller learns of it every time */
	if (d->op != OP_MOUNT) {
		ck_assert_int_eq(run_op(d), d->err);
		ck_assert_int_eq(do_umount("/mnt", 0), 0);
	}
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("ext2");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, NULL, teardown);
	tcase_add_loop_test(core, files_read_as_the_hosts, 0, ARRAY_SIZE(block_sizes));
	tcase_add_loop_test(core, pread_anywhere_in_a_file, 0, ARRAY_SIZE(block_sizes));
	tcase_add_loop_test(core, direct_read_at_an_unaligned_end, 0, ARRAY_SIZE(block_sizes));
	tcase_add_loop_test(core, holes_at_every_level, 0, ARRAY_SIZE(block_sizes));
	tcase_add_loop_test(core, stat_lstat_and_links, 0, ARRAY_SIZE(block_sizes));
	tcase_add_loop_test(core, getdents_lists_every_name_once, 0, ARRAY_SIZE(block_sizes));
	tcase_add_loop_test(core, statfs_and_read_only, 0, ARRAY_SIZE(block_sizes));
	tcase_add_loop_test(core, file_pages_cached_across_opens, 0, ARRAY_SIZE(block_sizes));
	tcase_add_loop_test(core, mount_and_umount_leak_nothing, 0, ARRAY_SIZE(block_sizes));
	tcase_add_loop_test(core, write_truncate_and_fsck, 0, ARRAY_SIZE(block_sizes));
	tcase_add_loop_test(core, unknown_ro_compat_mounts_read_only, 0, ARRAY_SIZE(block_sizes));
	tcase_add_loop_test(core, remount_read_only_and_back, 0, ARRAY_SIZE(block_sizes));
	tcase_add_loop_test(core, remount_rw_refused_for_unknown_ro_compat, 0,
			    ARRAY_SIZE(block_sizes));
	tcase_add_loop_test(core, names_change_and_fsck, 0, ARRAY_SIZE(block_sizes));
	tcase_add_loop_test(core, names_on_a_full_disk, 0, ARRAY_SIZE(block_sizes));
	tcase_add_test(core, bitmap_search);
	tcase_add_test(core, group_choice);
	suite_add_tcase(s, core);
	tcase_add_checked_fixture(limits, NULL, teardown);
	tcase_add_loop_test(limits, damaged_image, 0, 2 * ARRAY_SIZE(damages));
	suite_add_tcase(s, limits);
	return s;
}
