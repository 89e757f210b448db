// SPDX-License-Identifier: MIT
/*
 * ext2's hashed directories (fs/ext2/htree.c) on the host, against
 * e2fsprogs as the oracle (tests/unit/ext2/make_images.sh made the data).
 *
 * Core: every hash version -- legacy, half_md4, tea, each signed and
 * unsigned -- with and without a seed, for names of 1 to 255 bytes and
 * bytes past 127, equal to debugfs's dx_hash; every name of a directory
 * e2fsck -fD indexed (two levels at 1 KiB, half_md4; one at 4 KiB, tea)
 * found in the leaf the probe leads to, and a name that is not there
 * leading to a leaf that does not hold it.  Limits: a table of damaged
 * indexes -- each field of the root and of an interior block set to a
 * bad value -- each answered -EUCLEAN with its warning line, the
 * caller's cue to read linearly; never a read outside the directory.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/ext2_fs.h>
#include "../../fs/ext2/ext2.h"

/* --- the hashes ---------------------------------------------------------- */

static void parse_seed(const char *text, u32 seed[4])
{
	u8 bytes[16];
	int n = 0;

	memset(seed, 0, 16);
	if (!strcmp(text, "0"))
		return;
	for (const char *p = text; *p && n < 16; p++) {
		unsigned int byte;

		if (*p == '-')
			continue;
		ck_assert_int_eq(sscanf(p, "%2x", &byte), 1);
		bytes[n++] = (u8)byte;
		p++;
	}
	ck_assert_int_eq(n, 16);
	/* the superblock holds the UUID's bytes; the hash reads them as
	 * little-endian words, as this host does */
	memcpy(seed, bytes, 16);
}

START_TEST(hashes_match_debugfs)
{
	char path[512], seed_text[64], hex[600];
	unsigned int version, want, want_minor;
	int lines = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/hashes.txt", EXT2_IMAGE_DIR);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "no %s (make_images.sh)", path);
	while (fscanf(f, "%u %63s %599s %x %x", &version, seed_text, hex, &want, &want_minor) == 5) {
		char name[300];
		int len = (int)strlen(hex) / 2;
		u32 seed[4], hash, minor;

		for (int i = 0; i < len; i++) {
			unsigned int byte;

			sscanf(hex + 2 * i, "%2x", &byte);
			name[i] = (char)byte;
		}
		parse_seed(seed_text, seed);
		ck_assert_int_eq(ext2_dx_hash(name, len, (int)version, seed, &hash, &minor), 0);
		ck_assert_msg(hash == want && minor == want_minor,
			      "version %u seed %s name %s: %#x/%#x, debugfs says %#x/%#x", version,
			      seed_text, hex, hash, minor, want, want_minor);
		lines++;
	}
	fclose(f);
	ck_assert_int_eq(lines, 6 * 2 * 12);
}
END_TEST

START_TEST(unknown_hash_version_is_refused)
{
	u32 hash = 1;

	ck_assert_int_eq(ext2_dx_hash("a", 1, 6, NULL, &hash, NULL), -EINVAL);
	ck_assert_int_eq(ext2_dx_hash("a", 1, -1, NULL, &hash, NULL), -EINVAL);
}
END_TEST

/* --- the probe, over the images ---------------------------------------------- */

static const unsigned int sizes[] = { 1024, 4096 };
static struct ext2_sb_info sbi;
static u8 *image, *dir;
static unsigned int nblocks;
static unsigned long dir_ino;
static int levels, count;
/* a damaged copy of one directory block, served instead of the image's */
static u8 patched[4096];
static u32 patched_block = ~0u;
static int reads;

/* make_images.sh's htree-<bs>.<ext>, whole */
static u8 *read_file(const char *ext, unsigned int bs, long *size)
{
	char path[512];
	FILE *f;
	u8 *buf;

	snprintf(path, sizeof(path), "%s/htree-%u.%s", EXT2_IMAGE_DIR, bs, ext);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "no %s (make_images.sh)", path);
	fseek(f, 0, SEEK_END);
	*size = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)*size);
	ck_assert_int_eq(fread(buf, 1, (size_t)*size, f), (size_t)*size);
	fclose(f);
	return buf;
}

static void load(unsigned int bs)
{
	char path[512];
	FILE *f;
	long size;
	char key[16];
	long value;

	memset(&sbi, 0, sizeof(sbi));
	strcpy(sbi.s_id, "test");
	sbi.s_err_ratelimit.interval = 1;
	sbi.s_err_ratelimit.burst = 1 << 30;
	image = read_file("img", bs, &size);
	ck_assert_int_eq(ext2_fill_geometry(&sbi, image + 1024, (u64)size), 0);
	ck_assert_uint_eq(sbi.s_blocksize, bs);

	dir = read_file("dir", bs, &size);
	nblocks = (unsigned int)(size / (long)bs);
	snprintf(path, sizeof(path), "%s/htree-%u.layout", EXT2_IMAGE_DIR, bs);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fscanf(f, "%15s %ld", key, &value) == 2) {
		if (!strcmp(key, "ino"))
			dir_ino = (unsigned long)value;
		else if (!strcmp(key, "levels"))
			levels = (int)value;
		else if (!strcmp(key, "count"))
			count = (int)value;
	}
	fclose(f);
	patched_block = ~0u;
	reads = 0;
	host_printk_reset();
}

static void unload(void)
{
	free(image);
	free(dir);
	image = dir = NULL;
}

static const u8 *dir_block(u32 n)
{
	ck_assert_uint_lt(n, nblocks); /* the probe checked it first */
	if (n == patched_block)
		return patched;
	return dir + (size_t)n * sbi.s_blocksize;
}

static int read_block(void *ctx, int level, u32 block, const void **data)
{
	(void)ctx;
	ck_assert_int_ge(level, 0);
	ck_assert_int_lt(level, EXT2_DX_MAX_LEVELS);
	*data = dir_block(block);
	reads++;
	return 0;
}

/* make_images.sh's i-th name */
static int name_of(char *buf, int i)
{
	int len = 100 + i % 20;
	int n = snprintf(buf, 300, "n%04d-", i);

	while (n < len)
		buf[n++] = "abcdefghij"[i % 10];
	buf[n] = 0;
	return n;
}

/* Where the probe says name is: in that leaf, or (hash collisions) a
 * later one ext2_dx_next_leaf reaches. */
static bool probe_finds(const char *name, int len)
{
	struct ext2_dx_path path;
	int err = ext2_dx_probe(&sbi, dir_ino, nblocks, name, len, read_block, NULL, &path);

	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(path.levels, levels + 1);
	for (;;) {
		const u8 *leaf = dir_block(path.leaf);

		ck_assert_int_eq(ext2_check_dir_block(&sbi, leaf, dir_ino, path.leaf), 0);
		if (ext2_dirent_find(leaf, (unsigned int)sbi.s_blocksize, name, len, NULL) >= 0)
			return true;
		err = ext2_dx_next_leaf(&sbi, dir_ino, nblocks, read_block, NULL, &path);
		ck_assert_int_ge(err, 0);
		if (!err)
			return false;
	}
}

START_TEST(every_name_in_its_leaf)
{
	char name[300];

	load(sizes[_i]);
	ck_assert_int_eq(levels, sizes[_i] == 1024 ? 1 : 0);
	for (int i = 0; i < count; i++) {
		int len = name_of(name, i);

		reads = 0;
		ck_assert_msg(probe_finds(name, len), "%s not where the index says", name);
		/* one read per level of the index, not a pass over the directory */
		ck_assert_int_le(reads, levels + 2);
	}
	/* absent names: the index leads to a leaf that does not hold them */
	ck_assert(!probe_finds("absent", 6));
	name_of(name, count);
	ck_assert(!probe_finds(name, (int)strlen(name)));
	ck_assert_str_eq(host_printk_buf, "");
	unload();
}
END_TEST

/*
 * The damages: a byte offset in block `block` of the directory (0: the
 * root; 1: "the first interior block", found through the root), the value
 * written there (size bytes), and the warning expected.
 */
struct damage {
	const char *what;
	int block; /* 0: the root, 1: the root's first child (an interior block) */
	unsigned int off;
	unsigned int size;
	u32 value;
	const char *warning;
};

static const struct damage damages[] = {
	{ "hash version 7", 0, 28, 1, 7, "unrecognised hash code 7" },
	{ "hash version 3 (an unsigned one, never on a disk)", 0, 28, 1, 3,
	  "unrecognised hash code 3" },
	{ "depth 2", 0, 30, 1, 2, "unimplemented hash depth 2" },
	{ "depth 255", 0, 30, 1, 255, "unimplemented hash depth 255" },
	{ "flags bit 0", 0, 31, 1, 1, "unimplemented hash flags" },
	{ "info length 9", 0, 29, 1, 9, "root info length 9" },
	{ "root limit 0", 0, 32, 2, 0, "dx entry: limit 0 !=" },
	{ "root limit one more", 0, 32, 2, 0xffff, "dx entry: limit 65535 !=" },
	{ "root count 0", 0, 34, 2, 0, "dx entry: count 0 beyond limit" },
	{ "root count past the limit", 0, 34, 2, 1000, "dx entry: count 1000 beyond limit" },
	{ "root's first block 0 (the root)", 0, 36, 4, 0, "outside the directory" },
	{ "root's first block past the end", 0, 36, 4, 0x0ffffff0, "outside the directory" },
	{ "interior limit 0", 1, 8, 2, 0, "dx entry: limit 0 !=" },
	{ "interior count 0", 1, 10, 2, 0, "dx entry: count 0 beyond limit" },
	{ "interior count past the limit", 1, 10, 2, 0xffff, "beyond limit" },
	{ "interior's first block past the end", 1, 12, 4, 99999, "outside the directory" },
};

START_TEST(damaged_index_is_refused)
{
	const struct damage *d = &damages[_i];
	struct ext2_dx_path path;
	char name[300];
	int err, len;

	load(1024); /* two levels: an interior block to damage too */
	patched_block = 0;
	if (d->block == 1) {
		const struct ext2_dx_root *root = (const void *)dir;

		patched_block = root->entries[0].block & 0x0fffffff;
	}
	memcpy(patched, dir + (size_t)patched_block * sbi.s_blocksize, sbi.s_blocksize);
	memcpy(patched + d->off, &d->value, d->size);
	/* the first name: its path goes through the root's entry 0 only if
	 * its hash is low; probe every name until one meets the damage */
	err = 0;
	for (int i = 0; i < count && !err; i++) {
		len = name_of(name, i);
		err = ext2_dx_probe(&sbi, dir_ino, nblocks, name, len, read_block, NULL, &path);
	}
	ck_assert_msg(err == -EUCLEAN, "%s: probe said %d", d->what, err);
	ck_assert_msg(strstr(host_printk_buf, d->warning), "%s: log %s", d->what, host_printk_buf);
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "EXT2-fs warning (device test): ext2_dx_probe: inode #"));
	unload();
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("ext2_htree");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_test(core, hashes_match_debugfs);
	tcase_add_test(core, unknown_hash_version_is_refused);
	tcase_add_loop_test(core, every_name_in_its_leaf, 0, ARRAY_SIZE(sizes));
	suite_add_tcase(s, core);
	tcase_add_loop_test(limits, damaged_index_is_refused, 0, ARRAY_SIZE(damages));
	suite_add_tcase(s, limits);
	return s;
}
